// cuprim/device/segmented_reduce.cuh: reductions of many segments at once, over CSR offsets (host entry points).
//
//   cuprim::segmented_reduce(in, out, offsets, num_segments, op, init, stream)
//        out[s] = init ⊕ in[offsets[s]] ⊕ ... ⊕ in[offsets[s+1] - 1]     (init for an empty segment)
//   cuprim::segmented_transform_reduce(in, out, offsets, num_segments, transform, op, init, stream)
//        the same over transform(in[i]) — or transform(in[i], i) for an indexed transform (see below)
//   cuprim::segmented_sum(in, out, offsets, num_segments, stream)
//   ... each with a `workspace` overload sized by cuprim::segmented_reduce_workspace_bytes<Acc>(num_segments).
//
// Offsets. `offsets` holds num_segments + 1 non-decreasing int32 or int64 values in device memory (the CSR row
// pointer); segment s is [offsets[s], offsets[s+1]) and offsets[0] need not be 0. They are read on the device
// only: the host never waits for them, and what it cannot see it cannot check (decreasing offsets give
// unspecified results, never accesses outside [offsets[0], offsets[num_segments])).
//
// Types and operator: as for cuprim::reduce. The accumulator is init's type (float for __half and
// __nv_bfloat16 init), each element is converted to it, each result converted to *out's type. `op` must be
// associative; unlike cuprim::reduce it need not be commutative (each segment is combined in index order, init
// first) and needs no identity element. An indexed transform (a functor with a static
// member `indexed`, called as f(in[i], i) with i the index into `in`) turns a reduction into, e.g., a CSR
// matrix-vector product: f(value, k) = value * x[column[k]] (examples/02_spmv.cu).
//
// Work is balanced over segment ends and elements together (a merge path, see
// detail/segmented_reduce_kernel.cuh), so any mix of segment sizes runs at the same rate per item: many empty or
// tiny segments, a few huge ones, or both. One launch (plus a small memset of the workspace); the grid is a fixed
// number of blocks per SM. Determinism (core/functional.cuh defines it): the order of operations depends on the
// offsets, the input's alignment, the policy and the SM count.
//
// Policy. Each entry point takes an optional cuprim::segmented_reduce_policy as its first template argument (default
// cuprim::tuned: the row of segmented_reduce_policy_for<In, Acc> for the device;
// device/detail/segmented_reduce_tuning.cuh).
//
// Errors. cuprim::invalid_argument before anything runs: num_segments < 0, a null `out` or `offsets` when
// num_segments > 0, `out` overlapping the offsets, a workspace too small. cuprim::cuda_error for a failed launch
// or an error already pending. The input's extent lives on the device, so the host cannot check it: `in` may be
// null when every segment is empty, and `out` must not overlap [in + offsets[0], in + offsets[num_segments]).
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/lookback.cuh>
#include <cuprim/device/detail/segmented_reduce_kernel.cuh>
#include <cuprim/device/detail/segmented_reduce_tuning.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim {

namespace detail {

/// The workspace: the chunk counter, then one published state per chunk, sized for the largest grid any policy
/// makes (blocks_per_sm <= 16), so that one size fits every input type and policy; empty for no segments.
template <class Acc>
lookback_layout<Acc> segmented_reduce_layout(std::int64_t num_segments) {
  if (num_segments <= 0) return {};
  return lookback_layout<Acc>(std::uint64_t(get_device_info().sm_count) * 16);
}

template <class Out, class Offset>
void segmented_reduce_validate(const char* fn, Out* out, const Offset* offsets, std::int64_t num_segments) {
  static_assert(std::is_integral_v<Offset>, "offsets must be an integer type (int32 or int64)");
  check_size(fn, "num_segments", num_segments, sizeof(Out));
  // `in` may be null: the number of elements lives on the device, and when every segment is empty nothing is read.
  check_pointer(fn, "out", out, num_segments > 0);
  check_pointer(fn, "offsets", offsets, num_segments > 0);
  check_overlaps(fn, {{"offsets", offsets, std::size_t(num_segments + 1) * sizeof(Offset), read_only},
                      {"out", out, std::size_t(num_segments) * sizeof(Out), written}});
}

/// The launch (arguments validated, num_segments > 0, workspace large enough): the counter and chunk states zeroed,
/// then blocks_per_sm × SM count blocks.
template <segmented_reduce_policy P, class In, class Out, class Offset, class Acc, class Op, class F>
void segmented_reduce_launch(const char* fn, const In* in, Out* out, const Offset* offsets, std::int64_t num_segments,
                             Op op, Acc init, F f, const lookback_layout<Acc>& L, workspace ws, cudaStream_t stream) {
  static_assert(segmented_reduce_policy_valid<P>());
  const unsigned grid = static_cast<unsigned>(get_device_info().sm_count) * static_cast<unsigned>(P.blocks_per_sm);
  CUPRIM_CUDA_CHECK(cudaMemsetAsync(ws.data, 0, L.zero_bytes(grid), stream));
  const bool vector_in = reinterpret_cast<std::uintptr_t>(in) % sizeof(In) == 0;
  segmented_reduce_kernel<policy_constant<P>><<<grid, P.threads, 0, stream>>>(
      in, out, offsets, num_segments, op, init, f, L.state(ws, grid), L.counter(ws), grid, vector_in);
  check_launch(fn);
}

/// Every segmented reduction entry point ends here: validate, plan, launch.
template <auto Policy, class In, class Out, class Offset, class Transform, class Op, class Init>
void segmented_reduce_run(const char* fn, const In* in, Out* out, const Offset* offsets, std::int64_t num_segments,
                          Transform transform, Op op, Init init, const workspace* ws, cudaStream_t stream) {
  using Acc = accumulator_t<Init>;
  segmented_reduce_validate(fn, out, offsets, num_segments);
  const lookback_layout<Acc> L = segmented_reduce_layout<Acc>(num_segments);
  check_workspace(fn, ws, L.bytes(), "segmented_reduce_workspace_bytes(num_segments)");
  check_no_pending_error(fn);
  if (num_segments == 0) return;
  with_workspace(ws, L.bytes(), stream, [&](const workspace& w) {
    with_tuned_arch([&]<int Arch>() {
      constexpr segmented_reduce_policy P = pick_policy<Policy>(segmented_reduce_policy_for<In, Acc>(Arch));
      segmented_reduce_launch<P>(fn, in, out, offsets, num_segments, op, convert<Acc>(init), transform, L, w, stream);
    });
  });
}

}  // namespace detail

