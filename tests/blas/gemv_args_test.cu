// Argument rules of cuprim::blas::gemv and cuprim::blas::dot (and dot_sync). Every rule is enforced before any CUDA
// call, so these run (label host) without a GPU: the pointers are made-up addresses, compared and never
// dereferenced. That nothing is written when a rule is broken is checked on a GPU (blas_gemv_test,
// BadArgumentsWriteNothing). Also here: the plan's rules (a pure function of the shape and the SM count).
#include <cuprim/blas/dot.cuh>
#include <cuprim/blas/gemv.cuh>

#include <gtest/gtest.h>

#include "common/expect_invalid.hpp"

#include <cstdint>
#include <limits>

namespace {

using cuprim::blas::op;
using cuprim_test::expect_invalid;
using cuprim_test::fake;

constexpr const char* gemv_fn = "cuprim::blas::gemv";
constexpr const char* dot_fn = "cuprim::blas::dot";

// A at 1 GiB, x at 2 GiB, y at 3 GiB.
const float* A = fake<const float>(1);
const float* X = fake<const float>(2);
float* Y = fake<float>(3);

TEST(BlasGemvArgs, NegativeSizes) {
  expect_invalid([] { cuprim::blas::gemv(op::N, -1, 4, 1.f, A, 4, X, 1, 0.f, Y, 1); }, "m", gemv_fn);
  expect_invalid([] { cuprim::blas::gemv(op::T, 4, -1, 1.f, A, 4, X, 1, 0.f, Y, 1); }, "n", gemv_fn);
}

TEST(BlasGemvArgs, OpMustBeNOrT) {
  expect_invalid([] { cuprim::blas::gemv(static_cast<op>(7), 4, 4, 1.f, A, 4, X, 1, 0.f, Y, 1); }, "trans", gemv_fn);
}

TEST(BlasGemvArgs, LeadingDimensionAtLeastMaxOneM) {
  expect_invalid([] { cuprim::blas::gemv(op::N, 8, 4, 1.f, A, 7, X, 1, 0.f, Y, 1); }, "lda", gemv_fn);
  expect_invalid([] { cuprim::blas::gemv(op::T, 8, 4, 1.f, A, 7, X, 1, 0.f, Y, 1); }, "lda", gemv_fn);
  expect_invalid([] { cuprim::blas::gemv(op::N, 0, 4, 1.f, A, 0, X, 1, 0.f, Y, 1); }, "lda", gemv_fn);
}

TEST(BlasGemvArgs, ZeroIncrementsRefused) {
  expect_invalid([] { cuprim::blas::gemv(op::N, 4, 4, 1.f, A, 4, X, 0, 0.f, Y, 1); }, "incx", gemv_fn);
  expect_invalid([] { cuprim::blas::gemv(op::N, 4, 4, 1.f, A, 4, X, 1, 0.f, Y, 0); }, "incy", gemv_fn);
  // Even where nothing would be read or written.
  expect_invalid([] { cuprim::blas::gemv(op::T, 0, 0, 1.f, A, 1, X, 1, 0.f, Y, 0); }, "incy", gemv_fn);
}

TEST(BlasGemvArgs, IncrementSpanningTheAddressSpace) {
  const std::int64_t huge = std::int64_t(1) << 62;
  expect_invalid([=] { cuprim::blas::gemv(op::N, 4, 4, 1.f, A, 4, X, huge, 0.f, Y, 1); }, "incx", gemv_fn);
  expect_invalid([=] { cuprim::blas::gemv(op::N, 4, 4, 1.f, A, 4, X, 1, 0.f, Y, -huge); }, "incy", gemv_fn);
  expect_invalid([] { cuprim::blas::gemv(op::N, 4, 4, 1.f, A, 4, X, std::numeric_limits<std::int64_t>::min(), 0.f, Y, 1); },
                 "incx", gemv_fn);
}

TEST(BlasGemvArgs, NullOperandsOnlyWhenEmpty) {
  expect_invalid([] { cuprim::blas::gemv(op::N, 4, 4, 1.f, static_cast<const float*>(nullptr), 4, X, 1, 0.f, Y, 1); },
                 "A", gemv_fn);
  expect_invalid([] { cuprim::blas::gemv(op::T, 4, 4, 1.f, A, 4, static_cast<const float*>(nullptr), 1, 0.f, Y, 1); },
                 "x", gemv_fn);
  expect_invalid([] { cuprim::blas::gemv(op::N, 4, 0, 1.f, A, 4, X, 1, 0.f, static_cast<float*>(nullptr), 1); }, "y",
                 gemv_fn);
  // Nothing to read or write: null everywhere is fine (no device needed, nothing runs).
  EXPECT_NO_THROW(cuprim::blas::gemv(op::N, 0, 0, 1.f, static_cast<const float*>(nullptr), 1,
                                     static_cast<const float*>(nullptr), 1, 0.f, static_cast<float*>(nullptr), 1));
  EXPECT_NO_THROW(cuprim::blas::gemv(op::T, 5, 0, 1.f, static_cast<const float*>(nullptr), 5,
                                     static_cast<const float*>(nullptr), -3, 0.f, static_cast<float*>(nullptr), 2));
}

TEST(BlasGemvArgs, OutputOverlappingAnInput) {
  // A spans (n - 1)·lda + m = 3·4 + 4 = 16 elements; y (op N) 4 elements.
  expect_invalid([] { cuprim::blas::gemv(op::N, 4, 4, 1.f, Y - 15, 4, X, 1, 0.f, Y, 1); }, "y", gemv_fn);
  expect_invalid([] { cuprim::blas::gemv(op::N, 4, 4, 1.f, A, 4, Y + 3, 1, 0.f, Y, 1); }, "y", gemv_fn);
  // A strided y spans (len - 1)·|incy| + 1 elements, whatever the sign.
  expect_invalid([] { cuprim::blas::gemv(op::T, 4, 4, 1.f, A, 4, Y + 9, 1, 0.f, Y, -3); }, "y", gemv_fn);
  // A and x may overlap (both only read): the rule passes, and only the missing device stops the call.
  try {
    cuprim::blas::gemv(op::N, 4, 4, 1.f, A, 4, A + 2, 1, 0.f, Y, 1);
  } catch (const cuprim::invalid_argument& e) {
    ADD_FAILURE() << "A and x overlapping refused: " << e.what();
  } catch (const std::exception&) {
  }
}

TEST(BlasGemvArgs, ScalarsOfTheAccumulatorType) {
  // 16-bit A, x, y take float alpha and beta; the rules are the same.
  const __half* Ah = fake<const __half>(1);
  const __half* Xh = fake<const __half>(2);
  __half* Yh = fake<__half>(3);
  expect_invalid([=] { cuprim::blas::gemv(op::N, 4, 4, 1.f, Ah, 3, Xh, 1, 0.f, Yh, 1); }, "lda", gemv_fn);
}

TEST(BlasGemvPlan, SplitsOnlyWhenTheTilesAreTooFew) {
  constexpr cuprim::blas::gemv_policy P{};
  const auto plan = [](bool t, std::int64_t m, std::int64_t n) {
    return cuprim::blas::gemv_plan_for<P, float>(t, m, n, true, 132);
  };
  // Square, large: op N splits the columns (16 tiles of 1024 rows); op T has 2048 blocks of 8 columns, no split.
  EXPECT_GT(plan(false, 16384, 16384).slices, 1);
  EXPECT_EQ(plan(true, 16384, 16384).slices, 1);
  EXPECT_EQ(plan(true, 16384, 16384).lanes, 32);
  // Long (m = 2^20, n = 16): op N has rows enough; op T takes whole blocks per column and splits the rows.
  EXPECT_EQ(plan(false, 1 << 20, 16).slices, 1);
  EXPECT_GT(plan(true, 1 << 20, 16).slices, 1);
  EXPECT_EQ(plan(true, 1 << 20, 16).lanes, 256);
  // Wide (m = 16, n = 2^20): op N splits the columns; op T gives each column 4 lanes of 4 rows (short columns).
  EXPECT_GT(plan(false, 16, 1 << 20).slices, 1);
  EXPECT_EQ(plan(true, 16, 1 << 20).lanes, 4);
  // Tiny: one block, nothing split, no workspace.
  EXPECT_EQ(plan(false, 7, 7).slices, 1);
  EXPECT_EQ(plan(false, 7, 7).bytes, 0u);
  EXPECT_FALSE(plan(false, 7, 7).vec);
  for (bool t : {false, true})
    for (std::int64_t m : {1, 7, 33, 1000, 4097, 1 << 20})
      for (std::int64_t n : {1, 7, 33, 1000, 4097, 1 << 20}) {
        const cuprim::blas::gemv_plan p = plan(t, m, n);
        const std::int64_t summed = t ? m : n, len_y = t ? n : m;
        EXPECT_GE(p.slices, 1);
        EXPECT_GE(p.chunk * p.slices, summed) << t << " " << m << " " << n;
        EXPECT_LT(p.chunk * (p.slices - 1), summed) << "an empty slice: " << t << " " << m << " " << n;
        EXPECT_EQ(p.bytes == 0, p.slices == 1);
        if (p.slices > 1) EXPECT_GE(p.bytes, std::size_t(p.slices * len_y) * sizeof(float));
        // The second pass: fold a power of two in [1, 256], about 8 slices per thread (fewer where the block
        // would hold fewer than 8 elements of y), 1 without a split.
        EXPECT_EQ(p.fold & (p.fold - 1), 0);
        EXPECT_GE(p.fold, 1);
        EXPECT_LE(p.fold, 256);
        if (p.slices == 1) EXPECT_EQ(p.fold, 1);
        if (len_y >= 8) EXPECT_LE(p.fold, 32);
        // Short columns (op T only) never split; cols is 1 or the unroll.
        if (p.short_columns) {
          EXPECT_TRUE(t);
          EXPECT_EQ(p.slices, 1);
          EXPECT_LE(p.lanes, 32);
        }
        EXPECT_TRUE(p.cols == 1 || (p.short_columns && p.cols == P.unroll));
        if (!t) EXPECT_LE(p.lanes, P.row_lanes);
      }
}

TEST(BlasGemvPlan, ShortColumnsAndRowLanes) {
  constexpr cuprim::blas::gemv_policy P{.threads = 256, .vector_bytes = 16, .unroll = 4, .blocks_per_sm = 4,
                                        .row_lanes = 64};
  const auto plan = [](bool t, std::int64_t m, std::int64_t n) {
    return cuprim::blas::gemv_plan_for<P, float>(t, m, n, true, 132);
  };
  // op T, 16 rows (4 lanes of 4 floats per column): unroll columns per thread, 64 x 4 columns per block.
  const auto wide = plan(true, 16, std::int64_t(1) << 22);
  EXPECT_TRUE(wide.short_columns);
  EXPECT_EQ(wide.cols, 4);
  EXPECT_EQ(wide.grid_x, (std::int64_t(1) << 22) / 256);
  // M = 1 (op T: one row, one lane per column): 1024 columns per block.
  const auto row = plan(true, 1, std::int64_t(1) << 24);
  EXPECT_TRUE(row.short_columns);
  EXPECT_EQ(row.lanes, 1);
  EXPECT_EQ(row.cols, 4);
  // Few columns: one per thread, so that the device still gets blocks (here 2 blocks of 64 columns).
  EXPECT_EQ(plan(true, 16, 100).cols, 1);
  // Long columns: the warp-per-column kernel.
  EXPECT_FALSE(plan(true, 4096, 4096).short_columns);
  // op N at 4096^2: 64 lanes of 4 rows, 16 tiles, 33 slices (528 blocks), 4 column groups per block.
  const auto sq = plan(false, 4096, 4096);
  EXPECT_EQ(sq.lanes, 64);
  EXPECT_EQ(sq.grid_x, 16);
  EXPECT_EQ(sq.slices, 33);
  EXPECT_EQ(sq.fold, 8);  // ceil(33 / 8) = 5 -> 8 threads per element, 32 elements per block
  // op N, 16 rows, 2^22 columns: one tile, 528 slices, 32 threads per element of y in the second pass.
  const auto wn = plan(false, 16, std::int64_t(1) << 22);
  EXPECT_EQ(wn.grid_x, 1);
  EXPECT_EQ(wn.slices, 528);
  EXPECT_EQ(wn.fold, 32);
  // op N, M = 1: 528 slices over 1 element: 128 threads sum about 4 slices each.
  EXPECT_EQ(plan(false, 1, std::int64_t(1) << 24).fold, 128);
  // row_lanes above the block's threads: the block's threads.
  constexpr cuprim::blas::gemv_policy Q{.threads = 128, .vector_bytes = 16, .unroll = 4, .blocks_per_sm = 4,
                                        .row_lanes = 1024};
  EXPECT_EQ((cuprim::blas::gemv_plan_for<Q, float>(false, 1 << 20, 16, true, 132).lanes), 128);
}

// ---------------------------------------------------------------------------------------------------------------
// dot

TEST(BlasDotArgs, Rules) {
  float* R = fake<float>(4);
  expect_invalid([=] { cuprim::blas::dot(-1, X, 1, X, 1, R); }, "n", dot_fn);
  expect_invalid([=] { cuprim::blas::dot(4, static_cast<const float*>(nullptr), 1, X, 1, R); }, "x", dot_fn);
  expect_invalid([=] { cuprim::blas::dot(4, X, 1, static_cast<const float*>(nullptr), 1, R); }, "y", dot_fn);
  expect_invalid([=] { cuprim::blas::dot(4, X, 1, X, 1, static_cast<float*>(nullptr)); }, "result", dot_fn);
  expect_invalid([=] { cuprim::blas::dot(0, X, 1, X, 1, static_cast<float*>(nullptr)); }, "result", dot_fn);
  expect_invalid([=] { cuprim::blas::dot(4, X, std::int64_t(1) << 62, X, 1, R); }, "incx", dot_fn);
  // The result must not overlap x or y (x and y may overlap each other).
  expect_invalid([=] { cuprim::blas::dot(4, X, 1, A, -2, const_cast<float*>(A) + 6); }, "result", dot_fn);
  expect_invalid([=] { cuprim::blas::dot(4, X, 1, A, 1, const_cast<float*>(X) + 3); }, "result", dot_fn);
  // A workspace smaller than dot_workspace_bytes (no device: 0 bytes needed, so a null workspace passes the rule).
  expect_invalid([=] { cuprim::blas::dot_sync(-3, X, 1, X, 1); }, "n", "cuprim::blas::dot_sync");
}

TEST(BlasDotArgs, ZeroIncrementsAllowed) {
  // incx = 0 and incy = 0 read one element n times (BLAS's rule); only the missing device stops the call.
  float* R = fake<float>(4);
  try {
    cuprim::blas::dot(4, X, 0, A, 0, R);
  } catch (const cuprim::invalid_argument& e) {
    ADD_FAILURE() << "incx = 0 refused: " << e.what();
  } catch (const std::exception&) {
  }
}

}  // namespace
