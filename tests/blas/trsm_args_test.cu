// Argument rules of cuprim::blas::trsm, trsm_strided_batched, trsm_batched and cuprim::blas::symm. Every rule is enforced before any CUDA call, so these
// run (label host) without a GPU: the pointers are made-up addresses, compared and never dereferenced. That nothing
// is written when a rule is broken is checked on a GPU (blas_trsm_test, blas_trsm_batched_test and blas_symm_test, BadArgumentsWriteNothing).
#include <cuprim/blas/symm.cuh>
#include <cuprim/blas/trsm.cuh>
#include <cuprim/blas/trsm_batched.cuh>

#include <gtest/gtest.h>

#include "common/expect_invalid.hpp"

namespace {

using cuprim::blas::diag;
using cuprim::blas::op;
using cuprim::blas::side;
using cuprim::blas::uplo;
using cuprim_test::expect_invalid;
using cuprim_test::fake;

constexpr const char* trsm_fn = "cuprim::blas::trsm";
constexpr const char* symm_fn = "cuprim::blas::symm";

const float* A = fake<const float>(1);
float* B = fake<float>(2);
const float* Bc = fake<const float>(2);
float* C = fake<float>(3);

TEST(BlasTrsmArgs, EnumsMustBeKnown) {
  expect_invalid([] { cuprim::blas::trsm<float>(side(9), uplo::lower, op::N, diag::unit, 4, 4, 1.f, A, 4, B, 4); },
                 "side", trsm_fn);
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo(9), op::N, diag::unit, 4, 4, 1.f, A, 4, B, 4); },
                 "uplo", trsm_fn);
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo::lower, op(9), diag::unit, 4, 4, 1.f, A, 4, B, 4); },
                 "trans", trsm_fn);
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag(9), 4, 4, 1.f, A, 4, B, 4); },
                 "diag", trsm_fn);
}

TEST(BlasTrsmArgs, SizesAndLeadingDimensions) {
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag::unit, -1, 4, 1.f, A, 4, B, 4); },
                 "m", trsm_fn);
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag::unit, 4, -1, 1.f, A, 4, B, 4); },
                 "n", trsm_fn);
  // lda: the order of A, m on the left and n on the right.
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag::unit, 8, 2, 1.f, A, 7, B, 8); },
                 "lda", trsm_fn);
  expect_invalid([] { cuprim::blas::trsm<float>(side::right, uplo::lower, op::N, diag::unit, 2, 8, 1.f, A, 7, B, 2); },
                 "lda", trsm_fn);
  expect_invalid([] { cuprim::blas::trsm<float>(side::right, uplo::lower, op::N, diag::unit, 8, 2, 1.f, A, 2, B, 7); },
                 "ldb", trsm_fn);
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag::unit, 0, 2, 1.f, A, 0, B, 1); },
                 "lda", trsm_fn);
}

TEST(BlasTrsmArgs, ColumnsPastTheUpdatesGrid) {
  // m > 64 on the left: every update is one gemm over all n columns, at most 65535 tiles of them: 128 columns a tile
  // for float, 64 for double (gemm's CUDA-core tiles size the grid check, also where the FP64 tensor cores run).
  constexpr std::int64_t wide = std::int64_t(65535) * 128 + 1, wide_double = std::int64_t(65535) * 64 + 1;
  expect_invalid([] { cuprim::blas::trsm<double>(side::left, uplo::lower, op::N, diag::non_unit, 129, wide_double,
                                                 1.0, fake<const double>(1), 129, fake<double>(2), 129); },
                 "n", trsm_fn);
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag::unit, 65, wide, 1.f, A, 65, B,
                                                65); },
                 "n", trsm_fn);
  expect_invalid([] { cuprim::blas::trsm<double>(side::left, uplo::upper, op::T, diag::non_unit, 128, wide, 1.0,
                                                 fake<const double>(1), 128, fake<double>(2), 128); },
                 "n", trsm_fn);
}

// The workspace holds the inverses of A's 64-row diagonal blocks, in 256-byte-aligned bytes: none for one block.
TEST(BlasTrsmArgs, WorkspaceBytes) {
  using cuprim::blas::trsm_workspace_bytes;
  EXPECT_EQ(trsm_workspace_bytes<float>(side::left, 64, 1000), 0u);
  EXPECT_EQ(trsm_workspace_bytes<float>(side::left, 65, 1000), std::size_t(2) * 64 * 64 * 4);
  EXPECT_EQ(trsm_workspace_bytes<double>(side::left, 4096, 1), std::size_t(64) * 64 * 64 * 8);
  EXPECT_EQ(trsm_workspace_bytes<float>(side::right, 7, 200), std::size_t(4) * 64 * 64 * 4);
  EXPECT_EQ(trsm_workspace_bytes<float>(side::right, 200, 7), 0u);
  EXPECT_EQ(trsm_workspace_bytes<float>(side::left, 200, 0), 0u);
  EXPECT_EQ(trsm_workspace_bytes<float>(side::left, -5, 3), 0u);
  std::size_t last = 0;  // monotonic in the order
  for (std::int64_t ka = 1; ka <= 2000; ka += 37) {
    const std::size_t b = trsm_workspace_bytes<float>(side::left, ka, 3);
    EXPECT_GE(b, last) << ka;
    last = b;
  }
}

