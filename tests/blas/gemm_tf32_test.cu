// cuprim::blas::gemm of floats in the tf32 math modes (blas::math::tf32, tf32x3) against a double-precision host
// reference: every op pair over sizes around the tiles (256 x 128 x 32 for floats), larger shapes with padded, odd
// and unaligned leading dimensions (packed operands), 2^12 + 3, alpha/beta edges, NaN in C with beta = 0, the
// row-major form, the small tiles and split k (explicit policies), repeatability, tf32x3 measurably more accurate
// than tf32, the workspace forms (exactly gemm_workspace_bytes, nothing allocated; one byte short writes nothing; a
// CUDA graph). An element's bound (the header's, "Math modes"):
//   (e + 4·k·2^-24)·|alpha|·Σ|a·b|  +  2^-24·(|result| + |beta·c|)     e: 2^-9 for tf32, 2^-19 for tf32x3
// and C's padding must keep its bytes. Where the Hopper kernel cannot run (not sm_90, no sm_90a code) the modes
// compute in FP32 and the same cases hold.
#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/host/gemm.hpp>

#include <gtest/gtest.h>

#include "common/graph.hpp"
#include "common/test_util.hpp"
#include "gemm_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

using cuprim::blas::math;
using cuprim::blas::op;
using cuprim_test::gpu_test;
using cuprim_test::rng;

struct tf_case {
  math mode;
  op op_a, op_b;
  std::int64_t m, n, k;
  double alpha, beta;
  std::int64_t pad = 0;    // added to every leading dimension (not a multiple of 4: the operands are packed)
  std::int64_t shift = 0;  // elements past the allocations' start (not a multiple of 4: unaligned, packed)
  bool nan_c = false;
  bool row_major = false;
  bool own_workspace = false;  // the workspace overload, given exactly gemm_workspace_bytes (poisoned)
};

std::string describe(const tf_case& c) {
  std::ostringstream os;
  os << (c.mode == math::tf32x3 ? "tf32x3 " : c.mode == math::tf32 ? "tf32 " : "fp32 ")
     << (c.op_a == op::T ? "T" : "N") << (c.op_b == op::T ? "T" : "N") << " m " << c.m << " n " << c.n << " k " << c.k
     << " alpha " << c.alpha << " beta " << c.beta << " pad " << c.pad << " shift " << c.shift
     << (c.nan_c ? " NaN in C" : "") << (c.row_major ? " row-major" : "");
  return os.str();
}
char trans(op o) { return o == op::T ? 'T' : 'N'; }
double mode_error(math mode) { return mode == math::tf32x3 ? 0x1p-19 : mode == math::tf32 ? 0x1p-9 : 0.0; }

