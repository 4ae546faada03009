// cuprim/device/detail/radix_sort_onesweep.cuh: one pass of the one-sweep LSD radix sort (Adinets & Merrill,
// "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs", 2022), launched once per 8-bit digit (and
// portion) after the upfront histogram (radix_sort_histogram.cuh).
//
// Each block takes the next tile id from an atomic counter (a tile only waits on tiles whose blocks already run) and
// runs radix_onesweep_tile::run(): it loads its keys warp-striped (coalesced), ranks them with per-warp digit
// counters (the lanes holding one digit are found with 8 ballots; the highest of them bumps the counter for all),
// publishes its 256 digit counts as aggregates and, one thread per digit, looks back over the predecessors'
// published counts (decoupled look-back, as in lookback.cuh but with one chain per digit; status and count share
// one 32-bit word, so a relaxed store publishes both and no fence is needed) until it meets an inclusive prefix,
// then publishes its own. Keys are exchanged through shared memory into digit order and written with near-coalesced
// stores; values follow the same permutation (radix_sort_exchange.cuh).
//
// Pairs of a 4-byte integer key and a 4-byte value may travel packed (radix_sort_policy's pack): the first pass
// loads keys and values and packs each pair into one 8-byte key (the key's ordered bits above the value's bits),
// the passes move 8-byte keys alone with the digit 32 bits higher, and the last pass unpacks them into the two
// output arrays (radix_packed_params). One array of 8-byte items moves faster than two of 4-byte ones: one load and
// one store per pair, and twice the bytes per digit run of a tile.
//
// Inputs longer than a portion (2^29 keys rounded down to whole tiles) are sorted portion by portion within each
// pass, so the 30-bit counts of the look-back words never overflow and n may exceed 2^32.
#pragma once

#include <cuprim/core/policy.hpp>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/radix_sort_common.cuh>
#include <cuprim/device/detail/radix_sort_exchange.cuh>
#include <cuprim/device/detail/radix_sort_tuning.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

/// One block's work on one tile of one pass, as a sequence of named steps (run()). S is the type the keys travel
/// as: K itself, or, for floating-point keys of which none is NaN, their ordered bits (radix_ordered_bits; the first
/// pass converts them as it loads them, the last converts them back as it stores them), whose digit costs 2
/// instructions instead of about 7. Packed: the launch may pack its loads or unpack its stores (radix_packed_params;
/// K = std::uint64_t with no values).
template <radix_sort_policy P, class K, class V, bool Packed, class S>
struct radix_onesweep_tile {
  static_assert(!Packed || (std::is_same_v<K, std::uint64_t> && !radix_has_values_v<V>),
                "packed passes move 8-byte keys alone");
  static_assert(sizeof(S) == sizeof(K));
  using params = std::conditional_t<Packed, radix_packed_params, radix_onesweep_params<K, V>>;
  using smem_t = radix_onesweep_smem<P.threads, P.items, K, V, P.joint_exchange>;
  static constexpr int Threads = P.threads, Items = P.items, W = Threads / 32, tile = Threads * Items;
  static constexpr bool as_bits = !std::is_same_v<S, K>;
  static constexpr bool has_values = radix_has_values_v<V>;
  static constexpr bool joint = smem_t::joint;
  // The digit of each tile position kept in shared memory (for the values' stores, and for keys whose digit costs
  // more than the byte's store and load); the joint exchange recomputes it from the key.
  static constexpr bool keep_digit = !joint && (has_values || radix_key<S>::kind == radix_kind::floating);
  static_assert(!keep_digit || smem_t::keep_digit);
  static_assert(tile <= 65536, "one-sweep ranks are packed in 16 bits");

  const params& p;
  smem_t& s;
  const int tid, warp, lane;
  std::uint64_t tile_id = 0, base = 0;  // the tile, and its first key in the portion
  int valid = 0;                        // its keys (tile, or fewer in the portion's last tile)
  bool full = false;
  int warp_first = 0, warp_valid = 0;   // the warp's first key in the tile; item (32 i + lane) valid when below

  __device__ __forceinline__ radix_onesweep_tile(const params& p_, smem_t& s_)
      : p(p_), s(s_), tid(int(threadIdx.x)), warp(tid / 32), lane(tid % 32) {}

