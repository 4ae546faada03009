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
// Floating-point results are bitwise identical from run to run on the same GPU: every tile's published prefix
// is the left fold P(t) = P(t-1) ⊕ A(t), and the look-back folds left to right from whatever prefix it meets,
// which gives that same value whichever it meets (the order of operations depends only on n, the policy and the
// input's alignment).
//
// Errors. cuprim::invalid_argument before anything runs: n < 0, null pointers with n > 0, partial overlap of
// in and out, a workspace too small. cuprim::cuda_error for failed launches or an error already pending.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/scan_kernel.cuh>
#include <cuprim/device/detail/scan_pipeline_kernel.cuh>
#include <cuprim/device/detail/scan_tuning.cuh>
#include <cuprim/device/reduce.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim {

namespace detail {

/// Elements per tile of the one-tile-per-block kernel (a pipeline policy's fallback).
template <class Policy, class In>
constexpr std::uint64_t scan_tile_elems() {
  using C = classic_scan_policy_t<Policy>;
  return std::uint64_t(C::threads) * C::vectors * vector_traits<In, C::vector_bytes>::elems;
}

/// Whether the pipeline kernel can take In -> Out under Policy (the run-time conditions come on top: n, alignment,
/// the device).
template <class Policy, class In, class Out, class Acc>
inline constexpr bool scan_pipeline_eligible = is_scan_pipeline<Policy>::value && std::is_same_v<In, Out> &&
                                               std::is_same_v<Out, Acc> && std::is_arithmetic_v<In> &&
                                               (sizeof(In) == 4 || sizeof(In) == 8);

/// Workspace of the one-tile-per-block kernel under Policy's tile: none for one tile.
template <class Policy, class In, class Acc>
std::size_t scan_classic_workspace_bytes(std::int64_t n) {
  if (n <= 0) return 0;
  const std::uint64_t tiles = (std::uint64_t(n) + scan_tile_elems<Policy, In>() - 1) / scan_tile_elems<Policy, In>();
  return tiles <= 1 ? 0 : 256 + align_up(tile_state<Acc>::bytes(tiles));
}

template <class Policy, class In, class Acc>
std::size_t scan_workspace_bytes_for(std::int64_t n) {
  if (n <= 0) return 0;
  std::size_t bytes = scan_classic_workspace_bytes<Policy, In, Acc>(n);
  using small = small_scan_policy_t<Policy>;
  if constexpr (!std::is_void_v<small>) {
    // Monotonic in n: the small policy's need stops growing at its limit.
    const std::int64_t m = n < Policy::small_max ? n : Policy::small_max;
    const std::size_t s = scan_classic_workspace_bytes<small, In, Acc>(m);
    if (s > bytes) bytes = s;
  }
  if constexpr (scan_pipeline_eligible<Policy, In, Acc, Acc>) {
    const std::size_t pipeline = pipeline_workspace_bytes<Policy, In, Acc>(n);
    if (n >= Policy::min_elems && pipeline > bytes) bytes = pipeline;
  }
  return bytes;
}

/// One block per tile and 32-bit tile ids (2^41 elements with the default 4-byte policy): every entry point checks
/// this before it allocates or launches anything.
template <class Policy, class In>
void check_scan_tiles(const char* fn, std::int64_t n) {
  std::uint64_t tile = scan_tile_elems<Policy, In>();
  using small = small_scan_policy_t<Policy>;
  if constexpr (!std::is_void_v<small>)
    if (n <= Policy::small_max) tile = scan_tile_elems<small, In>();  // the tile the launch takes at this size
  if (n > 0 && (std::uint64_t(n) - 1) / tile >= 0x7fffffffu)
    throw_invalid(fn, "n", "needs more than 2^31 - 1 tiles under this policy");
}

template <class In, class Out>
void validate_scan(const char* fn, const In* in, Out* out, std::int64_t n) {
  if (n < 0) throw_invalid(fn, "n", "must be non-negative");
  if (std::uint64_t(n) > SIZE_MAX / (sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out)))
    throw_invalid(fn, "n", "is larger than the address space");
  if (n > 0 && in == nullptr) throw_invalid(fn, "in", "must not be null when n > 0");
  if (n > 0 && out == nullptr) throw_invalid(fn, "out", "must not be null when n > 0");
  const bool same = static_cast<const void*>(in) == static_cast<const void*>(out) && sizeof(In) == sizeof(Out);
  if (!same && ranges_overlap(in, std::size_t(n) * sizeof(In), out, std::size_t(n) * sizeof(Out)))
    throw_invalid(fn, "out", "must either equal in (in place) or not overlap [in, in + n)");
}

