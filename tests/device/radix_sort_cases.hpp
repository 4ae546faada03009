// Radix sort test cases shared by the per-type test files: random keys with edge values and duplicates, the
// device sort against cuprim::host (std::stable_sort), bitwise, with pairs checked for stability.
#pragma once

#include <cuprim/core/memory.hpp>
#include <cuprim/device/radix_sort.cuh>
#include <cuprim/host/radix_sort.hpp>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace radix_test {

using cuprim_test::rng;

/// Edge values of K: min, max, 0; for floats ±0, ±inf, NaNs of both signs, denormals, the extremes.
template <class K>
std::vector<K> edge_values() {
  using traits = cuprim::detail::radix_key<K>;
  using B = typename traits::bits_t;
  std::vector<K> v;
  auto from_bits = [](B b) {
    K k;
    std::memcpy(static_cast<void*>(&k), &b, sizeof(K));
    return k;
  };
  if constexpr (std::is_integral_v<K>) {
    v = {std::numeric_limits<K>::min(), std::numeric_limits<K>::max(), K(0), K(1),
         K(std::numeric_limits<K>::max() - 1)};
    if constexpr (std::is_signed_v<K>) v.push_back(K(-1));
  } else {
    const B top = traits::top, exp = traits::exponent_mask();
    const B pos_zero = 0, neg_zero = top, inf = exp, neg_inf = B(exp | top);
    const B qnan = B(exp | (B(exp >> 1) & ~exp) | 1), neg_nan = B(qnan | top), denorm = 1;
    const B big_denorm = B(B(~exp & ~top));
    const B max_finite = B(exp - 1) | B(~exp & ~top);  // largest finite (exponent all ones but one, mantissa all ones)
    for (B b : {pos_zero, neg_zero, inf, neg_inf, qnan, neg_nan, B(qnan + 2), denorm, B(denorm | top), big_denorm,
                B(big_denorm | top), max_finite, B(max_finite | top), B(exp >> 1), B((exp >> 1) | top)})
      v.push_back(from_bits(b));
  }
  return v;
}

/// random: every bit pattern (floats: NaNs included, about 1 in 256), edge values mixed in; no_nan: the same
/// without NaNs (floating-point sorts without a NaN take another path through the passes).
enum class shape { random, few_values, edges, all_equal, sorted, reversed, low_entropy, no_nan };

/// n keys of the given shape.
template <class K>
std::vector<K> make_keys(std::int64_t n, shape s, rng& r) {
  using B = typename cuprim::detail::radix_key<K>::bits_t;
  std::vector<K> k(static_cast<std::size_t>(n));
  auto random_bits = [&] {
    B b = static_cast<B>(r.next());
    K x;
    std::memcpy(static_cast<void*>(&x), &b, sizeof(K));
    return x;
  };
  const auto edges = edge_values<K>();
  std::vector<K> pool;
  for (int i = 0; i < 13; ++i) pool.push_back(random_bits());
  for (auto& x : k) {
    switch (s) {
      case shape::random:
        x = r.index(50) == 0 ? edges[r.index(edges.size())] : random_bits();
        break;
      case shape::no_nan:
        do x = r.index(50) == 0 ? edges[r.index(edges.size())] : random_bits();
        while (cuprim::detail::radix_key<K>::is_nan(x));
        break;
      case shape::few_values: x = pool[r.index(pool.size())]; break;  // many duplicates: stability matters
      case shape::edges: x = edges[r.index(edges.size())]; break;
      case shape::all_equal: x = pool[0]; break;
      case shape::low_entropy: {  // one bit of entropy per byte: each byte 0 or 1
        B b = 0;
        for (std::size_t j = 0; j < sizeof(K); ++j) b = B(b | (B(r.next() & 1) << (8 * j)));
        std::memcpy(static_cast<void*>(&x), &b, sizeof(K));
        break;
      }
      default: x = random_bits(); break;
    }
  }
  if (s == shape::sorted || s == shape::reversed) {
    cuprim::host::radix_sort_keys(k.data(), k.data(), n, s == shape::reversed);
  }
  return k;
}

template <class K>
::testing::AssertionResult same_keys(const std::vector<K>& got, const std::vector<K>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "size " << got.size() << " vs " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!cuprim_test::same_bytes(got[i], want[i]))
      return ::testing::AssertionFailure() << "key " << i << " of " << got.size() << ": " << cuprim_test::show(got[i])
                                           << " vs expected " << cuprim_test::show(want[i]);
  return ::testing::AssertionSuccess();
}

template <class V>
::testing::AssertionResult same_values(const std::vector<V>& got, const std::vector<V>& want) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(V)) != 0)
      return ::testing::AssertionFailure() << "value " << i << " of " << got.size()
                                           << " differs (pair order not stable or value lost)";
  return ::testing::AssertionSuccess();
}

