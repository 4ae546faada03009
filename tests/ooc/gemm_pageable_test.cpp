// Out-of-core GEMM over pageable (std::vector) matrices, on the GPU: each way a pageable array reaches the copy
// engines (gemm_pageable: locked in place, staged, chosen) in every mode against the host reference, with tiles and
// lock pieces that cut pages and columns anywhere (pieces far smaller than a tile, pieces of several tiles, whole
// arrays); the staging threads asked for (options.host_threads); registrations refused (all of them, one of them
// mid-run, those of one array) and the tiles that needed them staged instead; arrays that share pages (aliased
// inputs, neighbours in one allocation, a page locked by the caller); and after a failure mid-run, nothing left
// locked, allocated or in use.
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/host/gemm.hpp>
#include <cuprim/ooc/gemm.hpp>
#include <cuprim/ooc/staging.hpp>

#include "common/test_util.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using cuprim::ooc::gemm_mode;
using cuprim::ooc::gemm_pageable;

constexpr gemm_pageable all_pageable[] = {gemm_pageable::automatic, gemm_pageable::register_in_place,
                                          gemm_pageable::stage};

/// Whether CUDA sees p as page-locked host memory (a registration left behind would show here).
bool locked(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

struct problem {
  char ta, tb;
  std::int64_t m, n, k;
  double alpha, beta;
  std::int64_t lda() const { return (ta == 'N' ? m : k) + 3; }  // padded: columns do not meet pages evenly
  std::int64_t ldb() const { return (tb == 'N' ? k : n) + 5; }
  std::int64_t ldc() const { return m + 2; }
  std::size_t a_elems() const { return std::size_t(lda() * (ta == 'N' ? k : m)); }
  std::size_t b_elems() const { return std::size_t(ldb() * (tb == 'N' ? n : k)); }
  std::size_t c_elems() const { return std::size_t(ldc() * n); }
};

/// Random entries in [-1, 1); C poisoned with NaN when beta == 0 (it must not be read).
void fill(const problem& p, double* A, double* B, double* C, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t i = 0; i < p.a_elems(); ++i) A[i] = u(g);
  for (std::size_t i = 0; i < p.b_elems(); ++i) B[i] = u(g);
  for (std::size_t i = 0; i < p.c_elems(); ++i) C[i] = p.beta == 0 ? std::numeric_limits<double>::quiet_NaN() : u(g);
}

/// gemm_sync on A, B, C (in place), checked against the host reference within 4 (k + 2) eps |terms|; the padding
/// rows of C must be untouched and no array left locked. Returns the report.
cuprim::ooc::gemm_report run_and_check(const problem& p, const double* A, const double* B, double* C,
                                       const cuprim::ooc::gemm_options& o, const std::string& what) {
  const std::int64_t ldc = p.ldc();
  const std::vector<double> c0(C, C + p.c_elems());
  std::vector<double> expect(c0);
  cuprim::host::gemm<double>(p.ta, p.tb, p.m, p.n, p.k, p.alpha, A, p.lda(), B, p.ldb(), p.beta, expect.data(), ldc);
  std::vector<double> c0_dense(std::size_t(p.m * p.n));
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) c0_dense[std::size_t(i + j * p.m)] = c0[std::size_t(i + j * ldc)];
  const auto bound = cuprim::host::gemm_abs_bound<double>(p.ta, p.tb, p.m, p.n, p.k, p.alpha, A, p.lda(), B,
                                                          p.ldb(), p.beta, c0_dense.data(), p.m);
  const auto r = cuprim::ooc::gemm_sync<double>(p.ta, p.tb, p.m, p.n, p.k, p.alpha, A, p.lda(), B, p.ldb(), p.beta, C,
                                               ldc, o);
  const std::string label = what + " " + cuprim::ooc::gemm_mode_name(o.mode) + " " +
                            cuprim::ooc::gemm_pageable_name(o.pageable) + " " + p.ta + p.tb +
                            " beta=" + std::to_string(p.beta) + " tiles=" + std::to_string(r.tiles) + " " +
                            cuprim_test::seed_message();
  int bad = 0;
  for (std::int64_t j = 0; j < p.n && bad < 5; ++j)
    for (std::int64_t i = 0; i < ldc && bad < 5; ++i) {
      const std::size_t x = std::size_t(i + j * ldc);
      if (i >= p.m) {
        if (!(C[x] == c0[x] || (std::isnan(C[x]) && std::isnan(c0[x])))) {
          ADD_FAILURE() << label << ": padding row " << i << " of column " << j << " was written";
          ++bad;
        }
        continue;
      }
      const double tol = 4.0 * double(p.k + 2) * std::numeric_limits<double>::epsilon() *
                             bound[std::size_t(i + j * p.m)] + 1e-30;
      if (!std::isfinite(C[x]) || std::fabs(C[x] - expect[x]) > tol) {
        ADD_FAILURE() << label << ": C(" << i << "," << j << ") = " << C[x] << ", expected " << expect[x];
        ++bad;
      }
    }
  EXPECT_FALSE(locked(A) || locked(B) || locked(C)) << label << ": an array was left locked";
  EXPECT_EQ(cuprim::ooc::staging_stats().in_use_bytes, 0u) << label;
  return r;
}

