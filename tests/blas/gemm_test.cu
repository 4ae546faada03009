// cuprim::blas::gemm against a double-precision host reference (cuprim::host::gemm, the seed's MatrixMulOnHost with
// the BLAS alpha/beta update): every op_a/op_b combination, m, n, k over {0, 1, 7, 16, 17, 63, 64, 65, 127, 128,
// 129} and larger shapes with 1000 and 2^12 + 3, padded leading dimensions, unaligned pointers, alpha/beta edge
// values, NaN in C with beta = 0, k = 0, and the row-major form; double on both of its kernels (the FP64 tensor cores
// for 16-byte aligned operands with even leading dimensions on sm_90, the CUDA-core kernel for odd leading
// dimensions, shifted pointers or an explicit gemm_policy), each case of the tensor-core tests asserting which one
// takes it on an sm_90 device. The error bound of an element is
// (k + 4)·u·(|alpha|·Σ|a·b| + |beta·c|) (cuprim::host::gemm_abs_bound) with u the unit roundoff of T; products
// above 2^27 multiply-adds are checked on sampled elements (cuprim::host::gemm_element), every element finite when C
// started as NaN; elements of C outside the product (the padding of ldc) must keep their bytes.
#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/host/gemm.hpp>

#include <gtest/gtest.h>

#include "common/test_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using cuprim::blas::op;
using cuprim_test::gpu_test;
using cuprim_test::rng;

struct gemm_case {
  op op_a, op_b;
  std::int64_t m, n, k;
  double alpha, beta;
  std::int64_t pad = 0;   // added to every leading dimension
  std::int64_t shift = 0; // elements past the allocations' start (unaligned for shift % 4 != 0)
  bool nan_c = false;     // C holds NaN before the call (with beta = 0 it must not show)
  bool row_major = false;
  bool even_ld = false;   // every leading dimension rounded up to even before the padding (the TMA-fed double path)
  bool simt = false;      // double: the CUDA-core kernel by an explicit gemm_policy, whatever the layout
  int expect_path = -1;   // double on sm_90: 1 the FP64 tensor-core kernel must take it, 0 it must not, -1 either
};

std::string describe(const gemm_case& c) {
  std::ostringstream os;
  os << (c.op_a == op::T ? "T" : "N") << (c.op_b == op::T ? "T" : "N") << " m " << c.m << " n " << c.n << " k " << c.k
     << " alpha " << c.alpha << " beta " << c.beta << " pad " << c.pad << " shift " << c.shift
     << (c.nan_c ? " NaN in C" : "") << (c.row_major ? " row-major" : "") << (c.even_ld ? " even ld" : "")
     << (c.simt ? " CUDA-core policy" : "");
  return os.str();
}

char trans(op o) { return o == op::T ? 'T' : 'N'; }

/// Products above this many multiply-adds are checked on sampled elements.
constexpr double full_check_limit = double(1 << 27);

