// cuprim/device/segmented_scan.cuh: scans restarted at segment boundaries (host entry points).
//
//   cuprim::inclusive_scan_by_key(keys, in, out, n, op [, key_eq], stream)
//        out[i] = in[j] ⊕ ... ⊕ in[i], j the first index of the run of equal keys holding i
//   cuprim::exclusive_scan_by_key(keys, in, out, n, op, init [, key_eq], stream)
//        out[i] = init ⊕ in[j] ⊕ ... ⊕ in[i-1]   (init at each run's first index)
//   cuprim::inclusive_segmented_scan(in, head_flags, out, n, op, stream)        a segment starts where flag != 0
//   cuprim::exclusive_segmented_scan(in, head_flags, out, n, op, init, stream)
//   cuprim::inclusive_segmented_scan(in, offsets, num_segments, out, n, op, stream)       segment s is
//   cuprim::exclusive_segmented_scan(in, offsets, num_segments, out, n, op, init, stream) [offsets[s], offsets[s+1])
//   ... each with a `workspace` overload (before the stream) sized by cuprim::segmented_scan_workspace_bytes<In, Out>(n).
//
// Segments. By key: maximal runs of consecutive keys equal under key_eq (default ==; a functor on host and
// device). By flags: element i starts a segment when head_flags[i] != 0 (any integer or bool type). By offsets
// (CSR, num_segments + 1 values in device memory, int32 or int64, non-decreasing, offsets[0] = 0 and
// offsets[num_segments] = n): element offsets[s] starts segment s; n is passed so that the host needs nothing
// from the device. Element 0 always starts a segment.
//
// Types and operator: as for cuprim::inclusive_scan. Values accumulate in *out's type (float for 16-bit floats);
// `op` must be associative and need not be commutative (the earlier element is always the left operand) nor have
// an identity. In place (out == in) is allowed.
//
// One pass: the single-pass decoupled look-back scan of scan.cuh over (segment start, value) pairs under the
// segmented operator (detail/segmented_scan_kernel.cuh); the offsets form first marks segment starts in a bitmask
// in the workspace (n/8 bytes). Floating-point results are bitwise identical from run to run on the same GPU.
//
// Errors. cuprim::invalid_argument before anything runs: n < 0, num_segments < 0, null pointers with n > 0,
// num_segments = 0 with n > 0 (offsets form), out partially overlapping in, out overlapping keys, flags or
// offsets, a workspace too small. cuprim::cuda_error for failed launches or an error already pending.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/detail/segmented_scan_kernel.cuh>
#include <cuprim/device/detail/segmented_scan_tuning.cuh>
#include <cuprim/device/scan.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim {

/// What may be passed as a key equality (so that a stream, a workspace or a literal 0 never binds to it).
template <class E>
concept key_equality = !std::is_same_v<std::remove_cvref_t<E>, workspace> && !std::is_arithmetic_v<std::remove_cvref_t<E>> &&
                       !std::is_pointer_v<std::remove_cvref_t<E>> && !std::is_null_pointer_v<std::remove_cvref_t<E>>;

