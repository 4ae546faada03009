// cuprim/device/detail/radix_sort_tuning.cuh: the radix sort's policy and its default table.
#pragma once

#include <cstddef>

namespace cuprim {

/// Shapes of the radix sort's kernels.
///   Threads × Items        the one-sweep tile (keys per block and pass); Threads ≥ 256 (one thread per digit)
///   SmallThreads × SmallItems   the largest input sorted by one block in one launch (all passes in shared memory)
///   HistItems              keys per thread and step of the upfront histogram pass (256 threads per block)
///   LookBack               predecessor tiles each digit's look-back reads at once (1: one dependent load per tile)
///   Rank                   how a warp ranks its keys: 0 ballots and a warp-synchronous counter update, 1 ballots
///                          and a shared atomic, 2 match.any and a shared atomic (detail/radix_sort_kernel.cuh)
template <int Threads, int Items, int SmallThreads, int SmallItems, int HistItems = 16, int LookBack = 16,
          int Rank = 0>
struct radix_sort_policy {
  static_assert(Threads % 32 == 0 && Threads >= 256, "one-sweep blocks need at least one thread per digit");
  static_assert(SmallThreads % 32 == 0 && SmallThreads >= 256, "the one-block sort needs one thread per digit");
  static constexpr int threads = Threads;
  static constexpr int items = Items;
  static constexpr int tile = Threads * Items;
  static constexpr int small_threads = SmallThreads;
  static constexpr int small_items = SmallItems;
  static constexpr int small_tile = SmallThreads * SmallItems;
  static constexpr int hist_threads = 256;
  static constexpr int hist_items = HistItems;
  static constexpr int look_back = LookBack;
  static constexpr int rank = Rank;
};

/// The default policy for keys of KeyBytes and values of ValueBytes (0: keys only), by size class.
template <std::size_t KeyBytes, std::size_t ValueBytes>
struct radix_sort_default_policy {
  // H100, cuprim-lab run sort/ --full (docs/tuning.md, "Radix sort"): 384 x 16, look-back 16 measured 8.78 ms for
  // 2^28 uint32 keys, 0.73x CUB SortKeys; in the same run 384 x 24 lb16 measured 0.82x and 384 x 16 lb8 0.81x
  // (lb = look-back window). Kept at the configuration the GPU test suite ran with; the tile shrinks for 8-byte
  // keys or values so that registers and the shared-memory exchange allow two blocks of 384 threads per SM.
  using type = radix_sort_policy<384, (KeyBytes >= 8 || ValueBytes >= 8) ? 12 : 16, 512, 8>;
};

}  // namespace cuprim
