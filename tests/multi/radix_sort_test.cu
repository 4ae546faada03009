// Multi-GPU radix sort (cuprim::multi::radix_sort_keys / radix_sort_pairs) on 1, 2, 3 and 4 ranks of one process: the
// output keeps the input's shard sizes and is, bit for bit, the stable sort of the concatenated input, checked against
// std::stable_sort on the keys' ordered bits (written here) and against cuprim's single-GPU sort on device 0. Uneven,
// empty and tiny shards, an empty array, a prime n; skewed, tied and reversed keys; floating point with -0.0, +0.0,
// infinities, denormals and NaNs; the stability of pairs; values of 1, 4 and 12 bytes beside keys of 4 and 8 (their
// slices land in different layouts); the merge against the re-sort path; repeated runs; the argument rules.
#include <cuprim/device/radix_sort.cuh>
#include <cuprim/multi/radix_sort.cuh>

#include "common/expect_invalid.hpp"
#include "common/test_util.hpp"
#include "multi/multi_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace cm = cuprim::multi;
using cuprim_test::multi::layout;
using cuprim_test::multi::poison;
using cuprim_test::multi::rank_layouts;
using cuprim_test::multi::sharded_input;
using sizes_t = std::vector<std::int64_t>;

// ---------------------------------------------------------------------------------------------------------------
// The host reference: a stable sort on the keys' ordered bits (integers: signed with the sign bit flipped; floats:
// negatives all bits inverted, others the sign bit set, every NaN all ones, so -0.0 < +0.0 and NaNs last).

template <class K>
auto order_bits(const K& k) {
  using U = decltype(cuprim_test::bits(k));
  const U b = cuprim_test::bits(k);
  constexpr U top = U(U(1) << (sizeof(U) * 8 - 1));
  if constexpr (std::is_integral_v<K>) {
    return std::is_signed_v<K> ? U(b ^ top) : b;
  } else {
    if (std::isnan(k)) return U(~U(0));
    return (b & top) ? U(~b) : U(b | top);
  }
}

/// The permutation that stably sorts `keys`.
template <class K>
std::vector<std::size_t> stable_order(const std::vector<K>& keys) {
  std::vector<std::size_t> idx(keys.size());
  std::iota(idx.begin(), idx.end(), std::size_t(0));
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::size_t a, std::size_t b) { return order_bits(keys[a]) < order_bits(keys[b]); });
  return idx;
}

template <class T>
std::vector<T> permuted(const std::vector<T>& v, const std::vector<std::size_t>& idx) {
  std::vector<T> out(v.size());
  for (std::size_t i = 0; i < idx.size(); ++i) out[i] = v[idx[i]];
  return out;
}

template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << "size " << got.size() << ", expected " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!cuprim_test::same_bytes(got[i], want[i]))
      return ::testing::AssertionFailure() << "first difference at " << i << " of " << got.size() << ": "
                                           << cuprim_test::show(got[i]) << ", expected "
                                           << cuprim_test::show(want[i]);
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------------------------
// Shard sizes: the fixture's layouts (even, uneven, empty ends, all on the last rank), and two fixed ones

/// Weights 3, 1, 4, 1 (cycled), the remainder on the last rank.
layout uneven(std::int64_t n, int P) {
  const int w[] = {3, 1, 4, 1};
  std::int64_t sum = 0;
  for (int r = 0; r < P; ++r) sum += w[r % 4];
  sizes_t s(static_cast<std::size_t>(P));
  std::int64_t left = n;
  for (int r = 0; r + 1 < P; ++r) left -= s[std::size_t(r)] = n * w[r % 4] / sum;
  s.back() = left;
  return {"3:1:4:1", s};
}

/// The last rank empty (and rank 1 of four): the output's upper splitters sit at the end of the array.
layout empty_last(std::int64_t n, int P) {
  sizes_t s(static_cast<std::size_t>(P), 0);
  s[0] = P > 2 ? n / 2 : n;
  if (P > 2) s[2] = n - s[0];
  return {"empty-last", s};
}

/// The fixture's layouts and the two above.
std::vector<layout> layouts(std::int64_t n, int P, cuprim_test::rng& g) {
  auto l = rank_layouts(n, P, g.next());
  l.push_back(uneven(n, P));
  if (P > 1) l.push_back(empty_last(n, P));
  return l;
}

// ---------------------------------------------------------------------------------------------------------------
// Keys