/// Whether a one-tile-per-block scan under P may load `in` and store `out` as vectors (their alignment).
struct scan_vector_io {
  bool in, out;
};
template <class P, class In, class Out>
scan_vector_io scan_vector_io_of(const In* in, const Out* out) {
  using vt = vector_traits<In, P::vector_bytes>;
  constexpr unsigned vout = sizeof(Out) * vt::elems;
  return {reinterpret_cast<std::uintptr_t>(in) % vt::bytes == 0,
          reinterpret_cast<std::uintptr_t>(out) % (vout <= 16 ? vout : 16) == 0};
}

/// The one-tile-per-block launch (arguments validated, workspace large enough).
template <class P, bool Exclusive, bool HasInit, class In, class Out, class Acc, class Op>
void scan_launch_classic(const char* fn, const In* in, Out* out, std::uint64_t n, Op op, Acc init, workspace ws,
                         cudaStream_t stream, const lookback_waits* waits) {
  constexpr std::uint64_t tile = scan_tile_elems<P, In>();
  const std::uint64_t tiles = (n + tile - 1) / tile;
  const auto [vector_in, vector_out] = scan_vector_io_of<P>(in, out);
  if (tiles == 1) {  // one block, no look-back, nothing to zero
    scan_kernel<P, Exclusive, HasInit><<<1, P::threads, 0, stream>>>(
        in, out, n, op, init, tile_state<Acc>{}, nullptr, 1, vector_in, vector_out, lookback_waits{});
    check_launch(fn);
    return;
  }
  auto* counter = static_cast<unsigned*>(ws.data);
  const tile_state<Acc> state = tile_state<Acc>::make(static_cast<char*>(ws.data) + 256, tiles);
  // The zeroing kernel lets the scan's launch overlap it; the scan waits for it before taking a tile id.
  zero_async(fn, ws.data, 256 + tile_state<Acc>::zero_bytes(tiles), stream);
  launch_dependent(fn, scan_kernel<P, Exclusive, HasInit, In, Out, Acc, Op>, static_cast<unsigned>(tiles),
                   P::threads, stream, in, out, n, op, init, state, counter, tiles, vector_in, vector_out,
                   waits ? *waits
                         : scale_waits(P::first_wait_ns, P::poll_wait_ns, tiles, get_device_info().sm_count));
}

/// The cluster scan's tile (sm_90): 512 threads × 4 vectors of 16 bytes (8192 4-byte elements), one tile per block,
/// the grid one cluster of at most 8 blocks (the portable size), so it takes inputs of up to 8 tiles (2^16 4-byte
/// elements) in one launch with no workspace. It serves the default policies (those with a pipeline) above one tile
/// of their one-tile-per-block shape. docs/tuning.md, "Scan", has the measurements.
using scan_cluster_shape = scan_policy<512, 16, 4>;
constexpr std::uint64_t scan_cluster_blocks = 8;

/// Whether scans under Policy take the cluster kernel for small inputs (the run-time conditions come on top: n,
/// the device).
template <class Policy>
inline constexpr bool scan_cluster_eligible = is_scan_pipeline<Policy>::value;

/// Elements of the first launch's tile under Policy at n elements (the one-block launch takes inputs up to this).
template <class Policy, class In>
constexpr std::uint64_t scan_first_tile_elems(std::uint64_t n) {
  using small = small_scan_policy_t<Policy>;
  if constexpr (!std::is_void_v<small>)
    if (n <= std::uint64_t(Policy::small_max)) return scan_tile_elems<small, In>();
  return scan_tile_elems<Policy, In>();
}

