// cuprim/device/detail/segmented_sort_long.cuh: the segmented sort's long segments (longer than the one-block
// sort's tile), all of them in one batched LSD radix sort driven from the device (device/segmented_sort.cuh).
//
// The host knows only upper bounds (segments longer than the block tile m: at most n / (m + 1); their one-sweep
// tiles: seg_tiles_max), so it sizes every launch from those, and the kernels read the true counts, which the
// classify pass wrote to the workspace (segmented_sort_kernel.cuh); blocks with nothing to do exit. Steps:
//   1. seg_tile_map_kernel     the classify pass gave each long segment a contiguous run of tile ids (an atomic
//                              counter: a device-side exclusive scan of the segments' tile counts, in whatever
//                              order the segments came); this kernel writes the tile map (tile → segment) and
//                              zeroes the segment's digit counters and the first pass's look-back words.
//   2. seg_histogram_kernel    one read of the long segments' keys counts every digit place of every segment into
//                              per-segment counters (radix_histogram_count, per-block shared copies flushed with
//                              global atomics whenever the block's contiguous run of tiles moves to the next
//                              segment); floating-point keys also report whether any is NaN.
//   3. seg_bases_kernel        per segment and place, the digits' output starts: the segment's first key plus the
//                              exclusive scan of its counts (in place).
//   4. seg_onesweep_kernel     per digit place, a one-sweep pass over the tile map: persistent blocks take tile ids
//                              from a counter and run the device-wide sort's tile steps (radix_onesweep_tile: load,
//                              rank, exchange, store; floating-point, signed and 64-bit keys, descending order, bit
//                              ranges and values as there), with their own publication and decoupled look-back: the
//                              first tile of each segment publishes an inclusive prefix, so every look-back chain
//                              stops at its segment's first tile. Look-back words are 64-bit (a 2-bit status above
//                              a 62-bit count), so a segment may hold any number of keys (the device-wide sort's
//                              30-bit words need portions instead).
// The passes ping-pong between the output and the workspace's copy of the arrays, the first reading the input, so
// that the last pass writes keys_out (and values_out) whatever the number of passes.
#pragma once

#include <cuprim/core/policy.hpp>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/radix_sort_common.cuh>
#include <cuprim/device/detail/radix_sort_histogram.cuh>
#include <cuprim/device/detail/radix_sort_onesweep.cuh>
#include <cuprim/device/detail/radix_sort_tuning.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

/// counters[] of the segmented sort (64-bit words, zeroed before the classify pass).
enum : int {
  seg_bad = 0,          ///< nonzero: some offset decreases or leaves [0, n]; no kernel writes an output then
  seg_medium = 1,       ///< segments of one block's sort, listed in seg_sort_params::medium
  seg_large = 2,        ///< long segments, listed in seg_sort_params::longs
  seg_tiles = 3,        ///< the long segments' one-sweep tiles
  seg_nan = 4,          ///< floating-point keys: nonzero when a long segment holds a NaN (its low word is read)
  seg_pass_tiles = 8,   ///< 8 words: each one-sweep pass's tile counter
  seg_counters = 16
};

/// A long segment: its keys [begin, end) and its first tile id (its tiles are first_tile, first_tile + 1, ...).
struct seg_long {
  std::uint64_t begin, end, first_tile;
};

/// The most one-sweep tiles of tile keys that long segments (each longer than m keys, together at most n) may
/// have: a segment of L keys has ceil(L / tile) tiles, at most L / m of them when m ≤ tile and L ≤ tile, and
/// fewer than 2L / tile beyond (ceil(L / tile) ≤ (k + 1) for L > k·tile); when m > tile, at most L / tile + L / m.
constexpr std::uint64_t seg_tiles_max(std::uint64_t n, std::uint64_t m, std::uint64_t tile) {
  if (m <= tile) {
    const std::uint64_t a = n / m, b = 2 * n / tile;
    return (a > b ? a : b) + 1;
  }
  return n / tile + n / m + 1;
}

/// What the long segments' kernels share.
template <class K, class V>
struct seg_long_arrays {
  const K* keys_in;
  unsigned long long* counters;  ///< [seg_counters]
  const seg_long* longs;         ///< [counters[seg_large]]
  std::uint32_t* map;            ///< [counters[seg_tiles]]: the long segment of each tile
  std::uint64_t* hist;           ///< [long segments][passes][256]: digit counts, then digit starts
  unsigned long long* state0;    ///< the first pass's look-back words
  std::uint64_t tile;            ///< keys per one-sweep tile
  int begin_bit, end_bit, passes;
  bool descending;
};

