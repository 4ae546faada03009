// The 16-bit GEMM's recipe and candidates (blas/detail/gemm_tuning.cuh), host only: gemm_sm90_point_ok rejects the
// points gemm_sm90_policy_valid would refuse to compile and takes the others; the compiled candidates are legal,
// distinct by their fields (what a tuning cache entry names them by), cover every tile row, and their plans (a rule
// applied to a shape) are what the library runs; the chooser's score picks the chooser's row.
#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/tuning.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace {

namespace bl = cuprim::blas;

/// Each rule of gemm_sm90_policy_valid, checked independently of gemm_sm90_point_ok's code.
bool legal_by_rules(const bl::gemm_sm90_policy& p) {
  const bool smem = (p.stages * (p.tile_m + 64 * p.consumers) * 128 +
                     (p.staged_store ? p.consumers * 64 * p.tile_m * 2 : 0) + 1024 + 16 * p.stages) <= 227 * 1024;
  return p.stages >= 2 && p.stages <= 8 && p.group >= 1 && (p.cluster == 1 || p.cluster == 2) &&
         (p.tile_m == 64 || p.tile_m == 128 || p.tile_m == 256) && (p.consumers == 1 || p.consumers == 2) &&
         p.splits >= 0 && (p.splits == 1 || p.cluster == 1) && p.tile_m / p.cluster >= 8 && smem;
}

TEST(BlasGemmRecipe, PruningMatchesTheRulesOverTheWholeSpace) {
  int legal = 0, total = 0;
  for (int tm : bl::gemm_sm90_recipe::tile_m)
    for (int c : bl::gemm_sm90_recipe::consumers)
      for (int st : bl::gemm_sm90_recipe::stages)
        for (int cl : bl::gemm_sm90_recipe::cluster)
          for (int sp : bl::gemm_sm90_recipe::splits)
            for (bool staged : {false, true}) {
              const bl::gemm_sm90_policy p{.stages = st, .group = 8, .cluster = cl, .staged_store = staged,
                                           .tile_m = tm, .consumers = c, .splits = sp};
              ++total;
              legal += bl::gemm_sm90_point_ok(p);
              EXPECT_EQ(bl::gemm_sm90_point_ok(p), legal_by_rules(p))
                  << "tile_m " << tm << " consumers " << c << " stages " << st << " cluster " << cl << " splits "
                  << sp << " staged " << staged;
            }
  // The pruning removes points (the budget and the split/cluster rule bite) and keeps most of them.
  EXPECT_GT(legal, total / 4);
  EXPECT_LT(legal, total);
}

TEST(BlasGemmRecipe, RejectsEachIllegalPoint) {
  const bl::gemm_sm90_policy ok{.stages = 4, .group = 8, .cluster = 1, .staged_store = false, .tile_m = 128,
                                .consumers = 2, .splits = 1};
  ASSERT_TRUE(bl::gemm_sm90_point_ok(ok));
  auto with = [&](auto f) {
    bl::gemm_sm90_policy p = ok;
    f(p);
    return bl::gemm_sm90_point_ok(p);
  };
  EXPECT_FALSE(with([](auto& p) { p.stages = 1; }));
  EXPECT_FALSE(with([](auto& p) { p.stages = 9; }));
  EXPECT_FALSE(with([](auto& p) { p.group = 0; }));
  EXPECT_FALSE(with([](auto& p) { p.cluster = 4; }));
  EXPECT_FALSE(with([](auto& p) { p.tile_m = 96; }));
  EXPECT_FALSE(with([](auto& p) { p.consumers = 3; }));
  EXPECT_FALSE(with([](auto& p) { p.splits = -1; }));
  EXPECT_FALSE(with([](auto& p) { p.cluster = 2, p.splits = 0; }));  // split k takes cluster 1
  EXPECT_FALSE(with([](auto& p) { p.cluster = 2, p.splits = 4; }));
  EXPECT_TRUE(with([](auto& p) { p.cluster = 2; }));
  // Shared memory: 256 x 128 tiles take 48 KiB a stage: 4 fit 227 KiB, 5 do not; the staged epilogue takes 64 KiB.
  EXPECT_TRUE(with([](auto& p) { p.tile_m = 256, p.stages = 4; }));
  EXPECT_FALSE(with([](auto& p) { p.tile_m = 256, p.stages = 5; }));
  EXPECT_TRUE(with([](auto& p) { p.tile_m = 256, p.stages = 3, p.staged_store = true; }));
  EXPECT_FALSE(with([](auto& p) { p.tile_m = 256, p.stages = 4, p.staged_store = true; }));
}

