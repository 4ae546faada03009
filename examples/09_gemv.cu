// Example 09: a matrix-vector product with cuprim::blas::gemv (BLAS conventions: column-major A, op N or T, alpha,
// beta, strided vectors) and a dot product with cuprim::blas::dot, each checked against the host's loops.
//
//   build/examples/09_gemv
#include <cuprim/blas/dot.cuh>
#include <cuprim/blas/gemv.cuh>
#include <cuprim/core/device.hpp>
#include <cuprim/core/memory.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

int main() {
  if (!cuprim::has_device()) {
    std::puts("09_gemv: no CUDA device found; this example needs a GPU.");
    return 77;  // reported as skipped by the test suite
  }
  using cuprim::blas::op;
  // y (n) = 2 · Aᵀ · x + 0.5 · y, A stored m x n column-major, x (m) read from every second element.
  const std::int64_t m = 3000, n = 500;
  std::mt19937 gen(9);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> a(m * n), x(2 * m), y(n);
  for (auto& v : a) v = u(gen);
  for (auto& v : x) v = u(gen);
  for (auto& v : y) v = u(gen);
  cuprim::device_buffer<float> da{std::span<const float>(a)}, dx{std::span<const float>(x)}, dy{std::span<const float>(y)};
  cuprim::blas::gemv(op::T, m, n, 2.f, da.data(), m, dx.data(), 2, 0.5f, dy.data(), 1);
  const std::vector<float> got = dy.to_host_sync();
  int bad = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    double s = 0, bound = 0;
    for (std::int64_t i = 0; i < m; ++i) {
      s += double(a[i + j * m]) * x[2 * i];
      bound += std::fabs(double(a[i + j * m]) * x[2 * i]);
    }
    const double want = 2 * s + 0.5 * y[j];
    bad += !(std::fabs(got[j] - want) <= (m + 8) * 0x1p-24 * (2 * bound + 0.5 * std::fabs(y[j])) + 0x1p-24 * std::fabs(want));
  }
  std::printf("gemv T %lld x %lld: %s\n", static_cast<long long>(m), static_cast<long long>(n), bad ? "MISMATCH" : "ok");

  // x · x over the strided x (every second element), the result in device memory, then on the host by dot_sync.
  const float d = cuprim::blas::dot_sync(m, dx.data(), 2, dx.data(), 2);
  double s = 0;
  for (std::int64_t i = 0; i < m; ++i) s += double(x[2 * i]) * x[2 * i];
  const bool dot_ok = std::fabs(d - s) <= 1e-5 * s;
  std::printf("dot over %lld strided elements: %.6f (host %.6f) %s\n", static_cast<long long>(m), d, s,
              dot_ok ? "ok" : "MISMATCH");
  return bad || !dot_ok ? 1 : 0;
}
