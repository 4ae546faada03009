// Radix sort of user-struct keys through a key decomposer (cuprim::key_members): against std::stable_sort with an
// independent comparator of the members (floats in the IEEE total order with NaNs last, as radix_sort_traits.cuh
// documents) over the full key, and on the members' ordered bits for bit ranges; keys-only
// and pairs (stability checked by the values), ascending and descending, bit ranges over the members' bits, keys
// of 48 bits (64-bit ordered bits) and 24 bits (32-bit), sizes from 1 to past one sort tile.
#include <cuprim/core/memory.hpp>
#include <cuprim/device/radix_sort.cuh>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

namespace {

class RadixSortDecomposer : public cuprim_test::gpu_test {};

/// 16 bytes: a 48-bit key (cell, then energy) and a payload that does not take part.
struct particle {
  std::int16_t cell;
  std::uint16_t pad;
  float energy;
  std::uint64_t id;
};
struct by_cell_energy {
  CUPRIM_HD cuprim::key_members_t<std::int16_t, float> operator()(const particle& p) const {
    return cuprim::key_members(p.cell, p.energy);
  }
};

}  // namespace

// The 24-bit key and its decomposer as a __host__ __device__ lambda (an extended lambda needs an enclosing function
// of external linkage, outside any class, whose return type is not deduced).
namespace radix_decomposer_test {

/// 3 bytes: a 24-bit key (hi, then lo).
struct packed3 {
  std::uint8_t hi;
  std::uint8_t lo_bytes[2];
};
struct by_hi_lo {
  CUPRIM_HD cuprim::key_members_t<std::uint8_t, std::int16_t> operator()(const packed3& p) const {
    std::int16_t lo;
    std::memcpy(&lo, p.lo_bytes, 2);
    return cuprim::key_members(p.hi, lo);
  }
};

void sort_hi_lo(const packed3* in, packed3* out, std::int64_t n, bool desc) {
  cuprim::radix_sort_keys(in, out, n, [] __host__ __device__(const packed3& p) { return by_hi_lo{}(p); },
                          {desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending});
}

}  // namespace radix_decomposer_test

namespace {

using radix_decomposer_test::by_hi_lo;
using radix_decomposer_test::packed3;

template <class K, class D>
std::uint64_t host_bits(const K& k, const D& dec, bool desc) {
  return dec(k).template fold<std::uint64_t>(0, desc);
}

/// The expected order: stable by the members' bits in [begin, end).
template <class K, class D>
std::vector<std::size_t> expected_order(const std::vector<K>& keys, const D& dec, bool desc, int begin, int end) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  const std::uint64_t mask = end - begin >= 64 ? ~0ull : ((1ull << (end - begin)) - 1);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ((host_bits(keys[a], dec, desc) >> begin) & mask) < ((host_bits(keys[b], dec, desc) >> begin) & mask);
  });
  return order;
}

std::vector<particle> make_particles(cuprim_test::rng& r, std::int64_t n) {
  const float specials[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min(), 1.5f};
  std::vector<particle> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    particle& p = v[i];
    p.cell = static_cast<std::int16_t>(r.between(-40, 40));  // many equal cells: the energy decides
    p.pad = static_cast<std::uint16_t>(r.next());
    const auto pick = r.between(0, 9);
    p.energy = pick < 7 ? specials[pick] : static_cast<float>(r.uniform(-100.0, 100.0));
    p.id = r.next();
  }
  return v;
}

/// An independent reference for the full 48 bits: cell in its order, then energy in the IEEE total order (-0.0
/// before +0.0, NaN last in both directions), stable; written from the documented order, not from fold.
bool energy_before(float a, float b, bool desc) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return !na && nb;  // NaN last, whatever the direction
  if (a == b) {                    // equal values: only -0.0 and +0.0 differ (-0.0 first ascending)
    const bool sa = std::signbit(a), sb = std::signbit(b);
    return desc ? (!sa && sb) : (sa && !sb);
  }
  return desc ? a > b : a < b;
}
std::vector<std::size_t> independent_order(const std::vector<particle>& keys, bool desc) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const particle &x = keys[a], &y = keys[b];
    if (x.cell != y.cell) return desc ? x.cell > y.cell : x.cell < y.cell;
    return energy_before(x.energy, y.energy, desc);
  });
  return order;
}

