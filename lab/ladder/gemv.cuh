// lab/ladder/gemv.cuh: the matrix-vector product's ladder (teaching code: built and measured by the lab, not part
// of the installed library).
//
//   cuprim::ladder::gemv(variant, trans, m, n, A, lda, x, y, stream)     y = op(A)·x, A column-major, unit strides
//
// The seed's steps (the CUDA-CHiLL study of MV and TMV), in order, for both ops:
//
//   thread_per_row   1. the computational decomposition alone, CUDA-CHiLL's first output: one thread per element
//                       of y, summing its row of op(A) from global memory. Column-major A makes op N coalesced
//                       (neighbouring threads read neighbouring rows of one column) and op T strided: each thread
//                       walks its own column, a new 32-byte sector per element per thread.
//   smem_x           2. CUDA-CHiLL's final output: x staged in shared memory a tile of 256 at a time (each element
//                       of x loaded once per block instead of once per thread), the sum in a register.
//   warp_per_row     3. the coalescing answer for op T: a warp per element of y, its 32 lanes striding along the
//                       summed dimension (down the column for op T: 128 contiguous bytes per step), then a shuffle
//                       reduction. For op N the same mapping is the strided one (the contrast is the lesson).
//
// The production path (cuprim::blas::gemv, blas/detail/gemv_kernel.cuh) adds 16-byte loads several in flight per
// thread, a layout chosen by shape (lanes per column, column groups) and a split of the summed dimension when the
// tiles alone leave SMs idle.
#pragma once

#include <cuprim/core/error.hpp>

#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <string_view>

namespace cuprim::ladder {

enum class gemv_variant { thread_per_row, smem_x, warp_per_row };
inline constexpr std::array<gemv_variant, 3> gemv_variants{gemv_variant::thread_per_row, gemv_variant::smem_x,
                                                           gemv_variant::warp_per_row};
constexpr std::string_view to_string(gemv_variant v) {
  switch (v) {
    case gemv_variant::thread_per_row: return "thread-per-row";
    case gemv_variant::smem_x: return "smem-x";
    case gemv_variant::warp_per_row: return "warp-per-row";
  }
  return "?";
}

namespace gemv_kernels {

/// Element (k, l) of op(A): A(k, l) for op N, A(l, k) for op T.
template <class T>
__device__ __forceinline__ T op_at(bool trans, const T* a, std::int64_t lda, std::int64_t k, std::int64_t l) {
  return trans ? a[l + k * lda] : a[k + l * lda];
}

template <class T>
__global__ void thread_per_row(bool trans, std::int64_t m, std::int64_t n, const T* a, std::int64_t lda, const T* x,
                               T* y) {
  const std::int64_t len_y = trans ? n : m, len_x = trans ? m : n;
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= len_y) return;
  T s = 0;
  for (std::int64_t l = 0; l < len_x; ++l) s += op_at(trans, a, lda, k, l) * x[l];
  y[k] = s;
}

template <class T, int Tile>
__global__ void smem_x(bool trans, std::int64_t m, std::int64_t n, const T* a, std::int64_t lda, const T* x, T* y) {
  __shared__ T xs[Tile];
  const std::int64_t len_y = trans ? n : m, len_x = trans ? m : n;
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  T s = 0;
  for (std::int64_t l0 = 0; l0 < len_x; l0 += Tile) {
    const std::int64_t l = l0 + threadIdx.x;
    xs[threadIdx.x] = l < len_x ? x[l] : T(0);
    __syncthreads();
    const int end = len_x - l0 < Tile ? int(len_x - l0) : Tile;
    if (k < len_y)
      for (int t = 0; t < end; ++t) s += op_at(trans, a, lda, k, l0 + t) * xs[t];
    __syncthreads();
  }
  if (k < len_y) y[k] = s;
}

template <class T>
__global__ void warp_per_row(bool trans, std::int64_t m, std::int64_t n, const T* a, std::int64_t lda, const T* x,
                             T* y) {
  const std::int64_t len_y = trans ? n : m, len_x = trans ? m : n;
  const std::int64_t k = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = int(threadIdx.x) % 32;
  if (k >= len_y) return;  // the whole warp: k is the same for its 32 lanes
  T s = 0;
  for (std::int64_t l = lane; l < len_x; l += 32) s += op_at(trans, a, lda, k, l) * x[l];
  for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffffu, s, off);
  if (lane == 0) y[k] = s;
}

}  // namespace gemv_kernels

/// y = op(A)·x with rung v (unit strides, alpha 1, beta 0; no argument checks: the lab passes valid shapes).
template <class T>
void gemv(gemv_variant v, bool trans, std::int64_t m, std::int64_t n, const T* a, std::int64_t lda, const T* x, T* y,
          cudaStream_t stream) {
  const std::int64_t len_y = trans ? n : m;
  if (len_y == 0) return;
  constexpr int threads = 256;
  switch (v) {
    case gemv_variant::thread_per_row:
      gemv_kernels::thread_per_row<<<unsigned((len_y + threads - 1) / threads), threads, 0, stream>>>(trans, m, n, a,
                                                                                                     lda, x, y);
      break;
    case gemv_variant::smem_x:
      gemv_kernels::smem_x<T, threads><<<unsigned((len_y + threads - 1) / threads), threads, 0, stream>>>(trans, m, n, a,
                                                                                                         lda, x, y);
      break;
    case gemv_variant::warp_per_row:
      gemv_kernels::warp_per_row<<<unsigned((len_y * 32 + threads - 1) / threads), threads, 0, stream>>>(trans, m, n, a,
                                                                                                         lda, x, y);
      break;
  }
  cuprim::detail::check_launch("cuprim::ladder::gemv");
}

}  // namespace cuprim::ladder
