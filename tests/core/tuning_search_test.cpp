// The tuner's search (lab/tune_search.hpp) on synthetic spaces: it finds a planted best candidate with fewer
// measurements than the exhaustive search, also when the model misleads it, never crowns a candidate that failed
// its check, crosses to points of another kind, and stops when the budget is spent.
#include "tune_search.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace {

using lab::tune::point;

/// A 6 x 5 x 5 x 3 grid (the scan recipe's shape) with its coordinates.
std::vector<point> grid() {
  std::vector<point> pts;
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 5; ++b)
      for (int c = 0; c < 5; ++c)
        for (int d = 0; d < 3; ++d) pts.push_back({{a, b, c, d}, 0});
  return pts;
}

/// A bowl with its minimum at `at` plus a deterministic ripple smaller than one step of the bowl.
double bowl(const point& p, const std::vector<int>& at) {
  double t = 1.0;
  for (std::size_t i = 0; i < at.size(); ++i) t += 0.05 * std::abs(p.coord[i] - at[i]);
  const int h = (p.coord[0] * 7 + p.coord[1] * 13 + p.coord[2] * 29 + p.coord[3] * 31) % 5;
  return t + 0.001 * h;
}

int index_of(const std::vector<point>& pts, const std::vector<int>& c) {
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (pts[i].coord == c) return int(i);
  return -1;
}

TEST(TuneSearch, FindsThePlantedBestWithAGoodModel) {
  auto pts = grid();
  const std::vector<int> best{3, 2, 1, 2};
  for (auto& p : pts) p.model = bowl(p, {3, 2, 2, 2});  // close to, not at, the best
  int calls = 0;
  const auto r = lab::tune::search(pts, {}, [&](int i) {
    ++calls;
    return bowl(pts[std::size_t(i)], best);
  });
  EXPECT_EQ(r.best, index_of(pts, best));
  EXPECT_EQ(calls, int(r.order.size()));
  EXPECT_LT(calls, int(pts.size()) / 3) << "the local search should not approach the exhaustive count";
  EXPECT_NE(r.runner_up, r.best);
  EXPECT_GE(r.runner_up, 0);
  EXPECT_FALSE(r.budget_spent);
}

TEST(TuneSearch, FindsThePlantedBestWhenTheModelPointsAway) {
  auto pts = grid();
  const std::vector<int> best{0, 4, 0, 0};
  for (auto& p : pts) p.model = -bowl(p, best);  // the model ranks the best point last
  const auto r = lab::tune::search(pts, {}, [&](int i) { return bowl(pts[std::size_t(i)], best); });
  EXPECT_EQ(r.best, index_of(pts, best));
}

TEST(TuneSearch, ExhaustiveTimesEveryPointOnce) {
  auto pts = grid();
  std::vector<int> seen(pts.size(), 0);
  lab::tune::options o;
  o.exhaustive = true;
  const auto r = lab::tune::search(pts, o, [&](int i) {
    ++seen[std::size_t(i)];
    return bowl(pts[std::size_t(i)], {5, 0, 4, 1});
  });
  for (int s : seen) EXPECT_EQ(s, 1);
  EXPECT_EQ(r.best, index_of(pts, {5, 0, 4, 1}));
}

TEST(TuneSearch, FailedCandidatesNeverWin) {
  auto pts = grid();
  const std::vector<int> best{2, 2, 2, 1};
  for (auto& p : pts) p.model = bowl(p, best);
  const int planted = index_of(pts, best);
  // The fastest point fails its check: the search must settle on a passing neighbour.
  const auto r = lab::tune::search(pts, {}, [&](int i) {
    return i == planted ? std::numeric_limits<double>::infinity() : bowl(pts[std::size_t(i)], best);
  });
  ASSERT_GE(r.best, 0);
  EXPECT_NE(r.best, planted);
  EXPECT_TRUE(std::isinf(r.time[std::size_t(planted)]));
  EXPECT_EQ(lab::tune::distance(pts[std::size_t(r.best)], pts[std::size_t(planted)]), 1);
}

