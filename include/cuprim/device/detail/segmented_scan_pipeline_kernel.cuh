// cuprim/device/detail/segmented_scan_pipeline_kernel.cuh: the large inclusive scan by key as a keyed job of the
// look-back pipeline (lookback_pipeline.cuh: persistent blocks, bulk copies into a ring of shared-memory tiles,
// producer, aggregator, look-back and segment warps).
//
// Why: the one-tile-per-block kernel (segmented_scan_kernel.cuh) holds a tile of (start, value) pairs in registers
// while its look-back completes; pairs double the registers, so two blocks per SM hold the loads in flight, and
// while both wait for prefixes nothing is loaded (H200, 2^28 floats in 2^20 runs: 0.67x CUB at its best tile). Here
// the producer streams keys and values into the ring whatever the look-backs do, as for the plain scan.
//
// The carries are the segmented scan's pairs (seg_pair: the value since the latest run start in the range, and
// whether a run starts in it) under seg_pair_op, so the look-back, its tile states and the determinism argument are
// those of the one-tile kernel; element i starts a run when !eq(keys[i-1], keys[i]) (element 0 needs no flag:
// nothing comes before it, so its flag never changes a value). Every element's key neighbour is in shared memory:
// the ring keeps the key before each tile in the stage's header (stage_keys(t)[-1]).
//
// Early release, as the scan's job: a segment warp copies its full segment's values into registers warp-striped,
// reduces its keys to one bit per element (load_side), releases the stage, scans the pairs row by row
// (striped_row_carries) and stores the values straight from registers. Partial segments (the last tile) are scanned
// element by element from the stage.
#pragma once

#include <cuprim/device/detail/lookback_pipeline.cuh>
#include <cuprim/device/detail/scan_pipeline_kernel.cuh>
#include <cuprim/device/detail/segmented_scan_kernel.cuh>

#include <cstdint>
#include <cstring>

namespace cuprim::detail {

/// Whether the keyed pipeline takes a scan by key of In -> Out accumulated in Acc with keys of type Key (the
/// run-time conditions come on top: n, alignment, the device): the scan pipeline's types, keys of the values' size.
template <class In, class Out, class Acc, class Key>
inline constexpr bool scan_by_key_pipeline_takes =
    scan_pipeline_takes<In, Out, Acc> && sizeof(Key) == sizeof(In) && std::is_trivially_copyable_v<Key>;

template <class T, class Key, class Eq, class Op>
struct scan_by_key_pipeline_job : pipeline_common<T, seg_pair<T>> {
  using value_type = T;
  using key_type = Key;
  using carry_type = seg_pair<T>;
  static constexpr bool register_emit = true;  // emit_regs below (lookback_pipeline.cuh: early release)
  const Key* keys;
  T* out;
  seg_pair_op<Op> op;
  Eq eq;

  __device__ __forceinline__ maybe<carry_type> initial() const { return {carry_type{}, false}; }
  __device__ __forceinline__ void finish(const carry_type&) const {}

  /// Element at k (a key in the stage) starts a run.
  __device__ __forceinline__ bool starts(const Key* k) const { return !eq(k[-1], k[0]); }

  /// op over this lane's LE elements of a full segment as an in-order tree (the aggregator's pass over a tile is on
  /// the path to the tile's published aggregate; lookback_pipeline.cuh's full_tile_totals).
  template <class Shape>
  __device__ __forceinline__ carry_type lane_total(const T* seg) const {
    constexpr int LE = Shape::LE;
    T x[LE];
    Key k[LE];
    const Key* ks = stage_keys<Shape, Key>(seg);
    load_lane<Shape>(seg, x);
    load_lane<Shape>(ks, k);
    const Key before = ks[warp::lane_id() * LE - 1];
    carry_type p[LE];
#pragma unroll
    for (int i = 0; i < LE; ++i) p[i] = {x[i], !eq(i > 0 ? k[i - 1] : before, k[i])};
#pragma unroll
    for (int step = 1; step < LE; step *= 2) {
#pragma unroll
      for (int i = 0; i + step < LE; i += 2 * step) p[i] = op(p[i], p[i + step]);
    }
    return p[0];
  }

