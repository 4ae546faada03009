// A study program (not built by CMake): nvcc -std=c++20 -arch=sm_90a -O3 --expt-relaxed-constexpr --extended-lambda
// -I include bench/studies/blas/gemm_odd_ld.cu src/error.cpp src/device.cpp src/memory.cpp -lcublas -lcuda
// Odd-size 16-bit GEMMs: cuprim::blas::gemm against cublasGemmEx (interleaved), with and without padded leading
// dimensions, to tell what costs at 3000/5000/8191: the leading dimension's alignment or the sizes themselves.
#include <cuprim/blas/gemm.cuh>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CK(x) do { auto e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s line %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1);} } while (0)
using bf = __nv_bfloat16;
__global__ void fill(bf* p, std::size_t n, unsigned s) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = (unsigned(i) ^ s) * 2654435761u; h ^= h >> 13; p[i] = __float2bfloat16(float(h % 2001) / 1000.f - 1.f);
  }
}
int main() {
  cublasHandle_t h; cublasCreate(&h);
  struct Case { long m, n, k, lda, ldb, ldc; };
  std::vector<Case> cases = {{4096,4096,4096,4096,4096,4096},{5000,5000,5000,5000,5000,5000},{5000,5000,5000,5056,5056,5056},
    {5056,5056,5056,5056,5056,5056},{5000,5000,5056,5000,5056,5000},{5056,5056,5000,5056,5056,5056},
    {3000,3000,3000,3000,3000,3000},{3000,3000,3000,3008,3008,3008},{3008,3008,3008,3008,3008,3008},
    {3072,3072,3072,3072,3072,3072},{8191,8191,8191,8192,8192,8192},{8192,8192,8192,8192,8192,8192},
    {5000,5000,5000,5008,5008,5008},{5000,5000,5000,5120,5120,5120}};
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (auto c : cases) {
    bf *A, *B, *C;
    CK(cudaMalloc(&A, sizeof(bf) * c.lda * c.k)); CK(cudaMalloc(&B, sizeof(bf) * c.ldb * c.n)); CK(cudaMalloc(&C, sizeof(bf) * c.ldc * c.n));
    fill<<<1024, 256>>>(A, std::size_t(c.lda) * c.k, 1); fill<<<1024, 256>>>(B, std::size_t(c.ldb) * c.n, 2); CK(cudaGetLastError());
    float one = 1, zero = 0;
    auto run_c = [&] { cuprim::blas::gemm(cuprim::blas::op::N, cuprim::blas::op::N, c.m, c.n, c.k, 1.f, A, c.lda, B, c.ldb, 0.f, C, c.ldc, 0); };
    auto run_b = [&] { cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, c.m, c.n, c.k, &one, A, CUDA_R_16BF, c.lda, B, CUDA_R_16BF, c.ldb, &zero, C, CUDA_R_16BF, c.ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT); };
    std::vector<float> tc, tb;
    for (int r = 0; r < 23; ++r) {
      float ms;
      CK(cudaEventRecord(e0)); run_c(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&ms, e0, e1)); if (r >= 3) tc.push_back(ms);
      CK(cudaEventRecord(e0)); run_b(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&ms, e0, e1)); if (r >= 3) tb.push_back(ms);
    }
    std::sort(tc.begin(), tc.end()); std::sort(tb.begin(), tb.end());
    double mc = tc[tc.size() / 2], mb = tb[tb.size() / 2];
    std::printf("%5ld x %5ld x %5ld  ld %5ld/%5ld/%5ld  cuprim %8.4f ms (%6.1f TF/s)  cuBLAS %8.4f ms  ratio %.3f\n", c.m, c.n, c.k,
                c.lda, c.ldb, c.ldc, mc, 2e-9 * c.m * c.n * c.k / mc, mb, mb / mc);
    CK(cudaFree(A)); CK(cudaFree(B)); CK(cudaFree(C));
  }
  return 0;
}
