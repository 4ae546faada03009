// cuprim::blas::gemm with 16-bit inputs (__nv_bfloat16, __half; C of the input type or float) against a
// double-precision host reference on the exact input values: every op pair over sizes around the tensor-core tiles
// (256 x 128 x 64), larger shapes on both paths (the Hopper kernel where A and B are 16-byte aligned with leading
// dimensions of whole 16-byte vectors, the CUDA-core fallback where they are not), 2^12 + 3, alpha/beta edges, NaN
// in C with beta = 0, the row-major form, repeatability. An element's bound is
//   4·k·2^-24·|alpha|·Σ|a·b|  +  2^-p·(|result| + |beta·c|)     (p: 8 for bfloat16 C, 11 for half, 24 for float)
// and C's padding must keep its bytes. The tile configurations (tile_m 64 / 128, one consumer) and split k (forced
// splits, and the chooser's on skinny products) run the same cases, in the caller's workspace too; a workspace below
// gemm_workspace_bytes writes nothing; the plain call allocates only when it splits; a split call is captured in a
// CUDA graph.
#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/host/gemm.hpp>

#include <gtest/gtest.h>

#include "common/graph.hpp"
#include "common/test_util.hpp"
#include "gemm_check.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

using bf16 = __nv_bfloat16;
using cuprim::blas::op;
using cuprim_test::gpu_test;
using cuprim_test::rng;

struct tc_case {
  op op_a, op_b;
  std::int64_t m, n, k;
  double alpha, beta;
  std::int64_t pad = 0;    // added to every leading dimension (a multiple of 8 keeps the tensor-core path)
  std::int64_t shift = 0;  // elements past the allocations' start (a multiple of 8 keeps 16-byte alignment)
  bool nan_c = false;
  bool row_major = false;
  bool own_workspace = false;  // the workspace overload, given exactly gemm_workspace_bytes (poisoned)
};

std::string describe(const tc_case& c) {
  std::ostringstream os;
  os << (c.op_a == op::T ? "T" : "N") << (c.op_b == op::T ? "T" : "N") << " m " << c.m << " n " << c.n << " k " << c.k
     << " alpha " << c.alpha << " beta " << c.beta << " pad " << c.pad << " shift " << c.shift
     << (c.nan_c ? " NaN in C" : "") << (c.row_major ? " row-major" : "") << (c.own_workspace ? " workspace" : "");
  return os.str();
}

template <class T>
double to_double(T x) {
  return double(float(x));
}
template <class T>
T from_double(double x) {
  return T(float(x));
}
template <class T>
constexpr int precision_bits() {
  return std::is_same_v<T, float> ? 24 : std::is_same_v<T, __half> ? 11 : 8;
}
char trans(op o) { return o == op::T ? 'T' : 'N'; }

