// cuprim::blas::trsm against the host references (cuprim/host/trsm.hpp): every side × uplo × trans × diag case over
// m, n in {0, 1, 7, 33, 64, 65, 200, 513} (around the 64-row diagonal blocks and the recursive split), lda and ldb
// above the rows, alpha 1 and -2.5. The solution is checked by its residual, element by element:
// |op(A)·X − alpha·B| ≤ 2·(ka + 2)·u·(|op(A)|·|X| + |alpha·B|) computed in long double on the host (backward
// stability, meaningful whatever A's condition); A's unused triangle (and its diagonal for diag::unit) holds NaN, so
// reading it would show; the rows of B's buffer between columns stay as they were. Also: the seed's sequential loop
// (left, lower, N, unit) as a second reference, alpha = 0 over NaN in B, a zero diagonal giving Inf/NaN without a
// fault, an Inf in B reaching only the rows after it, two runs bit-identical, bad arguments writing nothing, the
// diagonal blocks' edges (rows per block around 32 and 64, leaves of one or two blocks, columns per block not
// filled), the caller's workspace giving the same bits, and the leaves solved by substitution (the lab's
// comparison) to the same bound.
#include <cuprim/blas/trsm.cuh>
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

using cuprim::blas::diag;
using cuprim::blas::op;
using cuprim::blas::side;
using cuprim::blas::uplo;
using cuprim_test::rng;

template <class T>
class BlasTrsm : public cuprim_test::typed_gpu_test<T> {};
using trsm_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BlasTrsm, trsm_types, cuprim_test::type_names);

struct trsm_case {
  side s = side::left;
  uplo u = uplo::lower;
  op t = op::N;
  diag d = diag::non_unit;
  std::int64_t m = 0, n = 0;
  double alpha = 1;
  std::string describe() const {
    std::ostringstream os;
    os << (s == side::left ? "L" : "R") << (u == uplo::lower ? "L" : "U") << (t == op::N ? "N" : "T")
       << (d == diag::unit ? "U" : "N") << " m " << m << " n " << n << " alpha " << alpha;
    return os.str();
  }
  char cs() const { return s == side::left ? 'L' : 'R'; }
  char cu() const { return u == uplo::lower ? 'L' : 'U'; }
  char ct() const { return t == op::N ? 'N' : 'T'; }
  char cd() const { return d == diag::unit ? 'U' : 'N'; }
};

/// A triangular A of order ka (column-major, lda): the stored triangle random with off-diagonal magnitudes below
/// 1/ka and a diagonal of magnitude in [1, 2) with random signs (well conditioned); NaN in the other triangle, and on
/// the diagonal too when it is unit (neither may be read).
template <class T>
std::vector<T> triangular(rng& r, std::int64_t ka, std::int64_t lda, bool lower, bool unit) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<T> a(std::size_t(std::max<std::int64_t>(ka * lda, 1)), T(nan));
  for (std::int64_t j = 0; j < ka; ++j)
    for (std::int64_t i = 0; i < ka; ++i) {
      const double sign = r.next() & 1 ? 1 : -1;
      if (i == j) a[std::size_t(i + j * lda)] = unit ? T(nan) : T(sign * r.uniform(1.0, 2.0));
      else if (lower ? i > j : i < j) a[std::size_t(i + j * lda)] = T(sign * r.uniform(0.05, 1.0) / double(ka));
    }
  return a;
}

template <class T>
std::vector<T> nonzero(rng& r, std::size_t count) {
  std::vector<T> v(count);
  for (auto& e : v) e = T(r.uniform(0.125, 1.0) * (r.next() & 1 ? 1 : -1));
  return v;
}

