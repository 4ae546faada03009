// cuprim/blas/detail/gemm_sm90_kernel.cuh: the Hopper tensor-core GEMM (sm_90a: wgmma fed by TMA).
//
// The product is computed transposed, D = Cᵀ = op(B)ᵀ · op(A)ᵀ, so that the accumulator pairs a thread holds are
// adjacent rows of column-major C (one 4- or 8-byte store each). In wgmma's terms:
//   wgmma A operand  op(B)ᵀ tile   BN × BK   (BN = 64 · consumers columns of C, 128 by default; K-major when op_b = N,
//                                            MN-major when op_b = T)
//   wgmma B operand  op(A)ᵀ tile   BK × BM   (BM = 64, 128 or 256 rows of C, 256 by default: wgmma's N; MN-major when
//                                            op_a = N, K-major when op_a = T)
//   accumulators     Cᵀ tile       BN × BM   (fp32 in registers: 64 × BM per consumer warpgroup, BM / 2 per thread)
// Both tiles arrive by TMA (cp.async.bulk.tensor) in 128-byte swizzled rows; 16-bit inputs let wgmma read either
// major order (its transpose bits), so every op pair runs the same mainloop.
//
// A block is 1 + consumers warpgroups:
//   producer   one thread: for each k step, wait until the stage is free (empty[s]), announce its bytes (full[s]),
//              issue the TMA loads of both tiles
//   consumers  one or two warpgroups, 64 columns of C each: wait for the stage (full[s]), four wgmma k16 steps,
//              commit, wait for the previous step's wgmmas, free its stage (empty[s]); then the epilogue
//              C = alpha · D + beta · C (C not read when beta = 0), rows and columns bounds-checked
// with `Stages` shared-memory stages in flight. Tiles are visited in groups of `Group` tiles of rows so that blocks
// running together share operand tiles in L2. K, M and N edges: TMA fills out-of-bounds elements with zeros.
// Split k (kernels built with Split): a work unit is a tile over one slice of the k steps; with more than one
// slice the consumers store their unscaled fp32 sums into the slice's part of a workspace and
// gemm_splitk_reduce_kernel (below) adds the slices and applies alpha and beta.
//
// Float operands (the tf32 math modes; In = gemm_tf32 or gemm_tf32x3): the same kernel with 32 k per stage (128-byte
// rows of floats) and wgmma k8 steps in tf32, both tiles K-major (wgmma cannot transpose 32-bit operands: the host
// packs an MN-major operand first, blas/detail/gemm_tf32_pack_kernel.cuh). gemm_tf32 multiplies the floats as they
// are (the tensor cores read each one's sign, exponent and top 10 mantissa bits); gemm_tf32x3 reads operands packed
// as two parts, a tf32 high part and a tf32 low part (rows [0, R) and [R, 2R) of the packed array, R = the
// operand's rows), whose tiles both arrive in each stage, and sums three products per k8 step, lo·hi + hi·lo + hi·hi,
// which carries the products to about 2^-20 of |a·b|; each stage's sum (32 k) is then added to the accumulators by
// FP32 adds (rounded to nearest), so the tensor cores' own accumulation, which rounds less carefully, spans 32 k
// only. Those accumulators and the stage's sums take 2 · BM / 2 registers per thread: tf32x3 tiles have at most 128
// rows of C.
//
// Requirements (checked on the host by gemm_sm90_eligible): A, B 16-byte aligned, lda and ldb multiples of 8
// elements, m, n, k below 2^31; a binary built for sm_90a (gemm_sm90_built).
#pragma once

#include <cuprim/device/detail/async_copy.cuh>

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CUPRIM_HAS_WGMMA 1
#endif

