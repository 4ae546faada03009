// cuprim/device/detail/launch.cuh: zeroing a look-back workspace and launching the kernel that uses it as a
// programmatic dependent launch (Hopper's PDL), so that the second launch overlaps the first instead of
// queueing behind it.
//
//   zero_async(fn, p, bytes, stream);                       // a small kernel; lets the next launch start early
//   launch_dependent(fn, kernel, grid, block, stream, args...);
//   // in kernel, before touching what zero_async wrote:   wait_for_prerequisite_grid();
//
// Every programmatic dependent launch of cuprim goes through try_launch_dependent (launch_dependent_smem and
// launch_dependent throw on failure). Also here: the configuration of a one-cluster launch
// (cluster_launch_config), host data carried to the device in kernel parameters (upload_async), and the occupancy
// of kernels that use sm_90 bulk copies (bulk_kernel_blocks_per_sm), and the opt-in to more than 48 KiB of dynamic
// shared memory (allow_dynamic_smem).
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <utility>

namespace cuprim::detail {

/// Lets `kernel` take `bytes` of dynamic shared memory (beyond 48 KiB a kernel must opt in).
template <class Kernel>
void allow_dynamic_smem(Kernel kernel, std::size_t bytes) {
  if (bytes > 48 * 1024)
    CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

/// Waits until the grid launched before this one on the stream has finished and its writes are visible. Called
/// by every kernel launched with launch_dependent before it reads anything that grid writes; a no-op for an
/// ordinary launch.
__device__ __forceinline__ void wait_for_prerequisite_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Lets the grid launched after this one as a programmatic dependent launch be scheduled now (it still waits in
/// wait_for_prerequisite_grid until this grid has finished); a no-op without one.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

template <class Word>
__global__ void zero_words_kernel(Word* p, std::size_t count) {
  allow_dependent_launch();
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) p[i] = Word{};
}

/// Zeroes [p, p + bytes rounded up to 16) on the stream: p is 16-byte aligned and the rounded region lies inside
/// the caller's allocation (cuprim workspaces are laid out in 256-byte-aligned parts).
inline void zero_async(const char* fn, void* p, std::size_t bytes, cudaStream_t stream) {
  const std::size_t words = (bytes + 15) / 16;
  if (words == 0) return;
  constexpr unsigned threads = 256;
  const std::size_t most = std::size_t(get_device_info().sm_count) * 4;
  const auto blocks = static_cast<unsigned>(std::max<std::size_t>(1, std::min(most, (words + threads - 1) / threads)));
  zero_words_kernel<<<blocks, threads, 0, stream>>>(static_cast<uint4*>(p), words);
  check_launch(fn);
}

/// One piece of host data carried to the device as a kernel parameter (by value). Kernel parameters are copied
/// when the launch is queued, so a copy made this way never waits for the stream, whatever memory the host data
/// lives in (cudaMemcpyAsync from pageable memory waits for the work queued before it). Since CUDA 12.1 a kernel
/// of compute capability 7.0 or later takes up to 32,764 bytes of parameters; before, 4,096.
struct upload_chunk {
#if CUDART_VERSION >= 12010
  static constexpr std::size_t capacity = 32768 - 256;
#else
  static constexpr std::size_t capacity = 4096 - 256;
#endif
  alignas(16) unsigned char bytes[capacity];
};

template <class Chunk>
__global__ void upload_kernel(unsigned char* dst, Chunk chunk, unsigned count) {
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) dst[i] = chunk.bytes[i];
}

/// Copies `bytes` of host memory at `src` to device memory at `dst` in stream order, without waiting for the
/// stream: one small kernel per upload_chunk::capacity bytes, the data in its parameters (a histogram's edges:
/// one launch up to about 4,000 8-byte edges, about 250 for a million). Bulk data belongs in cudaMemcpyAsync from
/// pinned memory. `src` may be freed as soon as this returns.
inline void upload_async(const char* fn, void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  auto* to = static_cast<unsigned char*>(dst);
  const auto* from = static_cast<const unsigned char*>(src);
  for (std::size_t done = 0; done < bytes; done += upload_chunk::capacity) {
    const std::size_t count = std::min(upload_chunk::capacity, bytes - done);
    upload_chunk chunk;
    std::memcpy(chunk.bytes, from + done, count);
    upload_kernel<upload_chunk><<<1, 256, 0, stream>>>(to + done, chunk, unsigned(count));
    check_launch(fn);
  }
}

/// A launch configuration of grid × block threads with `smem` bytes of dynamic shared memory and one launch
/// attribute, attr[0] (which must outlive the configuration).
inline cudaLaunchConfig_t launch_config(unsigned grid, unsigned block, std::size_t smem, cudaStream_t stream,
                                        cudaLaunchAttribute (&attr)[1]) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

/// A launch configuration of one thread-block cluster of `blocks` blocks (the whole grid); `attr` must outlive it.
inline cudaLaunchConfig_t cluster_launch_config(unsigned blocks, int threads, std::size_t smem, cudaStream_t stream,
                                               cudaLaunchAttribute (&attr)[1]) {
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = blocks;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  return launch_config(blocks, unsigned(threads), smem, stream, attr);
}

/// kernel<<<grid, block, smem, stream>>>(args...) as a programmatic dependent launch, returning the launch's error
/// (the caller decides what to do with it): its blocks may be scheduled while the previous grid on the stream is
/// still running, and wait in wait_for_prerequisite_grid() until it has finished.
template <class... Params, class... Args>
cudaError_t try_launch_dependent(void (*kernel)(Params...), unsigned grid, unsigned block, std::size_t smem,
                                 cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  const cudaLaunchConfig_t config = launch_config(grid, block, smem, stream, attr);
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

/// try_launch_dependent, throwing cuprim::cuda_error on failure.
template <class... Params, class... Args>
void launch_dependent_smem(const char* fn, void (*kernel)(Params...), unsigned grid, unsigned block, std::size_t smem,
                           cudaStream_t stream, Args&&... args) {
  CUPRIM_CUDA_CHECK(try_launch_dependent(kernel, grid, block, smem, stream, std::forward<Args>(args)...));
  check_launch(fn);
}

/// launch_dependent_smem without dynamic shared memory.
template <class... Params, class... Args>
void launch_dependent(const char* fn, void (*kernel)(Params...), unsigned grid, unsigned block, cudaStream_t stream,
                      Args&&... args) {
  launch_dependent_smem(fn, kernel, grid, block, 0, stream, std::forward<Args>(args)...);
}

/// What bulk_kernel_blocks_per_sm remembers per device: the kernel it last prepared and its blocks per SM.
/// Keyed by the kernel's address as well, because one template instantiation can have one host stub per
/// translation unit: a shared-memory limit raised through one stub does not cover a launch through another.
struct bulk_kernel_cache {
  std::atomic<const void*> kernel[64] = {};
  std::atomic<int> blocks[64] = {};
};

/// Resident blocks per SM of a kernel that uses sm_90 bulk copies, with `smem` bytes of dynamic shared memory
/// (its limit raised as needed), on the current device; 0 when the device or the kernel's code is older than
/// sm_90 (the caller then takes another path). Read once per kernel address and device.
inline int bulk_kernel_blocks_per_sm(const void* kernel, int threads, std::size_t smem, bulk_kernel_cache& cache) {
  const int dev = current_device();
  const bool slot = dev >= 0 && dev < 64;
  if (slot && cache.kernel[dev].load(std::memory_order_acquire) == kernel)
    return cache.blocks[dev].load(std::memory_order_relaxed);
  int blocks = 0;
  if (get_device_info(dev).arch() >= 90) {
    cudaFuncAttributes attr{};
    CUPRIM_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
    if (attr.binaryVersion >= 90 && attr.ptxVersion >= 90) {
      CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
      CUPRIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem));
    }
  }
  if (slot) {  // threads racing here compute the same value for the same kernel
    cache.blocks[dev].store(blocks, std::memory_order_relaxed);
    cache.kernel[dev].store(kernel, std::memory_order_release);
  }
  return blocks;
}

}  // namespace cuprim::detail
