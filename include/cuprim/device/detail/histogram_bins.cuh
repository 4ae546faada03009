// cuprim/device/detail/histogram_bins.cuh: the bin rules of the histogram (which bin a sample falls in), shared
// by every histogram kernel. The host reference (cuprim/host/histogram.hpp) implements the same rules
// independently, from their statement in cuprim/device/histogram.cuh.
//
// A binner is a small trivially copyable struct, built on the host from the caller's levels, whose operator()
// returns the bin of one sample, or -1 when the sample is counted in no bin.
//
//  - hist_even_fast<S>    equal-width bins, integer samples of at most 4 bytes, bin width a power of two and every
//                         difference sample - lower representable modulo 2^32: one subtraction, one compare, one
//                         shift (the uint8 / 256-bin and uint32 / 1024-bin shapes); AllIn = true (1- and 2-byte
//                         samples whose every value lies in [lower, upper)) drops the compare.
//  - hist_bytes<S>        equal-width bins over 1-byte samples whose lower level is the type's minimum, every value
//                         inside [lower, upper), bin width a power of two (uint8 over [0, 256), int8 over
//                         [-128, 128), 256 bins or fewer): bin = (byte ^ flip) >> shift; map4 bins the four bytes of
//                         a 32-bit word at once, leaving each sample's bin in its own byte.
//  - hist_even_int<S>     equal-width bins, any integer sample: bin = floor((x - lower) * num_bins / (upper - lower))
//                         exactly (a shift, a 64-bit multiply-high with a correction, or a 128-bit division).
//  - hist_even_float<S>   equal-width bins by the floating-point rule (float, double, __half samples, and integer
//                         samples with floating-point levels): in double, bin = min(num_bins - 1,
//                         floor((x - lower) * scale)), scale = num_bins / (upper - lower) rounded to double once.
//  - hist_range<S, K>     bin edges: the i with edge[i] <= x < edge[i + 1], by binary search over the edges (in
//                         device memory), compared in the key type K (int64, uint64 or double).
#pragma once

#include <cuprim/core/functional.cuh>

#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

template <class S>
inline constexpr bool hist_integer_sample_v = std::is_integral_v<S> && !std::is_same_v<S, bool>;
template <class S>
inline constexpr bool hist_float_sample_v = std::is_floating_point_v<S> || std::is_same_v<S, __half>;

/// The key type samples and levels are compared in: uint64 for uint64 samples, int64 for other integer samples
/// with integer levels, double otherwise (floating-point samples, or floating-point levels).
template <class S, class Level>
using hist_key_t = std::conditional_t<
    hist_integer_sample_v<S> && std::is_integral_v<Level>,
    std::conditional_t<std::is_same_v<S, std::uint64_t> || std::is_same_v<S, unsigned long long> ||
                           (std::is_unsigned_v<S> && sizeof(S) == 8),
                       std::uint64_t, std::int64_t>,
    double>;

/// A sample as a double (the floating-point rule's first step).
template <class S>
CUPRIM_HD double hist_to_double(S x) {
  if constexpr (std::is_same_v<S, __half>) return static_cast<double>(__half2float(x));
  else return static_cast<double>(x);
}

/// An integer sample's key bits: sign-extended (signed types) or zero-extended to 64 bits.
template <class S>
CUPRIM_HD std::uint64_t hist_bits64(S x) {
  if constexpr (std::is_signed_v<S>) return static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
  else return static_cast<std::uint64_t>(x);
}

template <class S, bool AllIn = false>
struct hist_even_fast {
  std::uint32_t lo;   ///< lower, modulo 2^32
  std::uint32_t rm1;  ///< upper - lower - 1 (the range is at most 2^32)
  int shift;          ///< log2 of the bin width (< 32)
  CUPRIM_HD int operator()(S x) const {
    const std::uint32_t d = static_cast<std::uint32_t>(hist_bits64(x)) - lo;
    if constexpr (AllIn) return static_cast<int>(d >> shift);  // every value of S lies in [lower, upper)
    else return d <= rm1 ? static_cast<int>(d >> shift) : -1;
  }
};

