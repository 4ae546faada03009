// cuprim/device/detail/segmented_reduce_kernel.cuh: the load-balanced segmented reduction over CSR offsets.
//
// The work is the merge path of two sorted sequences (Green, McColl & Bader, "GPU merge path", 2012; Baxter,
// ModernGPU "load-balancing search"): the segment ends A[i] = offsets[i+1] - offsets[0] (i < S) and the
// elements B[j] = j (j < n). Walking the path, an element j comes before end i when j < A[i], and consuming end i
// closes segment i. The path has L = n + S items; cutting it into equal pieces gives every piece the same work
// whatever the mix of segment sizes: 2^20 tiny segments and 64 huge ones cost the same per item, and empty
// segments cost one item each.
//
//  1. Chunks. The grid is a fixed number G of blocks (blocks_per_sm × SMs, all resident). A block takes a chunk id
//     from an atomic counter and owns path items [c·L/G', (c+1)·L/G') with G' = min(G, L): n is read from
//     offsets[S] on the device, so the host never waits for it. One warp searches each chunk boundary with a
//     32-way search (four rounds of loads for 2^20 segments).
//  2. Tiles. The chunk is walked in tiles of threads × items_per_thread path items. The block first finds every
//     tile boundary of the chunk at once (one binary search per thread), then, per tile: stores the tile's segment
//     ends and its values in shared memory (values in 16-byte vectors, loaded while the previous tile is walked),
//     each thread finds its own start on the tile's path (a search in shared memory) and walks its items: an
//     element is folded into the running value, an end closes a segment. A segment that starts and ends in one
//     thread is written at once (its value starts from init).
//  3. Carries. A thread's first end needs the value of the segment that was open when the thread began: a block
//     exclusive scan of (saw-an-end, running value) pairs under the segmented operator, seeded with the chunk's
//     carry, gives it; the block total carries to the next tile.
//  4. Across chunks. A segment open at a chunk's start began in an earlier chunk; its end is the chunk's first
//     end, whose write waits until the chunk is done. The chunk then publishes its tail (the value of the segment
//     open at its end: an inclusive prefix when the chunk saw an end, since that value cannot depend on earlier
//     chunks; an aggregate otherwise), runs the decoupled look-back of lookback.cuh over the earlier chunks with
//     the plain operator, and writes its first segment. Each segment is written exactly once.
//
// Every segment's value is init ⊕ its elements in index order, grouped by the fixed tile and chunk boundaries, so
// floating-point results are bitwise identical from run to run on the same GPU (the chunk count depends on the SM
// count). The operator need only be associative: every combination keeps index order (init ⊕ first element ⊕ ...).
#pragma once

#include <cuprim/block/scan.cuh>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/detail/load.cuh>
#include <cuprim/device/detail/reduce_kernel.cuh>
#include <cuprim/device/detail/lookback.cuh>
#include <cuprim/device/detail/segmented_reduce_tuning.cuh>
#include <cuprim/warp/shuffle.cuh>

#include <climits>
#include <cstdint>
#include <cstring>

