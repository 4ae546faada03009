// cuprim/blas/gemm.cuh: general matrix multiply with BLAS conventions (host entry points).
//
//   cuprim::blas::gemm(op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream)
//        C = alpha · op(A) · op(B) + beta · C, column-major as in BLAS and cuBLAS: op(A) is m × k, op(B) is k × n,
//        C is m × n, and element (i, j) of an array X with leading dimension ldx is X[i + j·ldx]. op(X) is X for
//        blas::op::N and its transpose for blas::op::T (for real types, BLAS's 'C' is 'T').
//   cuprim::blas::gemm_row_major(op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream)
//        the same product over row-major arrays (element (i, j) at X[i·ldx + j]; lda ≥ the stored columns).
//   cuprim::blas::gemm_strided_batched(op_a, op_b, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc,
//                                      stride_c, batch, stream)
//        `batch` independent products of one shape: C_z = alpha · op(A_z) · op(B_z) + beta · C_z with A_z at
//        A + z·stride_a, B_z at B + z·stride_b, C_z at C + z·stride_c (strides in elements), z = 0 .. batch - 1.
//   cuprim::blas::gemm_batched(op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, batch, stream)
//        the same with the operands found through pointer arrays: A_z = A[z], B_z = B[z], C_z = C[z], where A, B
//        and C (const T* const*, const T* const*, T* const*) are arrays of `batch` pointers in device memory.
//   cuprim::blas::gemm_strided_batched_row_major(...), gemm_batched_row_major(...)   the batched forms over
//        row-major arrays (as gemm_row_major; the arguments in the same order as their column-major forms).
//   cuprim::blas::gemm(math mode, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream)
//   cuprim::blas::gemm_row_major(math mode, ...)
//        float operands in the math mode `mode` (blas::math::fp32, tf32 or tf32x3; see "Math modes" below).
//   cuprim::blas::gemm(..., C, ldc, workspace ws, stream), gemm_row_major(..., workspace ws, stream)
//        16-bit inputs only: the same product in the caller's workspace, sized by
//        cuprim::blas::gemm_workspace_bytes<In, Out>(op_a, op_b, m, n, k) (gemm_row_major_workspace_bytes for the
//        row-major form; see "Workspace" below).
//
// Types: float and double, computed in the element type (true FP32 and FP64, no reduced-precision inputs; float may
// opt into tensor cores by a math mode, below): float on
// CUDA cores, each element's sum over k in increasing order of fused multiply-adds; double on Hopper's FP64 tensor
// cores where the operands allow (below), whose products are exact and sums in FP64, else on CUDA cores like float.
// Results are the same bits from run to run and |error| ≤ k·u·(|alpha|·Σ|a||b|) + u·|beta·c| to first order
// (u = 2^-24 or 2^-53).
//
// float on CUDA cores: the whole 128 × 256 tiles of C run an interior kernel (8 × 16 elements per thread, no bounds
// checks in its loop; ~0.96x cublasSgemm at 8192³ on an H100) where A, B and C are 16-byte aligned with leading
// dimensions of whole 16-byte vectors and k ≥ 8; the columns and rows past the last whole tile, and every other call,
// run the split kernel (128 × 128 tiles, any shape and alignment). Both sum each element over k in the same order;
// which kernel computes an element depends only on the shape and the alignment (gemm_policy::interior_n;
// docs/tuning/blas.md).
//
// double on FP64 tensor cores: on sm_90 devices with A and B 16-byte aligned, lda and ldb even and m, n, k below
// 2^31 - 512, gemm and gemm_row_major run mma.sync m16n8k8 f64 fed by TMA (blas/detail/gemm_dmma_kernel.cuh; plain
// sm_90 code, so any build for sm_90 or sm_90a has it); other layouts, other devices and binaries without sm_90 code
// take the CUDA-core kernel. The two paths sum in different orders (each the same from run to run). The batched
// forms of double keep the CUDA-core kernel for now.
//
// 16-bit inputs: gemm and gemm_row_major also take __nv_bfloat16 or __half A and B with float alpha and beta and C
// of the input type or float. Products are exact in fp32 and summed in fp32 on tensor cores (whose sums inside a k16
// step need not round like sequential FMAs); the tests hold every element to 4·k·2^-24·|alpha|·Σ|a||b|, plus one
// rounding of the result to C's type (2^-8 relative for bfloat16, 2^-11 for half). On sm_90 devices with A and B
// 16-byte aligned, lda and ldb multiples of 8 and m, n, k below 2^31, the Hopper kernel runs (wgmma fed by TMA,
// blas/detail/gemm_sm90_kernel.cuh; it needs the binary built for sm_90a, e.g. CMAKE_CUDA_ARCHITECTURES=90a);
// anything else takes a CUDA-core kernel with the same semantics (gemm_mixed_kernel: correct, much slower). The
// plain form (no workspace argument) first copies an operand whose columns are not 128-byte aligned (a leading
// dimension not a multiple of 64, or a pointer off 128 bytes: TMA reads such columns slowly, or not at all when ld
// is not a multiple of 8) into a temporary from the current memory resource with ld rounded up to 64, when the
// product has at least blas::gemm_sm90_pack_min_volume (2^27) multiply-adds and the operand 64 stored rows or more;
// the workspace form takes the operands as they are. The
// sum's order depends on the path and the plan below, not on the run: repeated calls give the same bits. Batched
// forms take float and double only.
//
// 16-bit shapes. The Hopper kernel's tile is chosen per call from the shape and the device's SM count
// (blas::gemm_sm90_plan_for, a table in blas/detail/gemm_tuning.cuh): 256 × 128 tiles of C for large products,
// 128 × 128, 64 × 128 or 64 × 64 for small and skinny ones. When the tiles alone leave SMs idle (a product with few
// tiles and a long k: m = 16, n = 4096, k = 16384 has 32 tiles of 64 × 128 for 132 SMs), the plan splits k: each
// of s slices of the k steps (2 ≤ s ≤ 16, each at least 2048 deep) is summed by its own blocks into fp32 partial sums
// in a workspace, then one reduction kernel adds the slices in order and writes C = alpha·Σ + beta·C (C read only
// when beta ≠ 0, so NaN in C still does not propagate with beta = 0). A split sums in another order than an unsplit
// product (within the same bound), the same bits from run to run. A tuning cache (core/tuning.hpp; `cuprim-lab tune
// gemm`) may name another plan for the call's types, op pair and shape bucket: the tuned call then runs that tile and
// split (a forced count of slices, which may be shallower than 2048), and gemm_workspace_bytes sizes it
// (detail::gemm_sm90_cached_plan).
//
// Math modes (float operands, the overloads taking a blas::math first; cuBLAS's math modes, explicit per call).
//   math::fp32     true FP32 on CUDA cores, exactly the overload without a mode (above).
//   math::tf32     tensor cores, each float read as tf32 (its sign, exponent and top 10 mantissa bits: the low 13
//                  bits are dropped, a relative change of less than 2^-10 per operand), the products exact and summed
//                  in fp32. The tests hold every element to (2^-9 + 4·k·2^-24)·|alpha|·Σ|a||b| + 2^-24·|beta·c|.
//   math::tf32x3   tensor cores, each float split into a tf32 high part and a tf32 low part (both rounded to
//                  nearest; blas/detail/gemm_tf32_pack_kernel.cuh), three products per pair, lo·hi + hi·lo + hi·hi,
//                  summed in fp32: each product within about 3·2^-22 of |a·b| (the dropped lo·lo and the low parts'
//                  roundings), so the sum's error is that of FP32 summation for any k past a few dozen. The tests
//                  hold every element to (2^-19 + 4·k·2^-24)·|alpha|·Σ|a||b| + 2^-24·|beta·c|; the lab shows the
//                  measured error beside cuBLAS SGEMM's.
// They run on the Hopper kernel (sm_90a, as 16-bit inputs do), which reads 32-bit operands K-major only: an operand
// that is not (A with op N, B with op T) or that TMA cannot read (not 16-byte aligned, ld not a multiple of 4), and
// under tf32x3 every operand (its two parts), is first packed into a temporary K-major copy from the current memory
// resource (stream-ordered; about 8 bytes moved per element of A and B, 12 under tf32x3). The tile and split are
// chosen as for 16-bit inputs (blas::gemm_sm90_plan_for), the stages refitted (blas::gemm_tf32_policy); a split
// takes its fp32 sums from the same temporary. Where that kernel cannot run (another device, a binary without
// sm_90a code, sizes of 2^31 or more) every mode computes in true FP32: a mode allows the reduced precision, it does
// not demand it. The same bits from run to run for one device and shape; Inf and NaN in A or B give non-finite
// results (tf32x3 may give NaN where FP32 gives ±Inf: an infinite part times the other operand's zero low part), and
// beta = 0 never reads C. Workspace: gemm_workspace_bytes(mode, op_a, op_b, m, n, k) (gemm_row_major_workspace_bytes
// for the row-major form) sizes the packed operands and a split's sums for the op pair; the overloads taking a
// `workspace` use the caller's (allocating nothing; graph-capturable), the plain ones allocate that much (and a copy
// of an operand TMA cannot read) from the current memory resource. A workspace call under math::tf32 whose K-major
// operand TMA cannot read (not 16-byte aligned, ld not a multiple of 4) computes in true FP32 instead of packing it.
//
// Workspace (16-bit inputs). gemm_workspace_bytes<In, Out, Policy>(op_a, op_b, m, n, k) is 0 unless the plan splits
// k, then s · m · n · 4 bytes (each slice rounded up to 256 bytes); with cuprim::tuned it reads the current device (0
// without one, or where the Hopper kernel cannot run), an explicit policy that forces its split needs no device. The
// plain form takes that much from the current memory resource (stream-ordered) only when it splits (and what it
// repacks, above), and nothing otherwise; the workspace overload takes the caller's (at least gemm_workspace_bytes,
// 256-byte aligned, contents need not be initialised), allocates nothing and can be captured in a CUDA graph. A workspace smaller than
// gemm_workspace_bytes of the call's arguments (or with null data when that is not 0) is an invalid_argument, even
// where the call would not split (unaligned operands taking the CUDA-core kernel).
//
// Semantics, exactly BLAS's: m = 0 or n = 0 does nothing; k = 0 or alpha = 0 sets C = beta·C (A and B are not read);
// beta = 0 writes C without reading it, so NaN or Inf already in C do not propagate. Any shape, leading dimension and
// alignment; sizes and leading dimensions are 64-bit. No workspace for float and double (16-bit inputs: see
// "Workspace" above); the call is ordered on `stream` and returns without waiting for the GPU (graph-capturable; the
// 16-bit forms that split k in the workspace overload).
//
// Batched forms. Each batch is exactly one gemm call of the shape (the same semantics, bounds and bits as gemm on
// that batch's arrays, for float; double's batches run on CUDA cores, see above); batch = 0 does nothing once the
// arguments pass (no CUDA call at all). One launch covers every batch. Small products — m, n and k all at most
// blas::gemm_small_max (64) — take the small kernel (blas/detail/gemm_small_kernel.cuh, which gives the bound): a
// group of threads per product (a warp per 16 × 16 float product), several products per block, a persistent grid
// walking the batches, operands staged through shared memory with the next batch's loads in flight; its tile is the
// smallest of 16, 32 and 64 that holds max(m, n) (blas::gemm_small_tile), its policy a row of
// blas::gemm_small_policy_for. Its sums are those of the general kernel (k in increasing order of FMAs from zero,
// then alpha·acc + beta·c), so the bits are gemm's, up to the sign of an exactly zero sum. Larger products run the
// general kernel with the batch as blockIdx.z (at most 65535 per launch; the kernels loop over z + 65535,
// z + 2·65535, ... beyond), a batch's operand addresses formed once, at the start of its tiles. Either kernel takes
// its 16-byte paths per batch where that batch's pointers are aligned (and the leading dimensions and, for the small
// kernel, the stored rows are whole 16-byte vectors), element accesses otherwise. Rules, besides gemm's on the
// shape: batch ≥ 0; stride_a, stride_b, stride_c ≥ 0 (stride_a or stride_b 0 reuses one operand for every batch);
// the batches of C must not overlap each other: stride_c ≥ the elements one C spans ((n - 1)·ldc + m column-major;
// (m - 1)·ldc + n row-major) unless batch ≤ 1; C's whole strided extent (from C to the last batch's last element)
// must not overlap A's or B's whole extent (this also refuses interleaved layouts whose elements would not collide:
// lay batches out one after another). Pointer-array form: A, B (when m, n, k > 0) and C (when m, n > 0) must not be
// null when batch > 0; the arrays must be readable by the device, and the matrices they point to must be valid,
// distinct for C and disjoint from A's and B's: none of that can be checked on the host (a bad pointer faults on the
// device, an aliased C gives an undefined result).
//
// Algorithm (blas/detail/gemm_kernel.cuh): a block per tile of C, both operands' tiles staged through shared memory
// with the next tiles' loads in flight, 2-D register blocking (float: 16-byte loads and stores where the operands
// are 16-byte aligned with leading dimensions of whole 16-byte vectors; any other layout takes element accesses). 16-bit
// inputs and double on FP64 tensor cores: see above; float in the tf32 modes: see "Math modes"; the batched forms'
// small products: blas/detail/gemm_small_kernel.cuh (see "Batched forms").
//
// Policy. Each entry point takes an optional cuprim::blas::gemm_policy as its first template argument (default
// cuprim::tuned: gemm_policy_for<T> for the device; blas/detail/gemm_tuning.cuh; an explicit gemm_policy runs the
// general kernel for every shape, the batched forms' small products included); the batched forms also take a
// cuprim::blas::gemm_small_policy (the small kernel with that policy where its tile holds m and n and k ≤ 64, the
// tuned general kernel elsewhere); the 16-bit forms take a
// cuprim::blas::gemm_sm90_policy (stages, group, cluster, staged store, tile_m, consumers, splits) for their
// tensor-core kernel, which then runs that tile for every shape (splits = 0: the chooser's split for that tile; 1:
// never; s ≥ 2: s slices, fewer when k has fewer steps of 64); cuprim::tuned chooses tile and split per call. For double, gemm and
// gemm_row_major also take a cuprim::blas::gemm_dmma_policy (tile, k per stage, stages, group) for the FP64
// tensor-core kernel (the CUDA-core kernel's table row where it cannot run); cuprim::tuned takes gemm_dmma_policy_for
// where the FP64 tensor cores can run, and an explicit gemm_policy always runs the CUDA-core kernel.
//
// Errors. cuprim::invalid_argument before anything runs: m, n or k negative; lda below max(1, the rows of A as
// stored: m for op N, k for op T), ldb below max(1, k or n), ldc below max(1, m); A, B or C null where its operand
// is non-empty; C overlapping A or B (A and B may overlap each other: both are only read); a grid too large for
// one launch; and the batched forms' rules above; a 16-bit call's workspace smaller than gemm_workspace_bytes.
// cuprim::cuda_error for a failed launch or an error already pending.
#pragma once

