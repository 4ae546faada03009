// cuprim/block/reduce.cuh: block-wide reduction built on warp reductions (executed by a whole block).
//
//   using br = cuprim::block::reducer<T, BlockThreads>;
//   __shared__ typename br::storage smem;
//   T total = br::reduce(v, op, smem);          // valid in thread 0
//   T total = br::reduce(v, op, valid, smem);   // threads [0, valid) contribute
//   T total = br::all_reduce(v, op, smem);      // valid in every thread
//
// Each warp reduces by shuffle, warp leaders write one value each to shared memory, and the first warp
// reduces those: two barrier-free shuffle stages and a single __syncthreads. `op` must be associative and
// commutative. All threads of the block must call. `storage` may be reused after a __syncthreads.
#pragma once

#include <cuprim/warp/reduce.cuh>

namespace cuprim::block {

template <class T, int BlockThreads>
struct reducer {
  static_assert(BlockThreads % warp::size == 0 && BlockThreads >= warp::size && BlockThreads <= 1024,
                "BlockThreads must be a multiple of 32 in [32, 1024]");
  static constexpr int warps = BlockThreads / warp::size;

  /// Shared memory the reduction needs: one slot per warp.
  struct storage {
    T warp_totals[warps];
  };

  /// op over every thread's v; the result is valid in thread 0.
  template <class Op>
  __device__ __forceinline__ static T reduce(T v, Op op, storage& smem) {
    const int tid = threadIdx.x, lane = tid % warp::size, w = tid / warp::size;
    v = warp::reduce_down(v, op);
    if constexpr (warps == 1) {
      return v;
    } else {
      if (lane == 0) smem.warp_totals[w] = v;
      __syncthreads();
      T total = v;
      if (w == 0) total = warp::reduce(lane < warps ? smem.warp_totals[lane] : smem.warp_totals[0], op, warps);
      return total;
    }
  }

  /// op over v of threads [0, valid) (1 ≤ valid ≤ BlockThreads); the result is valid in thread 0.
  template <class Op>
  __device__ __forceinline__ static T reduce(T v, Op op, int valid, storage& smem) {
    if (valid >= BlockThreads) return reduce(v, op, smem);
    const int tid = threadIdx.x, lane = tid % warp::size, w = tid / warp::size;
    const int warp_valid = valid - w * warp::size;  // lanes of this warp that hold data (may be ≤ 0)
    if (warp_valid > 0) v = warp::reduce(v, op, warp_valid);
    if constexpr (warps == 1) {
      return v;
    } else {
      if (lane == 0 && warp_valid > 0) smem.warp_totals[w] = v;
      __syncthreads();
      const int used = (valid + warp::size - 1) / warp::size;
      T total = v;
      if (w == 0) total = warp::reduce(lane < used ? smem.warp_totals[lane] : smem.warp_totals[0], op, used);
      return total;
    }
  }

  /// op over every thread's v; the result is returned to every thread (one more barrier).
  template <class Op>
  __device__ __forceinline__ static T all_reduce(T v, Op op, storage& smem) {
    T total = reduce(v, op, smem);
    if constexpr (warps > 1) {
      __syncthreads();  // every warp has read its slot before thread 0 overwrites slot 0
      if (threadIdx.x == 0) smem.warp_totals[0] = total;
      __syncthreads();
      total = smem.warp_totals[0];
    } else {
      total = warp::shfl(total, 0);
    }
    return total;
  }
};

}  // namespace cuprim::block
