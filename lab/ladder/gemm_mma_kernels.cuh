// lab/ladder/gemm_mma_kernels.cuh: the GEMM ladder's rung 5, the pre-Hopper tensor-core GEMM: warp-level
// mma.sync.m16n8k16 on bf16 operands with fp32 accumulators, operands staged through shared memory by cp.async
// (three stages in flight), fragments read with ldmatrix from an XOR-swizzled layout free of bank conflicts.
// Column-major NN as the other rungs: A m × k, B k × n (bf16), C m × n (float), C = alpha · A · B + beta · C.
//
// The block: 256 threads (8 warps) compute a 128 × 128 tile of C, k in steps of 32. The warps are 2 × 4 over the
// tile, each owning a 64 × 32 warp tile = 4 × 4 fragments of m16n8 (64 fp32 accumulators per thread). Per k16 step
// a warp issues 4 ldmatrix.x4.trans (A: four m16k16 fragments), 2 ldmatrix.x4 (B: four k16n8 fragments) and 16
// mma.sync: 16 tensor-core instructions per 6 shared-memory load instructions, against rung 4's 64 FMAs per 4.
//
// Layouts. mma.sync .row.col wants A as m16 × k16 with each thread's pair of values adjacent in k, B as k16 × n8
// with its pair adjacent in k too. B is column-major (k runs fastest within a column): its tile sits in shared
// memory as 128 rows of n × 32 k, and a plain ldmatrix hands every thread its k-pair. A is column-major (m runs
// fastest): its tile sits as 32 rows of k × 128 m, and ldmatrix.trans transposes each 8 × 8 block on the way to the
// registers so that the thread again holds a k-pair. Both layouts keep global memory's order, so every cp.async is
// a 16-byte chunk of one column of A or B.
//
// Bank conflicts. ldmatrix serves each 8 × 8 matrix (eight 16-byte rows, one per lane of a quarter-warp) in one
// shared-memory wavefront when the eight rows lie in distinct 16-byte bank groups (128 bytes = 8 groups).
//   A (256-byte rows of k): the 16-byte chunk c of row kk is stored at chunk c ^ (kk & 7). An 8 × 8 matrix is eight
//     consecutive kk at one c: eight distinct groups. The cp.async stores of eight consecutive chunks of one row are
//     a permutation of one 128-byte line: also conflict-free.
//   B (64-byte rows of n, 4 chunks each): chunk kc of row nn is stored at kc ^ ((nn >> 1) & 3). Eight consecutive
//     rows nn at one kc then land in groups 4·(nn & 1) + (kc ^ ((nn >> 1) & 3)), eight distinct values.
// No padding, so the three stages take exactly 48 KiB of static shared memory.
//
// Pipeline (per block, one barrier per k step): tiles 0 and 1 are requested before the loop; at step t the thread
// waits for its own copies of tile t (cp.async.wait_group 1: only tile t + 1 may still be in flight), the barrier
// makes everyone's copies visible and proves step t - 1's reads are over, then tile t + 2 is requested into the
// stage step t - 1 used, and the warps compute on tile t while tiles t + 1 and t + 2 arrive.
//
// Edges. Any m, n, k and leading dimension. Where A and B are 16-byte aligned and lda, ldb are multiples of 8, every
// operand chunk is one 16-byte cp.async whose source size is cut at the matrix's edge (the rest of the chunk is
// filled with zeros by the copy itself); otherwise a chunk is gathered element by element through registers into the
// same shared layout (correct, slower; the pipeline's structure is unchanged). Zeros outside the matrices add
// nothing to the sums; C is written only inside the matrix, and never read when beta is 0.
//
// Tile order. Consecutive blocks walk down groups of 8 tiles of rows before moving to the next column of tiles, so
// the blocks resident together share their A and B panels in L2.
//
// Accuracy: the products of bf16 values are exact in fp32; each mma adds a k16 block of them to the accumulator in
// fp32 (the tensor core may round the block's partial sums once more than sequential fused multiply-adds would), so
// |error| ≤ 2·k·2^-24·Σ|a·b| to first order, the same sum order on every run.
#pragma once

#include "common.cuh"

#include <cuda_bf16.h>

#include <cstdint>

