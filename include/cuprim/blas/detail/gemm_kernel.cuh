// cuprim/blas/detail/gemm_kernel.cuh: the CUDA-core GEMM (true FP32 / FP64), 2-D register blocking.
//
// A block computes a TM × TN tile of C (P.tile_m × P.tile_n), walking k in steps of TK:
//   load_tiles     the next step's tiles of op(A) (TM × TK) and op(B) (TK × TN) from global memory into registers,
//                  element by element with bounds checks (any shape, any leading dimension, any alignment), in the
//                  order that keeps a warp's loads consecutive in memory for the operand's layout
//   store_tiles    registers -> shared memory, k-major (As[k][i], Bs[k][j]), into the buffer not being read
//   multiply       each thread: for each k of the step, its thread_m values of op(A) and thread_n of op(B) from
//                  shared memory, an outer product into its thread_m × thread_n accumulators
// so a step's global loads are in flight while the previous step is multiplied (two shared buffers, one barrier
// per step). The epilogue writes alpha·acc + beta·C, never reading C when beta is 0.
//
// Each C element is a sum over k in increasing order of fused multiply-adds in T: the same bits from run to run.
//
// Batched forms: the same block bodies (gemm_simt_block, gemm_split_block) in kernels that take a gemm_batch and
// compute batch z = blockIdx.z, blockIdx.z + gridDim.z, ... (more than 65535 batches loop), each with its operands
// found once at the start of the batch (gemm_batch_args). The single GEMM's kernels are the bodies alone.
#pragma once

#include <cuprim/blas/detail/gemm_tuning.cuh>
#include <cuprim/core/policy.hpp>

#include <cstdint>

