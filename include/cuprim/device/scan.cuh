// cuprim/device/scan.cuh: device-wide prefix scans (host entry points).
//
//   cuprim::inclusive_scan(in, out, n, op, stream)          out[i] = in[0] ⊕ ... ⊕ in[i]
//   cuprim::exclusive_scan(in, out, n, op, init, stream)    out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1]
//   cuprim::inclusive_sum / exclusive_sum(in, out, n, stream)
//   ... each with a `workspace` overload sized by cuprim::scan_workspace_bytes<In, Out>(n).
//
// Types. `in` holds n elements of any type cuprim handles (int8..uint64, float, double, __half,
// __nv_bfloat16, user structs); the scan accumulates in *out's type (float for 16-bit floats) and each input is
// converted to it, so scanning int8 into int64 widens.
//
// Operator. Any associative `Acc op(Acc, Acc)`; it need not be commutative (the earlier part of the sequence is
// always the left operand) and needs no identity element.
//
// In place: out == in is allowed; any other overlap is rejected.
//
// One pass: each element is read once and written once (single-pass scan with decoupled look-back); the tile
// ids come from an atomic counter, so progress never depends on block scheduling order. Inputs of one tile take
// a single block (default policy, 4-byte types: tiles of 3072 elements up to 2^17 elements, 8192 above). Inputs of
// up to 8 tiles of 512 threads × 4 16-byte vectors (2^16 4-byte elements; default policies, sm_90) are one
// thread-block cluster: each block takes its prefix from the earlier blocks' totals in their shared memory, in one
// launch with no workspace and nothing to zero (device/detail/scan_kernel.cuh, scan_cluster_kernel). From
// 2^22 elements (default policy), with input and output 16-byte aligned and one 4- or 8-byte arithmetic type
// throughout, on sm_90: a persistent pipeline (bulk copies into a ring of shared-memory tiles, producer,
// aggregator, look-back and scan warps; device/detail/scan_pipeline_kernel.cuh) that keeps loads in flight while
// tiles wait for their prefixes.
//
// Determinism (core/functional.cuh defines it): the order of operations depends on n, the policy and the input's
// alignment, not on the SM count: every tile's published prefix is the left fold P(t) = P(t-1) ⊕ A(t), and the
// look-back folds left to right from whatever prefix it meets, which gives that same value whichever it meets.
// Under cuprim::tuned the policy may come from a tuning cache (below): the order is then fixed by the cache file.
//
// Policy. Each entry point takes an optional policy as its first template argument: cuprim::tuned (the default:
// the row of scan_policy_for<In> for the device, device/detail/scan_tuning.cuh), a cuprim::scan_policy (one tile
// per block throughout) or a cuprim::scan_pipeline_policy.
//
// Tuning cache: a tuned scan of a 4- or 8-byte arithmetic type into its own type first asks the tuning cache
// (core/tuning.hpp; written by `cuprim-lab tune scan`) for the call's size, alignment and device; an entry naming
// one of scan_candidates<In>() (device/detail/scan_tuning.cuh) runs that policy instead of the row. Define
// CUPRIM_USE_TUNING_CACHE=0 in every translation unit of a program to compile the lookup out.
//
// Errors. cuprim::invalid_argument before anything runs: n < 0, null pointers with n > 0, partial overlap of
// in and out, a workspace too small. cuprim::cuda_error for failed launches or an error already pending.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/tuning.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/scan_kernel.cuh>
#include <cuprim/device/detail/scan_pipeline_kernel.cuh>
#include <cuprim/device/detail/scan_tuning.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuprim {

