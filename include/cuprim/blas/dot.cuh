// cuprim/blas/dot.cuh: the level-1 reductions with BLAS conventions (host entry points).
//
//   cuprim::blas::dot(n, x, incx, y, incy, result, stream)        *result = Σ_k x_k·y_k, k = 0 .. n - 1
//   cuprim::blas::dot(n, x, incx, y, incy, result, workspace, stream)   the same in a caller's workspace
//   cuprim::blas::dot_workspace_bytes<T>(n)                      how much workspace that needs
//   cuprim::blas::dot_sync(n, x, incx, y, incy, stream)          returns the result to the host (synchronises)
//   cuprim::blas::asum(n, x, incx, result[, workspace], stream)  *result = Σ_k |x_k|  (asum_workspace_bytes, asum_sync)
//   cuprim::blas::nrm2(n, x, incx, result[, workspace], stream)  *result = sqrt(Σ_k x_k²)   (nrm2_workspace_bytes,
//                                                                nrm2_sync)
//
// nrm2 never overflows or underflows in its intermediate sums: the squares are accumulated in double as three sums
// scaled by powers of two (Blue's algorithm, as LAPACK 3.10's dnrm2), so a vector of 1e300s or of 1e-300s has its
// exact norm to rounding; NaN anywhere gives NaN, an infinity (and no NaN) gives +inf. For float and the 16-bit
// types the squares are exact in double and the result is rounded once. asum sums |x_k| in the accumulator type
// (BLAS's real asum). Unlike the reference BLAS, which returns 0 for incx ≤ 0, a negative incx traverses x from its
// end and incx = 0 repeats x[0], as for dot: the norm is the same set of elements.
//
// Vectors as in BLAS: element k of x is x[k·incx] for incx > 0, x[(n - 1 - k)·|incx|] for incx < 0 (the traversal
// from the end), and x[0] for incx = 0 (allowed: both vectors are only read); likewise y. x points to the element
// with the lowest address in every case. n = 0 writes 0.
//
// Types: x and y of float or double, summed in that type; __half or __nv_bfloat16, each product and the sum in
// float (nrm2: in double, as above). *result is of the accumulator type (float for the 16-bit types) or of the
// input type (rounded once). Results go to device memory (`result`, stream-ordered: the call returns without
// waiting for the GPU); the _sync forms, whose names say so, wait and return the value.
//
// Determinism: as the reductions' (device/reduce.cuh): the order of the additions depends on n, the increments,
// the alignment of x and y (16-byte vectors when both have unit stride and 16-byte alignment), the policy and the
// SM count, never on timing, so results are bitwise identical run to run on one GPU model. The error is that of a
// blocked pairwise sum: |error| ≤ u·(⌈n / lanes⌉ + 2⌈log2 n⌉ + few)·Σ|x_k·y_k| to first order (u of the accumulator).
//
// Workspace: one partial per block (a few KiB: reduce_workspace_bytes's layout), from the current memory resource,
// or the caller's (at least <op>_workspace_bytes<T>(n), allocation-free and capturable in a CUDA graph).
//
// Policy: an optional cuprim::blas::dot_policy as the first template argument (default cuprim::tuned:
// dot_policy_for<T> of the device; blas/detail/gemv_tuning.cuh).
//
// Errors. cuprim::invalid_argument before anything runs: n negative; x or y null when n > 0; result null; an
// increment whose span exceeds the address space; result overlapping x or y (x and y may overlap: both are only
// read); a workspace smaller than the call's <op>_workspace_bytes. cuprim::cuda_error for a failed launch or an
// error already pending.
#pragma once

#include <cuprim/blas/detail/dot_kernel.cuh>
#include <cuprim/blas/detail/gemv_tuning.cuh>
#include <cuprim/blas/detail/strided.hpp>
#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/reduce_kernel.cuh>
#include <cuprim/device/detail/reduce_tuning.cuh>
#include <cuprim/device/reduce.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

template <class In>
inline constexpr bool blas_element_v =
    std::is_same_v<In, float> || std::is_same_v<In, double> || is_half_like_v<In>;

