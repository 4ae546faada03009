// cuprim/ooc/gemm_engine.hpp: the engine interface that computes the out-of-core GEMM's tiles on the device.
//
//   cuprim::ooc::gemm_tile_engine<T>    C = alpha * op(A) * op(B) + beta * C on device tiles, stream-ordered
//   cuprim::ooc::cublas_tile_engine<T>  the default: cublasSgemm / cublasDgemm (library target cuprim::ooc_gemm)
//   cuprim::ooc::cuprim_tile_engine<T>  cuprim's own GEMM (cuprim::blas::gemm), no cuBLAS: ooc/gemm_cuprim_engine.cuh
//                                       (header-only CUDA; why cuBLAS stays the default is written there)
//
// cuprim::ooc::gemm_sync (ooc/gemm.hpp) streams the tiles of host-resident matrices through the device and hands
// each one to an engine; any GEMM that takes device pointers and a stream plugs in by implementing this interface
// (a cuprim GEMM in cuprim::blas, a library of the caller's, a test double that counts or fails calls), and is passed
// as gemm_sync's last argument. The engine sees only tiles (dimensions below 2^31, so int as in BLAS); the out-of-core
// schedule, the copies and the memory budget stay the caller's.
#pragma once

#include <cuda_runtime_api.h>

namespace cuprim::ooc {

/// Computes GEMM tiles on the device: C = alpha * op(A) * op(B) + beta * C, all pointers device memory,
/// column-major (element (i, j) of X at X[i + j * ldX]), ordered on `stream` (it must not synchronise the stream).
/// trans* are 'N' or 'T'. Called from the thread that called gemm_sync, with that call's current device. With
/// beta == 0 it must not read C.
template <class T>
class gemm_tile_engine {
public:
  virtual ~gemm_tile_engine() = default;
  virtual void gemm(cudaStream_t stream, char transa, char transb, int m, int n, int k, T alpha, const T* A, int lda,
                    const T* B, int ldb, T beta, T* C, int ldc) = 0;
  /// The engine's name, reported in gemm_report::engine.
  virtual const char* name() const noexcept = 0;
};

/// The default engine: cublasDgemm / cublasSgemm (true FP32 / FP64) on a cuBLAS handle of its own, created on the
/// device current at construction. gemm_sync without an engine uses one per thread and device, kept for the life
/// of the thread.
template <class T>
class cublas_tile_engine final : public gemm_tile_engine<T> {
public:
  cublas_tile_engine();
  ~cublas_tile_engine() override;
  cublas_tile_engine(const cublas_tile_engine&) = delete;
  cublas_tile_engine& operator=(const cublas_tile_engine&) = delete;
  void gemm(cudaStream_t stream, char transa, char transb, int m, int n, int k, T alpha, const T* A, int lda,
            const T* B, int ldb, T beta, T* C, int ldc) override;
  const char* name() const noexcept override { return "cublas"; }

private:
  void* handle_ = nullptr;  // cublasHandle_t
  int device_ = -1;
};

}  // namespace cuprim::ooc
