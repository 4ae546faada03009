// Argument rules of cuprim::blas::gemm, gemm_row_major and the batched forms (gemm_strided_batched, gemm_batched and
// their row-major variants). Every rule is enforced before any CUDA call, so these
// run (label host) without a GPU: the pointers are made-up addresses, compared and never dereferenced. That nothing
// is written when a rule is broken is checked on a GPU (blas_gemm_test, BadArgumentsWriteNothing).
#include <cuprim/blas/gemm.cuh>

#include <gtest/gtest.h>

#include "common/expect_invalid.hpp"

#include <cuda_bf16.h>

#include <cstdint>

namespace {

using cuprim::blas::op;
using cuprim_test::expect_invalid;
using cuprim_test::fake;

// Three arrays far apart: A at 1 GiB, B at 2 GiB, C at 3 GiB.
const float* A = fake<const float>(1);
const float* B = fake<const float>(2);
float* C = fake<float>(3);

TEST(BlasGemmArgs, NegativeSizes) {
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, -1, 4, 4, 1.f, A, 4, B, 4, 0.f, C, 4); }, "m", "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 4, -1, 4, 1.f, A, 4, B, 4, 0.f, C, 4); }, "n", "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 4, 4, -1, 1.f, A, 4, B, 4, 0.f, C, 4); }, "k", "cuprim::blas::gemm");
}

TEST(BlasGemmArgs, LeadingDimensionsBelowTheStoredRows) {
  // op N: A is m x k (lda >= m); op T: A is stored k x m (lda >= k). Likewise B (k x n or n x k), C (ldc >= m).
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 8, 4, 6, 1.f, A, 7, B, 6, 0.f, C, 8); }, "lda", "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::T, op::N, 8, 4, 6, 1.f, A, 5, B, 6, 0.f, C, 8); }, "lda", "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 8, 4, 6, 1.f, A, 8, B, 5, 0.f, C, 8); }, "ldb", "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::N, op::T, 8, 4, 6, 1.f, A, 8, B, 3, 0.f, C, 8); }, "ldb", "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 8, 4, 6, 1.f, A, 8, B, 6, 0.f, C, 7); }, "ldc", "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 0, 4, 6, 1.f, A, 1, B, 6, 0.f, C, 0); }, "ldc", "cuprim::blas::gemm");
}

TEST(BlasGemmArgs, NullOperandsOnlyWhenEmpty) {
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 4, 4, 4, 1.f, static_cast<const float*>(nullptr), 4, B, 4, 0.f, C, 4); }, "A", "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 4, 4, 4, 1.f, A, 4, static_cast<const float*>(nullptr), 4, 0.f, C, 4); }, "B", "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 4, 4, 0, 1.f, A, 4, B, 1, 0.f, static_cast<float*>(nullptr), 4); }, "C", "cuprim::blas::gemm");
}

TEST(BlasGemmArgs, OutputOverlappingAnInput) {
  // The rule names C ("must not overlap A" or "B"); A and B may overlap each other.
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 4, 4, 4, 1.f, C + 3, 4, B, 4, 0.f, C, 4); }, "C", "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 4, 4, 4, 1.f, A, 4, C + 15, 4, 0.f, C, 4); }, "C", "cuprim::blas::gemm");
}

TEST(BlasGemmArgs, RowMajorNamesTheCallersArguments) {
  // Row-major: A is m x k with lda >= k, B is k x n with ldb >= n, C is m x n with ldc >= n.
  expect_invalid([] { cuprim::blas::gemm_row_major(op::N, op::N, 8, 4, 6, 1.f, A, 5, B, 4, 0.f, C, 4); }, "lda",
                 "cuprim::blas::gemm_row_major");
  expect_invalid([] { cuprim::blas::gemm_row_major(op::N, op::N, 8, 4, 6, 1.f, A, 6, B, 3, 0.f, C, 4); }, "ldb",
                 "cuprim::blas::gemm_row_major");
  expect_invalid([] { cuprim::blas::gemm_row_major(op::N, op::N, -8, 4, 6, 1.f, A, 6, B, 4, 0.f, C, 4); }, "m",
                 "cuprim::blas::gemm_row_major");
}

// ---------------------------------------------------------------------------------------------------------------
// Batched forms

using cuprim::blas::gemm_batched;
using cuprim::blas::gemm_batched_row_major;
using cuprim::blas::gemm_strided_batched;
using cuprim::blas::gemm_strided_batched_row_major;
constexpr const char* strided_fn = "cuprim::blas::gemm_strided_batched";
constexpr const char* array_fn = "cuprim::blas::gemm_batched";

