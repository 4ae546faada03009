// cuprim/device/detail/radix_sort_cluster.cuh: the cluster sort of inputs up to a few tens of thousands of keys
// (radix_sort_policy's cluster_tile()), in one launch with no workspace.
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
#pragma once

#include <cuprim/core/policy.hpp>
#include <cuprim/device/detail/radix_sort_block.cuh>
#include <cuprim/device/detail/radix_sort_common.cuh>
#include <cuprim/device/detail/radix_sort_tuning.cuh>

#include <cooperative_groups.h>

#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

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

/// Digit threads: where this block's keys of the digit start in the cluster's order: the sum over the cluster's
/// blocks of each one's scan over the digits, plus the digit's counts in the blocks before this one.
template <class Smem>
__device__ __forceinline__ void radix_cluster_starts(Smem& s, const cooperative_groups::cluster_group& cluster,
                                                     unsigned blocks, unsigned me, int tid) {
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
}

/// Each valid key (and value) of the thread straight into the shared memory of the block that owns its new
/// position (the block's capacity is 1 << log_cap keys; the warp's first key is the block's `first`).
template <int Items, class K, class V, int NV, class Smem>
__device__ __forceinline__ void radix_cluster_scatter(const K (&keys)[Items], const V (&vals)[NV],
                                                      const unsigned (&rank)[Items], Smem& s,
                                                      const cooperative_groups::cluster_group& cluster,
                                                      const radix_small_params<K, V>& p, radix_pass ps, int warp,
                                                      int lane, int items, int first, int valid, int log_cap) {
#pragma unroll
  for (int i = 0; i < Items; ++i)
    if (i < items && first + i * 32 + lane < valid) {
      const unsigned d = radix_key<K>::digit(keys[i], p.descending, ps.shift, ps.mask);
      const unsigned pos = s.start[d] + s.hist[warp][d] + rank[i];
      const unsigned owner = pos >> log_cap, slot = pos & ((1u << log_cap) - 1u);
      *cluster.map_shared_rank(&s.keys[slot], owner) = keys[i];
      if constexpr (radix_has_values_v<V>) *cluster.map_shared_rank(&s.vals[slot], owner) = vals[i];
    }
}

/// Sorts p.count ≤ cluster blocks × (Threads << log_items) keys, 1 << log_items ≤ Items keys per thread (p as for
/// the one-block sort; keys_out may equal keys_in: every block loads its keys before the first cluster barrier and
/// stores after the last). Launched as one cluster whose size equals the grid. Policy: radix_sort_policy::
/// cluster_part().
template <class Policy, class K, class V>
__global__ void __launch_bounds__(Policy::value.cluster_threads)
    radix_cluster_kernel(radix_small_params<K, V> p, int log_items) {
  constexpr int Threads = Policy::value.cluster_threads, Items = Policy::value.cluster_items;
  namespace cg = cooperative_groups;
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
    radix_cluster_starts(s, cluster, blocks, me, tid);
    __syncthreads();
    radix_cluster_scatter(keys, vals, rank, s, cluster, p, ps, warp, lane, items, warp_first, valid, log_cap);
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

}  // namespace cuprim::detail
