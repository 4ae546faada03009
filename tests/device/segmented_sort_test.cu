// segmented_sort_keys / segmented_sort_pairs (and their _sync forms) against cuprim::host (std::stable_sort per
// segment): every length class (empty, 1, warp sizes 32·k ± 1 up to 256, the one-block limit ± 1, longer than a
// block) in one call, all-small and all-medium calls, millions-style tiny segments, many long segments of mixed
// lengths (4097, 5000, 65537, 2^20 + 3) with empty ones between, one huge segment (2^24 + 5), uncovered positions
// before the first and after the last segment (left as they were), int32 and int64 offsets, descending order, bit
// ranges, uint8, int16, int32, uint32, uint64, float (±0.0, NaNs, infinities, denormals), __half and double keys,
// 16-byte values; pairs carry their input positions so stability is checked. Outputs are poisoned before each
// run and the workspace dirtied. Bad offsets: the asynchronous forms leave the outputs as they were, the _sync
// forms throw invalid_argument naming `offsets`.
#include <cuprim/core/memory.hpp>
#include <cuprim/device/segmented_sort.cuh>
#include <cuprim/host/radix_sort.hpp>

#include "common/test_util.hpp"
#include "device/radix_sort_cases.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace {

using cuprim_test::rng;

struct wide {
  std::uint64_t pos;
  std::uint32_t a, b;
};

/// Offsets of the given segment lengths, starting at `lead` (positions before it and after the last segment are
/// not covered).
template <class O>
std::vector<O> offsets_of(const std::vector<std::int64_t>& len, std::int64_t lead) {
  std::vector<O> off(len.size() + 1);
  off[0] = O(lead);
  for (std::size_t s = 0; s < len.size(); ++s) off[s + 1] = O(off[s] + O(len[s]));
  return off;
}

template <class K, class V, class O>
void check(const std::vector<std::int64_t>& len, std::int64_t lead, std::int64_t tail, radix_test::shape sh,
           cuprim::radix_sort_options opt, rng& r, bool use_ws) {
  const auto off = offsets_of<O>(len, lead);
  const std::int64_t n = std::int64_t(off.back()) + tail;
  const std::int64_t S = std::int64_t(len.size());
  SCOPED_TRACE(::testing::Message() << "n=" << n << " segments=" << S << " shape=" << int(sh)
                                    << " desc=" << (opt.order == cuprim::sort_order::descending)
                                    << " bits=[" << opt.begin_bit << "," << opt.end_bit << ")");
  const auto keys = radix_test::make_keys<K>(n, sh, r);
  std::vector<V> vals(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<V, wide>) vals[std::size_t(i)] = wide{std::uint64_t(i), std::uint32_t(i * 7), 0xABCDu};
    else vals[std::size_t(i)] = V(i);
  }
  const bool desc = opt.order == cuprim::sort_order::descending;
  const int end = opt.end_bit == cuprim::radix_sort_options::key_width ? cuprim::detail::radix_key<K>::bits : opt.end_bit;

  cuprim::device_buffer<K> din(std::size_t(n) + 1), dout(std::size_t(n) + 1);
  cuprim::device_buffer<V> vin(std::size_t(n) + 1), vout(std::size_t(n) + 1);
  cuprim::device_buffer<O> doff(off.size());
  cuprim_test::upload(din.data(), keys);
  cuprim_test::upload(vin.data(), vals);
  cuprim_test::upload(doff.data(), off);
  cuprim_test::poison(dout);
  cuprim_test::poison(vout);
  // Expected: poison outside the segments, each segment stably sorted.
  std::vector<K> want_k = cuprim_test::download(dout.data(), std::size_t(n));
  std::vector<V> want_v = cuprim_test::download(vout.data(), std::size_t(n));
  for (std::int64_t s = 0; s < S; ++s) {
    const std::int64_t b = std::int64_t(off[std::size_t(s)]), l = len[std::size_t(s)];
    cuprim::host::radix_sort_pairs(keys.data() + b, want_k.data() + b, vals.data() + b, want_v.data() + b, l, desc,
                                   opt.begin_bit, end);
  }
  if (use_ws) {
    const std::size_t bytes = cuprim::segmented_sort_pairs_workspace_bytes<K, V, O>(n, S);
    cuprim::device_buffer<unsigned char> w(bytes + 1);
    cuprim_test::poison(w, 0xA5);  // the sort must not rely on a clean workspace
    cuprim::segmented_sort_pairs(din.data(), dout.data(), vin.data(), vout.data(), n, S, doff.data(),
                                 cuprim::workspace{w.data(), bytes}, opt);
  } else {
    cuprim::segmented_sort_pairs(din.data(), dout.data(), vin.data(), vout.data(), n, S, doff.data(), opt);
  }
  EXPECT_TRUE(radix_test::same_keys(cuprim_test::download(dout.data(), std::size_t(n)), want_k)) << "pairs: keys";
  EXPECT_TRUE(radix_test::same_values(cuprim_test::download(vout.data(), std::size_t(n)), want_v)) << "pairs: values";
  // Keys only (the _sync form with a caller's workspace, the asynchronous form allocating).
  cuprim_test::poison(dout);
  if (use_ws) {
    const std::size_t bytes = cuprim::segmented_sort_keys_workspace_bytes<K, O>(n, S);
    cuprim::device_buffer<unsigned char> w(bytes + 1);
    cuprim_test::poison(w, 0x5A);
    cuprim::segmented_sort_keys_sync(din.data(), dout.data(), n, S, doff.data(), cuprim::workspace{w.data(), bytes},
                                     opt);
  } else {
    cuprim::segmented_sort_keys(din.data(), dout.data(), n, S, doff.data(), opt);
  }
  EXPECT_TRUE(radix_test::same_keys(cuprim_test::download(dout.data(), std::size_t(n)), want_k)) << "keys only";
  EXPECT_TRUE(radix_test::same_keys(cuprim_test::download(din.data(), std::size_t(n)), keys)) << "input changed";
}

