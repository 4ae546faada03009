// cuprim/blas/trsm.cuh: triangular solve with many right-hand sides, BLAS conventions (level 3; host entry point).
//
//   cuprim::blas::trsm(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, stream)
//        solves op(A)·X = alpha·B (side::left; A is m × m) or X·op(A) = alpha·B (side::right; A is n × n) for the
//        m × n matrix X, which overwrites B. Column-major as in BLAS and cuBLAS (element (i, j) of X at X[i + j·ldx]).
//        A is triangular: only its `uplo` triangle is read (the other is never touched, NaN there is harmless), and
//        with diag::unit not its diagonal either (taken as ones). op(A) is A (op::N) or Aᵀ (op::T).
//        cublas<S|D>trsm(handle, side, uplo, trans, diag, m, n, &alpha, A, lda, B, ldb) computes the same.
//        Workspace from the current memory resource (cuprim/core/memory.hpp).
//   cuprim::blas::trsm(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, workspace, stream)
//        the same in the caller's workspace, at least
//   cuprim::blas::trsm_workspace_bytes<T>(side, m, n)
//        bytes: none when A's order ka (m for left, n for right) is at most 64, else ka rounded up to 64, times 64
//        elements of T (the inverses of A's diagonal blocks; 2 MiB for float at ka = 8192). Allocation-free.
//
// Types: float and double, computed in the element type (true FP32 and FP64). Each element of X is backward stable
// up to the conditioning of A's 64 × 64 diagonal blocks (which are inverted, below): the tests hold the residual of
// every element, |op(A)·X − alpha·B| (left; X·op(A) for right), to 2·(ka + 2)·u·(|op(A)|·|X| + |alpha·B|)
// elementwise (ka: the order of A, u = 2^-24 or 2^-53), on well-conditioned A; the error of X itself grows with A's
// condition number, as for any solver. The same bits from run to run.
//
// Semantics, BLAS's: m = 0 or n = 0 does nothing; alpha = 0 sets B = 0 without reading A or B (NaN in B does not
// propagate). A zero (or tiny) diagonal with diag::non_unit is divided by in IEEE arithmetic: the rows it solves and
// those depending on them become Inf or NaN, nothing is checked on the device and nothing hangs (reference BLAS
// skips work for zero elements of B, so where B has exact zeros it can give 0 where this gives NaN, as cuBLAS does).
// An Inf or NaN in B likewise reaches only the rows that depend on it. Sizes and leading dimensions are 64-bit. The
// call is ordered on `stream` and returns without waiting for the GPU.
//
// Algorithm (blas/detail/trsm_kernel.cuh). The eight side × uplo × trans cases are one problem on strided views,
// M·Y = alpha·C, M triangular of order ka: the left side is op(A)·X = alpha·B itself; the right side is its transpose,
// op(A)ᵀ·Xᵀ = alpha·Bᵀ (B read through the view (ldb, 1)); a transpose reads A with swapped strides and turns lower
// into upper. M lower is solved forward, upper backward, recursively: the first half of the rows in solve order
// (a multiple of 128 rows), then the other half's right-hand sides updated by one cuprim::blas::gemm, C2 −= M21·Y1
// (the FP64 tensor-core kernel for double where its alignment rules hold; true FP32 on CUDA cores for float; tiles
// chosen for the short updates of the lower levels), then the other half. The leaves are M's diagonal blocks of 64
// rows, taken in pairs:
//   1. once per call, every diagonal block is inverted at once (trsm_diag_kernel on the columns of the identity, a
//      grid row per block): one warp per 2 columns with its lanes owning the rows, each step of the substitution one
//      division (x_k = b_k / m_kk) and one multiply-add per remaining row across the lanes;
//   2. each leaf (trsm_apply_kernel, one launch) multiplies its first block's rows by that block's inverse, updates
//      the second block's rows by the 64 × 64 coupling block of M, and multiplies them by the second inverse: the
//      two products and the update with the leaf's rows of C in shared memory, 32 columns a block.
// An inverse's product is a short dense multiply with no dependent chain, where a 64-step substitution per column was
// a third of a 4096² solve; as in cuBLAS, the residual then carries the diagonal blocks' conditioning (a well-
// conditioned A, as in the tests, meets the bound above). Orders up to 64 are one substitution (no workspace).
// alpha is applied once per row: by the first gemm update that reaches it (as its beta) or by the leaf. The gemm
// updates are large (half the problem at the top level), so nearly all of the m²n (left) or mn² (right)
// multiply-adds run at gemm's rate.
//
// Errors. cuprim::invalid_argument before anything runs: side, uplo, trans or diag not one of its enum's values; m or
// n negative; lda below max(1, ka) (ka = m for left, n for right); ldb below max(1, m); A or B null when m > 0 and
// n > 0; B overlapping A (spans of (ka − 1)·lda + ka and (n − 1)·ldb + m elements); on the left side with m > 64 and
// alpha ≠ 0, n above 65535 · 128 for float or 65535 · 64 for double (the gemm updates' grid); a caller's workspace
// smaller than trsm_workspace_bytes, or with null data where it needs bytes. cuprim::cuda_error for a failed launch,
// a failed allocation, or an error already pending.
#pragma once