namespace detail {

template <class Policy, class In>
using segmented_scan_policy_or_default =
    std::conditional_t<std::is_void_v<Policy>, typename segmented_scan_default_policy<In>::type, Policy>;

/// Workspace: [0, 256) the tile counter, then the tile states (when there is more than one tile), then the
/// bitmask of segment starts used by the offsets form (one bit per element).
template <class Policy, class In, class Acc>
struct segmented_scan_workspace {
  static std::uint64_t tiles(std::int64_t n) {
    return (std::uint64_t(n) + scan_tile_elems<Policy, In>() - 1) / scan_tile_elems<Policy, In>();
  }
  static std::size_t state_bytes(std::int64_t n) {
    return tiles(n) > 1 ? align_up(tile_state<seg_pair<Acc>>::bytes(tiles(n))) : 0;
  }
  static std::size_t mask_bytes(std::int64_t n) { return align_up((std::uint64_t(n) + 31) / 32 * 4); }
  static std::size_t bytes(std::int64_t n) { return n <= 0 ? 0 : 256 + state_bytes(n) + mask_bytes(n); }
};

template <class In, class Out>
void validate_segmented_scan(const char* fn, const In* in, Out* out, std::int64_t n, const void* heads,
                             std::size_t heads_bytes, const char* heads_name) {
  if (n < 0) throw_invalid(fn, "n", "must be non-negative");
  if (n == 0) return;
  if (in == nullptr) throw_invalid(fn, "in", "must not be null when n > 0");
  if (out == nullptr) throw_invalid(fn, "out", "must not be null when n > 0");
  if (heads == nullptr) throw_invalid(fn, heads_name, "must not be null when n > 0");
  const bool same = static_cast<const void*>(in) == static_cast<const void*>(out) && sizeof(In) == sizeof(Out);
  if (!same && ranges_overlap(in, std::size_t(n) * sizeof(In), out, std::size_t(n) * sizeof(Out)))
    throw_invalid(fn, "out", "must either equal in (in place) or not overlap [in, in + n)");
  if (ranges_overlap(heads, heads_bytes, out, std::size_t(n) * sizeof(Out))) {
    if (heads_name[0] == 'k') throw_invalid(fn, "out", "must not overlap the keys");
    if (heads_name[0] == 'h') throw_invalid(fn, "out", "must not overlap the head flags");
    throw_invalid(fn, "out", "must not overlap the offsets");
  }
}

template <class Offset>
void validate_offsets(const char* fn, const Offset* offsets, std::int64_t num_segments, std::int64_t n) {
  static_assert(std::is_integral_v<Offset>, "offsets must be an integer type (int32 or int64)");
  if (num_segments < 0) throw_invalid(fn, "num_segments", "must be non-negative");
  if (n > 0 && num_segments == 0) throw_invalid(fn, "num_segments", "must be positive when n > 0 (segments cover [0, n))");
  if (num_segments > 0 && offsets == nullptr) throw_invalid(fn, "offsets", "must not be null when num_segments > 0");
}

template <class Policy, class In, class Acc>
void check_segmented_scan_workspace(const char* fn, std::int64_t n, const workspace& ws) {
  const std::size_t need = segmented_scan_workspace<Policy, In, Acc>::bytes(n);
  if (ws.bytes < need) throw_invalid(fn, "workspace", "smaller than segmented_scan_workspace_bytes(n)");
  if (need && ws.data == nullptr) throw_invalid(fn, "workspace", "data must not be null");
}

/// The launch behind every segmented scan (arguments validated). `heads` is a head source of
/// detail/segmented_scan_kernel.cuh.
template <class Policy, bool Exclusive, class In, class Out, class Acc, class Op, class Heads>
void segmented_scan_launch(const char* fn, const In* in, Out* out, std::uint64_t n, Op op, Acc init, Heads heads,
                           workspace ws, cudaStream_t stream) {
  if (n == 0) return;
  using layout = segmented_scan_workspace<Policy, In, Acc>;
  using pair = seg_pair<Acc>;
  const std::uint64_t tiles = layout::tiles(static_cast<std::int64_t>(n));
  if (tiles > 0x7fffffffu) throw_invalid(fn, "n", "needs more than 2^31 - 1 tiles under this policy");
  const auto [vector_in, vector_out] = scan_vector_io_of<Policy>(in, out);
  const seg_pair_op<Op> pop{op};
  const pair pinit{init, true};
  if (tiles == 1) {
    segmented_scan_kernel<Policy, Exclusive><<<1, Policy::threads, 0, stream>>>(
        in, out, n, pop, pinit, heads, tile_state<pair>{}, nullptr, 1, vector_in, vector_out, lookback_waits{});
    check_launch(fn);
    return;
  }
  auto* counter = static_cast<unsigned*>(ws.data);
  const tile_state<pair> state = tile_state<pair>::make(static_cast<char*>(ws.data) + 256, tiles);
  zero_async(fn, ws.data, 256 + tile_state<pair>::zero_bytes(tiles), stream);
  launch_dependent(fn, segmented_scan_kernel<Policy, Exclusive, In, Out, Acc, Op, Heads>, static_cast<unsigned>(tiles),
                   Policy::threads, stream, in, out, n, pop, pinit, heads, state, counter, tiles, vector_in, vector_out,
                   scale_waits(Policy::first_wait_ns, Policy::poll_wait_ns, tiles, get_device_info().sm_count));
}

template <class Policy, class In, class T>
bool heads_aligned(const T* p) {
  constexpr std::size_t bytes = sizeof(T) * vector_traits<In, Policy::vector_bytes>::elems;
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

/// Keys → a key_heads source.
template <class Policy, class In, class Key, class Eq>
key_heads<Key, Eq> make_key_heads(const Key* keys, Eq eq) {
  return {keys, eq, heads_aligned<Policy, In>(keys)};
}

/// The offsets form: marks the starts of the non-empty segments in the workspace's bitmask, then scans.
template <class Policy, bool Exclusive, class In, class Out, class Acc, class Op, class Offset>
void segmented_scan_offsets_launch(const char* fn, const In* in, Out* out, std::int64_t n, const Offset* offsets,
                                   std::int64_t num_segments, Op op, Acc init, workspace ws, cudaStream_t stream) {
  if (n == 0) return;
  using layout = segmented_scan_workspace<Policy, In, Acc>;
  auto* bits = reinterpret_cast<unsigned*>(static_cast<char*>(ws.data) + 256 + layout::state_bytes(n));
  CUPRIM_CUDA_CHECK(cudaMemsetAsync(bits, 0, layout::mask_bytes(n), stream));
  constexpr unsigned threads = 256;
  const std::uint64_t blocks = (std::uint64_t(num_segments) + threads - 1) / threads;
  if (blocks > 0x7fffffffu) throw_invalid(fn, "num_segments", "too large for one launch");
  mark_heads_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(offsets, num_segments, n, bits);
  check_launch(fn);
  segmented_scan_launch<Policy, Exclusive>(fn, in, out, std::uint64_t(n), op, init, bit_heads{bits}, ws, stream);
}

}  // namespace detail

/// Bytes of workspace the explicit-workspace segmented scans (every form) need for n elements of In scanned into
/// Out. Monotonic in n; 0 for n = 0.
template <class In, class Out = In, class Policy = void>
std::size_t segmented_scan_workspace_bytes(std::int64_t n) {
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  return detail::segmented_scan_workspace<P, In, accumulator_t<Out>>::bytes(n);
}

// ---------------------------------------------------------------------------------------------------------
// By key

/// out[i] = in[j] ⊕ ... ⊕ in[i] over each run of keys equal under key_eq, in the caller's workspace.
template <class Policy = void, class Key, class In, class Out, class Op, key_equality KeyEq>
void inclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, KeyEq key_eq, workspace ws,
                           cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::inclusive_scan_by_key";
  using Acc = accumulator_t<Out>;
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  detail::validate_segmented_scan(fn, in, out, n, keys, std::size_t(n > 0 ? n : 0) * sizeof(Key), "keys");
  detail::check_segmented_scan_workspace<P, In, Acc>(fn, n, ws);
  detail::check_no_pending_error(fn);
  detail::segmented_scan_launch<P, false>(fn, in, out, std::uint64_t(n), op, Acc{},
                                          detail::make_key_heads<P, In>(keys, key_eq), ws, stream);
}

