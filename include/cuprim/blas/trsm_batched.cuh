// cuprim/blas/trsm_batched.cuh: many independent triangular solves in one call, BLAS conventions (host entry points).
//
//   cuprim::blas::trsm_strided_batched(side, uplo, trans, diag, m, n, alpha, A, lda, stride_a, B, ldb, stride_b,
//                                      batch, stream)
//        `batch` independent trsm calls of one shape: op(A_z)·X_z = alpha·B_z (side::left; A_z is m × m) or
//        X_z·op(A_z) = alpha·B_z (side::right; A_z is n × n), X_z overwriting B_z, with A_z at A + z·stride_a and
//        B_z at B + z·stride_b (strides in elements), z = 0 .. batch − 1. stride_a = 0 solves every batch with one A.
//   cuprim::blas::trsm_batched(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb, batch, stream)
//        the same with the matrices found through pointer arrays in device memory: A_z = A[z], B_z = B[z]
//        (const T* const* and T* const*), as cublas<S|D>trsmBatched.
// Each batch is one cuprim::blas::trsm of the shape (blas/trsm.cuh): column-major, only A's `uplo` triangle read
// (and not its diagonal with diag::unit), float and double in the element type, the same residual bound per element
// (2·(ka + 2)·u·(|op(A)|·|X| + |alpha·B|), ka the order of A), the same bits from run to run; the two forms give the
// same bits for the same matrices. BLAS's semantics: m = 0, n = 0 or batch = 0 does nothing (no CUDA call at all);
// alpha = 0 sets every B_z to zero without reading A or B; a zero diagonal (non_unit) divides in IEEE arithmetic,
// giving Inf or NaN in the rows that depend on it, never a fault or a hang. Sizes, strides and batch are 64-bit. The
// call is ordered on `stream` and returns without waiting for the GPU; the order of A of 64 or less allocates
// nothing (graph-capturable).
//
// Algorithm. As trsm, every side, uplo and trans is one problem on strided views, M·Y = alpha·C with M lower (forward)
// or upper (backward) of order ka (blas/detail/trsm_kernel.cuh). For ka ≤ 64 (the case this form is for: many small
// systems, a stream of A's triangle and B through the GPU), one launch of trsm_batched_small_kernel
// (blas/detail/trsm_batched_kernel.cuh): a block per batch loads the triangle into shared memory and the right-hand
// sides after it (cp.async, along whichever dimension is contiguous; 16 bytes a copy for B's columns where aligned),
// each thread solves one column of C (a column of B on the left side, a row on the right) by substitution with the
// column in registers, the whole 16-, 32- or 64-row solve unrolled (forward or backward), and the block writes B
// back. The memory bound for 10^4 batches of 64 × 64 float is ~0.14 ms on an
// H100 (411 MB moved); see the kernel's comment. For ka > 64, the recursion of trsm run over every batch at once: the
// diagonal blocks of 64 rows by the same kernel (at an offset into each batch), the updates C2 −= M21·Y1 by the
// batched gemm (the CUDA-core kernels), so about 2·log2(ka / 64) + 1 launches per call; correct for every size, not
// tuned (for a few large systems, trsm per batch is faster). The pointer-array form then takes 3·batch pointers of
// workspace from the current memory resource (stream-ordered) for the offset operands of the updates.
//
// Errors. cuprim::invalid_argument before anything runs: trsm's rules on side, uplo, trans, diag, m, n, lda and ldb;
// batch negative; stride_a or stride_b negative; stride_b below the elements one B spans ((n − 1)·ldb + m) when
// batch > 1 (the B_z must not overlap); A or B null when m > 0, n > 0 and batch > 0; B's whole strided extent (from
// B to the last batch's last element) overlapping A's. The pointer-array form cannot check its arrays' contents:
// they must be readable by the device, their matrices valid, the B_z distinct and disjoint from every A_z (a bad
// pointer faults on the device, aliasing gives undefined results). cuprim::cuda_error for a failed launch or an error
// already pending.
#pragma once

