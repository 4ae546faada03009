// cuprim/device/detail/radix_sort_kernel.cuh: the one-sweep LSD radix sort (Adinets & Merrill, "Onesweep: A
// Faster Least Significant Digit Radix Sort for GPUs", 2022) and the one-block sort of small inputs.
//
// Digits are 8 bits of the ordered key (radix_sort_traits.cuh); pass p sorts by bits [begin + 8p, min(begin +
// 8p + 8, end)).
//
// 1. radix_histogram_kernel: one read of the keys counts every pass's digits at once (one shared atomic per key and
//    pass, each lane into its own copy of the counters, so that no digit mix costs bank conflicts), flushed with
//    global atomics into hist[portion][pass][256].
// 2. radix_bases_kernel: per pass, the exclusive scan over digits of the totals, plus the counts of the earlier
//    portions: where each digit of each portion starts in the output.
// 3. radix_onesweep_kernel, once per pass (and portion): each block takes the next tile id from an atomic counter
//    (a tile only waits on tiles whose blocks already run), loads its keys warp-striped (coalesced), ranks them
//    with per-warp digit counters (the lanes holding one digit are found with 8 ballots; the lowest of them bumps
//    the counter for all), publishes its 256 digit counts as aggregates, and, one thread per digit, looks back
//    over the predecessors' published counts (decoupled look-back, as in scan_kernel.cuh but with one chain per
//    digit; status and count share one 32-bit word, so a relaxed store publishes both and no fence is needed)
//    until it meets an inclusive prefix, then publishes its own. Keys are exchanged through shared memory into
//    digit order and written with near-coalesced stores; values follow the same permutation.
//
// Pairs of a 4-byte integer key and a 4-byte value may travel packed (radix_sort_policy's Pack): the first pass
// loads keys and values and packs each pair into one 8-byte key (the key's ordered bits above the value's bits), the
// passes move 8-byte keys alone with the digit 32 bits higher, and the last pass unpacks them into the two output
// arrays (radix_packed_params). One array of 8-byte items moves faster than two of 4-byte
// ones: one load and one store per pair, and twice the bytes per digit run of a tile.
//
// Inputs longer than a portion (2^29 keys rounded down to whole tiles) are sorted portion by portion within each
// pass, so the 30-bit counts of the look-back words never overflow and n may exceed 2^32.
//
// Small inputs (one small tile) skip all this: radix_small_kernel loads them into one block and runs every pass
// in registers and shared memory, one launch in all; inputs up to one cluster tile go to radix_cluster_kernel,
// the same on a thread-block cluster, the blocks exchanging keys through distributed shared memory.
#pragma once

#include <cuprim/core/memory.hpp>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/radix_sort_traits.cuh>
#include <cuprim/device/detail/radix_sort_tuning.cuh>
#include <cuprim/warp/scan.cuh>
#include <cuprim/warp/shuffle.cuh>

#include <cooperative_groups.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cuprim::detail {

constexpr int radix_bits = 8;
constexpr int radix_digits = 1 << radix_bits;
/// Keys per portion at most (whole tiles are taken below this): look-back counts are 30-bit.
constexpr std::uint64_t radix_portion_max = std::uint64_t(1) << 29;
/// Words before the look-back words in each pass's state: the tile counter, padded.
constexpr std::uint64_t radix_state_head = 64;

enum : unsigned { radix_flag_aggregate = 1u << 30, radix_flag_prefix = 2u << 30, radix_count_mask = (1u << 30) - 1 };

/// No values (keys-only sort).
struct radix_no_value {};

template <class V>
constexpr bool radix_has_values_v = !std::is_same_v<V, radix_no_value>;

/// Value i of argsort's implicit index input (only integer values are ever generated).
template <class V>
__device__ __forceinline__ V radix_iota(std::uint64_t i) {
  if constexpr (std::is_integral_v<V>) return static_cast<V>(i);
  else return V{};
}

/// The digit geometry of one pass.
struct radix_pass {
  int shift;      // first bit of the digit
  unsigned mask;  // (1 << digit bits) - 1
};

/// Number of passes over [begin_bit, end_bit).
__host__ __device__ constexpr int radix_passes(int begin_bit, int end_bit) { return (end_bit - begin_bit + radix_bits - 1) / radix_bits; }
__host__ __device__ constexpr radix_pass radix_pass_of(int begin_bit, int end_bit, int p) {
  const int shift = begin_bit + p * radix_bits;
  const int width = (end_bit - shift) < radix_bits ? (end_bit - shift) : radix_bits;
  return {shift, (1u << width) - 1u};
}