template <class In, class Out>
void dot_validate(const char* fn, std::int64_t n, const In* x, std::int64_t incx, const In* y, std::int64_t incy,
                  const Out* result, bool result_needed = true) {
  check_size(fn, "n", n, sizeof(In));
  const std::size_t x_bytes = strided_span_bytes(fn, "incx", n, incx, sizeof(In));
  const std::size_t y_bytes = strided_span_bytes(fn, "incy", n, incy, sizeof(In));
  check_pointer(fn, "x", x, n > 0);
  check_pointer(fn, "y", y, n > 0);
  check_pointer(fn, "result", result, result_needed);
  check_overlaps(fn, {{"x", x, x_bytes, read_only}, {"y", y, y_bytes, read_only}, {"result", result, sizeof(Out), written}});
}

/// What a level-1 reduction of In accumulates: nrm2's scaled sums, else the accumulator type (float for the 16-bit
/// types).
template <class Term, class In>
using level1_acc_t = std::conditional_t<std::is_same_v<Term, nrm2_term>, nrm2_sums, accumulator_t<In>>;

/// Every dot, asum and nrm2 ends here (arguments validated by the caller): plan (one partial per block of the first
/// pass), launch the first pass and, for a grid of more than one block, a last pass over the partials: the
/// reductions' final pass (device/detail/reduce_kernel.cuh) where the total only converts to Out, else
/// level1_finish_kernel. y is read only by a binary Term.
template <auto Policy, class Term, class In, class Out>
void level1_run(const char* fn, const char* ws_call, std::int64_t n, const In* x, std::int64_t incx, const In* y,
                std::int64_t incy, Out* result, const workspace* ws, cudaStream_t stream) {
  using Acc = level1_acc_t<Term, In>;
  const reduce_layout<Acc> L{std::uint64_t(n)};
  check_workspace(fn, ws, L.bytes(), ws_call);
  check_no_pending_error(fn);
  if (n == 0) {
    write_value_kernel<Out, Out><<<1, 1, 0, stream>>>(result, Term::template finish<Out>(Acc{}));
    check_launch(fn);
    return;
  }
  const In* xb = strided_base(x, n, incx);
  const In* yb = Term::binary ? strided_base(y, n, incy) : xb;
  const auto aligned = [](const In* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool vec = incx == 1 && aligned(x) && (!Term::binary || (incy == 1 && aligned(y)));
  with_workspace(ws, L.bytes(), stream, [&](const workspace& w) {
    with_tuned_arch([&]<int Arch>() {
      constexpr blas::dot_policy P = pick_policy<Policy>(blas::dot_policy_for<In>(Arch));
      static_assert(blas::detail_rules::dot_policy_valid<P>());
      const std::int64_t per_load = vec ? 16 / std::int64_t(sizeof(In)) : 1;
      const std::int64_t per_tile = std::int64_t(P.threads) * P.unroll;
      const std::int64_t tiles = (n / per_load + per_tile - 1) / per_tile;
      const unsigned grid = unsigned(std::max<std::int64_t>(
          1, std::min<std::int64_t>(tiles, std::int64_t(get_device_info().sm_count) * P.blocks_per_sm)));
      Acc* partials = L.partials.in(w);
      if (vec)
        level1_kernel<policy_constant<P>, true, Term><<<grid, P.threads, 0, stream>>>(xb, incx, yb, incy, n, result,
                                                                                      partials);
      else
        level1_kernel<policy_constant<P>, false, Term><<<grid, P.threads, 0, stream>>>(xb, incx, yb, incy, n, result,
                                                                                       partials);
      check_launch(fn);
      if (grid == 1) return;
      const Acc* partials_in = partials;
      if constexpr (std::is_same_v<Acc, nrm2_sums>) {
        constexpr int threads = 256;
        launch_dependent(fn, level1_finish_kernel<threads, Term, Acc, Out>, 1, threads, stream, partials_in, grid,
                         result);
      } else {
        constexpr reduce_policy final_policy = reduce_policy_for<Acc>(Arch);
        auto* finish = reduce_kernel<policy_constant<final_policy>, reduce_finish::partials_only, false, Acc, Acc, Out,
                                     plus, identity>;
        launch_dependent(fn, finish, 1, final_policy.threads, stream, partials_in, std::uint64_t(grid),
                         std::uint64_t(0), result, Acc(0), plus{}, identity{}, static_cast<Acc*>(nullptr),
                         static_cast<unsigned*>(nullptr));
      }
    });
  });
}

/// dot: the element and result types, the arguments, then level1_run.
template <auto Policy, class In, class Out>
void dot_run(const char* fn, std::int64_t n, const In* x, std::int64_t incx, const In* y, std::int64_t incy,
             Out* result, const workspace* ws, cudaStream_t stream) {
  static_assert(blas_element_v<In>, "cuprim::blas::dot: x and y of float, double, __half or __nv_bfloat16");
  using Acc = accumulator_t<In>;
  static_assert(std::is_same_v<Out, Acc> || std::is_same_v<Out, In>,
                "cuprim::blas::dot: the result is of the accumulator type (float for 16-bit inputs) or the input type");
  dot_validate(fn, n, x, incx, y, incy, result);
  level1_run<Policy, dot_term>(fn, "dot_workspace_bytes(n)", n, x, incx, y, incy, result, ws, stream);
}

template <class In, class Out>
void norm_validate(const char* fn, std::int64_t n, const In* x, std::int64_t incx, const Out* result,
                   bool result_needed = true) {
  check_size(fn, "n", n, sizeof(In));
  const std::size_t x_bytes = strided_span_bytes(fn, "incx", n, incx, sizeof(In));
  check_pointer(fn, "x", x, n > 0);
  check_pointer(fn, "result", result, result_needed);
  check_overlaps(fn, {{"x", x, x_bytes, read_only}, {"result", result, sizeof(Out), written}});
}

/// asum and nrm2: the element and result types, the arguments, then level1_run.
template <auto Policy, class Term, class In, class Out>
void norm_run(const char* fn, std::int64_t n, const In* x, std::int64_t incx, Out* result, const workspace* ws,
              cudaStream_t stream) {
  static_assert(blas_element_v<In>, "cuprim::blas::asum, nrm2: x of float, double, __half or __nv_bfloat16");
  static_assert(std::is_same_v<Out, accumulator_t<In>> || std::is_same_v<Out, In>,
                "cuprim::blas::asum, nrm2: the result is of the accumulator type (float for 16-bit inputs) or the "
                "input type");
  norm_validate(fn, n, x, incx, result);
  constexpr const char* ws_call =
      std::is_same_v<Term, nrm2_term> ? "nrm2_workspace_bytes(n)" : "asum_workspace_bytes(n)";
  level1_run<Policy, Term>(fn, ws_call, n, x, incx, x, incx, result, ws, stream);
}

/// asum_sync and nrm2_sync: the argument rules first (a bad call allocates nothing), a one-element result, the wait.
template <auto Policy, class Term, class In>
accumulator_t<In> norm_sync(const char* fn, std::int64_t n, const In* x, std::int64_t incx, cudaStream_t stream) {
  using Acc = accumulator_t<In>;
  norm_validate(fn, n, x, incx, static_cast<const Acc*>(nullptr), false);
  device_buffer<Acc> r(1, stream);
  norm_run<Policy, Term>(fn, n, x, incx, r.data(), nullptr, stream);
  return r.to_host_sync()[0];
}

}  // namespace cuprim::detail

