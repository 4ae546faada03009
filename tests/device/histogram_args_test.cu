// Argument validation of the histogram entry points and the workspace sizes. Every rule checked here is enforced
// before any CUDA call, so these tests run (label host) without a GPU: the pointers are made-up addresses that
// are only compared, never dereferenced. That nothing is written when a rule is broken is checked on the device by
// device_histogram_api_test (BadArgumentsWriteNothing). Also checks the host reference's bin rule on hand-worked
// cases (boundaries, NaN, the exact integer rule).
#include <cuprim/device/histogram.cuh>
#include <cuprim/host/histogram.hpp>

#include <gtest/gtest.h>

#include "common/expect_invalid.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace {

using cuprim_test::expect_invalid;
using cuprim_test::fake;

const std::uint8_t* in8 = fake<const std::uint8_t>(1);
const float* inf32 = fake<const float>(1);
std::uint32_t* hist = fake<std::uint32_t>(2);
std::uint32_t* hist2 = fake<std::uint32_t>(3);

TEST(HistogramArgs, Even) {
  const char* fn = "cuprim::histogram_even";
  expect_invalid([] { cuprim::histogram_even(in8, -1, hist, 256, 0, 256); }, "n", fn);
  expect_invalid([] { cuprim::histogram_even(static_cast<const std::uint8_t*>(nullptr), 10, hist, 256, 0, 256); }, "samples", fn);
  expect_invalid([] { cuprim::histogram_even(in8, 10, static_cast<std::uint32_t*>(nullptr), 256, 0, 256); }, "histogram", fn);
  expect_invalid([] { cuprim::histogram_even(in8, 10, hist, 0, 0, 256); }, "num_bins", fn);
  expect_invalid([] { cuprim::histogram_even(in8, 10, hist, -3, 0, 256); }, "num_bins", fn);
  expect_invalid([] { cuprim::histogram_even(in8, 10, hist, 4, 5, 5); }, "lower", fn);
  expect_invalid([] { cuprim::histogram_even(in8, 10, hist, 4, 6, 5); }, "lower", fn);
  expect_invalid([] { cuprim::histogram_even(inf32, 10, hist, 4, 0.0, double(NAN)); }, "upper", fn);
  expect_invalid([] { cuprim::histogram_even(inf32, 10, hist, 4, -double(INFINITY), 1.0); }, "lower", fn);
  expect_invalid([] { cuprim::histogram_even(inf32, 10, hist, 4, -1e308, 1e308); }, "upper", fn);
  expect_invalid([] { cuprim::histogram_even(in8, std::int64_t(1) << 31, reinterpret_cast<std::uint32_t*>(fake<char>(1) + 100), 4, 0, 256); },
                 "histogram", fn);
  expect_invalid([] { cuprim::histogram_even(fake<const std::uint64_t>(1), 10, hist, 4, -1, 5); }, "lower", fn);
  expect_invalid([] { cuprim::histogram_even(fake<const std::int64_t>(1), 10, hist, 4, std::uint64_t(0), ~std::uint64_t(0)); },
                 "upper", fn);
  expect_invalid([] { cuprim::histogram_even_add(in8, 10, hist, 4, 5, 5); }, "lower", "cuprim::histogram_even_add");
}

TEST(HistogramArgs, Range) {
  const char* fn = "cuprim::histogram_range";
  const int unsorted[4] = {0, 5, 3, 10};
  const int sorted[4] = {0, 3, 3, 10};
  const double nan_edges[3] = {0.0, double(NAN), 1.0};
  expect_invalid([&] { cuprim::histogram_range(in8, 10, hist, 3, unsorted); }, "edges", fn);
  expect_invalid([&] { cuprim::histogram_range(in8, 10, hist, 3, static_cast<const int*>(nullptr)); }, "edges", fn);
  expect_invalid([&] { cuprim::histogram_range(inf32, 10, hist, 2, nan_edges); }, "edges", fn);
  expect_invalid([&] { cuprim::histogram_range(in8, 10, hist, 0, sorted); }, "num_bins", fn);
  const std::size_t need = cuprim::histogram_range_workspace_bytes<std::uint8_t, std::uint32_t, int>(10, 3);
  EXPECT_GE(need, 4 * sizeof(std::int64_t));
  expect_invalid([&] { cuprim::histogram_range(in8, 10, hist, 3, sorted, cuprim::workspace{fake<void>(5), need - 1}); },
                 "workspace", fn);
  expect_invalid([&] { cuprim::histogram_range_add(in8, 10, hist, 3, unsorted); }, "edges", "cuprim::histogram_range_add");
  EXPECT_EQ((cuprim::histogram_even_workspace_bytes<std::uint8_t, std::uint32_t, int>(1 << 30, 1 << 20)), 0u);
}

