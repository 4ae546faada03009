// cuprim/warp/compact.cuh: warp stream compaction into a queue shared by many warps (executed by any subset of a
// warp's lanes, in divergent code).
//
//   compact_slot<Size> warp::compact_append(value, pred, out, counter)
//       The calling lanes whose `pred` holds append their values to out[] in lane order: the lanes that call
//       together (the active mask) reserve `count` consecutive slots with ONE atomicAdd on *counter per call (by
//       the lowest selected lane; none when no lane is selected), and the lane of rank r among the selected ones
//       writes out[base + r]. Every calling lane gets {base, rank, count}; a selected lane's value is at
//       out[base + rank]. Size is the counter's type: a 32- or 64-bit integer.
//
// Ranks come from the ballot scan (scan.cuh): rank = popc(ballot & lanemask_lt), count = popc(ballot). Within one
// call the values land in lane order; different calls (other warps, or lanes of this warp that reach the call at
// another time) take other ranges of slots, in the order their atomics happen, so out[] is contiguous but its
// order across warps is unspecified. The caller sizes out[] for everything that can be appended; nothing checks.
// For compaction into a warp's own slots, with no atomic (all lanes named in a mask call), see warp::compact and
// warp::ballot_exclusive_scan in scan.cuh. Nothing here relies on implicit warp-synchronous execution.
#pragma once

#include <cuprim/warp/atomic.cuh>
#include <cuprim/warp/scan.cuh>
#include <cuprim/warp/shuffle.cuh>

#include <type_traits>

namespace cuprim::warp {

/// Where a compact_append call put the lanes' values: the first slot the call reserved, the lane's rank among the
/// selected lanes of the call (meaningful where `pred` held), and how many lanes were selected.
template <class Size>
struct compact_slot {
  Size base;
  int rank;
  int count;
};

/// Appends the values of the calling lanes whose `pred` holds to out[*counter ...], one atomicAdd per call.
template <class T, class Size>
__device__ __forceinline__ compact_slot<Size> compact_append(const T& value, bool pred, T* out, Size* counter) {
  static_assert(detail::atomic_integer_v<Size>, "warp::compact_append: the counter must be a 32- or 64-bit integer");
  const unsigned active = __activemask();
  const unsigned selected = __ballot_sync(active, pred);
  compact_slot<Size> slot{Size(0), __popc(selected & lanemask_lt()), __popc(selected)};
  if (selected != 0u) {  // the same on every calling lane
    const int leader = __ffs(static_cast<int>(selected)) - 1;
    if (lane_id() == leader)
      slot.base = detail::hardware_atomic<detail::atomic_add_op>(counter, static_cast<Size>(slot.count));
    slot.base = shfl(slot.base, leader, active);
    if (pred) out[slot.base + static_cast<Size>(slot.rank)] = value;
  }
  return slot;
}

}  // namespace cuprim::warp