#include <cuprim/blas/detail/gemm_dmma_launch.cuh>
#include <cuprim/blas/detail/gemm_kernel.cuh>
#include <cuprim/blas/detail/gemm_small_kernel.cuh>
#include <cuprim/blas/detail/gemm_sm90_launch.cuh>
#include <cuprim/blas/detail/gemm_tf32_pack_kernel.cuh>
#include <cuprim/blas/detail/gemm_tuning.cuh>
#include <cuprim/blas/op.hpp>
#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/tuning.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/launch.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuprim::blas {

/// The arithmetic a float gemm may use (see the file comment, "Math modes"): what it allows, not what it demands
/// (where the tensor-core kernel cannot run, every mode computes in true FP32).
enum class math {
  fp32,    ///< true FP32 on CUDA cores (the default of the overloads without a mode)
  tf32,    ///< tensor cores on the floats read as tf32 (10 mantissa bits): about 2^-10 of |a·b| per product
  tf32x3,  ///< tensor cores on each float split into two tf32 parts, three products: about 2^-20 of |a·b|
};

}  // namespace cuprim::blas

namespace cuprim::detail {

/// Bytes spanned by a column-major rows × cols array with leading dimension ld (0 when empty).
inline std::size_t gemm_span_bytes(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::size_t elem) {
  if (rows <= 0 || cols <= 0) return 0;
  return (std::size_t(cols - 1) * std::size_t(ld) + std::size_t(rows)) * elem;
}

inline void gemm_check_ld(const char* fn, const char* arg, std::int64_t ld, std::int64_t rows) {
  if (ld < std::max<std::int64_t>(1, rows)) {
    std::string rule = "must be at least max(1, ";
    rule += std::to_string(rows);
    rule += "), the rows of the array as stored";
    throw_invalid(fn, arg, rule.c_str());
  }
}

/// The caller's names of the column-major view's arguments: the row-major form computes Cᵀ = op(B)ᵀ · op(A)ᵀ, so
/// its B, ldb, n and op_b are the view's A, lda, m and op_a.
struct gemm_names {
  const char *m, *n, *a, *lda, *op_a, *b, *ldb, *op_b;
};
inline constexpr gemm_names gemm_column_major{"m", "n", "A", "lda", "op_a", "B", "ldb", "op_b"};
inline constexpr gemm_names gemm_row_major_view{"n", "m", "B", "ldb", "op_b", "A", "lda", "op_a"};

/// The CUDA-core kernels' grid of tile_m × tile_n tiles (x along m, y along n), refused when too large for a launch.
inline std::pair<std::uint64_t, std::uint64_t> gemm_grid(const char* fn, const gemm_names& nm, std::int64_t m,
                                                         std::int64_t n, int tile_m, int tile_n) {
  const std::uint64_t tiles_m = (std::uint64_t(m) + tile_m - 1) / tile_m;
  const std::uint64_t tiles_n = (std::uint64_t(n) + tile_n - 1) / tile_n;
  if (tiles_m > 0x7fffffffu) throw_invalid(fn, nm.m, "too large for one launch");
  if (tiles_n > 65535) throw_invalid(fn, nm.n, "too large for one launch (at most 65535 tiles of columns)");
  return {tiles_m, tiles_n};
}

/// C = beta·C over m × n (k = 0 or alpha = 0; C unread when beta is 0), S: the scalars' type.
template <class T, class S>
void gemm_scale(const char* fn, T* c, std::int64_t m, std::int64_t n, std::int64_t ldc, S beta, cudaStream_t stream) {
  constexpr unsigned threads = 256;
  const dim3 grid(unsigned((std::uint64_t(m) + threads - 1) / threads), unsigned(std::min<std::int64_t>(n, 65535)));
  gemm_scale_kernel<<<grid, threads, 0, stream>>>(c, m, n, ldc, beta);
  check_launch(fn);
}

/// The argument rules of gemm, on the column-major view (names: the caller's).
/// `arrays` false: the shape rules only (the batched forms check their arrays themselves).
template <class T, class TC>
void gemm_validate(const char* fn, const gemm_names& nm, blas::op op_a, blas::op op_b, std::int64_t m,
                   std::int64_t n, std::int64_t k, const T* a, std::int64_t lda, const T* b, std::int64_t ldb,
                   const TC* c, std::int64_t ldc, bool arrays = true) {
  check_size(fn, nm.m, m, sizeof(T));
  check_size(fn, nm.n, n, sizeof(T));
  check_size(fn, "k", k, sizeof(T));
  const bool ta = op_a == blas::op::T, tb = op_b == blas::op::T;
  if (op_a != blas::op::N && !ta) throw_invalid(fn, nm.op_a, "must be blas::op::N or blas::op::T");
  if (op_b != blas::op::N && !tb) throw_invalid(fn, nm.op_b, "must be blas::op::N or blas::op::T");
  const std::int64_t a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
  gemm_check_ld(fn, nm.lda, lda, a_rows);
  gemm_check_ld(fn, nm.ldb, ldb, b_rows);
  gemm_check_ld(fn, "ldc", ldc, m);
  if (!arrays) return;
  const bool product = m > 0 && n > 0 && k > 0;
  check_pointer(fn, nm.a, a, product);
  check_pointer(fn, nm.b, b, product);
  check_pointer(fn, "C", c, m > 0 && n > 0);
  if (product)
    check_overlaps(fn, {{nm.a, a, gemm_span_bytes(a_rows, a_cols, lda, sizeof(T)), read_only},
                        {nm.b, b, gemm_span_bytes(b_rows, b_cols, ldb, sizeof(T)), read_only},
                        {"C", c, gemm_span_bytes(m, n, ldc, sizeof(TC)), written}});
}

/// The policy argument's roles for float and double: cuprim::tuned (the tables' rows: the FP64 tensor-core kernel
/// for double where it takes the operands), a gemm_policy (the CUDA-core kernel with that policy, for every layout)
/// or, for double, a gemm_dmma_policy (the FP64 tensor-core kernel with that policy where it takes the operands,
/// the CUDA-core kernel's table row elsewhere).
template <auto Policy>
constexpr bool gemm_policy_is_dmma = std::is_same_v<std::remove_cvref_t<decltype(Policy)>, blas::gemm_dmma_policy>;
template <auto Policy>
constexpr auto gemm_simt_policy_arg() {
  if constexpr (gemm_policy_is_dmma<Policy>) {
    return tuned;
  } else {
    return Policy;
  }
}
template <auto Policy>
constexpr blas::gemm_dmma_policy gemm_dmma_policy_arg(int arch) {
  if constexpr (gemm_policy_is_dmma<Policy>) {
    return Policy;
  } else {
    return blas::gemm_dmma_policy_for(arch);
  }
}

/// The float split path: the interior kernel over the whole tile_m × interior_n tiles of C where the operands allow
/// it (16-byte aligned with leading dimensions of whole vectors, k ≥ tile_k), the split kernel over the rest: the
/// columns past the last whole tile (every row), then the rows below the last whole tile (the interior's columns).
/// Every element is summed the same way by either kernel.
template <blas::gemm_policy P>
void gemm_simt_float_launch(const gemm_args<float>& g, cudaStream_t stream) {
  const auto split = [&](const gemm_args<float>& e) {
    const dim3 grid{unsigned((e.m + P.tile_m - 1) / P.tile_m), unsigned((e.n + P.tile_n - 1) / P.tile_n), 1u};
    gemm_simt_split_kernel<policy_constant<P>><<<grid, P.threads(), 0, stream>>>(e);
  };
  if constexpr (P.interior_n > 0) {
    const std::int64_t mi = g.m / P.tile_m * P.tile_m, ni = g.n / P.interior_n * P.interior_n;
    if (g.vec_a && g.vec_b && g.vec_c && mi > 0 && ni > 0 && g.k >= P.tile_k &&
        g.k / P.tile_k <= std::numeric_limits<int>::max()) {
      const dim3 grid{unsigned(mi / P.tile_m), unsigned(ni / P.interior_n), 1u};
      const bool tail = g.k % P.tile_k != 0;
      const auto interior = [&]<bool TA, bool TB>() {
        if (tail)
          gemm_simt_interior_kernel<policy_constant<P>, TA, TB, true><<<grid, 256, 0, stream>>>(g);
        else
          gemm_simt_interior_kernel<policy_constant<P>, TA, TB, false><<<grid, 256, 0, stream>>>(g);
      };
      if (g.trans_a)
        g.trans_b ? interior.template operator()<true, true>() : interior.template operator()<true, false>();
      else
        g.trans_b ? interior.template operator()<false, true>() : interior.template operator()<false, false>();
      if (ni < g.n) {  // the columns [ni, n), every row
        gemm_args<float> e = g;
        e.n = g.n - ni;
        e.b = g.trans_b ? g.b + ni : g.b + ni * g.ldb;
        e.c = g.c + ni * g.ldc;
        split(e);
      }
      if (mi < g.m) {  // the rows [mi, m) of the columns [0, ni)
        gemm_args<float> e = g;
        e.m = g.m - mi;
        e.n = ni;
        e.a = g.trans_a ? g.a + mi * g.lda : g.a + mi;
        e.c = g.c + mi;
        split(e);
      }
      return;
    }
  }
  split(g);
}

/// gemm_run after its validation: the launches alone. Callers that have checked the arguments by their own rules
/// come here directly (trsm's updates read and write disjoint rows of one array, which gemm's whole-span overlap
/// rule would refuse).
template <auto Policy, class T>
void gemm_dispatch(const char* fn, const gemm_names& nm, blas::op op_a, blas::op op_b, std::int64_t m, std::int64_t n,
                   std::int64_t k, T alpha, const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c,
                   std::int64_t ldc, cudaStream_t stream) {
  with_tuned_arch([&]<int Arch>() {
    constexpr blas::gemm_policy P = pick_policy<gemm_simt_policy_arg<Policy>()>(blas::gemm_policy_for<T>(Arch));
    const auto [tiles_m, tiles_n] = gemm_grid(fn, nm, m, n, P.tile_m, P.tile_n);
    check_no_pending_error(fn);
    if (m == 0 || n == 0) return;
    if (k == 0 || alpha == T(0)) return gemm_scale(fn, c, m, n, ldc, beta, stream);
    if constexpr (std::is_same_v<T, double> && !std::is_same_v<std::remove_cvref_t<decltype(Policy)>, blas::gemm_policy>) {
      constexpr blas::gemm_dmma_policy PD = gemm_dmma_policy_arg<Policy>(Arch);
      if (gemm_dmma_eligible<PD>(get_device_info(), m, n, k, a, lda, b, ldb)) {
        gemm_dmma_launch<PD>(fn, op_a == blas::op::T, op_b == blas::op::T, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                             stream);
        return;
      }
    }
    const auto vec = [](const T* p, std::int64_t ld) {
      return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && (ld * std::int64_t(sizeof(T))) % 16 == 0;
    };
    const gemm_args<T> g{a,     b,    c,    m,    n,    k,    lda, ldb, ldc, alpha, beta, op_a == blas::op::T,
                         op_b == blas::op::T, vec(a, lda), vec(b, ldb), vec(c, ldc)};
    const dim3 grid{unsigned(tiles_m), unsigned(tiles_n), 1u};
    if constexpr (P.split && std::is_same_v<T, float>) {
      gemm_simt_float_launch<P>(g, stream);
    } else {
      gemm_simt_kernel<policy_constant<P>><<<grid, P.threads(), 0, stream>>>(g);
    }
    check_launch(fn);
  });
}

/// Every gemm ends here: validate, then the scaling kernel (k = 0 or alpha = 0), the FP64 tensor-core kernel (double,
/// where it takes the operands) or the CUDA-core kernel.
template <auto Policy, class T>
void gemm_run(const char* fn, const gemm_names& nm, blas::op op_a, blas::op op_b, std::int64_t m, std::int64_t n, std::int64_t k, T alpha,
              const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc,
              cudaStream_t stream) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "cuprim::blas::gemm: float or double here (16-bit inputs take the overload with float scalars)");
  static_assert(!gemm_policy_is_dmma<Policy> || std::is_same_v<T, double>,
                "cuprim::blas::gemm: a gemm_dmma_policy is for double");
  gemm_validate(fn, nm, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc);
  gemm_dispatch<Policy>(fn, nm, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream);
}

