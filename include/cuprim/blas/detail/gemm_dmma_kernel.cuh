// cuprim/blas/detail/gemm_dmma_kernel.cuh: the FP64 tensor-core GEMM (sm_90: mma.sync f64 fed by TMA).
//
// C = alpha · op(A) · op(B) + beta · C for double on Hopper's FP64 tensor cores (DMMA). Hopper has no wgmma for f64;
// the warp-level mma.sync.m16n8k8.f64 (sm_90) drives the same units. Per block (P: a gemm_dmma_policy; BM, BN, BK =
// tile_m, tile_n, tile_k):
//   sA    op(A) tile     BM × BK   doubles per stage, Stages deep (TMA boxes, 128-byte swizzled rows)
//   sB    op(B) tile     BK × BN   doubles per stage, next to sA
//   acc   C warp tile    64 × 32   per consumer warp: 4 × 4 m16n8 fragments of 4 doubles (64 per thread)
//   a, b  fragments      per k8 step: 4 m16k8 of op(A) (4 doubles a thread), 4 k8n8 of op(B) (2 doubles)
// The tiles keep the operands' storage order (TMA copies boxes; it does not transpose):
//   MN-major  (op_a = N, op_b = T): boxes of 16 m (or n) × BK k: BK rows of 128 bytes, one box per 16 m (n)
//   K-major   (op_a = T, op_b = N): boxes of 16 k × BM (or BN) m (n): one 128-byte row per m (n), a box per 16 k
// in TMA's 128-byte swizzle: the 16-byte unit u of row r (1 KiB-aligned boxes) lies at unit u ^ (r mod 8).
//
// Fragments by 16-byte loads without bank conflicts. The mma's sum over k does not care which k a fragment slot
// holds as long as op(A)'s and op(B)'s agree, and which row or column of C a fragment row or column stands for is
// the epilogue's choice. So lane (g = lane / 4, t = lane % 4), whose slots are k = t and t + 4 in PTX's numbering,
// holds the physical k 2t and 2t + 1 of its k8 step: one 16-byte load fetches both for one row of a K-major tile,
// or one k row of two neighbouring m (n) of an MN-major tile. Fragment rows and columns stand for:
//   MN-major op(A)  rows g, g + 8 of an m16 tile     physical 2g, 2g + 1 (so C's rows pair up: 16-byte stores)
//   MN-major op(B)  column g of n8 tiles 2p, 2p + 1  physical 16p + 2g, 16p + 2g + 1
//   K-major         row (column) g of an 8           physical rho(g) = g / 2 + 4·(g mod 2)
// and in each quarter warp (the lanes one 16-byte shared access serves at once: g in {2i, 2i + 1}, t in 0..3) the
// eight units are distinct after the swizzle: MN-major g ^ (2t + j), K-major (t + 4h) ^ rho(g).
//
// A block is one tile of C (a plain grid, tiles in groups of `group` tiles of rows so that blocks running together
// share operand tiles in L2) and one warp per 64 × 32 of C ((BM / 64)·(BN / 32) warps; no producer warp: a ninth
// warp would put three warps on some SM sub-partition and cap every thread at 168 registers, which spills):
//   issue      thread 0: the first Stages k steps' TMA boxes at the start; then, as the block starts step t, wait
//              until every warp has freed the stage of step t - 2 (empty[s]), announce its bytes (full[s]) and
//              issue step t + Stages - 2's boxes into it; K, M and N edges arrive as zeros
//   mainloop   every warp, each k step: wait for the stage (full[s]); per k8 step load the fragments and issue 16
//              mma.m16n8k8; free the stage (empty[s], one arrival per warp)
//   epilogue   C = alpha · acc + beta · C (C unread when beta = 0), bounds-checked, pairs of rows by one 16-byte
//              store where op(A) is MN-major and C 16-byte aligned with an even ldc
// Each element of C is the same sequence of mma steps from run to run: the same bits every call.
//
// Requirements (checked on the host by gemm_dmma_eligible): A and B 16-byte aligned, lda and ldb even (TMA's
// 16-byte strides) and below 2^36, m, n, k below 2^31 - 512, at most 2^31 - 1 tiles, an sm_90 device, and this
// kernel built for sm_90 or later (gemm_dmma_built).
#pragma once

#include <cuprim/blas/detail/gemm_tuning.cuh>
#include <cuprim/device/detail/async_copy.cuh>

#include <cuda.h>

#include <cstdint>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define CUPRIM_HAS_DMMA 1
#endif

