// cuprim/blas/detail/gemm_sm90_launch.cuh: the host side of the Hopper tensor-core GEMM: when it can run, its
// tensor maps, its persistent grid, its launch.
//
//   gemm_sm90_eligible(...)   the operands' layout suits TMA (16-byte aligned, leading dimensions of whole 16-byte
//                             vectors, sizes below 2^31) on an sm_90 device, and this binary holds sm_90a code
//                             (gemm_sm90_runs_here: the device and sizes; gemm_sm90_operand_ok: one operand)
//   gemm_sm90_launch<P>(...)  encodes both tensor maps and launches the kernel of the op pair
#pragma once

#include <cuprim/blas/detail/gemm_sm90_kernel.cuh>
#include <cuprim/blas/detail/gemm_tuning.cuh>
#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>

#include <cudaTypedefs.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <source_location>
#include <string>
#include <type_traits>

namespace cuprim::detail {

/// SMs the tensor-core GEMM's persistent grid leaves free on this thread's launches (0: none, the grid takes every
/// SM it fits on). A persistent grid that fills the GPU keeps any kernel launched beside it (an NCCL transfer
/// overlapping a product) from starting until it ends; cuprim::multi's GEMM sets this beside its transfers.
/// Negative: no persistent grid, one cluster per work unit, so the hardware hands SMs to a kernel beside it (of a
/// higher-priority stream first) as the product's clusters finish.
inline thread_local int gemm_sm90_reserved_sms = 0;

/// Sets gemm_sm90_reserved_sms for a scope.
class gemm_sm_reserve {
public:
  explicit gemm_sm_reserve(int sms) : previous_(gemm_sm90_reserved_sms) { gemm_sm90_reserved_sms = sms; }
  ~gemm_sm_reserve() { gemm_sm90_reserved_sms = previous_; }
  gemm_sm_reserve(const gemm_sm_reserve&) = delete;
  gemm_sm_reserve& operator=(const gemm_sm_reserve&) = delete;

private:
  int previous_;
};

template <class In>
constexpr CUtensorMapDataType gemm_tensor_map_type() {
  if constexpr (std::is_same_v<In, float>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;  // the tf32 modes: floats as stored
  return std::is_same_v<In, __nv_bfloat16> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}

/// cuTensorMapEncodeTiled from the driver the runtime uses (no link against libcuda); null when it has none.
inline PFN_cuTensorMapEncodeTiled_v12000 gemm_tensor_map_encoder_or_null() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      f = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return encode;
}
inline PFN_cuTensorMapEncodeTiled_v12000 gemm_tensor_map_encoder(const char* fn) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = gemm_tensor_map_encoder_or_null();
  if (!encode) throw cuda_error(cudaErrorNotSupported, std::string(fn) + ": cuTensorMapEncodeTiled", std::source_location::current());
  return encode;
}

/// A 2-D tensor map over a column-major array of 16-bit elements or floats: `inner` contiguous elements by `outer`
/// columns ld elements apart, boxes of one 128-byte swizzled row (64 or 32 elements) × box_outer, zeros outside the
/// array.
template <class In>
CUtensorMap gemm_tensor_map(const char* fn, const In* p, std::int64_t inner, std::int64_t outer, std::int64_t ld,
                            int box_outer) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cuuint64_t(inner), cuuint64_t(outer)};
  const cuuint64_t strides[1] = {cuuint64_t(ld) * sizeof(In)};
  const cuuint32_t box[2] = {cuuint32_t(128 / sizeof(In)), cuuint32_t(box_outer)};
  const cuuint32_t steps[2] = {1, 1};
  const CUresult r = gemm_tensor_map_encoder(fn)(
      &map, gemm_tensor_map_type<In>(), 2, const_cast<In*>(p), dims, strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw cuda_error(cudaErrorInvalidValue, std::string(fn) + ": cuTensorMapEncodeTiled", std::source_location::current());
  return map;
}