namespace detail {

/// Elements per tile of the one-tile-per-block kernel under P.
template <scan_policy P, class In>
constexpr std::uint64_t scan_tile_elems() {
  return std::uint64_t(P.threads) * P.vectors * vector_traits<In, P.vector_bytes>::elems;
}

/// The cluster scan's tile (sm_90): 512 threads × 4 vectors of 16 bytes (8192 4-byte elements), one tile per block,
/// the grid one cluster of at most 8 blocks (the portable size), so it takes inputs of up to 8 tiles (2^16 4-byte
/// elements) in one launch with no workspace. It serves the pipeline policies above one tile of their first
/// launch's shape (docs/tuning/scan.md).
inline constexpr scan_policy scan_cluster_shape{.threads = 512, .vector_bytes = 16, .vectors = 4};
constexpr std::uint64_t scan_cluster_blocks = 8;

/// Elements of the tile a scan of n elements under P starts with (the one-block launch takes inputs up to this).
template <scan_policy P, class In>
constexpr std::uint64_t scan_first_tile_elems(std::uint64_t) {
  return scan_tile_elems<P, In>();
}
template <scan_pipeline_policy P, class In>
constexpr std::uint64_t scan_first_tile_elems(std::uint64_t n) {
  if (P.small_max > 0 && n <= std::uint64_t(P.small_max)) return scan_tile_elems<P.small, In>();
  return scan_tile_elems<P.classic, In>();
}

/// Tiles whose states a one-tile-per-block scan of n elements under P publishes: none for a single tile.
template <scan_policy P, class In, class Acc>
constexpr std::uint64_t scan_lookback_tiles(std::int64_t n) {
  const std::uint64_t tiles = (std::uint64_t(n) + scan_tile_elems<P, In>() - 1) / scan_tile_elems<P, In>();
  return tiles > 1 ? tiles : 0;
}
/// ... and under a pipeline policy, the most that any of its paths takes at n (the small tile's count stops
/// growing at small_max, so the workspace stays monotonic in n).
template <scan_pipeline_policy P, class In, class Acc>
constexpr std::uint64_t scan_lookback_tiles(std::int64_t n) {
  std::uint64_t tiles = scan_lookback_tiles<P.classic, In, Acc>(n);
  if constexpr (P.small_max > 0)
    tiles = std::max(tiles, scan_lookback_tiles<P.small, In, Acc>(n < P.small_max ? n : P.small_max));
  if constexpr (scan_pipeline_takes<In, Acc, Acc>)
    if (n >= P.pipeline.min_elems) tiles = std::max(tiles, pipeline_shape<P.pipeline, In>::tiles(std::uint64_t(n)));
  return tiles;
}

/// The scan's workspace for n elements of In accumulated in Acc under P: the look-back's counter and tile states,
/// for the path at n with the most tiles (none up to one tile).
template <auto P, class In, class Acc>
lookback_layout<Acc> scan_layout(std::int64_t n) {
  const std::uint64_t tiles = n > 0 ? scan_lookback_tiles<P, In, Acc>(n) : 0;
  return tiles > 0 ? lookback_layout<Acc>(tiles) : lookback_layout<Acc>();
}

template <class In, class Out>
void scan_validate(const char* fn, const In* in, Out* out, std::int64_t n) {
  check_size(fn, "n", n, sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out));
  check_pointer(fn, "in", in, n > 0);
  check_pointer(fn, "out", out, n > 0);
  if (in_place(in, out)) return;  // allowed; any other overlap is not
  check_overlaps(fn, {{"in", in, std::size_t(n) * sizeof(In), read_only},
                      {"out", out, std::size_t(n) * sizeof(Out), written}});
}

/// One block per tile and 32-bit tile ids (2^41 elements with the default 4-byte policy).
template <auto P, class In>
void check_scan_tiles(const char* fn, std::int64_t n) {
  if (n > 0) check_tiles(fn, (std::uint64_t(n) - 1) / scan_first_tile_elems<P, In>(std::uint64_t(n)) + 1);
}

/// Whether a one-tile-per-block scan under P may load `in` and store `out` as vectors (their alignment).
struct scan_vector_io {
  bool in, out;
};
template <scan_policy P, class In, class Out>
scan_vector_io scan_vector_io_of(const In* in, const Out* out) {
  using vt = vector_traits<In, P.vector_bytes>;
  constexpr unsigned vout = sizeof(Out) * vt::elems;
  return {reinterpret_cast<std::uintptr_t>(in) % vt::bytes == 0,
          reinterpret_cast<std::uintptr_t>(out) % (vout <= 16 ? vout : 16) == 0};
}