namespace cuprim::detail {

// ---------------------------------------------------------------------------------------------------------
// Pieces shared by the kernel and the host emulation in the tests (host and device).

/// A running segment value: `has` is false while nothing was folded in; `flag` says that a segment started in
/// the range (the value then begins with init and does not depend on anything before the range).
template <class T>
struct seg_carry {
  T value;
  bool has;
  bool flag;
};

template <class T, class Op>
CUPRIM_HD maybe<T> combine_maybe(const maybe<T>& a, const maybe<T>& b, const Op& op) {
  if (!a.has) return b;
  if (!b.has) return a;
  return {op(a.value, b.value), true};
}

/// The segmented operator on carries: a later range that started a segment replaces what came before.
template <class Op>
struct seg_carry_op {
  Op op;
  template <class T>
  CUPRIM_HD seg_carry<T> operator()(const seg_carry<T>& a, const seg_carry<T>& b) const {
    if (b.flag) return b;
    const maybe<T> m = combine_maybe(maybe<T>{a.value, a.has}, maybe<T>{b.value, b.has}, op);
    return {m.value, m.has, a.flag};
  }
};

/// Floor division for a possibly negative numerator and a positive divisor.
CUPRIM_HD std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// Merge-path search: the number of ends among the first `diag` path items, given that it lies in [lo, hi].
/// end_at(i) is end i's position among the elements; an end comes first when end_at(i) <= the element's index.
template <class I, class EndAt>
CUPRIM_HD I merge_path(const EndAt& end_at, I lo, I hi, I diag) {
  while (lo < hi) {
    const I mid = lo + (hi - lo) / 2;
    if (end_at(mid) <= diag - 1 - mid) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// What one thread's walk over its path items leaves: the value before its first end (the tail of a segment
/// that began earlier), which end that was (-1 if none), and the running value after its items.
template <class T>
struct walk_result {
  maybe<T> first;
  int first_end;
  maybe<T> tail;
};

/// Walks `items` path items of a tile starting at end `ai` and element `bi` (tile-local). end_at(k): local
/// position of the tile's end k (a_count of them); val_at(b): value of the tile's element b (b_count of them).
/// Every end after the first closes a segment that began in this walk: emit(k, value) receives it (its value
/// starts from init). Ends and elements are bounded separately, so inconsistent offsets cannot make a walk read
/// or write outside its tile.
template <int VT, class T, class Op, class EndAt, class ValAt, class Emit>
CUPRIM_HD walk_result<T> walk_path(const EndAt& end_at, const ValAt& val_at, int a_count, int b_count, int ai, int bi,
                                   int items, const Op& op, const T& init, const Emit& emit) {
  walk_result<T> r{{T{}, false}, -1, {T{}, false}};
  int next_end = ai < a_count ? end_at(ai) : INT_MAX;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int k = 0; k < VT; ++k) {
    if (k < items) {
      if (bi < b_count && bi < next_end) {
        const T x = val_at(bi);
        r.tail.value = r.tail.has ? op(r.tail.value, x) : x;
        r.tail.has = true;
        ++bi;
      } else if (ai < a_count) {
        if (r.first_end < 0) {
          r.first = r.tail;
          r.first_end = ai;
        } else {
          emit(ai, r.tail.value);
        }
        r.tail = {init, true};
        ++ai;
        next_end = ai < a_count ? end_at(ai) : INT_MAX;
      }
    }
  }
  return r;
}

/// Where a tile's values go in shared memory: slot 0 holds global element `origin` (the start of the 16-byte
/// vector holding the tile's first element, so vectors land on aligned slots), the tile's element b is in slot
/// lead + b, and vectors [q_first, q_first + q_count) of the input cover the tile (vector q holds elements
/// [head + q·V, head + q·V + V); head = elements before the first aligned vector).
struct tile_layout {
  std::int64_t q_first;
  std::int64_t q_count;
  int lead;
};

CUPRIM_HD tile_layout make_tile_layout(std::int64_t g0, std::int64_t g1, std::int64_t head, int V) {
  tile_layout t;
  t.q_first = floor_div(g0 - head, V);
  t.q_count = g1 > g0 ? floor_div(g1 - 1 - head, V) - t.q_first + 1 : 0;
  t.lead = static_cast<int>(g0 - head - t.q_first * V);
  return t;
}

/// A chunk's path range: items [d0, d1) of the L = n + S items, for chunk c of `chunks`.
CUPRIM_HD void chunk_range(std::int64_t c, std::int64_t chunks, std::int64_t L, std::int64_t& d0, std::int64_t& d1) {
  d0 = c * L / chunks;
  d1 = (c + 1) * L / chunks;
}

// ---------------------------------------------------------------------------------------------------------
// Device

/// Merge-path search by one whole warp, 32 probes per round (every lane gets the answer). The answer lies in
/// [lo, hi].
template <class EndAt>
__device__ __forceinline__ std::int64_t warp_merge_path(const EndAt& end_at, std::int64_t lo, std::int64_t hi,
                                                        std::int64_t diag) {
  const int lane = warp::lane_id();
  while (hi - lo > warp::size) {
    const std::int64_t span = hi - lo;
    auto probe = [&](int k) { return lo + span * (k + 1) / (warp::size + 1); };  // strictly increasing in k
    const std::int64_t mid = probe(lane);
    const unsigned right = __ballot_sync(warp::full_mask, end_at(mid) <= diag - 1 - mid);
    const int k = __popc(right);  // the predicate holds exactly for the probes below the answer
    const std::int64_t new_lo = k > 0 ? probe(k - 1) + 1 : lo;
    const std::int64_t new_hi = k < warp::size ? probe(k) : hi;
    lo = new_lo;
    hi = new_hi;
  }
  const std::int64_t mid = lo + lane;
  const bool right = mid < hi && end_at(mid) <= diag - 1 - mid;
  return lo + __popc(__ballot_sync(warp::full_mask, right));
}

/// The geometry of one tile of a chunk.
struct tile_geometry {
  std::int64_t i0, j0;  // first end and first element of the tile
  int a_count, b_count;
  tile_layout layout;
};

template <segmented_reduce_policy P, class Acc>
struct segmented_reduce_smem {
  static constexpr int NT = P.threads, NV = P.tile_items(), V = 16;  // V: slack for any vector width
  alignas(16) uninitialized<Acc> vals[NV + 2 * V];
  int ends[NV];
  std::int64_t tile_i[NT + 1];
  typename block::scanner<seg_carry<Acc>, NT>::storage scan;
  std::int64_t chunk_i[2];
  unsigned chunk;
  bool head_has;
  std::int64_t head_seg;
  uninitialized<maybe<Acc>> head_value;
};

/// Across chunks, by warp 0: publishes the chunk's tail (the segment open at its end: an inclusive prefix when the
/// chunk saw an end, an aggregate otherwise), looks back over the earlier chunks, and writes the chunk's first
/// segment.
template <segmented_reduce_policy P, class Out, class Acc, class Op>
__device__ __forceinline__ void finish_chunk(segmented_reduce_smem<P, Acc>& smem, int lane, std::int64_t chunk,
                                             std::int64_t chunks, const seg_carry<Acc>& carry, Out* out, Op op,
                                             const tile_state<Acc>& state) {
  if (chunk == 0) {
    if (lane == 0 && chunks > 1) state.publish(0, tile_prefix, carry.value);
  } else if (carry.flag) {
    if (lane == 0) state.publish(chunk, tile_prefix, carry.value);  // independent of earlier chunks
    const Acc prefix = look_back<1>(state, chunk, op, lookback_waits{0, 100});
    if (lane == 0 && smem.head_has) {
      const maybe<Acc> hv = smem.head_value.get();
      out[smem.head_seg] = convert<Out>(hv.has ? op(prefix, hv.value) : prefix);
    }
  } else {
    if (lane == 0) state.publish(chunk, tile_aggregate, carry.value);
    const Acc prefix = look_back<1>(state, chunk, op, lookback_waits{0, 100});
    if (lane == 0 && chunk + 1 < chunks) state.publish(chunk, tile_prefix, op(prefix, carry.value));
  }
}

/// The kernel (see the top of this file): take a chunk, find its splits, walk its tiles in batches of NT (their
/// splits found at once, each tile's values loaded while the previous one is walked), then finish the chunk (steps
/// 1-4 above). Policy: a policy_constant of a segmented_reduce_policy. (Steps 1-3 stay in this function: taken into
/// functions of their own, which see the block's shared memory through a reference, nvcc 13.0 compiles them to
/// other machine code.)
template <class Policy, class In, class Out, class Offset, class Acc, class Op, class F>
__global__ void __launch_bounds__(Policy::value.threads, Policy::value.blocks_per_sm)
segmented_reduce_kernel(const In* in, Out* out, const Offset* offsets, std::int64_t num_segments, Op op, Acc init,
                        F f, tile_state<Acc> state, unsigned* counter, unsigned grid_chunks, bool vector_in) {
  constexpr segmented_reduce_policy P = Policy::value;
  using vt = vector_traits<In, P.vector_bytes>;
  constexpr int NT = P.threads, VT = P.items_per_thread, NV = P.tile_items(), V = vt::elems;
  constexpr int R = (NV / V + 2 + NT - 1) / NT;  // vectors each thread loads per tile
  static_assert(V <= segmented_reduce_smem<P, Acc>::V, "vector wider than the shared-memory slack");
  using scanner = block::scanner<seg_carry<Acc>, NT>;
  const seg_carry_op<Op> sop{op};
  __shared__ segmented_reduce_smem<P, Acc> smem;
  const int tid = threadIdx.x, lane = tid % warp::size, w = tid / warp::size;

  // The path: n elements (read on the device) and S ends.
  const std::int64_t base = static_cast<std::int64_t>(offsets[0]);
  const std::int64_t last = static_cast<std::int64_t>(offsets[num_segments]);
  const std::int64_t n = last > base ? last - base : 0;
  const std::int64_t S = num_segments, L = n + S;
  const std::int64_t chunks = L < std::int64_t(grid_chunks) ? L : std::int64_t(grid_chunks);
  auto end_at = [=](std::int64_t i) { return static_cast<std::int64_t>(offsets[i + 1]) - base; };

  if (tid == 0) {
    smem.chunk = atomicAdd(counter, 1u);
    smem.head_has = false;
  }
  __syncthreads();
  const std::int64_t chunk = smem.chunk;
  if (chunk >= chunks) return;  // more blocks than path items
  std::int64_t d_c0, d_c1;
  chunk_range(chunk, chunks, L, d_c0, d_c1);
  if (w < 2) {  // warp 0 finds the chunk's first split, warp 1 its last
    const std::int64_t d = w == 0 ? d_c0 : d_c1;
    const std::int64_t lo = d - n > 0 ? d - n : 0, hi = d < S ? d : S;
    const std::int64_t i = warp_merge_path(end_at, lo, hi, d);
    if (lane == 0) smem.chunk_i[w] = i;
  }
  __syncthreads();
  const std::int64_t i_c0 = smem.chunk_i[0], i_c1 = smem.chunk_i[1];
  const std::int64_t j_c0 = d_c0 - i_c0, j_c1 = d_c1 - i_c1;
  const std::int64_t tiles = (d_c1 - d_c0 + NV - 1) / NV;

  // The first aligned vector of the input.
  const std::int64_t head = vt::vectorized && vector_in ? std::int64_t(misaligned_head(in, ~0ull, vt::bytes)) : 0;

  auto load_values = [&](const tile_geometry& g, In (&raw)[R][V]) {
    const std::int64_t g0 = base + g.j0, g1 = g0 + g.b_count;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const std::int64_t qq = tid + std::int64_t(r) * NT;
      if (qq < g.layout.q_count) {
        const std::int64_t gv = head + (g.layout.q_first + qq) * V;
        if (vector_in && gv >= g0 && gv + V <= g1) {
          load_vector<In, P.vector_bytes>(in + gv, raw[r]);
        } else {
#pragma unroll
          for (int e = 0; e < V; ++e)
            if (gv + e >= g0 && gv + e < g1) raw[r][e] = in[gv + e];
        }
      }
    }
  };
  auto store_values = [&](const tile_geometry& g, const In (&raw)[R][V]) {
    const std::int64_t g0 = base + g.j0, g1 = g0 + g.b_count;
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const std::int64_t qq = tid + std::int64_t(r) * NT;
      if (qq < g.layout.q_count) {
        const std::int64_t gv = head + (g.layout.q_first + qq) * V;
        const int slot = static_cast<int>(qq) * V;
        if (gv >= g0 && gv + V <= g1) {
          Acc y[V];
#pragma unroll
          for (int e = 0; e < V; ++e) y[e] = feed<Acc>(f, raw[r][e], static_cast<std::uint64_t>(gv + e));
          if constexpr ((sizeof(Acc) * V) % 16 == 0 && sizeof(Acc) * V <= 64) {
            uint4 words[sizeof(Acc) * V / 16];
            std::memcpy(words, y, sizeof(y));
            uint4* dst = reinterpret_cast<uint4*>(smem.vals[slot].bytes);
#pragma unroll
            for (int c = 0; c < int(sizeof(Acc) * V / 16); ++c) dst[c] = words[c];
          } else {
#pragma unroll
            for (int e = 0; e < V; ++e) smem.vals[slot + e].get() = y[e];
          }
        } else {
#pragma unroll
          for (int e = 0; e < V; ++e)
            if (gv + e >= g0 && gv + e < g1)
              smem.vals[slot + e].get() = feed<Acc>(f, raw[r][e], static_cast<std::uint64_t>(gv + e));
        }
      }
    }
  };

