// cuprim/blas/detail/gemm_small_kernel.cuh: the batched GEMM of small products (m, n, k ≤ 64), float and double.
//
// The bound. A batch of small products is a stream: each product reads op(A) and op(B) once and writes C once
// (reading C too when beta ≠ 0), and for m = n = k = s its arithmetic intensity is 2s³ / (3s² · size) flop/byte
// (beta = 0): float 16 × 16 2.7, 32 × 32 5.3, 64 × 64 10.7; double half that. An H100's CUDA cores give 66.9 TFLOP/s
// (FP32) and 33.5 (FP64) against a device copy rate of about 3.0 TB/s (the lab's ceiling), 22 and 11 flop/byte, so
// every size here is memory-bound, 64 × 64 float within a factor two of the FP32 bound. Expected times for 10^5
// square products at the copy rate (beta = 0 | beta = 1; H100, 3.0 TB/s):
//   float   16 × 16:  307 MB  0.10 ms | 0.14 ms      double  16 × 16:  614 MB  0.20 ms | 0.27 ms
//           32 × 32:  1.23 GB 0.41 ms | 0.55 ms              32 × 32:  2.46 GB 0.82 ms | 1.09 ms
//           64 × 64:  4.92 GB 1.64 ms | 2.18 ms              64 × 64:  9.83 GB 3.28 ms | 4.37 ms
// and the arithmetic alone at peak: float 64 × 64 0.78 ms, double 64 × 64 1.56 ms, so at 64 × 64 the kernel must
// keep the FMA pipes about half busy while it streams. The general kernel (gemm_kernel.cuh) runs each product as one
// 128 × 128 (float) or 64 × 64 (double) tile with a k step of 8: 16 × 16 uses 1/64 of its float tile.
//
// The kernel (gemm_small_kernel, one policy per tile size: blas::gemm_small_policy). A group of G threads computes
// one product; a block holds P = threads / G groups, each with its own shared slices; a persistent grid
// (blocks_per_sm blocks per SM) walks the batches, group g of block b taking batches b·P + g, b·P + g + gridDim·P,
// ... Each group steps through k tile_k at a time:
//   gemm_small_load      the step's stored block of an operand (op(A): m × kc for op N, kc × m for op T; op(B)
//                        likewise) into registers, consecutive threads on consecutive addresses: 16 bytes per access
//                        where the block's rows are whole 16-byte vectors, its pointer 16-byte aligned and ld a
//                        multiple of 4 floats (2 doubles) — in the tight strided case a product's operands are one
//                        contiguous run and a warp's loads whole 128-byte lines — else element by element
//   gemm_small_store     registers -> shared memory, k-major (as[p][i], bs[p][j]; rows padded by 16 bytes, their
//                        16-byte pieces swizzled by p so that the transposed stores below spread over the banks)
//   gemm_small_multiply  each thread: for each p of the step its thread_m values of op(A) and thread_n of op(B)
//                        (16-byte shared reads), an outer product into thread_m × thread_n accumulators (rows along
//                        the group's threads, so that a column of C is written by consecutive threads)
// with the next step's loads (the next batch's, after a product's last step) in flight during the multiply and the
// epilogue. Those register loads are one step deep, too shallow to cover DRAM latency at the rates here (a block's
// turn of multiply is shorter than a loaded DRAM access), so with P.prefetch = d each group, as it starts a product,
// asks L2 for the whole stored op(A) and op(B) of its batch d rounds later (prefetch.global.L2, one per 128-byte
// line, no registers held): the register loads then wait on L2, and the DRAM stream runs d products ahead.
// Two barriers per step, over the group alone (its warp, a named barrier, or the block when the group is the block),
// so the groups of a block do not wait for each other. gemm_small_epilogue: C = alpha·acc + beta·C by
// 16-byte accesses where C is aligned with ldc and m whole vectors, C not read when beta is 0.
//
// A slice stored across k (op(A) with op T, op(B) with op N: the NN headline's B) is transposed into shared memory by
// element stores: without the swizzle, 2-way bank conflicts for 16-deep steps and 4-way for 32 (rows padded by 16
// bytes: rows 8 apart share banks); the swizzle (gemm_small_swizzle) makes them conflict-free for the k steps of 8,
// 16 and 32 the tables use (2-way left at steps of 64).
//
// Each C element is a sum over k in increasing order of fused multiply-adds in T from zero, then alpha·acc (+ beta·c):
// the operations of the general kernel, so the same bits from run to run.
#pragma once

