// cuprim/warp/vote.cuh: warp votes (executed by a warp; every lane named in `mask` must call).
#pragma once

namespace cuprim::warp {

/// True when `pred` holds on every lane in mask.
__device__ __forceinline__ bool all(bool pred, unsigned mask = 0xffffffffu) { return __all_sync(mask, pred); }
/// True when `pred` holds on some lane in mask.
__device__ __forceinline__ bool any(bool pred, unsigned mask = 0xffffffffu) { return __any_sync(mask, pred); }
/// Bit i set when `pred` holds on lane i (lanes outside mask read as 0).
__device__ __forceinline__ unsigned ballot(bool pred, unsigned mask = 0xffffffffu) { return __ballot_sync(mask, pred); }
/// Number of lanes in mask where `pred` holds.
__device__ __forceinline__ int count(bool pred, unsigned mask = 0xffffffffu) {
  return __popc(__ballot_sync(mask, pred));
}

}  // namespace cuprim::warp
