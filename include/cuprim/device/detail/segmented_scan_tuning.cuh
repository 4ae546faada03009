// cuprim/device/detail/segmented_scan_tuning.cuh: the segmented scans' policy and its table.
#pragma once

#include <cuprim/core/policy.hpp>
#include <cuprim/device/detail/load.cuh>
#include <cuprim/device/detail/scan_tuning.cuh>

namespace cuprim {

/// The segmented scans run the scan's one-tile-per-block kernel over (segment start, value) pairs: `tile` is its
/// shape (scan_policy: threads, vector bytes, vectors per thread, the look-back's back-off); a pair takes twice the
/// registers of a plain value. The rows keep 32 elements per thread for inputs of up to 4 bytes (1- and 2-byte inputs
/// take 2 and 4 vectors) and 16 for 8-byte inputs (8 vectors of two).
///
/// `pipeline` is the shape of the look-back pipeline that takes the large inclusive scans by key (from its
/// min_elems; keys and values of 4 or 8 bytes, of one size, 16-byte aligned: device/detail/
/// segmented_scan_pipeline_kernel.cuh); a stage holds the tile's values and keys. min_elems = 0 turns it off.
struct segmented_scan_policy {
  static constexpr const char* name = "segmented_scan_policy";
  scan_policy tile{.threads = 256, .vector_bytes = 16, .vectors = 8};
  lookback_pipeline_policy pipeline{.scan_warps = 4, .lane_vectors = 9, .stages = 3, .min_elems = 1ll << 22,
                                    .first_wait_ns = 1200, .poll_wait_ns = 650};

  friend constexpr bool operator==(const segmented_scan_policy&, const segmented_scan_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("tile", tile);
    f("pipeline", pipeline);
  }
};

/// The table: the policy of a segmented scan of In on a device of tuned architecture `arch`.
template <class In>
constexpr segmented_scan_policy segmented_scan_policy_for(int arch) {
  (void)arch;  // sm_90 rows serve every architecture until another is measured
  if (detail::vector_traits<In, 16>::vectorized) {
    // sm_90, arithmetic types, one tile per block: H200, cuprim-lab sweep segmented, 2^28 floats in 2^20 runs: 0.67x
    // CUB (128x3 0.42x). The by-key pipeline (4- and 8-byte values, from 2^22): H100, 2^28 floats in 2^20 runs of int32
    // keys: 4 warps x 9 vectors x 3 stages 1.068x CUB, 96.0% of the copy (6x5x3 1.050x, 8x5x2 1.041x, 8x7x2 0.986x).
    return {.tile = {.threads = 256, .vector_bytes = 16, .vectors = sizeof(In) >= 4 ? 8 : 8 * int(sizeof(In)) / 4},
            .pipeline = {.scan_warps = 4, .lane_vectors = 9, .stages = 3, .min_elems = 1ll << 22,
                         .first_wait_ns = 1200, .poll_wait_ns = 650}};
  }
  // sm_90, user structs (one element per vector slot): not swept.
  return {.tile = {.threads = 128, .vector_bytes = 16, .vectors = 4}};
}

}  // namespace cuprim
