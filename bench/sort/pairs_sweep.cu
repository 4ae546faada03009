// Build (not part of the CMake build): nvcc -std=c++20 --extended-lambda --expt-relaxed-constexpr -O3 -arch=sm_90 -I include \
//        bench/sort/pairs_sweep.cu src/device.cpp src/error.cpp src/memory.cpp -o pairs_sweep
// Pairs policy sweep: 2^27 uint32+uint32, cuprim (policy P) vs CUB SortPairs in the same process.
#include <cuprim/device/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); std::exit(1); } } while (0)
__global__ void fill_u(std::uint32_t* p, std::uint64_t n, std::uint32_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint32_t x = std::uint32_t(i) * 2654435761u ^ seed; x ^= x >> 15; x *= 2246822519u; x ^= x >> 13; x *= 3266489917u; x ^= x >> 16;
    p[i] = x;
  }
}
template <class F> float med(F&& f) {
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<float> t;
  for (int i = 0; i < 14; ++i) { CK(cudaEventRecord(e0)); f(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (i >= 3) t.push_back(ms); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
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
