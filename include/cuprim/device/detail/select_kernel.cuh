// cuprim/device/detail/select_kernel.cuh: single-pass stream compaction with decoupled look-back over tile
// counts (the scan lecture's "exclusive scan + scatter", fused into one kernel).
//
// One block per tile, tile ids from an atomic counter (lookback.cuh). A block
//   1. loads its tile into registers (16-byte vectors when the input is aligned) and evaluates the selection
//      (predicate, flag, or "differs from the element before" for unique and run-length encoding; flagged_index
//      loads only the flags, tiled by the flag type, and its items are the selected positions);
//   2. ranks the selected items with ballots: per warp chunk, the number of selected items of the lanes below is
//      a ballot scan (warp::ballot_exclusive_scan) of each bit of the lanes' counts; one shared-memory exchange
//      of the warp totals gives each warp its offset in the tile and the tile's count;
//   3. publishes the count, compacts its selected items into shared memory in order, and looks back (one warp)
//      over its predecessors' counts for the tile's output offset;
//   4. writes the compacted items out with coalesced stores (consecutive threads, consecutive addresses).
// The last tile writes the total count. Each input element is read once and each output written once.
//
// Partition (stable on both sides, rejected items after all selected ones, in input order) places rejected
// items at total_selected + (rejected before), so it needs the total before any block may write: a read-only
// counting pass first publishes every tile's count (tile 0's as an inclusive prefix) and the total; the scatter
// pass then finds every predecessor's count already there (its look-back never waits).
//
// Run-length encoding carries (count, position of the last run start) through the look-back: each run start
// writes its item and the length of the run before it (its position minus the previous start's); the last tile
// writes the length of the last run.
#pragma once

#include <cuprim/core/functional.cuh>
#include <cuprim/device/detail/load.cuh>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/lookback.cuh>
#include <cuprim/device/detail/select_tuning.cuh>
#include <cuprim/warp/scan.cuh>

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cuprim::detail {

enum class select_mode { predicate, flagged, flagged_index, partition, unique, run_length };

/// The type a compaction loads and tiles by: its items (T), or for flagged_index, whose items are the indices it
/// generates from the positions of the flags, the flags (F).
template <select_mode Mode, class T, class F>
using select_load_t = std::conditional_t<Mode == select_mode::flagged_index, F, T>;

/// A tile's count of selected items (or an inclusive prefix of counts): up to 2^62, so that status and count
/// share one 64-bit word in the tile state.
struct tile_count {
  unsigned long long value;
};
CUPRIM_HD tile_count operator+(const tile_count& a, const tile_count& b) { return {a.value + b.value}; }
template <>
struct exact_combine<tile_count> : std::true_type {};  // integer counts: any association gives the same value

/// Tile state for counts: (count << 2) | status in one 64-bit word, published with one relaxed store and read
/// with one relaxed load, as the packed state of ≤ 4-byte values (lookback.cuh) but for 64-bit counts.
template <>
struct tile_state_kind<tile_count> {
  static constexpr int value = tile_state_custom;
};
template <>
struct tile_state<tile_count, tile_state_custom> {
  unsigned long long* words;  // zeroed before the launch (or written by a counting pass)

  static constexpr std::size_t bytes(std::uint64_t tiles) { return tiles * sizeof(unsigned long long); }
  static constexpr std::size_t zero_bytes(std::uint64_t tiles) { return bytes(tiles); }
  static tile_state make(void* p, std::uint64_t) { return {static_cast<unsigned long long*>(p)}; }

  __device__ __forceinline__ void publish(std::uint64_t tile, unsigned status, const tile_count& v) const {
    const unsigned long long w = (v.value << 2) | status;
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(words + tile), "l"(w) : "memory");
  }
  __device__ __forceinline__ unsigned read(std::uint64_t tile, tile_count& v) const {
    unsigned long long w;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(words + tile) : "memory");
    v.value = w >> 2;
    return static_cast<unsigned>(w & 3u);
  }
};

