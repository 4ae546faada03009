// cuprim/blas/detail/gemm_tf32_pack_kernel.cuh: the tf32 math modes' operand packing (device code).
//
// wgmma reads 32-bit operands K-major only, so the float gemm on tensor cores (blas::math::tf32, tf32x3) first copies
// an MN-major operand (op(A) = A, op(B) = Bᵀ) into a K-major temporary, and tf32x3 splits every element of both
// operands into two tf32 parts there:
//   hi = x rounded to tf32 (nearest, ties to even: 10 mantissa bits)   |x - hi| ≤ 2^-11 |x|
//   lo = (x - hi) rounded to tf32                                       exact difference, |x - hi - lo| ≤ 2^-22 |x|
// so that a·b = ah·bh + ah·bl + al·bh up to about 3·2^-22 |a·b| (the dropped al·bl and the two roundings of the low
// parts). Inf and NaN keep their value in hi (lo = 0); a finite x whose rounding would overflow is truncated instead.
#pragma once

#include <cstdint>

namespace cuprim::detail {

/// x rounded to tf32 (the low 13 bits of the float cleared), to nearest, ties to even; finite x that would round to
/// infinity is truncated; Inf and NaN unchanged.
__device__ __forceinline__ float tf32_round(float x) {
  const std::uint32_t u = __float_as_uint(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return x;
  const std::uint32_t r = (u + 0xfffu + ((u >> 13) & 1u)) & ~0x1fffu;
  return (r & 0x7f800000u) == 0x7f800000u ? __uint_as_float(u & ~0x1fffu) : __uint_as_float(r);
}

/// Packs one operand of the tf32 kernel: the rows × k matrix X (op(A): m rows; op(B)ᵀ: n rows) whose element (r, kk)
/// is src[mn_major ? r + kk·ld : kk + r·ld] goes to dst[kk + r·ld_p] (K-major); Parts = 2 writes x's high tf32 part
/// there and its low part at dst[kk + (rows + r)·ld_p] (gemm_tf32x3), Parts = 1 the float as it is (gemm_tf32).
/// 32 × 32 tiles through shared memory (reads and writes coalesced whichever the source's major order), a grid-stride
/// walk over the tiles, blocks of 32 × 8 threads.
template <int Parts>
__global__ void __launch_bounds__(256) gemm_tf32_pack_kernel(const float* __restrict__ src, std::int64_t ld,
                                                             bool mn_major, std::int64_t rows, std::int64_t k,
                                                             float* __restrict__ dst, std::int64_t ld_p) {
  __shared__ float tile[32][33];  // [k][row], padded: both walks are conflict-free
  const int x = threadIdx.x, y = threadIdx.y;
  const std::int64_t tiles_k = (k + 31) / 32, tiles = tiles_k * ((rows + 31) / 32);
  for (std::int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::int64_t k0 = (t % tiles_k) * 32, r0 = (t / tiles_k) * 32;
#pragma unroll
    for (int i = y; i < 32; i += 8) {
      if (mn_major) {  // a warp reads 32 consecutive rows of one k
        const std::int64_t r = r0 + x, kk = k0 + i;
        if (r < rows && kk < k) tile[i][x] = src[r + kk * ld];
      } else {  // a warp reads 32 consecutive k of one row
        const std::int64_t r = r0 + i, kk = k0 + x;
        if (r < rows && kk < k) tile[x][i] = src[kk + r * ld];
      }
    }
    __syncthreads();
#pragma unroll
    for (int i = y; i < 32; i += 8) {
      const std::int64_t r = r0 + i, kk = k0 + x;
      if (r < rows && kk < k) {
        const float v = tile[x][i];
        if constexpr (Parts == 2) {
          const float hi = tf32_round(v);
          const bool finite = (__float_as_uint(v) & 0x7f800000u) != 0x7f800000u;
          dst[kk + r * ld_p] = hi;
          dst[kk + (rows + r) * ld_p] = finite ? tf32_round(v - hi) : 0.f;
        } else {
          dst[kk + r * ld_p] = v;
        }
      }
    }
    __syncthreads();
  }
}

}  // namespace cuprim::detail