/// 16-bit inputs with float scalars and accumulators: __nv_bfloat16 or __half, C of the same type or float.
template <class In, class Out>
constexpr bool gemm_tensor_types =
    (std::is_same_v<In, __nv_bfloat16> || std::is_same_v<In, __half>) && (std::is_same_v<Out, In> || std::is_same_v<Out, float>);

/// The tensor-core plan of a 16-bit gemm, from its shape alone: the tile row (gemm_sm90_tile_row_for; -1: the
/// caller's explicit policy), the k slices, and the workspace they take (what gemm_workspace_bytes returns).
struct gemm_tensor_plan {
  int row = 0;
  int splits = 1;
  std::size_t bytes = 0;
};

/// The tuning cache's name of a 16-bit gemm's element types: "bf16" or "fp16" for C of the input type, "bf16->float"
/// or "fp16->float" for float C.
template <class In, class Out>
constexpr const char* gemm_tensor_types_name() {
  constexpr bool bf = std::is_same_v<In, __nv_bfloat16>, same = std::is_same_v<Out, In>;
  return bf ? (same ? "bf16" : "bf16->float") : (same ? "fp16" : "fp16->float");
}

/// A candidate's plan for (m, n, k) on sm_count SMs: its row and its split rule's count (gemm_sm90_splits), a forced
/// count normalised as the launch normalises it (blas::gemm_sm90_whole_slices), so that two rules launching the same
/// slices are one plan and the workspace is sized for what runs.
inline blas::gemm_sm90_plan gemm_sm90_candidate_plan(const blas::gemm_sm90_candidate& c, std::int64_t m,
                                                     std::int64_t n, std::int64_t k, int sm_count) {
  const int s = blas::gemm_sm90_splits(c.policy, m, n, k, sm_count);
  return {c.row, s > 1 ? blas::gemm_sm90_whole_slices((k + 63) / 64, s) : s};
}

