// The study programs' check of a CUDA call (bench/studies/*/*.cu; not built by CMake).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

/// Exits with the failing line unless the CUDA call succeeded.
#define CK(x)                                                                \
  do {                                                                       \
    cudaError_t e_ = (x);                                                    \
    if (e_ != cudaSuccess) {                                                 \
      std::printf("CUDA %s at line %d\n", cudaGetErrorString(e_), __LINE__); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)
