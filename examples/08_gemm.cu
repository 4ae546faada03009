// Example 08: a matrix product with cuprim::blas::gemm (BLAS conventions: column-major, op, leading dimensions,
// alpha and beta), the same with bfloat16 inputs summed in float on tensor cores, then many small products in one
// call with cuprim::blas::gemm_strided_batched, each checked element by element against the host's triple loop.
//
//   build/examples/08_gemm
#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/device.hpp>
#include <cuprim/core/memory.hpp>

#include <cuda_bf16.h>

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

  // bfloat16 inputs, float C and scalars: C2 (m x n) = A2 (m x k) · B2 (k x n) + 0.5 · C2, products exact and summed
  // in float (Hopper's wgmma where the layout allows: 16-byte aligned, leading dimensions multiples of 8). The host
  // reference sums the same bfloat16 values in double; the header's bound is 4·k·2^-24·Σ|a·b| plus C's share.
  const std::int64_t m2 = 256, n2 = 192, k2 = 320;
  std::vector<__nv_bfloat16> a2(m2 * k2), b2(k2 * n2);
  std::vector<float> c2(m2 * n2);
  for (auto& x : a2) x = __float2bfloat16(u(gen));
  for (auto& x : b2) x = __float2bfloat16(u(gen));
  for (auto& x : c2) x = u(gen);
  cuprim::device_buffer<__nv_bfloat16> da2{std::span<const __nv_bfloat16>(a2)}, db2{std::span<const __nv_bfloat16>(b2)};
  cuprim::device_buffer<float> dc2{std::span<const float>(c2)};
  cuprim::blas::gemm(op::N, op::N, m2, n2, k2, 1.f, da2.data(), m2, db2.data(), k2, 0.5f, dc2.data(), m2);
  const std::vector<float> got2 = dc2.to_host_sync();
  int bad16 = 0;
  for (std::int64_t j = 0; j < n2; ++j)
    for (std::int64_t i = 0; i < m2; ++i) {
      double s = 0, s_abs = 0;
      for (std::int64_t p = 0; p < k2; ++p) {
        const double t = double(__bfloat162float(a2[i + p * m2])) * double(__bfloat162float(b2[p + j * k2]));
        s += t;
        s_abs += std::fabs(t);
      }
      const double ref = s + 0.5 * double(c2[i + j * m2]);
      const double tol = 4.0 * double(k2) * 0x1p-24 * s_abs + 2 * 0x1p-24 * (s_abs + std::fabs(0.5 * c2[i + j * m2]));
      if (!(std::fabs(double(got2[i + j * m2]) - ref) <= tol)) ++bad16;
    }
  std::printf("08_gemm: C = A B + 0.5 C, %lld x %lld x %lld with bfloat16 inputs, float C: %s (C[0] = %.6f)\n",
              (long long)m2, (long long)n2, (long long)k2, bad16 ? "MISMATCH" : "matches the host", got2[0]);

  // Batched: 1000 products X_z = Y_z · W of 16 x 16 matrices, one W for all (stride 0), Y_z and X_z one after another
  // (stride 256 elements), in one call.
  const std::int64_t s = 16, batch = 1000;
  std::vector<double> y(s * s * batch), w(s * s);
  for (auto& v : y) v = u(gen);
  for (auto& v : w) v = u(gen);
  cuprim::device_buffer<double> dy{std::span<const double>(y)}, dw{std::span<const double>(w)}, dx(s * s * batch);
  cuprim::blas::gemm_strided_batched(op::N, op::N, s, s, s, 1.0, dy.data(), s, s * s, dw.data(), s, 0, 0.0, dx.data(),
                                     s, s * s, batch);
  const std::vector<double> x = dx.to_host_sync();
  int bad_batched = 0;
  for (std::int64_t z = 0; z < batch; ++z)
    for (std::int64_t j = 0; j < s; ++j)
      for (std::int64_t i = 0; i < s; ++i) {
        double ref = 0;
        for (std::int64_t p = 0; p < s; ++p) ref += y[z * s * s + i + p * s] * w[p + j * s];
        if (std::fabs(x[z * s * s + i + j * s] - ref) > 1e-12) ++bad_batched;
      }
  std::printf("08_gemm: %lld batched 16 x 16 products in double: %s\n", (long long)batch,
              bad_batched ? "MISMATCH" : "match the host");
  return bad || bad16 || bad_batched ? 1 : 0;
}
