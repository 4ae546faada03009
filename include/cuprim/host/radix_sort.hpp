// cuprim/host/radix_sort.hpp: sequential host references for the radix sort (std::stable_sort).
//
//   cuprim::host::sort_less<K>(a, b, descending)               the device sort's order, by value (no bit tricks)
//   cuprim::host::radix_sort_keys(in, out, n, options)          out = in stably sorted
//   cuprim::host::radix_sort_pairs(kin, kout, vin, vout, n, options)
//   cuprim::host::argsort(keys, indices, n, options)
//
// Full-width sorts compare by value: integers by <; floating point by < with -0.0 before +0.0 and every NaN after
// everything else, in both directions (the order documented in device/radix_sort.cuh). A bit range compares the
// bits [begin_bit, end_bit) of the ordered key (device/detail/radix_sort_traits.cuh), as the device sort defines it.
#pragma once

#include <cuprim/device/detail/radix_sort_traits.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <vector>

namespace cuprim::host {

/// Key as a double for the floating-point comparisons (exact for every float type).
template <class K>
double key_value(const K& k) {
  if constexpr (std::is_same_v<K, __half>) return double(__half2float(k));
  else if constexpr (std::is_same_v<K, __nv_bfloat16>) return double(__bfloat162float(k));
  else return double(k);
}

/// a strictly before b in the device sort's full-width order.
template <class K>
bool sort_less(const K& a, const K& b, bool descending) {
  if constexpr (std::is_integral_v<K>) {
    return descending ? b < a : a < b;
  } else {
    const double x = key_value(a), y = key_value(b);
    const bool nx = std::isnan(x), ny = std::isnan(y);
    if (nx || ny) return !nx && ny;  // NaNs last, in both directions
    if (x == y) {
      if (x != 0.0) return false;
      const bool sx = std::signbit(x), sy = std::signbit(y);  // -0.0 before +0.0 ascending
      return descending ? (!sx && sy) : (sx && !sy);
    }
    return descending ? y < x : x < y;
  }
}

/// The comparison of the device sort under `begin_bit`, `end_bit` (end_bit: the resolved value).
template <class K>
struct sort_compare {
  bool descending;
  int begin_bit, end_bit;
  bool operator()(const K& a, const K& b) const {
    using traits = cuprim::detail::radix_key<K>;
    if (begin_bit == 0 && end_bit == traits::bits) return sort_less(a, b, descending);
    using bits_t = typename traits::bits_t;
    const int width = end_bit - begin_bit;
    const std::uint64_t mask = width >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1;
    const std::uint64_t x = (std::uint64_t(bits_t(traits::ordered(a, descending))) >> begin_bit) & mask;
    const std::uint64_t y = (std::uint64_t(bits_t(traits::ordered(b, descending))) >> begin_bit) & mask;
    return x < y;
  }
};

/// indices[i] = position of the i-th key in the stable order.
template <class K, class I>
void argsort(const K* keys, I* indices, std::int64_t n, bool descending = false, int begin_bit = 0,
             int end_bit = cuprim::detail::radix_key<K>::bits) {
  if (n <= 0) return;
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
  std::iota(idx.begin(), idx.end(), std::int64_t(0));
  const sort_compare<K> cmp{descending, begin_bit, end_bit};
  std::stable_sort(idx.begin(), idx.end(), [&](std::int64_t a, std::int64_t b) { return cmp(keys[a], keys[b]); });
  for (std::int64_t i = 0; i < n; ++i) indices[i] = static_cast<I>(idx[std::size_t(i)]);
}

/// out = in stably sorted.
template <class K>
void radix_sort_keys(const K* in, K* out, std::int64_t n, bool descending = false, int begin_bit = 0,
                     int end_bit = cuprim::detail::radix_key<K>::bits) {
  if (n <= 0) return;
  std::copy(in, in + n, out);
  std::stable_sort(out, out + n, sort_compare<K>{descending, begin_bit, end_bit});
}

/// The pairs (kin[i], vin[i]) stably sorted by key.
template <class K, class V>
void radix_sort_pairs(const K* kin, K* kout, const V* vin, V* vout, std::int64_t n, bool descending = false,
                      int begin_bit = 0, int end_bit = cuprim::detail::radix_key<K>::bits) {
  if (n <= 0) return;
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
  argsort(kin, idx.data(), n, descending, begin_bit, end_bit);
  for (std::int64_t i = 0; i < n; ++i) {
    kout[i] = kin[idx[std::size_t(i)]];
    vout[i] = vin[idx[std::size_t(i)]];
  }
}

}  // namespace cuprim::host
