// cuprim/warp/scan.cuh: warp-wide prefix scans (executed by a whole warp; every lane must call).
//
//   T warp::inclusive_scan(v, op)                     lane i gets v0 ⊕ ... ⊕ vi (shuffle form)
//   T warp::inclusive_scan(v, op, total)              ... and every lane gets the warp total
//   T warp::inclusive_scan(v, op, valid, total)       lanes [0, valid) hold data; total = scan at lane valid-1
//   T warp::exclusive_scan(v, op, init)               lane i gets init ⊕ v0 ⊕ ... ⊕ v(i-1); lane 0 gets init
//   T warp::exclusive_scan(v, op, init, total)        ... and the warp total (without init)
//
// The seed's three forms (000, "Warp scan"), each correct without implicit warp-synchronous execution:
//   inclusive_scan_shared(v, op, smem)                shared memory, predicated (`lane >= offset`), 32 slots
//   inclusive_scan_padded(v, op, identity, smem)      branchless: 16 identity slots of padding, 48 slots
//   inclusive_scan (the default)                      __shfl_up_sync, registers only
// and the ballot scan of a predicate:
//   int ballot_exclusive_scan(pred, total)            lanes below with pred set (__ballot_sync + __popc)
//   int ballot_exclusive_scan_bfi(pred, total)        the same with the seed's `bfi` inline-PTX lane mask
//   int compact(value, pred, out)                     warp compaction: lanes with pred, in order
//
// `op` must be associative; it need not be commutative (the earlier value is always the left operand).
#pragma once

#include <cuprim/warp/shuffle.cuh>
#include <cuprim/warp/vote.cuh>

namespace cuprim::warp {

/// Inclusive scan by __shfl_up_sync (log2(32) = 5 steps, registers only).
template <class T, class Op>
__device__ __forceinline__ T inclusive_scan(T v, Op op) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < size; offset *= 2) {
    T earlier = shfl_up(v, offset);
    if (lane >= offset) v = op(earlier, v);
  }
  return v;
}

/// Inclusive scan; `total` receives the warp total in every lane.
template <class T, class Op>
__device__ __forceinline__ T inclusive_scan(T v, Op op, T& total) {
  v = inclusive_scan(v, op);
  total = shfl(v, size - 1);
  return v;
}

/// Inclusive scan of a partial warp: lanes [0, valid) hold data (1 ≤ valid ≤ 32); their results are exact,
/// lanes past `valid` get unspecified values; `total` (every lane) is the scan at lane valid - 1.
template <class T, class Op>
__device__ __forceinline__ T inclusive_scan(T v, Op op, int valid, T& total) {
  v = inclusive_scan(v, op);  // a lane's result depends only on lower lanes
  total = shfl(v, valid - 1);
  return v;
}

/// Exclusive scan seeded with init: lane 0 gets init, lane i gets init ⊕ v0 ⊕ ... ⊕ v(i-1).
template <class T, class Op>
__device__ __forceinline__ T exclusive_scan(T v, Op op, T init, T& total) {
  T inclusive = inclusive_scan(v, op, total);
  T earlier = shfl_up(inclusive, 1);
  return lane_id() == 0 ? init : op(init, earlier);
}

/// Exclusive scan seeded with init.
template <class T, class Op>
__device__ __forceinline__ T exclusive_scan(T v, Op op, T init) {
  T total;
  return exclusive_scan(v, op, init, total);
}

/// The seed's first form: shared memory, predicated. `smem` holds 32 T for this warp. Each step's reads and
/// writes are separated by __syncwarp() (the seed's `volatile` version races under independent scheduling).
template <class T, class Op>
__device__ __forceinline__ T inclusive_scan_shared(T v, Op op, T* smem) {
  const int lane = lane_id();
  smem[lane] = v;
  __syncwarp();
#pragma unroll
  for (int offset = 1; offset < size; offset *= 2) {
    T earlier = v;
    if (lane >= offset) earlier = smem[lane - offset];
    __syncwarp();
    if (lane >= offset) v = op(earlier, v);
    smem[lane] = v;
    __syncwarp();
  }
  return v;
}

/// The seed's branchless form: 16 slots of `identity` before the data let every lane read s[-offset]
/// without a test. `smem` holds 48 T for this warp. `identity` must satisfy op(identity, x) == x.
template <class T, class Op>
__device__ __forceinline__ T inclusive_scan_padded(T v, Op op, T identity, T* smem) {
  const int lane = lane_id();
  T* s = smem + size / 2 + lane;
  if (lane < size / 2) smem[lane] = identity;
  s[0] = v;
  __syncwarp();
#pragma unroll
  for (int offset = 1; offset < size; offset *= 2) {
    T earlier = s[-offset];
    __syncwarp();
    v = op(earlier, v);
    s[0] = v;
    __syncwarp();
  }
  return v;
}

/// Bits of the lanes below the caller.
__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

/// The seed's bfi(x, y, bit, numBits): inserts the low numBits of x into y at `bit`.
__device__ __forceinline__ unsigned bfi(unsigned x, unsigned y, unsigned bit, unsigned num_bits) {
  unsigned r;
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(x), "r"(y), "r"(bit), "r"(num_bits));
  return r;
}

/// Ballot scan: the number of lanes below this one whose `pred` holds; `total` gets the count over the warp.
__device__ __forceinline__ int ballot_exclusive_scan(bool pred, int& total) {
  const unsigned bits = __ballot_sync(full_mask, pred);
  total = __popc(bits);
  return __popc(bits & lanemask_lt());
}

/// Ballot scan with the lane mask built by the seed's bfi: bfi(0xffffffff, 0, 0, lane) sets bits [0, lane).
__device__ __forceinline__ int ballot_exclusive_scan_bfi(bool pred, int& total) {
  const unsigned bits = __ballot_sync(full_mask, pred);
  const unsigned mask = bfi(0xffffffffu, 0u, 0u, static_cast<unsigned>(lane_id()));
  total = __popc(bits);
  return __popc(bits & mask);
}

/// Warp compaction (the seed's BallotScanWarp): the values of lanes whose `pred` holds, in lane order, are
/// written to out[0 .. count); returns count in every lane. Registers and one ballot; no shared memory.
template <class T>
__device__ __forceinline__ int compact(const T& value, bool pred, T* out) {
  int total;
  const int rank = ballot_exclusive_scan(pred, total);
  if (pred) out[rank] = value;
  return total;
}

}  // namespace cuprim::warp
