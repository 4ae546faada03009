// cuprim/host/gemm.hpp: the sequential host reference for GEMM (column-major, BLAS conventions).
//
//   cuprim::host::gemm(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)
//       C = alpha * op(A) * op(B) + beta * C, op(X) = X for 'N'/'n', X^T for 'T'/'t'/'C'/'c'. Each dot product is
//       accumulated in long double in index order. beta == 0: C is not read (NaN there does not propagate).
//   cuprim::host::gemm_abs_bound(...)   the same shape: bound[i + j*m] = |alpha| * sum_l |op(A)(i,l)| |op(B)(l,j)|
//       + |beta| |C(i,j)|, the scale a floating-point GEMM's error is measured against (tests: |err| <= c * k * eps
//       * bound).
//   cuprim::host::gemm_element(transa, transb, k, alpha, A, lda, B, ldb, beta, C, ldc, i, j)
//       one element of that product, {value, bound}: value = alpha * sum_l op(A)(i,l) op(B)(l,j) + beta * C(i,j)
//       (the sum in long double in index order; C unread when beta == 0, and may then be null) and bound = the
//       element of gemm_abs_bound. For products too large for the whole reference: sampled entries.
// No argument checks: the caller passes valid dimensions (cuprim::ooc::gemm_sync checks its own). The out-of-core
// GEMM's tests (tests/ooc/gemm_*_test.cpp) check it against this reference.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace cuprim::host {

namespace detail {
inline bool is_trans(char t) { return t == 'T' || t == 't' || t == 'C' || t == 'c'; }
template <class T>
T op_at(const T* X, std::int64_t ld, bool trans, std::int64_t r, std::int64_t c) {
  return trans ? X[c + r * ld] : X[r + c * ld];
}
}  // namespace detail

template <class T>
void gemm(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
          std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc) {
  const bool ta = detail::is_trans(transa), tb = detail::is_trans(transb);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      long double acc = 0;
      for (std::int64_t l = 0; l < k; ++l)
        acc += static_cast<long double>(detail::op_at(A, lda, ta, i, l)) * detail::op_at(B, ldb, tb, l, j);
      T& c = C[i + j * ldc];
      const long double prior = beta == T(0) ? 0.0L : static_cast<long double>(beta) * c;
      c = static_cast<T>(static_cast<long double>(alpha) * acc + prior);
    }
}

/// One element of the reference product and its error scale (see the file comment).
struct gemm_entry {
  double value;
  double bound;
};

template <class T>
gemm_entry gemm_element(char transa, char transb, std::int64_t k, T alpha, const T* A, std::int64_t lda, const T* B,
                        std::int64_t ldb, T beta, const T* C, std::int64_t ldc, std::int64_t i, std::int64_t j) {
  const bool ta = detail::is_trans(transa), tb = detail::is_trans(transb);
  long double acc = 0;
  double abs_acc = 0;
  for (std::int64_t l = 0; l < k; ++l) {
    const T a = detail::op_at(A, lda, ta, i, l), b = detail::op_at(B, ldb, tb, l, j);
    acc += static_cast<long double>(a) * b;
    abs_acc += std::fabs(static_cast<double>(a)) * std::fabs(static_cast<double>(b));
  }
  const long double prior = beta == T(0) ? 0.0L : static_cast<long double>(beta) * C[i + j * ldc];
  return {static_cast<double>(static_cast<long double>(alpha) * acc + prior),
          std::fabs(static_cast<double>(alpha)) * abs_acc + std::fabs(static_cast<double>(prior))};
}

template <class T>
std::vector<double> gemm_abs_bound(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha,
                                   const T* A, std::int64_t lda, const T* B, std::int64_t ldb, T beta, const T* C,
                                   std::int64_t ldc) {
  const bool ta = detail::is_trans(transa), tb = detail::is_trans(transb);
  std::vector<double> bound(static_cast<std::size_t>(m * n));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      double acc = 0;
      for (std::int64_t l = 0; l < k; ++l)
        acc += std::fabs(static_cast<double>(detail::op_at(A, lda, ta, i, l))) *
               std::fabs(static_cast<double>(detail::op_at(B, ldb, tb, l, j)));
      const double c = beta == T(0) ? 0.0 : std::fabs(static_cast<double>(beta) * C[i + j * ldc]);
      bound[static_cast<std::size_t>(i + j * m)] = std::fabs(static_cast<double>(alpha)) * acc + c;
    }
  return bound;
}

}  // namespace cuprim::host
