// Argument rules of cuprim::blas::trsm and cuprim::blas::symm. Every rule is enforced before any CUDA call, so these
// run (label host) without a GPU: the pointers are made-up addresses, compared and never dereferenced. That nothing
// is written when a rule is broken is checked on a GPU (blas_trsm_test and blas_symm_test, BadArgumentsWriteNothing).
#include <cuprim/blas/symm.cuh>
#include <cuprim/blas/trsm.cuh>

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
