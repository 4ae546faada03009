// cuprim/blas/gemv.cuh: matrix-vector product with BLAS conventions (level 2; host entry points).
//
//   cuprim::blas::gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy, stream)
//        y = alpha · op(A) · x + beta · y, A column-major m × n (element (i, j) at A[i + j·lda]) as in BLAS and
//        cuBLAS: op N: x has n elements and y m; op T: y = alpha · Aᵀ · x + beta · y, x has m elements and y n.
//   cuprim::blas::gemv(..., y, incy, workspace ws, stream)       the same in a caller's workspace
//   cuprim::blas::gemv_workspace_bytes<T>(trans, m, n)           how much workspace that needs (0 or a few MiB)
//
// Vectors as in BLAS: element k of x is x[k·incx] for incx > 0 and x[(len - 1 - k)·|incx|] for incx < 0 (the
// traversal from the end); likewise y. x and y point to the element with the lowest address. incx = 0 and incy = 0
// are refused (as reference BLAS and cuBLAS do).
//
// Types: float and double, computed in the element type; __half and __nv_bfloat16 A, x and y with float alpha and
// beta, products and sums in float, y rounded once. Each element of y is a sum of fused multiply-adds in an order
// fixed by the plan below (shape, alignment, SM count), never by timing: the same bits from run to run, and
// |error| ≤ (len + c)·u·|alpha|·Σ|a·x| + u·|beta·y| to first order (len: the summed dimension, u of the accumulator).
//
// Semantics, exactly BLAS's: m = 0 or n = 0 is valid (op N with n = 0, or op T with m = 0: y = beta·y); alpha = 0
// sets y = beta·y without reading A or x; beta = 0 writes y without reading it (NaN or Inf already in y do not
// propagate); alpha = 0 with beta = 1 returns at once. Any m, n, lda ≥ max(1, m), alignment and increment; sizes are
// 64-bit. The call is ordered on `stream` and returns without waiting for the GPU.
//
// Algorithm (blas/detail/gemv_kernel.cuh): memory-bound, A read once in loads of 16 bytes (where A is 16-byte
// aligned and lda a multiple of 16 bytes; element loads otherwise) that consecutive threads make to consecutive
// addresses. op N: threads along the rows, each summing its rows over a run of columns; op T: a warp per column
// (a group of 1 to 16 lanes for short columns, a whole block for few long ones) summing down the column, then a
// shuffle reduction. When the tiles alone give the device too few blocks (long and thin shapes, few columns for op
// T, few rows for op N), the summed dimension is split into slices whose partial sums (the workspace: slices × len(y)
// accumulators) a second kernel adds in order before applying alpha and beta.
//
// Policy: an optional cuprim::blas::gemv_policy as the first template argument (default cuprim::tuned:
// gemv_policy_for<T> of the device; blas/detail/gemv_tuning.cuh).
//
// Errors. cuprim::invalid_argument before anything runs: m or n negative; trans not op::N or op::T; lda below
// max(1, m); incx or incy 0, or spanning more than the address space; A or x null when m > 0 and n > 0; y null when
// it has elements; y overlapping A or x (A and x may overlap: both are only read); a workspace smaller than
// gemv_workspace_bytes. cuprim::cuda_error for a failed launch or an error already pending.
#pragma once

#include <cuprim/blas/detail/gemv_kernel.cuh>
#include <cuprim/blas/detail/gemv_tuning.cuh>
#include <cuprim/blas/detail/strided.hpp>
#include <cuprim/blas/op.hpp>
#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace cuprim::blas {

/// How one gemv runs (gemv_plan_for): the kernels' layout and the split of the summed dimension.
struct gemv_plan {
  bool vec = false;            ///< 16-byte loads of A
  int lanes = 1;               ///< op N: threads along the rows of a block; op T: threads per column
  bool short_columns = false;  ///< op T: a column in one pass of its lanes (at most 32): gemv_t_short_kernel
  int cols = 1;                ///< op T, short columns: columns per thread (1 or the policy's unroll)
  std::int64_t slices = 1;     ///< blocks along the summed dimension (n for op N, m for op T)
  std::int64_t chunk = 0;      ///< columns (op N) or rows (op T) per slice
  std::int64_t grid_x = 0;     ///< blocks along the output (tiles of rows for op N, of columns for op T)
  int fold = 1;                ///< second pass (slices > 1): threads per element of y, each summing every fold-th slice
  std::size_t bytes = 0;       ///< workspace: slices × len(y) accumulators when slices > 1, else 0
};