// Pointer arrays (device memory in real use; never dereferenced here).
const float* const* AA = fake<const float* const>(5);
const float* const* BA = fake<const float* const>(6);
float* const* CA = fake<float* const>(7);

TEST(BlasGemmBatchedArgs, BatchMustBeNonNegative) {
  expect_invalid([] { gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, A, 4, 16, B, 4, 16, 0.f, C, 4, 16, -1); },
                 "batch", strided_fn);
  expect_invalid([] { gemm_batched(op::N, op::N, 4, 4, 4, 1.f, AA, 4, BA, 4, 0.f, CA, 4, -1); }, "batch", array_fn);
}

TEST(BlasGemmBatchedArgs, BatchZeroDoesNothing) {
  // No batches: null arrays are fine, and nothing runs (no device needed).
  EXPECT_NO_THROW(gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, static_cast<const float*>(nullptr), 4, 16,
                                       static_cast<const float*>(nullptr), 4, 16, 0.f, static_cast<float*>(nullptr), 4,
                                       16, 0));
  EXPECT_NO_THROW(gemm_batched(op::T, op::N, 4, 4, 4, 1.f, static_cast<const float* const*>(nullptr), 4,
                               static_cast<const float* const*>(nullptr), 4, 0.f, static_cast<float* const*>(nullptr),
                               4, 0));
  // The shape rules still hold.
  expect_invalid([] { gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, A, 3, 16, B, 4, 16, 0.f, C, 4, 16, 0); }, "lda",
                 strided_fn);
  expect_invalid([] { gemm_batched(op::N, op::N, 4, 4, -4, 1.f, AA, 4, BA, 4, 0.f, CA, 4, 0); }, "k", array_fn);
}

TEST(BlasGemmBatchedArgs, ShapeRulesAsGemm) {
  expect_invalid([] { gemm_strided_batched(op::N, op::N, -1, 4, 4, 1.f, A, 4, 16, B, 4, 16, 0.f, C, 4, 16, 2); }, "m",
                 strided_fn);
  expect_invalid([] { gemm_strided_batched(op::N, op::T, 8, 4, 6, 1.f, A, 8, 48, B, 3, 24, 0.f, C, 8, 32, 2); }, "ldb",
                 strided_fn);
  expect_invalid([] { gemm_batched(op::T, op::N, 8, 4, 6, 1.f, AA, 5, BA, 6, 0.f, CA, 8, 2); }, "lda", array_fn);
  expect_invalid([] { gemm_batched(op::N, op::N, 8, 4, 6, 1.f, AA, 8, BA, 6, 0.f, CA, 7, 2); }, "ldc", array_fn);
}

TEST(BlasGemmBatchedArgs, StridesMustBeNonNegative) {
  expect_invalid([] { gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, A, 4, -16, B, 4, 16, 0.f, C, 4, 16, 2); },
                 "stride_a", strided_fn);
  expect_invalid([] { gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, A, 4, 16, B, 4, -1, 0.f, C, 4, 16, 2); },
                 "stride_b", strided_fn);
  expect_invalid([] { gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, A, 4, 16, B, 4, 16, 0.f, C, 4, -16, 2); },
                 "stride_c", strided_fn);
}

TEST(BlasGemmBatchedArgs, BatchesOfCMustNotOverlap) {
  // One C spans (n - 1)·ldc + m = 3·6 + 4 = 22 elements.
  expect_invalid([] { gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, A, 4, 16, B, 4, 16, 0.f, C, 6, 21, 2); },
                 "stride_c", strided_fn);
  expect_invalid([] { gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, A, 4, 16, B, 4, 16, 0.f, C, 6, 0, 3); },
                 "stride_c", strided_fn);
  // With one batch stride_c is free: this call passes the stride rule and is stopped by the next one (C overlapping
  // A), which is checked after it.
  expect_invalid([] { gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, C + 3, 4, 16, B, 4, 16, 0.f, C, 6, 0, 1); }, "C",
                 strided_fn);
}

TEST(BlasGemmBatchedArgs, CMustNotOverlapTheStridedOperands) {
  // A's 3 batches span [A, A + 2·100 + 16): C in the gap between A's batches 1 and 2 is refused too (the rule is on
  // whole extents).
  expect_invalid([] {
    float* c = const_cast<float*>(A) + 150;
    gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, A, 4, 100, B, 4, 16, 0.f, c, 4, 16, 3);
  }, "C", strided_fn);
  // C's later batches reaching into B.
  expect_invalid([] {
    float* c = const_cast<float*>(B) - 40;
    gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, A, 4, 16, B, 4, 16, 0.f, c, 4, 16, 4);
  }, "C", strided_fn);
}

