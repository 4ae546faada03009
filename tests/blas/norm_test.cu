// cuprim::blas::asum and cuprim::blas::nrm2 against long-double host references (cuprim::host::asum, nrm2), for
// float, double and the 16-bit types: asum within the reductions' bound u·(⌈n / lanes⌉ + 2⌈log2(n + 1)⌉ + 8)·Σ|x|,
// nrm2 within a few ulps of the result's type (its squares are summed in double); plus one rounding when the result
// is 16-bit. Random inputs (never zeros), sizes around the tiles, increments 1, 2, negative and 0, pointers one
// element off alignment, the result in a guarded slot, the _sync forms, the workspace overloads, determinism
// (repeated runs bit-identical); nrm2 of vectors whose squares overflow or underflow double (1e300s, 1e-300s, and
// both mixed), NaN and infinity; bad arguments writing nothing.
#include <cuprim/blas/dot.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/host/gemv.hpp>

#include <gtest/gtest.h>

#include "common/test_util.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

namespace {

using cuprim_test::rng;

template <class T>
class BlasNorm : public cuprim_test::typed_gpu_test<T> {};
using norm_types = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(BlasNorm, norm_types, cuprim_test::type_names);

std::int64_t span(std::int64_t len, std::int64_t inc) { return len > 0 ? (len - 1) * (inc < 0 ? -inc : inc) + 1 : 0; }

template <class T>
std::vector<T> nonzero(rng& r, std::size_t count, double scale = 1.0) {
  std::vector<T> v(count);
  for (auto& e : v) e = cuprim_test::from_double<T>(scale * r.uniform(0.125, 1.0) * (r.next() & 1 ? 1 : -1));
  return v;
}

template <class T>
std::vector<double> widened(const std::vector<T>& x) {
  std::vector<double> d(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) d[i] = cuprim_test::to_double(x[i]);
  return d;
}

/// The device's asum and nrm2 of x (strided) against the references, then again (bitwise), through the workspace
/// overloads and the _sync forms.
template <class T, class Out = cuprim::accumulator_t<T>>
void check_norms(std::int64_t n, std::int64_t incx, bool offset, const std::vector<T>& x) {
  using Acc = cuprim::accumulator_t<T>;
  std::ostringstream os;
  os << "n " << n << " incx " << incx << (offset ? " offset" : "") << " out " << cuprim_test::type_name<Out>();
  SCOPED_TRACE(os.str());
  const std::int64_t off = offset ? 1 : 0;
  cuprim::device_buffer<T> dx(x.size() + 2);
  cuprim_test::upload(dx.data() + off, x);
  const std::vector<double> xd = widened(x);
  const double ref_asum = cuprim::host::asum(n, xd.data(), incx);
  const double ref_nrm2 = cuprim::host::nrm2(n, xd.data(), incx);

  cuprim_test::guarded_out<Out> a, q;
  cuprim::blas::asum(n, dx.data() + off, incx, a.out());
  cuprim::blas::nrm2(n, dx.data() + off, incx, q.out());
  const Out got_a = a.value(), got_q = q.value();
  const double tol_a = cuprim_test::sum_tolerance(cuprim_test::epsilon<Acc>(), std::uint64_t(n), ref_asum,
                                                  cuprim_test::device_lanes()) +
                       cuprim_test::output_rounding<Out, Acc>(ref_asum);
  EXPECT_LE(std::fabs(cuprim_test::to_double(got_a) - ref_asum), tol_a)
      << "asum got " << cuprim_test::show(got_a) << ", expected " << ref_asum;
  // nrm2: the double sum's error (relative u_double·(n / lanes + log terms)) is far below one rounding to Out.
  const double tol_q = 4 * std::numeric_limits<double>::epsilon() * ref_nrm2 * (1 + double(n) / 1024) +
                       cuprim_test::output_rounding<Out, double>(ref_nrm2) + cuprim_test::output_rounding<Acc, double>(ref_nrm2);
  EXPECT_LE(std::fabs(cuprim_test::to_double(got_q) - ref_nrm2), tol_q)
      << "nrm2 got " << cuprim_test::show(got_q) << ", expected " << ref_nrm2;

  for (int rep = 0; rep < 2; ++rep) {
    a.reset();
    q.reset();
    cuprim::blas::asum(n, dx.data() + off, incx, a.out());
    cuprim::blas::nrm2(n, dx.data() + off, incx, q.out());
    EXPECT_TRUE(cuprim_test::same_bytes(a.value(), got_a)) << "asum run " << rep + 2 << " differs";
    EXPECT_TRUE(cuprim_test::same_bytes(q.value(), got_q)) << "nrm2 run " << rep + 2 << " differs";
  }
  const std::size_t ba = cuprim::blas::asum_workspace_bytes<T>(n), bq = cuprim::blas::nrm2_workspace_bytes<T>(n);
  cuprim::device_buffer<unsigned char> wa(std::max<std::size_t>(ba, 1)), wq(std::max<std::size_t>(bq, 1));
  a.reset();
  q.reset();
  cuprim::blas::asum(n, dx.data() + off, incx, a.out(), cuprim::workspace{wa.data(), ba});
  cuprim::blas::nrm2(n, dx.data() + off, incx, q.out(), cuprim::workspace{wq.data(), bq});
  EXPECT_TRUE(cuprim_test::same_bytes(a.value(), got_a)) << "the asum workspace overload differs";
  EXPECT_TRUE(cuprim_test::same_bytes(q.value(), got_q)) << "the nrm2 workspace overload differs";
  if constexpr (std::is_same_v<Out, Acc>) {
    EXPECT_TRUE(cuprim_test::same_bytes(cuprim::blas::asum_sync(n, dx.data() + off, incx), got_a)) << "asum_sync";
    EXPECT_TRUE(cuprim_test::same_bytes(cuprim::blas::nrm2_sync(n, dx.data() + off, incx), got_q)) << "nrm2_sync";
  }
}

TYPED_TEST(BlasNorm, SizesAroundTheTiles) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : {0, 1, 7, 31, 32, 33, 1000, 4097, 65537, (1 << 20) + 3})
    check_norms<TypeParam>(n, 1, false, nonzero<TypeParam>(r, std::size_t(n)));
  if (cuprim_test::large_enabled()) {
    const std::int64_t n = (std::int64_t(1) << 26) + 5;
    check_norms<TypeParam>(n, 1, false, nonzero<TypeParam>(r, std::size_t(n)));
  }
}