template <class F>
F from_bits(std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t> b) {
  return std::bit_cast<F>(b);
}

/// Random floats over several magnitudes, about one in eight replaced by a special value: -0.0, +0.0, infinities,
/// denormals, the extremes, and NaNs of both signs and several payloads.
template <class F>
std::vector<F> floats_with_specials(cuprim_test::rng& r, std::size_t n) {
  auto v = cuprim_test::random_vector<F>(r, n);
  using L = std::numeric_limits<F>;
  std::vector<F> specials = {F(0), -F(0), F(0), -F(0), L::infinity(), -L::infinity(), L::denorm_min(),
                             -L::denorm_min(), L::max(), L::lowest(), L::min(), -L::min()};
  if constexpr (sizeof(F) == 4)
    for (std::uint32_t b : {0x7fc00000u, 0xffc00000u, 0x7fa00001u, 0xff800123u}) specials.push_back(from_bits<F>(b));
  else
    for (std::uint64_t b : {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                            0xfff4000000000123ull})
      specials.push_back(from_bits<F>(b));
  for (std::size_t i = 0; i < n; i += 1 + r.index(15)) v[i] = specials[r.index(specials.size())];
  return v;
}

std::vector<std::uint32_t> indices(std::size_t n) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  return v;
}

// ---------------------------------------------------------------------------------------------------------------
// Running the sorts

template <class T>
std::vector<T> from_ranks(const cm::communicator& c, const cm::sharded_buffer<T>& b, const sizes_t& sizes) {
  std::vector<T> h(static_cast<std::size_t>(std::accumulate(sizes.begin(), sizes.end(), std::int64_t(0))));
  cm::copy_to_host<T>(c, b.view(), sizes, h);
  return h;
}

/// An output of the layout's sizes, every byte 0xAB.
template <class T>
cm::sharded_buffer<T> poisoned(const cm::communicator& c, const layout& l) {
  auto b = cm::sharded_buffer<T>::for_ranks(c, l.sizes);
  poison(c, b);
  return b;
}

/// The keys sorted on the ranks (const_view: keys_in passed as a view of const keys, else of mutable ones).
template <class K>
std::vector<K> multi_sort_keys(const cm::communicator& c, const std::vector<K>& keys, const layout& l,
                               bool const_view = true) {
  sharded_input<K> in(c, l, keys);
  auto out = poisoned<K>(c, l);
  if (const_view) cm::radix_sort_keys(c, cm::sharded<const K>(in.dev.view()), out.view());
  else cm::radix_sort_keys(c, in.dev.view(), out.view());
  EXPECT_TRUE(same_bits(from_ranks(c, in.dev, l.sizes), keys)) << "keys_in was written";
  return from_ranks(c, out, l.sizes);
}

template <class K, class V>
std::pair<std::vector<K>, std::vector<V>> multi_sort_pairs(const cm::communicator& c, const std::vector<K>& keys,
                                                           const std::vector<V>& values, const layout& l,
                                                           bool resort = false) {
  sharded_input<K> ki(c, l, keys);
  sharded_input<V> vi(c, l, values);
  auto ko = poisoned<K>(c, l);
  auto vo = poisoned<V>(c, l);
  if (resort)
    cm::detail::radix_sort_with("cuprim::multi::detail::radix_sort_with", c, cm::sharded<const K>(ki.dev.view()),
                                ko.view(), cm::sharded<const V>(vi.dev.view()), vo.view(),
                                cm::detail::sort_finish::resort);
  else
    cm::radix_sort_pairs(c, ki.dev.view(), ko.view(), vi.dev.view(), vo.view());
  EXPECT_TRUE(same_bits(from_ranks(c, ki.dev, l.sizes), keys)) << "keys_in was written";
  EXPECT_TRUE(same_bits(from_ranks(c, vi.dev, l.sizes), values)) << "values_in was written";
  return {from_ranks(c, ko, l.sizes), from_ranks(c, vo, l.sizes)};
}

/// cuprim's single-GPU sort of the whole array, on device 0.
template <class K>
std::vector<K> one_gpu_keys(const std::vector<K>& keys) {
  cm::device_guard g(0);
  cuprim::device_buffer<K> in(keys.size()), out(keys.size());
  cuprim_test::upload(in.data(), keys);
  cuprim::radix_sort_keys(in.data(), out.data(), std::int64_t(keys.size()));
  return cuprim_test::download(out.data(), keys.size());
}

