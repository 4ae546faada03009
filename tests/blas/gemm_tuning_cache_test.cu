// The tuned 16-bit gemm under a tuning cache (core/tuning.hpp): an entry for this GPU, the call's types and op pair
// and a shape bucket holding the call makes it run the entry's candidate (its row and split rule: the plan, the
// workspace gemm_workspace_bytes asks for, and the result, bitwise the candidate's own); calls outside the bucket, of
// another op pair or types, and entries naming no candidate take the chooser's plan. On exact inputs (small integers,
// sums exact in fp32) every plan gives the host reference's bits, so the cache's choice and the default agree; on
// random inputs the tuned call gives the candidate's bits and not the default's, and a workspace one slice short of
// the entry's plan is refused.
//
// The other tests compile the cache lookups out (tests/CMakeLists.txt); this executable turns them on before
// anything includes cuprim.
#undef CUPRIM_USE_TUNING_CACHE
#define CUPRIM_USE_TUNING_CACHE 1

#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/tuning.hpp>

#include "common/test_util.hpp"
#include "common/tuning_cache.hpp"

#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace cuprim_test {
namespace {

namespace bl = cuprim::blas;
using bf16 = __nv_bfloat16;

/// The bucket of the test's entries: m and n in [1000, 3000], k in [2000, 6000].
constexpr std::int64_t lo_mn = 1000, hi_mn = 3000, lo_k = 2000, hi_k = 6000;

class GemmTuningCache : public tuning_cache_test {
protected:
  void SetUp() override {
    tuning_cache_test::SetUp();
    if (IsSkipped()) return;
    if (cuprim::get_device_info().arch() != 90) GTEST_SKIP() << "the tensor-core GEMM's candidates run on sm_90";
  }

  static cuprim::tuning::cache_entry entry_for(const bl::gemm_sm90_policy& p, const char* types = "bf16->float",
                                               const char* layout = "NN") {
    cuprim::tuning::cache_entry e;
    e.op = "gemm";
    e.types = types;
    e.layout = layout;
    e.alignment = 16;
    e.size_min = 0;
    e.size_max = std::numeric_limits<std::int64_t>::max();
    e.shape = {{lo_mn, hi_mn}, {lo_mn, hi_mn}, {lo_k, hi_k}};
    e.policy_name = bl::gemm_sm90_policy::name;
    e.policy = cuprim::tuning::flatten(p);
    e.time_ms = 1;
    return e;
  }
  void write(const std::vector<cuprim::tuning::cache_entry>& entries) {
    cuprim::tuning::cache_section s;
    s.key = cuprim::tuning::current_key();
    s.entries = entries;
    tuning_cache_test::write(s);
  }
  static int sms() { return cuprim::get_device_info().sm_count; }
};

/// The chooser's row for m x n x k on this device (its per-call rule is candidate (row, 0), or row 0's unsplit one).
int plan_default_row(std::int64_t m, std::int64_t n, std::int64_t k) {
  return bl::gemm_sm90_plan_for(90, m, n, k, false, false, cuprim::get_device_info().sm_count).row;
}

/// The candidate of row `row` under split rule `splits`.
int candidate_index(int row, int splits) {
  constexpr auto cands = bl::gemm_sm90_candidates(90);
  for (std::size_t i = 0; i < cands.size(); ++i)
    if (cands[i].row == row && cands[i].policy.splits == splits) return int(i);
  return -1;
}

TEST_F(GemmTuningCache, EntryChoosesItsCandidatesPlan) {
  constexpr auto cands = bl::gemm_sm90_candidates(90);
  const int c = candidate_index(3, 4);  // 64 x 64 tiles, k in 4 slices: no chooser picks it at these shapes
  ASSERT_GE(c, 0);
  write({entry_for(cands[std::size_t(c)].policy)});
  ASSERT_TRUE(cuprim::tuning::active());
  using cuprim::detail::gemm_sm90_cached_plan;
  const auto in = [&](std::int64_t m, std::int64_t n, std::int64_t k, bool ta = false, bool tb = false) {
    return gemm_sm90_cached_plan<bf16, float>(90, m, n, k, ta, tb, sms());
  };
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{lo_mn, lo_mn, lo_k}, {hi_mn, hi_mn, hi_k}, {2048, 1111, 4096}}) {
    const auto p = in(m, n, k);
    ASSERT_TRUE(p.has_value()) << m << " " << n << " " << k;
    EXPECT_EQ(p->row, 3);
    EXPECT_EQ(p->splits, 4);
  }
  EXPECT_FALSE(in(lo_mn - 1, 2048, 4096)) << "m below the bucket";
  EXPECT_FALSE(in(2048, hi_mn + 1, 4096)) << "n above the bucket";
  EXPECT_FALSE(in(2048, 2048, hi_k + 1)) << "k above the bucket";
  EXPECT_FALSE(in(2048, 2048, 4096, true, false)) << "another op pair";
  EXPECT_FALSE((gemm_sm90_cached_plan<bf16, bf16>(90, 2048, 2048, 4096, false, false, sms()))) << "bf16 C";
  EXPECT_FALSE((gemm_sm90_cached_plan<__half, float>(90, 2048, 2048, 4096, false, false, sms()))) << "fp16";
  // The workspace follows the entry: 4 slices of fp32 sums, where the chooser does not split.
  const std::int64_t m = 2048, n = 1536, k = 4096;
  EXPECT_EQ((bl::gemm_workspace_bytes<bf16, float>(bl::op::N, bl::op::N, m, n, k)),
            cuprim::detail::gemm_splitk_layout(m, n, 4).bytes());
  EXPECT_EQ((bl::gemm_workspace_bytes<bf16, float>(bl::op::T, bl::op::N, m, n, k)), 0u) << "another op pair";
}