/// out[i] = in[j] ⊕ ... ⊕ in[i] over each run of keys equal under key_eq; workspace from the memory resource.
template <class Policy = void, class Key, class In, class Out, class Op, key_equality KeyEq>
void inclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, KeyEq key_eq,
                           cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::inclusive_scan_by_key";
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  detail::validate_segmented_scan(fn, in, out, n, keys, std::size_t(n > 0 ? n : 0) * sizeof(Key), "keys");
  detail::check_no_pending_error(fn);
  detail::scratch ws(segmented_scan_workspace_bytes<In, Out, P>(n), stream);
  inclusive_scan_by_key<P>(keys, in, out, n, op, key_eq, ws.get(), stream);
}

/// out[i] = in[j] ⊕ ... ⊕ in[i] over each run of equal keys (==), in the caller's workspace.
template <class Policy = void, class Key, class In, class Out, class Op>
void inclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, workspace ws,
                           cudaStream_t stream = 0) {
  inclusive_scan_by_key<Policy>(keys, in, out, n, op, equal_to{}, ws, stream);
}

/// out[i] = in[j] ⊕ ... ⊕ in[i] over each run of equal keys (==).
template <class Policy = void, class Key, class In, class Out, class Op>
void inclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, cudaStream_t stream = 0) {
  inclusive_scan_by_key<Policy>(keys, in, out, n, op, equal_to{}, stream);
}

/// out[i] = init ⊕ in[j] ⊕ ... ⊕ in[i-1] over each run of keys equal under key_eq, in the caller's workspace.
template <class Policy = void, class Key, class In, class Out, class Op, class Init, key_equality KeyEq>
void exclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, Init init, KeyEq key_eq,
                           workspace ws, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::exclusive_scan_by_key";
  using Acc = accumulator_t<Out>;
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  detail::validate_segmented_scan(fn, in, out, n, keys, std::size_t(n > 0 ? n : 0) * sizeof(Key), "keys");
  detail::check_segmented_scan_workspace<P, In, Acc>(fn, n, ws);
  detail::check_no_pending_error(fn);
  detail::segmented_scan_launch<P, true>(fn, in, out, std::uint64_t(n), op, detail::convert<Acc>(init),
                                         detail::make_key_heads<P, In>(keys, key_eq), ws, stream);
}

