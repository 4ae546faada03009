// CUDA-graph capture of the histograms' explicit-workspace overloads: histogram_even, histogram_even_add,
// multi_histogram_even and multi_histogram_even_add, and the range forms below. Captured with allocations forbidden,
// launched twice on fresh samples, checked against cuprim::host (tests/common/graph.hpp). The overwriting forms
// start from poisoned counters (the graph must zero them); the _add forms from fresh counts, which they must keep.
// Bin counts take each privatization: per-lane copies in shared memory (256 bins), per-warp-group copies in shared
// memory (4000 bins), and atomics on the output in device memory (100,000 bins).
//
// The range forms (histogram_range, histogram_range_add, multi_histogram_range) carry their host edges into the
// workspace in kernel parameters, so a graph holds the edges given at capture: the tests free the host edges right
// after the capture, poison the workspace before every launch, and count with 256, 4000 and 100,000 edges (the
// last carried in many pieces).
#include <cuprim/device/histogram.cuh>
#include <cuprim/host/histogram.hpp>

#include "common/graph.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace cuprim_test {
namespace {

constexpr std::int64_t sample_counts[] = {1000, (1 << 20) + 3};
constexpr int bin_counts[] = {256, 4000, 100000};
constexpr std::int32_t upper_level = 1 << 20;  // samples drawn in [0, upper + 2^16): some above the range

class HistogramGraph : public graph_test {
protected:
  /// Captures histogram_even (add: histogram_even_add) of uint32 samples in [0, upper_level) and checks each launch.
  void check_even_uint32(bool add) {
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : sample_counts) {
      for (int bins : bin_counts) {
        SCOPED_TRACE("n = " + std::to_string(n) + ", " + std::to_string(bins) + " bins");
        auto samples = buffer<std::uint32_t>(n);
        auto hist = buffer<std::uint32_t>(bins);
        graph_workspace ws(cuprim::histogram_even_workspace_bytes<std::uint32_t, std::uint32_t, int>(n, bins), stream_);
        std::vector<std::uint32_t> h, base, want(bins);
        replay(
            ws,
            [&](cudaStream_t s) {
              if (add) cuprim::histogram_even_add(samples.data(), n, hist.data(), bins, 0, upper_level, ws.get(), s);
              else cuprim::histogram_even(samples.data(), n, hist.data(), bins, 0, upper_level, ws.get(), s);
            },
            [&] {
              h = refill(r, samples, 0, upper_level + (1 << 16));
              if (add) base = refill(r, hist, 0, 1000);
              else hist.fill_bytes(poison_byte);
            },
            [&] {
              cuprim::host::histogram_even(h.data(), n, want.data(), bins, 0, upper_level);
              if (add)
                for (int b = 0; b < bins; ++b) want[b] += base[b];
              expect_prefix(hist.to_host_sync(), want, std::size_t(bins));
            });
      }
    }
  }
};

TEST_F(HistogramGraph, EvenUint32) { check_even_uint32(false); }

TEST_F(HistogramGraph, EvenAddUint32) { check_even_uint32(true); }

TEST_F(HistogramGraph, EvenFloat) {
  CUPRIM_TEST_RNG(r);
  const int bins = 100;
  const float lower = -2.0f, upper = 2.0f;  // random floats spread over [-8, 8): some outside
  for (std::int64_t n : sample_counts) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto samples = buffer<float>(n);
    auto hist = buffer<std::uint32_t>(bins);
    graph_workspace ws(cuprim::histogram_even_workspace_bytes<float, std::uint32_t, float>(n, bins), stream_);
    std::vector<float> h;
    std::vector<std::uint32_t> want(bins);
    replay(
        ws,
        [&](cudaStream_t s) {
          cuprim::histogram_even(samples.data(), n, hist.data(), bins, lower, upper, ws.get(), s);
        },
        [&] {
          h = refill(r, samples);
          hist.fill_bytes(poison_byte);
        },
        [&] {
          cuprim::host::histogram_even(h.data(), n, want.data(), bins, lower, upper);
          expect_prefix(hist.to_host_sync(), want, std::size_t(bins));
        });
  }
}

/// num_bins + 1 sorted random edges in [0, upper_level), the first 0 and the last upper_level.
std::vector<int> random_edges(rng& r, int bins) {
  std::vector<int> e(std::size_t(bins) + 1);
  for (int& x : e) x = int(r.uniform(0, upper_level));
  std::sort(e.begin(), e.end());
  e.front() = 0;
  e.back() = upper_level;
  return e;
}

class HistogramRangeGraph : public graph_test {
protected:
  /// Captures histogram_range (add: histogram_range_add) of uint32 samples with random edges, frees the host edges,
  /// and checks each launch against the same edges.
  void check(bool add) {
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : sample_counts) {
      for (int bins : bin_counts) {
        SCOPED_TRACE("n = " + std::to_string(n) + ", " + std::to_string(bins) + " bins");
        auto samples = buffer<std::uint32_t>(n);
        auto hist = buffer<std::uint32_t>(bins);
        graph_workspace ws(cuprim::histogram_range_workspace_bytes<std::uint32_t, std::uint32_t, int>(n, bins),
                           stream_);
        const std::vector<int> kept = random_edges(r, bins);  // the reference's copy
        std::vector<std::uint32_t> h, base, want(bins);
        replay(
            ws,
            [&](cudaStream_t s) {
              std::vector<int> edges = kept;  // freed when the call returns, before the graph ever runs
              if (add) cuprim::histogram_range_add(samples.data(), n, hist.data(), bins, edges.data(), ws.get(), s);
              else cuprim::histogram_range(samples.data(), n, hist.data(), bins, edges.data(), ws.get(), s);
            },
            [&] {
              h = refill(r, samples, 0, upper_level + (1 << 16));
              if (add) base = refill(r, hist, 0, 1000);
              else hist.fill_bytes(poison_byte);
            },
            [&] {
              cuprim::host::histogram_range(h.data(), n, want.data(), bins, kept.data());
              if (add)
                for (int b = 0; b < bins; ++b) want[b] += base[b];
              expect_prefix(hist.to_host_sync(), want, std::size_t(bins));
            });
      }
    }
  }
};