/// The one-tile-per-block launch (arguments validated, workspace large enough).
template <scan_policy P, bool Exclusive, bool HasInit, class In, class Out, class Acc, class Op>
void scan_launch_classic(const char* fn, const In* in, Out* out, std::uint64_t n, Op op, Acc init, workspace ws,
                         cudaStream_t stream) {
  static_assert(scan_policy_valid<P>());
  constexpr std::uint64_t tile = scan_tile_elems<P, In>();
  const std::uint64_t tiles = (n + tile - 1) / tile;
  const auto [vector_in, vector_out] = scan_vector_io_of<P>(in, out);
  auto* kernel = scan_kernel<policy_constant<P>, Exclusive, HasInit, In, Out, Acc, Op>;
  if (tiles == 1) {  // one block, no look-back, nothing to zero
    kernel<<<1, P.threads, 0, stream>>>(in, out, n, op, init, tile_state<Acc>{}, nullptr, 1, vector_in, vector_out,
                                        lookback_waits{});
    check_launch(fn);
    return;
  }
  const lookback_layout<Acc> L(tiles);
  // The zeroing kernel lets the scan's launch overlap it; the scan waits for it before taking a tile id.
  zero_async(fn, ws.data, L.zero_bytes(tiles), stream);
  launch_dependent(fn, kernel, static_cast<unsigned>(tiles), P.threads, stream, in, out, n, op, init,
                   L.state(ws, tiles), L.counter(ws), tiles, vector_in, vector_out,
                   scale_waits(P.first_wait_ns, P.poll_wait_ns, tiles, get_device_info().sm_count));
}

/// The cluster launch for small inputs; false (nothing launched) when the device or the kernel's code lacks sm_90.
template <bool Exclusive, bool HasInit, class In, class Out, class Acc, class Op>
bool scan_cluster_launch(const char* fn, const In* in, Out* out, std::uint64_t n, Op op, Acc init,
                         cudaStream_t stream) {
  constexpr scan_policy C = scan_cluster_shape;
  constexpr std::uint64_t tile = scan_tile_elems<C, In>();
  auto kernel = scan_cluster_kernel<policy_constant<C>, Exclusive, HasInit, In, Out, Acc, Op>;
  static bulk_kernel_cache cache;  // whether this kernel's code is sm_90 on the device (clusters)
  if (bulk_kernel_blocks_per_sm(reinterpret_cast<const void*>(kernel), C.threads, 0, cache) == 0) return false;
  const auto [vector_in, vector_out] = scan_vector_io_of<C>(in, out);
  const unsigned blocks = unsigned((n + tile - 1) / tile);
  cudaLaunchAttribute attr[1];
  const cudaLaunchConfig_t cfg = cluster_launch_config(blocks, C.threads, 0, stream, attr);
  CUPRIM_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, in, out, n, op, init, vector_in, vector_out));
  check_launch(fn);
  return true;
}

/// The launch behind every scan under a scan_policy (arguments validated, workspace large enough).
template <scan_policy P, bool Exclusive, bool HasInit, class In, class Out, class Acc, class Op>
void scan_launch(const char* fn, const In* in, Out* out, std::uint64_t n, Op op, Acc init, workspace ws,
                 cudaStream_t stream) {
  if (n == 0) return;
  scan_launch_classic<P, Exclusive, HasInit>(fn, in, out, n, op, init, ws, stream);
}

/// ... and under a scan_pipeline_policy: the pipeline for large aligned inputs, one cluster for inputs of a few
/// tiles, the one-tile-per-block kernel otherwise (under the small tile up to small_max elements).
template <scan_pipeline_policy P, bool Exclusive, bool HasInit, class In, class Out, class Acc, class Op>
void scan_launch(const char* fn, const In* in, Out* out, std::uint64_t n, Op op, Acc init, workspace ws,
                 cudaStream_t stream) {
  static_assert(scan_pipeline_policy_valid<P>());
  if (n == 0) return;
  if constexpr (scan_pipeline_takes<In, Out, Acc>) {
    // Brace-initialised: a __device__ lambda operator has no default constructor.
    const scan_pipeline_job<Exclusive, HasInit, In, Op> job{{in, n, 0, nullptr, {}, {}}, out, op, init};
    if (std::int64_t(n) >= P.pipeline.min_elems && reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
        reinterpret_cast<std::uintptr_t>(out) % 16 == 0 && pipeline_launch<P.pipeline>(fn, job, ws, stream))
      return;
  }
  if (n > scan_first_tile_elems<P, In>(n) && n <= scan_cluster_blocks * scan_tile_elems<scan_cluster_shape, In>() &&
      scan_cluster_launch<Exclusive, HasInit>(fn, in, out, n, op, init, stream))
    return;
  if constexpr (P.small_max > 0) {
    if (n <= std::uint64_t(P.small_max)) {
      scan_launch_classic<P.small, Exclusive, HasInit>(fn, in, out, n, op, init, ws, stream);
      return;
    }
  }
  scan_launch_classic<P.classic, Exclusive, HasInit>(fn, in, out, n, op, init, ws, stream);
}