namespace detail_plan {
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
constexpr int pow2_at_least(std::int64_t v, int most) {
  int p = 1;
  while (p < v && p < most) p *= 2;
  return p;
}
}  // namespace detail_plan

/// The plan of an m × n gemv of In under policy P on a device of `sms` SMs, with 16-byte loads of A allowed or not
/// (`vec_ok`: A 16-byte aligned, lda a multiple of 16 bytes). Nothing to sum (m or n 0) gives an empty plan.
template <gemv_policy P, class In>
constexpr gemv_plan gemv_plan_for(bool trans, std::int64_t m, std::int64_t n, bool vec_ok, int sms) {
  using detail_plan::ceil_div;
  using detail_plan::pow2_at_least;
  gemv_plan p{};
  if (m <= 0 || n <= 0) return p;
  constexpr int vmax = P.vector_bytes / int(sizeof(In)) > 1 ? P.vector_bytes / int(sizeof(In)) : 1;
  p.vec = vec_ok && vmax > 1 && m >= 4 * vmax;
  const int v = p.vec ? vmax : 1;
  const std::int64_t rows_v = ceil_div(m, v);  // loads per column
  const std::int64_t target = std::int64_t(sms > 0 ? sms : 1) * P.blocks_per_sm;
  std::int64_t most_slices = 1, len_summed = 0;
  if (!trans) {
    p.lanes = pow2_at_least(rows_v, P.row_lanes < P.threads ? P.row_lanes : P.threads);
    const int groups = P.threads / p.lanes;
    p.grid_x = ceil_div(rows_v, p.lanes);
    most_slices = ceil_div(n, std::int64_t(groups) * P.unroll);  // each thread at least `unroll` columns
    len_summed = n;
  } else {
    // A warp per column (fewer lanes for short columns); more, up to the block, while columns are too few.
    const int full = pow2_at_least(rows_v, P.threads);
    p.lanes = full < 32 ? full : 32;
    if (full <= 32) {
      // Short columns (one pass of the lanes, at most a vector each): `unroll` columns per thread while that
      // leaves the device blocks enough; nothing to split.
      p.short_columns = true;
      const std::int64_t per_block = P.threads / p.lanes;
      p.cols = ceil_div(n, per_block * P.unroll) >= target ? P.unroll : 1;
      p.grid_x = ceil_div(n, per_block * p.cols);
    } else {
      while (p.lanes < full && ceil_div(n, P.threads / p.lanes) < target) p.lanes *= 2;
      p.grid_x = ceil_div(n, P.threads / p.lanes);
      most_slices = ceil_div(rows_v, std::int64_t(p.lanes) * P.unroll);  // each thread at least `unroll` loads
    }
    len_summed = m;
  }
  std::int64_t s = p.grid_x >= target ? 1 : ceil_div(target, p.grid_x);
  s = std::min<std::int64_t>({s, most_slices, 65535});
  if (s < 1) s = 1;
  p.chunk = trans ? ceil_div(ceil_div(len_summed, s), v) * v : ceil_div(len_summed, s);
  p.slices = ceil_div(len_summed, p.chunk);
  const std::int64_t len_y = trans ? n : m;
  if (p.slices > 1) {
    // The second pass: fold threads per element of y (a power of two, 256 at most), each summing about 8 slices,
    // at least 8 elements of y per block of 256 (32-byte reads) unless y is shorter.
    const int most = 256 / pow2_at_least(len_y, 8);
    p.fold = pow2_at_least(ceil_div(p.slices, 8), most);
  }
  p.bytes = p.slices > 1 ? cuprim::detail::align_up(std::size_t(p.slices) * std::size_t(len_y) *
                                                    sizeof(accumulator_t<In>))
                         : 0;
  return p;
}

}  // namespace cuprim::blas

