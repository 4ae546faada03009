// cuprim/device/select.cuh: stream compaction (host entry points).
//
//   cuprim::select_if(in, out, num_selected, n, pred, stream)          out = the x in `in` with pred(x), in order
//   cuprim::select_flagged(in, flags, out, num_selected, n, stream)    out = the in[i] with flags[i] true, in order
//   cuprim::partition(in, out, num_selected, n, pred, stream)          out = selected items in order, then the
//                                                                      rejected ones in order (stable on both sides)
//   cuprim::unique(in, out, num_selected, n, [eq,] stream)             out = in without adjacent duplicates
//   cuprim::run_length_encode(in, unique_out, counts_out, num_runs, n, [eq,] stream)
//                                                                      each run of equal adjacent items: its first
//                                                                      item and its length
//   ... each with a `workspace` overload sized by cuprim::<name>_workspace_bytes<T>(n), and a host convenience
//   <name>_sync(...) that returns the count to the host and synchronises `stream` (its name says so).
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
// 1.5 KiB); flags any type convertible to bool (bool, uint8_t, int, ...); counts_out any integer type (each count
// is converted to it). pred is a host/device functor or a __device__ lambda: bool pred(const T&). eq (default
// cuprim::equal_to, i.e. operator==) decides whether two adjacent items belong to the same run:
// bool eq(const T& earlier, const T& later). For floating point, NaN != NaN, so each NaN is a run of its own.
//
// Algorithm: one kernel, one tile per block, decoupled look-back over tile counts (device/detail/select_kernel.cuh);
// each input element is read once (partition: twice) and each selected item written once. select_if of 2^22 or
// more 4- or 8-byte arithmetic items with a 16-byte aligned input, on sm_90: the same look-back in a persistent
// pipeline (bulk copies into a ring of shared-memory tiles, producer, aggregator, look-back and segment warps;
// device/detail/select_pipeline_kernel.cuh).
//
// Errors. cuprim::invalid_argument before anything is launched or written: n < 0, a null input or output with
// n > 0, a null count pointer, an output overlapping an input (out must not overlap in or flags; the count
// must not overlap any array), a workspace smaller than <name>_workspace_bytes<T>(n). cuprim::cuda_error for a
// failed launch or an error that was already pending.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/detail/select_kernel.cuh>
#include <cuprim/device/detail/select_pipeline_kernel.cuh>
#include <cuprim/device/detail/select_tuning.cuh>
#include <cuprim/device/reduce.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace cuprim {

