// cuprim/blas/detail/trsm_kernel.cuh: cuprim::blas::trsm's diagonal blocks (their substitution, their inversion, and
// the product with their inverses), and symm's symmetrize.
//
// The kernels see their operands as strided views: element (i, j) of a view at p[i·r + j·c], one of r and c being 1.
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
  /// The inversion: block y of the grid's second dimension solves M_y·X = I for the y-th diagonal block of M in solve
  /// order (lower: rows [y·NB, (y + 1)·NB) from the top; upper: the same counted from the bottom, the short block
  /// last; `order` rows in all, `a` at M(0, 0)), X into b + y·NB·NB (b_r = 1, b_c = NB, nn = NB); B is not read.
  bool identity;
  std::int64_t order;  ///< rows of M, for the inversion
};

/// The dynamic shared memory of trsm_diag_kernel<T, NB, CPW, WARPS>: the block of M and the block's columns of B,
/// padded by one element per row.
template <class T, int NB, int CPW, int WARPS>
constexpr std::size_t trsm_diag_smem_bytes() {
  return std::size_t(NB * (NB + 1) + NB * (CPW * WARPS + 1)) * sizeof(T);
}

/// One warp's substitution through a diagonal block, for CPW columns at once. Lane l holds rows l, l + 32, ... (R of
/// them) of each column in x. Step k (increasing for lower, decreasing for upper) broadcasts row k from its lane,
/// divides it by M(k, k) (every lane the same true division, so the same bits; skipped for unit), and every lane
/// whose rows are still unsolved subtracts M(i, k)·x_k from them: one division and one multiply-add per step on the
/// dependent chain, instead of the k multiply-adds of the row's dot product with one thread per column. Each x_i
/// accumulates its updates in solve order (increasing k for lower, decreasing for upper), deterministically.
template <class T, int R, int CPW, bool LOWER>
__device__ __forceinline__ void trsm_warp_solve(const T* ms, int lm, T (&x)[CPW][R], int kb, bool unit, int lane) {
#pragma unroll
  for (int q = 0; q < R; ++q) {
    const int rr = LOWER ? q : R - 1 - q;  // the register holding row k
    for (int t = 0; t < 32; ++t) {
      const int s = LOWER ? t : 31 - t, k = rr * 32 + s;  // s: the lane holding row k
      if (k >= kb) {
        if (LOWER) break;
        continue;
      }
      const T d = unit ? T(1) : ms[k * lm + k];
      T xk[CPW];
#pragma unroll
      for (int c = 0; c < CPW; ++c) {
        T v = __shfl_sync(0xffffffffu, x[c][rr], s);
        if (!unit) v = v / d;
        xk[c] = v;
        if (lane == s) x[c][rr] = v;
      }
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int i = lane + 32 * r;
        const bool later = LOWER ? (r > rr || (r == rr && lane > s)) && i < kb : (r < rr || (r == rr && lane < s));
        if (later) {
          const T mik = ms[i * lm + k];
#pragma unroll
          for (int c = 0; c < CPW; ++c) x[c][r] -= mik * xk[c];
        }
      }
    }
  }
}

