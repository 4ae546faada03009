// cuprim/device/detail/async_copy.cuh: Hopper's (sm_90) shared-memory barriers and bulk copies, the pieces of a
// warp-specialized pipeline.
//
//   mbarrier_init(bar, count)                  count arrivals complete a phase (one thread, then a barrier)
//   mbarrier_arrive(bar)                       one arrival (release: earlier writes are seen by the waiters)
//   mbarrier_arrive_expect_tx(bar, bytes)      one arrival, and the phase also waits for `bytes` of bulk copies
//   mbarrier_wait(bar, parity)                 until the phase of that parity has completed (acquire)
//   bulk_load(smem, gmem, bytes, bar)          global -> shared by the copy engine, completing on bar
//   tma_load_2d(smem, map, bar, x, y)          one box of a 2-D tensor map -> shared, completing on bar
//   bulk_store(gmem, smem, bytes)              shared -> global; bulk_commit() closes a group and
//   bulk_wait_read<N>()                        waits until at most N groups still read shared memory
//   fence_proxy_async_shared()                 orders this thread's shared-memory writes before later bulk copies
//   cluster_barrier_arrive() / _wait()         the two halves of a barrier over every thread of the cluster
//   cluster_rank()                             this block's rank in its cluster
//   mbarrier_arrive_cluster(bar, rank)         one arrival on the barrier at bar's offset in cluster block `rank`
//
// Bulk copies need 16-byte aligned addresses on both sides and a size that is a multiple of 16. Everything here
// is sm_90 only: callers check `bulk_copy_supported` (device and binary) before launching a kernel that uses it.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace cuprim::detail {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CUPRIM_HAS_BULK_COPY 1
#endif

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbarrier_init(unsigned long long* bar, unsigned count) {
#ifdef CUPRIM_HAS_BULK_COPY
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_address(bar)), "r"(count) : "memory");
#endif
}

/// Makes initialised barriers visible to the copy engine; call after the inits, before the block's barrier.
__device__ __forceinline__ void fence_mbarrier_init() {
#ifdef CUPRIM_HAS_BULK_COPY
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

__device__ __forceinline__ void mbarrier_arrive(unsigned long long* bar) {
#ifdef CUPRIM_HAS_BULK_COPY
  asm volatile("{\n\t.reg .b64 state;\n\tmbarrier.arrive.shared::cta.b64 state, [%0];\n\t}" ::"r"(smem_address(bar))
               : "memory");
#endif
}

__device__ __forceinline__ void mbarrier_arrive_expect_tx(unsigned long long* bar, unsigned bytes) {
#ifdef CUPRIM_HAS_BULK_COPY
  asm volatile("{\n\t.reg .b64 state;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n\t}" ::"r"(
                   smem_address(bar)),
               "r"(bytes)
               : "memory");
#endif
}

__device__ __forceinline__ bool mbarrier_try_wait(unsigned long long* bar, unsigned parity) {
  unsigned done = 1;
#ifdef CUPRIM_HAS_BULK_COPY
  asm volatile(
      "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(done)
      : "r"(smem_address(bar)), "r"(parity)
      : "memory");
#endif
  return done != 0;
}

__device__ __forceinline__ void mbarrier_wait(unsigned long long* bar, unsigned parity) {
  while (!mbarrier_try_wait(bar, parity)) {
  }
}

__device__ __forceinline__ void bulk_load(void* smem_dst, const void* gmem_src, unsigned bytes,
                                          unsigned long long* bar) {
#ifdef CUPRIM_HAS_BULK_COPY
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   smem_address(smem_dst)),
               "l"(gmem_src), "r"(bytes), "r"(smem_address(bar))
               : "memory");
#endif
}

/// A 2-D tensor copy (TMA) of one box of `map` at coordinates (x: the contiguous dimension, y) into shared memory,
/// completing on bar; elements outside the tensor arrive as zeros (the maps cuprim encodes ask for that).
__device__ __forceinline__ void tma_load_2d(void* smem, const CUtensorMap* map, unsigned long long* bar, int x, int y) {
#ifdef CUPRIM_HAS_BULK_COPY
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::
          "r"(smem_address(smem)),
      "l"(map), "r"(smem_address(bar)), "r"(x), "r"(y)
      : "memory");
#endif
}

__device__ __forceinline__ void bulk_store(void* gmem_dst, const void* smem_src, unsigned bytes) {
#ifdef CUPRIM_HAS_BULK_COPY
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(gmem_dst),
               "r"(smem_address(smem_src)), "r"(bytes)
               : "memory");
#endif
}

__device__ __forceinline__ void bulk_commit() {
#ifdef CUPRIM_HAS_BULK_COPY
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}

template <int Pending>
__device__ __forceinline__ void bulk_wait_read() {
#ifdef CUPRIM_HAS_BULK_COPY
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
#endif
}

__device__ __forceinline__ void fence_proxy_async_shared() {
#ifdef CUPRIM_HAS_BULK_COPY
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

/// Cluster barrier halves (every thread of every block of the cluster calls both, in this order): arrive releases
/// this thread's earlier shared-memory writes, wait acquires the other blocks' once all have arrived.
__device__ __forceinline__ void cluster_barrier_arrive() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void cluster_barrier_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r = 0;
#ifdef CUPRIM_HAS_BULK_COPY
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
  return r;
}

/// One arrival on the barrier at bar's offset in the shared memory of cluster block rank (release at the default
/// .cta scope: a .cluster-scope release would also wait for this thread's wgmma still in flight).
__device__ __forceinline__ void mbarrier_arrive_cluster(unsigned long long* bar, unsigned rank) {
#ifdef CUPRIM_HAS_BULK_COPY
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_address(bar)), "r"(rank));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
#endif
}

/// The body of a kernel compiled for a target without the instructions it needs: a word of static shared memory
/// marks the binary (the host reads cudaFuncAttributes::sharedSizeBytes, 0 for the real kernel, and never launches
/// it), and a launch anyway traps.
__device__ __forceinline__ void kernel_not_built_here() {
  __shared__ int not_built_marker;
  if (threadIdx.x == 0) not_built_marker = int(blockIdx.x);
  __syncthreads();
  if (not_built_marker >= 0) __trap();
}

}  // namespace cuprim::detail
