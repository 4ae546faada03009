// cuprim/device/segmented_sort.cuh: stable sorts of many independent segments (host entry points).
//
//   cuprim::segmented_sort_keys(keys_in, keys_out, n, num_segments, offsets, [ws,] [options,] stream)
//   cuprim::segmented_sort_pairs(keys_in, keys_out, values_in, values_out, n, num_segments, offsets, [ws,]
//                                [options,] stream)
//   cuprim::segmented_sort_keys_sync(...), cuprim::segmented_sort_pairs_sync(...)   the same arguments; they wait
//   ... <name>_workspace_bytes<K, [V,] Offset>(n, num_segments) sizes the explicit workspace (both forms).
// The options come before the stream: pass {} for the defaults.
//
// Segment s is [offsets[s], offsets[s + 1]) (CSR offsets: num_segments + 1 entries of an integer type in device
// memory, non-decreasing, within [0, n]); each segment of keys_out receives the keys of the same segment of
// keys_in in sorted order, stably (values travel with their keys). Positions of keys_out not covered by any
// segment (before offsets[0] or from offsets[num_segments]) are not written. Keys, order, bit range and
// descending order exactly as in cuprim::radix_sort_keys (device/radix_sort.cuh); values: any trivially copyable
// type of at most 16 bytes.
//
// Algorithm (device/detail/segmented_sort_kernel.cuh, segmented_sort_long.cuh). Every launch is sized on the host
// from (n, num_segments) alone; the kernels read the true counts from the workspace, where the first pass wrote
// them, and blocks with nothing to do exit:
//   1. classify   checks the offsets and lists the segments longer than 256 keys: those of at most the one-block
//                 sort's tile m (4096 keys under the tuned policies) as medium, longer ones as long, each long
//                 segment given a contiguous run of one-sweep tile ids by an atomic counter
//   2. warps      segments of at most 256 keys (up to 16 keys: ranking by shuffles in groups of 4 to 16 lanes,
//                 several segments at once; 17 to 256: a bitonic network over the warp)
//   3. medium     the one-block radix sort, by persistent blocks (as many as the device holds, at most the n / 257
//                 medium segments there can be) that take the listed segments in turn
//   4. long       one batched LSD radix sort of all long segments (at most n / (m + 1)): a tile map (tile →
//                 segment); one read of their keys counting every digit place per segment; per segment and place
//                 the digits' output starts; then per place a one-sweep pass over the tile map (the device-wide
//                 sort's tile steps, its keys and values, descending order and bit ranges) whose decoupled
//                 look-back chains stop at each segment's first tile. A few huge segments run at about device-wide
//                 speed, and thousands of long ones share every launch.
// The passes of step 4 alternate between the outputs and the workspace's copy, the first reading the inputs, so
// the last one writes the outputs.
//
// Synchronisation: segmented_sort_keys and segmented_sort_pairs never wait for the stream (they can be captured in
// a CUDA graph with an explicit workspace, and one graph serves any offsets of the same n and num_segments).
// segmented_sort_keys_sync and segmented_sort_pairs_sync run the same launches, then wait for the stream to report
// bad offsets: they are the segmented sort's only waiting forms.
//
// Policy. Each entry point takes an optional cuprim::radix_sort_policy as its first template argument (default
// cuprim::tuned: the radix sort's row for the keys and values): its one-block sort takes the medium segments, and
// its one-sweep shape (threads × items, look-back window, exchange) the long ones.
//
// Workspace (a pure function of n and num_segments): per key, a second copy of the keys (and values); for up to
// n / (m + 1) long segments, 256 64-bit digit counters per digit place; for up to about n / m tiles, 2 × 256 64-bit
// look-back words. For 4-byte keys under the tuned policy that is about 5 bytes per key (keys) and 9 (4-byte
// pairs); nothing beyond the counters and the medium list when n ≤ m.
//
// Errors. cuprim::invalid_argument before anything is launched, in every form: n < 0, num_segments < 0, a null
// pointer where data is needed, a bit range as radix_sort_keys rejects it, outputs overlapping inputs or each other,
// offsets overlapping an output (inputs and offsets may alias each other), a workspace smaller than needed. Offsets
// that decrease or leave [0, n] are found on the device by the first pass: then no kernel of the call writes to
// keys_out or values_out (only the workspace is written), and the _sync forms throw cuprim::invalid_argument naming
// `offsets` after their wait. cuprim::cuda_error for a failed launch or an error already pending.
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