namespace cuprim::detail {

template <class In>
void gemv_validate(const char* fn, blas::op trans, std::int64_t m, std::int64_t n, const In* a, std::int64_t lda,
                   const In* x, std::int64_t incx, const In* y, std::int64_t incy) {
  check_size(fn, "m", m, sizeof(In));
  check_size(fn, "n", n, sizeof(In));
  if (trans != blas::op::N && trans != blas::op::T) throw_invalid(fn, "trans", "must be blas::op::N or blas::op::T");
  if (lda < std::max<std::int64_t>(1, m))
    throw_invalid(fn, "lda", ("must be at least max(1, m) = " + std::to_string(std::max<std::int64_t>(1, m))).c_str());
  if (incx == 0) throw_invalid(fn, "incx", "must not be 0");
  if (incy == 0) throw_invalid(fn, "incy", "must not be 0");
  const bool t = trans == blas::op::T;
  const std::int64_t len_x = t ? m : n, len_y = t ? n : m;
  const std::size_t x_bytes = strided_span_bytes(fn, "incx", len_x, incx, sizeof(In));
  const std::size_t y_bytes = strided_span_bytes(fn, "incy", len_y, incy, sizeof(In));
  std::size_t a_bytes = 0;
  if (m > 0 && n > 0) {
    if (std::uint64_t(n - 1) > (SIZE_MAX / sizeof(In) - std::uint64_t(m)) / std::uint64_t(lda))
      throw_invalid(fn, "lda", "spans more than the address space with this n");
    a_bytes = (std::size_t(n - 1) * std::size_t(lda) + std::size_t(m)) * sizeof(In);
  }
  const bool product = m > 0 && n > 0;
  check_pointer(fn, "A", a, product);
  check_pointer(fn, "x", x, product);
  check_pointer(fn, "y", y, len_y > 0);
  check_overlaps(fn, {{"A", a, product ? a_bytes : 0, read_only},
                      {"x", x, product ? x_bytes : 0, read_only},
                      {"y", y, y_bytes, written}});
}

inline bool gemv_vec_ok(const void* a, std::int64_t lda, std::size_t elem) {
  return reinterpret_cast<std::uintptr_t>(a) % 16 == 0 && (std::size_t(lda) * elem) % 16 == 0;
}

/// The workspace a gemv of this shape may need on the current device: the larger of the aligned and unaligned
/// plans' (0 without a device: nothing runs there).
template <blas::gemv_policy P, class In>
std::size_t gemv_bytes(bool trans, std::int64_t m, std::int64_t n) {
  if (!has_device()) return 0;
  const int sms = get_device_info().sm_count;
  return std::max(blas::gemv_plan_for<P, In>(trans, m, n, true, sms).bytes,
                  blas::gemv_plan_for<P, In>(trans, m, n, false, sms).bytes);
}

template <auto Policy, class In>
constexpr blas::gemv_policy gemv_pick(int arch) {
  return pick_policy<Policy>(blas::gemv_policy_for<In>(arch));
}

/// The launches of a planned gemv: the kernel of the op (vector loads or not), then the slices' sum.
template <blas::gemv_policy P, class In, class Acc>
void gemv_launch(const char* fn, bool trans, const blas::gemv_plan& plan, gemv_args<In, Acc> g, Acc* partial,
                 cudaStream_t stream) {
  static_assert(blas::detail_rules::gemv_policy_valid<P>());
  if (plan.grid_x > 0x7fffffff) throw_invalid(fn, trans ? "n" : "m", "too large for one launch");
  g.partial = plan.slices > 1 ? partial : nullptr;
  g.lanes = plan.lanes;
  g.cols = plan.cols;
  g.chunk = plan.chunk;
  const dim3 grid{unsigned(plan.grid_x), unsigned(plan.slices), 1u};
  using PC = policy_constant<P>;
  if (trans && plan.short_columns) {
    if (plan.vec) gemv_t_short_kernel<PC, true><<<grid, P.threads, 0, stream>>>(g);
    else gemv_t_short_kernel<PC, false><<<grid, P.threads, 0, stream>>>(g);
  } else if (trans) {
    if (plan.vec) gemv_t_kernel<PC, true><<<grid, P.threads, 0, stream>>>(g);
    else gemv_t_kernel<PC, false><<<grid, P.threads, 0, stream>>>(g);
  } else {
    if (plan.vec) gemv_n_kernel<PC, true><<<grid, P.threads, 0, stream>>>(g);
    else gemv_n_kernel<PC, false><<<grid, P.threads, 0, stream>>>(g);
  }
  check_launch(fn);
  if (plan.slices == 1) return;
  // The slices' sum: a programmatic dependent launch (scheduled while the product drains; it waits for it).
  const std::int64_t len_y = trans ? g.n : g.m;
  const std::int64_t blocks = (len_y + (gemv_finish_threads / plan.fold) - 1) / (gemv_finish_threads / plan.fold);
  if (blocks > 0x7fffffff) throw_invalid(fn, trans ? "n" : "m", "too large for one launch");
  launch_dependent(fn, gemv_finish_kernel<In, Acc>, unsigned(blocks), unsigned(gemv_finish_threads), stream,
                   static_cast<const Acc*>(partial), plan.slices, len_y, plan.fold, g.y, g.incy, g.alpha, g.beta);
}

/// Every gemv ends here: validate, plan, then the scaling kernel (alpha = 0 or nothing to sum) or the product.
template <auto Policy, class In>
void gemv_run(const char* fn, blas::op trans, std::int64_t m, std::int64_t n, accumulator_t<In> alpha, const In* a,
              std::int64_t lda, const In* x, std::int64_t incx, accumulator_t<In> beta, In* y, std::int64_t incy,
              const workspace* ws, cudaStream_t stream) {
  static_assert(std::is_same_v<In, float> || std::is_same_v<In, double> || is_half_like_v<In>,
                "cuprim::blas::gemv: A, x and y of float, double, __half or __nv_bfloat16");
  using Acc = accumulator_t<In>;
  gemv_validate(fn, trans, m, n, a, lda, x, incx, y, incy);
  const bool t = trans == blas::op::T;
  const std::int64_t len_x = t ? m : n, len_y = t ? n : m;
  with_tuned_arch([&]<int Arch>() {
    constexpr blas::gemv_policy P = gemv_pick<Policy, In>(Arch);
    if (ws) check_workspace(fn, *ws, gemv_bytes<P, In>(t, m, n), "gemv_workspace_bytes(trans, m, n)");
    if (len_y == 0) return;  // nothing to write: no CUDA call at all
    check_no_pending_error(fn);
    In* yb = strided_base(y, len_y, incy);
    const bool product = len_x > 0 && alpha != Acc(0);
    if (!product) {
      if (beta == Acc(1)) return;  // BLAS's quick return
      const unsigned blocks =
          unsigned(std::min<std::int64_t>((len_y + 255) / 256, std::int64_t(get_device_info().sm_count) * 8));
      gemv_scale_kernel<<<blocks, 256, 0, stream>>>(yb, incy, len_y, beta);
      check_launch(fn);
      return;
    }
    const blas::gemv_plan plan =
        blas::gemv_plan_for<P, In>(t, m, n, gemv_vec_ok(a, lda, sizeof(In)), get_device_info().sm_count);
    gemv_args<In, Acc> g{};
    g.a = a;
    g.lda = lda;
    g.x = strided_base(x, len_x, incx);
    g.incx = incx;
    g.y = yb;
    g.incy = incy;
    g.m = m;
    g.n = n;
    g.alpha = alpha;
    g.beta = beta;
    g.x_vec = incx == 1 && reinterpret_cast<std::uintptr_t>(x) % 16 == 0;
    with_workspace(ws, plan.bytes, stream, [&](const workspace& w) {
      gemv_launch<P>(fn, t, plan, g, static_cast<Acc*>(w.data), stream);
    });
  });
}

}  // namespace cuprim::detail

