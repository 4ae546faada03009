// cuprim/device/detail/scan_tuning.cuh: the scan's policies and their table.
//
// A scan runs under a scan_policy (one tile per block throughout) or a scan_pipeline_policy (the look-back pipeline
// for large aligned inputs, one thread-block cluster for inputs of a few tiles, and one tile per block otherwise,
// with a smaller tile up to small_max elements). docs/tuning/scan.md has the measurements behind the rows.
#pragma once

#include <cuprim/core/policy.hpp>
#include <cuprim/device/detail/load.cuh>

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <type_traits>

namespace cuprim {

namespace detail {
/// The fields of a one-tile-per-block shape that the scan's and the compaction's policies share, for fields(f).
template <class P, class F>
constexpr void tile_fields(const P& p, F&& f) {
  f("threads", p.threads);
  f("vector_bytes", p.vector_bytes);
  f("vectors", p.vectors);
  f("first_wait_ns", p.first_wait_ns);
  f("poll_wait_ns", p.poll_wait_ns);
}
}  // namespace detail

/// Tile shape of the one-tile-per-block scan. Each thread holds `vectors` chunks of vector_bytes / sizeof(T)
/// consecutive elements; a warp's chunk k covers 32 consecutive vectors (coalesced 16-byte loads and stores); a tile
/// is threads × vectors × (vector_bytes / sizeof(T)) elements, one tile per block. The look-back (lookback.cuh)
/// sleeps first_wait_ns before its first read of the predecessors (they are usually about to publish) and
/// poll_wait_ns between polls of a window that is not ready (polling flat out floods L2 with status reads); each
/// round trip reads 32 × lookback_tiles_per_lane predecessors.
struct scan_policy {
  static constexpr const char* name = "scan_policy";
  int threads = 128;                ///< a multiple of 32, at most 1024
  int vector_bytes = 16;            ///< 4, 8 or 16
  int vectors = 6;                  ///< 1 to 16
  unsigned first_wait_ns = 1200;
  unsigned poll_wait_ns = 650;
  int lookback_tiles_per_lane = 1;  ///< 1 to 8

  friend constexpr bool operator==(const scan_policy&, const scan_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    detail::tile_fields(*this, f);
    f("lookback_tiles_per_lane", lookback_tiles_per_lane);
  }
};

/// The look-back pipeline (device/detail/lookback_pipeline.cuh), shared by the scan and select_if: persistent blocks
/// of 3 + scan_warps warps (producer, aggregator, look-back and segment warps), `stages` tiles of scan_warps × 32
/// lanes × lane_vectors 16-byte vectors in shared memory. It takes inputs of at least min_elems elements (4- or
/// 8-byte arithmetic types, 16-byte aligned, on sm_90 and newer). Back-off and look-back width as in scan_policy.
struct lookback_pipeline_policy {
  static constexpr const char* name = "lookback_pipeline_policy";
  int scan_warps = 8;               ///< 1 to 29
  int lane_vectors = 9;             ///< odd, at most 15 (conflict-free 16-byte shared-memory accesses)
  int stages = 3;                   ///< 2 to 16
  long long min_elems = 1ll << 22;
  unsigned first_wait_ns = 400;
  unsigned poll_wait_ns = 200;
  int lookback_tiles_per_lane = 1;  ///< 1 to 8

  constexpr int block_threads() const { return 32 * (3 + scan_warps); }
  friend constexpr bool operator==(const lookback_pipeline_policy&, const lookback_pipeline_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("scan_warps", scan_warps);
    f("lane_vectors", lane_vectors);
    f("stages", stages);
    f("min_elems", min_elems);
    f("first_wait_ns", first_wait_ns);
    f("poll_wait_ns", poll_wait_ns);
    f("lookback_tiles_per_lane", lookback_tiles_per_lane);
  }
};

/// The scan with the pipeline for large inputs. Calls the pipeline does not take run one tile per block: under
/// `small` up to small_max elements (0: no small tile; the tile that suits a few tiles per launch is smaller than the
/// one that suits a grid of one tile per SM), under `classic` above; from above the first tile (the small tile where
/// small_max applies, else the classic one) up to 8 tiles of 512 threads × 4 vectors, one thread-block cluster
/// (device/scan.cuh).
struct scan_pipeline_policy {
  static constexpr const char* name = "scan_pipeline_policy";
  lookback_pipeline_policy pipeline{};
  scan_policy classic{};
  scan_policy small{};
  long long small_max = 0;  ///< 0, or below pipeline.min_elems

