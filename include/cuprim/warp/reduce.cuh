// cuprim/warp/reduce.cuh: warp-wide reductions by shuffle (executed by a whole warp).
//
//   T warp::reduce(v, op)             butterfly (shfl_xor): every lane receives the result.
//   T warp::reduce_down(v, op)        tree (shfl_down): lane 0 receives the result (seed 002's two forms).
//   T warp::reduce(v, op, valid)      only lanes [0, valid) contribute; every lane receives the result.
//   T warp::reduce_ordered(v, op)     lane order kept (v0 ⊕ v1 ⊕ ... ⊕ v31), for non-commutative
//                                     operators; every lane receives the result.
//
// `op` must be associative and, except for reduce_ordered and the partial form, commutative. All 32 lanes must call
// (the partial form included: lanes past `valid` still call, their value is ignored). Nothing here relies on
// implicit warp-synchronous execution.
#pragma once

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

}  // namespace cuprim::warp
