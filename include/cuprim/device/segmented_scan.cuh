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
//   ... each with a `workspace` overload (before the stream) sized by
//       cuprim::segmented_scan_workspace_bytes<In, Out>(n).
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
// in the workspace (n/8 bytes). Large inclusive scans by key (from the policy's pipeline.min_elems, 2^22 by default;
// 4- or 8-byte arithmetic values scanned into their own type, keys of the same size, all three arrays 16-byte
// aligned) run on the scan's look-back pipeline with the keys streamed beside the values
// (detail/segmented_scan_pipeline_kernel.cuh). Determinism (core/functional.cuh defines it): the order of operations depends on n,
// the segments, the policy and the input's alignment, as for scan.cuh.
//
// Policy. Each entry point takes an optional cuprim::segmented_scan_policy as its first template argument (default
// cuprim::tuned: the row of segmented_scan_policy_for<In> for the device; device/detail/segmented_scan_tuning.cuh).
//
// Errors. cuprim::invalid_argument before anything runs: n < 0, num_segments < 0, null pointers with n > 0,
// num_segments = 0 with n > 0 (offsets form), out partially overlapping in, out overlapping keys, flags or
// offsets, a workspace too small. The keys, flags or offsets may overlap the input (both are only read).
// cuprim::cuda_error for failed launches or an error already pending.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/segmented_scan_kernel.cuh>
#include <cuprim/device/detail/segmented_scan_pipeline_kernel.cuh>
#include <cuprim/device/detail/segmented_scan_tuning.cuh>
#include <cuprim/device/scan.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim {

/// What may be passed as a key equality (so that a stream, a workspace or a literal 0 never binds to it).
template <class E>
concept key_equality =
    !std::is_same_v<std::remove_cvref_t<E>, workspace> && !std::is_arithmetic_v<std::remove_cvref_t<E>> &&
    !std::is_pointer_v<std::remove_cvref_t<E>> && !std::is_null_pointer_v<std::remove_cvref_t<E>>;