__device__ __forceinline__ void radix_store_relaxed(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned radix_load_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

/// The lanes whose `d` equals this lane's, over the low Bits bits of d (Bits ballots).
/// Written in PTX so that each bit costs a test, a ballot, a predicated inversion and a share of an AND (about 3.5
/// instructions): the same loop in C++ (`bit ? v : ~v`) compiled to about 7 per bit on sm_90, the bit being
/// extracted twice (once for the ballot's predicate, once for the select), which made the match the largest single
/// cost of a one-sweep pass (docs/tuning.md, "Radix sort", run 4).
template <int Bits>
__device__ __forceinline__ unsigned radix_match(unsigned d) {
  unsigned peers = 0xffffffffu;
#pragma unroll
  for (int b = 0; b < Bits; ++b) {
    unsigned v;
    asm("{\n\t.reg .pred p;\n\t"
        "and.b32 %0, %1, %2;\n\t"
        "setp.ne.u32 p, %0, 0;\n\t"
        "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
        "@!p not.b32 %0, %0;\n\t}"
        : "=r"(v)
        : "r"(d), "r"(1u << b));
    peers &= v;
  }
  return peers;
}

/// Ranks a warp's keys (warp-striped: key i of lane l is the warp's (32 i + l)-th) among the warp's earlier keys of
/// the same digit, counting into `hist` (this warp's 257 counters, zeroed; counter 256 takes the invalid keys).
/// digit[i] is 0..255, or 256 for an invalid key (only when !Full). Returns the ranks in rank[].
/// Only items i < count take part (count is warp-uniform; I by default).
template <int I, bool Full>
__device__ __forceinline__ void radix_rank_warp(const unsigned (&digit)[I], unsigned (&rank)[I], unsigned* hist,
                                                int count = I) {
  const unsigned lt = warp::lanemask_lt();
#pragma unroll
  for (int i = 0; i < I; ++i) {
    if (i >= count) break;
    const unsigned d = digit[i];
    const unsigned peers = radix_match<Full ? radix_bits : radix_bits + 1>(d);
    const unsigned below = __popc(peers & lt);
    const unsigned before = hist[d];
    __syncwarp();
    if (below == 0) hist[d] = before + __popc(peers);
    __syncwarp();
    rank[i] = before + below;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 1. The upfront histogram of every pass

template <class K>
struct radix_histogram_params {
  const K* keys;
  std::uint64_t count;  // keys of this portion
  unsigned* hist;       // [passes][256] of this portion, zeroed
  int begin_bit, end_bit, passes;
  bool descending;
  unsigned* nan_flag;   // floating-point keys: set to 1 when some key is NaN (zeroed before the first portion)
};

/// Copies of each counter in the histogram kernel's shared memory: lane l counts into copy l % C, so that a warp's
/// 32 atomics fall in 32 distinct banks (C = 32: counter (q, d, c) is word (256 q + d) C + c, in bank c) whatever
/// the digits; 8-byte keys, with 8 passes to count, take 16 copies (at most two lanes per bank) to stay in 128 KiB.
/// (128 KiB of shared memory per block: the sort needs a device that lets a block opt in to that much, as sm_90,
/// the architecture cuprim is built for, does.)
template <class K>
constexpr int radix_histogram_copies = sizeof(K) > 4 ? 16 : 32;

/// Shared-memory bytes of radix_histogram_kernel for keys of K.
template <class K>
constexpr std::size_t radix_histogram_smem_bytes =
    sizeof(K) * radix_digits * radix_histogram_copies<K> * sizeof(unsigned);

/// Counts the digits of every pass of keys k[0, N) (those with valid[e]) into the lane's copies (`lane_addr`: the
/// shared-memory address of the lane's copy of counter 0). Passes outside, keys inside: one uniform test per pass,
/// and per key and pass a shift, a mask, an address and a shared reduction (Guarded: valid[] is read; ptxas then
/// branches around each reduction, so whole steps pass Guarded = false).
/// Returns whether one of the (valid) keys is NaN (false for integer keys).
template <int MaxPasses, int C, bool Guarded, int N, class K>
__device__ __forceinline__ bool radix_histogram_count(const radix_histogram_params<K>& p, unsigned lane_addr,
                                                      const K (&k)[N], const bool (&valid)[N]) {
  using traits = radix_key<K>;
  using U = typename traits::bits_t;
  U b[N];
  bool nan = false;
#pragma unroll
  for (int e = 0; e < N; ++e) {
    b[e] = traits::ordered(k[e], p.descending);
    nan |= (!Guarded || valid[e]) && traits::is_nan(k[e]);
  }
#pragma unroll
  for (int q = 0; q < MaxPasses; ++q) {
    if (q < p.passes) {
      const radix_pass ps = radix_pass_of(p.begin_bit, p.end_bit, q);
#pragma unroll
      for (int e = 0; e < N; ++e) {
        const unsigned addr = lane_addr + ((unsigned(b[e] >> ps.shift) & ps.mask) * C + q * radix_digits * C) * 4u;
        if (!Guarded || valid[e]) asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(addr) : "memory");
      }
    }
  }
  return nan;
}

/// One read of the keys counts the digits of every pass. Blocks of Threads threads, one per SM (the counters take
/// 128 KiB), stride over the keys in steps of Threads × Items keys, loaded as 16-byte vectors (the keys' order does
/// not matter here); the few keys before the first 16-byte boundary and after the last whole vector go to block 0.
/// Every key costs one shared atomic per pass, in a bank of its lane's own (radix_histogram_copies), so neither
/// random digits (bank conflicts) nor equal ones (one counter) slow it down; at the end each block sums its copies
/// and adds them to the portion's histogram with global atomics.
template <int Threads, int Items, class K>
__global__ void __launch_bounds__(Threads, 1) radix_histogram_kernel(radix_histogram_params<K> p) {
  constexpr int max_passes = int(sizeof(K));
  constexpr int C = radix_histogram_copies<K>;
  constexpr int per_vec = 16 / int(sizeof(K));                            // keys per 16-byte vector
  constexpr int vecs = Items / per_vec > 0 ? Items / per_vec : 1;         // vectors per thread and step
  constexpr int words = max_passes * radix_digits * C;
  extern __shared__ __align__(16) unsigned radix_hist_smem[];
  allow_dependent_launch();
  for (int i = threadIdx.x; i < words / 4; i += Threads) reinterpret_cast<uint4*>(radix_hist_smem)[i] = uint4{};
  __syncthreads();
  const unsigned lane_addr = unsigned(__cvta_generic_to_shared(radix_hist_smem + threadIdx.x % C));

  // Keys before the first 16-byte boundary (head) and after the last whole vector (tail).
  const std::uint64_t misalign = (reinterpret_cast<std::uintptr_t>(p.keys) % 16) / sizeof(K);
  const std::uint64_t head = misalign == 0 ? 0 : (per_vec - misalign < p.count ? per_vec - misalign : p.count);
  const std::uint64_t nvec = (p.count - head) / per_vec;
  const std::uint64_t body_end = head + nvec * per_vec;
  bool nan = false;
  if (blockIdx.x == 0) {
    const std::uint64_t tail = p.count - body_end;  // < per_vec
    const bool valid[1] = {threadIdx.x < head + tail};
    K k[1] = {};
    if (valid[0]) k[0] = p.keys[threadIdx.x < head ? threadIdx.x : body_end + threadIdx.x - head];
    nan = radix_histogram_count<max_passes, C, true>(p, lane_addr, k, valid);
  }

  const uint4* vec = reinterpret_cast<const uint4*>(p.keys + head);
  constexpr std::uint64_t chunk = std::uint64_t(Threads) * vecs;
  for (std::uint64_t base = std::uint64_t(blockIdx.x) * chunk; base < nvec; base += std::uint64_t(gridDim.x) * chunk) {
    uint4 v[vecs];
    bool valid[vecs * per_vec];
    const bool full = base + chunk <= nvec;
#pragma unroll
    for (int j = 0; j < vecs; ++j) {
      const std::uint64_t idx = base + std::uint64_t(j) * Threads + threadIdx.x;
      const bool ok = full || idx < nvec;
      v[j] = ok ? vec[idx] : uint4{};
#pragma unroll
      for (int e = 0; e < per_vec; ++e) valid[j * per_vec + e] = ok;
    }
    K k[vecs * per_vec];
    std::memcpy(k, v, sizeof(v));
    if (full) nan |= radix_histogram_count<max_passes, C, false>(p, lane_addr, k, valid);
    else nan |= radix_histogram_count<max_passes, C, true>(p, lane_addr, k, valid);
  }
  // The histograms and the NaN flag were zeroed by the grid before this one (a programmatic dependent launch:
  // the keys' reads above overlapped it).
  wait_for_prerequisite_grid();
  if (__syncthreads_or(nan) && threadIdx.x == 0) *p.nan_flag = 1u;
  // Counter i = 256 q + d: the sum of its C copies, read from bank (c + lane) % 32 at step c (no two lanes of a
  // warp in one bank for C = 32; with 16 copies lanes l and l + 16 share one, a two-way conflict in a loop run once).
  for (int i = threadIdx.x; i < p.passes * radix_digits; i += Threads) {
    unsigned sum = 0;
#pragma unroll
    for (int c = 0; c < C; ++c) sum += radix_hist_smem[i * C + (c + threadIdx.x) % C];
    if (sum) atomicAdd(p.hist + i, sum);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 2. Where each digit of each portion starts

/// Block p (256 threads, thread d): bases[q][p][d] = (keys of all portions with a smaller digit in pass p) +
/// (keys of digit d in portions before q). A template only so that every translation unit that includes this
/// header may define it (a plain __global__ function here is an external definition in each, and the link fails).
template <int Digits = radix_digits>
__global__ void __launch_bounds__(Digits) radix_bases_kernel(const unsigned* hist, std::uint64_t* bases, int passes,
                                                             std::uint64_t portions) {
  static_assert(Digits == radix_digits, "one thread per digit");
  __shared__ std::uint64_t warp_totals[radix_digits / 32];
  allow_dependent_launch();
  wait_for_prerequisite_grid();  // the histograms
  const int p = blockIdx.x, d = threadIdx.x, lane = d % 32, w = d / 32;
  std::uint64_t total = 0;
  for (std::uint64_t q = 0; q < portions; ++q) total += hist[(q * passes + p) * radix_digits + d];
  std::uint64_t incl = total;
#pragma unroll
  for (int o = 1; o < 32; o *= 2) {
    const std::uint64_t x = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= o) incl += x;
  }
  if (lane == 31) warp_totals[w] = incl;
  __syncthreads();
  std::uint64_t run = incl - total;
  for (int j = 0; j < w; ++j) run += warp_totals[j];
  for (std::uint64_t q = 0; q < portions; ++q) {
    const std::uint64_t i = (q * passes + p) * radix_digits + d;
    bases[i] = run;
    run += hist[i];
  }
}

// ---------------------------------------------------------------------------------------------------------------
// 3. One pass: rank, look back, scatter

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

/// A packed pass's parameters (radix_sort_policy's Pack; the one-sweep kernel of 8-byte keys alone with Packed): a
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
  // StoreHint evict_last: this launch returns the lines it reads to the normal priority (radix_demote_l2), because
  // no later pass stores over them (the last pass, and the pass before it, whose input buffer is not written again).
  bool demote_in;
};

/// Asks L2 for elements [p, p + n) (their 16-byte-aligned part, so that nothing outside them is touched) with bulk
/// prefetches of at most 64 KiB; a hint, with no completion to wait for.
template <class T>
__device__ __forceinline__ void radix_prefetch_l2(const T* p, std::uint64_t n) {
  std::uintptr_t a = (reinterpret_cast<std::uintptr_t>(p) + 15) & ~std::uintptr_t(15);
  const std::uintptr_t e = reinterpret_cast<std::uintptr_t>(p + n) & ~std::uintptr_t(15);
  while (a < e) {
    const std::uintptr_t len = (e - a) < 65536 ? (e - a) : 65536;
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a), "r"(unsigned(len)) : "memory");
    a += len;
  }
}

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
  unsigned tile_start[radix_digits];       // where each digit starts in the tile (early counts: first the counts)
  K* key_dst[radix_digits];                // per digit: the output address of tile position 0 (position j of the
                                           // digit's run goes to key_dst[d] + j: one multiply-add per key)
  // Per digit, the values' output address of tile position 0; the joint exchange does without it when keys and
  // values have one size (a value's address is then its key's plus vals_out - keys_out).
  static constexpr bool val_dst_kept = radix_has_values_v<V> && (!joint || sizeof(K) != sizeof(V));
  V* val_dst[val_dst_kept ? radix_digits : 1];
  unsigned warp_totals[radix_digits / 32];
  unsigned tile_id;
};

