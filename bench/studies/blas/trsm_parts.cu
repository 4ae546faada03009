// A study program (not built by CMake): nvcc -std=c++20 -arch=sm_90a -O3 --extended-lambda --expt-relaxed-constexpr
// -I include bench/studies/blas/trsm_parts.cu <build>/libcuprim.a -lcublas -o trsm_parts
//
// Where a float trsm (left, lower, N, non-unit; m = n = N) spends its time: its diagonal solve of one 64-row block
// (each form of the kernel alone, timed on its stream; A's diagonal is 1 here, so that solving in place again and
// again keeps B's values, and the time, as they are), and the gemm updates of each level of its recursion (rows =
// kk = 64, 128, ..., N / 2 deep, N columns: C2 −= M21·Y1; and the right side's transposed shape, N × kk × kk) under
// the tuned float policy and under smaller tiles, beside cublasSgemm of the same shape. Every time: CUDA events
// around 30 calls after 5 warm-up calls, the median of 7 such batches, per call.
#include "trsm_study.hpp"

#include <cstdio>

int main() {
  cudaStream_t s;
  const cublasHandle_t h = study_stream_and_cublas(s);
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
    trsm_study_fill<<<2048, 256, 0, s>>>(A, N, N, 1, true);
    trsm_study_fill<<<2048, 256, 0, s>>>(B, N, N, 2, false);
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
                  time30(s, [&] { update_left<cuprim::tuned>(N, kk, A, B, s); }),
                  time30(s, [&] { update_left<p64>(N, kk, A, B, s); }),
                  time30(s, [&] { update_left<p64s>(N, kk, A, B, s); }),
                  time30(s, [&] { update_left<p3264>(N, kk, A, B, s); }),
                  time30(s, [&] { update_left<p64128>(N, kk, A, B, s); }), time30(s, [&] {
                    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(kk), int(N), int(kk), &minus, A + kk, int(N), B,
                                int(N), &one, B + kk, int(N));
                  }));
    }
    std::printf("  right side, N x kk x kk: kk   tuned   64x32   64x64s   cublasSgemm   (us)\n");
    for (std::int64_t kk = 64; kk <= 512; kk *= 2) {
      const float one = 1.0f, minus = -1.0f;
      std::printf("  %5lld %9.2f %7.2f %8.2f %12.2f\n", (long long)kk,
                  time30(s, [&] { update_right<cuprim::tuned>(N, kk, A + kk, cuprim::blas::op::N, B, s); }),
                  time30(s, [&] { update_right<p6432>(N, kk, A + kk, cuprim::blas::op::N, B, s); }),
                  time30(s, [&] { update_right<p64s>(N, kk, A + kk, cuprim::blas::op::N, B, s); }), time30(s, [&] {
                    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(N), int(kk), int(kk), &minus, B, int(N), A + kk,
                                int(N), &one, B + kk * N, int(N));
                  }));
    }
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
