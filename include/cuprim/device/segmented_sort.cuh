// cuprim/device/segmented_sort.cuh: stable sorts of many independent segments (host entry points).
//
//   cuprim::segmented_sort_keys(keys_in, keys_out, n, num_segments, offsets, [ws,] [options,] stream)
//   cuprim::segmented_sort_pairs(keys_in, keys_out, values_in, values_out, n, num_segments, offsets, [ws,]
//                                [options,] stream)
//   ... <name>_workspace_bytes<K, [V,] Offset>(n, num_segments) sizes the explicit workspace.
// The options come before the stream: pass {} for the defaults.
//
// Segment s is [offsets[s], offsets[s + 1]) (CSR offsets: num_segments + 1 entries of an integer type in device
// memory, non-decreasing, within [0, n]); each segment of keys_out receives the keys of the same segment of
// keys_in in sorted order, stably (values travel with their keys). Positions of keys_out not covered by any
// segment (before offsets[0] or from offsets[num_segments]) are not written. Keys, order, bit range and
// descending order exactly as in cuprim::radix_sort_keys (device/radix_sort.cuh); values: any trivially copyable
// type of at most 16 bytes.
//
// Algorithm (device/detail/segmented_sort_kernel.cuh): a first pass checks the offsets and lists the segments
// longer than 256 keys; then warps sort the segments of at most 256 keys (up to 16 keys: ranking by shuffles in
// groups of 4 to 16 lanes, several segments at once; 17 to 256: a bitonic network over the warp), one block each
// segment of at most 4096 keys (the one-block radix sort), and the device-wide radix sort each longer segment (a
// few huge segments run at full-device speed).
//
// Synchronisation: the call waits for the stream once, after the warp pass, to read how many segments are long
// (and to report bad offsets: the warp pass writes nothing when the first pass found them bad), and once more when
// some segment is longer than 4096 keys, to read their bounds. The sorting itself is ordered on `stream`.
//
// Policy. Each entry point takes an optional cuprim::radix_sort_policy as its first template argument (default
// cuprim::tuned: the radix sort's row for the keys and values): its one-block sort takes the medium segments, and
// the device-wide sort under it the long ones.
//
// Errors. cuprim::invalid_argument before anything is written: n < 0, num_segments < 0, a null pointer where data
// is needed, a bit range as radix_sort_keys rejects it, outputs overlapping inputs or each other, offsets
// overlapping an output (inputs and offsets may alias each other), a workspace smaller than needed, and offsets
// that decrease or leave [0, n] (found by the first pass: only the workspace has been written then).
// cuprim::cuda_error for a failed launch or an error already pending.
#pragma once

#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/segmented_sort_kernel.cuh>
#include <cuprim/device/radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace cuprim {