/// The cluster launch for small inputs; false (nothing launched) when the device or the kernel's code lacks sm_90.
template <bool Exclusive, bool HasInit, class In, class Out, class Acc, class Op>
bool scan_cluster_launch(const char* fn, const In* in, Out* out, std::uint64_t n, Op op, Acc init,
                         cudaStream_t stream) {
  using C = scan_cluster_shape;
  constexpr std::uint64_t tile = scan_tile_elems<C, In>();
  auto kernel = scan_cluster_kernel<C, Exclusive, HasInit, In, Out, Acc, Op>;
  static bulk_kernel_cache cache;  // whether this kernel's code is sm_90 on the device (clusters)
  if (bulk_kernel_blocks_per_sm(reinterpret_cast<const void*>(kernel), C::threads, 0, cache) == 0) return false;
  const auto [vector_in, vector_out] = scan_vector_io_of<C>(in, out);
  const unsigned blocks = unsigned((n + tile - 1) / tile);
  cudaLaunchAttribute attr[1];
  const cudaLaunchConfig_t cfg = cluster_launch_config(blocks, C::threads, 0, stream, attr);
  CUPRIM_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, in, out, n, op, init, vector_in, vector_out));
  check_launch(fn);
  return true;
}

/// The pipeline launch; false (nothing launched) when the device or the kernel's code lacks sm_90.
template <class Policy, bool Exclusive, bool HasInit, class T, class Op>
bool scan_pipeline_launch(const char* fn, const T* in, T* out, std::uint64_t n, Op op, T init, workspace ws,
                          cudaStream_t stream, const lookback_waits* waits) {
  // Brace-initialised: a __device__ lambda operator has no default constructor.
  scan_pipeline_job<Exclusive, HasInit, T, Op> job{{in, n, 0, nullptr, {}, {}}, out, op, init};
  return pipeline_launch<Policy>(fn, job, ws, stream, waits);
}

/// The one launch path behind every scan (arguments validated, workspace large enough): the pipeline for large
/// aligned inputs where the policy has one, one cluster for inputs of a few tiles where the policy has a pipeline,
/// the one-tile-per-block kernel otherwise. `waits` overrides the
/// policy's look-back back-off (for tuning experiments).
template <class Policy, bool Exclusive, bool HasInit, class In, class Out, class Acc, class Op>
void scan_launch(const char* fn, const In* in, Out* out, std::uint64_t n, Op op, Acc init, workspace ws,
                 cudaStream_t stream, const lookback_waits* waits = nullptr) {
  if (n == 0) return;
  if constexpr (scan_pipeline_eligible<Policy, In, Out, Acc>) {
    if (std::int64_t(n) >= Policy::min_elems && reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
        reinterpret_cast<std::uintptr_t>(out) % 16 == 0 &&
        scan_pipeline_launch<Policy, Exclusive, HasInit>(fn, in, out, n, op, init, ws, stream, waits))
      return;
  }
  if constexpr (scan_cluster_eligible<Policy>) {
    if (n > scan_first_tile_elems<Policy, In>(n) &&
        n <= scan_cluster_blocks * scan_tile_elems<scan_cluster_shape, In>() &&
        scan_cluster_launch<Exclusive, HasInit>(fn, in, out, n, op, init, stream))
      return;
  }
  using small = small_scan_policy_t<Policy>;
  if constexpr (!std::is_void_v<small>) {
    if (n <= std::uint64_t(Policy::small_max)) {
      scan_launch_classic<small, Exclusive, HasInit>(fn, in, out, n, op, init, ws, stream, waits);
      return;
    }
  }
  using classic = classic_scan_policy_t<Policy>;
  scan_launch_classic<classic, Exclusive, HasInit>(fn, in, out, n, op, init, ws, stream, waits);
}

template <class Policy, class In>
using scan_policy_or_default = std::conditional_t<std::is_void_v<Policy>, typename scan_default_policy<In>::type, Policy>;

}  // namespace detail

