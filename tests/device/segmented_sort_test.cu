// segmented_sort_keys / segmented_sort_pairs against cuprim::host (std::stable_sort per segment): every length
// class (empty, 1, warp sizes 32·k ± 1 up to 256, the one-block limit ± 1, longer than a block), millions-style
// tiny segments, a few huge ones, uncovered positions before the first and after the last segment (left as they
// were), int32 and int64 offsets, descending order, a bit range, float keys with edge values, 8-byte keys with
// 16-byte values; pairs carry their input positions so stability is checked; bad offsets rejected with nothing
// written.
#include <cuprim/core/memory.hpp>
#include <cuprim/device/segmented_sort.cuh>
#include <cuprim/host/radix_sort.hpp>

#include "common/test_util.hpp"
#include "device/radix_sort_cases.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
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
    cuprim::segmented_sort_pairs(din.data(), dout.data(), vin.data(), vout.data(), n, S, doff.data(),
                                 cuprim::workspace{w.data(), bytes}, opt);
  } else {
    cuprim::segmented_sort_pairs(din.data(), dout.data(), vin.data(), vout.data(), n, S, doff.data(), opt);
  }
  EXPECT_TRUE(radix_test::same_keys(cuprim_test::download(dout.data(), std::size_t(n)), want_k)) << "pairs: keys";
  EXPECT_TRUE(radix_test::same_values(cuprim_test::download(vout.data(), std::size_t(n)), want_v)) << "pairs: values";
  // Keys only.
  cuprim_test::poison(dout);
  cuprim::segmented_sort_keys(din.data(), dout.data(), n, S, doff.data(), opt);
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

TEST(SegmentedSort, BadOffsetsWriteNothing) {
  CUPRIM_REQUIRE_GPU();
  const std::int64_t n = 1000;
  cuprim::device_buffer<std::uint32_t> din(n), dout(n);
  cuprim_test::upload(din.data(), std::vector<std::uint32_t>(n, 5u));
  for (const std::vector<std::int32_t>& off :
       {std::vector<std::int32_t>{0, 10, 5, 1000}, std::vector<std::int32_t>{0, 500, 1001},
        std::vector<std::int32_t>{-1, 10, 20}}) {
    cuprim::device_buffer<std::int32_t> doff(off.size());
    cuprim_test::upload(doff.data(), off);
    cuprim_test::poison(dout);
    try {
      cuprim::segmented_sort_keys(din.data(), dout.data(), n, std::int64_t(off.size() - 1), doff.data());
      ADD_FAILURE() << "no exception for bad offsets";
    } catch (const cuprim::invalid_argument& e) {
      EXPECT_EQ(e.argument(), "offsets");
    }
    const auto got = cuprim_test::download(dout.data(), std::size_t(n));
    for (std::uint32_t x : got) ASSERT_EQ(x, 0xCDCDCDCDu) << "output written";
  }
}

}  // namespace
