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
//
// HistogramAsync, MultiHistogramAsync: every asynchronous entry point of the family (histogram_even,
// histogram_range, their _add forms and the multi-channel forms of all four, each allocating and with a workspace)
// returns before a kernel queued ahead of it on its stream has finished, and its work runs behind that kernel
// (tests/common/stream_gate.hpp), at the same bin counts. The range forms' host edges are drawn afresh for each call.
#include <cuprim/device/histogram.cuh>
#include <cuprim/host/histogram.hpp>

#include "common/graph.hpp"
#include "common/stream_gate.hpp"

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

/// num_bins + 1 sorted random edges in [0, upper_level], the first 0 and the last upper_level (equal edges make
/// empty bins).
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

/// The multi-channel tests' layout: 4 interleaved channels, channels 0, 2 and 3 counted, each with its own bins and
/// levels.
struct multi_layout {
  static constexpr int channels = 4, active = 3;
  static constexpr int counted[active] = {0, 2, 3};
  static constexpr int bins[active] = {16, 256, 4000};
  static constexpr std::int32_t lower[active] = {0, 1000, 5};
  static constexpr std::int32_t upper[active] = {upper_level, upper_level + 1000, upper_level - 3};
};

class MultiHistogramGraph : public graph_test, protected multi_layout {
protected:
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

// ---- asynchrony: each entry point returns while the stream is held up ahead of it

/// What a case calls: equal-width or range bins, overwriting or adding, allocating or in the caller's workspace.
struct hist_form {
  bool range, add, workspace;
};

class HistogramAsync : public async_test {
protected:
  /// expect_async of the single-channel form `f` over (1 << 20) + 3 uint32 samples in [0, upper_level + 2^16), at
  /// every bin count; the _add forms start from fresh counts, staged with the samples.
  void check(const std::string& entry, hist_form f) {
    using u32 = std::uint32_t;
    CUPRIM_TEST_RNG(r);
    const std::int64_t n = sample_counts[1];
    for (int bins : bin_counts) {
      SCOPED_TRACE(std::to_string(bins) + " bins");
      auto samples = buffer<u32>(n);
      auto hist = buffer<u32>(bins);
      const std::size_t ws_bytes = !f.workspace ? 0
                                   : f.range    ? cuprim::histogram_range_workspace_bytes<u32, u32, int>(n, bins)
                                                : cuprim::histogram_even_workspace_bytes<u32, u32, int>(n, bins);
      graph_workspace ws(ws_bytes, stream_);
      std::vector<u32> h, base;
      std::vector<int> edges;
      expect_async(
          entry,
          [&](staged_uploads& up) {
            h = up.random(r, samples, 0, upper_level + (1 << 16));
            if (f.range) edges = random_edges(r, bins);
            if (f.add) base = up.random(r, hist, 0, 1000);
            else hist.fill_bytes(poison_byte);
            ws.poison();
          },
          [&](cudaStream_t s) {
            const u32* in = samples.data();
            u32* out = hist.data();
            if (f.range) {
              if (f.add && f.workspace) cuprim::histogram_range_add(in, n, out, bins, edges.data(), ws.get(), s);
              else if (f.add) cuprim::histogram_range_add(in, n, out, bins, edges.data(), s);
              else if (f.workspace) cuprim::histogram_range(in, n, out, bins, edges.data(), ws.get(), s);
              else cuprim::histogram_range(in, n, out, bins, edges.data(), s);
            } else {
              if (f.add && f.workspace) cuprim::histogram_even_add(in, n, out, bins, 0, upper_level, ws.get(), s);
              else if (f.add) cuprim::histogram_even_add(in, n, out, bins, 0, upper_level, s);
              else if (f.workspace) cuprim::histogram_even(in, n, out, bins, 0, upper_level, ws.get(), s);
              else cuprim::histogram_even(in, n, out, bins, 0, upper_level, s);
            }
          },
          [&] {
            std::vector<u32> want(bins);
            if (f.range) cuprim::host::histogram_range(h.data(), n, want.data(), bins, edges.data());
            else cuprim::host::histogram_even(h.data(), n, want.data(), bins, 0, upper_level);
            if (f.add)
              for (int b = 0; b < bins; ++b) want[b] += base[b];
            expect_prefix(hist.to_host_sync(), want, std::size_t(bins));
          });
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }
};

TEST_F(HistogramAsync, HistogramEven) { check("cuprim::histogram_even", {false, false, false}); }

TEST_F(HistogramAsync, HistogramEvenWorkspace) { check("cuprim::histogram_even (workspace)", {false, false, true}); }

TEST_F(HistogramAsync, HistogramEvenAdd) { check("cuprim::histogram_even_add", {false, true, false}); }

TEST_F(HistogramAsync, HistogramEvenAddWorkspace) {
  check("cuprim::histogram_even_add (workspace)", {false, true, true});
}

TEST_F(HistogramAsync, HistogramRange) { check("cuprim::histogram_range", {true, false, false}); }

TEST_F(HistogramAsync, HistogramRangeWorkspace) { check("cuprim::histogram_range (workspace)", {true, false, true}); }

TEST_F(HistogramAsync, HistogramRangeAdd) { check("cuprim::histogram_range_add", {true, true, false}); }

TEST_F(HistogramAsync, HistogramRangeAddWorkspace) {
  check("cuprim::histogram_range_add (workspace)", {true, true, true});
}

class MultiHistogramAsync : public async_test, protected multi_layout {
protected:
  /// expect_async of the multi-channel form `f` over interleaved 4-channel uint32 samples (multi_layout), at every
  /// pixel count; the range forms' edges drawn afresh per channel, the _add forms starting from fresh counts.
  void check(const std::string& entry, hist_form f) {
    using u32 = std::uint32_t;
    CUPRIM_TEST_RNG(r);
    for (std::int64_t pixels : sample_counts) {
      SCOPED_TRACE(std::to_string(pixels) + " pixels");
      auto samples = buffer<u32>(pixels * channels);
      cuprim::device_buffer<u32> hists[active] = {buffer<u32>(bins[0]), buffer<u32>(bins[1]), buffer<u32>(bins[2])};
      u32* outs[active] = {hists[0].data(), hists[1].data(), hists[2].data()};
      const std::size_t ws_bytes =
          !f.workspace ? 0
          : f.range    ? cuprim::multi_histogram_range_workspace_bytes<u32, u32, int>(pixels, active, bins)
                       : cuprim::multi_histogram_even_workspace_bytes<u32, u32, int>(pixels, active, bins);
      graph_workspace ws(ws_bytes, stream_);
      std::vector<u32> h, base[active];
      std::vector<int> edges[active];
      const int* edge_ptrs[active] = {};
      expect_async(
          entry,
          [&](staged_uploads& up) {
            h = up.random(r, samples, 0, upper_level + (1 << 16));
            for (int k = 0; k < active; ++k) {
              if (f.range) {
                edges[k] = random_edges(r, bins[k]);
                edge_ptrs[k] = edges[k].data();
              }
              if (f.add) base[k] = up.random(r, hists[k], 0, 1000);
              else hists[k].fill_bytes(poison_byte);
            }
            ws.poison();
          },
          [&](cudaStream_t s) {
            const u32* in = samples.data();
            if (f.range) {
              if (f.add && f.workspace)
                cuprim::multi_histogram_range_add(in, pixels, channels, active, counted, outs, bins, edge_ptrs,
                                                  ws.get(), s);
              else if (f.add)
                cuprim::multi_histogram_range_add(in, pixels, channels, active, counted, outs, bins, edge_ptrs, s);
              else if (f.workspace)
                cuprim::multi_histogram_range(in, pixels, channels, active, counted, outs, bins, edge_ptrs, ws.get(),
                                              s);
              else cuprim::multi_histogram_range(in, pixels, channels, active, counted, outs, bins, edge_ptrs, s);
            } else {
              if (f.add && f.workspace)
                cuprim::multi_histogram_even_add(in, pixels, channels, active, counted, outs, bins, lower, upper,
                                                 ws.get(), s);
              else if (f.add)
                cuprim::multi_histogram_even_add(in, pixels, channels, active, counted, outs, bins, lower, upper, s);
              else if (f.workspace)
                cuprim::multi_histogram_even(in, pixels, channels, active, counted, outs, bins, lower, upper, ws.get(),
                                             s);
              else cuprim::multi_histogram_even(in, pixels, channels, active, counted, outs, bins, lower, upper, s);
            }
          },
          [&] {
            for (int k = 0; k < active; ++k) {
              SCOPED_TRACE("channel " + std::to_string(counted[k]));
              std::vector<u32> want(bins[k]);
              if (f.range)
                cuprim::host::histogram_range_strided(h.data(), pixels, channels, counted[k], want.data(), bins[k],
                                                      edges[k].data());
              else
                cuprim::host::histogram_even_strided(h.data(), pixels, channels, counted[k], want.data(), bins[k],
                                                     lower[k], upper[k]);
              if (f.add)
                for (int b = 0; b < bins[k]; ++b) want[b] += base[k][b];
              expect_prefix(hists[k].to_host_sync(), want, std::size_t(bins[k]));
            }
          });
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }
};

TEST_F(MultiHistogramAsync, MultiHistogramEven) { check("cuprim::multi_histogram_even", {false, false, false}); }

TEST_F(MultiHistogramAsync, MultiHistogramEvenWorkspace) {
  check("cuprim::multi_histogram_even (workspace)", {false, false, true});
}

TEST_F(MultiHistogramAsync, MultiHistogramEvenAdd) { check("cuprim::multi_histogram_even_add", {false, true, false}); }

TEST_F(MultiHistogramAsync, MultiHistogramEvenAddWorkspace) {
  check("cuprim::multi_histogram_even_add (workspace)", {false, true, true});
}

TEST_F(MultiHistogramAsync, MultiHistogramRange) { check("cuprim::multi_histogram_range", {true, false, false}); }

TEST_F(MultiHistogramAsync, MultiHistogramRangeWorkspace) {
  check("cuprim::multi_histogram_range (workspace)", {true, false, true});
}

TEST_F(MultiHistogramAsync, MultiHistogramRangeAdd) {
  check("cuprim::multi_histogram_range_add", {true, true, false});
}

TEST_F(MultiHistogramAsync, MultiHistogramRangeAddWorkspace) {
  check("cuprim::multi_histogram_range_add (workspace)", {true, true, true});
}

}  // namespace
}  // namespace cuprim_test