#include <cuprim/blas/detail/trsm_kernel.cuh>
#include <cuprim/blas/gemm.cuh>
#include <cuprim/blas/op.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/launch.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

inline void blas_check_enums(const char* fn, blas::side s, blas::uplo u) {
  if (s != blas::side::left && s != blas::side::right)
    throw_invalid(fn, "side", "must be blas::side::left or blas::side::right");
  if (u != blas::uplo::lower && u != blas::uplo::upper)
    throw_invalid(fn, "uplo", "must be blas::uplo::lower or blas::uplo::upper");
}

/// trsm's rules on the flags, the sizes and the leading dimensions (shared with the batched forms).
template <class T>
void trsm_check_shape(const char* fn, blas::side s, blas::uplo u, blas::op trans, blas::diag d, std::int64_t m,
                      std::int64_t n, std::int64_t lda, std::int64_t ldb) {
  blas_check_enums(fn, s, u);
  if (trans != blas::op::N && trans != blas::op::T) throw_invalid(fn, "trans", "must be blas::op::N or blas::op::T");
  if (d != blas::diag::non_unit && d != blas::diag::unit)
    throw_invalid(fn, "diag", "must be blas::diag::non_unit or blas::diag::unit");
  check_size(fn, "m", m, sizeof(T));
  check_size(fn, "n", n, sizeof(T));
  gemm_check_ld(fn, "lda", lda, s == blas::side::left ? m : n);
  gemm_check_ld(fn, "ldb", ldb, m);
}

template <class T>
void trsm_validate(const char* fn, blas::side s, blas::uplo u, blas::op trans, blas::diag d, std::int64_t m,
                   std::int64_t n, const T* a, std::int64_t lda, const T* b, std::int64_t ldb) {
  trsm_check_shape<T>(fn, s, u, trans, d, m, n, lda, ldb);
  const std::int64_t ka = s == blas::side::left ? m : n;
  const bool any = m > 0 && n > 0;
  check_pointer(fn, "A", a, any);
  check_pointer(fn, "B", b, any);
  if (any)
    check_overlaps(fn, {{"A", a, gemm_span_bytes(ka, ka, lda, sizeof(T)), read_only},
                        {"B", b, gemm_span_bytes(m, n, ldb, sizeof(T)), written}});
}

/// The problem M·Y = alpha·C on strided views (see the file comment): M of order ka at `a` with strides (a_r, a_c),
/// C (ka × nn) at `b` with strides (b_r, b_c), one of each pair 1.
template <class T>
struct trsm_problem {
  const char* fn;
  const T* a;
  std::int64_t lda, a_r, a_c;
  T* b;
  std::int64_t ldb, b_r, b_c;
  std::int64_t nn;
  T alpha;
  bool lower, unit;
  cudaStream_t stream;
  std::int64_t ka;         ///< M's order
  const T* inv = nullptr;  ///< the diagonal blocks' inverses (trsm_invert), or null: the leaves substitute
};

