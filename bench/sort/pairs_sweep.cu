// Build (not part of the CMake build): nvcc -std=c++20 --extended-lambda --expt-relaxed-constexpr -O3 -arch=sm_90 -I include \
//        bench/sort/pairs_sweep.cu src/device.cpp src/error.cpp src/memory.cpp -o pairs_sweep
// Pairs policy sweep: 2^27 uint32+uint32, cuprim (policy P) vs CUB SortPairs in the same process; then 2^28 uint32
// keys with and without the L2 prefetch of the tile PrefetchTiles ahead, vs CUB SortKeys.
#include <cuprim/device/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include "ab_common.cuh"
std::uint32_t *u, *o, *r, *v, *vo, *vr; const std::uint64_t m = 1ull << 27;
float cub_ms;
template <int T, int I, int LB, bool EF = false, bool JX = false>
void row() {
  using P = cuprim::radix_sort_policy<T, I, 512, 8, 16, LB, 1, false, true, 1024, 8, EF, JX>;
  std::size_t wsb = cuprim::radix_sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t, P>(std::int64_t(m));
  void* ws; CK(cudaMalloc(&ws, wsb));
  CK(cudaMemset(o, 0xab, m * 4)); CK(cudaMemset(vo, 0xab, m * 4));
  auto a = [&] { cuprim::radix_sort_pairs<P>(u, o, v, vo, std::int64_t(m), cuprim::workspace{ws, wsb}); };
  a(); CK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> x(m), y(m), p(m), q(m);
  CK(cudaMemcpy(x.data(), o, m * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(y.data(), r, m * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(p.data(), vo, m * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(q.data(), vr, m * 4, cudaMemcpyDeviceToHost));
  const bool ok = x == y && p == q;
  float ms = med(a);
  printf("pairs %dx%d window %d%s%s: cuprim %.4f ms, cub %.4f ms = %.3fx %s\n", T, I, LB, EF ? " exchange-first" : "", JX ? " joint" : "", ms, cub_ms, cub_ms / ms, ok ? "ok" : "MISMATCH");
  CK(cudaFree(ws));
}
// Keys-only rows: 2^28 uint32 keys (u, o, r hold 2^27 each: uses its own buffers).
template <int T, int I, int PF>
void krow(std::uint32_t* k, std::uint32_t* ko, std::uint32_t* kr, std::uint64_t n, float cubk) {
  using P = cuprim::radix_sort_policy<T, I, 512, 8, 16, 2, 1, false, true, 1024, 8, false, false, PF>;
  std::size_t wsb = cuprim::radix_sort_keys_workspace_bytes<std::uint32_t, P>(std::int64_t(n));
  void* ws; CK(cudaMalloc(&ws, wsb));
  CK(cudaMemset(ko, 0xab, n * 4));
  auto a = [&] { cuprim::radix_sort_keys<P>(k, ko, std::int64_t(n), cuprim::workspace{ws, wsb}); };
  a(); CK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> x(n), y(n);
  CK(cudaMemcpy(x.data(), ko, n * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(y.data(), kr, n * 4, cudaMemcpyDeviceToHost));
  float ms = med(a);
  printf("keys %dx%d prefetch %d: cuprim %.4f ms, cub %.4f ms = %.3fx %s\n", T, I, PF, ms, cubk, cubk / ms, x == y ? "ok" : "MISMATCH");
  CK(cudaFree(ws));
}
void krows() {
  const std::uint64_t n = 1ull << 28;
  std::uint32_t *k, *ko, *kr; CK(cudaMalloc(&k, n * 4)); CK(cudaMalloc(&ko, n * 4)); CK(cudaMalloc(&kr, n * 4));
  fill_u<<<1024, 256>>>(k, n, 4242u); CK(cudaDeviceSynchronize());
  std::size_t cubb = 0; cub::DeviceRadixSort::SortKeys(nullptr, cubb, k, kr, int(n));
  void* cubws; CK(cudaMalloc(&cubws, cubb));
  auto b = [&] { cub::DeviceRadixSort::SortKeys(cubws, cubb, k, kr, int(n)); };
  float cubk = med(b);
  krow<384, 40, 0>(k, ko, kr, n, cubk); krow<384, 40, 32>(k, ko, kr, n, cubk); krow<384, 40, 0>(k, ko, kr, n, cubk);
  CK(cudaFree(k)); CK(cudaFree(ko)); CK(cudaFree(kr)); CK(cudaFree(cubws));
}
int main() {
  CK(cudaMalloc(&u, m * 4)); CK(cudaMalloc(&o, m * 4)); CK(cudaMalloc(&r, m * 4));
  CK(cudaMalloc(&v, m * 4)); CK(cudaMalloc(&vo, m * 4)); CK(cudaMalloc(&vr, m * 4));
  fill_u<<<1024, 256>>>(u, m, 777u); fill_u<<<1024, 256>>>(v, m, 999u); CK(cudaDeviceSynchronize());
  std::size_t cubb = 0; cub::DeviceRadixSort::SortPairs(nullptr, cubb, u, r, v, vr, int(m));
  void* cubws; CK(cudaMalloc(&cubws, cubb));
  auto b = [&] { cub::DeviceRadixSort::SortPairs(cubws, cubb, u, r, v, vr, int(m)); };
  cub_ms = med(b);
  // Run 6: the separate exchanges (the run-5 default), the joint exchange after the look-back, and before it.
  row<384, 30, 2>(); row<384, 30, 2, false, true>(); row<384, 24, 2, true, true>(); row<384, 25, 2, true, true>();
  row<384, 26, 2, true, true>(); row<384, 27, 2, true, true>();
  cub_ms = med(b); row<384, 30, 2>(); row<384, 26, 2, true, true>();
  krows();
  return 0;
}