template <class K>
bool same_records(const std::vector<K>& got, const std::vector<K>& keys, const std::vector<std::size_t>& order) {
  for (std::size_t i = 0; i < order.size(); ++i)
    if (std::memcmp(&got[i], &keys[order[i]], sizeof(K)) != 0) return false;
  return true;
}

TEST_F(RadixSortDecomposer, KeysAndPairs48Bits) {
  CUPRIM_TEST_RNG(r);
  const by_cell_energy dec;
  for (std::int64_t n : {std::int64_t(1), std::int64_t(1000), std::int64_t(4097), std::int64_t(300000)}) {
    const auto keys = make_particles(r, n);
    std::vector<std::uint32_t> vals(keys.size());
    std::iota(vals.begin(), vals.end(), 0u);
    cuprim::device_buffer<particle> din(keys.size()), dout(keys.size());
    cuprim::device_buffer<std::uint32_t> vin(vals.size()), vout(vals.size());
    cuprim_test::upload(din.data(), keys);
    cuprim_test::upload(vin.data(), vals);
    for (bool desc : {false, true})
      for (auto [begin, end] : {std::pair{0, 48}, std::pair{32, 48}, std::pair{8, 40}}) {
        SCOPED_TRACE(::testing::Message() << "n=" << n << " desc=" << desc << " bits [" << begin << ", " << end << ")");
        const cuprim::radix_sort_options opt{desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending,
                                             begin, end};
        // The full range against the independent reference; bit ranges against the members' bits.
        const auto order = begin == 0 && end == 48 ? independent_order(keys, desc)
                                                   : expected_order(keys, dec, desc, begin, end);
        if (begin == 0 && end == 48) ASSERT_EQ(order, expected_order(keys, dec, desc, begin, end));
        cuprim_test::poison(dout);
        cuprim::radix_sort_keys(din.data(), dout.data(), n, dec, opt);
        EXPECT_TRUE(same_records(cuprim_test::download(dout.data(), keys.size()), keys, order)) << "keys only";
        cuprim_test::poison(dout);
        cuprim_test::poison(vout);
        cuprim::radix_sort_pairs(din.data(), dout.data(), vin.data(), vout.data(), n, dec, opt);
        EXPECT_TRUE(same_records(cuprim_test::download(dout.data(), keys.size()), keys, order)) << "pairs: keys";
        const auto got = cuprim_test::download(vout.data(), vals.size());
        bool stable = true;
        for (std::size_t i = 0; i < order.size(); ++i) stable = stable && got[i] == order[i];
        EXPECT_TRUE(stable) << "pairs: values (the input positions, so also stability)";
      }
  }
}

TEST_F(RadixSortDecomposer, Keys24BitsWithALambda) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = 70000;
  std::vector<packed3> keys(static_cast<std::size_t>(n));
  for (auto& k : keys) {
    k.hi = static_cast<std::uint8_t>(r.between(0, 5));
    const auto lo = static_cast<std::int16_t>(r.between(-300, 300));
    std::memcpy(k.lo_bytes, &lo, 2);
  }
  cuprim::device_buffer<packed3> din(keys.size()), dout(keys.size());
  cuprim_test::upload(din.data(), keys);
  for (bool desc : {false, true}) {
    SCOPED_TRACE(desc ? "descending" : "ascending");
    cuprim_test::poison(dout);
    radix_decomposer_test::sort_hi_lo(din.data(), dout.data(), n, desc);
    EXPECT_TRUE(same_records(cuprim_test::download(dout.data(), keys.size()), keys,
                             expected_order(keys, by_hi_lo{}, desc, 0, 24)));
  }
}

TEST_F(RadixSortDecomposer, EmptyInputWritesNothing) {
  cuprim::device_buffer<particle> out(4);
  cuprim_test::poison(out);
  cuprim::device_buffer<particle> in(4);
  cuprim::radix_sort_keys(in.data(), out.data(), 0, by_cell_energy{});
  cuprim::radix_sort_keys(static_cast<const particle*>(nullptr), static_cast<particle*>(nullptr), 0, by_cell_energy{});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(cuprim_test::bytes_are(out.data(), 4 * sizeof(particle)));
}

}  // namespace