inline constexpr int trsm_nb = 64;  // rows of a diagonal block (the recursion splits at multiples of 2 of them)
// The diagonal kernel's block: trsm_warps warps, each substituting trsm_cols_per_warp columns at once (their chains
// interleaved), so 8 columns per block of 128 threads: inverting ka / 64 blocks takes 8 · ka / 64 blocks. The lab's
// blas/trsm-sweep rows compare other shapes (docs/tuning/blas.md).
inline constexpr int trsm_cols_per_warp = 2;
inline constexpr int trsm_warps = 4;

/// trsm_update under explicit policies: Policy for the left side's gemm, PolicyT for the right side's.
template <auto Policy, auto PolicyT, class T>
void trsm_update_with(const trsm_problem<T>& p, std::int64_t r0, std::int64_t rows, std::int64_t c0, std::int64_t kk,
                      T beta) {
  const T* m_sub = p.a + r0 * p.a_r + c0 * p.a_c;
  if (p.b_r == 1) {
    gemm_dispatch<Policy>(p.fn, gemm_column_major, p.a_r == 1 ? blas::op::N : blas::op::T, blas::op::N, rows, p.nn,
                          kk, T(-1), m_sub, p.lda, p.b + c0, p.ldb, beta, p.b + r0, p.ldb, p.stream);
  } else {
    gemm_dispatch<PolicyT>(p.fn, gemm_column_major, blas::op::N, p.a_c == 1 ? blas::op::N : blas::op::T, p.nn, rows,
                           kk, T(-1), p.b + c0 * p.ldb, p.ldb, m_sub, p.lda, beta, p.b + r0 * p.ldb, p.ldb, p.stream);
  }
}

// The float updates of the recursion's lower levels are short and wide (rows = k ≤ 1024, nn columns): gemm's tuned
// tiles (128 × 128, interior 128 × 256) give a 512 × 4096 update 64 blocks for 132 SMs. Instead, by the update's
// rows (left side: C is rows × nn; right side: nn × rows, the tiles transposed): at most 64 rows, or 128 with at
// most 4096 columns, 32 × 64 tiles (64 × 32 on the right); up to 1024 rows, the tuned kernel with interior tiles of
// 128 × 128; past that, the tuned tiles. H200, µs a call (bench/studies/blas/trsm_parts.cu, h200-trsm-parts.txt;
// bench/studies/blas/trsm_tiles.cu, h200-trsm-tiles.txt; cublasSgemm in the same run):
//   left, rows = k       4096 columns                          8192 columns
//                   tuned  32 × 64  128 × 128  cuBLAS     tuned  32 × 64  128 × 128  cuBLAS
//      64            20.5     8.7        —      12.3       21.0    11.6        —      11.0
//     128            33.4    15.7     18.9      10.2       33.6    24.0     19.0      11.3
//     256            55.0    38.0     30.7      17.9       55.2    73.4     31.1      29.5
//     512            98.5   127.1     54.8      51.4      105.8   263.8    102.9      94.8
//    1024           196.1   483.8    194.1     180.1      404.1   950.5    394.4     363.0
// (the right side's N × k × k within a few per cent of the same; at 128 rows the 32 × 64 tiles win at 4096 columns
// and lose at 8192, hence the column limit).
inline constexpr blas::gemm_policy trsm_update_narrow{.tile_m = 32, .tile_n = 64, .tile_k = 8, .thread_m = 4,
                                                      .thread_n = 4};
inline constexpr blas::gemm_policy trsm_update_narrow_t{.tile_m = 64, .tile_n = 32, .tile_k = 8, .thread_m = 4,
                                                        .thread_n = 4};