namespace cuprim::detail {

/// What the FP64 tensor-core kernel needs besides its two tensor maps (C column-major, ldc ≥ m).
struct gemm_dmma_args {
  double* c;
  std::int64_t m, n, k, ldc;
  double alpha, beta;
  bool vec_c;  // C 16-byte aligned with an even ldc: rows (2i, 2i + 1) of a column are one aligned access
};

/// The physical row (column) of fragment row (column) g of an 8 in a K-major tile.
__host__ __device__ constexpr int gemm_dmma_rho(int g) { return (g >> 1) | ((g & 1) << 2); }

/// The block's tile of C: tile `index` of a walk in groups of Group tiles of rows, rows fastest within a group.
struct gemm_dmma_tile {
  int tile_m, tile_n;
};
template <int Group>
__device__ __forceinline__ gemm_dmma_tile gemm_dmma_tile_at(int index, int tiles_m, int tiles_n) {
  const int per_group = Group * tiles_n, group = index / per_group, in_group = index % per_group;
  const int first_m = group * Group, group_m = ::min(tiles_m - first_m, Group);
  return {first_m + in_group % group_m, in_group / group_m};
}

#ifdef CUPRIM_HAS_DMMA
/// d += a · b on the FP64 tensor cores: a 16 × 8 op(A) fragment, an 8 × 8 op(B) fragment, a 16 × 8 accumulator.
/// Volatile, like the fragment loads: the mainloop's order of loads and mmas is the one written (gemm_dmma_stage).
__device__ __forceinline__ void dmma_m16n8k8(double (&d)[4], const double (&a)[4], const double (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}

/// Two doubles from shared memory (16-byte aligned). Volatile: never moved across the stage's barrier waits.
__device__ __forceinline__ void lds_f64x2(unsigned address, double& x, double& y) {
  asm volatile("ld.shared.v2.f64 {%0, %1}, [%2];" : "=d"(x), "=d"(y) : "r"(address));
}
#endif

/// Byte offset of the 16-byte unit holding (mn, k), (mn, k + 1) (K-major; k even) or (mn, k), (mn + 1, k) (MN-major;
/// mn even) in an operand tile of Rows m (n) by BK k.
template <bool KMajor, int Rows, int BK>
__device__ __forceinline__ unsigned gemm_dmma_offset(int mn, int k) {
  if constexpr (KMajor) {
    return unsigned((k / 16) * (Rows * 128) + mn * 128 + ((((k % 16) / 2) ^ (mn % 8)) << 4));
  } else {
    return unsigned((mn / 16) * (BK * 128) + k * 128 + ((((mn % 16) / 2) ^ (k % 8)) << 4));
  }
}

/// op(A)'s fragment of m16 tile i of k8 step q for the warp's 64 rows from row0 (a0..a3 as PTX numbers them).
template <bool KMajor, int BM, int BK>
__device__ __forceinline__ void gemm_dmma_load_a(double (&a)[4], unsigned tile, int row0, int i, int q, int g, int t) {
#ifdef CUPRIM_HAS_DMMA
  if constexpr (KMajor) {  // (row, slot 0 | slot 1) per load: rows g and g + 8
    const int r = row0 + 16 * i + gemm_dmma_rho(g);
    lds_f64x2(tile + gemm_dmma_offset<true, BM, BK>(r, 8 * q + 2 * t), a[0], a[2]);
    lds_f64x2(tile + gemm_dmma_offset<true, BM, BK>(r + 8, 8 * q + 2 * t), a[1], a[3]);
  } else {  // (row g | row g + 8) per load: slots 0 and 1
    const int r = row0 + 16 * i + 2 * g;
    lds_f64x2(tile + gemm_dmma_offset<false, BM, BK>(r, 8 * q + 2 * t), a[0], a[1]);
    lds_f64x2(tile + gemm_dmma_offset<false, BM, BK>(r, 8 * q + 2 * t + 1), a[2], a[3]);
  }
#endif
}

/// op(B)'s fragments of k8 step q for the warp's 32 columns from col0: b[j] is n8 tile j (b0, b1).
template <bool KMajor, int BN, int BK>
__device__ __forceinline__ void gemm_dmma_load_b(double (&b)[4][2], unsigned tile, int col0, int q, int g, int t) {
#ifdef CUPRIM_HAS_DMMA
  if constexpr (KMajor) {  // (slot 0 | slot 1) of column g of tile j
#pragma unroll
    for (int j = 0; j < 4; ++j)
      lds_f64x2(tile + gemm_dmma_offset<true, BN, BK>(col0 + 8 * j + gemm_dmma_rho(g), 8 * q + 2 * t), b[j][0], b[j][1]);
  } else {  // (tile 2p | tile 2p + 1) of one slot per load
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      const int c = col0 + 16 * p + 2 * g;
      lds_f64x2(tile + gemm_dmma_offset<false, BN, BK>(c, 8 * q + 2 * t), b[2 * p][0], b[2 * p + 1][0]);
      lds_f64x2(tile + gemm_dmma_offset<false, BN, BK>(c, 8 * q + 2 * t + 1), b[2 * p][1], b[2 * p + 1][1]);
    }
  }
#endif
}

/// One stage of the mainloop for a warp: BK / 8 k8 steps of 16 mma.m16n8k8 each over its 64 × 32 accumulators.
/// The order keeps few fragments live (op(B)'s 4 tiles double-buffered, op(A)'s loaded one m16 tile ahead of its
/// mmas) while the loads for what comes next are issued under the mmas in flight.
template <bool AK, bool BKm, int BM, int BN, int BK>
__device__ __forceinline__ void gemm_dmma_stage(double (&acc)[4][4][4], unsigned sa, unsigned sb, int wm, int wn,
                                                int lg, int lt) {
#ifdef CUPRIM_HAS_DMMA
  double a[4][4], b[2][4][2];
  gemm_dmma_load_b<BKm, BN, BK>(b[0], sb, wn, 0, lg, lt);
  gemm_dmma_load_a<AK, BM, BK>(a[0], sa, wm, 0, 0, lg, lt);
  gemm_dmma_load_a<AK, BM, BK>(a[1], sa, wm, 1, 0, lg, lt);
#pragma unroll
  for (int q = 0; q < BK / 8; ++q) {
    const double (&bq)[4][2] = b[q % 2];
    const bool more = q + 1 < BK / 8;
#pragma unroll
    for (int j = 0; j < 4; ++j) dmma_m16n8k8(acc[0][j], a[0], bq[j]);
    gemm_dmma_load_a<AK, BM, BK>(a[2], sa, wm, 2, q, lg, lt);
#pragma unroll
    for (int j = 0; j < 4; ++j) dmma_m16n8k8(acc[1][j], a[1], bq[j]);
    gemm_dmma_load_a<AK, BM, BK>(a[3], sa, wm, 3, q, lg, lt);
    if (more) gemm_dmma_load_b<BKm, BN, BK>(b[(q + 1) % 2], sb, wn, q + 1, lg, lt);
#pragma unroll
    for (int j = 0; j < 4; ++j) dmma_m16n8k8(acc[2][j], a[2], bq[j]);
    if (more) gemm_dmma_load_a<AK, BM, BK>(a[0], sa, wm, 0, q + 1, lg, lt);
#pragma unroll
    for (int j = 0; j < 4; ++j) dmma_m16n8k8(acc[3][j], a[3], bq[j]);
    if (more) gemm_dmma_load_a<AK, BM, BK>(a[1], sa, wm, 1, q + 1, lg, lt);
  }
#endif
}

/// Loads one stage: op(A)'s BM × BK tile at (row0, k0) and op(B)'s BK × BN tile at (k0, col0), as TMA boxes.
template <bool AK, bool BKm, int BM, int BN, int BK>
__device__ __forceinline__ void gemm_dmma_load_stage(unsigned char* sa, unsigned char* sb, const CUtensorMap* map_a,
                                                     const CUtensorMap* map_b, unsigned long long* full, int row0,
                                                     int col0, int k0) {
  if constexpr (AK) {
#pragma unroll
    for (int q = 0; q < BK / 16; ++q) tma_load_2d(sa + q * (BM * 128), map_a, full, k0 + 16 * q, row0);
  } else {
#pragma unroll
    for (int b = 0; b < BM / 16; ++b) tma_load_2d(sa + b * (BK * 128), map_a, full, row0 + 16 * b, k0);
  }
  if constexpr (BKm) {
#pragma unroll
    for (int q = 0; q < BK / 16; ++q) tma_load_2d(sb + q * (BN * 128), map_b, full, k0 + 16 * q, col0);
  } else {
#pragma unroll
    for (int b = 0; b < BN / 16; ++b) tma_load_2d(sb + b * (BK * 128), map_b, full, col0 + 16 * b, k0);
  }
}

/// Writes a consumer warp's 64 × 32 of C from (row0, col0): fragment (i, j)'s d[2h + c] is fragment row g + 8h and
/// column 2t + c, placed by the layouts' row and column maps (file comment).
template <bool AK, bool BKm>
__device__ __forceinline__ void gemm_dmma_epilogue(const gemm_dmma_args& g, const double (&acc)[4][4][4],
                                                   std::int64_t row0, std::int64_t col0, int lg, int lt) {
  const bool read_c = g.beta != 0.0;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const std::int64_t col = col0 + (BKm ? 8 * j + lt + 4 * c : 16 * (j / 2) + 4 * lt + 2 * c + (j % 2));
      if (col >= g.n) continue;
      double* cj = g.c + col * g.ldc;
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const double v0 = g.alpha * acc[i][j][c], v1 = g.alpha * acc[i][j][2 + c];
        const std::int64_t r0 = row0 + 16 * i + (AK ? gemm_dmma_rho(lg) : 2 * lg);
        const std::int64_t r1 = AK ? r0 + 8 : r0 + 1;
        if (!AK && g.vec_c && r1 < g.m) {
          double2 o{v0, v1};
          if (read_c) {
            const double2 old = *reinterpret_cast<const double2*>(cj + r0);
            o.x = v0 + g.beta * old.x;
            o.y = v1 + g.beta * old.y;
          }
          *reinterpret_cast<double2*>(cj + r0) = o;
        } else {
          if (r0 < g.m) cj[r0] = read_c ? v0 + g.beta * cj[r0] : v0;
          if (r1 < g.m) cj[r1] = read_c ? v1 + g.beta * cj[r1] : v1;
        }
      }
    }
  }
}

