// The cuprim::multi study programs' timing of a call as the lab times it (bench/studies/multi/*.cu; not built by
// CMake): every rank's stream idle, an event per rank before and after the call, the slowest rank's elapsed time,
// the median of 40 after 5 warm-up calls; optionally behind a gate that the host opens after queuing the call.
#pragma once

#include "../study_check.hpp"

#include <cuprim/multi.cuh>

#include <algorithm>
#include <functional>
#include <vector>

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Spins until the host writes a non-zero flag.
__global__ void gate_kernel(volatile int* flag) {
  while (*flag == 0) {
  }
}

/// The slowest rank's event time of `call` (ms). With a flag (host memory mapped for the device: flag_h, flag_d), every
/// rank's stream first waits on the gate, the call is queued behind it, and the host opens it: every rank starts at
/// once, the host's launch time hidden (the GPUs' own time).
inline double time_ranks(const cuprim::multi::communicator& c, const std::function<void()>& call,
                         int* flag_h = nullptr, int* flag_d = nullptr) {
  namespace cm = cuprim::multi;
  const int P = c.local_size();
  for (int w = 0; w < 5; ++w) {
    call();
    c.synchronize();
  }
  std::vector<cudaEvent_t> a(P), b(P);
  for (int i = 0; i < P; ++i) {
    cm::device_guard g(c[i].device);
    CK(cudaEventCreate(&a[i]));
    CK(cudaEventCreate(&b[i]));
  }
  std::vector<double> t;
  for (int r = 0; r < 40; ++r) {
    c.synchronize();
    if (flag_h) *(volatile int*)flag_h = 0;
    for (int i = 0; i < P; ++i) {
      cm::device_guard g(c[i].device);
      if (flag_d) gate_kernel<<<1, 1, 0, c[i].stream>>>(flag_d);
      CK(cudaEventRecord(a[i], c[i].stream));
    }
    call();
    for (int i = 0; i < P; ++i) {
      cm::device_guard g(c[i].device);
      CK(cudaEventRecord(b[i], c[i].stream));
    }
    if (flag_h) *(volatile int*)flag_h = 1;
    c.synchronize();
    double worst = 0;
    for (int i = 0; i < P; ++i) {
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a[i], b[i]));
      worst = std::max(worst, double(ms));
    }
    t.push_back(worst);
  }
  for (int i = 0; i < P; ++i) {
    cm::device_guard g(c[i].device);
    CK(cudaEventDestroy(a[i]));
    CK(cudaEventDestroy(b[i]));
  }
  return median(t);
}
