// bench/scan/mixed_types.cu: scans whose output (and accumulator) is wider than the input, default policy against
// other one-tile-per-block shapes; CUDA events, 3 warm-up calls, median of 20.
// A one-off measurement program (not part of the build): the lab's scan rows take one type for input and output.
// Build and run on a GPU machine from the repository root, after building the library:
//   nvcc -std=c++20 -O3 -arch=sm_90 -Iinclude -o mixed_types bench/scan/mixed_types.cu build-device/libcuprim.a
// GB/s counts one read of the input and one write of the output per element. Results: h200-scan-mixed-types.txt.
#include <cuprim/device/scan.cuh>
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <random>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

template <class In, class Out, class F>
double timeit(F&& f) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int r = 0; r < 20; ++r) { CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b)); float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms); }
  std::sort(t.begin(), t.end()); return t[10];
}

template <class In, class Out>
void run(const char* name, std::int64_t n) {
  std::vector<In> h(n); std::mt19937 g(7); for (auto& x : h) x = In(g() % 7);
  In* in; Out* out; CK(cudaMalloc(&in, n * sizeof(In))); CK(cudaMalloc(&out, n * sizeof(Out)));
  CK(cudaMemcpy(in, h.data(), n * sizeof(In), cudaMemcpyHostToDevice));
  double ref = 0; for (auto x : h) ref += double(x);
  auto check = [&](const char* p) { Out last; CK(cudaMemcpy(&last, out + n - 1, sizeof(Out), cudaMemcpyDeviceToHost)); if (double(last) != ref && std::abs(double(last) - ref) > 1e-6 * ref) printf("  MISMATCH %s %g vs %g\n", p, double(last), ref); };
  const double gb = double(n) * (sizeof(In) + sizeof(Out)) / 1e9;
  auto rep = [&](const char* p, double ms) { printf("%-16s 2^%-2d %-22s %8.4f ms %7.0f GB/s\n", name, int(std::log2(double(n))), p, ms, gb / (ms * 1e-3)); };
  double ms;
  ms = timeit<In, Out>([&] { cuprim::inclusive_sum(in, out, n); }); check("default"); rep("default", ms);
  ms = timeit<In, Out>([&] { cuprim::inclusive_scan<cuprim::scan_policy<128, 16, 2>>(in, out, n, cuprim::plus{}); }); check("128x16x2"); rep("128x16x2", ms);
  ms = timeit<In, Out>([&] { cuprim::inclusive_scan<cuprim::scan_policy<128, 16, 4>>(in, out, n, cuprim::plus{}); }); check("128x16x4"); rep("128x16x4", ms);
  ms = timeit<In, Out>([&] { cuprim::inclusive_scan<cuprim::scan_policy<128, 16, 6>>(in, out, n, cuprim::plus{}); }); check("128x16x6"); rep("128x16x6", ms);
  ms = timeit<In, Out>([&] { cuprim::inclusive_scan<cuprim::scan_policy<128, 16, 8>>(in, out, n, cuprim::plus{}); }); check("128x16x8"); rep("128x16x8", ms);
  ms = timeit<In, Out>([&] { cuprim::inclusive_scan<cuprim::scan_policy<256, 16, 4>>(in, out, n, cuprim::plus{}); }); check("256x16x4"); rep("256x16x4", ms);
  ms = timeit<In, Out>([&] { cuprim::inclusive_scan<cuprim::scan_policy<512, 16, 4>>(in, out, n, cuprim::plus{}); }); check("512x16x4 (strided)"); rep("512x16x4 (strided)", ms);
  ms = timeit<In, Out>([&] { cuprim::exclusive_scan<cuprim::scan_policy<128, 16, 4>>(in, out, n, cuprim::plus{}, Out(3)); }); rep("excl 128x16x4", ms);
  CK(cudaFree(in)); CK(cudaFree(out));
}

int main() {
  for (std::int64_t n : {std::int64_t(1) << 20, std::int64_t(1) << 24, std::int64_t(1) << 27}) {
    run<std::uint32_t, std::uint64_t>("uint32->uint64", n);
    run<float, double>("float->double", n);
    run<std::uint8_t, std::int32_t>("uint8->int32", n);
    run<std::int16_t, std::int64_t>("int16->int64", n);
    run<std::uint32_t, std::uint32_t>("uint32 (ref)", n);
  }
  return 0;
}
