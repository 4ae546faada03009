// cuprim/host/histogram.hpp: sequential host references for histograms.
//
//   cuprim::host::histogram_even(samples, n, histogram, num_bins, lower, upper)   overwrites num_bins counts
//   cuprim::host::histogram_range(samples, n, histogram, num_bins, edges)         overwrites num_bins counts
//   cuprim::host::even_bin(x, num_bins, lower, upper) / range_bin(x, num_bins, edges)   one sample's bin, or -1
//
// The bin rules are the ones cuprim/device/histogram.cuh states, written here independently and plainly: integer
// samples with integer levels in exact 128-bit arithmetic; everything else in double, as
// min(num_bins - 1, floor((x - lower) * scale)) with scale = num_bins / (upper - lower), each operation rounded
// to nearest. Levels are assumed valid (the device entry points check them). Multi-channel input is counted by
// calling these per channel with a stride (histogram_even_strided / histogram_range_strided).
#pragma once

#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace cuprim::host {

namespace detail {
template <class T>
double as_double(T x) {
  if constexpr (std::is_same_v<T, __half>) return static_cast<double>(__half2float(x));
  else return static_cast<double>(x);
}
template <class S, class Level>
inline constexpr bool exact_rule = std::is_integral_v<S> && std::is_integral_v<Level>;
}  // namespace detail

/// The bin of x among num_bins equal-width bins over [lower, upper), or -1.
template <class S, class Level>
int even_bin(S x, int num_bins, Level lower, Level upper) {
  if constexpr (detail::exact_rule<S, Level>) {
    const __int128 v = static_cast<__int128>(x), lo = static_cast<__int128>(lower), hi = static_cast<__int128>(upper);
    if (v < lo || v >= hi) return -1;
    const __int128 range = hi - lo;
    if (range % num_bins == 0) {  // the same floor, by a 64-bit division (much faster on the host)
      const std::uint64_t width = static_cast<std::uint64_t>(range / num_bins);
      return static_cast<int>(static_cast<std::uint64_t>(v - lo) / width);
    }
    return static_cast<int>((v - lo) * num_bins / range);
  } else {
    const double v = detail::as_double(x), lo = detail::as_double(lower), hi = detail::as_double(upper);
    if (!(v >= lo && v < hi)) return -1;
    const double scale = static_cast<double>(num_bins) / (hi - lo);
    volatile double d = v - lo;  // rounded on its own: no fused multiply-add
    const double t = d * scale;
    return t < static_cast<double>(num_bins) ? static_cast<int>(std::floor(t)) : num_bins - 1;
  }
}

/// The i with edges[i] <= x < edges[i + 1] (num_bins + 1 sorted edges), or -1; compared in int128 for integer
/// samples and levels, else in double.
template <class S, class Level>
int range_bin(S x, int num_bins, const Level* edges) {
  int a = 0, b = num_bins + 1;  // binary search for the first edge > x
  if constexpr (detail::exact_rule<S, Level>) {
    const __int128 v = static_cast<__int128>(x);
    while (a < b) {
      const int mid = (a + b) / 2;
      if (v < static_cast<__int128>(edges[mid])) b = mid;
      else a = mid + 1;
    }
  } else {
    const double v = detail::as_double(x);
    if (v != v) return -1;
    while (a < b) {
      const int mid = (a + b) / 2;
      if (v < detail::as_double(edges[mid])) b = mid;
      else a = mid + 1;
    }
  }
  const int found = (a == 0 || a > num_bins) ? -1 : a - 1;
  return found;
}

/// histogram[b] = number of samples[i * stride + offset], i < count, in even bin b (overwrites).
template <class S, class C, class Level>
void histogram_even_strided(const S* samples, std::int64_t count, std::int64_t stride, std::int64_t offset,
                            C* histogram, int num_bins, Level lower, Level upper) {
  for (int b = 0; b < num_bins; ++b) histogram[b] = 0;
  if constexpr (std::is_integral_v<S> && sizeof(S) <= 2) {  // every value's bin once, then a table look-up
    using U = std::make_unsigned_t<S>;
    std::vector<int> table(std::size_t(1) << (8 * sizeof(S)));
    for (std::size_t u = 0; u < table.size(); ++u)
      table[u] = even_bin(static_cast<S>(static_cast<U>(u)), num_bins, lower, upper);
    for (std::int64_t i = 0; i < count; ++i) {
      const int b = table[static_cast<U>(samples[i * stride + offset])];
      if (b >= 0) ++histogram[b];
    }
  } else {
    for (std::int64_t i = 0; i < count; ++i) {
      const int b = even_bin(samples[i * stride + offset], num_bins, lower, upper);
      if (b >= 0) ++histogram[b];
    }
  }
}

/// histogram[b] = number of samples[i * stride + offset], i < count, in range bin b (overwrites).
template <class S, class C, class Level>
void histogram_range_strided(const S* samples, std::int64_t count, std::int64_t stride, std::int64_t offset,
                             C* histogram, int num_bins, const Level* edges) {
  for (int b = 0; b < num_bins; ++b) histogram[b] = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const int b = range_bin(samples[i * stride + offset], num_bins, edges);
    if (b >= 0) ++histogram[b];
  }
}

/// The equal-width histogram of samples[0, n) (overwrites histogram[0, num_bins)).
template <class S, class C, class Level>
void histogram_even(const S* samples, std::int64_t n, C* histogram, int num_bins, Level lower, Level upper) {
  histogram_even_strided(samples, n, 1, 0, histogram, num_bins, lower, upper);
}

/// The range histogram of samples[0, n) (overwrites histogram[0, num_bins)).
template <class S, class C, class Level>
void histogram_range(const S* samples, std::int64_t n, C* histogram, int num_bins, const Level* edges) {
  histogram_range_strided(samples, n, 1, 0, histogram, num_bins, edges);
}

}  // namespace cuprim::host
