// lab/ladder/reduce_kernels.cuh: the kernels of the reduction ladder (seed 003, "Parallel
// Reduction", after M. Harris, "Optimizing Parallel Reduction in CUDA"), written for any type and any
// associative, commutative operator. Each reduces blocks of its input to one partial per block; the host
// repeats passes until one value remains (the seed's "host code may iterate").
//
// None needs an identity element: a thread or shared-memory slot that holds no data is excluded by a
// `valid` count instead of being padded with zeros. The warp stages never rely on implicit warp-synchronous
// execution: shared-memory warp steps are separated by __syncwarp(), or use shuffles.
#pragma once

#include "common.cuh"

#include <cuprim/block/reduce.cuh>
#include <cuprim/device/detail/load.cuh>

#include <cstdint>

namespace cuprim::ladder::detail {

inline constexpr int block_threads = 256;

/// Dynamic shared memory viewed as an array of T.
template <class T>
__device__ __forceinline__ T* shared_array() {
  extern __shared__ __align__(16) unsigned char ladder_smem[];
  return reinterpret_cast<T*>(ladder_smem);
}

/// Loads one element per thread; returns the number of threads of this block that hold data.
template <class In, class Acc>
__device__ __forceinline__ int load_one(const In* in, std::uint64_t n, Acc* s) {
  const std::uint64_t start = std::uint64_t(blockIdx.x) * blockDim.x;
  const std::uint64_t i = start + threadIdx.x;
  if (i < n) s[threadIdx.x] = convert<Acc>(in[i]);
  return static_cast<int>(n - start < blockDim.x ? n - start : blockDim.x);
}

/// 1. Interleaved addressing, divergent branching: `if (tid % (2*s) == 0)`.
template <class In, class Acc, class Op>
__global__ void interleaved_divergent(const In* in, std::uint64_t n, Acc* out, Op op) {
  Acc* s = shared_array<Acc>();
  const int tid = threadIdx.x;
  const int valid = load_one(in, n, s);
  __syncthreads();
  for (int stride = 1; stride < static_cast<int>(blockDim.x); stride *= 2) {
    if (tid % (2 * stride) == 0 && tid + stride < valid) s[tid] = op(s[tid], s[tid + stride]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

/// 2. Interleaved addressing with a strided index: no divergence, but shared-memory bank conflicts.
template <class In, class Acc, class Op>
__global__ void interleaved_strided(const In* in, std::uint64_t n, Acc* out, Op op) {
  Acc* s = shared_array<Acc>();
  const int tid = threadIdx.x;
  const int valid = load_one(in, n, s);
  __syncthreads();
  for (int stride = 1; stride < static_cast<int>(blockDim.x); stride *= 2) {
    const int index = 2 * stride * tid;
    if (index + stride < valid) s[index] = op(s[index], s[index + stride]);
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

/// The sequential-addressing tree over `valid` slots of s, down to `stop` slots (stop = 1: the whole tree).
template <class Acc, class Op>
__device__ __forceinline__ int tree_sequential(Acc* s, int valid, Op op, int stop) {
  const int tid = threadIdx.x;
  for (int stride = blockDim.x / 2; stride >= stop; stride /= 2) {
    if (tid < stride && tid + stride < valid) s[tid] = op(s[tid], s[tid + stride]);
    valid = valid < stride ? valid : stride;
    __syncthreads();
  }
  return valid;
}

/// 3. Sequential addressing: conflict-free, but half the threads idle from the first step.
template <class In, class Acc, class Op>
__global__ void sequential_addressing(const In* in, std::uint64_t n, Acc* out, Op op) {
  Acc* s = shared_array<Acc>();
  const int valid = load_one(in, n, s);
  __syncthreads();
  tree_sequential(s, valid, op, 1);
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

/// Loads two elements per thread (blockDim apart) and combines them: the first add during load.
template <class In, class Acc, class Op>
__device__ __forceinline__ int load_two(const In* in, std::uint64_t n, Acc* s, Op op) {
  const std::uint64_t start = std::uint64_t(blockIdx.x) * blockDim.x * 2;
  const std::uint64_t i = start + threadIdx.x;
  if (i < n) {
    Acc v = convert<Acc>(in[i]);
    if (i + blockDim.x < n) v = op(v, convert<Acc>(in[i + blockDim.x]));
    s[threadIdx.x] = v;
  }
  return static_cast<int>(n - start < blockDim.x ? n - start : blockDim.x);
}

/// 4. First add during load: each block takes 2 × blockDim elements.
template <class In, class Acc, class Op>
__global__ void first_add_during_load(const In* in, std::uint64_t n, Acc* out, Op op) {
  Acc* s = shared_array<Acc>();
  const int valid = load_two(in, n, s, op);
  __syncthreads();
  tree_sequential(s, valid, op, 1);
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

/// The last warp's six steps in shared memory, each read and write separated by __syncwarp() instead of
/// relying on lock-step execution (the seed's `volatile` version is a data race under independent thread
/// scheduling). Called by the 32 threads of warp 0 with `valid` ≤ 64 slots holding data.
template <class Acc, class Op>
__device__ __forceinline__ void warp_stage_shared(Acc* s, int valid, Op op) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int stride = 32; stride > 0; stride /= 2) {
    Acc mine = s[tid];
    const bool combine = tid < stride && tid + stride < valid;
    Acc other = combine ? s[tid + stride] : mine;
    __syncwarp();
    if (combine) s[tid] = op(mine, other);
    __syncwarp();
    valid = valid < stride ? valid : stride;
  }
}

/// 5. Unroll the last warp: the tree stops at 64 slots; warp 0 finishes without __syncthreads.
template <class In, class Acc, class Op>
__global__ void unroll_last_warp(const In* in, std::uint64_t n, Acc* out, Op op) {
  Acc* s = shared_array<Acc>();
  int valid = load_two(in, n, s, op);
  __syncthreads();
  valid = tree_sequential(s, valid, op, 64);
  if (threadIdx.x < 32) warp_stage_shared(s, valid, op);
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

/// One fully unrolled tree step (compile-time block size).
template <int BlockSize, int Stride, class Acc, class Op>
__device__ __forceinline__ void unrolled_step(Acc* s, int& valid, Op op) {
  if constexpr (BlockSize > Stride) {
    const int tid = threadIdx.x;
    if (tid < Stride && tid + Stride < valid) s[tid] = op(s[tid], s[tid + Stride]);
    valid = valid < Stride ? valid : Stride;
    __syncthreads();
  }
}

/// 6. Completely unrolled with a template block size.
template <int BlockSize, class In, class Acc, class Op>
__global__ void complete_unroll(const In* in, std::uint64_t n, Acc* out, Op op) {
  Acc* s = shared_array<Acc>();
  int valid = load_two(in, n, s, op);
  __syncthreads();
  unrolled_step<BlockSize, 512>(s, valid, op);
  unrolled_step<BlockSize, 256>(s, valid, op);
  unrolled_step<BlockSize, 128>(s, valid, op);
  unrolled_step<BlockSize, 64>(s, valid, op);
  if (threadIdx.x < 32) warp_stage_shared(s, valid, op);
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

/// Grid-stride accumulation: thread g holds elements g, g + stride, ...; threads with g ≥ n hold nothing.
template <class In, class Acc, class Op>
__device__ __forceinline__ int load_grid_stride(const In* in, std::uint64_t n, Acc& acc, Op op) {
  const std::uint64_t start = std::uint64_t(blockIdx.x) * blockDim.x;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  std::uint64_t i = start + threadIdx.x;
  if (i < n) {
    acc = convert<Acc>(in[i]);
    for (i += stride; i < n; i += stride) acc = op(acc, convert<Acc>(in[i]));
  }
  return static_cast<int>(n - start < blockDim.x ? n - start : blockDim.x);
}

/// 7. Multiple elements per thread (grid-stride loop; the seed's final kernel): a fixed grid, then the
/// completely unrolled shared-memory tree.
template <int BlockSize, class In, class Acc, class Op>
__global__ void multiple_elements(const In* in, std::uint64_t n, Acc* out, Op op) {
  Acc* s = shared_array<Acc>();
  Acc acc{};
  int valid = load_grid_stride(in, n, acc, op);
  if (static_cast<int>(threadIdx.x) < valid) s[threadIdx.x] = acc;
  __syncthreads();
  unrolled_step<BlockSize, 512>(s, valid, op);
  unrolled_step<BlockSize, 256>(s, valid, op);
  unrolled_step<BlockSize, 128>(s, valid, op);
  unrolled_step<BlockSize, 64>(s, valid, op);
  if (threadIdx.x < 32) warp_stage_shared(s, valid, op);
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

/// 8. Multiple elements per thread with a shuffle-based block reduction (warp::reduce + one barrier).
template <int BlockSize, class In, class Acc, class Op>
__global__ void warp_shuffle(const In* in, std::uint64_t n, Acc* out, Op op) {
  using reducer = block::reducer<Acc, BlockSize>;
  __shared__ uninitialized<typename reducer::storage> smem;
  Acc acc{};
  const int valid = load_grid_stride(in, n, acc, op);
  Acc total = reducer::reduce(acc, op, valid, smem.get());
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

}  // namespace cuprim::ladder::detail
