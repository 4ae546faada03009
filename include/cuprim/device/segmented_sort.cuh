// cuprim/device/segmented_sort.cuh: stable sorts of many independent segments (host entry points).
//
//   cuprim::segmented_sort_keys(keys_in, keys_out, n, num_segments, offsets, [ws,] [options,] stream)
//   cuprim::segmented_sort_pairs(keys_in, keys_out, values_in, values_out, n, num_segments, offsets, [ws,]
//                                [options,] stream)
//   ... <name>_workspace_bytes<K, [V,] Offset>(n, num_segments) sizes the explicit workspace.
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
// (and to report bad offsets: the warp pass writes nothing when the first pass found them bad), and once more when some segment is longer than 4096
// keys, to read their bounds. The sorting itself is ordered on `stream`.
//
// Errors. cuprim::invalid_argument before anything is written: n < 0, num_segments < 0, a null pointer where data
// is needed, a bit range as radix_sort_keys rejects it, outputs overlapping inputs or each other, offsets
// overlapping an output, a workspace smaller than needed, and offsets that decrease or leave [0, n] (found by the
// first pass: only the workspace has been written then). cuprim::cuda_error for a failed launch or an error already
// pending.
#pragma once

#include <cuprim/device/detail/segmented_sort_kernel.cuh>
#include <cuprim/device/radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace cuprim {

namespace detail {

template <class K, class V>
using seg_policy = typename radix_sort_default_policy<sizeof(K), radix_has_values_v<V> ? sizeof(V) : 0>::type;

/// Workspace layout: counters, the medium and large lists, the device-wide sort's workspace.
template <class K, class V, class O>
struct seg_layout {
  std::size_t counters = 0, medium = 0, large = 0, sort = 0;
  seg_layout(std::int64_t n_, std::int64_t segments_) {
    if (n_ <= 0 || segments_ <= 0) return;
    using P = seg_policy<K, V>;
    const std::uint64_t n = std::uint64_t(n_), S = std::uint64_t(segments_);
    counters = align_up(seg_counters * sizeof(unsigned long long));
    medium = align_up(std::min<std::uint64_t>(S, n / (seg_warp_max + 1)) * sizeof(std::uint64_t));
    const std::uint64_t big = std::min<std::uint64_t>(S, n / (std::uint64_t(P::small_tile) + 1));
    large = align_up(2 * big * sizeof(std::uint64_t));
    if (big > 0) {
      if constexpr (radix_has_values_v<V>) sort = radix_sort_pairs_workspace_bytes<K, V>(n_);
      else sort = radix_sort_keys_workspace_bytes<K>(n_);
    }
  }
  std::size_t bytes() const { return counters + medium + large + sort; }
};

template <class K, class V, class O>
void seg_sort_run(const char* fn, const K* keys_in, K* keys_out, const V* vals_in, V* vals_out, std::int64_t n,
                  std::int64_t num_segments, const O* offsets, const workspace* ws, radix_sort_options opt,
                  cudaStream_t stream) {
  static_assert(std::is_integral_v<O> && !std::is_same_v<O, bool>, "segment offsets: an integer type");
  static_assert(!radix_has_values_v<V> || sizeof(V) <= 16, "segmented sort values: at most 16 bytes");
  using P = seg_policy<K, V>;
  constexpr bool has_values = radix_has_values_v<V>;
  const int end = radix_validate_bits<K>(fn, n, opt);
  if (num_segments < 0) throw_invalid(fn, "num_segments", "must be non-negative");
  if (num_segments > 0 && offsets == nullptr) throw_invalid(fn, "offsets", "must not be null when num_segments > 0");
  const std::size_t kb = std::size_t(n) * sizeof(K);
  if constexpr (has_values) {
    const std::size_t vb = std::size_t(n) * sizeof(V);
    radix_validate_arrays(fn, n, {{"keys_in", keys_in, kb}, {"keys_out", keys_out, kb}, {"values_in", vals_in, vb},
                                  {"values_out", vals_out, vb}});
    if (num_segments > 0 && ranges_overlap(offsets, std::size_t(num_segments + 1) * sizeof(O), vals_out, vb))
      throw_invalid(fn, "offsets", "must not overlap values_out");
  } else {
    radix_validate_arrays(fn, n, {{"keys_in", keys_in, kb}, {"keys_out", keys_out, kb}});
  }
  if (num_segments > 0 && ranges_overlap(offsets, std::size_t(num_segments + 1) * sizeof(O), keys_out, kb))
    throw_invalid(fn, "offsets", "must not overlap keys_out");
  const seg_layout<K, V, O> L(n, num_segments);
  if (ws) radix_validate_workspace(fn, *ws, L.bytes(), "smaller than the segmented sort's *_workspace_bytes(n, num_segments)");
  check_no_pending_error(fn);
  if (n == 0 || num_segments == 0) return;

  scratch own(ws ? 0 : L.bytes(), stream);
  char* base = static_cast<char*>(ws ? ws->data : own.get().data);
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
  p.counters = reinterpret_cast<unsigned long long*>(base);
  p.medium = reinterpret_cast<std::uint64_t*>(base + L.counters);
  p.large = reinterpret_cast<std::uint64_t*>(base + L.counters + L.medium);
  p.block_max = P::small_tile;

  // 1. Check the offsets, list the long segments; read the counts (and a bad-offset flag) back.
  const int sms = get_device_info().sm_count;
  const std::uint64_t S = p.segments;
  CUPRIM_CUDA_CHECK(cudaMemsetAsync(p.counters, 0, seg_counters * sizeof(unsigned long long), stream));
  const unsigned cgrid = unsigned(std::min<std::uint64_t>((S + seg_threads - 1) / seg_threads, std::uint64_t(sms) * 16));
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
    using smem_t = radix_small_smem<P::small_threads, P::small_items, K, V>;
    auto kernel = seg_block_kernel<P::small_threads, P::small_items, K, V, O>;
    if (sizeof(smem_t) > 48 * 1024)
      CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sizeof(smem_t))));
    for (unsigned long long first = 0; first < counts[seg_medium]; first += 0x7fffffffull) {
      seg_sort_params<K, V, O> q = p;
      q.medium = p.medium + first;
      const unsigned grid = unsigned(std::min<unsigned long long>(counts[seg_medium] - first, 0x7fffffffull));
      kernel<<<grid, P::small_threads, sizeof(smem_t), stream>>>(q);
      check_launch(fn);
    }
  }

  // 4. Longer segments: the device-wide sort, one call each.
  if (counts[seg_large] > 0) {
    std::vector<std::uint64_t> bounds(std::size_t(2 * counts[seg_large]));
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(bounds.data(), p.large, bounds.size() * sizeof(std::uint64_t),
                                      cudaMemcpyDeviceToHost, stream));
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
    const workspace sws{base + L.counters + L.medium + L.large, L.sort};
    for (std::size_t k = 0; k < bounds.size(); k += 2) {
      const std::uint64_t b = bounds[k];
      const std::int64_t len = std::int64_t(bounds[k + 1] - b);
      radix_sort_options o = opt;
      o.end_bit = end;
      if constexpr (has_values) radix_sort_pairs(keys_in + b, keys_out + b, vals_in + b, vals_out + b, len, sws, o, stream);
      else radix_sort_keys(keys_in + b, keys_out + b, len, sws, o, stream);
    }
  }
}

}  // namespace detail

