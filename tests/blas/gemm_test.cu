// cuprim::blas::gemm against a double-precision host reference (the seed's MatrixMulOnHost, with the BLAS
// alpha/beta update): every op_a/op_b combination, sizes around the tiles, padded leading dimensions, unaligned
// pointers, alpha/beta edge values, NaN in C with beta = 0, k = 0, and the row-major form. The error bound of an
// element is (k + 4)·u·(|alpha|·Σ|a·b| + |beta·c|) with u the unit roundoff of T; rows of C past m (the padding of
// ldc) must keep their bytes.
#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/memory.hpp>

#include <gtest/gtest.h>

#include "common/test_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
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
};

std::string describe(const gemm_case& c) {
  std::ostringstream os;
  os << (c.op_a == op::T ? "T" : "N") << (c.op_b == op::T ? "T" : "N") << " m " << c.m << " n " << c.n << " k " << c.k
     << " alpha " << c.alpha << " beta " << c.beta << " pad " << c.pad << " shift " << c.shift
     << (c.nan_c ? " NaN in C" : "") << (c.row_major ? " row-major" : "");
  return os.str();
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
  const std::int64_t lda = std::max<std::int64_t>(1, a_rows) + c.pad, ldb = std::max<std::int64_t>(1, b_rows) + c.pad,
                     ldc = std::max<std::int64_t>(1, c_rows) + c.pad;
  std::vector<T> a(std::size_t(lda * std::max<std::int64_t>(1, a_cols))), b(std::size_t(ldb * std::max<std::int64_t>(1, b_cols))),
      cin(std::size_t(ldc * std::max<std::int64_t>(1, c_cols)));
  for (auto& x : a) x = static_cast<T>(r.uniform(-1, 1));
  for (auto& x : b) x = static_cast<T>(r.uniform(-1, 1));
  for (auto& x : cin) x = c.nan_c ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(r.uniform(-1, 1));
  // op(A)(i, p) and op(B)(p, j) and C(i, j) on the host, for either storage.
  const auto at = [&](std::int64_t i, std::int64_t p) -> double {
    const std::int64_t row = ta ? p : i, col = ta ? i : p;
    return c.row_major ? a[std::size_t(row * lda + col)] : a[std::size_t(row + col * lda)];
  };
  const auto bt = [&](std::int64_t p, std::int64_t j) -> double {
    const std::int64_t row = tb ? j : p, col = tb ? p : j;
    return c.row_major ? b[std::size_t(row * ldb + col)] : b[std::size_t(row + col * ldb)];
  };
  const auto c_at = [&](std::int64_t i, std::int64_t j) { return std::size_t(c.row_major ? i * ldc + j : i + j * ldc); };

  cuprim::device_buffer<T> da(a.size() + 4), db(b.size() + 4), dc(cin.size() + 4);
  CUPRIM_CUDA_CHECK(cudaMemcpy(da.data() + c.shift, a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(db.data() + c.shift, b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(dc.data() + c.shift, cin.data(), cin.size() * sizeof(T), cudaMemcpyHostToDevice));
  const T alpha = static_cast<T>(c.alpha), beta = static_cast<T>(c.beta);
  if (c.row_major)
    cuprim::blas::gemm_row_major(c.op_a, c.op_b, c.m, c.n, c.k, alpha, da.data() + c.shift, lda, db.data() + c.shift,
                                 ldb, beta, dc.data() + c.shift, ldc);
  else
    cuprim::blas::gemm(c.op_a, c.op_b, c.m, c.n, c.k, alpha, da.data() + c.shift, lda, db.data() + c.shift, ldb, beta,
                       dc.data() + c.shift, ldc);
  std::vector<T> got(cin.size());
  CUPRIM_CUDA_CHECK(cudaMemcpy(got.data(), dc.data() + c.shift, got.size() * sizeof(T), cudaMemcpyDeviceToHost));

  const double u = std::numeric_limits<T>::epsilon() / 2;
  std::int64_t bad = 0;
  std::string first;
  for (std::int64_t j = 0; j < c.n; ++j)
    for (std::int64_t i = 0; i < c.m; ++i) {
      double s = 0, s_abs = 0;
      for (std::int64_t p = 0; p < c.k; ++p) {
        const double x = at(i, p) * bt(p, j);
        s += x;
        s_abs += std::fabs(x);
      }
      const double old = cin[c_at(i, j)];
      const double ref = c.alpha * s + (c.beta == 0 ? 0.0 : c.beta * old);
      const double tol = double(c.k + 4) * u * (std::fabs(c.alpha) * s_abs + (c.beta == 0 ? 0 : std::fabs(c.beta * old)));
      const double g = got[c_at(i, j)];
      if (!(std::fabs(g - ref) <= tol) && !(g == ref)) {
        if (bad++ == 0) {
          std::ostringstream os;
          os << "(" << i << ", " << j << "): " << g << " vs " << ref;
          first = os.str();
        }
      }
    }
  EXPECT_EQ(bad, 0) << "first: " << first;
  // The padding of C (rows past m in the column-major view, columns past n in the row-major one) is untouched.
  std::int64_t touched = 0;
  for (std::size_t e = 0; e < cin.size(); ++e) {
    const std::int64_t major = std::int64_t(e) / ldc, minor = std::int64_t(e) % ldc;
    const bool inside = minor < c_rows && major < c_cols;
    if (!inside && std::memcmp(&got[e], &cin[e], sizeof(T)) != 0) ++touched;
  }
  EXPECT_EQ(touched, 0) << "elements of C outside the m x n product were written";
}

class BlasGemm : public gpu_test {};

const std::int64_t edge_sizes[] = {0, 1, 7, 17, 65, 128, 129};

TEST_F(BlasGemm, FloatEveryOpAndSizeAroundTheTiles) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (std::int64_t m : edge_sizes)
        for (std::int64_t n : edge_sizes)
          for (std::int64_t k : edge_sizes) run_case<float>({oa, ob, m, n, k, 1.0, 0.0}, r);
}

TEST_F(BlasGemm, DoubleEveryOpAndSizeAroundTheTiles) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (std::int64_t m : {0, 1, 63, 64, 65})
        for (std::int64_t n : {1, 64, 65})
          for (std::int64_t k : {0, 1, 8, 9, 129}) run_case<double>({oa, ob, m, n, k, -1.0, 0.5}, r);
}

TEST_F(BlasGemm, LargerShapesPaddedAndUnaligned) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_case<float>({oa, ob, 1000, 1000, 300, -1.0, 0.0, 1, 1, true}, r);
      run_case<float>({oa, ob, 4099, 63, 127, 2.0, -1.0, 5, 1}, r);
      run_case<double>({oa, ob, 17, 4099, 64, 1.0, 1.0, 3, 3}, r);
      run_case<double>({oa, ob, 129, 65, 257, 0.5, 0.25, 2, 1}, r);
    }
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
