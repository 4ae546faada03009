// lab/ladder/gemm.cuh: the GEMM ladder as selectable, correct variants (teaching code: built, tested and measured
// by the lab, not part of the installed library).
//
//   cuprim::ladder::gemm(variant, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream)
//
// C = alpha · A · B + beta · C, column-major, no transposes (BLAS's GEMM 'N', 'N'), computed by the ladder's rung
// `variant`. The rungs follow seed 001 ("Dense Linear Algebra on GPUs") from the host loop to today's CUDA-core
// SGEMM, then past the seed to the tensor cores; each computes the same function as cuprim::blas::gemm (any m, n, k
// and leading dimension) and exists to be measured (cuprim-lab run gemm/ladder) and read. Production code calls
// cuprim::blas::gemm.
//
// FP32 rungs (float A, B and C; true FP32 fused multiply-adds on CUDA cores):
//   1-naive      one thread per element of C, the body of the seed's MatrixMulOnHost loop as a kernel: every
//                operand from global memory (2 loads per fused multiply-add)
//   2-tiled16    the seed's MatrixMulKernel, TILE_WIDTH 16: a 16 × 16 tile of A and of B in shared memory per step
//                of k, one element of C per thread (2 shared-memory loads per FMA; global traffic / 16)
//   2-tiled32    the same with TILE_WIDTH 32 (1024 threads per block; global traffic / 32)
//   3-volkov     the seed's register-blocked SGEMM (Volkov & Demmel, SC08, as CUDA-CHiLL generates it): 64 threads,
//                16 elements of C per thread in registers (P1[16]), B's tile in a padded shared array (P2[16][17]),
//                A streamed from global memory: 1 shared-memory load (a broadcast) per FMA
//   4-cuprim     cuprim::blas::gemm's float kernel: 2-D register blocking (8 × 8 per thread, 128 × 128 per block),
//                both operands through double-buffered shared memory, 16-byte loads and stores where aligned
//                (blas/detail/gemm_kernel.cuh). Not a copy: the rung calls the product.
//
// BF16 rungs (__nv_bfloat16 A and B, float C; bf16 products summed in fp32 on tensor cores):
//   5-mma        the pre-Hopper tensor-core GEMM (gemm_mma_kernels.cuh): warp-level mma.sync m16n8k16, a 128 × 128
//                tile per block of 8 warps with 64 × 32 warp tiles, operands through three cp.async stages in an
//                XOR-swizzled shared layout read by ldmatrix (.trans for A); sm_80 and later
//   6-wgmma      cuprim::blas::gemm's bf16 path: on sm_90 the Hopper kernel (TMA into a shared-memory ring, wgmma
//                by two consumer warpgroups, a producer warp, a persistent grid; blas/detail/gemm_sm90_kernel.cuh),
//                elsewhere or for operands it does not take (16-byte alignment, lda and ldb multiples of 8) the
//                library's CUDA-core fallback. Not a copy: the rung calls the product.
// Each rung takes one input type: the float overload of gemm() runs rungs 1-4, the __nv_bfloat16 one rungs 5-6
// (gemm_math(v) says which); the lab measures FP32 rungs against the FP32 CUDA-core peak and cublasSgemm, BF16 rungs
// against the dense BF16 tensor-core peak and cublasGemmEx (bf16 inputs, float C, CUBLAS_COMPUTE_32F).
//
// Errors as for cuprim::blas::gemm: cuprim::invalid_argument naming the argument (sizes, leading dimensions, null or
// overlapping arrays, an unknown variant or one of the other input type, rung 5 on a device below compute
// capability 8.0, a grid too large for one launch) before anything runs; cuprim::cuda_error for a failed launch or
// an error already pending. Rungs 4 and 6 report errors as cuprim::blas::gemm (they are that call).
#pragma once

#include "common.cuh"
#include "gemm_kernels.cuh"
#include "gemm_mma_kernels.cuh"

#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/device.hpp>

#include <cuda_bf16.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

