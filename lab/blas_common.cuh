// lab/blas_common.cuh: the pieces of the dense linear algebra family shared by blas.cu and blas_shapes.cu (the cuBLAS
// handle, the 16-bit input generator, the 16-bit GEMM row builder: cuprim against cublasGemmEx, interleaved,
// verified on sampled elements).
#pragma once

#include "lab.hpp"

#include <cuprim/blas/gemm.cuh>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace lab::blas_family {

struct cublas_handle {
  cublasHandle_t h = nullptr;
  cublas_handle() {
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
  }
  ~cublas_handle() { cublasDestroy(h); }
};

/// The lab's BLAS inputs: a hash of (index, seed) into [0, 1) (24 bits), the same values on every run and GPU.
__device__ inline float hash_unit(std::uint64_t i, std::uint32_t seed) {
  std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed ^ std::uint32_t(i >> 32) * 0x9e3779b9u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return float(h & 0xffffff) * 0x1p-24f;
}

/// x[0, n) uniform in [-1, 1) from the same hash (24 bits).
template <class T>
__global__ void fill_uniform_t(T* x, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed ^ std::uint32_t(i >> 32) * 0x9e3779b9u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = T(float(h & 0xffffff) * 0x1p-23f - 1.f);  // [-1, 1)
  }
}

/// x[0, count) = 2 · hash_unit - 1 (the triangular solves' right-hand sides).
template <class T>
__global__ void fill_signed(T* x, std::uint64_t count, std::uint32_t seed) {
  for (std::uint64_t p = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; p < count;
       p += std::uint64_t(gridDim.x) * blockDim.x)
    x[p] = T(2.f * hash_unit(p, seed) - 1.f);
}

/// `count` full ka × ka matrices back to back (ld ka): diagonal ±[1, 2), off-diagonal ±[0, 1)/ka (whichever triangle
/// a solve reads: well conditioned).
template <class T>
__global__ void fill_triangles(T* a, std::int64_t ka, std::int64_t count, std::uint32_t seed) {
  const std::uint64_t per = std::uint64_t(ka) * std::uint64_t(ka), all = per * std::uint64_t(count);
  for (std::uint64_t p = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; p < all;
       p += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t q = p % per;
    const float h = hash_unit(p, seed), s = hash_unit(p, seed ^ 0x5bd1e995u) < 0.5f ? -1.f : 1.f;
    a[p] = (q % ka == q / ka) ? T(s * (1.f + h)) : T(s * h / float(ka));
  }
}

/// Uniform values in [-1, 1) of bf16 (bf) or half, from a hash of the index and the seed.
static __global__ void fill_16bit(void* x, std::size_t n, std::uint32_t seed, bool bf) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    const float v = float(h & 0xffffff) * 0x1p-23f - 1.f;  // [-1, 1)
    if (bf)
      static_cast<__nv_bfloat16*>(x)[i] = __float2bfloat16(v);
    else
      static_cast<__half*>(x)[i] = __float2half(v);
  }
}

/// The policy a 16-bit row runs on this device: an explicit one, or the tuned chooser's row and split for (m, n, k)
/// (gemm_sm90_plan_for on the current device's SMs), its split written into the record's splits.
template <auto Policy>
policy_record gemm_tensor_policy(std::int64_t m, std::int64_t n, std::int64_t k, bool ta) {
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(Policy)>, cuprim::tuned_t>) {
    const int arch = cuprim::current_tuned_arch();
    const int sms = cuprim::has_device() ? cuprim::get_device_info().sm_count : 132;
    const cuprim::blas::gemm_sm90_plan plan = cuprim::blas::gemm_sm90_plan_for(arch, m, n, k, ta, false, sms);
    cuprim::blas::gemm_sm90_policy p = cuprim::blas::gemm_sm90_tile_row_for(arch, plan.row).policy;
    p.splits = plan.splits;
    return record_policy(p);
  } else {
    return record_policy(Policy);
  }
}