namespace detail {

template <class Policy, class T>
using select_policy_or_default =
    std::conditional_t<std::is_void_v<Policy>, typename select_default_policy<T>::type, Policy>;

/// A functor argument (predicate or equality): a class type (functor, lambda) other than workspace; keeps
/// unique(in, out, count, n, stream) from taking the stream for an equality.
template <class F>
concept select_functor = std::is_class_v<F> && !std::is_same_v<std::remove_cvref_t<F>, workspace>;

template <class Policy, class T>
constexpr std::uint64_t select_tiles(std::uint64_t n) {
  constexpr std::uint64_t tile = select_shape<Policy, T>::tile;
  return (n + tile - 1) / tile;
}

/// Whether select_if under Policy may take the pipeline for T (run-time conditions on top: n, alignment, device).
template <class Policy, class T, select_mode Mode>
inline constexpr bool select_pipeline_eligible = Mode == select_mode::predicate && is_scan_pipeline<Policy>::value &&
                                                 std::is_arithmetic_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

template <class Policy, class T, select_mode Mode>
std::size_t select_workspace_bytes_for(std::int64_t n) {
  if (n <= 0) return 0;
  const std::uint64_t tiles = select_tiles<Policy, T>(std::uint64_t(n));
  std::size_t bytes = tiles <= 1 ? 0 : 256 + align_up(tile_state<select_carry_t<Mode>>::bytes(tiles));
  if constexpr (select_pipeline_eligible<Policy, T, Mode>) {
    const std::size_t pipeline = pipeline_workspace_bytes<Policy, T, tile_count>(n);
    if (n >= Policy::min_elems && pipeline > bytes) bytes = pipeline;
  }
  return bytes;
}

/// The workspace bytes of Mode under Policy (void: the default policy for T).
template <class Policy, class T, select_mode Mode>
std::size_t select_workspace_bytes_or_default(std::int64_t n) {
  return select_workspace_bytes_for<select_policy_or_default<Policy, T>, T, Mode>(n);
}

/// Names of the arrays one operation checks (for the messages).
struct select_names {
  const char* out = "out";
  const char* count = "num_selected";
};

/// The rules every compaction shares: n ≥ 0; in, out (and `second`, a second output or the flags, when given)
/// not null when n > 0; the count not null; out overlapping neither in nor `second`; the count overlapping no
/// array; at most 2^31 - 1 tiles.
template <class Policy, class T, class Second = char>
void validate_select(const char* fn, const T* in, const T* out, const std::int64_t* count, std::int64_t n,
                     select_names names = {}, const Second* second = nullptr, const char* second_name = nullptr,
                     bool second_is_output = false, bool check_count = true) {
  if (n < 0) throw_invalid(fn, "n", "must be non-negative");
  if (n > 0 && in == nullptr) throw_invalid(fn, "in", "must not be null when n > 0");
  if (n > 0 && second_name && second == nullptr) throw_invalid(fn, second_name, "must not be null when n > 0");
  if (n > 0 && out == nullptr) throw_invalid(fn, names.out, "must not be null when n > 0");
  if (check_count && count == nullptr) throw_invalid(fn, names.count, "must not be null");
  if (select_tiles<Policy, T>(std::uint64_t(n)) > 0x7fffffffu)
    throw_invalid(fn, "n", "needs more than 2^31 - 1 tiles under this policy");
  const std::size_t bytes = std::size_t(n) * sizeof(T);
  const std::size_t second_bytes = second_name ? std::size_t(n) * sizeof(Second) : 0;
  if (ranges_overlap(in, bytes, out, bytes)) throw_invalid(fn, names.out, "must not overlap the input [in, in + n)");
  if (second_name && ranges_overlap(second, second_bytes, out, bytes)) {
    if (second_is_output) throw_invalid(fn, second_name, "must not overlap the other output");
    throw_invalid(fn, names.out, "must not overlap the flags [flags, flags + n)");
  }
  if (second_name && second_is_output && ranges_overlap(second, second_bytes, in, bytes))
    throw_invalid(fn, second_name, "must not overlap the input [in, in + n)");
  if (check_count && (ranges_overlap(count, sizeof(std::int64_t), in, bytes) ||
                      ranges_overlap(count, sizeof(std::int64_t), out, bytes) ||
                      ranges_overlap(count, sizeof(std::int64_t), second, second_bytes)))
    throw_invalid(fn, names.count, "must not overlap the input or the outputs");
}

inline void validate_workspace(const char* fn, workspace ws, std::size_t need, const char* sizer) {
  if (ws.bytes < need) throw_invalid(fn, "workspace", sizer);
  if (need && ws.data == nullptr) throw_invalid(fn, "workspace", "data must not be null");
}

/// The one launch path behind every compaction (arguments validated, workspace large enough): select_if of
/// large aligned arithmetic inputs takes the pipeline where the policy has one, everything else one tile per block.
template <class Policy_, select_mode Mode, class T, class F, class Fn, class Count>
void select_launch(const char* fn, select_params<T, F, Fn, Count> p, workspace ws, cudaStream_t stream) {
  if constexpr (select_pipeline_eligible<Policy_, T, Mode>) {
    if (p.n > 0 && std::int64_t(p.n) >= Policy_::min_elems && reinterpret_cast<std::uintptr_t>(p.in) % 16 == 0) {
      // Brace-initialised: a __device__ lambda predicate has no default constructor.
      select_pipeline_job<T, Fn> job{{p.in, p.n, 0, nullptr, {}, {}}, p.out, p.num_selected, p.fn, plus{}};
      if (pipeline_launch<Policy_>(fn, job, ws, stream, nullptr)) return;
    }
  }
  using Policy = classic_scan_policy_t<Policy_>;
  using shape = select_shape<Policy, T>;
  using carry = select_carry_t<Mode>;
  if (p.n == 0) {
    CUPRIM_CUDA_CHECK(cudaMemsetAsync(p.num_selected, 0, sizeof(std::int64_t), stream));
    return;
  }
  const std::uint64_t tiles = select_tiles<Policy, T>(p.n);
  p.num_tiles = tiles;
  p.waits = scale_waits(Policy::first_wait_ns, Policy::poll_wait_ns, tiles, get_device_info().sm_count);
  p.vector_in = reinterpret_cast<std::uintptr_t>(p.in) % shape::vt::bytes == 0;
  if constexpr (Mode == select_mode::flagged) {
    constexpr std::size_t fb = std::size_t(shape::V) * sizeof(F);
    p.vector_flags = (fb == 4 || fb == 8 || fb == 16) && reinterpret_cast<std::uintptr_t>(p.flags) % fb == 0;
  }
  if (tiles == 1) {  // one block, no look-back, nothing to zero
    select_kernel<Policy, Mode><<<1, shape::threads, 0, stream>>>(p, tile_state<carry>{});
    check_launch(fn);
    return;
  }
  p.counter = static_cast<unsigned*>(ws.data);
  const tile_state<carry> state = tile_state<carry>::make(static_cast<char*>(ws.data) + 256, tiles);
  if constexpr (Mode == select_mode::partition) {
    // The counting pass writes every tile's state: only the tile counter and the total need zeroing.
    auto* total = reinterpret_cast<unsigned long long*>(static_cast<char*>(ws.data) + 8);
    CUPRIM_CUDA_CHECK(cudaMemsetAsync(ws.data, 0, 256, stream));
    const device_info& d = get_device_info();
    const std::uint64_t resident = std::uint64_t(d.sm_count) * std::max(1, d.max_threads_per_sm / shape::threads);
    const unsigned grid = static_cast<unsigned>(std::min(tiles, resident));
    select_count_kernel<Policy><<<grid, shape::threads, 0, stream>>>(p, state, total);
    check_launch(fn);
    p.total = total;
    select_kernel<Policy, Mode><<<static_cast<unsigned>(tiles), shape::threads, 0, stream>>>(p, state);
    check_launch(fn);
  } else {
    // The zeroing kernel lets the select's launch overlap it; the kernel waits for it before taking a tile id.
    zero_async(fn, ws.data, 256 + tile_state<carry>::zero_bytes(tiles), stream);
    launch_dependent(fn, select_kernel<Policy, Mode, T, F, Fn, Count, carry>, static_cast<unsigned>(tiles),
                     shape::threads, stream, p, state);
  }
}

template <class T, class F, class Fn, class Count>
select_params<T, F, Fn, Count> make_select_params(const T* in, const F* flags, T* out, Count* counts,
                                                 std::int64_t* num_selected, std::int64_t n, Fn fn) {
  return {in, flags, out, counts, num_selected, std::uint64_t(n), 0, nullptr, nullptr, fn, false, false,
          lookback_waits{}};
}

/// Parameters of the modes without flags or run lengths.
template <class T, class Fn>
select_params<T, char, Fn, int> make_select_params(const T* in, T* out, std::int64_t* num_selected, std::int64_t n,
                                                   Fn fn) {
  const char* no_flags = nullptr;
  int* no_counts = nullptr;
  return make_select_params(in, no_flags, out, no_counts, num_selected, n, fn);
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// Workspace sizes (monotonic in n; 0 when the input fits one tile)

/// Bytes of workspace select_if needs for n items of T.
template <class T, class Policy = void>
std::size_t select_if_workspace_bytes(std::int64_t n) {
  return detail::select_workspace_bytes_or_default<Policy, T, detail::select_mode::predicate>(n);
}
/// Bytes of workspace select_flagged needs for n items of T.
template <class T, class Policy = void>
std::size_t select_flagged_workspace_bytes(std::int64_t n) {
  return detail::select_workspace_bytes_or_default<Policy, T, detail::select_mode::flagged>(n);
}
/// Bytes of workspace partition needs for n items of T.
template <class T, class Policy = void>
std::size_t partition_workspace_bytes(std::int64_t n) {
  return detail::select_workspace_bytes_or_default<Policy, T, detail::select_mode::partition>(n);
}
/// Bytes of workspace unique needs for n items of T.
template <class T, class Policy = void>
std::size_t unique_workspace_bytes(std::int64_t n) {
  return detail::select_workspace_bytes_or_default<Policy, T, detail::select_mode::unique>(n);
}
/// Bytes of workspace run_length_encode needs for n items of T.
template <class T, class Policy = void>
std::size_t run_length_encode_workspace_bytes(std::int64_t n) {
  return detail::select_workspace_bytes_or_default<Policy, T, detail::select_mode::run_length>(n);
}

// ---------------------------------------------------------------------------------------------------------------
// select_if

/// Writes the items x of [in, in + n) with pred(x) to out, in order, and their number to *num_selected; in the
/// caller's workspace (select_if_workspace_bytes<T>(n)).
template <class Policy = void, class T, class Pred>
void select_if(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Pred pred, workspace ws,
               cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::select_if";
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>(fn, in, out, num_selected, n);
  detail::validate_workspace(fn, ws, select_if_workspace_bytes<T, P>(n), "smaller than select_if_workspace_bytes(n)");
  detail::check_no_pending_error(fn);
  detail::select_launch<P, detail::select_mode::predicate>(
      fn, detail::make_select_params(in, out, num_selected, n, pred), ws, stream);
}

/// select_if with its workspace from the current memory resource.
template <class Policy = void, class T, class Pred>
void select_if(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Pred pred, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::select_if";
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>(fn, in, out, num_selected, n);
  detail::check_no_pending_error(fn);
  detail::scratch ws(select_if_workspace_bytes<T, P>(n), stream);
  select_if<P>(in, out, num_selected, n, pred, ws.get(), stream);
}

/// select_if, returning the count to the host. Synchronises `stream`.
template <class Policy = void, class T, class Pred>
std::int64_t select_if_sync(const T* in, T* out, std::int64_t n, Pred pred, cudaStream_t stream = 0) {
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>("cuprim::select_if_sync", in, out, nullptr, n, {}, static_cast<const char*>(nullptr),
                             nullptr, false, false);
  device_buffer<std::int64_t> count(1, stream);
  select_if<P>(in, out, count.data(), n, pred, stream);
  return count.to_host_sync()[0];
}

// ---------------------------------------------------------------------------------------------------------------
// select_flagged

/// Writes the items in[i] with flags[i] true (converted to bool) to out, in order, and their number to
/// *num_selected; in the caller's workspace (select_flagged_workspace_bytes<T>(n)).
template <class Policy = void, class T, class Flag>
void select_flagged(const T* in, const Flag* flags, T* out, std::int64_t* num_selected, std::int64_t n, workspace ws,
                    cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::select_flagged";
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>(fn, in, out, num_selected, n, {}, flags, "flags");
  detail::validate_workspace(fn, ws, select_flagged_workspace_bytes<T, P>(n),
                             "smaller than select_flagged_workspace_bytes(n)");
  detail::check_no_pending_error(fn);
  detail::select_launch<P, detail::select_mode::flagged>(
      fn,
      detail::make_select_params(in, flags, out, static_cast<int*>(nullptr), num_selected, n, detail::no_functor{}),
      ws, stream);
}

/// select_flagged with its workspace from the current memory resource.
template <class Policy = void, class T, class Flag>
void select_flagged(const T* in, const Flag* flags, T* out, std::int64_t* num_selected, std::int64_t n,
                    cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::select_flagged";
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>(fn, in, out, num_selected, n, {}, flags, "flags");
  detail::check_no_pending_error(fn);
  detail::scratch ws(select_flagged_workspace_bytes<T, P>(n), stream);
  select_flagged<P>(in, flags, out, num_selected, n, ws.get(), stream);
}

/// select_flagged, returning the count to the host. Synchronises `stream`.
template <class Policy = void, class T, class Flag>
std::int64_t select_flagged_sync(const T* in, const Flag* flags, T* out, std::int64_t n, cudaStream_t stream = 0) {
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>("cuprim::select_flagged_sync", in, out, nullptr, n, {}, flags, "flags", false, false);
  device_buffer<std::int64_t> count(1, stream);
  select_flagged<P>(in, flags, out, count.data(), n, stream);
  return count.to_host_sync()[0];
}

// ---------------------------------------------------------------------------------------------------------------
// partition

/// Writes the items x of [in, in + n) with pred(x) to out in order, then the others in order after them
/// (stable on both sides), and the number selected to *num_selected; in the caller's workspace
/// (partition_workspace_bytes<T>(n)). Two passes: see the top of this file.
template <class Policy = void, class T, class Pred>
void partition(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Pred pred, workspace ws,
               cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::partition";
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>(fn, in, out, num_selected, n);
  detail::validate_workspace(fn, ws, partition_workspace_bytes<T, P>(n), "smaller than partition_workspace_bytes(n)");
  detail::check_no_pending_error(fn);
  detail::select_launch<P, detail::select_mode::partition>(
      fn, detail::make_select_params(in, out, num_selected, n, pred), ws, stream);
}

/// partition with its workspace from the current memory resource.
template <class Policy = void, class T, class Pred>
void partition(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Pred pred, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::partition";
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>(fn, in, out, num_selected, n);
  detail::check_no_pending_error(fn);
  detail::scratch ws(partition_workspace_bytes<T, P>(n), stream);
  partition<P>(in, out, num_selected, n, pred, ws.get(), stream);
}

/// partition, returning the number selected to the host. Synchronises `stream`.
template <class Policy = void, class T, class Pred>
std::int64_t partition_sync(const T* in, T* out, std::int64_t n, Pred pred, cudaStream_t stream = 0) {
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>("cuprim::partition_sync", in, out, nullptr, n, {}, static_cast<const char*>(nullptr),
                             nullptr, false, false);
  device_buffer<std::int64_t> count(1, stream);
  partition<P>(in, out, count.data(), n, pred, stream);
  return count.to_host_sync()[0];
}

// ---------------------------------------------------------------------------------------------------------------
// unique

/// Writes in[0] and every in[i] (i > 0) with !eq(in[i-1], in[i]) to out, in order (adjacent duplicates dropped),
/// and their number to *num_selected; in the caller's workspace (unique_workspace_bytes<T>(n)).
template <class Policy = void, class T, detail::select_functor Eq>
void unique(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Eq eq, workspace ws,
            cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::unique";
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>(fn, in, out, num_selected, n);
  detail::validate_workspace(fn, ws, unique_workspace_bytes<T, P>(n), "smaller than unique_workspace_bytes(n)");
  detail::check_no_pending_error(fn);
  detail::select_launch<P, detail::select_mode::unique>(
      fn, detail::make_select_params(in, out, num_selected, n, eq), ws, stream);
}

/// unique with a user equality, its workspace from the current memory resource.
template <class Policy = void, class T, detail::select_functor Eq>
void unique(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Eq eq, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::unique";
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>(fn, in, out, num_selected, n);
  detail::check_no_pending_error(fn);
  detail::scratch ws(unique_workspace_bytes<T, P>(n), stream);
  unique<P>(in, out, num_selected, n, eq, ws.get(), stream);
}

/// unique with operator==, in the caller's workspace.
template <class Policy = void, class T>
void unique(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, workspace ws, cudaStream_t stream = 0) {
  unique<Policy>(in, out, num_selected, n, equal_to{}, ws, stream);
}

/// unique with operator==, its workspace from the current memory resource.
template <class Policy = void, class T>
void unique(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, cudaStream_t stream = 0) {
  unique<Policy>(in, out, num_selected, n, equal_to{}, stream);
}

/// unique with a user equality, returning the count to the host. Synchronises `stream`.
template <class Policy = void, class T, detail::select_functor Eq>
std::int64_t unique_sync(const T* in, T* out, std::int64_t n, Eq eq, cudaStream_t stream = 0) {
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>("cuprim::unique_sync", in, out, nullptr, n, {}, static_cast<const char*>(nullptr),
                             nullptr, false, false);
  device_buffer<std::int64_t> count(1, stream);
  unique<P>(in, out, count.data(), n, eq, stream);
  return count.to_host_sync()[0];
}

/// unique with operator==, returning the count to the host. Synchronises `stream`.
template <class Policy = void, class T>
std::int64_t unique_sync(const T* in, T* out, std::int64_t n, cudaStream_t stream = 0) {
  return unique_sync<Policy>(in, out, n, equal_to{}, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// run_length_encode

/// For each run of adjacent items equal under eq (a new run starts at i > 0 when !eq(in[i-1], in[i])): its first
/// item to unique_out and its length to counts_out, in order; the number of runs to *num_runs. In the caller's
/// workspace (run_length_encode_workspace_bytes<T>(n)).
template <class Policy = void, class T, class Count, detail::select_functor Eq>
void run_length_encode(const T* in, T* unique_out, Count* counts_out, std::int64_t* num_runs, std::int64_t n, Eq eq,
                       workspace ws, cudaStream_t stream = 0) {
  static_assert(std::is_integral_v<Count>, "counts_out must point to an integer type");
  constexpr const char* fn = "cuprim::run_length_encode";
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>(fn, in, unique_out, num_runs, n, {"unique_out", "num_runs"}, counts_out, "counts_out",
                             true);
  detail::validate_workspace(fn, ws, run_length_encode_workspace_bytes<T, P>(n),
                             "smaller than run_length_encode_workspace_bytes(n)");
  detail::check_no_pending_error(fn);
  detail::select_launch<P, detail::select_mode::run_length>(
      fn, detail::make_select_params(in, static_cast<const char*>(nullptr), unique_out, counts_out, num_runs, n, eq),
      ws, stream);
}

/// run_length_encode with a user equality, its workspace from the current memory resource.
template <class Policy = void, class T, class Count, detail::select_functor Eq>
void run_length_encode(const T* in, T* unique_out, Count* counts_out, std::int64_t* num_runs, std::int64_t n, Eq eq,
                       cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::run_length_encode";
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>(fn, in, unique_out, num_runs, n, {"unique_out", "num_runs"}, counts_out, "counts_out",
                             true);
  detail::check_no_pending_error(fn);
  detail::scratch ws(run_length_encode_workspace_bytes<T, P>(n), stream);
  run_length_encode<P>(in, unique_out, counts_out, num_runs, n, eq, ws.get(), stream);
}

/// run_length_encode with operator==, in the caller's workspace.
template <class Policy = void, class T, class Count>
void run_length_encode(const T* in, T* unique_out, Count* counts_out, std::int64_t* num_runs, std::int64_t n,
                       workspace ws, cudaStream_t stream = 0) {
  run_length_encode<Policy>(in, unique_out, counts_out, num_runs, n, equal_to{}, ws, stream);
}

/// run_length_encode with operator==, its workspace from the current memory resource.
template <class Policy = void, class T, class Count>
void run_length_encode(const T* in, T* unique_out, Count* counts_out, std::int64_t* num_runs, std::int64_t n,
                       cudaStream_t stream = 0) {
  run_length_encode<Policy>(in, unique_out, counts_out, num_runs, n, equal_to{}, stream);
}

/// run_length_encode with a user equality, returning the number of runs to the host. Synchronises `stream`.
template <class Policy = void, class T, class Count, detail::select_functor Eq>
std::int64_t run_length_encode_sync(const T* in, T* unique_out, Count* counts_out, std::int64_t n, Eq eq,
                                    cudaStream_t stream = 0) {
  using P = detail::select_policy_or_default<Policy, T>;
  detail::validate_select<P>("cuprim::run_length_encode_sync", in, unique_out, nullptr, n, {"unique_out", "num_runs"},
                             counts_out, "counts_out", true, false);
  device_buffer<std::int64_t> count(1, stream);
  run_length_encode<P>(in, unique_out, counts_out, count.data(), n, eq, stream);
  return count.to_host_sync()[0];
}

/// run_length_encode with operator==, returning the number of runs to the host. Synchronises `stream`.
template <class Policy = void, class T, class Count>
std::int64_t run_length_encode_sync(const T* in, T* unique_out, Count* counts_out, std::int64_t n,
                                    cudaStream_t stream = 0) {
  return run_length_encode_sync<Policy>(in, unique_out, counts_out, n, equal_to{}, stream);
}

}  // namespace cuprim
