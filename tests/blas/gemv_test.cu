// cuprim::blas::gemv against a long-double host reference (cuprim::host::gemv): every element of y within
// (len + 8)·u·(|alpha|·Σ|a·x| + |beta·y|) + u·|y| (len: the summed dimension, u the unit roundoff of T); elements of
// y's buffer between its strided elements, and guards around it, unchanged. Random inputs (never zeros), shapes
// around the tile boundaries, long and wide shapes, lda > m, increments other than 1 (negative ones: BLAS's
// traversal from the end), pointers one element off 16-byte alignment, beta = 0 over NaN in y, alpha = 0 over NaN
// in A and x, empty shapes, determinism (two runs bit-identical; the workspace overload the same bits), and bad
// arguments writing nothing.
#include <cuprim/blas/gemv.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/host/gemv.hpp>

#include <gtest/gtest.h>

#include "common/test_util.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

using cuprim::blas::op;
using cuprim_test::rng;

template <class T>
class BlasGemv : public cuprim_test::typed_gpu_test<T> {};
using gemv_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BlasGemv, gemv_types, cuprim_test::type_names);

struct gemv_case {
  op trans = op::N;
  std::int64_t m = 0, n = 0, lda = 0;  // lda 0: max(1, m)
  std::int64_t incx = 1, incy = 1;
  double alpha = 1.25, beta = -0.75;
  bool offset = false;   // every array one element past a 256-byte boundary
  bool nan_y = false;    // y holds NaN (beta = 0 must not read it)
  bool nan_ax = false;   // A and x hold NaN (alpha = 0 must not read them)
  std::string describe() const {
    std::ostringstream os;
    os << (trans == op::T ? "T" : "N") << " m " << m << " n " << n << " lda " << lda << " incx " << incx << " incy "
       << incy << " alpha " << alpha << " beta " << beta << (offset ? " offset" : "") << (nan_y ? " nan_y" : "")
       << (nan_ax ? " nan_ax" : "");
    return os.str();
  }
};

std::int64_t span(std::int64_t len, std::int64_t inc) { return len > 0 ? (len - 1) * (inc < 0 ? -inc : inc) + 1 : 0; }

/// Random values of T, never zero: uniform magnitudes in [0.125, 1) with random signs.
template <class T>
std::vector<T> nonzero(rng& r, std::size_t count) {
  std::vector<T> v(count);
  for (auto& e : v) e = T((r.uniform(0.125, 1.0)) * (r.next() & 1 ? 1 : -1));
  return v;
}

/// Runs one case and checks it; `runs` extra calls must give the same bits (and the workspace overload too).
template <class T>
void check_gemv(gemv_case c, rng& r) {
  SCOPED_TRACE(c.describe());
  if (c.lda == 0) c.lda = std::max<std::int64_t>(1, c.m);
  const bool t = c.trans == op::T;
  const std::int64_t len_x = t ? c.m : c.n, len_y = t ? c.n : c.m;
  const std::int64_t a_count = c.n > 0 ? c.lda * c.n : 0, x_count = span(len_x, c.incx), y_count = span(len_y, c.incy);
  const std::int64_t off = c.offset ? 1 : 0, guard = 4;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<T> a = c.nan_ax ? std::vector<T>(std::size_t(a_count), T(nan)) : nonzero<T>(r, std::size_t(a_count));
  std::vector<T> x = c.nan_ax ? std::vector<T>(std::size_t(x_count), T(nan)) : nonzero<T>(r, std::size_t(x_count));
  // y's buffer: guards, then the strided vector (its gaps random too), then guards.
  std::vector<T> y_buf = nonzero<T>(r, std::size_t(y_count + 2 * guard));
  if (c.nan_y)
    for (std::int64_t k = 0; k < y_count; ++k) y_buf[std::size_t(guard + k)] = T(nan);
  cuprim::device_buffer<T> da(std::size_t(a_count + off + 1)), dx(std::size_t(x_count + off + 1)),
      dy(std::size_t(y_count + 2 * guard + off));
  T* pa = da.data() + off;
  T* px = dx.data() + off;
  T* py_buf = dy.data() + off;
  T* py = py_buf + guard;
  cuprim_test::upload(pa, a);
  cuprim_test::upload(px, x);
  // Device pointers of empty operands: still valid addresses (nothing may be read there).
  const auto run = [&](const cuprim::workspace* ws) {
    cuprim_test::upload(py_buf, y_buf);
    if (ws)
      cuprim::blas::gemv(c.trans, c.m, c.n, T(c.alpha), pa, c.lda, px, c.incx, T(c.beta), py, c.incy, *ws);
    else
      cuprim::blas::gemv(c.trans, c.m, c.n, T(c.alpha), pa, c.lda, px, c.incx, T(c.beta), py, c.incy);
    return cuprim_test::download(py_buf, std::size_t(y_count + 2 * guard));
  };
  const std::vector<T> got = run(nullptr);
  const std::vector<T> y_in(y_buf.begin() + guard, y_buf.begin() + guard + y_count);
  const auto ref = cuprim::host::gemv(t ? 'T' : 'N', c.m, c.n, c.alpha, a.data(), c.lda, x.data(), c.incx, c.beta,
                                      y_in.data(), c.incy);
  const double u = std::numeric_limits<T>::epsilon() / 2;
  std::vector<bool> is_elem(std::size_t(y_count), false);
  int bad = 0;
  for (std::int64_t k = 0; k < len_y && bad < 10; ++k) {
    const std::int64_t pos = c.incy >= 0 ? k * c.incy : (len_y - 1 - k) * -c.incy;
    is_elem[std::size_t(pos)] = true;
    const double g = double(got[std::size_t(guard + pos)]);
    const double tol = double(len_x + 8) * u * ref[std::size_t(k)].bound + u * std::fabs(ref[std::size_t(k)].value);
    if (!(std::fabs(g - ref[std::size_t(k)].value) <= tol)) {
      ADD_FAILURE() << "y[" << k << "] = " << g << ", expected " << ref[std::size_t(k)].value << " within " << tol;
      ++bad;
    }
  }
  for (std::int64_t p = 0; p < y_count + 2 * guard && bad < 10; ++p) {
    const bool inside = p >= guard && p < guard + y_count;
    if (inside && is_elem[std::size_t(p - guard)]) continue;
    if (!cuprim_test::same_bytes(got[std::size_t(p)], y_buf[std::size_t(p)])) {
      ADD_FAILURE() << "y's buffer written at " << p - guard << " (not an element of y)";
      ++bad;
    }
  }
  // Determinism: again, and through the workspace overload (the same plan, the same bits).
  const std::vector<T> again = run(nullptr);
  const std::size_t ws_bytes = cuprim::blas::gemv_workspace_bytes<T>(c.trans, c.m, c.n);
  cuprim::device_buffer<unsigned char> ws_buf(std::max<std::size_t>(ws_bytes, 1));
  const cuprim::workspace ws{ws_buf.data(), ws_bytes};
  const std::vector<T> via_ws = run(&ws);
  for (std::size_t p = 0; p < got.size(); ++p) {
    ASSERT_TRUE(cuprim_test::same_bytes(got[p], again[p])) << "two runs differ at " << p;
    ASSERT_TRUE(cuprim_test::same_bytes(got[p], via_ws[p])) << "the workspace overload differs at " << p;
  }
}

