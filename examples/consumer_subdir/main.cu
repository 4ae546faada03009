// Sums and sorts on the GPU through a cuprim built with add_subdirectory, and checks both answers. Exits 77 where
// no CUDA device exists (built, nothing to run).
#include <cuprim/cuprim.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <span>
#include <vector>

int main() {
  if (!cuprim::has_device()) {
    std::puts("consumer_subdir: built with add_subdirectory(cuprim); no CUDA device, nothing to run");
    return 77;
  }
  const std::int64_t n = 100000;  // above the on-chip sort sizes
  std::vector<std::uint32_t> host(n);
  for (std::int64_t i = 0; i < n; ++i) host[i] = std::uint32_t(i) * 2654435761u;  // scrambled, distinct
  cuprim::device_buffer<std::uint32_t> keys{std::span<const std::uint32_t>(host)};
  cuprim::device_buffer<std::uint32_t> sorted(n);

  const std::uint64_t total = cuprim::reduce_sync(keys.data(), n, cuprim::plus{}, std::uint64_t{0});
  cuprim::radix_sort_keys(keys.data(), sorted.data(), n);
  const std::vector<std::uint32_t> got = sorted.to_host_sync();

  const std::uint64_t want_total = std::accumulate(host.begin(), host.end(), std::uint64_t{0});
  std::sort(host.begin(), host.end());
  const bool ok = total == want_total && got == host;
  std::printf("consumer_subdir: sum and sort of %lld keys: %s\n", static_cast<long long>(n), ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