/// Runs one case (twice: the same bits) and checks its residual and that B's gaps are unchanged. `padded`: leading
/// dimensions past the rows (ka + 3, m + 2), else equal to them (with sizes that are multiples of 4, the gemm
/// updates' 16-byte vector paths).
template <class T>
void check_trsm(const trsm_case& c, rng& r, bool padded = true,
                cuprim::detail::trsm_leaves leaves = cuprim::detail::trsm_leaves::inverse) {
  SCOPED_TRACE(c.describe());
  const std::int64_t ka = c.s == side::left ? c.m : c.n, lda = padded ? ka + 3 : ka, ldb = padded ? c.m + 2 : c.m;
  const std::vector<T> a = triangular<T>(r, ka, lda, c.u == uplo::lower, c.d == diag::unit);
  const std::vector<T> b = nonzero<T>(r, std::size_t(std::max<std::int64_t>(ldb * c.n, 1)));
  cuprim::device_buffer<T> da(a.size()), db(b.size());
  cuprim_test::upload(da.data(), a);
  const auto run = [&] {
    cuprim_test::upload(db.data(), b);
    if (leaves == cuprim::detail::trsm_leaves::inverse)
      cuprim::blas::trsm<T>(c.s, c.u, c.t, c.d, c.m, c.n, T(c.alpha), da.data(), lda, db.data(), ldb);
    else
      cuprim::detail::trsm_run<T, cuprim::detail::trsm_cols_per_warp, cuprim::detail::trsm_warps,
                               cuprim::detail::trsm_leaves::substitution>("trsm", c.s, c.u, c.t, c.d, c.m, c.n,
                                                                          T(c.alpha), da.data(), lda, db.data(), ldb,
                                                                          nullptr, nullptr);
    return cuprim_test::download(db.data(), b.size());
  };
  const std::vector<T> x = run();
  const double u = std::numeric_limits<T>::epsilon() / 2;
  const auto res = cuprim::host::trsm_residual(c.cs(), c.cu(), c.ct(), c.cd(), c.m, c.n, T(c.alpha), a.data(), lda,
                                               x.data(), ldb, b.data(), ldb);
  int bad = 0;
  for (std::int64_t j = 0; j < c.n && bad < 10; ++j)
    for (std::int64_t i = 0; i < ldb && bad < 10; ++i) {
      const std::size_t p = std::size_t(i + j * ldb);
      if (i >= c.m) {
        if (!cuprim_test::same_bytes(x[p], b[p])) {
          ADD_FAILURE() << "B written at (" << i << ", " << j << "), outside the m rows";
          ++bad;
        }
        continue;
      }
      const auto& e = res[std::size_t(i + j * c.m)];
      const double tol = 2.0 * double(ka + 2) * u * e.bound;
      if (!(std::fabs(e.r) <= tol)) {
        ADD_FAILURE() << "residual at (" << i << ", " << j << ") = " << e.r << ", allowed " << tol << " (X = " << x[p]
                      << ")";
        ++bad;
      }
    }
  const std::vector<T> again = run();
  EXPECT_TRUE(std::equal(x.begin(), x.end(), again.begin(),
                         [](T p, T q) { return cuprim_test::same_bytes(p, q); }))
      << "two runs differ";
}

/// For a left, lower solve of m × n with op t (N forward, T backward) whose row `row` is not finite: that row is Inf
/// or NaN in every column, and the rows solved before it agree with the host reference.
template <class T>
void expect_rows_before_agree(const std::vector<T>& x, const std::vector<T>& ref, std::int64_t m, std::int64_t n,
                              op t, std::int64_t row) {
  for (std::int64_t j = 0; j < n; ++j) {
    EXPECT_FALSE(std::isfinite(x[std::size_t(row + j * m)])) << "column " << j;
    for (std::int64_t i = 0; i < m; ++i) {
      const bool before = t == op::N ? i < row : i > row;
      if (!before) continue;
      const double g = x[std::size_t(i + j * m)], e = ref[std::size_t(i + j * m)];
      EXPECT_NEAR(g, e, 64.0 * m * std::numeric_limits<T>::epsilon() * (1 + std::fabs(e))) << "(" << i << ", " << j << ")";
    }
  }
}

constexpr side sides[] = {side::left, side::right};
constexpr uplo uplos[] = {uplo::lower, uplo::upper};
constexpr op ops[] = {op::N, op::T};
constexpr diag diags[] = {diag::non_unit, diag::unit};

/// Calls f(s, u, t, d) for every side × uplo × trans × diag (in that nesting) until it returns false.
template <class F>
void for_each_flag(F&& f) {
  for (side s : sides)
    for (uplo u : uplos)
      for (op t : ops)
        for (diag d : diags)
          if (!f(s, u, t, d)) return;
}

