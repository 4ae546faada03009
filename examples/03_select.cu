// Example 03: stream compaction with cuprim. From a million sensor readings (a reading per sample, some
// invalid, with repeated values while the sensor holds still), keep the valid ones (select_if), split valid from
// invalid keeping both in order (partition), drop repeats (unique) and count how long each value was held
// (run_length_encode). Each result is checked against the same computation on the host.
//
//   build/examples/03_select
#include <cuprim/cuprim.cuh>
#include <cuprim/host/select.hpp>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

// A reading is valid when it is not negative (the sensor writes -1 for "no reading").
struct valid_reading {
  __host__ __device__ bool operator()(int x) const { return x >= 0; }
};

int main() {
  if (!cuprim::has_device()) {
    std::puts("03_select: no CUDA device found; this example needs a GPU.");
    return 77;  // reported as skipped by the test suite
  }
  // Readings that hold their value for a random number of samples, one in ten invalid.
  const std::int64_t n = 1'000'003;
  std::vector<int> host(n);
  std::mt19937 gen(2024);
  std::uniform_int_distribution<int> value(0, 999), hold(1, 12), invalid(0, 9);
  for (std::int64_t i = 0; i < n;) {
    const int v = invalid(gen) == 0 ? -1 : value(gen);
    for (int k = hold(gen); k > 0 && i < n; --k) host[i++] = v;
  }

  cudaStream_t stream;
  CUPRIM_CUDA_CHECK(cudaStreamCreate(&stream));
  bool ok = true;
  {  // buffers are released (stream-ordered) before the stream is destroyed
    cuprim::device_buffer<int> readings(std::span<const int>(host), stream);
    cuprim::device_buffer<int> valid(n, stream), split(n, stream), values(n, stream), held(n, stream);
    cuprim::device_buffer<int> distinct_values(n, stream);
    cuprim::device_buffer<std::int64_t> counts(3, stream);

    // Asynchronous calls: the counts stay on the device until we copy them back.
    cuprim::select_if(readings.data(), valid.data(), counts.data() + 0, n, valid_reading{}, stream);
    cuprim::partition(readings.data(), split.data(), counts.data() + 1, n, valid_reading{}, stream);
    cuprim::run_length_encode(readings.data(), values.data(), held.data(), counts.data() + 2, n, stream);
    const std::vector<std::int64_t> c = counts.to_host_sync();  // synchronises the stream

    // The convenience form returns the count to the host (and says so in its name: it synchronises).
    const std::int64_t distinct = cuprim::unique_sync(readings.data(), distinct_values.data(), n, stream);

    // The same on the host.
    std::vector<int> ref_valid(n), ref_split(n), ref_values(n), ref_held(n), ref_unique(n);
    const std::int64_t rv = cuprim::host::select_if(host.data(), ref_valid.data(), n, valid_reading{});
    const std::int64_t rs = cuprim::host::partition(host.data(), ref_split.data(), n, valid_reading{});
    const std::int64_t rr = cuprim::host::run_length_encode(host.data(), ref_values.data(), ref_held.data(), n);
    const std::int64_t ru = cuprim::host::unique(host.data(), ref_unique.data(), n);

    const std::vector<int> got_valid = valid.to_host_sync(), got_split = split.to_host_sync();
    const std::vector<int> got_values = values.to_host_sync(), got_held = held.to_host_sync();
    const std::vector<int> got_unique = distinct_values.to_host_sync();
    auto same = [](const std::vector<int>& a, const std::vector<int>& b, std::int64_t count) {
      for (std::int64_t i = 0; i < count; ++i)
        if (a[i] != b[i]) return false;
      return true;
    };
    ok = c[0] == rv && same(got_valid, ref_valid, rv) && c[1] == rs && same(got_split, ref_split, n) && c[2] == rr &&
         same(got_values, ref_values, rr) && same(got_held, ref_held, rr) && distinct == ru &&
         same(got_unique, ref_unique, ru);
    std::printf("readings              %lld\n", static_cast<long long>(n));
    std::printf("valid (select_if)     %lld (host %lld)\n", static_cast<long long>(c[0]), static_cast<long long>(rv));
    std::printf("partition             %lld valid first, then %lld invalid, each in input order\n",
                static_cast<long long>(c[1]), static_cast<long long>(n - c[1]));
    std::printf("runs (run_length)     %lld (host %lld); first value %d held %d samples\n",
                static_cast<long long>(c[2]), static_cast<long long>(rr), got_values[0], got_held[0]);
    std::printf("distinct (unique)     %lld (host %lld)\n", static_cast<long long>(distinct),
                static_cast<long long>(ru));
  }
  std::printf("%s\n", ok ? "03_select: all results match the host" : "03_select: MISMATCH");
  CUPRIM_CUDA_CHECK(cudaStreamDestroy(stream));
  return ok ? 0 : 1;
}