  __device__ __forceinline__ void run() {
    take_tile();
    prefetch_ahead();
    full = valid == tile;
    warp_first = warp * Items * 32;
    warp_valid = valid - warp_first;
    S keys[Items];
    radix_packed_ranks<Items> rank;
    const bool packed_load = load_keys(keys);
    demote_input();
    rank_keys(keys, rank, packed_load);
    const unsigned count = count_digits();
    [[maybe_unused]] V vals[has_values ? Items : 1];
    const unsigned start = digit_starts();
    if constexpr (P.exchange_first) exchange(keys, rank, vals);  // overlaps the look-back's wait
    look_back(count, start);
    if constexpr (!P.exchange_first) exchange(keys, rank, vals);
    if constexpr (joint) radix_exchange_values(vals, rank, ex_vals(), lane, full, warp_valid);
    __syncthreads();
    store(rank, vals);
  }

  /// The exchange: the keys, and the values (joint: after the tile's keys; else in the same bytes, after the keys).
  __device__ __forceinline__ S* ex_keys() const { return reinterpret_cast<S*>(s.exchange); }
  __device__ __forceinline__ V* ex_vals() const {
    return reinterpret_cast<V*>(s.exchange + (joint ? std::size_t(tile) * sizeof(S) : 0));
  }

  /// The tile's id, its zeroed counters, and this tile's share of zeroing the next launch's state: its digit slots
  /// there (and those of its later tiles when that launch has more), and the tile counter; one store per digit
  /// thread, before anything of the tile is live.
  __device__ __forceinline__ void take_tile() {
    if (tid == 0) s.tile_id = atomicAdd(p.state, 1u);
    for (int i = tid; i < W * (radix_digits + 1); i += Threads) (&s.hist[0][0])[i] = 0;
    __syncthreads();
    tile_id = s.tile_id;
    if (tid < radix_digits)
      for (std::uint64_t t = tile_id; t < p.zero_next_tiles; t += gridDim.x)
        p.zero_next[radix_state_head + t * radix_digits + tid] = 0;
    if (tile_id == 0 && tid < int(radix_state_head) && p.zero_next_tiles) p.zero_next[tid] = 0;
    base = tile_id * tile;
    valid = (p.count - base) < std::uint64_t(tile) ? int(p.count - base) : tile;
  }

  /// The keys (a packing pass: the keys and the values) of tile tile_id + prefetch_tiles, asked of L2 for the block
  /// that will take it a little later. In a packing pass this cost 2-3% while its key loads waited on one another,
  /// and gains 7% of the pass since they do not (docs/tuning/radix_sort.md, runs 15 and 16).
  __device__ __forceinline__ void prefetch_ahead() {
    if constexpr (P.prefetch_tiles > 0) {
      const std::uint64_t ahead = base + std::uint64_t(P.prefetch_tiles) * tile;
      if (tid == 0 && ahead < p.count) {
        const std::uint64_t m = (p.count - ahead) < std::uint64_t(tile) ? p.count - ahead : tile;
        bool packing = false;
        if constexpr (Packed) {
          if (p.pack_keys) {
            radix_prefetch_l2(p.pack_keys + ahead, m);
            if (p.pack_vals) radix_prefetch_l2(p.pack_vals + ahead, m);
            packing = true;
          }
        }
        if (!packing) radix_prefetch_l2(p.keys_in + ahead, m);
      }
    }
  }

  /// The warp's keys, warp-striped (a packing pass: packed from keys and values); the first pass of keys carried as
  /// ordered bits converts them. Returns whether this pass packed its loads.
  __device__ __forceinline__ bool load_keys(S (&keys)[Items]) {
    const S* src = reinterpret_cast<const S*>(p.keys_in) + base + warp_first + lane;
    bool packed_load = false;
    if constexpr (Packed) {
      if (p.pack_keys) {
        radix_load_packed(keys, p, base + warp_first + lane, full, lane, warp_valid);
        packed_load = true;
      }
    }
    if (packed_load) {
    } else if (full) {
#pragma unroll
      for (int i = 0; i < Items; ++i) keys[i] = src[i * 32];
    } else {
#pragma unroll
      for (int i = 0; i < Items; ++i)
        if (i * 32 + lane < warp_valid) keys[i] = src[i * 32];
    }
    if constexpr (as_bits) {
      if (p.first_pass) {
#pragma unroll
        for (int i = 0; i < Items; ++i) keys[i] = radix_ordered_bits(keys[i]);
      }
    }
    return packed_load;
  }

