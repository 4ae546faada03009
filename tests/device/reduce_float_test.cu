// cuprim::reduce / sum / min / max / argmin / argmax over float, double, __half and __nv_bfloat16 (the 16-bit
// types accumulate in float), NaN handling of argmin / argmax, bitwise determinism, and the huge float cases.
#include <cuprim/device/reduce.cuh>

#include "common/test_util.hpp"
#include "device/reduce_cases.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace cuprim_test {
namespace {

using float_types = ::testing::Types<float, double, __half, __nv_bfloat16>;

template <class T>
class ReduceFloat : public typed_gpu_test<T> {};
TYPED_TEST_SUITE(ReduceFloat, float_types, type_names);

TYPED_TEST(ReduceFloat, Sum) {
  CUPRIM_TEST_RNG(r);
  check_sum<TypeParam>(r);
}

TYPED_TEST(ReduceFloat, ReduceWithDoubleInit) {
  CUPRIM_TEST_RNG(r);
  check_reduce_wide<TypeParam>(r);
}

TYPED_TEST(ReduceFloat, ExactIntegerValuedSum) {
  CUPRIM_TEST_RNG(r);
  check_exact_integer_sum<TypeParam>(r);
}

TYPED_TEST(ReduceFloat, MinMax) {
  CUPRIM_TEST_RNG(r);
  check_min_max<TypeParam>(r);
}

TYPED_TEST(ReduceFloat, ArgMinArgMax) {
  CUPRIM_TEST_RNG(r);
  check_arg<TypeParam>(r);
}

TYPED_TEST(ReduceFloat, ArgMinArgMaxNaNAndSignedZeros) {
  CUPRIM_TEST_RNG(r);
  check_arg_nan<TypeParam>(r);
}

// For a given n, input alignment and device the order of every operation is fixed: reducing the same data again,
// from a fresh allocation, or through the explicit-workspace overload gives bitwise identical results.
TYPED_TEST(ReduceFloat, BitwiseDeterministic) {
  using T = TypeParam;
  using Acc = cuprim::accumulator_t<T>;
  CUPRIM_TEST_RNG(r);
  test_data<T> data(random_vector<T>(r, data_elems<T>()));
  test_data<T> copy(data.host);  // a second allocation holding the same values
  ASSERT_EQ(reinterpret_cast<std::uintptr_t>(data.d(0)) % 256, reinterpret_cast<std::uintptr_t>(copy.d(0)) % 256)
      << "allocations differ in alignment; the comparison would not be like for like";
  const std::int64_t tile = default_tile<T>();
  guarded_out<Acc> out;
  for (std::int64_t n : {tile + 1, 3 * tile + 5, (std::int64_t(1) << 20) + 7, std::int64_t(data_elems<T>()) - max_offset}) {
    for (int off : {0, 1}) {
      CUPRIM_CASE_TRACE(n, off);
      std::vector<Acc> results;
      for (int rep = 0; rep < 3; ++rep) {
        out.reset();
        cuprim::reduce(data.d(off), out.out(), n, cuprim::plus{}, Acc{});
        results.push_back(out.value());
      }
      out.reset();
      cuprim::reduce(copy.d(off), out.out(), n, cuprim::plus{}, Acc{});
      results.push_back(out.value());
      {
        cuprim::device_buffer<unsigned char> ws(cuprim::reduce_workspace_bytes<Acc>(n));
        poison(ws);
        out.reset();
        cuprim::reduce(data.d(off), out.out(), n, cuprim::plus{}, Acc{},
                       cuprim::workspace{ws.data(), ws.bytes()});
        results.push_back(out.value());
      }
      for (std::size_t i = 1; i < results.size(); ++i)
        EXPECT_TRUE(same_bytes(results[i], results[0]))
            << "result " << i << " is " << show(results[i]) << ", first was " << show(results[0]);
      // And the value itself is right (determinism of a wrong answer is no virtue).
      expect_sum_matches(results[0], data.h(off), n, Acc{});
    }
  }
}

// ---- huge inputs (CUPRIM_TEST_LARGE=0 skips them)

class ReduceFloatLarge : public gpu_test {};

template <class T>
void check_large_float(rng& r) {
  const std::int64_t n = std::int64_t(1) << 28;
  const int off = 1;
  test_data<T> data(random_vector<T>(r, std::size_t(n) + off));
  guarded_out<T> out;
  cuprim::sum(data.d(off), out.out(), n);
  expect_sum_matches(out.value(), data.h(off), n, cuprim::accumulator_t<T>{});
  guarded_out<double> wide;
  cuprim::reduce(data.d(off), wide.out(), n, cuprim::plus{}, 0.5);
  expect_sum_matches(wide.value(), data.h(off), n, 0.5);
  out.reset();
  cuprim::max(data.d(off), out.out(), n);
  EXPECT_TRUE(same_bytes(out.value(), reference_extreme<true>(data.h(off), std::size_t(n))));
  guarded_out<cuprim::arg_result<T>> arg;
  cuprim::argmin(data.d(off), arg.out(), n);
  EXPECT_EQ(arg.value().index, reference_arg_index<false>(data.h(off), std::size_t(n)));
}

TEST_F(ReduceFloatLarge, FloatAt2e28) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  check_large_float<float>(r);
}

TEST_F(ReduceFloatLarge, DoubleAt2e28) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  check_large_float<double>(r);
}

TEST_F(ReduceFloatLarge, HalfAt2e28) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  check_large_float<__half>(r);
}

// Integer-valued floats summed in double: exact at 2^28, so a dropped or doubled element shows.
TEST_F(ReduceFloatLarge, FloatAt2e28ExactInDouble) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = (std::int64_t(1) << 28) + 3;
  test_data<float> data(random_small_ints<float>(r, std::size_t(n) + 3, -1000, 1000));
  for (int off : {0, 3}) {
    CUPRIM_CASE_TRACE(n, off);
    guarded_out<double> out;
    cuprim::reduce(data.d(off), out.out(), n, cuprim::plus{}, 0.0);
    EXPECT_EQ(out.value(), static_cast<double>(reference_sum(data.h(off), std::size_t(n)).sum));
  }
}

}  // namespace
}  // namespace cuprim_test
