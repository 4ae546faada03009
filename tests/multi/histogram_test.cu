// cuprim::multi histograms: every rank gets the bins of every shard, exactly, for 1, 2 and 4 ranks.
#include <cuprim/multi/histogram.cuh>

#include "common/expect_invalid.hpp"
#include "common/test_util.hpp"
#include "multi/multi_fixture.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using cuprim_test::multi::layout;
using cuprim_test::multi::poison;
using cuprim_test::multi::rank_layouts;
using cuprim_test::multi::sharded_input;
using cuprim_test::multi::shards_to_host;
namespace multi = cuprim::multi;

class MultiHistogram : public ::testing::TestWithParam<int> {};

TEST_P(MultiHistogram, EvenBinsAreExactOnEveryRank) {
  const int P = GetParam();
  MULTI_RANKS(P);
  SCOPED_TRACE(cuprim_test::seed_message());
  cuprim_test::rng g(cuprim_test::test_seed());
  for (const int bins : {1, 256, 65536, 100003}) {
    const std::int64_t n = 1000003;
    for (const layout& l : rank_layouts(n, P, g.next())) {
      SCOPED_TRACE(l.name + ", " + std::to_string(bins) + " bins");
      std::vector<float> v(static_cast<std::size_t>(n));
      for (auto& x : v) x = float(g.uniform(-0.1, 1.1));  // some samples outside [0, 1): counted nowhere
      sharded_input<float> in(comm, l, v);
      multi::sharded_buffer<std::uint32_t> hist(comm, bins);
      poison(comm, hist);
      multi::histogram_even(comm, in.dev.view(), hist.view(), bins, 0.0f, 1.0f);
      // The reference: cuprim's one-GPU histogram of the whole array on device 0.
      std::vector<std::uint32_t> expected(static_cast<std::size_t>(bins));
      {
        multi::device_guard d(0);
        cuprim::device_buffer<float> all{std::span<const float>(v)};
        cuprim::device_buffer<std::uint32_t> h(static_cast<std::size_t>(bins));
        cuprim::histogram_even(all.data(), n, h.data(), bins, 0.0f, 1.0f);
        expected = h.to_host_sync();
      }
      std::uint64_t counted = 0;
      for (auto c : expected) counted += c;
      std::uint64_t inside = 0;
      for (float x : v) inside += x >= 0.0f && x < 1.0f;
      EXPECT_EQ(counted, inside) << "the one-GPU reference counts every sample in range";
      for (const auto& h : shards_to_host(comm, multi::sharded<std::uint32_t>(hist.view())))
        EXPECT_EQ(h, expected);
    }
  }
}

TEST_P(MultiHistogram, RangeBinsWith64BitCounters) {
  const int P = GetParam();
  MULTI_RANKS(P);
  cuprim_test::rng g(cuprim_test::test_seed());
  const std::int64_t n = 500009;
  const std::vector<int> edges{-1000, -10, 0, 1, 2, 50, 999, 1000};
  const int bins = int(edges.size()) - 1;
  for (const layout& l : rank_layouts(n, P, g.next())) {
    SCOPED_TRACE(l.name);
    std::vector<int> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = int(g.between(-1100, 1100));
    sharded_input<int> in(comm, l, v);
    multi::sharded_buffer<std::uint64_t> hist(comm, bins);
    poison(comm, hist);
    multi::histogram_range(comm, in.dev.view(), hist.view(), bins, edges.data());
    std::vector<std::uint64_t> expected(static_cast<std::size_t>(bins), 0);
    for (int x : v)
      for (int b = 0; b < bins; ++b)
        if (edges[std::size_t(b)] <= x && x < edges[std::size_t(b) + 1]) ++expected[std::size_t(b)];
    for (const auto& h : shards_to_host(comm, multi::sharded<std::uint64_t>(hist.view()))) EXPECT_EQ(h, expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, MultiHistogram, cuprim_test::multi::ranks_param, cuprim_test::multi::ranks_name);

TEST(MultiHistogramArgs, RefusesShortBinsAndBadCounts) {
  MULTI_RANKS(1);
  multi::sharded_buffer<float> in(comm, 10);
  multi::sharded_buffer<std::uint32_t> hist(comm, 255);
  cuprim_test::expect_invalid([&] { multi::histogram_even(comm, in.view(), hist.view(), 256, 0.f, 1.f); }, "hist",
                              "cuprim::multi::histogram_even");
  cuprim_test::expect_invalid([&] { multi::histogram_even(comm, in.view(), hist.view(), 0, 0.f, 1.f); },
                              "num_bins", "cuprim::multi::histogram_even");
}

}  // namespace