namespace cuprim::blas {

/// Bytes of workspace the explicit-workspace gemv needs for this shape on the current device (0 when the plan does
/// not split, and without a device); the plain form takes that much from the current memory resource.
template <class T, auto Policy = tuned>
std::size_t gemv_workspace_bytes(op trans, std::int64_t m, std::int64_t n) {
  return detail::with_tuned_arch([&]<int Arch>() {
    return detail::gemv_bytes<detail::gemv_pick<Policy, T>(Arch), T>(trans == op::T, m, n);
  });
}

/// y = alpha · op(A) · x + beta · y (see the file comment); workspace from the current memory resource.
template <auto Policy = tuned, class T>
void gemv(op trans, std::int64_t m, std::int64_t n, accumulator_t<T> alpha, const T* A, std::int64_t lda, const T* x,
          std::int64_t incx, accumulator_t<T> beta, T* y, std::int64_t incy, cudaStream_t stream = 0) {
  detail::gemv_run<Policy>("cuprim::blas::gemv", trans, m, n, alpha, A, lda, x, incx, beta, y, incy, nullptr, stream);
}

/// y = alpha · op(A) · x + beta · y in the caller's workspace (at least gemv_workspace_bytes<T>(trans, m, n)).
template <auto Policy = tuned, class T>
void gemv(op trans, std::int64_t m, std::int64_t n, accumulator_t<T> alpha, const T* A, std::int64_t lda, const T* x,
          std::int64_t incx, accumulator_t<T> beta, T* y, std::int64_t incy, workspace ws, cudaStream_t stream = 0) {
  detail::gemv_run<Policy>("cuprim::blas::gemv", trans, m, n, alpha, A, lda, x, incx, beta, y, incy, &ws, stream);
}

}  // namespace cuprim::blas
