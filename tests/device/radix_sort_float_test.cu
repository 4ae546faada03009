// Radix sort of the floating-point key types against std::stable_sort, and the documented order of the special
// values: -inf < negatives < -denormals < -0.0 < +0.0 < +denormals < positives < +inf < NaN (NaNs last in both
// directions, in input order).
#include "device/radix_sort_cases.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace {

template <class K>
class RadixSortFloat : public cuprim_test::gpu_test {};
using float_keys = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(RadixSortFloat, float_keys, cuprim_test::type_names);

TYPED_TEST(RadixSortFloat, MatchesStableSort) {
  CUPRIM_TEST_RNG(r);
  radix_test::run_all<TypeParam>(r);
}

/// A single NaN among finite keys, first, in the middle or last (the histogram pass reads the first and last keys
/// apart from the rest when the array is not 16-byte aligned): the whole sort must take the NaN path.
TYPED_TEST(RadixSortFloat, OneNaNAmongFiniteKeys) {
  using K = TypeParam;
  using B = typename cuprim::detail::radix_key<K>::bits_t;
  CUPRIM_TEST_RNG(r);
  const B exp = cuprim::detail::radix_key<K>::exponent_mask();
  const B top = cuprim::detail::radix_key<K>::top;
  const std::int64_t n = 300007;
  for (std::int64_t at : {std::int64_t(0), n / 2, n - 1})
    for (int offset : {0, 1})
      for (bool desc : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "NaN at " << at << " offset " << offset << (desc ? " descending" : ""));
        auto keys = radix_test::make_keys<K>(n, radix_test::shape::no_nan, r);
        // A NaN that the ordered bits alone would misplace: a negative one sorts first ascending; a positive one
        // sorts first descending (its inverted bits are the smallest).
        const B nan_bits = desc ? B(exp | 3) : B(exp | top | 3);
        std::memcpy(static_cast<void*>(&keys[std::size_t(at)]), &nan_bits, sizeof(K));
        std::vector<K> want(keys.size());
        cuprim::host::radix_sort_keys(keys.data(), want.data(), n, desc);
        cuprim::device_buffer<K> in(static_cast<std::size_t>(n) + 1), out(static_cast<std::size_t>(n));
        cuprim_test::upload(in.data() + offset, keys);
        cuprim_test::poison(out);
        cuprim::radix_sort_keys(in.data() + offset, out.data(), n,
                                {desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending});
        EXPECT_TRUE(radix_test::same_keys(cuprim_test::download(out.data(), std::size_t(n)), want));
      }
}

/// The ordered-bits path beyond the plain sort: bit ranges (one pass at the top or inside the key, several passes
/// from a begin_bit above 0), the double-buffer form with an odd and an even number of passes, and argsort; keys
/// without NaN, past the on-chip sizes, both directions.
TYPED_TEST(RadixSortFloat, OrderedBitsPathForms) {
  using K = TypeParam;
  CUPRIM_TEST_RNG(r);
  constexpr int w = int(sizeof(K)) * 8;
  const std::int64_t n = 200003;
  const std::pair<int, int> ranges[] = {{w - 8, w}, {8, 16}, {4, w - 3}, {0, w}};
  for (bool desc : {false, true}) {
    const auto keys = radix_test::make_keys<K>(n, radix_test::shape::no_nan, r);
    const auto order = desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending;
    cuprim::device_buffer<K> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
    cuprim_test::upload(in.data(), keys);
    for (auto [b, e] : ranges) {
      SCOPED_TRACE(::testing::Message() << "bits [" << b << ", " << e << ")" << (desc ? " descending" : ""));
      std::vector<K> want(keys.size());
      cuprim::host::radix_sort_keys(keys.data(), want.data(), n, desc, b, e);
      cuprim_test::poison(out);
      cuprim::radix_sort_keys(in.data(), out.data(), n, {order, b, e});
      EXPECT_TRUE(radix_test::same_keys(cuprim_test::download(out.data(), std::size_t(n)), want)) << "plain form";
      // double buffer: the result lands in current() after (passes) buffer flips
      cuprim::device_buffer<K> a(static_cast<std::size_t>(n)), c(static_cast<std::size_t>(n));
      cuprim_test::upload(a.data(), keys);
      cuprim_test::poison(c);
      cuprim::double_buffer<K> db(a.data(), c.data());
      cuprim::radix_sort_keys(db, n, {order, b, e});
      EXPECT_TRUE(radix_test::same_keys(cuprim_test::download(db.current(), std::size_t(n)), want)) << "double buffer";
    }
    std::vector<std::int64_t> want_idx(keys.size());
    cuprim::host::argsort(keys.data(), want_idx.data(), n, desc);
    cuprim::device_buffer<std::int64_t> idx(static_cast<std::size_t>(n));
    cuprim_test::poison(idx);
    cuprim::argsort(in.data(), idx.data(), n, {order});
    EXPECT_EQ(cuprim_test::download(idx.data(), std::size_t(n)), want_idx) << "argsort";
  }
}