TYPED_TEST(BlasTrsm, EveryCaseAroundTheBlocks) {
  rng r(0x7125);
  struct shape {
    std::int64_t m, n;
  };
  const shape shapes[] = {{0, 7}, {7, 0}, {1, 1},   {7, 33},   {33, 7},  {64, 64},
                          {65, 65}, {200, 33}, {33, 200}, {513, 7}, {7, 513}, {65, 1}};
  int k = 0;
  for_each_flag([&](side s, uplo u, op t, diag d) {
    for (const shape& sh : shapes) {
      trsm_case c{s, u, t, d, sh.m, sh.n, (k++ % 2) ? -2.5 : 1.0};
      check_trsm<TypeParam>(c, r);
      if (this->HasFailure()) return false;
    }
    return true;
  });
}

// The diagonal kernel's edges: blocks of fewer than 64 rows on either side of a warp's 32 (lanes owning one row or
// two), leaves of two blocks with a short second one (96 = 64 + 32, 127 = 64 + 63), a last leaf of one block after
// a pair (129 = 128 + 1, 192 = 128 + 64), and column counts that leave a block's last warp, or the second column of
// a warp, without a column.
TYPED_TEST(BlasTrsm, DiagonalBlockEdges) {
  rng r(0x7129);
  int k = 0;
  for_each_flag([&](side s, uplo u, op t, diag d) {
    for (std::int64_t ka : {31, 32, 63, 96, 127, 129, 192})
      for (std::int64_t nn : {1, 9, 17}) {
        const bool left = s == side::left;
        trsm_case c{s, u, t, d, left ? ka : nn, left ? nn : ka, (k++ % 3) ? -2.5 : 1.0};
        check_trsm<TypeParam>(c, r);
        if (this->HasFailure()) return false;
      }
    return true;
  });
}

// Leading dimensions equal to the rows, every size a multiple of 4: the updates' tiles read and write by 16-byte
// vectors (the float updates of 128 rows take 32 × 64 tiles, those of up to 1024 rows 128 × 128; double's run on
// the FP64 tensor cores, whose alignment rules these leading dimensions meet).
TYPED_TEST(BlasTrsm, AlignedLeadingDimensions) {
  rng r(0x712a);
  int k = 0;
  for_each_flag([&](side s, uplo u, op t, diag d) {
    const bool left = s == side::left;
    for (std::int64_t nn : {36, 260}) {
      trsm_case c{s, u, t, d, left ? 516 : nn, left ? nn : 516, (k++ % 2) ? -2.5 : 1.0};
      check_trsm<TypeParam>(c, r, false);
      if (this->HasFailure()) return false;
    }
    return true;
  });
}

// The blocked solve with its diagonal blocks substituted (the lab's comparison to the production inverses).
TYPED_TEST(BlasTrsm, SubstitutionLeaves) {
  rng r(0x712b);
  int k = 0;
  for_each_flag([&](side s, uplo u, op t, diag d) {
    const bool left = s == side::left;
    trsm_case c{s, u, t, d, left ? 200 : 17, left ? 17 : 200, (k++ % 2) ? -2.5 : 1.0};
    check_trsm<TypeParam>(c, r, true, cuprim::detail::trsm_leaves::substitution);
    return !this->HasFailure();
  });
}

// The caller's workspace (exactly trsm_workspace_bytes, its bytes poisoned with NaN first, so a read of anything
// the inversion did not write would show) gives the same bits as the call that takes its own.
TYPED_TEST(BlasTrsm, ExplicitWorkspace) {
  using T = TypeParam;
  rng r(0x712c);
  for (side s : sides) {
    const std::int64_t m = s == side::left ? 300 : 20, n = s == side::left ? 20 : 300, ka = 300;
    SCOPED_TRACE(s == side::left ? "left" : "right");
    const std::vector<T> a = triangular<T>(r, ka, ka, false, false);
    const std::vector<T> b = nonzero<T>(r, std::size_t(m * n));
    cuprim::device_buffer<T> da(a.size()), db(b.size());
    cuprim_test::upload(da.data(), a);
    cuprim_test::upload(db.data(), b);
    cuprim::blas::trsm<T>(s, uplo::upper, op::N, diag::non_unit, m, n, T(-2.5), da.data(), ka, db.data(), m);
    const std::vector<T> x = cuprim_test::download(db.data(), b.size());
    const std::size_t bytes = cuprim::blas::trsm_workspace_bytes<T>(s, m, n);
    ASSERT_EQ(bytes, std::size_t(5) * 64 * 64 * sizeof(T));
    cuprim::device_buffer<unsigned char> ws(bytes);
    cuprim_test::poison(ws, 0xFF);  // NaN in float and double
    cuprim_test::upload(db.data(), b);
    cuprim::blas::trsm<T>(s, uplo::upper, op::N, diag::non_unit, m, n, T(-2.5), da.data(), ka, db.data(), m,
                          cuprim::workspace{ws.data(), bytes});
    const std::vector<T> y = cuprim_test::download(db.data(), b.size());
    EXPECT_TRUE(std::equal(x.begin(), x.end(), y.begin(), [](T p, T q) { return cuprim_test::same_bytes(p, q); }));
  }
}

