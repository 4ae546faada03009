// cuprim::blas::trsm_strided_batched and cuprim::blas::trsm_batched against the host references
// (cuprim/host/trsm.hpp): every side × uplo × trans × diag case at m, n in {0, 1, 15, 16, 17, 33, 64} (the small
// kernel's 16-, 32- and 64-row forms and their edges) and at orders of A above the small kernel's 64 (65, 100, 200:
// the batched recursion), ld above the rows, batch 1 and more, alpha 1 and -2.5. Each solution is checked by its
// residual element by element, |op(A)·X − alpha·B| ≤ 2·(ka + 2)·u·(|op(A)|·|X| + |alpha·B|) in long double (as
// trsm_test.cu); every other case lays B out 16-byte aligned (the vector path of the small kernel). A is well
// conditioned (|diagonal| in [1, 2), off-diagonals below 1/ka); its other triangle, its
// diagonal when unit, the rows below ka and the gaps between batches hold NaN, so reading any of them would show.
// Every element of B's buffer outside the batches' m × n (the head, the rows between ka and ldb, the gaps between
// batches, the tail) must keep its bytes. Also: 10^4 batches of mixed sizes across the cases (residuals of sampled
// batches, every guard), stride_a = 0, pointer arrays in shuffled order (and the same bits as the strided form),
// alpha = 0 over NaN, a zero diagonal giving Inf/NaN without a fault, two runs bit-identical, bad arguments writing
// nothing.
#include <cuprim/blas/trsm_batched.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/host/trsm.hpp>

#include <gtest/gtest.h>

#include "common/test_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
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
class BlasTrsmBatched : public cuprim_test::typed_gpu_test<T> {};
using trsm_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BlasTrsmBatched, trsm_types, cuprim_test::type_names);

constexpr side sides[] = {side::left, side::right};
constexpr uplo uplos[] = {uplo::lower, uplo::upper};
constexpr op ops[] = {op::N, op::T};
constexpr diag diags[] = {diag::non_unit, diag::unit};

/// One call: the flags, the shape, alpha and the batches' layout.
struct bcase {
  side s = side::left;
  uplo u = uplo::lower;
  op t = op::N;
  diag d = diag::non_unit;
  std::int64_t m = 0, n = 0;
  double alpha = 1;
  std::int64_t batch = 1;
  bool arrays = false;        ///< trsm_batched (pointer arrays) rather than trsm_strided_batched
  bool shared_a = false;      ///< one A for every batch (stride_a = 0, or every A[z] the same)
  std::int64_t lda_pad = 3, ldb_pad = 2;
  std::int64_t slot_pad = 3;  ///< elements between one B's last column and the next B

  std::int64_t ka() const { return s == side::left ? m : n; }
  std::int64_t lda() const { return ka() + lda_pad; }
  std::int64_t ldb() const { return m + ldb_pad; }
  std::string describe() const {
    std::ostringstream os;
    os << (s == side::left ? "L" : "R") << (u == uplo::lower ? "L" : "U") << (t == op::N ? "N" : "T")
       << (d == diag::unit ? "U" : "N") << " m " << m << " n " << n << " alpha " << alpha << " batch " << batch
       << (arrays ? " arrays" : " strided") << (shared_a ? " shared A" : "");
    return os.str();
  }
  char cs() const { return s == side::left ? 'L' : 'R'; }
  char cu() const { return u == uplo::lower ? 'L' : 'U'; }
  char ct() const { return t == op::N ? 'N' : 'T'; }
  char cd() const { return d == diag::unit ? 'U' : 'N'; }
};

/// The batches on the host: A's slots (each lda·ka + 5 elements, NaN outside the stored triangle), B's buffer (a
/// head of 8 elements, slots of ldb·n + slot_pad, a tail of 8, random nonzero everywhere), and which slots batch z
/// uses. With ldb and slot_pad multiples of 4 every B of the strided form is 16-byte aligned (the small kernel's
/// vector path for B's columns).
template <class T>
struct batch_data {
  std::int64_t slot_a = 0, slot_b = 0;
  std::vector<T> a, b;
  std::vector<std::int64_t> a_of, b_of;  // element offsets of batch z's A and B
};

constexpr std::int64_t b_head = 8;

