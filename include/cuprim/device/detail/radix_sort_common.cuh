// cuprim/device/detail/radix_sort_common.cuh: what the radix sort's kernels share: digits and passes, the warp's
// ranking of its keys by digit, the look-back words of the one-sweep passes, and the L2 hints of their loads and
// stores.
//
// Digits are 8 bits of the ordered key (radix_sort_traits.cuh); pass p sorts by bits [begin + 8p, min(begin + 8p +
// 8, end)). The kernels: radix_sort_histogram.cuh (the upfront histogram and each digit's output start),
// radix_sort_onesweep.cuh (one pass), radix_sort_block.cuh (the one-block sort of small inputs),
// radix_sort_cluster.cuh (the cluster sort); the host side that launches them is radix_sort_launch.cuh.
#pragma once

#include <cuprim/device/detail/radix_sort_traits.cuh>
#include <cuprim/device/detail/radix_sort_tuning.cuh>
#include <cuprim/warp/scan.cuh>
#include <cuprim/warp/shuffle.cuh>

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

// ---------------------------------------------------------------------------------------------------------------
// Digits and passes

/// The digit geometry of one pass.
struct radix_pass {
  int shift;      // first bit of the digit
  unsigned mask;  // (1 << digit bits) - 1
};

/// Number of passes over [begin_bit, end_bit).
__host__ __device__ constexpr int radix_passes(int begin_bit, int end_bit) {
  return (end_bit - begin_bit + radix_bits - 1) / radix_bits;
}
__host__ __device__ constexpr radix_pass radix_pass_of(int begin_bit, int end_bit, int p) {
  const int shift = begin_bit + p * radix_bits;
  const int width = (end_bit - shift) < radix_bits ? (end_bit - shift) : radix_bits;
  return {shift, (1u << width) - 1u};
}

// ---------------------------------------------------------------------------------------------------------------
// Ranking: a warp's keys among the warp's earlier keys of the same digit

/// The lanes whose `d` equals this lane's, over the low Bits bits of d (Bits ballots).
/// Written in PTX so that each bit costs a test, a ballot, a predicated inversion and a share of an AND (about 3.5
/// instructions): the same loop in C++ (`bit ? v : ~v`) compiled to about 7 per bit on sm_90, the bit being
/// extracted twice (once for the ballot's predicate, once for the select), which made the match the largest single
/// cost of a one-sweep pass (docs/tuning/radix_sort.md, run 4).
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

/// `if (pred) return atomicAdd(p, v); return 0;` on shared memory, written as a predicated PTX atomic. ptxas (13.0,
/// sm_90) still emits a branch around it (a convergence barrier and a jump: about 4 instructions per key), as for
/// the C++ form; a branch-free form is a lead (docs/tuning/radix_sort.md, run 4).
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

/// How radix_rank_keys updates a warp's counters once the peers of an item are known (8 ballots):
///   radix_rank_sync    the lowest peer reads the digit's counter and, after a __syncwarp, writes it back (one shared
///                      load, store and two warp barriers per item, in a chain): the on-chip sorts
///   radix_rank_atomic  the highest peer bumps the counter with a shared atomic whose old value it passes to its
///                      peers by a shuffle (no barrier: a warp's atomics on one address complete in program order, so
///                      item i's keys are counted before item i + 1's): the one-sweep passes
/// (Peers found by the hardware match.any instead of the ballots ran 1.2-2x slower: docs/tuning/radix_sort.md.)
enum : int { radix_rank_sync = 0, radix_rank_atomic = 1 };

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
/// invalid ones of a partial tile), updating the counters as Rank says.
/// Only items i < count take part (count is warp-uniform; I by default).
template <int I, bool Full, int Rank, class K, class Ranks>
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
    const unsigned peers = radix_match<Full ? radix_bits : radix_bits + 1>(d);
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
      const unsigned old = radix_atomic_add_if(hist + d, upto, lane == int(leader));
      radix_set_rank(rank, i, __shfl_sync(0xffffffffu, old, leader) + below);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Look-back words: per tile and digit, a status in the top two bits and a 30-bit count

enum : unsigned { radix_flag_aggregate = 1u << 30, radix_flag_prefix = 2u << 30, radix_count_mask = (1u << 30) - 1 };

__device__ __forceinline__ void radix_store_relaxed(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned radix_load_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
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

// ---------------------------------------------------------------------------------------------------------------
// L2 hints: prefetches of later tiles, and the eviction priority of a pass's stores (radix_sort_policy's store_hint)

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

/// The cache policy (createpolicy) a pass's stores carry under StoreHint; 0 for plain stores. Under
/// radix_store_evict_last, every pass but the last stores under L2::evict_last; the last pass, whose output is the
/// caller's, under evict_normal (and returns the lines it reads to the normal priority, radix_demote_l2), so that
/// the sort leaves no line marked evict_last behind to crowd the caller's data out of L2.
template <int StoreHint>
__device__ __forceinline__ std::uint64_t radix_store_policy(bool last_pass) {
  std::uint64_t policy = 0;
  if constexpr (StoreHint == radix_store_evict_last) {
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

/// Tells the compiler that p points to global memory, so that a store through it is a global store rather than a
/// generic one. Scalars only: for a pointer to a struct of bytes (a 4-byte struct of four chars, say) NVVM (CUDA 13.0)
/// rejects the intrinsic's call ("Call parameter type does not match function signature"), so such values store
/// through generic addresses.
template <class T>
__device__ __forceinline__ void radix_assume_global(T* p) {
  if constexpr (std::is_scalar_v<T>) __builtin_assume(__isGlobal(p));
}

}  // namespace cuprim::detail
