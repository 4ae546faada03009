// lab/ladder/gemm_kernels.cuh: the kernels of the GEMM ladder's first three rungs (seed 001, "Dense Linear Algebra
// on GPUs"), float, column-major, C = alpha · A · B + beta · C with A m × k, B k × n, C m × n (no transposes).
//
//   gemm_naive      1. one thread per element of C, the seed's MatrixMulOnHost loop body as a kernel
//   gemm_tiled      2. the seed's MatrixMulKernel: TILE × TILE blocks, one element per thread, a TILE × TILE tile of
//                      each operand staged in shared memory per step of k (TILE = 16 and 32)
//   gemm_volkov     3. the seed's register-blocked kernel (Volkov & Demmel, SC08; the CUDA-CHiLL output): 64
//                      threads, each holding a strip of 16 elements of one row of C in registers (P1[16]); B's
//                      16 × 16 tile in a padded shared array (P2[16][17]); A read straight from global memory
//
// The seed writes these for square, tile-multiple, row-major matrices. Here they take any m, n, k and leading
// dimension (operands outside the matrix read as zero, C written only inside it) and column-major storage, so the
// thread index that runs fastest (threadIdx.x) walks down a column: the loads of a warp are consecutive in memory,
// as the seed's row-major layout makes them there. Each element's sum runs over k in increasing order with fused
// multiply-adds in float; the epilogue writes alpha · sum + beta · C and never reads C when beta is 0.
#pragma once

#include "common.cuh"

#include <cstdint>

namespace cuprim::ladder::detail {

/// What a ladder GEMM launch needs (column-major, op N for both operands).
struct gemm_nn_args {
  const float* a;
  const float* b;
  float* c;
  std::int64_t m, n, k, lda, ldb, ldc;
  float alpha, beta;
};

/// C(i, j) = alpha · sum + beta · C(i, j), C unread when beta is 0.
__device__ __forceinline__ void gemm_store(const gemm_nn_args& g, std::int64_t i, std::int64_t j, float sum) {
  float* c = g.c + i + j * g.ldc;
  *c = g.beta == 0.f ? g.alpha * sum : g.alpha * sum + g.beta * *c;
}

/// Rung 1's block: 32 × 8 threads, threadIdx.x down a column of C (consecutive rows: A's loads coalesce, B's are
/// one address per warp).
inline constexpr int naive_block_x = 32, naive_block_y = 8;

/// 1. One thread per element: C(i, j) = Σ_p A(i, p) · B(p, j), every operand from global memory (k loads of A and
/// k of B per element; what reuse there is comes from the caches).
__global__ void __launch_bounds__(naive_block_x * naive_block_y) gemm_naive(gemm_nn_args g) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t j = std::int64_t(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= g.m || j >= g.n) return;
  const float* a = g.a + i;
  const float* b = g.b + j * g.ldb;
  float sum = 0.f;
  for (std::int64_t p = 0; p < g.k; ++p) sum = fmaf(a[p * g.lda], b[p], sum);
  gemm_store(g, i, j, sum);
}

/// 2. The seed's tiled kernel (MatrixMulKernel, Kirk & Hwu p. 87) in column-major form: block (bx, by) computes the
/// TILE × TILE tile of C at rows bx·TILE, columns by·TILE; thread (tx, ty) its element (row tx, column ty). Each
/// step of k the block loads a TILE × TILE tile of A (As[p][i], a column per ty) and of B (Bs[j][p], a column of B
/// per ty), one element of each per thread, then every thread sums TILE products from shared memory. Two barriers
/// per step; no reuse inside a thread (one element each), so shared memory is read twice per fused multiply-add.
template <int Tile>
__global__ void __launch_bounds__(Tile * Tile) gemm_tiled(gemm_nn_args g) {
  __shared__ float as[Tile][Tile];  // as[p][i] = A(row0 + i, k0 + p)
  __shared__ float bs[Tile][Tile];  // bs[j][p] = B(k0 + p, col0 + j)
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t row = std::int64_t(blockIdx.x) * Tile + tx, col = std::int64_t(blockIdx.y) * Tile + ty;
  float sum = 0.f;
  for (std::int64_t k0 = 0; k0 < g.k; k0 += Tile) {
    // Collaborative loading: thread (tx, ty) brings A(row, k0 + ty) and B(k0 + tx, col), zero outside the matrices.
    as[ty][tx] = row < g.m && k0 + ty < g.k ? g.a[row + (k0 + ty) * g.lda] : 0.f;
    bs[ty][tx] = k0 + tx < g.k && col < g.n ? g.b[(k0 + tx) + col * g.ldb] : 0.f;
    __syncthreads();  // the tiles are complete before anyone reads them
#pragma unroll
    for (int p = 0; p < Tile; ++p) sum = fmaf(as[p][tx], bs[ty][p], sum);
    __syncthreads();  // everyone is done with the tiles before the next step overwrites them
  }
  if (row < g.m && col < g.n) gemm_store(g, row, col, sum);
}