template <class In, class Out, auto Policy = cuprim::tuned>
void run_case(const tc_case& c, rng& r) {
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
  std::vector<In> a(std::size_t(lda * one(a_cols))), b(std::size_t(ldb * one(b_cols)));
  std::vector<Out> cin(std::size_t(ldc * one(c_cols)));
  for (auto& x : a) x = from_double<In>(r.uniform(-1, 1));
  for (auto& x : b) x = from_double<In>(r.uniform(-1, 1));
  for (auto& x : cin) x = c.nan_c ? from_double<Out>(NAN) : from_double<Out>(r.uniform(-1, 1));

  cuprim::device_buffer<In> da(a.size() + 8), db(b.size() + 8);
  cuprim::device_buffer<Out> dc(cin.size() + 8);
  CUPRIM_CUDA_CHECK(cudaMemcpy(da.data() + c.shift, a.data(), a.size() * sizeof(In), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(db.data() + c.shift, b.data(), b.size() * sizeof(In), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(dc.data() + c.shift, cin.data(), cin.size() * sizeof(Out), cudaMemcpyHostToDevice));
  const float alpha = float(c.alpha), beta = float(c.beta);
  if (c.own_workspace) {
    const std::size_t bytes =
        c.row_major ? cuprim::blas::gemm_row_major_workspace_bytes<In, Out, Policy>(c.op_a, c.op_b, c.m, c.n, c.k)
                    : cuprim::blas::gemm_workspace_bytes<In, Out, Policy>(c.op_a, c.op_b, c.m, c.n, c.k);
    cuprim::device_buffer<std::byte> ws(bytes);
    cuprim_test::poison(ws);
    const cuprim::workspace w{bytes ? ws.data() : nullptr, bytes};
    cuprim_test::allocations_forbidden guard;
    if (c.row_major)
      cuprim::blas::gemm_row_major<Policy>(c.op_a, c.op_b, c.m, c.n, c.k, alpha, da.data() + c.shift, lda,
                                           db.data() + c.shift, ldb, beta, dc.data() + c.shift, ldc, w);
    else
      cuprim::blas::gemm<Policy>(c.op_a, c.op_b, c.m, c.n, c.k, alpha, da.data() + c.shift, lda, db.data() + c.shift,
                                 ldb, beta, dc.data() + c.shift, ldc, w);
    CUPRIM_CUDA_CHECK(cudaDeviceSynchronize());
  } else if (c.row_major) {
    cuprim::blas::gemm_row_major<Policy>(c.op_a, c.op_b, c.m, c.n, c.k, alpha, da.data() + c.shift, lda,
                                         db.data() + c.shift, ldb, beta, dc.data() + c.shift, ldc);
  } else {
    cuprim::blas::gemm<Policy>(c.op_a, c.op_b, c.m, c.n, c.k, alpha, da.data() + c.shift, lda, db.data() + c.shift,
                               ldb, beta, dc.data() + c.shift, ldc);
  }
  std::vector<Out> got(cin.size());
  CUPRIM_CUDA_CHECK(cudaMemcpy(got.data(), dc.data() + c.shift, got.size() * sizeof(Out), cudaMemcpyDeviceToHost));

  // The column-major view (the row-major form computes Cᵀ = op(B)ᵀ·op(A)ᵀ over the same bytes).
  std::vector<double> ad(a.size()), bd(b.size()), cd(cin.size());
  std::transform(a.begin(), a.end(), ad.begin(), to_double<In>);
  std::transform(b.begin(), b.end(), bd.begin(), to_double<In>);
  std::transform(cin.begin(), cin.end(), cd.begin(), to_double<Out>);
  const char va = c.row_major ? trans(c.op_b) : trans(c.op_a), vb = c.row_major ? trans(c.op_a) : trans(c.op_b);
  const std::int64_t vm = c.row_major ? c.n : c.m, vn = c.row_major ? c.m : c.n;
  const std::vector<double>& xa = c.row_major ? bd : ad;
  const std::vector<double>& xb = c.row_major ? ad : bd;
  const std::int64_t lxa = c.row_major ? ldb : lda, lxb = c.row_major ? lda : ldb;
  const double out_u = std::ldexp(1.0, -precision_bits<Out>());
  const cuprim_test::gemm_view view{va, vb, vm, vn, c.k, c.alpha, xa.data(), lxa, xb.data(), lxb, c.beta, cd, ldc};
  const cuprim_test::gemm_check_result res = cuprim_test::gemm_check(
      view, [&](std::int64_t i, std::int64_t j) { return to_double(got[std::size_t(i + j * ldc)]); }, r,
      [&](double ref, double ab, double c0) {
        return 4.0 * double(c.k) * 0x1p-24 * ab + out_u * (std::fabs(ref) + c0);
      });
  EXPECT_EQ(res.bad, 0) << res.bad << " of " << res.checked << " elements out of bound; first: " << res.first;
  std::int64_t touched = 0;
  for (std::size_t e = 0; e < cin.size(); ++e) {
    const std::int64_t col = std::int64_t(e) / ldc, row = std::int64_t(e) % ldc;
    if (!(row < vm && col < vn) && std::memcmp(&got[e], &cin[e], sizeof(Out)) != 0) ++touched;
  }
  EXPECT_EQ(touched, 0) << "elements of C outside the m x n product were written";
}

class BlasGemmTensor : public gpu_test {};

const std::int64_t edge_sizes[] = {0, 1, 7, 16, 17, 63, 64, 65, 127, 128, 129, 255, 256, 257};

TEST_F(BlasGemmTensor, Bf16EveryOpAndSizeAroundTheTiles) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (std::int64_t m : edge_sizes)
        for (std::int64_t n : {1, 7, 16, 17, 64, 127, 128, 129, 257})
          for (std::int64_t k : {0, 1, 7, 16, 17, 63, 64, 65, 129})
            run_case<bf16, float>({oa, ob, m, n, k, 1.0, 0.0, 8, 0, true}, r);
}

TEST_F(BlasGemmTensor, EveryTypePairBothPaths) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (std::int64_t pad : {0, 8, 3}) {  // 3: leading dimensions off the 16-byte grid (the fallback)
        run_case<bf16, bf16>({oa, ob, 1000, 777, 515, 1.5, 0.0, pad, 0, true}, r);
        run_case<bf16, float>({oa, ob, 300, 2000, 449, -1.0, 0.5, pad, 8}, r);
        run_case<__half, __half>({oa, ob, 513, 129, 1027, 0.5, -1.0, pad, 0}, r);
        run_case<__half, float>({oa, ob, 4099, 64, 300, 1.0, 0.0, pad, 0, true}, r);
      }
}