/// The tuning cache's plan for a tuned 16-bit gemm of (m, n, k) on a device of tuned architecture `arch`
/// (core/tuning.hpp): the first entry of op "gemm" for the types (gemm_tensor_types_name), the op pair ("NN", "TN",
/// ...: op_a's letter first) and a shape bucket holding (m, n, k) decides: if it names a candidate
/// (blas::gemm_sm90_candidates, by its policy's fields), that candidate's plan; otherwise (no entry, an entry naming
/// no candidate, a "default" entry) nullopt, the chooser's plan. Always nullopt under CUPRIM_USE_TUNING_CACHE=0 and
/// for the tf32 modes (In is not a 16-bit type: no tuner measures them). Entries are matched at alignment 16 whatever
/// the operands' (the plan depends on the shape alone, so that gemm_workspace_bytes sees the call's plan). A
/// row-major call is looked up as the column-major product it runs (op pair and m, n swapped).
template <class In, class Out>
std::optional<blas::gemm_sm90_plan> gemm_sm90_cached_plan(int arch, std::int64_t m, std::int64_t n, std::int64_t k,
                                                          bool ta, bool tb, int sm_count) {
#if CUPRIM_USE_TUNING_CACHE
  if constexpr (std::is_same_v<In, __nv_bfloat16> || std::is_same_v<In, __half>) {
    if (!tuning::active()) return std::nullopt;
    const char layout[3] = {ta ? 'T' : 'N', tb ? 'T' : 'N', 0};
    const std::int64_t dims[3] = {m, n, k};
    const auto entry = tuning::lookup_shape("gemm", gemm_tensor_types_name<In, Out>(), layout, 16, dims);
    if (!entry || entry->policy_name != blas::gemm_sm90_policy::name) return std::nullopt;
    // The candidates' fields, flattened once per architecture the tables know (sm_90 today).
    static const std::vector<tuning::policy_fields> flat90 = [] {
      std::vector<tuning::policy_fields> v;
      for (const blas::gemm_sm90_candidate& c : blas::gemm_sm90_candidates(90)) v.push_back(tuning::flatten(c.policy));
      return v;
    }();
    const auto cands = blas::gemm_sm90_candidates(arch);
    for (std::size_t i = 0; i < cands.size(); ++i)
      if ((arch == 90 ? flat90[i] : tuning::flatten(cands[i].policy)) == entry->policy)
        return gemm_sm90_candidate_plan(cands[i], m, n, k, sm_count);
  }
#else
  (void)arch, (void)m, (void)n, (void)k, (void)ta, (void)tb, (void)sm_count;
#endif
  return std::nullopt;
}

/// The plan for m × n × k under Policy. cuprim::tuned: the tuning cache's (gemm_sm90_cached_plan), else
/// gemm_sm90_plan_for on the current device's SMs (no
/// workspace where the tensor-core kernel cannot run: no device, not sm_90, a binary without sm_90a code); an
/// explicit policy: its own split (splits = 0: chosen for the current device's SMs, 1 slice without a device). An
/// explicit policy with splits = 1 or ≥ 2 needs no device.
template <auto Policy, class In, class Out>
gemm_tensor_plan gemm_tensor_plan_for(std::int64_t m, std::int64_t n, std::int64_t k, bool ta, bool tb) {
  gemm_tensor_plan plan{};
  if (m <= 0 || n <= 0 || k <= 0) return plan;
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(Policy)>, tuned_t>) {
    if (!has_device()) return plan;
    const device_info& dev = get_device_info();
    if (dev.arch() != 90 || !gemm_sm90_built<In, Out>()) return plan;
    const blas::gemm_sm90_plan p = with_tuned_arch([&]<int Arch>() {
      if (const auto cached = gemm_sm90_cached_plan<In, Out>(Arch, m, n, k, ta, tb, dev.sm_count)) return *cached;
      return blas::gemm_sm90_plan_for(Arch, m, n, k, ta, tb, dev.sm_count);
    });
    plan.row = p.row;
    plan.splits = p.splits;
  } else {
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(Policy)>, blas::gemm_sm90_policy>,
                  "cuprim::blas::gemm: 16-bit inputs take cuprim::tuned or a cuprim::blas::gemm_sm90_policy");
    plan.row = -1;
    if (Policy.splits == 1 || (Policy.splits == 0 && !has_device())) return plan;
    plan.splits = blas::gemm_sm90_splits(Policy, m, n, k, Policy.splits == 0 ? get_device_info().sm_count : 0);
  }
  plan.bytes = gemm_splitk_layout(m, n, plan.splits).bytes();
  return plan;
}

/// Whether the plain 16-bit gemm repacks an operand of `rows` stored rows (blas::gemm_sm90_pack_min_volume): columns
/// not 128-byte aligned, and at least 64 rows (a narrower operand would grow by the padding).
template <class In>
bool gemm_pack_wanted(const In* p, std::int64_t rows, std::int64_t ld) {
  constexpr std::int64_t per_128 = 128 / sizeof(In);
  return rows >= 64 && (ld % per_128 != 0 || reinterpret_cast<std::uintptr_t>(p) % 128 != 0);
}

