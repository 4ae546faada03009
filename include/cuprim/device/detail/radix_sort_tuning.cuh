// cuprim/device/detail/radix_sort_tuning.cuh: the radix sort's policy and its table.
#pragma once

#include <cuprim/core/policy.hpp>

namespace cuprim {

namespace detail {
/// The L2 eviction priority of a one-sweep pass's stores of 4- and 8-byte keys and values (radix_sort_policy's
/// store_hint). The value 1 (evict_first) lost to both and was removed (docs/tuning/radix_sort.md).
enum : int { radix_store_plain = 0, radix_store_evict_last = 2 };
}  // namespace detail

/// Shapes and options of the radix sort's kernels (device/detail/radix_sort_*.cuh).
///
/// The one-sweep pass (one launch per 8-bit digit):
///   threads × items    its tile: keys per block and pass; threads ≥ 256 (one thread per digit)
///   look_back          predecessor tiles each digit's look-back reads at once (1: one dependent load per tile)
///   exchange_first     a tile moves its keys (and loads its values) to their tile positions before its look-back
///                      rather than after it, overlapping the wait for its predecessors
///   joint_exchange     (pairs) a tile holds its keys and its values in shared memory at once, so one round of
///                      stores writes both (each value's destination follows from its key's digit, recomputed):
///                      one exchange round and two block barriers fewer per tile, for sizeof(K) + sizeof(V) bytes of
///                      shared memory per item instead of max(sizeof(K), sizeof(V)) + 1. Ignored for keys alone.
///   prefetch_tiles     a block that takes tile t asks L2 for the keys of tile t + prefetch_tiles (one bulk
///                      prefetch), so that the block taking that tile a little later loads them from L2 (0: none)
///   store_hint         the stores' L2 eviction priority: detail::radix_store_plain, or radix_store_evict_last in
///                      every pass but the last (which stores the caller's output under evict_normal and returns
///                      the lines it reads to the normal priority)
///   pack               (radix_sort_pairs, plain form, 4-byte integer keys with 4-byte values; argsort of such keys
///                      with 32-bit indices) each pair travels through the passes as one 8-byte key (the key's
///                      ordered bits above the value's), the first pass packing, the last unpacking, every pass
///                      moving 8-byte keys alone with this policy's one-sweep options, so an explicit policy should
///                      be shaped for 8-byte keys (with cuprim::tuned the packed passes take the 8-byte keys' row);
///                      two n × 8-byte buffers of workspace. Sorts of one pass (8 bits or fewer) do not pack.
///   min_blocks         blocks per SM that the kernel's registers are bounded for (its launch bounds: at most
///                      65536 / (min_blocks × threads) registers a thread); whether that many fit also depends on
///                      the tile's shared memory
/// The upfront histogram (one launch, 1024 threads, one block per SM):
///   hist_items         keys per thread and step (rounded to whole 16-byte vectors, at least one)
/// The on-chip sorts (one launch, no workspace):
///   small_threads × small_items       the largest input one block sorts (every pass in shared memory)
///   cluster_threads × cluster_items   the cluster sort of inputs up to cluster_tile() = 8 × cluster_threads ×
///                      cluster_items keys: one thread-block cluster (8 blocks, or 16 where the device schedules
///                      clusters of 16) holds them in shared memory for every pass, its blocks exchanging keys
///                      through distributed shared memory; each block takes the fewest keys per thread (a power of
///                      two up to cluster_items) that hold its share
struct radix_sort_policy {
  static constexpr const char* name = "radix_sort_policy";
  static constexpr int hist_threads = 1024;  ///< threads of a histogram block (its counters take 128 KiB)

  int threads = 384;
  int items = 16;
  int look_back = 1;
  bool exchange_first = false;
  bool joint_exchange = false;
  int prefetch_tiles = 0;
  int store_hint = detail::radix_store_plain;
  bool pack = false;
  int min_blocks = 2;
  int hist_items = 16;
  int small_threads = 512;
  int small_items = 8;
  int cluster_threads = 1024;
  int cluster_items = 8;

  /// Keys per one-sweep tile.
  constexpr int tile() const { return threads * items; }
  /// The most keys the one-block sort takes.
  constexpr int small_tile() const { return small_threads * small_items; }
  /// The most keys the cluster sort takes: 8 blocks (the portable cluster size) of a full tile.
  constexpr int cluster_tile() const { return 8 * cluster_threads * cluster_items; }
  /// Inputs up to this many keys are sorted on chip in one launch (one block or one cluster), with no workspace.
  constexpr int onchip_tile() const { return cluster_tile() > small_tile() ? cluster_tile() : small_tile(); }

  /// The fields each kernel reads, the others at their defaults: the kernels are instantiated with these, so that
  /// policies which agree on them share one instantiation (the one-sweep pass does not read `pack`: its packed form
  /// is a template argument of its own).
  constexpr radix_sort_policy onesweep_part() const {
    return {.threads = threads, .items = items, .look_back = look_back, .exchange_first = exchange_first,
            .joint_exchange = joint_exchange, .prefetch_tiles = prefetch_tiles, .store_hint = store_hint,
            .min_blocks = min_blocks};
  }
  constexpr radix_sort_policy histogram_part() const { return {.hist_items = hist_items}; }
  constexpr radix_sort_policy block_part() const {
    return {.small_threads = small_threads, .small_items = small_items};
  }
  constexpr radix_sort_policy cluster_part() const {
    return {.cluster_threads = cluster_threads, .cluster_items = cluster_items};
  }