/// The segmented sort's workspace, sized from (n, num_segments) alone by upper bounds that valid offsets cannot
/// exceed: the counters, the ids of the medium segments (longer than seg_warp_max: at most n / 257), the long
/// segments (longer than the block tile m: at most n / (m + 1)), and for those the batched sort's tile map
/// (seg_tiles_max tiles), digit counts (256 per digit place per segment, 64-bit), two arrays of 64-bit look-back
/// words (256 per tile) and a second copy of the keys (and values) for the passes' ping-pong.
template <auto Policy, int Arch, class K, class V>
struct seg_layout {
  static constexpr radix_sort_policy P = radix_policy<Policy, Arch, K, V>();
  workspace_layout L;
  std::uint64_t medium_max = 0, long_max = 0, tiles_max = 0;
  workspace_part<unsigned long long> counters;  // (seg_counters)
  workspace_part<std::uint64_t> medium;         // (medium_max)
  workspace_part<seg_long> longs;               // (long_max)
  workspace_part<std::uint32_t> map;            // (tiles_max)
  workspace_part<std::uint64_t> starts;         // (long_max × sizeof(K) places × 256)
  workspace_part<unsigned long long> look[2];   // (tiles_max × 256) each
  workspace_part<K> keys;                       // (n)
  workspace_part<std::conditional_t<radix_has_values_v<V>, V, unsigned char>> values;  // (n, pairs only)
  seg_layout(std::int64_t n_, std::int64_t segments_) {
    if (n_ <= 0 || segments_ <= 0) return;
    const std::uint64_t n = std::uint64_t(n_), S = std::uint64_t(segments_);
    const std::uint64_t m = std::uint64_t(P.small_tile());
    medium_max = std::min<std::uint64_t>(S, n / (seg_warp_max + 1));
    long_max = std::min<std::uint64_t>(S, n / (m + 1));
    counters = L.add<unsigned long long>(seg_counters);
    medium = L.add<std::uint64_t>(medium_max);
    if (long_max == 0) return;
    tiles_max = seg_tiles_max(n, m + 1, std::uint64_t(P.tile()));
    longs = L.add<seg_long>(long_max);
    map = L.add<std::uint32_t>(tiles_max);
    starts = L.add<std::uint64_t>(long_max * sizeof(K) * radix_digits);
    for (auto& w : look) w = L.add<unsigned long long>(tiles_max * radix_digits);
    keys = L.add<K>(n);
    if constexpr (radix_has_values_v<V>) values = L.add<V>(n);
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

/// A grid of `kernel` (threads × smem bytes of dynamic shared memory) as large as the device holds at once, and no
/// larger than `most` blocks (at least one).
template <class Kernel>
unsigned seg_resident_grid(Kernel kernel, int threads, std::size_t smem, std::uint64_t most) {
  int per_sm = 0;
  CUPRIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  const std::uint64_t resident = std::uint64_t(std::max(per_sm, 1)) * std::uint64_t(get_device_info().sm_count);
  return unsigned(std::max<std::uint64_t>(1, std::min(most, resident)));
}

/// Step 1: zero the counters, check the offsets, list the medium and long segments.
template <class K, class V, class O>
void seg_classify(const char* fn, const seg_sort_params<K, V, O>& p, cudaStream_t stream) {
  CUPRIM_CUDA_CHECK(cudaMemsetAsync(p.counters, 0, seg_counters * sizeof(unsigned long long), stream));
  const std::uint64_t most = std::uint64_t(get_device_info().sm_count) * 16;
  const unsigned grid = unsigned(std::min<std::uint64_t>((p.segments + seg_threads - 1) / seg_threads, most));
  seg_classify_kernel<K, V, O><<<grid, seg_threads, 0, stream>>>(p);
  check_launch(fn);
}

/// Step 2: segments of at most seg_warp_max keys, by warps.
template <class K, class V, class O>
void seg_sort_warps(const char* fn, const seg_sort_params<K, V, O>& p, cudaStream_t stream) {
  constexpr std::uint64_t per_block = seg_threads;  // 32 segments per warp
  const std::uint64_t most = std::uint64_t(get_device_info().sm_count) * 8;
  const unsigned grid = unsigned(std::min<std::uint64_t>((p.segments + per_block - 1) / per_block, most));
  seg_warp_kernel<K, V, O><<<grid, seg_threads, 0, stream>>>(p);
  check_launch(fn);
}

/// Step 3: segments of at most one block's tile, by persistent blocks (at most medium_max, the most there can be).
template <radix_sort_policy P, class K, class V, class O>
void seg_sort_medium(const char* fn, const seg_sort_params<K, V, O>& p, std::uint64_t medium_max,
                     cudaStream_t stream) {
  if (medium_max == 0) return;
  using smem_t = radix_small_smem<P.small_threads, P.small_items, K, V>;
  auto kernel = seg_block_kernel<policy_constant<P.block_part()>, K, V, O>;
  allow_dynamic_smem(kernel, sizeof(smem_t));
  const unsigned grid = seg_resident_grid(kernel, P.small_threads, sizeof(smem_t), medium_max);
  kernel<<<grid, P.small_threads, sizeof(smem_t), stream>>>(p);
  check_launch(fn);
}

/// Step 4: the long segments' batched radix sort (segmented_sort_long.cuh): the tile map, the digit counts of every
/// place, the digit starts, then one one-sweep pass per place. Pass q reads the input (q = 0) or the previous
/// pass's output and writes keys_out when passes − 1 − q is even, the workspace's copy otherwise, so that the last
/// pass writes keys_out (values alike).
template <radix_sort_policy P, class K, class V, class O, class Layout>
void seg_sort_long(const char* fn, const seg_sort_params<K, V, O>& p, const Layout& L, const workspace& w,
                   cudaStream_t stream) {
  if (L.long_max == 0) return;
  static_assert(radix_sort_policy_valid<P>());
  const int passes = radix_passes(p.begin_bit, p.end_bit);
  const int sms = get_device_info().sm_count;
  unsigned long long* const look[2] = {L.look[0].in(w), L.look[1].in(w)};
  const seg_long_arrays<K, V> a{p.keys_in, p.counters, p.longs, L.map.in(w), L.starts.in(w), look[0],
                                std::uint64_t(P.tile()), p.begin_bit, p.end_bit, passes, p.descending};
  const unsigned per_segment_grid = unsigned(std::min<std::uint64_t>(L.long_max, std::uint64_t(sms) * 8));

  // (a) The tile map; (b) every place's digit counts; (c) the digit starts. Every kernel of this step is a
  // programmatic dependent launch (each waits for the grid before it first thing): when the call has no long
  // segment they all exit at once, and their launches overlap instead of queueing one after another.
  launch_dependent(fn, seg_tile_map_kernel<K, V>, per_segment_grid, 256, stream, a);
  auto histogram = seg_histogram_kernel<K, V>;
  allow_dynamic_smem(histogram, seg_hist_smem_bytes<K>);
  const unsigned hgrid = seg_resident_grid(histogram, seg_hist_threads, seg_hist_smem_bytes<K>, L.tiles_max);
  launch_dependent_smem(fn, histogram, hgrid, seg_hist_threads, seg_hist_smem_bytes<K>, stream, a);
  launch_dependent(fn, seg_bases_kernel<K, V>, per_segment_grid, radix_digits, stream, a);

  // (d) The passes.
  constexpr std::size_t smem =
      seg_onesweep_smem_bytes<radix_onesweep_smem<P.threads, P.items, K, V, P.joint_exchange>>;
  auto onesweep = seg_onesweep_kernel<policy_constant<P.onesweep_part()>, K, V>;
  allow_dynamic_smem(onesweep, smem);
  const unsigned grid = seg_resident_grid(onesweep, P.threads, smem, L.tiles_max);
  K* const tmp_keys = L.keys.in(w);
  V* tmp_vals = nullptr;
  if constexpr (radix_has_values_v<V>) tmp_vals = L.values.in(w);
  for (int q = 0; q < passes; ++q) {
    const bool to_out = ((passes - 1 - q) & 1) == 0;
    seg_onesweep_params<K, V> op{};
    op.keys_in = q == 0 ? p.keys_in : (to_out ? tmp_keys : p.keys_out);
    op.keys_out = to_out ? p.keys_out : tmp_keys;
    if constexpr (radix_has_values_v<V>) {
      op.vals_in = q == 0 ? p.vals_in : (to_out ? tmp_vals : p.vals_out);
      op.vals_out = to_out ? p.vals_out : tmp_vals;
    }
    op.count = p.n;
    op.pass = radix_pass_of(p.begin_bit, p.end_bit, q);
    op.descending = p.descending;
    op.nan_flag = reinterpret_cast<const unsigned*>(p.counters + seg_nan);  // the low word (little-endian)
    op.first_pass = q == 0;
    op.last_pass = q == passes - 1;
    op.counters = p.counters;
    op.tile_counter = reinterpret_cast<unsigned*>(p.counters + seg_pass_tiles + q);
    op.longs = p.longs;
    op.map = a.map;
    op.starts = a.hist;
    op.look = look[q & 1];
    op.look_next = q + 1 < passes ? look[(q + 1) & 1] : nullptr;
    op.place = q;
    op.passes = passes;
    launch_dependent_smem(fn, onesweep, grid, P.threads, smem, stream, op);
  }
}

/// The launches once the arguments are validated and the workspace planned (p: the problem's parameters, the
/// workspace's parts carved), none of which waits for the stream. `wait`: then wait for it, and throw when the
/// classify pass found the offsets bad (the _sync forms).
template <radix_sort_policy P, class K, class V, class O, class Layout>
void seg_sort_launch(const char* fn, const seg_sort_params<K, V, O>& p, const Layout& L, const workspace& w,
                     bool wait, cudaStream_t stream) {
  static_assert(seg_pass_tiles + int(sizeof(K)) <= seg_counters, "a tile counter per digit place");
  seg_classify(fn, p, stream);
  seg_sort_warps(fn, p, stream);
  seg_sort_medium<P>(fn, p, L.medium_max, stream);
  seg_sort_long<P>(fn, p, L, w, stream);
  if (!wait) return;
  unsigned long long bad = 0;
  CUPRIM_CUDA_CHECK(cudaMemcpyAsync(&bad, p.counters + seg_bad, sizeof(bad), cudaMemcpyDeviceToHost, stream));
  CUPRIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (bad) throw_invalid(fn, "offsets", "must be non-decreasing and within [0, n]");
}

template <auto Policy, class K, class V, class O>
void seg_sort_run(const char* fn, const K* keys_in, K* keys_out, const V* vals_in, V* vals_out, std::int64_t n,
                  std::int64_t num_segments, const O* offsets, const workspace* ws, const radix_sort_options& opt,
                  bool wait, cudaStream_t stream) {
  static_assert(std::is_integral_v<O> && !std::is_same_v<O, bool>, "segment offsets: an integer type");
  static_assert(!radix_has_values_v<V> || sizeof(V) <= 16, "segmented sort values: at most 16 bytes");
  const int end = radix_validate_bits<K>(fn, n, opt);
  seg_validate(fn, keys_in, keys_out, vals_in, vals_out, n, num_segments, offsets);
  radix_with_arch<Policy>([&]<int Arch>() {
    using layout_t = seg_layout<Policy, Arch, K, V>;
    const layout_t L(n, num_segments);
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
      p.longs = L.longs.in(w);
      p.medium_max = L.medium_max;
      p.long_max = L.long_max;
      p.block_max = layout_t::P.small_tile();
      p.tile = std::uint64_t(layout_t::P.tile());
      seg_sort_launch<layout_t::P>(fn, p, L, w, wait, stream);
    });
  });
}

}  // namespace detail

