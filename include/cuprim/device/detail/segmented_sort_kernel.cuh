// cuprim/device/detail/segmented_sort_kernel.cuh: the kernels of the segmented sort (device/segmented_sort.cuh).
//
// Segments are classed by length L:
//   L ≤ 256          a warp per batch of 32 segments (seg_warp_kernel). Segments of at most 4, 8 and 16 keys
//                    take groups of that many lanes (8, 4, 2 segments per step): the lane holding key p counts
//                    the keys q of the segment that sort before it — ordered bits smaller, or equal with q < p
//                    (stable) — by broadcasting every key once with a shuffle; the count is p's output position.
//                    Longer ones take the whole warp, one at a time, with 1, 2, 4 or 8 keys per lane, sorted by a
//                    bitonic network over (ordered bits, index) pairs (stable by the index).
//   L ≤ block tile   the one-block radix sort of radix_sort_block.cuh (all passes in registers and shared
//                    memory), by persistent blocks (seg_block_kernel) that take the listed segments in turn.
//   larger           one batched radix sort of all of them (segmented_sort_long.cuh).
// seg_classify_kernel checks the offsets (non-decreasing, inside [0, n]) and lists the segments of the two longer
// classes, giving each long segment its run of one-sweep tile ids. Every later kernel reads the counts it wrote
// from the workspace, and exits without writing anything when it found the offsets bad.
#pragma once

#include <cuprim/core/policy.hpp>
#include <cuprim/device/detail/radix_sort_block.cuh>
#include <cuprim/device/detail/radix_sort_tuning.cuh>
#include <cuprim/device/detail/segmented_sort_long.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

inline constexpr int seg_warp_max = 256;  ///< the longest segment one warp sorts (8 keys per lane)
inline constexpr int seg_threads = 256;   ///< threads per block of the classify and warp kernels

template <class K, class V, class O>
struct seg_sort_params {
  const K* keys_in;
  K* keys_out;
  const V* vals_in;
  V* vals_out;
  const O* offsets;           ///< num_segments + 1 CSR offsets
  std::uint64_t segments;
  std::uint64_t n;
  int begin_bit, end_bit;
  bool descending;
  unsigned long long* counters;  ///< [seg_counters] (segmented_sort_long.cuh), zeroed
  std::uint64_t* medium;         ///< ids of the segments sorted by one block
  seg_long* longs;               ///< the segments of the batched radix sort
  std::uint64_t medium_max;      ///< entries of medium[]: what valid offsets can fill (bad ones may count more,
                                 ///< which are not written)
  std::uint64_t long_max;        ///< entries of longs[], likewise
  int block_max;                 ///< the one-block sort's capacity
  std::uint64_t tile;            ///< keys per one-sweep tile of the batched sort
};

/// Lists the segments too long for a warp, each long one with its run of tile ids, and checks the offsets.
template <class K, class V, class O>
__global__ void __launch_bounds__(seg_threads) seg_classify_kernel(seg_sort_params<K, V, O> p) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * seg_threads;
  for (std::uint64_t s = std::uint64_t(blockIdx.x) * seg_threads + threadIdx.x; s < p.segments; s += stride) {
    const O b = p.offsets[s], e = p.offsets[s + 1];
    bool bad = e < b;
    if constexpr (std::is_signed_v<O>) bad = bad || b < O(0);
    if (!bad && std::uint64_t(e) > p.n) bad = true;
    if (bad) {
      atomicExch(&p.counters[seg_bad], 1ull);
      continue;
    }
    const std::uint64_t L = std::uint64_t(e) - std::uint64_t(b);
    if (L <= std::uint64_t(seg_warp_max)) continue;
    if (L <= std::uint64_t(p.block_max)) {
      const unsigned long long m = atomicAdd(&p.counters[seg_medium], 1ull);
      if (m < p.medium_max) p.medium[m] = s;
    } else {
      const unsigned long long k = atomicAdd(&p.counters[seg_large], 1ull);
      const unsigned long long first = atomicAdd(&p.counters[seg_tiles], (L + p.tile - 1) / p.tile);
      if (k < p.long_max) p.longs[k] = seg_long{std::uint64_t(b), std::uint64_t(e), first};
    }
  }
}