namespace cuprim::detail {

/// What a GEMM launch needs (column-major; element (i, j) of X is X[i + j·ldx]; op(A) is m × k, op(B) is k × n).
template <class T>
struct gemm_args {
  const T* a;
  const T* b;
  T* c;
  std::int64_t m, n, k, lda, ldb, ldc;
  T alpha, beta;
  bool trans_a, trans_b;
  bool vec_a, vec_b, vec_c;  // 16-byte aligned with a leading dimension of whole 16-byte vectors (split kernel)
};

/// The batches of a batched launch: `count` products, batch z's operands at a + z·stride_a, b + z·stride_b,
/// c + z·stride_c of the launch's gemm_args (strided form), or at a_array[z], b_array[z], c_array[z] (pointer-array
/// form: c_array not null; the arrays in device memory).
template <class T>
struct gemm_batch {
  std::int64_t count = 1;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  const T* const* a_array = nullptr;
  const T* const* b_array = nullptr;
  T* const* c_array = nullptr;
};

/// Batch z's gemm_args: its operands, and the 16-byte paths only where its own pointers are aligned (the launch's
/// vec_* flags say whether the leading dimensions allow them).
template <class T>
__device__ __forceinline__ gemm_args<T> gemm_batch_args(const gemm_args<T>& g, const gemm_batch<T>& b,
                                                        std::int64_t z) {
  gemm_args<T> r = g;
  if (b.c_array) {
    r.a = b.a_array[z];
    r.b = b.b_array[z];
    r.c = b.c_array[z];
  } else {
    r.a = g.a + z * b.stride_a;
    r.b = g.b + z * b.stride_b;
    r.c = g.c + z * b.stride_c;
  }
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  r.vec_a = g.vec_a && aligned(r.a);
  r.vec_b = g.vec_b && aligned(r.b);
  r.vec_c = g.vec_c && aligned(r.c);
  return r;
}

/// Element (i, p) of op(A): A[i + p·lda], or A[p + i·lda] when transposed (zero outside m × k).
template <class T>
__device__ __forceinline__ T gemm_load_a(const gemm_args<T>& g, std::int64_t i, std::int64_t p) {
  if (i >= g.m || p >= g.k) return T(0);
  return g.trans_a ? g.a[p + i * g.lda] : g.a[i + p * g.lda];
}
/// Element (p, j) of op(B): B[p + j·ldb], or B[j + p·ldb] when transposed (zero outside k × n).
template <class T>
__device__ __forceinline__ T gemm_load_b(const gemm_args<T>& g, std::int64_t p, std::int64_t j) {
  if (p >= g.k || j >= g.n) return T(0);
  return g.trans_b ? g.b[j + p * g.ldb] : g.b[p + j * g.ldb];
}

/// The tiles of step k0 into registers: element e = t + r·threads of a tile, numbered so that consecutive threads
/// read consecutive addresses (down a column of the stored array).
template <blas::gemm_policy P, class T>
__device__ __forceinline__ void gemm_load_tiles(const gemm_args<T>& g, std::int64_t row0, std::int64_t col0,
                                                std::int64_t k0, T (&ra)[P.tile_m * P.tile_k / P.threads()],
                                                T (&rb)[P.tile_n * P.tile_k / P.threads()]) {
  constexpr int TH = P.threads(), TM = P.tile_m, TN = P.tile_n, TK = P.tile_k;
  const int t = threadIdx.x;
#pragma unroll
  for (int r = 0; r < TM * TK / TH; ++r) {
    const int e = t + r * TH;
    // Not transposed, A's columns run down i; transposed, its stored columns run down p.
    const int i = g.trans_a ? e / TK : e % TM, p = g.trans_a ? e % TK : e / TM;
    ra[r] = gemm_load_a(g, row0 + i, k0 + p);
  }
#pragma unroll
  for (int r = 0; r < TN * TK / TH; ++r) {
    const int e = t + r * TH;
    const int j = g.trans_b ? e % TN : e / TK, p = g.trans_b ? e / TN : e % TK;
    rb[r] = gemm_load_b(g, k0 + p, col0 + j);
  }
}

/// Registers -> shared memory (k-major), in the same numbering as gemm_load_tiles.
template <blas::gemm_policy P, class T>
__device__ __forceinline__ void gemm_store_tiles(const gemm_args<T>& g, const T (&ra)[P.tile_m * P.tile_k / P.threads()],
                                                 const T (&rb)[P.tile_n * P.tile_k / P.threads()],
                                                 T (&as)[P.tile_k][P.tile_m], T (&bs)[P.tile_k][P.tile_n]) {
  constexpr int TH = P.threads(), TM = P.tile_m, TN = P.tile_n, TK = P.tile_k;
  const int t = threadIdx.x;
#pragma unroll
  for (int r = 0; r < TM * TK / TH; ++r) {
    const int e = t + r * TH;
    const int i = g.trans_a ? e / TK : e % TM, p = g.trans_a ? e % TK : e / TM;
    as[p][i] = ra[r];
  }
#pragma unroll
  for (int r = 0; r < TN * TK / TH; ++r) {
    const int e = t + r * TH;
    const int j = g.trans_b ? e % TN : e / TK, p = g.trans_b ? e / TN : e % TK;
    bs[p][j] = rb[r];
  }
}

/// One block's tile of C (blockIdx.x along m, blockIdx.y along n).
template <blas::gemm_policy P, class T>
__device__ __forceinline__ void gemm_simt_block(const gemm_args<T>& g) {
  static_assert(gemm_policy_valid<P>());
  constexpr int TM = P.tile_m, TN = P.tile_n, TK = P.tile_k, RM = P.thread_m, RN = P.thread_n;
  constexpr int NA = TM * TK / P.threads(), NB = TN * TK / P.threads(), COLS = TN / RN;
  __shared__ T as[2][TK][TM];
  __shared__ T bs[2][TK][TN];

  const std::int64_t row0 = std::int64_t(blockIdx.x) * TM, col0 = std::int64_t(blockIdx.y) * TN;
  const int tx = threadIdx.x % COLS, ty = threadIdx.x / COLS;  // this thread's RM × RN block of the tile
  T acc[RM][RN] = {};
  T ra[NA], rb[NB];

  gemm_load_tiles<P>(g, row0, col0, 0, ra, rb);
  gemm_store_tiles<P>(g, ra, rb, as[0], bs[0]);
  __syncthreads();
  int buf = 0;
  for (std::int64_t k0 = 0; k0 < g.k; k0 += TK) {
    const bool more = k0 + TK < g.k;
    if (more) gemm_load_tiles<P>(g, row0, col0, k0 + TK, ra, rb);  // in flight during the multiply below
#pragma unroll
    for (int p = 0; p < TK; ++p) {
      T a[RM], b[RN];
#pragma unroll
      for (int i = 0; i < RM; ++i) a[i] = as[buf][p][ty * RM + i];
#pragma unroll
      for (int j = 0; j < RN; ++j) b[j] = bs[buf][p][tx * RN + j];
#pragma unroll
      for (int i = 0; i < RM; ++i)
#pragma unroll
        for (int j = 0; j < RN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
    }
    if (more) {
      gemm_store_tiles<P>(g, ra, rb, as[buf ^ 1], bs[buf ^ 1]);  // the other buffer: nobody reads it this step
      __syncthreads();
      buf ^= 1;
    }
  }

  // Epilogue: C = alpha·acc + beta·C, C unread when beta is 0.
  const bool read_c = g.beta != T(0);
#pragma unroll
  for (int j = 0; j < RN; ++j) {
    const std::int64_t col = col0 + tx * RN + j;
    if (col >= g.n) continue;
#pragma unroll
    for (int i = 0; i < RM; ++i) {
      const std::int64_t row = row0 + ty * RM + i;
      if (row >= g.m) continue;
      T* c = g.c + row + col * g.ldc;
      *c = read_c ? g.alpha * acc[i][j] + g.beta * *c : g.alpha * acc[i][j];
    }
  }
}

/// One block per tile of C. Policy: a policy_constant of a gemm_policy.
template <class Policy, class T>
__global__ void __launch_bounds__(Policy::value.threads()) gemm_simt_kernel(gemm_args<T> g) {
  gemm_simt_block<Policy::value>(g);
}

/// The batched form: one block per tile of C per batch (blockIdx.z, looping when there are more than gridDim.z).
template <class Policy, class T>
__global__ void __launch_bounds__(Policy::value.threads()) gemm_simt_batched_kernel(gemm_args<T> g, gemm_batch<T> b) {
  for (std::int64_t z = blockIdx.z; z < b.count; z += gridDim.z) {
    if (z != blockIdx.z) __syncthreads();  // every thread is done with the last batch's shared tiles
    gemm_simt_block<Policy::value>(gemm_batch_args(g, b, z));
  }
}

/// The split kernel's operand tile step: each thread moves one 16-byte vector (4 elements) of op(A)'s TM × TK tile
/// and one of op(B)'s TK × TN tile, along whichever of the tile's dimensions is consecutive in memory, when the tile
/// is interior and the operand vector-aligned; element by element (gemm_load_tiles' numbering) otherwise. `va` and
/// `vb` say which path each operand's registers came from.
template <blas::gemm_policy P>
__device__ __forceinline__ void gemm_split_load(const gemm_args<float>& g, std::int64_t row0, std::int64_t col0,
                                                std::int64_t k0, float4& ra, float4& rb, bool& va, bool& vb) {
  constexpr int TM = P.tile_m, TN = P.tile_n, TK = P.tile_k;
  const int t = threadIdx.x;
  va = g.vec_a && row0 + TM <= g.m && k0 + TK <= g.k;
  vb = g.vec_b && col0 + TN <= g.n && k0 + TK <= g.k;
  if (va) {
    // Not transposed: 4 consecutive rows of column p; transposed: 4 consecutive k of stored column i.
    const std::int64_t off = g.trans_a ? (k0 + (t % (TK / 4)) * 4) + (row0 + t / (TK / 4)) * g.lda
                                       : (row0 + (t % (TM / 4)) * 4) + (k0 + t / (TM / 4)) * g.lda;
    ra = *reinterpret_cast<const float4*>(g.a + off);
  } else {
    float x[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int e = t + r * P.threads();
      const int i = g.trans_a ? e / TK : e % TM, p = g.trans_a ? e % TK : e / TM;
      x[r] = gemm_load_a(g, row0 + i, k0 + p);
    }
    ra = make_float4(x[0], x[1], x[2], x[3]);
  }
  if (vb) {
    // Not transposed: 4 consecutive k of column j; transposed: 4 consecutive columns of stored row p.
    const std::int64_t off = g.trans_b ? (col0 + (t % (TN / 4)) * 4) + (k0 + t / (TN / 4)) * g.ldb
                                       : (k0 + (t % (TK / 4)) * 4) + (col0 + t / (TK / 4)) * g.ldb;
    rb = *reinterpret_cast<const float4*>(g.b + off);
  } else {
    float x[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int e = t + r * P.threads();
      const int j = g.trans_b ? e % TN : e / TK, p = g.trans_b ? e / TN : e % TK;
      x[r] = gemm_load_b(g, k0 + p, col0 + j);
    }
    rb = make_float4(x[0], x[1], x[2], x[3]);
  }
}

/// Registers -> shared memory (k-major), in the numbering the registers were loaded in.
template <blas::gemm_policy P>
__device__ __forceinline__ void gemm_split_store(const gemm_args<float>& g, const float4& ra, const float4& rb,
                                                 bool va, bool vb, float (&as)[P.tile_k][P.tile_m],
                                                 float (&bs)[P.tile_k][P.tile_n]) {
  constexpr int TM = P.tile_m, TN = P.tile_n, TK = P.tile_k;
  const int t = threadIdx.x;
  const float x[4] = {ra.x, ra.y, ra.z, ra.w}, y[4] = {rb.x, rb.y, rb.z, rb.w};
  if (va && !g.trans_a) {
    *reinterpret_cast<float4*>(&as[t / (TM / 4)][(t % (TM / 4)) * 4]) = ra;
  } else if (va) {
#pragma unroll
    for (int e = 0; e < 4; ++e) as[(t % (TK / 4)) * 4 + e][t / (TK / 4)] = x[e];
  } else {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int e = t + r * P.threads();
      as[g.trans_a ? e % TK : e / TM][g.trans_a ? e / TK : e % TM] = x[r];
    }
  }
  if (vb && g.trans_b) {
    *reinterpret_cast<float4*>(&bs[t / (TN / 4)][(t % (TN / 4)) * 4]) = rb;
  } else if (vb) {
#pragma unroll
    for (int e = 0; e < 4; ++e) bs[(t % (TK / 4)) * 4 + e][t / (TK / 4)] = y[e];
  } else {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int e = t + r * P.threads();
      bs[g.trans_b ? e / TN : e % TK][g.trans_b ? e % TN : e / TK] = y[r];
    }
  }
}