/// Workspace bytes of segmented_sort_keys (and its _sync form) over n keys in num_segments segments.
template <class K, class Offset, auto Policy = tuned>
std::size_t segmented_sort_keys_workspace_bytes(std::int64_t n, std::int64_t num_segments) {
  if (n <= 0 || num_segments <= 0) return 0;
  return detail::radix_with_arch<Policy>([&]<int Arch>() {
    return detail::seg_layout<Policy, Arch, K, detail::radix_no_value>(n, num_segments).bytes();
  });
}

/// Workspace bytes of segmented_sort_pairs (and its _sync form) over n pairs in num_segments segments.
template <class K, class V, class Offset, auto Policy = tuned>
std::size_t segmented_sort_pairs_workspace_bytes(std::int64_t n, std::int64_t num_segments) {
  if (n <= 0 || num_segments <= 0) return 0;
  return detail::radix_with_arch<Policy>([&]<int Arch>() {
    return detail::seg_layout<Policy, Arch, K, V>(n, num_segments).bytes();
  });
}

/// Sorts each segment [offsets[s], offsets[s + 1]) of keys_in into the same segment of keys_out (stable), in the
/// caller's workspace (segmented_sort_keys_workspace_bytes<K, Offset>(n, num_segments)). Does not wait: bad offsets
/// leave the outputs unwritten (segmented_sort_keys_sync reports them).
template <auto Policy = tuned, class K, class Offset>
void segmented_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, std::int64_t num_segments,
                         const Offset* offsets, workspace ws, radix_sort_options opt = {}, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::seg_sort_run<Policy, K, detail::radix_no_value, Offset>(fn, keys_in, keys_out, nullptr, nullptr, n,
                                                                  num_segments, offsets, &ws, opt, false, stream);
}