namespace cuprim::ladder::detail {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define CUPRIM_LADDER_HAS_MMA 1
#endif

/// What a rung-5 launch needs.
struct gemm_mma_args {
  const __nv_bfloat16* a;
  const __nv_bfloat16* b;
  float* c;
  std::int64_t m, n, k, lda, ldb, ldc;
  float alpha, beta;
  bool vec;  // A and B 16-byte aligned, lda and ldb multiples of 8: each operand chunk is one 16-byte cp.async
};

/// Rung 5's shape: a 128 × 128 tile of C per block, k steps of 32, 3 stages; 8 warps as 2 (rows) × 4 (columns),
/// each with a 64 × 32 warp tile; tiles visited in groups of 8 tiles of rows.
inline constexpr int mma_bm = 128, mma_bn = 128, mma_bk = 32, mma_stages = 3, mma_warps_m = 2, mma_warps_n = 4,
                     mma_threads = 32 * mma_warps_m * mma_warps_n, mma_wm = mma_bm / mma_warps_m,
                     mma_wn = mma_bn / mma_warps_n, mma_group = 8;
static_assert(mma_wm == 64 && mma_wn == 32 && mma_threads == 256, "the fragment loops below assume this shape");

/// One stage: A's tile as 32 rows of k × 128 values of m, B's as 128 rows of n × 32 values of k (bf16 bits).
struct mma_stage {
  std::uint16_t a[mma_bk * mma_bm];
  std::uint16_t b[mma_bn * mma_bk];
};

/// Element offsets of a 16-byte chunk in a stage: chunk c (8 values of m) of row kk of A; chunk kc (8 values of k)
/// of row nn of B (see the file comment for the XOR swizzles).
__device__ __forceinline__ int mma_a_chunk(int kk, int c) { return kk * mma_bm + ((c ^ (kk & 7)) << 3); }
__device__ __forceinline__ int mma_b_chunk(int nn, int kc) { return nn * mma_bk + ((kc ^ ((nn >> 1) & 3)) << 3); }

/// 16 bytes global -> shared, asynchronously; `bytes` (0 to 16) are read from src, the rest of dst is zero-filled.
__device__ __forceinline__ void cp_async16(void* dst, const void* src, int bytes) {
#ifdef CUPRIM_LADDER_HAS_MMA
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(__cvta_generic_to_global(src)), "r"(bytes)
               : "memory");
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#ifdef CUPRIM_LADDER_HAS_MMA
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
/// Waits until at most `Pending` of this thread's committed groups are still in flight.
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
#ifdef CUPRIM_LADDER_HAS_MMA
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
#endif
}

/// Four 8 × 8 matrices of 16-bit values from shared memory; lane l gives the address of row l % 8 of matrix l / 8.
/// Plain: register i of lane t holds row t / 4, columns 2·(t % 4) and + 1 of matrix i (the lower column in the low
/// half). .trans: the same of the transposed matrix (rows 2·(t % 4) and + 1 of column t / 4).
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* p) {
#ifdef CUPRIM_LADDER_HAS_MMA
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(p))));
#endif
}
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* p) {
#ifdef CUPRIM_LADDER_HAS_MMA
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(p))));
#endif
}