/// Compares got (the column-major view: vm x vn with leading dimension ldc, C's padding included) with the double
/// reference of C = alpha·op(A)·op(B) + beta·C on the same view, ta/tb/A/B being the view's. Every element when the
/// product is small, else 512 sampled ones and the last row and column; then the padding, which must be `cin`'s.
template <class T>
void check_view(char ta, char tb, std::int64_t vm, std::int64_t vn, std::int64_t k, double alpha,
                const std::vector<double>& a, std::int64_t lda, const std::vector<double>& b, std::int64_t ldb,
                double beta, const std::vector<T>& cin, std::int64_t ldc, const std::vector<T>& got, rng& r) {
  const double u = std::numeric_limits<T>::epsilon() / 2;
  std::vector<double> c(cin.begin(), cin.end());
  std::int64_t bad = 0, checked = 0;
  std::string first;
  auto compare = [&](std::int64_t i, std::int64_t j, double ref, double bound) {
    ++checked;
    const double g = got[std::size_t(i + j * ldc)];
    const double tol = double(k + 4) * u * bound;
    if (!(std::fabs(g - ref) <= tol) && !(g == ref) && bad++ == 0) {
      std::ostringstream os;
      os << "(" << i << ", " << j << "): " << g << " vs " << ref << " (bound " << tol << ")";
      first = os.str();
    }
  };
  if (double(vm) * double(vn) * double(k) <= full_check_limit) {
    const std::vector<double> bound =
        cuprim::host::gemm_abs_bound(ta, tb, vm, vn, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
    cuprim::host::gemm(ta, tb, vm, vn, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
    for (std::int64_t j = 0; j < vn; ++j)
      for (std::int64_t i = 0; i < vm; ++i) compare(i, j, c[std::size_t(i + j * ldc)], bound[std::size_t(i + j * vm)]);
  } else {
    std::vector<std::pair<std::int64_t, std::int64_t>> at;
    for (int t = 0; t < 512; ++t) at.push_back({r.between(0, vm - 1), r.between(0, vn - 1)});
    for (int t = 0; t < 32; ++t) {
      at.push_back({vm - 1, r.between(0, vn - 1)});
      at.push_back({r.between(0, vm - 1), vn - 1});
    }
    for (const auto& [i, j] : at) {
      const auto e = cuprim::host::gemm_element(ta, tb, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc, i, j);
      compare(i, j, e.value, e.bound);
    }
    // Every element written (C started as NaN in these cases, or holds finite data).
    std::int64_t non_finite = 0;
    for (std::int64_t j = 0; j < vn; ++j)
      for (std::int64_t i = 0; i < vm; ++i) non_finite += !std::isfinite(double(got[std::size_t(i + j * ldc)]));
    EXPECT_EQ(non_finite, 0) << "elements of C left unwritten or not finite";
  }
  EXPECT_EQ(bad, 0) << bad << " of " << checked << " elements out of bound; first: " << first;
  // The padding of C (rows past vm of the view) is untouched.
  std::int64_t touched = 0;
  for (std::size_t e = 0; e < cin.size(); ++e) {
    const std::int64_t col = std::int64_t(e) / ldc, row = std::int64_t(e) % ldc;
    if (!(row < vm && col < vn) && std::memcmp(&got[e], &cin[e], sizeof(T)) != 0) ++touched;
  }
  EXPECT_EQ(touched, 0) << "elements of C outside the m x n product were written";
}

template <class T>
void run_case(const gemm_case& c, rng& r) {
  SCOPED_TRACE(describe(c));
  const bool ta = c.op_a == op::T, tb = c.op_b == op::T;
  // Stored shapes in the column-major view (the row-major form stores the transposes).
  std::int64_t a_rows = ta ? c.k : c.m, a_cols = ta ? c.m : c.k, b_rows = tb ? c.n : c.k, b_cols = tb ? c.k : c.n;
  std::int64_t c_rows = c.m, c_cols = c.n;
  if (c.row_major) {
    std::swap(a_rows, a_cols);
    std::swap(b_rows, b_cols);
    std::swap(c_rows, c_cols);
  }
  const auto ld = [&](std::int64_t rows) {
    const std::int64_t r = std::max<std::int64_t>(1, rows);
    return (c.even_ld ? r + (r & 1) : r) + c.pad;
  };
  const std::int64_t lda = ld(a_rows), ldb = ld(b_rows), ldc = ld(c_rows);
  std::vector<T> a(std::size_t(lda * std::max<std::int64_t>(1, a_cols))), b(std::size_t(ldb * std::max<std::int64_t>(1, b_cols))),
      cin(std::size_t(ldc * std::max<std::int64_t>(1, c_cols)));
  for (auto& x : a) x = static_cast<T>(r.uniform(-1, 1));
  for (auto& x : b) x = static_cast<T>(r.uniform(-1, 1));
  for (auto& x : cin) x = c.nan_c ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(r.uniform(-1, 1));

  cuprim::device_buffer<T> da(a.size() + 4), db(b.size() + 4), dc(cin.size() + 4);
  CUPRIM_CUDA_CHECK(cudaMemcpy(da.data() + c.shift, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(db.data() + c.shift, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(dc.data() + c.shift, cin.data(), cin.size() * sizeof(T), cudaMemcpyHostToDevice));
  const T alpha = static_cast<T>(c.alpha), beta = static_cast<T>(c.beta);
  if constexpr (std::is_same_v<T, double>) {
    if (c.expect_path >= 0 && !c.row_major) {
      // Which kernel this layout takes on an sm_90 device (the FP64 tensor cores, or the CUDA-core fallback).
      constexpr auto P = cuprim::blas::gemm_dmma_policy_for(90);
      if (cuprim::get_device_info().arch() == 90)
        EXPECT_EQ(cuprim::detail::gemm_dmma_eligible<P>(cuprim::get_device_info(), c.m, c.n, c.k, da.data() + c.shift,
                                                         lda, db.data() + c.shift, ldb),
                  c.expect_path == 1);
    }
  }
  if (c.simt) {
    if constexpr (std::is_same_v<T, double>)
      cuprim::blas::gemm<cuprim::blas::gemm_policy_for<double>(90)>(c.op_a, c.op_b, c.m, c.n, c.k, alpha,
                                                                    da.data() + c.shift, lda, db.data() + c.shift, ldb,
                                                                    beta, dc.data() + c.shift, ldc);
  } else if (c.row_major)
    cuprim::blas::gemm_row_major(c.op_a, c.op_b, c.m, c.n, c.k, alpha, da.data() + c.shift, lda, db.data() + c.shift,
                                 ldb, beta, dc.data() + c.shift, ldc);
  else
    cuprim::blas::gemm(c.op_a, c.op_b, c.m, c.n, c.k, alpha, da.data() + c.shift, lda, db.data() + c.shift, ldb, beta,
                       dc.data() + c.shift, ldc);
  std::vector<T> got(cin.size());
  CUPRIM_CUDA_CHECK(cudaMemcpy(got.data(), dc.data() + c.shift, got.size() * sizeof(T), cudaMemcpyDeviceToHost));

  // The column-major view: the row-major form computes Cᵀ = op(B)ᵀ·op(A)ᵀ over the same bytes.
  const std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end());
  if (c.row_major)
    check_view<T>(trans(c.op_b), trans(c.op_a), c.n, c.m, c.k, c.alpha, bd, ldb, ad, lda, c.beta, cin, ldc, got, r);
  else
    check_view<T>(trans(c.op_a), trans(c.op_b), c.m, c.n, c.k, c.alpha, ad, lda, bd, ldb, c.beta, cin, ldc, got, r);
}

class BlasGemm : public gpu_test {};

// The issue's sizes up to 129: around the tiles (float 128 x 128 x 8, double 64 x 64 x 8) and the 16-byte vectors.
const std::int64_t edge_sizes[] = {0, 1, 7, 16, 17, 63, 64, 65, 127, 128, 129};

TEST_F(BlasGemm, FloatEveryOpAndSizeAroundTheTiles) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (std::int64_t m : edge_sizes)
        for (std::int64_t n : edge_sizes)
          for (std::int64_t k : edge_sizes) run_case<float>({oa, ob, m, n, k, 1.0, 0.0}, r);
}

// The float interior kernel (whole 128 x 256 tiles of C; operands and C 16-byte aligned with leading dimensions of
// whole vectors) beside the split kernel on the columns and rows past the last whole tile: shapes that are all
// interior, shapes with both edges, k a whole number of 8-steps or with a partial last step (k = 76: a multiple of 4,
// so every leading dimension stays a whole number of vectors; k = 77 for NT, where k is no leading dimension), C with
// NaN and beta = 0, and one unaligned call that must take the split kernel alone.
TEST_F(BlasGemm, FloatInteriorKernelAndItsEdges) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_case<float>({oa, ob, 128, 256, 8, 1.0, 0.0, 4}, r);
      run_case<float>({oa, ob, 384, 768, 76, 1.5, -0.5, 4}, r);
      run_case<float>({oa, ob, 388, 516, 76, -1.0, 2.0, 4}, r);
      run_case<float>({oa, ob, 256, 512, 16, 1.0, 0.0, 4, 0, true}, r);
      run_case<float>({oa, ob, 384, 768, 76, 1.0, 1.0, 4, 1}, r);  // unaligned: the split kernel
    }
  run_case<float>({op::N, op::T, 388, 516, 77, 1.0, -1.0, 4}, r);
  run_case<float>({op::N, op::T, 640, 1280, 4093, 1.0, 0.0, 4, 0, true}, r);
}

