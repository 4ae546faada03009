// cuprim/blas/detail/gemm_kernel.cuh: the CUDA-core GEMM (true FP32 / FP64), 2-D register blocking.
//
// A block computes a TM × TN tile of C (P.tile_m × P.tile_n), walking k in steps of TK:
//   load_tiles     the next step's tiles of op(A) (TM × TK) and op(B) (TK × TN) from global memory into registers,
//                  element by element with bounds checks (any shape, any leading dimension, any alignment), in the
//                  order that keeps a warp's loads consecutive in memory for the operand's layout
//   store_tiles    registers -> shared memory, k-major (As[k][i], Bs[k][j]), into the buffer not being read
//   multiply       each thread: for each k of the step, its thread_m values of op(A) and thread_n of op(B) from
//                  shared memory, an outer product into its thread_m × thread_n accumulators
// so a step's global loads are in flight while the previous step is multiplied (two shared buffers, one barrier
// per step). The epilogue writes alpha·acc + beta·C, never reading C when beta is 0.
//
// Each C element is a sum over k in increasing order of fused multiply-adds in T: the same bits from run to run.
#pragma once

#include <cuprim/blas/detail/gemm_tuning.cuh>
#include <cuprim/core/policy.hpp>

#include <cstdint>

namespace cuprim::detail {

/// What a GEMM launch needs (column-major; element (i, j) of X is X[i + j·ldx]; op(A) is m × k, op(B) is k × n).
template <class T>
struct gemm_args {
  const T* a;
  const T* b;
  T* c;
  std::int64_t m, n, k, lda, ldb, ldc;
  T alpha, beta;
  bool trans_a, trans_b;
};

/// Element (i, p) of op(A): A[i + p·lda], or A[p + i·lda] when transposed (zero outside m × k).
template <class T>
__device__ __forceinline__ T gemm_load_a(const gemm_args<T>& g, std::int64_t i, std::int64_t p) {
  if (i >= g.m || p >= g.k) return T(0);
  return g.trans_a ? g.a[p + i * g.lda] : g.a[i + p * g.lda];
}
/// Element (p, j) of op(B): B[p + j·ldb], or B[j + p·ldb] when transposed (zero outside k × n).
template <class T>
__device__ __forceinline__ T gemm_load_b(const gemm_args<T>& g, std::int64_t p, std::int64_t j) {
  if (p >= g.k || j >= g.n) return T(0);
  return g.trans_b ? g.b[j + p * g.ldb] : g.b[p + j * g.ldb];
}

/// The tiles of step k0 into registers: element e = t + r·threads of a tile, numbered so that consecutive threads
/// read consecutive addresses (down a column of the stored array).
template <blas::gemm_policy P, class T>
__device__ __forceinline__ void gemm_load_tiles(const gemm_args<T>& g, std::int64_t row0, std::int64_t col0,
                                                std::int64_t k0, T (&ra)[P.tile_m * P.tile_k / P.threads()],
                                                T (&rb)[P.tile_n * P.tile_k / P.threads()]) {
  constexpr int TH = P.threads(), TM = P.tile_m, TN = P.tile_n, TK = P.tile_k;
  const int t = threadIdx.x;
#pragma unroll
  for (int r = 0; r < TM * TK / TH; ++r) {
    const int e = t + r * TH;
    // Not transposed, A's columns run down i; transposed, its stored columns run down p.
    const int i = g.trans_a ? e / TK : e % TM, p = g.trans_a ? e % TK : e / TM;
    ra[r] = gemm_load_a(g, row0 + i, k0 + p);
  }
#pragma unroll
  for (int r = 0; r < TN * TK / TH; ++r) {
    const int e = t + r * TH;
    const int j = g.trans_b ? e % TN : e / TK, p = g.trans_b ? e / TN : e % TK;
    rb[r] = gemm_load_b(g, k0 + p, col0 + j);
  }
}

/// Registers -> shared memory (k-major), in the same numbering as gemm_load_tiles.
template <blas::gemm_policy P, class T>
__device__ __forceinline__ void gemm_store_tiles(const gemm_args<T>& g, const T (&ra)[P.tile_m * P.tile_k / P.threads()],
                                                 const T (&rb)[P.tile_n * P.tile_k / P.threads()],
                                                 T (&as)[P.tile_k][P.tile_m], T (&bs)[P.tile_k][P.tile_n]) {
  constexpr int TH = P.threads(), TM = P.tile_m, TN = P.tile_n, TK = P.tile_k;
  const int t = threadIdx.x;
#pragma unroll
  for (int r = 0; r < TM * TK / TH; ++r) {
    const int e = t + r * TH;
    const int i = g.trans_a ? e / TK : e % TM, p = g.trans_a ? e % TK : e / TM;
    as[p][i] = ra[r];
  }
#pragma unroll
  for (int r = 0; r < TN * TK / TH; ++r) {
    const int e = t + r * TH;
    const int j = g.trans_b ? e % TN : e / TK, p = g.trans_b ? e / TN : e % TK;
    bs[p][j] = rb[r];
  }
}

/// One block per tile of C (blockIdx.x along m, blockIdx.y along n). Policy: a policy_constant of a gemm_policy.
template <class Policy, class T>
__global__ void __launch_bounds__(Policy::value.threads()) gemm_simt_kernel(gemm_args<T> g) {
  constexpr blas::gemm_policy P = Policy::value;
  static_assert(gemm_policy_valid<P>());
  constexpr int TM = P.tile_m, TN = P.tile_n, TK = P.tile_k, RM = P.thread_m, RN = P.thread_n;
  constexpr int NA = TM * TK / P.threads(), NB = TN * TK / P.threads(), COLS = TN / RN;
  __shared__ T as[2][TK][TM];
  __shared__ T bs[2][TK][TN];

  const std::int64_t row0 = std::int64_t(blockIdx.x) * TM, col0 = std::int64_t(blockIdx.y) * TN;
  const int tx = threadIdx.x % COLS, ty = threadIdx.x / COLS;  // this thread's RM × RN block of the tile
  T acc[RM][RN] = {};
  T ra[NA], rb[NB];

  gemm_load_tiles<P>(g, row0, col0, 0, ra, rb);
  gemm_store_tiles<P>(g, ra, rb, as[0], bs[0]);
  __syncthreads();
  int buf = 0;
  for (std::int64_t k0 = 0; k0 < g.k; k0 += TK) {
    const bool more = k0 + TK < g.k;
    if (more) gemm_load_tiles<P>(g, row0, col0, k0 + TK, ra, rb);  // in flight during the multiply below
#pragma unroll
    for (int p = 0; p < TK; ++p) {
      T a[RM], b[RN];
#pragma unroll
      for (int i = 0; i < RM; ++i) a[i] = as[buf][p][ty * RM + i];
#pragma unroll
      for (int j = 0; j < RN; ++j) b[j] = bs[buf][p][tx * RN + j];
#pragma unroll
      for (int i = 0; i < RM; ++i)
#pragma unroll
        for (int j = 0; j < RN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
    if (more) {
      gemm_store_tiles<P>(g, ra, rb, as[buf ^ 1], bs[buf ^ 1]);  // the other buffer: nobody reads it this step
      __syncthreads();
      buf ^= 1;
    }
  }

  // Epilogue: C = alpha·acc + beta·C, C unread when beta is 0.
  const bool read_c = g.beta != T(0);
#pragma unroll
  for (int j = 0; j < RN; ++j) {
    const std::int64_t col = col0 + tx * RN + j;
    if (col >= g.n) continue;
#pragma unroll
    for (int i = 0; i < RM; ++i) {
      const std::int64_t row = row0 + ty * RM + i;
      if (row >= g.m) continue;
      T* c = g.c + row + col * g.ldc;
      *c = read_c ? g.alpha * acc[i][j] + g.beta * *c : g.alpha * acc[i][j];
    }
  }
}

/// C = beta·C over m × n (the whole GEMM when k = 0 or alpha = 0), C unread when beta is 0.
template <class T>
__global__ void gemm_scale_kernel(T* c, std::int64_t m, std::int64_t n, std::int64_t ldc, T beta) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    T* p = c + i + j * ldc;
    *p = beta == T(0) ? T(0) : beta * *p;
  }
}

}  // namespace cuprim::detail