/// The float GEMM with split runs (gemm_policy::split): thread (tx, ty) owns rows ty·4 + {0..3} and TM/2 + ty·4 +
/// {0..3}, columns tx·4 + {0..3} and TN/2 + tx·4 + {0..3}, so each step reads its 8 + 8 operand values as four
/// 16-byte vectors that a warp's lanes take from consecutive addresses (or one broadcast); otherwise as
/// gemm_simt_kernel (same order of operations per element: the sum over k in increasing order).
template <blas::gemm_policy P>
__device__ __forceinline__ void gemm_split_block(const gemm_args<float>& g) {
  static_assert(gemm_policy_valid<P>() && P.split);
  constexpr int TM = P.tile_m, TN = P.tile_n, TK = P.tile_k, COLS = TN / 8;
  __shared__ __align__(16) float as[2][TK][TM];
  __shared__ __align__(16) float bs[2][TK][TN];

  const std::int64_t row0 = std::int64_t(blockIdx.x) * TM, col0 = std::int64_t(blockIdx.y) * TN;
  const int tx = threadIdx.x % COLS, ty = threadIdx.x / COLS;
  float acc[8][8] = {};
  float4 ra, rb;
  bool va, vb;

  gemm_split_load<P>(g, row0, col0, 0, ra, rb, va, vb);
  gemm_split_store<P>(g, ra, rb, va, vb, as[0], bs[0]);
  __syncthreads();
  int buf = 0;
  for (std::int64_t k0 = 0; k0 < g.k; k0 += TK) {
    const bool more = k0 + TK < g.k;
    if (more) gemm_split_load<P>(g, row0, col0, k0 + TK, ra, rb, va, vb);  // in flight during the multiply
#pragma unroll
    for (int p = 0; p < TK; ++p) {
      const float4 a0 = *reinterpret_cast<const float4*>(&as[buf][p][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&as[buf][p][TM / 2 + ty * 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&bs[buf][p][tx * 4]);
      const float4 b1 = *reinterpret_cast<const float4*>(&bs[buf][p][TN / 2 + tx * 4]);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (more) {
      gemm_split_store<P>(g, ra, rb, va, vb, as[buf ^ 1], bs[buf ^ 1]);
      __syncthreads();
      buf ^= 1;
    }
  }

  // Epilogue: C = alpha·acc + beta·C, C unread when beta is 0; a run of 4 rows by one 16-byte access where the tile
  // is interior and C vector-aligned.
  const bool read_c = g.beta != 0.f;
  const bool vec = g.vec_c && row0 + TM <= g.m && col0 + TN <= g.n;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const std::int64_t col = col0 + (j < 4 ? 0 : TN / 2) + tx * 4 + (j % 4);
    if (col >= g.n) continue;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::int64_t row = row0 + h * (TM / 2) + ty * 4;
      float* c = g.c + row + col * g.ldc;
      if (vec) {
        float4 v = make_float4(g.alpha * acc[h * 4][j], g.alpha * acc[h * 4 + 1][j], g.alpha * acc[h * 4 + 2][j],
                               g.alpha * acc[h * 4 + 3][j]);
        if (read_c) {
          const float4 o = *reinterpret_cast<const float4*>(c);
          v.x += g.beta * o.x;
          v.y += g.beta * o.y;
          v.z += g.beta * o.z;
          v.w += g.beta * o.w;
        }
        *reinterpret_cast<float4*>(c) = v;
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          if (row + i >= g.m) continue;
          c[i] = read_c ? g.alpha * acc[h * 4 + i][j] + g.beta * c[i] : g.alpha * acc[h * 4 + i][j];
        }
      }
    }
  }
}

