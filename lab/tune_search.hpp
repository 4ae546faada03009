// lab/tune_search.hpp: the tuner's search over a family's candidates (host code; no CUDA): a performance model
// orders the candidates, the best few by the model (and the model's best of every other kind) are timed, then the
// untimed neighbours of the fastest so far (local search in the recipe's axis space) until the fastest has no
// untimed neighbour or the budget is spent.
// `exhaustive` times every candidate (the reference the search is judged against).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

namespace lab::tune {

/// A candidate as the search sees it: its coordinates (an index into each axis of the recipe; points of another
/// kind, e.g. a kernel without the axes, have coordinates of another length) and the model's predicted time
/// (any unit; smaller is faster).
struct point {
  std::vector<int> coord;
  double model = 0;
};

/// Steps between two points along the axes; points of different kinds are `far` apart.
inline int distance(const point& a, const point& b, int far = 1000) {
  if (a.coord.size() != b.coord.size()) return far;
  int d = 0;
  for (std::size_t i = 0; i < a.coord.size(); ++i) d += std::abs(a.coord[i] - b.coord[i]);
  return d;
}

struct options {
  int first = 3;                 ///< candidates timed first, in the model's order
  int radius = 1;                ///< neighbours: points at most this many steps away ...
  /// ... widened up to this when the fastest has none left at `radius`; -1: the candidate set's own spacing, the
  /// largest distance from a point to its nearest neighbour of the same kind (a compiled set is sparse in the
  /// recipe's axes: every point must be some point's neighbour, or local search could never reach it).
  int max_radius = -1;
  bool exhaustive = false;       ///< time every candidate
  double budget_s = std::numeric_limits<double>::infinity();  ///< no new candidate is timed after this
};

struct outcome {
  std::vector<double> time;      ///< per point: its measured time, NaN if not timed, +inf if it failed
  std::vector<int> order;        ///< the points in the order they were timed
  int best = -1;                 ///< the fastest timed point (-1: none passed)
  int runner_up = -1;            ///< the second fastest (-1: none)
  bool budget_spent = false;     ///< the budget stopped the search before it converged
};

/// Runs the search. `measure(i)` times point i (returns +inf, or NaN, when it fails its check); `progress(done, planned,
/// elapsed_s)` is called after each measurement (planned: the points timed so far plus those queued now).
inline outcome search(const std::vector<point>& pts, const options& o, const std::function<double(int)>& measure,
                      const std::function<void(int, int, double)>& progress = {}) {
  const int n = int(pts.size());
  outcome r;
  r.time.assign(std::size_t(n), std::numeric_limits<double>::quiet_NaN());
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  auto timed = [&](int i) { return !std::isnan(r.time[std::size_t(i)]); };
  auto fastest = [&] {
    int b = -1;
    for (int i = 0; i < n; ++i)
      if (timed(i) && std::isfinite(r.time[std::size_t(i)]) && (b < 0 || r.time[std::size_t(i)] < r.time[std::size_t(b)]))
        b = i;
    return b;
  };
  // Runs the queue; false when the budget stopped it.
  auto run = [&](std::vector<int> queue) {
    for (std::size_t q = 0; q < queue.size(); ++q) {
      if (elapsed() > o.budget_s) return false;
      const int i = queue[q];
      if (timed(i)) continue;
      const double t = measure(i);
      r.time[std::size_t(i)] = std::isnan(t) ? std::numeric_limits<double>::infinity() : t;  // NaN marks untimed
      r.order.push_back(i);
      if (progress) progress(int(r.order.size()), int(r.order.size() + queue.size() - q - 1), elapsed());
    }
    return true;
  };

  int max_radius = o.max_radius;
  if (max_radius < 0) {
    max_radius = o.radius;
    for (int i = 0; i < n; ++i) {
      int nearest = -1;
      for (int j = 0; j < n; ++j)
        if (j != i && pts[std::size_t(j)].coord.size() == pts[std::size_t(i)].coord.size()) {
          const int d = distance(pts[std::size_t(i)], pts[std::size_t(j)]);
          if (nearest < 0 || d < nearest) nearest = d;
        }
      max_radius = std::max(max_radius, nearest);
    }
  }
  std::vector<int> by_model(static_cast<std::size_t>(n));
  std::iota(by_model.begin(), by_model.end(), 0);
  std::stable_sort(by_model.begin(), by_model.end(),
                   [&](int a, int b) { return pts[std::size_t(a)].model < pts[std::size_t(b)].model; });
  if (o.exhaustive) {
    r.budget_spent = !run(by_model);
  } else {
    // The first round: the model's best few, and the model's best of every other kind of point (local search
    // never crosses kinds).
    std::vector<int> first(by_model.begin(), by_model.begin() + std::min(n, std::max(o.first, 1)));
    for (int i : by_model)
      if (std::none_of(first.begin(), first.end(),
                       [&](int f) { return pts[std::size_t(f)].coord.size() == pts[std::size_t(i)].coord.size(); }))
        first.push_back(i);
    bool ok = run(first);
    // Local search: the fastest point's untimed neighbours, widening the radius when it has none, until it
    // has none within max_radius. A point that fails its check never becomes the centre.
    while (ok) {
      const int b = fastest();
      if (b < 0) {  // every point timed so far failed: take the next in the model's order
        auto next = std::find_if(by_model.begin(), by_model.end(), [&](int i) { return !timed(i); });
        if (next == by_model.end()) break;
        ok = run({*next});
        continue;
      }
      std::vector<int> queue;
      for (int radius = o.radius; radius <= max_radius && queue.empty(); ++radius)
        for (int i : by_model)
          if (!timed(i) && distance(pts[std::size_t(b)], pts[std::size_t(i)]) <= radius) queue.push_back(i);
      if (queue.empty()) break;
      ok = run(queue);
    }
    r.budget_spent = !ok;
  }
  r.best = fastest();
  for (int i = 0; i < n; ++i)
    if (i != r.best && timed(i) && std::isfinite(r.time[std::size_t(i)]) &&
        (r.runner_up < 0 || r.time[std::size_t(i)] < r.time[std::size_t(r.runner_up)]))
      r.runner_up = i;
  return r;
}

}  // namespace lab::tune