/// The policy the tuned sort runs on this device for keys of K and values of `value_bytes` bytes (0: keys alone).
template <class K>
cuprim::radix_sort_policy tuned_policy(int value_bytes) {
  return cuprim::radix_sort_policy_for(cuprim::current_tuned_arch(), int(sizeof(K)), value_bytes);
}

/// Sorts keys (plain form) and pairs with the values = input positions (stability), both directions, and checks
/// against the host; Policy: the sort's policy (cuprim::tuned: the device's row).
template <class K, auto Policy = cuprim::tuned>
void check_sort(std::int64_t n, shape s, bool descending, rng& r) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " shape=" << int(s) << (descending ? " descending" : " ascending"));
  const auto keys = make_keys<K>(n, s, r);
  const cuprim::radix_sort_options opt{descending ? cuprim::sort_order::descending : cuprim::sort_order::ascending};
  std::vector<K> want(keys.size());
  std::vector<std::uint32_t> idx(keys.size()), want_idx(keys.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = std::uint32_t(i);
  cuprim::host::radix_sort_pairs(keys.data(), want.data(), idx.data(), want_idx.data(), n, descending);

  cuprim::device_buffer<K> din(static_cast<std::size_t>(n)), dout(static_cast<std::size_t>(n));
  cuprim::device_buffer<std::uint32_t> vin(static_cast<std::size_t>(n)), vout(static_cast<std::size_t>(n));
  cuprim_test::upload(din.data(), keys);
  cuprim_test::upload(vin.data(), idx);
  cuprim_test::poison(dout);
  cuprim::radix_sort_keys<Policy>(din.data(), dout.data(), n, opt);
  EXPECT_TRUE(same_keys(cuprim_test::download(dout.data(), std::size_t(n)), want)) << "keys only";
  EXPECT_TRUE(same_keys(cuprim_test::download(din.data(), std::size_t(n)), keys)) << "input changed";
  cuprim_test::poison(dout);
  cuprim_test::poison(vout);
  cuprim::radix_sort_pairs<Policy>(din.data(), dout.data(), vin.data(), vout.data(), n, opt);
  EXPECT_TRUE(same_keys(cuprim_test::download(dout.data(), std::size_t(n)), want)) << "pairs: keys";
  EXPECT_TRUE(same_values(cuprim_test::download(vout.data(), std::size_t(n)), want_idx)) << "pairs: values";
}

/// Sizes around the one-block limit, the cluster sort's limits (ct: the largest input the one-block sort takes
/// below it; ct + 1: the smallest it takes, one key per thread; two blocks and a partial one with an empty fourth;
/// several keys per thread; its largest input) and the one-sweep tiles past that (a partial last tile), for K's
/// policies (keys alone and pairs, whose tiles differ).
template <class K>
std::vector<std::int64_t> sizes() {
  const cuprim::radix_sort_policy P = tuned_policy<K>(4), PK = tuned_policy<K>(0);
  // Pairs of 4-byte integer keys and 4-byte values travel packed, in the tiles of 8-byte keys (radix_sort_policy's
  // pack).
  const cuprim::radix_sort_policy PP = tuned_policy<std::uint64_t>(0);
  EXPECT_TRUE(P.onchip_tile() == PK.onchip_tile() && P.cluster_threads == PK.cluster_threads)
      << "the sizes below assume one cluster shape for keys and pairs";
  const std::int64_t ct = P.cluster_threads, on = P.onchip_tile(), st = P.small_tile();
  return {0,      1,      2,          31,     33,      st - 1, st, st + 1,
          ct,     ct + 1, 2 * ct + 5, 8 * ct + 1, 24 * ct + 7, on - 1, on, on + 1, on + PK.tile() - 1,
          on + 3 * PK.tile() + 5, on + P.tile() - 1, on + 3 * P.tile() + 5, on + PP.tile() - 1,
          on + 3 * PP.tile() + 5, (1 << 20) + 7};
}

template <class K>
void run_all(rng& r) {
  for (std::int64_t n : sizes<K>())
    for (bool desc : {false, true}) {
      check_sort<K>(n, shape::random, desc, r);
      if (cuprim::detail::radix_key<K>::kind == cuprim::detail::radix_kind::floating && n > 1000)
        check_sort<K>(n, shape::no_nan, desc, r);
    }
  for (shape s :
       {shape::few_values, shape::edges, shape::all_equal, shape::sorted, shape::reversed, shape::low_entropy})
    for (std::int64_t n : {std::int64_t(1000), std::int64_t(20011), std::int64_t(65536), std::int64_t(300007)})
      for (bool desc : {false, true}) check_sort<K>(n, s, desc, r);
}

}  // namespace radix_test