  /// The last pass's input, stored by the pass before under evict_last, back to the normal priority: the sort
  /// leaves nothing in L2 marked to outlast the caller's data.
  __device__ __forceinline__ void demote_input() {
    if constexpr (P.store_hint == radix_store_evict_last) {
      bool demote = p.last_pass && !p.first_pass;
      if constexpr (Packed) demote = p.demote_in;
      if (demote) {
        radix_demote_l2(p.keys_in + base, std::uint64_t(valid));
        if constexpr (has_values)
          if (p.vals_in) radix_demote_l2(p.vals_in + base, std::uint64_t(valid));
      }
    }
  }

  /// Each key's rank among the warp's keys of its digit, the warp's counts in s.hist[warp]. A packing pass's keys
  /// become their ordered bits only now: a packing pass (the first) is never the pass of the key's top bit (packed
  /// sorts take two passes or more), so its digits are the same either way.
  __device__ __forceinline__ void rank_keys(S (&keys)[Items], radix_packed_ranks<Items>& rank, bool packed_load) {
    if (full) radix_rank_keys<Items, true, radix_rank_atomic>(keys, rank, s.hist[warp], p.descending, p.pass, tile);
    else radix_rank_keys<Items, false, radix_rank_atomic>(keys, rank, s.hist[warp], p.descending, p.pass, warp_valid);
    if constexpr (Packed) {
      if (packed_load && p.key_xor) {
#pragma unroll
        for (int i = 0; i < Items; ++i) keys[i] ^= std::uint64_t(p.key_xor) << 32;
      }
    }
    __syncthreads();
  }

  /// Digit threads: the warps' starts within the digit (in s.hist), the tile's count of the digit, published as the
  /// tile's aggregate (tile 0: its inclusive prefix), and the exclusive scan over the warp's digits (s.tile_start,
  /// the warp totals). Returns the tile's count of the thread's digit.
  __device__ __forceinline__ unsigned count_digits() {
    unsigned count = 0;
    if (tid < radix_digits) {
#pragma unroll
      for (int w = 0; w < W; ++w) {
        const unsigned c = s.hist[w][tid];
        s.hist[w][tid] = count;
        count += c;
      }
      radix_store_relaxed(p.state + radix_state_head + tile_id * radix_digits + tid,
                          (tile_id == 0 ? radix_flag_prefix : radix_flag_aggregate) | count);
      unsigned incl = count;
#pragma unroll
      for (int o = 1; o < 32; o *= 2) {
        const unsigned x = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += x;
      }
      if (lane == 31) s.warp_totals[warp] = incl;
      s.tile_start[tid] = incl - count;
    }
    return count;
  }

  /// Digit threads: where the digit starts in the tile, folded into each warp's offset (one shared read per key in
  /// the exchange). Returns it.
  __device__ __forceinline__ unsigned digit_starts() {
    __syncthreads();
    unsigned start = 0;
    if (tid < radix_digits) {
      start = s.tile_start[tid];
      for (int w = 0; w < warp; ++w) start += s.warp_totals[w];
#pragma unroll
      for (int w = 0; w < W; ++w) s.hist[w][tid] += start;
    }
    return start;
  }

  /// The keys into digit order in the exchange, then the values' loads (with exchange_first before the look-back,
  /// whose wait they overlap; otherwise after it, when the keys' registers are free).
  __device__ __forceinline__ void exchange(const S (&keys)[Items], radix_packed_ranks<Items>& rank,
                                           V (&vals)[has_values ? Items : 1]) {
    __syncthreads();
    radix_exchange_keys<keep_digit>(keys, rank, ex_keys(), s, warp, vals, p, base, warp_first, lane, full,
                                    warp_valid);
  }

  /// Digit threads: the digit's count over tiles [0, tile_id) (look-back), this tile's inclusive prefix published,
  /// and the digit's output addresses of tile position 0: position j goes to output index bases + before +
  /// (j - start) >= 0 (start counts the tile's keys of smaller digits, which bases counts too).
  __device__ __forceinline__ void look_back(unsigned count, unsigned start) {
    if (tid < radix_digits) {
      unsigned* look = p.state + radix_state_head;
      unsigned before = 0;
      if (tile_id > 0) {
        before = radix_look_back<P.look_back>(look, tile_id, tid);
        radix_store_relaxed(look + tile_id * radix_digits + tid, radix_flag_prefix | (before + count));
      }
      const std::uint64_t dst = p.bases[tid] + before - start;
      s.key_dst[tid] = p.keys_out + dst;
      if constexpr (Packed)
        if (p.unpack_vals)  // the 4-byte keys' address (without keys, the values')
          s.key_dst[tid] = reinterpret_cast<K*>((p.unpack_keys ? p.unpack_keys : p.unpack_vals) + dst);
      if constexpr (smem_t::val_dst_kept) s.val_dst[tid] = p.vals_out + dst;
    }
  }

