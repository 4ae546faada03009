// cuprim/blas/detail/gemm_tuning.cuh: the GEMM's policy and its table.
#pragma once

#include <cuprim/core/policy.hpp>

#include <array>
#include <cstddef>
#include <cstdint>

namespace cuprim::blas {

/// The CUDA-core GEMM (true FP32 / FP64: products and sums in the element type): a block computes a tile_m × tile_n
/// tile of C, stepping through k tile_k at a time with both operands' tiles in shared memory (two buffers, the next
/// tiles' loads in registers while the current ones are used); each thread owns thread_m × thread_n elements of C in
/// registers (2-D register blocking). Threads per block: (tile_m / thread_m) · (tile_n / thread_n).
struct gemm_policy {
  static constexpr const char* name = "gemm_policy";
  int tile_m = 128;
  int tile_n = 128;
  int tile_k = 8;
  int thread_m = 8;
  int thread_n = 8;
  /// float, 8 × 8 per thread, 4 elements of each operand tile per thread: the thread's rows and columns are two runs
  /// of 4, half a tile apart (16-byte shared-memory reads without bank conflicts), and interior tiles of aligned
  /// operands move by 16-byte loads and stores (blas/detail/gemm_kernel.cuh, gemm_simt_split_kernel). Other element
  /// types ignore it.
  bool split = false;
  /// The split kernel's resident blocks per SM asked of the compiler (__launch_bounds__ minimum; 0: no request).
  /// 2 caps registers at 128 per thread, which spills a little; none lets the compiler take ~180 (one block per SM).
  int blocks_per_sm = 0;
  /// float with split: the tiles of C wholly inside it, for 16-byte aligned operands and C with leading dimensions
  /// of whole vectors, run the interior kernel (blas/detail/gemm_kernel.cuh, gemm_simt_interior_kernel) on tile_m ×
  /// interior_n tiles (128 or 256; 8 × interior_n/16 elements per thread, no bounds checks in its loop); the split
  /// kernel takes the edges and everything else. 0: never.
  int interior_n = 0;

  constexpr int threads() const { return (tile_m / thread_m) * (tile_n / thread_n); }
  friend constexpr bool operator==(const gemm_policy&, const gemm_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("tile_m", tile_m);
    f("tile_n", tile_n);
    f("tile_k", tile_k);
    f("thread_m", thread_m);
    f("thread_n", thread_n);
    f("split", split);
    f("blocks_per_sm", blocks_per_sm);
    f("interior_n", interior_n);
  }
};

/// The table: the policy of a GEMM of T on a device of tuned architecture `arch`.
template <class T>
constexpr gemm_policy gemm_policy_for(int arch) {
  (void)arch;  // sm_90 rows serve every architecture until another is measured
  if constexpr (sizeof(T) == 8) {
    // sm_90, double: the float row's shape with half the elements per thread (registers): not swept.
    return {.tile_m = 64, .tile_n = 64, .tile_k = 8, .thread_m = 4, .thread_n = 4};
  } else {
    // sm_90, float: 128 x 128 x 8, 8 x 8 per thread in runs of 4 (256 threads): H100, 8192^3 NN, 0.50x cublasSgemm
    // without the split runs and 16-byte loads, 0.67x with them (two blocks per SM). Interior tiles 128 x 256, 8 x 16
    // per thread: H200, 8192^3 NN 0.974x cublasSgemm (4096^3 0.977x); 128 x 128 interior 0.948x at one block per SM,
    // 0.904x at two; tile_k 16 0.82-0.93x (scratch program, cuBLAS in the same run).
    return {.tile_m = 128, .tile_n = 128, .tile_k = 8, .thread_m = 8, .thread_n = 8, .split = true, .blocks_per_sm = 2,
            .interior_n = 256};
  }
}

/// The Hopper tensor-core GEMM (16-bit inputs, fp32 accumulators; blas/detail/gemm_sm90_kernel.cuh): tile_m × (64 ·
/// consumers) tiles of C (256 × 128 by default), 64 k per stage, one producer and `consumers` consumer warpgroups per
/// block, a persistent grid of clusters; optionally the k steps split over several blocks (split k).
struct gemm_sm90_policy {
  static constexpr const char* name = "gemm_sm90_policy";
  /// Shared-memory stages (both operands' tiles for 64 k: (tile_m + 64 · consumers) · 128 bytes, 48 KiB for the
  /// default tile) in flight: 2 to 8, all of them (and the staged epilogue) within 227 KiB per block.
  int stages = 4;
  /// Tiles of rows of C visited together (neighbouring blocks then share operand tiles in L2).
  int group = 8;
  /// Blocks per cluster along the columns of C, sharing (multicasting) their tile of op(A): 1 or 2.
  int cluster = 1;
  /// 16-bit C with beta = 0: the epilogue stages C in shared memory (32 KiB per consumer) and stores it by TMA while
  /// the next tile's k steps run (stages + staged blocks must fit 227 KiB: 3 stages).
  bool staged_store = false;
  /// Rows of C per tile (wgmma's N in the transposed product): 64, 128 or 256.
  int tile_m = 256;
  /// Consumer warpgroups, 64 columns of C each (the tile's columns: 64 · consumers): 1 or 2.
  int consumers = 2;
  /// Split k: 1 never (the kernel is built without it); s ≥ 2 the k steps in s slices (fewer when k has fewer
  /// steps of 64), each slice's sums in an fp32 workspace, then one reduction applies alpha and beta; 0 the split
  /// gemm_sm90_splits chooses per call (1 when the tiles alone fill the device). cluster must be 1 unless splits is 1.
  int splits = 1;