namespace cuprim::detail {

/// The float operands' tags (see the file comment): In = gemm_tf32 or gemm_tf32x3, their elements float.
struct gemm_tf32 {};
struct gemm_tf32x3 {};

/// What the kernel reads for In: the element type and its bytes, the parts each operand is packed as (2: high and
/// low tf32 parts), whether the math is tf32.
template <class In>
struct gemm_sm90_input {
  using element = In;
  static constexpr int bytes = 2, parts = 1;
  static constexpr bool tf32 = false;
};
template <>
struct gemm_sm90_input<gemm_tf32> {
  using element = float;
  static constexpr int bytes = 4, parts = 1;
  static constexpr bool tf32 = true;
};
template <>
struct gemm_sm90_input<gemm_tf32x3> {
  using element = float;
  static constexpr int bytes = 4, parts = 2;
  static constexpr bool tf32 = true;
};

/// The tensor-core GEMM's tile: BM rows of C (wgmma's N: 64, 128 or 256) by BN = 64 · Consumers columns of C (one
/// wgmma M of 64 per consumer warpgroup), BK k per stage: one 128-byte swizzled row (64 16-bit elements, 32 floats;
/// blas/detail/gemm_tuning.cuh documents the policies). Parts: the operands' packed parts, whose tiles a stage holds
/// one after the other (cols hi | cols lo | rows hi | rows lo).
template <int Rows = 256, int Consumers = 2, int Bytes = 2, int Parts = 1>
struct gemm_sm90_shape {
  static constexpr int BM = Rows, BN = 64 * Consumers, BK = 128 / Bytes;  // rows of C, columns of C, k per stage
  static constexpr int consumers = Consumers, threads = 128 * (consumers + 1);
  static constexpr int box = BK;                      // elements per 128-byte swizzled row
  static constexpr int acc = BM / 2;                  // fp32 accumulators per consumer thread (64 × BM per warpgroup)
  static constexpr int part_rows_bytes = BM * 128, part_cols_bytes = BN * 128;
  static constexpr int rows_bytes = Parts * part_rows_bytes, cols_bytes = Parts * part_cols_bytes;
  static constexpr int stage_bytes = rows_bytes + cols_bytes;
  /// A consumer's staged 64 × BM block of Cᵀ (16-bit C): BM / 64 TMA boxes of 64 columns × 64 rows of C.
  static constexpr int epilogue_bytes = 64 * BM * 2;
};
/// The shape of the kernel of In with Rows × (64 · Consumers) tiles.
template <class In, int Rows, int Consumers>
using gemm_sm90_shape_of =
    gemm_sm90_shape<Rows, Consumers, gemm_sm90_input<In>::bytes, gemm_sm90_input<In>::parts>;

/// What the tensor-core kernel needs besides its two tensor maps.
template <class Out>
struct gemm_sm90_args {
  Out* c;
  std::int64_t m, n, k, ldc;
  float alpha, beta;
  bool vec_c;      // C's pairs (i, i + 1) of even i are one aligned access
  bool tma_store;  // the epilogue stages C in shared memory and stores it by TMA (16-bit C, beta = 0, aligned)
  // Split k (kernels built with Split; splits > 1): work unit u is tile u % tiles over k steps
  // [s · split_steps, (s + 1) · split_steps) of split s = u / tiles, its fp32 sums stored unscaled to
  // partial + s · split_stride (column-major, leading dimension m); gemm_splitk_reduce_kernel finishes C.
  float* partial;
  std::int64_t split_stride;
  int splits, split_steps;
  // gemm_tf32x3: the low parts' first row in each operand's map (op(A)ᵀ: m, op(B)ᵀ: n); 0 otherwise.
  int lo_a = 0, lo_b = 0;
};

#ifdef CUPRIM_HAS_WGMMA
// wgmma m64n256 (SHAPE: "m64n256k16.f32.bf16.bf16", ...), fp32 accumulators d[128]; desc_a / desc_b: shared-memory
// matrix descriptors; TransA / TransB: the operand is MN-major, passed by TAIL (", %131, %132" for 16-bit inputs;
// tf32 takes none: ""). accumulate = false writes d = A·B (ignoring d's old values).
#define CUPRIM_WGMMA_M64N256(SHAPE, TAIL) \
  asm volatile( \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n" \
      "wgmma.mma_async.sync.aligned." SHAPE " {" \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63," \
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79," \
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95," \
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111," \
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" \
      "}, %128, %129, p, 1, 1" TAIL ";\n}\n" \
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127]) \
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)), "n"(int(TransA)), "n"(int(TransB)));

// N = 128 (d[64]) and N = 64 (d[32]): the smaller tiles of rows of C.
#define CUPRIM_WGMMA_D8(i) \
  "+f"(d[(i) + 0]), "+f"(d[(i) + 1]), "+f"(d[(i) + 2]), "+f"(d[(i) + 3]), "+f"(d[(i) + 4]), "+f"(d[(i) + 5]), \
      "+f"(d[(i) + 6]), "+f"(d[(i) + 7])