TEST_F(BlasGemmTensor, UnalignedPointersTakeTheFallback) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_case<bf16, float>({oa, ob, 333, 257, 200, 1.0, 0.0, 0, 1, true}, r);
      run_case<__half, __half>({oa, ob, 256, 128, 64, -1.0, 2.0, 8, 4}, r);
    }
}

TEST_F(BlasGemmTensor, SizesPastTheFourThousands) {
  CUPRIM_TEST_RNG(r);
  constexpr std::int64_t big = (1 << 12) + 3;
  run_case<bf16, bf16>({op::N, op::N, big, big, big, 1.0, 0.0, 5, 0, true}, r);   // ld 4104: repacked to 4160
  run_case<bf16, float>({op::T, op::N, big, big, big, -1.0, 0.0, 5, 0, true}, r);
  run_case<__half, float>({op::N, op::T, big, 300, big, 0.5, 1.0, 0, 0}, r);      // ld 4099: repacked
}

// The plain form repacks operands whose columns are not 128-byte aligned (odd leading dimensions, multiples of 8 that
// are not of 64, pointers off 128 bytes) once the product reaches gemm_sm90_pack_min_volume; the workspace form
// keeps them as they are (the fallback for the odd ones).
TEST_F(BlasGemmTensor, PackedOperandsOddLeadingDimensions) {
  CUPRIM_TEST_RNG(r);
  static_assert(520.0 * 530.0 * 515.0 >= cuprim::blas::gemm_sm90_pack_min_volume);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_case<bf16, float>({oa, ob, 520, 530, 515, 1.0, 0.0, 1, 0, true}, r);    // odd ld: TMA cannot take them
      run_case<bf16, bf16>({oa, ob, 530, 515, 520, -1.0, 0.5, 8, 0}, r);         // ld a multiple of 8, not of 64
      run_case<__half, float>({oa, ob, 515, 520, 530, 0.5, 0.0, 0, 1, true}, r);  // pointers 2 bytes off
    }
  run_case<bf16, float>({op::N, op::T, 520, 530, 515, 1.0, 0.0, 1, 0, false, true}, r);        // row-major
  run_case<bf16, float>({op::T, op::N, 520, 530, 515, 1.0, 0.0, 1, 0, true, false, true}, r);  // workspace form
}

TEST_F(BlasGemmTensor, AlphaBetaEdgesFollowBlas) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T}) {
    run_case<bf16, float>({oa, op::N, 70, 33, 0, 1.0, 2.0, 8}, r);              // k = 0: C = beta C
    run_case<bf16, bf16>({oa, op::N, 70, 33, 0, 1.0, 0.0, 8, 0, true}, r);     // zeros over NaN
    run_case<__half, float>({oa, op::T, 70, 33, 40, 0.0, -1.0, 8}, r);         // alpha = 0
    for (double alpha : {0.0, 1.0, -1.0})
      for (double beta : {0.0, 1.0, -1.0}) {
        run_case<bf16, float>({oa, op::T, 300, 130, 70, alpha, beta, 8, 8, beta == 0.0}, r);
        run_case<__half, __half>({oa, op::N, 129, 257, 64, alpha, beta, 8, 0, beta == 0.0}, r);
      }
  }
}