/// The ordered bits of k restricted to [begin_bit, end_bit), as an unsigned of the key's width.
template <class K>
__device__ __forceinline__ typename radix_key<K>::bits_t seg_bits(const K& k, bool descending, int begin_bit,
                                                                  int end_bit) {
  using B = typename radix_key<K>::bits_t;
  constexpr int width = int(sizeof(B)) * 8;
  B b = B(radix_key<K>::ordered(k, descending) >> begin_bit);
  const int w = end_bit - begin_bit;
  if (w < width) b = B(b & B((B(1) << w) - 1));
  return b;
}

template <class B>
__device__ __forceinline__ B seg_shfl(B v, int lane) {
  if constexpr (sizeof(B) == 8) return __shfl_sync(0xffffffffu, static_cast<unsigned long long>(v), lane);
  else return B(__shfl_sync(0xffffffffu, static_cast<unsigned>(v), lane));
}

/// A key's sort position in the warp's bitonic network: its ordered bits, then its index in the segment (the tie
/// break that makes the sort stable); positions past the segment hold the largest value. Keys of up to 4 bytes
/// pack both into one 64-bit word (one compare), 8-byte keys compare the pair.
template <class B, bool Packed = (sizeof(B) <= 4)>
struct seg_sort_key;
template <class B>
struct seg_sort_key<B, true> {
  unsigned long long w;
  __device__ __forceinline__ static seg_sort_key make(B bits, unsigned idx) {
    return {(static_cast<unsigned long long>(bits) << 32) | idx};
  }
  __device__ __forceinline__ static seg_sort_key pad() { return {~0ull}; }
  __device__ __forceinline__ unsigned index() const { return static_cast<unsigned>(w); }
  __device__ __forceinline__ bool operator<(const seg_sort_key& o) const { return w < o.w; }
  __device__ __forceinline__ seg_sort_key xor_shfl(int mask) const { return {__shfl_xor_sync(0xffffffffu, w, mask)}; }
};
template <class B>
struct seg_sort_key<B, false> {
  B bits;
  unsigned idx;
  __device__ __forceinline__ static seg_sort_key make(B b, unsigned i) { return {b, i}; }
  __device__ __forceinline__ static seg_sort_key pad() { return {~B(0), ~0u}; }
  __device__ __forceinline__ unsigned index() const { return idx; }
  __device__ __forceinline__ bool operator<(const seg_sort_key& o) const {
    return bits < o.bits || (bits == o.bits && idx < o.idx);
  }
  __device__ __forceinline__ seg_sort_key xor_shfl(int mask) const {
    return {B(__shfl_xor_sync(0xffffffffu, static_cast<unsigned long long>(bits), mask)),
            __shfl_xor_sync(0xffffffffu, idx, mask)};
  }
};

