// Out-of-core GEMM on the GPU: every mode against the host reference (small sizes) and against in-core cuBLAS
// (medium sizes), with sizes that do not divide the tile, device caps forcing many tiles and several k-panels,
// pinned, pageable and managed host arrays, alpha/beta variants (beta = 0 over NaN-poisoned C), transposes; device
// memory released after a failure in the middle of a run; a custom tile engine; bad pointers rejected before any
// transfer.
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/ooc/gemm.hpp>
#include <cuprim/host/gemm.hpp>

#include "common/test_util.hpp"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace {

using cuprim::ooc::gemm_mode;

constexpr gemm_mode all_modes[] = {gemm_mode::serial, gemm_mode::two_way, gemm_mode::three_way, gemm_mode::four_way};

/// Host storage that is pinned (cudaMallocHost) or pageable (std::vector).
template <class T>
class host_array {
public:
  host_array(std::size_t n, bool pinned) : pinned_(pinned) {
    if (pinned) pin_ = cuprim::pinned_buffer<T>(n);
    else vec_.resize(n);
  }
  T* data() { return pinned_ ? pin_.data() : vec_.data(); }
  std::size_t size() const { return pinned_ ? pin_.size() : vec_.size(); }
  T& operator[](std::size_t i) { return data()[i]; }

private:
  bool pinned_;
  cuprim::pinned_buffer<T> pin_;
  std::vector<T> vec_;
};

struct problem {
  char ta, tb;
  std::int64_t m, n, k;
  double alpha, beta;
};

template <class T>
struct inputs {
  std::int64_t lda, ldb, ldc;
  host_array<T> A, B, C;
  std::vector<T> C0;
  inputs(const problem& p, bool pinned, std::uint64_t seed, std::int64_t pad)
      : lda((p.ta == 'N' ? p.m : p.k) + pad), ldb((p.tb == 'N' ? p.k : p.n) + pad), ldc(p.m + pad),
        A(std::size_t(lda * (p.ta == 'N' ? p.k : p.m)), pinned),
        B(std::size_t(ldb * (p.tb == 'N' ? p.n : p.k)), pinned),
        C(std::size_t(ldc * p.n), pinned) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::size_t i = 0; i < A.size(); ++i) A[i] = T(u(g));
    for (std::size_t i = 0; i < B.size(); ++i) B[i] = T(u(g));
    for (std::size_t i = 0; i < C.size(); ++i)
      C[i] = p.beta == 0 ? std::numeric_limits<T>::quiet_NaN() : T(u(g));  // beta = 0: poison must not propagate
    C0.assign(C.data(), C.data() + C.size());
  }
};

template <class T>
double eps() {
  return std::numeric_limits<T>::epsilon();
}

/// Compares C (m x n, ldc) with `expect` within 4 * (k + 2) * eps * bound; padding rows must be untouched.
template <class T>
void expect_close(const problem& p, inputs<T>& in, const std::vector<T>& expect, const std::vector<double>& bound,
                  const std::string& what) {
  int bad = 0;
  for (std::int64_t j = 0; j < p.n && bad < 5; ++j)
    for (std::int64_t i = 0; i < in.ldc && bad < 5; ++i) {
      const std::size_t x = std::size_t(i + j * in.ldc);
      const double got = double(in.C[x]);
      if (i >= p.m) {
        if (!(got == double(in.C0[x]) || (std::isnan(got) && std::isnan(double(in.C0[x]))))) {
          ADD_FAILURE() << what << ": padding row " << i << " of column " << j << " was written";
          ++bad;
        }
        continue;
      }
      const double tol = 4.0 * double(p.k + 2) * eps<T>() * bound[std::size_t(i + j * p.m)] + 1e-30;
      if (!std::isfinite(got) || std::fabs(got - double(expect[x])) > tol) {
        ADD_FAILURE() << what << ": C(" << i << "," << j << ") = " << got << ", expected " << double(expect[x])
                      << " (tolerance " << tol << ")";
        ++bad;
      }
    }
}

