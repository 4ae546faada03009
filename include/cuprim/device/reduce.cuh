// cuprim/device/reduce.cuh: device-wide reductions (host entry points).
//
//   cuprim::reduce(in, out, n, op, init, stream)                 *out = init ⊕ in[0] ⊕ ... ⊕ in[n-1]
//   cuprim::reduce(in, out, n, op, init, workspace, stream)      the same in a caller's workspace
//   cuprim::reduce_workspace_bytes<Acc>(n)                       how much workspace that needs
//   cuprim::transform_reduce(in, out, n, transform, op, init, stream)
//   cuprim::sum / cuprim::min / cuprim::max                      conveniences over reduce
//   cuprim::argmin / cuprim::argmax(in, out, n, stream)          (value, lowest index) of the extreme
//   cuprim::reduce_sync(in, n, op, init, stream)                 returns the result to the host (synchronises)
//
// Types. `in` points to n elements of any of int8..int64, uint8..uint64, float, double, __half,
// __nv_bfloat16 or a trivially copyable user struct. The accumulator is the type of `init` (float when init is
// __half or __nv_bfloat16), each element is converted to it, and the result is converted to *out's type.
// Pass a wider init (int64 for int8 data, say) to accumulate wider; integer overflow wraps as in C++.
//
// Operator. Any associative and commutative callable `Acc op(Acc, Acc)` on host and device (cuprim::plus,
// multiplies, minimum, maximum, or a user functor / __device__ lambda). No identity element is needed.
//
// Streams and synchronisation. Everything is ordered on `stream` (default: the legacy default stream); no call
// here waits for the GPU except reduce_sync, whose name says so. The default overloads take their workspace
// (a few KiB) from cuprim::current_resource(), a caching stream-ordered pool. The explicit-workspace overloads
// allocate nothing and can be captured in a CUDA graph.
//
// Determinism (core/functional.cuh defines it): the order of operations depends on n, the input's alignment, the
// policy and the SM count (the grid is blocks_per_sm × SMs), so results are bitwise identical run to run on one GPU
// model; elsewhere they may differ in the last bits, within the error bound of a blocked, pairwise summation.
//
// Policy. Each entry point takes an optional cuprim::reduce_policy as its first template argument (default
// cuprim::tuned: the row of reduce_policy_for for the device; device/detail/reduce_tuning.cuh).
//
// Errors. cuprim::invalid_argument, before anything is launched or written: null `in` with n > 0, null `out`,
// n < 0, `out` overlapping the input, a workspace smaller than reduce_workspace_bytes. cuprim::cuda_error for a
// failed launch, or for an error that was already pending (marked pre_existing()).
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/reduce_arg_kernel.cuh>
#include <cuprim/device/detail/reduce_kernel.cuh>
#include <cuprim/device/detail/reduce_tuning.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace cuprim {

namespace detail {

/// Grid of the single-pass kernel for n elements of In under policy P on the current device.
template <reduce_policy P, class In>
inline unsigned reduce_grid(const In* in, std::uint64_t n) {
  using vt = vector_traits<In, P.vector_bytes>;
  const std::uint64_t tile = std::uint64_t(P.threads) * P.unroll * vt::elems;
  const std::uint64_t head = vt::vectorized ? misaligned_head(in, n, P.vector_bytes) : 0;
  const std::uint64_t full_tiles = (n - head) / tile;
  const std::uint64_t max_grid = std::uint64_t(get_device_info().sm_count) * P.blocks_per_sm;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min(full_tiles, max_grid)));
}

/// The reduction's workspace: one partial per block of the first grid, for the largest grid any policy and
/// alignment may launch (8 blocks per SM).
template <class Acc>
struct reduce_layout {
  workspace_part<Acc> partials;  // (blocks)
  workspace_layout L;
  explicit reduce_layout(std::uint64_t n) {
    if (n > 0) partials = L.add<Acc>(std::min<std::uint64_t>(n, std::uint64_t(get_device_info().sm_count) * 8));
  }
  std::size_t bytes() const { return L.bytes(); }
};

