// cuprim/device/detail/segmented_reduce_tuning.cuh: launch policies for the segmented reduction.
#pragma once

#include <cuprim/device/detail/load.cuh>

#include <type_traits>

namespace cuprim {

/// Tile shape of the load-balanced segmented reduction (see detail/segmented_reduce_kernel.cuh). A tile is
/// threads × items_per_thread *path items* (segment ends and elements together); each thread walks
/// items_per_thread consecutive items. Inputs are loaded in vectors of vector_bytes. The grid is
/// blocks_per_sm × SM count blocks, each owning an equal share of the path (the kernel is compiled for
/// blocks_per_sm resident blocks per SM, so that the whole grid is resident at once).
template <int Threads, int ItemsPerThread, int VectorBytes, int BlocksPerSm>
struct segmented_reduce_policy {
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int vector_bytes = VectorBytes;
  static constexpr int blocks_per_sm = BlocksPerSm;
  static constexpr int tile_items = Threads * ItemsPerThread;
  static_assert(Threads % 32 == 0 && Threads >= 64 && Threads <= 1024, "threads must be a multiple of 32 in [64, 1024]");
  static_assert(ItemsPerThread >= 1 && ItemsPerThread <= 32, "items_per_thread must be in [1, 32]");
  static_assert(VectorBytes == 4 || VectorBytes == 8 || VectorBytes == 16, "vector_bytes must be 4, 8 or 16");
  static_assert(BlocksPerSm >= 1 && BlocksPerSm <= 16, "blocks_per_sm must be in [1, 16]");
};

/// The tuning table, keyed by the accumulator's size class and whether the input loads as vectors.
///
/// sm_90 rows: 256 threads × 15 items (odd, so that each thread's run of values in shared memory starts on a
/// different bank) and 4 blocks per SM, which keeps one tile of loads in flight per block while the previous tile
/// is walked (about 60 KiB per SM). Not yet swept on a GPU: `cuprim-lab run segmented` prints the policy it used.
template <class In, class Acc>
struct segmented_reduce_default_policy {
  using type = std::conditional_t<
      (!detail::vector_traits<In, 16>::vectorized || sizeof(Acc) > 8),
      segmented_reduce_policy<128, 7, 16, 8>,                      // user structs, wide accumulators
      std::conditional_t<sizeof(Acc) <= 4, segmented_reduce_policy<256, 15, 16, 4>,   // float, int
                         segmented_reduce_policy<256, 9, 16, 4>>>;                     // double, int64
};

}  // namespace cuprim