/// Bytes of workspace the explicit-workspace scans need for n elements of In scanned into Out. Monotonic in n;
/// 0 when the input fits one tile.
template <class In, class Out = In, class Policy = void>
std::size_t scan_workspace_bytes(std::int64_t n) {
  return detail::scan_workspace_bytes_for<detail::scan_policy_or_default<Policy, In>, In, accumulator_t<Out>>(n);
}

/// out[i] = in[0] ⊕ ... ⊕ in[i], in the caller's workspace.
template <class Policy = void, class In, class Out, class Op>
void inclusive_scan(const In* in, Out* out, std::int64_t n, Op op, workspace ws, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::inclusive_scan";
  using Acc = accumulator_t<Out>;
  using P = detail::scan_policy_or_default<Policy, In>;
  detail::validate_scan(fn, in, out, n);
  detail::check_scan_tiles<P, In>(fn, n);
  const std::size_t need = detail::scan_workspace_bytes_for<P, In, Acc>(n);
  if (ws.bytes < need) detail::throw_invalid(fn, "workspace", "smaller than scan_workspace_bytes(n)");
  if (need && ws.data == nullptr) detail::throw_invalid(fn, "workspace", "data must not be null");
  detail::check_no_pending_error(fn);
  detail::scan_launch<P, false, false>(fn, in, out, std::uint64_t(n), op, Acc{}, ws, stream);
}

/// out[i] = in[0] ⊕ ... ⊕ in[i]; workspace from the current memory resource.
template <class Policy = void, class In, class Out, class Op>
void inclusive_scan(const In* in, Out* out, std::int64_t n, Op op, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::inclusive_scan";
  using P = detail::scan_policy_or_default<Policy, In>;
  detail::validate_scan(fn, in, out, n);
  detail::check_scan_tiles<P, In>(fn, n);
  detail::check_no_pending_error(fn);
  detail::scratch ws(detail::scan_workspace_bytes_for<P, In, accumulator_t<Out>>(n), stream);
  inclusive_scan<P>(in, out, n, op, ws.get(), stream);
}

/// out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1] (out[0] = init), in the caller's workspace.
template <class Policy = void, class In, class Out, class Op, class Init>
void exclusive_scan(const In* in, Out* out, std::int64_t n, Op op, Init init, workspace ws, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::exclusive_scan";
  using Acc = accumulator_t<Out>;
  using P = detail::scan_policy_or_default<Policy, In>;
  detail::validate_scan(fn, in, out, n);
  detail::check_scan_tiles<P, In>(fn, n);
  const std::size_t need = detail::scan_workspace_bytes_for<P, In, Acc>(n);
  if (ws.bytes < need) detail::throw_invalid(fn, "workspace", "smaller than scan_workspace_bytes(n)");
  if (need && ws.data == nullptr) detail::throw_invalid(fn, "workspace", "data must not be null");
  detail::check_no_pending_error(fn);
  detail::scan_launch<P, true, true>(fn, in, out, std::uint64_t(n), op, detail::convert<Acc>(init), ws, stream);
}

/// out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1] (out[0] = init); workspace from the current memory resource.
template <class Policy = void, class In, class Out, class Op, class Init>
void exclusive_scan(const In* in, Out* out, std::int64_t n, Op op, Init init, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::exclusive_scan";
  using P = detail::scan_policy_or_default<Policy, In>;
  detail::validate_scan(fn, in, out, n);
  detail::check_scan_tiles<P, In>(fn, n);
  detail::check_no_pending_error(fn);
  detail::scratch ws(detail::scan_workspace_bytes_for<P, In, accumulator_t<Out>>(n), stream);
  exclusive_scan<P>(in, out, n, op, init, ws.get(), stream);
}

/// out[i] = in[0] + ... + in[i].
template <class In, class Out>
void inclusive_sum(const In* in, Out* out, std::int64_t n, cudaStream_t stream = 0) {
  inclusive_scan(in, out, n, plus{}, stream);
}

/// out[i] = in[0] + ... + in[i-1] (out[0] = 0).
template <class In, class Out>
void exclusive_sum(const In* in, Out* out, std::int64_t n, cudaStream_t stream = 0) {
  exclusive_scan(in, out, n, plus{}, detail::convert<accumulator_t<Out>>(0), stream);
}

}  // namespace cuprim
