// lab/blas_batched_common.cuh: the batched GEMM row of cuprim-lab (cuprim::blas::gemm_strided_batched or
// gemm_batched against cublas<S|D>gemmStridedBatched or cublas<S|D>gemmBatched, calls interleaved), shared by the
// production rows (blas_batched.cu) and the small kernel's policy sweep (blas_batched_sweep.cu).
//
// A row: `batch` square s × s × s products, NN, tight leading dimensions (lda = ldb = ldc = s) and strides (s²: the
// batches one after another), alpha 1, beta 0 or 1, inputs uniform in [-1, 1). Memory-bound (gemm_small_kernel.cuh's
// bound): bytes = batch · (A + B + C written, + C read when beta ≠ 0) · size, so the table's GB/s and %copy compare
// the stream with the device copy measured in the same run. Verified before timing on 48 sampled batches (the first
// and the last among them), every element against a double host sum within (k + 4)·u·(Σ|a·b| + |beta·c|).
#pragma once

#include "blas_common.cuh"
#include "lab.hpp"

#include <cuprim/blas/gemm.cuh>

#include <cublas_v2.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace lab::batched_family {

using blas_family::cublas_handle;
using blas_family::fill_uniform_t;

/// z-th pointer of base + z·stride (the pointer-array rows' arrays).
template <class T>
__global__ void make_pointers(const T* base, std::int64_t stride, std::int64_t count, const T** out) {
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t z = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; z < count; z += step)
    out[z] = base + z * stride;
}

/// "1e5" for powers of ten, the decimal number otherwise.
inline std::string batch_label(std::int64_t batch) {
  std::int64_t p = 1;
  for (int e = 0; e <= 18; ++e, p *= 10)
    if (p == batch) return "1e" + std::to_string(e);
  return std::to_string(batch);
}

/// The policy the row runs: an explicit one, or the table's (the small kernel's row for the tile, the general
/// kernel's above gemm_small_max).
template <class T, auto Policy>
policy_record batched_policy(std::int64_t s) {
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(Policy)>, cuprim::tuned_t>) {
    const int arch = cuprim::current_tuned_arch();
    if (s <= cuprim::blas::gemm_small_max)
      return record_policy(cuprim::blas::gemm_small_policy_for<T>(arch, cuprim::blas::gemm_small_tile(s, s)));
    return record_policy(cuprim::blas::gemm_policy_for<T>(arch));
  } else {
    return record_policy(Policy);
  }
}