/// Runs one case; returns the largest |error| / (|alpha|·Σ|a·b|) seen (over the elements checked).
template <auto Policy = cuprim::tuned>
double run_case(const tf_case& c, rng& r) {
  SCOPED_TRACE(describe(c));
  const bool ta = c.op_a == op::T, tb = c.op_b == op::T;
  std::int64_t a_rows = ta ? c.k : c.m, a_cols = ta ? c.m : c.k, b_rows = tb ? c.n : c.k, b_cols = tb ? c.k : c.n;
  std::int64_t c_rows = c.m, c_cols = c.n;
  if (c.row_major) {
    std::swap(a_rows, a_cols);
    std::swap(b_rows, b_cols);
    std::swap(c_rows, c_cols);
  }
  const auto one = [](std::int64_t x) { return std::max<std::int64_t>(1, x); };
  const std::int64_t lda = one(a_rows) + c.pad, ldb = one(b_rows) + c.pad, ldc = one(c_rows) + c.pad;
  std::vector<float> a(std::size_t(lda * one(a_cols))), b(std::size_t(ldb * one(b_cols))), cin(std::size_t(ldc * one(c_cols)));
  for (auto& x : a) x = float(r.uniform(-1, 1));
  for (auto& x : b) x = float(r.uniform(-1, 1));
  for (auto& x : cin) x = c.nan_c ? NAN : float(r.uniform(-1, 1));

  cuprim::device_buffer<float> da(a.size() + 8), db(b.size() + 8), dc(cin.size() + 8);
  CUPRIM_CUDA_CHECK(cudaMemcpy(da.data() + c.shift, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(db.data() + c.shift, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(dc.data() + c.shift, cin.data(), cin.size() * sizeof(float), cudaMemcpyHostToDevice));
  const float alpha = float(c.alpha), beta = float(c.beta);
  if (c.own_workspace) {
    const std::size_t bytes =
        c.row_major ? cuprim::blas::gemm_row_major_workspace_bytes<Policy>(c.mode, c.op_a, c.op_b, c.m, c.n, c.k)
                    : cuprim::blas::gemm_workspace_bytes<Policy>(c.mode, c.op_a, c.op_b, c.m, c.n, c.k);
    cuprim::device_buffer<std::byte> ws(bytes);
    cuprim_test::poison(ws);
    const cuprim::workspace w{bytes ? ws.data() : nullptr, bytes};
    cuprim_test::allocations_forbidden guard;
    if (c.row_major)
      cuprim::blas::gemm_row_major<Policy>(c.mode, c.op_a, c.op_b, c.m, c.n, c.k, alpha, da.data() + c.shift, lda,
                                           db.data() + c.shift, ldb, beta, dc.data() + c.shift, ldc, w);
    else
      cuprim::blas::gemm<Policy>(c.mode, c.op_a, c.op_b, c.m, c.n, c.k, alpha, da.data() + c.shift, lda,
                                 db.data() + c.shift, ldb, beta, dc.data() + c.shift, ldc, w);
    CUPRIM_CUDA_CHECK(cudaDeviceSynchronize());
  } else if (c.row_major)
    cuprim::blas::gemm_row_major<Policy>(c.mode, c.op_a, c.op_b, c.m, c.n, c.k, alpha, da.data() + c.shift, lda,
                                         db.data() + c.shift, ldb, beta, dc.data() + c.shift, ldc);
  else
    cuprim::blas::gemm<Policy>(c.mode, c.op_a, c.op_b, c.m, c.n, c.k, alpha, da.data() + c.shift, lda,
                               db.data() + c.shift, ldb, beta, dc.data() + c.shift, ldc);
  std::vector<float> got(cin.size());
  CUPRIM_CUDA_CHECK(cudaMemcpy(got.data(), dc.data() + c.shift, got.size() * sizeof(float), cudaMemcpyDeviceToHost));

  // The column-major view (the row-major form computes Cᵀ = op(B)ᵀ·op(A)ᵀ over the same bytes).
  std::vector<double> ad(a.begin(), a.end()), bd(b.begin(), b.end()), cd(cin.begin(), cin.end());
  const char va = c.row_major ? trans(c.op_b) : trans(c.op_a), vb = c.row_major ? trans(c.op_a) : trans(c.op_b);
  const std::int64_t vm = c.row_major ? c.n : c.m, vn = c.row_major ? c.m : c.n;
  const std::vector<double>& xa = c.row_major ? bd : ad;
  const std::vector<double>& xb = c.row_major ? ad : bd;
  const std::int64_t lxa = c.row_major ? ldb : lda, lxb = c.row_major ? lda : ldb;
  const double e = mode_error(c.mode);
  const cuprim_test::gemm_view view{va, vb, vm, vn, c.k, c.alpha, xa.data(), lxa, xb.data(), lxb, c.beta, cd, ldc};
  const cuprim_test::gemm_check_result res = cuprim_test::gemm_check(
      view, [&](std::int64_t i, std::int64_t j) { return double(got[std::size_t(i + j * ldc)]); }, r,
      [&](double ref, double ab, double c0) {
        return (e + 4.0 * double(c.k) * 0x1p-24) * ab + 0x1p-24 * (std::fabs(ref) + c0);
      });
  EXPECT_EQ(res.bad, 0) << res.bad << " of " << res.checked << " elements out of bound; first: " << res.first;
  std::int64_t touched = 0;
  for (std::size_t x = 0; x < cin.size(); ++x) {
    const std::int64_t col = std::int64_t(x) / ldc, row = std::int64_t(x) % ldc;
    if (!(row < vm && col < vn) && std::memcmp(&got[x], &cin[x], sizeof(float)) != 0) ++touched;
  }
  EXPECT_EQ(touched, 0) << "elements of C outside the m x n product were written";
  return res.worst;
}

class BlasGemmTf32 : public gpu_test {};

TEST_F(BlasGemmTf32, EveryOpAndSizeAroundTheTiles) {
  CUPRIM_TEST_RNG(r);
  for (math mode : {math::tf32, math::tf32x3})
    for (op oa : {op::N, op::T})
      for (op ob : {op::N, op::T})
        for (std::int64_t m : {1, 17, 64, 129, 257})
          for (std::int64_t n : {1, 7, 64, 129})
            for (std::int64_t k : {1, 7, 31, 32, 33, 65})
              run_case({mode, oa, ob, m, n, k, 1.0, 0.0, 4, 0, true}, r);
}

TEST_F(BlasGemmTf32, PaddedOddAndUnalignedOperands) {
  CUPRIM_TEST_RNG(r);
  for (math mode : {math::tf32, math::tf32x3})
    for (op oa : {op::N, op::T})
      for (op ob : {op::N, op::T}) {
        run_case({mode, oa, ob, 1000, 777, 515, 1.5, 0.0, 0, 0, true}, r);
        run_case({mode, oa, ob, 300, 1000, 449, -1.0, 0.5, 4, 4}, r);   // aligned: TN takes the operands as they are
        run_case({mode, oa, ob, 513, 129, 1027, 0.5, -1.0, 3, 0}, r);   // odd leading dimensions
        run_case({mode, oa, ob, 333, 257, 200, 1.0, 0.0, 0, 1, true}, r);  // pointers 4 bytes off
      }
}

TEST_F(BlasGemmTf32, SizesPastTheFourThousands) {
  CUPRIM_TEST_RNG(r);
  constexpr std::int64_t big = (1 << 12) + 3;
  run_case({math::tf32x3, op::N, op::N, big, big, big, 1.0, 0.0, 5, 0, true}, r);
  run_case({math::tf32, op::T, op::N, big, big, big, -1.0, 0.0, 0, 0, true}, r);
  run_case({math::tf32x3, op::N, op::T, big, 300, big, 0.5, 1.0, 0, 0}, r);
}

TEST_F(BlasGemmTf32, AlphaBetaEdgesFollowBlas) {
  CUPRIM_TEST_RNG(r);
  for (math mode : {math::tf32, math::tf32x3})
    for (op oa : {op::N, op::T}) {
      run_case({mode, oa, op::N, 70, 33, 0, 1.0, 2.0, 4}, r);            // k = 0: C = beta C
      run_case({mode, oa, op::N, 70, 33, 0, 1.0, 0.0, 4, 0, true}, r);   // zeros over NaN
      for (double alpha : {0.0, 1.0, -1.0})
        for (double beta : {0.0, 1.0, -1.0}) run_case({mode, oa, op::T, 300, 130, 70, alpha, beta, 4, 4, beta == 0.0}, r);
    }
}

TEST_F(BlasGemmTf32, RowMajorForm) {
  CUPRIM_TEST_RNG(r);
  for (math mode : {math::tf32, math::tf32x3})
    for (op oa : {op::N, op::T})
      for (op ob : {op::N, op::T}) run_case({mode, oa, ob, 300, 136, 72, 1.0, 0.5, 4, 0, false, true}, r);
}

TEST_F(BlasGemmTf32, Fp32ModeIsTheFloatGemm) {
  CUPRIM_TEST_RNG(r);
  run_case({math::fp32, op::N, op::T, 300, 136, 72, 1.0, 0.5, 4, 0}, r);
}

// The small tiles and split k, forced (the chooser takes them on small and skinny products).
TEST_F(BlasGemmTf32, SmallTilesAndSplitK) {
  CUPRIM_TEST_RNG(r);
  constexpr cuprim::blas::gemm_sm90_policy t128{.stages = 3, .group = 8, .cluster = 1, .tile_m = 128, .consumers = 2};
  constexpr cuprim::blas::gemm_sm90_policy t64s3{.stages = 4, .group = 8, .cluster = 1, .tile_m = 64, .consumers = 1,
                                                 .splits = 3};
  constexpr cuprim::blas::gemm_sm90_policy c2{.stages = 3, .group = 8, .cluster = 2, .tile_m = 128};
  for (math mode : {math::tf32, math::tf32x3})
    for (op oa : {op::N, op::T}) {
      run_case<t128>({mode, oa, op::N, 300, 257, 129, 1.0, 0.5, 4}, r);
      run_case<t64s3>({mode, oa, op::T, 129, 65, 1000, -1.0, 0.0, 0, 0, true}, r);
      run_case<t64s3>({mode, oa, op::N, 16, 4096, 2048, 1.0, 1.0, 0, 0}, r);
      run_case<c2>({mode, oa, op::N, 1000, 777, 515, 1.0, 0.0, 0, 0, true}, r);
    }
  // The chooser's split on a skinny product.
  run_case({math::tf32x3, op::N, op::N, 16, 4096, 8192, 1.0, 0.0, 0, 0, true}, r);
}

// tf32x3 carries the products to about 2^-20: on the same inputs its worst error is well below tf32's.
TEST_F(BlasGemmTf32, ThreePassesAreMoreAccurate) {
  CUPRIM_TEST_RNG(r);
  if (!cuprim::has_device() || cuprim::get_device_info().arch() != 90) GTEST_SKIP() << "needs the Hopper kernel";
  rng r1 = r, r3 = r;
  const double e1 = run_case({math::tf32, op::N, op::N, 256, 256, 1024, 1.0, 0.0}, r1);
  const double e3 = run_case({math::tf32x3, op::N, op::N, 256, 256, 1024, 1.0, 0.0}, r3);
  EXPECT_LT(e3 * 8, e1) << "tf32x3 worst relative error " << e3 << ", tf32 " << e1;
  EXPECT_LT(e3, 0x1p-16);
}

// The workspace forms: every op pair, both modes, the split and small tiles, odd and unaligned operands (tf32 then
// computes in FP32 for a K-major operand TMA cannot read; the bound holds either way), the row-major form.
TEST_F(BlasGemmTf32, WorkspaceForms) {
  CUPRIM_TEST_RNG(r);
  constexpr cuprim::blas::gemm_sm90_policy t64s3{.stages = 4, .group = 8, .cluster = 1, .tile_m = 64, .consumers = 1,
                                                 .splits = 3};
  for (math mode : {math::tf32, math::tf32x3})
    for (op oa : {op::N, op::T})
      for (op ob : {op::N, op::T}) {
        run_case({mode, oa, ob, 300, 257, 129, 1.0, 0.5, 4, 0, false, false, true}, r);
        run_case({mode, oa, ob, 129, 65, 100, -1.0, 0.0, 3, 1, true, false, true}, r);
        run_case<t64s3>({mode, oa, ob, 65, 129, 1000, 1.5, 0.0, 0, 0, true, false, true}, r);
        run_case({mode, oa, ob, 200, 136, 72, 1.0, 0.5, 4, 0, false, true, true}, r);
      }
}

TEST_F(BlasGemmTf32, WorkspaceTooSmallWritesNothing) {
  const std::int64_t m = 200, n = 300, k = 256;
  cuprim::device_buffer<float> a(std::size_t(m * k)), b(std::size_t(k * n)), c(std::size_t(m * n));
  cuprim_test::poison(a, 0x3c);
  cuprim_test::poison(b, 0x3c);
  cuprim_test::poison(c);
  for (math mode : {math::tf32, math::tf32x3}) {
    const std::size_t need = cuprim::blas::gemm_workspace_bytes(mode, op::N, op::N, m, n, k);
    if (cuprim::get_device_info().arch() != 90) GTEST_SKIP() << "the tensor-core path needs an sm_90 device";
    ASSERT_GT(need, 0u);  // NN: op(A) = A is MN-major, so A is packed
    cuprim::device_buffer<std::byte> ws(need);
    try {
      cuprim::blas::gemm(mode, op::N, op::N, m, n, k, 1.f, a.data(), m, b.data(), k, 0.f, c.data(), m,
                         cuprim::workspace{ws.data(), need - 1});
      ADD_FAILURE() << "no invalid_argument for a workspace one byte short";
    } catch (const cuprim::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("workspace"), std::string::npos) << e.what();
    }
    CUPRIM_CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(cuprim_test::bytes_are(c.data(), c.bytes()));
  }
  EXPECT_EQ(0u, cuprim::blas::gemm_workspace_bytes(math::fp32, op::N, op::N, m, n, k));
  // tf32, TN, aligned: nothing to pack, no workspace.
  EXPECT_EQ(0u, cuprim::blas::gemm_workspace_bytes(math::tf32, op::T, op::N, m, n, k));
}

TEST_F(BlasGemmTf32, BitwiseRepeatable) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t m = 1000, n = 600, k = 2048;
  std::vector<float> a(std::size_t(m * k)), b(std::size_t(k * n));
  for (auto& x : a) x = float(r.uniform(-1, 1));
  for (auto& x : b) x = float(r.uniform(-1, 1));
  cuprim::device_buffer<float> da{std::span<const float>(a)}, db{std::span<const float>(b)};
  for (math mode : {math::tf32, math::tf32x3}) {
    cuprim::device_buffer<float> c1(std::size_t(m * n)), c2(std::size_t(m * n));
    cuprim::blas::gemm(mode, op::N, op::N, m, n, k, 1.f, da.data(), m, db.data(), k, 0.f, c1.data(), m);
    cuprim::blas::gemm(mode, op::N, op::N, m, n, k, 1.f, da.data(), m, db.data(), k, 0.f, c2.data(), m);
    const auto h1 = c1.to_host_sync(), h2 = c2.to_host_sync();
    EXPECT_EQ(0, std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(float)));
  }
}

