// cuprim/device/detail/scan_pipeline_kernel.cuh: the large-input scan as a job of the look-back pipeline
// (lookback_pipeline.cuh: persistent blocks, bulk copies into a ring of shared-memory tiles, producer, aggregator,
// look-back and segment warps).
//
// The job has register_emit, so the pipeline releases each stage early: a segment warp takes a full segment into
// registers warp-striped, releases the stage, scans the segment row by row (emit_regs) and stores it straight from
// registers, 512 contiguous bytes per store instruction. The last tile's partial segments are scanned and stored
// element by element from the stage (emit). Results are the same bits from run to run: the aggregate is a fixed
// tree of the tile, the prefix the look-back's left fold, and each element prefix ⊕ (rows, lanes and vector
// elements before it) in a fixed association. Floating-point results differ in the last bits from builds before
// early release (another fixed association).
#pragma once

#include <cuprim/device/detail/lookback_pipeline.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

/// Whether the pipeline kernel can take In -> Out accumulated in Acc (the run-time conditions come on top: n,
/// alignment, the device).
template <class In, class Out, class Acc>
inline constexpr bool scan_pipeline_takes = std::is_same_v<In, Out> && std::is_same_v<Out, Acc> &&
                                            std::is_arithmetic_v<In> && (sizeof(In) == 4 || sizeof(In) == 8);

/// The row scans of a full segment held warp-striped in registers (load_striped: x[j·V .. j·V + V) is the lane's
/// vector of row j, a row being 32 consecutive vectors, one per lane): scans each vector in place and returns in
/// before[j] the carry of everything before the lane's vector of row j within the segment (absent for row 0, lane
/// 0). The K rows' warp scans interleave. C is the carry type (the scan's value, or the scan by key's pair).
template <int K, int V, class C, class Op>
__device__ __forceinline__ void striped_row_carries(C (&x)[K * V], Op op, maybe<C> (&before)[K]) {
  const int lane = warp::lane_id();
  C t[K];  // per row: the lane's vector total, then the inclusive scan of those over the row's lanes
#pragma unroll
  for (int j = 0; j < K; ++j) {
#pragma unroll
    for (int c = 1; c < V; ++c) x[j * V + c] = op(x[j * V + c - 1], x[j * V + c]);
    t[j] = x[j * V + V - 1];
  }
#pragma unroll
  for (int offset = 1; offset < warp::size; offset *= 2) {
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const C earlier = warp::shfl_up(t[j], unsigned(offset));
      if (lane >= offset) t[j] = op(earlier, t[j]);
    }
  }
  // Rows before j, then lanes before.
  maybe<C> rows{C{}, false};
#pragma unroll
  for (int j = 0; j < K; ++j) {
    before[j] = combine(rows, maybe<C>{warp::shfl_up(t[j], 1u), lane > 0}, op);
    rows = combine(rows, maybe<C>{warp::shfl(t[j], warp::size - 1), true}, op);
  }
}

template <bool Exclusive, bool HasInit, class T, class Op>
struct scan_pipeline_job : pipeline_common<T, T> {
  using value_type = T;
  using carry_type = T;
  static constexpr bool register_emit = true;  // emit_regs below (lookback_pipeline.cuh: early release)
  T* out;
  Op op;
  T init;

  __device__ __forceinline__ maybe<T> initial() const { return {init, HasInit}; }
  __device__ __forceinline__ void finish(const T&) const {}

  /// op over this lane's LE elements of a full segment, as an in-order tree: depth ⌈log2 LE⌉ instead of the LE - 1
  /// dependent operations of a left fold (the aggregator's pass over a tile is on the path to the tile's published
  /// aggregate, which later tiles' look-backs wait for).
  template <class Shape>
  __device__ __forceinline__ T lane_total(const T* seg) const {
    T x[Shape::LE];
    load_lane<Shape>(seg, x);
#pragma unroll
    for (int step = 1; step < Shape::LE; step *= 2) {
#pragma unroll
      for (int i = 0; i + step < Shape::LE; i += 2 * step) x[i] = op(x[i], x[i + step]);
    }
    return x[0];
  }

