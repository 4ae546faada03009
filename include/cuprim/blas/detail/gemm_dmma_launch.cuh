// cuprim/blas/detail/gemm_dmma_launch.cuh: the host side of the FP64 tensor-core GEMM: when it can run, its tensor
// maps, its grid, its launch.
//
//   gemm_dmma_eligible<P>(...)   the operands suit TMA (16-byte aligned, even leading dimensions, sizes below
//                                2^31 - 512) on an sm_90 device, and this binary holds the kernel's sm_90 code
//   gemm_dmma_launch<P>(...)     encodes both tensor maps and launches the kernel of the op pair
#pragma once

#include <cuprim/blas/detail/gemm_dmma_kernel.cuh>
#include <cuprim/blas/detail/gemm_sm90_launch.cuh>
#include <cuprim/blas/detail/gemm_tuning.cuh>
#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/policy.hpp>

#include <cstdint>
#include <source_location>
#include <string>

namespace cuprim::detail {

/// A 2-D tensor map over a column-major array of doubles: `inner` contiguous elements by `outer` columns ld elements
/// apart, boxes of 16 × box_outer elements (128-byte rows, swizzled), zeros outside the array.
inline CUtensorMap gemm_dmma_tensor_map(const char* fn, const double* p, std::int64_t inner, std::int64_t outer,
                                        std::int64_t ld, int box_outer) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cuuint64_t(inner), cuuint64_t(outer)};
  const cuuint64_t strides[1] = {cuuint64_t(ld) * sizeof(double)};
  const cuuint32_t box[2] = {16, cuuint32_t(box_outer)};
  const cuuint32_t steps[2] = {1, 1};
  const CUresult r = gemm_tensor_map_encoder(fn)(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 2, const_cast<double*>(p), dims, strides, box, steps,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw cuda_error(cudaErrorInvalidValue, std::string(fn) + ": cuTensorMapEncodeTiled", std::source_location::current());
  return map;
}

/// True when the FP64 tensor-core kernel was compiled for sm_90 or later in this binary (other builds declare a
/// marker in static shared memory); any instantiation tells the build.
inline bool gemm_dmma_built() {
  static const bool built = [] {
    cudaFuncAttributes attr{};
    auto* kernel = gemm_dmma_kernel<policy_constant<blas::gemm_dmma_policy{}>, false, true>;
    const bool ok = cudaFuncGetAttributes(&attr, kernel) == cudaSuccess && attr.sharedSizeBytes == 0;
    (void)cudaGetLastError();  // a binary with no image for this device reports it here: not eligible, not an error
    return ok;
  }();
  return built;
}

/// Whether the FP64 tensor-core kernel of policy P takes these operands on this device.
template <blas::gemm_dmma_policy P>
bool gemm_dmma_eligible(const device_info& dev, std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
                        std::int64_t lda, const double* b, std::int64_t ldb) {
  constexpr std::int64_t limit = (std::int64_t(1) << 31) - 512, ld_limit = std::int64_t(1) << 36;
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if (dev.arch() != 90 || m >= limit || n >= limit || k >= limit) return false;
  if (!aligned(a) || !aligned(b) || lda % 2 != 0 || ldb % 2 != 0 || lda >= ld_limit || ldb >= ld_limit) return false;
  const std::int64_t tiles = ((m + P.tile_m - 1) / P.tile_m) * ((n + P.tile_n - 1) / P.tile_n);
  return tiles <= 0x7fffffff && gemm_dmma_built();
}

template <blas::gemm_dmma_policy P, bool AK, bool BKm>
void gemm_dmma_launch_pair(const char* fn, const CUtensorMap& map_a, const CUtensorMap& map_b,
                           const gemm_dmma_args& g, cudaStream_t stream) {
  auto* kernel = gemm_dmma_kernel<policy_constant<P>, AK, BKm>;
  CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, P.smem_bytes()));
  const std::int64_t tiles = ((g.m + P.tile_m - 1) / P.tile_m) * ((g.n + P.tile_n - 1) / P.tile_n);
  kernel<<<unsigned(tiles), P.threads(), P.smem_bytes(), stream>>>(map_a, map_b, g);
  check_launch(fn);
}

/// C = alpha · op(A) · op(B) + beta · C on the FP64 tensor cores (arguments validated, gemm_dmma_eligible<P> true,
/// m, n, k > 0, alpha ≠ 0).
template <blas::gemm_dmma_policy P>
void gemm_dmma_launch(const char* fn, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                      double alpha, const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta,
                      double* c, std::int64_t ldc, cudaStream_t stream) {
  static_assert(gemm_dmma_policy_valid<P>());
  // op(A): MN-major (m contiguous) when op_a = N, boxes of 16 m × tile_k; K-major when op_a = T, 16 k × tile_m.
  const CUtensorMap map_a = trans_a ? gemm_dmma_tensor_map(fn, a, k, m, lda, P.tile_m)
                                    : gemm_dmma_tensor_map(fn, a, m, k, lda, P.tile_k);
  // op(B): K-major when op_b = N, boxes of 16 k × tile_n; MN-major when op_b = T, 16 n × tile_k.
  const CUtensorMap map_b = trans_b ? gemm_dmma_tensor_map(fn, b, n, k, ldb, P.tile_k)
                                    : gemm_dmma_tensor_map(fn, b, k, n, ldb, P.tile_n);
  const bool vec_c = reinterpret_cast<std::uintptr_t>(c) % 16 == 0 && ldc % 2 == 0;
  const gemm_dmma_args g{c, m, n, k, ldc, alpha, beta, vec_c};
  if (!trans_a && !trans_b) gemm_dmma_launch_pair<P, false, true>(fn, map_a, map_b, g, stream);
  if (!trans_a && trans_b) gemm_dmma_launch_pair<P, false, false>(fn, map_a, map_b, g, stream);
  if (trans_a && !trans_b) gemm_dmma_launch_pair<P, true, true>(fn, map_a, map_b, g, stream);
  if (trans_a && trans_b) gemm_dmma_launch_pair<P, true, false>(fn, map_a, map_b, g, stream);
}

}  // namespace cuprim::detail
