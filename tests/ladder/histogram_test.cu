// cuprim::ladder::histogram_even (lab/ladder/histogram.cuh): every rung of the histogram ladder computes
// cuprim::histogram_even's result: 256 bins over uint8 at an odd offset (the byte path on the production rung), 64
// bins over one repeated byte, and 1024, 2^16 and 2^20 bins over uint32 (shared sub-histograms, then the global
// fallbacks of the shared rungs).
#include "ladder/histogram.cuh"

#include "device/histogram_cases.hpp"

#include <string>
#include <vector>

namespace cuprim_test::hist {
namespace {

/// Every rung of the ladder computes histogram_even's result.
TEST(HistogramLadder, EveryRung) {
  CUPRIM_REQUIRE_GPU();
  const std::uint64_t seed = base_seed() ^ 0x44;
  rng r(seed);
  const std::int64_t n = large_enabled() ? 1000003 : 30011;  // small under the sanitizers (CUPRIM_TEST_LARGE=0)
  auto x = make_samples<std::uint8_t>(r, n, std::int64_t(0), std::int64_t(256), 256);
  auto y = make_samples<std::uint32_t>(r, n, std::int64_t(0), std::int64_t(1) << 32, 1024);
  std::vector<std::uint8_t> same(large_enabled() ? 1 << 20 : 1 << 15, 200);
  cuprim::device_buffer<std::uint8_t> dx(x.size() + 1), ds(same.size());
  cuprim::device_buffer<std::uint32_t> dy(y.size());
  CUPRIM_CUDA_CHECK(cudaMemcpy(dx.data() + 1, x.data(), x.size(), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(ds.data(), same.data(), same.size(), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(dy.data(), y.data(), y.size() * 4, cudaMemcpyHostToDevice));
  for (cuprim::ladder::histogram_rung rung : cuprim::ladder::histogram_rungs) {
    SCOPED_TRACE(std::string(cuprim::ladder::to_string(rung)));
    {
      std::vector<std::uint32_t> want(256);
      cuprim::host::histogram_even(x.data(), std::int64_t(x.size()), want.data(), 256, 0, 256);
      guarded<std::uint32_t> h(256);
      h.poison();
      cuprim::ladder::histogram_even(rung, dx.data() + 1, std::int64_t(x.size()), h.data(), 256, 0, 256);
      ASSERT_EQ(first_diff(h.get(), want), "");
      guarded<std::uint32_t> h2(64);
      h2.poison();
      cuprim::ladder::histogram_even(rung, ds.data(), std::int64_t(same.size()), h2.data(), 64, 0, 256);
      std::vector<std::uint32_t> want2(64);
      want2[50] = std::uint32_t(same.size());
      ASSERT_EQ(first_diff(h2.get(), want2), "");
    }
    for (int nb : {1024, 1 << 16, 1 << 20}) {
      std::vector<std::uint32_t> want(static_cast<std::size_t>(nb));
      cuprim::host::histogram_even(y.data(), std::int64_t(y.size()), want.data(), nb, std::int64_t(0),
                                   std::int64_t(1) << 32);
      guarded<std::uint32_t> h(nb);
      h.poison();
      cuprim::ladder::histogram_even(rung, dy.data(), std::int64_t(y.size()), h.data(), nb, std::int64_t(0),
                                     std::int64_t(1) << 32);
      ASSERT_EQ(first_diff(h.get(), want), "") << nb << " bins";
    }
  }
}

}  // namespace
}  // namespace cuprim_test::hist
