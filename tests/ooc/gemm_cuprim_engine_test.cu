// Out-of-core GEMM on cuprim's own GEMM (ooc/gemm_cuprim_engine.cuh) against the host reference: every mode, every
// transpose pair, float and double, pinned and pageable host arrays, alpha/beta variants (beta = 0 over NaN-poisoned
// C), tiles and k-panels that do not divide the sizes (odd device leading dimensions: double's CUDA-core path) and
// even tiles (double's FP64 tensor-core path) under device caps forcing many tiles; the engine is the one reported,
// and its rate is measured apart from cuBLAS's.
#include <cuprim/core/memory.hpp>
#include <cuprim/host/gemm.hpp>
#include <cuprim/ooc/gemm.hpp>
#include <cuprim/ooc/gemm_cuprim_engine.cuh>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using cuprim::ooc::gemm_mode;

constexpr gemm_mode all_modes[] = {gemm_mode::serial, gemm_mode::two_way, gemm_mode::three_way, gemm_mode::four_way};

struct problem {
  char ta, tb;
  std::int64_t m, n, k;
  double alpha, beta;
};

/// Host storage that is pinned (cudaMallocHost) or pageable (std::vector).
template <class T>
struct host_array {
  host_array(std::size_t n, bool pinned) : pinned(pinned) {
    if (pinned) pin = cuprim::pinned_buffer<T>(n);
    else vec.resize(n);
  }
  T* data() { return pinned ? pin.data() : vec.data(); }
  bool pinned;
  cuprim::pinned_buffer<T> pin;
  std::vector<T> vec;
};

/// Runs gemm_sync on the cuprim engine over random operands (C padded by `pad` rows) and checks C against the host
/// reference within 4 (k + 2) eps (|alpha| sum |a||b| + |beta c|); the padding rows must be untouched.
template <class T>
void check(const problem& p, bool pinned, cuprim::ooc::gemm_options o, std::int64_t pad, std::int64_t min_tiles = 1) {
  const std::int64_t lda = (p.ta == 'N' ? p.m : p.k) + pad, ldb = (p.tb == 'N' ? p.k : p.n) + pad, ldc = p.m + pad;
  const std::size_t na = std::size_t(lda * (p.ta == 'N' ? p.k : p.m));
  const std::size_t nb = std::size_t(ldb * (p.tb == 'N' ? p.n : p.k)), nc = std::size_t(ldc * p.n);
  host_array<T> A(na, pinned), B(nb, pinned), C(nc, pinned);
  std::mt19937_64 g(cuprim_test::test_seed());
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t i = 0; i < na; ++i) A.data()[i] = T(u(g));
  for (std::size_t i = 0; i < nb; ++i) B.data()[i] = T(u(g));
  for (std::size_t i = 0; i < nc; ++i) C.data()[i] = p.beta == 0 ? std::numeric_limits<T>::quiet_NaN() : T(u(g));
  const std::vector<T> c0(C.data(), C.data() + nc);
  std::vector<T> expect(c0);
  cuprim::host::gemm<T>(p.ta, p.tb, p.m, p.n, p.k, T(p.alpha), A.data(), lda, B.data(), ldb, T(p.beta), expect.data(),
                        ldc);
  std::vector<T> c0_dense(std::size_t(p.m * p.n));
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) c0_dense[std::size_t(i + j * p.m)] = c0[std::size_t(i + j * ldc)];
  const auto bound = cuprim::host::gemm_abs_bound<T>(p.ta, p.tb, p.m, p.n, p.k, T(p.alpha), A.data(), lda, B.data(),
                                                     ldb, T(p.beta), c0_dense.data(), p.m);
  cuprim::ooc::cuprim_tile_engine<T> engine;
  const auto r = cuprim::ooc::gemm_sync<T>(p.ta, p.tb, p.m, p.n, p.k, T(p.alpha), A.data(), lda, B.data(), ldb,
                                          T(p.beta), C.data(), ldc, o, &engine);
  const std::string what = std::string(cuprim::ooc::gemm_mode_name(o.mode)) + " " + p.ta + p.tb + " " +
                           std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + " alpha " +
                           std::to_string(p.alpha) + " beta " + std::to_string(p.beta) +
                           (pinned ? " pinned" : " pageable") + " tiles " + std::to_string(r.tiles) + " " +
                           cuprim_test::seed_message();
  EXPECT_EQ(r.engine, "cuprim") << what;
  EXPECT_GE(r.tiles, min_tiles) << what;
  if (o.device_budget_bytes) {
    EXPECT_LE(r.device_bytes, o.device_budget_bytes) << what;
  }
  int bad = 0;
  const double eps = std::numeric_limits<T>::epsilon();
  for (std::int64_t j = 0; j < p.n && bad < 5; ++j)
    for (std::int64_t i = 0; i < ldc && bad < 5; ++i) {
      const std::size_t x = std::size_t(i + j * ldc);
      const double got = double(C.data()[x]);
      if (i >= p.m) {
        if (!(got == double(c0[x]) || (std::isnan(got) && std::isnan(double(c0[x]))))) {
          ADD_FAILURE() << what << ": padding row " << i << " of column " << j << " was written";
          ++bad;
        }
        continue;
      }
      const double tol = 4.0 * double(p.k + 2) * eps * bound[std::size_t(i + j * p.m)] + 1e-30;
      if (!std::isfinite(got) || std::fabs(got - double(expect[x])) > tol) {
        ADD_FAILURE() << what << ": C(" << i << "," << j << ") = " << got << ", expected " << double(expect[x])
                      << " (tolerance " << tol << ")";
        ++bad;
      }
    }
}

