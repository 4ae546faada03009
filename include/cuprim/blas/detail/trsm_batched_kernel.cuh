// cuprim/blas/detail/trsm_batched_kernel.cuh: the small-triangle kernel of cuprim::blas::trsm_batched and
// trsm_strided_batched (a block per batch, the whole triangle in shared memory, a thread per right-hand side), and the
// kernel that offsets pointer arrays for the batched gemm updates of larger triangles.
//
// The problem is trsm's (blas/detail/trsm_kernel.cuh): every side, triangle and transpose becomes M·Y = alpha·C on
// strided views, element (i, j) of a view at p[i·r + j·c] with one of r and c being 1, M of order kb lower (forward
// substitution) or upper (backward), C kb × nn. Here kb ≤ NB ≤ 64 and there are `count` such problems.
//
// trsm_batched_small_kernel<T, NB, LOWER>, a block of 32, 64 or 128 threads per batch (looping over batches past the
// grid):
//   1. M's stored triangle (and its diagonal unless unit; ones for unit) goes to shared memory by cp.async, column k
//      of M contiguous (ms[k·LM + i], LM = NB + 4). The triangle is walked as runs along the contiguous dimension of
//      its view (a column of A for op N, a row for op T), two runs of together kb + 1 elements per kb + 1 slots (run
//      s and run kb − 1 − s), so every slot loads an element and a warp's loads are one or two contiguous runs; the
//      other triangle is never read.
//   2. the block's columns of C (one per thread, up to blockDim.x at a time; more columns loop) go to shared memory
//      by cp.async (xs[c·LM + i]): 16 bytes a copy when C's columns are contiguous and 16-byte aligned (the left
//      side with ldb·sizeof(T) a multiple of 16 and kb a multiple of 16 / sizeof(T)), else an element a copy (see
//      trsm_view_for_each). Each thread then takes its column into registers, times alpha.
//   3. each thread substitutes, entirely unrolled (NB compile-time, x[NB] in registers): forward (LOWER) or backward,
//      x_k /= m_kk (one true division, the same arithmetic as BLAS's reference; ones on a unit diagonal), then
//      x_i −= m_ik·x_k for the rows after k in solve order, m_ik read from shared memory as 16-byte vectors broadcast
//      to every thread (4 float or 2 double multiply-adds per read). Rows kb .. NB − 1 of the registers are padding:
//      never updated from nor written back, and the backward solve starts at row kb − 1 (a uniform branch per row).
//   4. the columns go back to shared memory, then to B the way they came.
// Memory bound (the design target): per batch, M's triangle ka(ka + 1)/2 elements read (whole 32-byte sectors: about
// ka²/2 + 4·ka for float), B's m·n read and written: 64 × 64 float LLNN is 8.3 KB + 16.4 KB + 16.4 KB = 41 KB per batch,
// 411 MB for 10^4 batches, ~0.14 ms at a copy ceiling of 3 TB/s (H100 SXM); nrhs = 1 is 8.3 + 0.5 KB, ~30 µs.
// Arithmetic: ka²·nn/2 multiply-adds per batch (1.3·10^9 for 10^4 batches of 64 × 64, ~40 µs of FP32 issue on an
// H100), so a block of 64 threads and 35 KB of shared memory (6 blocks per SM) keeps loads of some blocks in flight
// while others compute.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cuprim::detail {

/// The batches of small problems: batch z's M at (a_array ? a_array[z] : a + z·stride_a) + a_off, its C at
/// (b_array ? b_array[z] : b + z·stride_b) + b_off (the offsets select a diagonal block of a larger triangle).
template <class T>
struct trsm_batched_args {
  const T* a;                  ///< batch 0's A (strided form; null with a_array)
  const T* const* a_array;     ///< the pointer-array form's A, or null
  std::int64_t stride_a, a_off;
  std::int64_t a_r, a_c;       ///< the strides of M's rows and columns
  T* b;
  T* const* b_array;
  std::int64_t stride_b, b_off;
  std::int64_t b_r, b_c;       ///< the strides of C's rows and columns
  std::int64_t nn;             ///< columns of C
  std::int64_t count;          ///< batches
  int kb;                      ///< the order of M, 1 ≤ kb ≤ NB
  T alpha;                     ///< C is first multiplied by alpha
  bool unit;                   ///< M's diagonal taken as ones, never read
};

