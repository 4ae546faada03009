// cuprim/device/detail/segmented_reduce_tuning.cuh: the segmented reduction's policy and its table.
#pragma once

#include <cuprim/core/policy.hpp>
#include <cuprim/device/detail/load.cuh>

namespace cuprim {

/// Tile shape of the load-balanced segmented reduction (see detail/segmented_reduce_kernel.cuh). A tile is
/// threads × items_per_thread *path items* (segment ends and elements together); each thread walks
/// items_per_thread consecutive items. Inputs are loaded in vectors of vector_bytes. The grid is
/// blocks_per_sm × SM count blocks, each owning an equal share of the path (the kernel is compiled for
/// blocks_per_sm resident blocks per SM, so that the whole grid is resident at once).
struct segmented_reduce_policy {
  static constexpr const char* name = "segmented_reduce_policy";
  int threads = 256;          ///< a multiple of 32 in [64, 1024]
  int items_per_thread = 15;  ///< 1 to 32
  int vector_bytes = 16;      ///< 4, 8 or 16
  int blocks_per_sm = 4;      ///< 1 to 16 (the workspace holds one state per block for 16 blocks per SM)

  constexpr int tile_items() const { return threads * items_per_thread; }
  friend constexpr bool operator==(const segmented_reduce_policy&, const segmented_reduce_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("threads", threads);
    f("items_per_thread", items_per_thread);
    f("vector_bytes", vector_bytes);
    f("blocks_per_sm", blocks_per_sm);
  }
};

namespace detail {
/// The rules of a segmented_reduce_policy, checked where its kernel is instantiated.
template <segmented_reduce_policy P>
constexpr bool segmented_reduce_policy_valid() {
  static_assert(P.threads % 32 == 0 && P.threads >= 64 && P.threads <= 1024,
                "segmented_reduce_policy: threads must be a multiple of 32 in [64, 1024]");
  static_assert(P.items_per_thread >= 1 && P.items_per_thread <= 32,
                "segmented_reduce_policy: items_per_thread must be in [1, 32]");
  static_assert(P.vector_bytes == 4 || P.vector_bytes == 8 || P.vector_bytes == 16,
                "segmented_reduce_policy: vector_bytes must be 4, 8 or 16");
  static_assert(P.blocks_per_sm >= 1 && P.blocks_per_sm <= 16,
                "segmented_reduce_policy: blocks_per_sm must be in [1, 16]");
  return true;
}
}  // namespace detail

/// The table: the policy of a segmented reduction of In accumulated in Acc on a device of tuned architecture `arch`
/// (keyed by the accumulator's size class and whether the input loads as vectors). Items per thread are odd, so
/// that each thread's run of values in shared memory starts on a different bank; 4 blocks per SM keep one tile of
/// loads in flight per block while the previous tile is walked (about 60 KiB per SM).
template <class In, class Acc>
constexpr segmented_reduce_policy segmented_reduce_policy_for(int arch) {
  (void)arch;  // sm_90 rows serve every architecture until another is measured
  // sm_90, user structs and accumulators over 8 bytes: not swept (cuprim-lab run segmented prints the policy).
  if (!detail::vector_traits<In, 16>::vectorized || sizeof(Acc) > 8)
    return {.threads = 128, .items_per_thread = 7, .vector_bytes = 16, .blocks_per_sm = 8};
  // sm_90, accumulators of up to 4 bytes (float, int): not swept.
  if (sizeof(Acc) <= 4) return {.threads = 256, .items_per_thread = 15, .vector_bytes = 16, .blocks_per_sm = 4};
  // sm_90, 8-byte accumulators (double, int64): not swept.
  return {.threads = 256, .items_per_thread = 9, .vector_bytes = 16, .blocks_per_sm = 4};
}

}  // namespace cuprim
