// cuprim::reduce / sum / min / max / argmin / argmax over every integer type, and the huge integer cases.
#include <cuprim/device/reduce.cuh>

#include "common/test_util.hpp"
#include "device/reduce_cases.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace cuprim_test {
namespace {

using int_types = ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                                   std::uint16_t, std::uint32_t, std::uint64_t>;

template <class T>
class ReduceInt : public typed_gpu_test<T> {};
TYPED_TEST_SUITE(ReduceInt, int_types, type_names);

TYPED_TEST(ReduceInt, Sum) {
  CUPRIM_TEST_RNG(r);
  check_sum<TypeParam>(r);
}

TYPED_TEST(ReduceInt, ReduceWithWideInit) {
  CUPRIM_TEST_RNG(r);
  check_reduce_wide<TypeParam>(r);
}

TYPED_TEST(ReduceInt, MinMax) {
  CUPRIM_TEST_RNG(r);
  check_min_max<TypeParam>(r);
}

TYPED_TEST(ReduceInt, ArgMinArgMax) {
  CUPRIM_TEST_RNG(r);
  check_arg<TypeParam>(r);
}

// ---- huge inputs (CUPRIM_TEST_LARGE=0 skips them)

class ReduceIntLarge : public gpu_test {};

TEST_F(ReduceIntLarge, Int32At2e28) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = std::int64_t(1) << 28;
  const int off = 1;
  // Full-range data for min / max / argmin / argmax and the int64-accumulated sum.
  {
    test_data<std::int32_t> data(random_vector<std::int32_t>(r, std::size_t(n) + off));
    guarded_out<std::int64_t> wide;
    const std::int64_t init = r.between(-1000, 1000);
    cuprim::reduce(data.d(off), wide.out(), n, cuprim::plus{}, init);
    EXPECT_EQ(wide.value(), wrap_sum<std::int64_t>(data.h(off), std::size_t(n), init));
    guarded_out<std::int32_t> out;
    cuprim::min(data.d(off), out.out(), n);
    EXPECT_EQ(out.value(), reference_extreme<false>(data.h(off), std::size_t(n)));
    out.reset();
    cuprim::max(data.d(off), out.out(), n);
    EXPECT_EQ(out.value(), reference_extreme<true>(data.h(off), std::size_t(n)));
    guarded_out<cuprim::arg_result<std::int32_t>> arg;
    cuprim::argmax(data.d(off), arg.out(), n);
    EXPECT_EQ(arg.value().index, reference_arg_index<true>(data.h(off), std::size_t(n)));
    arg.reset();
    cuprim::argmin(data.d(off), arg.out(), n);
    EXPECT_EQ(arg.value().index, reference_arg_index<false>(data.h(off), std::size_t(n)));
  }
  // Bounded data for the int32-accumulated sum (no signed overflow).
  {
    test_data<std::int32_t> data(sum_safe_vector<std::int32_t>(r, std::size_t(n) + off));
    guarded_out<std::int32_t> out;
    cuprim::sum(data.d(off), out.out(), n);
    EXPECT_EQ(out.value(), wrap_sum<std::int32_t>(data.h(off), std::size_t(n), 0));
  }
}

// More than 2^31 elements: 64-bit sizes and indices throughout. int8 data accumulated in int64 (the caller's
// wider init), at a misaligned offset; the extremes are planted beyond index 2^31 only, twice each, so argmin /
// argmax must report an index above 2^31 and the lower of the two.
TEST_F(ReduceIntLarge, Int8Beyond2e31WithInt64Init) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = (std::int64_t(1) << 31) + (std::int64_t(1) << 20) + 13;
  const int off = 1;
  std::vector<std::int8_t> h = random_vector<std::int8_t>(r, std::size_t(n) + off);
  for (auto& x : h) {
    if (x == 127) x = 126;
    if (x == -128) x = -127;
  }
  const std::int64_t beyond = std::int64_t(1) << 31;
  auto late = [&] { return std::size_t(off + beyond + std::int64_t(r.index(std::uint64_t(n - beyond)))); };
  for (int k = 0; k < 2; ++k) {
    h[late()] = 127;
    h[late()] = -128;
  }
  test_data<std::int8_t> data(std::move(h));
  const std::int8_t* hw = data.h(off);

  guarded_out<std::int64_t> wide;
  const std::int64_t init = r.between(-(std::int64_t(1) << 40), std::int64_t(1) << 40);
  cuprim::reduce(data.d(off), wide.out(), n, cuprim::plus{}, init);
  EXPECT_EQ(wide.value(), wrap_sum<std::int64_t>(hw, std::size_t(n), init));

  guarded_out<std::int8_t> narrow;  // int8 accumulation wraps, as C++ defines
  cuprim::sum(data.d(off), narrow.out(), n);
  EXPECT_EQ(narrow.value(), wrap_sum<std::int8_t>(hw, std::size_t(n), std::int8_t{0}));

  guarded_out<cuprim::arg_result<std::int8_t>> arg;
  cuprim::argmax(data.d(off), arg.out(), n);
  auto got = arg.value();
  EXPECT_EQ(got.value, 127);
  EXPECT_EQ(got.index, reference_arg_index<true>(hw, std::size_t(n)));
  EXPECT_GE(got.index, beyond);
  arg.reset();
  cuprim::argmin(data.d(off), arg.out(), n);
  got = arg.value();
  EXPECT_EQ(got.value, -128);
  EXPECT_EQ(got.index, reference_arg_index<false>(hw, std::size_t(n)));
  EXPECT_GE(got.index, beyond);
}

}  // namespace
}  // namespace cuprim_test
