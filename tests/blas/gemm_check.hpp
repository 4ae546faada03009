// tests/blas/gemm_check.hpp: a GEMM result against the double host reference, shared by the GEMM tests.
//
//   gemm_check(v, got, rng, tol)   checks C = alpha · op(A) · op(B) + beta · C (the column-major view v, C's values
//   as read back in `got`, a callable (i, j) -> double): every element when m · n · k ≤ 2^26, else 600 sampled ones
//   (the last row and column among them) and every element finite. tol(ref, ab, c0) is an element's bound, given
//   the reference, |alpha|·Σ|a·b| and |beta·c|. Returns the count out of bound (the first one described) and the
//   worst |error| / (|alpha|·Σ|a·b|).
#pragma once

#include <cuprim/host/gemm.hpp>

#include <gtest/gtest.h>

#include "common/test_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace cuprim_test {

/// The product as the reference sees it (BLAS's argument order): op codes, sizes, scalars and double copies of the
/// operands and of C's input.
struct gemm_view {
  char va, vb;
  std::int64_t m, n, k;
  double alpha;
  const double* a;
  std::int64_t lda;
  const double* b;
  std::int64_t ldb;
  double beta;
  const std::vector<double>& c;  // C before the call (read only where beta ≠ 0)
  std::int64_t ldc;
};

struct gemm_check_result {
  std::int64_t bad = 0, checked = 0;
  double worst = 0;
  std::string first;
};

template <class Got, class Tol>
gemm_check_result gemm_check(const gemm_view& v, Got got, rng& r, Tol tol) {
  gemm_check_result res;
  const auto compare = [&](std::int64_t i, std::int64_t j, double ref, double ab) {
    ++res.checked;
    const double g = got(i, j);
    const double c0 = v.beta == 0 ? 0.0 : std::fabs(v.beta * v.c[std::size_t(i + j * v.ldc)]);
    const double bound = tol(ref, ab, c0) + 1e-30;
    if (ab > 0) res.worst = std::max(res.worst, std::fabs(g - ref) / ab);
    if (!(std::fabs(g - ref) <= bound) && res.bad++ == 0) {
      std::ostringstream os;
      os << "(" << i << ", " << j << "): " << g << " vs " << ref << " (bound " << bound << ")";
      res.first = os.str();
    }
  };
  const auto c0_of = [&](std::int64_t i, std::int64_t j) {
    return v.beta == 0 ? 0.0 : std::fabs(v.beta * v.c[std::size_t(i + j * v.ldc)]);
  };
  if (double(v.m) * double(v.n) * double(v.k) <= double(1 << 26)) {
    std::vector<double> ref = v.c;
    // gemm_abs_bound includes |beta·c|; the alpha part alone is what the k-term scales.
    const std::vector<double> bound = cuprim::host::gemm_abs_bound(v.va, v.vb, v.m, v.n, v.k, v.alpha, v.a, v.lda, v.b,
                                                                   v.ldb, v.beta, ref.data(), v.ldc);
    cuprim::host::gemm(v.va, v.vb, v.m, v.n, v.k, v.alpha, v.a, v.lda, v.b, v.ldb, v.beta, ref.data(), v.ldc);
    for (std::int64_t j = 0; j < v.n; ++j)
      for (std::int64_t i = 0; i < v.m; ++i)
        compare(i, j, ref[std::size_t(i + j * v.ldc)], std::max(0.0, bound[std::size_t(i + j * v.m)] - c0_of(i, j)));
  } else {
    for (int t = 0; t < 600; ++t) {
      const std::int64_t i = t < 32 ? v.m - 1 : r.between(0, v.m - 1);
      const std::int64_t j = t >= 32 && t < 64 ? v.n - 1 : r.between(0, v.n - 1);
      const auto e = cuprim::host::gemm_element(v.va, v.vb, v.k, v.alpha, v.a, v.lda, v.b, v.ldb, v.beta, v.c.data(),
                                                v.ldc, i, j);
      compare(i, j, e.value, std::max(0.0, e.bound - c0_of(i, j)));
    }
    std::int64_t non_finite = 0;
    for (std::int64_t j = 0; j < v.n; ++j)
      for (std::int64_t i = 0; i < v.m; ++i) non_finite += !std::isfinite(got(i, j));
    EXPECT_EQ(non_finite, 0) << "elements of C left unwritten or not finite";
  }
  return res;
}

}  // namespace cuprim_test