namespace cuprim::blas {

/// Bytes of workspace the explicit-workspace dot needs for n elements of T on the current device (monotonic in n;
/// 0 for n = 0).
template <class T>
std::size_t dot_workspace_bytes(std::int64_t n) {
  return detail::reduce_layout<accumulator_t<T>>(n > 0 ? std::uint64_t(n) : 0).bytes();
}

/// *result = Σ x_k·y_k (see the file comment); workspace from the current memory resource.
template <auto Policy = tuned, class In, class Out>
void dot(std::int64_t n, const In* x, std::int64_t incx, const In* y, std::int64_t incy, Out* result,
         cudaStream_t stream = 0) {
  detail::dot_run<Policy>("cuprim::blas::dot", n, x, incx, y, incy, result, nullptr, stream);
}

/// *result = Σ x_k·y_k in the caller's workspace (at least dot_workspace_bytes<In>(n)).
template <auto Policy = tuned, class In, class Out>
void dot(std::int64_t n, const In* x, std::int64_t incx, const In* y, std::int64_t incy, Out* result, workspace ws,
         cudaStream_t stream = 0) {
  detail::dot_run<Policy>("cuprim::blas::dot", n, x, incx, y, incy, result, &ws, stream);
}

/// Bytes of workspace the explicit-workspace asum needs for n elements of T on the current device.
template <class T>
std::size_t asum_workspace_bytes(std::int64_t n) {
  return dot_workspace_bytes<T>(n);
}

/// Bytes of workspace the explicit-workspace nrm2 needs for n elements of T on the current device.
template <class T>
std::size_t nrm2_workspace_bytes(std::int64_t n) {
  return detail::reduce_layout<detail::nrm2_sums>(n > 0 ? std::uint64_t(n) : 0).bytes();
}

/// *result = Σ |x_k| (see the file comment); workspace from the current memory resource.
template <auto Policy = tuned, class In, class Out>
void asum(std::int64_t n, const In* x, std::int64_t incx, Out* result, cudaStream_t stream = 0) {
  detail::norm_run<Policy, detail::asum_term>("cuprim::blas::asum", n, x, incx, result, nullptr, stream);
}

/// *result = Σ |x_k| in the caller's workspace (at least asum_workspace_bytes<In>(n)).
template <auto Policy = tuned, class In, class Out>
void asum(std::int64_t n, const In* x, std::int64_t incx, Out* result, workspace ws, cudaStream_t stream = 0) {
  detail::norm_run<Policy, detail::asum_term>("cuprim::blas::asum", n, x, incx, result, &ws, stream);
}

/// *result = sqrt(Σ x_k²) without overflow or underflow of the intermediate sums (see the file comment); workspace
/// from the current memory resource.
template <auto Policy = tuned, class In, class Out>
void nrm2(std::int64_t n, const In* x, std::int64_t incx, Out* result, cudaStream_t stream = 0) {
  detail::norm_run<Policy, detail::nrm2_term>("cuprim::blas::nrm2", n, x, incx, result, nullptr, stream);
}

/// *result = sqrt(Σ x_k²) in the caller's workspace (at least nrm2_workspace_bytes<In>(n)).
template <auto Policy = tuned, class In, class Out>
void nrm2(std::int64_t n, const In* x, std::int64_t incx, Out* result, workspace ws, cudaStream_t stream = 0) {
  detail::norm_run<Policy, detail::nrm2_term>("cuprim::blas::nrm2", n, x, incx, result, &ws, stream);
}

/// Returns Σ |x_k| to the host, in the accumulator type. Synchronises `stream`.
template <auto Policy = tuned, class In>
accumulator_t<In> asum_sync(std::int64_t n, const In* x, std::int64_t incx, cudaStream_t stream = 0) {
  return detail::norm_sync<Policy, detail::asum_term>("cuprim::blas::asum_sync", n, x, incx, stream);
}

/// Returns sqrt(Σ x_k²) to the host, in the accumulator type. Synchronises `stream`.
template <auto Policy = tuned, class In>
accumulator_t<In> nrm2_sync(std::int64_t n, const In* x, std::int64_t incx, cudaStream_t stream = 0) {
  return detail::norm_sync<Policy, detail::nrm2_term>("cuprim::blas::nrm2_sync", n, x, incx, stream);
}

/// Returns Σ x_k·y_k to the host, in the accumulator type. Synchronises `stream`.
template <auto Policy = tuned, class In>
accumulator_t<In> dot_sync(std::int64_t n, const In* x, std::int64_t incx, const In* y, std::int64_t incy,
                           cudaStream_t stream = 0) {
  using Acc = accumulator_t<In>;
  // The argument rules first: a bad call allocates nothing.
  detail::dot_validate("cuprim::blas::dot_sync", n, x, incx, y, incy, static_cast<const Acc*>(nullptr), false);
  device_buffer<Acc> r(1, stream);
  detail::dot_run<Policy>("cuprim::blas::dot_sync", n, x, incx, y, incy, r.data(), nullptr, stream);
  return r.to_host_sync()[0];
}

}  // namespace cuprim::blas