  constexpr int tile_n() const { return 64 * consumers; }
  constexpr int stage_bytes() const { return (tile_m + tile_n()) * 64 * 2; }
  /// Dynamic shared memory: the stages, the consumers' staged epilogue blocks (64 × tile_m 16-bit values each), 1 KiB
  /// of alignment slack, the barriers.
  constexpr int smem_bytes() const {
    return stages * stage_bytes() + (staged_store ? consumers * 64 * tile_m * 2 : 0) + 1024 + 2 * stages * 8;
  }
  friend constexpr bool operator==(const gemm_sm90_policy&, const gemm_sm90_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("stages", stages);
    f("group", group);
    f("cluster", cluster);
    f("staged_store", staged_store);
    f("tile_m", tile_m);
    f("consumers", consumers);
    f("splits", splits);
  }
};

/// The table: the tensor-core GEMM's policy on a device of tuned architecture `arch`.
constexpr gemm_sm90_policy gemm_sm90_policy_for(int arch) {
  (void)arch;
  // sm_90, H100, bf16 in / bf16 out, NN, cublasGemmEx in the same run (lab sweep blas): 3 stages with the staged
  // epilogue 8192^3 1.022x, 4096^3 0.995x; 4 stages storing from registers 0.951x / 0.843x; with 2-block clusters
  // 0.985x / 0.948x (staged), 0.963x / 0.878x (4 stages); groups of 16 no better.
  return {.stages = 3, .group = 8, .cluster = 1, .staged_store = true};
}

/// The tile configurations the tuned 16-bit gemm chooses from per call (gemm_sm90_plan_for): row 0 is
/// gemm_sm90_policy_for's, the large products' tile; the smaller ones split k when their tiles alone leave SMs idle.
/// `speed`: a full wave's throughput relative to row 0 on a compute-bound product, what the chooser weighs a
/// configuration's wave and padding efficiency by.
struct gemm_sm90_tile_row {
  gemm_sm90_policy policy;
  double speed;
};
inline constexpr int gemm_sm90_tile_rows = 4;
constexpr gemm_sm90_tile_row gemm_sm90_tile_row_for(int arch, int row) {
  switch (row) {
    // 256 x 128, two consumers, 3 stages, staged epilogue: the row above (its provenance there).
    case 0: return {gemm_sm90_policy_for(arch), 1.0};
    // The speeds of rows 1 to 3: each row's median implied speed over the 160 grid shapes of at least 2^33
    // multiply-adds, H200, bf16 NN, cuprim-lab tune gemm --exhaustive --dims 512,...,16384, read by
    // scripts/tuning_rows.py (bench/studies/blas/h200-tune-gemm-exhaustive-f20dce6.json; docs/tuning/blas.md).
    // 128 x 128, two consumers, 4 stages, split k per call: 0.84 (quartiles 0.81-0.87).
    case 1: return {{.stages = 4, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 128, .consumers = 2,
                     .splits = 0}, 0.84};
    // 64 x 128, two consumers, 6 stages, split k per call: 0.52 (0.49-0.59).
    case 2: return {{.stages = 6, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 64, .consumers = 2,
                     .splits = 0}, 0.52};
    // 64 x 64, one consumer, 8 stages, split k per call: 0.40 (0.38-0.43).
    default: return {{.stages = 8, .group = 8, .cluster = 1, .staged_store = true, .tile_m = 64, .consumers = 1,
                      .splits = 0}, 0.40};
  }
}

/// An explicit policy under a tf32 mode runs as given where the mode can: tf32x3 clamps tile_m to 128 and both modes
/// the stages to those that fit 227 KiB (no staged epilogue: C is float).
constexpr gemm_sm90_policy gemm_tf32_fit(gemm_sm90_policy p, int parts) {
  if (parts == 2 && p.tile_m > 128) p.tile_m = 128;
  const int fit = (227 * 1024 - 1024 - 128) / ((p.tile_m + p.tile_n()) * 128 * parts);
  if (p.stages > fit) p.stages = fit < 2 ? 2 : fit;
  p.staged_store = false;
  return p;
}

/// The tf32 math modes run the rows of gemm_sm90_tile_row_for with stages refitted to their stage size (C is float:
/// no staged epilogue): 32 floats of k per stage take the bytes of 64 16-bit elements, and tf32x3's two parts per
/// operand twice that; as many stages as fit 227 KiB, at most 8. tf32x3 keeps a second set of accumulators (each
/// stage's sum) and so takes tiles of at most 128 rows: the large tile becomes 128 x 128 in 2-block clusters.
///   sm_90, tf32, 256 x 128, 4 stages: H200, 8192^3 NN 0.935x cuBLAS TF32 (TN 0.988x; 2-block clusters 0.928x, 3
///   stages 0.933x). tf32x3, 128 x 128, 3 stages, clusters of 2: H200, 8192^3 NN 2.066x cublasSgemm (no clusters
///   1.747x, groups of 16 1.743x, 64 x 128 1.270x), worst error 2.8e-8 of sum|a b| against cublasSgemm's 7.9e-8.
constexpr gemm_sm90_policy gemm_tf32_policy(gemm_sm90_policy p, int parts) {
  if (parts == 2 && p.tile_m > 128) {
    p.tile_m = 128;
    if (p.splits == 1) p.cluster = 2;
  }
  const int stage = (p.tile_m + p.tile_n()) * 128 * parts;
  int stages = (227 * 1024 - 1024 - 128) / stage;
  p.stages = stages < 2 ? 2 : stages > 8 ? 8 : stages;
  p.staged_store = false;
  return p;
}
/// The chooser's other constants: a split slice holds at least min_split_steps k steps of 64 (2048 k), at most
/// max_splits slices; a split plan's score is multiplied by split_cost (the partial sums' traffic and the
/// reduction's launch). H100, bf16 NN, forced sweep (bench/studies/blas/h100-gemm-shapes-caa8435.txt): slices of 8
/// steps lose to an unsplit smaller tile (1024^3: 128 x 128 in 2 slices 0.48x cuBLAS, 64 x 128 unsplit 0.85x).
/// H200, bf16 NN, every plan timed at 216 grid shapes (512 to 16384 per dimension) and 20 held-out shapes
/// (bench/studies/blas/h200-tune-gemm-*): with the speeds above, 32 steps and 0.7 the chooser reaches a geometric
/// mean of 0.998x the best plan on the grid (worst 0.885x) and 0.989x on the held-out shapes (worst 0.905x); 16
/// steps and 0.92 (the earlier constants) 0.989x / 0.974x (worst 0.713x / 0.758x: 128 x 12288 x 6144 took 4
/// slices of 128 x 128, 0.067 ms, where one slice takes 0.051 ms).
inline constexpr int gemm_sm90_min_split_steps = 32;
inline constexpr int gemm_sm90_max_splits = 16;
inline constexpr double gemm_sm90_split_cost = 0.7;

/// The plain 16-bit gemm (no caller's workspace) copies an operand whose columns are not 128-byte aligned (a
/// leading dimension that is not a multiple of 64 elements, or a pointer off 128 bytes; also one TMA cannot take,
/// ld not a multiple of 8) into a temporary with the leading dimension rounded up to 64, when the product has at
/// least gemm_sm90_pack_min_volume multiply-adds and the operand at least 64 stored rows. H100, bf16 NN, against
/// cublasGemmEx in the same run (bench/studies/blas/h100-gemm-odd-ld.txt): 5000^3 with ld 5000
/// 0.585x, ld 5056 0.853x; 3000^3 0.515x / 0.743x (ld 3008); 8191^3 with ld 8191 (CUDA-core kernel) 0.106x, ld
/// 8192 5.35x (cuBLAS is slow there). A copy of both operands costs about 0.15 of a 5000^3 product.
inline constexpr double gemm_sm90_pack_min_volume = double(1 << 27);

/// A tensor-core plan: which gemm_sm90_tile_row_for row (or -1: the caller's explicit policy), how many k slices.
struct gemm_sm90_plan {
  int row = 0;
  int splits = 1;
  friend constexpr bool operator==(const gemm_sm90_plan&, const gemm_sm90_plan&) = default;
};

/// Tiles of a tile_m × tile_n tiling of the m × n product.
constexpr std::int64_t gemm_sm90_tiles(std::int64_t m, std::int64_t n, int tile_m, int tile_n) {
  return ((m + tile_m - 1) / tile_m) * ((n + tile_n - 1) / tile_n);
}

/// The fraction of the persistent grid's block-slots busy over the waves of `units` work units on `sm_count` SMs.
constexpr double gemm_sm90_wave_efficiency(std::int64_t units, int sm_count) {
  const std::int64_t slots = sm_count > 0 ? sm_count : 1, waves = (units + slots - 1) / slots;
  return waves > 0 ? double(units) / double(waves * slots) : 0.0;
}

/// `s` slices of `steps` k steps with none empty: ceil(steps / ceil(steps / s)) (what the launch runs for s).
constexpr int gemm_sm90_whole_slices(std::int64_t steps, int s) {
  const std::int64_t per = (steps + s - 1) / s;
  return int((steps + per - 1) / per);
}

/// The k slices a splitting policy takes for (m, n, k) on sm_count SMs. splits = 0: 1 when the tiles alone number
/// sm_count or more, else the count (1 to max_splits, each slice at least min_split_steps steps) whose work units best fill whole waves, split_cost weighed against one
/// slice, normalised so that no slice is empty (ceil(steps / ceil(steps / s))). A forced count: min(splits, the k
/// steps), which the launch normalises the same way (so the workspace it sizes grows with k).
constexpr int gemm_sm90_splits(const gemm_sm90_policy& p, std::int64_t m, std::int64_t n, std::int64_t k,
                               int sm_count, double* score = nullptr) {
  const std::int64_t tiles = gemm_sm90_tiles(m, n, p.tile_m, p.tile_n()), steps = (k + 63) / 64;
  int best = 1;
  double best_score = gemm_sm90_wave_efficiency(tiles, sm_count);
  if (p.splits == 0) {
    // Only a product whose tiles leave SMs idle splits: at most max_splits slices of min_split_steps steps or more.
    const std::int64_t by_k = steps / gemm_sm90_min_split_steps;
    const std::int64_t most = tiles >= sm_count ? 1 : by_k < gemm_sm90_max_splits ? by_k : gemm_sm90_max_splits;
    for (int s = 2; s <= most; ++s) {
      const double e = gemm_sm90_wave_efficiency(tiles * s, sm_count) * gemm_sm90_split_cost;
      if (e > best_score + 1e-9) {
        best = s;
        best_score = e;
      }
    }
  } else {
    best = p.splits;
    best_score = gemm_sm90_wave_efficiency(tiles * (best < steps ? best : steps), sm_count) *
                 (best > 1 ? gemm_sm90_split_cost : 1.0);
  }
  if (best > steps) best = int(steps > 0 ? steps : 1);
  if (best > 1 && p.splits == 0) best = gemm_sm90_whole_slices(steps, best);
  if (score) *score = best_score;
  return best;
}

/// The chooser's score of tile row `speed` (gemm_sm90_tile_row) running p on (m, n, k) on sm_count SMs: speed ×
/// wave efficiency (gemm_sm90_splits, split_cost included) × padding efficiency (the fraction of the tiles' elements
/// inside C); the k slices it takes go to *splits. Larger is faster: a compute-bound product's time is about
/// (its time under row 0 at full waves) / score.
constexpr double gemm_sm90_score(double speed, const gemm_sm90_policy& p, std::int64_t m, std::int64_t n,
                                 std::int64_t k, int sm_count, int* splits = nullptr) {
  double waves = 0;
  const int s = gemm_sm90_splits(p, m, n, k, sm_count, &waves);
  const std::int64_t tiles = gemm_sm90_tiles(m, n, p.tile_m, p.tile_n());
  const double padding = double(m) * double(n) / (double(tiles) * p.tile_m * p.tile_n());
  if (splits) *splits = s;
  return speed * waves * padding;
}

/// The tuned 16-bit gemm's plan for (m, n, k) on sm_count SMs of tuned architecture `arch`: the row of
/// gemm_sm90_tile_row_for with the best gemm_sm90_score, ties to the lower row, and its split. The op pair (trans_a,
/// trans_b) takes no part yet. (A tuning cache entry for the call, core/tuning.hpp, overrides it: blas/gemm.cuh.)
constexpr gemm_sm90_plan gemm_sm90_plan_for(int arch, std::int64_t m, std::int64_t n, std::int64_t k, bool trans_a,
                                            bool trans_b, int sm_count) {
  (void)trans_a;
  (void)trans_b;
  gemm_sm90_plan best{};
  double best_score = -1;
  for (int r = 0; r < gemm_sm90_tile_rows; ++r) {
    const gemm_sm90_tile_row row = gemm_sm90_tile_row_for(arch, r);
    int s = 1;
    const double score = gemm_sm90_score(row.speed, row.policy, m, n, k, sm_count, &s);
    if (score > best_score + 1e-9) {
      best = {r, s};
      best_score = score;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------------------------
// The 16-bit GEMM's recipe and candidates (cuprim-lab tune gemm; docs/tuning/README.md, "Auto-tuning")

/// The tensor-core GEMM's tuning space: each axis of gemm_sm90_policy and its values (gemm_sm90_point_ok prunes the
/// product). splits: 1 none, 0 the count gemm_sm90_splits picks per call, s ≥ 2 forced (fewer when k has fewer steps).
struct gemm_sm90_recipe {
  static constexpr int tile_m[] = {64, 128, 256};
  static constexpr int consumers[] = {1, 2};
  static constexpr int stages[] = {2, 3, 4, 5, 6, 7, 8};
  static constexpr int cluster[] = {1, 2};
  static constexpr int splits[] = {1, 0, 2, 3, 4, 6, 8, 12, 16};
};

/// Whether a point of the space is legal: the rules gemm_sm90_policy_valid asserts where a kernel is instantiated
/// (shared memory within 227 KiB per block, split k only without clusters, a cluster's share of the rows at least 8),
/// as a value, so that the recipe's illegal points are pruned before anything is compiled or run.
constexpr bool gemm_sm90_point_ok(const gemm_sm90_policy& p) {
  if (p.stages < 2 || p.stages > 8 || p.group < 1) return false;
  if (p.cluster != 1 && p.cluster != 2) return false;
  if (p.tile_m != 64 && p.tile_m != 128 && p.tile_m != 256) return false;
  if (p.consumers != 1 && p.consumers != 2) return false;
  if (p.splits < 0 || (p.splits != 1 && p.cluster != 1)) return false;
  if (p.tile_m / p.cluster < 8) return false;
  return p.smem_bytes() <= 227 * 1024;
}

/// A compiled candidate of the tuned 16-bit gemm: a row of gemm_sm90_tile_row_for (a tile configuration the library
/// instantiates) and a split rule (its policy's splits: 1, 0 or s, as in gemm_sm90_recipe).
struct gemm_sm90_candidate {
  int row = 0;
  gemm_sm90_policy policy;
};

/// The split rules the candidates take: unsplit, the per-call count, and forced counts (rows built with split k).
inline constexpr int gemm_sm90_candidate_splits[] = {1, 0, 2, 3, 4, 6, 8, 12, 16};
inline constexpr int gemm_sm90_candidate_count =
    1 + (gemm_sm90_tile_rows - 1) * int(sizeof(gemm_sm90_candidate_splits) / sizeof(int));

/// The candidates on a device of tuned architecture `arch`: row 0 unsplit (its kernel is built without split k), rows
/// 1 to gemm_sm90_tile_rows - 1 under every rule of gemm_sm90_candidate_splits. No kernel beyond the rows' own is
/// instantiated: the k slices are an argument of the launch. A tuning cache entry names one by its policy's fields.
constexpr std::array<gemm_sm90_candidate, gemm_sm90_candidate_count> gemm_sm90_candidates(int arch) {
  std::array<gemm_sm90_candidate, gemm_sm90_candidate_count> out{};
  std::size_t i = 0;
  out[i++] = {0, gemm_sm90_tile_row_for(arch, 0).policy};
  for (int r = 1; r < gemm_sm90_tile_rows; ++r)
    for (int s : gemm_sm90_candidate_splits) {
      gemm_sm90_policy p = gemm_sm90_tile_row_for(arch, r).policy;
      p.splits = s;
      out[i++] = {r, p};
    }
  return out;
}

/// The FP64 tensor-core GEMM (double on sm_90: mma.sync m16n8k8 f64 fed by TMA; blas/detail/gemm_dmma_kernel.cuh):
/// a block per tile_m × tile_n tile of C, tile_k k per shared-memory stage, one 64 × 32 warp tile of C per warp
/// ((tile_m / 64) · (tile_n / 32) warps; one of their threads issues the TMA loads).
struct gemm_dmma_policy {
  static constexpr const char* name = "gemm_dmma_policy";
  /// Rows and columns of C per block: multiples of 64 and 32, at most 8 consumer warps (registers: 128 accumulators
  /// and 48 operand registers per thread).
  int tile_m = 128;
  int tile_n = 128;
  /// k per stage: a multiple of 16 (one 128-byte swizzled row of doubles).
  int tile_k = 16;
  /// Shared-memory stages in flight ((tile_m + tile_n) · tile_k · 8 bytes each; at most 227 KiB in all); the loads
  /// run stages - 2 steps ahead of the step being multiplied, so at least 3.
  int stages = 5;
  /// Tiles of rows of C visited together (neighbouring blocks then share operand tiles in L2).
  int group = 8;

  constexpr int consumers() const { return (tile_m / 64) * (tile_n / 32); }
  constexpr int threads() const { return 32 * consumers(); }
  constexpr int stage_bytes() const { return (tile_m + tile_n) * tile_k * 8; }
  /// Dynamic shared memory: the stages, 1 KiB of alignment slack (the 128-byte swizzle's period), the barriers.
  constexpr int smem_bytes() const { return stages * stage_bytes() + 1024 + 2 * stages * 8; }
  friend constexpr bool operator==(const gemm_dmma_policy&, const gemm_dmma_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("tile_m", tile_m);
    f("tile_n", tile_n);
    f("tile_k", tile_k);
    f("stages", stages);
    f("group", group);
  }
};

/// The table: the FP64 tensor-core GEMM's policy on a device of tuned architecture `arch`.
constexpr gemm_dmma_policy gemm_dmma_policy_for(int arch) {
  (void)arch;
  // sm_90, double, H100, NN, cublasDgemm in the same run (lab sweep blas): 128 x 128 x 32, 3 stages 0.883x (4096^3)
  // / 0.880x (8192^3); 128 x 128 x 16 with 5 stages 0.827x / 0.834x, with 4 stages 0.820x / 0.837x.
  return {.tile_m = 128, .tile_n = 128, .tile_k = 32, .stages = 3, .group = 8};
}

/// The batched small-product kernel (float and double, m, n ≤ tile; blas/detail/gemm_small_kernel.cuh): a group of
/// `group` threads computes one product at a time, threads / group products per block; op(A)'s tile × tile_k and
/// op(B)'s tile_k × tile slices staged through shared memory (the next step's in registers while the current one is
/// multiplied), each thread accumulating thread_m × thread_n elements of C. A persistent grid of
/// blocks_per_sm blocks per SM walks the batches.
struct gemm_small_policy {
  static constexpr const char* name = "gemm_small_policy";
  /// The largest m and n the kernel takes: 16, 32 or 64 (a multiple of thread_m and thread_n).
  int tile = 32;
  /// k per staged step: a multiple of 4 (float) or 2 (double), at most 64.
  int tile_k = 32;
  /// Threads per product: (tile / thread_m) · (tile / thread_n).
  int group = 64;
  /// Threads per block: a multiple of group (threads / group products at a time) and of 32, at most 1024.
  int threads = 256;
  int thread_m = 4;
  int thread_n = 4;
  /// Resident blocks per SM asked of the compiler (__launch_bounds__ minimum) and the grid's blocks per SM.
  int blocks_per_sm = 4;
  /// Rounds ahead (0 to 3; 0: none) whose operands each group prefetches into L2 as it starts a product: the group's
  /// batch `prefetch` rounds of the grid later, so that the register loads of that batch find its lines in L2.
  int prefetch = 0;

  constexpr int products() const { return threads / group; }
  /// Static shared memory of T-sized elements: each product's op(A) and op(B) slices, rows padded by 16 bytes.
  constexpr int smem_bytes(int elem) const { return products() * 2 * tile_k * (tile + 16 / elem) * elem; }
  friend constexpr bool operator==(const gemm_small_policy&, const gemm_small_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("tile", tile);
    f("tile_k", tile_k);
    f("group", group);
    f("threads", threads);
    f("thread_m", thread_m);
    f("thread_n", thread_n);
    f("blocks_per_sm", blocks_per_sm);
    f("prefetch", prefetch);
  }
};

/// The small-product path's limits: a batched product with m, n and k at most gemm_small_max runs the small
/// kernel (tuned, or an explicit gemm_small_policy whose tile covers m and n), on the smallest tile of 16, 32 or 64
/// that holds max(m, n).
inline constexpr int gemm_small_max = 64;
constexpr int gemm_small_tile(std::int64_t m, std::int64_t n) {
  const std::int64_t s = m > n ? m : n;
  return s <= 16 ? 16 : s <= 32 ? 32 : 64;
}

/// The table: the small kernel's policy for products of T of at most `tile` rows and columns (16, 32 or 64) on a
/// device of tuned architecture `arch`.
template <class T>
constexpr gemm_small_policy gemm_small_policy_for(int arch, int tile) {
  (void)arch;  // sm_90 rows serve every architecture until another is measured
  if constexpr (sizeof(T) == 8) {
    // sm_90, double, H100, 10^5 NN products, beta 0, cublasDgemmStridedBatched in the same run (lab sweep
    // blas/batched/sweep): 16 x 16 on 64 threads of 2 x 2 at 3 blocks per SM 1.468x (a warp of 4 x 2 at 2: 1.318x);
    // 32 x 32 on 64 threads of 4 x 4 0.576x without prefetch (128 of 4 x 2: 0.493x); 64 x 64 on a block of 4 x 4
    // 0.402x without prefetch. Prefetch into L2 (same sweep, next run): 16 x 16 one round ahead 1.574x (none
    // 1.350x); 32 x 32 one round 0.587x (none 0.575x, two 0.491x); 64 x 64 two rounds 0.518x (one 0.393x, none
    // 0.402x).
    if (tile <= 16)
      return {.tile = 16, .tile_k = 16, .group = 64, .threads = 256, .thread_m = 2, .thread_n = 2, .blocks_per_sm = 3,
              .prefetch = 1};
    if (tile <= 32)
      return {.tile = 32, .tile_k = 16, .group = 64, .threads = 256, .thread_m = 4, .thread_n = 4, .blocks_per_sm = 2,
              .prefetch = 1};
    return {.tile = 64, .tile_k = 16, .group = 256, .threads = 256, .thread_m = 4, .thread_n = 4, .blocks_per_sm = 2,
            .prefetch = 2};
  } else {
    // sm_90, float, H100, 10^5 NN products, beta 0, cublasSgemmStridedBatched in the same run (lab sweep
    // blas/batched/sweep): 16 x 16 a warp per product in blocks of 128 at 6 per SM 2.013x (blocks of 256 at 3:
    // 1.797x); 32 x 32 on 128 threads of 4 x 2 at 3 blocks per SM 0.920x without prefetch (64 of 4 x 4 at 2: 0.867x);
    // 64 x 64 on a block of 4 x 4 at 3 per SM 0.706x without prefetch (at 2: 0.609x; ptxas spills 48 bytes at 3).
    // Prefetch into L2 one round ahead (same sweep, next run): 32 x 32 0.908x (none 0.914x, two 0.892x), 64 x 64
    // 0.742x (none 0.706x, two 0.659x); 8 x 8 per thread at 64 x 64 0.41-0.55x; 16 x 16 two rounds ahead 1.542x.
    if (tile <= 16)
      return {.tile = 16, .tile_k = 16, .group = 32, .threads = 128, .thread_m = 4, .thread_n = 2, .blocks_per_sm = 6};
    if (tile <= 32)
      return {.tile = 32, .tile_k = 32, .group = 128, .threads = 256, .thread_m = 4, .thread_n = 2, .blocks_per_sm = 3,
              .prefetch = 1};
    return {.tile = 64, .tile_k = 32, .group = 256, .threads = 256, .thread_m = 4, .thread_n = 4, .blocks_per_sm = 3,
            .prefetch = 1};
  }
}

}  // namespace cuprim::blas

namespace cuprim::detail {

/// The rules of a gemm_policy, checked where its kernel is instantiated.
template <blas::gemm_policy P>
constexpr bool gemm_policy_valid() {
  static_assert(P.thread_m >= 1 && P.thread_n >= 1 && P.tile_m % P.thread_m == 0 && P.tile_n % P.thread_n == 0,
                "gemm_policy: tile_m and tile_n must be multiples of thread_m and thread_n");
  static_assert(P.threads() >= 32 && P.threads() <= 1024 && P.threads() % 32 == 0,
                "gemm_policy: (tile_m / thread_m) * (tile_n / thread_n) must be a multiple of 32 in [32, 1024]");
  static_assert(P.tile_k >= 1 && (P.tile_m * P.tile_k) % P.threads() == 0 && (P.tile_n * P.tile_k) % P.threads() == 0,
                "gemm_policy: each operand tile must split evenly over the block's threads");
  static_assert(!P.split || (P.thread_m == 8 && P.thread_n == 8 && P.tile_m * P.tile_k == 4 * P.threads() &&
                             P.tile_n * P.tile_k == 4 * P.threads() && P.tile_k % 4 == 0),
                "gemm_policy: split takes 8 x 8 per thread and 4 elements of each operand tile per thread");
  static_assert(P.interior_n == 0 || (P.split && P.tile_m == 128 && (P.interior_n == 128 || P.interior_n == 256) &&
                                      P.tile_k % 8 == 0),
                "gemm_policy: interior_n (0, 128 or 256) takes split, tile_m 128 and tile_k a multiple of 8");
  return true;
}

/// The rules of a gemm_small_policy for elements of `elem` bytes, checked where its kernel is instantiated.
template <blas::gemm_small_policy P, int elem>
constexpr bool gemm_small_policy_valid() {
  constexpr int vec = 16 / elem;
  static_assert(P.tile == 16 || P.tile == 32 || P.tile == 64, "gemm_small_policy: tile must be 16, 32 or 64");
  static_assert(P.tile_k >= vec && P.tile_k <= 64 && P.tile_k % vec == 0,
                "gemm_small_policy: tile_k must be a multiple of 16 bytes' elements, at most 64");
  static_assert(P.thread_m >= 1 && P.thread_n >= 1 && P.tile % P.thread_m == 0 && P.tile % P.thread_n == 0,
                "gemm_small_policy: tile must be a multiple of thread_m and thread_n");
  static_assert((P.tile / P.thread_m) * (P.tile / P.thread_n) == P.group,
                "gemm_small_policy: group must be (tile / thread_m) * (tile / thread_n)");
  static_assert(P.threads % P.group == 0 && P.threads % 32 == 0 && P.threads <= 1024,
                "gemm_small_policy: threads must be a multiple of group and of 32, at most 1024");
  static_assert((P.tile * P.tile_k) % (vec * P.group) == 0,
                "gemm_small_policy: each operand slice must split into whole 16-byte pieces per thread");
  static_assert(P.smem_bytes(elem) <= 48 * 1024, "gemm_small_policy: the slices exceed 48 KiB of static shared memory");
  static_assert(P.blocks_per_sm >= 1 && P.blocks_per_sm * P.smem_bytes(elem) <= 227 * 1024,
                "gemm_small_policy: blocks_per_sm blocks' shared memory exceeds 227 KiB");
  static_assert(P.prefetch >= 0 && P.prefetch <= 3, "gemm_small_policy: prefetch must be 0 to 3 rounds");
  return true;
}

template <blas::gemm_sm90_policy P>
constexpr bool gemm_sm90_policy_valid() {
  static_assert(P.stages >= 2 && P.stages <= 8, "gemm_sm90_policy: stages must be 2 to 8");
  static_assert(P.group >= 1, "gemm_sm90_policy: group must be at least 1");
  static_assert(P.cluster == 1 || P.cluster == 2, "gemm_sm90_policy: cluster must be 1 or 2");
  static_assert(P.tile_m == 64 || P.tile_m == 128 || P.tile_m == 256, "gemm_sm90_policy: tile_m must be 64, 128 or 256");
  static_assert(P.consumers == 1 || P.consumers == 2, "gemm_sm90_policy: consumers must be 1 or 2");
  static_assert(P.splits >= 0, "gemm_sm90_policy: splits must be 0 (chosen per call), 1 (never) or at least 2");
  static_assert(P.splits == 1 || P.cluster == 1, "gemm_sm90_policy: split k takes cluster 1");
  static_assert(P.tile_m / P.cluster >= 8, "gemm_sm90_policy: a cluster's share of the rows tile is too small");
  static_assert(P.smem_bytes() <= 227 * 1024,
                "gemm_sm90_policy: the stages (and the staged epilogue) exceed 227 KiB of shared memory");
  static_assert(blas::gemm_sm90_point_ok(P), "gemm_sm90_policy: the recipe's rule (gemm_sm90_point_ok) disagrees");
  return true;
}

template <blas::gemm_dmma_policy P>
constexpr bool gemm_dmma_policy_valid() {
  static_assert(P.tile_m >= 64 && P.tile_m <= 256 && P.tile_m % 64 == 0,
                "gemm_dmma_policy: tile_m must be 64, 128, 192 or 256");
  static_assert(P.tile_n >= 32 && P.tile_n <= 256 && P.tile_n % 32 == 0,
                "gemm_dmma_policy: tile_n must be a multiple of 32 up to 256");
  static_assert(P.consumers() <= 8, "gemm_dmma_policy: at most 8 warp tiles of 64 x 32 per block");
  static_assert(P.tile_k >= 16 && P.tile_k <= 64 && P.tile_k % 16 == 0, "gemm_dmma_policy: tile_k must be 16, 32, 48 or 64");
  static_assert(P.stages >= 3, "gemm_dmma_policy: at least 3 stages (the loads run stages - 2 steps ahead)");
  static_assert(P.smem_bytes() <= 227 * 1024, "gemm_dmma_policy: the stages exceed 227 KiB of shared memory");
  static_assert(P.group >= 1, "gemm_dmma_policy: group must be at least 1");
  return true;
}

}  // namespace cuprim::detail
