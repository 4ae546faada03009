// Sums 1..n on the GPU through an installed cuprim, and checks the answer.
#include <cuprim/cuprim.cuh>

#include <cstdio>
#include <numeric>
#include <vector>

bool consumer_second_unit_sees_device();  // second.cu

int main() {
  if (consumer_second_unit_sees_device() != cuprim::has_device()) return 1;
  if (!cuprim::has_device()) {
    std::puts("consumer: built against the installed cuprim; no CUDA device, nothing to run");
    return 0;
  }
  const std::int64_t n = 1 << 20;
  std::vector<std::uint32_t> host(n);
  std::iota(host.begin(), host.end(), 1u);
  cuprim::device_buffer<std::uint32_t> data{std::span<const std::uint32_t>(host)};
  const auto total = cuprim::reduce_sync(data.data(), n, cuprim::plus{}, std::uint64_t{0});
  const std::uint64_t expected = std::uint64_t(n) * (n + 1) / 2;
  std::printf("consumer: sum of 1..%lld = %llu (%s)\n", static_cast<long long>(n),
              static_cast<unsigned long long>(total), total == expected ? "ok" : "WRONG");
  return total == expected ? 0 : 1;
}