TEST(BlasTrsmArgs, WorkspaceOverloadRules) {
  static void* WS = fake<void>(4);
  constexpr std::size_t need = std::size_t(4) * 64 * 64 * 4;  // order 200
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag::unit, 200, 8, 1.f, A, 200, B,
                                                200, cuprim::workspace{WS, need - 1}); },
                 "workspace", trsm_fn);
  expect_invalid([] { cuprim::blas::trsm<float>(side::right, uplo::upper, op::T, diag::unit, 8, 200, 1.f, A, 200, B,
                                                8, cuprim::workspace{nullptr, need}); },
                 "workspace", trsm_fn);
  // The shape rules come first.
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag::unit, 200, 8, 1.f, A, 199, B,
                                                200, cuprim::workspace{}); },
                 "lda", trsm_fn);
  // One diagonal block, or nothing to solve: no workspace needed.
  EXPECT_NO_THROW(cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag::unit, 0, 4, 1.f, nullptr, 1,
                                            nullptr, 1, cuprim::workspace{}));
}

TEST(BlasTrsmArgs, NullsAndOverlap) {
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag::unit, 4, 4, 1.f, nullptr, 4, B, 4); },
                 "A", trsm_fn);
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag::unit, 4, 4, 1.f, A, 4, nullptr, 4); },
                 "B", trsm_fn);
  // A spans 3·4 + 4 = 16 elements.
  expect_invalid([] { cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag::unit, 4, 4, 1.f, B - 15, 4, B, 4); },
                 "B", trsm_fn);
  // Nothing to solve: null everywhere is fine (nothing runs, no device needed).
  EXPECT_NO_THROW(cuprim::blas::trsm<float>(side::left, uplo::lower, op::N, diag::unit, 0, 4, 1.f, nullptr, 1, nullptr, 1));
  EXPECT_NO_THROW(cuprim::blas::trsm<float>(side::right, uplo::upper, op::T, diag::non_unit, 4, 0, 1.f, nullptr, 1,
                                            nullptr, 4));
}

constexpr const char* sb_fn = "cuprim::blas::trsm_strided_batched";
constexpr const char* ab_fn = "cuprim::blas::trsm_batched";
const float* const* Aa = fake<const float* const>(4);
float* const* Ba = fake<float* const>(5);

TEST(BlasTrsmBatchedArgs, StridedRules) {
  using cuprim::blas::trsm_strided_batched;
  const auto L = side::left;
  const auto lo = uplo::lower;
  expect_invalid([] { trsm_strided_batched<float>(side(9), lo, op::N, diag::unit, 4, 4, 1.f, A, 4, 16, B, 4, 16, 2); },
                 "side", sb_fn);
  expect_invalid([] { trsm_strided_batched<float>(L, lo, op(7), diag::unit, 4, 4, 1.f, A, 4, 16, B, 4, 16, 2); },
                 "trans", sb_fn);
  expect_invalid([] { trsm_strided_batched<float>(L, lo, op::N, diag::unit, -4, 4, 1.f, A, 4, 16, B, 4, 16, 2); },
                 "m", sb_fn);
  expect_invalid([] { trsm_strided_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, A, 3, 16, B, 4, 16, 2); },
                 "lda", sb_fn);
  // The right side's A is n × n.
  expect_invalid([] { trsm_strided_batched<float>(side::right, lo, op::N, diag::unit, 2, 4, 1.f, A, 2, 16, B, 2, 16,
                                                  2); },
                 "lda", sb_fn);
  expect_invalid([] { trsm_strided_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, A, 4, 16, B, 3, 16, 2); },
                 "ldb", sb_fn);
  expect_invalid([] { trsm_strided_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, A, 4, 16, B, 4, 16, -1); },
                 "batch", sb_fn);
  expect_invalid([] { trsm_strided_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, A, 4, -1, B, 4, 16, 2); },
                 "stride_a", sb_fn);
  expect_invalid([] { trsm_strided_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, A, 4, 16, B, 4, -16, 2); },
                 "stride_b", sb_fn);
  // One B spans 3·5 + 4 = 19 elements: stride_b 18 would overlap the next batch.
  expect_invalid([] { trsm_strided_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, A, 4, 16, B, 5, 18, 2); },
                 "stride_b", sb_fn);
  expect_invalid([] { trsm_strided_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, nullptr, 4, 16, B, 4, 16, 2); },
                 "A", sb_fn);
  expect_invalid([] { trsm_strided_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, A, 4, 16, nullptr, 4, 16, 2); },
                 "B", sb_fn);
  // A's extent over 3 batches is 2·16 + 16 = 48 elements: B at A + 40 overlaps it; A shared by every batch
  // (stride_a 0) spans 16.
  expect_invalid([] { trsm_strided_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, B - 40, 4, 16, B, 4, 16, 3); },
                 "B", sb_fn);
  expect_invalid([] { trsm_strided_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, B - 8, 4, 0, B, 4, 16, 3); },
                 "B", sb_fn);
  // Nothing to solve: no pointer needed, nothing runs (no device needed).
  EXPECT_NO_THROW(trsm_strided_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, nullptr, 4, 16, nullptr, 4, 16, 0));
  EXPECT_NO_THROW(trsm_strided_batched<float>(L, lo, op::N, diag::unit, 0, 4, 1.f, nullptr, 1, 0, nullptr, 1, 0, 9));
  EXPECT_NO_THROW(trsm_strided_batched<float>(side::right, uplo::upper, op::T, diag::non_unit, 4, 0, 1.f, nullptr, 1,
                                              0, nullptr, 4, 0, 9));
}

