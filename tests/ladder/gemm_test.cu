// cuprim::ladder::gemm (lab/ladder/gemm.cuh): every rung of the GEMM ladder computes what cuprim::blas::gemm
// computes for NN products, against the double host reference (cuprim::host::gemm). FP32 rungs (1-4, float inputs)
// within gemm's bound (k + 4)·u·(|alpha|·Σ|a·b| + |beta·c|); BF16 rungs (5-6, the same inputs rounded to bf16, float
// C, the reference taken on the rounded values) within (4·k + 4)·u·(...) (fp32 sums of exact products on tensor
// cores, u = 2^-24). Sizes around every rung's block (naive 32 x 8, tiled 16 and 32, Volkov's 64 x 16 with k steps
// of 16, cuprim's 128 x 128 x 8, the mma rung's 128 x 128 x 32 with 16-byte chunks), padded leading dimensions
// (including ones that keep the BF16 rungs' 16-byte copies on odd m and k), unaligned pointers, alpha/beta edges
// with NaN in C when beta = 0, k = 0; the padding of C must keep its bytes. Argument errors name the ladder.
#include "ladder/gemm.cuh"

#include <cuprim/core/memory.hpp>
#include <cuprim/host/gemm.hpp>

#include <cuda_bf16.h>
#include <gtest/gtest.h>

#include "common/test_util.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

using cuprim::ladder::gemm_variant;
using cuprim_test::gpu_test;
using cuprim_test::rng;

struct ladder_case {
  std::int64_t m, n, k;
  float alpha = 1, beta = 0;
  std::int64_t pad = 0, shift = 0;
  bool nan_c = false;
  std::int64_t ld_multiple = 1;  // leading dimensions rounded up to a multiple of this (8: the BF16 rungs' 16-byte path)
};

