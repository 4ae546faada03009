// cuprim/device/detail/radix_sort_exchange.cuh: what a one-sweep tile moves (radix_sort_onesweep.cuh): its
// parameters and shared memory, its keys' loads (packed ones too), the exchange of its keys (and values) into digit
// order through shared memory, and the near-coalesced stores from there to each digit's run in the output.
#pragma once

#include <cuprim/device/detail/radix_sort_common.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

template <class K, class V>
struct radix_onesweep_params {
  const K* keys_in;   // this portion's keys
  K* keys_out;        // the whole output
  const V* vals_in;   // this portion's values; null with values: value = index (argsort's iota)
  V* vals_out;
  std::uint64_t count;        // keys in this portion
  std::uint64_t first_index;  // index of the portion's first key (for the iota values)
  unsigned* state;            // [radix_state_head + tiles * 256], zeroed
  // The state of the launch after this one (the other of two arrays, which the launch before this one used), and
  // that launch's tiles (0: none): this launch zeroes it, so that no memset runs between passes.
  unsigned* zero_next;
  std::uint64_t zero_next_tiles;
  const std::uint64_t* bases; // [256]: where each digit of this portion starts
  radix_pass pass;
  bool descending;
  // Floating-point keys: nonzero when some key is NaN (set by the histogram pass); otherwise the passes carry the
  // keys' ordered bits (radix_ordered_bits, radix_sort_traits.cuh), converted on the first pass's loads and back
  // on the last pass's stores.
  const unsigned* nan_flag;
  bool first_pass, last_pass;
};

/// A packed pass's parameters (radix_sort_policy's pack; the one-sweep kernel of 8-byte keys alone with Packed): a
/// 4-byte key and a 4-byte value travel as one 8-byte key, the key's ordered bits (the key xor key_xor) above the
/// value's bits, and the pass's digit lies 32 bits higher. A type of its own, so that the other kernels' parameters
/// keep their size (ptxas scheduled the 4-byte keys' pass differently, and it ran 5-7% slower on low-entropy keys,
/// when these fields were added to radix_onesweep_params).
struct radix_packed_params : radix_onesweep_params<std::uint64_t, radix_no_value> {
  // Non-null: this launch loads the keys and values from pack_keys and pack_vals (null: the value is the key's
  // index, as in argsort) and packs them, instead of loading keys_in.
  const std::uint32_t* pack_keys;
  const std::uint32_t* pack_vals;
  // unpack_vals non-null: this launch stores each key's lower half to unpack_vals and its upper half (xor key_xor)
  // to unpack_keys (null: nowhere, as in argsort), instead of storing to keys_out.
  std::uint32_t* unpack_keys;
  std::uint32_t* unpack_vals;
  unsigned key_xor;
  // store_hint evict_last: this launch returns the lines it reads to the normal priority (radix_demote_l2), because
  // no later pass stores over them (the last pass, and the pass before it, whose input buffer is not written again).
  bool demote_in;
};

/// Shared memory of the one-sweep kernel. Joint (pairs only): the keys' and the values' exchanges side by side.
template <int Threads, int Items, class K, class V, bool Joint = false>
struct radix_onesweep_smem {
  static constexpr int warps = Threads / 32;
  static constexpr int tile = Threads * Items;
  static constexpr bool joint = Joint && radix_has_values_v<V>;
  static constexpr std::size_t item_bytes =
      joint ? sizeof(K) + sizeof(V)
            : ((radix_has_values_v<V> && sizeof(V) > sizeof(K)) ? sizeof(V) : sizeof(K));
  alignas(16) unsigned char exchange[std::size_t(tile) * item_bytes];  // joint: tile keys, then tile values
  // Digit of the key at each tile position: for the values' stores, and for floating-point keys, whose digit costs
  // about 7 instructions to recompute against 2 for a byte written in the exchange and read in the store. The joint
  // exchange recomputes it from the key beside the value.
  static constexpr bool keep_digit = !joint && (radix_has_values_v<V> || radix_key<K>::kind == radix_kind::floating);
  unsigned char digit_at[keep_digit ? tile : 1];
  unsigned hist[warps][radix_digits + 1];  // per warp: counts, then where the warp's keys of the digit start in
                                           // the tile
  unsigned tile_start[radix_digits];       // where each digit starts in the tile
  K* key_dst[radix_digits];                // per digit: the output address of tile position 0 (position j of the
                                           // digit's run goes to key_dst[d] + j: one multiply-add per key)
  // Per digit, the values' output address of tile position 0; the joint exchange does without it when keys and
  // values have one size (a value's address is then its key's plus vals_out - keys_out).
  static constexpr bool val_dst_kept = radix_has_values_v<V> && (!joint || sizeof(K) != sizeof(V));
  V* val_dst[val_dst_kept ? radix_digits : 1];
  unsigned warp_totals[radix_digits / 32];
  unsigned tile_id;
};