/// Rung 3's shape (the seed's CUDA-CHiLL recipe for the GTX 280): 16 × 4 threads; a block computes 64 rows × 16
/// columns of C, a thread one row's 16 columns; k steps of 16.
inline constexpr int volkov_tx = 16, volkov_ty = 4, volkov_rows = volkov_tx * volkov_ty, volkov_cols = 16,
                     volkov_k = 16;

/// 3. Register blocking (Volkov & Demmel): thread (tx, ty) of block (bx, by) owns row i = 64·bx + 16·ty + tx and
/// columns 16·by + 0..15 of C in registers (P1[16]). Each step of 16 along k, the 64 threads copy B's 16 × 16 tile
/// into shared memory (four elements each: P2[p][4·ty + 0..3] = B(k0 + p, 16·by + 4·ty + 0..3) with p = tx; the row
/// of 17 keeps those stores from all landing in one bank), then each thread streams its own 16 values of A from
/// global memory, one per p, and does 16 fused multiply-adds with the broadcast row P2[p][0..15]: 16 FMAs per
/// value of A loaded, one shared-memory read per FMA (a broadcast: every thread of a warp reads the same word).
/// The reuse is in registers: B's element is used by 64 threads from shared memory, A's by 16 FMAs in one thread.
__global__ void __launch_bounds__(volkov_tx * volkov_ty) gemm_volkov(gemm_nn_args g) {
  __shared__ float p2[volkov_k][volkov_cols + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t i = std::int64_t(blockIdx.x) * volkov_rows + ty * volkov_tx + tx;
  const std::int64_t col0 = std::int64_t(blockIdx.y) * volkov_cols;
  // Rows past m read row m - 1 (valid memory; their results are never stored), so the inner loop needs no test.
  const float* a = g.a + (i < g.m ? i : g.m - 1);
  float p1[volkov_cols] = {};
  for (std::int64_t k0 = 0; k0 < g.k; k0 += volkov_k) {
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const std::int64_t p = k0 + tx, j = col0 + 4 * ty + q;
      p2[tx][4 * ty + q] = p < g.k && j < g.n ? g.b[p + j * g.ldb] : 0.f;
    }
    __syncthreads();
    if (k0 + volkov_k <= g.k) {
#pragma unroll
      for (int p = 0; p < volkov_k; ++p) {
        const float av = a[(k0 + p) * g.lda];
#pragma unroll
        for (int j = 0; j < volkov_cols; ++j) p1[j] = fmaf(av, p2[p][j], p1[j]);
      }
    } else {  // the last, partial step of k
      for (int p = 0; p < int(g.k - k0); ++p) {
        const float av = a[(k0 + p) * g.lda];
#pragma unroll
        for (int j = 0; j < volkov_cols; ++j) p1[j] = fmaf(av, p2[p][j], p1[j]);
      }
    }
    __syncthreads();
  }
  if (i >= g.m) return;
#pragma unroll
  for (int j = 0; j < volkov_cols; ++j)
    if (col0 + j < g.n) gemm_store(g, i, col0 + j, p1[j]);
}

}  // namespace cuprim::ladder::detail