template <class K, class V>
std::pair<std::vector<K>, std::vector<V>> one_gpu_pairs(const std::vector<K>& keys, const std::vector<V>& values) {
  cm::device_guard g(0);
  cuprim::device_buffer<K> ki(keys.size()), ko(keys.size());
  cuprim::device_buffer<V> vi(values.size()), vo(values.size());
  cuprim_test::upload(ki.data(), keys);
  cuprim_test::upload(vi.data(), values);
  cuprim::radix_sort_pairs(ki.data(), ko.data(), vi.data(), vo.data(), std::int64_t(keys.size()));
  return {cuprim_test::download(ko.data(), keys.size()), cuprim_test::download(vo.data(), values.size())};
}

/// Sorts `keys` on the ranks in every layout; each result against std::stable_sort and the one-GPU sort.
template <class K>
void expect_sorted_keys(const cm::communicator& c, const std::vector<K>& keys, const std::vector<layout>& ls) {
  const auto want = permuted(keys, stable_order(keys));
  ASSERT_TRUE(same_bits(one_gpu_keys(keys), want)) << "cuprim::radix_sort_keys on one GPU against std::stable_sort";
  for (const layout& l : ls) {
    SCOPED_TRACE(l.name + " layout, " + std::to_string(keys.size()) + " keys of " + cuprim_test::type_name<K>());
    EXPECT_TRUE(same_bits(multi_sort_keys(c, keys, l), want));
  }
}

/// Sorts the pairs on the ranks in every layout; each result against std::stable_sort and the one-GPU sort.
template <class K, class V>
void expect_sorted_pairs(const cm::communicator& c, const std::vector<K>& keys, const std::vector<V>& values,
                         const std::vector<layout>& ls) {
  const auto idx = stable_order(keys);
  const std::vector<K> want_k = permuted(keys, idx);
  const std::vector<V> want_v = permuted(values, idx);
  const auto [k1, v1] = one_gpu_pairs(keys, values);
  ASSERT_TRUE(same_bits(k1, want_k)) << "cuprim::radix_sort_pairs on one GPU against std::stable_sort (keys)";
  ASSERT_TRUE(same_bits(v1, want_v)) << "cuprim::radix_sort_pairs on one GPU against std::stable_sort (values)";
  for (const layout& l : ls) {
    SCOPED_TRACE(l.name + " layout, " + std::to_string(keys.size()) + " pairs, keys of " +
                 cuprim_test::type_name<K>());
    const auto [k, v] = multi_sort_pairs(c, keys, values, l);
    EXPECT_TRUE(same_bits(k, want_k)) << "keys";
    EXPECT_TRUE(same_bits(v, want_v)) << "values";
  }
}

class MultiRadixSort : public ::testing::TestWithParam<int> {};

constexpr std::int64_t prime_n = 1000003;

#define MULTI_SORT_SETUP()                \
  const int P = GetParam();               \
  MULTI_RANKS(P);                         \
  SCOPED_TRACE(cuprim_test::seed_message()); \
  cuprim_test::rng g(cuprim_test::test_seed())

TEST_P(MultiRadixSort, Uint32) {
  MULTI_SORT_SETUP();
  expect_sorted_keys(comm, cuprim_test::random_vector<std::uint32_t>(g, prime_n), layouts(prime_n, P, g));
}

TEST_P(MultiRadixSort, EmptyArray) {
  MULTI_SORT_SETUP();
  const std::vector<layout> zero{{"empty", sizes_t(static_cast<std::size_t>(P), 0)}};
  expect_sorted_keys(comm, std::vector<std::uint32_t>{}, zero);
  expect_sorted_pairs(comm, std::vector<std::uint32_t>{}, std::vector<std::uint32_t>{}, zero);
}

// Fewer keys than ranks, and sizes around one merge tile.
TEST_P(MultiRadixSort, TinyArrays) {
  MULTI_SORT_SETUP();
  for (std::int64_t n : {1, 2, 3, 5, 17, 257, 2816, 3841, 11265, 15365, 40000}) {
    const auto keys = cuprim_test::random_vector<std::uint32_t>(g, std::size_t(n), 0, 9);
    expect_sorted_keys(comm, keys, layouts(n, P, g));
    expect_sorted_pairs(comm, keys, indices(std::size_t(n)), layouts(n, P, g));
  }
}

