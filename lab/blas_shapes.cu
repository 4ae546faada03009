// cuprim-lab rows for the 16-bit GEMM's shape coverage (issue 28): the shape sweep blas/shapes/bf16/NN/<m>x<n>x<k>
// (squares 256 .. 16384, skinny m = 16 .. 256 by n, k = 4096 .. 16384, odd sizes 8191, 5000, 3000) of the tuned call
// against cublasGemmEx, with a summary of each shape's ratio, their geometric mean and the minimum; and the sweep rows
// blas/sweep/shape-<tile>[-k<S>|-kauto]/bf16/NN/<m>x<n>x<k> that force one tile configuration and split over the
// small and skinny shapes.
//
//   cuprim-lab run blas/shapes
//   cuprim-lab sweep blas 'blas/sweep/shape-*'
#include "blas_common.cuh"
#include "lab.hpp"

#include <cuprim/blas/gemm.cuh>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace lab {
namespace {

using blas_family::add_gemm_tensor_case;

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// The shape sweep (issue 28): blas/shapes/bf16/NN/<m>x<n>x<k>, bf16 in and out, alpha 1, beta 0, the tuned call
// (the chooser's tile and split) against cublasGemmEx in the same run; the summary after the table prints each
// shape's ms, cuBLAS's, the ratio, their geometric mean and the minimum. The forced-configuration sweep
// (cuprim-lab sweep blas 'blas/sweep/shape-*') runs the skinny and small shapes under each tile and split.

struct gemm_shape {
  std::int64_t m, n, k;
};
std::string shape_label(const gemm_shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}
std::vector<gemm_shape> sweep_shapes() {
  std::vector<gemm_shape> out;
  for (std::int64_t s : {256, 512, 1024, 2048, 4096, 8192, 16384}) out.push_back({s, s, s});
  for (std::int64_t m : {16, 64, 128, 256})
    for (std::int64_t n : {4096, 8192, 16384})
      for (std::int64_t k : {4096, 8192, 16384}) out.push_back({m, n, k});
  for (std::int64_t s : {8191, 5000, 3000}) out.push_back({s, s, s});
  return out;
}
/// The forced-configuration sweep's shapes: the small squares and the skinny products at k = 8192.
std::vector<gemm_shape> forced_shapes() {
  std::vector<gemm_shape> out;
  for (std::int64_t s : {256, 512, 1024, 2048}) out.push_back({s, s, s});
  for (std::int64_t m : {16, 64, 128, 256})
    for (std::int64_t n : {4096, 16384}) out.push_back({m, n, 8192});
  return out;
}
constexpr const char* shapes_prefix = "blas/shapes/";

template <auto Policy>
void add_forced_shapes(const char* label) {
  for (const gemm_shape& s : forced_shapes())
    add_gemm_tensor_case<__nv_bfloat16, Policy>(std::string("blas/sweep/") + label + "/bf16/NN/" + shape_label(s),
                                                "gemm " + shape_label(s), s.m, s.n, s.k, false, false, label);
}

/// Per shape: cuprim ms, cuBLAS ms, the ratio (cuBLAS time over cuprim's), then the geometric mean and the minimum of
/// the ratios; the same per label for the forced-configuration sweep's rows.
std::vector<std::string> shape_summary(const std::vector<result>& results, const std::string& prefix,
                                       const char* title) {
  std::vector<std::string> out;
  std::map<std::string, std::vector<const result*>> groups;  // by variant (the sweep's label; the tuned rows: one)
  std::vector<std::string> order;
  for (const auto& r : results)
    if (r.c && r.c->name.rfind(prefix, 0) == 0) {
      if (!groups.count(r.c->variant)) order.push_back(r.c->variant);
      groups[r.c->variant].push_back(&r);
    }
  if (groups.empty()) return out;
  out.push_back(title);
  for (const std::string& label : order) {
    out.push_back("  " + label);
    char line[400];
    std::snprintf(line, sizeof line, "    %-20s %11s %11s %8s  %s", "m x n x k", "cuprim ms", "cuBLAS ms", "ratio",
                  "policy");
    out.push_back(line);
    double log_sum = 0, lowest = 0;
    int count = 0, failed = 0;
    std::string lowest_name;
    for (const result* r : groups[label]) {
      const bool timed = r->timed && r->baseline_ms && r->median_ms > 0;
      const double ratio = timed ? *r->baseline_ms / r->median_ms : 0;
      const std::string shape = r->c->name.substr(r->c->name.rfind('/') + 1);
      std::snprintf(line, sizeof line, "    %-20s %11s %11s %8s  %s%s", shape.c_str(),
                    timed ? fmt("%.4f", r->median_ms).c_str() : "-", timed ? fmt("%.4f", *r->baseline_ms).c_str() : "-",
                    timed ? fmt("%.3f", ratio).c_str() : "-", r->policy.text.c_str(), r->correct ? "" : "  FAIL");
      out.push_back(line);
      failed += !r->correct;
      if (!timed) continue;
      log_sum += std::log(ratio);
      ++count;
      if (count == 1 || ratio < lowest) {
        lowest = ratio;
        lowest_name = shape;
      }
    }
    if (count > 0)
      out.push_back("    geometric mean " + fmt("%.3f", std::exp(log_sum / count)) + "x cuBLAS over " +
                    std::to_string(count) + " shapes; minimum " + fmt("%.3f", lowest) + "x (" + lowest_name + ")" +
                    (failed ? "; " + std::to_string(failed) + " FAILED verification" : ""));
  }
  return out;
}

}  // namespace