/// out[i] = init ⊕ in[j] ⊕ ... ⊕ in[i-1] over each run of keys equal under key_eq.
template <class Policy = void, class Key, class In, class Out, class Op, class Init, key_equality KeyEq>
void exclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, Init init, KeyEq key_eq,
                           cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::exclusive_scan_by_key";
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  detail::validate_segmented_scan(fn, in, out, n, keys, std::size_t(n > 0 ? n : 0) * sizeof(Key), "keys");
  detail::check_no_pending_error(fn);
  detail::scratch ws(segmented_scan_workspace_bytes<In, Out, P>(n), stream);
  exclusive_scan_by_key<P>(keys, in, out, n, op, init, key_eq, ws.get(), stream);
}

/// out[i] = init ⊕ in[j] ⊕ ... ⊕ in[i-1] over each run of equal keys (==), in the caller's workspace.
template <class Policy = void, class Key, class In, class Out, class Op, class Init>
void exclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, Init init, workspace ws,
                           cudaStream_t stream = 0) {
  exclusive_scan_by_key<Policy>(keys, in, out, n, op, init, equal_to{}, ws, stream);
}

/// out[i] = init ⊕ in[j] ⊕ ... ⊕ in[i-1] over each run of equal keys (==).
template <class Policy = void, class Key, class In, class Out, class Op, class Init>
void exclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, Init init,
                           cudaStream_t stream = 0) {
  exclusive_scan_by_key<Policy>(keys, in, out, n, op, init, equal_to{}, stream);
}

// ---------------------------------------------------------------------------------------------------------
// By head flags

/// Inclusive scan restarted at every i with head_flags[i] != 0, in the caller's workspace.
template <class Policy = void, class In, class Flag, class Out, class Op>
void inclusive_segmented_scan(const In* in, const Flag* head_flags, Out* out, std::int64_t n, Op op, workspace ws,
                              cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::inclusive_segmented_scan";
  using Acc = accumulator_t<Out>;
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  detail::validate_segmented_scan(fn, in, out, n, head_flags, std::size_t(n > 0 ? n : 0) * sizeof(Flag), "head_flags");
  detail::check_segmented_scan_workspace<P, In, Acc>(fn, n, ws);
  detail::check_no_pending_error(fn);
  detail::segmented_scan_launch<P, false>(fn, in, out, std::uint64_t(n), op, Acc{},
                                          detail::flag_heads<Flag>{head_flags, detail::heads_aligned<P, In>(head_flags)},
                                          ws, stream);
}

/// Inclusive scan restarted at every i with head_flags[i] != 0.
template <class Policy = void, class In, class Flag, class Out, class Op>
void inclusive_segmented_scan(const In* in, const Flag* head_flags, Out* out, std::int64_t n, Op op,
                              cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::inclusive_segmented_scan";
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  detail::validate_segmented_scan(fn, in, out, n, head_flags, std::size_t(n > 0 ? n : 0) * sizeof(Flag), "head_flags");
  detail::check_no_pending_error(fn);
  detail::scratch ws(segmented_scan_workspace_bytes<In, Out, P>(n), stream);
  inclusive_segmented_scan<P>(in, head_flags, out, n, op, ws.get(), stream);
}

/// Exclusive scan seeded with init at every i with head_flags[i] != 0 (and at 0), in the caller's workspace.
template <class Policy = void, class In, class Flag, class Out, class Op, class Init>
void exclusive_segmented_scan(const In* in, const Flag* head_flags, Out* out, std::int64_t n, Op op, Init init,
                              workspace ws, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::exclusive_segmented_scan";
  using Acc = accumulator_t<Out>;
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  detail::validate_segmented_scan(fn, in, out, n, head_flags, std::size_t(n > 0 ? n : 0) * sizeof(Flag), "head_flags");
  detail::check_segmented_scan_workspace<P, In, Acc>(fn, n, ws);
  detail::check_no_pending_error(fn);
  detail::segmented_scan_launch<P, true>(fn, in, out, std::uint64_t(n), op, detail::convert<Acc>(init),
                                         detail::flag_heads<Flag>{head_flags, detail::heads_aligned<P, In>(head_flags)},
                                         ws, stream);
}