TEST(BlasGemmBatchedArgs, StridedExtentBeyondTheAddressSpace) {
  const std::int64_t huge = std::int64_t(1) << 61;
  expect_invalid([huge] { gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, A, 4, huge, B, 4, 16, 0.f, C, 4, 16, 9); },
                 "stride_a", strided_fn);
  expect_invalid([huge] { gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, A, 4, 16, B, 4, 16, 0.f, C, 4, huge, 9); },
                 "stride_c", strided_fn);
}

TEST(BlasGemmBatchedArgs, NullArraysOnlyWhenUnused) {
  expect_invalid([] {
    gemm_strided_batched(op::N, op::N, 4, 4, 4, 1.f, static_cast<const float*>(nullptr), 4, 16, B, 4, 16, 0.f, C, 4, 16,
                         2);
  }, "A", strided_fn);
  expect_invalid([] {
    gemm_strided_batched(op::N, op::N, 4, 4, 0, 1.f, A, 4, 16, B, 1, 16, 0.f, static_cast<float*>(nullptr), 4, 16, 2);
  }, "C", strided_fn);
  expect_invalid([] {
    gemm_batched(op::N, op::N, 4, 4, 4, 1.f, AA, 4, static_cast<const float* const*>(nullptr), 4, 0.f, CA, 4, 2);
  }, "B", array_fn);
  expect_invalid([] {
    gemm_batched(op::N, op::N, 4, 4, 0, 1.f, AA, 4, BA, 4, 0.f, static_cast<float* const*>(nullptr), 4, 2);
  }, "C", array_fn);
}

TEST(BlasGemmBatchedArgs, RowMajorNamesTheCallersArguments) {
  // Row-major: A is m x k (lda >= k), B is k x n (ldb >= n); the strides keep their own names.
  expect_invalid([] {
    gemm_strided_batched_row_major(op::N, op::N, 8, 4, 6, 1.f, A, 5, 48, B, 4, 24, 0.f, C, 4, 32, 2);
  }, "lda", "cuprim::blas::gemm_strided_batched_row_major");
  expect_invalid([] {
    gemm_strided_batched_row_major(op::N, op::N, 8, 4, 6, 1.f, A, 6, -1, B, 4, 24, 0.f, C, 4, 32, 2);
  }, "stride_a", "cuprim::blas::gemm_strided_batched_row_major");
  expect_invalid([] {
    gemm_strided_batched_row_major(op::N, op::N, 8, 4, 6, 1.f, A, 6, 48, B, 4, -2, 0.f, C, 4, 32, 2);
  }, "stride_b", "cuprim::blas::gemm_strided_batched_row_major");
  expect_invalid([] {
    gemm_batched_row_major(op::N, op::N, 8, 4, 6, 1.f, static_cast<const float* const*>(nullptr), 6, BA, 4, 0.f, CA, 4, 2);
  }, "A", "cuprim::blas::gemm_batched_row_major");
  expect_invalid([] { gemm_batched_row_major(op::N, op::N, 8, 4, 6, 1.f, AA, 6, BA, 3, 0.f, CA, 4, 2); }, "ldb",
                 "cuprim::blas::gemm_batched_row_major");
}

