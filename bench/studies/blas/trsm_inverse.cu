// A study program (not built by CMake): nvcc -std=c++20 -arch=sm_90a -O3 --extended-lambda --expt-relaxed-constexpr
// -I include bench/studies/blas/trsm_inverse.cu <build>/libcuprim.a -lcublas -o trsm_inverse
//
// Would inverted diagonal blocks make float trsm's leaves cheap? cuprim's trsm solves each 64-row diagonal block by
// substitution (trsm_diag_kernel: 16.5 µs at 4096 columns on an H200, a third of a 4096² call). Here the same
// recursion (left, lower, N, non-unit, alpha 1; cuprim's own gemm updates, detail::trsm_update) with another leaf:
//   1. once per call, every diagonal block inverted at once (a block of 64 threads per diagonal block, a thread per
//      column of the inverse: substitution on the identity, the same operations as the production solve), into a
//      workspace of N × 64 floats;
//   2. each leaf: X = inv(M_kk) · C_k in place, a block per 32 columns (the inverse and the columns in shared memory,
//      4 × 2 outputs a thread, the sum over j ≤ i in increasing j).
// Printed: the leaf kernel alone against the substitution kernel alone; the whole solve against cuBLAS and cuprim's
// trsm (each call on a fresh copy of B: the copy's own time is measured and subtracted); and the accuracy of the
// inverse form: on 16 sampled columns, each element's residual |M·x − b| against the bound the production tests
// hold (2·(N + 2)·2^-24·(|M|·|x| + |b|)) and the largest difference from cuprim's solution, in its units of |x|.
#include "stream_timing.hpp"

#include <cuprim/blas/trsm.cuh>

#include <cublas_v2.h>

/// Exits with the failing line unless the cuBLAS call succeeded.
#define BK(x)                                                         \
  do {                                                                \
    if ((x) != CUBLAS_STATUS_SUCCESS) {                               \
      std::printf("cuBLAS call failed at line %d\n", __LINE__);       \
      std::exit(1);                                                   \
    }                                                                 \
  } while (0)

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