#include <cuprim/blas/detail/gemm_kernel.cuh>
#include <cuprim/blas/detail/gemm_tuning.cuh>
#include <cuprim/core/policy.hpp>

#include <cstdint>

namespace cuprim::detail {

/// 16-byte accesses of T: float4 or double2, as an array of 16 / sizeof(T) elements.
template <class T>
struct gemm_vec {
  static constexpr int n = 16 / int(sizeof(T));
  static __device__ __forceinline__ void load(const T* p, T* x) {
    if constexpr (sizeof(T) == 4) {
      const float4 v = *reinterpret_cast<const float4*>(p);
      x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
    } else {
      const double2 v = *reinterpret_cast<const double2*>(p);
      x[0] = v.x, x[1] = v.y;
    }
  }
  static __device__ __forceinline__ void store(T* p, const T* x) {
    if constexpr (sizeof(T) == 4) {
      *reinterpret_cast<float4*>(p) = make_float4(x[0], x[1], x[2], x[3]);
    } else {
      *reinterpret_cast<double2*>(p) = make_double2(x[0], x[1]);
    }
  }
};

/// One step's stored block of an operand: rows × cols at p with leading dimension ld; `straight` when its columns
/// are the step's k (shared row c, element r: s[c][r]), else s[r][c]; `vec` when it moves by 16-byte accesses.
template <class T>
struct gemm_small_slice {
  const T* p;
  int rows, cols;
  std::int64_t ld;
  bool straight, vec;
};

/// The operands of one batch.
template <class T>
struct gemm_small_operands {
  const T* a;
  const T* b;
  T* c;
};

template <class T>
__device__ __forceinline__ gemm_small_operands<T> gemm_small_batch(const gemm_args<T>& g, const gemm_batch<T>& bt,
                                                                   std::int64_t z) {
  if (bt.c_array) return {bt.a_array[z], bt.b_array[z], bt.c_array[z]};
  return {g.a + z * bt.stride_a, g.b + z * bt.stride_b, g.c + z * bt.stride_c};
}

template <class T>
__device__ __forceinline__ bool gemm_small_vec(const T* p, int rows, std::int64_t ld) {
  constexpr int N = gemm_vec<T>::n;
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % N == 0 && rows % N == 0;
}

/// Step k0 (kc = min(tile_k, k - k0) deep) of op(A) (m × kc) and of op(B) (kc × n), as stored.
template <class T>
__device__ __forceinline__ gemm_small_slice<T> gemm_small_slice_a(const gemm_args<T>& g, const T* a, int k0, int kc) {
  gemm_small_slice<T> s;
  if (g.trans_a) {  // stored k × m: rows k0 .. k0 + kc of every column
    s = {a + k0, kc, int(g.m), g.lda, false, false};
  } else {  // stored m × k: columns k0 .. k0 + kc
    s = {a + std::int64_t(k0) * g.lda, int(g.m), kc, g.lda, true, false};
  }
  s.vec = gemm_small_vec(s.p, s.rows, s.ld);
  return s;
}
template <class T>
__device__ __forceinline__ gemm_small_slice<T> gemm_small_slice_b(const gemm_args<T>& g, const T* b, int k0, int kc) {
  gemm_small_slice<T> s;
  if (g.trans_b) {  // stored n × k: columns k0 .. k0 + kc
    s = {b + std::int64_t(k0) * g.ldb, int(g.n), kc, g.ldb, true, false};
  } else {  // stored k × n: rows k0 .. k0 + kc of every column
    s = {b + k0, kc, int(g.n), g.ldb, false, false};
  }
  s.vec = gemm_small_vec(s.p, s.rows, s.ld);
  return s;
}

/// A slice into registers: R 16-byte pieces per thread (thread t of G takes pieces t, t + G, ...) or, element by
/// element, elements t, t + G, ... of the slice in column order; nothing past the slice.
template <int G, int R, class T>
__device__ __forceinline__ void gemm_small_load(const gemm_small_slice<T>& s, int t, T (&r)[R][gemm_vec<T>::n]) {
  constexpr int N = gemm_vec<T>::n;
  if (s.vec) {
    const unsigned rows_v = unsigned(s.rows / N), total = rows_v * unsigned(s.cols);
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const unsigned v = unsigned(t + q * G);
      if (v < total) gemm_vec<T>::load(s.p + (v % rows_v) * N + std::int64_t(v / rows_v) * s.ld, r[q]);
    }
  } else {
    const unsigned rows = unsigned(s.rows), total = rows * unsigned(s.cols);
#pragma unroll
    for (int q = 0; q < R * N; ++q) {
      const unsigned f = unsigned(t + q * G);
      if (f < total) r[q / N][q % N] = s.p[f % rows + std::int64_t(f / rows) * s.ld];
    }
  }
}

