// CUDA-graph capture of the radix sort's explicit-workspace overloads: radix_sort_keys, radix_sort_pairs (plain and
// double-buffer forms), argsort, segmented_sort_keys and segmented_sort_pairs. Captured with allocations forbidden,
// launched twice on fresh keys (and values), checked against cuprim::host (tests/common/graph.hpp). Sizes: one block,
// one thread-block cluster (both on chip, no workspace), and the device-wide passes above the on-chip sizes; the
// segmented sort's offsets are drawn afresh for each launch of one graph (its launches are sized from n and the
// number of segments alone), from one segment to many small ones.
//
// The double-buffer forms set `selector` on the host, when the call is captured: the graph, launched later, reads
// the buffer that was current before the capture and leaves its result in the one current after it.
//
// RadixSortAsync, SegmentedSortAsync: every asynchronous entry point of the family (radix_sort_keys and
// radix_sort_pairs in the plain and double-buffer forms, argsort, each allocating and with a workspace; the
// user-struct key forms; segmented_sort_keys and segmented_sort_pairs, each allocating and with a workspace) returns
// before a kernel queued ahead of it on its stream has finished, and its work runs behind that kernel
// (tests/common/stream_gate.hpp).
#include <cuprim/device/radix_sort.cuh>
#include <cuprim/device/segmented_sort.cuh>
#include <cuprim/host/radix_sort.hpp>

#include "common/graph.hpp"
#include "common/stream_gate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <vector>

namespace cuprim_test {
namespace {

constexpr std::int64_t sort_sizes[] = {300, 30000, (1 << 20) + 7};

/// Keys with many ties (a few thousand distinct values), so that stability shows in the values' order.
std::vector<std::uint32_t> tied_keys(rng& r, cuprim::device_buffer<std::uint32_t>& d) { return refill(r, d, 0, 5000); }

/// Whole numbers in [-8, 8] as floats: ties, and both signs.
std::vector<float> tied_keys(rng& r, cuprim::device_buffer<float>& d) {
  std::vector<float> h(d.size());
  for (float& x : h) x = float(r.between(-8, 8));
  if (!h.empty()) d.copy_from_host(std::span<const float>(h));
  return h;
}

class RadixSortGraph : public graph_test {
protected:
  /// Captures radix_sort_pairs of tied keys of K with uint32 values, in the plain or (DoubleBuffer) the double-buffer
  /// form, and checks each launch against host::radix_sort_pairs.
  template <class K, bool DoubleBuffer>
  void check_pairs(cuprim::radix_sort_options opt) {
    using V = std::uint32_t;
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : sort_sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      auto keys_in = buffer<K>(n), keys_out = buffer<K>(n);
      auto values_in = buffer<V>(n), values_out = buffer<V>(n);
      cuprim::double_buffer<K> keys(keys_in.data(), keys_out.data());
      cuprim::double_buffer<V> values(values_in.data(), values_out.data());
      graph_workspace ws(cuprim::radix_sort_pairs_workspace_bytes<K, V>(n, DoubleBuffer), stream_);
      std::vector<K> hk, want_keys(n);
      std::vector<V> hv, want_values(n);
      replay(
          ws,
          [&](cudaStream_t s) {
            if constexpr (DoubleBuffer)
              cuprim::radix_sort_pairs(keys, values, n, ws.get(), opt, s);
            else
              cuprim::radix_sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n,
                                       ws.get(), opt, s);
          },
          [&] {
            hk = tied_keys(r, keys_in);
            hv = refill(r, values_in);
            keys_out.fill_bytes(poison_byte);
            values_out.fill_bytes(poison_byte);
          },
          [&] {
            cuprim::host::radix_sort_pairs(hk.data(), want_keys.data(), hv.data(), want_values.data(), n,
                                           opt.order == cuprim::sort_order::descending);
            // The plain form's result is in the outputs; the double-buffer form's where the selectors say.
            expect_prefix(download(DoubleBuffer ? keys.current() : keys_out.data(), std::size_t(n)), want_keys,
                          std::size_t(n));
            expect_prefix(download(DoubleBuffer ? values.current() : values_out.data(), std::size_t(n)), want_values,
                          std::size_t(n));
          });
    }
  }
};