/// One warp sorts the segment [b, b + L), L ≤ 32·I (I a power of two), by a bitonic network over 32·I
/// (bits, index) pairs: element e = 32·i + lane sits in slot i of lane e % 32, so distances below 32 exchange
/// with a shuffle and longer ones inside a lane. log2(32I)·(log2(32I)+1)/2 compare-exchange steps of I elements
/// per lane: about 5 instructions per key per step, against L/8 per key for ranking by broadcast (the warp's
/// O(L²) count), which is cheaper only for the shortest segments. Each key is then moved to its position by
/// its index (a gather from the segment, just read, so from L1).
template <int I, class K, class V, class O>
__device__ __forceinline__ void seg_warp_sort(const seg_sort_params<K, V, O>& p, std::uint64_t b, int L, int lane) {
  using B = typename radix_key<K>::bits_t;
  using SK = seg_sort_key<B>;
  constexpr int N = 32 * I;
  SK c[I];
#pragma unroll
  for (int i = 0; i < I; ++i) {
    const int e = 32 * i + lane;
    c[i] = e < L ? SK::make(seg_bits(p.keys_in[b + std::uint64_t(e)], p.descending, p.begin_bit, p.end_bit),
                            unsigned(e))
                 : SK::pad();
  }
#pragma unroll
  for (int k = 2; k <= N; k <<= 1) {
#pragma unroll
    for (int j = k >> 1; j > 0; j >>= 1) {
      if (j >= 32) {  // partner in the same lane, slot i ^ (j / 32)
#pragma unroll
        for (int i = 0; i < I; ++i) {
          const int pi = i ^ (j / 32);
          if (pi > i) {
            const bool up = ((32 * i) & k) == 0;  // the block of k this pair lies in sorts ascending
            if ((c[pi] < c[i]) == up) {
              const SK t = c[i];
              c[i] = c[pi];
              c[pi] = t;
            }
          }
        }
      } else {  // partner in lane ^ j, same slot: the lower lane keeps the smaller in an ascending block
#pragma unroll
        for (int i = 0; i < I; ++i) {
          const SK x = c[i].xor_shfl(j);
          const bool up = ((32 * i + lane) & k) == 0;
          const bool keep_min = ((lane & j) == 0) == up;
          if ((x < c[i]) == keep_min) c[i] = x;
        }
      }
    }
  }
#pragma unroll
  for (int i = 0; i < I; ++i) {
    const int r = 32 * i + lane;
    if (r < L) {
      const std::uint64_t from = b + c[i].index();
      p.keys_out[b + std::uint64_t(r)] = p.keys_in[from];
      if constexpr (radix_has_values_v<V>) p.vals_out[b + std::uint64_t(r)] = p.vals_in[from];
    }
  }
}

/// Sorts the segments of the lanes set in `mask` (all of length ≤ G; lane j holds its segment's start b and
/// length L) with G lanes per segment, 32 / G segments at a time: lane g of a group holds key g and counts the keys
/// before it by G width-G shuffles.
template <int G, class K, class V, class O>
__device__ __forceinline__ void seg_group_sort(const seg_sort_params<K, V, O>& p, unsigned mask, std::uint64_t my_b,
                                               int my_L, int lane) {
  using B = typename radix_key<K>::bits_t;
  constexpr int per = 32 / G;
  const int k = lane / G, pos = lane % G;
  while (mask) {  // warp-uniform
    unsigned m = mask;
    for (int j = 0; j < k; ++j) m &= m - 1;  // group k takes the k-th lowest segment left
    const int src = m ? __ffs(int(m)) - 1 : 0;
#pragma unroll
    for (int j = 0; j < per; ++j) mask &= mask - 1;
    const std::uint64_t b = __shfl_sync(0xffffffffu, static_cast<unsigned long long>(my_b), src);
    const int sl = __shfl_sync(0xffffffffu, my_L, src);
    const int L = m ? sl : 0;
    K key{};
    B bits = B(0);
    if (pos < L) {
      key = p.keys_in[b + std::uint64_t(pos)];
      bits = seg_bits(key, p.descending, p.begin_bit, p.end_bit);
    }
    int rank = 0;
#pragma unroll
    for (int q = 0; q < G; ++q) {
      B x;
      if constexpr (sizeof(B) == 8) x = __shfl_sync(0xffffffffu, static_cast<unsigned long long>(bits), q, G);
      else x = B(__shfl_sync(0xffffffffu, static_cast<unsigned>(bits), q, G));
      rank += (q < L) && ((x < bits) || (x == bits && q < pos));
    }
    if (pos < L) {
      p.keys_out[b + std::uint64_t(rank)] = key;
      if constexpr (radix_has_values_v<V>) p.vals_out[b + std::uint64_t(rank)] = p.vals_in[b + std::uint64_t(pos)];
    }
  }
}

