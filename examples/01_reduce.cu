// Example 01: reductions with cuprim. Sums, extremes, a user operator and argmax on a million random floats,
// each checked against the same computation on the host.
//
//   build/examples/01_reduce
#include <cuprim/cuprim.cuh>
#include <cuprim/host/reduce.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

// A user operator: the sum of squares' partner, the largest absolute value.
struct max_abs {
  __host__ __device__ float operator()(float a, float b) const { return fabsf(a) < fabsf(b) ? fabsf(b) : fabsf(a); }
};

int main() {
  if (!cuprim::has_device()) {
    std::puts("01_reduce: no CUDA device found; this example needs a GPU.");
    return 77;  // reported as skipped by the test suite
  }
  const std::int64_t n = 1'000'003;
  std::vector<float> host(n);
  std::mt19937 gen(2024);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (float& x : host) x = dist(gen);

  cudaStream_t stream;
  CUPRIM_CUDA_CHECK(cudaStreamCreate(&stream));
  bool ok = false;
  {  // buffers are released (stream-ordered) before the stream is destroyed
  cuprim::device_buffer<float> data(std::span<const float>(host), stream);
  cuprim::device_buffer<float> results(4, stream);
  cuprim::device_buffer<cuprim::arg_result<float>> arg(1, stream);

  cuprim::sum(data.data(), results.data() + 0, n, stream);                      // Σ x
  cuprim::max(data.data(), results.data() + 1, n, stream);                      // max x
  cuprim::reduce(data.data(), results.data() + 2, n, max_abs{}, 0.f, stream);   // max |x|, user operator
  cuprim::transform_reduce(data.data(), results.data() + 3, n,                  // Σ x², device lambda
                           [] __device__(float x) { return x * x; }, cuprim::plus{}, 0.f, stream);
  cuprim::argmax(data.data(), arg.data(), n, stream);                           // (max x, first index)

  const std::vector<float> got = results.to_host_sync();
  const cuprim::arg_result<float> got_arg = arg.to_host_sync()[0];

  double sum = 0, sum_sq = 0, abs_sum = 0;
  for (float x : host) sum += x, sum_sq += double(x) * x, abs_sum += std::fabs(x);
  const auto ref_arg = cuprim::host::argmax(host.data(), n);
  const float ref_max_abs = cuprim::host::reduce(host.data(), n, max_abs{}, 0.f);
  const double tol = 1e-5 * abs_sum;

  ok = std::fabs(got[0] - sum) <= tol && got[1] == ref_arg.value && got[2] == ref_max_abs &&
            std::fabs(got[3] - sum_sq) <= tol && got_arg.value == ref_arg.value && got_arg.index == ref_arg.index;
  std::printf("sum        %.6f (host %.6f)\n", got[0], sum);
  std::printf("max        %.6f at index %lld (host %.6f at %lld)\n", got_arg.value,
              static_cast<long long>(got_arg.index), ref_arg.value, static_cast<long long>(ref_arg.index));
  std::printf("max |x|    %.6f (host %.6f)\n", got[2], ref_max_abs);
  std::printf("sum x^2    %.6f (host %.6f)\n", got[3], sum_sq);
  std::printf("%s\n", ok ? "01_reduce: all results match the host" : "01_reduce: MISMATCH");
  }
  CUPRIM_CUDA_CHECK(cudaStreamDestroy(stream));
  return ok ? 0 : 1;
}