/// Every length class once, in random order, with empty segments between.
std::vector<std::int64_t> classes(rng& r) {
  std::vector<std::int64_t> len = {0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 2049,
                                   3000, 4095, 4096, 4097, 10000, 70001, 0, 0};
  for (std::size_t i = len.size(); i > 1; --i) std::swap(len[i - 1], len[std::size_t(r.index(i))]);
  return len;
}

/// Long segments of the named lengths (4097, 5000, 65537, 2^20 + 3), `copies` of each, shuffled, with runs of
/// empty segments between them.
std::vector<std::int64_t> long_mix(rng& r, int copies) {
  std::vector<std::int64_t> len;
  for (int c = 0; c < copies; ++c)
    for (std::int64_t l : {std::int64_t(4097), std::int64_t(5000), std::int64_t(65537), std::int64_t((1 << 20) + 3)})
      len.push_back(l);
  for (std::size_t i = len.size(); i > 1; --i) std::swap(len[i - 1], len[std::size_t(r.index(i))]);
  std::vector<std::int64_t> out;
  for (std::int64_t l : len) {
    out.push_back(l);
    for (std::uint64_t e = r.index(3); e > 0; --e) out.push_back(0);
  }
  return out;
}

/// `count` segments of lengths drawn from [lo, hi].
std::vector<std::int64_t> lengths_between(rng& r, int count, std::int64_t lo, std::int64_t hi) {
  std::vector<std::int64_t> len(static_cast<std::size_t>(count));
  for (auto& l : len) l = lo + std::int64_t(r.index(std::uint64_t(hi - lo + 1)));
  return len;
}

/// Many tiny segments (lengths 0..40, a third of them empty).
std::vector<std::int64_t> tiny(rng& r, int count) {
  std::vector<std::int64_t> len(static_cast<std::size_t>(count));
  for (auto& l : len) l = r.index(3) == 0 ? 0 : std::int64_t(r.index(41));
  return len;
}