/// Workspace bytes of segmented_sort_keys over n keys in num_segments segments.
template <class K, class Offset>
std::size_t segmented_sort_keys_workspace_bytes(std::int64_t n, std::int64_t num_segments) {
  return detail::seg_layout<K, detail::radix_no_value, Offset>(n, num_segments).bytes();
}

/// Workspace bytes of segmented_sort_pairs over n pairs in num_segments segments.
template <class K, class V, class Offset>
std::size_t segmented_sort_pairs_workspace_bytes(std::int64_t n, std::int64_t num_segments) {
  return detail::seg_layout<K, V, Offset>(n, num_segments).bytes();
}

/// Sorts each segment [offsets[s], offsets[s + 1]) of keys_in into the same segment of keys_out (stable), in the
/// caller's workspace (segmented_sort_keys_workspace_bytes<K, Offset>(n, num_segments)).
template <class K, class Offset>
void segmented_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, std::int64_t num_segments,
                         const Offset* offsets, workspace ws, radix_sort_options opt = {}, cudaStream_t stream = 0) {
  detail::seg_sort_run<K, detail::radix_no_value, Offset>("cuprim::segmented_sort_keys", keys_in, keys_out, nullptr,
                                                          nullptr, n, num_segments, offsets, &ws, opt, stream);
}

/// segmented_sort_keys with its workspace from the current memory resource.
template <class K, class Offset>
void segmented_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, std::int64_t num_segments,
                         const Offset* offsets, radix_sort_options opt = {}, cudaStream_t stream = 0) {
  detail::seg_sort_run<K, detail::radix_no_value, Offset>("cuprim::segmented_sort_keys", keys_in, keys_out, nullptr,
                                                          nullptr, n, num_segments, offsets, nullptr, opt, stream);
}

/// Sorts each segment of (keys_in, values_in) into the same segment of (keys_out, values_out) by key (stable), in
/// the caller's workspace (segmented_sort_pairs_workspace_bytes<K, V, Offset>(n, num_segments)).
template <class K, class V, class Offset>
void segmented_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                          std::int64_t num_segments, const Offset* offsets, workspace ws, radix_sort_options opt = {},
                          cudaStream_t stream = 0) {
  detail::seg_sort_run<K, V, Offset>("cuprim::segmented_sort_pairs", keys_in, keys_out, values_in, values_out, n,
                                     num_segments, offsets, &ws, opt, stream);
}

/// segmented_sort_pairs with its workspace from the current memory resource.
template <class K, class V, class Offset>
void segmented_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                          std::int64_t num_segments, const Offset* offsets, radix_sort_options opt = {},
                          cudaStream_t stream = 0) {
  detail::seg_sort_run<K, V, Offset>("cuprim::segmented_sort_pairs", keys_in, keys_out, values_in, values_out, n,
                                     num_segments, offsets, nullptr, opt, stream);
}

}  // namespace cuprim