/// Tells the compiler that p points to global memory, so that a store through it is a global store rather than a
/// generic one. Scalars only: for a pointer to a struct of bytes (a 4-byte struct of four chars, say) NVVM (CUDA 13.0)
/// rejects the intrinsic's call ("Call parameter type does not match function signature"), so such values store
/// through generic addresses.
template <class T>
__device__ __forceinline__ void radix_assume_global(T* p) {
  if constexpr (std::is_scalar_v<T>) __builtin_assume(__isGlobal(p));
}

/// The address of value position j of the run whose key position j goes to kdst (kdst = key_dst[d] + j).
template <class Smem, class K, class V>
__device__ __forceinline__ V* radix_value_dst(const Smem& s, unsigned d, int j, K* kdst, V* vals_out, K* keys_out) {
  V* dst;
  if constexpr (Smem::val_dst_kept) {
    dst = s.val_dst[d] + j;
  } else {
    dst = reinterpret_cast<V*>(reinterpret_cast<std::uintptr_t>(kdst) +
                               (reinterpret_cast<std::uintptr_t>(vals_out) - reinterpret_cast<std::uintptr_t>(keys_out)));
  }
  radix_assume_global(dst);  // a global store, not a generic one
  return dst;
}

/// `if (pred) return atomicAdd(p, v); return 0;` on shared memory, written as a predicated PTX atomic. ptxas (13.0,
/// sm_90) still emits a branch around it (a convergence barrier and a jump: about 4 instructions per key), as for
/// the C++ form; a branch-free form is a lead (docs/tuning.md, "Radix sort", run 4).
__device__ __forceinline__ unsigned radix_atomic_add_if(unsigned* p, unsigned v, bool pred) {
  unsigned old = 0;
  asm volatile(
      "{\n\t.reg .pred q;\n\t"
      "setp.ne.u32 q, %3, 0;\n\t"
      "@q atom.shared.add.u32 %0, [%1], %2;\n\t}"
      : "+r"(old)
      : "r"(unsigned(__cvta_generic_to_shared(p))), "r"(v), "r"(unsigned(pred))
      : "memory");
  return old;
}

/// How the one-sweep kernel ranks a warp's keys (radix_sort_policy's Rank):
///   radix_rank_sync    peers by 8 ballots; the lowest peer reads the digit's counter, and after a __syncwarp
///                      writes it back (one shared load, store and two warp barriers per item, in a chain)
///   radix_rank_atomic  peers by 8 ballots; the lowest peer bumps the counter with a shared atomic whose old value
///                      it passes to its peers by a shuffle (no barrier: a warp's atomics on one address complete
///                      in program order, so item i's keys are counted before item i + 1's)
///   radix_rank_match   as radix_rank_atomic, peers by the hardware match.any instead of the ballots
enum : int { radix_rank_sync = 0, radix_rank_atomic = 1, radix_rank_match = 2 };