/// Writes the tile map and zeroes each long segment's digit counters. One block per segment in turn (the first
/// pass's look-back words are zeroed by seg_histogram_kernel, spread over its whole grid: for one huge segment a
/// single block here would write 2 KiB per tile alone).
template <class K, class V>
__global__ void __launch_bounds__(256) seg_tile_map_kernel(seg_long_arrays<K, V> a) {
  wait_for_prerequisite_grid();  // launched dependent: every kernel of this path, before its first access
  if (a.counters[seg_bad]) return;
  const std::uint64_t count = a.counters[seg_large];
  const std::uint64_t per_segment = std::uint64_t(a.passes) * radix_digits;
  for (std::uint64_t k = blockIdx.x; k < count; k += gridDim.x) {
    const seg_long L = a.longs[k];
    const std::uint64_t tiles = (L.end - L.begin + a.tile - 1) / a.tile;
    for (std::uint64_t j = threadIdx.x; j < tiles; j += blockDim.x) a.map[L.first_tile + j] = std::uint32_t(k);
    for (std::uint64_t j = threadIdx.x; j < per_segment; j += blockDim.x) a.hist[k * per_segment + j] = 0;
  }
}

inline constexpr int seg_hist_threads = 512;  ///< threads of a histogram block
inline constexpr int seg_hist_copies = 8;     ///< copies of each shared counter (lane l counts into copy l % 8)

/// Shared-memory bytes of seg_histogram_kernel for keys of K (every digit place of the key, 8 copies each).
template <class K>
constexpr std::size_t seg_hist_smem_bytes = sizeof(K) * radix_digits * seg_hist_copies * sizeof(unsigned);

/// Adds a block's shared counts (passes × 256 counters of seg_hist_copies copies each) to long segment k's counters
/// and zeroes them; the block's threads all call it.
__device__ __forceinline__ void seg_hist_flush(unsigned* counts, std::uint64_t* hist, std::uint64_t k, int passes) {
  __syncthreads();
  const int total = passes * radix_digits;
  for (int i = threadIdx.x; i < total; i += blockDim.x) {
    unsigned sum = 0;
#pragma unroll
    for (int c = 0; c < seg_hist_copies; ++c) {
      sum += counts[i * seg_hist_copies + c];
      counts[i * seg_hist_copies + c] = 0;
    }
    if (sum) atomicAdd(reinterpret_cast<unsigned long long*>(hist + k * std::uint64_t(total) + i),
                       static_cast<unsigned long long>(sum));
  }
  __syncthreads();
}

/// Counts every digit place of the long segments' keys: block b takes the b-th contiguous run of tiles (so it meets
/// few segment boundaries), zeroes their first-pass look-back words, counts each tile's keys in shared memory, and
/// flushes its counts to the segment's counters when the next tile belongs to another segment and at the end.
template <class K, class V>
__global__ void __launch_bounds__(seg_hist_threads) seg_histogram_kernel(seg_long_arrays<K, V> a) {
  constexpr int Threads = seg_hist_threads, C = seg_hist_copies, N = 4;  // N keys per thread and step
  constexpr int max_passes = int(sizeof(K));
  extern __shared__ __align__(16) unsigned seg_hist_smem[];
  wait_for_prerequisite_grid();
  if (a.counters[seg_bad]) return;
  const std::uint64_t tiles = a.counters[seg_tiles];
  const std::uint64_t per_block = (tiles + gridDim.x - 1) / gridDim.x;
  const std::uint64_t t0 = std::uint64_t(blockIdx.x) * per_block;
  const std::uint64_t t1 = t0 + per_block < tiles ? t0 + per_block : tiles;
  if (t0 >= t1) return;
  // The first pass's look-back words of this block's tiles start at zero.
  for (std::uint64_t j = t0 * radix_digits + threadIdx.x; j < t1 * radix_digits; j += Threads) a.state0[j] = 0;
  for (int i = threadIdx.x; i < a.passes * radix_digits * C; i += Threads) seg_hist_smem[i] = 0;
  __syncthreads();
  const radix_histogram_params<K> hp{a.keys_in, 0, nullptr, a.begin_bit, a.end_bit, a.passes, a.descending, nullptr};
  const unsigned lane_addr = unsigned(__cvta_generic_to_shared(seg_hist_smem + threadIdx.x % C));
  bool nan = false;
  std::uint64_t current = a.map[t0];
  for (std::uint64_t t = t0; t < t1; ++t) {
    const std::uint64_t k = a.map[t];
    if (k != current) {  // uniform: the block's tile
      seg_hist_flush(seg_hist_smem, a.hist, current, a.passes);
      current = k;
    }
    const seg_long L = a.longs[k];
    const std::uint64_t first = L.begin + (t - L.first_tile) * a.tile;
    const std::uint64_t valid = L.end - first < a.tile ? L.end - first : a.tile;
    const K* keys = a.keys_in + first;
    for (std::uint64_t j = 0; j < valid; j += std::uint64_t(N) * Threads) {
      K k4[N] = {};
      bool ok[N];
#pragma unroll
      for (int e = 0; e < N; ++e) {
        const std::uint64_t idx = j + std::uint64_t(e) * Threads + threadIdx.x;
        ok[e] = idx < valid;
        if (ok[e]) k4[e] = keys[idx];
      }
      if (j + std::uint64_t(N) * Threads <= valid) nan |= radix_histogram_count<max_passes, C, false>(hp, lane_addr, k4, ok);
      else nan |= radix_histogram_count<max_passes, C, true>(hp, lane_addr, k4, ok);
    }
  }
  seg_hist_flush(seg_hist_smem, a.hist, current, a.passes);
  if (__syncthreads_or(nan) && threadIdx.x == 0) atomicExch(&a.counters[seg_nan], 1ull);
}