  /// op over the segment's first `count` elements, in order (absent when count is 0).
  template <class Shape>
  __device__ __forceinline__ maybe<carry_type> segment_total(const T* seg, int count) const {
    if (count == Shape::SE) return {warp::reduce(lane_total<Shape>(seg), op, warp::size), true};
    const Key* ks = stage_keys<Shape, Key>(seg);
    const int c = lane_count<Shape>(count), first = warp::lane_id() * Shape::LE;
    carry_type acc{};
    for (int i = 0; i < c; ++i) {
      const carry_type e{seg[first + i], starts(ks + first + i)};
      acc = i == 0 ? e : op(acc, e);
    }
    const int lanes = __popc(__ballot_sync(warp::full_mask, c > 0));  // a prefix of the lanes
    return {lanes > 0 ? warp::reduce(acc, op, lanes > 0 ? lanes : 1) : carry_type{}, lanes > 0};
  }

  /// What a segment warp keeps of a full segment's keys before it releases the stage: bit j·V + c says whether
  /// element c of the lane's vector in row j starts a run (the warp-striped layout of load_striped).
  template <class Shape>
  __device__ __forceinline__ unsigned long long load_side(const T* seg) const {
    constexpr int K = Shape::K, V = Shape::V;
    static_assert(K * V <= 64, "a lane's start flags fit one 64-bit word");
    const int lane = warp::lane_id();
    const Key* ks = stage_keys<Shape, Key>(seg);
    Key k[Shape::LE];
    load_striped<Shape>(ks, k);
    const Key edge = ks[-1];  // the key before the segment (every lane reads it: one broadcast)
    unsigned long long bits = 0;
#pragma unroll
    for (int j = 0; j < K; ++j) {
      // The key before the lane's vector of row j: the previous lane's last key, or row j - 1's last lane's.
      const Key up = warp::shfl_up(k[j * V + V - 1], 1u);
      const Key wrap = j > 0 ? warp::shfl(k[j > 0 ? (j - 1) * V + V - 1 : 0], warp::size - 1) : edge;
      const Key prev = lane > 0 ? up : wrap;
#pragma unroll
      for (int c = 0; c < V; ++c)
        bits |= static_cast<unsigned long long>(!eq(c > 0 ? k[j * V + c - 1] : prev, k[j * V + c])) << (j * V + c);
    }
    return bits;
  }

  /// A full segment in registers (warp-striped, load_striped) with its start bits (load_side): the pairs scanned row
  /// by row, the carry of everything before the segment from `prefix()` (which waits for it), the values stored
  /// straight from registers to out + seg_base, 512 contiguous bytes per store instruction.
  template <class Shape, class Prefix>
  __device__ __forceinline__ void emit_regs(const T (&x)[Shape::LE], unsigned long long start_bits,
                                            std::uint64_t seg_base, Prefix&& prefix) const {
    constexpr int K = Shape::K, V = Shape::V;
    const int lane = warp::lane_id();
    carry_type p[Shape::LE];
#pragma unroll
    for (int i = 0; i < Shape::LE; ++i) p[i] = {x[i], ((start_bits >> i) & 1ull) != 0};
    maybe<carry_type> before[K];
    striped_row_carries<K, V>(p, op, before);
    const maybe<carry_type> pre = prefix();
    uint4* o = reinterpret_cast<uint4*>(out + seg_base);
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const maybe<carry_type> b = combine(pre, before[j], op);
      T y[V];
#pragma unroll
      for (int c = 0; c < V; ++c) y[c] = b.has ? op(b.value, p[j * V + c]).value : p[j * V + c].value;
      uint4 r;
      std::memcpy(&r, y, 16);
      o[j * warp::size + lane] = r;
    }
  }

  /// Scans a partial segment's first `count` elements after `pre` and stores them at out + seg_base, element by
  /// element (lane l owns [l·LE, l·LE + c); lanes without elements come last).
  template <class Shape>
  __device__ __forceinline__ void emit(T* seg, std::uint64_t seg_base, int count, maybe<carry_type> pre) const {
    const Key* ks = stage_keys<Shape, Key>(seg);
    const int lane = warp::lane_id();
    const int c = lane_count<Shape>(count), first = lane * Shape::LE;
    carry_type total{};
    for (int i = 0; i < c; ++i) {
      const carry_type e{seg[first + i], starts(ks + first + i)};
      total = i == 0 ? e : op(total, e);
    }
    const carry_type incl = warp::inclusive_scan(total, op);
    maybe<carry_type> run = combine(pre, maybe<carry_type>{warp::shfl_up(incl, 1), lane > 0}, op);
    for (int i = 0; i < c; ++i) {
      run = combine(run, maybe<carry_type>{{seg[first + i], starts(ks + first + i)}, true}, op);
      out[seg_base + first + i] = run.value.value;
    }
  }
};

}  // namespace cuprim::detail
