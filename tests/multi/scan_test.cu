// cuprim::multi scans: every rank's output continues the ranks before it, for 1, 2 and 4 ranks.
#include <cuprim/multi/scan.cuh>

#include "common/expect_invalid.hpp"
#include "common/test_util.hpp"
#include "multi/multi_fixture.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using cuprim_test::multi::layout;
using cuprim_test::multi::poison;
using cuprim_test::multi::rank_layouts;
using cuprim_test::multi::sharded_input;
using cuprim_test::multi::shards_to_host;
namespace multi = cuprim::multi;

/// The larger of two ints, as a user op with no identity cuprim knows.
struct larger {
  __host__ __device__ int operator()(int a, int b) const { return a < b ? b : a; }
};

class MultiScan : public ::testing::TestWithParam<int> {};

/// The local ranks' outputs, concatenated in rank order into the global array's places.
template <class T>
std::vector<T> gathered(const multi::communicator& c, multi::sharded_buffer<T>& out, const layout& l) {
  std::vector<T> all(std::size_t(std::accumulate(l.sizes.begin(), l.sizes.end(), std::int64_t(0))));
  multi::copy_to_host<T>(c, multi::sharded<const T>(out.view()), l.sizes, all);
  return all;
}

TEST_P(MultiScan, IntegerScansAreExact) {
  const int P = GetParam();
  MULTI_RANKS(P);
  SCOPED_TRACE(cuprim_test::seed_message());
  cuprim_test::rng g(cuprim_test::test_seed());
  for (const std::int64_t n : {std::int64_t(0), std::int64_t(7), std::int64_t(1000003)}) {
    for (const layout& l : rank_layouts(n, P, g.next())) {
      SCOPED_TRACE(l.name + ", n = " + std::to_string(n));
      std::vector<int> v(static_cast<std::size_t>(n));
      for (auto& x : v) x = int(g.between(-1000, 1000));
      sharded_input<int> in(comm, l, v);
      multi::sharded_buffer<int> out = multi::sharded_buffer<int>::for_ranks(comm, l.sizes);
      std::vector<int> incl(v.size()), excl(v.size()), mx(v.size()), mx_excl(v.size());
      int s = 0, m = std::numeric_limits<int>::lowest(), e = 5, me = -7;
      for (std::size_t i = 0; i < v.size(); ++i) {
        excl[i] = e, mx_excl[i] = me;
        s += v[i], m = std::max(m, v[i]), e += v[i], me = std::max(me, v[i]);
        incl[i] = s, mx[i] = m;
      }
      poison(comm, out);
      multi::inclusive_sum(comm, in.dev.view(), out.view());
      EXPECT_EQ(gathered(comm, out, l), incl) << "inclusive_sum";
      poison(comm, out);
      multi::exclusive_scan(comm, in.dev.view(), out.view(), cuprim::plus{}, 5);
      EXPECT_EQ(gathered(comm, out, l), excl) << "exclusive_scan from 5";
      poison(comm, out);
      multi::inclusive_scan(comm, in.dev.view(), out.view(), larger{});
      EXPECT_EQ(gathered(comm, out, l), mx) << "inclusive max (a user op)";
      poison(comm, out);
      multi::exclusive_scan(comm, in.dev.view(), out.view(), larger{}, -7);
      EXPECT_EQ(gathered(comm, out, l), mx_excl) << "exclusive max from -7 (a user op)";
      // In place.
      multi::inclusive_sum(comm, in.dev.view(), in.dev.view());
      EXPECT_EQ(gathered(comm, in.dev, l), incl) << "inclusive_sum in place";
    }
  }
}

TEST_P(MultiScan, FloatScanIsWithinTheBoundAndTheSameEveryRun) {
  const int P = GetParam();
  MULTI_RANKS(P);
  SCOPED_TRACE(cuprim_test::seed_message());
  cuprim_test::rng g(cuprim_test::test_seed());
  const std::int64_t n = (std::int64_t(1) << 21) + 999;
  for (const layout& l : rank_layouts(n, P, g.next())) {
    SCOPED_TRACE(l.name);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = float(g.uniform());
    sharded_input<float> in(comm, l, v);
    multi::sharded_buffer<float> out = multi::sharded_buffer<float>::for_ranks(comm, l.sizes);
    poison(comm, out);
    multi::exclusive_sum(comm, in.dev.view(), out.view());
    const auto first = gathered(comm, out, l);
    poison(comm, out);
    multi::exclusive_sum(comm, in.dev.view(), out.view());
    const auto second = gathered(comm, out, l);
    double s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      // Positive data: the scan adds its tiles' prefixes in sequence (one rounding per tile of at least 1024
      // elements), plus a tree within the tile and P - 1 ranks: bounded by (i / 1024 + log2(i) + P + 8) roundings.
      const double bound = (double(i) / 1024 + std::log2(double(i) + 2) + P + 8) * 0x1p-24 * s + 1e-6;
      if (std::fabs(first[i] - s) > bound) {
        ADD_FAILURE() << "element " << i << ": " << first[i] << ", expected " << s;
        break;
      }
      if (!cuprim_test::same_bytes(first[i], second[i])) {
        ADD_FAILURE() << "element " << i << " differs between two runs";
        break;
      }
      s += v[i];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, MultiScan, cuprim_test::multi::ranks_param, cuprim_test::multi::ranks_name);

TEST(MultiScanArgs, RefusesMismatchedShards) {
  MULTI_RANKS(1);
  multi::sharded_buffer<int> in(comm, 10), shorter(comm, 9);
  multi::sharded<int> none;
  cuprim_test::expect_invalid([&] { multi::inclusive_sum(comm, in.view(), none); }, "out",
                              "cuprim::multi::inclusive_sum");
  cuprim_test::expect_invalid([&] { multi::exclusive_sum(comm, in.view(), shorter.view()); }, "out",
                              "cuprim::multi::exclusive_sum");
  cuprim_test::expect_invalid([&] { multi::inclusive_scan(comm, none, in.view(), cuprim::plus{}); }, "in",
                              "cuprim::multi::inclusive_scan");
}

}  // namespace