TEST(HistogramArgs, Multi) {
  const char* fn = "cuprim::multi_histogram_even";
  int ch[2] = {0, 2};
  int dup[2] = {1, 1};
  int bins[2] = {256, 256};
  int lo[2] = {0, 0}, hi[2] = {256, 256};
  std::uint32_t* hs[2] = {hist, hist2};
  std::uint32_t* overlapping[2] = {hist, hist + 10};
  expect_invalid([&] { cuprim::multi_histogram_even(in8, 10, 5, 2, ch, hs, bins, lo, hi); }, "num_channels", fn);
  expect_invalid([&] { cuprim::multi_histogram_even(in8, 10, 4, 0, ch, hs, bins, lo, hi); }, "num_active", fn);
  expect_invalid([&] { cuprim::multi_histogram_even(in8, 10, 2, 2, ch, hs, bins, lo, hi); }, "channels", fn);
  expect_invalid([&] { cuprim::multi_histogram_even(in8, 10, 4, 2, dup, hs, bins, lo, hi); }, "channels", fn);
  expect_invalid([&] { cuprim::multi_histogram_even(in8, 10, 4, 2, ch, overlapping, bins, lo, hi); }, "histograms", fn);
  expect_invalid([&] { cuprim::multi_histogram_even(in8, -1, 4, 2, ch, hs, bins, lo, hi); }, "num_pixels", fn);
  expect_invalid([&] { cuprim::multi_histogram_even(in8, 10, 4, 2, static_cast<const int*>(nullptr), hs, bins, lo, hi); },
                 "channels", fn);
  const int* const edges[2] = {nullptr, nullptr};
  expect_invalid([&] { cuprim::multi_histogram_range(in8, 10, 4, 2, ch, hs, bins, edges); }, "edges",
                 "cuprim::multi_histogram_range");
}

TEST(HistogramHostRule, Boundaries) {
  using cuprim::host::even_bin;
  EXPECT_EQ(even_bin(std::uint8_t(0), 256, 0, 256), 0);
  EXPECT_EQ(even_bin(std::uint8_t(255), 256, 0, 256), 255);
  EXPECT_EQ(even_bin(10, 4, 10, 20), 0);       // lower is inside
  EXPECT_EQ(even_bin(20, 4, 10, 20), -1);      // upper is outside
  EXPECT_EQ(even_bin(15, 4, 10, 20), 2);       // inner boundary 15 = 10 + 2 * 2.5 goes to the upper bin
  EXPECT_EQ(even_bin(12, 4, 10, 20), 0);       // 2 * 4 / 10 = 0.8
  EXPECT_EQ(even_bin(13, 4, 10, 20), 1);
  EXPECT_EQ(even_bin(9, 4, 10, 20), -1);
  EXPECT_EQ(even_bin(std::int64_t(-1), 2, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()), 0);
  EXPECT_EQ(even_bin(std::int64_t(0), 2, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()), 1);
  EXPECT_EQ(even_bin(double(NAN), 4, 0.0, 1.0), -1);
  EXPECT_EQ(even_bin(1.0, 4, 0.0, 1.0), -1);
  EXPECT_EQ(even_bin(0.75, 4, 0.0, 1.0), 3);
  const int e[4] = {0, 3, 3, 10};
  EXPECT_EQ(cuprim::host::range_bin(3, 3, e), 2);   // equal to an inner edge: the upper bin (bin 1 is empty)
  EXPECT_EQ(cuprim::host::range_bin(2, 3, e), 0);
  EXPECT_EQ(cuprim::host::range_bin(10, 3, e), -1);
  EXPECT_EQ(cuprim::host::range_bin(-1, 3, e), -1);
}

}  // namespace