/// A thread's I ranks, two 16-bit ranks per register (tile positions are below 2^16): the one-sweep tile's ranks
/// live in registers through the look-back, and halving them is what lets a thread hold 32 keys without spilling.
template <int I>
struct radix_packed_ranks {
  unsigned w[(I + 1) / 2];
  __device__ __forceinline__ void set(int i, unsigned r) {
    if (i % 2 == 0) w[i / 2] = r;
    else w[i / 2] |= r << 16;
  }
  /// Replaces rank i (set() assumes an item's pair is filled in order, even item first).
  __device__ __forceinline__ void put(int i, unsigned r) {
    if (i % 2 == 0) w[i / 2] = (w[i / 2] & 0xffff0000u) | r;
    else w[i / 2] = (w[i / 2] & 0xffffu) | (r << 16);
  }
  __device__ __forceinline__ unsigned get(int i) const { return i % 2 == 0 ? (w[i / 2] & 0xffffu) : (w[i / 2] >> 16); }
};
template <int I>
__device__ __forceinline__ void radix_set_rank(unsigned (&rank)[I], int i, unsigned r) { rank[i] = r; }
template <int I>
__device__ __forceinline__ void radix_set_rank(radix_packed_ranks<I>& rank, int i, unsigned r) { rank.set(i, r); }

/// Ranks a warp's keys (warp-striped) as radix_rank_warp does, computing each key's digit on the fly (256 for the
/// invalid ones of a partial tile).
/// Only items i < count take part (count is warp-uniform; I by default).
template <int I, bool Full, int Rank = radix_rank_sync, class K, class Ranks>
__device__ __forceinline__ void radix_rank_keys(const K (&keys)[I], Ranks& rank, unsigned* hist,
                                                bool descending, radix_pass ps, int first_valid_limit, int count = I) {
  using traits = radix_key<K>;
  const unsigned lt = warp::lanemask_lt();
  const int lane = warp::lane_id();
#pragma unroll
  for (int i = 0; i < I; ++i) {
    if (i >= count) break;
    const bool ok = Full || i * 32 + lane < first_valid_limit;
    const unsigned d = ok ? traits::digit(keys[i], descending, ps.shift, ps.mask) : unsigned(radix_digits);
    unsigned peers;
    if constexpr (Rank == radix_rank_match) peers = __match_any_sync(0xffffffffu, d);
    else peers = radix_match<Full ? radix_bits : radix_bits + 1>(d);
    const unsigned below = __popc(peers & lt);
    if constexpr (Rank == radix_rank_sync) {
      const unsigned before = hist[d];
      __syncwarp();
      if (below == 0) hist[d] = before + __popc(peers);
      __syncwarp();
      radix_set_rank(rank, i, before + below);
    } else {
      // The highest peer is the leader: its count of peers at or below it is the digit's count in this item.
      const unsigned upto = below + 1;
      const unsigned leader = 31 - __clz(peers);
      radix_set_rank(rank, i,
                     __shfl_sync(0xffffffffu, radix_atomic_add_if(hist + d, upto, lane == int(leader)), leader) + below);
    }
  }
}