/// Exclusive scan seeded with init at every i with head_flags[i] != 0 (and at 0).
template <class Policy = void, class In, class Flag, class Out, class Op, class Init>
void exclusive_segmented_scan(const In* in, const Flag* head_flags, Out* out, std::int64_t n, Op op, Init init,
                              cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::exclusive_segmented_scan";
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  detail::validate_segmented_scan(fn, in, out, n, head_flags, std::size_t(n > 0 ? n : 0) * sizeof(Flag), "head_flags");
  detail::check_no_pending_error(fn);
  detail::scratch ws(segmented_scan_workspace_bytes<In, Out, P>(n), stream);
  exclusive_segmented_scan<P>(in, head_flags, out, n, op, init, ws.get(), stream);
}

// ---------------------------------------------------------------------------------------------------------
// By offsets

/// Inclusive scan of each segment [offsets[s], offsets[s+1]) of [0, n), in the caller's workspace.
template <class Policy = void, class In, class Offset, class Out, class Op>
void inclusive_segmented_scan(const In* in, const Offset* offsets, std::int64_t num_segments, Out* out,
                              std::int64_t n, Op op, workspace ws, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::inclusive_segmented_scan";
  using Acc = accumulator_t<Out>;
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  detail::validate_offsets(fn, offsets, num_segments, n);
  detail::validate_segmented_scan(fn, in, out, n, offsets, std::size_t(num_segments + 1) * sizeof(Offset), "offsets");
  detail::check_segmented_scan_workspace<P, In, Acc>(fn, n, ws);
  detail::check_no_pending_error(fn);
  detail::segmented_scan_offsets_launch<P, false>(fn, in, out, n, offsets, num_segments, op, Acc{}, ws, stream);
}

/// Inclusive scan of each segment [offsets[s], offsets[s+1]) of [0, n).
template <class Policy = void, class In, class Offset, class Out, class Op>
void inclusive_segmented_scan(const In* in, const Offset* offsets, std::int64_t num_segments, Out* out,
                              std::int64_t n, Op op, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::inclusive_segmented_scan";
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  detail::validate_offsets(fn, offsets, num_segments, n);
  detail::validate_segmented_scan(fn, in, out, n, offsets, std::size_t(num_segments + 1) * sizeof(Offset), "offsets");
  detail::check_no_pending_error(fn);
  detail::scratch ws(segmented_scan_workspace_bytes<In, Out, P>(n), stream);
  inclusive_segmented_scan<P>(in, offsets, num_segments, out, n, op, ws.get(), stream);
}

/// Exclusive scan (init at each segment's first element) of each segment [offsets[s], offsets[s+1]) of [0, n), in
/// the caller's workspace.
template <class Policy = void, class In, class Offset, class Out, class Op, class Init>
void exclusive_segmented_scan(const In* in, const Offset* offsets, std::int64_t num_segments, Out* out,
                              std::int64_t n, Op op, Init init, workspace ws, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::exclusive_segmented_scan";
  using Acc = accumulator_t<Out>;
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  detail::validate_offsets(fn, offsets, num_segments, n);
  detail::validate_segmented_scan(fn, in, out, n, offsets, std::size_t(num_segments + 1) * sizeof(Offset), "offsets");
  detail::check_segmented_scan_workspace<P, In, Acc>(fn, n, ws);
  detail::check_no_pending_error(fn);
  detail::segmented_scan_offsets_launch<P, true>(fn, in, out, n, offsets, num_segments, op, detail::convert<Acc>(init),
                                                 ws, stream);
}

/// Exclusive scan (init at each segment's first element) of each segment [offsets[s], offsets[s+1]) of [0, n).
template <class Policy = void, class In, class Offset, class Out, class Op, class Init>
void exclusive_segmented_scan(const In* in, const Offset* offsets, std::int64_t num_segments, Out* out,
                              std::int64_t n, Op op, Init init, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::exclusive_segmented_scan";
  using P = detail::segmented_scan_policy_or_default<Policy, In>;
  detail::validate_offsets(fn, offsets, num_segments, n);
  detail::validate_segmented_scan(fn, in, out, n, offsets, std::size_t(num_segments + 1) * sizeof(Offset), "offsets");
  detail::check_no_pending_error(fn);
  detail::scratch ws(segmented_scan_workspace_bytes<In, Out, P>(n), stream);
  exclusive_segmented_scan<P>(in, offsets, num_segments, out, n, op, init, ws.get(), stream);
}

}  // namespace cuprim
