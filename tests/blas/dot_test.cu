// cuprim::blas::dot against a long-double host reference (cuprim::host::dot), for float, double and the 16-bit types
// (float accumulation): within the reductions' bound, u·(⌈n / lanes⌉ + 2⌈log2(n + 1)⌉ + 8)·Σ|x·y|
// (cuprim_test::sum_tolerance), plus one rounding when the result is 16-bit. Random inputs (never zeros), sizes
// around the tiles, increments 1, 2, negative and 0, pointers one element off alignment, the result in a guarded
// slot, dot_sync, the workspace overload, determinism (repeated runs bit-identical), bad arguments writing nothing.
#include <cuprim/blas/dot.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/host/gemv.hpp>

#include <gtest/gtest.h>

#include "common/test_util.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <vector>

namespace {

using cuprim_test::rng;

template <class T>
class BlasDot : public cuprim_test::typed_gpu_test<T> {};
using dot_types = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(BlasDot, dot_types, cuprim_test::type_names);

std::int64_t span(std::int64_t len, std::int64_t inc) { return len > 0 ? (len - 1) * (inc < 0 ? -inc : inc) + 1 : 0; }

template <class T>
std::vector<T> nonzero(rng& r, std::size_t count) {
  std::vector<T> v(count);
  for (auto& e : v) e = cuprim_test::from_double<T>(r.uniform(0.125, 1.0) * (r.next() & 1 ? 1 : -1));
  return v;
}

template <class T, class Out = cuprim::accumulator_t<T>>
void check_dot(std::int64_t n, std::int64_t incx, std::int64_t incy, bool offset, rng& r) {
  using Acc = cuprim::accumulator_t<T>;
  std::ostringstream os;
  os << "n " << n << " incx " << incx << " incy " << incy << (offset ? " offset" : "") << " out "
     << cuprim_test::type_name<Out>();
  SCOPED_TRACE(os.str());
  const std::int64_t off = offset ? 1 : 0;
  const std::vector<T> x = nonzero<T>(r, std::size_t(span(n, incx))), y = nonzero<T>(r, std::size_t(span(n, incy)));
  cuprim::device_buffer<T> dx(x.size() + 2), dy(y.size() + 2);
  cuprim_test::upload(dx.data() + off, x);
  cuprim_test::upload(dy.data() + off, y);
  std::vector<double> xd(x.size()), yd(y.size());
  for (std::size_t i = 0; i < x.size(); ++i) xd[i] = cuprim_test::to_double(x[i]);
  for (std::size_t i = 0; i < y.size(); ++i) yd[i] = cuprim_test::to_double(y[i]);
  const auto ref = cuprim::host::dot(n, xd.data(), incx, yd.data(), incy);
  cuprim_test::guarded_out<Out> out;
  cuprim::blas::dot(n, dx.data() + off, incx, dy.data() + off, incy, out.out());
  const Out got = out.value();
  const double tol = cuprim_test::sum_tolerance(cuprim_test::epsilon<Acc>(), std::uint64_t(n), ref.bound,
                                                cuprim_test::device_lanes()) +
                     cuprim_test::output_rounding<Out, Acc>(ref.value);
  EXPECT_LE(std::fabs(cuprim_test::to_double(got) - ref.value), tol)
      << "got " << cuprim_test::show(got) << ", expected " << ref.value;
  // Determinism: again, through the workspace overload, and dot_sync (in the accumulator type).
  for (int rep = 0; rep < 2; ++rep) {
    out.reset();
    cuprim::blas::dot(n, dx.data() + off, incx, dy.data() + off, incy, out.out());
    EXPECT_TRUE(cuprim_test::same_bytes(out.value(), got)) << "run " << rep + 2 << " differs";
  }
  const std::size_t bytes = cuprim::blas::dot_workspace_bytes<T>(n);
  cuprim::device_buffer<unsigned char> ws(std::max<std::size_t>(bytes, 1));
  out.reset();
  cuprim::blas::dot(n, dx.data() + off, incx, dy.data() + off, incy, out.out(), cuprim::workspace{ws.data(), bytes});
  EXPECT_TRUE(cuprim_test::same_bytes(out.value(), got)) << "the workspace overload differs";
  if constexpr (std::is_same_v<Out, Acc>) {
    const Acc s = cuprim::blas::dot_sync(n, dx.data() + off, incx, dy.data() + off, incy);
    EXPECT_TRUE(cuprim_test::same_bytes(s, got)) << "dot_sync differs";
  }
}

TYPED_TEST(BlasDot, SizesAroundTheTiles) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : {0, 1, 7, 31, 32, 33, 1000, 4097, 65537, (1 << 20) + 3}) check_dot<TypeParam>(n, 1, 1, false, r);
  if (cuprim_test::large_enabled()) check_dot<TypeParam>((std::int64_t(1) << 26) + 5, 1, 1, false, r);
}

TYPED_TEST(BlasDot, Increments) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : {1, 33, 4097, 300001})
    for (auto [incx, incy] : {std::array<std::int64_t, 2>{2, 1}, {1, -1}, {-3, 2}, {0, 1}, {1, 0}, {-2, -2}})
      check_dot<TypeParam>(n, incx, incy, false, r);
}

TYPED_TEST(BlasDot, UnalignedPointers) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : {7, 4097, 300001}) check_dot<TypeParam>(n, 1, 1, true, r);
}

TYPED_TEST(BlasDot, ResultOfTheInputType) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : {1, 4097, 300001}) check_dot<TypeParam, TypeParam>(n, 1, 1, false, r);
}

TYPED_TEST(BlasDot, BadArgumentsWriteNothing) {
  using Acc = cuprim::accumulator_t<TypeParam>;
  cuprim::device_buffer<TypeParam> x(16);
  cuprim_test::guarded_out<Acc> out;
  EXPECT_THROW(cuprim::blas::dot(-1, x.data(), 1, x.data(), 1, out.out()), cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::dot(4, x.data(), std::int64_t(1) << 62, x.data(), 1, out.out()), cuprim::invalid_argument);
  const cuprim::workspace none{nullptr, 0};
  if (cuprim::blas::dot_workspace_bytes<TypeParam>(16) > 0)
    EXPECT_THROW(cuprim::blas::dot(16, x.data(), 1, x.data(), 1, out.out(), none), cuprim::invalid_argument);
  EXPECT_TRUE(out.untouched());
}

}  // namespace