#include <cuprim/blas/detail/trsm_batched_kernel.cuh>
#include <cuprim/blas/trsm.cuh>
#include <cuprim/core/memory.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

/// The largest order of A the small kernel solves in one launch (its NB); larger ones recurse.
inline constexpr int trsm_small_max = 64;

/// The batches of trsm_problem<T>'s view: the strided form (a, b of batch 0; the strides) or pointer arrays.
template <class T>
struct trsm_batches {
  const T* const* a_array = nullptr;
  T* const* b_array = nullptr;
  std::int64_t stride_a = 0, stride_b = 0, count = 0;
  /// The pointer-array form's offset operands of a gemm update (3·count pointers), when ka > trsm_small_max.
  const T** m_work = nullptr;
  const T** y_work = nullptr;
  T** c_work = nullptr;
  /// Threads per block of the small kernel at most (32, 64 or 128; the lab's sweep rows), 0 for the default.
  int max_threads = 0;
};

/// The small kernel's block for nn columns: the fewest warps that give every column a thread, up to 4 (more columns
/// loop); `max_threads` caps it.
inline int trsm_small_threads(std::int64_t nn, int max_threads) {
  int t = nn <= 32 ? 32 : nn <= 64 ? 64 : 128;
  if (max_threads > 0) t = std::min(t, max_threads);
  return t;
}

/// Rows [k0, k0 + kk) of every batch (kk ≤ trsm_small_max) solved by the small kernel; alpha multiplies them first.
template <class T>
void trsm_batched_diag(const trsm_problem<T>& p, const trsm_batches<T>& bt, std::int64_t k0, std::int64_t kk, T alpha) {
  trsm_batched_args<T> g{};
  g.a = bt.a_array ? nullptr : p.a;
  g.a_array = bt.a_array;
  g.stride_a = bt.stride_a;
  g.a_off = k0 * (p.a_r + p.a_c);
  g.a_r = p.a_r;
  g.a_c = p.a_c;
  g.b = bt.b_array ? nullptr : p.b;
  g.b_array = bt.b_array;
  g.stride_b = bt.stride_b;
  g.b_off = k0 * p.b_r;
  g.b_r = p.b_r;
  g.b_c = p.b_c;
  g.nn = p.nn;
  g.count = bt.count;
  g.kb = int(kk);
  g.alpha = alpha;
  g.unit = p.unit;
  const int threads = trsm_small_threads(p.nn, bt.max_threads);
  const auto launch = [&](auto nb, auto lo) {
    constexpr int NB = decltype(nb)::value;
    const int cols = int(std::min<std::int64_t>(g.nn, threads));
    const std::size_t smem = trsm_small_smem_bytes<T, NB>(cols);
    const auto kernel = trsm_batched_small_kernel<T, NB, decltype(lo)::value>;
    if (smem > 48 * 1024 &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)) != cudaSuccess)
      check_launch(p.fn);
    // As much of the SM's L1 as shared memory as it has: occupancy is bound by shared memory (6 blocks of 64 × 64
    // float an SM), and L1 holds nothing the kernel reads twice.
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared) !=
        cudaSuccess)
      check_launch(p.fn);
    const std::int64_t grid = std::min<std::int64_t>(g.count, 0x7fffffff);
    kernel<<<unsigned(grid), unsigned(threads), smem, p.stream>>>(g);
    check_launch(p.fn);
  };
  const auto pick = [&](auto nb) {
    if (p.lower) launch(nb, std::true_type{});
    else launch(nb, std::false_type{});
  };
  if (kk <= 16) pick(std::integral_constant<int, 16>{});
  else if (kk <= 32) pick(std::integral_constant<int, 32>{});
  else pick(std::integral_constant<int, 64>{});
}