void register_blas_shapes() {
  for (const gemm_shape& s : sweep_shapes())
    add_gemm_tensor_case<__nv_bfloat16>(shapes_prefix + std::string("bf16/NN/") + shape_label(s),
                                        "gemm " + shape_label(s), s.m, s.n, s.k, false, false, nullptr);
  add_summary(shapes_prefix, [](const std::vector<result>& r) {
    return shape_summary(r, shapes_prefix, "shape sweep (bf16 in and out, NN, alpha 1, beta 0; ratio: cuBLAS ms / "
                                           "cuprim ms, cublasGemmEx interleaved in the same run)");
  });
  using cuprim::blas::gemm_sm90_policy;
  constexpr gemm_sm90_policy t256{.stages = 3, .group = 8, .cluster = 1, .staged_store = true};
  constexpr gemm_sm90_policy t256s2{.stages = 3, .group = 8, .cluster = 1, .staged_store = true, .splits = 2};
  constexpr gemm_sm90_policy t128{.stages = 4, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 128};
  constexpr gemm_sm90_policy t128sc{.stages = 4, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 128,
                                    .splits = 0};
  constexpr gemm_sm90_policy t128s4{.stages = 4, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 128,
                                    .splits = 4};
  constexpr gemm_sm90_policy t64{.stages = 6, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 64};
  constexpr gemm_sm90_policy t64sc{.stages = 6, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 64,
                                   .splits = 0};
  constexpr gemm_sm90_policy t64s4{.stages = 6, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 64,
                                   .splits = 4};
  constexpr gemm_sm90_policy t64s8{.stages = 6, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 64,
                                   .splits = 8};
  constexpr gemm_sm90_policy t64x64{.stages = 8, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 64,
                                    .consumers = 1};
  constexpr gemm_sm90_policy t64x64sc{.stages = 8, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 64,
                                      .consumers = 1, .splits = 0};
  constexpr gemm_sm90_policy t64x64s4{.stages = 8, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 64,
                                      .consumers = 1, .splits = 4};
  add_forced_shapes<t256>("shape-256x128");
  add_forced_shapes<t256s2>("shape-256x128-k2");
  add_forced_shapes<t128>("shape-128x128");
  add_forced_shapes<t128sc>("shape-128x128-kauto");
  add_forced_shapes<t128s4>("shape-128x128-k4");
  add_forced_shapes<t64>("shape-64x128");
  add_forced_shapes<t64sc>("shape-64x128-kauto");
  add_forced_shapes<t64s4>("shape-64x128-k4");
  add_forced_shapes<t64s8>("shape-64x128-k8");
  add_forced_shapes<t64x64>("shape-64x64");
  add_forced_shapes<t64x64sc>("shape-64x64-kauto");
  add_forced_shapes<t64x64s4>("shape-64x64-k4");
  add_summary("blas/sweep/shape-", [](const std::vector<result>& r) {
    return shape_summary(r, "blas/sweep/shape-", "forced tile configurations (bf16 in and out, NN; label: tile_m x "
                                                 "tile_n, -kS: S k slices, -kauto: the chooser's split for that tile)");
  });
  add_note(shapes_prefix, "blas/shapes: the issue-28 shape sweep: C (bf16) = A B over bf16 A and B, m x n x k as "
                          "named, the tuned call (its tile and split chosen per shape: the policy column) against "
                          "cublasGemmEx (bf16 in and out, CUBLAS_COMPUTE_32F) interleaved in the same run");
}

}  // namespace lab