  friend constexpr bool operator==(const scan_pipeline_policy&, const scan_pipeline_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("pipeline", pipeline);
    f("classic", classic);
    f("small", small);
    f("small_max", small_max);
  }
};

namespace detail {

/// The rules of a scan_policy, checked where a kernel is instantiated with it.
template <scan_policy P>
constexpr bool scan_policy_valid() {
  static_assert(P.threads % 32 == 0 && P.threads >= 32 && P.threads <= 1024,
                "scan_policy: threads must be a multiple of 32, at most 1024");
  static_assert(P.vector_bytes == 4 || P.vector_bytes == 8 || P.vector_bytes == 16,
                "scan_policy: vector_bytes must be 4, 8 or 16");
  static_assert(P.vectors >= 1 && P.vectors <= 16, "scan_policy: vectors must be in [1, 16]");
  static_assert(P.lookback_tiles_per_lane >= 1 && P.lookback_tiles_per_lane <= 8,
                "scan_policy: lookback_tiles_per_lane must be in [1, 8]");
  return true;
}

/// The rules of a lookback_pipeline_policy.
template <lookback_pipeline_policy P>
constexpr bool lookback_pipeline_policy_valid() {
  static_assert(P.scan_warps >= 1 && P.scan_warps <= 29, "lookback_pipeline_policy: scan_warps must be in [1, 29]");
  static_assert(P.lane_vectors % 2 == 1 && P.lane_vectors <= 15,
                "lookback_pipeline_policy: lane_vectors must be odd, at most 15");
  static_assert(P.stages >= 2 && P.stages <= 16, "lookback_pipeline_policy: stages must be in [2, 16]");
  static_assert(P.lookback_tiles_per_lane >= 1 && P.lookback_tiles_per_lane <= 8,
                "lookback_pipeline_policy: lookback_tiles_per_lane must be in [1, 8]");
  return true;
}

/// The rules of a scan_pipeline_policy (its tiles' own rules are checked where their kernels are instantiated).
template <scan_pipeline_policy P>
constexpr bool scan_pipeline_policy_valid() {
  static_assert(lookback_pipeline_policy_valid<P.pipeline>());
  static_assert(P.small_max >= 0 && (P.small_max == 0 || P.small_max < P.pipeline.min_elems),
                "scan_pipeline_policy: small_max must be 0 (no small tile) or below pipeline.min_elems");
  return true;
}

/// The policy a call of a family with two policy types runs: `Policy` when it is one of them, else (cuprim::tuned)
/// the table's row.
template <auto Policy, class One, class Other, class Row>
constexpr auto pick_either_policy(Row row) {
  using P = std::remove_cvref_t<decltype(Policy)>;
  if constexpr (std::is_same_v<P, tuned_t>) {
    return row;
  } else {
    static_assert(std::is_same_v<P, One> || std::is_same_v<P, Other>,
                  "cuprim: the policy argument must be cuprim::tuned or one of this family's policy types (see the "
                  "entry point's header)");
    return Policy;
  }
}

}  // namespace detail

/// The table: the policy of a scan of T (the input element) on a device of tuned architecture `arch`; a
/// scan_pipeline_policy for arithmetic types, a scan_policy for user structs.
template <class T>
constexpr auto scan_policy_for(int arch) {
  (void)arch;  // sm_90 rows serve every architecture until another is measured
  // From 2^22 elements: 8 scan warps x 9 vectors per lane (36 KiB tiles), 3 stages (two blocks per SM).
  constexpr lookback_pipeline_policy pipeline{.scan_warps = 8, .lane_vectors = 9, .stages = 3,
                                              .min_elems = 1ll << 22, .first_wait_ns = 1200, .poll_wait_ns = 650};
  if constexpr (!detail::vector_traits<T, 16>::vectorized) {
    // sm_90, user structs (one element per vector slot): not measured.
    return scan_policy{.threads = 128, .vector_bytes = 16, .vectors = 8};
  } else if constexpr (sizeof(T) == 4) {
    // sm_90, 4-byte types: H200, cuprim-lab sweep scan: 2^28 1.24-1.26x CUB, 2^20 1.13-1.16x (128x16 vs 128x6 1.06x)
    return scan_pipeline_policy{.pipeline = pipeline,
                                .classic = {.threads = 128, .vector_bytes = 16, .vectors = 16},
                                .small = {.threads = 128, .vector_bytes = 16, .vectors = 6},
                                .small_max = 1ll << 17};
  } else {
    // sm_90, other arithmetic types: not swept (the 4-byte row's pipeline, and its earlier 128x6 tile throughout).
    return scan_pipeline_policy{.pipeline = pipeline, .classic = {.threads = 128, .vector_bytes = 16, .vectors = 6}};
  }
}

// ---------------------------------------------------------------------------------------------------------
// The recipe and the candidates (cuprim-lab tune scan; docs/tuning/README.md, "Auto-tuning")

/// What one SM offers a block (sm_90: 228 KiB of shared memory per SM, at most 227 KiB per block, 1 KiB of it
/// reserved per block by the system, 2048 threads, 32 blocks).
struct sm_budget {
  std::size_t smem_per_sm = 233472;
  std::size_t smem_per_block = 232448;
  std::size_t smem_reserved_per_block = 1024;
  int threads_per_sm = 2048;
  int blocks_per_sm = 32;
};
inline constexpr sm_budget sm90_budget{};

/// The look-back pipeline's tuning space: each axis's values (the rules of lookback_pipeline_policy_valid and the
/// budget prune the product). Back-off pairs are (first_wait_ns, poll_wait_ns).
struct scan_recipe {
  static constexpr int scan_warps[] = {4, 6, 8, 10, 12, 16};
  static constexpr int lane_vectors[] = {5, 7, 9, 11, 13};
  static constexpr int stages[] = {2, 3, 4, 5, 6};
  static constexpr unsigned waits[][2] = {{400, 200}, {800, 400}, {1200, 650}};
};

/// A pipeline point's resources: its shared memory (stages × warps × 32 lanes × vectors × 16 bytes), threads and
/// the blocks of it one SM holds (0: it does not fit).
struct pipeline_resources {
  std::size_t smem = 0;
  int threads = 0;
  int blocks_per_sm = 0;
};
constexpr pipeline_resources pipeline_resources_of(const lookback_pipeline_policy& p,
                                                   const sm_budget& b = sm90_budget) {
  pipeline_resources r;
  r.smem = std::size_t(p.stages) * std::size_t(p.scan_warps) * 32u * std::size_t(p.lane_vectors) * 16u;
  r.threads = p.block_threads();
  if (r.smem > b.smem_per_block || r.threads > 1024) return r;
  int by_smem = int(b.smem_per_sm / (r.smem + b.smem_reserved_per_block));
  int by_threads = b.threads_per_sm / r.threads;
  int k = by_smem < by_threads ? by_smem : by_threads;
  r.blocks_per_sm = k < b.blocks_per_sm ? k : b.blocks_per_sm;
  return r;
}

/// Whether a pipeline point is legal (the rules lookback_pipeline_policy_valid asserts) and fits one SM at least
/// once. The recipe's illegal points are pruned with this before anything is compiled or run.
constexpr bool pipeline_point_ok(const lookback_pipeline_policy& p, const sm_budget& b = sm90_budget) {
  if (p.scan_warps < 1 || p.scan_warps > 29) return false;
  if (p.lane_vectors % 2 != 1 || p.lane_vectors > 15) return false;
  if (p.stages < 2 || p.stages > 16) return false;
  if (p.lookback_tiles_per_lane < 1 || p.lookback_tiles_per_lane > 8) return false;
  return pipeline_resources_of(p, b).blocks_per_sm >= 1;
}

/// The performance model that orders the candidates before any is timed: the pipeline streams at the memory's
/// rate once every SM keeps enough bytes of loads in flight (the stages after the one being scanned, over all its
/// blocks; 64 KiB per SM covers an HBM3 device's bandwidth-latency product), and a grid ends with a tail of about
/// one tile per block slot. Returns the predicted time of n elements of `elem_bytes` in units of the ideal time
/// (1.0: the copy's speed); larger is slower. Not a measurement: it only decides what the tuner times first.
constexpr double pipeline_model(const lookback_pipeline_policy& p, std::int64_t n, int elem_bytes, int sms,
                                const sm_budget& b = sm90_budget) {
  const pipeline_resources r = pipeline_resources_of(p, b);
  if (r.blocks_per_sm < 1) return 1e30;
  const double tile_bytes = double(p.scan_warps) * 32 * p.lane_vectors * 16;
  const double in_flight = double(r.blocks_per_sm) * (p.stages - 1) * tile_bytes;
  const double starve = in_flight >= 65536 ? 1.0 : 65536 / in_flight;
  const double bytes = double(n) * elem_bytes;
  const double tail = double(sms) * r.blocks_per_sm * tile_bytes / (bytes > 1 ? bytes : 1);
  return starve + tail;
}

/// Where the candidates' look-back pipeline starts: above the row's small tile; tuned calls of fewer elements run
/// the row's kernels under every candidate, so they skip the cache.
inline constexpr long long scan_candidates_min_elems = 1ll << 18;

/// The compiled candidates of a tuned scan of T: the table's row with the look-back pipeline taken from
/// scan_candidates_min_elems in one of eight shapes, or never taken (the row's one-tile-per-block kernels alone). A
/// tuning cache entry (core/tuning.hpp) names one of them by its fields. The shapes are the sweeps' leaders on both
/// GPU kinds (docs/tuning/scan.md) and points one to three steps from them along scan_recipe's axes.
template <class T>
constexpr auto scan_candidates() {
  constexpr auto row = scan_policy_for<T>(90);
  struct shape {
    int w, k, s;
    unsigned first, poll;
  };
  constexpr shape shapes[] = {{8, 9, 3, 1200, 650}, {8, 9, 3, 800, 400}, {8, 9, 5, 800, 400}, {8, 7, 6, 400, 200},
                              {10, 7, 3, 1200, 650}, {8, 13, 2, 1200, 650}, {12, 9, 2, 1200, 650},
                              {6, 7, 3, 1200, 650}};
  constexpr int count = int(std::size(shapes)) + 1;
  std::array<scan_pipeline_policy, count> out{};
  for (int i = 0; i < count; ++i) {
    scan_pipeline_policy p = row;
    if (i + 1 < count) {
      const shape& sh = shapes[i];
      p.pipeline = {.scan_warps = sh.w, .lane_vectors = sh.k, .stages = sh.s, .min_elems = scan_candidates_min_elems,
                    .first_wait_ns = sh.first, .poll_wait_ns = sh.poll};
    } else {
      p.pipeline.min_elems = std::numeric_limits<long long>::max();  // never: the one-tile-per-block kernels
    }
    out[std::size_t(i)] = p;
  }
  return out;
}

/// Whether the scan of In into Out has compiled candidates (a tuned call then consults the tuning cache): 4- and
/// 8-byte arithmetic types scanned into their own type, the ones the pipeline takes.
template <class In, class Out>
inline constexpr bool scan_has_candidates =
    std::is_same_v<In, Out> && std::is_arithmetic_v<In> && (sizeof(In) == 4 || sizeof(In) == 8);

}  // namespace cuprim
