// A study program (not built by CMake): nvcc -std=c++20 -arch=sm_90a -O3 --expt-relaxed-constexpr --extended-lambda
// -I include bench/studies/blas/sgemm_interior.cu src/error.cpp src/device.cpp src/memory.cpp -lcublas -lcuda
// The float interior GEMM kernel's design space before it went into the library: 128 x 256 tiles (8 x 16 per
// thread) with the next step's loads at the top of the multiply ('top') or issued just before the barrier
// ('barrier'), for every op pair, against cublasSgemm and cuprim::blas::gemm in the same run; first an odd-shape
// check of cuprim::blas::gemm (interior kernel + edges) against cuBLAS. Results: h100-h200-sgemm-interior.txt.
#include <cuprim/blas/gemm.cuh>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

// C (m x n, col-major) = alpha op(A) op(B) + beta C; m, n multiples of 128, k of BK, 16-byte aligned, ld % 4 == 0.
// TA: A stored k x m (k contiguous). TB: B stored n x k (n contiguous).
template <int BK, int MINB, bool TA, bool TB, int PAD, int TN_ = 128, int SCHED = 0>
__global__ void __launch_bounds__(256, MINB)
    sg(const float* __restrict__ A, int lda, const float* __restrict__ B, int ldb, float* __restrict__ C, int ldc,
       int K, float alpha, float beta) {
  constexpr int TM = 128, TN = TN_, S = TM + PAD, SN = TN + PAD;
  constexpr int RA = BK * TM / 4 / 256, RB = BK * TN / 4 / 256;  // float4 per thread per step
  constexpr int RN = TN / 16;                                      // columns per thread (8 or 16)
  __shared__ __align__(16) float as[2][BK][S];
  __shared__ __align__(16) float bs[2][BK][SN];
  const int t = threadIdx.x;
  const int row0 = blockIdx.x * TM, col0 = blockIdx.y * TN;
  // Per-thread global pointers and shared offsets of each loaded vector.
  const float* pa[RA];
  const float* pb[RB];
  int sa[RA], sb[RB];
#pragma unroll
  for (int r = 0; r < RA; ++r) {
    const int e = t + r * 256;
    if (!TA) {  // direct: tile BK x TM, m contiguous
      const int c4 = e % (TM / 4), p = e / (TM / 4);
      pa[r] = A + (row0 + c4 * 4) + std::int64_t(p) * lda;
      sa[r] = p * S + c4 * 4;
    } else {  // transposing: element (i, p) at A[p + i lda]
      const int q = e % (BK / 4), i = e / (BK / 4);
      pa[r] = A + q * 4 + std::int64_t(row0 + i) * lda;
      sa[r] = q * 4 * S + i;
    }
  }
#pragma unroll
  for (int r = 0; r < RB; ++r) {
    const int e = t + r * 256;
    if (TB) {
      const int c4 = e % (TN / 4), p = e / (TN / 4);
      pb[r] = B + (col0 + c4 * 4) + std::int64_t(p) * ldb;
      sb[r] = p * SN + c4 * 4;
    } else {
      const int q = e % (BK / 4), j = e / (BK / 4);
      pb[r] = B + q * 4 + std::int64_t(col0 + j) * ldb;
      sb[r] = q * 4 * SN + j;
    }
  }
  const std::int64_t step_a = TA ? BK : std::int64_t(BK) * lda, step_b = TB ? std::int64_t(BK) * ldb : BK;
  float4 ra[RA], rb[RB];
  auto load = [&]() {
#pragma unroll
    for (int r = 0; r < RA; ++r) {
      ra[r] = __ldg(reinterpret_cast<const float4*>(pa[r]));
      pa[r] += step_a;
    }
#pragma unroll
    for (int r = 0; r < RB; ++r) {
      rb[r] = __ldg(reinterpret_cast<const float4*>(pb[r]));
      pb[r] += step_b;
    }
  };
  auto store = [&](int buf) {
    float* a = &as[buf][0][0];
    float* b = &bs[buf][0][0];
#pragma unroll
    for (int r = 0; r < RA; ++r) {
      if (!TA) {
        *reinterpret_cast<float4*>(a + sa[r]) = ra[r];
      } else {
        a[sa[r]] = ra[r].x;
        a[sa[r] + S] = ra[r].y;
        a[sa[r] + 2 * S] = ra[r].z;
        a[sa[r] + 3 * S] = ra[r].w;
      }
    }
#pragma unroll
    for (int r = 0; r < RB; ++r) {
      if (TB) {
        *reinterpret_cast<float4*>(b + sb[r]) = rb[r];
      } else {
        b[sb[r]] = rb[r].x;
        b[sb[r] + SN] = rb[r].y;
        b[sb[r] + 2 * SN] = rb[r].z;
        b[sb[r] + 3 * SN] = rb[r].w;
      }
    }
  };
  const int tx = t % 16, ty = t / 16;
  float acc[8][RN] = {};
  load();
  store(0);
  int buf = 0;
  if (SCHED == 1) {
    const int steps = K / BK;
    if (steps > 1) load();
    __syncthreads();
    for (int s = 0; s < steps; ++s) {
#pragma unroll
      for (int p = 0; p < BK; ++p) {
        const float4 a0 = *reinterpret_cast<const float4*>(&as[buf][p][ty * 4]);
        const float4 a1 = *reinterpret_cast<const float4*>(&as[buf][p][TM / 2 + ty * 4]);
        float b[RN];
#pragma unroll
        for (int h = 0; h < RN / 4; ++h) {
          const float4 v = *reinterpret_cast<const float4*>(&bs[buf][p][h * 64 + tx * 4]);
          b[h * 4] = v.x;
          b[h * 4 + 1] = v.y;
          b[h * 4 + 2] = v.z;
          b[h * 4 + 3] = v.w;
        }
        const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
          for (int j = 0; j < RN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
      }
      if (s + 1 < steps) {
        store(buf ^ 1);
        if (s + 2 < steps) load();
        __syncthreads();
        buf ^= 1;
      }
    }
    K = 0;
  }
  __syncthreads();
  for (int k0 = 0; k0 < K; k0 += BK) {
    const bool more = k0 + BK < K;
    if (more) load();
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      const float4 a0 = *reinterpret_cast<const float4*>(&as[buf][p][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&as[buf][p][TM / 2 + ty * 4]);
      float b[RN];
#pragma unroll
      for (int h = 0; h < RN / 4; ++h) {
        const float4 v = *reinterpret_cast<const float4*>(&bs[buf][p][h * 64 + tx * 4]);
        b[h * 4] = v.x;
        b[h * 4 + 1] = v.y;
        b[h * 4 + 2] = v.z;
        b[h * 4 + 3] = v.w;
      }
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < RN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (more) {
      store(buf ^ 1);
      __syncthreads();
      buf ^= 1;
    }
  }
#pragma unroll
  for (int j = 0; j < RN; ++j) {
    const int col = col0 + (j / 4) * 64 + tx * 4 + (j % 4);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + h * 64 + ty * 4;
      float* c = C + row + std::int64_t(col) * ldc;
      float4 v = make_float4(alpha * acc[h * 4][j], alpha * acc[h * 4 + 1][j], alpha * acc[h * 4 + 2][j],
                             alpha * acc[h * 4 + 3][j]);
      if (beta != 0.f) {
        const float4 o = *reinterpret_cast<const float4*>(c);
        v.x += beta * o.x;
        v.y += beta * o.y;
        v.z += beta * o.z;
        v.w += beta * o.w;
      }
      *reinterpret_cast<float4*>(c) = v;
    }
  }
}

__global__ void fill(float* x, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    x[i] = float(h & 0xffffff) * 0x1p-23f - 1.f;
  }
}

