// cuprim/device/detail/scan_tuning.cuh: launch policies for the single-pass device scan.
#pragma once

#include <cuprim/device/detail/load.cuh>

#include <type_traits>

namespace cuprim {

/// Tile shape of the single-pass scan. Each thread holds `vectors` chunks of vector_bytes / sizeof(T)
/// consecutive elements; a warp's chunk k covers 32 consecutive vectors (coalesced 16-byte loads and stores);
/// a tile is threads × vectors × (vector_bytes / sizeof(T)) elements, one tile per block.
///
/// Before its first look-back read a block sleeps first_wait_ns (its predecessors are usually about to
/// publish), and between polls of a window that is not ready, poll_wait_ns: polling flat out floods L2 with
/// status reads and slows every block's data traffic. Each look-back round trip reads 32 × lookback_tiles_per_lane
/// predecessors. The ordered look-back (floating-point and user types) keeps the aggregates of up to
/// lookback_cached_windows walked windows in shared memory for its fold (0: as many as fit in 4 KiB).
template <int Threads, int VectorBytes, int Vectors, int FirstWaitNs = 1200, int PollWaitNs = 650,
          int LookbackTilesPerLane = 1, int LookbackCachedWindows = 0>
struct scan_policy {
  static constexpr int lookback_tiles_per_lane = LookbackTilesPerLane;
  static constexpr int lookback_cached_windows = LookbackCachedWindows;
  static constexpr int threads = Threads;
  static constexpr int vector_bytes = VectorBytes;
  static constexpr int vectors = Vectors;
  static constexpr unsigned first_wait_ns = FirstWaitNs;
  static constexpr unsigned poll_wait_ns = PollWaitNs;
  static_assert(Threads % 32 == 0 && Threads >= 32 && Threads <= 1024, "threads must be a multiple of 32, at most 1024");
  static_assert(VectorBytes == 4 || VectorBytes == 8 || VectorBytes == 16, "vector_bytes must be 4, 8 or 16");
  static_assert(Vectors >= 1 && Vectors <= 16, "vectors must be in [1, 16]");
  static_assert(LookbackTilesPerLane >= 1 && LookbackTilesPerLane <= 8, "lookback_tiles_per_lane must be in [1, 8]");
  static_assert(LookbackCachedWindows >= 0 && LookbackCachedWindows <= 64, "lookback_cached_windows must be in [0, 64]");
};

/// The tuning table, keyed by the input element's size class. sm_90 rows (H200, docs/tuning.md "Scan"):
/// 128 threads × 6 vectors (3072 4-byte elements per tile) with 1200/650 ns back-off measured best of
/// {64,128,256,512} × {2,4,6,8} at 2^28 uint32.
template <class T>
struct scan_default_policy {
  using type = std::conditional_t<detail::vector_traits<T, 16>::vectorized,
                                  scan_policy<128, 16, 6>,   // arithmetic types: 16-byte vectors
                                  scan_policy<128, 16, 8>>;  // user structs: one element per vector slot
};

}  // namespace cuprim