TEST_F(BlasGemmTf32, BadArgumentsWriteNothing) {
  cuprim::device_buffer<float> a(64 * 64), c(64 * 64);
  cuprim_test::poison(c);
  EXPECT_THROW(cuprim::blas::gemm(math(7), op::N, op::N, 64, 64, 64, 1.f, a.data(), 64, a.data(), 64, 0.f, c.data(), 64),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::gemm(math::tf32, op::N, op::N, 64, 64, 64, 1.f, a.data(), 63, a.data(), 64, 0.f, c.data(),
                                  64),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::gemm(math::tf32x3, op::N, op::N, 64, -1, 64, 1.f, a.data(), 64, a.data(), 64, 0.f,
                                  c.data(), 64),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::gemm(math::tf32x3, op::N, op::N, 64, 64, 64, 1.f, c.data(), 64, a.data(), 64, 0.f,
                                  c.data(), 64),
               cuprim::invalid_argument);  // C overlaps A
  EXPECT_TRUE(cuprim_test::bytes_are(c.data(), c.bytes()));
}

}  // namespace

namespace {

// A tf32x3 call in the caller's workspace (both operands packed, k split) is captured in a CUDA graph (nothing
// allocated), and the graph computes on the inputs it finds at launch.
class BlasGemmTf32Graph : public cuprim_test::graph_test {};

TEST_F(BlasGemmTf32Graph, CapturedInAGraph) {
  constexpr cuprim::blas::gemm_sm90_policy split3{.stages = 4, .group = 8, .cluster = 1, .tile_m = 64, .consumers = 1,
                                                  .splits = 3};
  const std::int64_t m = 64, n = 256, k = 1500;
  auto da = buffer<float>(std::size_t(m * k));
  auto db = buffer<float>(std::size_t(k * n));
  auto dc = buffer<float>(std::size_t(m * n));
  cuprim_test::graph_workspace ws(
      cuprim::blas::gemm_workspace_bytes<split3>(math::tf32x3, op::N, op::N, m, n, k), stream_);
  CUPRIM_TEST_RNG(r);
  std::vector<double> ad, bd;
  replay(
      ws,
      [&](cudaStream_t s) {
        cuprim::blas::gemm<split3>(math::tf32x3, op::N, op::N, m, n, k, 1.f, da.data(), m, db.data(), k, 0.f,
                                   dc.data(), m, ws.get(), s);
      },
      [&] {
        std::vector<float> a(da.size()), b(db.size());
        for (auto& x : a) x = float(r.uniform(-1, 1));
        for (auto& x : b) x = float(r.uniform(-1, 1));
        da.copy_from_host(std::span<const float>(a));
        db.copy_from_host(std::span<const float>(b));
        ad.assign(a.begin(), a.end());
        bd.assign(b.begin(), b.end());
        cuprim_test::poison(dc);
      },
      [&] {
        const auto got = dc.to_host_sync();
        std::int64_t bad = 0;
        for (std::int64_t j = 0; j < n; ++j)
          for (std::int64_t i = 0; i < m; ++i) {
            const auto e = cuprim::host::gemm_element('N', 'N', k, 1.0, ad.data(), m, bd.data(), k, 0.0,
                                                      static_cast<const double*>(nullptr), m, i, j);
            bad += !(std::fabs(double(got[std::size_t(i + j * m)]) - e.value) <=
                     (0x1p-19 + 4.0 * double(k) * 0x1p-24) * e.bound + 0x1p-24 * std::fabs(e.value));
          }
        EXPECT_EQ(bad, 0);
      });
}

}  // namespace
