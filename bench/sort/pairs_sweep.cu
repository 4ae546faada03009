// Build (not part of the CMake build): nvcc -std=c++20 --extended-lambda --expt-relaxed-constexpr -O3 -arch=sm_90 -I include \
//        bench/sort/pairs_sweep.cu src/device.cpp src/error.cpp src/memory.cpp -o pairs_sweep
// Pairs policy sweep: 2^27 uint32+uint32, cuprim (policy P) vs CUB SortPairs in the same process.
#include <cuprim/device/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include "ab_common.cuh"
std::uint32_t *u, *o, *r, *v, *vo, *vr; const std::uint64_t m = 1ull << 27;
float cub_ms;
template <int T, int I, int LB, bool EF = false>
void row() {
  using P = cuprim::radix_sort_policy<T, I, 512, 8, 16, LB, 1, false, true, 1024, 8, EF>;
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
  printf("pairs %dx%d window %d%s: cuprim %.4f ms, cub %.4f ms = %.3fx %s\n", T, I, LB, EF ? " exchange-first" : "", ms, cub_ms, cub_ms / ms, ok ? "ok" : "MISMATCH");
  CK(cudaFree(ws));
}
int main() {
  CK(cudaMalloc(&u, m * 4)); CK(cudaMalloc(&o, m * 4)); CK(cudaMalloc(&r, m * 4));
  CK(cudaMalloc(&v, m * 4)); CK(cudaMalloc(&vo, m * 4)); CK(cudaMalloc(&vr, m * 4));
  fill_u<<<1024, 256>>>(u, m, 777u); fill_u<<<1024, 256>>>(v, m, 999u); CK(cudaDeviceSynchronize());
  std::size_t cubb = 0; cub::DeviceRadixSort::SortPairs(nullptr, cubb, u, r, v, vr, int(m));
  void* cubws; CK(cudaMalloc(&cubws, cubb));
  auto b = [&] { cub::DeviceRadixSort::SortPairs(cubws, cubb, u, r, v, vr, int(m)); };
  cub_ms = med(b);
  row<384, 30, 2>(); row<384, 32, 2>(); row<384, 28, 2>(); row<384, 30, 4>(); row<384, 30, 1>();
  row<512, 20, 2>(); row<512, 22, 2>(); row<448, 26, 2>(); row<256, 40, 2>(); row<384, 24, 2>();
  cub_ms = med(b); row<384, 30, 2>();
  return 0;
}
