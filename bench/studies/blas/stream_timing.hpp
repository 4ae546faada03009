// The BLAS study programs' timing of a call on one stream (bench/studies/blas/*.cu; not built by CMake): CUDA events
// around `reps` calls after `warmup` calls, the median of 7 such batches, per call, in µs.
#pragma once

#include "../study_check.hpp"

#include <algorithm>
#include <functional>
#include <vector>

inline double time_us(cudaStream_t s, int reps, const std::function<void()>& call, int warmup = 3) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int w = 0; w < warmup; ++w) call();
  std::vector<double> t;
  for (int r = 0; r < 7; ++r) {
    CK(cudaEventRecord(a, s));
    for (int i = 0; i < reps; ++i) call();
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e3 / reps);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[3];
}