TEST_F(BlasGemmTensor, RowMajorForm) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_case<bf16, bf16>({oa, ob, 300, 136, 72, 1.0, 0.5, 8, 0, false, true}, r);
      run_case<__half, float>({oa, ob, 9, 200, 33, -2.0, 0.0, 0, 0, true, true}, r);
    }
}

TEST_F(BlasGemmTensor, BitwiseRepeatable) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t m = 1000, n = 600, k = 2048;
  std::vector<bf16> a(std::size_t(m * k)), b(std::size_t(k * n));
  for (auto& x : a) x = from_double<bf16>(r.uniform(-1, 1));
  for (auto& x : b) x = from_double<bf16>(r.uniform(-1, 1));
  cuprim::device_buffer<bf16> da{std::span<const bf16>(a)}, db{std::span<const bf16>(b)};
  cuprim::device_buffer<float> c1(std::size_t(m * n)), c2(std::size_t(m * n));
  cuprim::blas::gemm(op::N, op::N, m, n, k, 1.f, da.data(), m, db.data(), k, 0.f, c1.data(), m);
  cuprim::blas::gemm(op::N, op::N, m, n, k, 1.f, da.data(), m, db.data(), k, 0.f, c2.data(), m);
  const auto h1 = c1.to_host_sync(), h2 = c2.to_host_sync();
  EXPECT_EQ(0, std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(float)));
}

// The other tensor-core policies of the large tile (4 stages storing C from registers, 2-block clusters multicasting
// op(A), the epilogue staged through shared memory and stored by TMA) sum in the same order: the same bits as the
// table's large-tile row for every op pair and edge shape, C's padding included (m not a multiple of 8 stores from
// registers).
template <class Out, auto Policy>
void same_bits_as_default(rng& r) {
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (auto [m, n, k] : {std::array<std::int64_t, 3>{256, 128, 64}, {1000, 777, 515}, {4099, 1000, 300},
                             {17, 300, 65}, {300, 17, 1}, {513, 385, 1024}}) {
        SCOPED_TRACE(testing::Message() << (oa == op::T ? "T" : "N") << (ob == op::T ? "T" : "N") << " " << m << " "
                                        << n << " " << k);
        const std::int64_t lda = ((oa == op::T ? k : m) + 7) / 8 * 8, ldb = ((ob == op::T ? n : k) + 7) / 8 * 8,
                           ldc = (m + 7) / 8 * 8 + 8;
        std::vector<bf16> a(std::size_t(lda * (oa == op::T ? m : k))), b(std::size_t(ldb * (ob == op::T ? k : n)));
        for (auto& x : a) x = from_double<bf16>(r.uniform(-1, 1));
        for (auto& x : b) x = from_double<bf16>(r.uniform(-1, 1));
        cuprim::device_buffer<bf16> da{std::span<const bf16>(a)}, db{std::span<const bf16>(b)};
        cuprim::device_buffer<Out> c1(std::size_t(ldc * n)), c2(std::size_t(ldc * n));
        cuprim_test::poison(c1);
        cuprim_test::poison(c2);
        // The large tile's table row, explicitly: the tuned call may take a smaller tile or split k here.
        constexpr cuprim::blas::gemm_sm90_policy base = cuprim::blas::gemm_sm90_policy_for(90);
        cuprim::blas::gemm<base>(oa, ob, m, n, k, 1.5f, da.data(), lda, db.data(), ldb, 0.f, c1.data(), ldc);
        cuprim::blas::gemm<Policy>(oa, ob, m, n, k, 1.5f, da.data(), lda, db.data(), ldb, 0.f, c2.data(), ldc);
        const auto h1 = c1.to_host_sync(), h2 = c2.to_host_sync();
        std::int64_t differ = 0;
        for (std::size_t e = 0; e < h1.size(); ++e) differ += std::memcmp(&h1[e], &h2[e], sizeof(Out)) != 0;
        EXPECT_EQ(differ, 0) << "elements differing from the default policy's (padding included)";
      }
}

