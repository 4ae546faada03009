// cuprim/device/histogram_ladder.cuh: the histogram ladder, rung by rung, for the lab and the tests.
//
//   cuprim::histogram_even_rung(rung, samples, n, histogram, num_bins, lower, upper, stream)
//
// Each rung computes exactly what histogram_even computes (same bin rule, same validation; it overwrites the
// histogram) with one kernel of the ladder:
//   sectioned_global     the seed's first kernel: each thread a contiguous section, one global atomic per sample
//   interleaved_global   interleaved (coalesced) partitioning, one global atomic per sample
//   shared_block         one privatized histogram per block in shared memory, merged with global atomics
//                        (the seed's final kernel); histograms too large for shared memory fall back to the rung
//                        before
//   per_warp             as many sub-histograms per block as fit 48 KiB (up to one per warp), runs of equal bins
//                        merged per thread
//   vector_loads         per_warp with 16-byte vector loads
//   persistent           vector_loads on a persistent grid (the resident blocks, not one block per 32 Ki samples)
//   production           histogram_even itself (per-lane sub-histograms for ≤ 512 bins, ...)
#pragma once

#include <cuprim/device/histogram.cuh>

#include <string>

namespace cuprim {

enum class histogram_rung { sectioned_global, interleaved_global, shared_block, per_warp, vector_loads, persistent, production };

inline const char* histogram_rung_name(histogram_rung r) {
  switch (r) {
    case histogram_rung::sectioned_global: return "sectioned+global";
    case histogram_rung::interleaved_global: return "interleaved+global";
    case histogram_rung::shared_block: return "shared/block";
    case histogram_rung::per_warp: return "per-warp";
    case histogram_rung::vector_loads: return "vector16";
    case histogram_rung::persistent: return "persistent";
    case histogram_rung::production: return "production";
  }
  return "?";
}

namespace detail {

struct hist_rung_launcher {
  histogram_rung rung;
  template <class S, class B, class C>
  void operator()(const char* fn, hist_params<S, B, C> p, std::uint64_t total, cudaStream_t stream) const {
    const std::size_t T = std::size_t(p.total_bins);
    const bool fits = T * 4 + 1024 <= hist_max_shared_bytes();
    const int per_warp = hist_pow2_floor(std::clamp<std::size_t>(48 * 1024 / (T * 4), 1, hist_threads / 32));
    switch (rung) {
      case histogram_rung::sectioned_global:
        hist_launch<hist_layout::global_plain, false, true>(fn, p, total, 1, true, stream);
        break;
      case histogram_rung::interleaved_global:
        hist_launch<hist_layout::global_plain, false>(fn, p, total, 1, false, stream);
        break;
      case histogram_rung::shared_block:
        if (fits) hist_launch<hist_layout::shared, false>(fn, p, total, 1, false, stream);
        else hist_launch<hist_layout::global_plain, false>(fn, p, total, 1, false, stream);
        break;
      case histogram_rung::per_warp:
        if (fits) hist_launch<hist_layout::shared, false>(fn, p, total, per_warp, false, stream);
        else hist_launch<hist_layout::global_runs, false>(fn, p, total, 1, false, stream);
        break;
      case histogram_rung::vector_loads:
        if (fits) hist_launch<hist_layout::shared, true>(fn, p, total, per_warp, false, stream);
        else hist_launch<hist_layout::global_runs, true>(fn, p, total, 1, false, stream);
        break;
      case histogram_rung::persistent:
        if (fits) hist_launch<hist_layout::shared, true>(fn, p, total, per_warp, true, stream);
        else hist_launch<hist_layout::global_runs, true>(fn, p, total, 1, true, stream);
        break;
      case histogram_rung::production: hist_launch_production(fn, p, total, stream); break;
    }
  }
};

/// An explicit production configuration (the lab's policy sweep): layout, sub-histogram copies (a power of two),
/// persistent grid or one block per 32 Ki samples; always 16-byte loads.
struct hist_config_launcher {
  hist_layout layout;
  int copies;
  bool persistent;
  template <class S, class B, class C>
  void operator()(const char* fn, hist_params<S, B, C> p, std::uint64_t total, cudaStream_t stream) const {
    switch (layout) {
      case hist_layout::lanes: hist_launch<hist_layout::lanes, true>(fn, p, total, copies, persistent, stream); break;
      case hist_layout::shared: hist_launch<hist_layout::shared, true>(fn, p, total, copies, persistent, stream); break;
      default: hist_launch<hist_layout::global_runs, true>(fn, p, total, 1, persistent, stream); break;
    }
  }
};

}  // namespace detail

/// histogram_even under an explicit layout (detail::hist_layout::lanes, shared or global_runs), number of
/// sub-histogram copies (a power of two; the shared memory must fit) and grid (the lab's policy sweep).
template <class Sample, class Counter, class Level>
void histogram_even_config(detail::hist_layout layout, int copies, bool persistent, const Sample* samples,
                           std::int64_t n, Counter* histogram, int num_bins, Level lower, Level upper,
                           cudaStream_t stream = 0) {
  detail::hist_entry("cuprim::histogram_even_config",
                     detail::hist_even_single(samples, n, histogram, num_bins, lower, upper), nullptr, true, stream, "",
                     detail::hist_config_launcher{layout, copies, persistent});
}

/// histogram_even computed by one rung of the ladder (overwrites the histogram).
template <class Sample, class Counter, class Level>
void histogram_even_rung(histogram_rung rung, const Sample* samples, std::int64_t n, Counter* histogram, int num_bins,
                         Level lower, Level upper, cudaStream_t stream = 0) {
  detail::hist_entry("cuprim::histogram_even_rung",
                     detail::hist_even_single(samples, n, histogram, num_bins, lower, upper), nullptr, true, stream, "",
                     detail::hist_rung_launcher{rung});
}

}  // namespace cuprim
