// The trsm study programs' shared parts (bench/studies/blas/trsm_*.cu; not built by CMake): their inputs, their
// timing, and one level's gemm update of a left- or right-side solve under a given gemm policy.
#pragma once

#include "stream_timing.hpp"

#include <cuprim/blas/trsm.cuh>

#include <cublas_v2.h>

#include <cstdint>
#include <functional>

/// An n × n matrix (column-major, ld) of values in [-1, 1]; with lower_dominant, a lower triangle of ones on the
/// diagonal and off-diagonal values below 1/n (solving in place again and again keeps B's values as they are).
template <class T>
__global__ void trsm_study_fill(T* x, long long n, long long ld, unsigned seed, bool lower_dominant) {
  for (long long p = blockIdx.x * 256ll + threadIdx.x; p < n * n; p += 256ll * gridDim.x) {
    const long long i = p % n, j = p / n;
    unsigned h = unsigned(p) * 2654435761u + seed;
    h ^= h >> 15;
    T v = T(h % 2001u) * T(1e-3) - T(1);
    if (lower_dominant) v = i == j ? T(1) : (i > j ? v / T(n) : T(0));
    x[i + j * ld] = v;
  }
}

/// A stream and a cuBLAS handle that runs on it: each program's reference calls run beside cuprim's.
inline cublasHandle_t study_stream_and_cublas(cudaStream_t& s) {
  CK(cudaStreamCreate(&s));
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetStream(h, s);
  return h;
}

/// The programs' timing: 30 calls a batch after 5 warm-up calls.
inline double time30(cudaStream_t s, const std::function<void()>& call) { return time_us(s, 30, call, 5); }

/// The left side's update: C2 (kk × N at row kk of B) −= M21 (kk × kk at A(kk, 0)) · Y1 (kk × N, B's first kk rows).
template <auto Policy, class T>
void update_left(std::int64_t N, std::int64_t kk, const T* A, T* B, cudaStream_t s) {
  cuprim::detail::gemm_dispatch<Policy>("study", cuprim::detail::gemm_column_major, cuprim::blas::op::N,
                                        cuprim::blas::op::N, kk, N, kk, T(-1), A + kk, N, B, N, T(1), B + kk, N, s);
}

/// The right side's update: C (N × kk at column kk of B) −= Y (N × kk, B's first kk columns) · op(M) (M: kk × kk
/// at m, ld N).
template <auto Policy, class T>
void update_right(std::int64_t N, std::int64_t kk, const T* m, cuprim::blas::op op_m, T* B, cudaStream_t s) {
  cuprim::detail::gemm_dispatch<Policy>("study", cuprim::detail::gemm_column_major, cuprim::blas::op::N, op_m, N, kk,
                                        kk, T(-1), B, N, m, N, T(1), B + kk * N, N, s);
}