// double's updates run on the FP64 tensor cores (where gemm's alignment rules hold); up to 256 rows on 64 × 64 tiles
// rather than the tuned 128 × 128. H100, 4096 columns, µs a call, left | right (N × k × k, op(A) transposed)
// (bench/studies/blas/trsm_double.cu, h100-trsm-double.txt; cublasDgemm in the same run):
//   rows = k    tuned 128 × 128    64 × 64         cuBLAS
//      64        15.3 | 16.3      13.1 | 14.1     10.7 | 9.8
//     128        20.5 | 21.8      16.5 | 17.3     10.3 | 9.7
//     256        30.2 | 32.6      23.5 | 25.1     14.5 | 15.8
//     512        57.7 | 63.3      89.5 | 95.8     45.4 | 44.8
inline constexpr blas::gemm_dmma_policy trsm_update_dmma_small{.tile_m = 64, .tile_n = 64, .tile_k = 32, .stages = 3,
                                                               .group = 8};
inline constexpr blas::gemm_policy trsm_update_square{.tile_m = 128, .tile_n = 128, .tile_k = 8, .thread_m = 8,
                                                      .thread_n = 8, .split = true, .blocks_per_sm = 2,
                                                      .interior_n = 128};

/// Rows [r0, r0 + rows) of C −= M(rows, [c0, c0 + kk)) · Y([c0, c0 + kk), :), C first multiplied by beta: one gemm,
/// on the column-major form of the views (left: C itself; right: its transpose, Cᵀ −= Yᵀ·Mᵀ); float's short updates
/// on other tiles (above). Every grid fits: the left side's column tiles are at most 65535, as trsm_run refuses more
/// than 65535 columns of gemm's table tiles there (128 float, 64 double), and the 32 × 64 tiles are taken only where
/// 64 columns a tile fit.
template <class T>
void trsm_update(const trsm_problem<T>& p, std::int64_t r0, std::int64_t rows, std::int64_t c0, std::int64_t kk,
                 T beta) {
  if constexpr (std::is_same_v<T, float>) {
    constexpr std::int64_t narrow_n = trsm_update_narrow.tile_n;  // the left side's gemm: n = nn
    const bool narrow_fits = p.b_r != 1 || (p.nn + narrow_n - 1) / narrow_n <= 65535;
    if (narrow_fits && (rows <= 64 || (rows <= 128 && p.nn <= 4096)))
      return trsm_update_with<trsm_update_narrow, trsm_update_narrow_t>(p, r0, rows, c0, kk, beta);
    if (rows <= 1024) return trsm_update_with<trsm_update_square, trsm_update_square>(p, r0, rows, c0, kk, beta);
  } else {
    if (rows <= 256) return trsm_update_with<trsm_update_dmma_small, trsm_update_dmma_small>(p, r0, rows, c0, kk, beta);
  }
  trsm_update_with<tuned, tuned>(p, r0, rows, c0, kk, beta);
}

/// Launches `kernel` with `smem` bytes of dynamic shared memory (allow_dynamic_smem first).
template <class Kernel, class Args>
void trsm_launch(const char* fn, Kernel kernel, dim3 grid, unsigned threads, std::size_t smem, cudaStream_t stream,
                 const Args& g) {
  allow_dynamic_smem(kernel, smem);
  kernel<<<grid, threads, smem, stream>>>(g);
  check_launch(fn);
}

/// The diagonal kernel's view of M and C (a block at M(0, 0), C from row 0): the fields every use of it shares.
template <class T>
trsm_diag_args<T> trsm_diag_base(const trsm_problem<T>& p) {
  trsm_diag_args<T> g{};
  g.a = p.a;
  g.a_r = p.a_r;
  g.a_c = p.a_c;
  g.b = p.b;
  g.b_r = p.b_r;
  g.b_c = p.b_c;
  g.nn = p.nn;
  g.lower = p.lower;
  g.unit = p.unit;
  return g;
}

/// Rows [k0, k0 + kk) of M (at most trsm_nb) solved by the diagonal kernel; `alpha` multiplies those rows of C first.
template <class T, int CPW, int WARPS>
void trsm_diag(const trsm_problem<T>& p, std::int64_t k0, std::int64_t kk, T alpha) {
  trsm_diag_args<T> g = trsm_diag_base(p);
  g.a += k0 * (p.a_r + p.a_c);
  g.b += k0 * p.b_r;
  g.kb = int(kk);
  g.alpha = alpha;
  const std::int64_t groups = (p.nn + CPW * WARPS - 1) / (CPW * WARPS);
  trsm_launch(p.fn, trsm_diag_kernel<T, trsm_nb, CPW, WARPS>, dim3(unsigned(groups < 0x7fffffff ? groups : 0x7fffffff)),
              unsigned(WARPS * 32), trsm_diag_smem_bytes<T, trsm_nb, CPW, WARPS>(), p.stream, g);
}