/// What run-length encoding carries across tiles: the number of runs started, and the position of the last
/// run start (-1: none in the range).
struct run_carry {
  unsigned long long count;
  long long last;
};
struct run_carry_op {
  CUPRIM_HD run_carry operator()(const run_carry& a, const run_carry& b) const {
    return {a.count + b.count, b.last >= 0 ? b.last : a.last};
  }
};
template <>
struct exact_combine<run_carry> : std::true_type {};  // integers only: any association gives the same value

template <select_mode Mode>
using select_carry_t = std::conditional_t<Mode == select_mode::run_length, run_carry, tile_count>;

/// Everything a compaction kernel reads besides the tile state (one struct keeps the launch readable).
template <class T, class F, class Fn, class Count>
struct select_params {
  const T* in;                           // null for flagged_index
  const F* flags;                        // flagged and flagged_index only
  T* out;                                // selected items (partition: all items; run_length: the run values;
                                         // flagged_index: the indices of the set flags)
  Count* counts;                         // run_length only: run lengths
  std::int64_t* num_selected;            // written by the last tile
  std::uint64_t n;
  std::uint64_t num_tiles;
  unsigned* counter;                     // tile ids (num_tiles > 1)
  const unsigned long long* total;       // partition: the counting pass's total (num_tiles > 1)
  Fn fn;                                 // predicate (predicate, partition) or equality (unique, run_length)
  bool vector_in;                        // in (flagged_index: the flags) is aligned for vector loads
  bool vector_flags;                     // flags are aligned for vector loads
  lookback_waits waits;                  // the look-back's back-off for this launch
};

/// A functor slot for modes that take none.
struct no_functor {};

/// The tile geometry of a select_policy for items of T.
template <select_policy P, class T>
struct select_shape {
  using vt = vector_traits<T, P.vector_bytes>;
  static constexpr int threads = P.threads, K = P.vectors, V = vt::elems, warps = threads / warp::size;
  static constexpr unsigned warp_tile = unsigned(warp::size) * K * V;
  static constexpr unsigned tile = warp_tile * warps;
  static constexpr std::uint64_t tiles(std::uint64_t n) { return (n + tile - 1) / tile; }
};

/// Loads `count` consecutive U from p as one vector when count × sizeof(U) is 4, 8 or 16 bytes and `vector` is
/// set (p aligned), else element by element; elements at or past `valid` are left value-initialised.
template <int Count, class U>
__device__ __forceinline__ void load_chunk(const U* p, U (&v)[Count], bool vector, int valid) {
  constexpr int bytes = Count * static_cast<int>(sizeof(U));
  if constexpr (std::is_trivially_copyable_v<U> && (bytes == 4 || bytes == 8 || bytes == 16)) {
    if (vector && valid >= Count) {
      using raw = typename raw_vector<bytes>::type;
      const raw r = __ldg(reinterpret_cast<const raw*>(p));
      std::memcpy(v, &r, bytes);
      return;
    }
  }
#pragma unroll
  for (int e = 0; e < Count; ++e) v[e] = e < valid ? p[e] : U{};
}

/// Loads this thread's part of the tile (x[k][e] is element warp_base + (k*32 + lane)*V + e; flagged_index loads
/// the flags) and evaluates the selection into sel[k] (bit e: element (k, e) is selected; elements past n are never
/// selected, and the predicate or equality is never called on them).
template <select_policy P, select_mode Mode, class T, class F, class Fn, class Count,
          class L = select_load_t<Mode, T, F>>