#define CUPRIM_WGMMA_D32(i) CUPRIM_WGMMA_D8(i), CUPRIM_WGMMA_D8((i) + 8), CUPRIM_WGMMA_D8((i) + 16), CUPRIM_WGMMA_D8((i) + 24)
#define CUPRIM_WGMMA_M64N128(SHAPE, TAIL) \
  asm volatile( \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n" \
      "wgmma.mma_async.sync.aligned." SHAPE " {" \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" \
      "}, %64, %65, p, 1, 1" TAIL ";\n}\n" \
      : CUPRIM_WGMMA_D32(0), CUPRIM_WGMMA_D32(32) \
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)), "n"(int(TransA)), "n"(int(TransB)));
#define CUPRIM_WGMMA_M64N64(SHAPE, TAIL) \
  asm volatile( \
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n" \
      "wgmma.mma_async.sync.aligned." SHAPE " {" \
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" \
      "}, %32, %33, p, 1, 1" TAIL ";\n}\n" \
      : CUPRIM_WGMMA_D32(0) \
      : "l"(desc_a), "l"(desc_b), "r"(int(accumulate)), "n"(int(TransA)), "n"(int(TransB)));

/// One wgmma step of In with N = 2 · Acc (Acc fp32 accumulators per thread: 128, 64 or 32): m64nNk16 of bf16 or
/// f16, or m64nNk8 of tf32 (gemm_tf32, gemm_tf32x3; both operands K-major). Either covers 32 bytes of k.
template <class In, bool TransA, bool TransB, int Acc>
__device__ __forceinline__ void wgmma_step(float (&d)[Acc], std::uint64_t desc_a, std::uint64_t desc_b,
                                           bool accumulate) {
// TRANS: whether the instruction takes the transpose immediates (operands TransA, TransB of each macro).
#define CUPRIM_WGMMA_N(N, SHAPE, TRANS) \
  if constexpr (N == 256) { \
    CUPRIM_WGMMA_M64N256("m64n256" SHAPE, TRANS(", %131, %132")) \
  } else if constexpr (N == 128) { \
    CUPRIM_WGMMA_M64N128("m64n128" SHAPE, TRANS(", %67, %68")) \
  } else { \
    CUPRIM_WGMMA_M64N64("m64n64" SHAPE, TRANS(", %35, %36")) \
  }
#define CUPRIM_WGMMA_WITH(x) x
#define CUPRIM_WGMMA_WITHOUT(x) ""
  static_assert(Acc == 128 || Acc == 64 || Acc == 32, "wgmma_step: N must be 64, 128 or 256");
  if constexpr (gemm_sm90_input<In>::tf32) {
    static_assert(!TransA && !TransB, "wgmma_step: tf32 operands are K-major");
    CUPRIM_WGMMA_N(2 * Acc, "k8.f32.tf32.tf32", CUPRIM_WGMMA_WITHOUT)
  } else if constexpr (std::is_same_v<In, __nv_bfloat16>) {
    CUPRIM_WGMMA_N(2 * Acc, "k16.f32.bf16.bf16", CUPRIM_WGMMA_WITH)
  } else {
    CUPRIM_WGMMA_N(2 * Acc, "k16.f32.f16.f16", CUPRIM_WGMMA_WITH)
  }
#undef CUPRIM_WGMMA_N
#undef CUPRIM_WGMMA_WITH
#undef CUPRIM_WGMMA_WITHOUT
}
#undef CUPRIM_WGMMA_M64N256
#undef CUPRIM_WGMMA_M64N128
#undef CUPRIM_WGMMA_M64N64
#undef CUPRIM_WGMMA_D32
#undef CUPRIM_WGMMA_D8

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int Pending, int Acc>
__device__ __forceinline__ void wgmma_wait(float (&d)[Acc]) {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
#pragma unroll
  for (int i = 0; i < Acc; ++i) asm volatile("" : "+f"(d[i])::"memory");  // the accumulators are ready only now
}
template <int Regs>
__device__ __forceinline__ void setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs)); }
template <int Regs>
__device__ __forceinline__ void setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Regs)); }

