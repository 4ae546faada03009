// cuprim/device/detail/segmented_scan_tuning.cuh: launch policies for the segmented scans.
#pragma once

#include <cuprim/device/detail/load.cuh>
#include <cuprim/device/detail/scan_tuning.cuh>

#include <type_traits>

namespace cuprim {

/// The segmented scans use the single-pass scan's policy type (scan_policy: threads, vector bytes, vectors per
/// thread); a pair (start flag, value) takes twice the registers of a plain value. Arithmetic inputs: 256 threads ×
/// 8 vectors (8192 4-byte elements per tile). H200 sweep, inclusive_sum_by_key of 2^28 floats in 2^20 runs, CUB in
/// the same run: 256 × 8 0.67x, 256 × 6 0.60x, 128 × 12 0.58x, 128 × 8 0.57x, 256 × 3 0.56x, 512 × 4 0.51x,
/// 128 × 16 0.45x, 128 × 6 0.44x, 128 × 3 (the earlier default) 0.42x, 128 × 4 0.34x, 64 × 6 0.25x (docs/tuning.md).
/// 1- and 2-byte inputs take 2 and 4 vectors (32 elements per thread, as for 4-byte ones); user structs keep
/// 128 × 4 (neither swept).
template <class In>
struct segmented_scan_default_policy {
  using type = std::conditional_t<detail::vector_traits<In, 16>::vectorized,
                                  scan_policy<256, 16, (sizeof(In) >= 4 ? 8 : 8 * sizeof(In) / 4)>,  // 16-byte vectors
                                  scan_policy<128, 16, 4>>;  // user structs: one element per vector slot
};

}  // namespace cuprim
