// cuprim/blas/detail/trsm_batched_kernel.cuh: the small-triangle kernel of cuprim::blas::trsm_batched and
// trsm_strided_batched (a block per batch, the whole triangle in shared memory, a thread per right-hand side), and the
// kernel that offsets pointer arrays for the batched gemm updates of larger triangles.
//
// The problem is trsm's (blas/detail/trsm_kernel.cuh): every side, triangle and transpose becomes M·Y = alpha·C on
// strided views, element (i, j) of a view at p[i·r + j·c] with one of r and c being 1, M of order kb lower (forward
// substitution) or upper (backward), C kb × nn. Here kb ≤ NB ≤ 64 and there are `count` such problems.
//
// trsm_batched_small_kernel<T, NB>, a block of 32, 64 or 128 threads per batch (looping over batches past the grid):
//   1. M's stored triangle (and its diagonal unless unit; ones for unit) goes to shared memory by cp.async, in the
//      "solve order": row and column i of M become i' = i (lower) or kb − 1 − i (upper), so the image is always lower
//      and solved forward; column k' of the image is contiguous (ms[k'·LM + i'], LM = NB + 4).
//   2. the block's columns of C (one per thread, up to blockDim.x at a time; more columns loop) go to shared memory
//      by cp.async the same way (xs[c·LM + i']), then each thread takes its column into registers, times alpha.
//   3. each thread substitutes forward, entirely unrolled (NB compile-time, x[NB] in registers): x_k /= m_kk (one
//      true division, the same arithmetic as BLAS's reference; ones on a unit diagonal), then x_i −= m_ik·x_k for
//      i > k, m_ik read from shared memory as 16-byte vectors broadcast to every thread (4 float or 2 double
//      multiply-adds per read). Rows kb .. NB − 1 of the registers are padding: they hold whatever the shared memory
//      held, are updated by garbage and never written back; the real rows come first and never depend on them.
//   4. the columns go back to shared memory, then to B the way they came (coalesced).
// Loads and stores follow the contiguous dimension of each view: a warp reads 32 consecutive elements of a column
// when the rows are contiguous (left side; op N for M), else a 4 × 8 tile (8 consecutive elements on each of 4
// lines: 32-byte sectors for float) whose shared-memory image hits 32 distinct banks (LM ≡ 4 mod 32).
//
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
  bool lower;                  ///< M lower (forward) or upper (backward)
  bool unit;                   ///< M's diagonal taken as ones, never read
};

/// The image's leading dimension: NB + 4 (a multiple of 4 elements, so columns start on 16 bytes; ≡ 4 mod 32).
template <int NB>
inline constexpr int trsm_small_ld = NB + 4;

/// Dynamic shared memory of trsm_batched_small_kernel<T, NB> with `cols` columns of C resident: M's image and C's.
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

__device__ __forceinline__ void trsm_copy_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/// Calls f(i, c) once for each element of a rows × cols view (rows ≤ 64), spread over the block's threads: when
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

/// One thread's forward substitution through the lower image ms (kb rows used, NB unrolled): x overwritten by
/// M⁻¹·x. Each x_i receives its updates in increasing k, then its division, as in BLAS's reference.
template <class T, int NB>
__device__ __forceinline__ void trsm_small_solve(const T* __restrict__ ms, T (&x)[NB], int kb) {
  using V = trsm_vec16<T>;
  constexpr int LM = trsm_small_ld<NB>, W = V::n;
#pragma unroll
  for (int k = 0; k < NB; ++k) {
    if (k < kb) {  // uniform: the padding rows are never needed
      x[k] = x[k] / ms[k * LM + k];
      const typename V::type* col = reinterpret_cast<const typename V::type*>(ms + k * LM);
#pragma unroll
      for (int q = (k + 1) / W; q < NB / W; ++q) {
        const typename V::type v = col[q];
#pragma unroll
        for (int e = 0; e < W; ++e)
          if (q * W + e > k) x[q * W + e] -= V::get(v, e) * x[k];
      }
    }
  }
}

/// See the file comment. NB ∈ {16, 32, 64} (the launch picks the smallest ≥ kb); blockDim.x ∈ {32, 64, 128}, columns resident = min(nn, blockDim.x).
template <class T, int NB>
__global__ void __launch_bounds__(128) trsm_batched_small_kernel(trsm_batched_args<T> g) {
  static_assert(NB % 16 == 0 && NB <= 64, "trsm_batched_small_kernel: NB a multiple of 16, at most 64");
  using V = trsm_vec16<T>;
  constexpr int LM = trsm_small_ld<NB>, W = V::n;
  extern __shared__ __align__(16) unsigned char trsm_batched_smem[];
  T* ms = reinterpret_cast<T*>(trsm_batched_smem);  // (NB, LM): ms[k'·LM + i'] = M(i, k) in solve order
  T* xs = ms + NB * LM;                              // (cols, LM): xs[c·LM + i'] = C(i, col0 + c)
  const int t = threadIdx.x, kb = g.kb, nt = blockDim.x;
  const bool lower = g.lower, unit = g.unit;
  const auto so = [kb, lower](int i) { return lower ? i : kb - 1 - i; };  // a row's place in solve order
  for (std::int64_t z = blockIdx.x; z < g.count; z += gridDim.x) {
    const T* a = (g.a_array ? g.a_array[z] : g.a + z * g.stride_a) + g.a_off;
    T* b = (g.b_array ? g.b_array[z] : g.b + z * g.stride_b) + g.b_off;
    if (z != blockIdx.x) __syncthreads();  // every thread is done with the last batch's image
    trsm_view_for_each(kb, kb, g.a_r == 1, [&](int i, int j) {
      if ((lower ? j < i : j > i) || (j == i && !unit))
        trsm_copy_async(ms + so(j) * LM + so(i), a + i * g.a_r + j * g.a_c);
    });
    if (unit)
      for (int k = t; k < kb; k += nt) ms[k * LM + k] = T(1);
    for (std::int64_t col0 = 0; col0 < g.nn; col0 += nt) {
      const int cols = int(g.nn - col0 < nt ? g.nn - col0 : nt);
      T* bc = b + col0 * g.b_c;
      if (col0 != 0) __syncthreads();  // the last group's columns are written out
      trsm_view_for_each(kb, cols, g.b_r == 1, [&](int i, int c) {
        trsm_copy_async(xs + c * LM + so(i), bc + i * g.b_r + c * g.b_c);
      });
      trsm_copy_wait();
      __syncthreads();
      if (t < cols) {
        T x[NB];
        typename V::type* mine = reinterpret_cast<typename V::type*>(xs + t * LM);
#pragma unroll
        for (int q = 0; q < NB / W; ++q) {
          const typename V::type v = mine[q];
#pragma unroll
          for (int e = 0; e < W; ++e) x[q * W + e] = g.alpha * V::get(v, e);
        }
        trsm_small_solve<T, NB>(ms, x, kb);
#pragma unroll
        for (int q = 0; q < NB / W; ++q) mine[q] = V::make(x + q * W);
      }
      __syncthreads();
      trsm_view_for_each(kb, cols, g.b_r == 1, [&](int i, int c) { bc[i * g.b_r + c * g.b_c] = xs[c * LM + so(i)]; });
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