/// A shared-memory matrix descriptor for 128-byte swizzled rows: lbo / sbo in bytes (see the PTX ISA's
/// "Matrix Descriptor Format"): K-major tiles step 8 rows of 128 bytes by sbo = 1024; MN-major tiles step 8 k rows by
/// sbo = 1024 and 64 elements of M or N by lbo (one TMA box, 8 KiB).
__device__ __forceinline__ std::uint64_t wgmma_desc(const void* smem, unsigned lbo, unsigned sbo) {
  const unsigned a = smem_address(smem);
  return std::uint64_t((a & 0x3ffff) >> 4) | (std::uint64_t(lbo >> 4) << 16) | (std::uint64_t(sbo >> 4) << 32) |
         (std::uint64_t(1) << 62);
}

/// tma_load_2d into the same shared-memory offset of every block of the cluster named in cta_mask, each block's
/// barrier at bar's offset receiving the bytes it got.
__device__ __forceinline__ void tma_load_2d_multicast(void* smem, const CUtensorMap* map, unsigned long long* bar,
                                                      int x, int y, unsigned short cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(smem_address(smem)),
      "l"(map), "r"(smem_address(bar)), "r"(x), "r"(y), "h"(cta_mask)
      : "memory");
}

/// A 2-D TMA store of one box from shared memory to coordinates (x, y) of the map (elements outside it are not
/// written); completion is tracked by bulk_commit / bulk_wait groups.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* smem, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(map),
               "r"(smem_address(smem)), "r"(x), "r"(y)
               : "memory");
}
/// Waits until every bulk store group of this thread has completed (not only its reads of shared memory).
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
/// A barrier over the `threads` threads that use barrier `id` (1..15; 0 is __syncthreads's).
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
#endif

/// Loads one stage: the BN × BK tile of op(B)ᵀ (cols) and the BK × BM tile of op(A)ᵀ (rows) at (col0, row0, k0).
/// A K-major tile is one box (BK × its rows); an MN-major tile is one box of 64 × BK per 64 rows (8 KiB apart). In a
/// cluster of Cluster blocks (same rows, neighbouring columns), block `rank` loads 1/Cluster of the rows tile and
/// multicasts it to every block of the cluster.
/// Packed parts (gemm_tf32x3, K-major): the low parts' tiles follow the high parts' (S::part_*_bytes on), from rows
/// lo_b and lo_a on of the same maps.
template <class S, int Cluster, bool ColsMN, bool RowsMN, int Parts = 1>
__device__ __forceinline__ void gemm_sm90_load_stage(unsigned char* cols, unsigned char* rows, const CUtensorMap* map_b,
                                                     const CUtensorMap* map_a, unsigned long long* full, int col0,
                                                     int row0, int k0, unsigned rank, int lo_b = 0, int lo_a = 0) {
#ifdef CUPRIM_HAS_WGMMA
  static_assert(Parts == 1 || (!ColsMN && !RowsMN), "gemm_sm90_load_stage: packed parts are K-major");
  if constexpr (Parts == 2) {
    tma_load_2d(cols + S::part_cols_bytes, map_b, full, k0, col0 + lo_b);
    if constexpr (Cluster == 1) {
      tma_load_2d(rows + S::part_rows_bytes, map_a, full, k0, row0 + lo_a);
    } else {
      constexpr int part = S::BM / Cluster;
      const int first = int(rank) * part;
      tma_load_2d_multicast(rows + S::part_rows_bytes + first * 128, map_a, full, k0, row0 + lo_a + first,
                            (1u << Cluster) - 1);
    }
  }
  if constexpr (ColsMN) {
#pragma unroll
    for (int b = 0; b < S::BN / S::box; ++b) tma_load_2d(cols + b * 8192, map_b, full, col0 + b * S::box, k0);
  } else {
    tma_load_2d(cols, map_b, full, k0, col0);
  }
  constexpr int part = S::BM / Cluster;  // rows of the tile this block loads
  const int first = int(rank) * part;
  if constexpr (Cluster == 1) {
    if constexpr (RowsMN) {
#pragma unroll
      for (int b = 0; b < S::BM / S::box; ++b) tma_load_2d(rows + b * 8192, map_a, full, row0 + b * S::box, k0);
    } else {
      tma_load_2d(rows, map_a, full, k0, row0);
    }
  } else {
    constexpr unsigned short all = (1u << Cluster) - 1;
    if constexpr (RowsMN) {
#pragma unroll
      for (int b = 0; b < part / S::box; ++b) {
        const int r = first + b * S::box;
        tma_load_2d_multicast(rows + (r / S::box) * 8192, map_a, full, row0 + r, k0, all);
      }
    } else {
      tma_load_2d_multicast(rows + first * 128, map_a, full, k0, row0 + first, all);
    }
  }
#endif
}