/// A block of WARPS warps solves CPW·WARPS columns of the view, warp w the CPW columns from w·CPW: M's block (only its
/// stored triangle, and its diagonal unless unit) and alpha times the block's rows of those columns go to shared
/// memory, loaded along whichever of rows or columns is contiguous in memory; each warp takes its columns into
/// registers (lanes own rows), substitutes (trsm_warp_solve) and puts them back; the solved columns go back to memory
/// the same way. A zero diagonal divides in IEEE arithmetic (Inf or NaN, never a hang). NB is a multiple of 32.
/// With g.identity the same substitution inverts every diagonal block at once (one per blockIdx.y, the columns of
/// the identity in place of B's), each column of an inverse the arithmetic of a solve with that right-hand side.
template <class T, int NB, int CPW, int WARPS>
__global__ void __launch_bounds__(WARPS * 32) trsm_diag_kernel(trsm_diag_args<T> g) {
  static_assert(NB % 32 == 0, "trsm_diag_kernel: NB a multiple of 32");
  constexpr int COLS = CPW * WARPS, THREADS = WARPS * 32, R = NB / 32, LM = NB + 1, LX = COLS + 1;
  extern __shared__ unsigned char trsm_smem_raw[];
  T* ms = reinterpret_cast<T*>(trsm_smem_raw);  // (NB, NB + 1): ms[i·(NB + 1) + j] = M(i, j)
  T* xs = ms + NB * (NB + 1);                   // (NB, COLS + 1): xs[i·(COLS + 1) + c] = alpha·B(i, col0 + c)
  const int t = threadIdx.x, lane = t % 32, c0 = (t / 32) * CPW;
  const T* a = g.a;
  T* b = g.b;
  int kb = g.kb;
  if (g.identity) {  // the y-th diagonal block in solve order, and its inverse's place
    const std::int64_t y = blockIdx.y, far = g.order - y * NB;
    const std::int64_t k0 = g.lower ? y * NB : (far > NB ? far - NB : 0);
    kb = int(g.lower ? (far < NB ? far : NB) : far - k0);
    a += k0 * (g.a_r + g.a_c);
    b += y * NB * NB;
  }
  for (int idx = t; idx < kb * kb; idx += THREADS) {
    const int i = g.a_r == 1 ? idx % kb : idx / kb, j = g.a_r == 1 ? idx / kb : idx % kb;
    const bool stored = (g.lower ? j < i : j > i) || (j == i && !g.unit);
    if (stored) ms[i * LM + j] = a[i * g.a_r + j * g.a_c];
  }
  // One group of COLS columns per block, or more if nn / COLS exceeds the grid's limit (the launch caps it).
  for (std::int64_t col0 = std::int64_t(blockIdx.x) * COLS; col0 < g.nn; col0 += std::int64_t(gridDim.x) * COLS) {
    const int cols = int(g.nn - col0 < COLS ? g.nn - col0 : COLS);
    for (int idx = t; idx < kb * cols; idx += THREADS) {
      const int i = g.b_r == 1 ? idx % kb : idx / cols, c = g.b_r == 1 ? idx / kb : idx % cols;
      xs[i * LX + c] = g.identity ? T(i == col0 + c) : g.alpha * b[i * g.b_r + (col0 + c) * g.b_c];
    }
    __syncthreads();
    if (c0 < cols) {  // the whole warp, or none of it (the shuffles need every lane)
      T x[CPW][R];
#pragma unroll
      for (int c = 0; c < CPW; ++c)
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int i = lane + 32 * r;
          x[c][r] = i < kb && c0 + c < cols ? xs[i * LX + c0 + c] : T(0);
        }
      if (g.lower)
        trsm_warp_solve<T, R, CPW, true>(ms, LM, x, kb, g.unit, lane);
      else
        trsm_warp_solve<T, R, CPW, false>(ms, LM, x, kb, g.unit, lane);
#pragma unroll
      for (int c = 0; c < CPW; ++c)
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int i = lane + 32 * r;
          if (i < kb && c0 + c < cols) xs[i * LX + c0 + c] = x[c][r];
        }
    }
    __syncthreads();
    for (int idx = t; idx < kb * cols; idx += THREADS) {
      const int i = g.b_r == 1 ? idx % kb : idx / cols, c = g.b_r == 1 ? idx / kb : idx % cols;
      b[i * g.b_r + (col0 + c) * g.b_c] = xs[i * LX + c];
    }
    __syncthreads();  // xs is reused by the next group
  }
}

/// A leaf of the solve with inverted diagonal blocks: one diagonal block of kb ≤ NB rows, X1 = inv1·(alpha·C1), or
/// (pair) two, the first (in solve order) of NB rows and the second of kb2 ≤ NB: X1 = inv1·(alpha·C1), then
/// C2' = alpha·C2 − M21·X1 (M21: the second block's rows, the first's columns of M), X2 = inv2·C2'. The inverses come
/// from trsm_diag_kernel's inversion (NB × NB column-major, lower or upper as M). In place over the view's rows.
template <class T>
struct trsm_apply_args {
  const T* inv1;            ///< the first block's inverse, inv(i, j) at inv1[i + j·NB]
  const T* inv2;            ///< the second block's (pair)
  const T* m21;             ///< M21(0, 0) (pair): M21(i, j) at m21[i·m_r + j·m_c]
  std::int64_t m_r, m_c;    ///< the strides of M's rows and columns
  T* b;                     ///< C(0, 0): the leaf's first row of the view (top row, whichever block it belongs to)
  std::int64_t b_r, b_c;    ///< the strides of C's rows and columns
  std::int64_t nn;          ///< columns of the view
  int kb;                   ///< rows of the first block, 1 ≤ kb ≤ NB (NB for a pair)
  int kb2;                  ///< rows of the second block, 0 (one block) to NB
  T alpha;                  ///< C is first multiplied by alpha
  bool lower;               ///< forward (the first block on top, inverses lower) or backward (the first at the bottom)
};

/// trsm_apply_kernel's shared layout: each NB × NB matrix (the inverses, M21) column-major with columns of NB + 4
/// elements (a thread's four rows of one column are one aligned vector); C's rows (up to 2·NB) row-major with rows of
/// COLS + 2 (a thread's two columns are one aligned pair).
template <int NB, int COLS, bool PAIR>
struct trsm_apply_layout {
  static constexpr int li = NB + 4, lc = COLS + 2, mats = PAIR ? 3 : 1, rows = PAIR ? 2 * NB : NB;
  template <class T>
  static constexpr std::size_t bytes() {
    return std::size_t(mats * NB * li + rows * lc) * sizeof(T);
  }
};