namespace detail {

/// The segmented sort's workspace: the classify pass's counters, the ids of the medium segments (one block each),
/// the bounds of the long ones, and the device-wide sort's workspace for those (under the same policy).
template <auto Policy, int Arch, class K, class V>
struct seg_layout {
  static constexpr radix_sort_policy P = radix_policy<Policy, Arch, K, V>();
  workspace_layout L;
  workspace_part<unsigned long long> counters;  // (seg_counters)
  workspace_part<std::uint64_t> medium;         // (segments longer than seg_warp_max, at most)
  workspace_part<std::uint64_t> large;          // (2 × segments longer than the block tile, at most): begin, end
  workspace_part<unsigned char> sort;           // the device-wide sort's workspace, for any of them
  seg_layout(std::int64_t n_, std::int64_t segments_) {
    if (n_ <= 0 || segments_ <= 0) return;
    const std::uint64_t n = std::uint64_t(n_), S = std::uint64_t(segments_);
    counters = L.add<unsigned long long>(seg_counters);
    medium = L.add<std::uint64_t>(std::min<std::uint64_t>(S, n / (seg_warp_max + 1)));
    const std::uint64_t big = std::min<std::uint64_t>(S, n / (std::uint64_t(P.small_tile()) + 1));
    large = L.add<std::uint64_t>(2 * big);
    if (big > 0) sort = L.add<unsigned char>(radix_workspace_bytes<Policy, Arch, K, V>(n, false));
  }
  std::size_t bytes() const { return L.bytes(); }
};

template <class K, class V, class O>
void seg_validate(const char* fn, const K* keys_in, K* keys_out, const V* vals_in, V* vals_out, std::int64_t n,
                  std::int64_t num_segments, const O* offsets) {
  check_size(fn, "num_segments", num_segments);
  check_pointer(fn, "offsets", offsets, num_segments > 0);
  const std::size_t kb = std::size_t(n) * sizeof(K), vb = radix_has_values_v<V> ? std::size_t(n) * sizeof(V) : 0;
  const std::size_t ob = num_segments > 0 ? std::size_t(num_segments + 1) * sizeof(O) : 0;
  check_pointer(fn, "keys_in", keys_in, n > 0);
  check_pointer(fn, "keys_out", keys_out, n > 0);
  check_pointer(fn, "values_in", vals_in, radix_has_values_v<V> && n > 0);
  check_pointer(fn, "values_out", vals_out, radix_has_values_v<V> && n > 0);
  check_overlaps(fn, {{"keys_in", keys_in, kb, read_only},
                      {"keys_out", keys_out, kb, written},
                      {"values_in", vals_in, vb, read_only},
                      {"values_out", vals_out, vb, written},
                      {"offsets", offsets, ob, read_only}});
}

/// The launches once the arguments are validated and the workspace planned (p: the problem's parameters, the
/// workspace's parts carved): classify, the warp pass, the host's wait for the counts, then the medium segments
/// one block each and the long ones device-wide.
template <auto Policy, radix_sort_policy P, class K, class V, class O>
void seg_sort_launch(const char* fn, seg_sort_params<K, V, O> p, const radix_sort_options& opt, int end,
                     const workspace& sort_ws, cudaStream_t stream) {
  // 1. Check the offsets, list the long segments; read the counts (and a bad-offset flag) back.
  const int sms = get_device_info().sm_count;
  const std::uint64_t S = p.segments;
  CUPRIM_CUDA_CHECK(cudaMemsetAsync(p.counters, 0, seg_counters * sizeof(unsigned long long), stream));
  const unsigned cgrid =
      unsigned(std::min<std::uint64_t>((S + seg_threads - 1) / seg_threads, std::uint64_t(sms) * 16));
  seg_classify_kernel<K, V, O><<<cgrid, seg_threads, 0, stream>>>(p);
  check_launch(fn);

  // 2. Segments of at most 256 keys, by warps (the kernel writes nothing when the offsets were bad). It runs while
  //    the host waits for the counts.
  constexpr std::uint64_t per_block = seg_threads;  // 32 segments per warp
  const unsigned wgrid = unsigned(std::min<std::uint64_t>((S + per_block - 1) / per_block, std::uint64_t(sms) * 8));
  seg_warp_kernel<K, V, O><<<wgrid, seg_threads, 0, stream>>>(p);
  check_launch(fn);
  unsigned long long counts[seg_counters] = {};
  CUPRIM_CUDA_CHECK(cudaMemcpyAsync(counts, p.counters, sizeof(counts), cudaMemcpyDeviceToHost, stream));
  CUPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (counts[seg_bad]) throw_invalid(fn, "offsets", "must be non-decreasing and within [0, n]");

  // 3. Segments of at most one block's tile: one block each.
  if (counts[seg_medium] > 0) {
    using smem_t = radix_small_smem<P.small_threads, P.small_items, K, V>;
    auto kernel = seg_block_kernel<policy_constant<P.block_part()>, K, V, O>;
    radix_allow_smem(kernel, sizeof(smem_t));
    for (unsigned long long first = 0; first < counts[seg_medium]; first += 0x7fffffffull) {
      seg_sort_params<K, V, O> q = p;
      q.medium = p.medium + first;
      const unsigned grid = unsigned(std::min<unsigned long long>(counts[seg_medium] - first, 0x7fffffffull));
      kernel<<<grid, P.small_threads, sizeof(smem_t), stream>>>(q);
      check_launch(fn);
    }
  }

  // 4. Longer segments: the device-wide sort, one call each.
  if (counts[seg_large] > 0) {
    std::vector<std::uint64_t> bounds(std::size_t(2 * counts[seg_large]));
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(bounds.data(), p.large, bounds.size() * sizeof(std::uint64_t),
                                      cudaMemcpyDeviceToHost, stream));
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
    radix_sort_options o = opt;
    o.end_bit = end;
    for (std::size_t k = 0; k < bounds.size(); k += 2) {
      const std::uint64_t b = bounds[k];
      const std::int64_t len = std::int64_t(bounds[k + 1] - b);
      if constexpr (radix_has_values_v<V>)
        radix_pairs_run<Policy>(fn, p.keys_in + b, p.keys_out + b, p.vals_in + b, p.vals_out + b, len, &sort_ws, o,
                                stream);
      else radix_keys_run<Policy>(fn, p.keys_in + b, p.keys_out + b, len, &sort_ws, o, stream);
    }
  }
}