/// Writes a consumer's 64 × BM block of Cᵀ (Acc = BM / 2): thread (warp w, lane l) holds columns c0 + 16w + l/4
/// (+8) of C and rows r0 + 8i + 2(l % 4) (+1) for i < BM / 8. The split-k partial sums go through it too (C: the
/// partial slice, alpha 1, beta 0).
template <class Out, int Acc>
__device__ __forceinline__ void gemm_sm90_epilogue(const gemm_sm90_args<Out>& g, const float (&d)[Acc],
                                                   std::int64_t row0, std::int64_t col0) {
  const int w = (threadIdx.x % 128) / 32, l = threadIdx.x % 32;
  const bool read_c = g.beta != 0.f;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const std::int64_t j = col0 + 16 * w + l / 4 + 8 * h;
    if (j >= g.n) continue;
    Out* cj = g.c + j * g.ldc;
#pragma unroll
    for (int i = 0; i < Acc / 4; ++i) {
      const std::int64_t r = row0 + 8 * i + 2 * (l % 4);
      float v0 = g.alpha * d[4 * i + 2 * h], v1 = g.alpha * d[4 * i + 2 * h + 1];
      if (g.vec_c && r + 1 < g.m) {
        if constexpr (std::is_same_v<Out, float>) {
          float2 o{v0, v1};
          if (read_c) {
            const float2 c = *reinterpret_cast<const float2*>(cj + r);
            o.x += g.beta * c.x;
            o.y += g.beta * c.y;
          }
          *reinterpret_cast<float2*>(cj + r) = o;
        } else if constexpr (std::is_same_v<Out, __nv_bfloat16>) {
          if (read_c) {
            const float2 c = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(cj + r));
            v0 += g.beta * c.x;
            v1 += g.beta * c.y;
          }
          *reinterpret_cast<__nv_bfloat162*>(cj + r) = __floats2bfloat162_rn(v0, v1);
        } else {
          if (read_c) {
            const float2 c = __half22float2(*reinterpret_cast<const __half2*>(cj + r));
            v0 += g.beta * c.x;
            v1 += g.beta * c.y;
          }
          *reinterpret_cast<__half2*>(cj + r) = __floats2half2_rn(v0, v1);
        }
      } else {
        if (r < g.m) cj[r] = Out(read_c ? v0 + g.beta * float(cj[r]) : v0);
        if (r + 1 < g.m) cj[r + 1] = Out(read_c ? v1 + g.beta * float(cj[r + 1]) : v1);
      }
    }
  }
}

/// The epilogue through shared memory (16-bit C, beta = 0): the consumer warpgroup writes alpha·D, rounded, into
/// its 32 KiB block (four 64 × 64 boxes of C: a row of 128 bytes per column of C, 16-byte chunks swizzled by the row as
/// the map's 128-byte swizzle expects, so a warp's stores hit 32 distinct banks), then one thread stores the boxes by
/// TMA (clipped at C's edges) and the warpgroup moves on without waiting for them. The buffer is reused only after
/// the previous tile's stores have read it.
template <class Out, int Acc>
__device__ __forceinline__ void gemm_sm90_epilogue_staged(const gemm_sm90_args<Out>& g, const float (&d)[Acc],
                                                          const CUtensorMap* map_c, unsigned char* buffer, int row0,
                                                          int col0, int barrier_id) {
#ifdef CUPRIM_HAS_WGMMA
  const int t = threadIdx.x % 128, w = t / 32, l = t % 32;
  if (t == 0) bulk_wait_read<0>();  // the previous tile's stores have read the buffer
  named_barrier_sync(barrier_id, 128);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int col = 16 * w + l / 4 + 8 * h;  // of this warpgroup's 64 columns: the box's row
#pragma unroll
    for (int i = 0; i < Acc / 4; ++i) {
      const int row = 8 * i + 2 * (l % 4);  // of the tile's 2 · Acc rows
      const int box = row / 64, chunk = (row % 64) / 8, within = row % 8;
      unsigned char* at = buffer + box * 8192 + col * 128 + ((chunk ^ (col % 8)) * 16) + within * 2;
      const float v0 = g.alpha * d[4 * i + 2 * h], v1 = g.alpha * d[4 * i + 2 * h + 1];
      if constexpr (std::is_same_v<Out, __nv_bfloat16>) {
        *reinterpret_cast<__nv_bfloat162*>(at) = __floats2bfloat162_rn(v0, v1);
      } else {
        *reinterpret_cast<__half2*>(at) = __floats2half2_rn(v0, v1);
      }
    }
  }
  fence_proxy_async_shared();  // the writes above before the copy engine reads them
  named_barrier_sync(barrier_id, 128);
  if (t == 0) {
#pragma unroll
    for (int b = 0; b < Acc / 32; ++b) tma_store_2d(map_c, buffer + b * 8192, row0 + 64 * b, col0);
    bulk_commit();
  }