/// Long segment k's digit counts become digit starts, place by place: hist[k][q][d] = the segment's first key +
/// the keys of smaller digits in place q. One block of 256 threads (thread d) per segment in turn.
template <class K, class V>
__global__ void __launch_bounds__(radix_digits) seg_bases_kernel(seg_long_arrays<K, V> a) {
  __shared__ std::uint64_t warp_totals[radix_digits / 32];
  wait_for_prerequisite_grid();
  if (a.counters[seg_bad]) return;
  const std::uint64_t count = a.counters[seg_large];
  const int d = threadIdx.x;
  for (std::uint64_t k = blockIdx.x; k < count; k += gridDim.x) {
    const std::uint64_t begin = a.longs[k].begin;
    for (int q = 0; q < a.passes; ++q) {
      std::uint64_t* h = a.hist + (k * std::uint64_t(a.passes) + std::uint64_t(q)) * radix_digits;
      h[d] = begin + radix_digits_exclusive_sum(h[d], warp_totals);
      __syncthreads();  // warp_totals is rewritten by the next place
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The one-sweep passes over the tile map

/// 64-bit look-back words: a status in the top two bits, a 62-bit count.
enum : unsigned long long {
  seg_flag_aggregate = 1ull << 62,
  seg_flag_prefix = 2ull << 62,
  seg_count_mask = (1ull << 62) - 1
};

__device__ __forceinline__ void seg_store_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long seg_load_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

/// One digit's decoupled look-back over the tiles [first, tile) of one segment (radix_look_back with 64-bit words
/// and a chain that stops at the segment's first tile, which publishes an inclusive prefix): reads a window of R
/// predecessors at once, waits until every tile after the window's nearest inclusive prefix has published, and
/// adds the prefix and the aggregates after it; with no prefix in the window, adds all R and moves R tiles back.
/// Positions before `first` read as a prefix of 0 without a load.
template <int R>
__device__ __forceinline__ std::uint64_t seg_look_back(const unsigned long long* look, std::uint64_t tile,
                                                       std::uint64_t first, int digit) {
  std::uint64_t sum = 0;
  std::int64_t end = std::int64_t(tile);  // the window is [end - R, end)
  const std::int64_t lo = std::int64_t(first);
  while (true) {
    unsigned long long w[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const std::int64_t t = end - R + r;
      w[r] = t >= lo ? seg_load_relaxed(look + std::uint64_t(t) * radix_digits + digit) : seg_flag_prefix;
    }
    int nearest = -1;
    while (true) {
      nearest = -1;
#pragma unroll
      for (int r = 0; r < R; ++r)
        if ((w[r] & ~seg_count_mask) == seg_flag_prefix) nearest = r;
      bool ready = true;
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (r > nearest && (w[r] & ~seg_count_mask) == 0) ready = false;
      if (ready) break;
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (r > nearest && (w[r] & ~seg_count_mask) == 0)
          w[r] = seg_load_relaxed(look + std::uint64_t(end - R + r) * radix_digits + digit);
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (r >= nearest) sum += w[r] & seg_count_mask;
    if (nearest >= 0) return sum;
    end -= R;
  }
}

/// One pass's parameters: the device-wide pass's (keys_in and vals_in the whole input, keys_out and vals_out the
/// whole output, count = n; its state, zero_next and bases unused), then the batch's.
template <class K, class V>
struct seg_onesweep_params : radix_onesweep_params<K, V> {
  const unsigned long long* counters;
  unsigned* tile_counter;          ///< this pass's tile ids (a counter of counters[], zeroed)
  const seg_long* longs;
  const std::uint32_t* map;
  const std::uint64_t* starts;     ///< [long segments][passes][256] digit starts
  unsigned long long* look;        ///< this pass's look-back words, zeroed for the tiles used
  unsigned long long* look_next;   ///< the next pass's (null for the last): each tile zeroes its own
  int place, passes;               ///< this pass's digit place, of `passes`
};

/// What a block keeps of its tile's segment, in shared memory after radix_onesweep_smem (registers are what the
/// tile's keys and values need).
struct seg_tile_info {
  std::uint64_t base;            // the tile's first key
  std::uint64_t first_tile;      // its segment's first tile
  const std::uint64_t* starts;   // its segment's digit starts of this place
  int valid;                     // its keys (0: no tile left)
};

/// Dynamic shared memory of seg_onesweep_kernel: the device-wide pass's, then a seg_tile_info.
template <class Smem>
constexpr std::size_t seg_onesweep_smem_bytes = (sizeof(Smem) + 15) / 16 * 16 + sizeof(seg_tile_info);

/// One block's work on the tiles of one pass: the device-wide pass's tile steps (radix_onesweep_tile), with the
/// tile taken from the tile map and the digit counts published and looked back within the tile's segment.
template <radix_sort_policy P, class K, class V, class S>
struct seg_onesweep_tile : radix_onesweep_tile<P, K, V, false, S> {
  using base_t = radix_onesweep_tile<P, K, V, false, S>;
  using smem_t = typename base_t::smem_t;
  static constexpr int Items = P.items, tile = P.threads * P.items;

  const seg_onesweep_params<K, V>& q;
  seg_tile_info& info;

  __device__ __forceinline__ seg_onesweep_tile(const seg_onesweep_params<K, V>& q_, smem_t& s_, seg_tile_info& i_)
      : base_t(q_, s_), q(q_), info(i_) {}

  /// The next tile id, its segment (thread 0 reads them into `info`) and its zeroed counters; false once past the
  /// pass's tiles. Also zeroes the tile's look-back words of the next pass. Every thread of the block has finished
  /// the previous tile's stores when it passes the barrier here, and those stores read none of what is written
  /// before it (s.tile_id, s.hist, info).
  __device__ __forceinline__ bool take_tile() {
    const int tid = this->tid;
    if (tid == 0) {
      const unsigned t = atomicAdd(q.tile_counter, 1u);
      this->s.tile_id = t;
      if (t < q.counters[seg_tiles]) {
        const std::uint64_t k = q.map[t];
        const seg_long L = q.longs[k];
        info.first_tile = L.first_tile;
        info.starts = q.starts + (k * std::uint64_t(q.passes) + std::uint64_t(q.place)) * radix_digits;
        info.base = L.begin + (t - L.first_tile) * tile;
        info.valid = (L.end - info.base) < std::uint64_t(tile) ? int(L.end - info.base) : tile;
      } else {
        info.valid = 0;  // past the tiles
      }
    }
    for (int i = tid; i < (P.threads / 32) * (radix_digits + 1); i += P.threads) (&this->s.hist[0][0])[i] = 0;
    __syncthreads();
    this->tile_id = this->s.tile_id;
    this->valid = info.valid;
    this->base = info.base;
    if (this->valid == 0) return false;
    if (q.look_next && tid < radix_digits) q.look_next[this->tile_id * radix_digits + tid] = 0;
    return true;
  }

  /// radix_onesweep_tile::run() from its prefetch on, with this struct's publication and look-back.
  __device__ __forceinline__ void sort_tile() {
    this->prefetch_ahead();
    this->full = this->valid == tile;
    this->warp_first = this->warp * Items * 32;
    this->warp_valid = this->valid - this->warp_first;
    S keys[Items];
    radix_packed_ranks<Items> rank;
    const bool packed_load = this->load_keys(keys);
    this->demote_input();
    this->rank_keys(keys, rank, packed_load);
    const unsigned count = count_digits();
    [[maybe_unused]] V vals[base_t::has_values ? Items : 1];
    const unsigned start = this->digit_starts();
    if constexpr (P.exchange_first) this->exchange(keys, rank, vals);
    look_back(count, start);
    if constexpr (!P.exchange_first) this->exchange(keys, rank, vals);
    if constexpr (base_t::joint)
      radix_exchange_values(vals, rank, this->ex_vals(), this->lane, this->full, this->warp_valid);
    __syncthreads();
    this->store(rank, vals);
  }

  /// radix_onesweep_tile::count_digits, publishing to the 64-bit words: the segment's first tile its inclusive
  /// prefix, the others their aggregate.
  __device__ __forceinline__ unsigned count_digits() {
    const int tid = this->tid;
    unsigned count = 0;
    if (tid < radix_digits) {
#pragma unroll
      for (int w = 0; w < P.threads / 32; ++w) {
        const unsigned c = this->s.hist[w][tid];
        this->s.hist[w][tid] = count;
        count += c;
      }
      seg_store_relaxed(q.look + this->tile_id * radix_digits + tid,
                        (this->tile_id == info.first_tile ? seg_flag_prefix : seg_flag_aggregate) | count);
      unsigned incl = count;
#pragma unroll
      for (int o = 1; o < 32; o *= 2) {
        const unsigned x = __shfl_up_sync(0xffffffffu, incl, o);
        if (this->lane >= o) incl += x;
      }
      if (this->lane == 31) this->s.warp_totals[this->warp] = incl;
      this->s.tile_start[tid] = incl - count;
    }
    return count;
  }

  /// Digit threads: the digit's count over the segment's tiles before this one, this tile's inclusive prefix
  /// published, and the digit's output address of tile position 0 (start: the tile's keys of smaller digits).
  __device__ __forceinline__ void look_back(unsigned count, unsigned start) {
    const int tid = this->tid;
    if (tid < radix_digits) {
      std::uint64_t before = 0;
      const std::uint64_t first_tile = info.first_tile;
      if (this->tile_id > first_tile) {
        before = seg_look_back<P.look_back>(q.look, this->tile_id, first_tile, tid);
        seg_store_relaxed(q.look + this->tile_id * radix_digits + tid, seg_flag_prefix | (before + count));
      }
      const std::uint64_t dst = info.starts[tid] + before - start;
      this->s.key_dst[tid] = q.keys_out + dst;
      if constexpr (smem_t::val_dst_kept) this->s.val_dst[tid] = q.vals_out + dst;
    }
  }
};

/// One pass of the long segments' sort: persistent blocks (as many as are resident; those left without a tile
/// exit). Floating-point keys travel as their ordered bits when the histogram found no NaN, as in
/// radix_onesweep_kernel. Policy: radix_sort_policy::onesweep_part().
template <class Policy, class K, class V>
__global__ void __launch_bounds__(Policy::value.threads, Policy::value.min_blocks)
    seg_onesweep_kernel(seg_onesweep_params<K, V> p) {
  constexpr radix_sort_policy P = Policy::value;
  using smem_t = radix_onesweep_smem<P.threads, P.items, K, V, P.joint_exchange>;
  extern __shared__ __align__(16) unsigned char seg_onesweep_smem_raw[];
  smem_t& s = *reinterpret_cast<smem_t*>(seg_onesweep_smem_raw);
  seg_tile_info& info =
      *reinterpret_cast<seg_tile_info*>(seg_onesweep_smem_raw + seg_onesweep_smem_bytes<smem_t> - sizeof(seg_tile_info));
  wait_for_prerequisite_grid();
  if (p.counters[seg_bad]) return;
  // Tiles until the pass's counter runs past them. (Inlined, the loop costs ptxas some spills against one tile per
  // block — for 4-byte pairs 552 bytes of spill stores — yet ran 7% faster on an H100 than the tile as a
  // non-inlined call, whose parameters go through local memory.)
  if constexpr (radix_key<K>::kind == radix_kind::floating) {
    if (*p.nan_flag == 0) {  // no NaN: the keys travel as their ordered bits
      while (true) {
        seg_onesweep_tile<P, K, V, typename radix_key<K>::bits_t> t(p, s, info);
        if (!t.take_tile()) return;
        t.sort_tile();
      }
    }
  }
  while (true) {
    seg_onesweep_tile<P, K, V, K> t(p, s, info);
    if (!t.take_tile()) return;
    t.sort_tile();
  }
}

}  // namespace cuprim::detail
