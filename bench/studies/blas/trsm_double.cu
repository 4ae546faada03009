// A study program (not built by CMake): nvcc -std=c++20 -arch=sm_90a -O3 --extended-lambda --expt-relaxed-constexpr
// -I include bench/studies/blas/trsm_double.cu <build>/libcuprim.a -lcublas -o trsm_double
//
// The parts of a double trsm at 4096^2 with inverted diagonal blocks: the inversion, one leaf on each side (the right
// side reads B's rows through the view (ldb, 1)), and the gemm updates of rows = k = 64 … 1024 on the FP64 tensor-
// core kernel under its tuned 128 × 128 tiles and smaller ones, left (C = rows × N, op N N) and right (C = N × rows,
// op N T as trsm's right side with op(A) read transposed), beside cublasDgemm of the same shape. A's diagonal is 1.
// Every time: CUDA events around 30 calls after 5 warm-up calls, the median of 7 such batches, per call, in µs.
#include "trsm_study.hpp"

#include <cstdio>

int main() {
  cudaStream_t s;
  const cublasHandle_t h = study_stream_and_cublas(s);
  const std::int64_t N = 4096;
  double *A, *B, *W;
  CK(cudaMalloc(&A, N * N * 8));
  CK(cudaMalloc(&B, N * N * 8));
  CK(cudaMalloc(&W, N * 64 * 8));
  trsm_study_fill<<<2048, 256, 0, s>>>(A, N, N, 1, true);
  trsm_study_fill<<<2048, 256, 0, s>>>(B, N, N, 2, false);
  CK(cudaStreamSynchronize(s));
  using cuprim::blas::gemm_dmma_policy;
  constexpr gemm_dmma_policy d64{.tile_m = 64, .tile_n = 64, .tile_k = 32, .stages = 3, .group = 8};
  constexpr gemm_dmma_policy d64x128{.tile_m = 64, .tile_n = 128, .tile_k = 32, .stages = 3, .group = 8};
  constexpr gemm_dmma_policy d128x64{.tile_m = 128, .tile_n = 64, .tile_k = 32, .stages = 3, .group = 8};
  for (bool is_left : {true, false}) {
    auto p = cuprim::detail::trsm_view<double>("study", is_left ? cuprim::blas::side::left : cuprim::blas::side::right,
                                               cuprim::blas::uplo::lower, is_left ? cuprim::blas::op::N : cuprim::blas::op::T,
                                               cuprim::blas::diag::non_unit, N, N, 1.0, A, N, B, N, s);
    const double inv = time30(s, [&] { cuprim::detail::trsm_invert<double, 2, 4>(p, W); });
    p.inv = W;
    const double mul = time30(s, [&] { cuprim::detail::trsm_apply<double>(p, 0, 64, 1.0); });
    const double pair = time30(s, [&] { cuprim::detail::trsm_apply<double>(p, 0, 128, 1.0); });
    std::printf("%s: all 64 blocks inverted %.2f, a leaf of 64 x 4096 %.2f, of 128 x 4096 (two blocks) %.2f\n",
                is_left ? "left" : "right", inv, mul, pair);
    std::printf("  rows=k    today   128x128    64x64   64x128   128x64   cublasDgemm\n");
    for (std::int64_t kk = 64; kk <= 1024; kk *= 2) {
      const double one = 1.0, minus = -1.0;
      const double today = time30(s, [&] { cuprim::detail::trsm_update(p, kk, kk, 0, kk, 1.0); });
      double t[4];
      if (is_left) {
        t[0] = time30(s, [&] { update_left<cuprim::tuned>(N, kk, A, B, s); });
        t[1] = time30(s, [&] { update_left<d64>(N, kk, A, B, s); });
        t[2] = time30(s, [&] { update_left<d64x128>(N, kk, A, B, s); });
        t[3] = time30(s, [&] { update_left<d128x64>(N, kk, A, B, s); });
      } else {
        t[0] = time30(s, [&] { update_right<cuprim::tuned>(N, kk, A + kk * N, cuprim::blas::op::T, B, s); });
        t[1] = time30(s, [&] { update_right<d64>(N, kk, A + kk * N, cuprim::blas::op::T, B, s); });
        t[2] = time30(s, [&] { update_right<d64x128>(N, kk, A + kk * N, cuprim::blas::op::T, B, s); });
        t[3] = time30(s, [&] { update_right<d128x64>(N, kk, A + kk * N, cuprim::blas::op::T, B, s); });
      }
      const double cb = time30(s, [&] {
        if (is_left)
          cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(kk), int(N), int(kk), &minus, A + kk, int(N), B, int(N), &one,
                      B + kk, int(N));
        else
          cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, int(N), int(kk), int(kk), &minus, B, int(N), A + kk * N, int(N),
                      &one, B + kk * N, int(N));
      });
      std::printf("  %5lld %9.2f %9.2f %8.2f %8.2f %8.2f %12.2f\n", (long long)kk, today, t[0], t[1], t[2], t[3], cb);
    }
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