/// How many 64-row diagonal blocks an order-ka solve has, and the elements of their inverses (trsm_invert's output):
/// none where one block is the whole solve (its leaf substitutes), or where the blocks would not fit the inversion's
/// grid (ka above 65535 · 64, far past any A that fits a GPU; the leaves then substitute).
inline std::int64_t trsm_blocks(std::int64_t ka) { return (ka + trsm_nb - 1) / trsm_nb; }
inline std::int64_t trsm_inverse_elements(std::int64_t ka) {
  return ka > trsm_nb && trsm_blocks(ka) <= 65535 ? trsm_blocks(ka) * trsm_nb * trsm_nb : 0;
}

/// Every diagonal block of M inverted at once into w (trsm_blocks(ka) blocks of trsm_nb × trsm_nb, in solve order):
/// the diagonal kernel's substitution on the columns of the identity, a grid row per block.
template <class T, int CPW, int WARPS>
void trsm_invert(const trsm_problem<T>& p, T* w) {
  trsm_diag_args<T> g = trsm_diag_base(p);
  g.b = w;
  g.b_r = 1;
  g.b_c = trsm_nb;
  g.nn = trsm_nb;
  g.alpha = T(1);
  g.identity = true;
  g.order = p.ka;
  const dim3 grid(unsigned((trsm_nb + CPW * WARPS - 1) / (CPW * WARPS)), unsigned(trsm_blocks(p.ka)));
  trsm_launch(p.fn, trsm_diag_kernel<T, trsm_nb, CPW, WARPS>, grid, unsigned(WARPS * 32),
              trsm_diag_smem_bytes<T, trsm_nb, CPW, WARPS>(), p.stream, g);
}

inline constexpr int trsm_apply_cols = 32;  // columns of C a block of trsm_apply_kernel takes at a time

/// Rows [k0, k0 + kk) of M (a leaf: one diagonal block, or two, kk ≤ 2·trsm_nb) solved with the inverses from
/// trsm_invert, alpha applied first: X1 = inv1·(alpha·C1), then for two blocks C2 = alpha·C2 − M21·X1 and
/// X2 = inv2·C2, in one launch (trsm_apply_kernel).
template <class T>
void trsm_apply(const trsm_problem<T>& p, std::int64_t k0, std::int64_t kk, T alpha) {
  const auto launch = [&]<bool Pair>(const trsm_apply_args<T>& g) {
    const std::int64_t groups = (p.nn + trsm_apply_cols - 1) / trsm_apply_cols;
    trsm_launch(p.fn, trsm_apply_kernel<T, trsm_nb, trsm_apply_cols, Pair>,
                dim3(unsigned(groups < 0x7fffffff ? groups : 0x7fffffff)), unsigned(trsm_nb / 4 * (trsm_apply_cols / 2)),
                trsm_apply_smem_bytes<T, trsm_nb, trsm_apply_cols, Pair>(), p.stream, g);
  };
  const bool pair = kk > trsm_nb;
  const std::int64_t k1 = pair ? trsm_nb : kk, k2 = kk - k1;  // rows of the first and second blocks (solve order)
  // The blocks' first rows and places in solve order (trsm_invert's numbering).
  const std::int64_t f0 = p.lower ? k0 : k0 + kk - k1, s0 = p.lower ? k0 + k1 : k0;
  const std::int64_t y = p.lower ? k0 / trsm_nb : (p.ka - (k0 + kk)) / trsm_nb;
  trsm_apply_args<T> g{};
  g.inv1 = p.inv + y * trsm_nb * trsm_nb;
  g.inv2 = pair ? g.inv1 + trsm_nb * trsm_nb : nullptr;
  g.m21 = pair ? p.a + s0 * p.a_r + f0 * p.a_c : nullptr;
  g.m_r = p.a_r;
  g.m_c = p.a_c;
  g.b = p.b + k0 * p.b_r;
  g.b_r = p.b_r;
  g.b_c = p.b_c;
  g.nn = p.nn;
  g.kb = int(k1);
  g.kb2 = int(k2);
  g.alpha = alpha;
  g.lower = p.lower;
  if (pair) launch.template operator()<true>(g);
  else launch.template operator()<false>(g);
}