namespace detail {

/// The workspace: the look-back's counter (always) and tile states (more than one tile), then the bitmask of
/// segment starts that the offsets form builds (one bit per element).
template <segmented_scan_policy P, class In, class Acc>
struct segmented_scan_layout {
  lookback_layout<seg_pair<Acc>> lookback;
  workspace_part<unsigned> heads;  // (n / 32, rounded up)
  std::uint64_t tiles = 0;         // of the one-tile-per-block kernel
  explicit segmented_scan_layout(std::int64_t n) {
    if (n <= 0) return;
    constexpr std::uint64_t tile = scan_tile_elems<P.tile, In>();
    tiles = (std::uint64_t(n) + tile - 1) / tile;
    std::uint64_t states = tiles > 1 ? tiles : 0;
    // The by-key pipeline's tiles where it may run (its key type is not known here: sized as if it were).
    if constexpr (scan_pipeline_takes<In, Acc, Acc>)
      if (P.pipeline.min_elems > 0 && n >= P.pipeline.min_elems)
        states = std::max(states, pipeline_shape<P.pipeline, In>::tiles(std::uint64_t(n)));
    lookback = lookback_layout<seg_pair<Acc>>(states);
    heads = lookback.L.template add<unsigned>((std::uint64_t(n) + 31) / 32);
  }
  std::size_t bytes() const { return lookback.bytes(); }
};

template <segmented_scan_policy P, class In, class T>
bool heads_aligned(const T* p) {
  constexpr std::size_t bytes = sizeof(T) * vector_traits<In, P.tile.vector_bytes>::elems;
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

// Where the segment starts come from: each source names its array for the argument rules and makes the head
// source of segmented_scan_kernel.cuh that the kernel loads.

/// Runs of keys equal under eq.
template <class Key, class Eq>
struct by_keys {
  static constexpr const char* name = "keys";
  const Key* keys;
  Eq eq;
  void validate(const char*, std::int64_t) const {}
  array_arg array(std::int64_t n) const { return {name, keys, std::size_t(n > 0 ? n : 0) * sizeof(Key), read_only}; }
  template <segmented_scan_policy P, class In>
  key_heads<Key, Eq> heads(const char*, unsigned*, std::int64_t, cudaStream_t) const {
    return {keys, eq, heads_aligned<P, In>(keys)};
  }
};

/// Head flags (a segment starts where flag != 0).
template <class Flag>
struct by_flags {
  static constexpr const char* name = "head_flags";
  const Flag* flags;
  void validate(const char*, std::int64_t) const {}
  array_arg array(std::int64_t n) const { return {name, flags, std::size_t(n > 0 ? n : 0) * sizeof(Flag), read_only}; }
  template <segmented_scan_policy P, class In>
  flag_heads<Flag> heads(const char*, unsigned*, std::int64_t, cudaStream_t) const {
    return {flags, heads_aligned<P, In>(flags)};
  }
};

/// CSR offsets: the starts of the non-empty segments are marked in the workspace's bitmask first.
template <class Offset>
struct by_offsets {
  static_assert(std::is_integral_v<Offset>, "offsets must be an integer type (int32 or int64)");
  static constexpr const char* name = "offsets";
  static constexpr unsigned mark_threads = 256;
  const Offset* offsets;
  std::int64_t num_segments;
  void validate(const char* fn, std::int64_t n) const {
    if (num_segments < 0) throw_invalid(fn, "num_segments", "must be non-negative");
    if (n > 0 && num_segments == 0)
      throw_invalid(fn, "num_segments", "must be positive when n > 0 (segments cover [0, n))");
    check_pointer(fn, name, offsets, num_segments > 0);
    if ((std::uint64_t(num_segments) + mark_threads - 1) / mark_threads > 0x7fffffffu)
      throw_invalid(fn, "num_segments", "too large for one launch");
  }
  array_arg array(std::int64_t) const {
    return {name, offsets, std::size_t(num_segments + 1) * sizeof(Offset), read_only};
  }
  template <segmented_scan_policy, class>
  bit_heads heads(const char* fn, unsigned* bits, std::int64_t n, cudaStream_t stream) const {
    CUPRIM_CUDA_CHECK(cudaMemsetAsync(bits, 0, align_up((std::uint64_t(n) + 31) / 32 * 4), stream));
    const std::uint64_t blocks = (std::uint64_t(num_segments) + mark_threads - 1) / mark_threads;
    mark_heads_kernel<<<static_cast<unsigned>(blocks), mark_threads, 0, stream>>>(offsets, num_segments, n, bits);
    check_launch(fn);
    return {bits};
  }
};

/// The rules of every form: the source's own (the offsets form's num_segments), n, the pointers, and overlaps: out
/// may equal in (in place) but overlap nothing else; in and the keys, flags or offsets may alias (both only read).
template <class In, class Out, class Source>
void segmented_scan_validate(const char* fn, const In* in, Out* out, std::int64_t n, const Source& src) {
  src.validate(fn, n);
  check_size(fn, "n", n, sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out));
  check_pointer(fn, "in", in, n > 0);
  check_pointer(fn, "out", out, n > 0);
  const array_arg heads = src.array(n);
  check_pointer(fn, heads.name, heads.p, n > 0);
  const array_arg out_arg{"out", out, std::size_t(n) * sizeof(Out), written};
  if (in_place(in, out))
    check_overlaps(fn, {heads, out_arg});
  else
    check_overlaps(fn, {{"in", in, std::size_t(n) * sizeof(In), read_only}, heads, out_arg});
}

/// The launch behind every segmented scan (arguments validated, n > 0, workspace large enough): one tile per block
/// over (start, value) pairs; `heads` is a head source of segmented_scan_kernel.cuh.
template <segmented_scan_policy P, bool Exclusive, class In, class Out, class Acc, class Op, class Heads>
void segmented_scan_launch(const char* fn, const In* in, Out* out, std::uint64_t n, Op op, Acc init, Heads heads,
                           const segmented_scan_layout<P, In, Acc>& L, workspace ws, cudaStream_t stream) {
  static_assert(scan_policy_valid<P.tile>());
  using pair = seg_pair<Acc>;
  const std::uint64_t tiles = L.tiles;
  const auto [vector_in, vector_out] = scan_vector_io_of<P.tile>(in, out);
  const seg_pair_op<Op> pop{op};
  const pair pinit{init, true};
  auto* kernel = segmented_scan_kernel<policy_constant<P>, Exclusive, In, Out, Acc, Op, Heads>;
  if (tiles == 1) {
    kernel<<<1, P.tile.threads, 0, stream>>>(in, out, n, pop, pinit, heads, tile_state<pair>{}, nullptr, 1, vector_in,
                                             vector_out, lookback_waits{});
    check_launch(fn);
    return;
  }
  zero_async(fn, ws.data, L.lookback.zero_bytes(tiles), stream);
  launch_dependent(fn, kernel, static_cast<unsigned>(tiles), P.tile.threads, stream, in, out, n, pop, pinit, heads,
                   L.lookback.state(ws, tiles), L.lookback.counter(ws), tiles, vector_in, vector_out,
                   scale_waits(P.tile.first_wait_ns, P.tile.poll_wait_ns, tiles, get_device_info().sm_count));
}

/// The large inclusive scans by key on the keyed look-back pipeline, where it takes them (types, n, 16-byte aligned
/// keys, input and output, the device): true when launched. Other sources and forms take the one-tile kernel.
template <segmented_scan_policy P, bool Exclusive, class Acc, class In, class Out, class Op, class Source>
bool segmented_scan_pipeline(const char*, const In*, Out*, std::uint64_t, Op, const Source&, workspace, cudaStream_t) {
  return false;
}
template <segmented_scan_policy P, bool Exclusive, class Acc, class In, class Out, class Op, class Key, class Eq>
bool segmented_scan_pipeline(const char* fn, const In* in, Out* out, std::uint64_t n, Op op,
                             const by_keys<Key, Eq>& src, workspace ws, cudaStream_t stream) {
  if constexpr (!Exclusive && scan_by_key_pipeline_takes<In, Out, Acc, Key>) {
    const auto a16 = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    if (P.pipeline.min_elems > 0 && n >= std::uint64_t(P.pipeline.min_elems) && a16(in) && a16(out) &&
        a16(src.keys)) {
      // Brace-initialised: a __device__ lambda operator has no default constructor.
      const scan_by_key_pipeline_job<In, Key, Eq, Op> job{{in, n, 0, nullptr, {}, {}}, src.keys, out, {op}, src.eq};
      return pipeline_launch<P.pipeline>(fn, job, ws, stream);
    }
  }
  return false;
}

/// Every segmented scan entry point ends here: validate, plan, launch. Exclusive scans start each segment at init.
template <auto Policy, bool Exclusive, class In, class Out, class Op, class Source>
void segmented_scan_run(const char* fn, const In* in, Out* out, std::int64_t n, Op op, accumulator_t<Out> init,
                        const Source& src, const workspace* ws, cudaStream_t stream) {
  using Acc = accumulator_t<Out>;
  segmented_scan_validate(fn, in, out, n, src);
  with_tuned_arch([&]<int Arch>() {
    constexpr segmented_scan_policy P = pick_policy<Policy>(segmented_scan_policy_for<In>(Arch));
    const segmented_scan_layout<P, In, Acc> L(n);
    check_tiles(fn, L.tiles);
    check_workspace(fn, ws, L.bytes(), "segmented_scan_workspace_bytes(n)");
    check_no_pending_error(fn);
    if (n == 0) return;
    with_workspace(ws, L.bytes(), stream, [&](const workspace& w) {
      if (segmented_scan_pipeline<P, Exclusive, Acc>(fn, in, out, std::uint64_t(n), op, src, w, stream)) return;
      const auto heads = src.template heads<P, In>(fn, L.heads.in(w), n, stream);
      segmented_scan_launch<P, Exclusive>(fn, in, out, std::uint64_t(n), op, init, heads, L, w, stream);
    });
  });
}

}  // namespace detail