/// The image's leading dimension: NB + 4 (a multiple of 4 elements, so columns start on 16 bytes; ≡ 4 mod 32).
template <int NB>
inline constexpr int trsm_small_ld = NB + 4;

/// Dynamic shared memory of trsm_batched_small_kernel<T, NB, LOWER> with `cols` columns of C resident: M's image and C's.
template <class T, int NB>
constexpr std::size_t trsm_small_smem_bytes(int cols) {
  return std::size_t(NB + cols) * std::size_t(trsm_small_ld<NB>) * sizeof(T);
}

/// Copies one element global → shared without registers (cp.async, sm_80 and later; a plain copy before).
template <class T>
__device__ __forceinline__ void trsm_copy_async(T* smem, const T* gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if constexpr (sizeof(T) == 4)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(gmem) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(s), "l"(gmem) : "memory");
#else
  *smem = *gmem;
#endif
}

/// Copies 16 bytes global → shared without registers (both 16-byte aligned).
template <class T>
__device__ __forceinline__ void trsm_copy_async16(T* smem, const T* gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
#else
  *reinterpret_cast<int4*>(smem) = *reinterpret_cast<const int4*>(gmem);
#endif
}

__device__ __forceinline__ void trsm_copy_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/// Calls f(i, c) once for each element of a rows × cols view (rows ≤ 64; here C's), spread over the block's threads: when
/// `rows_run` (the rows are contiguous in memory) a warp takes 32 consecutive rows of a column (64-row views: two
/// warps a column); otherwise a warp takes a 4 × 8 tile, 8 consecutive columns on each of 4 rows. Index arithmetic
/// by shifts and masks only.
template <class F>
__device__ __forceinline__ void trsm_view_for_each(int rows, int cols, bool rows_run, F&& f) {
  const int t = threadIdx.x, nt = blockDim.x;
  if (rows_run) {
    const int sh = rows > 32 ? 6 : 5;  // 64 or 32 slots per column
    const int slots = cols << sh;
    for (int idx = t; idx < slots; idx += nt) {
      const int i = idx & ((1 << sh) - 1), c = idx >> sh;
      if (i < rows) f(i, c);
    }
  } else {
    const int tr_sh = rows > 32 ? 4 : rows > 16 ? 3 : rows > 8 ? 2 : rows > 4 ? 1 : 0;  // 4-row tiles, a power of 2
    const int tc = (cols + 7) >> 3;
    const int slots = (tc << tr_sh) << 5;
    for (int idx = t; idx < slots; idx += nt) {
      const int w = idx >> 5, l = idx & 31;
      const int i = ((w & ((1 << tr_sh) - 1)) << 2) + (l >> 3), c = ((w >> tr_sh) << 3) + (l & 7);
      if (i < rows && c < cols) f(i, c);
    }
  }
}

template <class T>
struct trsm_vec16;
template <>
struct trsm_vec16<float> {
  using type = float4;
  static constexpr int n = 4;
  __device__ static float get(const float4& v, int e) { return e == 0 ? v.x : e == 1 ? v.y : e == 2 ? v.z : v.w; }
  __device__ static float4 make(const float* x) { return make_float4(x[0], x[1], x[2], x[3]); }
};
template <>
struct trsm_vec16<double> {
  using type = double2;
  static constexpr int n = 2;
  __device__ static double get(const double2& v, int e) { return e == 0 ? v.x : v.y; }
  __device__ static double2 make(const double* x) { return make_double2(x[0], x[1]); }
};