TYPED_TEST(BlasNorm, IncrementsAndAlignment) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : {1, 33, 4097, 300001}) {
    for (std::int64_t inc : {2, -1, -3, 0})
      check_norms<TypeParam>(n, inc, false, nonzero<TypeParam>(r, std::size_t(span(n, inc))));
    check_norms<TypeParam>(n, 1, true, nonzero<TypeParam>(r, std::size_t(n)));
    // The result in the input type: asum of 300001 values near 0.5 exceeds a half's range (+inf, correctly).
    if (n < 65536) check_norms<TypeParam, TypeParam>(n, 1, false, nonzero<TypeParam>(r, std::size_t(n)));
  }
}

TYPED_TEST(BlasNorm, Nrm2NeverOverflowsOrUnderflows) {
  if constexpr (!std::is_same_v<TypeParam, double>) {
    // float and the 16-bit types: their squares overflow or underflow float, never double. The large values stay
    // small enough for asum and the norm themselves to fit the float result (300001 x 1e30).
    CUPRIM_TEST_RNG(r);
    const double big = std::is_same_v<TypeParam, __half> ? 3e4 : 1e30;
    const double tiny = std::is_same_v<TypeParam, __half> ? 1e-4 : 1e-37;
    for (std::int64_t n : {33, 300001}) {
      check_norms<TypeParam>(n, 1, false, nonzero<TypeParam>(r, std::size_t(n), big));
      check_norms<TypeParam>(n, 1, false, nonzero<TypeParam>(r, std::size_t(n), tiny * 4));
    }
  } else {
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : {1, 33, 300001}) {
      check_norms<double>(n, 1, false, nonzero<double>(r, std::size_t(n), 1e300));   // squares overflow
      check_norms<double>(n, 1, false, nonzero<double>(r, std::size_t(n), 1e-300));  // squares underflow
      // Mixed: mostly tiny values with medium ones, and medium with one huge one.
      std::vector<double> mix = nonzero<double>(r, std::size_t(n), 1e-300);
      for (std::size_t i = 0; i < mix.size(); i += 7) mix[i] = 1e-3;
      check_norms<double>(n, 1, false, mix);
      std::vector<double> huge = nonzero<double>(r, std::size_t(n), 1.0);
      huge[mix.size() / 2] = 3e200;
      check_norms<double>(n, 1, false, huge);
      // The largest magnitudes whose norm is still finite.
      std::vector<double> top(std::size_t(n), 0.0);
      top[0] = std::numeric_limits<double>::max() / 2;
      check_norms<double>(n, 1, false, top);
    }
  }
}