TEST(BlasTrsmBatchedArgs, ArrayRules) {
  using cuprim::blas::trsm_batched;
  const auto L = side::left;
  const auto lo = uplo::lower;
  expect_invalid([] { trsm_batched<float>(L, uplo(3), op::N, diag::unit, 4, 4, 1.f, Aa, 4, Ba, 4, 2); }, "uplo",
                 ab_fn);
  expect_invalid([] { trsm_batched<float>(L, lo, op::N, diag(3), 4, 4, 1.f, Aa, 4, Ba, 4, 2); }, "diag", ab_fn);
  expect_invalid([] { trsm_batched<float>(L, lo, op::N, diag::unit, 4, -1, 1.f, Aa, 4, Ba, 4, 2); }, "n", ab_fn);
  expect_invalid([] { trsm_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, Aa, 2, Ba, 4, 2); }, "lda", ab_fn);
  expect_invalid([] { trsm_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, Aa, 4, Ba, 2, 2); }, "ldb", ab_fn);
  expect_invalid([] { trsm_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, Aa, 4, Ba, 4, -3); }, "batch", ab_fn);
  expect_invalid([] { trsm_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, nullptr, 4, Ba, 4, 2); }, "A", ab_fn);
  expect_invalid([] { trsm_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, Aa, 4, nullptr, 4, 2); }, "B", ab_fn);
  EXPECT_NO_THROW(trsm_batched<float>(L, lo, op::N, diag::unit, 4, 4, 1.f, nullptr, 4, nullptr, 4, 0));
  EXPECT_NO_THROW(trsm_batched<float>(side::right, lo, op::N, diag::unit, 0, 4, 1.f, nullptr, 4, nullptr, 1, 5));
}

TEST(BlasSymmArgs, Rules) {
  expect_invalid([] { cuprim::blas::symm<float>(side(4), uplo::lower, 4, 4, 1.f, A, 4, Bc, 4, 0.f, C, 4); }, "side",
                 symm_fn);
  expect_invalid([] { cuprim::blas::symm<float>(side::left, uplo(4), 4, 4, 1.f, A, 4, Bc, 4, 0.f, C, 4); }, "uplo",
                 symm_fn);
  expect_invalid([] { cuprim::blas::symm<float>(side::left, uplo::lower, -2, 4, 1.f, A, 4, Bc, 4, 0.f, C, 4); }, "m",
                 symm_fn);
  expect_invalid([] { cuprim::blas::symm<float>(side::right, uplo::lower, 2, 8, 1.f, A, 7, Bc, 2, 0.f, C, 2); }, "lda",
                 symm_fn);
  expect_invalid([] { cuprim::blas::symm<float>(side::left, uplo::lower, 8, 2, 1.f, A, 8, Bc, 7, 0.f, C, 8); }, "ldb",
                 symm_fn);
  expect_invalid([] { cuprim::blas::symm<float>(side::left, uplo::lower, 8, 2, 1.f, A, 8, Bc, 8, 0.f, C, 7); }, "ldc",
                 symm_fn);
  expect_invalid([] { cuprim::blas::symm<float>(side::left, uplo::lower, 4, 4, 1.f, A, 4, Bc, 4, 0.f, nullptr, 4); },
                 "C", symm_fn);
  expect_invalid([] { cuprim::blas::symm<float>(side::left, uplo::lower, 4, 4, 1.f, A, 4, C, 4, 0.f, C, 4); },
                 "C", symm_fn);
  expect_invalid([] { cuprim::blas::symm<float>(side::left, uplo::lower, 4, 4, 1.f, C + 3, 4, Bc, 4, 0.f, C, 4); }, "C",
                 symm_fn);
  // A and B may overlap (both only read); the rules pass, nothing to do when empty.
  EXPECT_NO_THROW(cuprim::blas::symm<float>(side::left, uplo::lower, 0, 4, 1.f, nullptr, 1, nullptr, 1, 0.f, nullptr, 1));
}

}  // namespace