TEST_F(HistogramRangeGraph, RangeUint32) { check(false); }

TEST_F(HistogramRangeGraph, RangeAddUint32) { check(true); }

class MultiHistogramGraph : public graph_test {
protected:
  static constexpr int channels = 4, active = 3;
  static constexpr int counted[active] = {0, 2, 3};
  static constexpr int bins[active] = {16, 256, 4000};
  static constexpr std::int32_t lower[active] = {0, 1000, 5};
  static constexpr std::int32_t upper[active] = {upper_level, upper_level + 1000, upper_level - 3};

  /// Captures multi_histogram_even (add: multi_histogram_even_add) of interleaved 4-channel uint32 samples,
  /// channels 0, 2 and 3 counted, each with its own bins and levels, and checks each launch.
  void check(bool add) {
    CUPRIM_TEST_RNG(r);
    for (std::int64_t pixels : sample_counts) {
      SCOPED_TRACE(std::to_string(pixels) + " pixels");
      auto samples = buffer<std::uint32_t>(pixels * channels);
      cuprim::device_buffer<std::uint32_t> hists[active] = {buffer<std::uint32_t>(bins[0]),
                                                            buffer<std::uint32_t>(bins[1]),
                                                            buffer<std::uint32_t>(bins[2])};
      std::uint32_t* outs[active] = {hists[0].data(), hists[1].data(), hists[2].data()};
      const std::size_t ws_bytes =
          cuprim::multi_histogram_even_workspace_bytes<std::uint32_t, std::uint32_t, int>(pixels, active, bins);
      graph_workspace ws(ws_bytes, stream_);
      std::vector<std::uint32_t> h, base[active];
      replay(
          ws,
          [&](cudaStream_t s) {
            if (add)
              cuprim::multi_histogram_even_add(samples.data(), pixels, channels, active, counted, outs, bins, lower,
                                               upper, ws.get(), s);
            else
              cuprim::multi_histogram_even(samples.data(), pixels, channels, active, counted, outs, bins, lower, upper,
                                           ws.get(), s);
          },
          [&] {
            h = refill(r, samples, 0, upper_level + (1 << 16));
            for (int k = 0; k < active; ++k) {
              if (add) base[k] = refill(r, hists[k], 0, 1000);
              else hists[k].fill_bytes(poison_byte);
            }
          },
          [&] {
            for (int k = 0; k < active; ++k) {
              SCOPED_TRACE("channel " + std::to_string(counted[k]));
              std::vector<std::uint32_t> want(bins[k]);
              cuprim::host::histogram_even_strided(h.data(), pixels, channels, counted[k], want.data(), bins[k],
                                                   lower[k], upper[k]);
              if (add)
                for (int b = 0; b < bins[k]; ++b) want[b] += base[k][b];
              expect_prefix(hists[k].to_host_sync(), want, std::size_t(bins[k]));
            }
          });
    }
  }
};

TEST_F(MultiHistogramGraph, EvenUint32) { check(false); }

TEST_F(MultiHistogramGraph, RangeUint32) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t pixels : sample_counts) {
    SCOPED_TRACE(std::to_string(pixels) + " pixels");
    auto samples = buffer<std::uint32_t>(pixels * channels);
    cuprim::device_buffer<std::uint32_t> hists[active] = {
        buffer<std::uint32_t>(bins[0]), buffer<std::uint32_t>(bins[1]), buffer<std::uint32_t>(bins[2])};
    std::uint32_t* outs[active] = {hists[0].data(), hists[1].data(), hists[2].data()};
    const std::vector<int> kept[active] = {random_edges(r, bins[0]), random_edges(r, bins[1]),
                                           random_edges(r, bins[2])};
    const std::size_t ws_bytes =
        cuprim::multi_histogram_range_workspace_bytes<std::uint32_t, std::uint32_t, int>(pixels, active, bins);
    graph_workspace ws(ws_bytes, stream_);
    std::vector<std::uint32_t> h;
    replay(
        ws,
        [&](cudaStream_t s) {
          std::vector<int> e[active] = {kept[0], kept[1], kept[2]};  // freed when the call returns
          const int* edges[active] = {e[0].data(), e[1].data(), e[2].data()};
          cuprim::multi_histogram_range(samples.data(), pixels, channels, active, counted, outs, bins, edges, ws.get(),
                                        s);
        },
        [&] {
          h = refill(r, samples, 0, upper_level + (1 << 16));
          for (auto& hist : hists) hist.fill_bytes(poison_byte);
        },
        [&] {
          for (int k = 0; k < active; ++k) {
            SCOPED_TRACE("channel " + std::to_string(counted[k]));
            std::vector<std::uint32_t> want(bins[k]);
            cuprim::host::histogram_range_strided(h.data(), pixels, channels, counted[k], want.data(), bins[k],
                                                  kept[k].data());
            expect_prefix(hists[k].to_host_sync(), want, std::size_t(bins[k]));
          }
        });
  }
}

TEST_F(MultiHistogramGraph, EvenAddUint32) { check(true); }

}  // namespace
}  // namespace cuprim_test