TEST_F(RadixSortGraph, KeysUint32) {
  CUPRIM_TEST_RNG(r);
  check_n_outputs<std::uint32_t>(
      r, sort_sizes, [](std::int64_t n) { return cuprim::radix_sort_keys_workspace_bytes<std::uint32_t>(n); },
      [](rng& g, cuprim::device_buffer<std::uint32_t>& in) { return refill(g, in); },
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::radix_sort_keys(in, out, n, ws, cuprim::radix_sort_options{}, s);
      },
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n) { cuprim::host::radix_sort_keys(in, out, n); });
}

TEST_F(RadixSortGraph, KeysFloatDoubleBuffer) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : sort_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto first = buffer<float>(n), second = buffer<float>(n);
    cuprim::double_buffer<float> keys(first.data(), second.data());
    graph_workspace ws(cuprim::radix_sort_keys_workspace_bytes<float>(n, true), stream_);
    std::vector<float> h, want(n);
    replay(
        ws, [&](cudaStream_t s) { cuprim::radix_sort_keys(keys, n, ws.get(), cuprim::radix_sort_options{}, s); },
        [&] {
          h = refill(r, first);
          second.fill_bytes(poison_byte);
        },
        [&] {
          cuprim::host::radix_sort_keys(h.data(), want.data(), n);
          expect_prefix(download(keys.current(), std::size_t(n)), want, std::size_t(n));
        });
  }
}

TEST_F(RadixSortGraph, PairsUint32) { check_pairs<std::uint32_t, false>({}); }

TEST_F(RadixSortGraph, PairsFloatUint32DoubleBufferDescending) {
  cuprim::radix_sort_options descending;
  descending.order = cuprim::sort_order::descending;
  check_pairs<float, true>(descending);
}

TEST_F(RadixSortGraph, ArgsortFloat) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : sort_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto keys = buffer<float>(n);
    auto indices = buffer<std::uint32_t>(n);
    graph_workspace ws(cuprim::argsort_workspace_bytes<float, std::uint32_t>(n), stream_);
    std::vector<float> hk;
    std::vector<std::uint32_t> want(n);
    replay(
        ws,
        [&](cudaStream_t s) {
          cuprim::argsort(keys.data(), indices.data(), n, ws.get(), cuprim::radix_sort_options{}, s);
        },
        [&] {
          hk = refill(r, keys);
          indices.fill_bytes(poison_byte);
        },
        [&] {
          cuprim::host::argsort(hk.data(), want.data(), n);
          expect_prefix(indices.to_host_sync(), want, std::size_t(n));
        });
  }
}

// ---- asynchrony: each entry point returns while the stream is held up ahead of it

/// tied_keys, staged to be uploaded behind a gate (stream_gate.hpp).
std::vector<std::uint32_t> tied_keys(rng& r, staged_uploads& up, cuprim::device_buffer<std::uint32_t>& d) {
  return up.random(r, d, 0, 5000);
}
std::vector<float> tied_keys(rng& r, staged_uploads& up, cuprim::device_buffer<float>& d) {
  std::vector<float> h(d.size());
  for (float& x : h) x = float(r.between(-8, 8));
  up.add(d.data(), h);
  return h;
}

