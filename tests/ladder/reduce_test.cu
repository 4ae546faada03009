// cuprim::ladder::reduce (lab/ladder/reduce.cuh): every rung of the reduction ladder computes the same function as
// cuprim::reduce.
// Sizes around one and two blocks of the ladder kernels (256 threads; rungs 4-6 take 512 elements per block),
// sizes that need three passes, 2^20 + 7 (the grid-stride rungs saturate their grid and loop), and 2^26 (large).
// Configurations (to bound the build): int32, float and __half (float accumulation) with plus; float with maximum.
#include "ladder/reduce.cuh"

#include "common/test_util.hpp"
#include "device/reduce_cases.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cuprim_test {
namespace {

struct int32_plus {
  static constexpr const char* name = "int32_plus";
  using in_t = std::int32_t;
  using init_t = std::int32_t;
  using op_t = cuprim::plus;
};
struct float_plus {
  static constexpr const char* name = "float_plus";
  using in_t = float;
  using init_t = float;
  using op_t = cuprim::plus;
};
struct half_plus {
  static constexpr const char* name = "half_plus";
  using in_t = __half;
  using init_t = __half;  // accumulates in float, the result is rounded to __half
  using op_t = cuprim::plus;
};
struct float_max {
  static constexpr const char* name = "float_max";
  using in_t = float;
  using init_t = float;
  using op_t = cuprim::maximum;
};

std::vector<std::int64_t> ladder_sizes() {
  return {0,      1,      31,     32,     33,      255,     256, 257, 511, 512, 513,
          1023,   1024,   1025,   65535,  65537,   // 65537 = 256 · 256 + 1: three passes for rungs 1-3
          (std::int64_t(1) << 20) + 7};
}

template <class C>
class ReduceLadder : public typed_gpu_test<C> {};
using ladder_configs = ::testing::Types<int32_plus, float_plus, half_plus, float_max>;
TYPED_TEST_SUITE(ReduceLadder, ladder_configs, type_names);

/// Reduces data at every size and offset 0 / 1 with every rung, and compares with the reference.
template <class C>
void check_ladder(rng& r, const std::vector<std::int64_t>& sizes) {
  using In = typename C::in_t;
  using Init = typename C::init_t;
  using Op = typename C::op_t;
  using Acc = cuprim::accumulator_t<Init>;
  std::int64_t m = 0;
  for (auto n : sizes) m = std::max(m, n);
  test_data<In> data(sum_safe_vector<In>(r, std::size_t(m) + 1));
  guarded_out<Init> out;
  for (std::int64_t n : sizes) {
    for (int off : {0, 1}) {
      CUPRIM_CASE_TRACE(n, off);
      const Init init = from_double<Init>(static_cast<double>(r.between(-50, 50)));
      for (cuprim::ladder::reduce_variant v : cuprim::ladder::reduce_variants) {
        SCOPED_TRACE(std::string("rung ") + std::string(cuprim::ladder::to_string(v)));
        out.reset();
        cuprim::ladder::reduce(v, data.d(off), out.out(), n, Op{}, init);
        const Init got = out.value();
        if constexpr (std::is_same_v<Op, cuprim::plus>) {
          expect_sum_matches(got, data.h(off), n, static_cast<Acc>(cuprim::detail::convert<Acc>(init)));
        } else {
          // maximum: exact, the init included.
          Acc ref = cuprim::detail::convert<Acc>(init);
          for (std::int64_t i = 0; i < n; ++i) ref = Op{}(ref, cuprim::detail::convert<Acc>(data.h(off)[i]));
          EXPECT_TRUE(same_bytes(got, cuprim::detail::convert<Init>(ref)))
              << "got " << show(got) << ", expected " << show(ref);
        }
      }
      if (n == 0) break;
    }
  }
}

TYPED_TEST(ReduceLadder, EveryRungEverySize) {
  CUPRIM_TEST_RNG(r);
  check_ladder<TypeParam>(r, ladder_sizes());
}

TYPED_TEST(ReduceLadder, EveryRungLarge) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  check_ladder<TypeParam>(r, {std::int64_t(1) << 26});
}

// Exact float sums (integer-valued data) on every rung: a dropped or doubled element in any pass shows.
class ReduceLadderExact : public gpu_test {};

TEST_F(ReduceLadderExact, FloatIntegerValuedEveryRung) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t m = (std::int64_t(1) << 20) + 7;
  test_data<float> data(random_small_ints<float>(r, std::size_t(m) + 1, -8, 8));
  guarded_out<float> out;
  for (std::int64_t n : ladder_sizes()) {
    for (int off : {0, 1}) {
      CUPRIM_CASE_TRACE(n, off);
      const double ref = static_cast<double>(reference_sum(data.h(off), std::size_t(n), 3.0).sum);
      for (cuprim::ladder::reduce_variant v : cuprim::ladder::reduce_variants) {
        SCOPED_TRACE(std::string("rung ") + std::string(cuprim::ladder::to_string(v)));
        out.reset();
        cuprim::ladder::reduce(v, data.d(off), out.out(), n, cuprim::plus{}, 3.0f);
        EXPECT_EQ(static_cast<double>(out.value()), ref);
      }
      if (n == 0) break;
    }
  }
}

// An invalid rung is refused before anything is written.
class ReduceLadderArgs : public gpu_test {};

TEST_F(ReduceLadderArgs, InvalidVariantWritesNothing) {
  CUPRIM_TEST_RNG(r);
  test_data<std::int32_t> data(random_vector<std::int32_t>(r, 1000, -10, 10));
  guarded_out<std::int32_t> out;
  const auto bad = static_cast<cuprim::ladder::reduce_variant>(cuprim::ladder::reduce_variants.size());
  EXPECT_THROW(cuprim::ladder::reduce(bad, data.d(0), out.out(), 1000, cuprim::plus{}, 0), cuprim::invalid_argument);
  EXPECT_TRUE(out.untouched());
  EXPECT_THROW(cuprim::ladder::reduce(cuprim::ladder::reduce_variant::warp_shuffle, data.d(0), data.dev.data() + 500,
                                      1000, cuprim::plus{}, 0),
               cuprim::invalid_argument);
  EXPECT_EQ(data.dev.to_host_sync(), data.host) << "the input was modified";
}

}  // namespace
}  // namespace cuprim_test