TEST(SegmentedSort, LengthClassesUint32) {
  CUPRIM_REQUIRE_GPU();
  rng r(cuprim_test::base_seed() ^ 0x5E61);
  for (bool desc : {false, true}) {
    const cuprim::radix_sort_options opt{desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending};
    check<std::uint32_t, std::uint32_t, std::int32_t>(classes(r), 5, 7, radix_test::shape::random, opt, r, false);
    check<std::uint32_t, std::uint32_t, std::int64_t>(classes(r), 0, 0, radix_test::shape::few_values, opt, r, true);
  }
}

TEST(SegmentedSort, TinySegments) {
  CUPRIM_REQUIRE_GPU();
  rng r(cuprim_test::base_seed() ^ 0x5E62);
  check<std::uint32_t, std::uint32_t, std::int32_t>(tiny(r, 100000), 3, 0, radix_test::shape::few_values, {}, r, true);
  check<std::int8_t, std::uint32_t, std::uint32_t>(tiny(r, 20000), 0, 2, radix_test::shape::random, {}, r, false);
  // 2-byte keys through every warp path (groups and the bitonic network: lengths up to 256).
  check<std::int16_t, std::uint32_t, std::int32_t>(classes(r), 0, 1, radix_test::shape::few_values, {}, r, false);
}

TEST(SegmentedSort, FewHugeSegments) {
  CUPRIM_REQUIRE_GPU();
  rng r(cuprim_test::base_seed() ^ 0x5E63);
  check<std::uint32_t, std::uint32_t, std::int64_t>({300007, 0, 2, 200003, 9}, 1, 1, radix_test::shape::random, {}, r,
                                                   true);
}

TEST(SegmentedSort, FloatEdgesAndBitRange) {
  CUPRIM_REQUIRE_GPU();
  rng r(cuprim_test::base_seed() ^ 0x5E64);
  for (bool desc : {false, true}) {
    const cuprim::radix_sort_options opt{desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending};
    check<float, std::uint32_t, std::int32_t>(classes(r), 0, 0, radix_test::shape::edges, opt, r, false);
    check<__half, std::uint32_t, std::int32_t>(classes(r), 1, 0, radix_test::shape::edges, opt, r, false);
  }
  cuprim::radix_sort_options bits;
  bits.begin_bit = 4;
  bits.end_bit = 13;
  check<std::uint32_t, std::uint32_t, std::int32_t>(classes(r), 0, 0, radix_test::shape::random, bits, r, false);
}

TEST(SegmentedSort, WideKeysAndValues) {
  CUPRIM_REQUIRE_GPU();
  rng r(cuprim_test::base_seed() ^ 0x5E65);
  check<std::uint64_t, wide, std::int64_t>(classes(r), 2, 3, radix_test::shape::random, {}, r, true);
  check<double, std::uint64_t, std::int32_t>(tiny(r, 5000), 0, 0, radix_test::shape::edges, {}, r, false);
}

TEST(SegmentedSort, ManyLongSegmentsOfMixedLengths) {
  CUPRIM_REQUIRE_GPU();
  rng r(cuprim_test::base_seed() ^ 0x5E66);
  check<std::uint32_t, std::uint32_t, std::int32_t>(long_mix(r, 3), 0, 0, radix_test::shape::random, {}, r, true);
  check<std::uint32_t, std::uint32_t, std::int64_t>(long_mix(r, 2), 7, 3, radix_test::shape::few_values, {}, r, false);
  // Long segments among every other class.
  std::vector<std::int64_t> len = long_mix(r, 1);
  for (std::int64_t l : classes(r)) len.push_back(l);
  for (std::int64_t l : tiny(r, 3000)) len.push_back(l);
  for (std::size_t i = len.size(); i > 1; --i) std::swap(len[i - 1], len[std::size_t(r.index(i))]);
  check<std::uint32_t, std::uint32_t, std::int32_t>(len, 0, 0, radix_test::shape::random, {}, r, true);
}

TEST(SegmentedSort, OneHugeSegment) {
  CUPRIM_REQUIRE_GPU();
  rng r(cuprim_test::base_seed() ^ 0x5E67);
  check<std::uint32_t, std::uint32_t, std::int64_t>({(std::int64_t(1) << 24) + 5}, 0, 0, radix_test::shape::random,
                                                   {}, r, true);
  const cuprim::radix_sort_options desc{cuprim::sort_order::descending};
  check<float, std::uint32_t, std::int32_t>({0, (std::int64_t(1) << 22) + 5, 0}, 1, 0, radix_test::shape::random, desc,
                                            r, false);
}