class SegmentedSortGraph : public graph_test {
protected:
  /// Captures segmented_sort_keys (Pairs: segmented_sort_pairs with uint32 values) of n tied keys of K in `segments`
  /// segments, int32 offsets whose inner bounds are drawn afresh before each launch, and checks each launch against
  /// host::radix_sort_pairs per segment.
  template <class K, bool Pairs>
  void check(cuprim::radix_sort_options opt) {
    using V = std::uint32_t;
    using O = std::int32_t;
    CUPRIM_TEST_RNG(r);
    constexpr std::int64_t n = (1 << 20) + 7;
    const bool desc = opt.order == cuprim::sort_order::descending;
    for (std::int64_t segments : {std::int64_t(1), std::int64_t(37), std::int64_t(1000), std::int64_t(20000)}) {
      SCOPED_TRACE("segments = " + std::to_string(segments));
      auto keys_in = buffer<K>(n), keys_out = buffer<K>(n);
      auto values_in = buffer<V>(Pairs ? n : 0), values_out = buffer<V>(Pairs ? n : 0);
      auto offsets = buffer<O>(std::size_t(segments) + 1);
      graph_workspace ws(Pairs ? cuprim::segmented_sort_pairs_workspace_bytes<K, V, O>(n, segments)
                               : cuprim::segmented_sort_keys_workspace_bytes<K, O>(n, segments),
                         stream_);
      std::vector<K> hk;
      std::vector<V> hv(Pairs ? n : 0);
      std::vector<O> ho(std::size_t(segments) + 1);
      replay(
          ws,
          [&](cudaStream_t s) {
            if constexpr (Pairs)
              cuprim::segmented_sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n,
                                           segments, offsets.data(), ws.get(), opt, s);
            else
              cuprim::segmented_sort_keys(keys_in.data(), keys_out.data(), n, segments, offsets.data(), ws.get(), opt,
                                          s);
          },
          [&] {
            hk = tied_keys(r, keys_in);
            if (Pairs) hv = refill(r, values_in);
            for (auto& o : ho) o = O(r.between(0, n));
            std::sort(ho.begin(), ho.end());
            ho.front() = 0;
            ho.back() = O(n);
            offsets.copy_from_host(std::span<const O>(ho));
            keys_out.fill_bytes(poison_byte);
            values_out.fill_bytes(poison_byte);
          },
          [&] {
            std::vector<K> want_keys(n);
            std::vector<V> want_values(Pairs ? n : 0);
            for (std::int64_t g = 0; g < segments; ++g) {
              const std::int64_t b = ho[std::size_t(g)], len = ho[std::size_t(g) + 1] - b;
              if (Pairs)
                cuprim::host::radix_sort_pairs(hk.data() + b, want_keys.data() + b, hv.data() + b,
                                               want_values.data() + b, len, desc);
              else
                cuprim::host::radix_sort_keys(hk.data() + b, want_keys.data() + b, len, desc);
            }
            expect_prefix(download(keys_out.data(), std::size_t(n)), want_keys, std::size_t(n));
            if (Pairs) expect_prefix(download(values_out.data(), std::size_t(n)), want_values, std::size_t(n));
          });
    }
  }
};

TEST_F(SegmentedSortGraph, KeysUint32) { check<std::uint32_t, false>({}); }

TEST_F(SegmentedSortGraph, PairsUint32) { check<std::uint32_t, true>({}); }

TEST_F(SegmentedSortGraph, PairsFloatDescending) {
  cuprim::radix_sort_options descending;
  descending.order = cuprim::sort_order::descending;
  check<float, true>(descending);
}