/// The address of value position j of the run whose key position j goes to kdst (kdst = key_dst[d] + j).
template <class Smem, class K, class V>
__device__ __forceinline__ V* radix_value_dst(const Smem& s, unsigned d, int j, K* kdst, V* vals_out, K* keys_out) {
  V* dst;
  if constexpr (Smem::val_dst_kept) {
    dst = s.val_dst[d] + j;
  } else {
    const std::uintptr_t to_vals =
        reinterpret_cast<std::uintptr_t>(vals_out) - reinterpret_cast<std::uintptr_t>(keys_out);
    dst = reinterpret_cast<V*>(reinterpret_cast<std::uintptr_t>(kdst) + to_vals);
  }
  radix_assume_global(dst);  // a global store, not a generic one
  return dst;
}

/// A packed pass's loads (radix_packed_params::pack_keys): a warp's keys and values, warp-striped as the keys'
/// loads are (item i of the lane: element first + 32 i), packed into 8-byte keys. The keys' own bits: key_xor is
/// applied after the ranking (radix_onesweep_tile::rank), because an xor here made ptxas load the keys into a few
/// scratch registers and wait for each load before the next one into the same register (the packing pass took
/// 1.14 ms against 0.87 ms for a pass of 8-byte keys; docs/tuning/radix_sort.md, run 16).
template <int Items>
__device__ __forceinline__ void radix_load_packed(std::uint64_t (&keys)[Items], const radix_packed_params& p,
                                                  std::uint64_t first, bool full, int lane, int warp_valid) {
  const std::uint32_t* ks = p.pack_keys + first;
  if (p.pack_vals) {
    const std::uint32_t* vs = p.pack_vals + first;
#pragma unroll
    for (int i = 0; i < Items; ++i)
      if (full || i * 32 + lane < warp_valid)
        keys[i] = (std::uint64_t(ks[i * 32]) << 32) | vs[i * 32];
  } else {
#pragma unroll
    for (int i = 0; i < Items; ++i)
      if (full || i * 32 + lane < warp_valid)
        keys[i] = (std::uint64_t(ks[i * 32]) << 32) | std::uint32_t(p.first_index + first + i * 32);
  }
}

/// Moves warp `warp`'s keys into digit order in the exchange (position: rank + the warp's offset of the digit,
/// s.hist[warp][d]), keeping each position's digit where needed and, with values, each item's position in place of
/// its rank (for the values' exchange); then loads the values (warp-striped, from p.vals_in or the iota) into vals.
/// The warp's first key is key base + warp_first of the portion.
template <bool KeepDigit, int I, class S, class K, class V, class Smem, class Ranks, int NV>
__device__ __forceinline__ void radix_exchange_keys(const S (&keys)[I], Ranks& rank, S* ex_keys, Smem& s, int warp,
                                                    V (&vals)[NV],
                                                    const radix_onesweep_params<K, V>& p, std::uint64_t base,
                                                    int warp_first, int lane, bool full, int warp_valid) {
  using traits = radix_key<S>;
  constexpr bool has_values = radix_has_values_v<V>;
#pragma unroll
  for (int i = 0; i < I; ++i) {
    if (full || i * 32 + lane < warp_valid) {
      const unsigned d = traits::digit(keys[i], p.descending, p.pass.shift, p.pass.mask);
      const unsigned pos = rank.get(i) + s.hist[warp][d];
      if constexpr (has_values) rank.put(i, pos);
      ex_keys[pos] = keys[i];
      if constexpr (KeepDigit) s.digit_at[pos] = static_cast<unsigned char>(d);
    }
  }
  if constexpr (has_values) {
    if (p.vals_in) {
      const V* vsrc = p.vals_in + base + warp_first + lane;
#pragma unroll
      for (int i = 0; i < I; ++i)
        if (full || i * 32 + lane < warp_valid) vals[i] = vsrc[i * 32];
    } else {
#pragma unroll
      for (int i = 0; i < I; ++i) vals[i] = radix_iota<V>(p.first_index + base + warp_first + i * 32 + lane);
    }
  }
}

