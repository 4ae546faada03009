// cuprim/device/detail/radix_sort_block.cuh: the one-block sort of small inputs (up to radix_sort_policy's
// small_tile() keys; the device-wide sort gives it inputs up to cluster_threads keys, the cluster sort the next ones,
// and the segmented sort segments up to small_tile()): radix_small_kernel loads them into one block and runs every
// pass in registers and shared memory, one launch in all, with no workspace. The segmented sort's
// one-block-per-segment kernel runs the same body (radix_small_sort). Also what the cluster sort
// (radix_sort_cluster.cuh) shares with it: the parameters, the block's loads and stores, and the digit counts and
// scan of one pass.
#pragma once

#include <cuprim/core/policy.hpp>
#include <cuprim/device/detail/radix_sort_common.cuh>
#include <cuprim/device/detail/radix_sort_tuning.cuh>

#include <cstdint>

namespace cuprim::detail {

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

/// The one-block sort of p.count ≤ small_tile() keys. Policy: radix_sort_policy::block_part().
template <class Policy, class K, class V>
__global__ void __launch_bounds__(Policy::value.small_threads) radix_small_kernel(radix_small_params<K, V> p) {
  constexpr radix_sort_policy P = Policy::value;
  using smem_t = radix_small_smem<P.small_threads, P.small_items, K, V>;
  extern __shared__ __align__(16) unsigned char small_smem_raw[];
  radix_small_sort<P.small_threads, P.small_items, K, V>(p, *reinterpret_cast<smem_t*>(small_smem_raw));
}

}  // namespace cuprim::detail