class RadixSortAsync : public async_test {
protected:
  /// expect_async of radix_sort_pairs of tied keys of K with uint32 values, in the plain or (DoubleBuffer) the
  /// double-buffer form, allocating or (workspace) in the caller's workspace, at every size.
  template <class K, bool DoubleBuffer>
  void check_pairs(const std::string& entry, bool workspace, cuprim::radix_sort_options opt) {
    using V = std::uint32_t;
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : sort_sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      auto keys_in = buffer<K>(n), keys_out = buffer<K>(n);
      auto values_in = buffer<V>(n), values_out = buffer<V>(n);
      cuprim::double_buffer<K> keys;
      cuprim::double_buffer<V> values;
      graph_workspace ws(workspace ? cuprim::radix_sort_pairs_workspace_bytes<K, V>(n, DoubleBuffer) : 0, stream_);
      std::vector<K> hk, want_keys(n);
      std::vector<V> hv, want_values(n);
      expect_async(
          entry,
          [&](staged_uploads& up) {
            keys = cuprim::double_buffer<K>(keys_in.data(), keys_out.data());
            values = cuprim::double_buffer<V>(values_in.data(), values_out.data());
            hk = tied_keys(r, up, keys_in);
            hv = up.random(r, values_in);
            keys_out.fill_bytes(poison_byte);
            values_out.fill_bytes(poison_byte);
            ws.poison();
          },
          [&](cudaStream_t s) {
            if constexpr (DoubleBuffer) {
              if (workspace) cuprim::radix_sort_pairs(keys, values, n, ws.get(), opt, s);
              else cuprim::radix_sort_pairs(keys, values, n, opt, s);
            } else {
              if (workspace)
                cuprim::radix_sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n,
                                         ws.get(), opt, s);
              else
                cuprim::radix_sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n, opt,
                                         s);
            }
          },
          [&] {
            cuprim::host::radix_sort_pairs(hk.data(), want_keys.data(), hv.data(), want_values.data(), n,
                                           opt.order == cuprim::sort_order::descending);
            expect_prefix(download(DoubleBuffer ? keys.current() : keys_out.data(), std::size_t(n)), want_keys,
                          std::size_t(n));
            expect_prefix(download(DoubleBuffer ? values.current() : values_out.data(), std::size_t(n)), want_values,
                          std::size_t(n));
          });
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }

  /// expect_async of radix_sort_keys of float keys in the double-buffer form, allocating or in a workspace.
  void check_keys_double_buffer(const std::string& entry, bool workspace) {
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : sort_sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      auto first = buffer<float>(n), second = buffer<float>(n);
      cuprim::double_buffer<float> keys;
      graph_workspace ws(workspace ? cuprim::radix_sort_keys_workspace_bytes<float>(n, true) : 0, stream_);
      std::vector<float> h, want(n);
      expect_async(
          entry,
          [&](staged_uploads& up) {
            keys = cuprim::double_buffer<float>(first.data(), second.data());
            h = up.random(r, first);
            second.fill_bytes(poison_byte);
            ws.poison();
          },
          [&](cudaStream_t s) {
            if (workspace) cuprim::radix_sort_keys(keys, n, ws.get(), cuprim::radix_sort_options{}, s);
            else cuprim::radix_sort_keys(keys, n, cuprim::radix_sort_options{}, s);
          },
          [&] {
            cuprim::host::radix_sort_keys(h.data(), want.data(), n);
            expect_prefix(download(keys.current(), std::size_t(n)), want, std::size_t(n));
          });
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }

  /// expect_async of argsort of float keys into uint32 indices, allocating or in a workspace.
  void check_argsort(const std::string& entry, bool workspace) {
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : sort_sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      auto keys = buffer<float>(n);
      auto indices = buffer<std::uint32_t>(n);
      graph_workspace ws(workspace ? cuprim::argsort_workspace_bytes<float, std::uint32_t>(n) : 0, stream_);
      std::vector<float> hk;
      std::vector<std::uint32_t> want(n);
      expect_async(
          entry,
          [&](staged_uploads& up) {
            hk = up.random(r, keys);
            indices.fill_bytes(poison_byte);
            ws.poison();
          },
          [&](cudaStream_t s) {
            if (workspace)
              cuprim::argsort(keys.data(), indices.data(), n, ws.get(), cuprim::radix_sort_options{}, s);
            else cuprim::argsort(keys.data(), indices.data(), n, cuprim::radix_sort_options{}, s);
          },
          [&] {
            cuprim::host::argsort(hk.data(), want.data(), n);
            expect_prefix(indices.to_host_sync(), want, std::size_t(n));
          });
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }
};

void sort_keys_host(const std::uint32_t* in, std::uint32_t* out, std::int64_t n) {
  cuprim::host::radix_sort_keys(in, out, n);
}

TEST_F(RadixSortAsync, Keys) {
  CUPRIM_TEST_RNG(r);
  expect_async_n_outputs<std::uint32_t>(
      "cuprim::radix_sort_keys", sort_sizes, no_workspace,
      [&](staged_uploads& up, cuprim::device_buffer<std::uint32_t>& in) { return up.random(r, in); },
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::radix_sort_keys(in, out, n, cuprim::radix_sort_options{}, s);
      },
      sort_keys_host);
}

TEST_F(RadixSortAsync, KeysWorkspace) {
  CUPRIM_TEST_RNG(r);
  expect_async_n_outputs<std::uint32_t>(
      "cuprim::radix_sort_keys (workspace)", sort_sizes,
      [](std::int64_t n) { return cuprim::radix_sort_keys_workspace_bytes<std::uint32_t>(n); },
      [&](staged_uploads& up, cuprim::device_buffer<std::uint32_t>& in) { return up.random(r, in); },
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::radix_sort_keys(in, out, n, ws, cuprim::radix_sort_options{}, s);
      },
      sort_keys_host);
}

TEST_F(RadixSortAsync, KeysDoubleBuffer) { check_keys_double_buffer("cuprim::radix_sort_keys (double buffer)", false); }

TEST_F(RadixSortAsync, KeysDoubleBufferWorkspace) {
  check_keys_double_buffer("cuprim::radix_sort_keys (double buffer, workspace)", true);
}

