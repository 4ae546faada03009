// Argument validation and planning of the out-of-core GEMM (with the cut of its copies where locked ranges meet), and
// the host GEMM reference. Every rule checked here is enforced before any CUDA call, so these tests run (label host)
// on a machine without a GPU: the matrices are small host arrays and a rejected call must leave C untouched.
#include <cuprim/ooc/gemm.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/host/gemm.hpp>
#include <cuprim/ooc/staging.hpp>

#include <gtest/gtest.h>

#include "common/expect_invalid.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using cuprim::ooc::gemm_mode;

constexpr const char* fn = "cuprim::ooc::gemm_sync";

/// cuprim_test::expect_invalid, from gemm_sync unless said.
template <class F>
void expect_invalid(F&& call, const std::string& argument, const std::string& function = fn) {
  cuprim_test::expect_invalid(static_cast<F&&>(call), argument, function);
}

struct mats {
  std::int64_t m = 6, n = 5, k = 4;
  std::vector<double> A = std::vector<double>(64, 1.0), B = std::vector<double>(64, 2.0),
                      C = std::vector<double>(64, 7.0);
};

cuprim::ooc::gemm_options budget(std::size_t bytes, gemm_mode mode = gemm_mode::three_way) {
  cuprim::ooc::gemm_options o;
  o.device_budget_bytes = bytes;
  o.mode = mode;
  return o;
}

TEST(OocGemmArgs, RejectsBadArgumentsBeforeTouchingC) {
  mats x;
  const auto o = budget(std::size_t(1) << 20);
  auto call = [&](char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k, const double* A, std::int64_t lda,
                  const double* B, std::int64_t ldb, double* C, std::int64_t ldc,
                  const cuprim::ooc::gemm_options& opt) {
    return [=] { cuprim::ooc::gemm_sync<double>(ta, tb, m, n, k, 1.0, A, lda, B, ldb, 0.5, C, ldc, opt); };
  };
  const double* A = x.A.data();
  const double* B = x.B.data();
  double* C = x.C.data();
  expect_invalid(call('X', 'N', 6, 5, 4, A, 6, B, 4, C, 6, o), "transa");
  expect_invalid(call('N', 'q', 6, 5, 4, A, 6, B, 4, C, 6, o), "transb");
  expect_invalid(call('N', 'N', -1, 5, 4, A, 6, B, 4, C, 6, o), "m");
  expect_invalid(call('N', 'N', 6, -5, 4, A, 6, B, 4, C, 6, o), "n");
  expect_invalid(call('N', 'N', 6, 5, -4, A, 6, B, 4, C, 6, o), "k");
  // Leading dimensions: stored A is m x k ('N') or k x m ('T'); stored B k x n ('N') or n x k ('T').
  expect_invalid(call('N', 'N', 6, 5, 4, A, 5, B, 4, C, 6, o), "lda");
  expect_invalid(call('T', 'N', 6, 5, 4, A, 3, B, 4, C, 6, o), "lda");
  expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 3, C, 6, o), "ldb");
  expect_invalid(call('N', 'T', 6, 5, 4, A, 6, B, 4, C, 6, o), "ldb");  // 'T': ldb >= n = 5
  expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 4, C, 5, o), "ldc");
  expect_invalid(call('N', 'N', 0, 5, 4, A, 1, B, 4, C, 0, o), "ldc");  // ldc >= max(1, m)
  expect_invalid(call('N', 'N', 6, 5, 4, nullptr, 6, B, 4, C, 6, o), "A");
  expect_invalid(call('N', 'N', 6, 5, 4, A, 6, nullptr, 4, C, 6, o), "B");
  expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 4, nullptr, 6, o), "C");
  // C overlapping an input.
  expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 4, x.A.data() + 10, 6, o), "C");
  expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 4, x.B.data(), 6, o), "C");
  // Options.
  auto bad = o;
  bad.cpu_share = 1.5;
  expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 4, C, 6, bad), "options.cpu_share");
  bad.cpu_share = std::numeric_limits<double>::quiet_NaN();
  expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 4, C, 6, bad), "options.cpu_share");
  bad = o;
  bad.cpu_threads = -2;
  expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 4, C, 6, bad), "options.cpu_threads");
  bad = o;
  bad.tile_n = -1;
  expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 4, C, 6, bad), "options.tile_m");
  bad = o;
  bad.mode = static_cast<gemm_mode>(17);
  expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 4, C, 6, bad), "options.mode");
  bad = o;
  bad.pageable = static_cast<cuprim::ooc::gemm_pageable>(9);
  expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 4, C, 6, bad), "options.pageable");
  for (int threads : {-1, 65}) {
    bad = o;
    bad.host_threads = threads;
    expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 4, C, 6, bad), "options.host_threads");
  }
  // A budget too small for the smallest tile (every mode), and for a requested tile.
  for (auto mode : {gemm_mode::serial, gemm_mode::two_way, gemm_mode::three_way}) {
    expect_invalid(call('N', 'N', 6, 5, 4, A, 6, B, 4, C, 6, budget(64, mode)), "options.device_budget_bytes");
  }
  auto big_tile = budget(4096);
  big_tile.tile_m = 6;
  big_tile.tile_n = 5;
  big_tile.tile_k = 4;
  EXPECT_NO_THROW(cuprim::ooc::gemm_plan<double>('N', 'N', 6, 5, 4, 1.0, A, 6, B, 4, 0.5, C, 6, big_tile));
  std::vector<double> A2(300 * 300, 1.0), B2(300 * 300, 1.0), C2(300 * 300, 1.0);
  auto o2 = budget(100000);
  o2.tile_m = 300;
  o2.tile_n = 300;
  expect_invalid([&] { cuprim::ooc::gemm_sync<double>('N', 'N', 300, 300, 300, 1.0, A2.data(), 300, B2.data(), 300,
                                                       1.0, C2.data(), 300, o2); },
                 "options.device_budget_bytes");
  for (double c : x.C) EXPECT_EQ(c, 7.0);  // nothing was written
  for (double c : C2) EXPECT_EQ(c, 1.0);
}