const std::int64_t edge_sizes[] = {0, 1, 7, 31, 32, 33, 1000, 4097};

TYPED_TEST(BlasGemv, ShapesAroundTileBoundaries) {
  CUPRIM_TEST_RNG(r);
  for (op trans : {op::N, op::T})
    for (std::int64_t m : edge_sizes)
      for (std::int64_t n : edge_sizes) {
        if (m * n > 1000 * 4097) continue;  // 4097 x 4097 once below
        check_gemv<TypeParam>({.trans = trans, .m = m, .n = n}, r);
      }
  for (op trans : {op::N, op::T}) check_gemv<TypeParam>({.trans = trans, .m = 4097, .n = 4097}, r);
}

TYPED_TEST(BlasGemv, LongAndWide) {
  CUPRIM_TEST_RNG(r);
  for (op trans : {op::N, op::T}) {
    check_gemv<TypeParam>({.trans = trans, .m = 1 << 20, .n = 16}, r);
    check_gemv<TypeParam>({.trans = trans, .m = 16, .n = 1 << 20}, r);
    check_gemv<TypeParam>({.trans = trans, .m = 1, .n = 100003}, r);  // M = 1 (decode-style) and its transpose
    check_gemv<TypeParam>({.trans = trans, .m = 100003, .n = 1}, r);
  }
}

TYPED_TEST(BlasGemv, ShortColumnsAndTheSlicesSum) {
  CUPRIM_TEST_RNG(r);
  // op T over short columns (several columns per thread; a last block partly past n; a partial last vector; x and
  // A off alignment; x strided and reversed); just past short (129 rows: the warp-per-column kernel).
  for (auto [m, n] : {std::array<std::int64_t, 2>{16, 300001}, {18, 200003}, {3, 250001}, {1, 1 << 20}, {128, 70001},
                      {129, 70001}})
    check_gemv<TypeParam>({.trans = op::T, .m = m, .n = n}, r);
  check_gemv<TypeParam>({.trans = op::T, .m = 18, .n = 200003, .lda = 19}, r);
  check_gemv<TypeParam>({.trans = op::T, .m = 16, .n = 200003, .offset = true}, r);
  check_gemv<TypeParam>({.trans = op::T, .m = 20, .n = 200003, .incx = -2, .incy = 3}, r);
  check_gemv<TypeParam>({.trans = op::T, .m = 16, .n = 200003, .beta = 0, .nan_y = true}, r);
  // op N split over many slices (the second pass: several threads per element of y, then a tree), y short or not.
  for (auto [m, n] : {std::array<std::int64_t, 2>{1, 1 << 20}, {5, 300001}, {16, 1 << 20}, {100, 200003},
                      {2048, 2048}, {4096, 4096}})
    check_gemv<TypeParam>({.trans = op::N, .m = m, .n = n}, r);
  check_gemv<TypeParam>({.trans = op::N, .m = 7, .n = 300001, .incx = -3, .incy = -2, .beta = 0, .nan_y = true}, r);
}