__device__ __forceinline__ void select_load(const select_params<T, F, Fn, Count>& p, std::uint64_t warp_base,
                                            bool full, L (&x)[P.vectors][select_shape<P, L>::V],
                                            unsigned (&sel)[P.vectors]) {
  using shape = select_shape<P, L>;
  constexpr int K = shape::K, V = shape::V;
  const int lane = warp::lane_id();
  const L* src;
  if constexpr (Mode == select_mode::flagged_index) src = p.flags;
  else src = p.in;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const std::uint64_t i0 = warp_base + (std::uint64_t(k) * warp::size + lane) * V;
    const int valid = full ? V : (i0 >= p.n ? 0 : (p.n - i0 < std::uint64_t(V) ? int(p.n - i0) : V));
    if constexpr (shape::vt::vectorized) {
      if (full && p.vector_in) load_vector<L, P.vector_bytes>(src + i0, x[k]);
      else load_chunk<V>(src + i0, x[k], false, valid);
    } else {
      load_chunk<V>(src + i0, x[k], false, valid);
    }
    unsigned m = 0;
    if constexpr (Mode == select_mode::flagged_index) {  // the flags themselves (nonzero: set)
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (e < valid && static_cast<bool>(x[k][e])) m |= 1u << e;
    } else if constexpr (Mode == select_mode::predicate || Mode == select_mode::partition) {
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (e < valid && p.fn(x[k][e])) m |= 1u << e;
    } else if constexpr (Mode == select_mode::flagged) {
      F f[V];
      load_chunk<V>(p.flags + i0, f, p.vector_flags, valid);
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (e < valid && static_cast<bool>(f[e])) m |= 1u << e;
    } else {  // unique, run_length: element i starts a run when i == 0 or it differs from element i - 1
      const T up = warp::shfl_up(x[k][V - 1], 1);
      T before = up;
      if (k > 0) {
        const T last31 = warp::shfl(x[k > 0 ? k - 1 : 0][V - 1], warp::size - 1);
        if (lane == 0) before = last31;
      } else if (lane == 0 && valid > 0 && i0 > 0) {
        before = p.in[i0 - 1];
      }
#pragma unroll
      for (int e = 0; e < V; ++e) {
        if (e < valid) {
          const bool head = e > 0 ? !p.fn(x[k][e - 1], x[k][e]) : (i0 == 0 || !p.fn(before, x[k][0]));
          if (head) m |= 1u << e;
        }
      }
    }
    sel[k] = m;
  }
}

/// What a tile compacts into shared memory: its items (flagged_index: the selected positions in the tile).
template <select_mode Mode, class T>
using select_item_t = std::conditional_t<Mode == select_mode::flagged_index, unsigned, T>;

template <class T, class Carry, unsigned Tile, int Warps, bool RunLength>
struct select_storage {
  uninitialized<T> items[Tile];               // the tile's items, compacted (partition: selected, then rejected)
  unsigned starts[RunLength ? Tile : 1];      // run_length: tile-relative position of each compacted run start
  unsigned warp_count[Warps];
  unsigned warp_last[RunLength ? Warps : 1];  // run_length: 1 + tile-relative position of the warp's last start
  uninitialized<Carry> prefix;
  unsigned long long total;                   // partition: selected items in the whole input
  unsigned tile_slot;
};

/// Step 1: the block's tile id (ids from the counter when there are several tiles; partition's blocks read the
/// counting pass's total with it). Called by every thread.
template <bool Partition, class Storage, class Params>
__device__ __forceinline__ std::uint64_t select_take_tile(const Params& p, Storage& s, int tid) {
  if (p.num_tiles <= 1) return 0;
  if (tid == 0) {
    s.tile_slot = atomicAdd(p.counter, 1u);
    if constexpr (Partition) s.total = *p.total;
  }
  __syncthreads();
  return s.tile_slot;
}