TEST_F(GemmTuningCache, EntryNamingNoCandidateIsIgnored) {
  bl::gemm_sm90_policy p = bl::gemm_sm90_tile_row_for(90, 1).policy;
  p.stages = 2;  // a legal point that is no compiled candidate
  ASSERT_TRUE(bl::gemm_sm90_point_ok(p));
  write({entry_for(p)});
  EXPECT_FALSE((cuprim::detail::gemm_sm90_cached_plan<bf16, float>(90, 2048, 2048, 4096, false, false, sms())));
}

TEST_F(GemmTuningCache, DefaultEntryShadowsLaterOnesAndLeavesTheChooser) {
  constexpr auto cands = bl::gemm_sm90_candidates(90);
  cuprim::tuning::cache_entry d = entry_for(cands[1].policy);
  d.policy_name = "default";  // what the tuner writes where the chooser won
  d.policy.clear();
  write({d, entry_for(cands[5].policy)});
  EXPECT_FALSE((cuprim::detail::gemm_sm90_cached_plan<bf16, float>(90, 2048, 2048, 4096, false, false, sms())));
  EXPECT_EQ((bl::gemm_workspace_bytes<bf16, float>(bl::op::N, bl::op::N, 2048, 2048, 4096)), 0u);
}

TEST_F(GemmTuningCache, RowMajorLooksUpTheColumnMajorProduct) {
  const int c = candidate_index(3, 4);
  ASSERT_GE(c, 0);
  write({entry_for(bl::gemm_sm90_candidates(90)[std::size_t(c)].policy, "bf16->float", "TN")});
  // Row-major C = op(A) op(B) of m x n runs the column-major n x m product with the op pair swapped: a row-major NT
  // call is the column-major TN product.
  const std::int64_t m = 1200, n = 2900, k = 4096;
  EXPECT_EQ((bl::gemm_row_major_workspace_bytes<bf16, float>(bl::op::N, bl::op::T, m, n, k)),
            cuprim::detail::gemm_splitk_layout(n, m, 4).bytes());
  EXPECT_EQ((bl::gemm_row_major_workspace_bytes<bf16, float>(bl::op::T, bl::op::N, m, n, k)), 0u);
}

