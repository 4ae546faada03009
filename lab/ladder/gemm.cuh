// lab/ladder/gemm.cuh: the GEMM ladder as selectable, correct variants (teaching code: built, tested and measured
// by the lab, not part of the installed library).
//
//   cuprim::ladder::gemm(variant, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream)
//
// C = alpha · A · B + beta · C in float, column-major, no transposes (BLAS's SGEMM 'N', 'N'), computed by the
// ladder's rung `variant`. The rungs follow seed 001 ("Dense Linear Algebra on GPUs") from the host loop to today's
// CUDA-core SGEMM; each computes the same function as cuprim::blas::gemm (any m, n, k and leading dimension) and
// exists to be measured (cuprim-lab run gemm/ladder) and read. Production code calls cuprim::blas::gemm.
//
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
// The tensor-core rungs come next, and will be the production tensor-core kernels in the same way rung 4 is:
//   5-mma-sync   (slot) warp-level mma.sync (TF32 / BF16 inputs, FP32 accumulation), ldmatrix from shared memory,
//                cp.async multi-stage pipeline: the Ampere-style kernel. Not built yet.
//   6-wgmma      (slot) sm_90: TMA loads into a shared-memory ring, wgmma by consumer warpgroups, a producer
//                warpgroup, the epilogue through shared memory: the Hopper kernel. Not built yet.
// To add one: a gemm_variant value after `cuprim` with its name ("5-mma-sync", "6-wgmma"), a case in gemm() below
// calling the production entry point with its math mode, and the peak of that math in the lab's ladder table
// (lab/blas.cu, ladder_summary): the % of peak column is per math (FP32 CUDA cores for rungs 1-4).
//
// Errors as for cuprim::blas::gemm: cuprim::invalid_argument naming the argument (sizes, leading dimensions, null or
// overlapping arrays, an unknown variant, a grid too large for one launch) before anything runs; cuprim::cuda_error
// for a failed launch or an error already pending.
#pragma once

#include "common.cuh"
#include "gemm_kernels.cuh"

#include <cuprim/blas/gemm.cuh>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

namespace cuprim::ladder {

enum class gemm_variant { naive, tiled16, tiled32, volkov, cuprim };
// Slots: tensor-core rungs 5 (mma.sync) and 6 (wgmma + TMA) go here, after `cuprim` (see the file comment).

/// Every rung, in the ladder's order.
inline constexpr std::array<gemm_variant, 5> gemm_variants = {gemm_variant::naive, gemm_variant::tiled16,
                                                              gemm_variant::tiled32, gemm_variant::volkov,
                                                              gemm_variant::cuprim};

/// The rung's name as the lab prints it: its number, then what it is.
constexpr std::string_view to_string(gemm_variant v) {
  constexpr std::array<std::string_view, 5> names = {"1-naive", "2-tiled16", "2-tiled32", "3-volkov", "4-cuprim"};
  return names[static_cast<int>(v)];
}

/// Rungs 1-3 have one launch shape each (rung_policy: threads per block, elements of C per thread); rung 4 runs the
/// production kernel under gemm_policy_for<float>.
constexpr bool takes_gemm_policy(gemm_variant v) { return v == gemm_variant::cuprim; }

constexpr rung_policy gemm_rung_policy(gemm_variant v) {
  switch (v) {
    case gemm_variant::naive: return {.threads = detail::naive_block_x * detail::naive_block_y, .items = 1};
    case gemm_variant::tiled16: return {.threads = 16 * 16, .items = 1};
    case gemm_variant::tiled32: return {.threads = 32 * 32, .items = 1};
    case gemm_variant::volkov: return {.threads = detail::volkov_tx * detail::volkov_ty, .items = detail::volkov_cols};
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

/// C = alpha · A · B + beta · C (float, column-major, op N for both) by the ladder's rung `variant`.
inline void gemm(gemm_variant variant, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* A,
                 std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc,
                 cudaStream_t stream = 0) {
  using namespace cuprim::detail;
  namespace L = cuprim::ladder::detail;
  CUPRIM_ENTRY_NAME(fn);
  if (static_cast<unsigned>(variant) >= gemm_variants.size()) throw_invalid(fn, "variant", "is not a gemm_variant");
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
  if (k == 0 || alpha == 0.f) {  // C = beta · C, A and B unread (BLAS)
    constexpr unsigned threads = 256;
    const dim3 g(unsigned((std::uint64_t(m) + threads - 1) / threads), unsigned(std::min<std::int64_t>(n, 65535)));
    gemm_scale_kernel<<<g, threads, 0, stream>>>(C, m, n, ldc, beta);
    check_launch(fn);
    return;
  }
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

}  // namespace cuprim::ladder