/// Step 3: ranks the selected items with ballots: rank[k] = selected items of this warp before this thread's chunk-k
/// items (ballot scans of the bits of each lane's chunk count); the warp's count (and for run-length encoding
/// 1 + the tile-relative position of its last run start) to shared memory.
template <bool RunLength, int K, int V, class Storage>
__device__ __forceinline__ void select_rank(const unsigned (&sel)[K], unsigned (&rank)[K], int lane, int w,
                                            Storage& s) {
  constexpr int planes = std::bit_width(unsigned(V));  // bits of a lane's count in one chunk (0..V)
  unsigned warp_total = 0;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const unsigned c = __popc(sel[k]);
    unsigned before = 0, total = 0;
#pragma unroll
    for (int b = 0; b < planes; ++b) {
      int t;
      const int below = warp::ballot_exclusive_scan(((c >> b) & 1u) != 0, t);
      before += unsigned(below) << b;
      total += unsigned(t) << b;
    }
    rank[k] = warp_total + before;
    warp_total += total;
  }
  if (lane == 0) s.warp_count[w] = warp_total;
  if constexpr (RunLength) {
    constexpr unsigned warp_tile = unsigned(warp::size) * K * V;
    unsigned last = 0;  // 1 + tile-relative position of this thread's last run start (0: none)
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (sel[k]) last = unsigned(w) * warp_tile + (unsigned(k) * warp::size + lane) * V + (31 - __clz(sel[k])) + 1;
    last = __reduce_max_sync(warp::full_mask, last);
    if (lane == 0) s.warp_last[w] = last;
  }
}

/// Step 4 (after a barrier): the selected items of the warps before this one, the tile's count and last run start.
struct select_tile_counts {
  unsigned warp_offset = 0, tile_sel = 0, tile_last = 0;
};
template <bool RunLength, int Warps, class Storage>
__device__ __forceinline__ select_tile_counts select_count_tile(const Storage& s, int w) {
  select_tile_counts c;
#pragma unroll
  for (int j = 0; j < Warps; ++j) {
    const unsigned n = s.warp_count[j];
    if (j < w) c.warp_offset += n;
    c.tile_sel += n;
    if constexpr (RunLength) {
      const unsigned l = s.warp_last[j];
      c.tile_last = l > c.tile_last ? l : c.tile_last;
    }
  }
  return c;
}

/// Step 5: the tile's items into shared memory in input order (selected ones compacted; partition's rejected ones
/// after them, also in order; run-length encoding's run starts beside them; flagged_index: the selected elements'
/// positions in the tile).
template <select_policy P, select_mode Mode, class L, class Storage>
__device__ __forceinline__ void select_compact(const L (&x)[P.vectors][select_shape<P, L>::V],
                                               const unsigned (&sel)[P.vectors], const unsigned (&rank)[P.vectors],
                                               const select_tile_counts& c, unsigned tile_valid, int lane, int w,
                                               Storage& s) {
  using shape = select_shape<P, L>;
  constexpr int K = shape::K, V = shape::V;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    unsigned r = c.warp_offset + rank[k];  // tile rank of this thread's next selected item
    const unsigned i0 = unsigned(w) * shape::warp_tile + (unsigned(k) * warp::size + lane) * V;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      if ((sel[k] >> e) & 1u) {
        if constexpr (Mode == select_mode::flagged_index) s.items[r].get() = i0 + e;
        else s.items[r].get() = x[k][e];
        if constexpr (Mode == select_mode::run_length) s.starts[r] = i0 + e;
        ++r;
      } else if constexpr (Mode == select_mode::partition) {
        if (i0 + e < tile_valid) s.items[c.tile_sel + (i0 + e - r)].get() = x[k][e];  // i0 + e - r rejected before
      }
    }
  }
}

