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
/// lookback_cached_windows walked windows in shared memory for its fold (0: as many as fit in 4 KiB). With
/// lookback_grouped such types take the grouped look-back instead (prefixes of groups of 32 tiles, each group
/// combined by a fixed tree: no per-tile chain; the look-back width does not apply to them, and a nonzero
/// lookback_cached_windows below 32 caps the walked groups' trees kept in registers, for tests). Off by default:
/// within 4% of the ordered fold from 2^20 to 2^24 floats, and 2x slower on grids of 10^5 tiles (only one tile in
/// 32 publishes a prefix there, so walks grow long; docs/tuning.md, "Scan").
template <int Threads, int VectorBytes, int Vectors, int FirstWaitNs = 1200, int PollWaitNs = 650,
          int LookbackTilesPerLane = 1, int LookbackCachedWindows = 0, bool LookbackGrouped = false>
struct scan_policy {
  static constexpr int lookback_tiles_per_lane = LookbackTilesPerLane;
  static constexpr int lookback_cached_windows = LookbackCachedWindows;
  static constexpr bool lookback_grouped = LookbackGrouped;
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

/// The large-input pipeline (device/detail/scan_pipeline_kernel.cuh): persistent blocks of 3 + `ScanWarps` warps
/// (producer, aggregator, look-back, scan warps), `Stages` tiles of ScanWarps × 32 lanes × `LaneVectors`
/// 16-byte vectors in shared memory. It takes inputs of at least `MinElems` elements whose input and output are
/// 16-byte aligned and whose input, output and accumulator are one 4- or 8-byte arithmetic type, on sm_90 and
/// newer; every other call runs `Classic`, the one-tile-per-block policy above. Back-off and look-back width as
/// in scan_policy.
///
/// `Small` (optional) is a second one-tile-per-block policy for inputs of at most `SmallMax` elements: the tile that
/// suits a few tiles per launch is smaller than the one that suits a grid of one tile per SM.
template <int ScanWarps, int LaneVectors, int Stages, class Classic, long long MinElems = (1ll << 22),
          int FirstWaitNs = 400, int PollWaitNs = 200, int LookbackTilesPerLane = 1, class Small = void,
          long long SmallMax = 0>
struct scan_pipeline_policy {
  using classic = Classic;
  using small = Small;
  static constexpr long long small_max = SmallMax;
  static constexpr int scan_warps = ScanWarps;
  static constexpr int lane_vectors = LaneVectors;
  static constexpr int stages = Stages;
  static constexpr int block_threads = 32 * (3 + ScanWarps);
  static constexpr long long min_elems = MinElems;
  static constexpr unsigned first_wait_ns = FirstWaitNs;
  static constexpr unsigned poll_wait_ns = PollWaitNs;
  static constexpr int lookback_tiles_per_lane = LookbackTilesPerLane;
  static_assert(ScanWarps >= 1 && ScanWarps <= 29, "scan_warps must be in [1, 29]");
  static_assert(LaneVectors % 2 == 1 && LaneVectors <= 15, "lane_vectors must be odd, at most 15");
  static_assert(Stages >= 2 && Stages <= 16, "stages must be in [2, 16]");
  static_assert(LookbackTilesPerLane >= 1 && LookbackTilesPerLane <= 8, "lookback_tiles_per_lane must be in [1, 8]");
  static_assert(std::is_void_v<Small> || (SmallMax > 0 && SmallMax < MinElems),
                "small_max must be positive and below min_elems");
};

namespace detail {
template <class P, class = void>
struct is_scan_pipeline : std::false_type {};
template <class P>
struct is_scan_pipeline<P, std::void_t<typename P::classic>> : std::true_type {};
template <class P, bool = is_scan_pipeline<P>::value>
struct classic_scan_policy {
  using type = P;
};
template <class P>
struct classic_scan_policy<P, true> {
  using type = typename P::classic;
};
/// The one-tile-per-block policy of P (P itself, or a pipeline policy's fallback).
template <class P>
using classic_scan_policy_t = typename classic_scan_policy<P>::type;
template <class P, class = void>
struct small_scan_policy {
  using type = void;
};
template <class P>
struct small_scan_policy<P, std::void_t<typename P::small>> {
  using type = typename P::small;
};
/// The one-tile-per-block policy of P for inputs of at most P::small_max elements (void: none).
template <class P>
using small_scan_policy_t = typename small_scan_policy<P>::type;
}  // namespace detail

/// The tuning table, keyed by the input element's size class. sm_90 rows (H200, docs/tuning.md "Scan"):
///  - below 2^22 elements, unaligned inputs, types the pipeline does not take: one tile per block, 128 threads ×
///    16 vectors of 16 bytes for 4-byte types above 2^17 elements (8192 per tile: at 2^20 uint32 1.13-1.16x and
///    float 1.10-1.11x CUB against 1.06-1.07x and 0.95-0.96x for 3072-element tiles, two H200 runs: fewer tiles,
///    a shorter chain of published prefixes), 6 vectors up to 2^17 elements (at 2^16 float 1.06x against 0.93x for
///    the larger tile: a few tiles, each taking longer) and for the other sizes (not swept); 1200/650 ns back-off
///    (halved for grids of at most 4 tiles per SM);
///  - from 2^22 elements: the pipeline, 8 scan warps × 9 vectors per lane (36 KiB tiles), 3 stages (two blocks
///    per SM), 1200/650 ns back-off: at 2^28 1.19-1.20x CUB for uint32 and float in two runs, 2-3% ahead of
///    8 × 7 (28 KiB tiles, 1.16-1.20x in six runs) in the same runs, against 0.93-0.95x for one tile per block.
///    Shapes with one block per SM and 5-6 stages reached 1.21-1.24x in some runs and 0.96-1.15x in others; two
///    blocks per SM were the steadiest (sweeps in tuning.md). With the aggregator's one-pass totals (tuning.md,
///    "Where a pipeline tile's time goes") the same shape measured 1.21-1.22x, and with early stage release
///    ("Early stage release") 1.24-1.26x; 1200/650 to 2000/1000 ns are level there, shorter first waits 1% slower.
template <class T>
struct scan_default_policy {
  using type = std::conditional_t<
      detail::vector_traits<T, 16>::vectorized,
      std::conditional_t<sizeof(T) == 4,
                         scan_pipeline_policy<8, 9, 3, scan_policy<128, 16, 16>, (1ll << 22), 1200, 650, 1,
                                              scan_policy<128, 16, 6>, (1ll << 17)>,
                         scan_pipeline_policy<8, 9, 3, scan_policy<128, 16, 6>, (1ll << 22), 1200, 650>>,
      scan_policy<128, 16, 8>>;  // user structs: one element per vector slot
};

}  // namespace cuprim