/// Bytes of workspace the explicit-workspace segmented scans (every form) need for n elements of In scanned into
/// Out under Policy on the current device. Monotonic in n; 0 for n = 0.
template <class In, class Out = In, auto Policy = tuned>
std::size_t segmented_scan_workspace_bytes(std::int64_t n) {
  return detail::with_tuned_arch([&]<int Arch>() {
    constexpr segmented_scan_policy P = detail::pick_policy<Policy>(segmented_scan_policy_for<In>(Arch));
    return detail::segmented_scan_layout<P, In, accumulator_t<Out>>(n).bytes();
  });
}

// ---------------------------------------------------------------------------------------------------------
// By key

/// out[i] = in[j] ⊕ ... ⊕ in[i] over each run of keys equal under key_eq, in the caller's workspace.
template <auto Policy = tuned, class Key, class In, class Out, class Op, key_equality KeyEq>
void inclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, KeyEq key_eq, workspace ws,
                           cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_scan_run<Policy, false>(fn, in, out, n, op, accumulator_t<Out>{},
                                            detail::by_keys<Key, KeyEq>{keys, key_eq}, &ws, stream);
}

/// out[i] = in[j] ⊕ ... ⊕ in[i] over each run of keys equal under key_eq; workspace from the memory resource.
template <auto Policy = tuned, class Key, class In, class Out, class Op, key_equality KeyEq>
void inclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, KeyEq key_eq,
                           cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_scan_run<Policy, false>(fn, in, out, n, op, accumulator_t<Out>{},
                                            detail::by_keys<Key, KeyEq>{keys, key_eq}, nullptr, stream);
}