TEST(BlasGemmRecipe, CandidatesAreLegalDistinctAndCoverEveryRow) {
  constexpr auto cands = bl::gemm_sm90_candidates(90);
  static_assert(cands.size() == bl::gemm_sm90_candidate_count);
  std::set<std::string> seen;
  std::set<int> rows;
  for (const auto& c : cands) {
    EXPECT_TRUE(bl::gemm_sm90_point_ok(c.policy)) << cuprim::to_json(c.policy);
    EXPECT_TRUE(seen.insert(cuprim::to_json(c.policy)).second) << "twice: " << cuprim::to_json(c.policy);
    ASSERT_GE(c.row, 0);
    ASSERT_LT(c.row, bl::gemm_sm90_tile_rows);
    rows.insert(c.row);
    // The candidate is its row's configuration; only the split rule differs, and row 0 (built without split k) has
    // none.
    bl::gemm_sm90_policy row = bl::gemm_sm90_tile_row_for(90, c.row).policy;
    row.splits = c.policy.splits;
    EXPECT_EQ(row, c.policy);
    if (c.row == 0) EXPECT_EQ(c.policy.splits, 1);
  }
  EXPECT_EQ(int(rows.size()), bl::gemm_sm90_tile_rows);
  // Every row's per-call rule and the unsplit rule are among them (the chooser's plans are candidates' plans).
  for (int r = 1; r < bl::gemm_sm90_tile_rows; ++r)
    for (int s : {0, 1})
      EXPECT_TRUE(std::any_of(cands.begin(), cands.end(),
                              [&](const auto& c) { return c.row == r && c.policy.splits == s; }))
          << "row " << r << " splits " << s;
}

TEST(BlasGemmRecipe, CandidatePlansApplyTheirRule) {
  constexpr auto cands = bl::gemm_sm90_candidates(90);
  for (const auto& c : cands) {
    // 16 x 4096 x 16384 (256 steps of 64) on 132 SMs: the per-call rule splits, a forced count is taken as given.
    const bl::gemm_sm90_plan p = cuprim::detail::gemm_sm90_candidate_plan(c, 16, 4096, 16384, 132);
    EXPECT_EQ(p.row, c.row);
    if (c.policy.splits >= 1) EXPECT_EQ(p.splits, c.policy.splits) << cuprim::to_json(c.policy);
    else EXPECT_GT(p.splits, 1) << cuprim::to_json(c.policy);
    // k = 128 (2 steps): no more slices than steps.
    const bl::gemm_sm90_plan q = cuprim::detail::gemm_sm90_candidate_plan(c, 4096, 4096, 128, 132);
    EXPECT_LE(q.splits, 2);
    EXPECT_GE(q.splits, 1);
  }
}

TEST(BlasGemmRecipe, ChooserTakesTheBestScore) {
  for (std::int64_t m : {16, 300, 1024, 4096, 12000})
    for (std::int64_t n : {64, 1000, 8192})
      for (std::int64_t k : {256, 5000, 16384}) {
        const bl::gemm_sm90_plan p = bl::gemm_sm90_plan_for(90, m, n, k, false, false, 132);
        double best = -1;
        for (int r = 0; r < bl::gemm_sm90_tile_rows; ++r) {
          const auto row = bl::gemm_sm90_tile_row_for(90, r);
          best = std::max(best, bl::gemm_sm90_score(row.speed, row.policy, m, n, k, 132));
        }
        const auto chosen = bl::gemm_sm90_tile_row_for(90, p.row);
        int s = 0;
        EXPECT_NEAR(bl::gemm_sm90_score(chosen.speed, chosen.policy, m, n, k, 132, &s), best, 1e-9);
        EXPECT_EQ(s, p.splits);
      }
}

TEST(BlasGemmRecipe, CacheTypeNames) {
  EXPECT_STREQ((cuprim::detail::gemm_tensor_types_name<__nv_bfloat16, __nv_bfloat16>()), "bf16");
  EXPECT_STREQ((cuprim::detail::gemm_tensor_types_name<__nv_bfloat16, float>()), "bf16->float");
  EXPECT_STREQ((cuprim::detail::gemm_tensor_types_name<__half, __half>()), "fp16");
  EXPECT_STREQ((cuprim::detail::gemm_tensor_types_name<__half, float>()), "fp16->float");
}

}  // namespace
