// Host tests of the sequential references (cuprim/host/reduce.hpp) and of the operators they share with the
// device code (cuprim/core/functional.cuh). No CUDA device needed.
#include <cuprim/core/functional.cuh>
#include <cuprim/host/reduce.hpp>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

namespace {

using cuprim_test::to_double;

static_assert(std::is_same_v<cuprim::accumulator_t<__half>, float>);
static_assert(std::is_same_v<cuprim::accumulator_t<__nv_bfloat16>, float>);
static_assert(std::is_same_v<cuprim::accumulator_t<std::int8_t>, std::int8_t>);
static_assert(std::is_same_v<cuprim::accumulator_t<double>, double>);
static_assert(std::is_same_v<cuprim::accumulator_t<cuprim_test::stats>, cuprim_test::stats>);

TEST(HostReduce, KnownSums) {
  const std::vector<int> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(cuprim::host::reduce(v.data(), 10, cuprim::plus{}, 0), 55);
  EXPECT_EQ(cuprim::host::reduce(v.data(), 10, cuprim::plus{}, 100), 155);
  EXPECT_EQ(cuprim::host::reduce(v.data(), 5, cuprim::multiplies{}, 1), 120);
  EXPECT_EQ(cuprim::host::reduce(v.data(), 10, cuprim::minimum{}, 5), 1);
  EXPECT_EQ(cuprim::host::reduce(v.data(), 10, cuprim::maximum{}, 5), 10);
  EXPECT_EQ(cuprim::host::reduce(v.data(), 10, cuprim::maximum{}, 50), 50);  // init takes part
  // Empty: the init alone.
  EXPECT_EQ(cuprim::host::reduce(v.data(), 0, cuprim::plus{}, 42), 42);
  EXPECT_EQ(cuprim::host::reduce(static_cast<const int*>(nullptr), 0, cuprim::plus{}, -7), -7);
}

TEST(HostReduce, AccumulatesInInitType) {
  // 200 × 100 in int8 wraps (20000 mod 256 = 32); with an int64 init it does not.
  const std::vector<std::int8_t> v(200, 100);
  const std::int8_t wrapped = cuprim::host::reduce(v.data(), 200, cuprim::plus{}, std::int8_t{0});
  EXPECT_EQ(wrapped, static_cast<std::int8_t>(20000));
  EXPECT_EQ(cuprim::host::reduce(v.data(), 200, cuprim::plus{}, std::int64_t{0}), 20000);
  // uint8 wraps modulo 256.
  const std::vector<std::uint8_t> u(3, 200);
  EXPECT_EQ(cuprim::host::reduce(u.data(), 3, cuprim::plus{}, std::uint8_t{0}), std::uint8_t(600 % 256));
}

TEST(HostReduce, HalfAccumulatesInFloat) {
  // 4096 ones: a __half accumulator would stall at 2048 (2048 + 1 rounds to 2048); float gets 4096.
  const std::vector<__half> v(4096, __float2half(1.0f));
  const float s = cuprim::host::reduce(v.data(), 4096, cuprim::plus{}, __float2half(0.0f));
  EXPECT_EQ(s, 4096.0f);
  const std::vector<__nv_bfloat16> b(1000, __float2bfloat16(1.0f));
  EXPECT_EQ(cuprim::host::reduce(b.data(), 1000, cuprim::plus{}, __float2bfloat16(0.0f)), 1000.0f);
}

TEST(HostReduce, TransformReduce) {
  const std::vector<int> v = {1, -2, 3, -4};
  auto square = [](int x) { return x * x; };
  EXPECT_EQ(cuprim::host::transform_reduce(v.data(), 4, square, cuprim::plus{}, 0), 30);
  const std::vector<std::int32_t> w = {5, -3, 9, 0};
  const cuprim_test::stats s =
      cuprim::host::transform_reduce(w.data(), 4, cuprim_test::to_stats{}, cuprim_test::stats_op{},
                                     cuprim_test::stats_init());
  EXPECT_EQ(s, (cuprim_test::stats{11u, -3, 9}));
}

TEST(HostReduce, RandomIntegersMatchIndependentReference) {
  CUPRIM_TEST_RNG(r);
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(100003)}) {
    const auto v = cuprim_test::random_vector<std::uint32_t>(r, n);
    const auto init = static_cast<std::uint32_t>(r.next());
    EXPECT_EQ(cuprim::host::reduce(v.data(), std::int64_t(n), cuprim::plus{}, init),
              cuprim_test::wrap_sum<std::uint32_t>(v.data(), n, init));
    const auto b = cuprim_test::random_vector<std::int8_t>(r, n);
    EXPECT_EQ(cuprim::host::reduce(b.data(), std::int64_t(n), cuprim::plus{}, std::int64_t{-5}),
              cuprim_test::wrap_sum<std::int64_t>(b.data(), n, std::int64_t{-5}));
  }
}