TEST_F(RadixSortAsync, Pairs) { check_pairs<std::uint32_t, false>("cuprim::radix_sort_pairs", false, {}); }

TEST_F(RadixSortAsync, PairsWorkspace) {
  check_pairs<std::uint32_t, false>("cuprim::radix_sort_pairs (workspace)", true, {});
}

cuprim::radix_sort_options descending_order() {
  cuprim::radix_sort_options o;
  o.order = cuprim::sort_order::descending;
  return o;
}

TEST_F(RadixSortAsync, PairsDoubleBuffer) {
  check_pairs<float, true>("cuprim::radix_sort_pairs (double buffer)", false, descending_order());
}

TEST_F(RadixSortAsync, PairsDoubleBufferWorkspace) {
  check_pairs<float, true>("cuprim::radix_sort_pairs (double buffer, workspace)", true, descending_order());
}

TEST_F(RadixSortAsync, Argsort) { check_argsort("cuprim::argsort", false); }

TEST_F(RadixSortAsync, ArgsortWorkspace) { check_argsort("cuprim::argsort (workspace)", true); }

/// A user-struct key: sorted by `cell` (a key decomposer names it), `payload` moves with it.
struct cell_item {
  std::uint32_t cell;
  std::uint32_t payload;
  bool operator==(const cell_item&) const = default;
};
std::ostream& operator<<(std::ostream& o, const cell_item& c) { return o << "{" << c.cell << ", " << c.payload << "}"; }
struct by_cell {
  CUPRIM_HD cuprim::key_members_t<std::uint32_t> operator()(const cell_item& c) const {
    return cuprim::key_members(c.cell);
  }
};

/// n items with cells in [0, 5000] (ties: stability shows in the payloads) and random payloads.
std::vector<cell_item> random_cells(rng& r, std::size_t n) {
  std::vector<cell_item> h(n);
  for (auto& c : h) c = {std::uint32_t(r.between(0, 5000)), std::uint32_t(r.next())};
  return h;
}

/// Positions of the items in the stable order of their cells.
std::vector<std::int64_t> cell_order(const std::vector<cell_item>& items) {
  std::vector<std::uint32_t> cells(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) cells[i] = items[i].cell;
  std::vector<std::int64_t> idx(items.size());
  cuprim::host::argsort(cells.data(), idx.data(), std::int64_t(cells.size()));
  return idx;
}

TEST_F(RadixSortAsync, KeysDecomposer) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : sort_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto in = buffer<cell_item>(n), out = buffer<cell_item>(n);
    std::vector<cell_item> h;
    expect_async(
        "cuprim::radix_sort_keys (key decomposer)",
        [&](staged_uploads& up) {
          h = random_cells(r, std::size_t(n));
          up.add(in.data(), h);
          out.fill_bytes(poison_byte);
        },
        [&](cudaStream_t s) { cuprim::radix_sort_keys(in.data(), out.data(), n, by_cell{}, {}, s); },
        [&] {
          const std::vector<std::int64_t> idx = cell_order(h);
          std::vector<cell_item> want(h.size());
          for (std::size_t i = 0; i < want.size(); ++i) want[i] = h[std::size_t(idx[i])];
          expect_prefix(out.to_host_sync(), want, std::size_t(n));
        });
    if (HasFatalFailure() || IsSkipped()) return;
  }
}

TEST_F(RadixSortAsync, PairsDecomposer) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : sort_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto keys_in = buffer<cell_item>(n), keys_out = buffer<cell_item>(n);
    auto values_in = buffer<std::uint32_t>(n), values_out = buffer<std::uint32_t>(n);
    std::vector<cell_item> hk;
    std::vector<std::uint32_t> hv;
    expect_async(
        "cuprim::radix_sort_pairs (key decomposer)",
        [&](staged_uploads& up) {
          hk = random_cells(r, std::size_t(n));
          up.add(keys_in.data(), hk);
          hv = up.random(r, values_in);
          keys_out.fill_bytes(poison_byte);
          values_out.fill_bytes(poison_byte);
        },
        [&](cudaStream_t s) {
          cuprim::radix_sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n, by_cell{},
                                   {}, s);
        },
        [&] {
          const std::vector<std::int64_t> idx = cell_order(hk);
          std::vector<cell_item> want_keys(hk.size());
          std::vector<std::uint32_t> want_values(hv.size());
          for (std::size_t i = 0; i < idx.size(); ++i) {
            want_keys[i] = hk[std::size_t(idx[i])];
            want_values[i] = hv[std::size_t(idx[i])];
          }
          expect_prefix(keys_out.to_host_sync(), want_keys, std::size_t(n));
          expect_prefix(values_out.to_host_sync(), want_values, std::size_t(n));
        });
    if (HasFatalFailure() || IsSkipped()) return;
  }
}

