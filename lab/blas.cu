// cuprim-lab rows for dense linear algebra: cuprim::blas::gemm against cuBLAS (cublasSgemm / cublasDgemm, default
// math mode: true FP32 on CUDA cores for S, FP64 tensor cores for D; cublasGemmEx for 16-bit inputs), square
// column-major products, op N; and the GEMM ladder (lab/ladder/gemm.cuh): seed 001's steps from one thread per
// element to today's CUDA-core SGEMM, then the tensor-core rungs (mma.sync, then the production wgmma kernel), each
// rung against cuBLAS of the same math in the same run, with cuBLAS and a CPU BLAS as rows of their own and a table
// of TFLOP/s, % of the row's peak (FP32 CUDA cores or dense BF16 tensor cores) and the ratio to cuBLAS after the
// main one; the 16-bit shape sweep (squares, skinny products, odd sizes) with its geometric mean and minimum ratio,
// and its forced tile configurations as sweep rows.
//
//   cuprim-lab run 'blas/gemm/float-tf32*'        floats on tensor cores (math::tf32 against cuBLAS's TF32 mode,
//                                                  math::tf32x3 against cublasSgemm, each with its measured error)
//   cuprim-lab run blas/shapes
//   cuprim-lab sweep blas 'blas/sweep/shape-*'
//   cuprim-lab run blas/
//   cuprim-lab run gemm/ladder
#include "blas_common.cuh"
#include "lab.hpp"

#include "ladder/gemm.cuh"

#include <cuprim/blas/gemm.cuh>
#include <cuprim/host/gemm.hpp>
#include <cuprim/ooc/gemm.hpp>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace lab {
namespace {

using blas_family::add_gemm_tensor_case;
using blas_family::cublas_handle;

__global__ void fill_uniform(float* x, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = float(h & 0xffffff) * 0x1p-23f - 1.f;  // [-1, 1)
  }
}
__global__ void widen(const float* x, double* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    y[i] = x[i];
}

/// The square gemm rows' verification inputs: A, B, cuprim's C and cuBLAS's C (n × n each) copied to the host after
/// both calls ran on poisoned outputs.
template <class T>
struct gemm_host_copies {
  std::vector<T> a, b, c, base_c;
};
template <class T>
gemm_host_copies<T> gemm_verify_copies(std::int64_t s, device_memory& a, device_memory& b, device_memory& c,
                                       device_memory& base_c, const std::function<void(cudaStream_t, int)>& run,
                                       const std::function<void(cudaStream_t, int)>& base) {
  c.poison();
  base_c.poison();
  run(0, 0);
  base(0, 0);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (gemm verify)");
  const std::size_t e = std::size_t(s) * std::size_t(s);
  gemm_host_copies<T> h{std::vector<T>(e), std::vector<T>(e), std::vector<T>(e), std::vector<T>(e)};
  check(cudaMemcpy(h.a.data(), a.get(), e * sizeof(T), cudaMemcpyDeviceToHost), "copy A");
  check(cudaMemcpy(h.b.data(), b.get(), e * sizeof(T), cudaMemcpyDeviceToHost), "copy B");
  check(cudaMemcpy(h.c.data(), c.get(), e * sizeof(T), cudaMemcpyDeviceToHost), "copy C");
  check(cudaMemcpy(h.base_c.data(), base_c.get(), e * sizeof(T), cudaMemcpyDeviceToHost), "copy cuBLAS C");
  return h;
}