namespace {

constexpr int NB = 64;

__global__ void fill(float* x, long long n, unsigned seed, bool triangle) {
  for (long long p = blockIdx.x * 256ll + threadIdx.x; p < n * n; p += 256ll * gridDim.x) {
    const long long i = p % n, j = p / n;
    unsigned h = unsigned(p) * 2654435761u + seed;
    h ^= h >> 15;
    const float u = float(h % 2001u) * 1e-3f - 1.0f;  // [-1, 1]
    x[p] = !triangle ? u : i == j ? 1.5f + 0.5f * u : (i > j ? u / float(n) : 0.0f);
  }
}

/// Block b inverts the lower triangle M_bb (rows and columns [64b, 64b + kb)) into W + 64·64·b (column-major, 64 × 64,
/// zero above the diagonal, the identity past kb): thread j solves M·x = e_j by forward substitution.
__global__ void __launch_bounds__(NB) invert_blocks(const float* a, long long lda, long long n, float* w) {
  __shared__ float ms[NB][NB + 1];
  const long long k0 = (long long)blockIdx.x * NB;
  const int kb = int(n - k0 < NB ? n - k0 : NB), t = threadIdx.x;
  for (int idx = t; idx < NB * NB; idx += NB) {
    const int i = idx % NB, j = idx / NB;
    ms[i][j] = i < kb && j < kb && j <= i ? a[(k0 + i) + (k0 + j) * lda] : float(i == j);
  }
  __syncthreads();
  float x[NB];
#pragma unroll
  for (int i = 0; i < NB; ++i) x[i] = float(i == t);
#pragma unroll
  for (int k = 0; k < NB; ++k) {
    x[k] = x[k] / ms[k][k];
    const float xk = x[k];
#pragma unroll
    for (int i = k + 1; i < NB; ++i) x[i] -= ms[i][k] * xk;
  }
  float* out = w + (long long)blockIdx.x * NB * NB + (long long)t * NB;
#pragma unroll
  for (int i = 0; i < NB; ++i) out[i] = x[i];
}

/// X = inv · C in place for rows [k0, k0 + kb) of B (ldb), every column: a block per 32 columns (128 blocks at 4096
/// columns), 256 threads of 4 rows × 2 columns, each warp two groups of 4 rows (so a warp's sum stops near its rows).
constexpr int AC = 32;  // columns a block
__global__ void __launch_bounds__(256) apply_inverse(const float* inv, float* b, long long ldb, long long nn, int kb) {
  __shared__ float ws[NB][NB + 1];  // ws[i][j] = inv(i, j)
  __shared__ float cs[NB][AC + 1];  // cs[j][c] = C(j, col0 + c)
  const long long col0 = (long long)blockIdx.x * AC;
  const int t = threadIdx.x, cols = int(nn - col0 < AC ? nn - col0 : AC);
  float v[16], u[8];
#pragma unroll
  for (int q = 0; q < 16; ++q) {  // every load in flight before the stores to shared memory
    const int idx = t + q * 256;
    v[q] = inv[idx];  // inv(idx % 64, idx / 64), column-major
  }
#pragma unroll
  for (int q = 0; q < 8; ++q) {
    const int idx = t + q * 256, i = idx % NB, j = idx / NB;
    u[q] = i < kb && j < cols ? b[i + (col0 + j) * ldb] : 0.0f;
  }
#pragma unroll
  for (int q = 0; q < 16; ++q) {
    const int idx = t + q * 256;
    ws[idx % NB][idx / NB] = v[q];
  }
#pragma unroll
  for (int q = 0; q < 8; ++q) {
    const int idx = t + q * 256;
    cs[idx % NB][idx / NB] = u[q];
  }
  __syncthreads();
  const int r0 = (t / 16) * 4, c0 = (t % 16) * 2;
  float acc[4][2] = {};
  for (int j = 0; j <= r0 + 3; ++j) {  // inv(i, j) = 0 for j > i: rows r0..r0+3 need j ≤ r0 + 3
    float a4[4], b2[2];
#pragma unroll
    for (int q = 0; q < 4; ++q) a4[q] = ws[r0 + q][j];
#pragma unroll
    for (int s2 = 0; s2 < 2; ++s2) b2[s2] = cs[j][c0 + s2];
#pragma unroll
    for (int q = 0; q < 4; ++q)
#pragma unroll
      for (int s2 = 0; s2 < 2; ++s2) acc[q][s2] += a4[q] * b2[s2];
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < 4; ++q)
#pragma unroll
    for (int s2 = 0; s2 < 2; ++s2) cs[r0 + q][c0 + s2] = acc[q][s2];
  __syncthreads();
  for (int idx = t; idx < NB * AC; idx += 256) {
    const int i = idx % NB, j = idx / NB;
    if (i < kb && j < cols) b[i + (col0 + j) * ldb] = cs[i][j];
  }
}

/// trsm_recurse's recursion (lower, forward, alpha 1) with the inverse-applying leaf.
void solve(const cuprim::detail::trsm_problem<float>& p, const float* w, long long k0, long long kk) {
  if (kk <= NB) {
    apply_inverse<<<unsigned((p.nn + AC - 1) / AC), 256, 0, p.stream>>>(w + (k0 / NB) * NB * NB, p.b + k0, p.ldb,
                                                                       p.nn, int(kk));
    return;
  }
  const long long h = ((kk / 2 + NB - 1) / NB) * NB;
  solve(p, w, k0, h);
  cuprim::detail::trsm_update(p, k0 + h, kk - h, k0, h, 1.0f);
  solve(p, w, k0 + h, kk - h);
}

}  // namespace