  /// The tile's stores from the exchange to each digit's run: keys and values together (joint), unpacked (the last
  /// packed pass), or the keys, then the values through the same buffer. The last pass of keys carried as ordered
  /// bits converts them back (a uniform choice of loop).
  __device__ __forceinline__ void store(radix_packed_ranks<Items>& rank, V (&vals)[has_values ? Items : 1]) {
    const std::uint64_t policy = radix_store_policy<P.store_hint>(p.last_pass);
    if constexpr (joint) {
      if (as_bits && p.last_pass)
        radix_store_pairs<Threads, Items, as_bits, P.store_hint>(ex_keys(), ex_vals(), s, full, valid, p, policy);
      else radix_store_pairs<Threads, Items, false, P.store_hint>(ex_keys(), ex_vals(), s, full, valid, p, policy);
      return;
    }
    if constexpr (Packed) {
      if (p.unpack_vals) {
        if (p.unpack_keys)
          radix_store_unpacked<Threads, Items, P.store_hint, true>(ex_keys(), s, full, valid, p, policy);
        else radix_store_unpacked<Threads, Items, P.store_hint, false>(ex_keys(), s, full, valid, p, policy);
        return;
      }
    }
    if (as_bits && p.last_pass)
      radix_store_keys<Threads, Items, keep_digit, as_bits, P.store_hint>(ex_keys(), s, full, valid, p.descending,
                                                                          p.pass, policy);
    else
      radix_store_keys<Threads, Items, keep_digit, false, P.store_hint>(ex_keys(), s, full, valid, p.descending,
                                                                        p.pass, policy);
    if constexpr (has_values) store_values(rank, vals, policy);
  }

  /// The values after the keys (separate exchanges): into their keys' tile positions, then to the position's digit's
  /// run, the digit read back from s.digit_at.
  __device__ __forceinline__ void store_values(const radix_packed_ranks<Items>& rank, const V (&vals)[Items],
                                               std::uint64_t policy) {
    V* const xv = ex_vals();
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Items; ++i)
      if (full || i * 32 + lane < warp_valid) xv[rank.get(i)] = vals[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = i * Threads + tid;
      if (full || j < valid) {
        V* const dst = s.val_dst[s.digit_at[j]];
        radix_assume_global(dst);
        radix_store_global<P.store_hint>(dst + j, xv[j], policy);
      }
    }
  }
};

/// One pass (and portion) of the sort: a programmatic dependent launch, whose blocks may be resident before the grid
/// ahead (the previous pass, or the digit bases) has finished, and wait here for its keys, values, bases and zeroed
/// state. Floating-point keys travel as their ordered bits when the histogram pass found no NaN. Policy:
/// radix_sort_policy::onesweep_part().
template <class Policy, class K, class V, bool Packed = false>
__global__ void __launch_bounds__(Policy::value.threads, Policy::value.min_blocks)
    radix_onesweep_kernel(std::conditional_t<Packed, radix_packed_params, radix_onesweep_params<K, V>> p) {
  constexpr radix_sort_policy P = Policy::value;
  using smem_t = radix_onesweep_smem<P.threads, P.items, K, V, P.joint_exchange>;
  extern __shared__ __align__(16) unsigned char onesweep_smem_raw[];
  smem_t& s = *reinterpret_cast<smem_t*>(onesweep_smem_raw);
  allow_dependent_launch();
  wait_for_prerequisite_grid();
  if constexpr (radix_key<K>::kind == radix_kind::floating) {
    if (*p.nan_flag == 0) {  // no NaN: the keys travel as their ordered bits
      radix_onesweep_tile<P, K, V, Packed, typename radix_key<K>::bits_t>(p, s).run();
      return;
    }
  }
  radix_onesweep_tile<P, K, V, Packed, K>(p, s).run();
}

}  // namespace cuprim::detail