/// The stored rows × cols block at p (leading dimension ld) into L2: the group's G threads (thread t) take its
/// 128-byte lines column by column, each prefetch at an address inside the block (a column's first element for its
/// first line), so that no line outside the block's columns is touched.
template <int G, class T>
__device__ __forceinline__ void gemm_small_prefetch(const T* p, int rows, int cols, std::int64_t ld, int t) {
  const int lines = (rows * int(sizeof(T)) + 127) / 128 + 1;  // lines a column of `rows` elements may touch
  for (int u = t; u < lines * cols; u += G) {
    const int col = u / lines, l = u % lines;
    const char* first = reinterpret_cast<const char*>(p + std::int64_t(col) * ld);
    const char* end = first + rows * int(sizeof(T));
    const char* at = l == 0 ? first : first - reinterpret_cast<std::uintptr_t>(first) % 128 + 128 * l;
    if (at < end) asm volatile("prefetch.global.L2 [%0];" ::"l"(at));
  }
}

/// Batch z's op(A) and op(B), as stored, into L2 (gemm_small_prefetch).
template <int G, class T>
__device__ __forceinline__ void gemm_small_prefetch_batch(const gemm_args<T>& g, const gemm_batch<T>& bt,
                                                          std::int64_t z, int t) {
  const gemm_small_operands<T> o = gemm_small_batch(g, bt, z);
  const int m = int(g.m), n = int(g.n), k = int(g.k);
  gemm_small_prefetch<G>(o.a, g.trans_a ? k : m, g.trans_a ? m : k, g.lda, t);
  gemm_small_prefetch<G>(o.b, g.trans_b ? n : k, g.trans_b ? k : n, g.ldb, t);
}

/// Where element i of shared row p lies (tile S, k step KC, N elements per 16 bytes): its 16-byte piece i / N moved
/// to (i / N) xor ((p / 8) · W mod (S / N)), W = max(1, 32 / KC). With rows padded by 16 bytes, rows 8 apart fall in
/// the same banks; a warp's transposed stores (element e of its vectors to rows e, e + N, ... of 32 / (KC / N)
/// consecutive columns, W pieces wide) then find rows 8, 16 and 24 apart on other banks.
template <int S, int N, int KC>
__device__ __forceinline__ int gemm_small_swizzle(int p, int i) {
  constexpr int W = KC >= 32 ? 1 : 32 / KC;
  return (((i / N) ^ (((p >> 3) * W) & (S / N - 1))) * N) + i % N;
}

/// Registers -> the shared slice sh[KC][LD] (swizzled: gemm_small_swizzle), in the numbering gemm_small_load used.
template <int G, int R, int KC, int LD, class T>
__device__ __forceinline__ void gemm_small_store(const gemm_small_slice<T>& s, int t, const T (&r)[R][gemm_vec<T>::n],
                                                 T (&sh)[KC][LD]) {
  constexpr int N = gemm_vec<T>::n, S = LD - N;
  if (s.vec) {
    const unsigned rows_v = unsigned(s.rows / N), total = rows_v * unsigned(s.cols);
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const unsigned v = unsigned(t + q * G);
      if (v >= total) continue;
      const int row = int(v % rows_v) * N, col = int(v / rows_v);
      if (s.straight) {
        gemm_vec<T>::store(&sh[col][gemm_small_swizzle<S, N, KC>(col, row)], r[q]);
      } else {
#pragma unroll
        for (int e = 0; e < N; ++e) sh[row + e][gemm_small_swizzle<S, N, KC>(row + e, col)] = r[q][e];
      }
    }
  } else {
    const unsigned rows = unsigned(s.rows), total = rows * unsigned(s.cols);
#pragma unroll
    for (int q = 0; q < R * N; ++q) {
      const unsigned f = unsigned(t + q * G);
      if (f >= total) continue;
      const int row = int(f % rows), col = int(f / rows);
      if (s.straight)
        sh[col][gemm_small_swizzle<S, N, KC>(col, row)] = r[q / N][q % N];
      else
        sh[row][gemm_small_swizzle<S, N, KC>(row, col)] = r[q / N][q % N];
    }
  }
}