int main() {
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cublasHandle_t h;
  BK(cublasCreate(&h));
  BK(cublasSetStream(h, s));
  for (long long N : {4096ll, 8192ll}) {
    float *A, *B0, *B, *X, *W;
    CK(cudaMalloc(&A, N * N * 4));
    CK(cudaMalloc(&B0, N * N * 4));
    CK(cudaMalloc(&B, N * N * 4));
    CK(cudaMalloc(&X, N * N * 4));
    CK(cudaMalloc(&W, (N + NB - 1) / NB * NB * NB * 4));  // a 64 × 64 inverse per block
    fill<<<2048, 256, 0, s>>>(A, N, 1, true);
    fill<<<2048, 256, 0, s>>>(B0, N, 2, false);
    const auto p = cuprim::detail::trsm_view<float>("study", cuprim::blas::side::left, cuprim::blas::uplo::lower,
                                                    cuprim::blas::op::N, cuprim::blas::diag::non_unit, N, N, 1.0f, A,
                                                    N, B, N, s);
    const auto reset = [&] { CK(cudaMemcpyAsync(B, B0, N * N * 4, cudaMemcpyDeviceToDevice, s)); };
    const float one = 1.0f;
    const auto inverse_trsm = [&] {
      invert_blocks<<<unsigned((N + NB - 1) / NB), NB, 0, s>>>(A, N, N, W);
      solve(p, W, 0, N);
    };
    // Accuracy first, from B0: the inverse form against cuprim's trsm.
    reset();
    cuprim::blas::trsm<float>(cuprim::blas::side::left, cuprim::blas::uplo::lower, cuprim::blas::op::N,
                              cuprim::blas::diag::non_unit, N, N, 1.0f, A, N, B, N, s);
    CK(cudaMemcpyAsync(X, B, N * N * 4, cudaMemcpyDeviceToDevice, s));
    reset();
    inverse_trsm();
    CK(cudaStreamSynchronize(s));
    CK(cudaGetLastError());
    std::vector<float> a(N * N), b0(N * N), x(N * N), xr(N * N);
    CK(cudaMemcpy(a.data(), A, N * N * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b0.data(), B0, N * N * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(x.data(), B, N * N * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(xr.data(), X, N * N * 4, cudaMemcpyDeviceToHost));
    double worst_ratio = 0, worst_diff = 0;
    long long fails = 0;
    std::vector<double> r(N), bound(N);
    for (int c = 0; c < 16; ++c) {
      const long long j = (c * 2654435761ll) % N;
      double xmax = 0;
      for (long long i = 0; i < N; ++i) xmax = std::max(xmax, std::fabs(double(xr[i + j * N])));
      for (long long i = 0; i < N; ++i) {
        r[i] = -double(b0[i + j * N]);
        bound[i] = std::fabs(double(b0[i + j * N]));
      }
      for (long long k = 0; k < N; ++k) {  // column k of A's lower triangle, contiguous
        const double xk = double(x[k + j * N]);
        const float* ak = a.data() + k * N;
        for (long long i = k; i < N; ++i) {
          r[i] += double(ak[i]) * xk;
          bound[i] += std::fabs(double(ak[i]) * xk);
        }
      }
      for (long long i = 0; i < N; ++i) {
        const double tol = 2.0 * double(N + 2) * std::ldexp(1.0, -24) * bound[i];
        worst_ratio = std::max(worst_ratio, std::fabs(r[i]) / tol);
        fails += std::fabs(r[i]) > tol;
        worst_diff = std::max(worst_diff, std::fabs(double(x[i + j * N]) - double(xr[i + j * N])) / xmax);
      }
    }
    std::printf("N = %lld: inverse form on 16 columns: largest |residual| / bound %.3g (%lld elements over), largest "
                "difference from cuprim's trsm %.3g of the column's largest |x|\n",
                N, worst_ratio, fails, worst_diff);
    // The leaves alone (B's first 64 rows, in place, from B0's rows each time: the copy's time subtracted; the
    // substitution with A's block, the product with the inverse).
    invert_blocks<<<unsigned((N + NB - 1) / NB), NB, 0, s>>>(A, N, N, W);
    const auto reset_rows = [&] {
      CK(cudaMemcpy2DAsync(B, N * 4, B0, N * 4, NB * 4, N, cudaMemcpyDeviceToDevice, s));
    };
    const double rows_copy = time_us(s, 20, reset_rows);
    const double sub = time_us(s, 20, [&] {
      reset_rows();
      cuprim::detail::trsm_diag<float, 2, 4>(p, 0, NB, 1.0f);
    }) - rows_copy;
    const double mul = time_us(s, 20, [&] {
      reset_rows();
      apply_inverse<<<unsigned((N + AC - 1) / AC), 256, 0, s>>>(W, B, N, N, NB);
    }) - rows_copy;
    const double inv = time_us(s, 20, [&] { invert_blocks<<<unsigned((N + NB - 1) / NB), NB, 0, s>>>(A, N, N, W); });
    // The whole solves, each on a fresh copy of B (the copy's time subtracted).
    const double copy = time_us(s, 5, reset);
    const double t_cuprim = time_us(s, 5, [&] {
      reset();
      cuprim::blas::trsm<float>(cuprim::blas::side::left, cuprim::blas::uplo::lower, cuprim::blas::op::N,
                                cuprim::blas::diag::non_unit, N, N, 1.0f, A, N, B, N, s);
    }) - copy;
    const double t_inverse = time_us(s, 5, [&] {
      reset();
      inverse_trsm();
    }) - copy;
    const double t_cublas = time_us(s, 5, [&] {
      reset();
      BK(cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, int(N), int(N),
                     &one, A, int(N), B, int(N)));
    }) - copy;
    std::printf("  leaf of 64 rows x %lld columns: substitution %.2f us, inverse applied %.2f us (a copy of the rows "
                "%.2f us subtracted); all %lld blocks inverted %.2f us\n",
                N, sub, mul, rows_copy, (N + NB - 1) / NB, inv);
    std::printf("  whole LLNN solve: cuprim %.1f us, inverse leaves %.1f us, cublasStrsm %.1f us (copy of B %.1f us "
                "subtracted): cuBLAS / inverse %.3fx, cuBLAS / cuprim %.3fx\n",
                t_cuprim, t_inverse, t_cublas, copy, t_cublas / t_inverse, t_cublas / t_cuprim);
    CK(cudaFree(A));
    CK(cudaFree(B0));
    CK(cudaFree(B));
    CK(cudaFree(X));
    CK(cudaFree(W));
  }
  return 0;
}
