// cuprim::multi::redistribute: the same global array, cut into other shard sizes; 1, 2 and 4 ranks.
#include <cuprim/multi/redistribute.hpp>

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
namespace multi = cuprim::multi;

class MultiRedistribute : public ::testing::TestWithParam<int> {};

TEST_P(MultiRedistribute, EveryLayoutToEveryLayout) {
  const int P = GetParam();
  MULTI_RANKS(P);
  SCOPED_TRACE(cuprim_test::seed_message());
  cuprim_test::rng g(cuprim_test::test_seed());
  for (const std::int64_t n : {std::int64_t(0), std::int64_t(5), std::int64_t(300007)}) {
    const auto layouts = rank_layouts(n, P, g.next());
    for (const layout& from : layouts) {
      std::vector<std::uint64_t> v(static_cast<std::size_t>(n));
      for (auto& x : v) x = g.next();
      sharded_input<std::uint64_t> in(comm, from, v);
      for (const layout& to : layouts) {
        SCOPED_TRACE(from.name + " -> " + to.name + ", n = " + std::to_string(n));
        auto out = multi::sharded_buffer<std::uint64_t>::for_ranks(comm, to.sizes);
        poison(comm, out);
        multi::redistribute(comm, in.dev.view(), from.sizes, out.view(), to.sizes);
        std::vector<std::uint64_t> got(v.size(), 0);
        multi::copy_to_host<std::uint64_t>(comm, multi::sharded<const std::uint64_t>(out.view()), to.sizes, got);
        EXPECT_EQ(got, v);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, MultiRedistribute, cuprim_test::multi::ranks_param,
                         cuprim_test::multi::ranks_name);

TEST(MultiRedistributeArgs, RefusesSizesThatDoNotMatch) {
  MULTI_RANKS(1);
  multi::sharded_buffer<int> in(comm, 10), out(comm, 10);
  const std::vector<std::int64_t> ten{10}, nine{9}, two{5, 5};
  cuprim_test::expect_invalid([&] { multi::redistribute(comm, in.view(), ten, out.view(), nine); }, "to_sizes",
                              "cuprim::multi::redistribute");
  cuprim_test::expect_invalid([&] { multi::redistribute(comm, in.view(), two, out.view(), ten); }, "from_sizes",
                              "cuprim::multi::redistribute");
  cuprim_test::expect_invalid([&] { multi::redistribute(comm, in.view(), ten, in.view(), ten); }, "out",
                              "cuprim::multi::redistribute");
}

}  // namespace