/// d += a · b on one m16n8k16 fragment: a 16 × 16 bf16 (row: 4 registers), b 16 × 8 bf16 (col: 2 registers), d
/// 16 × 8 fp32 (lane t: rows t / 4 and + 8, columns 2·(t % 4) and + 1).
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                               std::uint32_t b1) {
#ifdef CUPRIM_LADDER_HAS_MMA
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

/// One 16-byte chunk of an operand into shared memory: `valid` (0 to 8) consecutive values from src, zeros after.
/// `base`: a valid address of the operand, read from (for nothing) when no value is valid.
__device__ __forceinline__ void mma_chunk(std::uint16_t* dst, const __nv_bfloat16* src, const __nv_bfloat16* base,
                                          int valid, bool vec) {
  if (vec) {
    cp_async16(dst, valid > 0 ? src : base, 2 * valid);
  } else {
    const auto* s = reinterpret_cast<const std::uint16_t*>(src);
    std::uint32_t w[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const std::uint32_t lo = 2 * e < valid ? s[2 * e] : 0u, hi = 2 * e + 1 < valid ? s[2 * e + 1] : 0u;
      w[e] = lo | (hi << 16);
    }
    *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

/// A thread's share of the block's copies: two chunks of A's tile (of 32 rows of k × 16 chunks of m) and two of B's
/// (of 128 columns × 4 chunks of k) per k step; consecutive threads take consecutive chunks of a column, so a warp
/// reads whole 16-byte runs of global memory. The source pointers advance one k step per call, so the loop does no
/// 64-bit index arithmetic beyond one addition per chunk.
struct mma_loader {
  const __nv_bfloat16* a[2];  // A(i, p): row i = row0 + 8·c, p = the chunk's k
  const __nv_bfloat16* b[2];  // B(p .. p + 7, j): column j = col0 + nn
  std::int64_t a_step;        // 32·lda
  int a_rows[2];              // A's values of the chunk inside the matrix (0 to 8, by m alone)
  int a_k[2], b_k[2];         // the chunk's k offset inside the tile: kk for A, 8·kc for B
  bool b_in[2];               // the column is inside the matrix
  int a_dst[2], b_dst[2];     // element offsets in a stage

  __device__ __forceinline__ mma_loader(const gemm_mma_args& g, std::int64_t row0, std::int64_t col0, int tid) {
    a_step = std::int64_t(mma_bk) * g.lda;
#pragma unroll
    for (int t = 0; t < 2; ++t) {
      const int id = tid + t * mma_threads;
      const int kk = id >> 4, c = id & 15, nn = id >> 2, kc = id & 3;
      const std::int64_t i = row0 + 8 * c, j = col0 + nn, left = g.m - i;
      a_rows[t] = left <= 0 ? 0 : left >= 8 ? 8 : int(left);
      b_in[t] = j < g.n;
      a_k[t] = kk;
      b_k[t] = 8 * kc;
      a[t] = a_rows[t] > 0 && kk < g.k ? g.a + i + kk * g.lda : g.a;
      b[t] = b_in[t] ? g.b + 8 * kc + j * g.ldb : g.b;
      a_dst[t] = mma_a_chunk(kk, c);
      b_dst[t] = mma_b_chunk(nn, kc);
    }
  }

  /// The copies of the k step at k0 into stage s (k0: the next step after the previous call's).
  __device__ __forceinline__ void load(const gemm_mma_args& g, mma_stage& s, std::int64_t k0) {
#pragma unroll
    for (int t = 0; t < 2; ++t) {
      const int av = k0 + a_k[t] < g.k ? a_rows[t] : 0;
      mma_chunk(s.a + a_dst[t], av > 0 ? a[t] : g.a, g.a, av, g.vec);
      const std::int64_t left = b_in[t] ? g.k - (k0 + b_k[t]) : 0;
      const int bv = left <= 0 ? 0 : left >= 8 ? 8 : int(left);
      mma_chunk(s.b + b_dst[t], bv > 0 ? b[t] : g.b, g.b, bv, g.vec);
      a[t] += a_step;
      b[t] += mma_bk;
    }
  }
};

/// C(i, j) = alpha · sum + beta · C(i, j) inside the matrix, C unread when beta is 0.
__device__ __forceinline__ void mma_store(const gemm_mma_args& g, std::int64_t i, std::int64_t j, float sum) {
  if (i >= g.m || j >= g.n) return;
  float* c = g.c + i + j * g.ldc;
  *c = g.beta == 0.f ? g.alpha * sum : g.alpha * sum + g.beta * *c;
}

/// 5. The tensor-core GEMM (see the file comment). Grid: (tiles of rows, tiles of columns), remapped to groups.
__global__ void __launch_bounds__(mma_threads, 2) gemm_mma(gemm_mma_args g) {
#ifdef CUPRIM_LADDER_HAS_MMA
  __shared__ alignas(128) mma_stage stage[mma_stages];
  // Tile order: groups of mma_group tiles of rows, column-of-tiles by column-of-tiles within a group.
  const std::uint64_t tiles_m = gridDim.x, tiles_n = gridDim.y;
  const std::uint64_t id = blockIdx.x + std::uint64_t(blockIdx.y) * tiles_m, per_group = mma_group * tiles_n;
  const std::uint64_t first = id / per_group * mma_group, in_group = id % per_group;
  const std::uint64_t rows = tiles_m - first < std::uint64_t(mma_group) ? tiles_m - first : mma_group;
  const std::int64_t row0 = std::int64_t(first + in_group % rows) * mma_bm;
  const std::int64_t col0 = std::int64_t(in_group / rows) * mma_bn;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = (warp % mma_warps_m) * mma_wm, wn = (warp / mma_warps_m) * mma_wn;
  // ldmatrix row addresses: lane l gives row r = l % 8 of matrix q = l / 8.
  //   A (.trans), fragment mi: matrix q covers m wm + 16·mi + 8·(q & 1) .. + 7 at k 16·ks + 8·(q >> 1) + r: the
  //     registers come out as a0a1 (m 0-7, k 0-7), a2a3 (m 8-15, k 0-7), a4a5 (m 0-7, k 8-15), a6a7 (m 8-15, k 8-15).
  //   B, fragments 2·nj and 2·nj + 1: matrix q covers n wn + 16·nj + 8·(q >> 1) + r at k 16·ks + 8·(q & 1) .. + 7:
  //     registers b0b1, b2b3 of fragment 2·nj, then of fragment 2·nj + 1.
  const int q = lane >> 3, r = lane & 7;
  int a_off[2][4], b_off[2][2];
#pragma unroll
  for (int ks = 0; ks < 2; ++ks) {
#pragma unroll
    for (int mi = 0; mi < 4; ++mi) a_off[ks][mi] = mma_a_chunk(16 * ks + 8 * (q >> 1) + r, (wm + 16 * mi) / 8 + (q & 1));
#pragma unroll
    for (int nj = 0; nj < 2; ++nj) b_off[ks][nj] = mma_b_chunk(wn + 16 * nj + 8 * (q >> 1) + r, 2 * ks + (q & 1));
  }

  float acc[4][4][4] = {};  // [fragment of rows mi][fragment of columns ni][the m16n8 fragment's four values]
  const std::int64_t steps = (g.k + mma_bk - 1) / mma_bk;
  mma_loader loader(g, row0, col0, tid);
#pragma unroll
  for (int s = 0; s < mma_stages - 1; ++s) {
    if (s < steps) loader.load(g, stage[s], std::int64_t(s) * mma_bk);
    cp_async_commit();
  }
  int read = 0, write = mma_stages - 1;  // the stage computed on this step, the stage loaded on this step
  for (std::int64_t t = 0; t < steps; ++t) {
    cp_async_wait<mma_stages - 2>();  // this thread's copies of tile t have landed
    __syncthreads();                  // everyone's have; and everyone is done reading the stage `write` held
    if (t + mma_stages - 1 < steps) loader.load(g, stage[write], (t + mma_stages - 1) * mma_bk);
    cp_async_commit();  // (an empty group past the last tile keeps the count of groups per step at one)
    const mma_stage& s = stage[read];
#pragma unroll
    for (int ks = 0; ks < 2; ++ks) {
      std::uint32_t af[4][4], bf[2][4];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) ldmatrix_x4_trans(af[mi], s.a + a_off[ks][mi]);
#pragma unroll
      for (int nj = 0; nj < 2; ++nj) ldmatrix_x4(bf[nj], s.b + b_off[ks][nj]);
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni)
          mma_bf16_16816(acc[mi][ni], af[mi], bf[ni >> 1][2 * (ni & 1)], bf[ni >> 1][2 * (ni & 1) + 1]);
    }
    read = read == mma_stages - 1 ? 0 : read + 1;
    write = write == mma_stages - 1 ? 0 : write + 1;
  }
  cp_async_wait<0>();  // (only empty groups can remain; nothing may be in flight when the block exits)

  // Epilogue: lane t holds rows g4 and g4 + 8, columns 2·c4 and + 1 of each fragment.
  const int g4 = lane >> 2, c4 = lane & 3;
#pragma unroll
  for (int mi = 0; mi < 4; ++mi) {
#pragma unroll
    for (int ni = 0; ni < 4; ++ni) {
      const std::int64_t i = row0 + wm + 16 * mi + g4, j = col0 + wn + 8 * ni + 2 * c4;
      mma_store(g, i, j, acc[mi][ni][0]);
      mma_store(g, i, j + 1, acc[mi][ni][1]);
      mma_store(g, i + 8, j, acc[mi][ni][2]);
      mma_store(g, i + 8, j + 1, acc[mi][ni][3]);
    }
  }
#else
  __trap();  // built for a device without bf16 mma.sync / cp.async: the host refuses such devices first
#endif
}

}  // namespace cuprim::ladder::detail
