// CUDA-graph capture of the radix sort's explicit-workspace overloads: radix_sort_keys, radix_sort_pairs (plain and
// double-buffer forms) and argsort. Captured with allocations forbidden, launched twice on fresh keys (and values),
// checked against cuprim::host (tests/common/graph.hpp). Sizes: one block, one thread-block cluster (both on chip,
// no workspace), and the device-wide passes above the on-chip sizes.
//
// The double-buffer forms set `selector` on the host, when the call is captured: the graph, launched later, reads
// the buffer that was current before the capture and leaves its result in the one current after it.
#include <cuprim/device/radix_sort.cuh>
#include <cuprim/host/radix_sort.hpp>

#include "common/graph.hpp"

#include <gtest/gtest.h>

#include <cstdint>
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

}  // namespace
}  // namespace cuprim_test