/// One 16-bit row: C (m x n, of the input type) = op(A) B, alpha 1, beta 0, against cublasGemmEx of the same types
/// (CUBLAS_COMPUTE_32F), calls interleaved; verified on 256 sampled elements (the last row and column among them).
template <class In, auto Policy = cuprim::tuned>
void add_gemm_tensor_case(std::string name, std::string op, std::int64_t m, std::int64_t n, std::int64_t k, bool ta,
                          bool quick, const char* sweep_label) {
  constexpr bool bf = std::is_same_v<In, __nv_bfloat16>;
  case_def c;
  c.name = std::move(name);
  c.family = "blas";
  c.op = std::move(op);
  c.variant = sweep_label ? sweep_label : "tensor cores";
  c.dtype = bf ? "bf16" : "half";
  c.n = std::max({m, n, k});
  c.bytes = 0;
  c.flops = 2.0 * double(m) * double(n) * double(k);
  c.quick = quick;
  c.sweep = sweep_label != nullptr;
  c.baseline = "cublasGemmEx";
  c.setup = [m, n, k, ta]() -> bench {
    struct state {
      device_memory a, b, c, base_c;
      cublas_handle blas;
    };
    auto st = std::make_shared<state>();
    const std::size_t ea = std::size_t(m) * std::size_t(k), eb = std::size_t(k) * std::size_t(n),
                      ec = std::size_t(m) * std::size_t(n);
    const std::int64_t lda = ta ? k : m, ldb = k, ldc = m;
    st->a = device_memory(ea * sizeof(In));
    st->b = device_memory(eb * sizeof(In));
    st->c = device_memory(ec * sizeof(In));
    st->base_c = device_memory(ec * sizeof(In));
    fill_16bit<<<1024, 256>>>(st->a.get(), ea, 17u, bf);
    fill_16bit<<<1024, 256>>>(st->b.get(), eb, 18u, bf);
    check(cudaGetLastError(), "launch of fill_16bit");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (gemm inputs)");
    const auto op_a = ta ? cuprim::blas::op::T : cuprim::blas::op::N;
    bench b;
    b.run = [st, m, n, k, lda, ldb, ldc, op_a](cudaStream_t stream, int) {
      cuprim::blas::gemm<Policy>(op_a, cuprim::blas::op::N, m, n, k, 1.f, st->a.template as<In>(), lda,
                                 st->b.template as<In>(), ldb, 0.f, st->c.template as<In>(), ldc, stream);
    };
    b.baseline = [st, m, n, k, lda, ldb, ldc, ta](cudaStream_t stream, int) {
      const float one = 1, zero = 0;
      const cudaDataType t = bf ? CUDA_R_16BF : CUDA_R_16F;
      cublasSetStream(st->blas.h, stream);
      const cublasStatus_t r = cublasGemmEx(st->blas.h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, int(m), int(n),
                                            int(k), &one, st->a.get(), t, int(lda), st->b.get(), t, int(ldb), &zero,
                                            st->base_c.get(), t, int(ldc), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      if (r != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasGemmEx failed");
    };
    b.verify = [st, m, n, k, lda, ldb, ldc, ta, ea, eb, ec, run = b.run, base = b.baseline]() {
      // 256 sampled elements (the first 16 in the last row, the next 16 in the last column) against a double host
      // sum of the exact inputs: within 4·k·2^-24·Σ|a·b| plus one rounding to the output type; cuBLAS's likewise.
      st->c.poison();
      st->base_c.poison();
      run(0, 0);
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (gemm verify)");
      std::vector<In> a16(ea), b16(eb), c16(ec), cb16(ec);
      check(cudaMemcpy(a16.data(), st->a.get(), ea * sizeof(In), cudaMemcpyDeviceToHost), "copy A");
      check(cudaMemcpy(b16.data(), st->b.get(), eb * sizeof(In), cudaMemcpyDeviceToHost), "copy B");
      check(cudaMemcpy(c16.data(), st->c.get(), ec * sizeof(In), cudaMemcpyDeviceToHost), "copy C");
      check(cudaMemcpy(cb16.data(), st->base_c.get(), ec * sizeof(In), cudaMemcpyDeviceToHost), "copy cuBLAS C");
      std::mt19937_64 g(5);
      const double out_u = bf ? 0x1p-8 : 0x1p-11;
      verify_result v;
      int bad = 0, bad_base = 0;
      for (int t = 0; t < 256; ++t) {
        const std::int64_t i = t < 16 ? m - 1 : std::int64_t(g() % std::uint64_t(m));
        const std::int64_t j = t >= 16 && t < 32 ? n - 1 : std::int64_t(g() % std::uint64_t(n));
        double sum = 0, abs_sum = 0;
        for (std::int64_t l = 0; l < k; ++l) {
          const double x = double(float(a16[std::size_t(ta ? l + i * lda : i + l * lda)]));
          const double y = double(float(b16[std::size_t(l + j * ldb)]));
          sum += x * y;
          abs_sum += std::fabs(x * y);
        }
        const double tol = 4.0 * double(k) * 0x1p-24 * abs_sum + out_u * std::fabs(sum);
        bad += !(std::fabs(double(float(c16[std::size_t(i + j * ldc)])) - sum) <= tol);
        bad_base += !(std::fabs(double(float(cb16[std::size_t(i + j * ldc)])) - sum) <= tol);
      }
      v.ok = bad == 0;
      v.baseline_ok = bad_base == 0;
      v.detail = "256 sampled elements within 4 k 2^-24 sum|a b| + one output rounding of a double host sum: " +
                 std::to_string(256 - bad) + " cuprim, " + std::to_string(256 - bad_base) + " cuBLAS";
      return v;
    };
    return b;
  };
  c.policy = [m, n, k, ta] { return gemm_tensor_policy<Policy>(m, n, k, ta); };
  add_case(std::move(c));
}

}  // namespace lab::blas_family
