// cuprim/warp/reduce.cuh: warp-wide reductions by shuffle (executed by a whole warp).
//
//   T warp::reduce(v, op)             butterfly (shfl_xor): every lane receives the result.
//   T warp::reduce_down(v, op)        tree (shfl_down): lane 0 receives the result (seed 002's two forms).
//   T warp::reduce(v, op, valid)      only lanes [0, valid) contribute; every lane receives the result.
//   T warp::reduce_ordered(v, op)     lane order kept (v0 ⊕ v1 ⊕ ... ⊕ v31), for non-commutative
//                                     operators; every lane receives the result.
//
// Sub-groups and segments (the warp split into independent pieces; every lane receives its piece's result):
//   T warp::reduce<Width>(v, op)      sub-groups of Width consecutive lanes (Width a power of two, 1..32), lanes
//                                     [g·Width, (g+1)·Width): lane order kept (butterfly with growing offsets, every
//                                     step puts the lower run on the left), so `op` need only be associative
//   T warp::segmented_reduce(v, head, op)
//                                     segments begin at lanes whose `head` flag is set (lane 0 always begins one):
//                                     every lane gets op over its segment in lane order (scan.cuh's segmented
//                                     inclusive scan, then the segment's last lane's value)
//
// `op` must be associative and, except for reduce_ordered, reduce<Width> and the partial and segmented forms,
// commutative. All 32 lanes must call (the partial form included: lanes past `valid` still call, their value is
// ignored). Nothing here relies on implicit warp-synchronous execution.
#pragma once

#include <cuprim/warp/scan.cuh>
#include <cuprim/warp/shuffle.cuh>

namespace cuprim::warp {

/// Butterfly reduction: all lanes get op over the 32 values.
template <class T, class Op>
__device__ __forceinline__ T reduce(T v, Op op) {
#pragma unroll
  for (int offset = size / 2; offset > 0; offset /= 2) v = op(v, shfl_xor(v, offset));
  return v;
}

/// Tree reduction with shfl_down: lane 0 gets op over the 32 values (other lanes hold partial results).
template <class T, class Op>
__device__ __forceinline__ T reduce_down(T v, Op op) {
#pragma unroll
  for (int offset = size / 2; offset > 0; offset /= 2) v = op(v, shfl_down(v, offset));
  return v;
}

/// Reduction over lanes [0, valid) (1 ≤ valid ≤ 32) in lane order; every lane gets the result.
template <class T, class Op>
__device__ __forceinline__ T reduce(T v, Op op, int valid) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < size; offset *= 2) {
    T other = shfl_down(v, offset);
    if (lane + offset < valid) v = op(v, other);
  }
  return shfl(v, 0);
}

/// Reduction in lane order (adjacent segments are combined, earlier on the left): correct for associative,
/// non-commutative operators. Every lane gets the result.
template <class T, class Op>
__device__ __forceinline__ T reduce_ordered(T v, Op op) {
  return reduce(v, op, size);
}

/// Reduction over sub-groups of Width consecutive lanes (Width a power of two, 1 ≤ Width ≤ 32): every lane gets
/// op over its sub-group's values in lane order. reduce<32> is the whole warp in lane order.
template <int Width, class T, class Op>
__device__ __forceinline__ T reduce(T v, Op op) {
  static_assert(Width >= 1 && Width <= size && (Width & (Width - 1)) == 0,
                "warp::reduce<Width>: Width must be a power of two in [1, 32]");
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < Width; offset *= 2) {
    // v covers the aligned run of `offset` lanes around this lane (offsets grow, so the runs stay contiguous); the
    // partner holds the adjacent run: the lower run goes left.
    const T other = shfl_xor(v, offset);
    v = (lane & offset) ? op(other, v) : op(v, other);
  }
  return v;
}

/// Head-flag segmented reduction: a segment begins at every lane whose `head` is true (and at lane 0); every lane
/// gets op over its segment's values in lane order.
template <class T, class Op>
__device__ __forceinline__ T segmented_reduce(T v, bool head, Op op) {
  const unsigned heads = __ballot_sync(full_mask, head) | 1u;
  const T inclusive = segmented_inclusive_scan(v, head, op);
  // The segment's last lane: just below the next head, or lane 31.
  const unsigned later = heads & ~(lanemask_lt() | (1u << lane_id()));
  return shfl(inclusive, later ? __ffs(static_cast<int>(later)) - 2 : size - 1);
}

}  // namespace cuprim::warp