  friend constexpr bool operator==(const radix_sort_policy&, const radix_sort_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("threads", threads);
    f("items", items);
    f("look_back", look_back);
    f("exchange_first", exchange_first);
    f("joint_exchange", joint_exchange);
    f("prefetch_tiles", prefetch_tiles);
    f("store_hint", store_hint);
    f("pack", pack);
    f("min_blocks", min_blocks);
    f("hist_items", hist_items);
    f("small_threads", small_threads);
    f("small_items", small_items);
    f("cluster_threads", cluster_threads);
    f("cluster_items", cluster_items);
  }
};

namespace detail {
/// The rules of a radix_sort_policy, checked where its kernels are instantiated.
template <radix_sort_policy P>
constexpr bool radix_sort_policy_valid() {
  static_assert(P.threads % 32 == 0 && P.threads >= 256 && P.threads <= 1024,
                "radix_sort_policy: threads must be a multiple of 32 in [256, 1024] (one thread per digit)");
  static_assert(P.items >= 1 && P.tile() <= 65536,
                "radix_sort_policy: items must be at least 1, and a tile at most 65536 keys (16-bit ranks)");
  static_assert(P.look_back >= 1, "radix_sort_policy: look_back must be at least 1");
  static_assert(P.prefetch_tiles >= 0, "radix_sort_policy: prefetch_tiles must be non-negative (0: no prefetch)");
  static_assert(P.store_hint == radix_store_plain || P.store_hint == radix_store_evict_last,
                "radix_sort_policy: store_hint must be radix_store_plain or radix_store_evict_last");
  static_assert(P.min_blocks >= 1 && P.min_blocks * P.threads <= 2048,
                "radix_sort_policy: min_blocks must be in [1, 2048 / threads]");
  static_assert(P.hist_items >= 1, "radix_sort_policy: hist_items must be at least 1");
  static_assert(P.small_threads % 32 == 0 && P.small_threads >= 256 && P.small_threads <= 1024,
                "radix_sort_policy: small_threads must be a multiple of 32 in [256, 1024] (one thread per digit)");
  static_assert(P.small_items >= 1, "radix_sort_policy: small_items must be at least 1");
  static_assert(P.cluster_threads >= 256 && P.cluster_threads <= 1024 &&
                    (P.cluster_threads & (P.cluster_threads - 1)) == 0,
                "radix_sort_policy: cluster_threads must be a power of two in [256, 1024]");
  static_assert(P.cluster_items >= 1 && (P.cluster_items & (P.cluster_items - 1)) == 0,
                "radix_sort_policy: cluster_items must be a power of two");
  static_assert(P.small_tile() >= P.cluster_threads,
                "radix_sort_policy: the one-block sort must take every input below the cluster sort's "
                "(n <= cluster_threads): the on-chip sizes get no workspace");
  return true;
}
}  // namespace detail

/// The table: the policy of a sort of keys of `key_bytes` bytes with values of `value_bytes` (0: keys alone) on a
/// device of tuned architecture `arch`. Values wider than 8 bytes travel as indices (a gather at the end) and take
/// the 8-byte values' row. docs/tuning/radix_sort.md has the measurements behind each row.
constexpr radix_sort_policy radix_sort_policy_for(int arch, int key_bytes, int value_bytes) {
  (void)arch;  // sm_90 rows serve every architecture until another is measured
  const bool wide = key_bytes >= 8 || value_bytes >= 8;
  if (value_bytes == 0 && !wide)
    // sm_90, keys of 1-4 bytes: H200, cuprim-lab sweep radix_sort, 1.41x CUB (384x24 1.03x in run 4; no prefetch -3%)
    return {.threads = 384, .items = 40, .look_back = 2, .prefetch_tiles = 32};
  if (value_bytes == 0)
    // sm_90, 8-byte keys: H100, cuprim-lab sweep radix_sort, 1.16-1.18x CUB (plain stores -5%, look_back 2 -4%)
    return {.threads = 256, .items = 40, .look_back = 1, .exchange_first = true, .prefetch_tiles = 32,
            .store_hint = detail::radix_store_evict_last, .cluster_threads = 512, .cluster_items = 16};
  if (!wide)
    // sm_90, pairs of 1-4 bytes: H100, cuprim-lab sweep radix_sort, 1.18x CUB packed (joint 256x44 1.04x, 384x26 0.99x)
    return {.threads = 256, .items = 44, .look_back = 1, .exchange_first = true, .joint_exchange = true,
            .pack = key_bytes == 4 && value_bytes == 4};
  // sm_90, pairs with 8-byte keys or values: H100, cuprim-lab run radix_sort/pairs, not swept (384x16 of run 4)
  return {.threads = 384, .items = 16, .look_back = 1, .cluster_threads = 512, .cluster_items = 16};
}

}  // namespace cuprim