/// A, B and C in one allocation, each starting 40 bytes into a page of its own, with a free page after it: no two
/// share a page (the refusal tests pick registrations by address; vectors freed and allocated again by the tests
/// before would otherwise come from one heap, next to each other).
struct separate_arrays {
  std::vector<double> pool;
  double* A = nullptr;
  double* B = nullptr;
  double* C = nullptr;
  explicit separate_arrays(const problem& p) {
    const std::size_t page = cuprim::ooc::detail::host_page_bytes(), offset = 40;
    auto pages = [&](std::size_t elems) { return (elems * sizeof(double) + offset) / page + 2; };
    const std::size_t pa = pages(p.a_elems()), pb = pages(p.b_elems()), pc = pages(p.c_elems());
    pool.resize((pa + pb + pc + 1) * page / sizeof(double));
    const std::uintptr_t first = (reinterpret_cast<std::uintptr_t>(pool.data()) + page - 1) / page * page + offset;
    A = reinterpret_cast<double*>(first);
    B = reinterpret_cast<double*>(first + pa * page);
    C = reinterpret_cast<double*>(first + (pa + pb) * page);
  }
};

cuprim::ooc::gemm_options small_tiles(gemm_mode mode, gemm_pageable pageable, std::size_t piece_bytes) {
  cuprim::ooc::gemm_options o;
  o.mode = mode;
  o.pageable = pageable;
  o.register_piece_bytes = piece_bytes;
  o.tile_n = 24;  // many tiles of full columns: the lock pieces follow them
  o.cpu_share = 0.25;
  o.device_budget_bytes = std::size_t(8) << 20;
  return o;
}

// ---------------------------------------------------------------------------------------------------------------
// Each way, every mode

TEST(OocGemmPageable, EveryWayEveryModeMatchesHost) {
  // C spans about 2.3 MB (locked by automatic too); A and B 0.2-1.6 MB (automatic stages those under 1 MiB).
  const problem shapes[] = {{'N', 'N', 700, 410, 90, 1.5, -0.75}, {'T', 'N', 650, 420, 300, 1.0, 0.0},
                            {'N', 'T', 710, 400, 280, -2.0, 1.0}, {'T', 'T', 690, 430, 70, 0.5, 2.0}};
  // Pieces of one page (far smaller than a tile), about two tiles, the default, and whole arrays.
  const std::size_t pieces[] = {4096, std::size_t(300) << 10, 0, SIZE_MAX};
  int run = 0;
  for (const problem& p : shapes) {
    separate_arrays x(p);
    for (gemm_mode mode : {gemm_mode::serial, gemm_mode::two_way, gemm_mode::three_way, gemm_mode::four_way})
      for (gemm_pageable pageable : all_pageable) {
        if (mode == gemm_mode::four_way && !cuprim::ooc::cpu_blas_available()) continue;
        const std::size_t piece = pieces[std::size_t(run++) % 4];
        fill(p, x.A, x.B, x.C, cuprim_test::test_seed() + std::uint64_t(run));
        const auto r = run_and_check(p, x.A, x.B, x.C, small_tiles(mode, pageable, piece),
                                     "piece " + std::to_string(piece));
        EXPECT_GT(r.tiles, 4);
        if (pageable == gemm_pageable::register_in_place) {
          EXPECT_TRUE(r.registered_a && r.registered_b && r.registered_c);
          EXPECT_FALSE(r.staged_a || r.staged_b || r.staged_c) << "nothing was refused";
        } else if (pageable == gemm_pageable::stage) {
          EXPECT_FALSE(r.registered_a || r.registered_b || r.registered_c);
          EXPECT_TRUE(r.staged_a && r.staged_b && r.staged_c);
          EXPECT_EQ(r.register_ms, 0.0);
        } else {  // automatic: by size
          EXPECT_TRUE(r.registered_c && !r.staged_c);
          EXPECT_EQ(r.registered_a, p.a_elems() * sizeof(double) >= (std::size_t(1) << 20));
          EXPECT_EQ(r.staged_a, !r.registered_a);
        }
      }
  }
}