/// Elements i0 .. i0 + count of shared row p (`row`, swizzled) into x: 16-byte reads when count is a multiple of the
/// vector, 8-byte reads of float pairs when it is even (aligned: rows padded by 16 bytes, i0 a multiple of count, and
/// the swizzle moves whole 16-byte pieces).
template <int count, int S, int KC, class T>
__device__ __forceinline__ void gemm_small_read(const T* row, int p, int i0, T (&x)[count]) {
  constexpr int N = gemm_vec<T>::n;
  if constexpr (count % N == 0) {
#pragma unroll
    for (int v = 0; v < count / N; ++v)
      gemm_vec<T>::load(row + gemm_small_swizzle<S, N, KC>(p, i0 + v * N), x + v * N);
  } else if constexpr (sizeof(T) == 4 && count % 2 == 0) {
#pragma unroll
    for (int v = 0; v < count / 2; ++v) {
      const float2 y = *reinterpret_cast<const float2*>(row + gemm_small_swizzle<S, N, KC>(p, i0 + 2 * v));
      x[2 * v] = y.x, x[2 * v + 1] = y.y;
    }
  } else {
#pragma unroll
    for (int i = 0; i < count; ++i) x[i] = row[gemm_small_swizzle<S, N, KC>(p, i0 + i)];
  }
}