/// The kernel: one block per tile of C (see the file comment). AK: op_a = T (op(A) K-major); BKm: op_b = N (op(B)
/// K-major). Policy: a policy_constant of a gemm_dmma_policy.
template <class Policy, bool AK, bool BKm>
__global__ void __launch_bounds__(Policy::value.threads(), 1)
    gemm_dmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     gemm_dmma_args g) {
#ifdef CUPRIM_HAS_DMMA
  constexpr blas::gemm_dmma_policy P = Policy::value;
  static_assert(gemm_dmma_policy_valid<P>());
  constexpr int BM = P.tile_m, BN = P.tile_n, BK = P.tile_k, Stages = P.stages, consumers = P.consumers();
  constexpr int a_bytes = BM * BK * 8, stage_bytes = P.stage_bytes();
  extern __shared__ unsigned char smem_raw[];
  // Stages of [sA | sB], 1024-byte aligned (the swizzle's period), then the barriers.
  unsigned char* smem =
      reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  unsigned long long* full = reinterpret_cast<unsigned long long*>(smem + Stages * stage_bytes);
  unsigned long long* empty = full + Stages;

  const int tiles_m = int((g.m + BM - 1) / BM), tiles_n = int((g.n + BN - 1) / BN);
  const gemm_dmma_tile tile = gemm_dmma_tile_at<P.group>(int(blockIdx.x), tiles_m, tiles_n);
  const int row0 = tile.tile_m * BM, col0 = tile.tile_n * BN;
  const int steps = int((g.k + BK - 1) / BK);
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], consumers);  // lane 0 of each warp
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  // Thread 0 issues the loads: the first Stages steps now; step t + Stages - Lag when the block starts step t, into
  // the stage of step t - Lag, which every warp has freed by then unless it runs Lag steps behind warp 0.
  constexpr int Lag = 2;
  const auto issue = [&](int step) {
    unsigned char* sa = smem + (step % Stages) * stage_bytes;
    mbarrier_arrive_expect_tx(&full[step % Stages], stage_bytes);
    gemm_dmma_load_stage<AK, BKm, BM, BN, BK>(sa, sa + a_bytes, &map_a, &map_b, &full[step % Stages], row0, col0,
                                              step * BK);
  };
  if (threadIdx.x == 0)
    for (int step = 0; step < ::min(steps, Stages); ++step) issue(step);

  // Warp w owns rows 64·(w mod BM/64) and columns 32·(w div BM/64) of the tile.
  const int wm = (warp % (BM / 64)) * 64, wn = (warp / (BM / 64)) * 32;
  const int lg = lane / 4, lt = lane % 4;
  double acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0;

  for (int step = 0; step < steps; ++step) {
    const int s = step % Stages;
    if (threadIdx.x == 0 && step >= Lag && step + Stages - Lag < steps) {
      const int freed = step - Lag;
      mbarrier_wait(&empty[freed % Stages], unsigned(freed / Stages) & 1u);
      issue(step + Stages - Lag);
    }
    mbarrier_wait(&full[s], unsigned(step / Stages) & 1u);
    __syncwarp();  // lane 0 of warp 0 may arrive late (its refill wait): the mmas below are warp-wide (.aligned)
    const unsigned sa = smem_address(smem + s * stage_bytes), sb = sa + a_bytes;
    gemm_dmma_stage<AK, BKm, BM, BN, BK>(acc, sa, sb, wm, wn, lg, lt);
    __syncwarp();
    if (lane == 0) mbarrier_arrive(&empty[s]);  // the warp's reads of the stage are done
  }
  gemm_dmma_epilogue<AK, BKm>(g, acc, std::int64_t(row0) + wm, std::int64_t(col0) + wn, lg, lt);
#else
  kernel_not_built_here();  // a binary without this target's code (see gemm_*_built)
#endif
}

}  // namespace cuprim::detail
