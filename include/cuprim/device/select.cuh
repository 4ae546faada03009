// cuprim/device/select.cuh: stream compaction (host entry points).
//
//   cuprim::select_if(in, out, num_selected, n, pred, stream)          out = the x in `in` with pred(x), in order
//   cuprim::select_flagged(in, flags, out, num_selected, n, stream)    out = the in[i] with flags[i] true, in order
//   cuprim::select_flagged_index(flags, out, num_selected, n, stream)  out = the indices i with flags[i] true, in
//                                                                      order (numpy.flatnonzero); reads only the
//                                                                      flags
//   cuprim::partition(in, out, num_selected, n, pred, stream)          out = selected items in order, then the
//                                                                      rejected ones in order (stable on both sides)
//   cuprim::unique(in, out, num_selected, n, [eq,] stream)             out = in without adjacent duplicates
//   cuprim::run_length_encode(in, unique_out, counts_out, num_runs, n, [eq,] stream)
//                                                                      each run of equal adjacent items: its first
//                                                                      item and its length
//   ... each with a `workspace` overload sized by cuprim::<name>_workspace_bytes<T>(n) (select_flagged_index:
//   <Flag>(n)), and a host convenience <name>_sync(...) that returns the count to the host and synchronises `stream`
//   (its name says so).
//
// The count. *num_selected (an int64_t in device memory) receives the number of items written to out (partition:
// the number selected; run_length_encode: the number of runs), ordered on `stream` like everything else: read it
// after synchronising, or pass it to later work on the stream. out must hold n items (the count is not known in
// advance); items past the count are not written (partition writes all n).
//
// Partition's layout. The selected items come first, in input order; the rejected items follow them, also in
// input order: out = [selected..., rejected...]. (cub::DevicePartition::If writes the rejected items in reverse.)
// Because the rejected items' positions depend on the total selected count, partition makes two passes: a
// read-only counting pass publishes each tile's count, then the single-pass scatter writes both sides with
// coalesced stores; it reads its input twice and writes it once. The other operations make one pass.
//
// Types. T is any trivially copyable type (arithmetic types, __half, __nv_bfloat16, user structs up to about
// 1.5 KiB); flags any type convertible to bool (bool, uint8_t, int, float, ...: nonzero is set; for floating point,
// -0.0 is not set and NaN is); counts_out any integer type (each count is converted to it); select_flagged_index's
// out a 32- or 64-bit integer type that holds n - 1. pred is a host/device functor or a __device__ lambda:
// bool pred(const T&). eq (default cuprim::equal_to, i.e. operator==) decides whether two adjacent items belong to
// the same run: bool eq(const T& earlier, const T& later). For floating point, NaN != NaN, so each NaN is a run of
// its own.
//
// Algorithm: one kernel, one tile per block, decoupled look-back over tile counts (device/detail/select_kernel.cuh);
// each input element is read once (partition: twice) and each selected item written once. select_flagged_index is
// select_flagged over the sequence 0, 1, ..., n - 1 (cub::DeviceSelect::Flagged over a cub::CountingInputIterator)
// with no index array in memory: each index is generated from its flag's position. It reads the n flags (tiled and
// vector-loaded as items of the flag type) and writes sizeof(out) bytes per set flag. select_if of 2^22 or
// more 4- or 8-byte arithmetic items with a 16-byte aligned input, on sm_90: the same look-back in a persistent
// pipeline (bulk copies into a ring of shared-memory tiles, producer, aggregator, look-back and segment warps;
// device/detail/select_pipeline_kernel.cuh).
//
// Policy. Each entry point takes an optional policy as its first template argument: cuprim::tuned (the default:
// the row of select_policy_for<T> for the device, device/detail/select_tuning.cuh; select_flagged_index: the row of
// its flag type), a cuprim::select_policy (one tile per block throughout) or a cuprim::select_pipeline_policy
// (select_flagged_index takes its `classic` tile).
//
// Errors. cuprim::invalid_argument before anything is launched or written: n < 0, a null input or output with
// n > 0, a null count pointer, an output overlapping an input or another output (out must not overlap in or flags,
// counts_out neither in nor unique_out; the count must not overlap any array; in and flags may overlap, both are
// only read), select_flagged_index's out of a type that cannot hold n - 1 (argument "out"), a workspace smaller
// than <name>_workspace_bytes<T>(n). cuprim::cuda_error for a failed launch or an
// error that was already pending.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/select_kernel.cuh>
#include <cuprim/device/detail/select_pipeline_kernel.cuh>
#include <cuprim/device/detail/select_tuning.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace cuprim {

