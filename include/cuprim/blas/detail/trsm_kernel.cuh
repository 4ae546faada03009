// cuprim/blas/detail/trsm_kernel.cuh: the diagonal-block solve of cuprim::blas::trsm, and symm's symmetrize.
//
// Both kernels see their operands as strided views: element (i, j) of a view at p[i·r + j·c], one of r and c being 1.
// trsm brings every side, triangle and transpose to one problem on such views, M·X = B with M a lower (forward
// substitution) or upper (backward) triangle: op N reads A with (r, c) = (1, lda), op T with (lda, 1), and the right
// side solves the transposed problem (B's view (ldb, 1)). See blas/trsm.cuh.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cuprim::detail {

/// One diagonal block of a trsm: kb ≤ NB rows of the view X = alpha·M⁻¹·B over nn columns, in place.
template <class T>
struct trsm_diag_args {
  const T* a;                 ///< M(0, 0) of the block
  std::int64_t a_r, a_c;      ///< the strides of M's rows and columns
  T* b;                       ///< B(0, 0) of the block's rows (the view)
  std::int64_t b_r, b_c;      ///< the strides of B's rows and columns
  std::int64_t nn;            ///< columns of the view
  int kb;                     ///< rows of the block, 1 ≤ kb ≤ NB
  T alpha;                    ///< B's rows are first multiplied by alpha
  bool lower;                 ///< M lower (forward substitution) or upper (backward)
  bool unit;                  ///< M's diagonal taken as ones, never read
};

/// The dynamic shared memory of trsm_diag_kernel<T, NB, COLS>: the block of M and the columns of B, padded.
template <class T, int NB, int COLS>
constexpr std::size_t trsm_diag_smem_bytes() {
  return std::size_t(NB * (NB + 1) + NB * (COLS + 1)) * sizeof(T);
}

/// A block of COLS threads solves COLS columns of the view: M's block (only its stored triangle, and its diagonal
/// unless unit) and the block's rows of those columns go to shared memory, loaded along whichever of rows or columns
/// is contiguous in memory; each thread substitutes down (lower) or up (upper) its own column, x_i = (alpha·b_i −
/// Σ_j m_ij·x_j) / m_ii in increasing j (two partial sums, added at the end) with a true division (a zero diagonal
/// gives Inf or NaN as IEEE does); the solved columns go back the same way.
template <class T, int NB, int COLS>
__global__ void __launch_bounds__(COLS) trsm_diag_kernel(trsm_diag_args<T> g) {
  extern __shared__ unsigned char trsm_smem_raw[];
  T* ms = reinterpret_cast<T*>(trsm_smem_raw);  // (NB, NB + 1): ms[i·(NB + 1) + j] = M(i, j)
  T* xs = ms + NB * (NB + 1);                   // (NB, COLS + 1): xs[i·(COLS + 1) + c] = B(i, col0 + c)
  constexpr int LM = NB + 1, LX = COLS + 1;
  const int t = threadIdx.x, kb = g.kb;
  const std::int64_t col0 = std::int64_t(blockIdx.x) * COLS;
  const int cols = int(g.nn - col0 < COLS ? g.nn - col0 : COLS);
  for (int idx = t; idx < kb * kb; idx += COLS) {
    const int i = g.a_r == 1 ? idx % kb : idx / kb, j = g.a_r == 1 ? idx / kb : idx % kb;
    const bool stored = (g.lower ? j < i : j > i) || (j == i && !g.unit);
    if (stored) ms[i * LM + j] = g.a[i * g.a_r + j * g.a_c];
  }
  for (int idx = t; idx < kb * cols; idx += COLS) {
    const int i = g.b_r == 1 ? idx % kb : idx / cols, c = g.b_r == 1 ? idx / kb : idx % cols;
    xs[i * LX + c] = g.b[i * g.b_r + (col0 + c) * g.b_c];
  }
  __syncthreads();
  if (t < cols) {
    for (int s = 0; s < kb; ++s) {
      const int i = g.lower ? s : kb - 1 - s;
      const int j0 = g.lower ? 0 : i + 1, j1 = g.lower ? i : kb;  // the solved unknowns this row uses
      T acc0 = g.alpha * xs[i * LX + t], acc1 = T(0);
      int j = j0;
      for (; j + 1 < j1; j += 2) {
        acc0 -= ms[i * LM + j] * xs[j * LX + t];
        acc1 -= ms[i * LM + j + 1] * xs[(j + 1) * LX + t];
      }
      if (j < j1) acc0 -= ms[i * LM + j] * xs[j * LX + t];
      T x = acc0 + acc1;
      if (!g.unit) x = x / ms[i * LM + i];
      xs[i * LX + t] = x;
    }
  }
  __syncthreads();
  for (int idx = t; idx < kb * cols; idx += COLS) {
    const int i = g.b_r == 1 ? idx % kb : idx / cols, c = g.b_r == 1 ? idx / kb : idx % cols;
    g.b[i * g.b_r + (col0 + c) * g.b_c] = xs[i * LX + c];
  }
}

/// symm's full copy of a symmetric A (ka × ka, column-major, lda) of which only the `lower` or upper triangle is
/// read: f(i, j) = A(i, j) where (i, j) is in the stored triangle, else A(j, i). A block of 32 × 8 threads writes one
/// 32 × 32 tile of f: it stages the stored elements of tile (bi, bj) and of the mirrored tile (bj, bi) in shared
/// memory (reads along columns, coalesced), then writes the tile along its columns.
template <class T>
__global__ void __launch_bounds__(256) symm_full_kernel(const T* __restrict__ a, std::int64_t lda, std::int64_t ka,
                                                        bool lower, T* __restrict__ f, std::int64_t ldf) {
  __shared__ T s1[32][33];  // s1[r][c] = A(bi·32 + r, bj·32 + c) where stored
  __shared__ T s2[32][33];  // s2[r][c] = A(bj·32 + r, bi·32 + c) where stored
  const std::int64_t bi = blockIdx.x, bj = blockIdx.y;
  const int r = threadIdx.x;
  const auto stored = [lower](std::int64_t i, std::int64_t j) { return lower ? i >= j : i <= j; };
  for (int c = threadIdx.y; c < 32; c += 8) {
    std::int64_t i = bi * 32 + r, j = bj * 32 + c;
    if (i < ka && j < ka && stored(i, j)) s1[r][c] = a[i + j * lda];
    i = bj * 32 + r;
    j = bi * 32 + c;
    if (i < ka && j < ka && stored(i, j)) s2[r][c] = a[i + j * lda];
  }
  __syncthreads();
  for (int c = threadIdx.y; c < 32; c += 8) {
    const std::int64_t i = bi * 32 + r, j = bj * 32 + c;
    if (i < ka && j < ka) f[i + j * ldf] = stored(i, j) ? s1[r][c] : s2[c][r];
  }
}

}  // namespace cuprim::detail
