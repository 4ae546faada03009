// cuprim/device/detail/select_tuning.cuh: the policies of stream compaction (select_if, select_flagged, partition,
// unique, run_length_encode) and their table.
#pragma once

#include <cuprim/core/policy.hpp>
#include <cuprim/device/detail/load.cuh>
#include <cuprim/device/detail/scan_tuning.cuh>

#include <algorithm>

namespace cuprim {

/// Tile shape of the single-pass compaction. Each thread loads `vectors` chunks of vector_bytes / sizeof(T)
/// consecutive elements (one element per chunk for user structs); a warp's chunk k covers 32 consecutive vectors
/// (coalesced 16-byte loads); a tile is threads × vectors × (vector_bytes / sizeof(T)) elements, one tile per
/// block. The tile's selected items are compacted in shared memory (tile × sizeof(T) bytes, plus 4 bytes per
/// element for run_length_encode's run starts) and written out with coalesced stores. first_wait_ns and
/// poll_wait_ns are the look-back's back-off, as in scan_policy.
struct select_policy {
  static constexpr const char* name = "select_policy";
  int threads = 128;      ///< a multiple of 32, at most 1024
  int vector_bytes = 16;  ///< 4, 8 or 16
  int vectors = 6;        ///< 1 to 16
  unsigned first_wait_ns = 1200;
  unsigned poll_wait_ns = 650;

  friend constexpr bool operator==(const select_policy&, const select_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    detail::tile_fields(*this, f);
  }
};

/// select_if with the look-back pipeline (lookback_pipeline_policy) for large inputs: 4- and 8-byte arithmetic
/// items, 16-byte aligned, at least pipeline.min_elems of them, on sm_90. The other operations and calls take
/// `classic`.
struct select_pipeline_policy {
  static constexpr const char* name = "select_pipeline_policy";
  lookback_pipeline_policy pipeline{};
  select_policy classic{};

  friend constexpr bool operator==(const select_pipeline_policy&, const select_pipeline_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("pipeline", pipeline);
    f("classic", classic);
  }
};

namespace detail {
/// The rules of a select_policy, checked where its kernels are instantiated.
template <select_policy P>
constexpr bool select_policy_valid() {
  static_assert(P.threads % 32 == 0 && P.threads >= 32 && P.threads <= 1024,
                "select_policy: threads must be a multiple of 32, at most 1024");
  static_assert(P.vector_bytes == 4 || P.vector_bytes == 8 || P.vector_bytes == 16,
                "select_policy: vector_bytes must be 4, 8 or 16");
  static_assert(P.vectors >= 1 && P.vectors <= 16, "select_policy: vectors must be in [1, 16]");
  return true;
}

/// Chunks per thread for a user struct (one element per chunk): about 12 KiB of shared memory per 128 threads.
template <class T>
constexpr int struct_vectors() {
  return std::clamp(static_cast<int>(12288 / (128 * sizeof(T))), 1, 8);
}
}  // namespace detail

/// The table: the policy of a compaction of T on a device of tuned architecture `arch`; a select_pipeline_policy for
/// 4- and 8-byte arithmetic types, a select_policy otherwise. Each thread keeps its tile items unpacked, one per
/// register, so the rows hold the items per thread near 24-32 whatever the size (1-byte items in 16-byte vectors
/// would otherwise take 96 registers at 6 vectors). run_length_encode takes the same rows; it keeps a 4-byte run
/// start per element beside the items in shared memory (at most 4096 × 5 bytes for 1-byte types, 3072 × 8 for
/// 4-byte ones).
template <class T>
constexpr auto select_policy_for(int arch) {
  (void)arch;  // sm_90 rows serve every architecture until another is measured
  if constexpr (!detail::vector_traits<T, 16>::vectorized) {
    // sm_90, user structs: not measured (a tile's shared memory near the other rows'; 32 x 1 over 96 bytes).
    if (sizeof(T) > 96) return select_policy{.threads = 32, .vector_bytes = 16, .vectors = 1};
    return select_policy{.threads = 128, .vector_bytes = 16, .vectors = detail::struct_vectors<T>()};
  } else if constexpr (sizeof(T) == 1) {
    // sm_90, 1-byte types: not measured (4096 elements per tile, the 4-byte row's register budget).
    return select_policy{.threads = 128, .vector_bytes = 16, .vectors = 2};
  } else if constexpr (sizeof(T) == 2) {
    // sm_90, 2-byte types: not measured (3072 elements per tile, the 4-byte row's register budget).
    return select_policy{.threads = 128, .vector_bytes = 16, .vectors = 3};
  } else if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    // sm_90, 4- and 8-byte types: H100, cuprim-lab sweep select, 2^28 keep 50%: 1.221-1.223x CUB (6w7v3s 1.209x)
    return select_pipeline_policy{.pipeline = {.scan_warps = 6, .lane_vectors = 7, .stages = 4, .min_elems = 1ll << 22,
                                               .first_wait_ns = 1200, .poll_wait_ns = 650},
                                  .classic = {.threads = 128, .vector_bytes = 16, .vectors = 6}};
  } else {
    // sm_90, other arithmetic types (16 bytes): not measured; the 4-byte row's tile.
    return select_policy{.threads = 128, .vector_bytes = 16, .vectors = 6};
  }
}

}  // namespace cuprim