/// Rows [k0, k0 + kk) of the solve; `scaled`: whether those rows of C already carry alpha (a gemm update reached
/// them), else the first operation on them applies it.
template <class T, int CPW, int WARPS>
void trsm_recurse(const trsm_problem<T>& p, std::int64_t k0, std::int64_t kk, bool scaled) {
  const std::int64_t leaf = p.inv ? 2 * trsm_nb : trsm_nb;  // rows of a leaf: two inverted blocks, or one solved
  if (kk <= leaf) {
    if (p.inv) return trsm_apply(p, k0, kk, scaled ? T(1) : p.alpha);
    return trsm_diag<T, CPW, WARPS>(p, k0, kk, scaled ? T(1) : p.alpha);
  }
  const std::int64_t h = ((kk / 2 + leaf - 1) / leaf) * leaf;  // rows solved first, a multiple of the leaf
  const T beta = scaled ? T(1) : p.alpha;
  if (p.lower) {  // forward: the top h rows, then the rest
    trsm_recurse<T, CPW, WARPS>(p, k0, h, scaled);
    trsm_update(p, k0 + h, kk - h, k0, h, beta);
    trsm_recurse<T, CPW, WARPS>(p, k0 + h, kk - h, true);
  } else {  // backward: the bottom h rows, then the rest
    const std::int64_t top = kk - h;
    trsm_recurse<T, CPW, WARPS>(p, k0 + top, h, scaled);
    trsm_update(p, k0, top, k0 + top, h, beta);
    trsm_recurse<T, CPW, WARPS>(p, k0, top, true);
  }
}

/// The problem as trsm_recurse sees it: a left-side lower or upper solve over row/column strides (the right side,
/// and op(A) = Aᵀ, read the same arrays transposed).
template <class T>
trsm_problem<T> trsm_view(const char* fn, blas::side s, blas::uplo u, blas::op trans, blas::diag d, std::int64_t m,
                          std::int64_t n, T alpha, const T* a, std::int64_t lda, T* b, std::int64_t ldb,
                          cudaStream_t stream) {
  const bool left = s == blas::side::left;
  const bool t = (trans == blas::op::T) != !left;  // the right side solves with op(A)ᵀ
  trsm_problem<T> p{};
  p.fn = fn;
  p.a = a;
  p.lda = lda;
  p.a_r = t ? lda : 1;
  p.a_c = t ? 1 : lda;
  p.b = b;
  p.ldb = ldb;
  p.b_r = left ? 1 : ldb;
  p.b_c = left ? ldb : 1;
  p.nn = left ? n : m;
  p.alpha = alpha;
  p.lower = (u == blas::uplo::lower) != t;
  p.unit = d == blas::diag::unit;
  p.stream = stream;
  p.ka = left ? m : n;
  return p;
}

/// Bytes of workspace an order-ka solve needs: the diagonal blocks' inverses.
template <class T>
std::size_t trsm_workspace_size(std::int64_t ka) {
  return align_up(std::size_t(trsm_inverse_elements(ka)) * sizeof(T));
}

/// How the diagonal blocks are solved: multiplied by their inverses, two blocks a launch (production), or by
/// substitution, one launch per block (the lab's comparison and the test of the substitution kernel).
enum class trsm_leaves { inverse, substitution };