TEST_F(BlasGemmTensor, OtherPoliciesGiveTheSameBits) {
  CUPRIM_TEST_RNG(r);
  constexpr cuprim::blas::gemm_sm90_policy direct{.stages = 4, .group = 8, .cluster = 1};
  constexpr cuprim::blas::gemm_sm90_policy cluster2{.stages = 4, .group = 8, .cluster = 2};
  constexpr cuprim::blas::gemm_sm90_policy staged2{.stages = 3, .group = 16, .cluster = 2, .staged_store = true};
  same_bits_as_default<bf16, direct>(r);
  same_bits_as_default<bf16, cluster2>(r);
  same_bits_as_default<bf16, staged2>(r);
  same_bits_as_default<float, staged2>(r);  // float C: the staged policy stores directly
}

TEST_F(BlasGemmTensor, BadArgumentsWriteNothing) {
  cuprim::device_buffer<bf16> a(64 * 64);
  cuprim::device_buffer<float> c(64 * 64);
  cuprim_test::poison(c);
  EXPECT_THROW(cuprim::blas::gemm(op::N, op::N, 64, 64, 64, 1.f, a.data(), 63, a.data(), 64, 0.f, c.data(), 64),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::blas::gemm(op::N, op::N, -1, 64, 64, 1.f, a.data(), 64, a.data(), 64, 0.f, c.data(), 64),
               cuprim::invalid_argument);
  cuprim::device_buffer<bf16> cb(64 * 64);
  EXPECT_THROW(cuprim::blas::gemm(op::N, op::N, 64, 64, 64, 1.f, cb.data(), 64, a.data(), 64, 0.f, cb.data(), 64),
               cuprim::invalid_argument);  // C overlaps A
  EXPECT_TRUE(cuprim_test::bytes_are(c.data(), c.bytes()));
}

// ---------------------------------------------------------------------------------------------------------------
// Tile configurations and split k.

// The tuned chooser's rows, each forced without a split, and forced splits of every tile (k slices of 64-step
// multiples and a ragged last slice).
constexpr cuprim::blas::gemm_sm90_policy tile128{.stages = 4, .group = 8, .cluster = 1, .staged_store = true,
                                                 .tile_m = 128, .consumers = 2};
constexpr cuprim::blas::gemm_sm90_policy tile64{.stages = 6, .group = 8, .cluster = 1, .staged_store = true,
                                                .tile_m = 64, .consumers = 2};
constexpr cuprim::blas::gemm_sm90_policy tile64x64{.stages = 8, .group = 8, .cluster = 1, .staged_store = true,
                                                   .tile_m = 64, .consumers = 1};
constexpr cuprim::blas::gemm_sm90_policy split3_64{.stages = 6, .group = 8, .cluster = 1, .staged_store = true,
                                                   .tile_m = 64, .consumers = 2, .splits = 3};
constexpr cuprim::blas::gemm_sm90_policy split4_64x64{.stages = 8, .group = 8, .cluster = 1, .staged_store = true,
                                                      .tile_m = 64, .consumers = 1, .splits = 4};
constexpr cuprim::blas::gemm_sm90_policy split2_128{.stages = 4, .group = 8, .cluster = 1, .staged_store = true,
                                                    .tile_m = 128, .consumers = 2, .splits = 2};
constexpr cuprim::blas::gemm_sm90_policy split5_256{.stages = 3, .group = 8, .cluster = 1, .staged_store = true,
                                                    .tile_m = 256, .consumers = 2, .splits = 5};

template <auto Policy>
void tile_edges(rng& r) {
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (std::int64_t m : {1, 16, 63, 64, 65, 128, 129, 257})
        for (std::int64_t n : {1, 64, 65, 128, 129})
          for (std::int64_t k : {1, 64, 65, 200}) run_case<bf16, float, Policy>({oa, ob, m, n, k, 1.0, 0.0, 8, 0, true}, r);
}