/// Calls f(i, j) once for each element of M's stored kb × kb triangle, diagonal included (runs_rows: M's rows are
/// contiguous in memory, so the runs are M's columns; else its rows). Run s covers the contiguous coordinate
/// [s, kb) when `tail`, else [0, s + 1); runs s and kb − 1 − s share kb + 1 slots, so ceil(kb / 2)·(kb + 1) slots
/// hold the kb(kb + 1)/2 elements with at most one slot in kb + 1 idle.
template <class F>
__device__ __forceinline__ void trsm_triangle_for_each(int kb, bool runs_rows, bool tail, F&& f) {
  const int t = threadIdx.x, nt = blockDim.x, per = kb + 1, slots = ((kb + 1) >> 1) * per;
  // idx / per in float: exact here, since idx < 2^12 and (idx + 0.5) / per is at least 0.5 / 65 from an integer,
  // far above float's rounding of the product (below 2^-11 at idx < 2^12).
  const float inv_per = 1.f / float(per);
  for (int idx = t; idx < slots; idx += nt) {
    const int p = int((float(idx) + 0.5f) * inv_per), r = idx - p * per, len = tail ? kb - p : p + 1;
    int s = p, u;
    if (r < len) {
      u = (tail ? p : 0) + r;
    } else {
      s = kb - 1 - p;
      if (s == p) continue;  // odd kb: the middle run has no partner
      u = (tail ? s : 0) + (r - len);
    }
    if (runs_rows) f(u, s);
    else f(s, u);
  }
}

/// One thread's substitution through M's image ms (kb rows used, NB unrolled): x overwritten by M⁻¹·x, forward
/// (LOWER) or backward. Each x_i receives its updates in solve order, then its division, as in BLAS's reference.
template <class T, int NB, bool LOWER>
__device__ __forceinline__ void trsm_small_solve(const T* __restrict__ ms, T (&x)[NB], int kb) {
  using V = trsm_vec16<T>;
  constexpr int LM = trsm_small_ld<NB>, W = V::n;
#pragma unroll
  for (int step = 0; step < NB; ++step) {
    const int k = LOWER ? step : NB - 1 - step;
    if (k < kb) {  // uniform: the padding rows are never needed
      x[k] = x[k] / ms[k * LM + k];
      const typename V::type* col = reinterpret_cast<const typename V::type*>(ms + k * LM);
#pragma unroll
      for (int q = 0; q < NB / W; ++q) {  // constant trip counts, so that every index is known after unrolling
        if (LOWER ? q * W + W - 1 > k : q * W < k) {  // the vector holds a row after k in solve order
          const typename V::type v = col[q];
#pragma unroll
          for (int e = 0; e < W; ++e)
            if (LOWER ? q * W + e > k : q * W + e < k) x[q * W + e] -= V::get(v, e) * x[k];
        }
      }
    }
  }
}

/// Whether a block may move its columns of C as 16-byte vectors: contiguous rows, every column 16-byte aligned, kb
/// whole vectors.
template <class T>
__device__ __forceinline__ bool trsm_columns_vector(const T* bc, std::int64_t b_r, std::int64_t b_c, int kb) {
  constexpr int W = trsm_vec16<T>::n;
  return b_r == 1 && b_c % W == 0 && kb % W == 0 && reinterpret_cast<std::uintptr_t>(bc) % 16 == 0;
}