/// trsm_update over every batch: rows [r0, r0 + rows) of C −= M(rows, [c0, c0 + kk))·Y([c0, c0 + kk), :), C first
/// multiplied by beta, as one batched gemm on the column-major form of the views.
template <class T>
void trsm_batched_update(const trsm_problem<T>& p, const trsm_batches<T>& bt, std::int64_t r0, std::int64_t rows,
                         std::int64_t c0, std::int64_t kk, T beta) {
  const bool left = p.b_r == 1;
  const std::int64_t m_off = r0 * p.a_r + c0 * p.a_c;  // M's block
  const std::int64_t y_off = c0 * (left ? 1 : p.ldb);  // the solved rows of the view
  const std::int64_t c_off = r0 * (left ? 1 : p.ldb);  // the rows updated
  gemm_batch<T> g;
  g.count = bt.count;
  const T *m_base = nullptr, *y_base = nullptr;
  T* c_base = nullptr;
  if (bt.a_array) {
    const std::int64_t blocks = std::min<std::int64_t>((bt.count + 255) / 256, 65535);
    trsm_offset_arrays_kernel<<<unsigned(blocks), 256, 0, p.stream>>>(bt.a_array, bt.b_array, bt.count, m_off, y_off,
                                                                     c_off, bt.m_work, bt.y_work, bt.c_work);
    check_launch(p.fn);
  } else {
    m_base = p.a + m_off;
    y_base = p.b + y_off;
    c_base = p.b + c_off;
  }
  const blas::op op_m = left ? (p.a_r == 1 ? blas::op::N : blas::op::T) : (p.a_c == 1 ? blas::op::N : blas::op::T);
  if (left) {  // C(rows × nn) −= M_sub(rows × kk) · Y(kk × nn)
    if (bt.a_array) {
      g.a_array = bt.m_work;
      g.b_array = bt.y_work;
      g.c_array = bt.c_work;
    } else {
      g.stride_a = bt.stride_a;
      g.stride_b = bt.stride_b;
      g.stride_c = bt.stride_b;
    }
    gemm_batched_run<tuned>(p.fn, gemm_column_major, op_m, blas::op::N, rows, p.nn, kk, T(-1), m_base, p.lda, y_base,
                            p.ldb, beta, c_base, p.ldb, g, p.stream);
  } else {  // Cᵀ(nn × rows) −= Yᵀ(nn × kk) · M_subᵀ(kk × rows)
    if (bt.a_array) {
      g.a_array = bt.y_work;
      g.b_array = bt.m_work;
      g.c_array = bt.c_work;
    } else {
      g.stride_a = bt.stride_b;
      g.stride_b = bt.stride_a;
      g.stride_c = bt.stride_b;
    }
    gemm_batched_run<tuned>(p.fn, gemm_column_major, blas::op::N, op_m, p.nn, rows, kk, T(-1), y_base, p.ldb, m_base,
                            p.lda, beta, c_base, p.ldb, g, p.stream);
  }
}

/// trsm_recurse over every batch (see trsm.cuh): rows [k0, k0 + kk), `scaled` when they already carry alpha.
template <class T>
void trsm_batched_recurse(const trsm_problem<T>& p, const trsm_batches<T>& bt, std::int64_t k0, std::int64_t kk,
                          bool scaled) {
  if (kk <= trsm_small_max) return trsm_batched_diag(p, bt, k0, kk, scaled ? T(1) : p.alpha);
  const std::int64_t h = ((kk / 2 + trsm_nb - 1) / trsm_nb) * trsm_nb;
  const T beta = scaled ? T(1) : p.alpha;
  if (p.lower) {
    trsm_batched_recurse(p, bt, k0, h, scaled);
    trsm_batched_update(p, bt, k0 + h, kk - h, k0, h, beta);
    trsm_batched_recurse(p, bt, k0 + h, kk - h, true);
  } else {
    const std::int64_t top = kk - h;
    trsm_batched_recurse(p, bt, k0 + top, h, scaled);
    trsm_batched_update(p, bt, k0, top, k0 + top, h, beta);
    trsm_batched_recurse(p, bt, k0, top, true);
  }
}

