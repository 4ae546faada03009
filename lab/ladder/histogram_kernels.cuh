// lab/ladder/histogram_kernels.cuh: the kernels of the histogram ladder that the product does not use: one sample
// per thread per step (no vector loads), with one global atomic per sample or into the production kernel's
// counters (device/detail/histogram_kernel.cuh, hist_counters). The rungs that load vectors run the production
// kernel itself.
#pragma once

#include "common.cuh"

#include <cuprim/device/detail/histogram_kernel.cuh>

#include <cstdint>

namespace cuprim::ladder::detail {

/// Threads per block of every ladder kernel (as the production policy's).
inline constexpr int hist_block_threads = 512;

/// Counts sample i of the launch with one atomic on its output bin.
template <class S, class B, class C>
__device__ __forceinline__ void hist_add_atomically(const hist_params<S, B, C>& p, std::uint64_t i) {
  int c = 0;
  if constexpr (hist_is_multi<B>::value) c = static_cast<int>((p.first + i) % static_cast<unsigned>(p.bin.channels));
  const int b = hist_bin_of(p.bin, p.in[i], c);
  if (b >= 0) hist_atomic_add(hist_out_of(p, b), 1u);
}

/// Rung 1, the seed's first kernel: thread t bins the contiguous section [t·s, (t+1)·s) of the input with one
/// global atomic per sample (adjacent threads read addresses s apart: uncoalesced).
template <class S, class B, class C>
__global__ void __launch_bounds__(hist_block_threads) histogram_sectioned_kernel(const hist_params<S, B, C> p) {
  const std::uint64_t G = std::uint64_t(gridDim.x) * blockDim.x;
  const std::uint64_t g = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t section = (p.n + G - 1) / G;
  const std::uint64_t begin = g * section;
  const std::uint64_t end = begin + section < p.n ? begin + section : p.n;
  wait_for_prerequisite_grid();
  for (std::uint64_t i = begin; i < end; ++i) hist_add_atomically(p, i);
}

/// Rung 2: interleaved (coalesced) partitioning, one global atomic per sample.
template <class S, class B, class C>
__global__ void __launch_bounds__(hist_block_threads) histogram_atomic_kernel(const hist_params<S, B, C> p) {
  wait_for_prerequisite_grid();
  const std::uint64_t G = std::uint64_t(gridDim.x) * blockDim.x;
  const std::uint64_t g = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t n = p.n;
  for (std::uint64_t i = g; i < n; i += G) hist_add_atomically(p, i);
}

/// Rungs 3 and 4: interleaved partitioning, one sample per thread per step, counted as the production kernel
/// counts under layout L (shared sub-histograms, or global atomics with runs merged).
template <hist_layout L, class S, class B, class C>
__global__ void __launch_bounds__(hist_block_threads) histogram_scalar_kernel(const hist_params<S, B, C> p) {
  hist_counters<L, S, B, C> counts(p);
  counts.start();
  const std::uint64_t G = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < p.n; i += G) counts.add_sample(i);
  counts.finish();
}

}  // namespace cuprim::ladder::detail
