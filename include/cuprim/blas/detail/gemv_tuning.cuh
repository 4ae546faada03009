// cuprim/blas/detail/gemv_tuning.cuh: the policies of gemv and dot (BLAS levels 2 and 1) and their tables.
#pragma once

#include <cuprim/core/policy.hpp>

namespace cuprim::blas {

/// The matrix-vector product's kernels (blas/detail/gemv_kernel.cuh). A block of `threads` threads covers a tile of
/// A: for op N, lanes of rows (at most `row_lanes`, each thread `vector_bytes` of consecutive rows, one load per
/// column) times groups of columns, the groups' sums added in shared memory; for op T, groups of lanes per column
/// (each lane `vector_bytes` of consecutive rows of its column) times columns. Each thread keeps `unroll` loads of A
/// in flight: `unroll` columns for op N and for op T's short columns (a column in one pass of its lanes), `unroll`
/// vectors down its column for op T's long ones. When the tiles alone give fewer than blocks_per_sm × SMs blocks,
/// the summed dimension (n for op N, m for op T) is split over more blocks, whose partial sums a second kernel adds
/// in a fixed order.
struct gemv_policy {
  static constexpr const char* name = "gemv_policy";
  int threads = 256;       ///< a power of two in [32, 1024]
  int vector_bytes = 16;   ///< 4, 8 or 16 (the element size or more); loads of A and of a unit-stride x
  int unroll = 4;          ///< 1 to 8 loads of A in flight per thread
  int blocks_per_sm = 4;   ///< the grid the split aims for: blocks_per_sm × SMs blocks, 1 to 32
  int row_lanes = 64;      ///< op N: at most this many threads along the rows (a power of two; threads at most);
                           ///< the rest of the block takes more columns: fewer slices, a smaller second pass

  friend constexpr bool operator==(const gemv_policy&, const gemv_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("threads", threads);
    f("vector_bytes", vector_bytes);
    f("unroll", unroll);
    f("blocks_per_sm", blocks_per_sm);
    f("row_lanes", row_lanes);
  }
};

/// The dot product's kernel (blas/detail/dot_kernel.cuh): a grid of at most blocks_per_sm × SMs blocks strides
/// over the vectors, each thread keeping `unroll` pairs of loads in flight (16-byte vectors when both vectors have
/// unit stride and 16-byte alignment), then one partial per block and a single block over the partials.
struct dot_policy {
  static constexpr const char* name = "dot_policy";
  int threads = 512;      ///< a multiple of 32, at most 1024
  int unroll = 4;         ///< 1 to 8
  int blocks_per_sm = 4;  ///< 1 to 8 (the workspace holds 8 partials per SM)

  friend constexpr bool operator==(const dot_policy&, const dot_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("threads", threads);
    f("unroll", unroll);
    f("blocks_per_sm", blocks_per_sm);
  }
};

namespace detail_rules {
template <gemv_policy P>
constexpr bool gemv_policy_valid() {
  static_assert(P.threads >= 32 && P.threads <= 1024 && (P.threads & (P.threads - 1)) == 0,
                "gemv_policy: threads must be a power of two in [32, 1024]");
  static_assert(P.vector_bytes == 4 || P.vector_bytes == 8 || P.vector_bytes == 16,
                "gemv_policy: vector_bytes must be 4, 8 or 16");
  static_assert(P.unroll >= 1 && P.unroll <= 8, "gemv_policy: unroll must be in [1, 8]");
  static_assert(P.blocks_per_sm >= 1 && P.blocks_per_sm <= 32, "gemv_policy: blocks_per_sm must be in [1, 32]");
  static_assert(P.row_lanes >= 1 && P.row_lanes <= 1024 && (P.row_lanes & (P.row_lanes - 1)) == 0,
                "gemv_policy: row_lanes must be a power of two in [1, 1024] (above threads: threads)");
  return true;
}
template <dot_policy P>
constexpr bool dot_policy_valid() {
  static_assert(P.threads % 32 == 0 && P.threads >= 32 && P.threads <= 1024,
                "dot_policy: threads must be a multiple of 32 in [32, 1024]");
  static_assert(P.unroll >= 1 && P.unroll <= 8, "dot_policy: unroll must be in [1, 8]");
  static_assert(P.blocks_per_sm >= 1 && P.blocks_per_sm <= 8, "dot_policy: blocks_per_sm must be in [1, 8]");
  return true;
}
}  // namespace detail_rules

/// The table: the policy of a gemv over elements of T on a device of tuned architecture `arch`.
template <class T>
constexpr gemv_policy gemv_policy_for(int arch) {
  (void)arch;  // sm_90 rows serve every architecture until another is measured
  if constexpr (sizeof(T) == 8) {
    // sm_90, 8-byte types: H200, cuprim-lab sweep blas 'blas/sweep/gemv-*', 8192^2: 16 blocks per SM N 0.809x / T
    // 0.858x cublasDgemv (4 blocks 0.546x / 0.736x; 256 row lanes 0.821x / 0.731x; 512 threads 0.679x / 0.856x).
    return {.threads = 256, .vector_bytes = 16, .unroll = 4, .blocks_per_sm = 16, .row_lanes = 64};
  } else {
    // sm_90, 4-byte and smaller types: H200, the same sweep: 4096^2 N 0.804x, 16 x 2^22 N 0.995x / T 2.01x, 16384^2
    // N 1.000x cublasSgemv (256 row lanes 0.793x / 1.021x / 2.03x / 1.002x; 8 in flight or 8 blocks lose 2-25%).
    return {.threads = 256, .vector_bytes = 16, .unroll = 4, .blocks_per_sm = 4, .row_lanes = 64};
  }
}

/// The table: the policy of a dot over elements of T on a device of tuned architecture `arch`.
template <class T>
constexpr dot_policy dot_policy_for(int arch) {
  (void)arch;
  // sm_90, every type: the reduction's row (512 threads, 4 loads in flight, 4 blocks per SM; reduce_tuning.cuh) for
  // two inputs: not measured yet (`cuprim-lab run 'blas/dot/*'` against cublas<S|D>dot).
  return {.threads = 512, .unroll = 4, .blocks_per_sm = 4};
}

}  // namespace cuprim::blas