/// Each warp takes batches of 32 consecutive segments (one coalesced read of their offsets) and sorts those of at
/// most seg_warp_max keys: lengths ≤ 4, ≤ 8 and ≤ 16 by groups of 4, 8 and 16 lanes (several segments at once),
/// longer ones one at a time by the warp's bitonic network with 1, 2, 4 or 8 keys per lane. Longer segments are
/// left to the other kernels.
template <class K, class V, class O>
__global__ void __launch_bounds__(seg_threads, 4) seg_warp_kernel(seg_sort_params<K, V, O> p) {
  constexpr int W = seg_threads / 32;
  if (p.counters[seg_bad]) return;  // bad offsets (the classify pass ran before): write nothing
  const int lane = int(threadIdx.x % 32);
  const std::uint64_t stride = std::uint64_t(gridDim.x) * W * 32;
  for (std::uint64_t first = (std::uint64_t(blockIdx.x) * W + threadIdx.x / 32) * 32; first < p.segments;
       first += stride) {
    const std::uint64_t s = first + std::uint64_t(lane);
    std::uint64_t b = 0, len = 0;
    if (s < p.segments) {
      b = std::uint64_t(p.offsets[s]);
      len = std::uint64_t(p.offsets[s + 1]) - b;
    }
    const int L = len <= std::uint64_t(seg_warp_max) ? int(len) : 0;
    seg_group_sort<4>(p, __ballot_sync(0xffffffffu, L >= 1 && L <= 4), b, L, lane);
    seg_group_sort<8>(p, __ballot_sync(0xffffffffu, L > 4 && L <= 8), b, L, lane);
    seg_group_sort<16>(p, __ballot_sync(0xffffffffu, L > 8 && L <= 16), b, L, lane);
    unsigned rest = __ballot_sync(0xffffffffu, L > 16);
    while (rest) {
      const int src = __ffs(int(rest)) - 1;
      rest &= rest - 1;
      const std::uint64_t sb = __shfl_sync(0xffffffffu, static_cast<unsigned long long>(b), src);
      const int sl = __shfl_sync(0xffffffffu, L, src);
      if (sl <= 32) seg_warp_sort<1>(p, sb, sl, lane);
      else if (sl <= 64) seg_warp_sort<2>(p, sb, sl, lane);
      else if (sl <= 128) seg_warp_sort<4>(p, sb, sl, lane);
      else seg_warp_sort<8>(p, sb, sl, lane);
    }
  }
}

/// The listed segments of seg_warp_max < L ≤ small_tile() keys, by persistent blocks (the host sizes the grid from
/// an upper bound of their count; block b takes segments b, b + grid, ... of the count the classify pass wrote):
/// the one-block radix sort each. Policy: radix_sort_policy::block_part().
template <class Policy, class K, class V, class O>
__global__ void __launch_bounds__(Policy::value.small_threads) seg_block_kernel(seg_sort_params<K, V, O> p) {
  constexpr int Threads = Policy::value.small_threads, Items = Policy::value.small_items;
  using smem_t = radix_small_smem<Threads, Items, K, V>;
  extern __shared__ __align__(16) unsigned char seg_smem_raw[];
  smem_t& s = *reinterpret_cast<smem_t*>(seg_smem_raw);
  if (p.counters[seg_bad]) return;
  const std::uint64_t count = p.counters[seg_medium];
  // radix_small_sort ends with a barrier after its last shared-memory read, so the next segment may start at once.
  for (std::uint64_t i = blockIdx.x; i < count; i += gridDim.x) {
    const std::uint64_t id = p.medium[i];
    const std::uint64_t b = std::uint64_t(p.offsets[id]);
    const int L = int(std::uint64_t(p.offsets[id + 1]) - b);
    radix_small_params<K, V> sp{p.keys_in + b, p.keys_out + b, nullptr, nullptr, L, p.begin_bit, p.end_bit,
                                p.descending};
    if constexpr (radix_has_values_v<V>) {
      sp.vals_in = p.vals_in + b;
      sp.vals_out = p.vals_out + b;
    }
    radix_small_sort<Threads, Items, K, V>(sp, s);
  }
}

}  // namespace cuprim::detail