/// One digit's decoupled look-back, by one thread: the sum of the digit's counts over tiles [0, tile). Reads a
/// window of R predecessors at once (independent loads), waits until every tile after the window's nearest inclusive
/// prefix has published, and adds the prefix and the aggregates after it; with no prefix in the window, adds all R
/// aggregates and moves R tiles back. R = 1 is the classic walk of one dependent load per tile.
template <int R>
__device__ __forceinline__ unsigned radix_look_back(const unsigned* look, std::uint64_t tile, int digit) {
  unsigned sum = 0;
  std::int64_t end = std::int64_t(tile);  // the window is [end - R, end)
  while (true) {
    unsigned w[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const std::int64_t t = end - R + r;
      w[r] = t >= 0 ? radix_load_relaxed(look + std::uint64_t(t) * radix_digits + digit) : radix_flag_prefix;
    }
    int nearest = -1;
    while (true) {
      nearest = -1;
#pragma unroll
      for (int r = 0; r < R; ++r)
        if ((w[r] & ~radix_count_mask) == radix_flag_prefix) nearest = r;
      bool ready = true;
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (r > nearest && (w[r] & ~radix_count_mask) == 0) ready = false;
      if (ready) break;
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (r > nearest && (w[r] & ~radix_count_mask) == 0)
          w[r] = radix_load_relaxed(look + std::uint64_t(end - R + r) * radix_digits + digit);
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (r >= nearest) sum += w[r] & radix_count_mask;
    if (nearest >= 0) return sum;
    end -= R;
  }
}

/// The L2 eviction priority of the one-sweep pass's scattered stores (radix_sort_policy's StoreHint):
///   radix_store_plain       plain stores
///   radix_store_evict_first stores under an L2::evict_first policy
///   radix_store_evict_last  stores under an L2::evict_last policy in every pass but the last, whose output is the
///                           caller's (an evict_normal policy there); the last pass also returns the lines it reads
///                           (the previous pass's output) to the normal priority (radix_demote_l2), so that the
///                           sort leaves no line marked evict_last behind to crowd the caller's data out of L2
enum : int { radix_store_plain = 0, radix_store_evict_first = 1, radix_store_evict_last = 2 };

/// The cache policy (createpolicy) a pass's stores carry under StoreHint; 0 for plain stores.
template <int StoreHint>
__device__ __forceinline__ std::uint64_t radix_store_policy(bool last_pass) {
  std::uint64_t policy = 0;
  if constexpr (StoreHint == radix_store_evict_first) {
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  } else if constexpr (StoreHint == radix_store_evict_last) {
    if (last_pass) asm("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(policy));
    else asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  }
  return policy;
}

/// Whether radix_store_global stores a T under the policy: 4- and 8-byte types aligned to their size (a 32- or
/// 64-bit store needs that alignment; a struct of two floats, aligned to 4, stores plainly).
template <class T>
constexpr bool radix_hinted_store_v =
    (sizeof(T) == 4 || sizeof(T) == 8) && alignof(T) >= sizeof(T) && std::is_trivially_copyable_v<T>;

/// *p = v, under the cache policy when StoreHint is not plain and radix_hinted_store_v<T> (others store plainly).
template <int StoreHint, class T>
__device__ __forceinline__ void radix_store_global(T* p, const T& v, std::uint64_t policy) {
  if constexpr (StoreHint != radix_store_plain && sizeof(T) == 4 && radix_hinted_store_v<T>) {
    unsigned u;
    std::memcpy(&u, &v, 4);
    asm volatile("st.global.L2::cache_hint.b32 [%0], %1, %2;" ::"l"(p), "r"(u), "l"(policy) : "memory");
  } else if constexpr (StoreHint != radix_store_plain && sizeof(T) == 8 && radix_hinted_store_v<T>) {
    unsigned long long u;
    std::memcpy(&u, &v, 8);
    asm volatile("st.global.L2::cache_hint.b64 [%0], %1, %2;" ::"l"(p), "l"(u), "l"(policy) : "memory");
  } else {
    *p = v;
  }
}

/// Returns the L2 lines holding elements [p, p + n) to the normal eviction priority (applypriority, which takes the
/// 128-byte-aligned address of a line; the line's data stays), the block's threads taking one line each in turn:
/// the last pass of a radix_store_evict_last sort calls it on its tile's input, which the pass before stored under
/// evict_last. The first and last lines may hold bytes outside the range; a line never spans two pages, so their
/// addresses are mapped.
template <class T>
__device__ __forceinline__ void radix_demote_l2(const T* p, std::uint64_t n) {
  if (n == 0) return;
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t(127);
  const std::uintptr_t last = (reinterpret_cast<std::uintptr_t>(p + n) - 1) & ~std::uintptr_t(127);
  for (std::uintptr_t a = first + std::uintptr_t(threadIdx.x) * 128; a <= last; a += std::uintptr_t(blockDim.x) * 128)
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(a) : "memory");
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

/// The joint exchange's values (radix_sort_policy's JointExchange): each to its key's tile position (rank holds
/// the positions after radix_exchange_keys).
template <int I, class V, class Ranks>
__device__ __forceinline__ void radix_exchange_values(const V (&vals)[I], const Ranks& rank, V* ex_vals, int lane,
                                                      bool full, int warp_valid) {
#pragma unroll
  for (int i = 0; i < I; ++i)
    if (full || i * 32 + lane < warp_valid) ex_vals[rank.get(i)] = vals[i];
}

/// The joint exchange's stores (radix_sort_policy's JointExchange): tile position j's key and value, thread-striped,
/// the digit recomputed from the key. ToFloat as in radix_store_keys.
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

/// A packed pass's loads (radix_packed_params::pack_keys): a warp's keys and values, warp-striped as the keys'
/// loads are (item i of the lane: element first + 32 i), packed into 8-byte keys. The keys' own bits: key_xor is
/// applied after the ranking (radix_onesweep_body), because an xor here made ptxas load the keys into a few scratch
/// registers and wait for each load before the next one into the same register (the packing pass took 1.14 ms
/// against 0.87 ms for a pass of 8-byte keys; docs/tuning.md, "Radix sort", run 16).
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

/// One pass over one tile. S is the type the keys travel as: K itself, or, for floating-point keys of which none
/// is NaN, their ordered bits (radix_ordered_bits; the first pass converts them as it loads them, the last converts
/// them back as it stores them), whose digit costs 2 instructions instead of about 7.
/// Packed: the launch may pack its loads or unpack its stores (Params is radix_packed_params; K = std::uint64_t with
/// no values).
template <int Threads, int Items, class K, class V, int LookBack, int Rank, bool Early, bool ExchangeFirst, bool Joint,
          int Prefetch, int StoreHint, bool Packed, class S, class Params>
__device__ __forceinline__ void radix_onesweep_body(const Params& p) {
  static_assert(!Packed || (std::is_same_v<K, std::uint64_t> && !radix_has_values_v<V>),
                "packed passes move 8-byte keys alone");
  static_assert(sizeof(S) == sizeof(K));
  constexpr bool as_bits = !std::is_same_v<S, K>;
  using traits = radix_key<S>;
  using smem_t = radix_onesweep_smem<Threads, Items, K, V, Joint>;
  constexpr int W = Threads / 32, tile = Threads * Items;
  constexpr bool has_values = radix_has_values_v<V>;
  constexpr bool joint = smem_t::joint;
  // The digit of each tile position kept in shared memory (for the values' stores, and for keys whose digit costs
  // more than the byte's store and load); the joint exchange recomputes it from the key.
  constexpr bool keep_digit = !joint && (has_values || traits::kind == radix_kind::floating);
  static_assert(!keep_digit || smem_t::keep_digit);
  extern __shared__ __align__(16) unsigned char onesweep_smem_raw[];
  smem_t& s = *reinterpret_cast<smem_t*>(onesweep_smem_raw);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;

  if (tid == 0) s.tile_id = atomicAdd(p.state, 1u);
  for (int i = tid; i < W * (radix_digits + 1); i += Threads) (&s.hist[0][0])[i] = 0;

  if constexpr (Early)
    for (int i = tid; i < radix_digits; i += Threads) s.tile_start[i] = 0;
  __syncthreads();
  const std::uint64_t tile_id = s.tile_id;
  // The next launch's state: this tile's digit slots there (and those of its later tiles when it has more), and
  // the tile counter; one store per digit thread, before anything of the tile is live.
  if (tid < radix_digits)
    for (std::uint64_t t = tile_id; t < p.zero_next_tiles; t += gridDim.x)
      p.zero_next[radix_state_head + t * radix_digits + tid] = 0;
  if (tile_id == 0 && tid < int(radix_state_head) && p.zero_next_tiles) p.zero_next[tid] = 0;
  const std::uint64_t base = tile_id * tile;
  const int valid = (p.count - base) < std::uint64_t(tile) ? int(p.count - base) : tile;
  if constexpr (Prefetch > 0) {
    // The keys (a packing pass: the keys and the values) of tile tile_id + Prefetch, for the block that will take it
    // a little later. In a packing pass this cost 2-3% while its key loads waited on one another, and gains 7% of
    // the pass since they do not (docs/tuning.md, "Radix sort", runs 15 and 16).
    const std::uint64_t ahead = base + std::uint64_t(Prefetch) * tile;
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
  const bool full = valid == tile;
  const int warp_first = warp * Items * 32;
  const int warp_valid = valid - warp_first;  // this warp's item (32 i + lane) is valid when below this

  // Load (warp-striped) and rank.
  static_assert(tile <= 65536, "one-sweep ranks are packed in 16 bits");
  S keys[Items];
  radix_packed_ranks<Items> rank;
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
  if constexpr (StoreHint == radix_store_evict_last) {
    // The last pass's input, stored by the pass before under evict_last, back to the normal priority: the sort
    // leaves nothing in L2 marked to outlast the caller's data.
    bool demote = p.last_pass && !p.first_pass;
    if constexpr (Packed) demote = p.demote_in;
    if (demote) {
      radix_demote_l2(p.keys_in + base, std::uint64_t(valid));
      if constexpr (has_values)
        if (p.vals_in) radix_demote_l2(p.vals_in + base, std::uint64_t(valid));
    }
  }
  unsigned* look = p.state + radix_state_head;
  if constexpr (Early) {
    // Early counts: the tile's digit counts, published before the ranking.
#pragma unroll
    for (int i = 0; i < Items; ++i)
      if (full || i * 32 + lane < warp_valid)
        atomicAdd(&s.tile_start[traits::digit(keys[i], p.descending, p.pass.shift, p.pass.mask)], 1u);
    __syncthreads();
    if (tid < radix_digits)
      radix_store_relaxed(look + tile_id * radix_digits + tid,
                          (tile_id == 0 ? radix_flag_prefix : radix_flag_aggregate) | s.tile_start[tid]);
  }
  if (full) radix_rank_keys<Items, true, Rank>(keys, rank, s.hist[warp], p.descending, p.pass, tile);
  else radix_rank_keys<Items, false, Rank>(keys, rank, s.hist[warp], p.descending, p.pass, warp_valid);
  if constexpr (Packed) {
    // A packing pass's keys to their ordered bits, now that they are loaded and ranked: a packing pass (mode 1: the
    // first; mode 2: every even one) is never the pass of the key's top bit (packed sorts take two passes or more,
    // mode 2 an even number), so its digits are the same either way.
    if (packed_load && p.key_xor) {
#pragma unroll
      for (int i = 0; i < Items; ++i) keys[i] ^= std::uint64_t(p.key_xor) << 32;
    }
  }
  __syncthreads();

  // Per digit: the warps' starts, the tile's count; publish it; scan over digits; look back.
  unsigned count = 0;  // this digit's keys in the tile (digit threads)
  if (tid < radix_digits) {
#pragma unroll
    for (int w = 0; w < W; ++w) {
      const unsigned c = s.hist[w][tid];
      s.hist[w][tid] = count;
      count += c;
    }
    if constexpr (!Early)
      radix_store_relaxed(look + tile_id * radix_digits + tid,
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
  S* ex_keys = reinterpret_cast<S*>(s.exchange);
  V* ex_vals = reinterpret_cast<V*>(s.exchange + (joint ? std::size_t(tile) * sizeof(S) : 0));
  [[maybe_unused]] V vals[has_values ? Items : 1];
  __syncthreads();
  unsigned start = 0;  // where the digit starts in the tile (digit threads)
  if (tid < radix_digits) {
    start = s.tile_start[tid];
    for (int w = 0; w < warp; ++w) start += s.warp_totals[w];
    // Each warp's offset within the tile (one shared read per key in the exchange).
#pragma unroll
    for (int w = 0; w < W; ++w) s.hist[w][tid] += start;
  }
  if constexpr (ExchangeFirst) {
    // The keys go to their tile positions before the look-back (the positions do not depend on it), so that the
    // exchange (and the values' loads) overlap the wait for the predecessors; only the stores need the look-back.
    __syncthreads();
    radix_exchange_keys<keep_digit>(keys, rank, ex_keys, s, warp, vals, p, base, warp_first, lane, full,
                                    warp_valid);
  }
  if (tid < radix_digits) {
    // Look back: the digit's count over tiles [0, tile_id).
    unsigned before = 0;
    if (tile_id > 0) {
      before = radix_look_back<LookBack>(look, tile_id, tid);
      radix_store_relaxed(look + tile_id * radix_digits + tid, radix_flag_prefix | (before + count));
    }
    // Tile position j of this digit goes to output index bases + before + (j - start) >= 0 (start counts the tile's
    // keys of smaller digits, which bases counts too).
    const std::uint64_t dst = p.bases[tid] + before - start;
    s.key_dst[tid] = p.keys_out + dst;
    if constexpr (Packed)
      if (p.unpack_vals)  // the 4-byte keys' address (without keys, the values')
        s.key_dst[tid] = reinterpret_cast<K*>((p.unpack_keys ? p.unpack_keys : p.unpack_vals) + dst);
    if constexpr (smem_t::val_dst_kept) s.val_dst[tid] = p.vals_out + dst;
  }
  if constexpr (!ExchangeFirst) {
    // Exchange the keys into digit order, and load the values only now (the keys' registers are free; not held
    // through the ranking), before the keys' stores so that their latency overlaps them.
    __syncthreads();
    radix_exchange_keys<keep_digit>(keys, rank, ex_keys, s, warp, vals, p, base, warp_first, lane, full,
                                    warp_valid);
  }
  // The joint exchange's values; with ExchangeFirst their loads were issued before the look-back, whose wait they
  // overlap (the keys are in shared memory by then, so the values' registers are the keys' own).
  if constexpr (joint) radix_exchange_values(vals, rank, ex_vals, lane, full, warp_valid);
  __syncthreads();
  const std::uint64_t policy = radix_store_policy<StoreHint>(p.last_pass);
  if constexpr (joint) {
    // Keys and values together; the last pass of keys carried as ordered bits converts them back.
    if (as_bits && p.last_pass)
      radix_store_pairs<Threads, Items, as_bits, StoreHint>(ex_keys, ex_vals, s, full, valid, p, policy);
    else radix_store_pairs<Threads, Items, false, StoreHint>(ex_keys, ex_vals, s, full, valid, p, policy);
    return;
  }
  if constexpr (Packed) {
    if (p.unpack_vals) {
      if (p.unpack_keys) radix_store_unpacked<Threads, Items, StoreHint, true>(ex_keys, s, full, valid, p, policy);
      else radix_store_unpacked<Threads, Items, StoreHint, false>(ex_keys, s, full, valid, p, policy);
      return;
    }
  }
  // The keys' stores; the last pass of keys carried as ordered bits converts them back (a uniform choice of loop).
  if (as_bits && p.last_pass)
    radix_store_keys<Threads, Items, keep_digit, as_bits, StoreHint>(ex_keys, s, full, valid, p.descending, p.pass,
                                                                     policy);
  else
    radix_store_keys<Threads, Items, keep_digit, false, StoreHint>(ex_keys, s, full, valid, p.descending, p.pass,
                                                                   policy);
  if constexpr (has_values) {
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Items; ++i)
      if (full || i * 32 + lane < warp_valid) ex_vals[rank.get(i)] = vals[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = i * Threads + tid;
      if (full || j < valid) {
        V* const dst = s.val_dst[s.digit_at[j]];
        radix_assume_global(dst);
        radix_store_global<StoreHint>(dst + j, ex_vals[j], policy);
      }
    }
  }
}

template <int Threads, int Items, class K, class V, int LookBack, int Rank, bool Early, bool ExchangeFirst,
          bool Joint = false, int Prefetch = 0, int MinBlocks = 2, int StoreHint = radix_store_plain,
          bool Packed = false>
__global__ void __launch_bounds__(Threads, MinBlocks)
    radix_onesweep_kernel(std::conditional_t<Packed, radix_packed_params, radix_onesweep_params<K, V>> p) {
  // A programmatic dependent launch: the blocks may be resident before the grid ahead (the previous pass, or the
  // digit bases) has finished, and wait here for its keys, values, bases and zeroed state.
  allow_dependent_launch();
  wait_for_prerequisite_grid();
  if constexpr (radix_key<K>::kind == radix_kind::floating) {
    if (*p.nan_flag == 0) {  // no NaN: the keys travel as their ordered bits
      radix_onesweep_body<Threads, Items, K, V, LookBack, Rank, Early, ExchangeFirst, Joint, Prefetch, StoreHint,
                          Packed, typename radix_key<K>::bits_t>(p);
      return;
    }
  }
  radix_onesweep_body<Threads, Items, K, V, LookBack, Rank, Early, ExchangeFirst, Joint, Prefetch, StoreHint, Packed,
                      K>(p);
}

// ---------------------------------------------------------------------------------------------------------------
// The one-block sort of small inputs

/// Thread d < 256: turns the warps' counts of digit d (hist[w][d], after radix_rank_warp) into exclusive offsets
/// over the warps and returns the block's count of digit d; other threads return 0.
template <int W>
__device__ __forceinline__ unsigned radix_digit_counts(unsigned (*hist)[radix_digits + 1]) {
  const int d = threadIdx.x;
  unsigned count = 0;
  if (d < radix_digits) {
#pragma unroll
    for (int w = 0; w < W; ++w) {
      const unsigned c = hist[w][d];
      hist[w][d] = count;
      count += c;
    }
  }
  return count;
}

/// The exclusive prefix sum of v over threads 0..255 (one digit each; other threads get 0). Every thread of the
/// block calls it; it holds one barrier, and warp_totals (8 words) may be reused after the caller's next barrier.
__device__ __forceinline__ unsigned radix_digit_exclusive(unsigned v, unsigned* warp_totals) {
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  unsigned incl = v;
  if (tid < radix_digits) {
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
      const unsigned x = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += x;
    }
    if (lane == 31) warp_totals[warp] = incl;
  }
  __syncthreads();
  unsigned excl = 0;
  if (tid < radix_digits) {
    excl = incl - v;
    for (int w = 0; w < warp; ++w) excl += warp_totals[w];
  }
  return excl;
}

template <class K, class V>
struct radix_small_params {
  const K* keys_in;
  K* keys_out;  // may equal keys_in (everything is loaded before anything is stored)
  const V* vals_in;  // null with values: value = index
  V* vals_out;
  int count;
  int begin_bit, end_bit;
  bool descending;
};

/// A block's keys (and values) between global memory and registers, as the on-chip sorts hold them: item
/// i < items of lane l of warp w is the block's (w·items·32 + 32 i + l)-th key, at first + that in the arrays.
template <int Items, int NV, class K, class V>
__device__ __forceinline__ void radix_block_load(const radix_small_params<K, V>& p, int first, int valid, int items,
                                                 K (&keys)[Items], V (&vals)[NV]) {
  const int lane = threadIdx.x % 32, warp_first = int(threadIdx.x / 32) * items * 32;
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const int idx = warp_first + i * 32 + lane;
    if (i < items && idx < valid) {
      keys[i] = p.keys_in[first + idx];
      if constexpr (radix_has_values_v<V>)
        vals[i] = p.vals_in ? p.vals_in[first + idx] : radix_iota<V>(std::uint64_t(first + idx));
    }
  }
}

template <int Items, int NV, class K, class V>
__device__ __forceinline__ void radix_block_store(const radix_small_params<K, V>& p, int first, int valid, int items,
                                                  const K (&keys)[Items], const V (&vals)[NV]) {
  const int lane = threadIdx.x % 32, warp_first = int(threadIdx.x / 32) * items * 32;
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const int idx = warp_first + i * 32 + lane;
    if (i < items && idx < valid) {
      p.keys_out[first + idx] = keys[i];
      if constexpr (radix_has_values_v<V>) p.vals_out[first + idx] = vals[i];
    }
  }
}

template <int Threads, int Items, class K, class V>
struct radix_small_smem {
  static constexpr int warps = Threads / 32;
  static constexpr std::size_t item_bytes =
      (radix_has_values_v<V> && sizeof(V) > sizeof(K)) ? sizeof(V) : sizeof(K);
  alignas(16) unsigned char exchange[std::size_t(Threads) * Items * item_bytes];
  unsigned hist[warps][radix_digits + 1];
  unsigned tile_start[radix_digits];
  unsigned warp_totals[radix_digits / 32];
};

/// The body of the one-block sort, for this kernel and the segmented sort's one-block-per-segment kernel.
template <int Threads, int Items, class K, class V>
__device__ __forceinline__ void radix_small_sort(const radix_small_params<K, V>& p,
                                                 radix_small_smem<Threads, Items, K, V>& s) {
  using traits = radix_key<K>;
  constexpr int W = Threads / 32;
  constexpr bool has_values = radix_has_values_v<V>;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int valid = p.count;
  const int items = (valid + Threads - 1) / Threads;  // keys per thread this time (≤ Items): less work when few
  const int warp_first = warp * items * 32;

  K keys[Items];
  [[maybe_unused]] V vals[has_values ? Items : 1];
  radix_block_load(p, 0, valid, items, keys, vals);
  // After each pass, item i < items of lane l of warp w holds the tile's (w·items·32 + 32 i + l)-th key in pass
  // order, so the valid items stay a prefix in that order and the next pass ranks stably.
  const int passes = radix_passes(p.begin_bit, p.end_bit);
  K* ex_keys = reinterpret_cast<K*>(s.exchange);
  [[maybe_unused]] V* ex_vals = reinterpret_cast<V*>(s.exchange);
  for (int q = 0; q < passes; ++q) {
    const radix_pass ps = radix_pass_of(p.begin_bit, p.end_bit, q);
    for (int i = tid; i < W * (radix_digits + 1); i += Threads) (&s.hist[0][0])[i] = 0;
    __syncthreads();
    unsigned digit[Items], rank[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const bool ok = i < items && warp_first + i * 32 + lane < valid;
      digit[i] = ok ? traits::digit(keys[i], p.descending, ps.shift, ps.mask) : unsigned(radix_digits);
    }
    radix_rank_warp<Items, false>(digit, rank, s.hist[warp], items);
    __syncthreads();
    const unsigned count = radix_digit_counts<W>(s.hist);
    const unsigned start = radix_digit_exclusive(count, s.warp_totals);
    if (tid < radix_digits) s.tile_start[tid] = start;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Items; ++i)
      if (digit[i] < unsigned(radix_digits)) {
        rank[i] += s.tile_start[digit[i]] + s.hist[warp][digit[i]];
        ex_keys[rank[i]] = keys[i];
      }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int idx = warp_first + i * 32 + lane;
      if (i < items && idx < valid) keys[i] = ex_keys[idx];
    }
    if constexpr (has_values) {
      __syncthreads();
#pragma unroll
      for (int i = 0; i < Items; ++i)
        if (digit[i] < unsigned(radix_digits)) ex_vals[rank[i]] = vals[i];
      __syncthreads();
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const int idx = warp_first + i * 32 + lane;
        if (i < items && idx < valid) vals[i] = ex_vals[idx];
      }
    }
    __syncthreads();
  }
  radix_block_store(p, 0, valid, items, keys, vals);
}