/// Fills one A of order ka (column-major, lda) at p: the stored triangle random, off-diagonals below 1/ka in
/// magnitude and the diagonal in [1, 2) with random signs; the rest (the other triangle, the unit diagonal, the rows
/// below ka) left as it is (NaN).
template <class T>
void fill_triangle(rng& r, T* p, std::int64_t ka, std::int64_t lda, bool lower, bool unit) {
  for (std::int64_t j = 0; j < ka; ++j)
    for (std::int64_t i = 0; i < ka; ++i) {
      const double sign = r.next() & 1 ? 1 : -1;
      if (i == j) {
        if (!unit) p[i + j * lda] = T(sign * r.uniform(1.0, 2.0));
      } else if (lower ? i > j : i < j) {
        p[i + j * lda] = T(sign * r.uniform(0.05, 1.0) / double(ka));
      }
    }
}

template <class T>
batch_data<T> make_batches(const bcase& c, rng& r, bool shuffle) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  batch_data<T> d;
  const std::int64_t ka = c.ka(), slots_a = c.shared_a ? 1 : c.batch;
  d.slot_a = c.lda() * ka + 5;
  d.slot_b = c.ldb() * c.n + c.slot_pad;
  d.a.assign(std::size_t(std::max<std::int64_t>(slots_a * d.slot_a, 1)), T(nan));
  for (std::int64_t q = 0; q < slots_a; ++q)
    fill_triangle(r, d.a.data() + q * d.slot_a, ka, c.lda(), c.u == uplo::lower, c.d == diag::unit);
  d.b.resize(std::size_t(b_head + c.batch * d.slot_b + b_head));
  for (auto& e : d.b) e = T(r.uniform(0.125, 1.0) * (r.next() & 1 ? 1 : -1));
  std::vector<std::int64_t> pa(std::size_t(c.batch)), pb(std::size_t(c.batch));
  std::iota(pa.begin(), pa.end(), 0);
  std::iota(pb.begin(), pb.end(), 0);
  if (shuffle)
    for (std::int64_t z = c.batch - 1; z > 0; --z) {  // independent shuffles: batch z pairs slot pa[z] with pb[z]
      std::swap(pa[std::size_t(z)], pa[std::size_t(r.index(std::uint64_t(z + 1)))]);
      std::swap(pb[std::size_t(z)], pb[std::size_t(r.index(std::uint64_t(z + 1)))]);
    }
  for (std::int64_t z = 0; z < c.batch; ++z) {
    d.a_of.push_back(c.shared_a ? 0 : pa[std::size_t(z)] * d.slot_a);
    d.b_of.push_back(b_head + pb[std::size_t(z)] * d.slot_b);
  }
  return d;
}

/// Runs the call on the GPU on a copy of d.b and returns the buffer.
template <class T>
std::vector<T> solve(const bcase& c, const batch_data<T>& d) {
  cuprim::device_buffer<T> da(d.a.size()), db(d.b.size());
  cuprim_test::upload(da.data(), d.a);
  cuprim_test::upload(db.data(), d.b);
  if (c.arrays) {
    std::vector<const T*> pa;
    std::vector<T*> pb;
    for (std::int64_t z = 0; z < c.batch; ++z) {
      pa.push_back(da.data() + d.a_of[std::size_t(z)]);
      pb.push_back(db.data() + d.b_of[std::size_t(z)]);
    }
    cuprim::device_buffer<const T*> dpa(std::max<std::size_t>(pa.size(), 1));
    cuprim::device_buffer<T*> dpb(std::max<std::size_t>(pb.size(), 1));
    if (!pa.empty()) {
      cuprim_test::upload(dpa.data(), pa);
      cuprim_test::upload(dpb.data(), pb);
    }
    cuprim::blas::trsm_batched<T>(c.s, c.u, c.t, c.d, c.m, c.n, T(c.alpha), dpa.data(), c.lda(), dpb.data(), c.ldb(),
                                  c.batch);
  } else {
    // The strided form: batch z at slot z (make_batches without shuffling), A's stride 0 when shared.
    cuprim::blas::trsm_strided_batched<T>(c.s, c.u, c.t, c.d, c.m, c.n, T(c.alpha), da.data(), c.lda(),
                                          c.shared_a ? 0 : d.slot_a, db.data() + b_head, c.ldb(), d.slot_b, c.batch);
  }
  return cuprim_test::download(db.data(), d.b.size());
}

