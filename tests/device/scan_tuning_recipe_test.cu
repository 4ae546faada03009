// The scan's recipe (device/detail/scan_tuning.cuh) on the host: the resource model and the rules prune the
// illegal points of the tuning space, every compiled candidate is legal, the candidates are distinct, the model
// orders shapes the way the sweeps measured them, and the flattened fields name each candidate uniquely.
#include <cuprim/core/tuning.hpp>
#include <cuprim/device/detail/scan_tuning.cuh>

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace {

using cuprim::lookback_pipeline_policy;

constexpr lookback_pipeline_policy shape(int w, int k, int s) {
  return {.scan_warps = w, .lane_vectors = k, .stages = s};
}

TEST(ScanRecipe, ResourcesOfTheDefault) {
  // 8 warps x 9 vectors x 3 stages: 3 x 8 x 32 x 9 x 16 B = 108 KiB; 352 threads; two blocks per SM.
  constexpr auto r = cuprim::pipeline_resources_of(shape(8, 9, 3));
  static_assert(r.smem == 110592 && r.threads == 352 && r.blocks_per_sm == 2);
  EXPECT_EQ(r.blocks_per_sm, 2);
}

TEST(ScanRecipe, PrunesIllegalPoints) {
  EXPECT_TRUE(cuprim::pipeline_point_ok(shape(8, 9, 3)));
  EXPECT_FALSE(cuprim::pipeline_point_ok(shape(8, 8, 3))) << "even lane_vectors (bank conflicts)";
  EXPECT_FALSE(cuprim::pipeline_point_ok(shape(8, 17, 2))) << "lane_vectors above 15";
  EXPECT_FALSE(cuprim::pipeline_point_ok(shape(8, 9, 1))) << "one stage";
  EXPECT_FALSE(cuprim::pipeline_point_ok(shape(30, 5, 2))) << "more than 29 scan warps (1024 threads)";
  EXPECT_FALSE(cuprim::pipeline_point_ok(shape(16, 13, 6))) << "shared memory above 227 KiB";
  EXPECT_TRUE(cuprim::pipeline_point_ok(shape(16, 13, 2)));
  lookback_pipeline_policy wide = shape(8, 9, 3);
  wide.lookback_tiles_per_lane = 9;
  EXPECT_FALSE(cuprim::pipeline_point_ok(wide));
  // A smaller device budget prunes more.
  cuprim::sm_budget small;
  small.smem_per_block = 100 * 1024;
  small.smem_per_sm = 100 * 1024;
  EXPECT_FALSE(cuprim::pipeline_point_ok(shape(8, 9, 3), small));

  // The whole recipe: every point the rules keep fits; count what is pruned.
  int kept = 0, pruned = 0;
  for (int w : cuprim::scan_recipe::scan_warps)
    for (int k : cuprim::scan_recipe::lane_vectors)
      for (int s : cuprim::scan_recipe::stages) {
        const auto p = shape(w, k, s);
        const auto r = cuprim::pipeline_resources_of(p);
        const bool fits = r.smem <= 232448 && r.blocks_per_sm >= 1;
        EXPECT_EQ(cuprim::pipeline_point_ok(p), fits) << w << "w" << k << "v" << s << "s";
        (fits ? kept : pruned) += 1;
      }
  EXPECT_GT(kept, 0);
  EXPECT_GT(pruned, 0) << "the recipe's corners exceed the shared memory";
}

template <class T>
void candidates_are_legal_and_distinct() {
  constexpr auto cands = cuprim::scan_candidates<T>();
  std::set<cuprim::tuning::policy_fields> seen;
  int never = 0;
  for (const auto& p : cands) {
    if (p.pipeline.min_elems == std::numeric_limits<long long>::max()) ++never;
    else EXPECT_TRUE(cuprim::pipeline_point_ok(p.pipeline));
    EXPECT_TRUE(seen.insert(cuprim::tuning::flatten(p)).second) << cuprim::to_json(p);
    EXPECT_TRUE(p.small_max == 0 || p.small_max < p.pipeline.min_elems);
    EXPECT_EQ(p.classic, cuprim::scan_policy_for<T>(90).classic) << "candidates share the row's tiles";
  }
  EXPECT_EQ(never, 1) << "one candidate without the pipeline";
  // The row's pipeline shape is a candidate.
  const auto row = cuprim::scan_policy_for<T>(90).pipeline;
  bool has_row = false;
  for (const auto& p : cands)
    has_row |= p.pipeline.scan_warps == row.scan_warps && p.pipeline.lane_vectors == row.lane_vectors &&
               p.pipeline.stages == row.stages && p.pipeline.first_wait_ns == row.first_wait_ns;
  EXPECT_TRUE(has_row);
}

TEST(ScanRecipe, CandidatesAreLegalAndDistinct) {
  candidates_are_legal_and_distinct<float>();
  candidates_are_legal_and_distinct<std::uint32_t>();
  candidates_are_legal_and_distinct<double>();
  static_assert(cuprim::scan_has_candidates<float, float> && cuprim::scan_has_candidates<std::int64_t, std::int64_t>);
  static_assert(!cuprim::scan_has_candidates<std::int8_t, std::int8_t> && !cuprim::scan_has_candidates<float, double>);
}

TEST(ScanRecipe, ModelPenalisesStarvedAndTailHeavyShapes) {
  const int sms = 132;
  // Too few bytes in flight: 4 warps x 5 vectors x 2 stages.
  EXPECT_GT(cuprim::pipeline_model(shape(4, 5, 2), 1ll << 28, 4, sms), cuprim::pipeline_model(shape(8, 9, 3), 1ll << 28, 4, sms));
  // At a small size the tail of large tiles costs more than at a large one.
  const auto big = shape(8, 13, 2);
  EXPECT_GT(cuprim::pipeline_model(big, 1ll << 20, 4, sms), cuprim::pipeline_model(big, 1ll << 28, 4, sms));
  // Illegal points are never preferred.
  EXPECT_GT(cuprim::pipeline_model(shape(16, 13, 6), 1ll << 28, 4, sms), 1e20);
}

TEST(ScanRecipe, TypeNames) {
  EXPECT_STREQ(cuprim::tuning::type_name<float>(), "float");
  EXPECT_STREQ(cuprim::tuning::type_name<std::uint32_t>(), "uint32");
  EXPECT_STREQ(cuprim::tuning::type_name<std::int64_t>(), "int64");
  EXPECT_STREQ(cuprim::tuning::type_name<double>(), "double");
  EXPECT_EQ(cuprim::tuning::alignment_of(reinterpret_cast<const void*>(256), reinterpret_cast<const void*>(512)), 16);
  EXPECT_EQ(cuprim::tuning::alignment_of(reinterpret_cast<const void*>(260), reinterpret_cast<const void*>(512)), 4);
  EXPECT_EQ(cuprim::tuning::alignment_of(reinterpret_cast<const void*>(264), reinterpret_cast<const void*>(1)), 1);
}

}  // namespace