/// The index in scan_candidates<In>() of the policy the tuning cache chose for a tuned scan of n elements of In
/// into Out at these addresses on the current device, or -1 (no cache, no entry, or an entry naming no compiled
/// candidate: the table's row decides). Compiled out (always -1) under CUPRIM_USE_TUNING_CACHE=0.
template <class In, class Out>
int scan_cached_candidate(std::int64_t n, const In* in, const Out* out) {
#if CUPRIM_USE_TUNING_CACHE
  if constexpr (scan_has_candidates<In, Out>) {
    // Below the candidates' pipeline threshold every candidate runs the row's kernels: nothing to look up.
    if (n < scan_candidates_min_elems || !tuning::active()) return -1;
    const auto entry = tuning::lookup("scan", tuning::type_name<In>(), "", tuning::alignment_of(in, out), n);
    if (!entry || entry->policy_name != scan_pipeline_policy::name) return -1;
    static const auto flat = [] {
      std::vector<tuning::policy_fields> v;
      for (const scan_pipeline_policy& p : scan_candidates<In>()) v.push_back(tuning::flatten(p));
      return v;
    }();
    for (std::size_t i = 0; i < flat.size(); ++i)
      if (flat[i] == entry->policy) return int(i);
  }
#else
  (void)n, (void)in, (void)out;
#endif
  return -1;
}

/// The largest workspace of the candidates I... at n.
template <class In, class Out, std::size_t... I>
std::size_t scan_candidates_workspace_bytes(std::int64_t n, std::index_sequence<I...>) {
  std::size_t bytes = 0;
  ((bytes = std::max(bytes, scan_layout<scan_candidates<In>()[I], In, accumulator_t<Out>>(n).bytes())), ...);
  return bytes;
}

/// The largest workspace a tuned scan of n elements may need: the row's, or a cache-chosen candidate's. Whatever
/// CUPRIM_USE_TUNING_CACHE says (host arithmetic only, no kernel instantiated): a workspace sized in a translation
/// unit that compiles the lookups out still serves a call from one that makes them.
template <class In, class Out>
std::size_t scan_tuned_workspace_bytes(std::int64_t n) {
  const std::size_t row_bytes = with_tuned_arch([&]<int Arch>() {
    return scan_layout<scan_policy_for<In>(Arch), In, accumulator_t<Out>>(n).bytes();
  });
  if constexpr (scan_has_candidates<In, Out>)
    return std::max(row_bytes, scan_candidates_workspace_bytes<In, Out>(
                                   n, std::make_index_sequence<scan_candidates<In>().size()>{}));
  else
    return row_bytes;
}

/// The scan under one policy: the plan's checks (tile count, workspace: at least `promised` bytes, what
/// scan_workspace_bytes told the caller, and at least what P uses), then the launch.
template <auto P, bool Exclusive, bool HasInit, class In, class Out, class Op>
void scan_run_with(const char* fn, const In* in, Out* out, std::int64_t n, Op op, accumulator_t<Out> init,
                   const workspace* ws, std::size_t promised, cudaStream_t stream) {
  using Acc = accumulator_t<Out>;
  check_scan_tiles<P, In>(fn, n);
  const lookback_layout<Acc> L = scan_layout<P, In, Acc>(n);
  check_workspace(fn, ws, std::max(L.bytes(), promised), "scan_workspace_bytes(n)");
  check_no_pending_error(fn);
  with_workspace(ws, L.bytes(), stream, [&](const workspace& w) {
    scan_launch<P, Exclusive, HasInit>(fn, in, out, std::uint64_t(n), op, init, w, stream);
  });
}

/// Calls f.template operator()<P>() with P = scan_candidates<In>()[index] (a compile-time constant).
template <class In, class F, std::size_t... I>
void with_scan_candidate(int index, F&& f, std::index_sequence<I...>) {
  (void)((index == int(I) ? (f.template operator()<scan_candidates<In>()[I]>(), true) : false) || ...);
}