// 16-bit inputs (the tensor-core overload): the same rules, checked before any CUDA call; C's span counts in C's own
// element size (float C over bf16 inputs).
TEST(BlasGemmTensorArgs, SameRulesAsGemm) {
  static const __nv_bfloat16* HA = fake<const __nv_bfloat16>(1);
  static const __nv_bfloat16* HB = fake<const __nv_bfloat16>(2);
  static __nv_bfloat16* HC = fake<__nv_bfloat16>(3);
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, -1, 4, 4, 1.f, HA, 4, HB, 4, 0.f, HC, 4); }, "m",
                 "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 8, 4, 6, 1.f, HA, 7, HB, 6, 0.f, C, 8); }, "lda",
                 "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::N, op::T, 8, 4, 6, 1.f, HA, 8, HB, 3, 0.f, HC, 8); }, "ldb",
                 "cuprim::blas::gemm");
  expect_invalid([] { cuprim::blas::gemm(op::N, op::N, 8, 4, 6, 1.f, HA, 8, HB, 6, 0.f, HC, 7); }, "ldc",
                 "cuprim::blas::gemm");
  expect_invalid([] {
    cuprim::blas::gemm(op::N, op::N, 8, 4, 6, 1.f, static_cast<const __nv_bfloat16*>(nullptr), 8, HB, 6, 0.f, HC, 8);
  }, "A", "cuprim::blas::gemm");
  // C (float, 8 x 4: 128 bytes) starting 64 bytes into A (bf16, 8 x 6: 96 bytes) overlaps it.
  expect_invalid([] {
    cuprim::blas::gemm(op::N, op::N, 8, 4, 6, 1.f, HA, 8, HB, 6, 0.f,
                       reinterpret_cast<float*>(const_cast<__nv_bfloat16*>(HA) + 32), 8);
  }, "C", "cuprim::blas::gemm");
  // The row-major form names the caller's arguments: its A is the column-major view's B.
  expect_invalid([] {
    cuprim::blas::gemm_row_major(op::N, op::N, 8, 4, 6, 1.f, HA, 5, HB, 4, 0.f, HC, 4);
  }, "lda", "cuprim::blas::gemm_row_major");
}

// The 16-bit gemm's workspace overload: the same rules, then the caller's workspace against gemm_workspace_bytes
// (an explicit policy that splits k sizes it without a device), all before any CUDA call.
constexpr cuprim::blas::gemm_sm90_policy split4{.stages = 6, .group = 8, .cluster = 1, .staged_store = true,
                                                .tile_m = 64, .consumers = 2, .splits = 4};
constexpr cuprim::blas::gemm_sm90_policy no_split{.stages = 6, .group = 8, .cluster = 1, .staged_store = true,
                                                  .tile_m = 64, .consumers = 2};

TEST(BlasGemmTensorArgs, WorkspaceBytesOfAnExplicitPolicy) {
  using bf = __nv_bfloat16;
  // 4 slices of m x n fp32 sums, each on a 256-byte boundary (m·n rounded up to 64 elements).
  EXPECT_EQ((cuprim::blas::gemm_workspace_bytes<bf, float, split4>(op::N, op::N, 16, 4096, 16384)),
            std::size_t(4) * 16 * 4096 * 4);
  EXPECT_EQ((cuprim::blas::gemm_workspace_bytes<bf, bf, split4>(op::T, op::N, 7, 9, 4096)), std::size_t(4) * 64 * 4);
  // k of 3 steps of 64: 3 slices; of one step: none, so no workspace.
  EXPECT_EQ((cuprim::blas::gemm_workspace_bytes<bf, float, split4>(op::N, op::T, 64, 64, 129)),
            std::size_t(3) * 64 * 64 * 4);
  EXPECT_EQ((cuprim::blas::gemm_workspace_bytes<bf, float, split4>(op::N, op::N, 64, 64, 64)), 0u);
  EXPECT_EQ((cuprim::blas::gemm_workspace_bytes<bf, float, no_split>(op::N, op::N, 16, 4096, 16384)), 0u);
  EXPECT_EQ((cuprim::blas::gemm_workspace_bytes<bf, float, split4>(op::N, op::N, 0, 4096, 16384)), 0u);
  // The row-major form sizes its own arguments (the transposed product: the same m·n).
  EXPECT_EQ((cuprim::blas::gemm_row_major_workspace_bytes<bf, float, split4>(op::N, op::N, 4096, 16, 16384)),
            std::size_t(4) * 16 * 4096 * 4);
  // Monotonic in each size.
  std::size_t last = 0;
  for (std::int64_t k = 1; k <= 4096; k += 61) {
    const std::size_t b = cuprim::blas::gemm_workspace_bytes<bf, float, split4>(op::N, op::N, 100, 100, k);
    EXPECT_GE(b, last) << k;
    last = b;
  }
}