TYPED_TEST(BlasGemv, LeadingDimensionAboveM) {
  CUPRIM_TEST_RNG(r);
  for (op trans : {op::N, op::T})
    for (auto [m, n, lda] : {std::array<std::int64_t, 3>{33, 31, 40}, {1000, 77, 1003}, {7, 4097, 9}, {4096, 300, 4100}})
      check_gemv<TypeParam>({.trans = trans, .m = m, .n = n, .lda = lda}, r);
}

TYPED_TEST(BlasGemv, IncrementsAndNegativeIncrements) {
  CUPRIM_TEST_RNG(r);
  for (op trans : {op::N, op::T})
    for (auto [incx, incy] : {std::array<std::int64_t, 2>{2, 1}, {1, 3}, {-1, 1}, {1, -2}, {-3, -1}, {5, -4}})
      for (auto [m, n] : {std::array<std::int64_t, 2>{33, 1000}, {1000, 33}, {4097, 7}})
        check_gemv<TypeParam>({.trans = trans, .m = m, .n = n, .incx = incx, .incy = incy}, r);
}

TYPED_TEST(BlasGemv, UnalignedPointers) {
  CUPRIM_TEST_RNG(r);
  for (op trans : {op::N, op::T})
    for (auto [m, n] : {std::array<std::int64_t, 2>{1000, 1000}, {4097, 33}, {16, 70000}, {70000, 16}}) {
      check_gemv<TypeParam>({.trans = trans, .m = m, .n = n, .offset = true}, r);
      check_gemv<TypeParam>({.trans = trans, .m = m, .n = n, .lda = m + 1}, r);  // columns off alignment
    }
}

TYPED_TEST(BlasGemv, BlasSemanticsOfAlphaAndBeta) {
  CUPRIM_TEST_RNG(r);
  for (op trans : {op::N, op::T})
    for (auto [m, n] : {std::array<std::int64_t, 2>{33, 1000}, {4097, 7}, {16, 1 << 18}}) {
      // beta = 0: y is written without being read (NaN there must not propagate).
      check_gemv<TypeParam>({.trans = trans, .m = m, .n = n, .beta = 0, .nan_y = true}, r);
      // alpha = 0: A and x are not read (NaN there must not propagate); y = beta·y, and y = 0 when beta is 0 too.
      check_gemv<TypeParam>({.trans = trans, .m = m, .n = n, .alpha = 0, .nan_ax = true}, r);
      check_gemv<TypeParam>({.trans = trans, .m = m, .n = n, .alpha = 0, .beta = 0, .nan_y = true, .nan_ax = true}, r);
      check_gemv<TypeParam>({.trans = trans, .m = m, .n = n, .alpha = 0, .beta = 1, .nan_ax = true}, r);
      check_gemv<TypeParam>({.trans = trans, .m = m, .n = n, .beta = 1}, r);
    }
  // Nothing to sum: op N with n = 0 and op T with m = 0 give y = beta·y (beta = 0: zeros, NaN in y or not).
  check_gemv<TypeParam>({.trans = op::N, .m = 100, .n = 0, .incy = -2}, r);
  check_gemv<TypeParam>({.trans = op::T, .m = 0, .n = 100, .incy = 3}, r);
  check_gemv<TypeParam>({.trans = op::N, .m = 100, .n = 0, .beta = 0, .nan_y = true}, r);
}

TYPED_TEST(BlasGemv, BadArgumentsWriteNothing) {
  using T = TypeParam;
  cuprim::device_buffer<T> a(64), x(8), y(8);
  cuprim_test::poison(y);
  EXPECT_THROW(cuprim::blas::gemv(op::N, 8, 8, T(1), a.data(), 7, x.data(), 1, T(0), y.data(), 1),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::gemv(op::N, 8, 8, T(1), a.data(), 8, x.data(), 1, T(0), y.data(), 0),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::gemv(op::T, 8, 8, T(1), a.data(), 8, y.data(), 1, T(0), y.data(), 1),
               cuprim::invalid_argument);
  const cuprim::workspace tiny{nullptr, 0};
  if (cuprim::blas::gemv_workspace_bytes<T>(op::N, 16, 1 << 20) > 0) {
    cuprim::device_buffer<T> big_a(std::size_t(16) << 20), big_x(std::size_t(1) << 20), big_y(16);
    cuprim_test::poison(big_y);
    EXPECT_THROW(cuprim::blas::gemv(op::N, 16, 1 << 20, T(1), big_a.data(), 16, big_x.data(), 1, T(0), big_y.data(), 1,
                                    tiny),
                 cuprim::invalid_argument);
    EXPECT_TRUE(cuprim_test::bytes_are(big_y.data(), 16 * sizeof(T)));
  }
  EXPECT_TRUE(cuprim_test::bytes_are(y.data(), 8 * sizeof(T)));
}

}  // namespace
