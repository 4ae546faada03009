// cuprim/device/detail/histogram_tuning.cuh: the histogram's policy and its table.
#pragma once

#include <cuprim/core/policy.hpp>

namespace cuprim {

/// How a histogram streams its samples and privatizes its counters. A call's path is chosen at run time from the
/// total bin count T over the active channels and the device's shared memory (histogram_plan_for):
///   byte path   the byte binner (1-byte samples, levels covering the type, a power-of-two bin width) and
///               T ≤ lanes_max_bins: per-lane sub-histograms, two copies interleaved (T × 256 bytes)
///   lanes       T ≤ lanes_max_bins: 32 per-lane sub-histograms per copy (T × 128 bytes per copy); copies: the
///               largest power of two ≤ clamp(lanes_bytes / (T × 128), 1, lanes_max_copies)
///   shared      T × 4 + 1 KiB within the device's shared memory per block: sub-histograms of T counters; copies:
///               the largest power of two ≤ clamp(shared_bytes / (T × 4), 1, shared_max_copies)
///   global      otherwise: atomics on the outputs in device memory, runs of equal bins merged per thread
/// The per-lane paths are taken only where their copies and 1 KiB fit the device's shared memory per block;
/// otherwise the shared rule applies.
struct histogram_policy {
  static constexpr const char* name = "histogram_policy";
  int threads = 512;              ///< threads per block: a multiple of 32, at most 1024
  int vectors = 2;                ///< 16-byte vectors a thread loads per step (the next step's are loaded before
                                  ///< these are binned): 1 to 8
  int byte_vectors = 4;           ///< the same on the byte path: 1 to 8
  int lanes_max_bins = 512;       ///< the most bins counted per lane (0: never)
  int lanes_bytes = 32 * 1024;    ///< shared memory the per-lane copies aim at
  int lanes_max_copies = 4;       ///< 1 to one per warp
  int shared_bytes = 48 * 1024;   ///< shared memory the shared copies aim at
  int shared_max_copies = 16;     ///< 1 to one per warp (warp w counts into copy w mod copies)
  bool persistent = true;         ///< grid: the resident blocks (true), or one block per threads × 64 samples

  friend constexpr bool operator==(const histogram_policy&, const histogram_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("threads", threads);
    f("vectors", vectors);
    f("byte_vectors", byte_vectors);
    f("lanes_max_bins", lanes_max_bins);
    f("lanes_bytes", lanes_bytes);
    f("lanes_max_copies", lanes_max_copies);
    f("shared_bytes", shared_bytes);
    f("shared_max_copies", shared_max_copies);
    f("persistent", persistent);
  }
};

namespace detail {

/// The rules of a histogram_policy, checked where its kernels are instantiated.
template <histogram_policy P>
constexpr bool histogram_policy_valid() {
  static_assert(P.threads % 32 == 0 && P.threads >= 32 && P.threads <= 1024,
                "histogram_policy: threads must be a multiple of 32, at most 1024");
  static_assert(P.vectors >= 1 && P.vectors <= 8, "histogram_policy: vectors must be in [1, 8]");
  static_assert(P.byte_vectors >= 1 && P.byte_vectors <= 8, "histogram_policy: byte_vectors must be in [1, 8]");
  static_assert(P.lanes_max_bins >= 0 && P.lanes_bytes >= 0 && P.shared_bytes >= 0,
                "histogram_policy: lanes_max_bins, lanes_bytes and shared_bytes must be non-negative");
  static_assert(P.lanes_max_copies >= 1 && P.lanes_max_copies <= P.threads / 32,
                "histogram_policy: lanes_max_copies must be in [1, threads / 32]");
  static_assert(P.shared_max_copies >= 1 && P.shared_max_copies <= P.threads / 32,
                "histogram_policy: shared_max_copies must be in [1, threads / 32]");
  return true;
}

/// The fields of P a kernel reads, the others at their defaults: threads, and the vectors per step of its path
/// (byte_vectors on the byte path, vectors elsewhere). Policies that differ only in the rest, which plans the
/// launch on the host, share their kernels.
constexpr histogram_policy histogram_kernel_policy(histogram_policy p, bool byte_path) {
  if (byte_path) return {.threads = p.threads, .byte_vectors = p.byte_vectors};
  return {.threads = p.threads, .vectors = p.vectors};
}

}  // namespace detail

/// The table: the policy of a histogram of Sample values on a device of tuned architecture `arch`.
template <class Sample>
constexpr histogram_policy histogram_policy_for(int arch) {
  (void)arch;  // sm_90 rows serve every architecture until another is measured
  // sm_90, every sample type: H200, cuprim-lab run histogram/even: 2.04x CUB (256 bins, uint8), 12.3x (1024, uint32)
  return {};
}

}  // namespace cuprim
