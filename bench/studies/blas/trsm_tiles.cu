// A study program (not built by CMake): nvcc -std=c++20 -arch=sm_90a -O3 --extended-lambda --expt-relaxed-constexpr
// -I include bench/studies/blas/trsm_tiles.cu <build>/libcuprim.a -lcublas -o trsm_tiles
//
// The parts of a float trsm with inverted diagonal blocks (left, lower, N, non-unit; m = n = N): the inversion of
// every 64-row diagonal block (one launch), one leaf (X = inv·C over 64 rows × N columns) against the substitution
// it replaces and a leaf of two blocks (128 rows: both products and the update between them in one launch), and the gemm updates of rows = k = 128 … 1024 (N columns; and the right side's N × k × k) under
// the tiles trsm takes today and under 128 × 128 tiles of the split kernel, with interior tiles of 128 columns or
// none (the tuned policy's 128 × 256 interior tiles leave a 512 × 4096 update 64 blocks for 132 SMs), beside
// cublasSgemm of the same shape. A's diagonal is 1 (solving in place again and again keeps B's values). Every time:
// CUDA events around 30 calls after 5 warm-up calls, the median of 7 such batches, per call, in µs.
#include "trsm_study.hpp"

#include <cstdio>

int main() {
  cudaStream_t s;
  const cublasHandle_t h = study_stream_and_cublas(s);
  const std::int64_t NMAX = 8192;
  float *A, *B, *W;
  CK(cudaMalloc(&A, NMAX * NMAX * 4));
  CK(cudaMalloc(&B, NMAX * NMAX * 4));
  CK(cudaMalloc(&W, NMAX * 64 * 4));
  using cuprim::blas::gemm_policy;
  constexpr gemm_policy p128i{.tile_m = 128, .tile_n = 128, .tile_k = 8, .thread_m = 8, .thread_n = 8, .split = true,
                              .blocks_per_sm = 2, .interior_n = 128};
  constexpr gemm_policy p128{.tile_m = 128, .tile_n = 128, .tile_k = 8, .thread_m = 8, .thread_n = 8, .split = true,
                             .blocks_per_sm = 2};
  for (std::int64_t N : {std::int64_t(4096), NMAX}) {
    trsm_study_fill<<<2048, 256, 0, s>>>(A, N, N, 1, true);
    trsm_study_fill<<<2048, 256, 0, s>>>(B, N, N, 2, false);
    CK(cudaStreamSynchronize(s));
    auto p = cuprim::detail::trsm_view<float>("study", cuprim::blas::side::left, cuprim::blas::uplo::lower,
                                              cuprim::blas::op::N, cuprim::blas::diag::non_unit, N, N, 1.0f, A, N, B,
                                              N, s);
    const double inv = time30(s, [&] { cuprim::detail::trsm_invert<float, 2, 4>(p, W); });
    const double sub = time30(s, [&] { cuprim::detail::trsm_diag<float, 2, 4>(p, 0, 64, 1.0f); });
    p.inv = W;
    const double mul = time30(s, [&] { cuprim::detail::trsm_apply<float>(p, 0, 64, 1.0f); });
    const double pair = time30(s, [&] { cuprim::detail::trsm_apply<float>(p, 0, 128, 1.0f); });
    std::printf("N = %lld: all %lld diagonal blocks inverted %.2f; one leaf of 64 rows x %lld columns: inverse applied "
                "%.2f, substitution %.2f; a leaf of two blocks (128 rows, their update inside) %.2f\n",
                (long long)N, (long long)N / 64, inv, (long long)N, mul, sub, pair);
    const auto row = [&](const char* side, std::int64_t kk, double a, double b, double c, double d, double e) {
      std::printf("  %-5s %5lld %9.2f %9.2f %9.2f %9.2f %9.2f\n", side, (long long)kk, a, b, c, d, e);
    };
    std::printf("  side   rows=k   today   tuned   128x128i128   128x128   cublasSgemm\n");
    for (std::int64_t kk = 128; kk <= 1024 && kk <= N / 2; kk *= 2) {
      const float one = 1.0f, minus = -1.0f;
      const double today = time30(s, [&] {
        cuprim::detail::trsm_update(p, kk, kk, 0, kk, 1.0f);  // the same shape as update<>: rows kk.., k = kk
      });
      row("left", kk, today, time30(s, [&] { update_left<cuprim::tuned>(N, kk, A, B, s); }),
          time30(s, [&] { update_left<p128i>(N, kk, A, B, s); }), time30(s, [&] { update_left<p128>(N, kk, A, B, s); }),
          time30(s, [&] {
            cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(kk), int(N), int(kk), &minus, A + kk, int(N), B, int(N), &one,
                        B + kk, int(N));
          }));
    }
    auto pr = cuprim::detail::trsm_view<float>("study", cuprim::blas::side::right, cuprim::blas::uplo::lower,
                                               cuprim::blas::op::T, cuprim::blas::diag::non_unit, N, N, 1.0f, A, N, B,
                                               N, s);
    for (std::int64_t kk = 128; kk <= 1024 && kk <= N / 2; kk *= 2) {
      const float one = 1.0f, minus = -1.0f;
      const double today = time30(s, [&] { cuprim::detail::trsm_update(pr, kk, kk, 0, kk, 1.0f); });
      row("right", kk, today, time30(s, [&] { update_right<cuprim::tuned>(N, kk, A + kk, cuprim::blas::op::N, B, s); }),
          time30(s, [&] { update_right<p128i>(N, kk, A + kk, cuprim::blas::op::N, B, s); }),
          time30(s, [&] { update_right<p128>(N, kk, A + kk, cuprim::blas::op::N, B, s); }), time30(s, [&] {
            cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, int(N), int(kk), int(kk), &minus, B, int(N), A + kk, int(N), &one,
                        B + kk * N, int(N));
          }));
    }
  }
  CK(cudaDeviceSynchronize());
  return 0;
}