/// The whole call (ws: the caller's workspace, or null to take it from the current memory resource); CPW and WARPS
/// pick the diagonal kernel's block (the defaults in production, others in the lab's sweep).
template <class T, int CPW = trsm_cols_per_warp, int WARPS = trsm_warps, trsm_leaves Leaves = trsm_leaves::inverse>
void trsm_run(const char* fn, blas::side s, blas::uplo u, blas::op trans, blas::diag d, std::int64_t m,
              std::int64_t n, T alpha, const T* a, std::int64_t lda, T* b, std::int64_t ldb, const workspace* ws,
              cudaStream_t stream) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "cuprim::blas::trsm: float or double");
  trsm_validate(fn, s, u, trans, d, m, n, a, lda, b, ldb);
  const std::int64_t ka = s == blas::side::left ? m : n;
  const std::size_t need = m > 0 && n > 0 ? trsm_workspace_size<T>(ka) : 0;
  check_workspace(fn, ws, need, "trsm_workspace_bytes<T>(side, m, n)");
  if (m == 0 || n == 0) return;
  // The left side's gemm updates (m above one diagonal block) run over every column at once, and one launch's grid
  // holds at most 65535 column tiles of gemm's CUDA-core table (128 columns for float, 64 for double: they size the
  // grid check even where the FP64 tensor cores run): refused here, not by the first update after B has changed.
  constexpr std::int64_t update_cols = blas::gemm_policy_for<T>(0).tile_n;  // the table's rows: one for every arch
  static_assert(!std::is_same_v<T, float> || trsm_update_square.tile_n == update_cols, "float's update tiles");
  if (alpha != T(0) && s == blas::side::left && m > trsm_nb && n > std::int64_t(65535) * update_cols)
    throw_invalid(fn, "n",
                  std::is_same_v<T, float>
                      ? "too large for the left side's updates (at most 8388480 columns when m > 64)"
                      : "too large for the left side's updates (at most 4194240 columns when m > 64)");
  check_no_pending_error(fn);
  if (alpha == T(0)) return gemm_scale(fn, b, m, n, ldb, T(0), stream);
  trsm_problem<T> p = trsm_view(fn, s, u, trans, d, m, n, alpha, a, lda, b, ldb, stream);
  if (Leaves == trsm_leaves::substitution || need == 0) return trsm_recurse<T, CPW, WARPS>(p, 0, ka, false);
  with_workspace(ws, need, stream, [&](const workspace& w) {
    T* inverses = static_cast<T*>(w.data);
    trsm_invert<T, CPW, WARPS>(p, inverses);
    p.inv = inverses;
    trsm_recurse<T, CPW, WARPS>(p, 0, ka, false);
  });
}

}  // namespace cuprim::detail

namespace cuprim::blas {

/// Bytes of workspace the explicit-workspace trsm needs: 0 when m or n is 0 or below, or when A's order (m for
/// side::left, n for side::right) is at most 64; otherwise the order rounded up to 64, times 64 elements of T.
/// Arguments are not validated here.
template <class T>
std::size_t trsm_workspace_bytes(side s, std::int64_t m, std::int64_t n) {
  return m > 0 && n > 0 ? detail::trsm_workspace_size<T>(s == side::left ? m : n) : 0;
}

/// Solves op(A)·X = alpha·B (side::left) or X·op(A) = alpha·B (side::right), X overwriting B (see the file comment);
/// workspace from the current memory resource.
template <class T>
void trsm(side s, uplo u, op trans, diag d, std::int64_t m, std::int64_t n, std::type_identity_t<T> alpha,
          const T* A, std::int64_t lda, T* B, std::int64_t ldb, cudaStream_t stream = 0) {
  detail::trsm_run<T>("cuprim::blas::trsm", s, u, trans, d, m, n, alpha, A, lda, B, ldb, nullptr, stream);
}

/// The same in the caller's workspace (at least trsm_workspace_bytes<T>(s, m, n)): allocation-free.
template <class T>
void trsm(side s, uplo u, op trans, diag d, std::int64_t m, std::int64_t n, std::type_identity_t<T> alpha,
          const T* A, std::int64_t lda, T* B, std::int64_t ldb, workspace ws, cudaStream_t stream = 0) {
  detail::trsm_run<T>("cuprim::blas::trsm", s, u, trans, d, m, n, alpha, A, lda, B, ldb, &ws, stream);
}

}  // namespace cuprim::blas