std::string label(const problem& p, gemm_mode mode, bool pinned) {
  return std::string(cuprim::ooc::gemm_mode_name(mode)) + " " + p.ta + p.tb + " m=" + std::to_string(p.m) +
         " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) + " alpha=" + std::to_string(p.alpha) +
         " beta=" + std::to_string(p.beta) + (pinned ? " pinned" : " pageable") + " " + cuprim_test::seed_message();
}

template <class T>
void check_against_host(const problem& p, gemm_mode mode, bool pinned, cuprim::ooc::gemm_options o) {
  o.mode = mode;
  if (mode == gemm_mode::four_way && !cuprim::ooc::cpu_blas_available()) GTEST_SKIP() << "no CPU BLAS for four_way";
  inputs<T> in(p, pinned, cuprim_test::test_seed(), 3);
  std::vector<T> expect(in.C0);
  cuprim::host::gemm<T>(p.ta, p.tb, p.m, p.n, p.k, T(p.alpha), in.A.data(), in.lda, in.B.data(), in.ldb, T(p.beta),
                        expect.data(), in.ldc);
  std::vector<T> c0_dense(std::size_t(p.m * p.n));
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) c0_dense[std::size_t(i + j * p.m)] = in.C0[std::size_t(i + j * in.ldc)];
  const auto bound = cuprim::host::gemm_abs_bound<T>(p.ta, p.tb, p.m, p.n, p.k, T(p.alpha), in.A.data(), in.lda,
                                                     in.B.data(), in.ldb, T(p.beta), c0_dense.data(), p.m);
  const auto r = cuprim::ooc::gemm_sync<T>(p.ta, p.tb, p.m, p.n, p.k, T(p.alpha), in.A.data(), in.lda, in.B.data(),
                                          in.ldb, T(p.beta), in.C.data(), in.ldc, o);
  if (o.device_budget_bytes) {
    EXPECT_LE(r.device_bytes, o.device_budget_bytes);
  }
  if (mode == gemm_mode::four_way && o.cpu_share > 0 && o.cpu_share < 1) {
    EXPECT_GT(r.cpu_columns, 0);
    EXPECT_GT(r.gpu_columns, 0);
  }
  expect_close<T>(p, in, expect, bound, label(p, mode, pinned) + " tiles=" + std::to_string(r.tiles));
}

// ---------------------------------------------------------------------------------------------------------------
// Small sizes against the host reference

TEST(OocGemm, SmallAllModesTransposesAlphaBetaAgainstHost) {
  const problem shapes[] = {{'N', 'N', 37, 53, 29, 1.5, -0.75}, {'T', 'N', 61, 45, 70, 1.0, 0.0},
                            {'N', 'T', 50, 66, 33, -2.0, 1.0},  {'T', 'T', 45, 38, 81, 0.5, 2.0}};
  for (const auto& p : shapes)
    for (gemm_mode mode : all_modes)
      for (bool pinned : {true, false}) {
        cuprim::ooc::gemm_options o;
        o.tile_m = 16;  // tiles and k-panels that do not divide the sizes
        o.tile_n = 12;
        o.tile_k = 20;
        o.cpu_share = 0.3;
        o.device_budget_bytes = 1 << 20;
        check_against_host<double>(p, mode, pinned, o);
        o.tile_m = o.tile_n = o.tile_k = 0;  // chosen tiles (one panel, shared A)
        o.cpu_share = -1;                    // four_way: share from measured rates
        check_against_host<double>(p, mode, pinned, o);
      }
}

TEST(OocGemm, SmallFloatAgainstHost) {
  const problem p{'T', 'N', 47, 39, 64, 1.0, 0.5};
  for (gemm_mode mode : all_modes) {
    cuprim::ooc::gemm_options o;
    o.tile_m = 20;
    o.tile_n = 16;
    o.tile_k = 24;
    o.cpu_share = 0.4;
    o.device_budget_bytes = 1 << 20;
    check_against_host<float>(p, mode, true, o);
    check_against_host<float>(p, mode, false, o);
  }
}

