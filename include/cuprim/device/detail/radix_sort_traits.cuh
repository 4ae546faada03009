// cuprim/device/detail/radix_sort_traits.cuh: how radix sort turns a key into ordered bits (host and device).
//
// radix_key<K>::ordered(k) maps a key to an unsigned integer of the key's width whose unsigned order is the sort
// order of the keys; the sort ranks digits of these bits and moves the original keys (the mapping is applied on
// every load, never stored, so it need not be invertible).
//
//   unsigned integers        the bits themselves
//   signed integers          the sign bit flipped (two's complement order)
//   float, double,           sign set: all bits inverted; sign clear: the sign bit set. This is the IEEE total order
//   __half, __nv_bfloat16    on magnitudes:  -inf < negatives < -denormals < -0.0 < +0.0 < +denormals < positives
//                            < +inf. -0.0 sorts strictly before +0.0 (they differ in bits; a stable comparison sort
//                            with operator< would keep them in input order instead). Every NaN (any sign, any
//                            payload) maps to all ones: NaNs sort after +inf, in input order among themselves.
//
// Descending order inverts the ordered bits, except that NaNs still map to all ones: NaNs come last in both
// directions. Equal keys keep their input order in both directions (the sort is stable).
//
// A bit range [begin_bit, end_bit) restricts the sort to those bits of the ordered value (bit 0 the least
// significant): keys equal on those bits keep their input order. For floating-point keys the bits are those of the
// ordered value, not of the stored float.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#ifndef CUPRIM_HD
#define CUPRIM_HD __host__ __device__ __forceinline__
#endif

namespace cuprim::detail {

template <int Bytes>
struct unsigned_of;
template <> struct unsigned_of<1> { using type = std::uint8_t; };
template <> struct unsigned_of<2> { using type = std::uint16_t; };
template <> struct unsigned_of<4> { using type = std::uint32_t; };
template <> struct unsigned_of<8> { using type = std::uint64_t; };

enum class radix_kind { unsigned_int, signed_int, floating };

/// The ordered bits of a floating-point key's bits b when it is not NaN (radix_key::ordered without the NaN test:
/// sign set, all bits inverted; sign clear, the sign bit set), and back. Two instructions each on the device: a
/// sign-extending shift and one three-input logic operation. A one-to-one map, so the one-sweep passes can carry
/// these bits in place of the keys (radix_sort_onesweep.cuh).
template <class U>
CUPRIM_HD U radix_ordered_bits(U b) {
  constexpr int w = int(sizeof(U)) * 8;
  const U sign_fill = U(std::make_signed_t<U>(b) >> (w - 1));
  return U(b ^ U(sign_fill | U(U(1) << (w - 1))));
}
template <class U>
CUPRIM_HD U radix_float_bits(U t) {
  constexpr int w = int(sizeof(U)) * 8;
  const U sign_fill = U(std::make_signed_t<U>(t) >> (w - 1));
  return U(t ^ U(U(~sign_fill) | U(U(1) << (w - 1))));
}

template <class K>
constexpr bool radix_sortable_v = std::is_integral_v<K> || std::is_same_v<K, float> || std::is_same_v<K, double> ||
                                  std::is_same_v<K, __half> || std::is_same_v<K, __nv_bfloat16>;

template <class K>
struct radix_key {
  static_assert(radix_sortable_v<K>,
                "radix sort keys: integers (bool excluded), float, double, __half or __nv_bfloat16");
  static_assert(!std::is_same_v<K, bool>, "radix sort keys: bool is not a key type");
  using bits_t = typename unsigned_of<sizeof(K)>::type;
  static constexpr int bits = int(sizeof(K)) * 8;
  static constexpr bits_t top = bits_t(bits_t(1) << (bits - 1));
  static constexpr radix_kind kind = std::is_integral_v<K>
                                         ? (std::is_signed_v<K> ? radix_kind::signed_int : radix_kind::unsigned_int)
                                         : radix_kind::floating;
  /// Exponent mask of the floating-point formats (all ones: inf or NaN).
  __host__ __device__ static constexpr bits_t exponent_mask() {
    if constexpr (std::is_same_v<K, float>) return bits_t(0x7f800000u);
    else if constexpr (std::is_same_v<K, double>) return bits_t(0x7ff0000000000000ull);
    else if constexpr (std::is_same_v<K, __half>) return bits_t(0x7c00u);
    else return bits_t(0x7f80u);  // __nv_bfloat16
  }

  static CUPRIM_HD bits_t raw(const K& k) {
    bits_t b;
    std::memcpy(&b, &k, sizeof(K));
    return b;
  }