/// segmented_sort_keys with its workspace from the current memory resource.
template <auto Policy = tuned, class K, class Offset>
void segmented_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, std::int64_t num_segments,
                         const Offset* offsets, radix_sort_options opt = {}, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::seg_sort_run<Policy, K, detail::radix_no_value, Offset>(fn, keys_in, keys_out, nullptr, nullptr, n,
                                                                  num_segments, offsets, nullptr, opt, false, stream);
}

/// Sorts each segment of (keys_in, values_in) into the same segment of (keys_out, values_out) by key (stable), in
/// the caller's workspace (segmented_sort_pairs_workspace_bytes<K, V, Offset>(n, num_segments)). Does not wait: bad
/// offsets leave the outputs unwritten (segmented_sort_pairs_sync reports them).
template <auto Policy = tuned, class K, class V, class Offset>
void segmented_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                          std::int64_t num_segments, const Offset* offsets, workspace ws, radix_sort_options opt = {},
                          cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::seg_sort_run<Policy, K, V, Offset>(fn, keys_in, keys_out, values_in, values_out, n, num_segments, offsets,
                                             &ws, opt, false, stream);
}

/// segmented_sort_pairs with its workspace from the current memory resource.
template <auto Policy = tuned, class K, class V, class Offset>
void segmented_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                          std::int64_t num_segments, const Offset* offsets, radix_sort_options opt = {},
                          cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::seg_sort_run<Policy, K, V, Offset>(fn, keys_in, keys_out, values_in, values_out, n, num_segments, offsets,
                                             nullptr, opt, false, stream);
}