TEST(OocGemm, SpecialAlphaBetaAndK) {
  cuprim::ooc::gemm_options o;
  o.device_budget_bytes = 1 << 20;
  // alpha = 0 and k = 0: C = beta * C; beta = 0 clears NaN.
  for (const problem& p : {problem{'N', 'N', 20, 30, 10, 0.0, -1.5}, problem{'N', 'N', 20, 30, 10, 0.0, 0.0},
                           problem{'N', 'N', 20, 30, 0, 1.0, 0.5}})
    for (gemm_mode mode : all_modes) check_against_host<double>(p, mode, true, o);
}

// ---------------------------------------------------------------------------------------------------------------
// Medium sizes against in-core cuBLAS, under device caps forcing many tiles

template <class T>
std::vector<T> cublas_in_core(const problem& p, inputs<T>& in) {
  cublasHandle_t h = nullptr;
  EXPECT_EQ(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
  cuprim::device_buffer<T> a(in.A.size()), b(in.B.size()), c(in.C.size());
  EXPECT_EQ(cudaMemcpy(a.data(), in.A.data(), a.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(b.data(), in.B.data(), b.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(c.data(), in.C0.data(), c.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  const T alpha = T(p.alpha), beta = T(p.beta);
  const auto oa = p.ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, ob = p.tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  if constexpr (std::is_same_v<T, double>)
    EXPECT_EQ(cublasDgemm(h, oa, ob, int(p.m), int(p.n), int(p.k), &alpha, a.data(), int(in.lda), b.data(),
                          int(in.ldb), &beta, c.data(), int(in.ldc)),
              CUBLAS_STATUS_SUCCESS);
  else
    EXPECT_EQ(cublasSgemm(h, oa, ob, int(p.m), int(p.n), int(p.k), &alpha, a.data(), int(in.lda), b.data(),
                          int(in.ldb), &beta, c.data(), int(in.ldc)),
              CUBLAS_STATUS_SUCCESS);
  auto out = c.to_host_sync();
  cublasDestroy(h);
  return out;
}

template <class T>
void check_against_cublas(const problem& p, std::size_t cap, bool pinned, std::int64_t min_tiles = 8) {
  inputs<T> in(p, pinned, cuprim_test::test_seed(), 5);
  const std::vector<T> expect = cublas_in_core<T>(p, in);
  // Bound: |alpha| * sum |a||b| + |beta c| from the host (a cheap O(mnk) pass at these sizes).
  std::vector<T> c0_dense(std::size_t(p.m * p.n));
  for (std::int64_t j = 0; j < p.n; ++j)
    for (std::int64_t i = 0; i < p.m; ++i) c0_dense[std::size_t(i + j * p.m)] = in.C0[std::size_t(i + j * in.ldc)];
  const auto bound = cuprim::host::gemm_abs_bound<T>(p.ta, p.tb, p.m, p.n, p.k, T(p.alpha), in.A.data(), in.lda,
                                                     in.B.data(), in.ldb, T(p.beta), c0_dense.data(), p.m);
  for (gemm_mode mode : all_modes) {
    if (mode == gemm_mode::four_way && !cuprim::ooc::cpu_blas_available()) continue;
    std::copy(in.C0.begin(), in.C0.end(), in.C.data());
    cuprim::ooc::gemm_options o;
    o.mode = mode;
    o.device_budget_bytes = cap;
    o.cpu_share = mode == gemm_mode::four_way ? 0.2 : -1;
    const auto r = cuprim::ooc::gemm_sync<T>(p.ta, p.tb, p.m, p.n, p.k, T(p.alpha), in.A.data(), in.lda, in.B.data(),
                                            in.ldb, T(p.beta), in.C.data(), in.ldc, o);
    EXPECT_LE(r.device_bytes, cap);
    EXPECT_GE(r.tiles, min_tiles) << "the cap should force many tiles";
    EXPECT_EQ(r.staged_a || r.registered_a, !pinned);  // pageable: staged or locked in place (by its size)
    // Everything C holds was computed out of core: the bytes moved match the plan.
    EXPECT_DOUBLE_EQ(r.bytes_d2h, double(p.m) * double(r.gpu_columns) * sizeof(T));
    expect_close<T>(p, in, expect, bound, label(p, mode, pinned) + " vs cuBLAS tiles=" + std::to_string(r.tiles));
  }
}

TEST(OocGemm, MediumAgainstInCoreCublasDouble) {
  // C is 1000 x 1500 doubles (12 MB); caps of 4 MiB (one k-panel, tiles of a few hundred columns) and 600 KiB
  // (small tiles, several k-panels).
  check_against_cublas<double>({'N', 'N', 1000, 1500, 300, 1.0, 0.5}, std::size_t(4) << 20, true);
  check_against_cublas<double>({'T', 'N', 1000, 1500, 300, -1.0, 0.0}, std::size_t(600) << 10, true);
  check_against_cublas<double>({'N', 'T', 777, 1023, 513, 2.0, 1.0}, std::size_t(600) << 10, false);
  // Pageable with tiles of several MiB: the staging copies are split over the copy threads.
  check_against_cublas<double>({'N', 'N', 1000, 1500, 300, 1.0, 0.5}, std::size_t(64) << 20, false, 2);
}

TEST(OocGemm, MediumAgainstInCoreCublasFloat) {
  check_against_cublas<float>({'T', 'T', 1100, 900, 257, 1.0, -1.0}, std::size_t(1) << 20, true);
}

// ---------------------------------------------------------------------------------------------------------------
// Failure in the middle of a run: every device buffer released; the pipeline's streams drained

/// Counts the bytes outstanding from the resource it wraps.
class counting_resource final : public cuprim::memory_resource {
public:
  explicit counting_resource(cuprim::memory_resource& up) : up_(up) {}
  void* allocate(std::size_t bytes, cudaStream_t s) override {
    void* p = up_.allocate(bytes, s);
    std::lock_guard<std::mutex> l(mu_);
    outstanding_ += bytes;
    ++allocations_;
    return p;
  }
  void deallocate(void* p, std::size_t bytes, cudaStream_t s) noexcept override {
    up_.deallocate(p, bytes, s);
    std::lock_guard<std::mutex> l(mu_);
    outstanding_ -= bytes;
  }
  std::size_t outstanding() const { return outstanding_; }
  int allocations() const { return allocations_; }

private:
  cuprim::memory_resource& up_;
  std::mutex mu_;
  std::size_t outstanding_ = 0;
  int allocations_ = 0;
};

/// A tile engine that delegates to cuBLAS, counts its calls, and can fail at call `fail_at`.
class test_engine final : public cuprim::ooc::gemm_tile_engine<double> {
public:
  explicit test_engine(int fail_at = -1) : fail_at_(fail_at) {}
  void gemm(cudaStream_t s, char ta, char tb, int m, int n, int k, double alpha, const double* A, int lda,
            const double* B, int ldb, double beta, double* C, int ldc) override {
    if (calls_++ == fail_at_) throw std::runtime_error("test engine failure");
    inner_.gemm(s, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  const char* name() const noexcept override { return "test"; }
  int calls() const { return calls_; }

private:
  cuprim::ooc::cublas_tile_engine<double> inner_;
  int fail_at_;
  int calls_ = 0;
};

TEST(OocGemm, CustomEngineIsUsed) {
  const problem p{'N', 'N', 300, 400, 90, 1.0, 1.0};
  inputs<double> in(p, true, cuprim_test::test_seed(), 0);
  std::vector<double> expect(in.C0);
  cuprim::host::gemm<double>('N', 'N', p.m, p.n, p.k, 1.0, in.A.data(), in.lda, in.B.data(), in.ldb, 1.0,
                             expect.data(), in.ldc);
  test_engine eng;
  cuprim::ooc::gemm_options o;
  o.tile_m = 128;
  o.tile_n = 100;
  o.tile_k = 40;
  o.device_budget_bytes = 1 << 20;
  const auto r = cuprim::ooc::gemm_sync<double>('N', 'N', p.m, p.n, p.k, 1.0, in.A.data(), in.lda, in.B.data(),
                                               in.ldb, 1.0, in.C.data(), in.ldc, o, &eng);
  EXPECT_EQ(r.engine, "test");
  EXPECT_EQ(r.tiles, 3 * 4);
  EXPECT_EQ(eng.calls(), 3 * 4 * 3);  // tiles x k-panels
  std::vector<double> c0(in.C0);
  const auto bound = cuprim::host::gemm_abs_bound<double>('N', 'N', p.m, p.n, p.k, 1.0, in.A.data(), in.lda,
                                                          in.B.data(), in.ldb, 1.0, c0.data(), p.m);
  expect_close<double>(p, in, expect, bound, "custom engine");
}

TEST(OocGemm, FailureMidRunReleasesEverything) {
  counting_resource counter(cuprim::current_resource());
  cuprim::set_current_resource(&counter);
  const problem p{'N', 'N', 256, 512, 64, 1.0, 1.0};
  for (bool pinned : {true, false})
    for (gemm_mode mode : {gemm_mode::serial, gemm_mode::two_way, gemm_mode::three_way}) {
      inputs<double> in(p, pinned, cuprim_test::test_seed(), 0);
      test_engine eng(5);  // fails at the sixth tile
      cuprim::ooc::gemm_options o;
      o.mode = mode;
      o.tile_m = 128;
      o.tile_n = 64;
      o.device_budget_bytes = 4 << 20;
      EXPECT_THROW(cuprim::ooc::gemm_sync<double>('N', 'N', p.m, p.n, p.k, 1.0, in.A.data(), in.lda, in.B.data(),
                                                 in.ldb, 1.0, in.C.data(), in.ldc, o, &eng),
                   std::runtime_error);
      EXPECT_GT(counter.allocations(), 0);
      EXPECT_EQ(counter.outstanding(), 0u) << cuprim::ooc::gemm_mode_name(mode) << (pinned ? " pinned" : " pageable");
      if (!pinned) {  // C (1 MiB) was locked in place: it is pageable again
        cudaPointerAttributes a{};
        EXPECT_EQ(cudaPointerGetAttributes(&a, in.C.data()), cudaSuccess);
        EXPECT_NE(a.type, cudaMemoryTypeHost) << cuprim::ooc::gemm_mode_name(mode);
      }
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    }
  cuprim::set_current_resource(nullptr);
}

// ---------------------------------------------------------------------------------------------------------------
// Bad pointers need the device to tell them apart, and are still rejected before any transfer

TEST(OocGemm, DevicePointersRejected) {
  cuprim::device_buffer<double> d(64);
  std::vector<double> A(64, 1.0), B(64, 1.0), C(64, 3.0);
  cuprim::ooc::gemm_options o;
  o.device_budget_bytes = 1 << 20;
  for (int which = 0; which < 3; ++which) {
    try {
      cuprim::ooc::gemm_sync<double>('N', 'N', 8, 8, 8, 1.0, which == 0 ? d.data() : A.data(), 8,
                                    which == 1 ? d.data() : B.data(), 8, 1.0, which == 2 ? d.data() : C.data(), 8, o);
      ADD_FAILURE() << "device pointer accepted";
    } catch (const cuprim::invalid_argument& e) {
      EXPECT_EQ(e.argument(), std::string(which == 0 ? "A" : which == 1 ? "B" : "C")) << e.what();
    }
  }
  for (double c : C) EXPECT_EQ(c, 3.0);
}

// Managed memory follows the rule every out-of-core call shares (cuprim::detail::host_memory_kind): the copy
// engines cannot stream it without page faults, so it is staged through page-locked buffers like pageable memory.
TEST(OocGemm, ManagedArraysAreStaged) {
  const problem p{'N', 'T', 130, 90, 40, 1.0, 0.5};
  const std::int64_t lda = p.m, ldb = p.n, ldc = p.m;
  double *A = nullptr, *B = nullptr, *C = nullptr;
  ASSERT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&A), sizeof(double) * std::size_t(lda * p.k)), cudaSuccess);
  ASSERT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&B), sizeof(double) * std::size_t(ldb * p.k)), cudaSuccess);
  ASSERT_EQ(cudaMallocManaged(reinterpret_cast<void**>(&C), sizeof(double) * std::size_t(ldc * p.n)), cudaSuccess);
  std::mt19937_64 g(cuprim_test::test_seed());
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t i = 0; i < lda * p.k; ++i) A[i] = u(g);
  for (std::int64_t i = 0; i < ldb * p.k; ++i) B[i] = u(g);
  for (std::int64_t i = 0; i < ldc * p.n; ++i) C[i] = u(g);
  std::vector<double> expect(C, C + ldc * p.n), c0(expect);
  cuprim::host::gemm<double>(p.ta, p.tb, p.m, p.n, p.k, p.alpha, A, lda, B, ldb, p.beta, expect.data(), ldc);
  const auto bound = cuprim::host::gemm_abs_bound<double>(p.ta, p.tb, p.m, p.n, p.k, p.alpha, A, lda, B, ldb, p.beta,
                                                          c0.data(), p.m);
  cuprim::ooc::gemm_options o;
  o.device_budget_bytes = 1 << 20;
  o.tile_n = 32;
  const auto r = cuprim::ooc::gemm_sync<double>(p.ta, p.tb, p.m, p.n, p.k, p.alpha, A, lda, B, ldb, p.beta, C, ldc, o);
  EXPECT_TRUE(r.staged_a && r.staged_b && r.staged_c);
  EXPECT_GT(r.tiles, 1);
  int bad = 0;
  for (std::int64_t i = 0; i < ldc * p.n && bad < 5; ++i) {
    const double tol = 4.0 * double(p.k + 2) * eps<double>() * bound[std::size_t(i)] + 1e-30;
    if (!(std::fabs(C[i] - expect[std::size_t(i)]) <= tol)) {
      ADD_FAILURE() << "C[" << i << "] = " << C[i] << ", expected " << expect[std::size_t(i)];
      ++bad;
    }
  }
  EXPECT_EQ(cudaFree(A), cudaSuccess);
  EXPECT_EQ(cudaFree(B), cudaSuccess);
  EXPECT_EQ(cudaFree(C), cudaSuccess);
}

TEST(OocGemm, RatesAreMeasured) {
  const auto r = cuprim::ooc::gemm_measure_rates<double>();
  EXPECT_GT(r.h2d_gbps, 1.0);
  EXPECT_GT(r.d2h_gbps, 1.0);
  EXPECT_GT(r.gpu_gflops, 10.0);
  if (cuprim::ooc::cpu_blas_available()) {
    EXPECT_GT(r.cpu_gflops, 0.1);
  }
  std::printf("rates: H2D %.1f GB/s, D2H %.1f GB/s (concurrent), GPU DGEMM %.0f GFLOP/s, CPU DGEMM %.1f GFLOP/s "
              "(%d threads, %s)\n",
              r.h2d_gbps, r.d2h_gbps, r.gpu_gflops, r.cpu_gflops, r.cpu_threads, cuprim::ooc::cpu_blas_name().c_str());
}

}  // namespace
