// cuprim/host/trsm.hpp: sequential host references for the triangular solve and the symmetric multiply (column-major,
// BLAS conventions; chars as BLAS takes them: side 'L'/'R', uplo 'L'/'U', trans 'N'/'T', diag 'N'/'U').
//
//   cuprim::host::trsm_seed(m, n, A, lda, B, ldb)
//       the seed's STRSM loop, unchanged but for m, n, lda and ldb: left, lower, not transposed, unit diagonal,
//       alpha 1 (cublasStrsm('l', 'l', 'N', 'u', ...)), in the element type, skipping zero elements of B as
//       reference BLAS does.
//   cuprim::host::trsm(side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb)
//       every case: X overwrites B, op(A)·X = alpha·B or X·op(A) = alpha·B, substitution in long double (no
//       skipping: a zero diagonal gives IEEE Inf or NaN).
//   cuprim::host::trsm_residual(side, uplo, trans, diag, m, n, alpha, A, lda, X, ldx, B0, ldb0)
//       for each element, {r, bound}: r = (op(A)·X − alpha·B0)(i, j) (or X·op(A) − alpha·B0) in long double, and
//       bound = (|op(A)|·|X| + |alpha·B0|)(i, j), reading only A's `uplo` triangle (and not its diagonal for 'U').
//       Tests hold |r| ≤ c·ka·u·bound.
//   cuprim::host::symm(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc)
//       C = alpha·A·B + beta·C ('L') or alpha·B·A + beta·C ('R') reading A's `uplo` triangle only; returns the
//       elements' {value, bound} as cuprim::host::gemm_element does (C unread when beta = 0).
// No argument checks: the caller passes valid dimensions.
#pragma once

#include <cuprim/host/gemm.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace cuprim::host {

template <class T>
void trsm_seed(std::int64_t m, std::int64_t n, const T* A, std::int64_t lda, T* B, std::int64_t ldb) {
  for (std::int64_t j = 0; j < n; j++)
    for (std::int64_t k = 0; k < m; k++)
      if (B[j * ldb + k] != T(0)) {
        for (std::int64_t i = k + 1; i < m; i++) B[j * ldb + i] -= A[k * lda + i] * B[j * ldb + k];
      }
}

namespace detail {
inline bool is_lower(char u) { return u == 'L' || u == 'l'; }
inline bool is_left(char s) { return s == 'L' || s == 'l'; }
inline bool is_unit(char d) { return d == 'U' || d == 'u'; }
/// op(A)(i, j) of a triangular A, zero outside the `uplo` triangle, one on a unit diagonal (never reading either).
template <class T>
long double tri_at(const T* A, std::int64_t lda, bool lower, bool trans, bool unit, std::int64_t i, std::int64_t j) {
  const std::int64_t r = trans ? j : i, c = trans ? i : j;  // the stored element
  if (r == c) return unit ? 1.0L : static_cast<long double>(A[r + c * lda]);
  if (lower ? r < c : r > c) return 0.0L;
  return static_cast<long double>(A[r + c * lda]);
}
}  // namespace detail

template <class T>
void trsm(char side, char uplo, char trans, char diag, std::int64_t m, std::int64_t n, T alpha, const T* A,
          std::int64_t lda, T* B, std::int64_t ldb) {
  const bool left = detail::is_left(side), lower = detail::is_lower(uplo), t = detail::is_trans(trans),
             unit = detail::is_unit(diag);
  const std::int64_t ka = left ? m : n;
  // The right side solves op(A)ᵀ·Xᵀ = alpha·Bᵀ: M(i, j) = op(A)(j, i); rows of the problem are B's columns.
  const auto M = [&](std::int64_t i, std::int64_t j) {
    return left ? detail::tri_at(A, lda, lower, t, unit, i, j) : detail::tri_at(A, lda, lower, t, unit, j, i);
  };
  const bool fwd = left ? lower != t : lower == t;  // M lower: forward substitution
  const std::int64_t nn = left ? n : m;
  std::vector<long double> x(static_cast<std::size_t>(ka));
  for (std::int64_t c = 0; c < nn; ++c) {
    const auto at = [&](std::int64_t i) -> T& { return left ? B[i + c * ldb] : B[c + i * ldb]; };
    for (std::int64_t s = 0; s < ka; ++s) {
      const std::int64_t i = fwd ? s : ka - 1 - s;
      long double acc = static_cast<long double>(alpha) * at(i);
      for (std::int64_t j = fwd ? 0 : i + 1; j < (fwd ? i : ka); ++j) acc -= M(i, j) * x[std::size_t(j)];
      x[std::size_t(i)] = unit ? acc : acc / M(i, i);
    }
    for (std::int64_t i = 0; i < ka; ++i) at(i) = static_cast<T>(x[std::size_t(i)]);
  }
}

/// One element's residual and its scale (see the file comment).
struct residual_entry {
  double r;
  double bound;
};

template <class T>
std::vector<residual_entry> trsm_residual(char side, char uplo, char trans, char diag, std::int64_t m, std::int64_t n,
                                          T alpha, const T* A, std::int64_t lda, const T* X, std::int64_t ldx,
                                          const T* B0, std::int64_t ldb0) {
  const bool left = detail::is_left(side), lower = detail::is_lower(uplo), t = detail::is_trans(trans),
             unit = detail::is_unit(diag);
  const std::int64_t ka = left ? m : n;
  std::vector<residual_entry> out(static_cast<std::size_t>(m * n));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      long double acc = 0;
      double abs_acc = 0;
      for (std::int64_t l = 0; l < ka; ++l) {
        const long double a = left ? detail::tri_at(A, lda, lower, t, unit, i, l)
                                   : detail::tri_at(A, lda, lower, t, unit, l, j);
        if (a == 0.0L) continue;
        const long double x = left ? X[l + j * ldx] : X[i + l * ldx];
        acc += a * x;
        abs_acc += std::fabs(static_cast<double>(a)) * std::fabs(static_cast<double>(x));
      }
      const long double ab = static_cast<long double>(alpha) * B0[i + j * ldb0];
      out[std::size_t(i + j * m)] = {static_cast<double>(acc - ab), abs_acc + std::fabs(static_cast<double>(ab))};
    }
  return out;
}

template <class T>
std::vector<gemm_entry> symm(char side, char uplo, std::int64_t m, std::int64_t n, T alpha, const T* A,
                             std::int64_t lda, const T* B, std::int64_t ldb, T beta, const T* C, std::int64_t ldc) {
  const bool left = detail::is_left(side), lower = detail::is_lower(uplo);
  const std::int64_t ka = left ? m : n;
  const auto a_at = [&](std::int64_t i, std::int64_t j) -> long double {
    const bool stored = lower ? i >= j : i <= j;
    return stored ? A[i + j * lda] : A[j + i * lda];
  };
  std::vector<gemm_entry> out(static_cast<std::size_t>(m * n));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      long double acc = 0;
      double abs_acc = 0;
      for (std::int64_t l = 0; l < ka; ++l) {
        const long double p = left ? a_at(i, l) * B[l + j * ldb] : static_cast<long double>(B[i + l * ldb]) * a_at(l, j);
        acc += p;
        abs_acc += std::fabs(static_cast<double>(p));
      }
      const long double prior = beta == T(0) ? 0.0L : static_cast<long double>(beta) * C[i + j * ldc];
      out[std::size_t(i + j * m)] = {static_cast<double>(static_cast<long double>(alpha) * acc + prior),
                                     std::fabs(static_cast<double>(alpha)) * abs_acc +
                                         std::fabs(static_cast<double>(prior))};
    }
  return out;
}

}  // namespace cuprim::host
