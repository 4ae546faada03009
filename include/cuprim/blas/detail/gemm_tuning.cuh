// cuprim/blas/detail/gemm_tuning.cuh: the GEMM's policy and its table.
#pragma once

#include <cuprim/core/policy.hpp>

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
    // without the split runs and 16-byte loads.
    return {.tile_m = 128, .tile_n = 128, .tile_k = 8, .thread_m = 8, .thread_n = 8, .split = true, .blocks_per_sm = 2};
  }
}

/// The Hopper tensor-core GEMM (16-bit inputs, fp32 accumulators; blas/detail/gemm_sm90_kernel.cuh): 256 × 128 tiles
/// of C, 64 k per stage, one producer and two consumer warpgroups per block, a persistent grid of clusters.
struct gemm_sm90_policy {
  static constexpr const char* name = "gemm_sm90_policy";
  /// Shared-memory stages of 48 KiB (both operands' tiles for 64 k) in flight: at most 4 (227 KiB per block).
  int stages = 4;
  /// Tiles of rows of C visited together (neighbouring blocks then share operand tiles in L2).
  int group = 8;
  /// Blocks per cluster along the columns of C, sharing (multicasting) their tile of op(A): 1 or 2.
  int cluster = 1;
  /// 16-bit C with beta = 0: the epilogue stages C in shared memory (32 KiB per consumer) and stores it by TMA while
  /// the next tile's k steps run (stages + staged blocks must fit 227 KiB: 3 stages).
  bool staged_store = false;

  friend constexpr bool operator==(const gemm_sm90_policy&, const gemm_sm90_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("stages", stages);
    f("group", group);
    f("cluster", cluster);
    f("staged_store", staged_store);
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
  return true;
}

template <blas::gemm_sm90_policy P>
constexpr bool gemm_sm90_policy_valid() {
  static_assert(P.stages >= 2 && P.stages <= 4, "gemm_sm90_policy: stages must be 2, 3 or 4 (48 KiB each)");
  static_assert(P.group >= 1, "gemm_sm90_policy: group must be at least 1");
  static_assert(P.cluster == 1 || P.cluster == 2, "gemm_sm90_policy: cluster must be 1 or 2");
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