  // The carry into the next tile: the segment open there. Chunk 0 starts segment 0 (with init); other chunks
  // start inside a segment that began earlier (nothing folded in yet).
  seg_carry<Acc> carry{init, chunk == 0, chunk == 0};

  for (std::int64_t tb = 0; tb < tiles; tb += NT) {
    const int nb = static_cast<int>(tiles - tb < NT ? tiles - tb : NT);
    __syncthreads();  // the previous batch is done with tile_i
    for (int t = tid; t <= nb; t += NT) {  // split of tile boundary tb + t
      const std::int64_t d = d_c0 + (tb + t) * NV < d_c1 ? d_c0 + (tb + t) * NV : d_c1;
      const std::int64_t lo = d - j_c1 > i_c0 ? d - j_c1 : i_c0, hi = d - j_c0 < i_c1 ? d - j_c0 : i_c1;
      smem.tile_i[t] = merge_path(end_at, lo, hi, d);
    }
    __syncthreads();
    auto geometry = [&](int t) {
      tile_geometry g;
      const std::int64_t d0 = d_c0 + (tb + t) * NV;
      const std::int64_t d1 = d0 + NV < d_c1 ? d0 + NV : d_c1;
      g.i0 = smem.tile_i[t];
      const std::int64_t i1 = smem.tile_i[t + 1];
      g.j0 = d0 - g.i0;
      g.a_count = static_cast<int>(i1 - g.i0);
      g.b_count = static_cast<int>((d1 - i1) - g.j0);
      g.layout = make_tile_layout(base + g.j0, base + g.j0 + g.b_count, head, V);
      return g;
    };

    In raw[R][V];
    tile_geometry next = geometry(0);
    load_values(next, raw);
    for (int t = 0; t < nb; ++t) {
      const tile_geometry g = next;
      int end_reg[VT];
#pragma unroll
      for (int k = 0; k < VT; ++k) {
        const int idx = tid + k * NT;
        if (idx < g.a_count) end_reg[k] = static_cast<int>(end_at(g.i0 + idx) - g.j0);
      }
      store_values(g, raw);
      if (t + 1 < nb) {  // the next tile's values load while this one is walked
        next = geometry(t + 1);
        load_values(next, raw);
      }
#pragma unroll
      for (int k = 0; k < VT; ++k) {
        const int idx = tid + k * NT;
        if (idx < g.a_count) smem.ends[idx] = end_reg[k];
      }
      __syncthreads();

      // This thread's items: diagonal tid·VT of the tile's path.
      const int count = g.a_count + g.b_count;
      const int diag = tid * VT;
      const int items = count - diag < 0 ? 0 : (count - diag < VT ? count - diag : VT);
      walk_result<Acc> wr{{Acc{}, false}, -1, {Acc{}, false}};
      if (items > 0) {
        auto local_end = [&](int k) { return smem.ends[k]; };
        const int lo = diag - g.b_count > 0 ? diag - g.b_count : 0, hi = diag < g.a_count ? diag : g.a_count;
        const int ai = merge_path(local_end, lo, hi, diag);
        const int lead = g.layout.lead;
        auto val_at = [&](int b) { return smem.vals[lead + b].get(); };
        Out* const out_tile = out + g.i0;
        auto emit = [&](int k, const Acc& v) { out_tile[k] = convert<Out>(v); };
        wr = walk_path<VT>(local_end, val_at, g.a_count, g.b_count, ai, diag - ai, items, op, init, emit);
      }

      // Carries: the segment open at each thread's start, and the tile's total.
      seg_carry<Acc> total;
      const seg_carry<Acc> mine{wr.tail.value, wr.tail.has, wr.first_end >= 0};
      const seg_carry<Acc> before = scanner::exclusive_scan(mine, sop, carry, smem.scan, total);
      if (wr.first_end >= 0) {
        const maybe<Acc> v = combine_maybe(maybe<Acc>{before.value, before.has}, wr.first, op);
        if (before.flag) {
          out[g.i0 + wr.first_end] = convert<Out>(v.value);
        } else {  // the chunk's first end: the segment began in an earlier chunk
          smem.head_seg = g.i0 + wr.first_end;
          smem.head_value.get() = v;
          smem.head_has = true;
        }
      }
      carry = sop(carry, total);
    }
  }

  // Across chunks: publish this chunk's tail, look back, write the chunk's first segment.
  __syncthreads();
  if (w == 0) finish_chunk(smem, lane, chunk, chunks, carry, out, op, state);
}

}  // namespace cuprim::detail