TEST_F(BlasGemmTensor, SmallTilesEveryOpAndSizeAroundTheTiles) {
  CUPRIM_TEST_RNG(r);
  tile_edges<tile128>(r);
  tile_edges<tile64>(r);
  tile_edges<tile64x64>(r);
}

// Every split policy: all op pairs, m and n at the tiles' edges, k not a multiple of 64 and ragged over the
// slices, beta 0 over NaN, beta ≠ 0, alpha 0 (the scaling path), each output type, the caller's workspace.
template <class In, class Out, auto Policy>
void split_cases(rng& r) {
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_case<In, Out, Policy>({oa, ob, 65, 129, 1000, 1.5, 0.0, 8, 0, true}, r);
      run_case<In, Out, Policy>({oa, ob, 16, 300, 777, -1.0, 0.5, 0, 8}, r);
      run_case<In, Out, Policy>({oa, ob, 257, 64, 2049, 0.5, -1.0, 8, 0, false, false, true}, r);
      run_case<In, Out, Policy>({oa, ob, 7, 17, 130, 1.0, 0.0, 8, 0, true, false, true}, r);   // fewer slices
      run_case<In, Out, Policy>({oa, ob, 64, 128, 64, 1.0, 2.0, 8, 0}, r);                     // one k step
      run_case<In, Out, Policy>({oa, ob, 40, 72, 300, 0.0, -1.0, 8, 0}, r);                    // alpha = 0
      run_case<In, Out, Policy>({oa, ob, 33, 200, 600, 2.0, 1.0, 8, 0, false, true}, r);       // row-major
    }
}

TEST_F(BlasGemmTensor, SplitKEveryOpAndEdge) {
  CUPRIM_TEST_RNG(r);
  split_cases<bf16, float, split3_64>(r);
  split_cases<bf16, bf16, split4_64x64>(r);
  split_cases<__half, __half, split2_128>(r);
  split_cases<bf16, float, split5_256>(r);
}

// The chooser on the shape sweep's skinny products (m = 16 .. 256, large n and k: the tuned call splits k): sampled
// elements against the host reference, plain and in the caller's workspace.
TEST_F(BlasGemmTensor, SkinnyProductsTheChooserSplits) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  for (std::int64_t m : {16, 64, 128, 256}) {
    run_case<bf16, bf16>({op::N, op::N, m, 4096, 8192, 1.0, 0.0, 0, 0, true}, r);
    run_case<bf16, float>({op::T, op::N, m, 4096, 8192, 1.0, 0.5, 0, 0, false, false, true}, r);
  }
  run_case<__half, __half>({op::N, op::T, 100, 1000, 5000, -1.0, 0.0, 8, 0, true}, r);
  run_case<bf16, float>({op::T, op::T, 1000, 1000, 1024, 1.0, 0.0, 8, 0, true, false, true}, r);
}

// Split sums are added in slice order: the same bits from call to call, plain and in the caller's workspace.
TEST_F(BlasGemmTensor, SplitKBitwiseRepeatable) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t m = 200, n = 300, k = 3000;
  std::vector<bf16> a(std::size_t(m * k)), b(std::size_t(k * n));
  for (auto& x : a) x = from_double<bf16>(r.uniform(-1, 1));
  for (auto& x : b) x = from_double<bf16>(r.uniform(-1, 1));
  cuprim::device_buffer<bf16> da{std::span<const bf16>(a)}, db{std::span<const bf16>(b)};
  cuprim::device_buffer<float> c1(std::size_t(m * n)), c2(std::size_t(m * n));
  const std::size_t bytes = cuprim::blas::gemm_workspace_bytes<bf16, float, split3_64>(op::N, op::N, m, n, k);
  ASSERT_GT(bytes, 0u);
  cuprim::device_buffer<std::byte> ws(bytes);
  cuprim::blas::gemm<split3_64>(op::N, op::N, m, n, k, 1.f, da.data(), m, db.data(), k, 0.f, c1.data(), m);
  cuprim::blas::gemm<split3_64>(op::N, op::N, m, n, k, 1.f, da.data(), m, db.data(), k, 0.f, c2.data(), m,
                                cuprim::workspace{ws.data(), bytes});
  const auto h1 = c1.to_host_sync(), h2 = c2.to_host_sync();
  EXPECT_EQ(0, std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(float)));
}