// ---- argmin / argmax

TEST(HostArg, KnownAnswersAndTiesToLowestIndex) {
  const std::vector<int> v = {4, 1, 7, 1, 7, 3};
  const auto mn = cuprim::host::argmin(v.data(), 6);
  const auto mx = cuprim::host::argmax(v.data(), 6);
  EXPECT_EQ(mn.value, 1);
  EXPECT_EQ(mn.index, 1);
  EXPECT_EQ(mx.value, 7);
  EXPECT_EQ(mx.index, 2);
  const std::vector<float> all(17, 2.5f);
  EXPECT_EQ(cuprim::host::argmin(all.data(), 17).index, 0);
  EXPECT_EQ(cuprim::host::argmax(all.data(), 17).index, 0);
  // -0.0 and +0.0 compare equal: the lower index wins.
  const std::vector<float> zeros = {1.0f, 0.0f, -0.0f, 1.0f};
  EXPECT_EQ(cuprim::host::argmin(zeros.data(), 4).index, 1);
  const std::vector<float> zeros2 = {1.0f, -0.0f, 0.0f};
  EXPECT_EQ(cuprim::host::argmin(zeros2.data(), 3).index, 1);
  EXPECT_TRUE(std::signbit(cuprim::host::argmin(zeros2.data(), 3).value));
}

TEST(HostArg, FirstNaNIsReported) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> v = {3.0f, -1e30f, nan, -std::numeric_limits<float>::infinity(), nan, 1.0f};
  const auto mn = cuprim::host::argmin(v.data(), 6);
  const auto mx = cuprim::host::argmax(v.data(), 6);
  EXPECT_TRUE(std::isnan(mn.value));
  EXPECT_EQ(mn.index, 2);
  EXPECT_TRUE(std::isnan(mx.value));
  EXPECT_EQ(mx.index, 2);
  const std::vector<double> lead = {std::nan(""), 1.0};
  EXPECT_EQ(cuprim::host::argmax(lead.data(), 2).index, 0);
  const std::vector<__half> h = {__float2half(1.0f), __ushort_as_half(0x7E00), __float2half(-5.0f)};
  EXPECT_EQ(cuprim::host::argmin(h.data(), 3).index, 1);
  EXPECT_EQ(cuprim::host::argmax(h.data(), 3).index, 1);
}

TEST(HostArg, EmptyGivesExtremeAndMinusOne) {
  const auto fmin = cuprim::host::argmin(static_cast<const float*>(nullptr), 0);
  const auto fmax = cuprim::host::argmax(static_cast<const float*>(nullptr), 0);
  EXPECT_EQ(fmin.index, -1);
  EXPECT_EQ(fmin.value, std::numeric_limits<float>::infinity());
  EXPECT_EQ(fmax.index, -1);
  EXPECT_EQ(fmax.value, -std::numeric_limits<float>::infinity());
  const auto imin = cuprim::host::argmin(static_cast<const std::int16_t*>(nullptr), 0);
  const auto imax = cuprim::host::argmax(static_cast<const std::uint32_t*>(nullptr), 0);
  EXPECT_EQ(imin.index, -1);
  EXPECT_EQ(imin.value, std::numeric_limits<std::int16_t>::max());
  EXPECT_EQ(imax.index, -1);
  EXPECT_EQ(imax.value, 0u);
  const auto hmin = cuprim::host::argmin(static_cast<const __half*>(nullptr), 0);
  EXPECT_EQ(hmin.index, -1);
  EXPECT_TRUE(std::isinf(to_double(hmin.value)) && to_double(hmin.value) > 0);
  const auto bmax = cuprim::host::argmax(static_cast<const __nv_bfloat16*>(nullptr), 0);
  EXPECT_TRUE(std::isinf(to_double(bmax.value)) && to_double(bmax.value) < 0);
}