/// White box: the histogram pass's NaN flag, the word after the histograms in the workspace
/// (radix_core_parts::hist, radix_sort_problem.cuh), is 0 for keys without NaN (so the passes take the ordered-bits
/// path) and 1 with one NaN, whatever the workspace held before.
TYPED_TEST(RadixSortFloat, NaNFlagInWorkspace) {
  using K = TypeParam;
  using B = typename cuprim::detail::radix_key<K>::bits_t;
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = 300007;
  auto keys = radix_test::make_keys<K>(n, radix_test::shape::no_nan, r);
  const std::size_t bytes = cuprim::radix_sort_keys_workspace_bytes<K>(n);
  const std::size_t flag_word = 1 * sizeof(K) * 256;  // one portion
  ASSERT_GT(bytes, (flag_word + 1) * sizeof(unsigned));
  cuprim::device_buffer<unsigned char> ws(bytes);
  cuprim::device_buffer<K> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  for (bool with_nan : {false, true}) {
    if (with_nan) {
      const B nan_bits = B(cuprim::detail::radix_key<K>::exponent_mask() | 1);
      std::memcpy(static_cast<void*>(&keys[std::size_t(n / 3)]), &nan_bits, sizeof(K));
    }
    cuprim_test::upload(in.data(), keys);
    cuprim_test::poison(ws);
    cuprim::radix_sort_keys(in.data(), out.data(), n, cuprim::workspace{ws.data(), bytes});
    const auto words = cuprim_test::download(reinterpret_cast<const unsigned*>(ws.data()), flag_word + 1);
    EXPECT_EQ(words[flag_word], with_nan ? 1u : 0u) << (with_nan ? "one NaN" : "no NaN");
    std::vector<K> want(keys.size());
    cuprim::host::radix_sort_keys(keys.data(), want.data(), n);
    EXPECT_TRUE(radix_test::same_keys(cuprim_test::download(out.data(), std::size_t(n)), want));
  }
}

/// The order written out by hand (not through any comparator): the special values in ascending order, each
/// tagged with its position; shuffled, sorted as pairs (key, tag); the tags must come back in order.
TYPED_TEST(RadixSortFloat, DocumentedOrderOfSpecialValues) {
  using K = TypeParam;
  using B = typename cuprim::detail::radix_key<K>::bits_t;
  const B top = cuprim::detail::radix_key<K>::top, exp = cuprim::detail::radix_key<K>::exponent_mask();
  auto k = [](B b) {
    K x;
    std::memcpy(static_cast<void*>(&x), &b, sizeof(K));
    return x;
  };
  const B quiet = B(B(exp >> 1) & ~exp);
  // ascending: -inf, -max, -1.5, -denorm(big), -denorm(min), -0, +0, +denorm(min), +denorm(big), 1.5, max, +inf,
  // then NaNs in input order: +qNaN, -qNaN, +sNaN-ish payload
  const B big_denorm = B(~exp & ~top), max_finite = B(B(exp - 1) | big_denorm), one_half = B(exp >> 1);
  const std::vector<B> order = {B(exp | top),       B(max_finite | top), B(one_half | top), B(big_denorm | top),
                                B(1 | top),         top,                 B(0),              B(1),
                                big_denorm,         one_half,            max_finite,        exp,
                                B(exp | quiet | 1), B(exp | quiet | top), B(exp | 2)};
  const std::size_t nan_first = 12;
  CUPRIM_TEST_RNG(r);
  for (bool desc : {false, true}) {
    std::vector<K> keys;
    std::vector<std::uint32_t> tags;
    for (int copy = 0; copy < 3; ++copy)
      for (std::size_t i = 0; i < order.size(); ++i) {
        keys.push_back(k(order[i]));
        tags.push_back(std::uint32_t(i));
      }
    // shuffle the non-NaN keys only, keeping the NaNs' relative order (they must come back in input order)
    std::vector<std::size_t> perm(keys.size());
    std::iota(perm.begin(), perm.end(), 0);
    for (std::size_t i = perm.size() - 1; i > 0; --i) std::swap(perm[i], perm[r.index(i + 1)]);
    std::vector<K> sk;
    std::vector<std::uint32_t> st;
    for (std::size_t p : perm) {
      sk.push_back(keys[p]);
      st.push_back(tags[p] * 4 + 0);
    }
    // number the NaNs by input position so their order can be checked
    std::uint32_t nan_seen = 0;
    for (std::size_t i = 0; i < st.size(); ++i)
      if (st[i] / 4 >= nan_first) st[i] = 1000 + nan_seen++;
    const std::int64_t n = std::int64_t(sk.size());
    cuprim::device_buffer<K> din(sk.size()), dout(sk.size());
    cuprim::device_buffer<std::uint32_t> vin(st.size()), vout(st.size());
    cuprim_test::upload(din.data(), sk);
    cuprim_test::upload(vin.data(), st);
    cuprim::radix_sort_pairs(din.data(), dout.data(), vin.data(), vout.data(), n,
                             {desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending});
    const auto got = cuprim_test::download(vout.data(), st.size());
    // expected: non-NaN ranks (ascending or reversed), each three times, then the NaNs 1000, 1001, ...
    std::vector<std::uint32_t> want;
    for (std::size_t i = 0; i < nan_first; ++i) {
      const std::uint32_t rank = std::uint32_t(desc ? nan_first - 1 - i : i);
      for (int c = 0; c < 3; ++c) want.push_back(rank * 4);
    }
    for (std::uint32_t j = 0; j < nan_seen; ++j) want.push_back(1000 + j);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(got[i], want[i]) << "position " << i << (desc ? " (descending)" : " (ascending)");
  }
}

}  // namespace