TEST(SegmentedSort, AllMediumAndAllSmall) {
  CUPRIM_REQUIRE_GPU();
  rng r(cuprim_test::base_seed() ^ 0x5E68);
  check<std::uint32_t, std::uint32_t, std::int32_t>(lengths_between(r, 700, 257, 4096), 0, 0, radix_test::shape::random,
                                                    {}, r, true);
  check<std::uint32_t, std::uint32_t, std::int32_t>(lengths_between(r, 20000, 0, 256), 0, 0,
                                                    radix_test::shape::few_values, {}, r, false);
}

TEST(SegmentedSort, KeyTypesThroughEveryClass) {
  CUPRIM_REQUIRE_GPU();
  rng r(cuprim_test::base_seed() ^ 0x5E69);
  auto mixed = [&] {
    std::vector<std::int64_t> len = classes(r);
    for (std::int64_t l : {std::int64_t(65537), std::int64_t(5000), std::int64_t(0), std::int64_t(4097)})
      len.push_back(l);
    return len;
  };
  check<std::uint8_t, std::uint32_t, std::int32_t>(mixed(), 0, 0, radix_test::shape::random, {}, r, true);
  check<std::int32_t, std::uint32_t, std::int32_t>(mixed(), 0, 0, radix_test::shape::random, {}, r, false);
  check<float, std::uint32_t, std::int64_t>(mixed(), 0, 0, radix_test::shape::random, {}, r, true);
  check<float, std::uint32_t, std::int32_t>(mixed(), 0, 0, radix_test::shape::no_nan, {}, r, false);
  check<std::uint64_t, std::uint32_t, std::int32_t>(mixed(), 0, 0, radix_test::shape::random, {}, r, true);
  check<double, std::uint64_t, std::int32_t>(mixed(), 2, 1, radix_test::shape::random, {}, r, false);
}

TEST(SegmentedSort, DescendingAndBitRangesOnLongSegments) {
  CUPRIM_REQUIRE_GPU();
  rng r(cuprim_test::base_seed() ^ 0x5E6A);
  const cuprim::radix_sort_options desc{cuprim::sort_order::descending};
  check<std::uint32_t, std::uint32_t, std::int32_t>(long_mix(r, 1), 0, 0, radix_test::shape::few_values, desc, r, true);
  check<double, std::uint64_t, std::int32_t>(long_mix(r, 1), 0, 0, radix_test::shape::edges, desc, r, false);
  for (auto [b, e] : {std::pair{0, 8}, std::pair{3, 20}, std::pair{8, 32}, std::pair{5, 6}}) {
    cuprim::radix_sort_options bits;
    bits.begin_bit = b;
    bits.end_bit = e;
    check<std::uint32_t, std::uint32_t, std::int32_t>(long_mix(r, 1), 0, 0, radix_test::shape::random, bits, r, b == 3);
  }
  cuprim::radix_sort_options wide_bits;
  wide_bits.begin_bit = 12;
  wide_bits.end_bit = 51;
  wide_bits.order = cuprim::sort_order::descending;
  check<std::uint64_t, wide, std::int64_t>(long_mix(r, 1), 0, 0, radix_test::shape::random, wide_bits, r, true);
}