/// gemm of 16-bit inputs: validate, plan (or the `forced` one: the tuner's; cuprim::tuned only), the caller's
/// workspace checked against the plan's bytes, then the scaling kernel (k = 0 or alpha = 0), the tensor-core kernel
/// where it takes the operands (its split-k sums in the caller's workspace, or in one from the current memory
/// resource when ws is null), or the CUDA-core fallback.
template <auto Policy, class In, class Out>
void gemm_tensor_run(const char* fn, const gemm_names& nm, blas::op op_a, blas::op op_b, std::int64_t m,
                     std::int64_t n, std::int64_t k, float alpha, const In* a, std::int64_t lda, const In* b,
                     std::int64_t ldb, float beta, Out* c, std::int64_t ldc, const workspace* ws,
                     cudaStream_t stream, const blas::gemm_sm90_plan* forced = nullptr) {
  gemm_validate(fn, nm, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc);
  const bool ta = op_a == blas::op::T, tb = op_b == blas::op::T;
  gemm_tensor_plan plan = gemm_tensor_plan_for<Policy, In, Out>(m, n, k, ta, tb);
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(Policy)>, tuned_t>) {
    if (forced) {
      plan.row = forced->row;
      plan.splits = forced->splits;
      plan.bytes = gemm_splitk_layout(m, n, plan.splits).bytes();
    }
  } else {
    if (forced) throw_invalid(fn, "plan", "a forced plan takes cuprim::tuned");
  }
  check_workspace(fn, ws, plan.bytes, "gemm_workspace_bytes(op_a, op_b, m, n, k)");
  const bool product = m > 0 && n > 0 && k > 0 && alpha != 0.f;
  const device_info& dev = get_device_info();
  // The plain form repacks operands whose columns are not 128-byte aligned (blas::gemm_sm90_pack_min_volume).
  const std::int64_t a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
  const bool runs_here = product && gemm_sm90_runs_here<In, Out>(dev, m, n, k);
  const bool big = double(m) * double(n) * double(k) >= blas::gemm_sm90_pack_min_volume;
  const bool pack_a = runs_here && !ws && big && gemm_pack_wanted(a, a_rows, lda);
  const bool pack_b = runs_here && !ws && big && gemm_pack_wanted(b, b_rows, ldb);
  const std::int64_t lda_p = pack_a ? (a_rows + 63) / 64 * 64 : lda, ldb_p = pack_b ? (b_rows + 63) / 64 * 64 : ldb;
  const bool tensor = runs_here && (pack_a || gemm_sm90_operand_ok(a, lda)) && (pack_b || gemm_sm90_operand_ok(b, ldb));
  constexpr std::int64_t tile = 64;  // the fallback's tile (the tensor-core grid is persistent)
  if (product && !tensor) {
    if ((std::uint64_t(m) + tile - 1) / tile > 0x7fffffffu) throw_invalid(fn, nm.m, "too large for one launch");
    if ((std::uint64_t(n) + tile - 1) / tile > 65535)
      throw_invalid(fn, nm.n, "too large for one launch of the CUDA-core path (at most 65535 tiles of 64 columns)");
  }
  check_no_pending_error(fn);
  if (m == 0 || n == 0 || (!product && beta == 1.f)) return;  // BLAS's quick return
  if (!product) return gemm_scale(fn, c, m, n, ldc, beta, stream);
  if (tensor) {
    // The split's fp32 sums: the caller's workspace, or (only when the plan splits) the current memory resource's.
    const auto launch = [&](float* partial) {
      with_tuned_arch([&]<int Arch>() {
        const auto run = [&]<blas::gemm_sm90_policy P>() {
          gemm_sm90_launch<P, In, Out>(fn, dev, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, plan.splits,
                                       partial, stream);
        };
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(Policy)>, tuned_t>) {
          switch (plan.row) {
            case 1: return run.template operator()<blas::gemm_sm90_tile_row_for(Arch, 1).policy>();
            case 2: return run.template operator()<blas::gemm_sm90_tile_row_for(Arch, 2).policy>();
            case 3: return run.template operator()<blas::gemm_sm90_tile_row_for(Arch, 3).policy>();
            default: return run.template operator()<blas::gemm_sm90_tile_row_for(Arch, 0).policy>();
          }
        } else {
          run.template operator()<Policy>();
        }
      });
    };
    static_assert(blas::gemm_sm90_tile_rows == 4, "gemm_tensor_run: dispatch every row of gemm_sm90_tile_row_for");
    if (pack_a || pack_b) {
      // One temporary: the split's sums, then the packed copies (each 256-byte aligned); TMA reads nothing of the
      // padding rows (its maps end at the stored rows).
      const auto round = [](std::size_t x) { return (x + 255) / 256 * 256; };
      const std::size_t bytes_a = pack_a ? round(std::size_t(lda_p) * std::size_t(a_cols) * sizeof(In)) : 0;
      const std::size_t bytes_b = pack_b ? round(std::size_t(ldb_p) * std::size_t(b_cols) * sizeof(In)) : 0;
      with_workspace(nullptr, plan.bytes + bytes_a + bytes_b, stream, [&](const workspace& w) {
        auto* base = static_cast<unsigned char*>(w.data);
        const auto pack = [&](const In* src, std::int64_t ld, std::int64_t rows, std::int64_t cols, std::int64_t ld_p,
                              std::size_t offset) {
          In* dst = reinterpret_cast<In*>(base + offset);
          CUPRIM_CUDA_CHECK(cudaMemcpy2DAsync(dst, std::size_t(ld_p) * sizeof(In), src, std::size_t(ld) * sizeof(In),
                                              std::size_t(rows) * sizeof(In), std::size_t(cols),
                                              cudaMemcpyDeviceToDevice, stream));
          return static_cast<const In*>(dst);
        };
        if (pack_a) a = pack(a, lda, a_rows, a_cols, lda_p, plan.bytes);
        if (pack_b) b = pack(b, ldb, b_rows, b_cols, ldb_p, plan.bytes + bytes_a);
        lda = lda_p;
        ldb = ldb_p;
        launch(plan.splits > 1 ? static_cast<float*>(w.data) : nullptr);
      });
    } else if (plan.splits > 1) {
      with_workspace(ws, plan.bytes, stream, [&](const workspace& w) { launch(static_cast<float*>(w.data)); });
    } else {
      launch(nullptr);
    }
    return;
  }
  const gemm_mixed_args<In, Out> g{a, b, c, m, n, k, lda, ldb, ldc, alpha, beta, ta, tb};
  const dim3 grid{unsigned((m + tile - 1) / tile), unsigned((n + tile - 1) / tile), 1u};
  gemm_mixed_kernel<<<grid, 256, 0, stream>>>(g);
  check_launch(fn);
}


/// The tuned column-major 16-bit gemm run under candidate `candidate` of blas::gemm_sm90_candidates (its row and its
/// split rule applied to m, n, k on the current device) instead of the cache's or the chooser's plan: how the tuner
/// (lab/tune_gemm.cu) and the tests time and check a candidate. Workspace from the current memory resource. Where
/// the tensor-core kernel cannot run, the call takes gemm's other paths as the tuned call would.
template <class In, class Out>
void gemm_tensor_candidate(int candidate, blas::op op_a, blas::op op_b, std::int64_t m, std::int64_t n,
                           std::int64_t k, float alpha, const In* a, std::int64_t lda, const In* b, std::int64_t ldb,
                           float beta, Out* c, std::int64_t ldc, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::detail::gemm_tensor_candidate";
  if (candidate < 0 || candidate >= blas::gemm_sm90_candidate_count)
    throw_invalid(fn, "candidate", "must index blas::gemm_sm90_candidates (0 to gemm_sm90_candidate_count - 1)");
  const int sms = has_device() ? get_device_info().sm_count : 1;
  const blas::gemm_sm90_plan plan = with_tuned_arch([&]<int Arch>() {
    return gemm_sm90_candidate_plan(blas::gemm_sm90_candidates(Arch)[std::size_t(candidate)], m, n, k, sms);
  });
  gemm_tensor_run<tuned, In, Out>(fn, gemm_column_major, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                                  nullptr, stream, &plan);
}

/// The tf32 math modes' temporaries: the split's sums, then each packed operand (256-byte aligned).
struct gemm_tf32_layout {
  bool pack_a = false, pack_b = false;
  std::int64_t ld_p = 0;  // the packed operands' leading dimension: k rounded up to 32 (128-byte rows)
  std::size_t split_bytes = 0, a_bytes = 0, b_bytes = 0;
  std::size_t bytes() const { return split_bytes + a_bytes + b_bytes; }
};

/// Whether a tf32 mode runs m × n × k on the tensor cores here (gemm_sm90_runs_here; tf32x3's packed operands hold 2m
/// and 2n rows, and TMA's coordinates are 32-bit).
template <class In>
bool gemm_tf32_runs_here(std::int64_t m, std::int64_t n, std::int64_t k) {
  constexpr int parts = gemm_sm90_input<In>::parts;
  const bool fits = parts == 1 || (m < (std::int64_t(1) << 30) && n < (std::int64_t(1) << 30));
  return m > 0 && n > 0 && k > 0 && fits && has_device() && gemm_sm90_runs_here<In, float>(get_device_info(), m, n, k);
}

/// The layout for packing what the op pair needs (an MN-major operand; under tf32x3 both), plus under the plain
/// form an operand TMA cannot read (a_fit / b_fit false), after the split's sums of `plan`.
template <class In>
gemm_tf32_layout gemm_tf32_layout_for(const gemm_tensor_plan& plan, std::int64_t m, std::int64_t n, std::int64_t k,
                                      bool ta, bool tb, bool a_fit, bool b_fit) {
  constexpr int parts = gemm_sm90_input<In>::parts;
  gemm_tf32_layout L;
  L.split_bytes = plan.bytes;
  L.pack_a = parts == 2 || !ta || !a_fit;  // op(A)ᵀ K-major: A stored k × m (op T)
  L.pack_b = parts == 2 || tb || !b_fit;   // op(B)ᵀ K-major: B stored k × n (op N)
  L.ld_p = (k + 31) / 32 * 32;
  const auto round = [](std::size_t x) { return (x + 255) / 256 * 256; };
  if (L.pack_a) L.a_bytes = round(std::size_t(parts) * std::size_t(m) * std::size_t(L.ld_p) * sizeof(float));
  if (L.pack_b) L.b_bytes = round(std::size_t(parts) * std::size_t(n) * std::size_t(L.ld_p) * sizeof(float));
  return L;
}

/// What gemm_workspace_bytes sizes for a tf32 mode: nothing where the tensor-core kernel cannot run, else the
/// layout with both operands taken as TMA reads them (the workspace form does not pack for alignment).
template <auto Policy, class In>
std::size_t gemm_tf32_workspace_bytes(std::int64_t m, std::int64_t n, std::int64_t k, bool ta, bool tb) {
  if (!gemm_tf32_runs_here<In>(m, n, k)) return 0;
  return gemm_tf32_layout_for<In>(gemm_tensor_plan_for<Policy, In, float>(m, n, k, ta, tb), m, n, k, ta, tb, true,
                                  true)
      .bytes();
}

/// Row r of the tile table refitted for a tf32 mode of `parts` parts.
constexpr blas::gemm_sm90_policy gemm_tf32_row(int arch, int r, int parts) {
  return blas::gemm_tf32_policy(blas::gemm_sm90_tile_row_for(arch, r).policy, parts);
}