// A workspace below gemm_workspace_bytes: invalid_argument naming "workspace", nothing written; one byte fewer is
// too small, the exact size is enough; a product that does not split needs none.
TEST_F(BlasGemmTensor, WorkspaceTooSmallWritesNothing) {
  const std::int64_t m = 64, n = 128, k = 4096;
  cuprim::device_buffer<bf16> a(std::size_t(m * k)), b(std::size_t(k * n));
  cuprim_test::poison(a, 0x3c);  // bf16 0x3c3c: about 0.0115
  cuprim_test::poison(b, 0x3c);
  cuprim::device_buffer<float> c(std::size_t(m * n));
  cuprim_test::poison(c);
  const std::size_t need = cuprim::blas::gemm_workspace_bytes<bf16, float, split4_64x64>(op::N, op::N, m, n, k);
  ASSERT_EQ(need, std::size_t(4) * std::size_t(m * n) * sizeof(float));
  cuprim::device_buffer<std::byte> ws(need);
  try {
    cuprim::blas::gemm<split4_64x64>(op::N, op::N, m, n, k, 1.f, a.data(), m, b.data(), k, 0.f, c.data(), m,
                                     cuprim::workspace{ws.data(), need - 1});
    ADD_FAILURE() << "no invalid_argument for a workspace one byte short";
  } catch (const cuprim::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("workspace"), std::string::npos) << e.what();
  }
  CUPRIM_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(cuprim_test::bytes_are(c.data(), c.bytes()));
  cuprim::blas::gemm<split4_64x64>(op::N, op::N, m, n, k, 1.f, a.data(), m, b.data(), k, 0.f, c.data(), m,
                                   cuprim::workspace{ws.data(), need});
  CUPRIM_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_FALSE(cuprim_test::bytes_are(c.data(), c.bytes()));
  EXPECT_EQ(0u, (cuprim::blas::gemm_workspace_bytes<bf16, float, tile64>(op::N, op::N, m, n, k)));
  cuprim::blas::gemm<tile64>(op::N, op::N, m, n, k, 1.f, a.data(), m, b.data(), k, 0.f, c.data(), m,
                             cuprim::workspace{});
}

// The plain call takes memory from the resource only when its plan splits k: a large square and a forced
// unsplit tile allocate nothing; the chooser's skinny product takes exactly gemm_workspace_bytes.
TEST_F(BlasGemmTensor, PlainCallAllocatesOnlyToSplit) {
  const std::int64_t big = 2048;
  cuprim::device_buffer<bf16> a(std::size_t(big * big)), b(std::size_t(big * big));
  cuprim_test::poison(a, 0x3c);
  cuprim_test::poison(b, 0x3c);
  cuprim::device_buffer<bf16> c(std::size_t(big * big));
  {
    EXPECT_EQ(0u, (cuprim::blas::gemm_workspace_bytes<bf16, bf16>(op::N, op::N, big, big, big)));
    cuprim_test::allocations_forbidden guard;
    cuprim::blas::gemm(op::N, op::N, big, big, big, 1.f, a.data(), big, b.data(), big, 0.f, c.data(), big);
    cuprim::blas::gemm<tile64>(op::N, op::N, 16, big, big, 1.f, a.data(), 16, b.data(), big, 0.f, c.data(), 16);
    CUPRIM_CUDA_CHECK(cudaDeviceSynchronize());
  }
  // m = 16, n = 1024, k = 4096: a handful of tiles on a device of many SMs, so the chooser splits k.
  const std::int64_t n = big / 2, k = big * 2;
  const std::size_t bytes = cuprim::blas::gemm_workspace_bytes<bf16, bf16>(op::N, op::N, 16, n, k);
  const cuprim::blas::gemm_sm90_plan plan = cuprim::blas::gemm_sm90_plan_for(
      cuprim::current_tuned_arch(), 16, n, k, false, false, cuprim::get_device_info().sm_count);
  if (cuprim::get_device_info().arch() == 90) {
    EXPECT_GT(plan.splits, 1);
    EXPECT_EQ(bytes > 0, plan.splits > 1);
  }
  cuprim::blas::gemm(op::N, op::N, 16, n, k, 1.f, a.data(), 16, b.data(), k, 0.f, c.data(), 16);
  CUPRIM_CUDA_CHECK(cudaDeviceSynchronize());
}