TEST(SegmentedSort, BadOffsetsWriteNothing) {
  CUPRIM_REQUIRE_GPU();
  const std::int64_t n = 100000;
  rng r(cuprim_test::base_seed() ^ 0x5E6B);
  cuprim::device_buffer<std::uint32_t> din(n), dout(n), vin(n), vout(n);
  cuprim_test::upload(din.data(), radix_test::make_keys<std::uint32_t>(n, radix_test::shape::random, r));
  cuprim_test::upload(vin.data(), radix_test::make_keys<std::uint32_t>(n, radix_test::shape::random, r));
  // Decreasing (with every length class among the segments that look valid), past n, negative, and a layout whose
  // valid-looking segments add up to more than n (each 100000 keys long).
  for (const std::vector<std::int32_t>& off :
       {std::vector<std::int32_t>{0, 10, 300, 5000, 60000, 59999, 100000}, std::vector<std::int32_t>{0, 500, 100001},
        std::vector<std::int32_t>{-1, 10, 20}, std::vector<std::int32_t>{0, 100000, 0, 100000, 0, 100000, 0, 100000}}) {
    const std::int64_t S = std::int64_t(off.size() - 1);
    cuprim::device_buffer<std::int32_t> doff(off.size());
    cuprim_test::upload(doff.data(), off);
    const std::size_t bytes = cuprim::segmented_sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t, std::int32_t>(n, S);
    cuprim::device_buffer<unsigned char> w(bytes + 1);
    auto untouched = [&](const char* what) {
      for (auto* b : {&dout, &vout}) {
        const auto got = cuprim_test::download(b->data(), std::size_t(n));
        for (std::uint32_t x : got) ASSERT_EQ(x, 0xCDCDCDCDu) << what << ": output written";
      }
    };
    cuprim_test::poison(dout);
    cuprim_test::poison(vout);
    cuprim::segmented_sort_keys(din.data(), dout.data(), n, S, doff.data());
    cuprim::segmented_sort_pairs(din.data(), dout.data(), vin.data(), vout.data(), n, S, doff.data(),
                                 cuprim::workspace{w.data(), bytes});
    untouched("asynchronous forms");
    try {
      cuprim::segmented_sort_keys_sync(din.data(), dout.data(), n, S, doff.data());
      ADD_FAILURE() << "segmented_sort_keys_sync: no exception for bad offsets";
    } catch (const cuprim::invalid_argument& e) {
      EXPECT_EQ(e.argument(), "offsets");
    }
    try {
      cuprim::segmented_sort_pairs_sync(din.data(), dout.data(), vin.data(), vout.data(), n, S, doff.data(),
                                        cuprim::workspace{w.data(), bytes});
      ADD_FAILURE() << "segmented_sort_pairs_sync: no exception for bad offsets";
    } catch (const cuprim::invalid_argument& e) {
      EXPECT_EQ(e.argument(), "offsets");
    }
    untouched("_sync forms");
  }
}

TEST(SegmentedSort, SyncFormsSortAsTheAsynchronousOnes) {
  CUPRIM_REQUIRE_GPU();
  rng r(cuprim_test::base_seed() ^ 0x5E6C);
  const std::vector<std::int64_t> len = long_mix(r, 1);
  const auto off = offsets_of<std::int32_t>(len, 0);
  const std::int64_t n = off.back(), S = std::int64_t(len.size());
  const auto keys = radix_test::make_keys<std::uint32_t>(n, radix_test::shape::few_values, r);
  std::vector<std::uint32_t> vals(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) vals[std::size_t(i)] = std::uint32_t(i);
  std::vector<std::uint32_t> want_k(keys.size()), want_v(keys.size());
  for (std::int64_t s = 0; s < S; ++s)
    cuprim::host::radix_sort_pairs(keys.data() + off[std::size_t(s)], want_k.data() + off[std::size_t(s)],
                                   vals.data() + off[std::size_t(s)], want_v.data() + off[std::size_t(s)],
                                   len[std::size_t(s)]);
  cuprim::device_buffer<std::uint32_t> din(n), dout(n), vin(n), vout(n);
  cuprim::device_buffer<std::int32_t> doff(off.size());
  cuprim_test::upload(din.data(), keys);
  cuprim_test::upload(vin.data(), vals);
  cuprim_test::upload(doff.data(), off);
  cuprim_test::poison(dout);
  cuprim_test::poison(vout);
  cuprim::segmented_sort_pairs_sync(din.data(), dout.data(), vin.data(), vout.data(), n, S, doff.data());
  EXPECT_TRUE(radix_test::same_keys(cuprim_test::download(dout.data(), std::size_t(n)), want_k));
  EXPECT_TRUE(radix_test::same_values(cuprim_test::download(vout.data(), std::size_t(n)), want_v));
}

}  // namespace