TEST_F(BlasGemm, DoubleEveryOpAndSizeAroundTheTiles) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (std::int64_t m : edge_sizes)
        for (std::int64_t n : {1, 7, 16, 63, 64, 65, 129})
          for (std::int64_t k : {0, 1, 7, 8, 9, 17, 64, 129}) run_case<double>({oa, ob, m, n, k, -1.0, 0.5}, r);
}

// The FP64 tensor-core kernel (double, A and B 16-byte aligned with even leading dimensions; 128 x 128 x 16 tiles,
// 64 x 32 per warp, m16n8k8 fragments) around its tiles, every op pair; on an sm_90 device each case must take it.
TEST_F(BlasGemm, DoubleTensorCorePathAroundItsTiles) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (std::int64_t m : {1, 17, 64, 128, 129, 255})
        for (std::int64_t n : {1, 33, 128, 129})
          for (std::int64_t k : {1, 15, 16, 17, 64}) {
            gemm_case c{oa, ob, m, n, k, -1.0, 0.5};
            c.even_ld = true;
            c.expect_path = 1;
            run_case<double>(c, r);
          }
}

// Larger products on the tensor-core path: padded leading dimensions, beta = 0 over NaN, many k stages, and the
// same layouts forced onto the CUDA-core kernel by an explicit gemm_policy.
TEST_F(BlasGemm, DoubleTensorCorePathLargerShapes) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      for (bool simt : {false, true}) {
        gemm_case c{oa, ob, 1000, 777, 515, 1.0, 0.0, 2, 0, true};
        c.even_ld = true;
        c.simt = simt;
        c.expect_path = simt ? -1 : 1;
        run_case<double>(c, r);
      }
      gemm_case c{oa, ob, 300, 200, 1000, -0.5, 2.0, 6};
      c.even_ld = true;
      c.expect_path = 1;
      run_case<double>(c, r);
    }
}