void run_case(const ladder_case& c, rng& r) {
  std::ostringstream os;
  os << "m " << c.m << " n " << c.n << " k " << c.k << " alpha " << c.alpha << " beta " << c.beta << " pad " << c.pad
     << " shift " << c.shift << " ld multiple " << c.ld_multiple << (c.nan_c ? " NaN in C" : "");
  SCOPED_TRACE(os.str());
  const auto ld = [&](std::int64_t rows) {
    const std::int64_t l = std::max<std::int64_t>(1, rows) + c.pad;
    return (l + c.ld_multiple - 1) / c.ld_multiple * c.ld_multiple;
  };
  const std::int64_t lda = ld(c.m), ldb = ld(c.k), ldc = ld(c.m);
  std::vector<float> a(std::size_t(lda * std::max<std::int64_t>(1, c.k))), b(std::size_t(ldb * std::max<std::int64_t>(1, c.n))),
      cin(std::size_t(ldc * std::max<std::int64_t>(1, c.n)));
  for (auto& x : a) x = static_cast<float>(r.uniform(-1, 1));
  for (auto& x : b) x = static_cast<float>(r.uniform(-1, 1));
  for (auto& x : cin) x = c.nan_c ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(r.uniform(-1, 1));
  // The references, in double: of the float inputs (FP32 rungs) and of the inputs rounded to bf16 (BF16 rungs).
  std::vector<__nv_bfloat16> a16(a.size()), b16(b.size());
  for (std::size_t e = 0; e < a.size(); ++e) a16[e] = __float2bfloat16(a[e]);
  for (std::size_t e = 0; e < b.size(); ++e) b16[e] = __float2bfloat16(b[e]);
  struct reference {
    std::vector<double> value, bound;
  };
  const auto make_reference = [&](const std::vector<double>& ad, const std::vector<double>& bd) {
    reference f{std::vector<double>(cin.begin(), cin.end()), {}};
    f.bound = cuprim::host::gemm_abs_bound('N', 'N', c.m, c.n, c.k, double(c.alpha), ad.data(), lda, bd.data(), ldb,
                                           double(c.beta), f.value.data(), ldc);
    cuprim::host::gemm('N', 'N', c.m, c.n, c.k, double(c.alpha), ad.data(), lda, bd.data(), ldb, double(c.beta),
                       f.value.data(), ldc);
    return f;
  };
  const auto widen16 = [](const std::vector<__nv_bfloat16>& x) {
    std::vector<double> y(x.size());
    for (std::size_t e = 0; e < x.size(); ++e) y[e] = double(__bfloat162float(x[e]));
    return y;
  };
  const reference ref32 = make_reference(std::vector<double>(a.begin(), a.end()), std::vector<double>(b.begin(), b.end()));
  const reference ref16 = make_reference(widen16(a16), widen16(b16));

  cuprim::device_buffer<float> da(a.size() + 4), db(b.size() + 4), dc(cin.size() + 4);
  cuprim::device_buffer<__nv_bfloat16> da16(a.size() + 8), db16(b.size() + 8);
  CUPRIM_CUDA_CHECK(cudaMemcpy(da.data() + c.shift, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(db.data() + c.shift, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(da16.data() + c.shift, a16.data(), a16.size() * 2, cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(db16.data() + c.shift, b16.data(), b16.size() * 2, cudaMemcpyHostToDevice));
  const double u = 0x1p-24;
  for (gemm_variant v : cuprim::ladder::gemm_variants) {
    SCOPED_TRACE(std::string("rung ") + std::string(cuprim::ladder::to_string(v)));
    CUPRIM_CUDA_CHECK(cudaMemcpy(dc.data() + c.shift, cin.data(), cin.size() * sizeof(float), cudaMemcpyHostToDevice));
    const bool bf16 = cuprim::ladder::math_of(v) == cuprim::ladder::gemm_math::bf16;
    if (bf16)
      cuprim::ladder::gemm(v, c.m, c.n, c.k, c.alpha, da16.data() + c.shift, lda, db16.data() + c.shift, ldb, c.beta,
                           dc.data() + c.shift, ldc);
    else
      cuprim::ladder::gemm(v, c.m, c.n, c.k, c.alpha, da.data() + c.shift, lda, db.data() + c.shift, ldb, c.beta,
                           dc.data() + c.shift, ldc);
    const reference& ref = bf16 ? ref16 : ref32;
    const double factor = bf16 ? double(4 * c.k + 4) : double(c.k + 4);
    std::vector<float> got(cin.size());
    CUPRIM_CUDA_CHECK(cudaMemcpy(got.data(), dc.data() + c.shift, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    std::int64_t bad = 0, touched = 0;
    std::string first;
    for (std::int64_t e = 0; e < std::int64_t(cin.size()); ++e) {
      const std::int64_t i = e % ldc, j = e / ldc;
      if (i < c.m && j < c.n) {
        const double g = got[std::size_t(e)], want = ref.value[std::size_t(e)];
        const double tol = factor * u * ref.bound[std::size_t(i + j * c.m)];
        if (!(std::fabs(g - want) <= tol) && !(g == want) && bad++ == 0) {
          std::ostringstream f;
          f << "(" << i << ", " << j << "): " << g << " vs " << want;
          first = f.str();
        }
      } else if (std::memcmp(&got[std::size_t(e)], &cin[std::size_t(e)], sizeof(float)) != 0) {
        ++touched;
      }
    }
    EXPECT_EQ(bad, 0) << "first: " << first;
    EXPECT_EQ(touched, 0) << "elements of C outside the product were written";
  }
}

class GemmLadder : public gpu_test {};

TEST_F(GemmLadder, EveryRungAroundItsBlocks) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t m : {1, 7, 16, 17, 31, 32, 33, 63, 64, 65, 129})
    for (std::int64_t n : {1, 8, 15, 16, 17, 33, 129})
      for (std::int64_t k : {1, 7, 16, 17, 32, 33, 65}) run_case({m, n, k}, r);
}

TEST_F(GemmLadder, PaddedUnalignedAndLarger) {
  CUPRIM_TEST_RNG(r);
  run_case({300, 200, 500, 2.f, 0.f, 3, 1, true}, r);
  run_case({257, 130, 129, -1.f, 0.5f, 1, 3}, r);
  run_case({1000, 64, 1000, 1.f, 1.f, 0, 0}, r);
}

TEST_F(GemmLadder, BlockEdgesOnTheSixteenByteCopies) {
  // Leading dimensions multiples of 8 and aligned arrays: the BF16 rungs copy 16-byte chunks cut at m and k (rung
  // 6 runs the Hopper kernel on sm_90), on shapes that are not multiples of the chunk or the tile.
  CUPRIM_TEST_RNG(r);
  for (std::int64_t m : {1, 9, 17, 127, 129, 200})
    for (std::int64_t n : {1, 7, 127, 129})
      for (std::int64_t k : {1, 7, 9, 31, 33, 100}) run_case({m, n, k, 1.f, 0.f, 0, 0, false, 8}, r);
  run_case({256, 256, 256, 1.f, 0.f, 0, 0, false, 8}, r);  // whole tiles
  run_case({384, 130, 1000, -1.f, 0.5f, 5, 0, false, 8}, r);
}

TEST_F(GemmLadder, AlphaBetaEdgesFollowBlas) {
  CUPRIM_TEST_RNG(r);
  for (float alpha : {0.f, 1.f, -1.f})
    for (float beta : {0.f, 1.f, -1.f}) run_case({70, 33, 40, alpha, beta, 2, 0, beta == 0.f}, r);
  run_case({70, 33, 0, 1.f, 2.f}, r);               // k = 0: C = beta C
  run_case({70, 33, 0, 1.f, 0.f, 0, 0, true}, r);   // k = 0, beta = 0: zeros over NaN
  run_case({0, 33, 10, 1.f, 0.f}, r);               // empty C
}

TEST_F(GemmLadder, ArgumentErrorsNameTheLadder) {
  cuprim::device_buffer<float> a(64 * 64), c(64 * 64);
  try {
    cuprim::ladder::gemm(gemm_variant::volkov, 64, 64, 64, 1.f, a.data(), 63, a.data(), 64, 0.f, c.data(), 64);
    ADD_FAILURE() << "no exception";
  } catch (const cuprim::invalid_argument& e) {
    EXPECT_EQ(e.function(), "cuprim::ladder::gemm");
    EXPECT_EQ(e.argument(), "lda");
  }
  EXPECT_THROW(cuprim::ladder::gemm(static_cast<gemm_variant>(99), 4, 4, 4, 1.f, a.data(), 4, a.data(), 4, 0.f,
                                    c.data(), 4),
               cuprim::invalid_argument);
  // Each rung takes one input type.
  cuprim::device_buffer<__nv_bfloat16> a16(64 * 64);
  for (gemm_variant v : {gemm_variant::mma, gemm_variant::wgmma}) {
    try {
      cuprim::ladder::gemm(v, 4, 4, 4, 1.f, a.data(), 4, a.data(), 4, 0.f, c.data(), 4);
      ADD_FAILURE() << "no exception";
    } catch (const cuprim::invalid_argument& e) {
      EXPECT_EQ(e.function(), "cuprim::ladder::gemm");
      EXPECT_EQ(e.argument(), "variant");
    }
  }
  EXPECT_THROW(cuprim::ladder::gemm(gemm_variant::volkov, 4, 4, 4, 1.f, a16.data(), 4, a16.data(), 4, 0.f, c.data(), 4),
               cuprim::invalid_argument);
  try {
    cuprim::ladder::gemm(gemm_variant::mma, 64, 64, 64, 1.f, a16.data(), 64, a16.data(), 63, 0.f, c.data(), 64);
    ADD_FAILURE() << "no exception";
  } catch (const cuprim::invalid_argument& e) {
    EXPECT_EQ(e.function(), "cuprim::ladder::gemm");
    EXPECT_EQ(e.argument(), "ldb");
  }
}

}  // namespace