/// The dynamic shared memory of trsm_apply_kernel<T, NB, COLS, PAIR>.
template <class T, int NB, int COLS, bool PAIR>
constexpr std::size_t trsm_apply_smem_bytes() {
  return trsm_apply_layout<NB, COLS, PAIR>::template bytes<T>();
}

/// N elements of T read or written as one vector.
template <class T, int N>
struct alignas(N * sizeof(T)) trsm_vec {
  T v[N];
};

/// PER · THREADS elements (PER per thread) of a strided matrix into shared memory, with every load in flight before
/// the stores: element e read by src(e), stored by dst(e, value).
template <int PER, int THREADS, class T, class Src, class Dst>
__device__ __forceinline__ void trsm_stage(Src src, Dst dst) {
  T v[PER];
#pragma unroll
  for (int q = 0; q < PER; ++q) v[q] = src(int(threadIdx.x) + q * THREADS);
#pragma unroll
  for (int q = 0; q < PER; ++q) dst(int(threadIdx.x) + q * THREADS, v[q]);
}

/// acc[q][s] (rows r0 + q, columns c0 + s) += Σ_j L(r0 + q, j)·R(j, c0 + s) over j in [0, kj) where `tri` allows it
/// (0: every j; 1, lower: j ≤ row; 2, upper: j ≥ row), in increasing j. L column-major (ld LI), R row-major (ld LC).
template <class T, int LI, int LC>
__device__ __forceinline__ void trsm_block_terms(const T* l, const T* r, int r0, int c0, int kj, int tri,
                                                 T (&acc)[4][2]) {
  const auto term = [&](int j, auto takes) {
    const trsm_vec<T, 4> v = *reinterpret_cast<const trsm_vec<T, 4>*>(l + j * LI + r0);
    const trsm_vec<T, 2> w = *reinterpret_cast<const trsm_vec<T, 2>*>(r + j * LC + c0);
#pragma unroll
    for (int q = 0; q < 4; ++q)
      if (takes(q))
#pragma unroll
        for (int s = 0; s < 2; ++s) acc[q][s] += v.v[q] * w.v[s];
  };
  const auto every = [](int) { return true; };
  const int edge_end = r0 + 4 < kj ? r0 + 4 : kj;
  if (tri == 0) {
#pragma unroll 4
    for (int j = 0; j < kj; ++j) term(j, every);
  } else if (tri == 1) {  // j < r0 for all four rows, then the edge: row r0 + q takes j ≤ r0 + q
    const int full = r0 < kj ? r0 : kj;
#pragma unroll 4
    for (int j = 0; j < full; ++j) term(j, every);
    for (int j = r0; j < edge_end; ++j) term(j, [&](int q) { return j <= r0 + q; });
  } else {  // the edge (row r0 + q takes j ≥ r0 + q), then j ≥ r0 + 4 for all four
    for (int j = r0; j < edge_end; ++j) term(j, [&](int q) { return j >= r0 + q; });
#pragma unroll 4
    for (int j = r0 + 4; j < kj; ++j) term(j, every);
  }
}