template <auto Policy, class K, class V, class O>
void seg_sort_run(const char* fn, const K* keys_in, K* keys_out, const V* vals_in, V* vals_out, std::int64_t n,
                  std::int64_t num_segments, const O* offsets, const workspace* ws, const radix_sort_options& opt,
                  cudaStream_t stream) {
  static_assert(std::is_integral_v<O> && !std::is_same_v<O, bool>, "segment offsets: an integer type");
  static_assert(!radix_has_values_v<V> || sizeof(V) <= 16, "segmented sort values: at most 16 bytes");
  const int end = radix_validate_bits<K>(fn, n, opt);
  seg_validate(fn, keys_in, keys_out, vals_in, vals_out, n, num_segments, offsets);
  radix_with_arch<Policy>([&]<int Arch>() {
    const seg_layout<Policy, Arch, K, V> L(n, num_segments);
    check_workspace(fn, ws, L.bytes(), "the segmented sort's *_workspace_bytes(n, num_segments)");
    check_no_pending_error(fn);
    if (n == 0 || num_segments == 0) return;
    with_workspace(ws, L.bytes(), stream, [&](const workspace& w) {
      seg_sort_params<K, V, O> p{};
      p.keys_in = keys_in;
      p.keys_out = keys_out;
      p.vals_in = vals_in;
      p.vals_out = vals_out;
      p.offsets = offsets;
      p.segments = std::uint64_t(num_segments);
      p.n = std::uint64_t(n);
      p.begin_bit = opt.begin_bit;
      p.end_bit = end;
      p.descending = opt.order == sort_order::descending;
      p.counters = L.counters.in(w);
      p.medium = L.medium.in(w);
      p.large = L.large.in(w);
      p.block_max = decltype(L)::P.small_tile();
      seg_sort_launch<Policy, decltype(L)::P>(fn, p, opt, end, workspace{L.sort.in(w), L.sort.bytes()}, stream);
    });
  });
}

}  // namespace detail

/// Workspace bytes of segmented_sort_keys over n keys in num_segments segments.
template <class K, class Offset, auto Policy = tuned>
std::size_t segmented_sort_keys_workspace_bytes(std::int64_t n, std::int64_t num_segments) {
  if (n <= 0 || num_segments <= 0) return 0;
  return detail::radix_with_arch<Policy>([&]<int Arch>() {
    return detail::seg_layout<Policy, Arch, K, detail::radix_no_value>(n, num_segments).bytes();
  });
}

/// Workspace bytes of segmented_sort_pairs over n pairs in num_segments segments.
template <class K, class V, class Offset, auto Policy = tuned>
std::size_t segmented_sort_pairs_workspace_bytes(std::int64_t n, std::int64_t num_segments) {
  if (n <= 0 || num_segments <= 0) return 0;
  return detail::radix_with_arch<Policy>([&]<int Arch>() {
    return detail::seg_layout<Policy, Arch, K, V>(n, num_segments).bytes();
  });
}

/// Sorts each segment [offsets[s], offsets[s + 1]) of keys_in into the same segment of keys_out (stable), in the
/// caller's workspace (segmented_sort_keys_workspace_bytes<K, Offset>(n, num_segments)).
template <auto Policy = tuned, class K, class Offset>
void segmented_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, std::int64_t num_segments,
                         const Offset* offsets, workspace ws, radix_sort_options opt = {}, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::seg_sort_run<Policy, K, detail::radix_no_value, Offset>(fn, keys_in, keys_out, nullptr, nullptr, n,
                                                                  num_segments, offsets, &ws, opt, stream);
}

/// segmented_sort_keys with its workspace from the current memory resource.
template <auto Policy = tuned, class K, class Offset>
void segmented_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, std::int64_t num_segments,
                         const Offset* offsets, radix_sort_options opt = {}, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::seg_sort_run<Policy, K, detail::radix_no_value, Offset>(fn, keys_in, keys_out, nullptr, nullptr, n,
                                                                  num_segments, offsets, nullptr, opt, stream);
}

/// Sorts each segment of (keys_in, values_in) into the same segment of (keys_out, values_out) by key (stable), in
/// the caller's workspace (segmented_sort_pairs_workspace_bytes<K, V, Offset>(n, num_segments)).
template <auto Policy = tuned, class K, class V, class Offset>
void segmented_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                          std::int64_t num_segments, const Offset* offsets, workspace ws, radix_sort_options opt = {},
                          cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::seg_sort_run<Policy, K, V, Offset>(fn, keys_in, keys_out, values_in, values_out, n, num_segments, offsets,
                                             &ws, opt, stream);
}

/// segmented_sort_pairs with its workspace from the current memory resource.
template <auto Policy = tuned, class K, class V, class Offset>
void segmented_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                          std::int64_t num_segments, const Offset* offsets, radix_sort_options opt = {},
                          cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::seg_sort_run<Policy, K, V, Offset>(fn, keys_in, keys_out, values_in, values_out, n, num_segments, offsets,
                                             nullptr, opt, stream);
}

}  // namespace cuprim