/// gemm of floats in a tf32 mode (In = gemm_tf32 or gemm_tf32x3): validate (the caller's workspace against
/// gemm_workspace_bytes), then as gemm_tensor_run: the tensor-core kernel on K-major operands (an MN-major operand,
/// under tf32x3 every operand, and in the plain form one TMA cannot read, packed by gemm_tf32_pack_kernel into the
/// caller's workspace or a temporary from the current memory resource), or the true-FP32 gemm where that kernel
/// cannot run (and, in the workspace form under tf32, for a K-major operand TMA cannot read).
template <auto Policy, class In>
void gemm_tf32_run(const char* fn, const gemm_names& nm, blas::op op_a, blas::op op_b, std::int64_t m,
                   std::int64_t n, std::int64_t k, float alpha, const float* a, std::int64_t lda, const float* b,
                   std::int64_t ldb, float beta, float* c, std::int64_t ldc, const workspace* ws, cudaStream_t stream) {
  using P_t = std::remove_cvref_t<decltype(Policy)>;
  static_assert(std::is_same_v<P_t, tuned_t> || std::is_same_v<P_t, blas::gemm_sm90_policy>,
                "cuprim::blas::gemm: the tf32 modes take cuprim::tuned or a cuprim::blas::gemm_sm90_policy");
  constexpr int parts = gemm_sm90_input<In>::parts;
  gemm_validate(fn, nm, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc);
  const bool ta = op_a == blas::op::T, tb = op_b == blas::op::T;
  const bool runs = gemm_tf32_runs_here<In>(m, n, k);
  const gemm_tensor_plan plan = runs ? gemm_tensor_plan_for<Policy, In, float>(m, n, k, ta, tb) : gemm_tensor_plan{};
  check_workspace(fn, ws, runs ? gemm_tf32_layout_for<In>(plan, m, n, k, ta, tb, true, true).bytes() : 0,
                  "gemm_workspace_bytes(mode, op_a, op_b, m, n, k)");
  const bool a_fit = gemm_sm90_operand_ok(a, lda), b_fit = gemm_sm90_operand_ok(b, ldb);
  // The workspace form does not pack for alignment (its size cannot know it): tf32 takes FP32 there instead.
  const bool unfit = ws && parts == 1 && ((ta && !a_fit) || (!tb && !b_fit));
  if (!runs || alpha == 0.f || unfit)  // validated above: the FP32 gemm's launches alone
    return gemm_dispatch<tuned>(fn, nm, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream);
  const device_info& dev = get_device_info();
  const gemm_tf32_layout L = gemm_tf32_layout_for<In>(plan, m, n, k, ta, tb, a_fit, b_fit);
  check_no_pending_error(fn);
  const auto launch = [&](const float* pa, std::int64_t lda_k, const float* pb, std::int64_t ldb_k, float* partial) {
    with_tuned_arch([&]<int Arch>() {
      const auto run = [&]<blas::gemm_sm90_policy P>() {
        gemm_sm90_launch<P, In, float>(fn, dev, true, false, m, n, k, alpha, pa, lda_k, pb, ldb_k, beta, c, ldc,
                                       plan.splits, partial, stream);
      };
      if constexpr (std::is_same_v<P_t, tuned_t>) {
        switch (plan.row) {
          case 1: return run.template operator()<gemm_tf32_row(Arch, 1, parts)>();
          case 2: return run.template operator()<gemm_tf32_row(Arch, 2, parts)>();
          case 3: return run.template operator()<gemm_tf32_row(Arch, 3, parts)>();
          default: return run.template operator()<gemm_tf32_row(Arch, 0, parts)>();
        }
      } else {
        run.template operator()<blas::gemm_tf32_fit(Policy, parts)>();
      }
    });
  };
  if (L.bytes() == 0) return launch(a, lda, b, ldb, nullptr);
  with_workspace(ws, L.bytes(), stream, [&](const workspace& w) {
    auto* base = static_cast<unsigned char*>(w.data);
    const auto pack = [&](const float* src, std::int64_t ld, bool mn_major, std::int64_t rows, std::size_t offset) {
      float* dst = reinterpret_cast<float*>(base + offset);
      const std::int64_t tiles = ((k + 31) / 32) * ((rows + 31) / 32);
      const unsigned blocks = unsigned(std::min<std::int64_t>(tiles, std::int64_t(dev.sm_count) * 16));
      gemm_tf32_pack_kernel<parts><<<blocks, dim3(32, 8), 0, stream>>>(src, ld, mn_major, rows, k, dst, L.ld_p);
      check_launch(fn);
      return static_cast<const float*>(dst);
    };
    const float* pa = L.pack_a ? pack(a, lda, !ta, m, L.split_bytes) : a;
    const float* pb = L.pack_b ? pack(b, ldb, tb, n, L.split_bytes + L.a_bytes) : b;
    launch(pa, L.pack_a ? L.ld_p : lda, pb, L.pack_b ? L.ld_p : ldb,
           plan.splits > 1 ? static_cast<float*>(w.data) : nullptr);
  });
}

/// A float gemm in math mode `mode`: the true-FP32 gemm or gemm_tf32_run (an unknown mode is an invalid_argument).
template <auto Policy>
void gemm_math_run(const char* fn, const gemm_names& nm, blas::math mode, blas::op op_a, blas::op op_b,
                   std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a, std::int64_t lda,
                   const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc, const workspace* ws,
                   cudaStream_t stream) {
  switch (mode) {
    case blas::math::fp32:
      return gemm_run<tuned>(fn, nm, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, stream);
    case blas::math::tf32:
      return gemm_tf32_run<Policy, gemm_tf32>(fn, nm, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ws,
                                              stream);
    case blas::math::tf32x3:
      return gemm_tf32_run<Policy, gemm_tf32x3>(fn, nm, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ws,
                                                stream);
  }
  throw_invalid(fn, "mode", "must be blas::math::fp32, blas::math::tf32 or blas::math::tf32x3");
}

/// gemm_workspace_bytes of a float gemm in `mode` (column-major view).
template <auto Policy>
std::size_t gemm_math_workspace_bytes(blas::math mode, blas::op op_a, blas::op op_b, std::int64_t m, std::int64_t n,
                                      std::int64_t k) {
  const bool ta = op_a == blas::op::T, tb = op_b == blas::op::T;
  if (mode == blas::math::tf32) return gemm_tf32_workspace_bytes<Policy, gemm_tf32>(m, n, k, ta, tb);
  if (mode == blas::math::tf32x3) return gemm_tf32_workspace_bytes<Policy, gemm_tf32x3>(m, n, k, ta, tb);
  return 0;
}

/// The caller's names of the strides (the row-major forms swap A's and B's, as gemm_names does).
struct gemm_stride_names {
  const char *a, *b;
};
inline constexpr gemm_stride_names gemm_strides_column_major{"stride_a", "stride_b"};
inline constexpr gemm_stride_names gemm_strides_row_major_view{"stride_b", "stride_a"};

/// Bytes from the first batch's first element to the last batch's last: (batch - 1)·stride + the span of one
/// (0 when one is empty); throws when that exceeds the address space.
inline std::size_t gemm_strided_extent(const char* fn, const char* stride_name, std::size_t span_bytes,
                                       std::int64_t stride, std::int64_t batch, std::size_t elem) {
  if (span_bytes == 0 || batch <= 1 || stride == 0) return span_bytes;
  if (std::uint64_t(stride) > SIZE_MAX / elem ||
      std::uint64_t(batch - 1) > (SIZE_MAX - span_bytes) / (std::uint64_t(stride) * elem))
    throw_invalid(fn, stride_name, "spans more than the address space over the batches");
  return std::size_t(batch - 1) * std::size_t(stride) * elem + span_bytes;
}

inline void gemm_check_batch(const char* fn, std::int64_t batch) {
  if (batch < 0) throw_invalid(fn, "batch", "must be non-negative");
}

/// The rules of the strided batched form, on the column-major view: gemm's shape rules; batch ≥ 0; strides ≥ 0;
/// the batches of C disjoint (stride_c at least the span of one C, unless batch ≤ 1); the arrays not null when the
/// call reads or writes them; C's whole strided extent overlapping neither A's nor B's.
template <class T>
void gemm_strided_validate(const char* fn, const gemm_names& nm, const gemm_stride_names& sn, blas::op op_a,
                           blas::op op_b, std::int64_t m, std::int64_t n, std::int64_t k, const T* a, std::int64_t lda,
                           std::int64_t stride_a, const T* b, std::int64_t ldb, std::int64_t stride_b, const T* c,
                           std::int64_t ldc, std::int64_t stride_c, std::int64_t batch) {
  gemm_validate(fn, nm, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc, false);
  gemm_check_batch(fn, batch);
  if (stride_a < 0) throw_invalid(fn, sn.a, "must be non-negative");
  if (stride_b < 0) throw_invalid(fn, sn.b, "must be non-negative");
  if (stride_c < 0) throw_invalid(fn, "stride_c", "must be non-negative");
  const bool ta = op_a == blas::op::T, tb = op_b == blas::op::T;
  const std::size_t e = sizeof(T);
  const std::size_t span_a = gemm_span_bytes(ta ? k : m, ta ? m : k, lda, e);
  const std::size_t span_b = gemm_span_bytes(tb ? n : k, tb ? k : n, ldb, e);
  const std::size_t span_c = gemm_span_bytes(m, n, ldc, e);
  if (batch > 1 && span_c > 0 && std::uint64_t(stride_c) < span_c / e)
    throw_invalid(fn, "stride_c", "must be at least the elements one C spans, (columns - 1)·ldc + rows, so that the "
                                  "batches of C do not overlap");
  const bool product = m > 0 && n > 0 && k > 0 && batch > 0;
  check_pointer(fn, nm.a, a, product);
  check_pointer(fn, nm.b, b, product);
  check_pointer(fn, "C", c, m > 0 && n > 0 && batch > 0);
  const std::size_t ext_a = gemm_strided_extent(fn, sn.a, span_a, stride_a, batch, e);
  const std::size_t ext_b = gemm_strided_extent(fn, sn.b, span_b, stride_b, batch, e);
  const std::size_t ext_c = gemm_strided_extent(fn, "stride_c", span_c, stride_c, batch, e);
  if (product)
    check_overlaps(fn, {{nm.a, a, ext_a, read_only}, {nm.b, b, ext_b, read_only}, {"C", c, ext_c, written}});
}