/// One batched row (a sweep row under `Policy` when sweep_label is given; see the file comment).
template <class T, auto Policy = cuprim::tuned>
void add_batched_case(std::string name, std::int64_t s, std::int64_t batch, bool beta_one, bool array, bool quick,
                      const char* sweep_label = nullptr) {
  constexpr bool is_float = std::is_same_v<T, float>;
  case_def c;
  c.name = std::move(name);
  c.family = "blas";
  c.op = std::string(array ? "gemm-batched-ptr/" : "gemm-strided-batched/") + std::to_string(s) + "x" +
         std::to_string(s);
  c.variant = sweep_label ? std::string(sweep_label) : std::string(beta_one ? "beta 1" : "beta 0");
  c.sweep = sweep_label != nullptr;
  c.dtype = is_float ? "float" : "double";
  c.n = batch;
  c.bytes = double(batch) * double(s * s) * (beta_one ? 4.0 : 3.0) * sizeof(T);
  c.flops = 2.0 * double(batch) * double(s * s * s);
  c.quick = quick;
  c.reps = 30;
  c.baseline = array ? (is_float ? "cublasSgemmBatched" : "cublasDgemmBatched")
                     : (is_float ? "cublasSgemmStridedBatched" : "cublasDgemmStridedBatched");
  c.setup = [=]() -> bench {
    struct state {
      device_memory a, b, c, c0, base_c, pa, pb, pc, base_pc;
      cublas_handle blas;
    };
    auto st = std::make_shared<state>();
    const std::int64_t stride = s * s;
    const std::size_t count = std::size_t(stride) * std::size_t(batch);
    st->a = device_memory(count * sizeof(T));
    st->b = device_memory(count * sizeof(T));
    st->c = device_memory(count * sizeof(T));
    st->c0 = device_memory(count * sizeof(T));
    st->base_c = device_memory(count * sizeof(T));
    fill_uniform_t<<<2048, 256>>>(st->a.template as<T>(), count, 51u);
    fill_uniform_t<<<2048, 256>>>(st->b.template as<T>(), count, 52u);
    fill_uniform_t<<<2048, 256>>>(st->c0.template as<T>(), count, 53u);
    check(cudaGetLastError(), "launch of fill_uniform_t");
    if (array) {
      for (device_memory* p : {&st->pa, &st->pb, &st->pc, &st->base_pc})
        *p = device_memory(std::size_t(batch) * sizeof(T*));
      make_pointers<<<256, 256>>>(st->a.template as<T>(), stride, batch, st->pa.template as<const T*>());
      make_pointers<<<256, 256>>>(st->b.template as<T>(), stride, batch, st->pb.template as<const T*>());
      make_pointers<<<256, 256>>>(static_cast<const T*>(st->c.template as<T>()), stride, batch, st->pc.template as<const T*>());
      make_pointers<<<256, 256>>>(static_cast<const T*>(st->base_c.template as<T>()), stride, batch,
                                  st->base_pc.template as<const T*>());
      check(cudaGetLastError(), "launch of make_pointers");
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (batched inputs)");
    const T beta = beta_one ? T(1) : T(0);
    const auto N = cuprim::blas::op::N;
    bench b;
    b.run = [st, s, batch, stride, beta, array, N](cudaStream_t stream, int) {
      if (array)
        cuprim::blas::gemm_batched<Policy>(N, N, s, s, s, T(1), st->pa.template as<const T* const>(), s,
                                           st->pb.template as<const T* const>(), s, beta,
                                           st->pc.template as<T* const>(), s, batch, stream);
      else
        cuprim::blas::gemm_strided_batched<Policy>(N, N, s, s, s, T(1), st->a.template as<const T>(), s, stride,
                                                   st->b.template as<const T>(), s, stride, beta,
                                                   st->c.template as<T>(), s, stride, batch, stream);
    };
    b.baseline = [st, s, batch, stride, beta, array](cudaStream_t stream, int) {
      const T one = 1;
      cublasSetStream(st->blas.h, stream);
      const int n = int(s);
      cublasStatus_t r;
      if (array) {
        if constexpr (is_float)
          r = cublasSgemmBatched(st->blas.h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, st->pa.template as<const T*>(), n,
                                 st->pb.template as<const T*>(), n, &beta, st->base_pc.template as<T*>(), n, int(batch));
        else
          r = cublasDgemmBatched(st->blas.h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, st->pa.template as<const T*>(), n,
                                 st->pb.template as<const T*>(), n, &beta, st->base_pc.template as<T*>(), n, int(batch));
      } else {
        if constexpr (is_float)
          r = cublasSgemmStridedBatched(st->blas.h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, st->a.template as<T>(), n,
                                        stride, st->b.template as<T>(), n, stride, &beta, st->base_c.template as<T>(),
                                        n, stride, int(batch));
        else
          r = cublasDgemmStridedBatched(st->blas.h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, st->a.template as<T>(), n,
                                        stride, st->b.template as<T>(), n, stride, &beta, st->base_c.template as<T>(),
                                        n, stride, int(batch));
      }
      if (r != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublas batched gemm failed");
    };
    b.verify = [st, s, batch, stride, count, beta_one, run = b.run, base = b.baseline]() {
      // beta 1: both C start as C0; beta 0: poisoned (must be overwritten).
      if (beta_one) {
        check(cudaMemcpy(st->c.get(), st->c0.get(), count * sizeof(T), cudaMemcpyDeviceToDevice), "copy C0");
        check(cudaMemcpy(st->base_c.get(), st->c0.get(), count * sizeof(T), cudaMemcpyDeviceToDevice), "copy C0");
      } else {
        st->c.poison();
        st->base_c.poison();
      }
      run(0, 0);
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (batched verify)");
      std::mt19937_64 g(11);
      const double u = is_float ? 0x1p-24 : 0x1p-53;
      const std::size_t e = std::size_t(stride);
      std::vector<T> a(e), b(e), c(e), cb(e), c0(e);
      int bad = 0, bad_base = 0;
      constexpr int samples = 48;
      for (int t = 0; t < samples; ++t) {
        const std::int64_t z = t == 0 ? 0 : t == 1 ? batch - 1 : std::int64_t(g() % std::uint64_t(batch));
        const std::size_t off = std::size_t(z) * e * sizeof(T);
        const auto at = [&](const device_memory& m) { return static_cast<const char*>(m.get()) + off; };
        check(cudaMemcpy(a.data(), at(st->a), e * sizeof(T), cudaMemcpyDeviceToHost), "copy A");
        check(cudaMemcpy(b.data(), at(st->b), e * sizeof(T), cudaMemcpyDeviceToHost), "copy B");
        check(cudaMemcpy(c.data(), at(st->c), e * sizeof(T), cudaMemcpyDeviceToHost), "copy C");
        check(cudaMemcpy(cb.data(), at(st->base_c), e * sizeof(T), cudaMemcpyDeviceToHost), "copy cuBLAS C");
        check(cudaMemcpy(c0.data(), at(st->c0), e * sizeof(T), cudaMemcpyDeviceToHost), "copy C0");
        for (std::int64_t j = 0; j < s; ++j)
          for (std::int64_t i = 0; i < s; ++i) {
            double sum = 0, abs_sum = 0;
            for (std::int64_t p = 0; p < s; ++p) {
              const double x = double(a[std::size_t(i + p * s)]) * double(b[std::size_t(p + j * s)]);
              sum += x;
              abs_sum += std::fabs(x);
            }
            const double cin = beta_one ? double(c0[std::size_t(i + j * s)]) : 0.0;
            const double ref = sum + cin, tol = double(s + 4) * u * (abs_sum + std::fabs(cin));
            bad += !(std::fabs(double(c[std::size_t(i + j * s)]) - ref) <= tol);
            bad_base += !(std::fabs(double(cb[std::size_t(i + j * s)]) - ref) <= tol);
          }
      }
      verify_result v;
      v.ok = bad == 0;
      v.baseline_ok = bad_base == 0;
      v.detail = std::to_string(samples) + " sampled batches, every element within (k + 4) u (sum|a b| + |beta c|) of a "
                 "double host sum: " + std::to_string(bad) + " cuprim and " + std::to_string(bad_base) +
                 " cuBLAS elements out of bound";
      return v;
    };
    return b;
  };
  c.policy = [s] { return batched_policy<T, Policy>(s); };
  add_case(std::move(c));
}

}  // namespace lab::batched_family