TEST(HostArg, RandomWithTiesAndNaNsMatchesIndependentReference) {
  CUPRIM_TEST_RNG(r);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + r.index(300);
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(r.between(-4, 4));  // many ties
    const int nans = trial % 3 == 0 ? static_cast<int>(r.between(1, 3)) : 0;
    for (int k = 0; k < nans; ++k) v[r.index(n)] = std::numeric_limits<float>::quiet_NaN();
    const auto mn = cuprim::host::argmin(v.data(), std::int64_t(n));
    const auto mx = cuprim::host::argmax(v.data(), std::int64_t(n));
    ASSERT_EQ(mn.index, (cuprim_test::reference_arg_index<false>(v.data(), n))) << "n = " << n;
    ASSERT_EQ(mx.index, (cuprim_test::reference_arg_index<true>(v.data(), n))) << "n = " << n;
    ASSERT_TRUE(cuprim_test::same_bytes(mn.value, v[mn.index]));
    ASSERT_TRUE(cuprim_test::same_bytes(mx.value, v[mx.index]));
  }
}

// The device combines (value, index) pairs in any grouping and order: the arg operator must be associative and
// commutative on every mix of ties, NaNs and empty (-1) entries, or the GPU's answer would depend on the grid.
template <bool Max>
void check_arg_op_algebra(cuprim_test::rng& r) {
  using R = cuprim::arg_result<float>;
  const cuprim::detail::arg_op<Max> op;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::array<float, 5> values = {1.0f, 2.0f, -0.0f, 0.0f, nan};
  auto pick = [&]() -> R {
    if (r.index(8) == 0) return {Max ? -INFINITY : INFINITY, -1};
    return {values[r.index(values.size())], static_cast<std::int64_t>(r.index(6))};
  };
  auto same = [](const R& a, const R& b) { return a.index == b.index && cuprim_test::same_bytes(a.value, b.value); };
  for (int i = 0; i < 5000; ++i) {
    R a = pick(), b = pick(), c = pick();
    // Distinct indices name distinct elements; equal indices must carry equal values.
    if (a.index >= 0 && a.index == b.index) b.value = a.value;
    if (a.index >= 0 && a.index == c.index) c.value = a.value;
    if (b.index >= 0 && b.index == c.index) c.value = b.value;
    ASSERT_TRUE(same(op(a, b), op(b, a))) << "not commutative: (" << a.value << "," << a.index << ") ("
                                          << b.value << "," << b.index << ")";
    ASSERT_TRUE(same(op(op(a, b), c), op(a, op(b, c)))) << "not associative";
  }
}

TEST(HostArg, OperatorIsAssociativeAndCommutative) {
  CUPRIM_TEST_RNG(r);
  check_arg_op_algebra<false>(r);
  check_arg_op_algebra<true>(r);
}

// ---- operators and traits

TEST(Functional, OperatorsAndTraits) {
  EXPECT_EQ(cuprim::plus{}(2, 3), 5);
  EXPECT_EQ(cuprim::multiplies{}(4, 3), 12);
  EXPECT_EQ(cuprim::minimum{}(4, -3), -3);
  EXPECT_EQ(cuprim::maximum{}(4, -3), 4);
  EXPECT_EQ(cuprim::identity{}(7), 7);
  EXPECT_EQ(cuprim::numeric_traits<std::int8_t>::lowest(), -128);
  EXPECT_EQ(cuprim::numeric_traits<std::uint16_t>::highest(), 65535);
  EXPECT_EQ(cuprim::numeric_traits<double>::highest(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(to_double(cuprim::numeric_traits<__half>::highest()), std::numeric_limits<double>::infinity());
  EXPECT_EQ(to_double(cuprim::numeric_traits<__half>::lowest()), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(to_double(cuprim::numeric_traits<__nv_bfloat16>::highest()), std::numeric_limits<double>::infinity());
  EXPECT_EQ(to_double(cuprim::numeric_traits<__nv_bfloat16>::lowest()), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(cuprim::detail::is_nan(std::nanf("")));
  EXPECT_TRUE(cuprim::detail::is_nan(__ushort_as_half(0x7E00)));
  EXPECT_TRUE(cuprim::detail::is_nan(__ushort_as_bfloat16(0x7FC0)));
  EXPECT_FALSE(cuprim::detail::is_nan(1.0));
  EXPECT_FALSE(cuprim::detail::is_nan(3));
  EXPECT_EQ(cuprim::detail::convert<float>(__float2half(0.5f)), 0.5f);
  EXPECT_EQ(to_double(cuprim::detail::convert<__nv_bfloat16>(2.0)), 2.0);
}

}  // namespace
