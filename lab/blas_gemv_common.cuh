// lab/blas_gemv_common.cuh: the gemv row of cuprim-lab (cuprim::blas::gemv, or a ladder rung, against
// cublasSgemv / cublasDgemv, interleaved), shared by the production rows (blas_gemv.cu) and the policy sweep
// (blas_gemv_sweep.cu).
#pragma once

#include "blas_common.cuh"
#include "lab.hpp"

#include "ladder/gemv.cuh"

#include <cuprim/blas/gemv.cuh>
#include <cuprim/host/gemv.hpp>

#include <cublas_v2.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace lab::gemv_family {

using blas_family::cublas_handle;
using blas_family::fill_uniform_t;

template <class T>
void fill(T* p, std::size_t n, std::uint32_t seed) {
  fill_uniform_t<<<1024, 256>>>(p, n, seed);
  check(cudaGetLastError(), "launch of fill_uniform_t");
}

/// Which implementation a gemv row times: cuprim's production call or a ladder rung.
enum class gemv_impl { production, rung };

/// One gemv row (a sweep row under `Policy` when sweep_label is given): y = op(A)·x (alpha 1, beta 0, unit strides, lda = m) against cublas<S|D>gemv, interleaved;
/// verified on 32 sampled elements of y (the first and last among them) against a long-double host sum.
template <class T, auto Policy = cuprim::tuned>
void add_gemv_case(std::string name, bool trans, std::int64_t m, std::int64_t n, gemv_impl impl,
                   cuprim::ladder::gemv_variant rung, bool quick, int reps, const char* sweep_label = nullptr) {
  case_def c;
  c.name = std::move(name);
  c.family = "blas";
  c.op = trans ? "gemv-T" : "gemv-N";
  c.variant = sweep_label                       ? std::string(sweep_label)
              : impl == gemv_impl::production ? "production"
                                              : std::string(cuprim::ladder::to_string(rung));
  c.sweep = sweep_label != nullptr;
  c.dtype = sizeof(T) == 4 ? "float" : "double";
  c.n = m * n;
  c.bytes = double(m * n + m + n) * sizeof(T);
  c.quick = quick;
  c.reps = reps;
  c.baseline = sizeof(T) == 4 ? "cublasSgemv" : "cublasDgemv";
  c.setup = [=]() -> bench {
    struct state {
      device_memory a, x, y, base_y;
      cublas_handle blas;
    };
    auto st = std::make_shared<state>();
    const std::int64_t len_x = trans ? m : n, len_y = trans ? n : m;
    st->a = device_memory(std::size_t(m * n) * sizeof(T));
    st->x = device_memory(std::size_t(len_x) * sizeof(T));
    st->y = device_memory(std::size_t(len_y) * sizeof(T));
    st->base_y = device_memory(std::size_t(len_y) * sizeof(T));
    fill(st->a.template as<T>(), std::size_t(m * n), 31u);
    fill(st->x.template as<T>(), std::size_t(len_x), 32u);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (gemv inputs)");
    const auto op = trans ? cuprim::blas::op::T : cuprim::blas::op::N;
    bench b;
    if (impl == gemv_impl::production)
      b.run = [st, op, m, n](cudaStream_t s, int) {
        cuprim::blas::gemv<Policy>(op, m, n, T(1), st->a.template as<T>(), m, st->x.template as<T>(), 1, T(0),
                                   st->y.template as<T>(), 1, s);
      };
    else
      b.run = [st, rung, trans, m, n](cudaStream_t s, int) {
        cuprim::ladder::gemv(rung, trans, m, n, st->a.template as<T>(), m, st->x.template as<T>(),
                             st->y.template as<T>(), s);
      };
    b.baseline = [st, trans, m, n](cudaStream_t s, int) {
      const T one = 1, zero = 0;
      cublasSetStream(st->blas.h, s);
      const cublasOperation_t o = trans ? CUBLAS_OP_T : CUBLAS_OP_N;
      cublasStatus_t r;
      if constexpr (sizeof(T) == 4)
        r = cublasSgemv(st->blas.h, o, int(m), int(n), &one, st->a.template as<T>(), int(m), st->x.template as<T>(), 1,
                        &zero, st->base_y.template as<T>(), 1);
      else
        r = cublasDgemv(st->blas.h, o, int(m), int(n), &one, st->a.template as<T>(), int(m), st->x.template as<T>(), 1,
                        &zero, st->base_y.template as<T>(), 1);
      if (r != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublas gemv failed");
    };
    b.verify = [st, trans, m, n, len_x, len_y, run = b.run, base = b.baseline]() {
      st->y.poison();
      st->base_y.poison();
      run(0, 0);
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (gemv verify)");
      const std::vector<T> x = to_host(st->x.template as<T>(), std::size_t(len_x));
      const std::vector<T> y = to_host(st->y.template as<T>(), std::size_t(len_y));
      const std::vector<T> yb = to_host(st->base_y.template as<T>(), std::size_t(len_y));
      std::mt19937_64 g(7);
      const double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
      int bad = 0, bad_base = 0;
      std::vector<T> row(static_cast<std::size_t>(len_x));
      for (int s = 0; s < 32; ++s) {
        const std::int64_t k = s == 0 ? 0 : s == 1 ? len_y - 1 : std::int64_t(g() % std::uint64_t(len_y));
        // Row k of op(A): a column of A (op T, contiguous) or a row (op N, stride m).
        if (trans)
          check(cudaMemcpy(row.data(), st->a.template as<T>() + k * m, std::size_t(m) * sizeof(T), cudaMemcpyDeviceToHost),
                "copy a column of A");
        else
          check(cudaMemcpy2D(row.data(), sizeof(T), st->a.template as<T>() + k, std::size_t(m) * sizeof(T), sizeof(T),
                             std::size_t(n), cudaMemcpyDeviceToHost),
                "copy a row of A");
        const auto ref = cuprim::host::dot(len_x, row.data(), 1, x.data(), 1);
        const double tol = double(len_x + 8) * u * ref.bound + u * std::fabs(ref.value);
        bad += !(std::fabs(double(y[std::size_t(k)]) - ref.value) <= tol);
        bad_base += !(std::fabs(double(yb[std::size_t(k)]) - ref.value) <= tol);
      }
      verify_result v;
      v.ok = bad == 0;
      v.baseline_ok = bad_base == 0;
      v.detail = "32 sampled elements of y within (len + 8) u sum|a x| + u |y| of a long-double host sum: " +
                 std::to_string(32 - bad) + " cuprim, " + std::to_string(32 - bad_base) + " cuBLAS";
      return v;
    };
    return b;
  };
  if (impl == gemv_impl::production)
    c.policy = [] {
      if constexpr (std::is_same_v<decltype(Policy), cuprim::blas::gemv_policy>) return record_policy(Policy);
      else return record_policy(cuprim::blas::gemv_policy_for<T>(cuprim::current_tuned_arch()));
    };
  add_case(std::move(c));
}

inline std::string shape_label(std::int64_t m, std::int64_t n) { return size_label(m) + "x" + size_label(n); }

}  // namespace lab::gemv_family