TEST(OocGemmArgs, PlanRejectsLikeSync) {
  mats x;
  expect_invalid([&] { cuprim::ooc::gemm_plan<float>('N', 'N', 6, 5, 4, 1.f, nullptr, 6, nullptr, 4, 0.f, nullptr, 6,
                                                    budget(1 << 20)); },
                 "A", "cuprim::ooc::gemm_plan");
  expect_invalid([&] { cuprim::ooc::gemm_plan<double>('N', 'N', 6, 5, 4, 1.0, x.A.data(), 6, x.B.data(), 4, 0.0,
                                                     x.C.data(), 6, budget(10)); },
                 "options.device_budget_bytes", "cuprim::ooc::gemm_plan");
}

TEST(OocGemmArgs, EmptyProblemsAndScaleOnlyNeedNoDevice) {
  mats x;
  const auto o = budget(std::size_t(1) << 20);
  // m == 0 / n == 0: nothing happens (null pointers allowed).
  EXPECT_NO_THROW(cuprim::ooc::gemm_sync<double>('N', 'N', 0, 5, 4, 1.0, nullptr, 1, nullptr, 4, 1.0, nullptr, 1, o));
  EXPECT_NO_THROW(cuprim::ooc::gemm_sync<double>('N', 'N', 6, 0, 4, 1.0, nullptr, 6, nullptr, 4, 1.0, nullptr, 6, o));
  // k == 0: C = beta * C on the host; beta == 0 clears NaN.
  std::vector<double> C(30, 3.0);
  cuprim::ooc::gemm_sync<double>('N', 'N', 6, 5, 0, 1.0, nullptr, 6, nullptr, 1, -2.0, C.data(), 6, o);
  for (double c : C) EXPECT_EQ(c, -6.0);
  std::fill(C.begin(), C.end(), std::numeric_limits<double>::quiet_NaN());
  cuprim::ooc::gemm_sync<double>('N', 'N', 6, 5, 4, 0.0, x.A.data(), 6, x.B.data(), 4, 0.0, C.data(), 6, o);
  for (double c : C) EXPECT_EQ(c, 0.0);
}

