// cuprim/warp/scan.cuh: warp-wide prefix scans (executed by a whole warp; every lane must call).
//
//   T warp::inclusive_scan(v, op)                     lane i gets v0 ⊕ ... ⊕ vi (shuffle form)
//   T warp::inclusive_scan(v, op, total)              ... and every lane gets the warp total
//   T warp::inclusive_scan(v, op, valid, total)       lanes [0, valid) hold data; total = scan at lane valid-1
//   T warp::exclusive_scan(v, op, init)               lane i gets init ⊕ v0 ⊕ ... ⊕ v(i-1); lane 0 gets init
//   T warp::exclusive_scan(v, op, init, total)        ... and the warp total (without init)
//
// Sub-groups of Width consecutive lanes (Width a power of two, 1..32; sub-group g is lanes [g·Width, (g+1)·Width),
// each scanned independently; "lane i" below is the lane's index within its sub-group):
//   T warp::inclusive_scan<Width>(v, op)              lane i gets v0 ⊕ ... ⊕ vi of its sub-group
//   T warp::inclusive_scan<Width>(v, op, total)       ... and every lane gets its sub-group's total
//   T warp::exclusive_scan<Width>(v, op, init)        lane i gets init ⊕ v0 ⊕ ... ⊕ v(i-1); lane 0 gets init
//   T warp::exclusive_scan<Width>(v, op, init, total) ... and its sub-group's total (without init)
// Head-flag segments (a segment begins at every lane whose `head` is true, and at lane 0; segments need not be
// aligned or of equal length; "lane i" is the lane's index within its segment):
//   T warp::segmented_inclusive_scan(v, head, op)        lane i gets v0 ⊕ ... ⊕ vi of its segment
//   T warp::segmented_exclusive_scan(v, head, op, init)  lane i gets init ⊕ v0 ⊕ ... ⊕ v(i-1); a head gets init
// (warp::segmented_reduce, every lane its segment's total, is in reduce.cuh.)
//
// The seed's three forms (000, "Warp scan"), each correct without implicit warp-synchronous execution:
//   inclusive_scan_shared(v, op, smem)                shared memory, predicated (`lane >= offset`), 32 slots
//   inclusive_scan_padded(v, op, identity, smem)      branchless: 16 identity slots of padding, 48 slots
//   inclusive_scan (the default)                      __shfl_up_sync, registers only
// and the ballot scan of a predicate:
//   int ballot_exclusive_scan(pred, total, mask)      lanes below with pred set (__ballot_sync + __popc)
//   int ballot_exclusive_scan_bfi(pred, total)        the same with the seed's `bfi` inline-PTX lane mask
//   int compact(value, pred, out, mask)               warp compaction: lanes with pred, in order
// `mask` (default: the whole warp) names the lanes that call, as for the votes; lanes outside it count as false.
// For compaction into a queue shared by many warps (one atomicAdd per warp for the base, any subset of lanes) see
// warp::compact_append in compact.cuh.
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
/// Every lane named in `mask` must call; the others count as false.
__device__ __forceinline__ int ballot_exclusive_scan(bool pred, int& total, unsigned mask = full_mask) {
  const unsigned bits = __ballot_sync(mask, pred);
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
/// Every lane named in `mask` must call (the others write nothing).
template <class T>
__device__ __forceinline__ int compact(const T& value, bool pred, T* out, unsigned mask = full_mask) {
  int total;
  const int rank = ballot_exclusive_scan(pred, total, mask);
  if (pred) out[rank] = value;
  return total;
}

// ---- sub-groups of Width lanes

namespace detail {
template <int Width>
inline constexpr bool valid_width_v = Width >= 1 && Width <= size && (Width & (Width - 1)) == 0;
}  // namespace detail

/// Inclusive scan of each sub-group of Width consecutive lanes (Width a power of two, 1 ≤ Width ≤ 32).
template <int Width, class T, class Op>
__device__ __forceinline__ T inclusive_scan(T v, Op op) {
  static_assert(detail::valid_width_v<Width>, "warp::inclusive_scan<Width>: Width must be a power of two in [1, 32]");
  const int i = lane_id() & (Width - 1);
#pragma unroll
  for (int offset = 1; offset < Width; offset *= 2) {
    T earlier = shfl_up(v, offset);
    if (i >= offset) v = op(earlier, v);
  }
  return v;
}

/// Inclusive scan of each sub-group of Width lanes; `total` receives the sub-group's total in each of its lanes.
template <int Width, class T, class Op>
__device__ __forceinline__ T inclusive_scan(T v, Op op, T& total) {
  v = inclusive_scan<Width>(v, op);
  total = shfl(v, lane_id() | (Width - 1));
  return v;
}

/// Exclusive scan of each sub-group of Width lanes seeded with init (a sub-group's first lane gets init); `total`
/// receives the sub-group's total (without init).
template <int Width, class T, class Op>
__device__ __forceinline__ T exclusive_scan(T v, Op op, T init, T& total) {
  const T inclusive = inclusive_scan<Width>(v, op, total);
  const T earlier = shfl_up(inclusive, 1);
  return (lane_id() & (Width - 1)) == 0 ? init : op(init, earlier);
}

/// Exclusive scan of each sub-group of Width lanes seeded with init.
template <int Width, class T, class Op>
__device__ __forceinline__ T exclusive_scan(T v, Op op, T init) {
  T total;
  return exclusive_scan<Width>(v, op, init, total);
}

// ---- head-flag segments

namespace detail {
/// The first lane of the calling lane's segment (the highest head at or below it; lane 0 always heads).
__device__ __forceinline__ int segment_start(bool head) {
  const unsigned heads = __ballot_sync(full_mask, head) | 1u;
  const unsigned at_or_below = heads & (lanemask_lt() | (1u << lane_id()));
  return size - 1 - __clz(static_cast<int>(at_or_below));
}

/// Inclusive scan within segments; `start` is the calling lane's segment's first lane.
template <class T, class Op>
__device__ __forceinline__ T segmented_inclusive_scan(T v, int start, Op op) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < size; offset *= 2) {
    T earlier = shfl_up(v, offset);
    if (lane - offset >= start) v = op(earlier, v);  // the lane `offset` below is in the same segment
  }
  return v;
}
}  // namespace detail

/// Head-flag segmented inclusive scan: a segment begins at every lane whose `head` is true (and at lane 0); lane i
/// of a segment gets v0 ⊕ ... ⊕ vi of that segment. All 32 lanes call.
template <class T, class Op>
__device__ __forceinline__ T segmented_inclusive_scan(T v, bool head, Op op) {
  return detail::segmented_inclusive_scan(v, detail::segment_start(head), op);
}

/// Head-flag segmented exclusive scan seeded with init: a segment's first lane gets init, lane i gets
/// init ⊕ v0 ⊕ ... ⊕ v(i-1) of its segment. All 32 lanes call.
template <class T, class Op>
__device__ __forceinline__ T segmented_exclusive_scan(T v, bool head, Op op, T init) {
  const int start = detail::segment_start(head);
  const T inclusive = detail::segmented_inclusive_scan(v, start, op);
  const T earlier = shfl_up(inclusive, 1);
  return lane_id() == start ? init : op(init, earlier);
}

}  // namespace cuprim::warp