// An Inf in B reaches only the rows that depend on it, as in substitution: the inverses' products skip the zeros
// outside the triangle (0·Inf would be NaN). The Inf sits inside a diagonal block, beside rows of the same block
// and of the same thread's four (lower: row 97, block rows 64-127; upper, solved from the bottom of 150 rows: row
// 95, block rows 86-149).
TYPED_TEST(BlasTrsm, InfInBReachesOnlyLaterRows) {
  using T = TypeParam;
  rng r(0x712d);
  for (op t : ops) {
    const std::int64_t m = 150, n = 5, inf_row = t == op::N ? 97 : 95;
    const std::vector<T> a = triangular<T>(r, m, m, true, false);
    std::vector<T> b = nonzero<T>(r, std::size_t(m * n));
    for (std::int64_t j = 0; j < n; ++j) b[std::size_t(inf_row + j * m)] = std::numeric_limits<T>::infinity();
    cuprim::device_buffer<T> da(a.size()), db(b.size());
    cuprim_test::upload(da.data(), a);
    cuprim_test::upload(db.data(), b);
    cuprim::blas::trsm<T>(side::left, uplo::lower, t, diag::non_unit, m, n, T(1), da.data(), m, db.data(), m);
    const std::vector<T> x = cuprim_test::download(db.data(), b.size());
    std::vector<T> ref = b;
    cuprim::host::trsm('L', 'L', t == op::N ? 'N' : 'T', 'N', m, n, T(1), a.data(), m, ref.data(), m);
    expect_rows_before_agree(x, ref, m, n, t, inf_row);
  }
}

TYPED_TEST(BlasTrsm, LargeSquare) {
  rng r(0x7126);
  check_trsm<TypeParam>({side::left, uplo::upper, op::T, diag::non_unit, 513, 200, -2.5}, r);
  check_trsm<TypeParam>({side::right, uplo::lower, op::N, diag::non_unit, 200, 513, 1.0}, r);
  check_trsm<TypeParam>({side::left, uplo::lower, op::N, diag::non_unit, 513, 513, 1.0}, r);
}

// The seed's STRSM loop (left, lower, N, unit, alpha 1) and the general long-double reference agree with the GPU.
TYPED_TEST(BlasTrsm, SeedLoopAgrees) {
  using T = TypeParam;
  rng r(0x7127);
  for (std::int64_t m : {7, 65, 200}) {
    const std::int64_t n = 33, lda = m + 1, ldb = m + 5;
    SCOPED_TRACE("m " + std::to_string(m));
    const std::vector<T> a = triangular<T>(r, m, lda, true, true);
    const std::vector<T> b = nonzero<T>(r, std::size_t(ldb * n));
    cuprim::device_buffer<T> da(a.size()), db(b.size());
    cuprim_test::upload(da.data(), a);
    cuprim_test::upload(db.data(), b);
    cuprim::blas::trsm<T>(side::left, uplo::lower, op::N, diag::unit, m, n, T(1), da.data(), lda, db.data(), ldb);
    const std::vector<T> x = cuprim_test::download(db.data(), b.size());
    std::vector<T> seed = b, general = b;
    cuprim::host::trsm_seed(m, n, a.data(), lda, seed.data(), ldb);
    cuprim::host::trsm('L', 'L', 'N', 'U', m, n, T(1), a.data(), lda, general.data(), ldb);
    double most = 0;
    for (T v : general) most = std::max(most, std::fabs(double(v)));
    const double tol = 8.0 * double(m + 2) * std::numeric_limits<T>::epsilon() * most;
    int bad = 0;
    for (std::size_t p = 0; p < x.size() && bad < 10; ++p) {
      const bool ok = std::fabs(double(x[p]) - double(seed[p])) <= tol &&
                      std::fabs(double(x[p]) - double(general[p])) <= tol;
      if (!ok) {
        ADD_FAILURE() << "X[" << p << "] = " << x[p] << ", seed loop " << seed[p] << ", reference " << general[p];
        ++bad;
      }
    }
  }
}