// What compute-sanitizer memcheck runs (the device script): each tile and split once per op pair, at small sizes.
TEST_F(BlasGemmTensor, MemcheckSizedTilesAndSplits) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_case<bf16, float, tile128>({oa, ob, 129, 65, 130, 1.0, 0.0, 8, 0, true}, r);
      run_case<bf16, float, tile64>({oa, ob, 65, 129, 65, 1.0, 0.5, 8, 0}, r);
      run_case<bf16, float, tile64x64>({oa, ob, 17, 65, 200, 1.0, 0.0, 0, 0, true}, r);
      run_case<bf16, float, split3_64>({oa, ob, 65, 129, 1000, 1.5, 0.0, 8, 0, true, false, true}, r);
      run_case<bf16, bf16, split4_64x64>({oa, ob, 7, 65, 777, 1.0, -1.0, 8, 0}, r);
      run_case<__half, __half, split2_128>({oa, ob, 129, 64, 600, 1.0, 0.0, 8, 0, true}, r);
      run_case<bf16, float, split5_256>({oa, ob, 257, 129, 1300, 1.0, 0.0, 0, 0, true}, r);
    }
}

// A split call in the caller's workspace is captured in a CUDA graph (nothing allocated), and the graph computes
// on the inputs it finds at launch.
class BlasGemmTensorGraph : public cuprim_test::graph_test {};

TEST_F(BlasGemmTensorGraph, SplitKCapturedInAGraph) {
  const std::int64_t m = 64, n = 256, k = 1500;
  auto da = buffer<bf16>(std::size_t(m * k));
  auto db = buffer<bf16>(std::size_t(k * n));
  auto dc = buffer<float>(std::size_t(m * n));
  cuprim_test::graph_workspace ws(
      cuprim::blas::gemm_workspace_bytes<bf16, float, split3_64>(op::N, op::N, m, n, k), stream_);
  CUPRIM_TEST_RNG(r);
  std::vector<double> ad, bd;
  replay(
      ws,
      [&](cudaStream_t s) {
        cuprim::blas::gemm<split3_64>(op::N, op::N, m, n, k, 1.f, da.data(), m, db.data(), k, 0.f, dc.data(), m,
                                      ws.get(), s);
      },
      [&] {
        std::vector<bf16> a(da.size()), b(db.size());
        for (auto& x : a) x = from_double<bf16>(r.uniform(-1, 1));
        for (auto& x : b) x = from_double<bf16>(r.uniform(-1, 1));
        da.copy_from_host(std::span<const bf16>(a));
        db.copy_from_host(std::span<const bf16>(b));
        ad.assign(a.size(), 0);
        bd.assign(b.size(), 0);
        std::transform(a.begin(), a.end(), ad.begin(), to_double<bf16>);
        std::transform(b.begin(), b.end(), bd.begin(), to_double<bf16>);
        cuprim_test::poison(dc);
      },
      [&] {
        const auto got = dc.to_host_sync();
        std::int64_t bad = 0;
        for (std::int64_t j = 0; j < n; ++j)
          for (std::int64_t i = 0; i < m; ++i) {
            const auto e = cuprim::host::gemm_element('N', 'N', k, 1.0, ad.data(), m, bd.data(), k, 0.0,
                                                      static_cast<const double*>(nullptr), m, i, j);
            bad += !(std::fabs(double(got[std::size_t(i + j * m)]) - e.value) <= 4.0 * double(k) * 0x1p-24 * e.bound +
                                                                                  0x1p-24 * std::fabs(e.value));
          }
        EXPECT_EQ(bad, 0);
      });
}

}  // namespace