/// The joint exchange's values (radix_sort_policy's joint_exchange): each to its key's tile position (rank holds
/// the positions after radix_exchange_keys).
template <int I, class V, class Ranks>
__device__ __forceinline__ void radix_exchange_values(const V (&vals)[I], const Ranks& rank, V* ex_vals, int lane,
                                                      bool full, int warp_valid) {
#pragma unroll
  for (int i = 0; i < I; ++i)
    if (full || i * 32 + lane < warp_valid) ex_vals[rank.get(i)] = vals[i];
}

/// The one-sweep tile's key stores, thread-striped from the exchange: position j of digit d goes to key_dst[d] + j.
/// ToFloat: the keys are ordered bits, stored as the floating-point keys they stand for.
template <int Threads, int Items, bool KeepDigit, bool ToFloat, int StoreHint, class S, class Smem>
__device__ __forceinline__ void radix_store_keys(const S* ex_keys, const Smem& s, bool full, int valid, bool descending,
                                                 radix_pass ps, std::uint64_t policy) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const int j = i * Threads + tid;
    if (full || j < valid) {
      const S k = ex_keys[j];
      unsigned d;
      if constexpr (KeepDigit) d = s.digit_at[j];
      else d = radix_key<S>::digit(k, descending, ps.shift, ps.mask);
      S* const dst = reinterpret_cast<S*>(s.key_dst[d]);
      __builtin_assume(__isGlobal(dst));  // a global store, not a generic one
      if constexpr (ToFloat) radix_store_global<StoreHint>(dst + j, radix_float_bits(k), policy);
      else radix_store_global<StoreHint>(dst + j, k, policy);
    }
  }
}

/// The joint exchange's stores (radix_sort_policy's joint_exchange): tile position j's key and value,
/// thread-striped, the digit recomputed from the key. ToFloat as in radix_store_keys.
template <int Threads, int Items, bool ToFloat, int StoreHint, class S, class K, class V, class Smem>
__device__ __forceinline__ void radix_store_pairs(const S* ex_keys, const V* ex_vals, const Smem& s, bool full,
                                                  int valid, const radix_onesweep_params<K, V>& p,
                                                  std::uint64_t policy) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const int j = i * Threads + tid;
    if (full || j < valid) {
      const S k = ex_keys[j];
      const unsigned d = radix_key<S>::digit(k, p.descending, p.pass.shift, p.pass.mask);
      S* const kdst = reinterpret_cast<S*>(s.key_dst[d]) + j;
      __builtin_assume(__isGlobal(kdst));
      if constexpr (ToFloat) radix_store_global<StoreHint>(kdst, radix_float_bits(k), policy);
      else radix_store_global<StoreHint>(kdst, k, policy);
      radix_store_global<StoreHint>(radix_value_dst(s, d, j, kdst, p.vals_out, reinterpret_cast<S*>(p.keys_out)),
                                    ex_vals[j], policy);
    }
  }
}

/// A packed pass's stores to separate key and value arrays (radix_packed_params::unpack_vals): tile position j's
/// 8-byte key, thread-striped, its upper half (xor key_xor) to the key's output position and its lower half to the
/// value's. key_dst[d] holds the 4-byte key array's address of tile position 0 of digit d; without keys
/// (unpack_keys null, Keys false) the value array's, and only the values are stored.
template <int Threads, int Items, int StoreHint, bool Keys, class Smem>
__device__ __forceinline__ void radix_store_unpacked(const std::uint64_t* ex_keys, const Smem& s, bool full, int valid,
                                                     const radix_packed_params& p, std::uint64_t policy) {
  const int tid = threadIdx.x;
  const std::uintptr_t to_vals =
      reinterpret_cast<std::uintptr_t>(p.unpack_vals) - reinterpret_cast<std::uintptr_t>(p.unpack_keys);
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const int j = i * Threads + tid;
    if (full || j < valid) {
      const std::uint64_t k = ex_keys[j];
      const unsigned d = radix_key<std::uint64_t>::digit(k, p.descending, p.pass.shift, p.pass.mask);
      std::uint32_t* const first = reinterpret_cast<std::uint32_t*>(s.key_dst[d]) + j;
      __builtin_assume(__isGlobal(first));
      if constexpr (Keys) {
        std::uint32_t* const vdst = reinterpret_cast<std::uint32_t*>(reinterpret_cast<std::uintptr_t>(first) + to_vals);
        __builtin_assume(__isGlobal(vdst));
        radix_store_global<StoreHint>(first, std::uint32_t(k >> 32) ^ p.key_xor, policy);
        radix_store_global<StoreHint>(vdst, std::uint32_t(k), policy);
      } else {
        radix_store_global<StoreHint>(first, std::uint32_t(k), policy);
      }
    }
  }
}

}  // namespace cuprim::detail