template <class In, class Out>
void reduce_validate(const char* fn, const In* in, Out* out, std::int64_t n) {
  check_size(fn, "n", n, sizeof(In));
  check_pointer(fn, "in", in, n > 0);
  check_pointer(fn, "out", out);
  check_overlaps(fn, {{"in", in, std::size_t(n) * sizeof(In), read_only}, {"out", out, sizeof(Out), written}});
}

/// The launches behind every reduction entry point (arguments validated, workspace planned): a grid writes one
/// partial per block into the workspace under policy P, and a single block, launched as a programmatic dependent
/// launch, reduces the partials under the accumulator type's row for architecture Arch (reduce_kernel.cuh).
/// Inputs under one tile take one launch.
template <int Arch, reduce_policy P, class In, class Out, class Acc, class Op, class F>
void reduce_launch(const char* fn, const In* in, Out* out, std::uint64_t n, Op op, Acc init, F f, Acc* partials,
                   cudaStream_t stream) {
  static_assert(reduce_policy_valid<P>());
  if (n == 0) {
    write_value_kernel<Out, Acc><<<1, 1, 0, stream>>>(out, init);
    check_launch(fn);
    return;
  }
  const unsigned grid = reduce_grid<P>(in, n);
  using vt = vector_traits<In, P.vector_bytes>;
  const std::uint64_t head = vt::vectorized ? misaligned_head(in, n, P.vector_bytes) : 0;
  // argmin / argmax with a full tile for every block take their extremes first (reduce_arg_kernel.cuh).
  bool arg_pass = false;
  if constexpr (arg_reduction_v<In, F, Op>) {
    arg_pass = n - head >= std::uint64_t(P.threads) * P.unroll * vt::elems;
    if (arg_pass)
      arg_reduce_kernel<policy_constant<P>, Op::max><<<grid, P.threads, 0, stream>>>(in, n, head, out, init, partials);
  }
  if (!arg_pass)
    reduce_kernel<policy_constant<P>, reduce_finish::partials_only, true>
        <<<grid, P.threads, 0, stream>>>(in, n, head, out, init, op, f, partials, nullptr);
  check_launch(fn);
  if (grid == 1) return;  // one block wrote *out itself
  constexpr reduce_policy final_policy = reduce_policy_for<Acc>(Arch);
  const Acc* partials_in = partials;
  auto* finish = reduce_kernel<policy_constant<final_policy>, reduce_finish::partials_only, false, Acc, Acc, Out, Op,
                               identity>;
  launch_dependent(fn, finish, 1, final_policy.threads, stream, partials_in, std::uint64_t(grid), std::uint64_t(0), out,
                   init, op, identity{}, static_cast<Acc*>(nullptr), static_cast<unsigned*>(nullptr));
}

/// Every reduction entry point ends here: validate, plan, launch.
template <auto Policy, class In, class Out, class Transform, class Op, class Init>
void transform_reduce_run(const char* fn, const In* in, Out* out, std::int64_t n, Transform transform, Op op,
                          Init init, const workspace* ws, cudaStream_t stream) {
  using Acc = accumulator_t<Init>;
  reduce_validate(fn, in, out, n);
  const reduce_layout<Acc> L{std::uint64_t(n)};
  check_workspace(fn, ws, L.bytes(), "reduce_workspace_bytes(n)");
  check_no_pending_error(fn);
  with_workspace(ws, L.bytes(), stream, [&](const workspace& w) {
    with_tuned_arch([&]<int Arch>() {
      constexpr reduce_policy P = pick_policy<Policy>(reduce_policy_for<In>(Arch));
      reduce_launch<Arch, P>(fn, in, out, std::uint64_t(n), op, convert<Acc>(init), transform, L.partials.in(w),
                             stream);
    });
  });
}

}  // namespace detail

/// Bytes of workspace the explicit-workspace overloads need for n elements accumulated in Acc on the current
/// device. Monotonic in n; 0 for n = 0.
template <class Acc>
std::size_t reduce_workspace_bytes(std::int64_t n) {
  return detail::reduce_layout<accumulator_t<Acc>>(n > 0 ? std::uint64_t(n) : 0).bytes();
}