/// True when the tensor-core kernels of In and Out were compiled for sm_90a (the other builds declare a marker in
/// static shared memory; every instantiation of a binary is built alike, so one tells, read once). The kernel asked
/// is the default tile's, NN for 16-bit inputs and K-major (the only pair) for tf32, built anyway.
template <class In, class Out>
bool gemm_sm90_built() {
  static const bool built = [] {
    cudaFuncAttributes attr{};
    constexpr bool tf32 = gemm_sm90_input<In>::tf32;
    constexpr blas::gemm_sm90_policy P =
        tf32 ? blas::gemm_tf32_policy(blas::gemm_sm90_policy_for(90), gemm_sm90_input<In>::parts)
             : blas::gemm_sm90_policy{.stages = 3};
    const bool ok =
        cudaFuncGetAttributes(&attr, gemm_sm90_kernel<In, Out, P.stages, 8, P.cluster, !tf32, false, !tf32, P.tile_m>) ==
        cudaSuccess;
    (void)cudaGetLastError();
    return ok && attr.sharedSizeBytes == 0;
  }();
  return built;
}

/// Whether the tensor-core kernel runs m × n × k products on this device (sizes below 2^31, an sm_90 device, the
/// driver's tensor-map encoder, sm_90a code in this binary), whatever the operands' layout.
template <class In, class Out>
bool gemm_sm90_runs_here(const device_info& dev, std::int64_t m, std::int64_t n, std::int64_t k) {
  constexpr std::int64_t limit = std::int64_t(1) << 31;
  return dev.arch() == 90 && m < limit && n < limit && k < limit && gemm_tensor_map_encoder_or_null() != nullptr &&
         gemm_sm90_built<In, Out>();
}

/// Whether TMA takes an operand at p with leading dimension ld: 16-byte aligned, whole 16-byte vectors per column,
/// a stride below TMA's limit.
template <class In>
bool gemm_sm90_operand_ok(const In* p, std::int64_t ld) {
  constexpr std::int64_t vec = 16 / sizeof(In), max_ld = (std::int64_t(1) << 40) / std::int64_t(sizeof(In));
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && ld % vec == 0 && ld < max_ld;
}

/// Whether the tensor-core kernel takes these operands on this device.
template <class In, class Out>
bool gemm_sm90_eligible(const device_info& dev, std::int64_t m, std::int64_t n, std::int64_t k, const In* a,
                        std::int64_t lda, const In* b, std::int64_t ldb) {
  return gemm_sm90_runs_here<In, Out>(dev, m, n, k) && gemm_sm90_operand_ok(a, lda) && gemm_sm90_operand_ok(b, ldb);
}

/// Bytes of dynamic shared memory of a `stages`-deep kernel of tile S: the stages, the consumers' epilogue blocks when
/// staged, 1 KiB of alignment slack, the barriers.
template <class S>
constexpr int gemm_sm90_smem(int stages, bool staged) {  // staged: 16-bit C only
  return stages * S::stage_bytes + (staged ? S::consumers * S::epilogue_bytes : 0) + 1024 + 2 * stages * 8;
}

/// Split k's layout in the workspace: `splits` slices of m × n fp32 sums (leading dimension m), each slice starting
/// on a 256-byte boundary. No bytes for one slice.
struct gemm_splitk_layout {
  std::int64_t stride = 0;  // elements from one slice to the next
  int splits = 1;
  gemm_splitk_layout(std::int64_t m, std::int64_t n, int splits_) : stride((m * n + 63) / 64 * 64), splits(splits_) {}
  std::size_t bytes() const { return splits > 1 ? std::size_t(splits) * std::size_t(stride) * sizeof(float) : 0; }
};

