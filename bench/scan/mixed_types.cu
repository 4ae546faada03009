// bench/scan/mixed_types.cu: scans whose output (and accumulator) is wider than the input, default policy against
// other one-tile-per-block shapes; CUDA events, 3 warm-up calls, median of 20.
// A one-off measurement program (not part of the build): the lab's scan rows take one type for input and output.
// Build and run on a GPU machine from the repository root, after building the library:
//   nvcc -std=c++20 -O3 -arch=sm_90 -Iinclude -o mixed_types bench/scan/mixed_types.cu build-device/libcuprim.a
// GB/s counts one read of the input and one write of the output per element. Every row's output is poisoned
// before its calls and compared in full with a host scan after them. Results: h200-scan-mixed-types.txt.
#include <cuprim/device/scan.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

void ck(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::printf("%s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

template <class F>
double median_ms(F&& f) {
  cudaEvent_t a, b;
  ck(cudaEventCreate(&a), "cudaEventCreate");
  ck(cudaEventCreate(&b), "cudaEventCreate");
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int r = 0; r < 20; ++r) {
    ck(cudaEventRecord(a), "cudaEventRecord");
    f();
    ck(cudaEventRecord(b), "cudaEventRecord");
    ck(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    ck(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    t.push_back(ms);
  }
  ck(cudaEventDestroy(a), "cudaEventDestroy");
  ck(cudaEventDestroy(b), "cudaEventDestroy");
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class In, class Out>
struct rows {
  const char* name;
  std::int64_t n;
  In* in;
  Out* out;
  std::vector<Out> incl, excl;  // host references (exclusive: init 3)

  /// One row: poison, time `call`, compare the whole output with the reference.
  template <class Call>
  void row(const char* label, bool exclusive, Call call) {
    ck(cudaMemset(out, 0xff, std::size_t(n) * sizeof(Out)), "cudaMemset");
    const double ms = median_ms(call);
    ck(cudaGetLastError(), "scan launch");
    std::vector<Out> got(static_cast<std::size_t>(n));
    ck(cudaMemcpy(got.data(), out, got.size() * sizeof(Out), cudaMemcpyDeviceToHost), "cudaMemcpy");
    const std::vector<Out>& ref = exclusive ? excl : incl;
    std::int64_t bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i) bad += got[i] != ref[i];
    const double gb = double(n) * (sizeof(In) + sizeof(Out)) / 1e9;
    std::printf("%-16s 2^%-2d %-22s %8.4f ms %7.0f GB/s%s\n", name, int(std::log2(double(n))), label, ms,
                gb / (ms * 1e-3), bad ? "  MISMATCH" : "");
    if (bad) std::printf("  %lld of %lld elements differ\n", (long long)bad, (long long)n);
  }

  template <class P>
  void policy(const char* label) {
    row(label, false, [&] { cuprim::inclusive_scan<P>(in, out, n, cuprim::plus{}); });
  }
};

template <class In, class Out>
void run(const char* name, std::int64_t n) {
  std::vector<In> h(static_cast<std::size_t>(n));
  std::mt19937 g(7);
  for (auto& x : h) x = In(g() % 7);  // small values: the sums stay exact in every output type
  rows<In, Out> r{name, n, nullptr, nullptr, {}, {}};
  r.incl.resize(h.size());
  r.excl.resize(h.size());
  Out s = Out(3);
  Out t = Out(0);
  for (std::size_t i = 0; i < h.size(); ++i) {
    r.excl[i] = s;
    s = s + Out(h[i]);
    t = t + Out(h[i]);
    r.incl[i] = t;
  }
  ck(cudaMalloc(&r.in, h.size() * sizeof(In)), "cudaMalloc");
  ck(cudaMalloc(&r.out, h.size() * sizeof(Out)), "cudaMalloc");
  ck(cudaMemcpy(r.in, h.data(), h.size() * sizeof(In), cudaMemcpyHostToDevice), "cudaMemcpy");
  r.row("default", false, [&] { cuprim::inclusive_sum(r.in, r.out, n); });
  r.template policy<cuprim::scan_policy<128, 16, 2>>("128x16x2");
  r.template policy<cuprim::scan_policy<128, 16, 4>>("128x16x4");
  r.template policy<cuprim::scan_policy<128, 16, 6>>("128x16x6");
  r.template policy<cuprim::scan_policy<128, 16, 8>>("128x16x8");
  r.template policy<cuprim::scan_policy<256, 16, 4>>("256x16x4");
  r.template policy<cuprim::scan_policy<512, 16, 4>>("512x16x4 (strided)");
  r.row("excl 128x16x4", true,
        [&] { cuprim::exclusive_scan<cuprim::scan_policy<128, 16, 4>>(r.in, r.out, n, cuprim::plus{}, Out(3)); });
  ck(cudaFree(r.in), "cudaFree");
  ck(cudaFree(r.out), "cudaFree");
}

}  // namespace

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
