// bench/sort/ab_common.cuh: what the sort A/B programs (ab_sort.cu, prof_sort.cu, pairs_sweep.cu, layout.cu, arch/)
// share. Not
// part of the CMake build; each program builds with nvcc directly (see its first lines).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                     \
  do {                                                                                            \
    cudaError_t e = (x);                                                                          \
    if (e != cudaSuccess) {                                                                       \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e));                   \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

/// p[i] = a hash of i and seed; mode 1: one random bit per byte (x & 0x01010101), mode 2: the bits of a float in
/// [0, 1) (24 random bits).
static __global__ void fill_u(std::uint32_t* p, std::uint64_t n, std::uint32_t seed, int mode = 0) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint32_t x = std::uint32_t(i) * 2654435761u ^ seed; x ^= x >> 15; x *= 2246822519u; x ^= x >> 13; x *= 3266489917u; x ^= x >> 16;
    if (mode == 1) x &= 0x01010101u;
    if (mode == 2) { float f = float(x >> 8) / 16777216.0f; std::memcpy(&x, &f, 4); }
    p[i] = x;
  }
}

/// f[i] = (a[i] << 32) | a[7919 i mod n]: 64-bit keys from 32-bit ones.
static __global__ void to_u64(const std::uint32_t* a, std::uint64_t* f, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x)
    f[i] = (std::uint64_t(a[i]) << 32) | a[(i * 7919) % n];
}

/// Median of `reps` timings of f() (CUDA events, default stream) after 3 warm-up calls, in ms.
template <class F>
float med(F&& f, int reps = 11) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) { CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end()); return t[reps / 2];
}

/// Whether device arrays a and b hold the same n bytes' worth of T.
template <class T>
bool same(const T* a, const T* b, std::uint64_t n) {
  std::vector<T> x(n), y(n);
  CK(cudaMemcpy(x.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(y.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  return std::memcmp(x.data(), y.data(), n * sizeof(T)) == 0;
}

/// Reads p (n4 16-byte words, bypassing L1) `rounds` times.
static __global__ void l2_read_kernel(const float4* p, std::size_t n4, int rounds, float* sink) {
  float acc = 0;
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += std::size_t(gridDim.x) * blockDim.x) {
      const float4 v = __ldcg(p + i);
      acc += v.x + v.y + v.z + v.w;
    }
  if (acc == 12345.f) *sink = acc;
}

/// After a sort, how long a kernel takes to read a working set of `bytes` at buf eight times (L1 bypassed): whether
/// the sort left lines in L2 that crowd the caller's data out. Median over 7 of f() followed by the timed read, in
/// microseconds; sink: one device float.
template <class F>
float l2_read_after(F&& f, const float4* buf, std::size_t bytes, float* sink) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < 7; ++r) {
    f();
    CK(cudaEventRecord(a));
    l2_read_kernel<<<132 * 4, 256>>>(buf, bytes / 16, 8, sink);
    CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1000.f);
  }
  CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[3];
}