/// Checks the residual of every element of the batches in `which` (all when empty) and that every element of B's
/// buffer outside the batches kept its bytes. Returns false on the first failing batch.
template <class T>
bool check(const bcase& c, const batch_data<T>& d, const std::vector<T>& x, std::vector<std::int64_t> which = {}) {
  const std::int64_t ka = c.ka(), ldb = c.ldb(), lda = c.lda();
  std::vector<char> in(d.b.size(), 0);
  for (std::int64_t z = 0; z < c.batch; ++z)
    for (std::int64_t j = 0; j < c.n; ++j)
      for (std::int64_t i = 0; i < c.m; ++i) in[std::size_t(d.b_of[std::size_t(z)] + i + j * ldb)] = 1;
  int bad = 0;
  for (std::size_t p = 0; p < x.size() && bad < 10; ++p)
    if (!in[p] && !cuprim_test::same_bytes(x[p], d.b[p])) {
      ADD_FAILURE() << "B's buffer written outside every batch, at element " << p;
      ++bad;
    }
  if (which.empty())
    for (std::int64_t z = 0; z < c.batch; ++z) which.push_back(z);
  const double u = std::numeric_limits<T>::epsilon() / 2;
  for (std::int64_t z : which) {
    const T* a = d.a.data() + d.a_of[std::size_t(z)];
    const std::int64_t bo = d.b_of[std::size_t(z)];
    const auto res = cuprim::host::trsm_residual(c.cs(), c.cu(), c.ct(), c.cd(), c.m, c.n, T(c.alpha), a, lda,
                                                 x.data() + bo, ldb, d.b.data() + bo, ldb);
    for (std::int64_t j = 0; j < c.n && bad < 10; ++j)
      for (std::int64_t i = 0; i < c.m && bad < 10; ++i) {
        const auto& e = res[std::size_t(i + j * c.m)];
        const double tol = 2.0 * double(ka + 2) * u * e.bound;
        if (!(std::fabs(e.r) <= tol)) {
          ADD_FAILURE() << "batch " << z << ": residual at (" << i << ", " << j << ") = " << e.r << ", allowed " << tol
                        << " (X = " << x[std::size_t(bo + i + j * ldb)] << ")";
          ++bad;
        }
      }
  }
  return bad == 0;
}

/// One case end to end; `twice`: solve again and expect the same bits.
template <class T>
void run_case(const bcase& c, rng& r, bool twice = false) {
  SCOPED_TRACE(c.describe());
  const batch_data<T> d = make_batches<T>(c, r, c.arrays);
  const std::vector<T> x = solve(c, d);
  if (!check(c, d, x)) return;
  if (twice) {
    const std::vector<T> again = solve(c, d);
    EXPECT_TRUE(std::equal(x.begin(), x.end(), again.begin(), [](T p, T q) { return cuprim_test::same_bytes(p, q); }))
        << "two runs differ";
  }
}

TYPED_TEST(BlasTrsmBatched, EveryCaseSmallSizes) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t sizes[] = {0, 1, 15, 16, 17, 33, 64};
  int k = 0;
  for (side s : sides)
    for (uplo u : uplos)
      for (op t : ops)
        for (diag d : diags)
          for (std::int64_t m : sizes)
            for (std::int64_t n : sizes) {
              bcase c{s, u, t, d, m, n, (k++ % 2) ? -2.5 : 1.0, (k % 3) ? 3 : 1};
              if (k % 2 == 0) {  // 16-byte aligned columns of B where m allows: the vector loads and stores
                c.ldb_pad = (4 - m % 4) % 4 + 4;
                c.slot_pad = 4;
              }
              run_case<TypeParam>(c, r, k % 7 == 0);
              if (this->HasFailure()) return;
            }
}

// Orders of A above the small kernel's 64: the batched recursion (diagonal blocks by the small kernel at an offset,
// gemm updates over the batches), both forms.
TYPED_TEST(BlasTrsmBatched, EveryCaseAboveTheThreshold) {
  CUPRIM_TEST_RNG(r);
  int k = 0;
  for (side s : sides)
    for (uplo u : uplos)
      for (op t : ops)
        for (diag d : diags)
          for (std::int64_t ka : {65, 100, 200})
            for (std::int64_t nn : {1, 17, 64}) {
              if (ka == 200 && nn != 17) continue;
              const bool left = s == side::left;
              bcase c{s, u, t, d, left ? ka : nn, left ? nn : ka, (k % 2) ? -2.5 : 1.0, 3};
              c.arrays = k++ % 3 == 1;
              run_case<TypeParam>(c, r, ka == 100 && nn == 17);
              if (this->HasFailure()) return;
            }
}