TEST_P(MultiRadixSort, Int64) {
  MULTI_SORT_SETUP();
  expect_sorted_keys(comm, cuprim_test::random_vector<std::int64_t>(g, prime_n), layouts(prime_n, P, g));
}

// Every key in a band of 16 values: every splitter falls in a run of ties that spans ranks.
TEST_P(MultiRadixSort, NarrowBandInt64) {
  MULTI_SORT_SETUP();
  std::vector<std::int64_t> keys(static_cast<std::size_t>(prime_n));
  for (auto& k : keys) k = -5000000 + std::int64_t(g.index(16));
  expect_sorted_keys(comm, keys, layouts(prime_n, P, g));
}

// The input in descending order: every rank's keys belong to other ranks.
TEST_P(MultiRadixSort, ReversedInput) {
  MULTI_SORT_SETUP();
  std::vector<std::uint32_t> keys(static_cast<std::size_t>(prime_n));
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = std::uint32_t((keys.size() - i) / 3);
  expect_sorted_keys(comm, keys, layouts(prime_n, P, g));
}

TEST_P(MultiRadixSort, FloatSpecials) {
  MULTI_SORT_SETUP();
  expect_sorted_keys(comm, floats_with_specials<float>(g, std::size_t(prime_n)), layouts(prime_n, P, g));
}

TEST_P(MultiRadixSort, DoubleSpecials) {
  MULTI_SORT_SETUP();
  expect_sorted_keys(comm, floats_with_specials<double>(g, 777777), layouts(777777, P, g));
}

// Many ties: the values (global indices) show that equal keys keep their global input order.
TEST_P(MultiRadixSort, PairsAreStable) {
  MULTI_SORT_SETUP();
  const auto keys = cuprim_test::random_vector<std::uint32_t>(g, std::size_t(prime_n), 0, 999);
  expect_sorted_pairs(comm, keys, indices(std::size_t(prime_n)), layouts(prime_n, P, g));
  const auto band = cuprim_test::random_vector<std::uint32_t>(g, std::size_t(prime_n), 1000, 1007);
  expect_sorted_pairs(comm, band, indices(std::size_t(prime_n)), layouts(prime_n, P, g));
}

TEST_P(MultiRadixSort, PairsAllEqual) {
  MULTI_SORT_SETUP();
  const std::vector<std::uint32_t> keys(static_cast<std::size_t>(prime_n), 42u);
  const auto values = indices(std::size_t(prime_n));
  expect_sorted_pairs(comm, keys, values, layouts(prime_n, P, g));  // the values stay 0, 1, 2, ...
}

/// A value of 12 bytes: a size that does not divide 16, so its slices are sent as they lie (no head, no padding).
struct value12 {
  std::uint32_t a, b, c;
};
std::ostream& operator<<(std::ostream& os, const value12& v) {
  return os << "{" << v.a << ", " << v.b << ", " << v.c << "}";
}

// Keys and values of other widths: 64-bit keys with 1-byte values (the keys' slices sent from 16-byte boundaries of
// 2 elements, the values' of 16), 32-bit keys with 12-byte values (the values' slices unaligned). The keys' and the
// values' receive layouts then differ, and each must be read where it landed.
TEST_P(MultiRadixSort, PairsOfOtherWidths) {
  MULTI_SORT_SETUP();
  const auto wide = cuprim_test::random_vector<std::uint64_t>(g, std::size_t(prime_n), 0, 99999);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(prime_n));
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::uint8_t(i * 7 + i / 251);
  expect_sorted_pairs(comm, wide, bytes, layouts(prime_n, P, g));
  const auto narrow = cuprim_test::random_vector<std::uint32_t>(g, std::size_t(prime_n), 0, 4999);
  std::vector<value12> twelve(static_cast<std::size_t>(prime_n));
  for (std::size_t i = 0; i < twelve.size(); ++i)
    twelve[i] = {std::uint32_t(i), std::uint32_t(i * 3), ~std::uint32_t(i)};
  expect_sorted_pairs(comm, narrow, twelve, layouts(prime_n, P, g));
}

// Several merge tiles per run and the one-sweep passes of the local sorts.
TEST_P(MultiRadixSort, Large) {
  MULTI_SORT_SETUP();
  const std::int64_t n = (std::int64_t(1) << 22) - 3;
  expect_sorted_keys(comm, cuprim_test::random_vector<std::uint32_t>(g, std::size_t(n)), {uneven(n, P)});
  const auto few = cuprim_test::random_vector<std::uint32_t>(g, std::size_t(n), 0, 1 << 16);
  expect_sorted_pairs(comm, few, indices(std::size_t(n)), {rank_layouts(n, P, g.next()).back()});
}

