// The multi-GPU study programs' common checks (bench/studies/multi/*.cu; not built by CMake).
#pragma once

#include "../study_check.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>

/// Exits with the failing line and NCCL's last message unless the NCCL call succeeded.
#define NK(x)                                                                                                \
  do {                                                                                                       \
    ncclResult_t r_ = (x);                                                                                   \
    if (r_ != ncclSuccess) {                                                                                 \
      std::printf("NCCL %s (%s) at line %d\n", ncclGetErrorString(r_), ncclGetLastError(nullptr), __LINE__); \
      std::exit(1);                                                                                          \
    }                                                                                                        \
  } while (0)

#include <vector>

/// NCCL's version and the number of visible GPUs, printed as a study's first line (with `what` after them).
inline int print_setup(const char* what) {
  int count = 0, version = 0;
  CK(cudaGetDeviceCount(&count));
  NK(ncclGetVersion(&version));
  std::printf("NCCL %d, %d GPUs%s\n", version, count, what);
  return count;
}

/// The communicators of devices 0 .. P-1, one process driving them (ncclCommInitAll).
inline std::vector<ncclComm_t> first_devices_comms(int P) {
  std::vector<int> devs(static_cast<std::size_t>(P));
  for (int i = 0; i < P; ++i) devs[static_cast<std::size_t>(i)] = i;
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(P));
  NK(ncclCommInitAll(comms.data(), P, devs.data()));
  return comms;
}