TEST(OocGemmPlan, SeedShapeUnderACap) {
  // m = n = 8192, k = 288 (the seed's shape), C = 512 MiB, capped to 256 MiB: full-column tiles, one k-panel,
  // A sent once, B once, C once each way.
  const std::int64_t m = 8192, n = 8192, k = 288;
  std::vector<double> dummy(1);
  const double* A = reinterpret_cast<const double*>(std::uintptr_t(1) << 40);
  const double* B = reinterpret_cast<const double*>(std::uintptr_t(2) << 40);
  const double* C = reinterpret_cast<const double*>(std::uintptr_t(3) << 40);
  for (auto mode : {gemm_mode::serial, gemm_mode::two_way, gemm_mode::three_way}) {
    const std::size_t cap = std::size_t(256) << 20;
    const auto r = cuprim::ooc::gemm_plan<double>('N', 'N', m, n, k, 1.0, A, m, B, k, 0.5, C, m, budget(cap, mode));
    EXPECT_LE(r.device_bytes, cap);
    EXPECT_EQ(r.tile_k, k);
    EXPECT_EQ(r.tile_m, m);
    EXPECT_GE(r.tiles, 16);
    EXPECT_EQ(r.tiles, ((m + r.tile_m - 1) / r.tile_m) * ((n + r.tile_n - 1) / r.tile_n));
    EXPECT_DOUBLE_EQ(r.bytes_d2h, double(m) * n * 8);
    EXPECT_DOUBLE_EQ(r.bytes_h2d, double(m) * n * 8 + double(m) * k * 8 + double(k) * n * 8);
    // beta == 0: C is not sent.
    const auto r0 = cuprim::ooc::gemm_plan<double>('N', 'N', m, n, k, 1.0, A, m, B, k, 0.0, C, m, budget(cap, mode));
    EXPECT_DOUBLE_EQ(r0.bytes_h2d, double(m) * k * 8 + double(k) * n * 8);
  }
  // A tight cap: smaller tiles, several k-panels, still within the cap.
  for (std::size_t cap : {std::size_t(4) << 20, std::size_t(1) << 20, std::size_t(200) << 10}) {
    const auto r = cuprim::ooc::gemm_plan<double>('T', 'T', m, n, k, 1.0, A, k, B, n, 1.0, C, m, budget(cap));
    EXPECT_LE(r.device_bytes, cap);
    EXPECT_GT(r.tiles, 32);
  }
  // Four-way with a fixed share needs no measurement: the CPU's columns are the last ones.
  if (cuprim::ooc::cpu_blas_available()) {
    auto o = budget(std::size_t(256) << 20, cuprim::ooc::gemm_mode::four_way);
    o.cpu_share = 0.25;
    const auto r = cuprim::ooc::gemm_plan<double>('N', 'N', m, n, k, 1.0, A, m, B, k, 0.5, C, m, o);
    EXPECT_EQ(r.cpu_columns, n / 4);
    EXPECT_EQ(r.gpu_columns, n - n / 4);
    EXPECT_DOUBLE_EQ(r.bytes_d2h, double(m) * (n - n / 4) * 8);
  }
}

// The cut of a host block (a matrix block: runs of `width` bytes, `pitch` apart) by an address range, which splits
// a copy where two locked ranges meet: the parts hold exactly the block's bytes inside the range, each once, in
// address order, each a set of whole runs or one piece of a run.
TEST(OocGemmPlan, BlockPartsCoverExactlyTheBytesInARange) {
  std::mt19937_64 g(777);
  for (int trial = 0; trial < 4000; ++trial) {
    const std::size_t width = 1 + g() % 40, pitch = width + (trial % 3 == 0 ? 0 : g() % 25), runs = 1 + g() % 9;
    const std::uintptr_t base = 1000 + g() % 64;
    const std::uintptr_t end = base + (runs - 1) * pitch + width;
    std::uintptr_t lo = base - 20 + g() % (end - base + 40), hi = base - 20 + g() % (end - base + 40);
    if (lo > hi) std::swap(lo, hi);
    std::vector<int> seen(end + 64, 0);
    std::uintptr_t last = 0;
    using cuprim::ooc::detail::block_part;
    cuprim::ooc::detail::for_each_part_in(base, width, pitch, runs, lo, hi, [&](const block_part& q) {
      ASSERT_GT(q.count, 0u);
      ASSERT_GT(q.bytes, 0u);
      ASSERT_TRUE(q.count == 1 || (q.offset == 0 && q.bytes == width)) << "several runs are whole runs";
      ASSERT_LE(q.offset + q.bytes, width);
      ASSERT_LE(q.first + q.count, runs);
      const std::uintptr_t first_byte = base + q.first * pitch + q.offset;
      ASSERT_GE(first_byte, last) << "parts in address order";
      for (std::size_t r = 0; r < q.count; ++r)
        for (std::size_t b = 0; b < q.bytes; ++b) ++seen[base + (q.first + r) * pitch + q.offset + b];
      last = base + (q.first + q.count - 1) * pitch + q.offset + q.bytes;
    });
    for (std::uintptr_t a = 0; a < seen.size(); ++a) {
      const bool in_block = a >= base && a < end && (a - base) % pitch < width;
      ASSERT_EQ(seen[a], in_block && a >= lo && a < hi ? 1 : 0)
          << "byte " << a << ": width " << width << " pitch " << pitch << " runs " << runs << " base " << base
          << " range [" << lo << ", " << hi << ")";
    }
  }
}