namespace detail {

/// A functor argument (predicate or equality): a class type (functor, lambda) other than workspace; keeps
/// unique(in, out, count, n, stream) from taking the stream for an equality.
template <class F>
concept select_functor = std::is_class_v<F> && !std::is_same_v<std::remove_cvref_t<F>, workspace>;

/// Whether select_if may take the pipeline for T (run-time conditions on top: n, alignment, device).
template <class T, select_mode Mode>
inline constexpr bool select_pipeline_takes =
    Mode == select_mode::predicate && std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

/// Tiles whose states a one-tile-per-block compaction of n items publishes (none for a single tile) ...
template <select_policy P, class T, select_mode>
constexpr std::uint64_t select_lookback_tiles(std::int64_t n) {
  const std::uint64_t tiles = select_shape<P, T>::tiles(std::uint64_t(n));
  return tiles > 1 ? tiles : 0;
}
/// ... and under a pipeline policy, the most that either path takes at n.
template <select_pipeline_policy P, class T, select_mode Mode>
constexpr std::uint64_t select_lookback_tiles(std::int64_t n) {
  std::uint64_t tiles = select_lookback_tiles<P.classic, T, Mode>(n);
  if constexpr (select_pipeline_takes<T, Mode>)
    if (n >= P.pipeline.min_elems) tiles = std::max(tiles, pipeline_shape<P.pipeline, T>::tiles(std::uint64_t(n)));
  return tiles;
}

/// The compaction's workspace for n items of T in Mode under P: the look-back's counter (and partition's total) and
/// tile states.
template <auto P, class T, select_mode Mode>
lookback_layout<select_carry_t<Mode>> select_layout(std::int64_t n) {
  const std::uint64_t tiles = n > 0 ? select_lookback_tiles<P, T, Mode>(n) : 0;
  return tiles > 0 ? lookback_layout<select_carry_t<Mode>>(tiles) : lookback_layout<select_carry_t<Mode>>();
}

/// One block per tile and 32-bit tile ids (the one-tile-per-block kernel's tiles, which every call may take).
template <select_policy P, class T>
void check_select_tiles(const char* fn, std::int64_t n) {
  check_tiles(fn, select_shape<P, T>::tiles(std::uint64_t(n)));
}
template <select_pipeline_policy P, class T>
void check_select_tiles(const char* fn, std::int64_t n) {
  check_select_tiles<P.classic, T>(fn, n);
}

/// The sizing function each mode's workspace rule names.
constexpr const char* select_sizer(select_mode m) {
  switch (m) {
    case select_mode::predicate: return "select_if_workspace_bytes(n)";
    case select_mode::flagged: return "select_flagged_workspace_bytes(n)";
    case select_mode::flagged_index: return "select_flagged_index_workspace_bytes(n)";
    case select_mode::partition: return "partition_workspace_bytes(n)";
    case select_mode::unique: return "unique_workspace_bytes(n)";
    default: return "run_length_encode_workspace_bytes(n)";
  }
}

/// Names of the outputs one operation checks (for the messages).
struct select_names {
  const char* out = "out";
  const char* count = "num_selected";
};

/// The rules every compaction shares: n ≥ 0; in, out (and the flags or run lengths, when the mode has them) not
/// null when n > 0; the count not null (unless the call makes its own: check_count false); at most 2^31 - 1 tiles
/// under P; no output overlapping an input or another output (in and the flags may overlap: both are only read).
template <select_mode Mode, auto P, class T, class F, class Fn, class Count>
void select_validate(const char* fn, const select_params<T, F, Fn, Count>& p, std::int64_t n, select_names names,
                     bool check_count = true) {
  constexpr bool flagged = Mode == select_mode::flagged, run_length = Mode == select_mode::run_length;
  if constexpr (Mode == select_mode::flagged_index) {  // no input items: the flags, and indices of type T out
    check_size(fn, "n", n, std::max(sizeof(T), sizeof(F)));
    check_pointer(fn, "flags", p.flags, n > 0);
    check_pointer(fn, names.out, p.out, n > 0);
    if (check_count) check_pointer(fn, names.count, p.num_selected);
    if (n > 0 && std::uint64_t(n - 1) > std::uint64_t(std::numeric_limits<T>::max()))
      throw_invalid(fn, names.out, "indices of this type cannot hold n - 1");
    check_select_tiles<P, F>(fn, n);
    check_overlaps(fn, {{"flags", p.flags, std::size_t(n) * sizeof(F), read_only},
                        {names.out, p.out, std::size_t(n) * sizeof(T), written},
                        {names.count, p.num_selected, check_count ? sizeof(std::int64_t) : 0, written}});
    return;
  }
  check_size(fn, "n", n, sizeof(T));
  check_pointer(fn, "in", p.in, n > 0);
  if constexpr (flagged) check_pointer(fn, "flags", p.flags, n > 0);
  if constexpr (run_length) check_pointer(fn, "counts_out", p.counts, n > 0);
  check_pointer(fn, names.out, p.out, n > 0);
  if (check_count) check_pointer(fn, names.count, p.num_selected);
  check_select_tiles<P, T>(fn, n);
  const std::size_t items = std::size_t(n) * sizeof(T);
  const array_arg in{"in", p.in, items, read_only}, out{names.out, p.out, items, written};
  const array_arg count{names.count, p.num_selected, check_count ? sizeof(std::int64_t) : 0, written};
  if constexpr (flagged)
    check_overlaps(fn, {in, {"flags", p.flags, std::size_t(n) * sizeof(F), read_only}, out, count});
  else if constexpr (run_length)
    check_overlaps(fn, {in, out, {"counts_out", p.counts, std::size_t(n) * sizeof(Count), written}, count});
  else
    check_overlaps(fn, {in, out, count});
}

/// The one-tile-per-block launch (arguments validated, workspace large enough).
template <select_policy P, select_mode Mode, class T, class F, class Fn, class Count>
void select_launch(const char* fn, select_params<T, F, Fn, Count> p, const lookback_layout<select_carry_t<Mode>>& L,
                   workspace ws, cudaStream_t stream) {
  static_assert(select_policy_valid<P>());
  using shape = select_shape<P, select_load_t<Mode, T, F>>;
  using carry = select_carry_t<Mode>;
  if (p.n == 0) {
    CUPRIM_CUDA_CHECK(cudaMemsetAsync(p.num_selected, 0, sizeof(std::int64_t), stream));
    return;
  }
  const std::uint64_t tiles = shape::tiles(p.n);
  p.num_tiles = tiles;
  p.waits = scale_waits(P.first_wait_ns, P.poll_wait_ns, tiles, get_device_info().sm_count);
  const void* loaded = Mode == select_mode::flagged_index ? static_cast<const void*>(p.flags) : p.in;
  p.vector_in = reinterpret_cast<std::uintptr_t>(loaded) % shape::vt::bytes == 0;
  if constexpr (Mode == select_mode::flagged) {
    constexpr std::size_t fb = std::size_t(shape::V) * sizeof(F);
    p.vector_flags = (fb == 4 || fb == 8 || fb == 16) && reinterpret_cast<std::uintptr_t>(p.flags) % fb == 0;
  }
  auto* kernel = select_kernel<policy_constant<P>, Mode, T, F, Fn, Count, carry>;
  if (tiles == 1) {  // one block, no look-back, nothing to zero
    kernel<<<1, shape::threads, 0, stream>>>(p, tile_state<carry>{});
    check_launch(fn);
    return;
  }
  p.counter = L.counter(ws);
  const tile_state<carry> state = L.state(ws, tiles);
  if constexpr (Mode == select_mode::partition) {
    // The counting pass writes every tile's state: only the tile counter and the total need zeroing.
    CUPRIM_CUDA_CHECK(cudaMemsetAsync(ws.data, 0, 256, stream));
    const device_info& d = get_device_info();
    const std::uint64_t resident = std::uint64_t(d.sm_count) * std::max(1, d.max_threads_per_sm / shape::threads);
    const unsigned grid = static_cast<unsigned>(std::min(tiles, resident));
    select_count_kernel<policy_constant<P>><<<grid, shape::threads, 0, stream>>>(p, state, L.total(ws));
    check_launch(fn);
    p.total = L.total(ws);
    kernel<<<static_cast<unsigned>(tiles), shape::threads, 0, stream>>>(p, state);
    check_launch(fn);
  } else {
    // The zeroing kernel lets the select's launch overlap it; the kernel waits for it before taking a tile id.
    zero_async(fn, ws.data, L.zero_bytes(tiles), stream);
    launch_dependent(fn, kernel, static_cast<unsigned>(tiles), shape::threads, stream, p, state);
  }
}

/// ... and under a pipeline policy: select_if of large aligned arithmetic inputs takes the pipeline, everything
/// else one tile per block.
template <select_pipeline_policy P, select_mode Mode, class T, class F, class Fn, class Count>
void select_launch(const char* fn, select_params<T, F, Fn, Count> p, const lookback_layout<select_carry_t<Mode>>& L,
                   workspace ws, cudaStream_t stream) {
  if constexpr (select_pipeline_takes<T, Mode>) {
    if (p.n > 0 && std::int64_t(p.n) >= P.pipeline.min_elems && reinterpret_cast<std::uintptr_t>(p.in) % 16 == 0) {
      // Brace-initialised: a __device__ lambda predicate has no default constructor.
      select_pipeline_job<T, Fn> job{{p.in, p.n, 0, nullptr, {}, {}}, p.out, p.num_selected, p.fn, plus{}};
      if (pipeline_launch<P.pipeline>(fn, job, ws, stream)) return;
    }
  }
  select_launch<P.classic, Mode>(fn, p, L, ws, stream);
}

/// The policy a compaction of T runs: Policy, or (cuprim::tuned) the table's row for architecture Arch.
template <auto Policy, class T, int Arch>
inline constexpr auto select_pick = pick_either_policy<Policy, select_policy, select_pipeline_policy>(
    select_policy_for<T>(Arch));

/// Every compaction entry point ends here: validate, plan, launch. The policy and the tiles are those of the loaded
/// type (the items; flagged_index: the flags).
template <auto Policy, select_mode Mode, class T, class F, class Fn, class Count>
void select_run(const char* fn, const select_params<T, F, Fn, Count>& p, std::int64_t n, select_names names,
                const workspace* ws, cudaStream_t stream) {
  using Load = select_load_t<Mode, T, F>;
  with_tuned_arch([&]<int Arch>() {
    constexpr auto P = select_pick<Policy, Load, Arch>;
    select_validate<Mode, P>(fn, p, n, names);
    const auto L = select_layout<P, Load, Mode>(n);
    check_workspace(fn, ws, L.bytes(), select_sizer(Mode));
    check_no_pending_error(fn);
    with_workspace(ws, L.bytes(), stream, [&](const workspace& w) { select_launch<P, Mode>(fn, p, L, w, stream); });
  });
}

/// The *_sync calls: validated without a count, then run into a count of their own, which is returned to the host.
template <auto Policy, select_mode Mode, class T, class F, class Fn, class Count>
std::int64_t select_run_sync(const char* fn, select_params<T, F, Fn, Count> p, std::int64_t n, select_names names,
                             cudaStream_t stream) {
  using Load = select_load_t<Mode, T, F>;
  with_tuned_arch(
      [&]<int Arch>() { select_validate<Mode, select_pick<Policy, Load, Arch>>(fn, p, n, names, false); });
  device_buffer<std::int64_t> count(1, stream);
  p.num_selected = count.data();
  select_run<Policy, Mode>(fn, p, n, names, nullptr, stream);
  return count.to_host_sync()[0];
}

template <class T, class F, class Fn, class Count>
select_params<T, F, Fn, Count> make_select_params(const T* in, const F* flags, T* out, Count* counts,
                                                 std::int64_t* num_selected, std::int64_t n, Fn fn) {
  return {in, flags, out, counts, num_selected, std::uint64_t(n), 0, nullptr, nullptr, fn, false, false,
          lookback_waits{}};
}

/// Parameters of flagged_index: no input items; the indices are the items (T).
template <class F, class T>
select_params<T, F, no_functor, int> make_select_index_params(const F* flags, T* out, std::int64_t* num_selected,
                                                              std::int64_t n) {
  return make_select_params(static_cast<const T*>(nullptr), flags, out, static_cast<int*>(nullptr), num_selected, n,
                            no_functor{});
}

/// select_flagged_index's index types: 32- and 64-bit integers.
template <class T>
inline constexpr bool select_index_type = std::is_integral_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

/// Parameters of the modes without flags or run lengths.
template <class T, class Fn>
select_params<T, char, Fn, int> make_select_params(const T* in, T* out, std::int64_t* num_selected, std::int64_t n,
                                                   Fn fn) {
  return make_select_params(in, static_cast<const char*>(nullptr), out, static_cast<int*>(nullptr), num_selected, n,
                            fn);
}

/// Workspace bytes of Mode for n items of T (flagged_index: n flags of type T) under Policy on the current device.
template <auto Policy, class T, select_mode Mode>
std::size_t select_workspace_bytes(std::int64_t n) {
  return with_tuned_arch([&]<int Arch>() { return select_layout<select_pick<Policy, T, Arch>, T, Mode>(n).bytes(); });
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// Workspace sizes (monotonic in n; 0 when the input fits one tile)

/// Bytes of workspace select_if needs for n items of T.
template <class T, auto Policy = tuned>
std::size_t select_if_workspace_bytes(std::int64_t n) {
  return detail::select_workspace_bytes<Policy, T, detail::select_mode::predicate>(n);
}
/// Bytes of workspace select_flagged needs for n items of T.
template <class T, auto Policy = tuned>
std::size_t select_flagged_workspace_bytes(std::int64_t n) {
  return detail::select_workspace_bytes<Policy, T, detail::select_mode::flagged>(n);
}
/// Bytes of workspace select_flagged_index needs for n flags of type Flag (whatever the index type).
template <class Flag, auto Policy = tuned>
std::size_t select_flagged_index_workspace_bytes(std::int64_t n) {
  return detail::select_workspace_bytes<Policy, Flag, detail::select_mode::flagged_index>(n);
}
/// Bytes of workspace partition needs for n items of T.
template <class T, auto Policy = tuned>
std::size_t partition_workspace_bytes(std::int64_t n) {
  return detail::select_workspace_bytes<Policy, T, detail::select_mode::partition>(n);
}
/// Bytes of workspace unique needs for n items of T.
template <class T, auto Policy = tuned>
std::size_t unique_workspace_bytes(std::int64_t n) {
  return detail::select_workspace_bytes<Policy, T, detail::select_mode::unique>(n);
}
/// Bytes of workspace run_length_encode needs for n items of T.
template <class T, auto Policy = tuned>
std::size_t run_length_encode_workspace_bytes(std::int64_t n) {
  return detail::select_workspace_bytes<Policy, T, detail::select_mode::run_length>(n);
}

// ---------------------------------------------------------------------------------------------------------------
// select_if

/// Writes the items x of [in, in + n) with pred(x) to out, in order, and their number to *num_selected; in the
/// caller's workspace (select_if_workspace_bytes<T>(n)).
template <auto Policy = tuned, class T, class Pred>
void select_if(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Pred pred, workspace ws,
               cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::select_run<Policy, detail::select_mode::predicate>(
      fn, detail::make_select_params(in, out, num_selected, n, pred), n, {}, &ws, stream);
}

/// select_if with its workspace from the current memory resource.
template <auto Policy = tuned, class T, class Pred>
void select_if(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Pred pred, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::select_run<Policy, detail::select_mode::predicate>(
      fn, detail::make_select_params(in, out, num_selected, n, pred), n, {}, nullptr, stream);
}

/// select_if, returning the count to the host. Synchronises `stream`.
template <auto Policy = tuned, class T, class Pred>
std::int64_t select_if_sync(const T* in, T* out, std::int64_t n, Pred pred, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  return detail::select_run_sync<Policy, detail::select_mode::predicate>(
      fn, detail::make_select_params(in, out, nullptr, n, pred), n, {}, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// select_flagged

/// Writes the items in[i] with flags[i] true (converted to bool) to out, in order, and their number to
/// *num_selected; in the caller's workspace (select_flagged_workspace_bytes<T>(n)).
template <auto Policy = tuned, class T, class Flag>
void select_flagged(const T* in, const Flag* flags, T* out, std::int64_t* num_selected, std::int64_t n, workspace ws,
                    cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::select_run<Policy, detail::select_mode::flagged>(
      fn, detail::make_select_params(in, flags, out, static_cast<int*>(nullptr), num_selected, n, detail::no_functor{}),
      n, {}, &ws, stream);
}

/// select_flagged with its workspace from the current memory resource.
template <auto Policy = tuned, class T, class Flag>
void select_flagged(const T* in, const Flag* flags, T* out, std::int64_t* num_selected, std::int64_t n,
                    cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::select_run<Policy, detail::select_mode::flagged>(
      fn, detail::make_select_params(in, flags, out, static_cast<int*>(nullptr), num_selected, n, detail::no_functor{}),
      n, {}, nullptr, stream);
}

/// select_flagged, returning the count to the host. Synchronises `stream`.
template <auto Policy = tuned, class T, class Flag>
std::int64_t select_flagged_sync(const T* in, const Flag* flags, T* out, std::int64_t n, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  return detail::select_run_sync<Policy, detail::select_mode::flagged>(
      fn, detail::make_select_params(in, flags, out, static_cast<int*>(nullptr), nullptr, n, detail::no_functor{}), n,
      {}, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// select_flagged_index

/// Writes the indices i of [0, n) with flags[i] true (converted to bool) to out, in increasing order, and their
/// number to *num_selected (numpy.flatnonzero; the index array is never materialised: each index comes from its
/// flag's position); in the caller's workspace (select_flagged_index_workspace_bytes<Flag>(n)). Index: a 32- or
/// 64-bit integer type that holds n - 1 (else cuprim::invalid_argument naming out).
template <auto Policy = tuned, class Flag, class Index>
void select_flagged_index(const Flag* flags, Index* out, std::int64_t* num_selected, std::int64_t n, workspace ws,
                          cudaStream_t stream = 0) {
  static_assert(detail::select_index_type<Index>, "select_flagged_index: out must point to a 32- or 64-bit integer");
  CUPRIM_ENTRY_NAME(fn);
  detail::select_run<Policy, detail::select_mode::flagged_index>(
      fn, detail::make_select_index_params(flags, out, num_selected, n), n, {}, &ws, stream);
}

/// select_flagged_index with its workspace from the current memory resource.
template <auto Policy = tuned, class Flag, class Index>
void select_flagged_index(const Flag* flags, Index* out, std::int64_t* num_selected, std::int64_t n,
                          cudaStream_t stream = 0) {
  static_assert(detail::select_index_type<Index>, "select_flagged_index: out must point to a 32- or 64-bit integer");
  CUPRIM_ENTRY_NAME(fn);
  detail::select_run<Policy, detail::select_mode::flagged_index>(
      fn, detail::make_select_index_params(flags, out, num_selected, n), n, {}, nullptr, stream);
}

/// select_flagged_index, returning the count to the host. Synchronises `stream`.
template <auto Policy = tuned, class Flag, class Index>
std::int64_t select_flagged_index_sync(const Flag* flags, Index* out, std::int64_t n, cudaStream_t stream = 0) {
  static_assert(detail::select_index_type<Index>, "select_flagged_index: out must point to a 32- or 64-bit integer");
  CUPRIM_ENTRY_NAME(fn);
  return detail::select_run_sync<Policy, detail::select_mode::flagged_index>(
      fn, detail::make_select_index_params(flags, out, nullptr, n), n, {}, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// partition

/// Writes the items x of [in, in + n) with pred(x) to out in order, then the others in order after them
/// (stable on both sides), and the number selected to *num_selected; in the caller's workspace
/// (partition_workspace_bytes<T>(n)). Two passes: see the top of this file.
template <auto Policy = tuned, class T, class Pred>
void partition(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Pred pred, workspace ws,
               cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::select_run<Policy, detail::select_mode::partition>(
      fn, detail::make_select_params(in, out, num_selected, n, pred), n, {}, &ws, stream);
}

/// partition with its workspace from the current memory resource.
template <auto Policy = tuned, class T, class Pred>
void partition(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Pred pred, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::select_run<Policy, detail::select_mode::partition>(
      fn, detail::make_select_params(in, out, num_selected, n, pred), n, {}, nullptr, stream);
}

/// partition, returning the number selected to the host. Synchronises `stream`.
template <auto Policy = tuned, class T, class Pred>
std::int64_t partition_sync(const T* in, T* out, std::int64_t n, Pred pred, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  return detail::select_run_sync<Policy, detail::select_mode::partition>(
      fn, detail::make_select_params(in, out, nullptr, n, pred), n, {}, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// unique

/// Writes in[0] and every in[i] (i > 0) with !eq(in[i-1], in[i]) to out, in order (adjacent duplicates dropped),
/// and their number to *num_selected; in the caller's workspace (unique_workspace_bytes<T>(n)).
template <auto Policy = tuned, class T, detail::select_functor Eq>
void unique(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Eq eq, workspace ws,
            cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::select_run<Policy, detail::select_mode::unique>(
      fn, detail::make_select_params(in, out, num_selected, n, eq), n, {}, &ws, stream);
}

/// unique with a user equality, its workspace from the current memory resource.
template <auto Policy = tuned, class T, detail::select_functor Eq>
void unique(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Eq eq, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::select_run<Policy, detail::select_mode::unique>(
      fn, detail::make_select_params(in, out, num_selected, n, eq), n, {}, nullptr, stream);
}

/// unique with operator==, in the caller's workspace.
template <auto Policy = tuned, class T>
void unique(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, workspace ws, cudaStream_t stream = 0) {
  unique<Policy>(in, out, num_selected, n, equal_to{}, ws, stream);
}

/// unique with operator==, its workspace from the current memory resource.
template <auto Policy = tuned, class T>
void unique(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, cudaStream_t stream = 0) {
  unique<Policy>(in, out, num_selected, n, equal_to{}, stream);
}

/// unique with a user equality, returning the count to the host. Synchronises `stream`.
template <auto Policy = tuned, class T, detail::select_functor Eq>
std::int64_t unique_sync(const T* in, T* out, std::int64_t n, Eq eq, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  return detail::select_run_sync<Policy, detail::select_mode::unique>(
      fn, detail::make_select_params(in, out, nullptr, n, eq), n, {}, stream);
}

/// unique with operator==, returning the count to the host. Synchronises `stream`.
template <auto Policy = tuned, class T>
std::int64_t unique_sync(const T* in, T* out, std::int64_t n, cudaStream_t stream = 0) {
  return unique_sync<Policy>(in, out, n, equal_to{}, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// run_length_encode

/// For each run of adjacent items equal under eq (a new run starts at i > 0 when !eq(in[i-1], in[i])): its first
/// item to unique_out and its length to counts_out, in order; the number of runs to *num_runs. In the caller's
/// workspace (run_length_encode_workspace_bytes<T>(n)).
template <auto Policy = tuned, class T, class Count, detail::select_functor Eq>
void run_length_encode(const T* in, T* unique_out, Count* counts_out, std::int64_t* num_runs, std::int64_t n, Eq eq,
                       workspace ws, cudaStream_t stream = 0) {
  static_assert(std::is_integral_v<Count>, "counts_out must point to an integer type");
  CUPRIM_ENTRY_NAME(fn);
  detail::select_run<Policy, detail::select_mode::run_length>(
      fn, detail::make_select_params(in, static_cast<const char*>(nullptr), unique_out, counts_out, num_runs, n, eq), n,
      {"unique_out", "num_runs"}, &ws, stream);
}

/// run_length_encode with a user equality, its workspace from the current memory resource.
template <auto Policy = tuned, class T, class Count, detail::select_functor Eq>
void run_length_encode(const T* in, T* unique_out, Count* counts_out, std::int64_t* num_runs, std::int64_t n, Eq eq,
                       cudaStream_t stream = 0) {
  static_assert(std::is_integral_v<Count>, "counts_out must point to an integer type");
  CUPRIM_ENTRY_NAME(fn);
  detail::select_run<Policy, detail::select_mode::run_length>(
      fn, detail::make_select_params(in, static_cast<const char*>(nullptr), unique_out, counts_out, num_runs, n, eq), n,
      {"unique_out", "num_runs"}, nullptr, stream);
}

/// run_length_encode with operator==, in the caller's workspace.
template <auto Policy = tuned, class T, class Count>
void run_length_encode(const T* in, T* unique_out, Count* counts_out, std::int64_t* num_runs, std::int64_t n,
                       workspace ws, cudaStream_t stream = 0) {
  run_length_encode<Policy>(in, unique_out, counts_out, num_runs, n, equal_to{}, ws, stream);
}

/// run_length_encode with operator==, its workspace from the current memory resource.
template <auto Policy = tuned, class T, class Count>
void run_length_encode(const T* in, T* unique_out, Count* counts_out, std::int64_t* num_runs, std::int64_t n,
                       cudaStream_t stream = 0) {
  run_length_encode<Policy>(in, unique_out, counts_out, num_runs, n, equal_to{}, stream);
}

/// run_length_encode with a user equality, returning the number of runs to the host. Synchronises `stream`.
template <auto Policy = tuned, class T, class Count, detail::select_functor Eq>
std::int64_t run_length_encode_sync(const T* in, T* unique_out, Count* counts_out, std::int64_t n, Eq eq,
                                    cudaStream_t stream = 0) {
  static_assert(std::is_integral_v<Count>, "counts_out must point to an integer type");
  CUPRIM_ENTRY_NAME(fn);
  return detail::select_run_sync<Policy, detail::select_mode::run_length>(
      fn, detail::make_select_params(in, static_cast<const char*>(nullptr), unique_out, counts_out, nullptr, n, eq), n,
      {"unique_out", "num_runs"}, stream);
}

/// run_length_encode with operator==, returning the number of runs to the host. Synchronises `stream`.
template <auto Policy = tuned, class T, class Count>
std::int64_t run_length_encode_sync(const T* in, T* unique_out, Count* counts_out, std::int64_t n,
                                    cudaStream_t stream = 0) {
  return run_length_encode_sync<Policy>(in, unique_out, counts_out, n, equal_to{}, stream);
}

}  // namespace cuprim
