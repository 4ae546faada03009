// cuprim/device/detail/select_pipeline_kernel.cuh: large-input select_if as a job of the look-back pipeline
// (lookback_pipeline.cuh: persistent blocks, bulk copies into a ring of shared-memory tiles, producer, aggregator,
// look-back and segment warps), carrying counts of selected items.
//
// The aggregator counts each segment's selected items; the look-back gives each segment the number of items
// selected before it, i.e. its output offset. A segment warp evaluates the predicate on its lane's elements,
// ranks them with a warp scan of the lanes' counts, compacts them in place in the stage (every lane has read its
// elements into registers first; a lane's items only move to lower positions) and writes the compacted run with
// coalesced stores. The last tile writes the total to num_selected.
#pragma once

#include <cuprim/device/detail/lookback_pipeline.cuh>
#include <cuprim/device/detail/select_kernel.cuh>

#include <cstdint>

namespace cuprim::detail {

template <class T, class Pred>
struct select_pipeline_job : pipeline_common<T, tile_count> {
  using value_type = T;
  using carry_type = tile_count;
  T* out;
  std::int64_t* num_selected;
  Pred pred;
  plus op;

  __device__ __forceinline__ maybe<tile_count> initial() const { return {tile_count{0}, true}; }
  __device__ __forceinline__ void finish(const tile_count& total) const {
    *num_selected = static_cast<std::int64_t>(total.value);
  }

  /// Selected items among the segment's first `count` elements.
  template <class Shape>
  __device__ __forceinline__ maybe<tile_count> segment_total(const T* seg, int count) const {
    unsigned selected = 0;
    if (count == Shape::SE) {
      T x[Shape::LE];
      load_lane<Shape>(seg, x);
#pragma unroll
      for (int i = 0; i < Shape::LE; ++i) selected += pred(x[i]) ? 1u : 0u;
    } else {
      const int c = lane_count<Shape>(count), first = warp::lane_id() * Shape::LE;
      for (int i = 0; i < c; ++i) selected += pred(seg[first + i]) ? 1u : 0u;
    }
    return {tile_count{__reduce_add_sync(warp::full_mask, selected)}, true};
  }

  /// Writes the segment's selected items (of its first `count` elements) from out + p (the items selected
  /// before the segment).
  template <class Shape>
  __device__ __forceinline__ void emit(T* seg, std::uint64_t, int count, maybe<tile_count> p) const {
    constexpr int LE = Shape::LE;
    static_assert(LE <= 64, "a lane's selection mask is 64 bits");
    const int lane = warp::lane_id();
    if (count == Shape::SE) {
      T x[LE];
      load_lane<Shape>(seg, x);
      unsigned long long mask = 0;
#pragma unroll
      for (int i = 0; i < LE; ++i)
        if (pred(x[i])) mask |= 1ull << i;
      const unsigned mine = unsigned(__popcll(mask));
      const unsigned incl = warp::inclusive_scan(mine, plus{});
      const unsigned total = warp::shfl(incl, warp::size - 1);
      __syncwarp();  // every lane holds its elements: the stage's segment may be overwritten
      unsigned r = incl - mine;  // ≤ lane·LE: a lane's items only move down
#pragma unroll
      for (int i = 0; i < LE; ++i)
        if ((mask >> i) & 1ull) seg[r++] = x[i];
      __syncwarp();
      T* dst = out + p.value.value;
      for (unsigned i = unsigned(lane); i < total; i += warp::size) dst[i] = seg[i];
      return;
    }
    // The last tile's partial segment: count, rank, and store straight from the stage.
    const int c = lane_count<Shape>(count), first = lane * LE;
    unsigned mine = 0;
    for (int i = 0; i < c; ++i) mine += pred(seg[first + i]) ? 1u : 0u;
    const unsigned incl = warp::inclusive_scan(mine, plus{});
    T* dst = out + p.value.value + (incl - mine);
    for (int i = 0; i < c; ++i) {
      const T v = seg[first + i];
      if (pred(v)) *dst++ = v;
    }
  }
};

}  // namespace cuprim::detail