/// Every batched trsm ends here after its validation: a, b are batch 0's (strided form) or null (bt's arrays).
template <class T>
void trsm_batched_run(const char* fn, blas::side s, blas::uplo u, blas::op trans, blas::diag d, std::int64_t m,
                      std::int64_t n, T alpha, const T* a, std::int64_t lda, T* b, std::int64_t ldb,
                      trsm_batches<T> bt, cudaStream_t stream) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "cuprim::blas::trsm_*batched: float or double");
  if (m == 0 || n == 0 || bt.count == 0) return;
  check_no_pending_error(fn);
  if (alpha == T(0)) {  // B_z = 0 without reading A or B
    gemm_batch<T> g;
    g.count = bt.count;
    g.stride_c = bt.stride_b;
    g.c_array = bt.b_array;
    constexpr unsigned threads = 256;
    const dim3 grid(unsigned((std::uint64_t(m) + threads - 1) / threads), unsigned(std::min<std::int64_t>(n, 65535)),
                    unsigned(std::min<std::int64_t>(bt.count, 65535)));
    gemm_scale_batched_kernel<<<grid, threads, 0, stream>>>(b, m, n, ldb, T(0), g);
    check_launch(fn);
    return;
  }
  const bool left = s == blas::side::left;
  const trsm_problem<T> p = trsm_view(fn, s, u, trans, d, m, n, alpha, a, lda, b, ldb, stream);
  const std::int64_t ka = left ? m : n;
  if (ka <= trsm_small_max) return trsm_batched_diag(p, bt, 0, ka, alpha);
  if (!bt.a_array) return trsm_batched_recurse(p, bt, 0, ka, false);
  scratch work(3 * std::size_t(bt.count) * sizeof(void*), stream);
  const T** w = static_cast<const T**>(work.get().data);
  bt.m_work = w;
  bt.y_work = w + bt.count;
  bt.c_work = static_cast<T**>(static_cast<void*>(w + 2 * bt.count));
  trsm_batched_recurse(p, bt, 0, ka, false);
}

/// The strided form's rules (see the file comment).
template <class T>
void trsm_strided_validate(const char* fn, blas::side s, blas::uplo u, blas::op trans, blas::diag d, std::int64_t m,
                           std::int64_t n, const T* a, std::int64_t lda, std::int64_t stride_a, const T* b,
                           std::int64_t ldb, std::int64_t stride_b, std::int64_t batch) {
  trsm_check_shape<T>(fn, s, u, trans, d, m, n, lda, ldb);
  gemm_check_batch(fn, batch);
  if (stride_a < 0) throw_invalid(fn, "stride_a", "must be non-negative");
  if (stride_b < 0) throw_invalid(fn, "stride_b", "must be non-negative");
  const std::size_t e = sizeof(T);
  const std::int64_t ka = s == blas::side::left ? m : n;
  const std::size_t span_a = gemm_span_bytes(ka, ka, lda, e), span_b = gemm_span_bytes(m, n, ldb, e);
  if (batch > 1 && span_b > 0 && std::uint64_t(stride_b) < span_b / e)
    throw_invalid(fn, "stride_b", "must be at least the elements one B spans, (n - 1)·ldb + m, so that the batches "
                                  "of B do not overlap");
  const bool any = m > 0 && n > 0 && batch > 0;
  check_pointer(fn, "A", a, any);
  check_pointer(fn, "B", b, any);
  const std::size_t ext_a = gemm_strided_extent(fn, "stride_a", span_a, stride_a, batch, e);
  const std::size_t ext_b = gemm_strided_extent(fn, "stride_b", span_b, stride_b, batch, e);
  if (any) check_overlaps(fn, {{"A", a, ext_a, read_only}, {"B", b, ext_b, written}});
}