template <class T, auto Policy = cuprim::tuned>
void add_gemm(std::int64_t s, bool quick, const char* sweep_label = nullptr) {
  const char* dt = sizeof(T) == 4 ? "float" : "double";
  case_def c;
  c.name = (sweep_label ? std::string("blas/sweep/") + sweep_label + "/" : std::string("blas/gemm/")) + dt + "/NN/" +
           std::to_string(s);
  c.sweep = sweep_label != nullptr;
  c.family = "blas";
  c.op = "gemm";
  c.variant = sweep_label ? sweep_label : sizeof(T) == 4 ? "CUDA cores" : "FP64 tensor cores";
  c.dtype = dt;
  c.n = s;
  c.bytes = 0;  // compute-bound: the table shows GFLOP/s
  c.flops = 2.0 * double(s) * double(s) * double(s);
  c.quick = quick;
  c.baseline = sizeof(T) == 4 ? "cublasSgemm" : "cublasDgemm";
  c.setup = [s]() -> bench {
    struct state {
      device_memory a, b, c, base_c;
      cublas_handle blas;
    };
    auto st = std::make_shared<state>();
    const std::size_t e = std::size_t(s) * std::size_t(s);
    st->a = device_memory(e * sizeof(T));
    st->b = device_memory(e * sizeof(T));
    st->c = device_memory(e * sizeof(T));
    st->base_c = device_memory(e * sizeof(T));
    {
      device_memory tmp(e * sizeof(float));
      for (int which = 0; which < 2; ++which) {
        T* dst = (which == 0 ? st->a : st->b).template as<T>();
        float* f = sizeof(T) == 4 ? reinterpret_cast<float*>(dst) : tmp.as<float>();
        fill_uniform<<<1024, 256>>>(f, e, 17u + which);
        if constexpr (sizeof(T) == 8) widen<<<1024, 256>>>(f, reinterpret_cast<double*>(dst), e);
        check(cudaGetLastError(), "launch of fill_uniform");
      }
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (gemm inputs)");
    }
    bench b;
    b.run = [st, s](cudaStream_t stream, int) {
      cuprim::blas::gemm<Policy>(cuprim::blas::op::N, cuprim::blas::op::N, s, s, s, T(1), st->a.template as<T>(), s,
                                 st->b.template as<T>(), s, T(0), st->c.template as<T>(), s, stream);
    };
    b.baseline = [st, s](cudaStream_t stream, int) {
      const T one = 1, zero = 0;
      cublasSetStream(st->blas.h, stream);
      cublasStatus_t r;
      if constexpr (sizeof(T) == 4)
        r = cublasSgemm(st->blas.h, CUBLAS_OP_N, CUBLAS_OP_N, int(s), int(s), int(s), &one, st->a.template as<T>(), int(s),
                        st->b.template as<T>(), int(s), &zero, st->base_c.template as<T>(), int(s));
      else
        r = cublasDgemm(st->blas.h, CUBLAS_OP_N, CUBLAS_OP_N, int(s), int(s), int(s), &one, st->a.template as<T>(), int(s),
                        st->b.template as<T>(), int(s), &zero, st->base_c.template as<T>(), int(s));
      if (r != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cuBLAS gemm failed");
    };
    b.verify = [st, s, run = b.run, base = b.baseline]() {
      // 256 sampled elements of C against the host reference (cuprim::host::gemm_element: a long-double sum), bound
      // (k + 4)·u·Σ|a·b|; cuBLAS's likewise.
      const auto h = gemm_verify_copies<T>(s, st->a, st->b, st->c, st->base_c, run, base);
      const auto &a = h.a, &bm = h.b, &c = h.c, &cb = h.base_c;
      std::mt19937_64 g(5);
      const double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
      verify_result v;
      int bad = 0, bad_base = 0;
      for (int t = 0; t < 256; ++t) {
        const std::int64_t i = std::int64_t(g() % std::uint64_t(s)), j = std::int64_t(g() % std::uint64_t(s));
        const auto ref =
            cuprim::host::gemm_element<T>('N', 'N', s, T(1), a.data(), s, bm.data(), s, T(0), nullptr, s, i, j);
        const double tol = double(s + 4) * u * ref.bound;
        bad += !(std::fabs(double(c[std::size_t(i + j * s)]) - ref.value) <= tol);
        bad_base += !(std::fabs(double(cb[std::size_t(i + j * s)]) - ref.value) <= tol);
      }
      v.ok = bad == 0;
      v.baseline_ok = bad_base == 0;
      v.detail = "256 sampled elements within (k + 4) u sum|a b| of a double host sum: " + std::to_string(256 - bad) +
                 " cuprim, " + std::to_string(256 - bad_base) + " cuBLAS";
      return v;
    };
    return b;
  };
  c.policy = [] {
    // double: the FP64 tensor-core kernel takes these aligned square operands on sm_90 (its policy is the one run)
    if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(Policy)>, cuprim::tuned_t>) return record_policy(Policy);
    else if constexpr (sizeof(T) == 8) return record_policy(cuprim::blas::gemm_dmma_policy_for(cuprim::current_tuned_arch()));
    else return record_policy(cuprim::blas::gemm_policy_for<T>(cuprim::current_tuned_arch()));
  };
  add_case(std::move(c));
}

// ---------------------------------------------------------------------------------------------------------
// Floats on tensor cores (blas::math::tf32, tf32x3): blas/gemm/float-<mode>/<op pair>/<n>, square column-major
// products, alpha 1, beta 0. tf32 against cuBLAS in its TF32 mode (cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32),
// tf32x3 against cublasSgemm (true FP32: what it replaces). The verification prints each side's worst error on 256
// sampled elements, relative to Σ|a·b| (a double host sum), beside the bound.