/// See the file comment. NB ∈ {16, 32, 64} (the launch picks the smallest ≥ kb); LOWER: M lower (forward); blockDim.x
/// ∈ {32, 64, 128}, columns resident = min(nn, blockDim.x).
template <class T, int NB, bool LOWER>
__global__ void __launch_bounds__(128) trsm_batched_small_kernel(trsm_batched_args<T> g) {
  static_assert(NB % 16 == 0 && NB <= 64, "trsm_batched_small_kernel: NB a multiple of 16, at most 64");
  using V = trsm_vec16<T>;
  using vec = typename V::type;
  constexpr int LM = trsm_small_ld<NB>, W = V::n, CH = NB / W;  // CH: vectors a column
  extern __shared__ __align__(16) unsigned char trsm_batched_smem[];
  T* ms = reinterpret_cast<T*>(trsm_batched_smem);  // (NB, LM): ms[k·LM + i] = M(i, k)
  T* xs = ms + NB * LM;                              // (cols, LM): xs[c·LM + i] = C(i, col0 + c)
  const int t = threadIdx.x, kb = g.kb, nt = blockDim.x;
  const bool unit = g.unit;
  for (std::int64_t z = blockIdx.x; z < g.count; z += gridDim.x) {
    const T* a = (g.a_array ? g.a_array[z] : g.a + z * g.stride_a) + g.a_off;
    T* b = (g.b_array ? g.b_array[z] : g.b + z * g.stride_b) + g.b_off;
    if (z != blockIdx.x) __syncthreads();  // every thread is done with the last batch's image
    trsm_triangle_for_each(kb, g.a_r == 1, (g.a_r == 1) == LOWER, [&](int i, int j) {
      if (i != j || !unit) trsm_copy_async(ms + j * LM + i, a + i * g.a_r + j * g.a_c);
    });
    if (unit)
      for (int k = t; k < kb; k += nt) ms[k * LM + k] = T(1);
    for (std::int64_t col0 = 0; col0 < g.nn; col0 += nt) {
      const int cols = int(g.nn - col0 < nt ? g.nn - col0 : nt);
      T* bc = b + col0 * g.b_c;
      const bool vectors = trsm_columns_vector(bc, g.b_r, g.b_c, kb);
      if (col0 != 0) __syncthreads();  // the last group's columns are written out
      if (vectors) {
        for (int idx = t; idx < cols * CH; idx += nt) {
          const int c = idx / CH, q = idx % CH;
          if (q * W < kb) trsm_copy_async16(xs + c * LM + q * W, bc + q * W + c * g.b_c);
        }
      } else {
        trsm_view_for_each(kb, cols, g.b_r == 1, [&](int i, int c) {
          trsm_copy_async(xs + c * LM + i, bc + i * g.b_r + c * g.b_c);
        });
      }
      trsm_copy_wait();
      __syncthreads();
      if (t < cols) {
        T x[NB];
        vec* mine = reinterpret_cast<vec*>(xs + t * LM);
#pragma unroll
        for (int q = 0; q < CH; ++q) {
          const vec v = mine[q];
#pragma unroll
          for (int e = 0; e < W; ++e) x[q * W + e] = g.alpha * V::get(v, e);
        }
        trsm_small_solve<T, NB, LOWER>(ms, x, kb);
#pragma unroll
        for (int q = 0; q < CH; ++q) mine[q] = V::make(x + q * W);
      }
      __syncthreads();
      if (vectors) {
        for (int idx = t; idx < cols * CH; idx += nt) {
          const int c = idx / CH, q = idx % CH;
          if (q * W < kb)
            *reinterpret_cast<vec*>(bc + q * W + c * g.b_c) = *reinterpret_cast<const vec*>(xs + c * LM + q * W);
        }
      } else {
        trsm_view_for_each(kb, cols, g.b_r == 1, [&](int i, int c) { bc[i * g.b_r + c * g.b_c] = xs[c * LM + i]; });
      }
    }
  }
}

/// The operands of one batched gemm update of a large triangle, for the pointer-array form: m_out[z] = A[z] + m_off
/// (a block of M), y_out[z] = B[z] + y_off (solved rows), c_out[z] = B[z] + c_off (rows to update).
template <class T>
__global__ void trsm_offset_arrays_kernel(const T* const* a_array, T* const* b_array, std::int64_t count,
                                          std::int64_t m_off, std::int64_t y_off, std::int64_t c_off,
                                          const T** m_out, const T** y_out, T** c_out) {
  for (std::int64_t z = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; z < count;
       z += std::int64_t(gridDim.x) * blockDim.x) {
    m_out[z] = a_array[z] + m_off;
    y_out[z] = b_array[z] + y_off;
    c_out[z] = b_array[z] + c_off;
  }
}

}  // namespace cuprim::detail