template <class Policy>
__global__ void __launch_bounds__(Policy::value.threads(), Policy::value.blocks_per_sm)
    gemm_simt_split_kernel(gemm_args<float> g) {
  gemm_split_block<Policy::value>(g);
}

/// The split kernel's batched form (as gemm_simt_batched_kernel).
template <class Policy>
__global__ void __launch_bounds__(Policy::value.threads(), Policy::value.blocks_per_sm)
    gemm_simt_split_batched_kernel(gemm_args<float> g, gemm_batch<float> b) {
  for (std::int64_t z = blockIdx.z; z < b.count; z += gridDim.z) {
    if (z != blockIdx.z) __syncthreads();  // every thread is done with the last batch's shared tiles
    gemm_split_block<Policy::value>(gemm_batch_args(g, b, z));
  }
}

/// The float GEMM's interior kernel (gemm_policy::interior_n): the tiles of C that lie wholly inside it, for operands
/// and C that are 16-byte aligned with leading dimensions of whole 16-byte vectors. A block computes a tile_m × TN
/// tile (TN = interior_n: 128 or 256; tile_m 128), 256 threads, each 8 × TN/16 elements of C in runs of 4 (rows ty·4
/// and 64 + ty·4, columns h·64 + tx·4 for h < TN/64), stepping k tile_k at a time through two shared buffers:
///   load     every thread's 16-byte vectors of the next step's operand tiles, through pointers formed once and
///            advanced by one step (no bounds checks: the tile is interior and k has whole steps left)
///   multiply the current buffer: per k, two 16-byte reads of op(A) (a warp-wide broadcast) and TN/64 of op(B)
///   store    the vectors into the other buffer: as they are where the operand runs along the tile's rows or
///            columns (A not transposed, B transposed), one element per row of the buffer where it runs along k
/// A last partial step of k (k not a multiple of tile_k) is loaded element by element with zeros past k. Each element
/// of C is the sum over k in increasing order of fused multiply-adds, as in the other CUDA-core kernels: the same
/// bits as the split kernel. Without the bounds checks and the element-by-element fallback in its loop, the kernel
/// fits 16 columns per thread in registers (the 8 × 8 split kernel spills at two blocks per SM).
/// Policy: a policy_constant of a gemm_policy. Tail: k is not a multiple of tile_k (a separate kernel: the tail's
/// code in the loop's kernel costs registers, and ptxas then sinks a load of the next step into the multiply).
template <class Policy, bool TA, bool TB, bool Tail>
__global__ void __launch_bounds__(256, 1) gemm_simt_interior_kernel(gemm_args<float> g) {
  constexpr blas::gemm_policy P = Policy::value;
  constexpr int TM = P.tile_m, TN = P.interior_n, TK = P.tile_k, RN = TN / 16;
  constexpr int RA = TM * TK / 4 / 256, RB = TN * TK / 4 / 256;  // 16-byte vectors per thread and step
  constexpr int SA = TM + 4, SB = TN + 4;  // padded rows: the element-wise stores of a k-running operand skip banks
  static_assert(TM == 128 && (TN == 128 || TN == 256) && TK % 8 == 0, "interior kernel: 128 x {128, 256}, tile_k % 8");
  __shared__ __align__(16) float as[2][TK][SA];
  __shared__ __align__(16) float bs[2][TK][SB];

  const int t = threadIdx.x;
  const std::int64_t row0 = std::int64_t(blockIdx.x) * TM, col0 = std::int64_t(blockIdx.y) * TN;
  // Vector r of a thread: A not transposed runs along m (column p of the tile, 4 rows), transposed along k (row i,
  // 4 k); B transposed runs along n, not transposed along k. pa/pb: its address at k = 0; sa/sb: its place in a buffer.
  const float* pa[RA];
  const float* pb[RB];
  int sa[RA], sb[RB], ka[RA], kb[RB];  // ka/kb: the first k of the vector within a step
#pragma unroll
  for (int r = 0; r < RA; ++r) {
    const int e = t + r * 256;
    if constexpr (!TA) {
      const int c4 = e % (TM / 4), p = e / (TM / 4);
      pa[r] = g.a + (row0 + c4 * 4) + p * g.lda;
      sa[r] = p * SA + c4 * 4;
      ka[r] = p;
    } else {
      const int q = e % (TK / 4), i = e / (TK / 4);
      pa[r] = g.a + q * 4 + (row0 + i) * g.lda;
      sa[r] = q * 4 * SA + i;
      ka[r] = q * 4;
    }
  }
#pragma unroll
  for (int r = 0; r < RB; ++r) {
    const int e = t + r * 256;
    if constexpr (TB) {
      const int c4 = e % (TN / 4), p = e / (TN / 4);
      pb[r] = g.b + (col0 + c4 * 4) + p * g.ldb;
      sb[r] = p * SB + c4 * 4;
      kb[r] = p;
    } else {
      const int q = e % (TK / 4), j = e / (TK / 4);
      pb[r] = g.b + q * 4 + (col0 + j) * g.ldb;
      sb[r] = q * 4 * SB + j;
      kb[r] = q * 4;
    }
  }
  const std::int64_t step_a = TA ? TK : TK * g.lda, step_b = TB ? TK * g.ldb : TK;
  float4 ra[RA], rb[RB];
  const auto load = [&] {  // the next step's vectors; the pointers move on by a step
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
  // The last partial step: k0 + (the vector's k) + e < k element by element, zeros past k.
  const auto load_tail = [&] {  // the pointers stand at it
    const std::int64_t k0 = g.k / TK * TK;
    const auto part = [&](const float* p, int kv, bool along_k) {
      float x[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) x[e] = k0 + kv + (along_k ? e : 0) < g.k ? p[e] : 0.f;
      return make_float4(x[0], x[1], x[2], x[3]);
    };
#pragma unroll
    for (int r = 0; r < RA; ++r) ra[r] = part(pa[r], ka[r], TA);
#pragma unroll
    for (int r = 0; r < RB; ++r) rb[r] = part(pb[r], kb[r], !TB);
  };
  const auto store = [&](int buf) {
    float* a = &as[buf][0][0];
    float* b = &bs[buf][0][0];
#pragma unroll
    for (int r = 0; r < RA; ++r) {
      if constexpr (!TA) {
        *reinterpret_cast<float4*>(a + sa[r]) = ra[r];
      } else {
        a[sa[r]] = ra[r].x;
        a[sa[r] + SA] = ra[r].y;
        a[sa[r] + 2 * SA] = ra[r].z;
        a[sa[r] + 3 * SA] = ra[r].w;
      }
    }
#pragma unroll
    for (int r = 0; r < RB; ++r) {
      if constexpr (TB) {
        *reinterpret_cast<float4*>(b + sb[r]) = rb[r];
      } else {
        b[sb[r]] = rb[r].x;
        b[sb[r] + SB] = rb[r].y;
        b[sb[r] + 2 * SB] = rb[r].z;
        b[sb[r] + 3 * SB] = rb[r].w;
      }
    }
  };
  const int tx = t % 16, ty = t / 16;
  float acc[8][RN] = {};
  const auto multiply = [&](int buf) {
#pragma unroll
    for (int p = 0; p < TK; ++p) {
      const float4 a0 = *reinterpret_cast<const float4*>(&as[buf][p][ty * 4]);
      const float4 a1 = *reinterpret_cast<const float4*>(&as[buf][p][TM / 2 + ty * 4]);
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      float b[RN];
#pragma unroll
      for (int h = 0; h < RN / 4; ++h) {
        const float4 v = *reinterpret_cast<const float4*>(&bs[buf][p][h * 64 + tx * 4]);
        b[h * 4] = v.x;
        b[h * 4 + 1] = v.y;
        b[h * 4 + 2] = v.z;
        b[h * 4 + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < RN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
  };

  // Whole steps (≥ 1 and < 2^31: the dispatch sends other k to the split kernel); a 32-bit count keeps the loop's
  // test cheap enough that the compiler issues the next step's loads at the top of the multiply.
  const int steps = int(g.k / TK);
  load();
  store(0);
  __syncthreads();
  int buf = 0;
  for (int s = 0; s < steps; ++s) {
    const bool more = s + 1 < steps;
    if (more) load();  // in flight during the multiply
    multiply(buf);
    if (more) {
      store(buf ^ 1);  // the other buffer: nobody reads it this step
      __syncthreads();
      buf ^= 1;
    }
  }
  if constexpr (Tail) {
    load_tail();
    store(buf ^ 1);  // last read before the previous barrier
    __syncthreads();
    multiply(buf ^ 1);
  }

  // Epilogue: C = alpha·acc + beta·C by 16-byte accesses, C unread when beta is 0.
  const bool read_c = g.beta != 0.f;
#pragma unroll
  for (int j = 0; j < RN; ++j) {
    const std::int64_t col = col0 + (j / 4) * 64 + tx * 4 + (j % 4);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float* c = g.c + (row0 + h * (TM / 2) + ty * 4) + col * g.ldc;
      float4 v = make_float4(g.alpha * acc[h * 4][j], g.alpha * acc[h * 4 + 1][j], g.alpha * acc[h * 4 + 2][j],
                             g.alpha * acc[h * 4 + 3][j]);
      if (read_c) {
        const float4 o = *reinterpret_cast<const float4*>(c);
        v.x += g.beta * o.x;
        v.y += g.beta * o.y;
        v.z += g.beta * o.z;
        v.w += g.beta * o.w;
      }
      *reinterpret_cast<float4*>(c) = v;
    }
  }
}

/// C = beta·C over m × n (the whole GEMM when k = 0 or alpha = 0), C unread when beta is 0.
/// S: the scalars' type (T itself, or float for 16-bit C).
template <class T, class S>
__global__ void gemm_scale_kernel(T* c, std::int64_t m, std::int64_t n, std::int64_t ldc, S beta) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    T* p = c + i + j * ldc;
    *p = beta == S(0) ? T(0) : T(beta * S(*p));
  }
}

/// What the 16-bit CUDA-core GEMM needs (column-major, as gemm_args; scalars and sums in float).
template <class In, class Out>
struct gemm_mixed_args {
  const In* a;
  const In* b;
  Out* c;
  std::int64_t m, n, k, lda, ldb, ldc;
  float alpha, beta;
  bool trans_a, trans_b;
};

/// 16-bit inputs on CUDA cores, products and sums in float: the tensor-core GEMM's fallback for what it cannot take
/// (unaligned operands, leading dimensions that are not whole 16-byte vectors, sizes of 2^31 or more, devices other
/// than sm_90 and binaries without sm_90a code). A block per 64 × 64 tile of C, 16 k per step through shared memory,
/// 4 × 4 elements per thread (rows tx + 16i, columns ty + 16j): correct for any shape, not fast.
template <class In, class Out>
__global__ void __launch_bounds__(256) gemm_mixed_kernel(gemm_mixed_args<In, Out> g) {
  constexpr int TM = 64, TN = 64, TK = 16;
  __shared__ float as[TK][TM + 1];
  __shared__ float bs[TK][TN + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const std::int64_t row0 = std::int64_t(blockIdx.x) * TM, col0 = std::int64_t(blockIdx.y) * TN;
  float acc[4][4] = {};
  for (std::int64_t k0 = 0; k0 < g.k; k0 += TK) {
    for (int e = threadIdx.x; e < TM * TK; e += 256) {
      // op N: consecutive threads down a column of A (i); op T: down a stored column (p).
      const int i = g.trans_a ? e / TK : e % TM, p = g.trans_a ? e % TK : e / TM;
      const std::int64_t gi = row0 + i, gp = k0 + p;
      as[p][i] = gi < g.m && gp < g.k ? float(g.trans_a ? g.a[gp + gi * g.lda] : g.a[gi + gp * g.lda]) : 0.f;
    }
    for (int e = threadIdx.x; e < TN * TK; e += 256) {
      const int j = g.trans_b ? e % TN : e / TK, p = g.trans_b ? e / TN : e % TK;
      const std::int64_t gj = col0 + j, gp = k0 + p;
      bs[p][j] = gj < g.n && gp < g.k ? float(g.trans_b ? g.b[gj + gp * g.ldb] : g.b[gp + gj * g.ldb]) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < TK; ++p) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = as[p][tx + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = bs[p][ty + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const std::int64_t gj = col0 + ty + 16 * j;
    if (gj >= g.n) continue;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const std::int64_t gi = row0 + tx + 16 * i;
      if (gi >= g.m) continue;
      Out* p = g.c + gi + gj * g.ldc;
      const float v = g.alpha * acc[i][j];
      *p = Out(g.beta == 0.f ? v : v + g.beta * float(*p));
    }
  }
}

/// gemm_scale_kernel over the batches of a batched call (blockIdx.z, looping past gridDim.z).
template <class T>
__global__ void gemm_scale_batched_kernel(T* c, std::int64_t m, std::int64_t n, std::int64_t ldc, T beta,
                                          gemm_batch<T> b) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  for (std::int64_t z = blockIdx.z; z < b.count; z += gridDim.z) {
    T* cz = b.c_array ? b.c_array[z] : c + z * b.stride_c;
    for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
      T* p = cz + i + j * ldc;
      *p = beta == T(0) ? T(0) : beta * *p;
    }
  }
}

}  // namespace cuprim::detail
