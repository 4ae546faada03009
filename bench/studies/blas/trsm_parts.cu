// A study program (not built by CMake): nvcc -std=c++20 -arch=sm_90a -O3 --extended-lambda --expt-relaxed-constexpr
// -I include bench/studies/blas/trsm_parts.cu <build>/libcuprim.a -lcublas -o trsm_parts
//
// Where a float trsm (left, lower, N, non-unit; m = n = N) spends its time: its diagonal solve of one 64-row block
// (each form of the kernel alone, timed on its stream; A's diagonal is 1 here, so that solving in place again and
// again keeps B's values, and the time, as they are), and the gemm updates of each level of its recursion (rows =
// kk = 64, 128, ..., N / 2 deep, N columns: C2 −= M21·Y1; and the right side's transposed shape, N × kk × kk) under
// the tuned float policy and under smaller tiles, beside cublasSgemm of the same shape. Every time: CUDA events
// around 30 calls after 5 warm-up calls, the median of 7 such batches, per call.
#include "stream_timing.hpp"

#include <cuprim/blas/trsm.cuh>

#include <cublas_v2.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

__global__ void fill(float* x, long long n, long long ld, unsigned seed, bool lower_dominant) {
  for (long long p = blockIdx.x * 256ll + threadIdx.x; p < n * n; p += 256ll * gridDim.x) {
    const long long i = p % n, j = p / n;
    unsigned h = unsigned(p) * 2654435761u + seed;
    h ^= h >> 15;
    float v = float(h % 2001u) * 1e-3f - 1.0f;
    if (lower_dominant) v = i == j ? 1.0f : (i > j ? v / float(n) : 0.0f);
    x[i + j * ld] = v;
  }
}

/// The program's timing: 30 calls a batch after 5 warm-up calls.
double time30(cudaStream_t s, const std::function<void()>& call) { return time_us(s, 30, call, 5); }

template <auto Policy>
void update(std::int64_t N, std::int64_t kk, const float* A, float* B, cudaStream_t s) {
  // C2 (kk × N at row kk of B) −= M21 (kk × kk at A(kk, 0)) · Y1 (kk × N, B's first kk rows)
  cuprim::detail::gemm_dispatch<Policy>("study", cuprim::detail::gemm_column_major, cuprim::blas::op::N,
                                        cuprim::blas::op::N, kk, N, kk, -1.0f, A + kk, N, B, N, 1.0f, B + kk, N, s);
}

template <auto Policy>
void update_right(std::int64_t N, std::int64_t kk, const float* A, float* B, cudaStream_t s) {
  // C (N × kk at column kk of B) −= Y (N × kk, B's first kk columns) · M (kk × kk at A(kk, 0))
  cuprim::detail::gemm_dispatch<Policy>("study", cuprim::detail::gemm_column_major, cuprim::blas::op::N,
                                        cuprim::blas::op::N, N, kk, kk, -1.0f, B, N, A + kk, N, 1.0f, B + kk * N, N, s);
}

int main() {
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetStream(h, s);
  const std::int64_t NMAX = 8192;
  float *A, *B;
  CK(cudaMalloc(&A, NMAX * NMAX * 4));
  CK(cudaMalloc(&B, NMAX * NMAX * 4));
  using cuprim::blas::gemm_policy;
  constexpr gemm_policy p64{.tile_m = 64, .tile_n = 64, .tile_k = 8, .thread_m = 4, .thread_n = 4};
  constexpr gemm_policy p64s{.tile_m = 64, .tile_n = 64, .tile_k = 4, .thread_m = 8, .thread_n = 8, .split = true};
  constexpr gemm_policy p3264{.tile_m = 32, .tile_n = 64, .tile_k = 8, .thread_m = 4, .thread_n = 4};
  constexpr gemm_policy p6432{.tile_m = 64, .tile_n = 32, .tile_k = 8, .thread_m = 4, .thread_n = 4};
  constexpr gemm_policy p64128{.tile_m = 64, .tile_n = 128, .tile_k = 8, .thread_m = 8, .thread_n = 8};
  for (std::int64_t N : {std::int64_t(4096), NMAX}) {
    fill<<<2048, 256, 0, s>>>(A, N, N, 1, true);
    fill<<<2048, 256, 0, s>>>(B, N, N, 2, false);
    CK(cudaStreamSynchronize(s));
    const auto p = cuprim::detail::trsm_view<float>("study", cuprim::blas::side::left, cuprim::blas::uplo::lower,
                                                    cuprim::blas::op::N, cuprim::blas::diag::non_unit, N, N, 1.0f, A,
                                                    N, B, N, s);
    std::printf("N = %lld: diagonal solve of 64 rows x %lld columns (us), columns per warp x warps: 2 x 4 %.2f | "
                "1 x 4 %.2f | 2 x 8 %.2f\n",
                (long long)N, (long long)N, time30(s, [&] { cuprim::detail::trsm_diag<float, 2, 4>(p, 0, 64, 1.0f); }),
                time30(s, [&] { cuprim::detail::trsm_diag<float, 1, 4>(p, 0, 64, 1.0f); }),
                time30(s, [&] { cuprim::detail::trsm_diag<float, 2, 8>(p, 0, 64, 1.0f); }));
    std::printf("  update rows=k   tuned(128x128/256)   64x64    64x64s   32x64   64x128   cublasSgemm   (us)\n");
    for (std::int64_t kk = 64; kk <= N / 2; kk *= 2) {
      const float one = 1.0f, minus = -1.0f;
      std::printf("  %5lld %18.2f %9.2f %8.2f %7.2f %8.2f %12.2f\n", (long long)kk,
                  time30(s, [&] { update<cuprim::tuned>(N, kk, A, B, s); }),
                  time30(s, [&] { update<p64>(N, kk, A, B, s); }),
                  time30(s, [&] { update<p64s>(N, kk, A, B, s); }),
                  time30(s, [&] { update<p3264>(N, kk, A, B, s); }),
                  time30(s, [&] { update<p64128>(N, kk, A, B, s); }), time30(s, [&] {
                    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(kk), int(N), int(kk), &minus, A + kk, int(N), B,
                                int(N), &one, B + kk, int(N));
                  }));
    }
    std::printf("  right side, N x kk x kk: kk   tuned   64x32   64x64s   cublasSgemm   (us)\n");
    for (std::int64_t kk = 64; kk <= 512; kk *= 2) {
      const float one = 1.0f, minus = -1.0f;
      std::printf("  %5lld %9.2f %7.2f %8.2f %12.2f\n", (long long)kk,
                  time30(s, [&] { update_right<cuprim::tuned>(N, kk, A, B, s); }),
                  time30(s, [&] { update_right<p6432>(N, kk, A, B, s); }),
                  time30(s, [&] { update_right<p64s>(N, kk, A, B, s); }), time30(s, [&] {
                    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(N), int(kk), int(kk), &minus, B, int(N), A + kk,
                                int(N), &one, B + kk * N, int(N));
                  }));
    }
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