TEST(BlasGemmTensorArgs, WorkspaceOverloadRules) {
  static const __nv_bfloat16* HA = fake<const __nv_bfloat16>(1);
  static const __nv_bfloat16* HB = fake<const __nv_bfloat16>(2);
  static float* FC = fake<float>(3);
  static void* WS = fake<void>(4);
  constexpr std::size_t need = std::size_t(4) * 16 * 4096 * 4;
  // Too small by one byte; null data; the shape rules first.
  expect_invalid([] {
    cuprim::blas::gemm<split4>(op::N, op::N, 16, 4096, 16384, 1.f, HA, 16, HB, 16384, 0.f, FC, 16,
                               cuprim::workspace{WS, need - 1});
  }, "workspace", "cuprim::blas::gemm");
  expect_invalid([] {
    cuprim::blas::gemm<split4>(op::N, op::N, 16, 4096, 16384, 1.f, HA, 16, HB, 16384, 0.f, FC, 16,
                               cuprim::workspace{nullptr, need});
  }, "workspace", "cuprim::blas::gemm");
  expect_invalid([] {
    cuprim::blas::gemm<split4>(op::N, op::N, 16, 4096, 16384, 1.f, HA, 15, HB, 16384, 0.f, FC, 16,
                               cuprim::workspace{});
  }, "lda", "cuprim::blas::gemm");
  expect_invalid([] {
    cuprim::blas::gemm_row_major<split4>(op::N, op::N, 4096, 16, 16384, 1.f, HA, 16384, HB, 16, 0.f, FC, 16,
                                         cuprim::workspace{WS, 1024});
  }, "workspace", "cuprim::blas::gemm_row_major");
}

// The chooser (gemm_tuning.cuh) on the shapes of the sweep, on 132 SMs (H100 SXM) and 114 (H100 PCIe).
TEST(BlasGemmTensorPlan, LargeProductsTakeTheLargeTileUnsplit) {
  for (int sms : {132, 114})
    for (std::int64_t s : {4096, 8191, 8192, 16384}) {
      const auto p = cuprim::blas::gemm_sm90_plan_for(90, s, s, s, false, false, sms);
      EXPECT_EQ(p.row, 0) << s << " on " << sms;
      EXPECT_EQ(p.splits, 1) << s << " on " << sms;
    }
}

// 1024^3 on an H100 (forced sweep): 64 x 128 unsplit 0.85x cuBLAS, 128 x 128 in 2 slices of 8 steps 0.48x.
TEST(BlasGemmTensorPlan, MidSizeSquaresTakeSmallerTilesUnsplit) {
  const auto p = cuprim::blas::gemm_sm90_plan_for(90, 1024, 1024, 1024, false, false, 132);
  EXPECT_EQ(p.row, 2);
  EXPECT_EQ(p.splits, 1);
}

TEST(BlasGemmTensorPlan, SkinnyProductsFillTheDevice) {
  for (int sms : {132, 114})
    for (std::int64_t m : {16, 64, 128, 256})
      for (std::int64_t n : {4096, 8192, 16384})
        for (std::int64_t k : {4096, 8192, 16384}) {
          const auto p = cuprim::blas::gemm_sm90_plan_for(90, m, n, k, false, false, sms);
          const auto row = cuprim::blas::gemm_sm90_tile_row_for(90, p.row).policy;
          // Tiles no taller than the product needs, and enough work units for most of the SMs.
          EXPECT_LE(row.tile_m, std::max<std::int64_t>(64, m)) << m << " " << n << " " << k;
          const std::int64_t units = cuprim::blas::gemm_sm90_tiles(m, n, row.tile_m, row.tile_n()) * p.splits;
          EXPECT_GE(units, sms / 2) << m << " " << n << " " << k << " on " << sms;
          EXPECT_GE(p.splits, 1);
          EXPECT_LE(p.splits, cuprim::blas::gemm_sm90_max_splits);
        }
}

TEST(BlasGemmTensorPlan, SplitsLeaveNoSliceEmpty) {
  constexpr cuprim::blas::gemm_sm90_policy chosen{.stages = 6, .tile_m = 64, .consumers = 2, .splits = 0};
  for (std::int64_t k = 1; k <= 64 * 200; k += 37)
    for (int forced : {0, 2, 3, 5, 7, 16}) {
      cuprim::blas::gemm_sm90_policy p = chosen;
      p.splits = forced;
      const int s = cuprim::blas::gemm_sm90_splits(p, 16, 512, k, 132);
      const std::int64_t steps = (k + 63) / 64, per = (steps + s - 1) / s;
      EXPECT_GE(s, 1);
      EXPECT_LE(s, std::max<std::int64_t>(1, steps));
      if (forced == 0) {  // chosen: normalised, the last slice has steps, each slice at least the minimum
        EXPECT_LT((s - 1) * per, steps) << "k " << k << " splits " << s;
        EXPECT_TRUE(s == 1 || per >= cuprim::blas::gemm_sm90_min_split_steps) << k;
      } else {  // forced: min(splits, steps), normalised by the launch
        EXPECT_EQ(s, std::min<std::int64_t>(forced, steps)) << k;
      }
    }
}

}  // namespace