/// C = A B on exact inputs (values in {-2, ..., 2}: every product and sum is exact in fp32), through the tuned call,
/// the workspace overload and the candidate's own call, against the host's exact sums.
TEST_F(GemmTuningCache, TunedCallRunsTheCandidateAndMatchesTheReference) {
  constexpr auto cands = bl::gemm_sm90_candidates(90);
  const std::int64_t m = 1536, n = 1100, k = 4160;  // inside the bucket; n not a multiple of any tile
  const int c = candidate_index(2, 3);
  ASSERT_GE(c, 0);
  write({entry_for(cands[std::size_t(c)].policy)});
  const auto plan = cuprim::detail::gemm_sm90_cached_plan<bf16, float>(90, m, n, k, false, false, sms());
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->row, 2);
  EXPECT_EQ(plan->splits, 3);

  CUPRIM_TEST_RNG(r);
  std::vector<bf16> ha(std::size_t(m * k)), hb(std::size_t(k * n));
  std::vector<float> fa(ha.size()), fb(hb.size());
  for (std::size_t i = 0; i < ha.size(); ++i) fa[i] = float(std::int64_t(r.next() % 5) - 2), ha[i] = bf16(fa[i]);
  for (std::size_t i = 0; i < hb.size(); ++i) fb[i] = float(std::int64_t(r.next() % 5) - 2), hb[i] = bf16(fb[i]);
  cuprim::device_buffer<bf16> a(ha.size()), b(hb.size());
  cuprim::device_buffer<float> c1(std::size_t(m * n)), c2(std::size_t(m * n)), c3(std::size_t(m * n));
  upload(a.data(), ha);
  upload(b.data(), hb);
  poison(c1);
  poison(c2);
  poison(c3);
  bl::gemm(bl::op::N, bl::op::N, m, n, k, 1.f, a.data(), m, b.data(), k, 0.f, c1.data(), m);
  const std::size_t bytes = bl::gemm_workspace_bytes<bf16, float>(bl::op::N, bl::op::N, m, n, k);
  ASSERT_EQ(bytes, cuprim::detail::gemm_splitk_layout(m, n, 3).bytes());
  cuprim::device_buffer<unsigned char> ws(bytes);
  bl::gemm(bl::op::N, bl::op::N, m, n, k, 1.f, a.data(), m, b.data(), k, 0.f, c2.data(), m,
           cuprim::workspace{ws.data(), ws.size()});
  cuprim::detail::gemm_tensor_candidate<bf16, float>(c, bl::op::N, bl::op::N, m, n, k, 1.f, a.data(), m, b.data(), k,
                                                     0.f, c3.data(), m);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<float> g1 = download(c1.data(), c1.size()), g2 = download(c2.data(), c2.size()),
                           g3 = download(c3.data(), c3.size());
  for (std::size_t at = 0; at < g1.size(); ++at) {
    ASSERT_TRUE(same_bytes(g1[at], g2[at])) << "workspace overload, at " << at;
    ASSERT_TRUE(same_bytes(g1[at], g3[at])) << "the candidate's own call, at " << at;
  }
  // The host's exact sums on 4096 elements: the last row and column, and random ones.
  for (int t = 0; t < 4096; ++t) {
    const std::int64_t i = t < 64 ? m - 1 : std::int64_t(r.index(std::uint64_t(m)));
    const std::int64_t j = t >= 64 && t < 128 ? n - 1 : std::int64_t(r.index(std::uint64_t(n)));
    double s = 0;
    for (std::int64_t l = 0; l < k; ++l) s += double(fa[std::size_t(i + l * m)]) * double(fb[std::size_t(l + j * k)]);
    ASSERT_EQ(double(g1[std::size_t(i + j * m)]), s) << "i " << i << " j " << j << seed_message();
  }
  // A workspace one slice short of the entry's plan is refused: the call sizes what the cache names.
  EXPECT_THROW(bl::gemm(bl::op::N, bl::op::N, m, n, k, 1.f, a.data(), m, b.data(), k, 0.f, c2.data(), m,
                        cuprim::workspace{ws.data(), cuprim::detail::gemm_splitk_layout(m, n, 2).bytes()}),
               cuprim::invalid_argument);
  // On random inputs (sums rounded in fp32, in an order that depends on the plan) the tuned call gives the
  // candidate's bits, not the chooser's.
  {
    std::vector<bf16> ra(ha.size()), rb(hb.size());
    for (auto& x : ra) x = bf16(float(r.uniform(-1, 1)));
    for (auto& x : rb) x = bf16(float(r.uniform(-1, 1)));
    cuprim::device_buffer<bf16> a2(ra.size()), b2(rb.size());
    upload(a2.data(), ra);
    upload(b2.data(), rb);
    poison(c1);
    poison(c3);
    bl::gemm(bl::op::N, bl::op::N, m, n, k, 1.f, a2.data(), m, b2.data(), k, 0.f, c1.data(), m);
    cuprim::detail::gemm_tensor_candidate<bf16, float>(c, bl::op::N, bl::op::N, m, n, k, 1.f, a2.data(), m,
                                                       b2.data(), k, 0.f, c3.data(), m);
    const int row = plan_default_row(m, n, k);
    const int d = candidate_index(row, row == 0 ? 1 : 0);
    ASSERT_GE(d, 0);
    cuprim::device_buffer<float> c5(std::size_t(m * n));
    poison(c5);
    cuprim::detail::gemm_tensor_candidate<bf16, float>(d, bl::op::N, bl::op::N, m, n, k, 1.f, a2.data(), m,
                                                       b2.data(), k, 0.f, c5.data(), m);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<float> t1 = download(c1.data(), c1.size()), t3 = download(c3.data(), c3.size()),
                             t5 = download(c5.data(), c5.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < t1.size(); ++i) {
      ASSERT_TRUE(same_bytes(t1[i], t3[i])) << "the tuned call is not the candidate's, at " << i;
      differ += !same_bytes(t1[i], t5[i]);
    }
    EXPECT_GT(differ, 0u) << "the tuned call gave the chooser's bits: was the cache's plan run?";
  }
  // Without the cache (an empty CUPRIM_TUNING_CACHE turns it off, whatever the default path holds) the chooser's
  // plan runs: the same exact bits, and no workspace at this shape.
  setenv("CUPRIM_TUNING_CACHE", "", 1);
  cuprim::tuning::reset();
  EXPECT_FALSE(cuprim::tuning::active());
  const bl::gemm_sm90_plan def = bl::gemm_sm90_plan_for(90, m, n, k, false, false, sms());
  EXPECT_FALSE(def.row == 2 && def.splits == 3) << "the test needs a shape where the entry changes the plan";
  cuprim::device_buffer<float> c4(std::size_t(m * n));
  poison(c4);
  bl::gemm(bl::op::N, bl::op::N, m, n, k, 1.f, a.data(), m, b.data(), k, 0.f, c4.data(), m);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<float> g4 = download(c4.data(), c4.size());
  for (std::size_t i = 0; i < g4.size(); ++i) ASSERT_TRUE(same_bytes(g1[i], g4[i])) << "default, at " << i;
}

TEST_F(GemmTuningCache, CandidateIndexIsChecked) {
  EXPECT_THROW((cuprim::detail::gemm_tensor_candidate<bf16, float>(bl::gemm_sm90_candidate_count, bl::op::N,
                                                                   bl::op::N, 64, 64, 64, 1.f, nullptr, 64, nullptr,
                                                                   64, 0.f, nullptr, 64)),
               cuprim::invalid_argument);
  EXPECT_THROW((cuprim::detail::gemm_tensor_candidate<bf16, float>(-1, bl::op::N, bl::op::N, 64, 64, 64, 1.f, nullptr,
                                                                   64, nullptr, 64, 0.f, nullptr, 64)),
               cuprim::invalid_argument);
}

}  // namespace
}  // namespace cuprim_test
