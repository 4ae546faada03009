// Argument validation of the histogram entry points and the workspace sizes. Every rule checked here is enforced
// before any CUDA call, so these tests run (label host) without a GPU: the pointers are made-up addresses that
// are only compared, never dereferenced. That nothing is written when a rule is broken is checked on the device by
// device_histogram_api_test (BadArgumentsWriteNothing). Also checks the host reference's bin rule on hand-worked
// cases (boundaries, NaN, the exact integer rule), the paths the default policy plans for every bin count, and the
// ladder's rung list.
#include "ladder/histogram.cuh"

#include <cuprim/device/histogram.cuh>
#include <cuprim/host/histogram.hpp>

#include <gtest/gtest.h>

#include "common/expect_invalid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <string_view>

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
  expect_invalid([] { cuprim::histogram_even(static_cast<const std::uint8_t*>(nullptr), 10, hist, 256, 0, 256); },
                 "samples", fn);
  expect_invalid([] { cuprim::histogram_even(in8, 10, static_cast<std::uint32_t*>(nullptr), 256, 0, 256); },
                 "histogram", fn);
  expect_invalid([] { cuprim::histogram_even(in8, 10, hist, 0, 0, 256); }, "num_bins", fn);
  expect_invalid([] { cuprim::histogram_even(in8, 10, hist, -3, 0, 256); }, "num_bins", fn);
  expect_invalid([] { cuprim::histogram_even(in8, 10, hist, 4, 5, 5); }, "lower", fn);
  expect_invalid([] { cuprim::histogram_even(in8, 10, hist, 4, 6, 5); }, "lower", fn);
  expect_invalid([] { cuprim::histogram_even(inf32, 10, hist, 4, 0.0, double(NAN)); }, "upper", fn);
  expect_invalid([] { cuprim::histogram_even(inf32, 10, hist, 4, -double(INFINITY), 1.0); }, "lower", fn);
  expect_invalid([] { cuprim::histogram_even(inf32, 10, hist, 4, -1e308, 1e308); }, "upper", fn);
  expect_invalid(
      [] {
        auto* inside = reinterpret_cast<std::uint32_t*>(fake<char>(1) + 100);
        cuprim::histogram_even(in8, std::int64_t(1) << 31, inside, 4, 0, 256);
      },
      "histogram", fn);
  expect_invalid([] { cuprim::histogram_even(fake<const std::uint64_t>(1), 10, hist, 4, -1, 5); }, "lower", fn);
  expect_invalid(
      [] { cuprim::histogram_even(fake<const std::int64_t>(1), 10, hist, 4, std::uint64_t(0), ~std::uint64_t(0)); },
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
  expect_invalid([&] { cuprim::histogram_range_add(in8, 10, hist, 3, unsorted); }, "edges",
                 "cuprim::histogram_range_add");
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
  expect_invalid(
      [&] { cuprim::multi_histogram_even(in8, 10, 4, 2, static_cast<const int*>(nullptr), hs, bins, lo, hi); },
      "channels", fn);
  const int* const edges[2] = {nullptr, nullptr};
  expect_invalid([&] { cuprim::multi_histogram_range(in8, 10, 4, 2, ch, hs, bins, edges); }, "edges",
                 "cuprim::multi_histogram_range");
}

TEST(HistogramArgs, InvalidLadderRung) {
  for (int bad : {int(cuprim::ladder::histogram_rungs.size()), 100, -1}) {
    const auto rung = static_cast<cuprim::ladder::histogram_rung>(bad);
    expect_invalid([&] { cuprim::ladder::histogram_even(rung, in8, 10, hist, 256, 0, 256); }, "rung",
                   "cuprim::ladder::histogram_even");
  }
  const auto rung = cuprim::ladder::histogram_rung::per_warp;
  expect_invalid([&] { cuprim::ladder::histogram_even(rung, in8, 10, hist, 4, 5, 5); }, "lower",
                 "cuprim::ladder::histogram_even");
}

TEST(HistogramLadder, RungsAreOrderedAndNamedDistinctly) {
  static_assert(cuprim::ladder::histogram_rungs.front() == cuprim::ladder::histogram_rung::sectioned_global);
  static_assert(cuprim::ladder::histogram_rungs.back() == cuprim::ladder::histogram_rung::production);
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < cuprim::ladder::histogram_rungs.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(cuprim::ladder::histogram_rungs[i]), i) << "not in enum order";
    names.insert(cuprim::ladder::to_string(cuprim::ladder::histogram_rungs[i]));
  }
  EXPECT_EQ(names.size(), cuprim::ladder::histogram_rungs.size()) << "two rungs share a name";
}