/// The kernel for one op pair: ColsMN (op_b = T), RowsMN (op_a = N). g.splits > 1 only for a policy that may split.
template <blas::gemm_sm90_policy P, class In, class Out, bool ColsMN, bool RowsMN>
void gemm_sm90_launch_pair(const device_info& dev, const CUtensorMap& map_a, const CUtensorMap& map_b,
                           const CUtensorMap& map_c, const gemm_sm90_args<Out>& g, cudaStream_t stream) {
  using S = gemm_sm90_shape_of<In, P.tile_m, P.consumers>;
  constexpr bool staged = P.staged_store && sizeof(Out) == 2;
  auto* kernel = gemm_sm90_kernel<In, Out, P.stages, P.group, P.cluster, staged, ColsMN, RowsMN, P.tile_m,
                                  P.consumers, (P.splits != 1)>;
  constexpr int smem = gemm_sm90_smem<S>(P.stages, staged);
  static_assert(smem <= 227 * 1024, "gemm_sm90_policy: the stages (and the staged epilogue) exceed 227 KiB");
  CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = P.cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg{};
  cfg.blockDim = dim3(S::threads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  // The persistent grid: as many clusters as fit at once (read once per device), at most one per cluster of tiles
  // (per work unit when k is split).
  static std::array<std::atomic<int>, 64> resident{};
  int clusters = dev.ordinal >= 0 && dev.ordinal < 64 ? resident[dev.ordinal].load() : 0;
  if (clusters == 0) {
    cfg.gridDim = dim3(unsigned(P.cluster * std::max(1, dev.sm_count / P.cluster)));
    CUPRIM_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
    clusters = std::max(clusters, 1);
    if (dev.ordinal >= 0 && dev.ordinal < 64) resident[dev.ordinal].store(clusters);
  }
  const std::int64_t tiles_n = (g.n + S::BN - 1) / S::BN;
  const std::int64_t tiles = ((g.m + S::BM - 1) / S::BM) * ((tiles_n + P.cluster - 1) / P.cluster);
  const std::int64_t units = tiles * std::max(1, g.splits);
  if (gemm_sm90_reserved_sms > 0)  // SMs left to kernels beside this one (gemm_sm_reserve)
    clusters = std::max(1, std::min(clusters, (dev.sm_count - gemm_sm90_reserved_sms) / P.cluster));
  else if (gemm_sm90_reserved_sms < 0)  // one cluster per work unit: SMs freed as they finish
    clusters = int(std::min<std::int64_t>(units, std::int64_t(1) << 30));
  cfg.gridDim = dim3(unsigned(std::min<std::int64_t>(units, clusters) * P.cluster));
  CUPRIM_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, map_a, map_b, map_c, g));
}

