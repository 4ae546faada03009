// cuprim::blas::symm against a long-double host reference (cuprim::host::symm): both sides and both triangles over
// shapes around the 32-element tiles of the mirror and gemm's tiles, lda, ldb and ldc above the rows, alpha and beta
// (beta = 0 over NaN in C). A's unused triangle holds NaN (reading it would show); every element within
// 2·(ka + 2)·u·(|alpha|·Σ|a·b| + |beta·c|) + u·|c|; C's rows between columns unchanged; two runs bit-identical;
// alpha = 0 reads neither A nor B; bad arguments write nothing.
#include <cuprim/blas/symm.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/host/trsm.hpp>

#include <gtest/gtest.h>

#include "common/test_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

using cuprim::blas::side;
using cuprim::blas::uplo;
using cuprim_test::rng;

template <class T>
class BlasSymm : public cuprim_test::typed_gpu_test<T> {};
using symm_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BlasSymm, symm_types, cuprim_test::type_names);

template <class T>
std::vector<T> nonzero(rng& r, std::size_t count) {
  std::vector<T> v(count);
  for (auto& e : v) e = T(r.uniform(0.125, 1.0) * (r.next() & 1 ? 1 : -1));
  return v;
}

template <class T>
void check_symm(side s, uplo u, std::int64_t m, std::int64_t n, double alpha, double beta, rng& r) {
  std::ostringstream os;
  os << (s == side::left ? "L" : "R") << (u == uplo::lower ? "L" : "U") << " m " << m << " n " << n << " alpha "
     << alpha << " beta " << beta;
  SCOPED_TRACE(os.str());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::int64_t ka = s == side::left ? m : n, lda = ka + 1, ldb = m + 3, ldc = m + 2;
  std::vector<T> a = nonzero<T>(r, std::size_t(std::max<std::int64_t>(lda * ka, 1)));
  for (std::int64_t j = 0; j < ka; ++j)
    for (std::int64_t i = 0; i < ka; ++i)
      if (u == uplo::lower ? i < j : i > j) a[std::size_t(i + j * lda)] = T(nan);
  const std::vector<T> b = nonzero<T>(r, std::size_t(std::max<std::int64_t>(ldb * n, 1)));
  std::vector<T> c = nonzero<T>(r, std::size_t(std::max<std::int64_t>(ldc * n, 1)));
  if (beta == 0)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) c[std::size_t(i + j * ldc)] = T(nan);
  cuprim::device_buffer<T> da(a.size()), db(b.size()), dc(c.size());
  cuprim_test::upload(da.data(), a);
  cuprim_test::upload(db.data(), b);
  const auto run = [&] {
    cuprim_test::upload(dc.data(), c);
    cuprim::blas::symm<T>(s, u, m, n, T(alpha), da.data(), lda, db.data(), ldb, T(beta), dc.data(), ldc);
    return cuprim_test::download(dc.data(), c.size());
  };
  const std::vector<T> got = run();
  const auto ref = cuprim::host::symm(s == side::left ? 'L' : 'R', u == uplo::lower ? 'L' : 'U', m, n, T(alpha),
                                      a.data(), lda, b.data(), ldb, T(beta), c.data(), ldc);
  const double eps = std::numeric_limits<T>::epsilon() / 2;
  int bad = 0;
  for (std::int64_t j = 0; j < n && bad < 10; ++j)
    for (std::int64_t i = 0; i < ldc && bad < 10; ++i) {
      const std::size_t p = std::size_t(i + j * ldc);
      if (i >= m) {
        if (!cuprim_test::same_bytes(got[p], c[p])) {
          ADD_FAILURE() << "C written at (" << i << ", " << j << "), outside the m rows";
          ++bad;
        }
        continue;
      }
      const auto& e = ref[std::size_t(i + j * m)];
      const double tol = 2.0 * double(ka + 2) * eps * e.bound + eps * std::fabs(e.value);
      if (!(std::fabs(double(got[p]) - e.value) <= tol)) {
        ADD_FAILURE() << "C(" << i << ", " << j << ") = " << got[p] << ", expected " << e.value << " within " << tol;
        ++bad;
      }
    }
  const std::vector<T> again = run();
  EXPECT_TRUE(std::equal(got.begin(), got.end(), again.begin(),
                         [](T p, T q) { return cuprim_test::same_bytes(p, q); }))
      << "two runs differ";
}

TYPED_TEST(BlasSymm, BothSidesBothTriangles) {
  rng r(0x5e11);
  struct shape {
    std::int64_t m, n;
  };
  const shape shapes[] = {{0, 5}, {5, 0}, {1, 1}, {7, 33}, {33, 7}, {64, 65}, {65, 64}, {200, 33}, {33, 200}, {513, 7},
                          {7, 513}};
  int k = 0;
  for (side s : {side::left, side::right})
    for (uplo u : {uplo::lower, uplo::upper})
      for (const shape& sh : shapes) {
        const bool b0 = k++ % 2;
        check_symm<TypeParam>(s, u, sh.m, sh.n, b0 ? 1.0 : -2.5, b0 ? 0.0 : 0.5, r);
        if (this->HasFailure()) return;
      }
  check_symm<TypeParam>(side::left, uplo::upper, 200, 200, 1.0, 1.0, r);  // the seed's SSYMM: left, upper
}

TYPED_TEST(BlasSymm, AlphaZeroReadsNeitherAnorB) {
  using T = TypeParam;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::int64_t m = 40, n = 9;
  cuprim::device_buffer<T> da(std::size_t(m * m)), db(std::size_t(m * n)), dc(std::size_t(m * n));
  cuprim_test::upload(da.data(), std::vector<T>(std::size_t(m * m), T(nan)));
  cuprim_test::upload(db.data(), std::vector<T>(std::size_t(m * n), T(nan)));
  cuprim_test::upload(dc.data(), std::vector<T>(std::size_t(m * n), T(2)));
  cuprim::blas::symm<T>(side::left, uplo::lower, m, n, T(0), da.data(), m, db.data(), m, T(-1.5), dc.data(), m);
  for (T v : cuprim_test::download(dc.data(), std::size_t(m * n))) ASSERT_EQ(v, T(-3));
}

TYPED_TEST(BlasSymm, BadArgumentsWriteNothing) {
  using T = TypeParam;
  cuprim::device_buffer<T> a(64), b(64), c(64);
  cuprim_test::poison(c);
  EXPECT_THROW(cuprim::blas::symm<T>(side::left, uplo::lower, 8, 8, T(1), a.data(), 7, b.data(), 8, T(0), c.data(), 8),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::symm<T>(side::right, uplo::upper, 8, 8, T(1), a.data(), 8, c.data(), 8, T(0), c.data(), 8),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::symm<T>(side::left, static_cast<uplo>(3), 8, 8, T(1), a.data(), 8, b.data(), 8, T(0),
                                     c.data(), 8),
               cuprim::invalid_argument);
  EXPECT_TRUE(cuprim_test::bytes_are(c.data(), 64 * sizeof(T)));
}

}  // namespace