  /// op over the segment's first `count` elements, in order (absent when count is 0).
  template <class Shape>
  __device__ __forceinline__ maybe<T> segment_total(const T* seg, int count) const {
    if (count == Shape::SE) {
      T x[Shape::LE];
      load_lane<Shape>(seg, x);
      T acc = x[0];
#pragma unroll
      for (int i = 1; i < Shape::LE; ++i) acc = op(acc, x[i]);
      return {warp::reduce(acc, op, warp::size), true};
    }
    const int c = lane_count<Shape>(count), first = warp::lane_id() * Shape::LE;
    T acc = c > 0 ? seg[first] : T{};
    for (int i = 1; i < c; ++i) acc = op(acc, seg[first + i]);
    const int lanes = __popc(__ballot_sync(warp::full_mask, c > 0));  // a prefix of the lanes
    return {lanes > 0 ? warp::reduce(acc, op, lanes > 0 ? lanes : 1) : T{}, lanes > 0};
  }

  /// A full segment already in registers in the warp-striped layout (load_striped: lane l holds the segment's
  /// 16-byte vectors l, l + 32, ..., so that every store instruction below writes 512 consecutive bytes; its stage
  /// is released by then): scans it row by row (a row is 32 consecutive vectors, one per lane; the K rows' warp
  /// scans interleave), takes the carry of everything before the segment from `prefix()` (which waits for it) and
  /// stores the results straight from registers to out + seg_base.
  template <class Shape, class Prefix>
  __device__ __forceinline__ void emit_regs(T (&x)[Shape::LE], std::uint64_t seg_base, Prefix&& prefix) const {
    constexpr int K = Shape::K, V = Shape::V;
    const int lane = warp::lane_id();
    maybe<T> before[K];  // carry before row j's vector in this lane, without the segment's prefix
    striped_row_carries<K, V>(x, op, before);
    const maybe<T> p = prefix();
    uint4* o = reinterpret_cast<uint4*>(out + seg_base);
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const maybe<T> b = combine(p, before[j], op);
      T y[V];
      if constexpr (Exclusive) {
        y[0] = b.value;  // an exclusive scan has an init: b.has holds
#pragma unroll
        for (int c = 1; c < V; ++c) y[c] = op(b.value, x[j * V + c - 1]);
      } else {
#pragma unroll
        for (int c = 0; c < V; ++c) y[c] = b.has ? op(b.value, x[j * V + c]) : x[j * V + c];
      }
      uint4 r;
      std::memcpy(&r, y, 16);
      o[j * warp::size + lane] = r;
    }
  }

  /// Scans a partial segment's first `count` elements after `p` and stores them at out + seg_base (full
  /// segments take emit_regs).
  template <class Shape>
  __device__ __forceinline__ void emit(T* seg, std::uint64_t seg_base, int count, maybe<T> p) const {
    constexpr int LE = Shape::LE;
    const int lane = warp::lane_id();
    // The last tile's partial segment, element by element (plain loops: no register array indexed by the
    // run-time count). Lane l owns [l·LE, l·LE + c); lanes without elements come last.
    const int c = lane_count<Shape>(count), first = lane * LE;
    T total = c > 0 ? seg[first] : T{};
    for (int i = 1; i < c; ++i) total = op(total, seg[first + i]);
    const T incl = warp::inclusive_scan(total, op);
    maybe<T> run = combine(p, maybe<T>{warp::shfl_up(incl, 1), lane > 0}, op);
    for (int i = 0; i < c; ++i) {
      const T x = seg[first + i];
      if constexpr (Exclusive) {
        out[seg_base + first + i] = run.value;
        run = combine(run, maybe<T>{x, true}, op);
      } else {
        run = combine(run, maybe<T>{x, true}, op);
        out[seg_base + first + i] = run.value;
      }
    }
  }
};

}  // namespace cuprim::detail
