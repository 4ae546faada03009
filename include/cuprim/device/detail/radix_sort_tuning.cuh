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
///   EarlyCounts            a tile counts its digits (one shared atomic per key) and publishes them before ranking,
///                          so that successors' look-backs do not wait for its ranking
template <int Threads, int Items, int SmallThreads, int SmallItems, int HistItems = 16, int LookBack = 16,
          int Rank = 0, bool EarlyCounts = false>
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
  static constexpr bool early_counts = EarlyCounts;
};

/// The default policy for keys of KeyBytes and values of ValueBytes (0: keys only), by size class.
template <std::size_t KeyBytes, std::size_t ValueBytes>
struct radix_sort_default_policy {
  // H200, cuprim-lab run sort/policy --full (docs/tuning.md, "Radix sort", run 3): 384 x 24 keys, look-back window
  // 8, ranking by ballots + shared atomics measured 7.19-7.25 ms for 2^28 uint32 keys, 0.87-0.88x CUB SortKeys,
  // against 8.57-8.67 ms (0.73x) for the previous default (384 x 16, window 16, warp-synchronous ranking) in the
  // same runs. 384 x 28 with early counts measured 7.15 ms (0.88x, within the spread); match.any ranking 0.51-0.57x.
  // 8-byte keys or values keep a 12-key tile so that registers and the shared-memory exchange allow two blocks of
  // 384 threads per SM (not re-measured with the atomic ranking apart from the lab's production rows).
  using type = radix_sort_policy<384, (KeyBytes >= 8 || ValueBytes >= 8) ? 12 : 24, 512, 8, 16, 8, 1>;
};

}  // namespace cuprim