// alpha = 0: B = 0 without reading A or B (both NaN).
TYPED_TEST(BlasTrsm, AlphaZeroReadsNothing) {
  using T = TypeParam;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (side s : sides) {
    const std::int64_t m = 70, n = 9, ka = s == side::left ? m : n, ldb = m + 1;
    cuprim::device_buffer<T> da(std::size_t(ka * ka)), db(std::size_t(ldb * n));
    cuprim_test::upload(da.data(), std::vector<T>(std::size_t(ka * ka), T(nan)));
    std::vector<T> b(std::size_t(ldb * n), T(nan));
    cuprim_test::upload(db.data(), b);
    cuprim::blas::trsm<T>(s, uplo::upper, op::T, diag::non_unit, m, n, T(0), da.data(), ka, db.data(), ldb);
    const std::vector<T> x = cuprim_test::download(db.data(), b.size());
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < ldb; ++i) {
        const T v = x[std::size_t(i + j * ldb)];
        if (i < m) EXPECT_EQ(v, T(0)) << "at (" << i << ", " << j << ")";
        else EXPECT_TRUE(std::isnan(v)) << "gap written at (" << i << ", " << j << ")";
      }
  }
}

// A zero diagonal (diag::non_unit): the rows solved before it are right, its row is Inf or NaN; no fault, no hang.
TYPED_TEST(BlasTrsm, ZeroDiagonalGivesIeeeResults) {
  using T = TypeParam;
  rng r(0x7128);
  for (op t : ops) {
    const std::int64_t m = 150, n = 5, zero_row = 100;
    std::vector<T> a = triangular<T>(r, m, m, true, false);
    a[std::size_t(zero_row + zero_row * m)] = T(0);
    const std::vector<T> b = nonzero<T>(r, std::size_t(m * n));
    cuprim::device_buffer<T> da(a.size()), db(b.size());
    cuprim_test::upload(da.data(), a);
    cuprim_test::upload(db.data(), b);
    cuprim::blas::trsm<T>(side::left, uplo::lower, t, diag::non_unit, m, n, T(1), da.data(), m, db.data(), m);
    const std::vector<T> x = cuprim_test::download(db.data(), b.size());
    std::vector<T> ref = b;
    cuprim::host::trsm('L', 'L', t == op::N ? 'N' : 'T', 'N', m, n, T(1), a.data(), m, ref.data(), m);
    // op N solves forward (rows before 100 first), op T (upper) backward (rows after 100 first).
    expect_rows_before_agree(x, ref, m, n, t, zero_row);
  }
}

TYPED_TEST(BlasTrsm, BadArgumentsWriteNothing) {
  using T = TypeParam;
  cuprim::device_buffer<T> a(64), b(64);
  cuprim_test::poison(b);
  EXPECT_THROW(cuprim::blas::trsm<T>(side::left, uplo::lower, op::N, diag::unit, 8, 8, T(1), a.data(), 7, b.data(), 8),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::trsm<T>(side::right, uplo::lower, op::N, diag::unit, 8, 4, T(1), a.data(), 4, b.data(), 7),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::trsm<T>(side::left, uplo::lower, op::N, diag::unit, 8, 8, T(1), b.data(), 8, b.data(), 8),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::trsm<T>(static_cast<side>(5), uplo::lower, op::N, diag::unit, 8, 8, T(0), a.data(), 8,
                                     b.data(), 8),
               cuprim::invalid_argument);
  EXPECT_TRUE(cuprim_test::bytes_are(b.data(), 64 * sizeof(T)));
}

}  // namespace