namespace cuprim::ladder {

enum class gemm_variant { naive, tiled16, tiled32, volkov, cuprim, mma, wgmma };

/// Every rung, in the ladder's order.
inline constexpr std::array<gemm_variant, 7> gemm_variants = {
    gemm_variant::naive, gemm_variant::tiled16, gemm_variant::tiled32, gemm_variant::volkov,
    gemm_variant::cuprim, gemm_variant::mma,     gemm_variant::wgmma};

/// The rung's name as the lab prints it: its number, then what it is.
constexpr std::string_view to_string(gemm_variant v) {
  constexpr std::array<std::string_view, 7> names = {"1-naive",  "2-tiled16", "2-tiled32", "3-volkov",
                                                     "4-cuprim", "5-mma",     "6-wgmma"};
  return names[static_cast<int>(v)];
}

/// The math a rung runs: FP32 on CUDA cores (float inputs) or BF16 on tensor cores (__nv_bfloat16 inputs, fp32
/// sums). It picks the overload of gemm(), the peak the lab measures the rung against and its cuBLAS baseline.
enum class gemm_math { fp32, bf16 };
constexpr gemm_math math_of(gemm_variant v) {
  return v == gemm_variant::mma || v == gemm_variant::wgmma ? gemm_math::bf16 : gemm_math::fp32;
}

/// Rungs 1-3 and 5 have one launch shape each (rung_policy: threads per block, elements of C per thread); rung 4
/// runs the production kernel under gemm_policy_for<float>, rung 6 under gemm_sm90_policy_for.
constexpr bool takes_gemm_policy(gemm_variant v) { return v == gemm_variant::cuprim || v == gemm_variant::wgmma; }

constexpr rung_policy gemm_rung_policy(gemm_variant v) {
  switch (v) {
    case gemm_variant::naive: return {.threads = detail::naive_block_x * detail::naive_block_y, .items = 1};
    case gemm_variant::tiled16: return {.threads = 16 * 16, .items = 1};
    case gemm_variant::tiled32: return {.threads = 32 * 32, .items = 1};
    case gemm_variant::volkov: return {.threads = detail::volkov_tx * detail::volkov_ty, .items = detail::volkov_cols};
    case gemm_variant::mma:
      return {.threads = detail::mma_threads, .items = detail::mma_bm * detail::mma_bn / detail::mma_threads};
    default: return {};
  }
}

namespace detail {

/// The grid of a rung whose block covers rows × cols of C; throws when it does not fit one launch.
inline dim3 ladder_grid(const char* fn, std::int64_t m, std::int64_t n, int rows, int cols) {
  const std::uint64_t gx = (std::uint64_t(m) + rows - 1) / rows, gy = (std::uint64_t(n) + cols - 1) / cols;
  if (gx > 0x7fffffffu) throw_invalid(fn, "m", "too large for one launch of this rung");
  if (gy > 65535) throw_invalid(fn, "n", "too large for one launch of this rung (at most 65535 blocks of columns)");
  return dim3(unsigned(gx), unsigned(gy), 1u);
}

}  // namespace detail

/// C = alpha · A · B + beta · C (float, column-major, op N for both) by the ladder's FP32 rung `variant` (1-4).
inline void gemm(gemm_variant variant, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* A,
                 std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc,
                 cudaStream_t stream = 0) {
  using namespace cuprim::detail;
  namespace L = cuprim::ladder::detail;
  CUPRIM_ENTRY_NAME(fn);
  if (static_cast<unsigned>(variant) >= gemm_variants.size()) throw_invalid(fn, "variant", "is not a gemm_variant");
  if (math_of(variant) != gemm_math::fp32)
    throw_invalid(fn, "variant", "is a BF16 rung (5-mma, 6-wgmma): it takes __nv_bfloat16 A and B");
  if (variant == gemm_variant::cuprim) {
    blas::gemm(blas::op::N, blas::op::N, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    return;
  }
  gemm_validate(fn, gemm_column_major, blas::op::N, blas::op::N, m, n, k, A, lda, B, ldb, C, ldc);
  dim3 grid;
  switch (variant) {
    case gemm_variant::naive: grid = L::ladder_grid(fn, m, n, L::naive_block_x, L::naive_block_y); break;
    case gemm_variant::tiled16: grid = L::ladder_grid(fn, m, n, 16, 16); break;
    case gemm_variant::tiled32: grid = L::ladder_grid(fn, m, n, 32, 32); break;
    default: grid = L::ladder_grid(fn, m, n, L::volkov_rows, L::volkov_cols); break;
  }
  check_no_pending_error(fn);
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == 0.f) return gemm_scale(fn, C, m, n, ldc, beta, stream);  // C = beta · C (BLAS)
  const L::gemm_nn_args args{A, B, C, m, n, k, lda, ldb, ldc, alpha, beta};
  switch (variant) {
    case gemm_variant::naive:
      L::gemm_naive<<<grid, dim3(L::naive_block_x, L::naive_block_y), 0, stream>>>(args);
      break;
    case gemm_variant::tiled16: L::gemm_tiled<16><<<grid, dim3(16, 16), 0, stream>>>(args); break;
    case gemm_variant::tiled32: L::gemm_tiled<32><<<grid, dim3(32, 32), 0, stream>>>(args); break;
    default: L::gemm_volkov<<<grid, dim3(L::volkov_tx, L::volkov_ty), 0, stream>>>(args); break;
  }
  check_launch(fn);
}

/// C = alpha · A · B + beta · C (A and B __nv_bfloat16, C float, column-major, op N for both) by the ladder's BF16
/// rung `variant` (5-mma or 6-wgmma).
inline void gemm(gemm_variant variant, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                 const __nv_bfloat16* A, std::int64_t lda, const __nv_bfloat16* B, std::int64_t ldb, float beta,
                 float* C, std::int64_t ldc, cudaStream_t stream = 0) {
  using namespace cuprim::detail;
  namespace L = cuprim::ladder::detail;
  CUPRIM_ENTRY_NAME(fn);
  if (static_cast<unsigned>(variant) >= gemm_variants.size()) throw_invalid(fn, "variant", "is not a gemm_variant");
  if (math_of(variant) != gemm_math::bf16)
    throw_invalid(fn, "variant", "is an FP32 rung (1-4): it takes float A and B");
  if (variant == gemm_variant::wgmma) {
    blas::gemm(blas::op::N, blas::op::N, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
    return;
  }
  gemm_validate(fn, gemm_column_major, blas::op::N, blas::op::N, m, n, k, A, lda, B, ldb, C, ldc);
  const dim3 grid = L::ladder_grid(fn, m, n, L::mma_bm, L::mma_bn);
  if (get_device_info().cc_major < 8)
    throw_invalid(fn, "variant", "5-mma needs compute capability 8.0 or later (bf16 mma.sync, cp.async)");
  check_no_pending_error(fn);
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == 0.f) return gemm_scale(fn, C, m, n, ldc, beta, stream);  // C = beta · C (BLAS)
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool vec = aligned(A) && aligned(B) && lda % 8 == 0 && ldb % 8 == 0;
  const L::gemm_mma_args args{A, B, C, m, n, k, lda, ldb, ldc, alpha, beta, vec};
  L::gemm_mma<<<grid, L::mma_threads, 0, stream>>>(args);
  check_launch(fn);
}

}  // namespace cuprim::ladder
