// Example 08: a matrix product with cuprim::blas::gemm (BLAS conventions: column-major, op, leading dimensions,
// alpha and beta), checked element by element against the host's triple loop.
//
//   build/examples/08_gemm
#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/device.hpp>
#include <cuprim/core/memory.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

int main() {
  if (!cuprim::has_device()) {
    std::puts("08_gemm: no CUDA device found; this example needs a GPU.");
    return 77;  // reported as skipped by the test suite
  }
  using cuprim::blas::op;
  // C (m x n) = 2 · A (m x k) · Bᵀ, B stored n x k; C is written without being read (beta = 0).
  const std::int64_t m = 300, n = 200, k = 500;
  std::mt19937 gen(8);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> a(m * k), b(n * k);
  for (auto& x : a) x = u(gen);
  for (auto& x : b) x = u(gen);
  cuprim::device_buffer<float> da{std::span<const float>(a)}, db{std::span<const float>(b)}, dc(m * n);
  cuprim::blas::gemm(op::N, op::T, m, n, k, 2.f, da.data(), m, db.data(), n, 0.f, dc.data(), m);
  const std::vector<float> c = dc.to_host_sync();

  int bad = 0;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      double s = 0, s_abs = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        s += double(a[i + p * m]) * b[j + p * n];
        s_abs += std::fabs(double(a[i + p * m]) * b[j + p * n]);
      }
      if (std::fabs(c[i + j * m] - 2 * s) > (k + 4) * 0x1p-24 * 2 * s_abs) ++bad;
    }
  std::printf("08_gemm: C = 2 A B^T, %lld x %lld x %lld in float: %s (C[0] = %.6f)\n", (long long)m, (long long)n,
              (long long)k, bad ? "MISMATCH" : "matches the host", c[0]);
  return bad ? 1 : 0;
}