/// The rules of the pointer-array form: gemm's shape rules, batch ≥ 0, the three arrays not null when the call
/// reads them (their elements live in device memory and are not checked).
template <class T>
void gemm_array_validate(const char* fn, const gemm_names& nm, blas::op op_a, blas::op op_b, std::int64_t m,
                         std::int64_t n, std::int64_t k, const T* const* a, std::int64_t lda, const T* const* b,
                         std::int64_t ldb, T* const* c, std::int64_t ldc, std::int64_t batch) {
  gemm_validate<T, T>(fn, nm, op_a, op_b, m, n, k, nullptr, lda, nullptr, ldb, nullptr, ldc, false);
  gemm_check_batch(fn, batch);
  const bool product = m > 0 && n > 0 && k > 0 && batch > 0;
  check_pointer(fn, nm.a, a, product);
  check_pointer(fn, nm.b, b, product);
  check_pointer(fn, "C", c, m > 0 && n > 0 && batch > 0);
}

/// The batched forms' policy argument: cuprim::tuned (the small kernel's table for m, n, k ≤ gemm_small_max, the
/// general kernel's above), a gemm_policy (the general kernel for every shape) or a gemm_small_policy (the small
/// kernel with that policy where its tile holds m and n and k ≤ gemm_small_max, the tuned general kernel elsewhere).
template <auto Policy>
constexpr bool gemm_policy_is_small = std::is_same_v<std::remove_cvref_t<decltype(Policy)>, blas::gemm_small_policy>;
template <auto Policy>
constexpr auto gemm_batched_simt_arg() {
  if constexpr (gemm_policy_is_small<Policy>) {
    return tuned;
  } else {
    return Policy;
  }
}

/// The small kernel (blas/detail/gemm_small_kernel.cuh) over the batches: a persistent grid of at most
/// P.blocks_per_sm blocks per SM, P.products() batches per block at a time.
template <blas::gemm_small_policy P, class T>
void gemm_small_launch(const char* fn, const gemm_args<T>& g, const gemm_batch<T>& bt, cudaStream_t stream) {
  const std::int64_t want = (bt.count + P.products() - 1) / P.products();
  const std::int64_t cap = std::int64_t(get_device_info().sm_count) * P.blocks_per_sm;
  const unsigned blocks = unsigned(std::max<std::int64_t>(1, std::min(want, cap)));
  gemm_small_kernel<policy_constant<P>><<<blocks, unsigned(P.threads), 0, stream>>>(g, bt);
  check_launch(fn);
}

/// Every batched gemm ends here, after its validation: the scaling kernel (k = 0 or alpha = 0), the small kernel
/// (m, n, k ≤ blas::gemm_small_max; a persistent grid) or the general GEMM kernel over the batches (grid.z =
/// min(batch, 65535); the kernels loop over the rest). a, b, c: batch 0's operands of the strided form (null for the
/// pointer-array form, whose arrays are in `bt`).
template <auto Policy, class T>
void gemm_batched_run(const char* fn, const gemm_names& nm, blas::op op_a, blas::op op_b, std::int64_t m,
                      std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda, const T* b,
                      std::int64_t ldb, T beta, T* c, std::int64_t ldc, const gemm_batch<T>& bt, cudaStream_t stream) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "cuprim::blas::gemm_*batched: float or double (tensor-core types are not built yet)");
  if (bt.count == 0) return;  // no batches: nothing to do, and nothing queried or launched
  with_tuned_arch([&]<int Arch>() {
    constexpr blas::gemm_policy P = pick_policy<gemm_batched_simt_arg<Policy>()>(blas::gemm_policy_for<T>(Arch));
    const auto [tiles_m, tiles_n] = gemm_grid(fn, nm, m, n, P.tile_m, P.tile_n);
    check_no_pending_error(fn);
    if (m == 0 || n == 0) return;
    const unsigned zs = unsigned(std::min<std::int64_t>(bt.count, 65535));
    if (k == 0 || alpha == T(0)) {
      constexpr unsigned threads = 256;
      const dim3 grid(unsigned((std::uint64_t(m) + threads - 1) / threads), unsigned(std::min<std::int64_t>(n, 65535)),
                      zs);
      gemm_scale_batched_kernel<<<grid, threads, 0, stream>>>(c, m, n, ldc, beta, bt);
      check_launch(fn);
      return;
    }
    // The leading dimensions allow the 16-byte paths; each batch's pointers are checked on the device.
    const auto vec = [](std::int64_t ld) { return (ld * std::int64_t(sizeof(T))) % 16 == 0; };
    const gemm_args<T> g{a,     b,    c,    m,    n,    k,    lda, ldb, ldc, alpha, beta, op_a == blas::op::T,
                         op_b == blas::op::T, vec(lda), vec(ldb), vec(ldc)};
    // Small products: the small kernel (an explicit gemm_policy keeps the general kernel for every shape).
    if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(Policy)>, blas::gemm_policy>) {
      constexpr int S = blas::gemm_small_max;
      if (m <= S && n <= S && k <= S) {
        if constexpr (gemm_policy_is_small<Policy>) {
          if (std::max(m, n) <= Policy.tile) return gemm_small_launch<Policy>(fn, g, bt, stream);
        } else {
          switch (blas::gemm_small_tile(m, n)) {
            case 16: return gemm_small_launch<blas::gemm_small_policy_for<T>(Arch, 16)>(fn, g, bt, stream);
            case 32: return gemm_small_launch<blas::gemm_small_policy_for<T>(Arch, 32)>(fn, g, bt, stream);
            default: return gemm_small_launch<blas::gemm_small_policy_for<T>(Arch, 64)>(fn, g, bt, stream);
          }
        }
      }
    }
    const dim3 grid{unsigned(tiles_m), unsigned(tiles_n), zs};
    if constexpr (P.split && std::is_same_v<T, float>) {
      gemm_simt_split_batched_kernel<policy_constant<P>><<<grid, P.threads(), 0, stream>>>(g, bt);
    } else {
      gemm_simt_batched_kernel<policy_constant<P>><<<grid, P.threads(), 0, stream>>>(g, bt);
    }
    check_launch(fn);
  });
}

template <auto Policy, class T>
void gemm_strided_run(const char* fn, const gemm_names& nm, const gemm_stride_names& sn, blas::op op_a, blas::op op_b,
                      std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* a, std::int64_t lda,
                      std::int64_t stride_a, const T* b, std::int64_t ldb, std::int64_t stride_b, T beta, T* c,
                      std::int64_t ldc, std::int64_t stride_c, std::int64_t batch, cudaStream_t stream) {
  gemm_strided_validate(fn, nm, sn, op_a, op_b, m, n, k, a, lda, stride_a, b, ldb, stride_b, c, ldc, stride_c, batch);
  gemm_batch<T> bt;
  bt.count = batch;
  bt.stride_a = stride_a;
  bt.stride_b = stride_b;
  bt.stride_c = stride_c;
  gemm_batched_run<Policy>(fn, nm, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bt, stream);
}

template <auto Policy, class T>
void gemm_array_run(const char* fn, const gemm_names& nm, blas::op op_a, blas::op op_b, std::int64_t m, std::int64_t n,
                    std::int64_t k, T alpha, const T* const* a, std::int64_t lda, const T* const* b, std::int64_t ldb,
                    T beta, T* const* c, std::int64_t ldc, std::int64_t batch, cudaStream_t stream) {
  gemm_array_validate(fn, nm, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc, batch);
  gemm_batch<T> bt;
  bt.count = batch;
  bt.a_array = a;
  bt.b_array = b;
  bt.c_array = c;
  gemm_batched_run<Policy>(fn, nm, op_a, op_b, m, n, k, alpha, static_cast<const T*>(nullptr), lda,
                           static_cast<const T*>(nullptr), ldb, beta, static_cast<T*>(nullptr), ldc, bt, stream);
}

}  // namespace cuprim::detail