/// The pointer-array form's rules: trsm's on the shape, batch ≥ 0, the arrays not null when anything is solved.
template <class T>
void trsm_array_validate(const char* fn, blas::side s, blas::uplo u, blas::op trans, blas::diag d, std::int64_t m,
                         std::int64_t n, const T* const* a, std::int64_t lda, T* const* b, std::int64_t ldb,
                         std::int64_t batch) {
  trsm_check_shape<T>(fn, s, u, trans, d, m, n, lda, ldb);
  gemm_check_batch(fn, batch);
  const bool any = m > 0 && n > 0 && batch > 0;
  check_pointer(fn, "A", a, any);
  check_pointer(fn, "B", b, any);
}

template <class T>
void trsm_strided_batched_run(const char* fn, blas::side s, blas::uplo u, blas::op trans, blas::diag d,
                              std::int64_t m, std::int64_t n, T alpha, const T* a, std::int64_t lda,
                              std::int64_t stride_a, T* b, std::int64_t ldb, std::int64_t stride_b,
                              std::int64_t batch, cudaStream_t stream, int max_threads = 0) {
  trsm_strided_validate(fn, s, u, trans, d, m, n, a, lda, stride_a, b, ldb, stride_b, batch);
  trsm_batches<T> bt;
  bt.stride_a = stride_a;
  bt.stride_b = stride_b;
  bt.count = batch;
  bt.max_threads = max_threads;
  trsm_batched_run(fn, s, u, trans, d, m, n, alpha, a, lda, b, ldb, bt, stream);
}

template <class T>
void trsm_array_batched_run(const char* fn, blas::side s, blas::uplo u, blas::op trans, blas::diag d, std::int64_t m,
                            std::int64_t n, T alpha, const T* const* a, std::int64_t lda, T* const* b,
                            std::int64_t ldb, std::int64_t batch, cudaStream_t stream, int max_threads = 0) {
  trsm_array_validate(fn, s, u, trans, d, m, n, a, lda, b, ldb, batch);
  trsm_batches<T> bt;
  bt.a_array = a;
  bt.b_array = b;
  bt.count = batch;
  bt.max_threads = max_threads;
  trsm_batched_run(fn, s, u, trans, d, m, n, alpha, static_cast<const T*>(nullptr), lda, static_cast<T*>(nullptr),
                   ldb, bt, stream);
}

}  // namespace cuprim::detail

namespace cuprim::blas {

/// `batch` solves op(A_z)·X_z = alpha·B_z (left) or X_z·op(A_z) = alpha·B_z (right), A_z = A + z·stride_a,
/// B_z = B + z·stride_b, X_z overwriting B_z (see the file comment).
template <class T>
void trsm_strided_batched(side s, uplo u, op trans, diag d, std::int64_t m, std::int64_t n,
                          std::type_identity_t<T> alpha, const T* A, std::int64_t lda, std::int64_t stride_a, T* B,
                          std::int64_t ldb, std::int64_t stride_b, std::int64_t batch, cudaStream_t stream = 0) {
  detail::trsm_strided_batched_run<T>("cuprim::blas::trsm_strided_batched", s, u, trans, d, m, n, alpha, A, lda,
                                      stride_a, B, ldb, stride_b, batch, stream);
}

/// The same with the pointer arrays A[z] and B[z] in device memory (as cublas<S|D>trsmBatched).
template <class T>
void trsm_batched(side s, uplo u, op trans, diag d, std::int64_t m, std::int64_t n, std::type_identity_t<T> alpha,
                  const T* const* A, std::int64_t lda, T* const* B, std::int64_t ldb, std::int64_t batch,
                  cudaStream_t stream = 0) {
  detail::trsm_array_batched_run<T>("cuprim::blas::trsm_batched", s, u, trans, d, m, n, alpha, A, lda, B, ldb, batch,
                                    stream);
}

}  // namespace cuprim::blas