// Layouts the tensor-core kernel cannot take (TMA needs 16-byte aligned operands and 16-byte strides): odd leading
// dimensions and pointers 8 bytes off, every op pair, through the CUDA-core fallback.
TEST_F(BlasGemm, DoubleFallbackLayouts) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      gemm_case odd{oa, ob, 129, 65, 33, 1.0, 0.5, 1};
      odd.even_ld = true;  // even, then 1 of padding: odd
      odd.expect_path = 0;
      run_case<double>(odd, r);
      gemm_case shifted{oa, ob, 128, 64, 48, -1.0, 0.0, 0, 1, true};
      shifted.even_ld = true;
      shifted.expect_path = 0;
      run_case<double>(shifted, r);
    }
}

TEST_F(BlasGemm, LargerShapesPaddedAndUnaligned) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_case<float>({oa, ob, 1000, 1000, 300, -1.0, 0.0, 1, 1, true}, r);
      run_case<float>({oa, ob, 1000, 1000, 1000, 1.0, 0.5, 0, 0}, r);  // sampled
      run_case<float>({oa, ob, 4099, 63, 127, 2.0, -1.0, 5, 1}, r);
      run_case<double>({oa, ob, 17, 4099, 64, 1.0, 1.0, 3, 3}, r);
      run_case<double>({oa, ob, 129, 65, 257, 0.5, 0.25, 2, 1}, r);
      run_case<double>({oa, ob, 1000, 65, 1000, -1.0, 0.0, 1, 0, true}, r);
    }
}

// 2^12 + 3 in every dimension (sampled elements; a few seconds of host time each): two op pairs per type.
TEST_F(BlasGemm, SizesPastTheFourThousands) {
  CUPRIM_TEST_RNG(r);
  constexpr std::int64_t big = (1 << 12) + 3;
  run_case<float>({op::N, op::N, big, big, big, 1.0, 0.0, 0, 0, true}, r);
  run_case<float>({op::T, op::T, big, big, big, -1.0, 0.0, 3, 1, true}, r);
  run_case<double>({op::N, op::T, big, big, big, 1.0, 0.0, 0, 0, true}, r);
  gemm_case tc{op::T, op::T, big, 1000, big, 1.0, 0.0, 6, 0, true};  // the tensor-core path
  tc.even_ld = true;
  tc.expect_path = 1;
  run_case<double>(tc, r);
  run_case<double>({op::T, op::N, big, 129, big, 0.5, 2.0, 1, 1}, r);
  run_case<float>({op::N, op::T, 7, big, 1000, 1.0, -1.0, 0, 3}, r);
  run_case<float>({op::T, op::N, big, 1, big, 1.0, 1.0}, r);
}