#endif
}

/// Tile `index` of the grid's walk: groups of Group tiles of rows, the columns of a group in clusters of Cluster
/// neighbouring tiles, rows fastest; the cluster block `rank` takes the rank-th column tile of its cluster's pair.
struct gemm_sm90_tile {
  int row0, col0;
};
template <class S, int Group, int Cluster>
__device__ __forceinline__ gemm_sm90_tile gemm_sm90_tile_at(int index, int tiles_m, int pairs_n, unsigned rank) {
  const int per_group = Group * pairs_n, group = index / per_group, in_group = index % per_group;
  const int first_m = group * Group, group_m = ::min(tiles_m - first_m, Group);
  const int tile_m = first_m + in_group % group_m, pair_n = in_group / group_m;
  return {tile_m * S::BM, (pair_n * Cluster + int(rank)) * S::BN};
}

/// The kernel: a persistent grid of clusters of Cluster blocks walking the tiles (see the file comment); the
/// producer runs up to Stages k steps ahead, across tiles, so the next tile's loads overlap the epilogue.
/// ColsMN: op_b = T; RowsMN: op_a = N. Rows, Consumers: the tile (gemm_sm90_shape). Split: the walk covers
/// tiles · g.splits work units, each a tile over one slice of the k steps, whose sums go to g.partial when
/// g.splits > 1 (see gemm_sm90_args); built only for the policies that may split.
template <class In, class Out, int Stages, int Group, int Cluster, bool Staged, bool ColsMN, bool RowsMN, int Rows = 256,
          int Consumers = 2, bool Split = false>
