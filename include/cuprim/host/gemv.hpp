// cuprim/host/gemv.hpp: sequential host references for the BLAS level 1 and 2 products (column-major, BLAS's strided
// vectors), shared by the tests and the lab's verify.
//
//   cuprim::host::gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy)
//       one {value, bound} per element of the result y (in y's logical order: element k of y is y[k·incy], or
//       y[(len - 1 - k)·|incy|] for a negative incy, as in BLAS): value = alpha·Σ op(A)(k, l)·x_l + beta·y_k, the
//       sum in long double in index order (y unread when beta = 0, A and x unread when alpha = 0), and bound =
//       |alpha|·Σ|op(A)(k, l)·x_l| + |beta·y_k|, the scale a floating-point result's error is measured against.
//   cuprim::host::dot(n, x, incx, y, incy)   {Σ x_k·y_k, Σ|x_k·y_k|}, in long double
//   cuprim::host::asum(n, x, incx)           Σ|x_k|, in long double
//   cuprim::host::nrm2(n, x, incx)           sqrt(Σ x_k²), the squares summed in long double (whose exponent range
//                                            holds the square of any double: no scaling needed)
//   cuprim::host::strided_at(p, len, inc, k) element k of a strided vector, BLAS's rule
// Types: anything convertible to double (the caller widens 16-bit values). No argument checks.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace cuprim::host {

/// Element k of a strided vector of len elements at p with increment inc (BLAS: negative inc from the end).
template <class T>
const T& strided_at(const T* p, std::int64_t len, std::int64_t inc, std::int64_t k) {
  return inc >= 0 ? p[k * inc] : p[(len - 1 - k) * -inc];
}

struct blas_entry {
  double value;
  double bound;
};

template <class T, class S>
std::vector<blas_entry> gemv(char trans, std::int64_t m, std::int64_t n, S alpha, const T* A, std::int64_t lda,
                             const T* x, std::int64_t incx, S beta, const T* y, std::int64_t incy) {
  const bool t = trans == 'T' || trans == 't' || trans == 'C' || trans == 'c';
  const std::int64_t len_x = t ? m : n, len_y = t ? n : m;
  std::vector<blas_entry> out(static_cast<std::size_t>(len_y));
  for (std::int64_t k = 0; k < len_y; ++k) {
    long double acc = 0;
    double abs_acc = 0;
    if (alpha != S(0))
      for (std::int64_t l = 0; l < len_x; ++l) {
        const double a = static_cast<double>(t ? A[l + k * lda] : A[k + l * lda]);
        const double xv = static_cast<double>(strided_at(x, len_x, incx, l));
        acc += static_cast<long double>(a) * xv;
        abs_acc += std::fabs(a * xv);
      }
    const long double prior =
        beta == S(0) ? 0.0L : static_cast<long double>(beta) * static_cast<double>(strided_at(y, len_y, incy, k));
    out[static_cast<std::size_t>(k)] = {static_cast<double>(static_cast<long double>(alpha) * acc + prior),
                                        std::fabs(static_cast<double>(alpha)) * abs_acc +
                                            std::fabs(static_cast<double>(prior))};
  }
  return out;
}

template <class T>
blas_entry dot(std::int64_t n, const T* x, std::int64_t incx, const T* y, std::int64_t incy) {
  long double acc = 0;
  double abs_acc = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    const double a = static_cast<double>(strided_at(x, n, incx, k)), b = static_cast<double>(strided_at(y, n, incy, k));
    acc += static_cast<long double>(a) * b;
    abs_acc += std::fabs(a * b);
  }
  return {static_cast<double>(acc), abs_acc};
}

template <class T>
double asum(std::int64_t n, const T* x, std::int64_t incx) {
  long double acc = 0;
  for (std::int64_t k = 0; k < n; ++k) acc += std::fabs(static_cast<long double>(strided_at(x, n, incx, k)));
  return static_cast<double>(acc);
}

template <class T>
double nrm2(std::int64_t n, const T* x, std::int64_t incx) {
  long double acc = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    const long double a = static_cast<long double>(strided_at(x, n, incx, k));
    acc += a * a;
  }
  return static_cast<double>(std::sqrt(acc));
}

}  // namespace cuprim::host