bool skip_mode(gemm_mode mode) { return mode == gemm_mode::four_way && !cuprim::ooc::cpu_blas_available(); }

TEST(OocGemmCuprimEngine, SmallAllModesTransposesAgainstHost) {
  const problem shapes[] = {{'N', 'N', 37, 53, 29, 1.5, -0.75}, {'T', 'N', 61, 45, 70, 1.0, 0.0},
                            {'N', 'T', 50, 66, 33, -2.0, 1.0},  {'T', 'T', 45, 38, 81, 0.5, 2.0}};
  for (const auto& p : shapes)
    for (gemm_mode mode : all_modes) {
      if (skip_mode(mode)) continue;
      for (bool pinned : {true, false}) {
        cuprim::ooc::gemm_options o;
        o.mode = mode;
        o.tile_m = 15;  // odd tiles and k-panels that do not divide the sizes: odd device leading dimensions
        o.tile_n = 12;
        o.tile_k = 19;
        o.cpu_share = 0.3;
        o.device_budget_bytes = 1 << 20;
        check<double>(p, pinned, o, 3, 2);
        check<float>(p, pinned, o, 3, 2);
        o.tile_m = o.tile_n = o.tile_k = 0;  // chosen tiles: one panel, A's row panel shared
        check<double>(p, pinned, o, 0);
      }
    }
}

TEST(OocGemmCuprimEngine, MediumDoubleEvenTilesManyTilesAgainstHost) {
  // Even tiles and panels: the FP64 tensor-core path. A 2 MiB cap forces tens of tiles, and with tile_k several
  // k-panels (beta = 1 after the first).
  for (gemm_mode mode : {gemm_mode::serial, gemm_mode::two_way, gemm_mode::three_way}) {
    cuprim::ooc::gemm_options o;
    o.mode = mode;
    o.device_budget_bytes = std::size_t(2) << 20;
    check<double>({'N', 'N', 640, 768, 288, 1.0, 0.5}, true, o, 0, 8);
    o.tile_m = 256;
    o.tile_n = 128;
    o.tile_k = 96;
    check<double>({'T', 'N', 512, 640, 300, -1.0, 0.0}, mode != gemm_mode::three_way, o, 2, 8);  // 3-way: pageable
  }
}

TEST(OocGemmCuprimEngine, MediumFloatAgainstHost) {
  cuprim::ooc::gemm_options o;
  o.device_budget_bytes = std::size_t(1) << 20;
  check<float>({'T', 'T', 550, 450, 257, 1.0, -1.0}, true, o, 5, 8);
  check<float>({'N', 'T', 512, 384, 128, 2.0, 0.0}, false, o, 0, 4);
}

TEST(OocGemmCuprimEngine, RatesMeasuredWithTheEngine) {
  cuprim::ooc::cuprim_tile_engine<double> engine;
  const auto r = cuprim::ooc::gemm_measure_rates<double>({}, &engine);
  EXPECT_GT(r.gpu_gflops, 10.0);
  const auto rc = cuprim::ooc::gemm_measure_rates<double>();  // cuBLAS's, cached apart
  EXPECT_GT(rc.gpu_gflops, 10.0);
  std::printf("DGEMM tile rate: cuprim %.0f GFLOP/s, cuBLAS %.0f GFLOP/s\n", r.gpu_gflops, rc.gpu_gflops);
}

}  // namespace
