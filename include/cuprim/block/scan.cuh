// cuprim/block/scan.cuh: block-wide prefix scans by multiscan (executed by a whole block).
//
//   using bs = cuprim::block::scanner<T, BlockThreads>;
//   __shared__ typename bs::storage smem;
//   T x = bs::inclusive_scan(v, op, smem);                 thread i gets v0 ⊕ ... ⊕ vi
//   T x = bs::inclusive_scan(v, op, smem, block_total);    ... and the block total in every thread
//   T x = bs::exclusive_scan(v, op, init, smem, block_total);
//
// Multiscan (seed 000, "Block scan"): every warp scans its 32 values by shuffle, lane 31 writes the warp total to
// shared memory, warp 0 scans the totals (exclusive), and every thread adds its warp's offset. The totals are
// written and read one word per warp, so there are no bank conflicts; the seed's shared-memory version, where the
// stride between warps' totals matters (32 vs 33), is in lab/ladder/scan_kernels.cuh for the lab.
// `op` must be associative (not necessarily commutative). `storage` may be reused after a __syncthreads.
#pragma once

#include <cuprim/device/detail/load.cuh>
#include <cuprim/warp/scan.cuh>

namespace cuprim::block {

template <class T, int BlockThreads>
struct scanner {
  static_assert(BlockThreads % warp::size == 0 && BlockThreads >= warp::size && BlockThreads <= 1024,
                "BlockThreads must be a multiple of 32 in [32, 1024]");
  static constexpr int warps = BlockThreads / warp::size;

  struct storage {
    detail::uninitialized<T> warp_prefix[warps];  // exclusive prefix of each warp (slot 0 unused)
    detail::uninitialized<T> total;
  };

  /// Inclusive scan of one value per thread; `block_total` gets op over the block in every thread.
  template <class Op>
  __device__ __forceinline__ static T inclusive_scan(T v, Op op, storage& smem, T& block_total) {
    const int tid = threadIdx.x, lane = tid % warp::size, w = tid / warp::size;
    T warp_total;
    v = warp::inclusive_scan(v, op, warp_total);
    if constexpr (warps == 1) {
      block_total = warp_total;
      return v;
    } else {
      if (lane == warp::size - 1) smem.warp_prefix[w].get() = warp_total;
      __syncthreads();
      if (w == 0) {
        T t = lane < warps ? smem.warp_prefix[lane].get() : smem.warp_prefix[0].get();
        T total;
        T incl = warp::inclusive_scan(t, op, warps, total);
        T excl = warp::shfl_up(incl, 1);
        if (lane > 0 && lane < warps) smem.warp_prefix[lane].get() = excl;
        if (lane == 0) smem.total.get() = total;
      }
      __syncthreads();
      if (w > 0) v = op(smem.warp_prefix[w].get(), v);
      block_total = smem.total.get();
      return v;
    }
  }

  /// Inclusive scan of one value per thread.
  template <class Op>
  __device__ __forceinline__ static T inclusive_scan(T v, Op op, storage& smem) {
    T total;
    return inclusive_scan(v, op, smem, total);
  }

  /// Exclusive scan seeded with init: thread 0 gets init, thread i gets init ⊕ v0 ⊕ ... ⊕ v(i-1);
  /// `block_total` gets op over the block (without init) in every thread.
  template <class Op>
  __device__ __forceinline__ static T exclusive_scan(T v, Op op, T init, storage& smem, T& block_total) {
    T incl = inclusive_scan(v, op, smem, block_total);
    // Thread i needs thread i-1's inclusive value: within a warp by shuffle, across warps from warp_prefix.
    const int tid = threadIdx.x, lane = tid % warp::size, w = tid / warp::size;
    T earlier = warp::shfl_up(incl, 1);
    if (tid == 0) return init;
    if (lane == 0) {
      if constexpr (warps == 1) return init;
      else return op(init, smem.warp_prefix[w].get());
    }
    return op(init, earlier);
  }
};

}  // namespace cuprim::block