// 10^4 batches per call, each case with its own shape (the 64 × 64 of the lab's rows among them): residuals of 40
// sampled batches (the first, the last, random ones), every guard of B's buffer.
TYPED_TEST(BlasTrsmBatched, LargeBatchMixedSizes) {
  CUPRIM_TEST_RNG(r);
  struct shape {
    std::int64_t m, n;
  };
  const shape shapes[] = {{64, 64}, {33, 17}, {17, 64}, {64, 1}, {1, 33}, {16, 16}, {15, 64}, {64, 33}};
  int k = 0;
  for (side s : sides)
    for (uplo u : uplos)
      for (op t : ops)
        for (diag d : diags) {
          const shape sh = shapes[k % 8];
          bcase c{s, u, t, d, sh.m, sh.n, (k % 2) ? -2.5 : 1.0, 10000};
          c.arrays = k % 4 == 3;
          c.lda_pad = 1;
          c.ldb_pad = k % 2 ? 1 : 0;  // ld = m: B's columns 16-byte aligned where m is a multiple of 4
          c.slot_pad = 4;
          ++k;
          SCOPED_TRACE(c.describe());
          const batch_data<TypeParam> data = make_batches<TypeParam>(c, r, c.arrays);
          const std::vector<TypeParam> x = solve(c, data);
          std::vector<std::int64_t> which{0, c.batch - 1};
          while (which.size() < 40) which.push_back(std::int64_t(r.index(std::uint64_t(c.batch))));
          check(c, data, x, which);
          if (this->HasFailure()) return;
        }
}

// One A for every batch: stride_a = 0 (strided) or every A[z] the same pointer (arrays).
TYPED_TEST(BlasTrsmBatched, SharedTriangle) {
  CUPRIM_TEST_RNG(r);
  int k = 0;
  for (side s : sides)
    for (uplo u : uplos)
      for (op t : ops)
        for (diag d : diags)
          for (std::int64_t ka : {33, 100}) {
            const bool left = s == side::left;
            bcase c{s, u, t, d, left ? ka : 9, left ? 9 : ka, 1.0, 20};
            c.shared_a = true;
            c.arrays = k++ % 2 == 1;
            run_case<TypeParam>(c, r);
            if (this->HasFailure()) return;
          }
}

// The pointer-array form on the strided form's matrices (the same pairing of A and B, in shuffled order): the same
// bits, small and recursive.
TYPED_TEST(BlasTrsmBatched, ArraysMatchStrided) {
  using T = TypeParam;
  CUPRIM_TEST_RNG(r);
  for (std::int64_t ka : {64, 100})
    for (side s : sides) {
      const bool left = s == side::left;
      bcase c{s, uplo::upper, op::T, diag::non_unit, left ? ka : 40, left ? 40 : ka, -2.5, 25};
      SCOPED_TRACE(c.describe());
      batch_data<T> d = make_batches<T>(c, r, false);
      const std::vector<T> strided = solve(c, d);
      std::vector<std::int64_t> p(std::size_t(c.batch));
      std::iota(p.begin(), p.end(), 0);
      for (std::int64_t z = c.batch - 1; z > 0; --z) std::swap(p[std::size_t(z)], p[std::size_t(r.index(std::uint64_t(z + 1)))]);
      batch_data<T> e = d;
      for (std::int64_t z = 0; z < c.batch; ++z) {
        e.a_of[std::size_t(z)] = d.a_of[std::size_t(p[std::size_t(z)])];
        e.b_of[std::size_t(z)] = d.b_of[std::size_t(p[std::size_t(z)])];
      }
      c.arrays = true;
      const std::vector<T> arrays = solve(c, e);
      EXPECT_TRUE(std::equal(strided.begin(), strided.end(), arrays.begin(),
                             [](T a, T b) { return cuprim_test::same_bytes(a, b); }))
          << "the pointer-array form differs from the strided form";
      check(c, e, arrays);
    }
}

// alpha = 0: every B_z = 0 without reading A or B (both NaN), nothing else written.
TYPED_TEST(BlasTrsmBatched, AlphaZeroReadsNothing) {
  using T = TypeParam;
  CUPRIM_TEST_RNG(r);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (bool arrays : {false, true})
    for (std::int64_t ka : {33, 100}) {
      bcase c{side::right, uplo::upper, op::T, diag::non_unit, 21, ka, 0.0, 7};
      c.arrays = arrays;
      SCOPED_TRACE(c.describe());
      batch_data<T> d = make_batches<T>(c, r, arrays);
      std::fill(d.a.begin(), d.a.end(), T(nan));
      for (std::int64_t z = 0; z < c.batch; ++z)
        for (std::int64_t j = 0; j < c.n; ++j)
          for (std::int64_t i = 0; i < c.m; ++i) d.b[std::size_t(d.b_of[std::size_t(z)] + i + j * c.ldb())] = T(nan);
      const std::vector<T> x = solve(c, d);
      for (std::int64_t z = 0; z < c.batch; ++z)
        for (std::int64_t j = 0; j < c.n; ++j)
          for (std::int64_t i = 0; i < c.m; ++i) {
            const std::size_t p = std::size_t(d.b_of[std::size_t(z)] + i + j * c.ldb());
            ASSERT_TRUE(x[p] == T(0) && !std::signbit(x[p])) << "batch " << z << " (" << i << ", " << j << "): " << x[p];
            d.b[p] = x[p];  // the guards below compare everything else
          }
      EXPECT_TRUE(std::equal(x.begin(), x.end(), d.b.begin(), [](T a, T b) { return cuprim_test::same_bytes(a, b); }))
          << "B's buffer written outside the batches";
    }
}