/// A block of (NB / 4)·(COLS / 2) threads runs a leaf (trsm_apply_args) over COLS columns at a time: the inverses
/// (their triangles) and M21 go to shared memory once; per group of columns, alpha times the leaf's rows of C
/// (loaded along whichever of rows or columns is contiguous); each thread computes 4 rows × 2 columns of each
/// product (per term j one vector of the left matrix's column, one pair of the right's row), every sum in increasing
/// j; X goes back over C. The inverses' products take only their triangles' terms, so an Inf or NaN in C reaches only
/// the rows that depend on it, as in substitution.
template <class T, int NB, int COLS, bool PAIR>
__global__ void __launch_bounds__(NB / 4 * (COLS / 2), trsm_apply_layout<NB, COLS, PAIR>::template bytes<T>() <= 76 * 1024 ? 2 : 1)
    trsm_apply_kernel(trsm_apply_args<T> g) {
  constexpr int THREADS = NB / 4 * (COLS / 2), CG = COLS / 2;
  using layout = trsm_apply_layout<NB, COLS, PAIR>;
  constexpr int LI = layout::li, LC = layout::lc, ROWS = layout::rows;
  constexpr int PI = NB * NB / THREADS, PC = ROWS * COLS / THREADS;  // elements a thread stages: of a matrix, of C
  static_assert(PI * THREADS == NB * NB && PC * THREADS == ROWS * COLS, "trsm_apply_kernel: whole loads");
  extern __shared__ __align__(32) unsigned char trsm_apply_smem[];
  T* i1 = reinterpret_cast<T*>(trsm_apply_smem);  // i1[j·LI + i] = inv1(i, j)
  T* i2 = i1 + NB * LI;                           // pair: inv2, then M21, the same way
  T* ms = i2 + NB * LI;
  T* cs = i1 + layout::mats * NB * LI;            // cs[r·LC + c] = alpha·C(r, col0 + c), r the leaf's row
  const int t = threadIdx.x, kb = g.kb, kb2 = PAIR ? g.kb2 : 0, rows = kb + kb2;
  const int r0 = (t / CG) * 4, c0 = (t % CG) * 2;
  const int off1 = g.lower ? 0 : kb2, off2 = g.lower ? kb : 0;  // the blocks' first rows in the leaf
  const auto stage_inverse = [&](const T* inv, int k, T* dst) {
    trsm_stage<PI, THREADS, T>(
        [&](int e) {
          const int i = e % NB, j = e / NB;
          return i < k && j < k && (g.lower ? j <= i : j >= i) ? inv[e] : T(0);
        },
        [&](int e, T v) { dst[(e / NB) * LI + e % NB] = v; });
  };
  stage_inverse(g.inv1, kb, i1);
  if constexpr (PAIR) {
    stage_inverse(g.inv2, kb2, i2);
    trsm_stage<PI, THREADS, T>(
        [&](int e) {  // along whichever of M's rows or columns is contiguous
          const int i = g.m_r == 1 ? e % NB : e / NB, j = g.m_r == 1 ? e / NB : e % NB;
          return i < kb2 ? g.m21[i * g.m_r + j * g.m_c] : T(0);
        },
        [&](int e, T v) {
          const int i = g.m_r == 1 ? e % NB : e / NB, j = g.m_r == 1 ? e / NB : e % NB;
          ms[j * LI + i] = v;
        });
  }
  // Writes a thread's 4 × 2 results to rows [base + r0, base + r0 + 4) of cs, those below `limit` rows of the block.
  const auto put = [&](const T (&acc)[4][2], int base, int limit) {
#pragma unroll
    for (int q = 0; q < 4; ++q)
      if (r0 + q < limit) {
        trsm_vec<T, 2> x;
        x.v[0] = acc[q][0];
        x.v[1] = acc[q][1];
        *reinterpret_cast<trsm_vec<T, 2>*>(cs + (base + r0 + q) * LC + c0) = x;
      }
  };
  const int tri = g.lower ? 1 : 2;
  for (std::int64_t col0 = std::int64_t(blockIdx.x) * COLS; col0 < g.nn; col0 += std::int64_t(gridDim.x) * COLS) {
    const int cols = int(g.nn - col0 < COLS ? g.nn - col0 : COLS);
    const auto at = [&](int e, int& r, int& c) {  // element e of the C block: along C's contiguous direction
      r = g.b_r == 1 ? e % ROWS : e / COLS;
      c = g.b_r == 1 ? e / ROWS : e % COLS;
    };
    trsm_stage<PC, THREADS, T>(
        [&](int e) {
          int r, c;
          at(e, r, c);
          return r < rows && c < cols ? g.alpha * g.b[r * g.b_r + (col0 + c) * g.b_c] : T(0);
        },
        [&](int e, T v) {
          int r, c;
          at(e, r, c);
          cs[r * LC + c] = v;
        });
    __syncthreads();
    {  // X1 = inv1·C1
      T acc[4][2] = {};
      trsm_block_terms<T, LI, LC>(i1, cs + off1 * LC, r0, c0, kb, tri, acc);
      __syncthreads();
      put(acc, off1, kb);
      __syncthreads();
    }
    if constexpr (PAIR) {
      if (kb2 > 0) {
        {  // C2' = C2 − M21·X1
          T acc[4][2] = {};
          trsm_block_terms<T, LI, LC>(ms, cs + off1 * LC, r0, c0, kb, 0, acc);
#pragma unroll
          for (int q = 0; q < 4; ++q)
#pragma unroll
            for (int s = 0; s < 2; ++s) acc[q][s] = cs[(off2 + r0 + q) * LC + c0 + s] - acc[q][s];
          __syncthreads();
          put(acc, off2, kb2);
          __syncthreads();
        }
        {  // X2 = inv2·C2'
          T acc[4][2] = {};
          trsm_block_terms<T, LI, LC>(i2, cs + off2 * LC, r0, c0, kb2, tri, acc);
          __syncthreads();
          put(acc, off2, kb2);
          __syncthreads();
        }
      }
    }
    trsm_stage<PC, THREADS, T>(
        [&](int e) {
          int r, c;
          at(e, r, c);
          return cs[r * LC + c];
        },
        [&](int e, T v) {
          int r, c;
          at(e, r, c);
          if (r < rows && c < cols) g.b[r * g.b_r + (col0 + c) * g.b_c] = v;
        });
    __syncthreads();  // cs is reused by the next group
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