/// *out = init ⊕ transform(in[0]) ⊕ ... ⊕ transform(in[n-1]), in the caller's workspace.
template <auto Policy = tuned, class In, class Out, class Transform, class Op, class Init>
void transform_reduce(const In* in, Out* out, std::int64_t n, Transform transform, Op op, Init init, workspace ws,
                      cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::transform_reduce_run<Policy>(fn, in, out, n, transform, op, init, &ws, stream);
}

/// *out = init ⊕ transform(in[0]) ⊕ ... ⊕ transform(in[n-1]); workspace from the current memory resource.
template <auto Policy = tuned, class In, class Out, class Transform, class Op, class Init>
void transform_reduce(const In* in, Out* out, std::int64_t n, Transform transform, Op op, Init init,
                      cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::transform_reduce_run<Policy>(fn, in, out, n, transform, op, init, nullptr, stream);
}

/// *out = init ⊕ in[0] ⊕ ... ⊕ in[n-1], in the caller's workspace (see reduce_workspace_bytes).
template <auto Policy = tuned, class In, class Out, class Op, class Init>
void reduce(const In* in, Out* out, std::int64_t n, Op op, Init init, workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::transform_reduce_run<Policy>(fn, in, out, n, identity{}, op, init, &ws, stream);
}

/// *out = init ⊕ in[0] ⊕ ... ⊕ in[n-1]; workspace from the current memory resource.
template <auto Policy = tuned, class In, class Out, class Op, class Init>
void reduce(const In* in, Out* out, std::int64_t n, Op op, Init init, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::transform_reduce_run<Policy>(fn, in, out, n, identity{}, op, init, nullptr, stream);
}

/// *out = Σ in[i], accumulated in *out's type (float for 16-bit floats).
template <class In, class Out>
void sum(const In* in, Out* out, std::int64_t n, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::transform_reduce_run<tuned>(fn, in, out, n, identity{}, plus{}, detail::convert<Out>(0), nullptr, stream);
}

/// *out = the smallest element, or the type's highest value (+inf for floats) when n = 0.
template <class T>
void min(const T* in, T* out, std::int64_t n, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::transform_reduce_run<tuned>(fn, in, out, n, identity{}, minimum{}, numeric_traits<T>::highest(), nullptr,
                                      stream);
}

/// *out = the largest element, or the type's lowest value (-inf for floats) when n = 0.
template <class T>
void max(const T* in, T* out, std::int64_t n, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::transform_reduce_run<tuned>(fn, in, out, n, identity{}, maximum{}, numeric_traits<T>::lowest(), nullptr,
                                      stream);
}

/// *out = (smallest value, lowest index where it occurs). A NaN counts as smaller than every number (the first
/// NaN is reported). For n = 0, *out = (numeric_traits<T>::highest(), -1).
template <class T>
void argmin(const T* in, arg_result<T>* out, std::int64_t n, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::transform_reduce_run<tuned>(fn, in, out, n, detail::arg_transform<T, T>{}, detail::arg_op<false>{},
                                      arg_result<T>{numeric_traits<T>::highest(), -1}, nullptr, stream);
}

/// *out = (largest value, lowest index where it occurs). A NaN counts as larger than every number (the first
/// NaN is reported). For n = 0, *out = (numeric_traits<T>::lowest(), -1).
template <class T>
void argmax(const T* in, arg_result<T>* out, std::int64_t n, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::transform_reduce_run<tuned>(fn, in, out, n, detail::arg_transform<T, T>{}, detail::arg_op<true>{},
                                      arg_result<T>{numeric_traits<T>::lowest(), -1}, nullptr, stream);
}

/// Returns init ⊕ in[0] ⊕ ... ⊕ in[n-1] to the host, in the accumulator type. Synchronises `stream`.
template <class In, class Op, class Init>
accumulator_t<Init> reduce_sync(const In* in, std::int64_t n, Op op, Init init, cudaStream_t stream = 0) {
  using Acc = accumulator_t<Init>;
  device_buffer<Acc> result(1, stream);
  reduce(in, result.data(), n, op, init, stream);
  return result.to_host_sync()[0];
}

}  // namespace cuprim