class SegmentedSortAsync : public async_test {
protected:
  /// expect_async of the segmented sort of n uint32 keys (with uint32 values: pairs) in 1000 segments whose bounds
  /// are drawn afresh each time (every length class: empty, warp-sized, one block, device-wide), int32 offsets
  /// covering [0, n), allocating or (workspace) in the caller's workspace.
  void check(const std::string& entry, bool pairs, bool workspace) {
    using K = std::uint32_t;
    using V = std::uint32_t;
    using O = std::int32_t;
    constexpr std::int64_t n = (1 << 20) + 7, segments = 1000;
    CUPRIM_TEST_RNG(r);
    auto keys_in = buffer<K>(n), keys_out = buffer<K>(n);
    auto values_in = buffer<V>(pairs ? n : 0), values_out = buffer<V>(pairs ? n : 0);
    auto offsets = buffer<O>(segments + 1);
    const std::size_t ws_bytes = !workspace ? 0
                                 : pairs    ? cuprim::segmented_sort_pairs_workspace_bytes<K, V, O>(n, segments)
                                            : cuprim::segmented_sort_keys_workspace_bytes<K, O>(n, segments);
    graph_workspace ws(ws_bytes, stream_);
    std::vector<K> hk;
    std::vector<V> hv;
    std::vector<O> ho(segments + 1);
    expect_async(
        entry,
        [&](staged_uploads& up) {
          hk = up.random(r, keys_in, 0, 5000);
          if (pairs) hv = up.random(r, values_in);
          for (auto& o : ho) o = O(r.between(0, n));
          std::sort(ho.begin(), ho.end());
          ho.front() = 0;
          ho.back() = O(n);
          up.add(offsets.data(), ho);
          keys_out.fill_bytes(poison_byte);
          values_out.fill_bytes(poison_byte);
          ws.poison();
        },
        [&](cudaStream_t s) {
          const cuprim::radix_sort_options opt{};
          if (pairs && workspace)
            cuprim::segmented_sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n,
                                         segments, offsets.data(), ws.get(), opt, s);
          else if (pairs)
            cuprim::segmented_sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n,
                                         segments, offsets.data(), opt, s);
          else if (workspace)
            cuprim::segmented_sort_keys(keys_in.data(), keys_out.data(), n, segments, offsets.data(), ws.get(), opt,
                                        s);
          else
            cuprim::segmented_sort_keys(keys_in.data(), keys_out.data(), n, segments, offsets.data(), opt, s);
        },
        [&] {
          std::vector<K> want_keys(n);
          std::vector<V> want_values(pairs ? n : 0);
          for (std::int64_t g = 0; g < segments; ++g) {
            const std::int64_t b = ho[std::size_t(g)], len = ho[std::size_t(g) + 1] - b;
            if (pairs)
              cuprim::host::radix_sort_pairs(hk.data() + b, want_keys.data() + b, hv.data() + b,
                                             want_values.data() + b, len);
            else
              cuprim::host::radix_sort_keys(hk.data() + b, want_keys.data() + b, len);
          }
          expect_prefix(keys_out.to_host_sync(), want_keys, std::size_t(n));
          if (pairs) expect_prefix(values_out.to_host_sync(), want_values, std::size_t(n));
        });
  }
};

TEST_F(SegmentedSortAsync, SegmentedSortKeys) { check("cuprim::segmented_sort_keys", false, false); }

TEST_F(SegmentedSortAsync, SegmentedSortKeysWorkspace) {
  check("cuprim::segmented_sort_keys (workspace)", false, true);
}

TEST_F(SegmentedSortAsync, SegmentedSortPairs) { check("cuprim::segmented_sort_pairs", true, false); }

TEST_F(SegmentedSortAsync, SegmentedSortPairsWorkspace) {
  check("cuprim::segmented_sort_pairs (workspace)", true, true);
}

}  // namespace
}  // namespace cuprim_test
