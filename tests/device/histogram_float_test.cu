// histogram_even / histogram_range on floating-point samples (__half, float, double) against the host reference
// (the floating-point rule, bit for bit): every bin count, NaN and ±infinity samples (counted nowhere), samples
// equal to lower (first bin), upper (nowhere) and inner boundaries, float and double levels.
#include "device/histogram_cases.hpp"

namespace cuprim_test::hist {
namespace {

TEST(HistogramFloat, Half) { CUPRIM_REQUIRE_GPU(); sweep_type<__half, std::uint32_t>(); }
TEST(HistogramFloat, Float) { CUPRIM_REQUIRE_GPU(); sweep_type<float, std::uint64_t>(); }
TEST(HistogramFloat, Double) { CUPRIM_REQUIRE_GPU(); sweep_type<double, std::uint32_t>(); }

TEST(HistogramFloat, FloatLevels) {
  CUPRIM_REQUIRE_GPU();
  const std::uint64_t seed = base_seed() ^ 0xF1;
  rng r(seed);
  auto x = make_samples<float>(r, 100003, 0.1, 0.7, 1000);
  check_single<float, std::uint32_t, float>(x, 1000, 0.1f, 0.7f, nullptr, seed);
  std::vector<float> e = {-1.0f, 0.0f, 0.1f, 0.1f, 0.25f, 0.5f, 0.7f};
  check_single<float, std::uint32_t, float>(x, 6, -1.0f, 0.7f, &e, seed);
}

}  // namespace
}  // namespace cuprim_test::hist