TEST(OocGemmPageable, StagingThreadsAsAsked) {
  // options.host_threads: the staging threads of the call, whatever their count (one, fewer than the buffers,
  // more than the policy's), with every array staged; the default takes the policy's count.
  const problem p{'N', 'N', 700, 410, 300, 1.0, 0.5};
  separate_arrays x(p);
  int run = 0;
  for (int threads : {1, 3, 13, 0})
    for (gemm_mode mode : {gemm_mode::serial, gemm_mode::three_way}) {
      auto o = small_tiles(mode, gemm_pageable::stage, 0);
      o.host_threads = threads;
      fill(p, x.A, x.B, x.C, cuprim_test::test_seed() + std::uint64_t(++run));
      const auto r = run_and_check(p, x.A, x.B, x.C, o, "host_threads " + std::to_string(threads));
      EXPECT_TRUE(r.staged_a && r.staged_b && r.staged_c);
      if (threads > 0) EXPECT_EQ(r.host_threads, threads);
      else EXPECT_GE(r.host_threads, 1);
    }
}

TEST(OocGemmPageable, FloatKPanelsAndTileRows) {
  // Tiles of part of the rows and several k-panels: B re-sent for each row of tiles, A for each tile.
  const problem p{'N', 'N', 600, 350, 500, 1.0, 0.5};
  std::vector<float> A(p.a_elems()), B(p.b_elems()), C(p.c_elems());
  for (gemm_pageable pageable : all_pageable)
    for (std::size_t piece : {std::size_t(64) << 10, std::size_t(0)}) {
      std::mt19937_64 g(cuprim_test::test_seed());
      std::uniform_real_distribution<float> u(-1, 1);
      for (auto& x : A) x = u(g);
      for (auto& x : B) x = u(g);
      for (auto& x : C) x = u(g);
      std::vector<float> expect(C);
      cuprim::host::gemm<float>('N', 'N', p.m, p.n, p.k, 1.0f, A.data(), p.lda(), B.data(), p.ldb(), 0.5f,
                                expect.data(), p.ldc());
      cuprim::ooc::gemm_options o;
      o.pageable = pageable;
      o.register_piece_bytes = piece;
      o.tile_m = 256;
      o.tile_n = 40;
      o.tile_k = 128;
      o.device_budget_bytes = std::size_t(4) << 20;
      const auto r = cuprim::ooc::gemm_sync<float>('N', 'N', p.m, p.n, p.k, 1.0f, A.data(), p.lda(), B.data(),
                                                  p.ldb(), 0.5f, C.data(), p.ldc(), o);
      EXPECT_EQ(r.tiles, 3 * 9);
      int bad = 0;
      for (std::int64_t j = 0; j < p.n && bad < 5; ++j)
        for (std::int64_t i = 0; i < p.m && bad < 5; ++i) {
          const std::size_t x = std::size_t(i + j * p.ldc());
          if (!(std::fabs(C[x] - expect[x]) <= 2e-3f)) {
            ADD_FAILURE() << cuprim::ooc::gemm_pageable_name(pageable) << " piece " << piece << ": C(" << i << ","
                          << j << ") = " << C[x] << ", expected " << expect[x];
            ++bad;
          }
        }
      EXPECT_FALSE(locked(A.data()) || locked(B.data()) || locked(C.data()));
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Registrations refused: the tiles that needed them are staged

/// The refusal hook of host_registrations for the scope; `rule` decides per registration.
struct refusal_scope {
  explicit refusal_scope(bool (*rule)(const void*, std::size_t)) {
    cuprim::ooc::detail::host_register_refuse.store(rule);
  }
  ~refusal_scope() { cuprim::ooc::detail::host_register_refuse.store(nullptr); }
};

std::atomic<int> registrations{0};
std::atomic<int> refuse_at{-1};
std::uintptr_t refuse_lo = 0, refuse_hi = 0;

bool refuse_all(const void*, std::size_t) { return true; }
bool refuse_kth(const void*, std::size_t) { return registrations++ == refuse_at.load(); }
bool refuse_range(const void* p, std::size_t bytes) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return a < refuse_hi && a + bytes > refuse_lo;
}

TEST(OocGemmPageable, EveryRegistrationRefusedStagesEverything) {
  const problem p{'N', 'N', 700, 410, 300, 1.0, 0.5};
  separate_arrays x(p);
  refusal_scope scope(refuse_all);
  for (gemm_mode mode : {gemm_mode::serial, gemm_mode::three_way}) {
    fill(p, x.A, x.B, x.C, cuprim_test::test_seed());
    const auto r =
        run_and_check(p, x.A, x.B, x.C, small_tiles(mode, gemm_pageable::register_in_place, 0), "all refused");
    EXPECT_FALSE(r.registered_a || r.registered_b || r.registered_c);
    EXPECT_TRUE(r.staged_a && r.staged_b && r.staged_c);
  }
}

TEST(OocGemmPageable, OneRegistrationRefusedMidRun) {
  // Pieces of 64 KiB: A whole, then B's and C's pieces as the tiles reach them; the k-th of them is refused.
  const problem p{'N', 'N', 700, 410, 300, 1.0, 0.5};
  separate_arrays x(p);
  refusal_scope scope(refuse_kth);
  for (int k : {0, 1, 2, 5, 11, 30}) {
    registrations = 0;
    refuse_at = k;
    fill(p, x.A, x.B, x.C, cuprim_test::test_seed() + std::uint64_t(k));
    const auto r = run_and_check(
        p, x.A, x.B, x.C, small_tiles(gemm_mode::three_way, gemm_pageable::register_in_place, std::size_t(64) << 10),
        "registration " + std::to_string(k) + " refused");
    ASSERT_GT(registrations.load(), k) << "fewer registrations than expected";
    EXPECT_TRUE(r.staged_a || r.staged_b || r.staged_c) << "the refused piece's tiles are staged";
    EXPECT_TRUE(r.registered_b && r.registered_c);
  }
}

TEST(OocGemmPageable, OneArrayRefusedOthersLocked) {
  const problem p{'N', 'T', 700, 410, 300, -1.0, 1.0};
  separate_arrays x(p);
  refusal_scope scope(refuse_range);
  const std::pair<const double*, std::size_t> arrays[] = {{x.A, p.a_elems()}, {x.B, p.b_elems()}, {x.C, p.c_elems()}};
  for (int which = 0; which < 3; ++which) {
    refuse_lo = reinterpret_cast<std::uintptr_t>(arrays[which].first);
    refuse_hi = refuse_lo + arrays[which].second * sizeof(double);
    fill(p, x.A, x.B, x.C, cuprim_test::test_seed() + std::uint64_t(which));
    const auto o = small_tiles(gemm_mode::three_way, gemm_pageable::register_in_place, 0);
    const auto r = run_and_check(p, x.A, x.B, x.C, o, "array " + std::to_string(which) + " refused");
    EXPECT_EQ(r.staged_a, which == 0);
    EXPECT_EQ(r.staged_b, which == 1);
    EXPECT_EQ(r.staged_c, which == 2);
    EXPECT_EQ(r.registered_c, which != 2);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Arrays that share pages

TEST(OocGemmPageable, AliasedInputsAndNeighboursInOneAllocation) {
  // C = A^T A with A passed as both inputs: B's pages are A's, locked once.
  {
    const std::int64_t m = 300, k = 500;
    std::vector<double> A(std::size_t(k * m)), C(std::size_t(m * m), 0.25);
    std::mt19937_64 g(cuprim_test::test_seed());
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& x : A) x = u(g);
    std::vector<double> expect(C);
    cuprim::host::gemm<double>('T', 'N', m, m, k, 1.0, A.data(), k, A.data(), k, 1.0, expect.data(), m);
    cuprim::ooc::gemm_options o;
    o.pageable = gemm_pageable::register_in_place;
    o.tile_n = 32;
    o.device_budget_bytes = std::size_t(8) << 20;
    const auto r = cuprim::ooc::gemm_sync<double>('T', 'N', m, m, k, 1.0, A.data(), k, A.data(), k, 1.0, C.data(), m,
                                                 o);
    EXPECT_FALSE(r.staged_a || r.staged_b || r.staged_c);
    double worst = 0;  // every term is below 1 in magnitude: the error is below 4 (k + 2) eps (k + 1)
    for (std::size_t i = 0; i < C.size(); ++i) worst = std::max(worst, std::fabs(C[i] - expect[i]));
    EXPECT_LT(worst, 4.0 * double(k + 2) * std::numeric_limits<double>::epsilon() * double(k + 1));
    EXPECT_FALSE(locked(A.data()) || locked(C.data()));
  }
  // A, B and C carved from one vector with no gap, so that each shares a page with the next.
  {
    const problem p{'N', 'N', 333, 257, 129, 1.0, -0.5};
    std::vector<double> pool(p.a_elems() + p.b_elems() + p.c_elems() + 7);
    double* A = pool.data() + 7;
    double* B = A + p.a_elems();
    double* C = B + p.b_elems();
    for (gemm_pageable pageable : all_pageable)
      for (std::size_t piece : {std::size_t(4096), std::size_t(0), SIZE_MAX}) {
        fill(p, A, B, C, cuprim_test::test_seed() + piece);
        cuprim::ooc::gemm_options o = small_tiles(gemm_mode::three_way, pageable, piece);
        const auto r = run_and_check(p, A, B, C, o, "one allocation, piece " + std::to_string(piece));
        if (pageable == gemm_pageable::register_in_place) {
          EXPECT_TRUE(r.registered_a && r.registered_b && r.registered_c);
        }
      }
  }
}

TEST(OocGemmPageable, PageLockedByTheCallerNextToC) {
  // The caller has locked the page that holds C's last bytes (and the page after it): C's own registration meets
  // it, the pages it can lock are locked, and the tiles that touch the caller's page are staged.
  const problem p{'N', 'N', 500, 300, 100, 1.0, 0.5};
  const std::size_t page = cuprim::ooc::detail::host_page_bytes();
  std::vector<double> pool(p.c_elems() + 3 * page / sizeof(double));
  double* C = pool.data() + 1;
  const auto c_end = reinterpret_cast<std::uintptr_t>(C + p.c_elems());
  auto* theirs = reinterpret_cast<void*>((c_end - 1) / page * page);
  ASSERT_EQ(cudaHostRegister(theirs, 2 * page, cudaHostRegisterDefault), cudaSuccess);
  std::vector<double> A(p.a_elems()), B(p.b_elems());
  for (std::size_t piece : {std::size_t(0), SIZE_MAX}) {
    fill(p, A.data(), B.data(), C, cuprim_test::test_seed() + piece);
    const std::vector<double> c0(C, C + p.c_elems());
    std::vector<double> expect(c0);
    cuprim::host::gemm<double>('N', 'N', p.m, p.n, p.k, 1.0, A.data(), p.lda(), B.data(), p.ldb(), 0.5,
                               expect.data(), p.ldc());
    const auto r = cuprim::ooc::gemm_sync<double>('N', 'N', p.m, p.n, p.k, 1.0, A.data(), p.lda(), B.data(), p.ldb(),
                                                 0.5, C, p.ldc(),
                                                 small_tiles(gemm_mode::three_way, gemm_pageable::register_in_place,
                                                             piece));
    if (piece == 0) {
      EXPECT_TRUE(r.registered_c) << "the pieces away from the caller's page";
    }
    EXPECT_TRUE(r.staged_c) << "the tile on the caller's page";
    double worst = 0;
    for (std::size_t i = 0; i < p.c_elems(); ++i)
      if (std::int64_t(i) % p.ldc() < p.m) worst = std::max(worst, std::fabs(C[i] - expect[i]));
    EXPECT_LT(worst, 4.0 * double(p.k + 2) * std::numeric_limits<double>::epsilon() * double(p.k + 1))
        << "piece " << piece;
    EXPECT_FALSE(locked(C));
    EXPECT_TRUE(locked(theirs)) << "the caller's registration is the caller's";
  }
  EXPECT_EQ(cudaHostUnregister(theirs), cudaSuccess);
}

TEST(OocGemmPageable, ManagedMemoryIsStagedWhatever) {
  const problem p{'N', 'N', 200, 150, 60, 1.0, 0.5};
  double *A = nullptr, *B = nullptr, *C = nullptr;
  ASSERT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&A), p.a_elems() * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&B), p.b_elems() * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&C), p.c_elems() * sizeof(double)), cudaSuccess);
  fill(p, A, B, C, cuprim_test::test_seed());
  const auto r = run_and_check(p, A, B, C, small_tiles(gemm_mode::three_way, gemm_pageable::register_in_place, 0),
                               "managed");
  EXPECT_TRUE(r.staged_a && r.staged_b && r.staged_c);
  EXPECT_FALSE(r.registered_a || r.registered_b || r.registered_c);
  EXPECT_EQ(cudaFree(A), cudaSuccess);
  EXPECT_EQ(cudaFree(B), cudaSuccess);
  EXPECT_EQ(cudaFree(C), cudaSuccess);
}