  /// Whether k is a NaN (any sign, any payload); false for integers.
  static CUPRIM_HD bool is_nan(const K& k) {
    if constexpr (kind != radix_kind::floating) return false;
    else return bits_t(raw(k) & bits_t(~top)) > exponent_mask();
  }

  /// The ordered bits of k (ascending), NaNs all ones.
  static CUPRIM_HD bits_t ordered(const K& k) {
    const bits_t b = raw(k);
    if constexpr (kind == radix_kind::unsigned_int) {
      return b;
    } else if constexpr (kind == radix_kind::signed_int) {
      return bits_t(b ^ top);
    } else {
      // is_nan written out: through the call, ptxas scheduled the float histogram kernel differently.
      const bits_t mag = bits_t(b & bits_t(~top));
      if (mag > exponent_mask()) return bits_t(~bits_t(0));  // NaN
      return (b & top) ? bits_t(~b) : bits_t(b | top);
    }
  }

  /// The ordered bits for `descending` order: inverted, except NaN, which stays all ones (last).
  static CUPRIM_HD bits_t ordered(const K& k, bool descending) {
    const bits_t o = ordered(k);
    if (!descending) return o;
    if constexpr (kind == radix_kind::floating) {
      if (o == bits_t(~bits_t(0))) return o;  // NaN (no finite or infinite key maps to all ones)
    }
    return bits_t(~o);
  }

  /// Bits [begin_bit, begin_bit + count) of the ordered value (count ≤ 8), i.e. of ordered(k, descending) >> shift
  /// masked. Computed without the descending branch (inverting the ordered bits inverts every digit: the digit is
  /// xored with the mask) and, for floating point, with the sign folded into one xor, so that a key's digit costs
  /// 2 instructions for integers and about 7 for floats on the device (a sort computes it three times per key).
  static CUPRIM_HD unsigned digit(const K& k, bool descending, int shift, unsigned mask) {
    const unsigned flip = descending ? mask : 0u;
    if constexpr (kind != radix_kind::floating) {
      return (unsigned(ordered(k) >> shift) & mask) ^ flip;
    } else {
      if (is_nan(k)) return mask;  // NaN: all ones in both directions
      return (unsigned(radix_ordered_bits(raw(k)) >> shift) & mask) ^ flip;
    }
  }
};

}  // namespace cuprim::detail

namespace cuprim {

/// The members of a user-struct key that form its sort key, most significant first, as returned by a key
/// decomposer (see radix_sort_keys / radix_sort_pairs with a decomposer, device/radix_sort.cuh). Each member is
/// a radix-sortable type (integer, float, double, __half, __nv_bfloat16) and is ordered as that type sorts (floats
/// in the IEEE total order, NaNs last); the members together are at most 64 bits wide. Build it with key_members.
template <class... M>
struct key_members_t;

template <>
struct key_members_t<> {
  static constexpr int bits = 0;
  template <class U>
  CUPRIM_HD U fold(U acc, bool) const {
    return acc;
  }
};

template <class M, class... R>
struct key_members_t<M, R...> {
  static_assert(detail::radix_sortable_v<M> && !std::is_same_v<M, bool>,
                "key_members: each member must be an integer (bool excluded), float, double, __half or __nv_bfloat16");
  static constexpr int bits = detail::radix_key<M>::bits + key_members_t<R...>::bits;
  M first;
  key_members_t<R...> rest;
  CUPRIM_HD key_members_t(const M& m, const R&... r) : first(m), rest(r...) {}

  /// acc followed by the ordered bits of every member (`descending`: each member's descending order, NaNs last).
  template <class U>
  CUPRIM_HD U fold(U acc, bool descending) const {
    constexpr int w = detail::radix_key<M>::bits;
    const U mine = U(detail::radix_key<M>::ordered(first, descending));
    if constexpr (w >= int(sizeof(U)) * 8) acc = mine;
    else acc = U(U(acc << w) | mine);
    return rest.template fold<U>(acc, descending);
  }
};

/// The sort key of a user struct: key_members(s.a, s.b) sorts by a, then by b.
template <class... M>
CUPRIM_HD key_members_t<M...> key_members(const M&... m) {
  return key_members_t<M...>(m...);
}

namespace detail {
template <class T>
struct is_key_members : std::false_type {};
template <class... M>
struct is_key_members<key_members_t<M...>> : std::true_type {};

/// D is a key decomposer for K: callable on the host and the device with a const K&, returning key_members(...).
template <class D, class K>
concept key_decomposer = std::is_invocable_v<const D&, const K&> &&
                         is_key_members<std::remove_cvref_t<std::invoke_result_t<const D&, const K&>>>::value;
}  // namespace detail

}  // namespace cuprim
