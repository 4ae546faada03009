// Build (not part of the CMake build; the lab's sort/ family is the maintained benchmark):
//   nvcc -std=c++20 --extended-lambda --expt-relaxed-constexpr -O3 -arch=sm_90 -I include [-include policy.h] \
//        bench/sort/ab_sort.cu src/device.cpp src/error.cpp src/memory.cpp -o ab_sort
// policy.h: '#define POLICY cuprim::radix_sort_policy<...>' (the uint32/float keys and uint32 pairs rows; the
// uint64 row is then skipped) or '#define U64POLICY ...' (the uint64 row; the pairs row is then skipped);
// '#define VARIANT "name"' labels the rows. Two header trees (-I) give an A/B of two versions in one device call.
// Radix sort A/B: cuprim radix_sort_keys / radix_sort_pairs (default policy, caller's workspace) vs CUB
// DeviceRadixSort in the same process; outputs checked bitwise against CUB's. Median of REPS, events.
#include <cuprim/device/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include "ab_common.cuh"
#ifndef VARIANT
#define VARIANT "base"
#endif
#ifndef REPS
#define REPS 15
#endif
__global__ void to_float(const std::uint32_t* a, float* f, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x)
    f[i] = float(a[i] >> 8) / 16777216.0f;
}
// The policies under test: void = the default policy.
#ifdef POLICY
using KP = POLICY;
#else
using KP = void;
#endif
#ifdef U64POLICY
using WP = U64POLICY;
#else
using WP = void;
#endif
template <class P, class K>
void keys_row(const char* name, const K* in, K* out, K* ref, std::uint64_t n) {
  std::size_t wsb = cuprim::radix_sort_keys_workspace_bytes<K, P>(std::int64_t(n));
  void* ws; CK(cudaMalloc(&ws, wsb));
  std::size_t cubb = 0; cub::DeviceRadixSort::SortKeys(nullptr, cubb, in, ref, int(n));
  void* cubws; CK(cudaMalloc(&cubws, cubb));
  CK(cudaMemset(out, 0xab, n * sizeof(K)));
  cub::DeviceRadixSort::SortKeys(cubws, cubb, in, ref, int(n));
  cuprim::radix_sort_keys<P>(in, out, std::int64_t(n), cuprim::workspace{ws, wsb});
  CK(cudaDeviceSynchronize());
  const bool ok = same(out, ref, n);
  float cu = med([&] { cub::DeviceRadixSort::SortKeys(cubws, cubb, in, ref, int(n)); }, REPS);
  float cm = med([&] { cuprim::radix_sort_keys<P>(in, out, std::int64_t(n), cuprim::workspace{ws, wsb}); }, REPS);
  printf("%-6s %-22s cub %.4f ms cuprim %.4f ms = %.3fx %s\n", VARIANT, name, cu, cm, cu / cm, ok ? "ok" : "MISMATCH");
  CK(cudaFree(ws)); CK(cudaFree(cubws));
}
int main() {
  const std::uint64_t n = 1ull << 28;
  std::uint32_t *u, *uo, *ur; float *f, *fo, *fr; std::uint64_t *w, *wo, *wr;
  CK(cudaMalloc(&u, n * 4)); CK(cudaMalloc(&uo, n * 4)); CK(cudaMalloc(&ur, n * 4));
  CK(cudaMalloc(&f, n * 4)); CK(cudaMalloc(&fo, n * 4)); CK(cudaMalloc(&fr, n * 4));
  const std::uint64_t n64 = n / 2;
  CK(cudaMalloc(&w, n64 * 8)); CK(cudaMalloc(&wo, n64 * 8)); CK(cudaMalloc(&wr, n64 * 8));
  fill_u<<<1024, 256>>>(u, n, 12345u); to_float<<<1024, 256>>>(u, f, n); to_u64<<<1024, 256>>>(u, w, n64);
  CK(cudaDeviceSynchronize());
  keys_row<KP>("keys u32 2^28", u, uo, ur, n);
  keys_row<KP>("keys f32 2^28", f, fo, fr, n);
#ifndef POLICY
  keys_row<WP>("keys u64 2^27", w, wo, wr, n64);
#endif
#ifdef U64POLICY
  return 0;  // a uint64 sweep: no pairs row
#endif
  {
    const std::uint64_t m = n / 2;
    std::uint32_t *vi = reinterpret_cast<std::uint32_t*>(f), *vo = reinterpret_cast<std::uint32_t*>(fo), *vr = reinterpret_cast<std::uint32_t*>(fr);
    std::size_t wsb = cuprim::radix_sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t, KP>(std::int64_t(m));
    void* ws; CK(cudaMalloc(&ws, wsb));
    std::size_t cubb = 0; cub::DeviceRadixSort::SortPairs(nullptr, cubb, u, ur, vi, vr, int(m));
    void* cubws; CK(cudaMalloc(&cubws, cubb));
    cub::DeviceRadixSort::SortPairs(cubws, cubb, u, ur, vi, vr, int(m));
    cuprim::radix_sort_pairs<KP>(u, uo, vi, vo, std::int64_t(m), cuprim::workspace{ws, wsb});
    CK(cudaDeviceSynchronize());
    const bool ok = same(uo, ur, m) && same(vo, vr, m);
    float cu = med([&] { cub::DeviceRadixSort::SortPairs(cubws, cubb, u, ur, vi, vr, int(m)); }, REPS);
    float cm = med([&] { cuprim::radix_sort_pairs<KP>(u, uo, vi, vo, std::int64_t(m), cuprim::workspace{ws, wsb}); }, REPS);
    printf("%-6s %-22s cub %.4f ms cuprim %.4f ms = %.3fx %s\n", VARIANT, "pairs u32+u32 2^27", cu, cm, cu / cm, ok ? "ok" : "MISMATCH");
  }
  return 0;
}
