// cuprim/device/detail/histogram_tuning.cuh: the production histogram's privatization thresholds.
//
// The production path picks its layout from the total bin count T (device/histogram.cuh, histogram_plan_for):
//   T ≤ lanes_max_bins                per-lane sub-histograms (32 per copy, T × 128 bytes per copy), with
//                                     copies = clamp(lanes_bytes / (T × 128), 1, lanes_max_copies)
//   T × 4 + 1 KiB ≤ opt-in limit      shared sub-histograms, copies = clamp(shared_bytes / (T × 4), 1,
//                                     shared_max_copies) (warp w uses copy w % copies)
//   otherwise                         atomics on the output in device memory (runs merged per thread)
// 512 threads per block, grid = the resident blocks (cudaOccupancyMaxActiveBlocksPerMultiprocessor × SMs).
// Provenance: docs/tuning.md "Histogram".
#pragma once

#include <cstddef>

namespace cuprim::histogram_tuning {

inline constexpr std::size_t lanes_max_bins = 512;
inline constexpr std::size_t lanes_bytes = 32 * 1024;
inline constexpr std::size_t lanes_max_copies = 4;
inline constexpr std::size_t shared_bytes = 48 * 1024;
inline constexpr std::size_t shared_max_copies = 16;

}  // namespace cuprim::histogram_tuning