template <int Threads, int Items, class K, class V>
__global__ void __launch_bounds__(Threads) radix_small_kernel(radix_small_params<K, V> p) {
  using smem_t = radix_small_smem<Threads, Items, K, V>;
  extern __shared__ __align__(16) unsigned char small_smem_raw[];
  radix_small_sort<Threads, Items, K, V>(p, *reinterpret_cast<smem_t*>(small_smem_raw));
}

// ---------------------------------------------------------------------------------------------------------------
// The cluster sort of inputs up to a few tens of thousands of keys
//
// A cluster of B blocks (a power of two, up to 8 or 16) holds the input: block b the keys [b·C, (b + 1)·C), where
// the block capacity C = Threads × I and I, the keys per thread, is the smallest power of two (≤ Items) for which
// B·C ≥ n, so the work spreads over every block. Every pass ranks each block's keys as the one-block sort does,
// publishes the block's 256 digit counts in its shared memory and, after a cluster barrier, each digit's thread
// reads that digit's count from every block: the digit's total and its count in the blocks before this one. One
// scan over the digits then gives where each of this block's digits starts in the cluster's order, and every key
// is stored straight into the shared memory of the block that owns its new position (distributed shared memory).
// A second cluster barrier completes the pass: two cluster barriers per pass, and no global memory between the
// first load and the last store.