/// Step 7: coalesced stores of the compacted tile from out + the tile's prefix (partition: the rejected items after
/// every selected one; run-length encoding: each run's value, and the length of the run before it; flagged_index:
/// tile_base + each position, converted to the index type T).
template <select_mode Mode, int Threads, class T, class F, class Fn, class Count, class Carry, class Storage>
__device__ __forceinline__ void select_store(const select_params<T, F, Fn, Count>& p, Storage& s,
                                             const Carry& prefix, std::uint64_t tile_base, unsigned tile_sel,
                                             unsigned tile_valid) {
  const int tid = threadIdx.x;
  if constexpr (Mode == select_mode::partition) {
    const unsigned long long total = p.num_tiles > 1 ? s.total : tile_sel;
    const unsigned long long rejected_before = tile_base - prefix.value;
    for (unsigned i = tid; i < tile_valid; i += Threads) {
      const unsigned long long dst = i < tile_sel ? prefix.value + i : total + rejected_before + (i - tile_sel);
      p.out[dst] = s.items[i].get();
    }
  } else if constexpr (Mode == select_mode::run_length) {
    for (unsigned r = tid; r < tile_sel; r += Threads) {
      const unsigned long long g = prefix.count + r;
      const unsigned long long start = tile_base + s.starts[r];
      p.out[g] = s.items[r].get();
      if (g > 0) {
        const unsigned long long prev =
            r > 0 ? tile_base + s.starts[r - 1] : static_cast<unsigned long long>(prefix.last);
        p.counts[g - 1] = static_cast<Count>(start - prev);
      }
    }
  } else if constexpr (Mode == select_mode::flagged_index) {
    for (unsigned i = tid; i < tile_sel; i += Threads)
      p.out[prefix.value + i] = static_cast<T>(tile_base + s.items[i].get());
  } else {
    for (unsigned i = tid; i < tile_sel; i += Threads) p.out[prefix.value + i] = s.items[i].get();
  }
}

/// Step 8, by the last tile's thread 0: the count (run-length encoding: also the last run's length).
template <select_mode Mode, class T, class F, class Fn, class Count, class Carry, class Storage>
__device__ __forceinline__ void select_finish(const select_params<T, F, Fn, Count>& p, Storage& s,
                                              const Carry& prefix, std::uint64_t tile_base, unsigned tile_sel) {
  if constexpr (Mode == select_mode::run_length) {
    const unsigned long long runs = prefix.count + tile_sel;
    const unsigned long long last =
        tile_sel ? tile_base + s.starts[tile_sel - 1] : static_cast<unsigned long long>(prefix.last);
    p.counts[runs - 1] = static_cast<Count>(p.n - last);
    *p.num_selected = static_cast<std::int64_t>(runs);
  } else {
    *p.num_selected = static_cast<std::int64_t>(prefix.value + tile_sel);
  }
}