__global__ void __launch_bounds__(gemm_sm90_shape<Rows, Consumers>::threads, 1)
    gemm_sm90_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                     const __grid_constant__ CUtensorMap map_c, gemm_sm90_args<Out> g) {
#ifdef CUPRIM_HAS_WGMMA
  using I = gemm_sm90_input<In>;
  using S = gemm_sm90_shape_of<In, Rows, Consumers>;
  static_assert(!Split || Cluster == 1, "gemm_sm90_kernel: split k runs without clusters");
  static_assert(!I::tf32 || (!ColsMN && !RowsMN), "gemm_sm90_kernel: tf32 operands are K-major");
  static_assert(I::parts == 1 || Rows <= 128, "gemm_sm90_kernel: tf32x3 tiles have at most 128 rows (registers)");
  extern __shared__ unsigned char smem_raw[];
  // Stages of [cols tile | rows tile], 1024-byte aligned (the 128-byte swizzle's period), then the barriers.
  unsigned char* smem =
      reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  // Staged (16-bit C): each consumer warpgroup's epilogue block follows the stages.
  constexpr bool staged = Staged && sizeof(Out) == 2;
  unsigned char* epilogue = smem + Stages * S::stage_bytes;
  unsigned long long* full =
      reinterpret_cast<unsigned long long*>(epilogue + (staged ? S::consumers * S::epilogue_bytes : 0));
  unsigned long long* empty = full + Stages;

  const int tiles_m = int((g.m + S::BM - 1) / S::BM), tiles_n = int((g.n + S::BN - 1) / S::BN);
  const int pairs_n = (tiles_n + Cluster - 1) / Cluster, tiles = tiles_m * pairs_n;
  const int clusters = int(gridDim.x) / Cluster, first = int(blockIdx.x) / Cluster;
  const unsigned rank = Cluster > 1 ? cluster_rank() : 0u;
  const int steps = int((g.k + S::BK - 1) / S::BK);
  const int units = Split ? tiles * g.splits : tiles;
  // Work unit `index`: its tile's index and its k steps [begin, end) (every step without Split).
  struct unit {
    int tile, begin, end;
  };
  const auto unit_at = [&](int index) -> unit {
    if constexpr (Split) {
      const int s = index / tiles, begin = s * g.split_steps;
      return {index % tiles, begin, ::min(steps, begin + g.split_steps)};
    } else {
      return {index, 0, steps};
    }
  };

  const int wg = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], Cluster * S::consumers * 4);  // lane 0 of each consumer warp of the cluster
    }
    fence_mbarrier_init();
  }
  if constexpr (Cluster > 1) {
    cluster_barrier_arrive();
    cluster_barrier_wait();
  } else {
    __syncthreads();
  }

  // The default tile (256 rows, two consumers) moves registers from the producer to the consumers' 128
  // accumulators; the smaller tiles fit the compiler's even share.
  constexpr bool move_registers = Rows == 256 && Consumers == 2;
  if (wg == 0) {
    // Producer: one thread, the k steps of every tile of this cluster in order.
    if constexpr (move_registers) setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      int it = 0;
      for (int index = first; index < units; index += clusters) {
        const unit u = unit_at(index);
        const gemm_sm90_tile tile = gemm_sm90_tile_at<S, Group, Cluster>(u.tile, tiles_m, pairs_n, rank);
        for (int t = u.begin; t < u.end; ++t, ++it) {
          const int s = it % Stages;
          if (it >= Stages) mbarrier_wait(&empty[s], ((it / Stages) - 1) & 1);
          unsigned char* stage = smem + s * S::stage_bytes;
          mbarrier_arrive_expect_tx(&full[s], S::stage_bytes);
          gemm_sm90_load_stage<S, Cluster, ColsMN, RowsMN, I::parts>(stage, stage + S::cols_bytes, &map_b, &map_a,
                                                                     &full[s], tile.col0, tile.row0, t * S::BK, rank,
                                                                     g.lo_b, g.lo_a);
        }
      }
    }
  } else {
    // Consumers: warpgroup c owns columns col0 + 64c ... + 63 of C (rows 64c.. of the cols tile: 8 KiB in).
    if constexpr (move_registers) setmaxnreg_inc<232>();
    const int c = wg - 1;
    // wgmma steps within a stage (k16 of 16-bit inputs, k8 of tf32): +32 bytes along a K-major row, +16 rows of 128
    // bytes in an MN-major box.
    constexpr unsigned cols_step = ColsMN ? 2048 : 32, rows_step = RowsMN ? 2048 : 32;
    const auto release = [&](int s) {
      if (threadIdx.x % 32 != 0) return;
      if constexpr (Cluster == 1) {
        mbarrier_arrive(&empty[s]);
      } else {
#pragma unroll
        for (int r = 0; r < Cluster; ++r) mbarrier_arrive_cluster(&empty[s], unsigned(r));
      }
    };
    int it = 0;
    for (int index = first; index < units; index += clusters) {
      const unit u = unit_at(index);
      const gemm_sm90_tile tile = gemm_sm90_tile_at<S, Group, Cluster>(u.tile, tiles_m, pairs_n, rank);
      float d[S::acc];  // written by the unit's first wgmma (accumulate = false), or by its first stage's sum
      int previous = 0;
      if constexpr (I::parts == 2) {
        // tf32x3: each stage's three products summed by the tensor cores into `part` (lo·hi + hi·lo + hi·hi per k8
        // step, the small terms first), then added to d by FP32 adds, rounded to nearest: the tensor cores' own
        // accumulation (which does not round like an FP32 add) spans 32 k, not the whole sum.
        float part[S::acc];
        for (int t = u.begin; t < u.end; ++t, ++it) {
          const int s = it % Stages;
          mbarrier_wait(&full[s], (it / Stages) & 1);
          const unsigned char* cols = smem + s * S::stage_bytes + c * 8192;
          const unsigned char* rows = smem + s * S::stage_bytes + S::cols_bytes;
          wgmma_fence();
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            const std::uint64_t da = wgmma_desc(cols + q * 32, 16, 1024);
            const std::uint64_t db = wgmma_desc(rows + q * 32, 16, 1024);
            const std::uint64_t da_lo = wgmma_desc(cols + S::part_cols_bytes + q * 32, 16, 1024);
            const std::uint64_t db_lo = wgmma_desc(rows + S::part_rows_bytes + q * 32, 16, 1024);
            wgmma_step<In, false, false>(part, da_lo, db, q > 0);
            wgmma_step<In, false, false>(part, da, db_lo, true);
            wgmma_step<In, false, false>(part, da, db, true);
          }
          wgmma_commit();
          wgmma_wait<0>(part);
          release(s);
#pragma unroll
          for (int i = 0; i < S::acc; ++i) d[i] = t > u.begin ? d[i] + part[i] : part[i];
        }
      } else {
        for (int t = u.begin; t < u.end; ++t, ++it) {
          const int s = it % Stages;
          mbarrier_wait(&full[s], (it / Stages) & 1);
          const unsigned char* cols = smem + s * S::stage_bytes + c * 8192;
          const unsigned char* rows = smem + s * S::stage_bytes + S::cols_bytes;
          wgmma_fence();
#pragma unroll
          for (int q = 0; q < 4; ++q) {  // four wgmma steps of 32 bytes of k
            const std::uint64_t da = wgmma_desc(cols + q * cols_step, ColsMN ? 8192 : 16, 1024);
            const std::uint64_t db = wgmma_desc(rows + q * rows_step, RowsMN ? 8192 : 16, 1024);
            wgmma_step<In, ColsMN, RowsMN>(d, da, db, t > u.begin || q > 0);
          }
          wgmma_commit();
          wgmma_wait<1>(d);
          if (t > u.begin) release(previous);
          previous = s;
        }
        wgmma_wait<0>(d);
        release(previous);
      }
      if constexpr (Split) {
        if (g.splits > 1) {  // this unit's share of the sum, unscaled, into its split's slice
          const int split = index / tiles;
          const gemm_sm90_args<float> part{g.partial + split * g.split_stride, g.m, g.n, g.k, g.m, 1.f, 0.f,
                                           g.m % 2 == 0, false, nullptr, 0, 0, 0, 0, 0};
          gemm_sm90_epilogue(part, d, tile.row0, std::int64_t(tile.col0) + 64 * c);
          continue;
        }
      }
      if (staged && g.tma_store) {
        gemm_sm90_epilogue_staged(g, d, &map_c, epilogue + c * S::epilogue_bytes, tile.row0, tile.col0 + 64 * c,
                                  1 + c);
      } else {
        gemm_sm90_epilogue(g, d, tile.row0, std::int64_t(tile.col0) + 64 * c);
      }
    }
    if (staged && g.tma_store && threadIdx.x % 128 == 0) bulk_wait_all();  // the last stores, before the block ends
  }
  if constexpr (Cluster > 1) {  // no block leaves while its peers may still write its shared memory or barriers
    cluster_barrier_arrive();
    cluster_barrier_wait();
  }
#else
  kernel_not_built_here();  // a binary without this target's code (see gemm_*_built)
#endif
}

/// Split k's second step: C = alpha · Σ_s partial_s + beta · C over m × n (C not read when beta = 0), the splits
/// summed in order 0, 1, ... (the same bits from run to run). Element e of the grid-stride walk is (e % m, e / m).
template <class Out>
__global__ void gemm_splitk_reduce_kernel(const float* __restrict__ partial, std::int64_t split_stride, int splits,
                                          std::int64_t m, std::int64_t n, float alpha, float beta, Out* c,
                                          std::int64_t ldc) {
  const std::int64_t total = m * n;
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < total;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    float sum = partial[e];
    for (int s = 1; s < splits; ++s) sum += partial[s * split_stride + e];
    const std::int64_t i = e % m, j = e / m;
    Out* at = c + i + j * ldc;
    const float v = alpha * sum;
    *at = Out(beta != 0.f ? v + beta * float(*at) : v);
  }
}

}  // namespace cuprim::detail