/// segmented_sort_keys, then a wait for `stream`: throws cuprim::invalid_argument naming `offsets` when they were bad
/// (the outputs are then unwritten). One of the two waiting forms of the segmented sort.
template <auto Policy = tuned, class K, class Offset>
void segmented_sort_keys_sync(const K* keys_in, K* keys_out, std::int64_t n, std::int64_t num_segments,
                              const Offset* offsets, workspace ws, radix_sort_options opt = {},
                              cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::seg_sort_run<Policy, K, detail::radix_no_value, Offset>(fn, keys_in, keys_out, nullptr, nullptr, n,
                                                                  num_segments, offsets, &ws, opt, true, stream);
}

/// segmented_sort_keys_sync with its workspace from the current memory resource.
template <auto Policy = tuned, class K, class Offset>
void segmented_sort_keys_sync(const K* keys_in, K* keys_out, std::int64_t n, std::int64_t num_segments,
                              const Offset* offsets, radix_sort_options opt = {}, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::seg_sort_run<Policy, K, detail::radix_no_value, Offset>(fn, keys_in, keys_out, nullptr, nullptr, n,
                                                                  num_segments, offsets, nullptr, opt, true, stream);
}

/// segmented_sort_pairs, then a wait for `stream`: throws cuprim::invalid_argument naming `offsets` when they were
/// bad (the outputs are then unwritten). One of the two waiting forms of the segmented sort.
template <auto Policy = tuned, class K, class V, class Offset>
void segmented_sort_pairs_sync(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                               std::int64_t num_segments, const Offset* offsets, workspace ws,
                               radix_sort_options opt = {}, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::seg_sort_run<Policy, K, V, Offset>(fn, keys_in, keys_out, values_in, values_out, n, num_segments, offsets,
                                             &ws, opt, true, stream);
}

/// segmented_sort_pairs_sync with its workspace from the current memory resource.
template <auto Policy = tuned, class K, class V, class Offset>
void segmented_sort_pairs_sync(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                               std::int64_t num_segments, const Offset* offsets, radix_sort_options opt = {},
                               cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::seg_sort_run<Policy, K, V, Offset>(fn, keys_in, keys_out, values_in, values_out, n, num_segments, offsets,
                                             nullptr, opt, true, stream);
}

}  // namespace cuprim
