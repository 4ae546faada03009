// lab/ladder/histogram.cuh: the histogram ladder as selectable, correct rungs (teaching code: built, tested and
// measured by the lab, not part of the installed library).
//
//   cuprim::ladder::histogram_even(rung, samples, n, histogram, num_bins, lower, upper, stream)
//
// Each rung computes exactly what cuprim::histogram_even computes (same bin rule, same validation; it overwrites
// the histogram) with one kernel of the ladder:
//   sectioned_global     the seed's first kernel: each thread a contiguous section, one global atomic per sample
//   interleaved_global   interleaved (coalesced) partitioning, one global atomic per sample
//   shared_block         one privatized histogram per block in shared memory, merged with global atomics
//                        (the seed's final kernel); histograms too large for shared memory fall back to the rung
//                        before
//   per_warp             as many sub-histograms per block as fit 48 KiB (up to one per warp), runs of equal bins
//                        merged per thread; too large for shared memory: global atomics, runs merged
//   vector_loads         per_warp with 16-byte vector loads (the production kernel under vector_loads_policy)
//   persistent           vector_loads on a persistent grid (the resident blocks, not one block per 32 Ki samples)
//   production           cuprim::histogram_even itself (per-lane sub-histograms for ≤ 512 bins, ...)
#pragma once

#include "common.cuh"
#include "histogram_kernels.cuh"

#include <cuprim/device/histogram.cuh>

#include <algorithm>
#include <array>
#include <string_view>

namespace cuprim::ladder {

enum class histogram_rung {
  sectioned_global,
  interleaved_global,
  shared_block,
  per_warp,
  vector_loads,
  persistent,
  production,
};

/// Every rung, in the ladder's order.
inline constexpr std::array<histogram_rung, 7> histogram_rungs = {
    histogram_rung::sectioned_global, histogram_rung::interleaved_global, histogram_rung::shared_block,
    histogram_rung::per_warp,         histogram_rung::vector_loads,       histogram_rung::persistent,
    histogram_rung::production};

/// The rung's name as the lab prints it (and names its rows).
constexpr std::string_view to_string(histogram_rung r) {
  constexpr std::array<std::string_view, 7> names = {"sectioned+global", "interleaved+global", "shared/block",
                                                     "per-warp",         "vector16",           "persistent",
                                                     "production"};
  return names[static_cast<int>(r)];
}

/// The policies of the rungs that run the production kernel: per-warp sub-histograms (no per-lane layout), one
/// block per 32 Ki samples, then on a persistent grid.
inline constexpr histogram_policy vector_loads_policy{.lanes_max_bins = 0, .persistent = false};
inline constexpr histogram_policy persistent_policy{.lanes_max_bins = 0};

namespace detail {

/// Launches a rung's kernel for a call (the production kernel for vector_loads and persistent).
struct histogram_rung_launch {
  histogram_rung rung;
  template <class S, class B, class C>
  void operator()(const char* fn, hist_params<S, B, C> p, std::uint64_t total, cudaStream_t stream) const {
    const std::size_t T = std::size_t(p.total_bins);
    const bool fits = T * 4 + 1024 <= hist_max_shared_bytes();
    const int per_warp = hist_pow2_floor(std::clamp<std::size_t>(48 * 1024 / (T * 4), 1, hist_block_threads / 32));
    const histogram_plan atomics{.persistent = false};
    const histogram_plan block{.layout = hist_layout::shared, .shared_bytes = T * 4, .persistent = false};
    const histogram_plan warps{.layout = hist_layout::shared, .copies = per_warp, .shared_bytes = per_warp * T * 4,
                               .persistent = false};
    const auto launch = [&](auto kernel, const histogram_plan& plan) {
      hist_launch(fn, kernel, p, plan, hist_block_threads, total, stream);
    };
    switch (rung) {
      case histogram_rung::sectioned_global: launch(histogram_sectioned_kernel<S, B, C>, {.persistent = true}); break;
      case histogram_rung::interleaved_global: launch(histogram_atomic_kernel<S, B, C>, atomics); break;
      case histogram_rung::shared_block:
        if (fits) launch(histogram_scalar_kernel<hist_layout::shared, S, B, C>, block);
        else launch(histogram_atomic_kernel<S, B, C>, atomics);
        break;
      case histogram_rung::per_warp:
        if (fits) launch(histogram_scalar_kernel<hist_layout::shared, S, B, C>, warps);
        else launch(histogram_scalar_kernel<hist_layout::global_runs, S, B, C>, atomics);
        break;
      case histogram_rung::vector_loads: hist_policy_launch<vector_loads_policy>{}(fn, p, total, stream); break;
      default: hist_policy_launch<persistent_policy>{}(fn, p, total, stream); break;
    }
  }
};

}  // namespace detail

/// histogram_even computed by one rung of the ladder (overwrites the histogram).
template <class Sample, class Counter, class Level>
void histogram_even(histogram_rung rung, const Sample* samples, std::int64_t n, Counter* histogram, int num_bins,
                    Level lower, Level upper, cudaStream_t stream = 0) {
  using namespace cuprim::detail;
  CUPRIM_ENTRY_NAME(fn);
  if (static_cast<unsigned>(rung) >= histogram_rungs.size()) throw_invalid(fn, "rung", "is not a histogram_rung");
  const auto r = hist_even_single(samples, n, histogram, num_bins, lower, upper);
  if (rung == histogram_rung::production) {
    hist_validate(fn, r);
    cuprim::histogram_even(samples, n, histogram, num_bins, lower, upper, stream);
    return;
  }
  hist_entry(fn, r, nullptr, "", stream, [&](const hist_workspace_layout<Sample, Level>& L, const workspace& w) {
    hist_run<false>(fn, r, L, w, true, stream, detail::histogram_rung_launch{rung});
  });
}

}  // namespace cuprim::ladder