/// C = alpha · op(A) · op(B) + beta · C on tensor cores (arguments validated, gemm_sm90_eligible true, m, n, k > 0),
/// the k steps in `splits` slices (1: none; more only for a policy with splits ≠ 1), their sums in `partial`
/// (gemm_splitk_layout(m, n, splits).bytes(), 256-byte aligned; null for one slice). The tf32 modes (In =
/// gemm_tf32, gemm_tf32x3: float operands) take K-major operands only (trans_a, !trans_b), gemm_tf32x3's packed in
/// two parts: an operand of R rows (m for A, n for B) has its low parts in rows R .. 2R - 1 (gemm_tf32_pack).
template <blas::gemm_sm90_policy P, class In, class Out>
void gemm_sm90_launch(const char* fn, const device_info& dev, bool trans_a, bool trans_b, std::int64_t m,
                      std::int64_t n, std::int64_t k, float alpha, const typename gemm_sm90_input<In>::element* a,
                      std::int64_t lda, const typename gemm_sm90_input<In>::element* b, std::int64_t ldb, float beta,
                      Out* c, std::int64_t ldc, int splits, float* partial, cudaStream_t stream) {
  static_assert(gemm_sm90_policy_valid<P>());
  using I = gemm_sm90_input<In>;
  using S = gemm_sm90_shape_of<In, P.tile_m, P.consumers>;
  if (I::tf32 && (!trans_a || trans_b))
    throw cuda_error(cudaErrorInvalidValue, std::string(fn) + ": tf32 operands must be K-major", std::source_location::current());
  const std::int64_t parts = I::parts;
  // op(A)ᵀ, the wgmma B operand (rows of C): MN-major (m contiguous) when op_a = N; K-major when op_a = T, its box
  // 1/cluster of the tile's rows (each block of a cluster loads its part for all).
  const CUtensorMap map_a = trans_a ? gemm_tensor_map(fn, a, k, parts * m, lda, S::BM / P.cluster)
                                    : gemm_tensor_map(fn, a, m, k, lda, S::BK);
  // op(B)ᵀ, the wgmma A operand (columns of C): K-major when op_b = N; MN-major when op_b = T.
  const CUtensorMap map_b =
      trans_b ? gemm_tensor_map(fn, b, n, k, ldb, S::BK) : gemm_tensor_map(fn, b, k, parts * n, ldb, S::BN);
  const bool vec_c = reinterpret_cast<std::uintptr_t>(c) % (2 * sizeof(Out)) == 0 && ldc % 2 == 0;
  const bool split = P.splits != 1 && splits > 1;
  // The staged epilogue: 16-bit C, beta = 0 (C is not read), C in TMA's layout rules; its map's boxes are 64 rows
  // (128 bytes, swizzled) by 64 columns of C. m must be a multiple of 8: a TMA store clips the rows of a box at C's
  // edge only to whole 16-byte chunks (measured on an H100: rows m .. m rounded up to 8 were written), and a
  // caller's padding or neighbouring data past row m must keep its bytes. A split product's C is written by the
  // reduction instead.
  const bool tma_store = P.staged_store && sizeof(Out) == 2 && !split && beta == 0.f && m % 8 == 0 &&
                         reinterpret_cast<std::uintptr_t>(c) % 16 == 0 && (ldc * std::int64_t(sizeof(Out))) % 16 == 0 &&
                         ldc < (std::int64_t(1) << 40) / std::int64_t(sizeof(Out));
  CUtensorMap map_c{};
  if constexpr (sizeof(Out) == 2)
    if (tma_store) map_c = gemm_tensor_map(fn, c, m, n, ldc, S::box);
  const std::int64_t steps = (k + S::BK - 1) / S::BK;
  if (split) {  // no empty slice: ceil(steps / ceil(steps / splits)) slices (at most the count the workspace holds)
    const std::int64_t per = (steps + splits - 1) / splits;
    splits = int((steps + per - 1) / per);
  }
  const gemm_splitk_layout L(m, n, split ? splits : 1);
  const gemm_sm90_args<Out> g{c,        m,       n,        k,        ldc,   alpha,
                              beta,     vec_c,   tma_store, partial, L.stride, split ? splits : 1,
                              int(split ? (steps + splits - 1) / splits : steps),
                              int(parts == 2 ? m : 0), int(parts == 2 ? n : 0)};
  if constexpr (I::tf32) {
    gemm_sm90_launch_pair<P, In, Out, false, false>(dev, map_a, map_b, map_c, g, stream);
  } else {
    if (!trans_a && !trans_b) gemm_sm90_launch_pair<P, In, Out, false, true>(dev, map_a, map_b, map_c, g, stream);
    if (!trans_a && trans_b) gemm_sm90_launch_pair<P, In, Out, true, true>(dev, map_a, map_b, map_c, g, stream);
    if (trans_a && !trans_b) gemm_sm90_launch_pair<P, In, Out, false, false>(dev, map_a, map_b, map_c, g, stream);
    if (trans_a && trans_b) gemm_sm90_launch_pair<P, In, Out, true, false>(dev, map_a, map_b, map_c, g, stream);
  }
  if (split && splits > 1) {
    constexpr int threads = 256;
    const std::int64_t blocks = std::min<std::int64_t>((m * n + threads - 1) / threads, std::int64_t(dev.sm_count) * 8);
    gemm_splitk_reduce_kernel<<<unsigned(blocks), threads, 0, stream>>>(partial, L.stride, splits, m, n, alpha, beta,
                                                                         c, ldc);
    CUPRIM_CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace cuprim::detail