TEST(TuneSearch, PointsOfAnotherKindAreTimed) {
  auto pts = grid();
  for (auto& p : pts) p.model = bowl(p, {1, 1, 1, 1});
  pts.push_back({{}, 100.0});  // another kind (no axes), ranked last by the model, actually the fastest
  const int other = int(pts.size()) - 1;
  const auto r = lab::tune::search(pts, {}, [&](int i) { return i == other ? 0.5 : bowl(pts[std::size_t(i)], {1, 1, 1, 1}); });
  EXPECT_EQ(r.best, other);
}

TEST(TuneSearch, EveryPointOfASparseSetIsReachable) {
  // The scan's compiled candidates in scan_recipe's axes (warps, vectors, stages, back-off) and the one kernel of
  // another kind: with the best planted at each in turn and a model that ranks it last, the search finds it.
  std::vector<point> pts = {{{2, 2, 1, 2}, 0}, {{2, 2, 1, 1}, 0}, {{2, 2, 3, 1}, 0}, {{2, 1, 4, 0}, 0},
                            {{3, 1, 1, 2}, 0}, {{2, 4, 0, 2}, 0}, {{4, 2, 0, 2}, 0}, {{1, 1, 1, 2}, 0},
                            {{}, 0}};
  for (int planted = 0; planted < int(pts.size()); ++planted) {
    auto cost = [&](int i) {
      return 1.0 + 0.01 * lab::tune::distance(pts[std::size_t(i)], pts[std::size_t(planted)], 20);
    };
    for (int i = 0; i < int(pts.size()); ++i) pts[std::size_t(i)].model = -cost(i);
    const auto r = lab::tune::search(pts, {}, cost);
    EXPECT_EQ(r.best, planted) << "timed " << r.order.size() << " of " << pts.size();
  }
}

TEST(TuneSearch, NanCountsAsAFailureNotAsUntimed) {
  auto pts = grid();
  for (auto& p : pts) p.model = bowl(p, {1, 1, 1, 1});
  const int failing = index_of(pts, {1, 1, 1, 2});  // a neighbour of the best: certainly timed
  int calls = 0, failing_calls = 0;
  const auto r = lab::tune::search(pts, {}, [&](int i) {
    ++calls;
    if (i != failing) return bowl(pts[std::size_t(i)], {1, 1, 1, 1});
    ++failing_calls;
    return std::numeric_limits<double>::quiet_NaN();
  });
  EXPECT_EQ(failing_calls, 1);
  EXPECT_LE(calls, int(pts.size())) << "a NaN point was timed again";
  EXPECT_TRUE(std::isinf(r.time[std::size_t(failing)]));
  EXPECT_EQ(r.best, index_of(pts, {1, 1, 1, 1}));
}

TEST(TuneSearch, BudgetStopsTheSearch) {
  auto pts = grid();
  lab::tune::options o;
  o.exhaustive = true;
  o.budget_s = 0;  // spent before the first measurement
  int calls = 0;
  const auto r = lab::tune::search(pts, o, [&](int) {
    ++calls;
    return 1.0;
  });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(r.best, -1);
  EXPECT_TRUE(r.budget_spent);
}

TEST(TuneSearch, ProgressCountsUp) {
  auto pts = grid();
  for (auto& p : pts) p.model = bowl(p, {0, 0, 0, 0});
  std::vector<int> done;
  lab::tune::search(
      pts, {}, [&](int i) { return bowl(pts[std::size_t(i)], {0, 0, 0, 0}); },
      [&](int d, int planned, double) {
        EXPECT_LE(d, planned);
        done.push_back(d);
      });
  for (std::size_t i = 0; i < done.size(); ++i) EXPECT_EQ(done[i], int(i) + 1);
}

}  // namespace
