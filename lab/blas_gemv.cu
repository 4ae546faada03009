// cuprim-lab rows for BLAS levels 1 and 2: cuprim::blas::gemv against cublasSgemv / cublasDgemv and
// cuprim::blas::dot, asum and nrm2 against cublas<S|D>dot, asum and nrm2 (device pointer mode: stream-ordered like
// cuprim's), calls interleaved in the same run; and the gemv ladder (lab/ladder/gemv.cuh): the seed's CUDA-CHiLL
// steps (one thread per row; x in shared memory with the sum in a register; a warp per row, the coalescing answer
// for op T), each against cuBLAS. Memory-bound: the table's GB/s counts A, x and y once
// (bytes = (m·n + len x + len y)·size) and %copy compares that with the device-to-device copy measured in the same
// run. Headline shapes exceed L2 (50 MB).
//
//   cuprim-lab run 'blas/gemv/*'         the production rows (16384^2 N and T, long, wide, 4096^2, M = 1)
//   cuprim-lab run 'blas/dot/*' 'blas/asum/*' 'blas/nrm2/*'
//   cuprim-lab run 'blas/gemv-ladder/*'
#include "blas_gemv_common.cuh"

#include <cuprim/blas/dot.cuh>

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab {
namespace {

using namespace gemv_family;

/// The level-1 reductions the lab compares with cuBLAS.
enum class level1 { dot, asum, nrm2 };

/// One level-1 row (unit strides, n elements) against cublas<S|D>dot / asum / nrm2 in device pointer mode
/// (stream-ordered like cuprim's), interleaved: dot reads x and y, asum and nrm2 x alone. Verified against the
/// long-double host references: dot and asum within the pairwise-sum bound, nrm2 within a few roundings of the
/// result plus half the relative bound of a blocked sum of the squares in double (the square root halves it).
template <class T, level1 Op>
void add_level1_case(std::int64_t n, bool quick) {
  constexpr bool binary = Op == level1::dot;
  const char* op = Op == level1::dot ? "dot" : Op == level1::asum ? "asum" : "nrm2";
  case_def c;
  c.name = std::string("blas/") + op + "/" + (sizeof(T) == 4 ? "float" : "double") + "/" + size_label(n);
  c.family = "blas";
  c.op = op;
  c.variant = "production";
  c.dtype = sizeof(T) == 4 ? "float" : "double";
  c.n = n;
  c.bytes = (binary ? 2.0 : 1.0) * double(n) * sizeof(T);
  c.quick = quick;
  c.baseline = std::string("cublas") + (sizeof(T) == 4 ? "S" : "D") + op;
  c.setup = [n, op]() -> bench {
    struct state {
      device_memory x, y, r, base_r;
      cublas_handle blas;
    };
    auto st = std::make_shared<state>();
    st->x = device_memory(std::size_t(n) * sizeof(T));
    if (binary) st->y = device_memory(std::size_t(n) * sizeof(T));
    st->r = device_memory(sizeof(T));
    st->base_r = device_memory(sizeof(T));
    fill(st->x.template as<T>(), std::size_t(n), binary ? 41u : 43u);
    if (binary) fill(st->y.template as<T>(), std::size_t(n), 42u);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (level-1 inputs)");
    if (cublasSetPointerMode(st->blas.h, CUBLAS_POINTER_MODE_DEVICE) != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error("cublasSetPointerMode failed");
    bench b;
    b.run = [st, n](cudaStream_t s, int) {
      const T* x = st->x.template as<T>();
      T* r = st->r.template as<T>();
      if constexpr (Op == level1::dot) cuprim::blas::dot(n, x, 1, st->y.template as<T>(), 1, r, s);
      else if constexpr (Op == level1::asum) cuprim::blas::asum(n, x, 1, r, s);
      else cuprim::blas::nrm2(n, x, 1, r, s);
    };
    b.baseline = [st, n](cudaStream_t s, int) {
      cublasSetStream(st->blas.h, s);
      const T* x = st->x.template as<T>();
      const T* y = st->y.template as<T>();
      T* r = st->base_r.template as<T>();
      const int m = int(n);
      const cublasHandle_t h = st->blas.h;
      cublasStatus_t e;
      if constexpr (Op == level1::dot && sizeof(T) == 4) e = cublasSdot(h, m, x, 1, y, 1, r);
      else if constexpr (Op == level1::dot) e = cublasDdot(h, m, x, 1, y, 1, r);
      else if constexpr (Op == level1::asum && sizeof(T) == 4) e = cublasSasum(h, m, x, 1, r);
      else if constexpr (Op == level1::asum) e = cublasDasum(h, m, x, 1, r);
      else if constexpr (sizeof(T) == 4) e = cublasSnrm2(h, m, x, 1, r);
      else e = cublasDnrm2(h, m, x, 1, r);
      if (e != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublas level-1 call failed");
    };
    b.verify = [st, n, op = std::string(op), run = b.run, base = b.baseline]() {
      st->r.poison();
      st->base_r.poison();
      run(0, 0);
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (level-1 verify)");
      const std::vector<T> x = to_host(st->x.template as<T>(), std::size_t(n));
      const double eps = sizeof(T) == 4 ? 0x1p-23 : 0x1p-52;
      double ref, tol;
      if constexpr (Op == level1::dot) {
        const std::vector<T> y = to_host(st->y.template as<T>(), std::size_t(n));
        const auto d = cuprim::host::dot(n, x.data(), 1, y.data(), 1);
        ref = d.value;
        tol = sum_tolerance(eps, d.bound, d.value, n);
      } else if constexpr (Op == level1::asum) {
        ref = cuprim::host::asum(n, x.data(), 1);
        tol = sum_tolerance(eps, ref, ref, n);
      } else {
        ref = cuprim::host::nrm2(n, x.data(), 1);
        const double sq_rel = 0x1p-53 * (double(n) / 65536 + 2 * std::log2(double(n)) + 8);
        tol = ref * (4 * eps + sq_rel);
      }
      const T got = to_host(st->r.template as<T>())[0], got_base = to_host(st->base_r.template as<T>())[0];
      verify_result v;
      v.ok = std::fabs(double(got) - ref) <= tol;
      v.baseline_ok = std::fabs(double(got_base) - ref) <= tol;
      v.detail = op + " against a long-double host sum: cuprim " + std::to_string(double(got)) + ", cuBLAS " +
                 std::to_string(double(got_base)) + ", host " + std::to_string(ref);
      return v;
    };
    return b;
  };
  c.policy = [] { return record_policy(cuprim::blas::dot_policy_for<T>(cuprim::current_tuned_arch())); };
  add_case(std::move(c));
}

}  // namespace

void register_blas_gemv() {
  using cuprim::ladder::gemv_variant;
  struct shape {
    std::int64_t m, n;
    const char* what;
  };
  // Headline shapes above L2 (50 MB): square 16384^2 (1 GiB of float), long and wide (256 MiB), the M = 1 row
  // (a 2^24-element row of A, 64 MiB), and 4096^2 (64 MiB: a decode-sized layer).
  const shape shapes[] = {{16384, 16384, "square"}, {1 << 22, 16, "long"}, {16, 1 << 22, "wide"},
                          {1, 1 << 24, "M=1"},      {4096, 4096, "decode"}};
  for (bool trans : {false, true})
    for (const shape& s : shapes) {
      const std::string op = trans ? "T" : "N";
      add_gemv_case<float>("blas/gemv/float/" + op + "/" + shape_label(s.m, s.n), trans, s.m, s.n,
                           gemv_impl::production, gemv_variant::thread_per_row, s.m == 16384, 0);
    }
  for (bool trans : {false, true})
    add_gemv_case<double>(std::string("blas/gemv/double/") + (trans ? "T" : "N") + "/" + shape_label(8192, 8192), trans,
                          8192, 8192, gemv_impl::production, gemv_variant::thread_per_row, false, 0);
  // The ladder at 16384^2 float, both ops (rung 1 op T reads a sector per element per thread: few repetitions).
  for (bool trans : {false, true}) {
    const std::string op = trans ? "T" : "N";
    for (gemv_variant v : cuprim::ladder::gemv_variants)
      add_gemv_case<float>("blas/gemv-ladder/" + std::string(cuprim::ladder::to_string(v)) + "/float/" + op + "/" +
                               shape_label(16384, 16384),
                           trans, 16384, 16384, gemv_impl::rung, v, false, 10);
    add_gemv_case<float>("blas/gemv-ladder/production/float/" + op + "/" + shape_label(16384, 16384), trans, 16384,
                         16384, gemv_impl::production, gemv_variant::thread_per_row, false, 20);
  }
  add_level1_case<float, level1::dot>(std::int64_t(1) << 26, true);
  add_level1_case<double, level1::dot>(std::int64_t(1) << 25, false);
  add_level1_case<float, level1::dot>(std::int64_t(1) << 20, false);  // inside L2: launch and final pass dominate
  for (std::int64_t n : {std::int64_t(1) << 26, std::int64_t(1) << 20}) {
    add_level1_case<float, level1::asum>(n, false);
    add_level1_case<float, level1::nrm2>(n, false);
  }
  add_level1_case<double, level1::asum>(std::int64_t(1) << 25, false);
  add_level1_case<double, level1::nrm2>(std::int64_t(1) << 25, false);
  add_note("blas/gemv", "blas/gemv: y = op(A) x, column-major A (lda = m), alpha 1, beta 0, unit strides, inputs "
                        "uniform in [-1, 1); bytes = (m n + m + n) size, against cublas<S|D>gemv interleaved in the same "
                        "run; gemv-ladder: the seed's CUDA-CHiLL steps (lab/ladder/gemv.cuh), then the production call");
  add_note("blas/dot", "blas/dot: x.y, unit strides, bytes = 2 n size, against cublas<S|D>dot in device pointer mode "
                       "(result in device memory, like cuprim's), interleaved in the same run");
}

}  // namespace lab
