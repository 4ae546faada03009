// cuprim::multi::select_if: every rank keeps its selected items, the counts reach every rank; 1, 2 and 4 ranks.
#include <cuprim/multi/select.cuh>

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

struct above {
  float t;
  __host__ __device__ bool operator()(float x) const { return x > t; }
};

class MultiSelect : public ::testing::TestWithParam<int> {};

TEST_P(MultiSelect, KeepsOrderAndGathersTheCounts) {
  const int P = GetParam();
  MULTI_RANKS(P);
  SCOPED_TRACE(cuprim_test::seed_message());
  cuprim_test::rng g(cuprim_test::test_seed());
  for (const float t : {-1.0f, 0.5f, 0.999f, 2.0f}) {  // keep all, about half, a few, none
    const std::int64_t n = 1000003;
    for (const layout& l : rank_layouts(n, P, g.next())) {
      SCOPED_TRACE(l.name + ", threshold " + std::to_string(t));
      std::vector<float> v(static_cast<std::size_t>(n));
      for (auto& x : v) x = float(g.uniform());
      sharded_input<float> in(comm, l, v);
      multi::sharded_buffer<float> out = multi::sharded_buffer<float>::for_ranks(comm, l.sizes);
      multi::sharded_buffer<std::int64_t> counts(comm, P);
      poison(comm, out), poison(comm, counts);
      multi::select_if(comm, in.dev.view(), out.view(), counts.view(), above{t});
      // Per rank: the selected items of its own shard, in order.
      std::vector<std::int64_t> expected_counts;
      std::vector<std::vector<float>> expected;
      std::int64_t offset = 0;
      for (int r = 0; r < P; ++r) {
        expected.emplace_back();
        for (std::int64_t i = 0; i < l.sizes[std::size_t(r)]; ++i)
          if (v[std::size_t(offset + i)] > t) expected.back().push_back(v[std::size_t(offset + i)]);
        expected_counts.push_back(std::int64_t(expected.back().size()));
        offset += l.sizes[std::size_t(r)];
      }
      const auto got_counts = shards_to_host(comm, multi::sharded<std::int64_t>(counts.view()));
      const auto got = shards_to_host(comm, multi::sharded<float>(out.view()));
      for (int i = 0; i < comm.local_size(); ++i) {
        const int r = comm[i].rank;
        EXPECT_EQ(got_counts[std::size_t(i)], expected_counts) << "local rank " << i;
        const auto& e = expected[std::size_t(r)];
        ASSERT_GE(got[std::size_t(i)].size(), e.size());
        EXPECT_TRUE(std::equal(e.begin(), e.end(), got[std::size_t(i)].begin())) << "rank " << r;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, MultiSelect, cuprim_test::multi::ranks_param, cuprim_test::multi::ranks_name);

TEST(MultiSelectArgs, RefusesShortOutputsAndCounts) {
  MULTI_RANKS(1);
  multi::sharded_buffer<float> in(comm, 10), shorter(comm, 9), out(comm, 10);
  multi::sharded_buffer<std::int64_t> counts(comm, 1);
  multi::sharded<std::int64_t> no_counts{{counts.data(0), 0}};
  cuprim_test::expect_invalid([&] { multi::select_if(comm, in.view(), shorter.view(), counts.view(), above{0}); },
                              "out", "cuprim::multi::select_if");
  cuprim_test::expect_invalid([&] { multi::select_if(comm, in.view(), out.view(), no_counts, above{0}); }, "counts",
                              "cuprim::multi::select_if");
}

}  // namespace