template <class S>
struct hist_bytes {
  static_assert(sizeof(S) == 1, "hist_bytes bins 1-byte samples");
  std::uint32_t flip;  ///< 0x80 for signed samples (-128 becomes byte 0), 0 for unsigned
  int shift;           ///< log2 of the bin width (< 32)
  CUPRIM_HD int operator()(S x) const {
    return static_cast<int>((static_cast<std::uint32_t>(static_cast<unsigned char>(x)) ^ flip) >> shift);
  }
  /// The bins of the four samples packed in w, each in the byte its sample occupied.
  CUPRIM_HD std::uint32_t map4(std::uint32_t w) const {
    w ^= flip * 0x01010101u;
    return shift == 0 ? w : (w >> shift) & ((0xffu >> (shift < 8 ? shift : 8)) * 0x01010101u);
  }
};

template <class B>
struct hist_is_bytes : std::false_type {};
template <class S>
struct hist_is_bytes<hist_bytes<S>> : std::true_type {};

template <class S>
struct hist_even_int {
  enum : int { by_shift = 0, by_mulhi = 1, by_wide = 2 };
  std::uint64_t lo;     ///< lower (key bits)
  std::uint64_t range;  ///< upper - lower (≥ 1)
  std::uint64_t m;      ///< floor((2^64 - 1) / range), for by_mulhi
  int num_bins;
  int shift;  ///< log2 of the bin width, for by_shift
  int mode;
  CUPRIM_HD int operator()(S x) const {
    const std::uint64_t d = hist_bits64(x) - lo;
    if (d >= range) return -1;
    if (mode == by_shift) return static_cast<int>(d >> shift);
    if (mode == by_mulhi) {  // P = d * num_bins < 2^64; q = floor(P / range) from a multiply-high, then corrected
      const std::uint64_t P = d * static_cast<std::uint64_t>(num_bins);
#ifdef __CUDA_ARCH__
      std::uint64_t q = __umul64hi(P, m);
#else
      std::uint64_t q = static_cast<std::uint64_t>((static_cast<unsigned __int128>(P) * m) >> 64);
#endif
      std::uint64_t r = P - q * range;
      while (r >= range) {  // at most twice
        r -= range;
        ++q;
      }
      return static_cast<int>(q);
    }
    const unsigned __int128 P = static_cast<unsigned __int128>(d) * static_cast<unsigned>(num_bins);
    return static_cast<int>(P / range);
  }
};

template <class S>
struct hist_even_float {
  double lo, hi, scale;
  int num_bins;
  CUPRIM_HD int operator()(S x) const {
    const double v = hist_to_double(x);
    if (!(v >= lo && v < hi)) return -1;  // NaN fails both
#ifdef __CUDA_ARCH__
    const double t = __dmul_rn(__dsub_rn(v, lo), scale);
#else
    const double t = (v - lo) * scale;
#endif
    return t < static_cast<double>(num_bins) ? static_cast<int>(t) : num_bins - 1;  // t >= 0 here
  }
};

template <class S, class K>
struct hist_range {
  const K* edges;  ///< num_bins + 1 sorted edges in device memory
  int num_bins;
  CUPRIM_HD static K key(S x) {
    if constexpr (std::is_same_v<K, double>) return hist_to_double(x);
    else return static_cast<K>(x);
  }
  CUPRIM_HD int operator()(S x) const {
    const K v = key(x);
    if constexpr (std::is_same_v<K, double>) {
      if (v != v) return -1;
    }
    int a = 0, b = num_bins + 1;  // first edge > v
    while (a < b) {
      const int mid = (a + b) >> 1;
#ifdef __CUDA_ARCH__
      const K e = __ldg(edges + mid);
#else
      const K e = edges[mid];
#endif
      if (v < e) b = mid;
      else a = mid + 1;
    }
    return (a == 0 || a > num_bins) ? -1 : a - 1;
  }
};

/// Up to this many interleaved channels (RGBA) and active channels.
inline constexpr int hist_max_channels = 4;

/// One binner per active channel of interleaved samples: sample i is channel i % channels; its bin in the
/// concatenated histogram of the active channels is offset[slot] + the channel binner's bin.
template <class B>
struct hist_multi {
  B b[hist_max_channels];
  int slot[hist_max_channels];  ///< active slot of each channel, -1 when not counted
  int offset[hist_max_channels];
  int channels;
};

}  // namespace cuprim::detail
