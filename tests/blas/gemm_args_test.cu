// Argument rules of cuprim::blas::gemm and gemm_row_major. Every rule is enforced before any CUDA call, so these
// run (label host) without a GPU: the pointers are made-up addresses, compared and never dereferenced. That nothing
// is written when a rule is broken is checked on a GPU (blas_gemm_test, BadArgumentsWriteNothing).
#include <cuprim/blas/gemm.cuh>

#include <gtest/gtest.h>

#include "common/expect_invalid.hpp"

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

}  // namespace
