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
// number of blocks per SM. Floating-point results are bitwise identical from run to run on the same GPU (the
// order of operations depends only on the offsets, the input's alignment and the SM count).
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
#include <cuprim/device/detail/segmented_reduce_kernel.cuh>
#include <cuprim/device/detail/segmented_reduce_tuning.cuh>
#include <cuprim/device/reduce.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim {

namespace detail {

template <class Policy>
inline unsigned segmented_reduce_grid() {
  return static_cast<unsigned>(get_device_info().sm_count) * static_cast<unsigned>(Policy::blocks_per_sm);
}

/// Workspace: a chunk counter, then one published state per chunk, sized for the largest grid any policy makes
/// (blocks_per_sm <= 16), so that one size fits every input type and policy.
template <class Acc>
std::size_t segmented_reduce_workspace_bytes_for(std::int64_t num_segments) {
  if (num_segments <= 0) return 0;
  return 256 + align_up(tile_state<Acc>::bytes(std::uint64_t(get_device_info().sm_count) * 16));
}

template <class Out, class Offset>
void validate_segmented_reduce(const char* fn, Out* out, const Offset* offsets, std::int64_t num_segments) {
  static_assert(std::is_integral_v<Offset>, "offsets must be an integer type (int32 or int64)");
  if (num_segments < 0) throw_invalid(fn, "num_segments", "must be non-negative");
  if (num_segments == 0) return;
  // `in` may be null: the number of elements lives on the device, and when every segment is empty nothing is read.
  if (out == nullptr) throw_invalid(fn, "out", "must not be null when num_segments > 0");
  if (offsets == nullptr) throw_invalid(fn, "offsets", "must not be null when num_segments > 0");
  if (ranges_overlap(out, std::size_t(num_segments) * sizeof(Out), offsets,
                     (std::size_t(num_segments) + 1) * sizeof(Offset)))
    throw_invalid(fn, "out", "must not overlap the offsets [offsets, offsets + num_segments + 1)");
}

template <class Policy, class In, class Out, class Offset, class Acc, class Op, class F>
void segmented_reduce_launch(const char* fn, const In* in, Out* out, const Offset* offsets,
                             std::int64_t num_segments, Op op, Acc init, F f, workspace ws, cudaStream_t stream) {
  if (num_segments == 0) return;
  const unsigned grid = segmented_reduce_grid<Policy>();
  auto* counter = static_cast<unsigned*>(ws.data);
  const tile_state<Acc> state = tile_state<Acc>::make(static_cast<char*>(ws.data) + 256, grid);
  CUPRIM_CUDA_CHECK(cudaMemsetAsync(ws.data, 0, 256 + tile_state<Acc>::zero_bytes(grid), stream));
  const bool vector_in = reinterpret_cast<std::uintptr_t>(in) % sizeof(In) == 0;
  segmented_reduce_kernel<Policy><<<grid, Policy::threads, 0, stream>>>(in, out, offsets, num_segments, op, init, f,
                                                                        state, counter, grid, vector_in);
  check_launch(fn);
}

template <class Policy, class In, class Init>
using segmented_reduce_policy_or_default =
    std::conditional_t<std::is_void_v<Policy>, typename segmented_reduce_default_policy<In, accumulator_t<Init>>::type,
                       Policy>;

}  // namespace detail

/// Bytes of workspace the explicit-workspace overloads need for num_segments segments accumulated in Acc (the type
/// of init) on the current device: a few KiB, whatever the input type, policy or number of elements; 0 when
/// num_segments is 0.
template <class Acc>
std::size_t segmented_reduce_workspace_bytes(std::int64_t num_segments) {
  return detail::segmented_reduce_workspace_bytes_for<accumulator_t<Acc>>(num_segments);
}

/// out[s] = init ⊕ transform(in[offsets[s]]) ⊕ ... ⊕ transform(in[offsets[s+1] - 1]), in the caller's workspace.
template <class Policy = void, class In, class Out, class Offset, class Transform, class Op, class Init>
void segmented_transform_reduce(const In* in, Out* out, const Offset* offsets, std::int64_t num_segments,
                                Transform transform, Op op, Init init, workspace ws, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::segmented_reduce";
  using Acc = accumulator_t<Init>;
  using P = detail::segmented_reduce_policy_or_default<Policy, In, Init>;
  detail::validate_segmented_reduce(fn, out, offsets, num_segments);
  const std::size_t need = detail::segmented_reduce_workspace_bytes_for<Acc>(num_segments);
  if (ws.bytes < need) detail::throw_invalid(fn, "workspace", "smaller than segmented_reduce_workspace_bytes(num_segments)");
  if (need && ws.data == nullptr) detail::throw_invalid(fn, "workspace", "data must not be null");
  detail::check_no_pending_error(fn);
  detail::segmented_reduce_launch<P>(fn, in, out, offsets, num_segments, op, detail::convert<Acc>(init), transform,
                                     ws, stream);
}

/// out[s] = init ⊕ transform(in[offsets[s]]) ⊕ ... ⊕ transform(in[offsets[s+1] - 1]); workspace from the current
/// memory resource.
template <class Policy = void, class In, class Out, class Offset, class Transform, class Op, class Init>
void segmented_transform_reduce(const In* in, Out* out, const Offset* offsets, std::int64_t num_segments,
                                Transform transform, Op op, Init init, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::segmented_reduce";
  using Acc = accumulator_t<Init>;
  using P = detail::segmented_reduce_policy_or_default<Policy, In, Init>;
  detail::validate_segmented_reduce(fn, out, offsets, num_segments);
  detail::check_no_pending_error(fn);
  detail::scratch ws(detail::segmented_reduce_workspace_bytes_for<Acc>(num_segments), stream);
  segmented_transform_reduce<P>(in, out, offsets, num_segments, transform, op, init, ws.get(), stream);
}

/// out[s] = init ⊕ in[offsets[s]] ⊕ ... ⊕ in[offsets[s+1] - 1] (init for an empty segment), in the caller's
/// workspace (see segmented_reduce_workspace_bytes).
template <class Policy = void, class In, class Out, class Offset, class Op, class Init>
void segmented_reduce(const In* in, Out* out, const Offset* offsets, std::int64_t num_segments, Op op, Init init,
                      workspace ws, cudaStream_t stream = 0) {
  segmented_transform_reduce<Policy>(in, out, offsets, num_segments, identity{}, op, init, ws, stream);
}

/// out[s] = init ⊕ in[offsets[s]] ⊕ ... ⊕ in[offsets[s+1] - 1] (init for an empty segment); workspace from the
/// current memory resource.
template <class Policy = void, class In, class Out, class Offset, class Op, class Init>
void segmented_reduce(const In* in, Out* out, const Offset* offsets, std::int64_t num_segments, Op op, Init init,
                      cudaStream_t stream = 0) {
  segmented_transform_reduce<Policy>(in, out, offsets, num_segments, identity{}, op, init, stream);
}

/// out[s] = Σ in[offsets[s] .. offsets[s+1]), accumulated in *out's type (float for 16-bit floats); 0 when empty.
template <class In, class Out, class Offset>
void segmented_sum(const In* in, Out* out, const Offset* offsets, std::int64_t num_segments, cudaStream_t stream = 0) {
  segmented_reduce(in, out, offsets, num_segments, plus{}, detail::convert<accumulator_t<Out>>(0), stream);
}

}  // namespace cuprim