// A zero diagonal (non_unit) in one batch: its row and the rows solved after it are not finite there, the other
// batches are right; no fault, no hang.
TYPED_TEST(BlasTrsmBatched, ZeroDiagonalGivesIeeeResults) {
  using T = TypeParam;
  CUPRIM_TEST_RNG(r);
  for (std::int64_t ka : {64, 100})
    for (op t : ops) {
      bcase c{side::left, uplo::lower, t, diag::non_unit, ka, 5, 1.0, 4};
      SCOPED_TRACE(c.describe());
      batch_data<T> d = make_batches<T>(c, r, false);
      const std::int64_t zero_row = 40, zb = 2;
      d.a[std::size_t(d.a_of[std::size_t(zb)] + zero_row + zero_row * c.lda())] = T(0);
      const std::vector<T> x = solve(c, d);
      for (std::int64_t j = 0; j < c.n; ++j)
        EXPECT_FALSE(std::isfinite(x[std::size_t(d.b_of[std::size_t(zb)] + zero_row + j * c.ldb())])) << "column " << j;
      // The rows solved before the zero (forward for N, backward for T) are finite and right in that batch too.
      const std::vector<T> ref = [&] {
        const std::int64_t bo = d.b_of[std::size_t(zb)];
        std::vector<T> v(d.b.begin() + bo, d.b.begin() + bo + c.ldb() * c.n);
        cuprim::host::trsm('L', 'L', c.ct(), 'N', c.m, c.n, T(1), d.a.data() + d.a_of[std::size_t(zb)], c.lda(), v.data(), c.ldb());
        return v;
      }();
      for (std::int64_t j = 0; j < c.n; ++j)
        for (std::int64_t i = 0; i < c.m; ++i) {
          if (t == op::N ? i >= zero_row : i <= zero_row) continue;
          const double g = x[std::size_t(d.b_of[std::size_t(zb)] + i + j * c.ldb())], e = ref[std::size_t(i + j * c.ldb())];
          EXPECT_NEAR(g, e, 64.0 * double(ka) * std::numeric_limits<T>::epsilon() * (1 + std::fabs(e)))
              << "(" << i << ", " << j << ")";
        }
      check(c, d, x, {0, 1, 3});  // the other batches are untouched by the zero
    }
}

TYPED_TEST(BlasTrsmBatched, BadArgumentsWriteNothing) {
  using T = TypeParam;
  cuprim::device_buffer<T> a(256), b(256);
  cuprim::device_buffer<const T*> pa(4);
  cuprim::device_buffer<T*> pb(4);
  cuprim_test::poison(b);
  // stride_b below one B's span (8 × 8, ldb 8: 64 elements).
  EXPECT_THROW(cuprim::blas::trsm_strided_batched<T>(side::left, uplo::lower, op::N, diag::non_unit, 8, 8, T(1),
                                                     a.data(), 8, 64, b.data(), 8, 63, 2),
               cuprim::invalid_argument);
  // B's extent overlapping A's.
  EXPECT_THROW(cuprim::blas::trsm_strided_batched<T>(side::left, uplo::lower, op::N, diag::non_unit, 8, 8, T(1),
                                                     b.data() + 100, 8, 64, b.data(), 8, 64, 2),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::trsm_strided_batched<T>(side::right, uplo::lower, op::N, diag::non_unit, 8, 4, T(1),
                                                     a.data(), 3, 16, b.data(), 8, 32, 2),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::trsm_batched<T>(side::left, uplo::lower, op::N, diag(7), 8, 8, T(0), pa.data(), 8,
                                             pb.data(), 8, 4),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::trsm_batched<T>(side::left, uplo::lower, op::N, diag::unit, 8, 8, T(1), pa.data(), 8,
                                             pb.data(), 8, -1),
               cuprim::invalid_argument);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(cuprim_test::bytes_are(b.data(), 256 * sizeof(T)));
}

}  // namespace