namespace cuprim::blas {

/// Bytes of workspace the 16-bit gemm (and gemm_row_major, with its own arguments) needs for this shape: 0 unless
/// the tensor-core plan splits k (see the file comment, "Workspace"). Policy as the entry point's; cuprim::tuned
/// reads the current device (0 without one), an explicit policy with splits ≠ 0 needs no device.
template <class In, class Out, auto Policy = tuned>
  requires detail::gemm_tensor_types<In, Out>
std::size_t gemm_workspace_bytes(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k) {
  return detail::gemm_tensor_plan_for<Policy, In, Out>(m, n, k, op_a == op::T, op_b == op::T).bytes;
}

/// gemm_workspace_bytes of gemm_row_major's arguments (its product is computed as the column-major Cᵀ).
template <class In, class Out, auto Policy = tuned>
  requires detail::gemm_tensor_types<In, Out>
std::size_t gemm_row_major_workspace_bytes(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k) {
  return detail::gemm_tensor_plan_for<Policy, In, Out>(n, m, k, op_b == op::T, op_a == op::T).bytes;
}

/// C = alpha · op(A) · op(B) + beta · C with 16-bit inputs (__nv_bfloat16 or __half), float scalars and
/// accumulators, C of the input type or float (see the file comment, "16-bit inputs"); a split's workspace from the
/// current memory resource.
template <auto Policy = tuned, class In, class Out>
  requires detail::gemm_tensor_types<In, Out>
void gemm(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const In* A, std::int64_t lda,
          const In* B, std::int64_t ldb, float beta, Out* C, std::int64_t ldc, cudaStream_t stream = 0) {
  detail::gemm_tensor_run<Policy>("cuprim::blas::gemm", detail::gemm_column_major, op_a, op_b, m, n, k, alpha, A, lda,
                                  B, ldb, beta, C, ldc, nullptr, stream);
}

/// The 16-bit gemm in the caller's workspace (at least gemm_workspace_bytes<In, Out, Policy>(op_a, op_b, m, n, k)
/// bytes, 256-byte aligned; its contents need not be initialised).
template <auto Policy = tuned, class In, class Out>
  requires detail::gemm_tensor_types<In, Out>
void gemm(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const In* A, std::int64_t lda,
          const In* B, std::int64_t ldb, float beta, Out* C, std::int64_t ldc, workspace ws, cudaStream_t stream = 0) {
  detail::gemm_tensor_run<Policy>("cuprim::blas::gemm", detail::gemm_column_major, op_a, op_b, m, n, k, alpha, A, lda,
                                  B, ldb, beta, C, ldc, &ws, stream);
}

/// gemm with 16-bit inputs over row-major arrays.
template <auto Policy = tuned, class In, class Out>
  requires detail::gemm_tensor_types<In, Out>
void gemm_row_major(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const In* A,
                    std::int64_t lda, const In* B, std::int64_t ldb, float beta, Out* C, std::int64_t ldc,
                    cudaStream_t stream = 0) {
  detail::gemm_tensor_run<Policy>("cuprim::blas::gemm_row_major", detail::gemm_row_major_view, op_b, op_a, n, m, k,
                                  alpha, B, ldb, A, lda, beta, C, ldc, nullptr, stream);
}

/// gemm_row_major with 16-bit inputs in the caller's workspace (gemm_row_major_workspace_bytes).
template <auto Policy = tuned, class In, class Out>
  requires detail::gemm_tensor_types<In, Out>
void gemm_row_major(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const In* A,
                    std::int64_t lda, const In* B, std::int64_t ldb, float beta, Out* C, std::int64_t ldc,
                    workspace ws, cudaStream_t stream = 0) {
  detail::gemm_tensor_run<Policy>("cuprim::blas::gemm_row_major", detail::gemm_row_major_view, op_b, op_a, n, m, k,
                                  alpha, B, ldb, A, lda, beta, C, ldc, &ws, stream);
}

/// C = alpha · op(A) · op(B) + beta · C over column-major arrays (see the file comment).
template <auto Policy = tuned, class T>
void gemm(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A, std::int64_t lda,
          const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc, cudaStream_t stream = 0) {
  detail::gemm_run<Policy>("cuprim::blas::gemm", detail::gemm_column_major, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

/// The same product over row-major arrays: C = alpha · op(A) · op(B) + beta · C with element (i, j) of X at
/// X[i·ldx + j] (ldx at least the stored columns). Computed as the column-major Cᵀ = op(B)ᵀ · op(A)ᵀ.
template <auto Policy = tuned, class T>
void gemm_row_major(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
                    std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc,
                    cudaStream_t stream = 0) {
  detail::gemm_run<Policy>("cuprim::blas::gemm_row_major", detail::gemm_row_major_view, op_b, op_a, n, m, k, alpha, B, ldb, A, lda, beta, C, ldc,
                           stream);
}

/// C = alpha · op(A) · op(B) + beta · C of floats in math mode `mode` (see the file comment, "Math modes"): math::fp32
/// as the overload without a mode; math::tf32 and math::tf32x3 on tensor cores where the Hopper kernel runs (their
/// packed operands in a temporary from the current memory resource). Policy: cuprim::tuned or, for the tf32 modes,
/// a cuprim::blas::gemm_sm90_policy, clamped where a mode needs it (blas::gemm_tf32_fit: tf32x3 at most 128 rows,
/// the stages that fit); math::fp32 then takes the tuned CUDA-core kernel.
template <auto Policy = tuned>
void gemm(math mode, op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* A,
          std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc,
          cudaStream_t stream = 0) {
  detail::gemm_math_run<Policy>("cuprim::blas::gemm", detail::gemm_column_major, mode, op_a, op_b, m, n, k, alpha, A,
                                lda, B, ldb, beta, C, ldc, nullptr, stream);
}

/// Bytes of workspace gemm(mode, ...) needs: 0 for math::fp32, else the packed operands and a split's sums (see the
/// file comment, "Math modes"); reads the current device (0 without one or where the tensor cores cannot run).
template <auto Policy = tuned>
std::size_t gemm_workspace_bytes(math mode, op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k) {
  return detail::gemm_math_workspace_bytes<Policy>(mode, op_a, op_b, m, n, k);
}

/// gemm_workspace_bytes of gemm_row_major(mode, ...)'s arguments.
template <auto Policy = tuned>
std::size_t gemm_row_major_workspace_bytes(math mode, op op_a, op op_b, std::int64_t m, std::int64_t n,
                                           std::int64_t k) {
  return detail::gemm_math_workspace_bytes<Policy>(mode, op_b, op_a, n, m, k);
}

/// gemm(mode, ...) in the caller's workspace (at least gemm_workspace_bytes(mode, op_a, op_b, m, n, k) bytes,
/// 256-byte aligned, contents need not be initialised): allocates nothing, can be captured in a CUDA graph.
template <auto Policy = tuned>
void gemm(math mode, op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* A,
          std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc, workspace ws,
          cudaStream_t stream = 0) {
  detail::gemm_math_run<Policy>("cuprim::blas::gemm", detail::gemm_column_major, mode, op_a, op_b, m, n, k, alpha, A,
                                lda, B, ldb, beta, C, ldc, &ws, stream);
}

/// gemm in math mode `mode` over row-major arrays (as gemm_row_major).
template <auto Policy = tuned>
void gemm_row_major(math mode, op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                    const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C,
                    std::int64_t ldc, cudaStream_t stream = 0) {
  detail::gemm_math_run<Policy>("cuprim::blas::gemm_row_major", detail::gemm_row_major_view, mode, op_b, op_a, n, m, k,
                                alpha, B, ldb, A, lda, beta, C, ldc, nullptr, stream);
}

/// gemm_row_major(mode, ...) in the caller's workspace (gemm_row_major_workspace_bytes(mode, ...)).
template <auto Policy = tuned>
void gemm_row_major(math mode, op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                    const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float beta, float* C,
                    std::int64_t ldc, workspace ws, cudaStream_t stream = 0) {
  detail::gemm_math_run<Policy>("cuprim::blas::gemm_row_major", detail::gemm_row_major_view, mode, op_b, op_a, n, m, k,
                                alpha, B, ldb, A, lda, beta, C, ldc, &ws, stream);
}

/// batch products C_z = alpha · op(A_z) · op(B_z) + beta · C_z, z = 0 .. batch - 1, with A_z = A + z·stride_a,
/// B_z = B + z·stride_b, C_z = C + z·stride_c (strides in elements; see the file comment).
template <auto Policy = tuned, class T>
void gemm_strided_batched(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
                          std::int64_t lda, std::int64_t stride_a, const T* B, std::int64_t ldb, std::int64_t stride_b,
                          T beta, T* C, std::int64_t ldc, std::int64_t stride_c, std::int64_t batch,
                          cudaStream_t stream = 0) {
  detail::gemm_strided_run<Policy>("cuprim::blas::gemm_strided_batched", detail::gemm_column_major,
                                   detail::gemm_strides_column_major, op_a, op_b, m, n, k, alpha, A, lda, stride_a, B,
                                   ldb, stride_b, beta, C, ldc, stride_c, batch, stream);
}

/// gemm_strided_batched over row-major arrays (as gemm_row_major).
template <auto Policy = tuned, class T>
void gemm_strided_batched_row_major(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, T alpha,
                                    const T* A, std::int64_t lda, std::int64_t stride_a, const T* B, std::int64_t ldb,
                                    std::int64_t stride_b, T beta, T* C, std::int64_t ldc, std::int64_t stride_c,
                                    std::int64_t batch, cudaStream_t stream = 0) {
  detail::gemm_strided_run<Policy>("cuprim::blas::gemm_strided_batched_row_major", detail::gemm_row_major_view,
                                   detail::gemm_strides_row_major_view, op_b, op_a, n, m, k, alpha, B, ldb, stride_b, A,
                                   lda, stride_a, beta, C, ldc, stride_c, batch, stream);
}

/// batch products C[z] = alpha · op(A[z]) · op(B[z]) + beta · C[z], the pointer arrays A, B, C in device memory
/// (see the file comment).
template <auto Policy = tuned, class T>
void gemm_batched(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* const* A,
                  std::int64_t lda, const T* const* B, std::int64_t ldb, T beta, T* const* C, std::int64_t ldc,
                  std::int64_t batch, cudaStream_t stream = 0) {
  detail::gemm_array_run<Policy>("cuprim::blas::gemm_batched", detail::gemm_column_major, op_a, op_b, m, n, k, alpha, A,
                                 lda, B, ldb, beta, C, ldc, batch, stream);
}

/// gemm_batched over row-major arrays (as gemm_row_major).
template <auto Policy = tuned, class T>
void gemm_batched_row_major(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, T alpha,
                            const T* const* A, std::int64_t lda, const T* const* B, std::int64_t ldb, T beta,
                            T* const* C, std::int64_t ldc, std::int64_t batch, cudaStream_t stream = 0) {
  detail::gemm_array_run<Policy>("cuprim::blas::gemm_batched_row_major", detail::gemm_row_major_view, op_b, op_a, n, m,
                                 k, alpha, B, ldb, A, lda, beta, C, ldc, batch, stream);
}

}  // namespace cuprim::blas