/// Every scan entry point ends here: validate, plan, launch. Exclusive scans start from init; so do inclusive ones
/// under HasInit (out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i]: cuprim::multi's scans carry the ranks before in). A tuned
/// call takes the tuning cache's choice where it has one (core/tuning.hpp), else the table's row.
template <auto Policy, bool Exclusive, class In, class Out, class Op, bool HasInit = Exclusive>
void scan_run(const char* fn, const In* in, Out* out, std::int64_t n, Op op, accumulator_t<Out> init,
              const workspace* ws, cudaStream_t stream) {
  scan_validate(fn, in, out, n);
  // A given workspace must hold what scan_workspace_bytes<In, Out, Policy> says, whichever policy runs: for a tuned
  // call that covers every candidate, so a workspace one byte short is refused whatever the cache holds.
  std::size_t promised = 0;
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(Policy)>, tuned_t> && scan_has_candidates<In, Out>)
    if (ws != nullptr) promised = scan_tuned_workspace_bytes<In, Out>(n);
  auto run = [&]<auto P>() { scan_run_with<P, Exclusive, HasInit>(fn, in, out, n, op, init, ws, promised, stream); };
#if CUPRIM_USE_TUNING_CACHE  // else no candidate is instantiated: the lookups' compile time goes with them
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(Policy)>, tuned_t> && scan_has_candidates<In, Out>) {
    if (const int c = scan_cached_candidate<In, Out>(n, in, out); c >= 0) {
      with_scan_candidate<In>(c, run, std::make_index_sequence<scan_candidates<In>().size()>{});
      return;
    }
  }
#endif
  with_tuned_arch([&]<int Arch>() {
    run.template operator()<pick_either_policy<Policy, scan_policy, scan_pipeline_policy>(scan_policy_for<In>(Arch))>();
  });
}

}  // namespace detail

/// Bytes of workspace the explicit-workspace scans need for n elements of In scanned into Out under Policy on the
/// current device (for cuprim::tuned: enough for any policy the tuning cache may choose). Monotonic in n; 0 when the
/// input fits one tile.
template <class In, class Out = In, auto Policy = tuned>
std::size_t scan_workspace_bytes(std::int64_t n) {
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(Policy)>, tuned_t>) {
    return detail::scan_tuned_workspace_bytes<In, Out>(n);
  } else {
    constexpr auto P =  // Policy itself (the row argument is not used for an explicit policy)
        detail::pick_either_policy<Policy, scan_policy, scan_pipeline_policy>(scan_policy_for<In>(tuned_archs[0]));
    return detail::scan_layout<P, In, accumulator_t<Out>>(n).bytes();
  }
}

/// out[i] = in[0] ⊕ ... ⊕ in[i], in the caller's workspace.
template <auto Policy = tuned, class In, class Out, class Op>
void inclusive_scan(const In* in, Out* out, std::int64_t n, Op op, workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_run<Policy, false>(fn, in, out, n, op, accumulator_t<Out>{}, &ws, stream);
}

/// out[i] = in[0] ⊕ ... ⊕ in[i]; workspace from the current memory resource.
template <auto Policy = tuned, class In, class Out, class Op>
void inclusive_scan(const In* in, Out* out, std::int64_t n, Op op, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_run<Policy, false>(fn, in, out, n, op, accumulator_t<Out>{}, nullptr, stream);
}

/// out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1] (out[0] = init), in the caller's workspace.
template <auto Policy = tuned, class In, class Out, class Op, class Init>
void exclusive_scan(const In* in, Out* out, std::int64_t n, Op op, Init init, workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_run<Policy, true>(fn, in, out, n, op, detail::convert<accumulator_t<Out>>(init), &ws, stream);
}

/// out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1] (out[0] = init); workspace from the current memory resource.
template <auto Policy = tuned, class In, class Out, class Op, class Init>
void exclusive_scan(const In* in, Out* out, std::int64_t n, Op op, Init init, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_run<Policy, true>(fn, in, out, n, op, detail::convert<accumulator_t<Out>>(init), nullptr, stream);
}

/// out[i] = in[0] + ... + in[i].
template <class In, class Out>
void inclusive_sum(const In* in, Out* out, std::int64_t n, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_run<tuned, false>(fn, in, out, n, plus{}, accumulator_t<Out>{}, nullptr, stream);
}

/// out[i] = in[0] + ... + in[i-1] (out[0] = 0).
template <class In, class Out>
void exclusive_sum(const In* in, Out* out, std::int64_t n, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_run<tuned, true>(fn, in, out, n, plus{}, detail::convert<accumulator_t<Out>>(0), nullptr, stream);
}

}  // namespace cuprim
