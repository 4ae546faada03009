// Build (not part of the CMake build): nvcc -std=c++20 --extended-lambda --expt-relaxed-constexpr -O3 -arch=sm_90 -I include \
//        bench/sort/prof_sort.cu src/device.cpp src/error.cpp src/memory.cpp -o prof_sort
// Run: prof_sort t (timings); prof_sort (one sort per case, for ncu); prof_sort p (one uint32 pairs sort, for ncu).
// One sort per case, cuprim then CUB, for ncu's per-kernel durations; or event timings (median of 11 after 3 warm-ups).
#include <cuprim/device/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include "ab_common.cuh"

/// cuprim (a) against CUB (b): with `timing`, medians and the outputs compared (ok()); else one call each.
template <class A, class B, class Ok>
void row(const char* name, A&& a, B&& b, Ok&& ok, bool timing) {
  if (!timing) { a(); b(); CK(cudaDeviceSynchronize()); printf("%s profiled\n", name); return; }
  const float ca = med(a), cb = med(b);
  printf("%-14s cuprim %.4f ms cub %.4f ms = %.3fx %s\n", name, ca, cb, cb / ca, ok() ? "ok" : "MISMATCH");
}
template <class K>
void keys(const char* name, K* in, K* out, K* ref, std::uint64_t n, bool timing) {
  std::size_t wsb = cuprim::radix_sort_keys_workspace_bytes<K>(std::int64_t(n));
  void* ws; CK(cudaMalloc(&ws, wsb));
  std::size_t cubb = 0; cub::DeviceRadixSort::SortKeys(nullptr, cubb, in, ref, int(n));
  void* cubws; CK(cudaMalloc(&cubws, cubb));
  row(name, [&] { cuprim::radix_sort_keys(in, out, std::int64_t(n), cuprim::workspace{ws, wsb}); },
      [&] { cub::DeviceRadixSort::SortKeys(cubws, cubb, in, ref, int(n)); }, [&] { return same(out, ref, n); }, timing);
  CK(cudaFree(ws)); CK(cudaFree(cubws));
}
template <class K, class V>
void pairs(const char* name, K* in, K* out, K* ref, V* vin, V* vout, V* vref, std::uint64_t n, bool timing) {
  std::size_t wsb = cuprim::radix_sort_pairs_workspace_bytes<K, V>(std::int64_t(n));
  void* ws; CK(cudaMalloc(&ws, wsb));
  std::size_t cubb = 0; cub::DeviceRadixSort::SortPairs(nullptr, cubb, in, ref, vin, vref, int(n));
  void* cubws; CK(cudaMalloc(&cubws, cubb));
  row(name, [&] { cuprim::radix_sort_pairs(in, out, vin, vout, std::int64_t(n), cuprim::workspace{ws, wsb}); },
      [&] { cub::DeviceRadixSort::SortPairs(cubws, cubb, in, ref, vin, vref, int(n)); },
      [&] { return same(out, ref, n) && same(vout, vref, n); }, timing);
  CK(cudaFree(ws)); CK(cudaFree(cubws));
}
int main(int argc, char** argv) {
  const bool timing = argc > 1 && argv[1][0] == 't';
  const bool only_pairs = argc > 1 && argv[1][0] == 'p';
  const std::uint64_t n = 1ull << 28;
  std::uint32_t *u, *o, *r; CK(cudaMalloc(&u, n * 4)); CK(cudaMalloc(&o, n * 4)); CK(cudaMalloc(&r, n * 4));
  const char* names[3] = {"u32 random", "u32 1bit/byte", "f32 [0,1)"};
  for (int m = 0; m < (only_pairs ? 0 : 3); ++m) {
    fill_u<<<1024, 256>>>(u, n, 12345u, m); CK(cudaDeviceSynchronize());
    if (m == 2) keys<float>(names[m], (float*)u, (float*)o, (float*)r, n, timing);
    else keys<std::uint32_t>(names[m], u, o, r, n, timing);
  }
  if (timing || only_pairs) {
    const std::uint64_t m = n / 2;
    std::uint32_t *v, *vo, *vr; CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&vo, n * 4)); CK(cudaMalloc(&vr, n * 4));
    fill_u<<<1024, 256>>>(u, n, 777u); fill_u<<<1024, 256>>>(v, n, 999u); CK(cudaDeviceSynchronize());
    pairs<std::uint32_t, std::uint32_t>("pairs u32 2^27", u, o, r, v, vo, vr, m, timing);
    if (only_pairs) return 0;
    to_u64<<<1024, 256>>>(v, reinterpret_cast<std::uint64_t*>(u), m); CK(cudaDeviceSynchronize());
    keys<std::uint64_t>("u64 2^27", reinterpret_cast<std::uint64_t*>(u), reinterpret_cast<std::uint64_t*>(o), reinterpret_cast<std::uint64_t*>(r), m, true);
  }
  return 0;
}