/// The compaction kernel, one tile per block (see the top of this file): take a tile, load and select, rank,
/// count, publish the count early (successors' look-backs wait on it), compact into shared memory (while warp 0
/// looks back for the tile's output offset), store, and the last tile writes the total. Policy: a policy_constant
/// of a select_policy.
template <class Policy, select_mode Mode, class T, class F, class Fn, class Count, class Carry>
__global__ void __launch_bounds__(Policy::value.threads)
select_kernel(select_params<T, F, Fn, Count> p, tile_state<Carry> state) {
  constexpr select_policy P = Policy::value;
  using L = select_load_t<Mode, T, F>;  // what the tile holds in registers: the items, or flagged_index's flags
  using shape = select_shape<P, L>;
  constexpr int K = shape::K, V = shape::V, WARPS = shape::warps;
  constexpr unsigned warp_tile = shape::warp_tile, tile_elems = shape::tile;
  constexpr bool RL = Mode == select_mode::run_length;
  constexpr bool PART = Mode == select_mode::partition;
  using op_t = std::conditional_t<RL, run_carry_op, plus>;
  using item = select_item_t<Mode, T>;
  static_assert(sizeof(select_storage<item, Carry, tile_elems, WARPS, RL>) <= 48 * 1024,
                "the tile does not fit in 48 KiB of shared memory: use a policy with fewer threads or vectors");
  __shared__ select_storage<item, Carry, tile_elems, WARPS, RL> s;

  const int tid = threadIdx.x, lane = tid % warp::size, w = tid / warp::size;
  wait_for_prerequisite_grid();  // the zeroed counter and tile states (multi-tile launches are dependent launches)
  const std::uint64_t tile = select_take_tile<PART>(p, s, tid);
  const std::uint64_t tile_base = tile * tile_elems;
  const std::uint64_t warp_base = tile_base + std::uint64_t(w) * warp_tile;
  const bool full = tile_base + tile_elems <= p.n;
  const unsigned tile_valid = full ? tile_elems : static_cast<unsigned>(p.n - tile_base);

  L x[K][V];
  unsigned sel[K], rank[K];
  select_load<P, Mode>(p, warp_base, full, x, sel);
  select_rank<RL, K, V>(sel, rank, lane, w, s);
  __syncthreads();
  const select_tile_counts c = select_count_tile<RL, WARPS>(s, w);
  Carry aggregate;
  if constexpr (RL) aggregate = {c.tile_sel, c.tile_last ? static_cast<long long>(tile_base + c.tile_last - 1) : -1ll};
  else aggregate = {c.tile_sel};

  // Publish early: successors' look-backs wait on this. (Partition's counting pass has published every count.)
  if (tid == 0 && p.num_tiles > 1) {
    if (tile == 0) state.publish(0, tile_prefix, aggregate);
    else if constexpr (!PART) state.publish(tile, tile_aggregate, aggregate);
  }
  select_compact<P, Mode>(x, sel, rank, c, tile_valid, lane, w, s);  // overlaps with warp 0's look-back wait
  if (w == 0) {  // step 6: the tile's output offset
    Carry prefix{};
    if constexpr (RL) prefix.last = -1;
    if (tile > 0) {
      // Partition's counts are all published already: no first wait.
      const lookback_waits waits{PART ? 0u : p.waits.first_ns, p.waits.poll_ns};
      prefix = look_back<1>(state, tile, op_t{}, waits);
      if (lane == 0 && tile + 1 < p.num_tiles) state.publish(tile, tile_prefix, op_t{}(prefix, aggregate));
    }
    if (lane == 0) s.prefix.get() = prefix;
  }
  __syncthreads();
  const Carry prefix = s.prefix.get();
  select_store<Mode, P.threads>(p, s, prefix, tile_base, c.tile_sel, tile_valid);
  if (tid == 0 && tile + 1 == p.num_tiles) select_finish<Mode>(p, s, prefix, tile_base, c.tile_sel);
}

/// Partition's counting pass: a grid-stride loop over the tiles (same tiling as the scatter pass) that
/// publishes each tile's count as its aggregate (tile 0's as its inclusive prefix) and adds the block's sum to
/// *total (zeroed before). Policy: a policy_constant of a select_policy.
template <class Policy, class T, class F, class Fn, class Count>
__global__ void __launch_bounds__(Policy::value.threads)
select_count_kernel(select_params<T, F, Fn, Count> p, tile_state<tile_count> state, unsigned long long* total) {
  constexpr select_policy P = Policy::value;
  using shape = select_shape<P, T>;
  constexpr int K = shape::K, V = shape::V, WARPS = shape::warps;
  __shared__ unsigned warp_count[WARPS];
  const int tid = threadIdx.x, lane = tid % warp::size, w = tid / warp::size;
  unsigned long long block_sum = 0;
  for (std::uint64_t tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
    const std::uint64_t tile_base = tile * shape::tile;
    const bool full = tile_base + shape::tile <= p.n;
    T x[K][V];
    unsigned sel[K];
    select_load<P, select_mode::partition>(p, tile_base + std::uint64_t(w) * shape::warp_tile, full, x, sel);
    unsigned c = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) c += __popc(sel[k]);
    c = __reduce_add_sync(warp::full_mask, c);
    if (lane == 0) warp_count[w] = c;
    __syncthreads();
    if (tid == 0) {
      unsigned t = 0;
#pragma unroll
      for (int j = 0; j < WARPS; ++j) t += warp_count[j];
      // Tile 0's count is its inclusive prefix: published as one, so that every look-back of the scatter pass
      // ends at a prefix without waiting for the scatter pass's tile 0.
      state.publish(tile, tile == 0 ? tile_prefix : tile_aggregate, tile_count{t});
      block_sum += t;
    }
    __syncthreads();
  }
  if (tid == 0 && block_sum) atomicAdd(total, block_sum);
}

}  // namespace cuprim::detail