template <cuprim::blas::math Mode, auto Policy = cuprim::tuned>
void add_gemm_math(std::int64_t s, bool ta, bool quick, const char* sweep_label = nullptr) {
  constexpr bool x3 = Mode == cuprim::blas::math::tf32x3;
  const std::string pair = ta ? "TN" : "NN";
  case_def c;
  c.name = (sweep_label ? std::string("blas/sweep/") + sweep_label + "/" : std::string("blas/gemm/")) +
           (x3 ? "float-tf32x3/" : "float-tf32/") + pair + "/" + std::to_string(s);
  c.sweep = sweep_label != nullptr;
  c.family = "blas";
  c.op = "gemm";
  c.variant = x3 ? "3xTF32 tensor cores" : "TF32 tensor cores";
  c.dtype = "float";
  c.n = s;
  c.bytes = 0;
  c.flops = 2.0 * double(s) * double(s) * double(s);
  c.quick = quick;
  c.baseline = x3 ? "cublasSgemm" : "cublasGemmEx-tf32";
  c.setup = [s, ta, name = c.name]() -> bench {
    struct state {
      device_memory a, b, c, base_c;
      cublas_handle blas;
    };
    auto st = std::make_shared<state>();
    const std::size_t e = std::size_t(s) * std::size_t(s);
    st->a = device_memory(e * sizeof(float));
    st->b = device_memory(e * sizeof(float));
    st->c = device_memory(e * sizeof(float));
    st->base_c = device_memory(e * sizeof(float));
    fill_uniform<<<1024, 256>>>(st->a.template as<float>(), e, 17u);
    fill_uniform<<<1024, 256>>>(st->b.template as<float>(), e, 18u);
    check(cudaGetLastError(), "launch of fill_uniform");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (gemm inputs)");
    const auto op_a = ta ? cuprim::blas::op::T : cuprim::blas::op::N;
    bench b;
    b.run = [st, s, op_a](cudaStream_t stream, int) {
      cuprim::blas::gemm<Policy>(Mode, op_a, cuprim::blas::op::N, s, s, s, 1.f, st->a.template as<float>(), s,
                                 st->b.template as<float>(), s, 0.f, st->c.template as<float>(), s, stream);
    };
    b.baseline = [st, s, ta](cudaStream_t stream, int) {
      const float one = 1, zero = 0;
      cublasSetStream(st->blas.h, stream);
      const cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
      cublasStatus_t r;
      if constexpr (x3)
        r = cublasSgemm(st->blas.h, oa, CUBLAS_OP_N, int(s), int(s), int(s), &one, st->a.template as<float>(), int(s),
                        st->b.template as<float>(), int(s), &zero, st->base_c.template as<float>(), int(s));
      else
        r = cublasGemmEx(st->blas.h, oa, CUBLAS_OP_N, int(s), int(s), int(s), &one, st->a.template as<float>(), CUDA_R_32F,
                         int(s), st->b.template as<float>(), CUDA_R_32F, int(s), &zero, st->base_c.template as<float>(), CUDA_R_32F,
                         int(s), CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
      if (r != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cuBLAS gemm failed");
    };
    b.verify = [st, s, ta, name, run = b.run, base = b.baseline]() {
      const auto h = gemm_verify_copies<float>(s, st->a, st->b, st->c, st->base_c, run, base);
      const auto &a = h.a, &bm = h.b, &c = h.c, &cb = h.base_c;
      std::mt19937_64 g(5);
      // The header's bounds: tf32 (2^-9 + 4 k 2^-24) Σ|a b|, tf32x3 (2^-19 + 4 k 2^-24) Σ|a b|; cuBLAS held to its
      // mode's (TF32 as tf32, SGEMM as FP32: (k + 4) 2^-24).
      const double k_term = 4.0 * double(s) * 0x1p-24;
      const double tol_cuprim = (x3 ? 0x1p-19 : 0x1p-9) + k_term;
      const double tol_base = x3 ? double(s + 4) * 0x1p-24 : 0x1p-9 + k_term;
      verify_result v;
      int bad = 0, bad_base = 0;
      double worst = 0, worst_base = 0;
      for (int t = 0; t < 256; ++t) {
        const std::int64_t i = std::int64_t(g() % std::uint64_t(s)), j = std::int64_t(g() % std::uint64_t(s));
        const auto ref = cuprim::host::gemm_element<float>(ta ? 'T' : 'N', 'N', s, 1.f, a.data(), s, bm.data(), s,
                                                           0.f, nullptr, s, i, j);
        const double err = std::fabs(double(c[std::size_t(i + j * s)]) - ref.value) / ref.bound;
        const double err_base = std::fabs(double(cb[std::size_t(i + j * s)]) - ref.value) / ref.bound;
        worst = std::max(worst, err);
        worst_base = std::max(worst_base, err_base);
        bad += !(err <= tol_cuprim);
        bad_base += !(err_base <= tol_base);
      }
      v.ok = bad == 0;
      v.baseline_ok = bad_base == 0;
      char line[256];
      std::snprintf(line, sizeof line, "%s: worst |error| / sum|a b| on 256 sampled elements: cuprim %.3g, %s %.3g "
                                       "(bound %.3g)", name.c_str(), worst, x3 ? "cublasSgemm" : "cuBLAS TF32",
                    worst_base, tol_cuprim);
      std::printf("  %s\n", line);
      v.detail = line;
      return v;
    };
    return b;
  };
  c.policy = [] {
    constexpr int parts = x3 ? 2 : 1;
    if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(Policy)>, cuprim::tuned_t>) return record_policy(Policy);
    else return record_policy(cuprim::blas::gemm_tf32_policy(cuprim::blas::gemm_sm90_policy_for(cuprim::current_tuned_arch()), parts));
  };
  add_case(std::move(c));
}

// ---------------------------------------------------------------------------------------------------------
// 16-bit inputs on tensor cores: blas/gemm/<in>/<op pair>/<n> against cublasGemmEx (the same input and output types,
// CUBLAS_COMPUTE_32F), square column-major products, alpha 1, beta 0; C of the input type. Sweep rows
// (blas/sweep/<policy>/...) take another gemm_sm90_policy.

/// The square rows: blas/gemm/<in>/<op pair>/<n>, sweep rows blas/sweep/<label>/<in>/<op pair>/<n>.
template <class In, auto Policy = cuprim::tuned>
void add_gemm_tensor(std::int64_t s, bool ta, bool quick, const char* sweep_label = nullptr) {
  const char* dt = std::is_same_v<In, __nv_bfloat16> ? "bf16" : "half";
  const std::string ops = std::string(ta ? "T" : "N") + "N";
  add_gemm_tensor_case<In, Policy>(
      (sweep_label ? std::string("blas/sweep/") + sweep_label + "/" : std::string("blas/gemm/")) + dt + "/" + ops +
          "/" + std::to_string(s),
      "gemm", s, s, s, ta, quick, sweep_label);
}

// ---------------------------------------------------------------------------------------------------------
// The GEMM ladder: gemm/ladder/<rung>/<float | bf16>/<n>, square NN products, alpha 1, beta 0, C float. FP32 rungs
// (1-4) take float inputs and run against cublasSgemm; BF16 rungs (5-6) take the same inputs rounded to bf16 and run
// against cublasGemmEx (bf16 A and B, float C, CUBLAS_COMPUTE_32F).

constexpr const char* ladder_prefix = "gemm/ladder/";

__global__ void narrow_bf16(const float* x, __nv_bfloat16* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    y[i] = __float2bfloat16(x[i]);
}

/// Square n x n operands A and B (uniform in [-1, 1), the blas/gemm rows' generator and seeds), on the device; with
/// `bf16`, also rounded to bf16 (round to nearest even: the values the blas/gemm/bf16 rows' generator gives).
struct ladder_inputs {
  device_memory a, b, a16, b16;
  ladder_inputs(std::int64_t s, bool bf16) {
    const std::size_t e = std::size_t(s) * std::size_t(s);
    a = device_memory(e * sizeof(float));
    b = device_memory(e * sizeof(float));
    fill_uniform<<<1024, 256>>>(a.as<float>(), e, 17u);
    fill_uniform<<<1024, 256>>>(b.as<float>(), e, 18u);
    if (bf16) {
      a16 = device_memory(e * sizeof(__nv_bfloat16));
      b16 = device_memory(e * sizeof(__nv_bfloat16));
      narrow_bf16<<<1024, 256>>>(a.as<float>(), a16.as<__nv_bfloat16>(), e);
      narrow_bf16<<<1024, 256>>>(b.as<float>(), b16.as<__nv_bfloat16>(), e);
    }
    check(cudaGetLastError(), "launch of fill_uniform / narrow_bf16");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (ladder inputs)");
  }
};

/// The verification bound of a row, as text and as a function of the host reference's k and Σ|a·b|.
/// FP32: (k + 4) u Σ|a b| (gemm's bound). BF16: 4 k u Σ|a b| + u |value| (fp32 sums of exact products on tensor
/// cores, whose k16 blocks may round once more than sequential FMAs; then one rounding to float C). u = 2^-24.
const char* ladder_bound_text(bool bf16) {
  return bf16 ? "4 k u sum|a b| + u |c|" : "(k + 4) u sum|a b|";
}

/// Checks C (n x n, host copy) = A B against the double host reference (cuprim::host::gemm_element; A and B as the
/// row's kernel saw them) on the four corners, 32 entries of the last row and column, and 256 random entries, within
/// ladder_bound_text(bf16). Returns the number of entries out of bound; `checked` gets how many were compared.
int ladder_check(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c, std::int64_t s,
                 bool bf16, int& checked) {
  std::vector<std::pair<std::int64_t, std::int64_t>> at = {{0, 0}, {s - 1, 0}, {0, s - 1}, {s - 1, s - 1}};
  std::mt19937_64 g(5);
  for (int t = 0; t < 32; ++t) {
    at.push_back({s - 1, std::int64_t(g() % std::uint64_t(s))});
    at.push_back({std::int64_t(g() % std::uint64_t(s)), s - 1});
  }
  for (int t = 0; t < 256; ++t) at.push_back({std::int64_t(g() % std::uint64_t(s)), std::int64_t(g() % std::uint64_t(s))});
  const double u = 0x1p-24;
  int bad = 0;
  for (const auto& [i, j] : at) {
    const auto ref = cuprim::host::gemm_element<float>('N', 'N', s, 1.f, a.data(), s, b.data(), s, 0.f, nullptr, s, i, j);
    const double got = c[std::size_t(i + j * s)];
    const double tol = bf16 ? 4.0 * double(s) * u * ref.bound + u * std::fabs(ref.value) : double(s + 4) * u * ref.bound;
    bad += !(std::fabs(got - ref.value) <= tol);
  }
  checked = int(at.size());
  return bad;
}

/// The kinds of ladder row: a rung of cuprim::ladder::gemm, cuBLAS alone (SGEMM, or GemmEx on bf16 inputs), or the
/// CPU BLAS on the host.
enum class ladder_row { rung, cublas, cublas_bf16, cpu_blas };

void add_ladder_case(ladder_row kind, cuprim::ladder::gemm_variant v, std::int64_t s, int reps) {
  using cuprim::ladder::gemm_math;
  const bool bf16 = kind == ladder_row::cublas_bf16 || (kind == ladder_row::rung && cuprim::ladder::math_of(v) == gemm_math::bf16);
  const std::string rung = kind == ladder_row::rung          ? std::string(cuprim::ladder::to_string(v))
                           : kind == ladder_row::cublas      ? std::string("cublas")
                           : kind == ladder_row::cublas_bf16 ? std::string("cublas-bf16")
                                                             : std::string("cpu-blas");
  const char* dt = bf16 ? "bf16" : "float";
  case_def c;
  c.name = std::string(ladder_prefix) + rung + "/" + dt + "/" + std::to_string(s);
  c.family = "blas";
  c.op = "gemm";
  c.variant = rung;
  c.dtype = dt;
  c.n = s;
  c.bytes = 0;  // compute-bound: GFLOP/s
  c.flops = 2.0 * double(s) * double(s) * double(s);
  c.reps = reps;
  c.baseline = kind != ladder_row::rung ? "" : bf16 ? "cublasGemmEx" : "cublasSgemm";
  c.setup = [kind, v, s, bf16]() -> bench {
    struct state {
      ladder_inputs in;
      device_memory c, base_c;
      cublas_handle blas;
      std::vector<float> ha, hb, hc;  // A and B as the row's kernels see them (bf16 values widened), C's host copy
      state(std::int64_t n, bool bf) : in(n, bf) {}
    };
    auto st = std::make_shared<state>(s, bf16);
    const std::size_t e = std::size_t(s) * std::size_t(s);
    st->ha.resize(e);
    st->hb.resize(e);
    st->hc.resize(e);
    if (bf16) {
      std::vector<__nv_bfloat16> h16(e);
      check(cudaMemcpy(h16.data(), st->in.a16.get(), e * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost), "copy A");
      for (std::size_t i = 0; i < e; ++i) st->ha[i] = __bfloat162float(h16[i]);
      check(cudaMemcpy(h16.data(), st->in.b16.get(), e * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost), "copy B");
      for (std::size_t i = 0; i < e; ++i) st->hb[i] = __bfloat162float(h16[i]);
    } else {
      check(cudaMemcpy(st->ha.data(), st->in.a.get(), e * sizeof(float), cudaMemcpyDeviceToHost), "copy A");
      check(cudaMemcpy(st->hb.data(), st->in.b.get(), e * sizeof(float), cudaMemcpyDeviceToHost), "copy B");
    }
    const float* A = st->in.a.as<float>();
    const float* B = st->in.b.as<float>();
    const __nv_bfloat16* A16 = bf16 ? st->in.a16.as<__nv_bfloat16>() : nullptr;
    const __nv_bfloat16* B16 = bf16 ? st->in.b16.as<__nv_bfloat16>() : nullptr;
    // cuBLAS on the row's inputs: cublasSgemm (default math: FP32) or cublasGemmEx (bf16 A and B, float C, FP32
    // compute: the BF16 tensor cores).
    auto cublas_into = [st, s, A, B, A16, B16, bf16](float* C, cudaStream_t stream) {
      const float one = 1, zero = 0;
      cublasSetStream(st->blas.h, stream);
      const int n = int(s);
      if (bf16) {
        if (cublasGemmEx(st->blas.h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A16, CUDA_R_16BF, n, B16, CUDA_R_16BF, n,
                         &zero, C, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
          throw std::runtime_error("cublasGemmEx failed");
      } else if (cublasSgemm(st->blas.h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, C, n) !=
                 CUBLAS_STATUS_SUCCESS) {
        throw std::runtime_error("cublasSgemm failed");
      }
    };
    bench b;
    if (kind == ladder_row::cpu_blas) {
      st->hc.assign(e, 0.f);
      b.host_run = [st, s] {
        cuprim::ooc::cpu_blas_gemm<float>('N', 'N', s, s, s, 1.f, st->ha.data(), s, st->hb.data(), s, 0.f,
                                          st->hc.data(), s);
      };
    } else {
      st->c = device_memory(e * sizeof(float));
      if (kind == ladder_row::rung) {
        st->base_c = device_memory(e * sizeof(float));
        if (bf16)
          b.run = [st, s, A16, B16, v](cudaStream_t stream, int) {
            cuprim::ladder::gemm(v, s, s, s, 1.f, A16, s, B16, s, 0.f, st->c.as<float>(), s, stream);
          };
        else
          b.run = [st, s, A, B, v](cudaStream_t stream, int) {
            cuprim::ladder::gemm(v, s, s, s, 1.f, A, s, B, s, 0.f, st->c.as<float>(), s, stream);
          };
        b.baseline = [st, cublas_into](cudaStream_t stream, int) { cublas_into(st->base_c.as<float>(), stream); };
      } else {
        b.run = [st, cublas_into](cudaStream_t stream, int) { cublas_into(st->c.as<float>(), stream); };
      }
    }
    b.verify = [st, s, kind, bf16, run = b.run, base = b.baseline, host_run = b.host_run]() {
      verify_result r;
      int checked = 0;
      const std::string within = std::string(" sampled entries within ") + ladder_bound_text(bf16) +
                                 " of the double host reference";
      if (kind == ladder_row::cpu_blas) {
        std::fill(st->hc.begin(), st->hc.end(), std::nanf(""));
        host_run();
        const int bad = ladder_check(st->ha, st->hb, st->hc, s, false, checked);
        r.ok = bad == 0;
        r.detail = std::to_string(checked - bad) + " of " + std::to_string(checked) + within + " (" +
                   cuprim::ooc::cpu_blas_name() + ")";
        return r;
      }
      st->c.poison();
      run(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (ladder verify)");
      check(cudaMemcpy(st->hc.data(), st->c.get(), st->hc.size() * sizeof(float), cudaMemcpyDeviceToHost), "copy C");
      const int bad = ladder_check(st->ha, st->hb, st->hc, s, bf16, checked);
      r.ok = bad == 0;
      r.detail = std::to_string(checked - bad) + " of " + std::to_string(checked) + within;
      if (base) {
        st->base_c.poison();
        base(0, 0);
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (ladder verify, cuBLAS)");
        check(cudaMemcpy(st->hc.data(), st->base_c.get(), st->hc.size() * sizeof(float), cudaMemcpyDeviceToHost),
              "copy cuBLAS C");
        const int bad_base = ladder_check(st->ha, st->hb, st->hc, s, bf16, checked);
        r.baseline_ok = bad_base == 0;
        r.detail += "; cuBLAS " + std::to_string(checked - bad_base) + " of " + std::to_string(checked);
      }
      return r;
    };
    return b;
  };
  using cuprim::ladder::gemm_variant;
  if (kind == ladder_row::rung && v == gemm_variant::cuprim)
    c.policy = [] { return record_policy(cuprim::blas::gemm_policy_for<float>(cuprim::current_tuned_arch())); };
  else if (kind == ladder_row::rung && v == gemm_variant::wgmma)
    c.policy = [] { return record_policy(cuprim::blas::gemm_sm90_policy_for(cuprim::current_tuned_arch())); };
  else if (kind == ladder_row::rung)
    c.policy = [v] { return record_policy(cuprim::ladder::gemm_rung_policy(v)); };
  add_case(std::move(c));
}

std::string fmt(const char* f, double v) {
  char buf[96];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// The ladder's table, one block per size: rung, math (which peak and which cuBLAS the row is measured against),
/// ms, TFLOP/s, % of that math's peak, x cuBLAS (a rung's time against its cuBLAS baseline interleaved with it; the
/// CPU BLAS against the cublas row of its size).
std::vector<std::string> ladder_summary(const std::vector<result>& results) {
  std::vector<std::string> out;
  std::map<std::int64_t, std::vector<const result*>> by_size;
  for (const auto& r : results)
    if (r.c && r.c->name.rfind(ladder_prefix, 0) == 0) by_size[r.c->n].push_back(&r);
  const math_peak fp32 = fp32_cuda_core_peak(), bf16 = bf16_tensor_core_peak();
  out.push_back("gemm ladder (column-major NN, C = A B, C float; A and B float for FP32 rows, bf16 for BF16 rows)");
  out.push_back("  FP32: " + fp32.how);
  out.push_back("  BF16: " + bf16.how);
  for (const auto& [n, rows] : by_size) {
    double cublas_ms = 0;
    for (const result* r : rows)
      if (r->timed && r->c->variant == "cublas") cublas_ms = r->median_ms;
    out.push_back("  n = " + std::to_string(n));
    char line[200];
    std::snprintf(line, sizeof line, "    %-12s %-5s %12s %9s %8s %10s  %s", "rung", "math", "ms", "TFLOP/s", "% peak",
                  "x cuBLAS", "correct");
    out.push_back(line);
    auto row = [&](const result* r) {
      const bool cpu = r->c->variant == "cpu-blas", is_bf16 = r->c->dtype == "bf16";
      const math_peak& peak = is_bf16 ? bf16 : fp32;
      const double tf = r->timed && r->median_ms > 0 ? r->c->flops / (r->median_ms * 1e-3) / 1e12 : 0;
      double ratio = 0;
      if (r->timed && r->baseline_ms && r->median_ms > 0) ratio = *r->baseline_ms / r->median_ms;
      else if (r->timed && (r->c->variant == "cublas" || r->c->variant == "cublas-bf16")) ratio = 1;
      else if (r->timed && cublas_ms > 0) ratio = cublas_ms / r->median_ms;
      std::snprintf(line, sizeof line, "    %-12s %-5s %12s %9s %8s %10s  %s", r->c->variant.c_str(),
                    cpu ? "CPU" : is_bf16 ? "BF16" : "FP32", r->timed ? fmt("%.4f", r->median_ms).c_str() : "-",
                    r->timed ? fmt("%.3f", tf).c_str() : "-",
                    r->timed && peak.tflops > 0 && !cpu ? fmt("%.1f", 100.0 * tf / peak.tflops).c_str() : "-",
                    ratio > 0 ? fmt("%.4f", ratio).c_str() : "-", !r->correct ? "FAIL" : r->baseline_correct ? "ok" : "ok (cuBLAS FAIL)");
      out.push_back(line);
    };
    auto find = [&](const std::string& variant) -> const result* {
      for (const result* r : rows)
        if (r->c->variant == variant) return r;
      return nullptr;
    };
    for (auto v : cuprim::ladder::gemm_variants)
      if (const result* r = find(std::string(cuprim::ladder::to_string(v)))) row(r);
    for (const char* other : {"cublas", "cublas-bf16", "cpu-blas"})
      if (const result* r = find(other)) row(r);
  }
  out.push_back("  math: FP32 rows (rungs 1-4, cublas: cublasSgemm in its default FP32 math) take float A and B and are "
                "measured against the FP32 CUDA-core peak and cublasSgemm; BF16 rows (rungs 5-6, cublas-bf16: "
                "cublasGemmEx with bf16 A and B, float C, CUBLAS_COMPUTE_32F) take the same inputs rounded to bf16 and "
                "are measured against the dense BF16 tensor-core peak and cublasGemmEx");
  out.push_back("  x cuBLAS: the baseline's time over the row's, measured in the same run, calls interleaved");
  if (std::any_of(results.begin(), results.end(), [](const result& r) { return r.c && r.c->variant == "cpu-blas"; }))
    out.push_back("  cpu-blas: cuprim::ooc::cpu_blas_gemm, " + cuprim::ooc::cpu_blas_name() + ", " +
                  std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " threads, on the host; "
                  "x cuBLAS against the cublas row of its size");
  return out;
}

void add_ladder() {
  using cuprim::ladder::gemm_variant;
  for (std::int64_t s : {1024, 4096}) {
    for (gemm_variant v : cuprim::ladder::gemm_variants) {
      // Rung 1 at 4096 takes ~0.1 s a call: fewer repetitions (the others: the default for n, 200).
      const int reps = v == gemm_variant::naive && s > 1024 ? 10 : 0;
      add_ladder_case(ladder_row::rung, v, s, reps);
    }
    add_ladder_case(ladder_row::cublas, gemm_variant::naive, s, 0);
    add_ladder_case(ladder_row::cublas_bf16, gemm_variant::naive, s, 0);
  }
  // The seed's CPU comparison: OpenBLAS (or whichever CPU BLAS loads) on the host, a few seconds each.
  add_ladder_case(ladder_row::cpu_blas, gemm_variant::naive, 1024, 10);
  add_ladder_case(ladder_row::cpu_blas, gemm_variant::naive, 4096, 3);
}

}  // namespace

void register_blas() {
  add_gemm<float>(4096, false);
  add_gemm<float>(8192, true);
  add_gemm<double>(4096, false);
  add_gemm<double>(8192, false);
  constexpr cuprim::blas::gemm_dmma_policy d_k32{.tile_m = 128, .tile_n = 128, .tile_k = 32, .stages = 3, .group = 8};
  constexpr cuprim::blas::gemm_dmma_policy d_k16{.tile_m = 128, .tile_n = 128, .tile_k = 16, .stages = 5, .group = 8};
  constexpr cuprim::blas::gemm_dmma_policy d_k16s4{.tile_m = 128, .tile_n = 128, .tile_k = 16, .stages = 4, .group = 8};
  for (std::int64_t s : {4096, 8192}) {
    add_gemm<double, d_k32>(s, false, "dmma-128x128x32-3s");
    add_gemm<double, d_k16>(s, false, "dmma-128x128x16-5s");
    add_gemm<double, d_k16s4>(s, false, "dmma-128x128x16-4s");
  }
  for (std::int64_t s : {4096, 8192})
    for (bool ta : {false, true}) {
      add_gemm_math<cuprim::blas::math::tf32>(s, ta, s == 8192 && !ta);
      add_gemm_math<cuprim::blas::math::tf32x3>(s, ta, s == 8192 && !ta);
    }
  {  // the tf32 modes' sweep at 8192^3 NN: clusters multicasting op(A), other stage counts, tf32x3's smaller tiles
    using cuprim::blas::math;
    constexpr cuprim::blas::gemm_sm90_policy t1c2{.stages = 4, .group = 8, .cluster = 2};
    constexpr cuprim::blas::gemm_sm90_policy t1s3{.stages = 3, .group = 8, .cluster = 1};
    constexpr cuprim::blas::gemm_sm90_policy t3c2{.stages = 3, .group = 8, .cluster = 2, .tile_m = 128};
    constexpr cuprim::blas::gemm_sm90_policy t3g16{.stages = 3, .group = 16, .cluster = 1, .tile_m = 128};
    constexpr cuprim::blas::gemm_sm90_policy t3s4{.stages = 4, .group = 8, .cluster = 1, .tile_m = 64};
    add_gemm_math<math::tf32, t1c2>(8192, false, false, "tf32-256x128-4s-c2");
    add_gemm_math<math::tf32, t1s3>(8192, false, false, "tf32-256x128-3s");
    add_gemm_math<math::tf32x3, t3c2>(8192, false, false, "x3-128x128-3s-c2");
    add_gemm_math<math::tf32x3, t3g16>(8192, false, false, "x3-128x128-3s-g16");
    add_gemm_math<math::tf32x3, t3s4>(8192, false, false, "x3-64x128-4s");
  }
  add_gemm_tensor<__nv_bfloat16>(4096, false, false);
  add_gemm_tensor<__nv_bfloat16>(8192, false, true);
  add_gemm_tensor<__nv_bfloat16>(8192, true, false);
  add_gemm_tensor<__half>(8192, false, false);
  constexpr cuprim::blas::gemm_sm90_policy c1{.stages = 4, .group = 8, .cluster = 1};
  constexpr cuprim::blas::gemm_sm90_policy c2{.stages = 4, .group = 8, .cluster = 2};
  constexpr cuprim::blas::gemm_sm90_policy st2{.stages = 3, .group = 8, .cluster = 2, .staged_store = true};
  constexpr cuprim::blas::gemm_sm90_policy st2g16{.stages = 3, .group = 16, .cluster = 2, .staged_store = true};
  for (std::int64_t s : {4096, 8192}) {
    add_gemm_tensor<__nv_bfloat16, c2>(s, false, false, "4s-g8-c2");
    add_gemm_tensor<__nv_bfloat16, c1>(s, false, false, "4s-g8-c1");
    add_gemm_tensor<__nv_bfloat16, st2>(s, false, false, "3s-g8-c2-staged");
    add_gemm_tensor<__nv_bfloat16, st2g16>(s, false, false, "3s-g16-c2-staged");
  }
  add_ladder();
  add_note(ladder_prefix, "gemm/ladder: seed 001's GEMM steps (lab/ladder/gemm.cuh) on square NN products, alpha 1, "
                          "beta 0, C float, inputs uniform in [-1, 1); FP32 rungs (1-4, float inputs) against "
                          "cublasSgemm (default math: FP32), BF16 rungs (5-6, the inputs rounded to bf16) against "
                          "cublasGemmEx (bf16 in, float out, CUBLAS_COMPUTE_32F), interleaved in the same run; cublas, "
                          "cublas-bf16: cuBLAS alone; cpu-blas: the CPU BLAS on the host (wall clock, median after one "
                          "warm-up); the ladder table follows the main one");
  add_summary(ladder_prefix, ladder_summary);
  add_note("blas/", "blas/gemm: square column-major C = A B (op N, alpha 1, beta 0), inputs uniform in [-1, 1); the "
                    "throughput column is GFLOP/s = 2 n^3 / time; cuBLAS in its default math mode (DGEMM on FP64 "
                    "tensor cores, SGEMM in FP32)");
}

}  // namespace lab