// The re-sort path (a second radix sort of the received runs) gives the merge's bits.
TEST_P(MultiRadixSort, ResortMatchesMerge) {
  MULTI_SORT_SETUP();
  const auto keys = cuprim_test::random_vector<std::uint32_t>(g, std::size_t(prime_n), 0, 4999);
  const auto values = indices(std::size_t(prime_n));
  const auto idx = stable_order(keys);
  for (const layout& l : layouts(prime_n, P, g)) {
    SCOPED_TRACE(l.name + " layout");
    const auto merged = multi_sort_pairs(comm, keys, values, l);
    const auto resorted = multi_sort_pairs(comm, keys, values, l, true);
    EXPECT_TRUE(same_bits(resorted.first, merged.first));
    EXPECT_TRUE(same_bits(resorted.second, merged.second));
    EXPECT_TRUE(same_bits(merged.second, permuted(values, idx)));
  }
}

TEST_P(MultiRadixSort, RepeatGivesSameBits) {
  MULTI_SORT_SETUP();
  const auto keys = floats_with_specials<float>(g, std::size_t(prime_n));
  const layout l = uneven(prime_n, P);
  const auto first = multi_sort_keys(comm, keys, l);
  EXPECT_TRUE(same_bits(multi_sort_keys(comm, keys, l, false), first));
  EXPECT_TRUE(same_bits(first, permuted(keys, stable_order(keys))));
}

TEST_P(MultiRadixSort, ArgumentRules) {
  using cuprim_test::expect_invalid;
  const int P = GetParam();
  MULTI_RANKS(P);
  const auto sizes = cm::even_split(64 * P, P);
  auto ki = cm::sharded_buffer<std::uint32_t>::for_ranks(comm, sizes);
  auto ko = cm::sharded_buffer<std::uint32_t>::for_ranks(comm, sizes);
  auto vi = cm::sharded_buffer<std::uint32_t>::for_ranks(comm, sizes);
  auto vo = cm::sharded_buffer<std::uint32_t>::for_ranks(comm, sizes);
  const std::string keys_fn = "cuprim::multi::radix_sort_keys", pairs_fn = "cuprim::multi::radix_sort_pairs";

  cm::sharded<std::uint32_t> view = ki.view();  // one shard too many
  std::vector<cm::shard<std::uint32_t>> shards(view.begin(), view.end());
  shards.push_back({nullptr, 0});
  expect_invalid([&] { cm::radix_sort_keys(comm, cm::sharded<std::uint32_t>(shards), ko.view()); }, "keys_in",
                 keys_fn);

  cm::sharded<std::uint32_t> longer = ko.view();  // an output shard larger than its input
  longer[0].size += 1;
  expect_invalid([&] { cm::radix_sort_keys(comm, ki.view(), longer); }, "keys_out", keys_fn);

  cm::sharded<std::uint32_t> null = ki.view();  // a non-empty shard without data
  null[0].data = nullptr;
  expect_invalid([&] { cm::radix_sort_keys(comm, null, ko.view()); }, "keys_in", keys_fn);

  expect_invalid([&] { cm::radix_sort_keys(comm, ki.view(), ki.view()); }, "keys_out", keys_fn);  // in place

  cm::sharded<std::uint32_t> shorter = vo.view();
  shorter[0].size -= 1;
  expect_invalid([&] { cm::radix_sort_pairs(comm, ki.view(), ko.view(), vi.view(), shorter); }, "values_out",
                 pairs_fn);
  expect_invalid([&] { cm::radix_sort_pairs(comm, ki.view(), ko.view(), vi.view(), ko.view()); }, "values_out",
                 pairs_fn);  // both outputs in one array
}

INSTANTIATE_TEST_SUITE_P(Ranks, MultiRadixSort, cuprim_test::multi::ranks_param, cuprim_test::multi::ranks_name);
// Three ranks: a merge round whose last pair has one run (its second side empty), and rounds of uneven groups.
INSTANTIATE_TEST_SUITE_P(ThreeRanks, MultiRadixSort, ::testing::Values(3), cuprim_test::multi::ranks_name);

}  // namespace