/// Bytes of workspace the explicit-workspace overloads need for num_segments segments accumulated in Acc (the type
/// of init) on the current device: a few KiB, whatever the input type, policy or number of elements; 0 when
/// num_segments is 0.
template <class Acc>
std::size_t segmented_reduce_workspace_bytes(std::int64_t num_segments) {
  return detail::segmented_reduce_layout<accumulator_t<Acc>>(num_segments).bytes();
}

/// out[s] = init ⊕ transform(in[offsets[s]]) ⊕ ... ⊕ transform(in[offsets[s+1] - 1]), in the caller's workspace.
template <auto Policy = tuned, class In, class Out, class Offset, class Transform, class Op, class Init>
void segmented_transform_reduce(const In* in, Out* out, const Offset* offsets, std::int64_t num_segments,
                                Transform transform, Op op, Init init, workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_reduce_run<Policy>(fn, in, out, offsets, num_segments, transform, op, init, &ws, stream);
}

/// out[s] = init ⊕ transform(in[offsets[s]]) ⊕ ... ⊕ transform(in[offsets[s+1] - 1]); workspace from the current
/// memory resource.
template <auto Policy = tuned, class In, class Out, class Offset, class Transform, class Op, class Init>
void segmented_transform_reduce(const In* in, Out* out, const Offset* offsets, std::int64_t num_segments,
                                Transform transform, Op op, Init init, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_reduce_run<Policy>(fn, in, out, offsets, num_segments, transform, op, init, nullptr, stream);
}

/// out[s] = init ⊕ in[offsets[s]] ⊕ ... ⊕ in[offsets[s+1] - 1] (init for an empty segment), in the caller's
/// workspace (see segmented_reduce_workspace_bytes).
template <auto Policy = tuned, class In, class Out, class Offset, class Op, class Init>
void segmented_reduce(const In* in, Out* out, const Offset* offsets, std::int64_t num_segments, Op op, Init init,
                      workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_reduce_run<Policy>(fn, in, out, offsets, num_segments, identity{}, op, init, &ws, stream);
}

/// out[s] = init ⊕ in[offsets[s]] ⊕ ... ⊕ in[offsets[s+1] - 1] (init for an empty segment); workspace from the
/// current memory resource.
template <auto Policy = tuned, class In, class Out, class Offset, class Op, class Init>
void segmented_reduce(const In* in, Out* out, const Offset* offsets, std::int64_t num_segments, Op op, Init init,
                      cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_reduce_run<Policy>(fn, in, out, offsets, num_segments, identity{}, op, init, nullptr, stream);
}

/// out[s] = Σ in[offsets[s] .. offsets[s+1]), accumulated in *out's type (float for 16-bit floats); 0 when empty.
template <class In, class Out, class Offset>
void segmented_sum(const In* in, Out* out, const Offset* offsets, std::int64_t num_segments, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_reduce_run<tuned>(fn, in, out, offsets, num_segments, identity{}, plus{},
                                      detail::convert<accumulator_t<Out>>(0), nullptr, stream);
}

}  // namespace cuprim
