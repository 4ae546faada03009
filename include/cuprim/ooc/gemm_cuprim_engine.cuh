// cuprim/ooc/gemm_cuprim_engine.cuh: the out-of-core GEMM's tiles on cuprim's own GEMM, without cuBLAS.
//
//   cuprim::ooc::cuprim_tile_engine<T, Policy>   a gemm_tile_engine<T> (ooc/gemm_engine.hpp), T = float or double,
//        whose tiles run cuprim::blas::gemm<Policy> (blas/gemm.cuh) on the stream the schedule gives it: float in
//        true FP32 on CUDA cores, double on Hopper's FP64 tensor cores where the tile's layout allows (A and B
//        16-byte aligned, lda and ldb even; the out-of-core GEMM's device buffers are 256-byte aligned and its
//        device leading dimensions are the tile's rows or depth, so even tile sizes take the tensor cores) and on
//        CUDA cores otherwise. The semantics and error bound are blas::gemm's; C is not read when beta == 0.
//
// Choosing it. Pass one to gemm_sync (or gemm_measure_rates) as its last argument:
//
//     cuprim::ooc::cuprim_tile_engine<double> engine;
//     auto report = cuprim::ooc::gemm_sync<double>('N', 'N', m, n, k, 1.0, A, lda, B, ldb, 0.0, C, ldc, {}, &engine);
//     // report.engine == "cuprim"
//
// Without an engine, gemm_sync keeps cuBLAS (cublas_tile_engine). Why cuBLAS stays the default, for both types:
// the out-of-core GEMM is bound by PCIe wherever k is moderate (the seed's m = n = 8192, k = 288 DGEMM computes in
// 0.8 ms what takes 12 ms to move), and there both engines give the same time; where k is large enough for compute
// to bind (roughly k > 4000 for double and k > 1500 for float on an H100 over PCIe Gen5), cuBLAS is the faster
// engine: cuprim's DGEMM runs at about 0.88x cuBLAS's and its true-FP32 SGEMM at about 0.67x on an H100
// (docs/tuning/blas.md). This engine is for builds and users that want no cuBLAS in the tiles' path, or cuprim's
// reproducible sums (the same bits from run to run for a given tile plan and device).
//
// Header-only CUDA: include it from a .cu file (nvcc), so that the GEMM kernels are built for the caller's
// architectures like every cuprim::blas entry point; it needs cuprim::cuprim only (gemm_sync itself lives in the
// library target cuprim::ooc_gemm). Stateless apart from its policy: one engine may serve calls on several threads
// and devices (each tile runs on the device current in the calling thread, which gemm_sync keeps).
// Errors: those of blas::gemm (cuprim::invalid_argument never arises from a valid schedule; cuprim::cuda_error for a
// failed launch), thrown from gemm() into gemm_sync, which then cleans up as documented in ooc/gemm.hpp.
#pragma once

#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/policy.hpp>
#include <cuprim/ooc/gemm_engine.hpp>

#include <cuda_runtime_api.h>

#include <type_traits>

namespace cuprim::ooc {

/// Computes the out-of-core GEMM's tiles with cuprim::blas::gemm<Policy> (see the file comment). Policy: what
/// blas::gemm takes for T (cuprim::tuned, a blas::gemm_policy, or for double a blas::gemm_dmma_policy).
template <class T, auto Policy = cuprim::tuned>
class cuprim_tile_engine final : public gemm_tile_engine<T> {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "cuprim::ooc::cuprim_tile_engine: T must be float or double (those gemm_sync takes)");

public:
  void gemm(cudaStream_t stream, char transa, char transb, int m, int n, int k, T alpha, const T* A, int lda,
            const T* B, int ldb, T beta, T* C, int ldc) override {
    cuprim::blas::gemm<Policy>(op_of(transa), op_of(transb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
  }
  const char* name() const noexcept override { return "cuprim"; }

private:
  /// gemm_sync hands its tiles 'N' or 'T'.
  static blas::op op_of(char t) noexcept { return t == 'N' || t == 'n' ? blas::op::N : blas::op::T; }
};

}  // namespace cuprim::ooc