/// The path the histogram took for T bins before its policy became a struct (commit 64b20de), for devices whose
/// blocks may use `limit` bytes of shared memory: the default policy must plan the same.
cuprim::histogram_plan path_before_policies(std::size_t T, bool byte_binner, std::size_t limit) {
  const auto pow2_floor = [](std::size_t v) {
    std::size_t p = 1;
    while (p * 2 <= v) p *= 2;
    return int(p);
  };
  cuprim::histogram_plan p;
  if (byte_binner && T <= 256) return {cuprim::detail::hist_layout::lanes, 2, T * 256, true, true};
  if (T <= 512) {
    p.layout = cuprim::detail::hist_layout::lanes;
    p.copies = pow2_floor(std::clamp<std::size_t>(32 * 1024 / (T * 128), 1, 4));
    p.shared_bytes = std::size_t(p.copies) * T * 128;
  } else if (T * 4 + 1024 <= limit) {
    p.layout = cuprim::detail::hist_layout::shared;
    p.copies = pow2_floor(std::clamp<std::size_t>(48 * 1024 / (T * 4), 1, 16));
    p.shared_bytes = std::size_t(p.copies) * T * 4;
  }
  return p;
}

TEST(HistogramPlan, DefaultPolicyKeepsEveryPath) {
  constexpr cuprim::histogram_policy tuned = cuprim::histogram_policy_for<std::uint8_t>(cuprim::tuned_archs[0]);
  static_assert(cuprim::detail::histogram_policy_valid<tuned>());
  static_assert(tuned == cuprim::histogram_policy_for<double>(cuprim::tuned_archs[0]));
  for (std::size_t limit : {std::size_t(227) * 1024, std::size_t(99) * 1024}) {  // sm_90, sm_86
    for (int T = 1; T <= 70000; T += T < 1100 ? 1 : 97) {
      for (bool bytes : {false, true}) {
        if (bytes && T > 256 && T <= 512) continue;  // failed before (a byte layout of one copy): NamedPolicies
        SCOPED_TRACE(::testing::Message() << "T=" << T << " byte binner=" << bytes << " limit=" << limit);
        const cuprim::histogram_plan want = path_before_policies(std::size_t(T), bytes, limit);
        const cuprim::histogram_plan got = cuprim::histogram_plan_for(tuned, T, bytes, limit);
        EXPECT_EQ(int(got.layout), int(want.layout));
        EXPECT_EQ(got.copies, want.copies);
        EXPECT_EQ(got.shared_bytes, want.shared_bytes);
        EXPECT_EQ(got.byte_path, want.byte_path);
        EXPECT_TRUE(got.persistent);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

TEST(HistogramPlan, NamedPolicies) {
  constexpr std::size_t limit = 227 * 1024;
  using cuprim::detail::hist_layout;
  const auto plan = [&](cuprim::histogram_policy p, int T, bool bytes = false) {
    return cuprim::histogram_plan_for(p, T, bytes, limit);
  };
  EXPECT_EQ(plan({.lanes_max_bins = 0}, 256, true).layout, hist_layout::shared);  // the byte binner off its path
  EXPECT_EQ(plan({.lanes_max_bins = 0}, 256, true).copies, 16);
  EXPECT_EQ(plan({.lanes_max_bins = 0, .shared_max_copies = 4}, 256).copies, 4);
  EXPECT_EQ(plan({.lanes_max_bins = 0, .shared_bytes = 64 * 1024}, 1024).copies, 16);
  EXPECT_EQ(plan({.lanes_max_bins = 1024}, 1024).layout, hist_layout::lanes);
  EXPECT_EQ(plan({.lanes_max_bins = 1024}, 1024).shared_bytes, std::size_t(128) * 1024);
  EXPECT_EQ(plan({.lanes_max_bins = 2048}, 2048).layout, hist_layout::shared);  // 256 KiB of lanes: too large
  EXPECT_EQ(plan({.lanes_max_bins = 512}, 512, true).copies, 2);                // the byte path has two copies
  EXPECT_EQ(plan({.lanes_max_bins = 512}, 512, true).shared_bytes, std::size_t(128) * 1024);
  EXPECT_FALSE(plan({.persistent = false}, 100).persistent);
  EXPECT_EQ(plan({}, 60000).layout, hist_layout::global_runs);
  EXPECT_EQ(plan({}, 0).copies, 4);  // no bins plans as one
}

TEST(HistogramPlan, PolicyDescription) {
  const cuprim::histogram_policy p{.threads = 256, .persistent = false};
  EXPECT_EQ(cuprim::describe(p), "threads=256 vectors=2 byte_vectors=4 lanes_max_bins=512 lanes_bytes=32768 "
                                 "lanes_max_copies=4 shared_bytes=49152 shared_max_copies=16 persistent=false");
  EXPECT_NE(cuprim::to_json(p).find("\"policy\": \"histogram_policy\""), std::string::npos);
  EXPECT_EQ(cuprim::histogram_plan_for(p, 256, true, 227 * 1024).describe(),
            "byte path: shared, 32 per-lane sub-histograms x 2 (64 KiB/block)");
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
  constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t highest = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(even_bin(std::int64_t(-1), 2, lowest, highest), 0);
  EXPECT_EQ(even_bin(std::int64_t(0), 2, lowest, highest), 1);
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