TEST_F(BlasGemm, AlphaBetaEdgesFollowBlas) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T}) {
    run_case<float>({oa, op::N, 70, 33, 0, 1.0, 2.0}, r);            // k = 0: C = beta C
    run_case<float>({oa, op::N, 70, 33, 0, 1.0, 0.0, 0, 0, true}, r);  // k = 0, beta = 0: zeros over NaN
    run_case<float>({oa, op::T, 70, 33, 40, 0.0, -1.0}, r);          // alpha = 0: C = beta C
    run_case<float>({oa, op::T, 70, 33, 40, 0.0, 0.0, 2, 0, true}, r);
    run_case<double>({oa, op::N, 70, 33, 40, 1.0, 0.0, 0, 0, true}, r);  // beta = 0: C not read
    run_case<double>({oa, op::T, 70, 33, 40, -1.0, 1.0}, r);
    for (double alpha : {0.0, 1.0, -1.0})
      for (double beta : {0.0, 1.0, -1.0}) {
        run_case<float>({oa, op::T, 129, 65, 17, alpha, beta, 1, 0, beta == 0.0}, r);
        run_case<double>({oa, op::N, 65, 129, 9, alpha, beta, 0, 1, beta == 0.0}, r);
      }
  }
}

TEST_F(BlasGemm, RowMajorForm) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_case<float>({oa, ob, 130, 67, 45, 1.0, 0.5, 2, 1, false, true}, r);
      run_case<double>({oa, ob, 9, 200, 33, -2.0, 0.0, 0, 0, true, true}, r);
    }
}

TEST_F(BlasGemm, BitwiseRepeatable) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t m = 300, n = 200, k = 1000;
  std::vector<float> a(std::size_t(m * k)), b(std::size_t(k * n));
  for (auto& x : a) x = static_cast<float>(r.uniform(-1, 1));
  for (auto& x : b) x = static_cast<float>(r.uniform(-1, 1));
  cuprim::device_buffer<float> da{std::span<const float>(a)}, db{std::span<const float>(b)}, c1(std::size_t(m * n)),
      c2(std::size_t(m * n));
  cuprim::blas::gemm(op::N, op::N, m, n, k, 1.f, da.data(), m, db.data(), k, 0.f, c1.data(), m);
  cuprim::blas::gemm(op::N, op::N, m, n, k, 1.f, da.data(), m, db.data(), k, 0.f, c2.data(), m);
  const auto h1 = c1.to_host_sync(), h2 = c2.to_host_sync();
  EXPECT_EQ(0, std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(float)));
}

TEST_F(BlasGemm, DoubleTensorCoreBitwiseRepeatable) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t m = 300, n = 200, k = 1000;
  std::vector<double> a(std::size_t(m * k)), b(std::size_t(k * n));
  for (auto& x : a) x = r.uniform(-1, 1);
  for (auto& x : b) x = r.uniform(-1, 1);
  cuprim::device_buffer<double> da{std::span<const double>(a)}, db{std::span<const double>(b)}, c1(std::size_t(m * n)),
      c2(std::size_t(m * n));
  cuprim::blas::gemm(op::N, op::N, m, n, k, 1.0, da.data(), m, db.data(), k, 0.0, c1.data(), m);
  cuprim::blas::gemm(op::N, op::N, m, n, k, 1.0, da.data(), m, db.data(), k, 0.0, c2.data(), m);
  const auto h1 = c1.to_host_sync(), h2 = c2.to_host_sync();
  EXPECT_EQ(0, std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(double)));
}

TEST_F(BlasGemm, BadArgumentsWriteNothing) {
  cuprim::device_buffer<float> a(64 * 64), c(64 * 64);
  cuprim_test::poison(c);
  EXPECT_THROW(cuprim::blas::gemm(op::N, op::N, 64, 64, 64, 1.f, a.data(), 63, a.data(), 64, 0.f, c.data(), 64),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::gemm(op::N, op::N, 64, 64, 64, 1.f, c.data(), 64, a.data(), 64, 0.f, c.data(), 64),
               cuprim::invalid_argument);
  EXPECT_TRUE(cuprim_test::bytes_are(c.data(), c.bytes()));
}

}  // namespace
