// cuprim-lab rows for dense linear algebra: cuprim::blas::gemm against cuBLAS (cublasSgemm / cublasDgemm, default
// math mode: true FP32 on CUDA cores for S, FP64 tensor cores for D), square column-major products, op N.
//
//   cuprim-lab run blas/
#include "lab.hpp"

#include <cuprim/blas/gemm.cuh>

#include <cublas_v2.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace lab {
namespace {

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

struct cublas_handle {
  cublasHandle_t h = nullptr;
  cublas_handle() {
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
  }
  ~cublas_handle() { cublasDestroy(h); }
};

template <class T>
void add_gemm(std::int64_t s, bool quick) {
  const char* dt = sizeof(T) == 4 ? "float" : "double";
  case_def c;
  c.name = std::string("blas/gemm/") + dt + "/NN/" + std::to_string(s);
  c.family = "blas";
  c.op = "gemm";
  c.variant = "CUDA cores";
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
      cuprim::blas::gemm(cuprim::blas::op::N, cuprim::blas::op::N, s, s, s, T(1), st->a.template as<T>(), s,
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
      // 256 sampled elements of C against a double sum on the host, bound (k + 4)·u·Σ|a·b|; cuBLAS's likewise.
      st->c.poison();
      st->base_c.poison();
      run(0, 0);
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (gemm verify)");
      const std::size_t e = std::size_t(s) * std::size_t(s);
      std::vector<T> a(e), bm(e), c(e), cb(e);
      check(cudaMemcpy(a.data(), st->a.get(), e * sizeof(T), cudaMemcpyDeviceToHost), "copy A");
      check(cudaMemcpy(bm.data(), st->b.get(), e * sizeof(T), cudaMemcpyDeviceToHost), "copy B");
      check(cudaMemcpy(c.data(), st->c.get(), e * sizeof(T), cudaMemcpyDeviceToHost), "copy C");
      check(cudaMemcpy(cb.data(), st->base_c.get(), e * sizeof(T), cudaMemcpyDeviceToHost), "copy cuBLAS C");
      std::mt19937_64 g(5);
      const double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
      verify_result v;
      int bad = 0, bad_base = 0;
      for (int t = 0; t < 256; ++t) {
        const std::int64_t i = std::int64_t(g() % std::uint64_t(s)), j = std::int64_t(g() % std::uint64_t(s));
        double sum = 0, abs_sum = 0;
        for (std::int64_t p = 0; p < s; ++p) {
          const double x = double(a[std::size_t(i + p * s)]) * double(bm[std::size_t(p + j * s)]);
          sum += x;
          abs_sum += std::fabs(x);
        }
        const double tol = double(s + 4) * u * abs_sum;
        bad += !(std::fabs(double(c[std::size_t(i + j * s)]) - sum) <= tol);
        bad_base += !(std::fabs(double(cb[std::size_t(i + j * s)]) - sum) <= tol);
      }
      v.ok = bad == 0;
      v.baseline_ok = bad_base == 0;
      v.detail = "256 sampled elements within (k + 4) u sum|a b| of a double host sum: " + std::to_string(256 - bad) +
                 " cuprim, " + std::to_string(256 - bad_base) + " cuBLAS";
      return v;
    };
    return b;
  };
  c.policy = [] { return record_policy(cuprim::blas::gemm_policy_for<T>(cuprim::current_tuned_arch())); };
  add_case(std::move(c));
}

}  // namespace

void register_blas() {
  add_gemm<float>(4096, false);
  add_gemm<float>(8192, true);
  add_gemm<double>(4096, false);
  add_gemm<double>(8192, false);
  add_note("blas/", "blas/gemm: square column-major C = A B (op N, alpha 1, beta 0), inputs uniform in [-1, 1); the "
                    "throughput column is GFLOP/s = 2 n^3 / time; cuBLAS in its default math mode (DGEMM on FP64 "
                    "tensor cores, SGEMM in FP32)");
}

}  // namespace lab