// ---------------------------------------------------------------------------------------------------------------
// A failure mid-run leaves nothing locked, allocated or in use

/// Counts the bytes outstanding from the resource it wraps.
class counting_resource final : public cuprim::memory_resource {
public:
  explicit counting_resource(cuprim::memory_resource& up) : up_(up) {}
  void* allocate(std::size_t bytes, cudaStream_t s) override {
    void* q = up_.allocate(bytes, s);
    std::lock_guard<std::mutex> l(mu_);
    outstanding_ += bytes;
    return q;
  }
  void deallocate(void* q, std::size_t bytes, cudaStream_t s) noexcept override {
    up_.deallocate(q, bytes, s);
    std::lock_guard<std::mutex> l(mu_);
    outstanding_ -= bytes;
  }
  std::size_t outstanding() const { return outstanding_; }

private:
  cuprim::memory_resource& up_;
  std::mutex mu_;
  std::size_t outstanding_ = 0;
};

/// cuBLAS tiles, failing at call `fail_at`.
class failing_engine final : public cuprim::ooc::gemm_tile_engine<double> {
public:
  explicit failing_engine(int fail_at) : fail_at_(fail_at) {}
  void gemm(cudaStream_t s, char ta, char tb, int m, int n, int k, double alpha, const double* A, int lda,
            const double* B, int ldb, double beta, double* C, int ldc) override {
    if (calls_++ == fail_at_) throw std::runtime_error("test engine failure");
    inner_.gemm(s, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  const char* name() const noexcept override { return "failing"; }

private:
  cuprim::ooc::cublas_tile_engine<double> inner_;
  int fail_at_;
  int calls_ = 0;
};

TEST(OocGemmPageable, FailureMidRunUnlocksEverything) {
  const problem p{'N', 'N', 700, 410, 300, 1.0, 0.5};
  std::vector<double> A(p.a_elems()), B(p.b_elems()), C(p.c_elems());
  counting_resource counter(cuprim::current_resource());
  cuprim::set_current_resource(&counter);
  for (gemm_pageable pageable : all_pageable)
    for (gemm_mode mode : {gemm_mode::serial, gemm_mode::two_way, gemm_mode::three_way})
      for (int fail_at : {0, 7}) {
        fill(p, A.data(), B.data(), C.data(), cuprim_test::test_seed());
        failing_engine eng(fail_at);
        const auto o = small_tiles(mode, pageable, std::size_t(64) << 10);
        EXPECT_THROW(cuprim::ooc::gemm_sync<double>('N', 'N', p.m, p.n, p.k, 1.0, A.data(), p.lda(), B.data(),
                                                   p.ldb(), 0.5, C.data(), p.ldc(), o, &eng),
                     std::runtime_error);
        const std::string what = std::string(cuprim::ooc::gemm_pageable_name(pageable)) + " " +
                                 cuprim::ooc::gemm_mode_name(mode) + " failing at tile " + std::to_string(fail_at);
        EXPECT_FALSE(locked(A.data()) || locked(B.data()) || locked(C.data())) << what << ": left locked";
        EXPECT_EQ(counter.outstanding(), 0u) << what << ": device memory left";
        EXPECT_EQ(cuprim::ooc::staging_stats().in_use_bytes, 0u) << what << ": staging left in use";
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        EXPECT_EQ(cudaGetLastError(), cudaSuccess);
      }
  cuprim::set_current_resource(nullptr);
  // And the next call works, on the same arrays.
  fill(p, A.data(), B.data(), C.data(), cuprim_test::test_seed());
  run_and_check(p, A.data(), B.data(), C.data(), small_tiles(gemm_mode::three_way, gemm_pageable::register_in_place, 0),
                "after the failures");
}

}  // namespace