template <int Threads, int Items, class K, class V>
struct radix_cluster_smem {
  static constexpr int warps = Threads / 32;
  static constexpr int tile = Threads * Items;
  alignas(16) K keys[tile];
  alignas(16) std::conditional_t<radix_has_values_v<V>, V, unsigned> vals[radix_has_values_v<V> ? tile : 1];
  unsigned hist[warps][radix_digits + 1];
  unsigned counts[radix_digits];  // per digit: the scan over digits (high 16 bits) and the count (low 16), read by
                                  // the whole cluster
  static_assert(tile < 65536, "a block's counts are packed in 16 bits");
  unsigned start[radix_digits];   // where this block's keys of each digit start in the cluster's order
  unsigned warp_totals[radix_digits / 32];
};

/// Sorts p.count ≤ cluster blocks × (Threads << log_items) keys, 1 << log_items ≤ Items keys per thread (p as for
/// the one-block sort; keys_out may equal keys_in: every block loads its keys before the first cluster barrier and
/// stores after the last). Launched as one cluster whose size equals the grid.
template <int Threads, int Items, class K, class V>
__global__ void __launch_bounds__(Threads) radix_cluster_kernel(radix_small_params<K, V> p, int log_items) {
  namespace cg = cooperative_groups;
  using traits = radix_key<K>;
  using smem_t = radix_cluster_smem<Threads, Items, K, V>;
  constexpr int W = Threads / 32;
  constexpr bool has_values = radix_has_values_v<V>;
  extern __shared__ __align__(16) unsigned char cluster_smem_raw[];
  smem_t& s = *reinterpret_cast<smem_t*>(cluster_smem_raw);
  const cg::cluster_group cluster = cg::this_cluster();
  const unsigned blocks = cluster.num_blocks(), me = cluster.block_rank();
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int items = 1 << log_items;                                  // keys per thread in this launch
  const int log_cap = log_items + __ffs(Threads) - 1;                // log2 of the block capacity
  const int warp_first = warp << (log_items + 5);
  const int block_first = int(me) << log_cap;
  const int left = p.count - block_first;
  const int valid = left < 0 ? 0 : (left > (1 << log_cap) ? (1 << log_cap) : left);

  // Item i < items of lane l of warp w holds the block's (w·items·32 + 32 i + l)-th key in pass order (as in the
  // one-block sort); the cluster's order is block by block, and every block keeps its count of valid keys.
  K keys[Items];
  [[maybe_unused]] V vals[has_values ? Items : 1];
  radix_block_load(p, block_first, valid, items, keys, vals);
  const int passes = radix_passes(p.begin_bit, p.end_bit);
  // Each warp zeroes its own counters (and only it touches them until the barrier after its ranking).
  for (int d = lane; d < radix_digits + 1; d += 32) s.hist[warp][d] = 0;
  __syncwarp();
  for (int q = 0; q < passes; ++q) {
    const radix_pass ps = radix_pass_of(p.begin_bit, p.end_bit, q);
    const int warp_valid = valid - warp_first;  // this warp's valid keys (may be ≤ 0)
    unsigned rank[Items];
    radix_rank_keys<Items, false, radix_rank_sync>(keys, rank, s.hist[warp], p.descending, ps,
                                                   warp_valid < items * 32 ? warp_valid : items * 32, items);
    __syncthreads();
    // The block's count of each digit, and the exclusive scan over the digits of those counts, published as one
    // word (16 bits each: a block holds fewer than 2^16 keys): the digit's cluster-wide start is the sum over
    // blocks of the scans plus the counts of the blocks before this one, with no scan after the cluster barrier.
    const unsigned count = radix_digit_counts<W>(s.hist);
    const unsigned local = radix_digit_exclusive(count, s.warp_totals);
    if (tid < radix_digits) s.counts[tid] = (local << 16) | count;
    // Every block's counts are visible, and every block holds its keys of the last pass in registers (so its
    // shared keys may be overwritten from here on).
    cluster.sync();
    if (tid < radix_digits) {
      unsigned start = 0;
      for (unsigned b0 = 0; b0 < blocks; b0 += 8) {
        unsigned c[8];  // independent loads, eight in flight at once
#pragma unroll
        for (unsigned j = 0; j < 8; ++j) c[j] = b0 + j < blocks ? *cluster.map_shared_rank(&s.counts[tid], b0 + j) : 0u;
#pragma unroll
        for (unsigned j = 0; j < 8; ++j) start += (c[j] >> 16) + (b0 + j < me ? c[j] & 0xffffu : 0u);
      }
      s.start[tid] = start;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < Items; ++i)
      if (i < items && warp_first + i * 32 + lane < valid) {
        const unsigned d = traits::digit(keys[i], p.descending, ps.shift, ps.mask);
        const unsigned pos = s.start[d] + s.hist[warp][d] + rank[i];
        const unsigned owner = pos >> log_cap, slot = pos & ((1u << log_cap) - 1u);
        *cluster.map_shared_rank(&s.keys[slot], owner) = keys[i];
        if constexpr (has_values) *cluster.map_shared_rank(&s.vals[slot], owner) = vals[i];
      }
    __syncwarp();
    for (int d = lane; d < radix_digits + 1; d += 32) s.hist[warp][d] = 0;  // for the next pass
    __syncwarp();
    cluster.sync();  // every key of the pass has landed (and no block reads another's counts any more)
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int idx = warp_first + i * 32 + lane;
      if (i < items && idx < valid) {
        keys[i] = s.keys[idx];
        if constexpr (has_values) vals[i] = s.vals[idx];
      }
    }
  }
  radix_block_store(p, block_first, valid, items, keys, vals);
}

// ---------------------------------------------------------------------------------------------------------------
// Gather (values wider than 8 bytes move once, by the sorted indices)

/// bits[i] = the ordered bits of the members dec(keys[i]) names (the key-decomposer entry points).
template <class K, class D, class U>
__global__ void radix_decompose_kernel(const K* keys, U* bits, std::uint64_t n, D dec, bool descending) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    bits[i] = dec(keys[i]).template fold<U>(U(0), descending);
}

template <class V, class I>
__global__ void radix_gather_kernel(const V* in, const I* index, V* out, std::uint64_t n) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = in[index[i]];
}

}  // namespace cuprim::detail