/// One step of the thread's outer products: acc += as[p][rows] ⊗ bs[p][cols] for p < kc (KC when the step is whole).
template <int RM, int RN, int KC, int LD, class T>
__device__ __forceinline__ void gemm_small_multiply(const T (&as)[KC][LD], const T (&bs)[KC][LD], int row0, int col0,
                                                    int kc, T (&acc)[RM][RN]) {
  constexpr int S = LD - gemm_vec<T>::n;
  const auto step = [&](int p) {
    T a[RM], b[RN];
    gemm_small_read<RM, S, KC>(as[p], p, row0, a);
    gemm_small_read<RN, S, KC>(bs[p], p, col0, b);
#pragma unroll
    for (int i = 0; i < RM; ++i)
#pragma unroll
      for (int j = 0; j < RN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
  };
  if (kc == KC) {
#pragma unroll
    for (int p = 0; p < KC; ++p) step(p);
  } else {
#pragma unroll 2
    for (int p = 0; p < kc; ++p) step(p);
  }
}

/// C = alpha·acc + beta·C for the thread's rows row0 .. row0 + RM of columns col0 .. col0 + RN (those inside m × n);
/// C not read when beta is 0.
template <int RM, int RN, class T>
__device__ __forceinline__ void gemm_small_epilogue(const gemm_args<T>& g, T* c, int row0, int col0,
                                                    const T (&acc)[RM][RN]) {
  constexpr int N = gemm_vec<T>::n;
  const bool read_c = g.beta != T(0);
  const bool vec = RM % N == 0 && g.m % N == 0 && g.ldc % N == 0 && reinterpret_cast<std::uintptr_t>(c) % 16 == 0;
  if (row0 >= g.m) return;
#pragma unroll
  for (int j = 0; j < RN; ++j) {
    if (col0 + j >= g.n) continue;
    T* cj = c + row0 + std::int64_t(col0 + j) * g.ldc;
    if (vec) {
#pragma unroll
      for (int v = 0; v < RM / N; ++v) {
        if (row0 + v * N >= g.m) break;  // m is whole vectors: a vector is all inside or all past it
        T x[N], old[N];
        if (read_c) gemm_vec<T>::load(cj + v * N, old);
#pragma unroll
        for (int e = 0; e < N; ++e)
          x[e] = read_c ? g.alpha * acc[v * N + e][j] + g.beta * old[e] : g.alpha * acc[v * N + e][j];
        gemm_vec<T>::store(cj + v * N, x);
      }
    } else {
#pragma unroll
      for (int i = 0; i < RM; ++i) {
        if (row0 + i >= g.m) continue;
        cj[i] = read_c ? g.alpha * acc[i][j] + g.beta * cj[i] : g.alpha * acc[i][j];
      }
    }
  }
}

/// A barrier over one group's threads (its shared slices are its own): the warp for groups of up to 32 threads,
/// named barrier 1 + grp for groups of several warps, the block when the group is the block.
template <int G, int TH>
__device__ __forceinline__ void gemm_small_sync(int grp) {
  if constexpr (G < 32) {
    __syncwarp(((1u << G) - 1) << (threadIdx.x % 32 / G * G));
  } else if constexpr (G == 32) {
    __syncwarp();
  } else if constexpr (G == TH) {
    __syncthreads();
  } else {
    static_assert(TH / G <= 15, "gemm_small_sync: at most 15 named barriers");
    asm volatile("bar.sync %0, %1;" ::"r"(grp + 1), "r"(G) : "memory");
  }
}

/// The batched small-product kernel (m, n ≤ P.tile, any k, alpha ≠ 0): see the file comment. Policy: a
/// policy_constant of a blas::gemm_small_policy.
template <class Policy, class T>
__global__ void __launch_bounds__(Policy::value.threads, Policy::value.blocks_per_sm)
    gemm_small_kernel(gemm_args<T> g, gemm_batch<T> bt) {
  constexpr blas::gemm_small_policy P = Policy::value;
  static_assert(gemm_small_policy_valid<P, int(sizeof(T))>());
  constexpr int N = gemm_vec<T>::n, S = P.tile, KC = P.tile_k, G = P.group, LD = S + N, GROUPS = P.products();
  constexpr int RM = P.thread_m, RN = P.thread_n, R = S * KC / (N * G);
  __shared__ __align__(16) T smem[GROUPS][2][KC][LD];  // per group: op(A) as[p][i], op(B) bs[p][j]

  const int t = int(threadIdx.x) % G, grp = int(threadIdx.x) / G;
  T(&as)[KC][LD] = smem[grp][0];
  T(&bs)[KC][LD] = smem[grp][1];
  const int row0 = (t % (S / RM)) * RM, col0 = (t / (S / RM)) * RN;  // rows along consecutive threads
  const int k = int(g.k), steps = (k + KC - 1) / KC;
  const std::int64_t round = std::int64_t(gridDim.x) * GROUPS;

  T ra[R][N], rb[R][N];  // the step in flight
  T acc[RM][RN];
  // a and b: the operands of the batch whose steps are being loaded; c: the output of the batch being multiplied.
  std::int64_t z = std::int64_t(blockIdx.x) * GROUPS + grp;
  if (z >= bt.count) return;  // the group's barriers involve its own threads only
  const T* a;
  const T* b;
  T* c;
  T* c_next = nullptr;
  {
    const gemm_small_operands<T> o = gemm_small_batch(g, bt, z);
    a = o.a, b = o.b, c = o.c;
    gemm_small_load<G, R>(gemm_small_slice_a(g, a, 0, KC < k ? KC : k), t, ra);
    gemm_small_load<G, R>(gemm_small_slice_b(g, b, 0, KC < k ? KC : k), t, rb);
  }
  if constexpr (P.prefetch > 1) {  // the rounds between this batch and the one each product's start asks for
    for (int d = 1; d < P.prefetch; ++d)
      if (z + d * round < bt.count) gemm_small_prefetch_batch<G>(g, bt, z + d * round, t);
  }
  for (; z < bt.count; z += round) {
    if constexpr (P.prefetch > 0) {
      if (z + P.prefetch * round < bt.count) gemm_small_prefetch_batch<G>(g, bt, z + P.prefetch * round, t);
    }
#pragma unroll
    for (int i = 0; i < RM; ++i)
#pragma unroll
      for (int j = 0; j < RN; ++j) acc[i][j] = T(0);
    for (int s = 0; s < steps; ++s) {
      const int k0 = s * KC, kc = k - k0 < KC ? k - k0 : KC;
      gemm_small_sync<G, P.threads>(grp);  // the last step's multiply is done with the slices
      gemm_small_store<G, R, KC, LD>(gemm_small_slice_a(g, a, k0, kc), t, ra, as);
      gemm_small_store<G, R, KC, LD>(gemm_small_slice_b(g, b, k0, kc), t, rb, bs);
      gemm_small_sync<G, P.threads>(grp);
      // The next step's loads, in flight during this step's multiply (and the epilogue).
      if (s + 1 < steps) {
        const int k1 = k0 + KC, kc1 = k - k1 < KC ? k - k1 : KC;
        gemm_small_load<G, R>(gemm_small_slice_a(g, a, k1, kc1), t, ra);
        gemm_small_load<G, R>(gemm_small_slice_b(g, b, k1, kc1), t, rb);
      } else if (z + round < bt.count) {
        const gemm_small_operands<T> o = gemm_small_batch(g, bt, z + round);
        a = o.a, b = o.b, c_next = o.c;
        gemm_small_load<G, R>(gemm_small_slice_a(g, a, 0, KC < k ? KC : k), t, ra);
        gemm_small_load<G, R>(gemm_small_slice_b(g, b, 0, KC < k ? KC : k), t, rb);
      }
      gemm_small_multiply<RM, RN, KC, LD>(as, bs, row0, col0, kc, acc);
    }
    gemm_small_epilogue<RM, RN>(g, c, row0, col0, acc);
    c = c_next;
  }
}

}  // namespace cuprim::detail