TYPED_TEST(BlasNorm, NanAndInfinity) {
  using Acc = cuprim::accumulator_t<TypeParam>;
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = 4097;
  std::vector<TypeParam> x = nonzero<TypeParam>(r, std::size_t(n));
  cuprim::device_buffer<TypeParam> dx(x.size());
  x[100] = cuprim_test::from_double<TypeParam>(-std::numeric_limits<double>::infinity());
  cuprim_test::upload(dx.data(), x);
  EXPECT_TRUE(std::isinf(cuprim_test::to_double(cuprim::blas::nrm2_sync(n, dx.data(), 1))));
  EXPECT_GT(cuprim_test::to_double(cuprim::blas::nrm2_sync(n, dx.data(), 1)), 0);
  EXPECT_TRUE(std::isinf(cuprim_test::to_double(cuprim::blas::asum_sync(n, dx.data(), 1))));
  x[2000] = cuprim_test::from_double<TypeParam>(std::numeric_limits<double>::quiet_NaN());
  cuprim_test::upload(dx.data(), x);
  const Acc q = cuprim::blas::nrm2_sync(n, dx.data(), 1);
  EXPECT_TRUE(std::isnan(cuprim_test::to_double(q))) << cuprim_test::show(q);
  EXPECT_TRUE(std::isnan(cuprim_test::to_double(cuprim::blas::asum_sync(n, dx.data(), 1))));
}

TYPED_TEST(BlasNorm, BadArgumentsWriteNothing) {
  using Acc = cuprim::accumulator_t<TypeParam>;
  cuprim::device_buffer<TypeParam> x(16);
  cuprim_test::guarded_out<Acc> out;
  EXPECT_THROW(cuprim::blas::asum(-1, x.data(), 1, out.out()), cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::nrm2(-1, x.data(), 1, out.out()), cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::nrm2(4, static_cast<const TypeParam*>(nullptr), 1, out.out()), cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::asum(4, x.data(), 1, static_cast<Acc*>(nullptr)), cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::nrm2(4, x.data(), std::int64_t(1) << 62, out.out()), cuprim::invalid_argument);
  // The result inside x (16 elements hold an accumulator of any of the types).
  EXPECT_THROW(cuprim::blas::nrm2(16, x.data(), 1, reinterpret_cast<Acc*>(x.data())), cuprim::invalid_argument);
  const cuprim::workspace none{nullptr, 0};
  EXPECT_THROW(cuprim::blas::nrm2(16, x.data(), 1, out.out(), none), cuprim::invalid_argument);
  if (cuprim::blas::asum_workspace_bytes<TypeParam>(16) > 0)
    EXPECT_THROW(cuprim::blas::asum(16, x.data(), 1, out.out(), none), cuprim::invalid_argument);
  EXPECT_THROW((void)cuprim::blas::nrm2_sync(-1, x.data(), 1), cuprim::invalid_argument);
  EXPECT_TRUE(out.untouched());
}

}  // namespace
