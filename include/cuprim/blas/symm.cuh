// cuprim/blas/symm.cuh: symmetric matrix multiply with BLAS conventions (level 3; host entry point).
//
//   cuprim::blas::symm(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc, stream)
//        C = alpha·A·B + beta·C (side::left; A is m × m) or C = alpha·B·A + beta·C (side::right; A is n × n), B and C
//        m × n, column-major as in BLAS and cuBLAS. A is symmetric and only its `uplo` triangle (diagonal included)
//        is read; the other triangle is never touched (NaN there is harmless). cublas<S|D>symm computes the same.
//
// Types: float and double, computed as cuprim::blas::gemm computes them (float in true FP32 on CUDA cores, double on
// the FP64 tensor cores where gemm's rules allow): the same bound, |error| ≤ ka·u·(|alpha|·Σ|a||b|) + u·|beta·c| to
// first order (ka: the order of A), and the same bits from run to run.
//
// Semantics, BLAS's: m = 0 or n = 0 does nothing; alpha = 0 sets C = beta·C without reading A or B; beta = 0 writes C
// without reading it (NaN in C does not propagate). Sizes and leading dimensions are 64-bit. The call is ordered on
// `stream` and returns without waiting for the GPU.
//
// Algorithm (blas/detail/trsm_kernel.cuh, symm_full_kernel): A's stored triangle is mirrored into a full ka × ka
// temporary (leading dimension ka rounded up to 32 elements) by a tiled transpose through shared memory (about
// 2·ka² elements moved, small beside the 2·ka²·(n or m) flops), then one cuprim::blas::gemm multiplies it. The
// temporary comes from the current memory resource, stream-ordered (ka²·sizeof(T) bytes, 64 MiB at ka = 4096 in
// float); there is no workspace overload yet, so the call is not graph-capturable unless the resource is.
//
// Errors. cuprim::invalid_argument before anything runs: side or uplo not one of its enum's values; m or n negative;
// lda below max(1, ka) (ka = m for left, n for right); ldb or ldc below max(1, m); A, B or C null when m > 0 and
// n > 0; C overlapping A
// or B (A and B may overlap: both are only read). cuprim::bad_alloc if the temporary cannot be allocated;
// cuprim::cuda_error for a failed launch or an error already pending.
#pragma once

#include <cuprim/blas/detail/trsm_kernel.cuh>
#include <cuprim/blas/gemm.cuh>
#include <cuprim/blas/op.hpp>
#include <cuprim/blas/trsm.cuh>
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/validate.hpp>

#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

template <class T>
void symm_validate(const char* fn, blas::side s, blas::uplo u, std::int64_t m, std::int64_t n, const T* a,
                   std::int64_t lda, const T* b, std::int64_t ldb, const T* c, std::int64_t ldc) {
  blas_check_enums(fn, s, u);
  check_size(fn, "m", m, sizeof(T));
  check_size(fn, "n", n, sizeof(T));
  const std::int64_t ka = s == blas::side::left ? m : n;
  gemm_check_ld(fn, "lda", lda, ka);
  gemm_check_ld(fn, "ldb", ldb, m);
  gemm_check_ld(fn, "ldc", ldc, m);
  const bool any = m > 0 && n > 0;
  check_pointer(fn, "A", a, any);
  check_pointer(fn, "B", b, any);
  check_pointer(fn, "C", c, any);
  if (any)
    check_overlaps(fn, {{"A", a, gemm_span_bytes(ka, ka, lda, sizeof(T)), read_only},
                        {"B", b, gemm_span_bytes(m, n, ldb, sizeof(T)), read_only},
                        {"C", c, gemm_span_bytes(m, n, ldc, sizeof(T)), written}});
}

template <class T>
void symm_run(const char* fn, blas::side s, blas::uplo u, std::int64_t m, std::int64_t n, T alpha, const T* a,
              std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc, cudaStream_t stream) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "cuprim::blas::symm: float or double");
  symm_validate(fn, s, u, m, n, a, lda, b, ldb, c, ldc);
  if (m == 0 || n == 0) return;
  check_no_pending_error(fn);
  if (alpha == T(0)) return gemm_scale(fn, c, m, n, ldc, beta, stream);
  const bool left = s == blas::side::left;
  const std::int64_t ka = left ? m : n, ldf = (ka + 31) / 32 * 32, tiles = (ka + 31) / 32;
  if (tiles > 65535) throw_invalid(fn, left ? "m" : "n", "too large (A of order at most 65535 · 32)");
  with_workspace(nullptr, align_up(std::size_t(ldf) * std::size_t(ka) * sizeof(T)), stream, [&](const workspace& w) {
    T* f = static_cast<T*>(w.data);
    symm_full_kernel<T><<<dim3(unsigned(tiles), unsigned(tiles)), dim3(32, 8), 0, stream>>>(
        a, lda, ka, u == blas::uplo::lower, f, ldf);
    check_launch(fn);
    if (left)
      gemm_dispatch<tuned>(fn, gemm_column_major, blas::op::N, blas::op::N, m, n, m, alpha, f, ldf, b, ldb, beta, c,
                           ldc, stream);
    else
      gemm_dispatch<tuned>(fn, gemm_column_major, blas::op::N, blas::op::N, m, n, n, alpha, b, ldb, f, ldf, beta, c,
                           ldc, stream);
  });
}

}  // namespace cuprim::detail

namespace cuprim::blas {

/// C = alpha·A·B + beta·C (side::left) or alpha·B·A + beta·C (side::right), A symmetric with only its `uplo` triangle
/// read (see the file comment).
template <class T>
void symm(side s, uplo u, std::int64_t m, std::int64_t n, std::type_identity_t<T> alpha, const T* A, std::int64_t lda,
          const T* B, std::int64_t ldb, std::type_identity_t<T> beta, T* C, std::int64_t ldc, cudaStream_t stream = 0) {
  detail::symm_run<T>("cuprim::blas::symm", s, u, m, n, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

}  // namespace cuprim::blas