template <class F>
float time_ms(F&& f, int reps = 10) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 2; ++i) f();
  std::vector<float> v;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    v.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct variant {
  const char* name;
  bool ta, tb;
  void (*launch)(int n, const float*, const float*, float*);
};

template <int BK, int MINB, bool TA, bool TB, int PAD, int TN = 128, int SCHED = 0>
void launch(int n, const float* a, const float* b, float* c) {
  auto k = sg<BK, MINB, TA, TB, PAD, TN, SCHED>;
  dim3 grid(n / 128, n / TN);
  k<<<grid, 256>>>(a, n, b, n, c, n, n, 1.f, 0.f);
}

int main(int argc, char** argv) {
  cublasHandle_t h;
  cublasCreate(&h);
  cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("GPU %s\n", prop.name);
  const variant vs[] = {
      {"NN top", false, false, launch<8, 1, false, false, 4, 256>},
      {"NN barrier", false, false, launch<8, 1, false, false, 4, 256, 1>},
      {"TN top", true, false, launch<8, 1, true, false, 4, 256>},
      {"TN barrier", true, false, launch<8, 1, true, false, 4, 256, 1>},
      {"NT top", false, true, launch<8, 1, false, true, 4, 256>},
      {"NT barrier", false, true, launch<8, 1, false, true, 4, 256, 1>},
      {"TT top", true, true, launch<8, 1, true, true, 4, 256>},
      {"TT barrier", true, true, launch<8, 1, true, true, 4, 256, 1>},
  };
  {  // odd shapes through cuprim::blas::gemm (interior + edges) against cuBLAS, alpha/beta, every op pair
    struct sh { int m, n, k; };
    const sh shapes[] = {{1000, 1000, 1003}, {8191, 300, 77}, {129, 257, 8}, {128, 256, 9}, {384, 768, 4096},
                         {3000, 5000, 333}, {127, 255, 100}, {640, 1280, 7}};
    int bad = 0;
    for (const sh& q : shapes)
      for (int oa = 0; oa < 2; ++oa)
        for (int ob = 0; ob < 2; ++ob) {
          const int lda = (oa ? q.k : q.m) + 4, ldb = (ob ? q.n : q.k) + 8, ldc = q.m + 12;
          const std::size_t na = std::size_t(lda) * (oa ? q.m : q.k), nb = std::size_t(ldb) * (ob ? q.k : q.n),
                            nc = std::size_t(ldc) * q.n;
          float *a, *b, *c, *r;
          CK(cudaMalloc(&a, na * 4));
          CK(cudaMalloc(&b, nb * 4));
          CK(cudaMalloc(&c, nc * 4));
          CK(cudaMalloc(&r, nc * 4));
          fill<<<256, 256>>>(a, na, 7);
          fill<<<256, 256>>>(b, nb, 8);
          fill<<<256, 256>>>(c, nc, 9);
          CK(cudaMemcpy(r, c, nc * 4, cudaMemcpyDeviceToDevice));
          const float al = 1.5f, be = -0.75f;
          cublasSgemm(h, oa ? CUBLAS_OP_T : CUBLAS_OP_N, ob ? CUBLAS_OP_T : CUBLAS_OP_N, q.m, q.n, q.k, &al, a, lda, b,
                      ldb, &be, r, ldc);
          cuprim::blas::gemm(oa ? cuprim::blas::op::T : cuprim::blas::op::N,
                             ob ? cuprim::blas::op::T : cuprim::blas::op::N, q.m, q.n, q.k, al, a, lda, b, ldb, be, c,
                             ldc);
          CK(cudaDeviceSynchronize());
          std::vector<float> hc(nc), hr(nc);
          CK(cudaMemcpy(hc.data(), c, nc * 4, cudaMemcpyDeviceToHost));
          CK(cudaMemcpy(hr.data(), r, nc * 4, cudaMemcpyDeviceToHost));
          double worst = 0;
          for (int j = 0; j < q.n; ++j)
            for (int i = 0; i < ldc; ++i) {
              const double d = std::fabs(double(hc[i + std::size_t(j) * ldc]) - hr[i + std::size_t(j) * ldc]);
              if (i >= q.m) {  // padding rows must be untouched (same fill in both)
                if (d != 0) worst = 1e9;
              } else
                worst = std::max(worst, d / (q.k * 6e-8 * 2 + 1e-6));
            }
          if (worst > 1) ++bad;
          std::printf("check %dx%dx%d %c%c: worst/bound %.3f%s\n", q.m, q.n, q.k, oa ? 'T' : 'N', ob ? 'T' : 'N',
                      worst, worst > 1 ? "  FAIL" : "");
          cudaFree(a);
          cudaFree(b);
          cudaFree(c);
          cudaFree(r);
        }
    std::printf("odd-shape checks: %d failed\n", bad);
  }
  for (int n : {8192}) {
    const std::size_t nn = std::size_t(n) * n;
    float *a, *b, *c, *ref;
    CK(cudaMalloc(&a, nn * 4));
    CK(cudaMalloc(&b, nn * 4));
    CK(cudaMalloc(&c, nn * 4));
    CK(cudaMalloc(&ref, nn * 4));
    fill<<<1024, 256>>>(a, nn, 1);
    fill<<<1024, 256>>>(b, nn, 2);
    const float one = 1, zero = 0;
    const double flops = 2.0 * n * double(n) * n;
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        auto cub = [&] {
          cublasSgemm(h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, n, n, n, &one, a, n, b, n,
                      &zero, ref, n);
        };
        const float tc = time_ms(cub);
        auto cup = [&] {
          cuprim::blas::gemm(ta ? cuprim::blas::op::T : cuprim::blas::op::N,
                             tb ? cuprim::blas::op::T : cuprim::blas::op::N, n, n, n, 1.f, a, n, b, n, 0.f, c, n);
        };
        const float tp = time_ms(cup);
        std::printf("n %d %c%c cublas %.3f ms %.1f TF | cuprim %.3f ms %.3fx\n", n, ta ? 'T' : 'N', tb ? 'T' : 'N',
                    tc, flops / tc / 1e9, tp, tc / tp);
        std::vector<float> hr(nn), hc(nn);
        cub();
        CK(cudaMemcpy(hr.data(), ref, nn * 4, cudaMemcpyDeviceToHost));
        for (const variant& v : vs) {
          if (v.ta != ta || v.tb != tb) continue;
          CK(cudaMemset(c, 0xff, nn * 4));
          v.launch(n, a, b, c);
          CK(cudaDeviceSynchronize());
          CK(cudaMemcpy(hc.data(), c, nn * 4, cudaMemcpyDeviceToHost));
          double maxd = 0;
          for (std::size_t i = 0; i < nn; i += 97) maxd = std::max(maxd, double(std::fabs(hc[i] - hr[i])));
          const float tv = time_ms([&] { v.launch(n, a, b, c); });
          const float tc2 = time_ms(cub);
          std::printf("  %-20s %.3f ms %.1f TF  %.3fx cublas (cublas again %.3f)  maxdiff %.2e\n", v.name, tv,
                      flops / tv / 1e9, tc2 / tv, tc2, maxd);
        }
      }
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(ref);
  }
  return 0;
}