/// out[i] = in[j] ⊕ ... ⊕ in[i] over each run of equal keys (==), in the caller's workspace.
template <auto Policy = tuned, class Key, class In, class Out, class Op>
void inclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, workspace ws,
                           cudaStream_t stream = 0) {
  inclusive_scan_by_key<Policy>(keys, in, out, n, op, equal_to{}, ws, stream);
}

/// out[i] = in[j] ⊕ ... ⊕ in[i] over each run of equal keys (==).
template <auto Policy = tuned, class Key, class In, class Out, class Op>
void inclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, cudaStream_t stream = 0) {
  inclusive_scan_by_key<Policy>(keys, in, out, n, op, equal_to{}, stream);
}

/// out[i] = init ⊕ in[j] ⊕ ... ⊕ in[i-1] over each run of keys equal under key_eq, in the caller's workspace.
template <auto Policy = tuned, class Key, class In, class Out, class Op, class Init, key_equality KeyEq>
void exclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, Init init, KeyEq key_eq,
                           workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_scan_run<Policy, true>(fn, in, out, n, op, detail::convert<accumulator_t<Out>>(init),
                                           detail::by_keys<Key, KeyEq>{keys, key_eq}, &ws, stream);
}

/// out[i] = init ⊕ in[j] ⊕ ... ⊕ in[i-1] over each run of keys equal under key_eq.
template <auto Policy = tuned, class Key, class In, class Out, class Op, class Init, key_equality KeyEq>
void exclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, Init init, KeyEq key_eq,
                           cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_scan_run<Policy, true>(fn, in, out, n, op, detail::convert<accumulator_t<Out>>(init),
                                           detail::by_keys<Key, KeyEq>{keys, key_eq}, nullptr, stream);
}

/// out[i] = init ⊕ in[j] ⊕ ... ⊕ in[i-1] over each run of equal keys (==), in the caller's workspace.
template <auto Policy = tuned, class Key, class In, class Out, class Op, class Init>
void exclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, Init init, workspace ws,
                           cudaStream_t stream = 0) {
  exclusive_scan_by_key<Policy>(keys, in, out, n, op, init, equal_to{}, ws, stream);
}

/// out[i] = init ⊕ in[j] ⊕ ... ⊕ in[i-1] over each run of equal keys (==).
template <auto Policy = tuned, class Key, class In, class Out, class Op, class Init>
void exclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, Init init,
                           cudaStream_t stream = 0) {
  exclusive_scan_by_key<Policy>(keys, in, out, n, op, init, equal_to{}, stream);
}

// ---------------------------------------------------------------------------------------------------------
// By head flags

