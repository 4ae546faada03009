// cuprim::multi::reduce / sum / min / max: every rank gets the reduction of every shard, for 1, 2 and 4 ranks.
#include <cuprim/multi/reduce.cuh>

#include "common/expect_invalid.hpp"
#include "common/test_util.hpp"
#include "multi/multi_fixture.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using cuprim_test::multi::first_elements;
using cuprim_test::multi::layout;
using cuprim_test::multi::poison;
using cuprim_test::multi::rank_layouts;
using cuprim_test::multi::sharded_input;
namespace multi = cuprim::multi;

/// max(|a|, |b|) as a user op with no identity cuprim knows: the reduction lifts it (empty shards add nothing).
struct abs_max {
  __host__ __device__ int operator()(int a, int b) const {
    const int x = a < 0 ? -a : a, y = b < 0 ? -b : b;
    return x < y ? y : x;
  }
};

class MultiReduce : public ::testing::TestWithParam<int> {};

TEST_P(MultiReduce, IntegerSumMinMaxAndUserOpAreExact) {
  const int P = GetParam();
  MULTI_RANKS(P);
  SCOPED_TRACE(cuprim_test::seed_message());
  cuprim_test::rng g(cuprim_test::test_seed());
  for (const std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(1000003)}) {
    for (const layout& l : rank_layouts(n, P, g.next())) {
      SCOPED_TRACE(l.name + ", n = " + std::to_string(n));
      std::vector<int> v(static_cast<std::size_t>(n));
      for (auto& x : v) x = int(g.between(-1000000, 1000000));
      sharded_input<int> in(comm, l, v);
      multi::sharded_buffer<long long> sum(comm, 1);
      multi::sharded_buffer<int> lo(comm, 1), hi(comm, 1), am(comm, 1);
      poison(comm, sum), poison(comm, lo), poison(comm, hi), poison(comm, am);
      multi::sum(comm, in.dev.view(), sum.view());
      multi::min(comm, in.dev.view(), lo.view());
      multi::max(comm, in.dev.view(), hi.view());
      multi::reduce(comm, in.dev.view(), am.view(), abs_max{}, 7);
      comm.synchronize();
      long long s = 0;
      int mn = std::numeric_limits<int>::max(), mx = std::numeric_limits<int>::lowest(), a = 7;
      for (int x : v) s += x, mn = std::min(mn, x), mx = std::max(mx, x), a = abs_max{}(a, x);
      for (long long r : first_elements(comm, sum)) EXPECT_EQ(r, s);
      for (int r : first_elements(comm, lo)) EXPECT_EQ(r, mn);
      for (int r : first_elements(comm, hi)) EXPECT_EQ(r, mx);
      for (int r : first_elements(comm, am)) EXPECT_EQ(r, a);
    }
  }
}

TEST_P(MultiReduce, FloatSumIsWithinTheBoundAndTheSameEveryRun) {
  const int P = GetParam();
  MULTI_RANKS(P);
  SCOPED_TRACE(cuprim_test::seed_message());
  cuprim_test::rng g(cuprim_test::test_seed());
  const std::int64_t n = (std::int64_t(1) << 22) + 12345;
  for (const layout& l : rank_layouts(n, P, g.next())) {
    SCOPED_TRACE(l.name);
    std::vector<float> v(static_cast<std::size_t>(n));
    double exact = 0, mag = 0;
    for (auto& x : v) x = float(g.uniform(-1, 1)), exact += x, mag += std::fabs(x);
    sharded_input<float> in(comm, l, v);
    multi::sharded_buffer<float> out(comm, 1);
    poison(comm, out);
    multi::sum(comm, in.dev.view(), out.view());
    const auto first = first_elements(comm, out);
    poison(comm, out);
    multi::sum(comm, in.dev.view(), out.view());
    const auto second = first_elements(comm, out);
    // Pairwise-tree partials and P - 1 more additions: a generous bound of log2(n) + P roundings of Σ|x|.
    const double bound = (std::log2(double(n)) + P + 2) * 0x1p-24 * mag;
    for (std::size_t i = 0; i < first.size(); ++i) {
      EXPECT_NEAR(first[i], exact, bound);
      EXPECT_TRUE(cuprim_test::same_bytes(first[i], first[0])) << "every rank gets the same bits";
      EXPECT_TRUE(cuprim_test::same_bytes(first[i], second[i])) << "the same bits on every run";
    }
  }
}

TEST_P(MultiReduce, HalfSumsAccumulateInFloat) {
  const int P = GetParam();
  MULTI_RANKS(P);
  cuprim_test::rng g(cuprim_test::test_seed());
  const std::int64_t n = 300001;
  const layout l{"even", multi::even_split(n, P)};
  std::vector<__half> v(static_cast<std::size_t>(n));
  double exact = 0;
  for (auto& x : v) x = __float2half_rn(float(g.uniform())), exact += __half2float(x);
  sharded_input<__half> in(comm, l, v);
  multi::sharded_buffer<float> out(comm, 1);
  multi::sum(comm, in.dev.view(), out.view());
  for (float r : first_elements(comm, out)) EXPECT_NEAR(r, exact, 1e-5 * exact);
}

INSTANTIATE_TEST_SUITE_P(Ranks, MultiReduce, cuprim_test::multi::ranks_param, cuprim_test::multi::ranks_name);

TEST(MultiReduceArgs, RefusesShardCountsAndEmptyOutputs) {
  MULTI_RANKS(1);
  multi::sharded_buffer<float> in(comm, 10), out(comm, 1);
  multi::sharded<float> none;
  cuprim_test::expect_invalid_from([&] { multi::sum(comm, in.view(), none); }, "out", "cuprim::multi::");
  cuprim_test::expect_invalid_from([&] { multi::sum(comm, none, out.view()); }, "in", "cuprim::multi::");
  multi::sharded<float> empty_out{{out.data(0), 0}};
  cuprim_test::expect_invalid_from([&] { multi::sum(comm, in.view(), empty_out); }, "out", "cuprim::multi::");
  multi::sharded<float> null_in{{nullptr, 10}};
  cuprim_test::expect_invalid_from([&] { multi::sum(comm, null_in, out.view()); }, "in", "cuprim::multi::");
}

}  // namespace
