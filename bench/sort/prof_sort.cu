// Build (not part of the CMake build): nvcc -std=c++20 --extended-lambda --expt-relaxed-constexpr -O3 -arch=sm_90 -I include \
//        bench/sort/prof_sort.cu src/device.cpp src/error.cpp src/memory.cpp -o prof_sort
// Run: prof_sort t (timings); prof_sort (one sort per case, for ncu); prof_sort p (one uint32 pairs sort, for ncu).
// One sort per case, cuprim then CUB, for ncu's per-kernel durations; then event timings (median of 11).
#include <cuprim/device/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); std::exit(1); } } while (0)
__global__ void fill_u(std::uint32_t* p, std::uint64_t n, std::uint32_t seed, int mode) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint32_t x = std::uint32_t(i) * 2654435761u ^ seed; x ^= x >> 15; x *= 2246822519u; x ^= x >> 13; x *= 3266489917u; x ^= x >> 16;
    if (mode == 1) x &= 0x01010101u;
    if (mode == 2) { float f = float(x >> 8) / 16777216.0f; std::memcpy(&x, &f, 4); }
    p[i] = x;
  }
}
template <class K>
void one(const char* name, K* in, K* out, K* ref, std::uint64_t n, bool timing) {
  std::size_t wsb = cuprim::radix_sort_keys_workspace_bytes<K>(std::int64_t(n));
  void* ws; CK(cudaMalloc(&ws, wsb));
  std::size_t cubb = 0; cub::DeviceRadixSort::SortKeys(nullptr, cubb, in, ref, int(n));
  void* cubws; CK(cudaMalloc(&cubws, cubb));
  auto a = [&] { cuprim::radix_sort_keys(in, out, std::int64_t(n), cuprim::workspace{ws, wsb}); };
  auto b = [&] { cub::DeviceRadixSort::SortKeys(cubws, cubb, in, ref, int(n)); };
  if (!timing) { a(); b(); CK(cudaDeviceSynchronize()); printf("%s profiled\n", name); }
  else {
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    float r[2];
    for (int w = 0; w < 2; ++w) {
      std::vector<float> t;
      for (int i = 0; i < 14; ++i) { CK(cudaEventRecord(e0)); if (w == 0) a(); else b(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (i >= 3) t.push_back(ms); }
      std::sort(t.begin(), t.end()); r[w] = t[t.size() / 2];
    }
    std::vector<K> x(n), y(n);
    CK(cudaMemcpy(x.data(), out, n * sizeof(K), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(y.data(), ref, n * sizeof(K), cudaMemcpyDeviceToHost));
    printf("%-14s cuprim %.4f ms cub %.4f ms = %.3fx %s\n", name, r[0], r[1], r[1] / r[0], std::memcmp(x.data(), y.data(), n * sizeof(K)) ? "MISMATCH" : "ok");
  }
  CK(cudaFree(ws)); CK(cudaFree(cubws));
}
template <class K, class V>
void pairs(const char* name, K* in, K* out, K* ref, V* vin, V* vout, V* vref, std::uint64_t n) {
  std::size_t wsb = cuprim::radix_sort_pairs_workspace_bytes<K, V>(std::int64_t(n));
  void* ws; CK(cudaMalloc(&ws, wsb));
  std::size_t cubb = 0; cub::DeviceRadixSort::SortPairs(nullptr, cubb, in, ref, vin, vref, int(n));
  void* cubws; CK(cudaMalloc(&cubws, cubb));
  auto a = [&] { cuprim::radix_sort_pairs(in, out, vin, vout, std::int64_t(n), cuprim::workspace{ws, wsb}); };
  auto b = [&] { cub::DeviceRadixSort::SortPairs(cubws, cubb, in, ref, vin, vref, int(n)); };
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  float r[2];
  for (int w = 0; w < 2; ++w) {
    std::vector<float> t;
    for (int i = 0; i < 14; ++i) { CK(cudaEventRecord(e0)); if (w == 0) a(); else b(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (i >= 3) t.push_back(ms); }
    std::sort(t.begin(), t.end()); r[w] = t[t.size() / 2];
  }
  std::vector<K> x(n), y(n); std::vector<V> u(n), v(n);
  CK(cudaMemcpy(x.data(), out, n * sizeof(K), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(y.data(), ref, n * sizeof(K), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(u.data(), vout, n * sizeof(V), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(v.data(), vref, n * sizeof(V), cudaMemcpyDeviceToHost));
  const bool ok = !std::memcmp(x.data(), y.data(), n * sizeof(K)) && !std::memcmp(u.data(), v.data(), n * sizeof(V));
  printf("%-14s cuprim %.4f ms cub %.4f ms = %.3fx %s\n", name, r[0], r[1], r[1] / r[0], ok ? "ok" : "MISMATCH");
  CK(cudaFree(ws)); CK(cudaFree(cubws));
}
__global__ void to_u64(const std::uint32_t* a, std::uint64_t* f, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x)
    f[i] = (std::uint64_t(a[i]) << 32) | a[(i * 7919) % n];
}
int main(int argc, char** argv) {
  const bool timing = argc > 1 && argv[1][0] == 't';
  const bool only_pairs = argc > 1 && argv[1][0] == 'p';
  const std::uint64_t n = 1ull << 28;
  std::uint32_t *u, *o, *r; CK(cudaMalloc(&u, n * 4)); CK(cudaMalloc(&o, n * 4)); CK(cudaMalloc(&r, n * 4));
  const char* names[3] = {"u32 random", "u32 1bit/byte", "f32 [0,1)"};
  for (int m = 0; m < (only_pairs ? 0 : 3); ++m) {
    fill_u<<<1024, 256>>>(u, n, 12345u, m); CK(cudaDeviceSynchronize());
    if (m == 2) one<float>(names[m], (float*)u, (float*)o, (float*)r, n, timing);
    else one<std::uint32_t>(names[m], u, o, r, n, timing);
  }
  if (timing || only_pairs) {
    const std::uint64_t m = n / 2;
    std::uint32_t *v, *vo, *vr; CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&vo, n * 4)); CK(cudaMalloc(&vr, n * 4));
    fill_u<<<1024, 256>>>(u, n, 777u, 0); fill_u<<<1024, 256>>>(v, n, 999u, 0); CK(cudaDeviceSynchronize());
    if (only_pairs) {
      std::size_t wsb = cuprim::radix_sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t>(std::int64_t(m));
      void* ws; CK(cudaMalloc(&ws, wsb));
      std::size_t cubb = 0; cub::DeviceRadixSort::SortPairs(nullptr, cubb, u, r, v, vr, int(m));
      void* cubws; CK(cudaMalloc(&cubws, cubb));
      cuprim::radix_sort_pairs(u, o, v, vo, std::int64_t(m), cuprim::workspace{ws, wsb});
      cub::DeviceRadixSort::SortPairs(cubws, cubb, u, r, v, vr, int(m));
      CK(cudaDeviceSynchronize());
      return 0;
    }
    pairs<std::uint32_t, std::uint32_t>("pairs u32 2^27", u, o, r, v, vo, vr, m);
    to_u64<<<1024, 256>>>(v, reinterpret_cast<std::uint64_t*>(u), m); CK(cudaDeviceSynchronize());
    one<std::uint64_t>("u64 2^27", reinterpret_cast<std::uint64_t*>(u), reinterpret_cast<std::uint64_t*>(o), reinterpret_cast<std::uint64_t*>(r), m, true);
  }
  return 0;
}
