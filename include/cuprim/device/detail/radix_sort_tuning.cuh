// cuprim/device/detail/radix_sort_tuning.cuh: the radix sort's policy and its default table.
#pragma once

#include <cstddef>

namespace cuprim {

/// Shapes of the radix sort's kernels.
///   Threads × Items        the one-sweep tile (keys per block and pass); Threads ≥ 256 (one thread per digit)
///   SmallThreads × SmallItems   the largest input sorted by one block in one launch (all passes in shared memory)
///   HistItems              keys per thread and step of the upfront histogram pass (1024 threads, one block per SM;
///                          rounded to whole 16-byte vectors, at least one)
///   LookBack               predecessor tiles each digit's look-back reads at once (1: one dependent load per tile)
///   Rank                   how a warp ranks its keys: 0 ballots and a warp-synchronous counter update, 1 ballots
///                          and a shared atomic, 2 match.any and a shared atomic (detail/radix_sort_kernel.cuh)
///   EarlyCounts            a tile counts its digits (one shared atomic per key) and publishes them before ranking,
///                          so that successors' look-backs do not wait for its ranking
///   Cluster, ClusterThreads × ClusterItems   the cluster sort of inputs up to 8 × ClusterThreads × ClusterItems
///                          keys: one thread-block cluster (8 blocks, or 16 where the device schedules clusters of
///                          16) holds them in shared memory for every pass, its blocks exchanging keys through
///                          distributed shared memory; each block takes the fewest keys per thread (a power of
///                          two up to ClusterItems) that hold its share. Cluster = false turns it off.
///   ExchangeFirst          a one-sweep tile moves its keys (and loads its values) to their tile positions before
///                          its look-back rather than after it, overlapping the wait for its predecessors
///   JointExchange          (pairs) a one-sweep tile holds its keys and its values in shared memory at once, so one
///                          round of stores writes both (each value's destination follows from its key's digit,
///                          recomputed): one exchange round and two block barriers fewer per tile, for
///                          (sizeof(K) + sizeof(V)) bytes of shared memory per item instead of max(sizeof(K),
///                          sizeof(V)) + 1. Ignored for keys alone.
///   PrefetchTiles          a one-sweep block that takes tile t asks L2 for the keys of tile t + PrefetchTiles (one
///                          bulk prefetch), so that the block taking that tile a little later loads them from L2
///                          rather than from memory (0: no prefetch)
///   MinBlocks              one-sweep blocks per SM that the kernel's registers are bounded for (its launch
///                          bounds: at most 65536 / (MinBlocks × Threads) registers a thread); whether that many
///                          fit also depends on the tile's shared memory
///   StoreHint              the L2 eviction priority of a one-sweep pass's stores of 4- and 8-byte keys and values:
///                          0 plain stores, 1 evict_first, 2 evict_last in every pass but the last (which stores
///                          the caller's output under evict_normal and returns the lines it reads to the normal
///                          priority) (detail/radix_sort_kernel.cuh)
///   Pack                   (radix_sort_pairs, plain form, 4-byte integer keys with 4-byte values; argsort of such
///                          keys with 32-bit indices, mode 1) 0: keys and values move as two arrays; 1: each pair
///                          travels through the passes as one 8-byte key (the key's ordered bits above the value's),
///                          the first pass packing, the last unpacking, every pass moving 8-byte keys alone with this
///                          policy's one-sweep options, so an explicit policy should be shaped for 8-byte keys (with
///                          no policy given, the packed passes take radix_sort_default_policy<8, 0>'s) (two n x
///                          8-byte buffers of workspace); 2: packing and unpacking alternate, even passes packing
///                          into one n x 8-byte buffer and odd passes unpacking into the caller's output (an even
///                          number of passes). Either mode packs sorts of two passes or more (more than 8 bits);
///                          others run as with 0
template <int Threads, int Items, int SmallThreads, int SmallItems, int HistItems = 16, int LookBack = 16,
          int Rank = 0, bool EarlyCounts = false, bool Cluster = true, int ClusterThreads = 1024,
          int ClusterItems = 8, bool ExchangeFirst = false, bool JointExchange = false, int PrefetchTiles = 0,
          int MinBlocks = 2, int StoreHint = 0, int Pack = 0>
struct radix_sort_policy {
  static_assert(Threads % 32 == 0 && Threads >= 256, "one-sweep blocks need at least one thread per digit");
  static_assert(PrefetchTiles >= 0, "PrefetchTiles: how many tiles ahead, or 0");
  static_assert(MinBlocks >= 1 && MinBlocks * Threads <= 2048, "MinBlocks: 1 to 2048 / Threads blocks per SM");
  static_assert(HistItems >= 1, "the histogram pass takes at least one key per thread and step");
  static_assert(StoreHint >= 0 && StoreHint <= 2, "StoreHint: 0 plain, 1 evict_first, 2 evict_last");
  static_assert(Pack >= 0 && Pack <= 2, "Pack: 0 off, 1 two packed buffers, 2 packing and unpacking alternate");
  static_assert(SmallThreads % 32 == 0 && SmallThreads >= 256, "the one-block sort needs one thread per digit");
  static_assert(ClusterThreads % 32 == 0 && ClusterThreads >= 256 && ClusterThreads <= 1024 &&
                    (ClusterThreads & (ClusterThreads - 1)) == 0,
                "the cluster sort: a power of two of 256 to 1024 threads per block");
  static_assert(ClusterItems >= 1 && (ClusterItems & (ClusterItems - 1)) == 0,
                "the cluster sort: a power of two of keys per thread");
  static_assert(!Cluster || SmallThreads * SmallItems >= ClusterThreads,
                "the one-block sort must take every input below the cluster sort's (n <= ClusterThreads): the "
                "on-chip sizes get no workspace");
  static constexpr int threads = Threads;
  static constexpr int items = Items;
  static constexpr int tile = Threads * Items;
  static constexpr int small_threads = SmallThreads;
  static constexpr int small_items = SmallItems;
  static constexpr int small_tile = SmallThreads * SmallItems;
  static constexpr int hist_threads = 1024;
  static constexpr int hist_items = HistItems;
  static constexpr int look_back = LookBack;
  static constexpr int rank = Rank;
  static constexpr bool early_counts = EarlyCounts;
  static constexpr bool cluster = Cluster;
  static constexpr int cluster_threads = ClusterThreads;
  static constexpr int cluster_items = ClusterItems;
  static constexpr bool exchange_first = ExchangeFirst;
  static constexpr bool joint_exchange = JointExchange;
  static constexpr int prefetch_tiles = PrefetchTiles;
  static constexpr int min_blocks = MinBlocks;
  static constexpr int store_hint = StoreHint;
  static constexpr int pack = Pack;
  /// The most keys the cluster sort takes (0 when off): 8 blocks (the portable cluster size) of a full tile.
  static constexpr int cluster_tile = Cluster ? 8 * ClusterThreads * ClusterItems : 0;
  /// Inputs up to this many keys are sorted on chip in one launch (one block or one cluster), with no workspace.
  static constexpr int onchip_tile = cluster_tile > small_tile ? cluster_tile : small_tile;
};

/// The default policy for keys of KeyBytes and values of ValueBytes (0: keys only), by size class.
template <std::size_t KeyBytes, std::size_t ValueBytes>
struct radix_sort_default_policy {
  // H200, run 4 (docs/tuning.md, "Radix sort"): with the ranking's instruction count cut (PTX ballot match,
  // branch-free digits, per-digit output addresses) and ranks packed two per register, larger tiles pay: 2^28
  // uint32 keys, CUB SortKeys in the same process, window 2: 384 x 24 1.03x, x 28 1.13x, x 32 1.16x, x 36 1.19x,
  // x 40 1.20x. Pairs (uint32 + uint32, 2^27) peak at 384 x 30-32 (0.94x; larger tiles spill); uint64 keys at
  // 384 x 20-24 (1.03x); 8-byte pairs take 16 (not swept). A look-back window of 2-4 beat 8 and 16 at every tile
  // (fewer polls in flight).
  // The cluster sort: 1024 threads (512 for 8-byte keys or values, for registers) and up to 8 (16) keys per
  // thread, i.e. up to 2^16 keys on 8 blocks.
  // Run 5 (same process, one H200): exchanging before the look-back took 2^27 uint64 keys from 1.12x to 1.19x CUB
  // but 2^28 uint32 keys from 1.34x to 1.19x and uint32 pairs from 1.03x to 0.97x (the values then stay in
  // registers through the look-back and spill): 8-byte keys alone take it.
  // Run 6: 4-byte pairs with the joint exchange (keys and values side by side in shared memory) and the exchange
  // before the look-back: 2^27 uint32 + uint32 1.03x -> 1.10x CUB at 384 x 26 (x 24 1.09x, x 25 1.10x, x 27 1.09x,
  // x 28 1.02x: spills, and two blocks' shared memory leave 28 KiB of L1).
  static constexpr bool wide = KeyBytes >= 8 || ValueBytes >= 8;
  static constexpr bool joint = !wide && ValueBytes > 0;
  // Keys alone: a block prefetches into L2 the keys of the tile 32 ahead of its own (one process, 2^28 keys, CUB
  // in the same run: uint32 1.345x -> 1.38-1.39x, float 1.15x -> 1.19-1.20x, uint64 (2^27) 1.186x -> 1.245x, with
  // 16 to 132 tiles ahead alike); with values it cost 1-4% (also with the values prefetched), so pairs do not.
  static constexpr bool exchange_first = (KeyBytes >= 8 && ValueBytes == 0) || joint;
  static constexpr int prefetch = ValueBytes == 0 ? 32 : 0;
  // Runs 10-11 (H100, bench/sort/arch, CUB in the same process, two machines): a look-back window of one tile (the
  // classic walk, one dependent load per step) beat two for 8-byte keys (2^27 uint64 1.048-1.056x -> 1.096-1.105x
  // CUB) and for pairs (2^27 uint32 + uint32 0.964-0.989x -> 0.982-0.998x), and tied for 4-byte keys (1.221-1.230x
  // either way); windows of 4 and 8 lost. The H200's window of 2 came from 4-byte keys (run 4), which keep it; 8-byte
  // keys and pairs were not measured with a window of 1 on the H200.
  static constexpr int look_back = (wide || ValueBytes > 0) ? 1 : 2;
  // Run 13 (H100, bench/sort/arch, CUB in the same process, two machines each): pairs of 4-byte keys and values take
  // 256 threads of 44 items rather than 384 of 26 (2^27 uint32 + uint32 0.988-0.999x -> 1.047-1.056x CUB): two
  // blocks per SM of 256 threads may hold 128 registers a thread, and the longer runs of independent items per
  // warp hide the ranking's latency that two blocks of 384 threads at 80 registers did not. 256 x 40 1.015-1.021x,
  // x 48 spills; 288 and 320 threads lost. Copying the values from global memory straight to their exchange slots
  // (cp.async, no registers through the look-back) gained 1% at 384 x 26 and 256 x 40 but lost 1% at 256 x 44
  // (1.038-1.042x), so it is not kept.
  // 8-byte keys alone take 256 x 40 (2^27 uint64, same-run: 1.096x -> 1.098-1.102x CUB on one machine, 1.096-1.101x
  // -> 1.108-1.109x on another; x 42 1.111-1.113x, but x 44 falls to 1.048-1.053x, so 40 keeps a margin from that
  // edge; x 38 1.105-1.107x; ballots with a warp-synchronous update or early counts no gain; 16 or 64 tiles of
  // prefetch 0-1% less). 4-byte keys alone lost at 256 x 56-60 (1.16-1.17x against 1.17-1.18x) and keep 384 x 40.
  // 8-byte pairs (384 x 16) were not swept. None of run 13 was measured on an H200.
  // The one-sweep tile: 4-byte pairs 256 x 44, 8-byte keys 256 x 40, 4-byte keys 384 x 40, 8-byte pairs 384 x 16 (run 14
  // measured 8-byte keys at 256 x 42 once more: 1.093-1.094x against 1.110x at 40).
  static constexpr int threads = (joint || (wide && ValueBytes == 0)) ? 256 : 384;
  static constexpr int items = joint ? 44 : (ValueBytes == 0 ? 40 : 16);
  // Run 14 (H100, bench/sort/arch, CUB in the same process, three placements of the buffers on one machine): 8-byte
  // keys alone store under an L2 evict_last policy in every pass but the last (2^27 uint64 1.109 / 1.117 / 1.134x ->
  // 1.161 / 1.173 / 1.187x CUB; evict_first 1.133 / 1.143 / 1.156x; 2-4% faster than plain stores from 2^20 to 2^27
  // keys); with the last pass returning its input's lines to the normal priority, a kernel reading 24, 36 or 48 MiB
  // eight times right after the sort ran as fast as after the plain sort (within 0.6 us). 4-byte pairs under evict_last
  // moved by -3.7% to +4.8% with the placement (+0.6% on average), evict_first lost 1-1.6%, and 4-byte keys lost 2-7%
  // under evict_first (6% under evict_last in every pass, in one placement): those keep plain stores.
  static constexpr int store_hint = (KeyBytes >= 8 && ValueBytes == 0) ? 2 : 0;
  // Run 15 (H100, bench/sort/arch, CUB in the same process, three placements on one machine): 4-byte integer keys
  // with 4-byte values travel packed as 8-byte keys (Pack 1), the passes running as 8-byte keys alone do (the
  // default of radix_sort_default_policy<8, 0>: 256 x 40, prefetch 32, evict_last): 2^27 uint32 + uint32 1.037-1.041x
  // / 1.040-1.041x / 1.022-1.023x -> 1.099-1.101x / 1.083-1.087x / 1.126-1.127x CUB; packed with plain stores
  // 1.049-1.105x, without the prefetch 1.070-1.103x; packing and unpacking alternately (Pack 2, one buffer of
  // workspace instead of two) 0.943-1.014x. Float keys (the NaN test comes after the packing) and the double-buffer
  // form (which takes no workspace) keep the joint exchange below.
  static constexpr int pack = (KeyBytes == 4 && ValueBytes == 4) ? 1 : 0;
  using type = radix_sort_policy<threads, items, 512, 8, 16, look_back, 1, false, true, wide ? 512 : 1024,
                                 wide ? 16 : 8, exchange_first, joint, prefetch, 2, store_hint, pack>;
};

}  // namespace cuprim