/// Inclusive scan restarted at every i with head_flags[i] != 0, in the caller's workspace.
template <auto Policy = tuned, class In, class Flag, class Out, class Op>
void inclusive_segmented_scan(const In* in, const Flag* head_flags, Out* out, std::int64_t n, Op op, workspace ws,
                              cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_scan_run<Policy, false>(fn, in, out, n, op, accumulator_t<Out>{},
                                            detail::by_flags<Flag>{head_flags}, &ws, stream);
}

/// Inclusive scan restarted at every i with head_flags[i] != 0.
template <auto Policy = tuned, class In, class Flag, class Out, class Op>
void inclusive_segmented_scan(const In* in, const Flag* head_flags, Out* out, std::int64_t n, Op op,
                              cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_scan_run<Policy, false>(fn, in, out, n, op, accumulator_t<Out>{},
                                            detail::by_flags<Flag>{head_flags}, nullptr, stream);
}

/// Exclusive scan seeded with init at every i with head_flags[i] != 0 (and at 0), in the caller's workspace.
template <auto Policy = tuned, class In, class Flag, class Out, class Op, class Init>
void exclusive_segmented_scan(const In* in, const Flag* head_flags, Out* out, std::int64_t n, Op op, Init init,
                              workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_scan_run<Policy, true>(fn, in, out, n, op, detail::convert<accumulator_t<Out>>(init),
                                           detail::by_flags<Flag>{head_flags}, &ws, stream);
}

/// Exclusive scan seeded with init at every i with head_flags[i] != 0 (and at 0).
template <auto Policy = tuned, class In, class Flag, class Out, class Op, class Init>
void exclusive_segmented_scan(const In* in, const Flag* head_flags, Out* out, std::int64_t n, Op op, Init init,
                              cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_scan_run<Policy, true>(fn, in, out, n, op, detail::convert<accumulator_t<Out>>(init),
                                           detail::by_flags<Flag>{head_flags}, nullptr, stream);
}

// ---------------------------------------------------------------------------------------------------------
// By offsets

/// Inclusive scan of each segment [offsets[s], offsets[s+1]) of [0, n), in the caller's workspace.
template <auto Policy = tuned, class In, class Offset, class Out, class Op>
void inclusive_segmented_scan(const In* in, const Offset* offsets, std::int64_t num_segments, Out* out,
                              std::int64_t n, Op op, workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_scan_run<Policy, false>(fn, in, out, n, op, accumulator_t<Out>{},
                                            detail::by_offsets<Offset>{offsets, num_segments}, &ws, stream);
}

/// Inclusive scan of each segment [offsets[s], offsets[s+1]) of [0, n).
template <auto Policy = tuned, class In, class Offset, class Out, class Op>
void inclusive_segmented_scan(const In* in, const Offset* offsets, std::int64_t num_segments, Out* out,
                              std::int64_t n, Op op, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_scan_run<Policy, false>(fn, in, out, n, op, accumulator_t<Out>{},
                                            detail::by_offsets<Offset>{offsets, num_segments}, nullptr, stream);
}

/// Exclusive scan (init at each segment's first element) of each segment [offsets[s], offsets[s+1]) of [0, n), in
/// the caller's workspace.
template <auto Policy = tuned, class In, class Offset, class Out, class Op, class Init>
void exclusive_segmented_scan(const In* in, const Offset* offsets, std::int64_t num_segments, Out* out,
                              std::int64_t n, Op op, Init init, workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_scan_run<Policy, true>(fn, in, out, n, op, detail::convert<accumulator_t<Out>>(init),
                                           detail::by_offsets<Offset>{offsets, num_segments}, &ws, stream);
}

/// Exclusive scan (init at each segment's first element) of each segment [offsets[s], offsets[s+1]) of [0, n).
template <auto Policy = tuned, class In, class Offset, class Out, class Op, class Init>
void exclusive_segmented_scan(const In* in, const Offset* offsets, std::int64_t num_segments, Out* out,
                              std::int64_t n, Op op, Init init, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::segmented_scan_run<Policy, true>(fn, in, out, n, op, detail::convert<accumulator_t<Out>>(init),
                                           detail::by_offsets<Offset>{offsets, num_segments}, nullptr, stream);
}

}  // namespace cuprim