// The reference against an independent formulation: explicit transposes, then a plain triple loop in double.
TEST(HostGemm, MatchesExplicitTransposes) {
  std::mt19937_64 g(12345);
  std::uniform_real_distribution<double> u(-1, 1);
  const std::int64_t m = 7, n = 9, k = 5;
  for (char ta : {'N', 'T'})
    for (char tb : {'N', 'T'}) {
      const std::int64_t lda = (ta == 'N' ? m : k) + 2, ldb = (tb == 'N' ? k : n) + 1, ldc = m + 3;
      std::vector<double> A(std::size_t(lda * (ta == 'N' ? k : m))), B(std::size_t(ldb * (tb == 'N' ? n : k))),
          C(std::size_t(ldc * n));
      for (auto& v : A) v = u(g);
      for (auto& v : B) v = u(g);
      for (auto& v : C) v = u(g);
      std::vector<double> opA(m * k), opB(k * n);  // dense, op applied
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t l = 0; l < k; ++l) opA[i * k + l] = ta == 'N' ? A[i + l * lda] : A[l + i * lda];
      for (std::int64_t l = 0; l < k; ++l)
        for (std::int64_t j = 0; j < n; ++j) opB[l * n + j] = tb == 'N' ? B[l + j * ldb] : B[j + l * ldb];
      std::vector<double> expect(C);
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (std::int64_t l = 0; l < k; ++l) s += opA[i * k + l] * opB[l * n + j];
          expect[i + j * ldc] = 1.25 * s - 0.5 * C[i + j * ldc];
        }
      std::vector<double> got(C);
      cuprim::host::gemm<double>(ta, tb, m, n, k, 1.25, A.data(), lda, B.data(), ldb, -0.5, got.data(), ldc);
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < ldc; ++i) {
          const std::size_t x = std::size_t(i + j * ldc);
          if (i < m) EXPECT_NEAR(got[x], expect[x], 1e-13) << ta << tb << " " << i << "," << j;
          else EXPECT_EQ(got[x], C[x]) << "padding row written";
        }
    }
  // beta == 0 does not read C.
  std::vector<double> A(4, 1.0), B(4, 1.0), C(4, std::numeric_limits<double>::quiet_NaN());
  cuprim::host::gemm<double>('N', 'N', 2, 2, 2, 1.0, A.data(), 2, B.data(), 2, 0.0, C.data(), 2);
  for (double c : C) EXPECT_EQ(c, 2.0);
}

// cuprim::ooc::cpu_blas_gemm: the CPU BLAS alone (the lab's CPU comparison). Its rules are gemm_sync's; with a CPU
// BLAS on the machine the product matches the host reference (gemm_element, on every element).
TEST(CpuBlasGemm, ArgumentRulesAsGemmSync) {
  mats x;
  const char* cpu_fn = "cuprim::ooc::cpu_blas_gemm";
  expect_invalid([&] { cuprim::ooc::cpu_blas_gemm<double>('X', 'N', 6, 5, 4, 1.0, x.A.data(), 6, x.B.data(), 4, 0.0,
                                                          x.C.data(), 6); }, "transa", cpu_fn);
  expect_invalid([&] { cuprim::ooc::cpu_blas_gemm<double>('N', 'N', 6, 5, 4, 1.0, x.A.data(), 5, x.B.data(), 4, 0.0,
                                                          x.C.data(), 6); }, "lda", cpu_fn);
  expect_invalid([&] { cuprim::ooc::cpu_blas_gemm<double>('N', 'N', 6, 5, 4, 1.0, x.A.data(), 6, x.B.data(), 4, 0.0,
                                                          x.C.data(), 6, -1); }, "threads", cpu_fn);
  for (double c : x.C) EXPECT_EQ(c, 7.0);
}

TEST(CpuBlasGemm, MatchesTheHostReference) {
  if (!cuprim::ooc::cpu_blas_available()) GTEST_SKIP() << "no CPU BLAS on this machine";
  std::mt19937 g(3);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  const std::int64_t m = 37, n = 29, k = 41, lda = k + 2, ldb = n + 1, ldc = m + 3;  // op(A) = Aᵀ, op(B) = Bᵀ
  std::vector<float> A(std::size_t(lda * m)), B(std::size_t(ldb * k)), C(std::size_t(ldc * n));
  for (auto& v : A) v = u(g);
  for (auto& v : B) v = u(g);
  for (auto& v : C) v = u(g);
  const std::vector<float> C0 = C;
  cuprim::ooc::cpu_blas_gemm<float>('T', 'T', m, n, k, 1.5f, A.data(), lda, B.data(), ldb, -0.5f, C.data(), ldc, 1);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      const auto e = cuprim::host::gemm_element<float>('T', 'T', k, 1.5f, A.data(), lda, B.data(), ldb, -0.5f, C0.data(),
                                                       ldc, i, j);
      EXPECT_NEAR(C[std::size_t(i + j * ldc)], e.value, double(k + 4) * 0x1p-24 * e.bound) << i << ", " << j;
    }
}

}  // namespace
