// cuprim/core/functional.cuh: operators, value traits and small types shared by every algorithm.
//
// Operators are callable on host and device. The reduction operators are associative and commutative for
// integers; for floating point they are commutative and associative up to rounding, so results depend on the order
// of evaluation, which cuprim fixes as follows.
//
// Determinism (every device-wide call that combines values: reduce, transform_reduce, sum, argmin/argmax, the scans,
// the segmented reductions and scans). The order of every operation is a function of
//   - the arguments that shape the work: n, and for segmented calls the offsets, keys or head flags;
//   - the byte alignment of the input pointers (the first whole vector decides where tiles start);
//   - the policy the call runs (for cuprim::tuned, the table's row for the device's tuned architecture);
//   - where the grid is sized from the device (reduce and its forms, the segmented reductions), its SM count;
// and of nothing else: not of timing or scheduling, the stream, the workspace's address or contents, or earlier
// calls. So a call repeated on the same GPU model gives bitwise identical results; on a GPU with another SM count or
// another table row, or with the input at another alignment, results may differ in their last bits, within the
// algorithm's error bound. Each header names which of these inputs apply to it.
#pragma once

#include <cuda_runtime_api.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#define CUPRIM_HD __host__ __device__ __forceinline__

namespace cuprim {

/// a + b
struct plus {
  template <class T>
  CUPRIM_HD T operator()(const T& a, const T& b) const { return a + b; }
};
/// a * b
struct multiplies {
  template <class T>
  CUPRIM_HD T operator()(const T& a, const T& b) const { return a * b; }
};
/// The smaller of a and b (a when equal). With a NaN operand the result is the other operand's order-dependent
/// choice, as for std::min: reduce NaN-free data, or use argmin, which defines NaN handling.
struct minimum {
  template <class T>
  CUPRIM_HD T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
/// The larger of a and b (a when equal). See minimum for NaN.
struct maximum {
  template <class T>
  CUPRIM_HD T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
/// a == b (the default key equality of the by-key scans, and the default equality of unique and run_length_encode).
struct equal_to {
  template <class T>
  CUPRIM_HD bool operator()(const T& a, const T& b) const { return a == b; }
};
/// Returns its argument unchanged (the default transform).
struct identity {
  template <class T>
  CUPRIM_HD T operator()(const T& x) const { return x; }
};

/// The result of argmin / argmax: the extreme value and the lowest index where it occurs.
template <class T>
struct arg_result {
  T value;
  std::int64_t index;  ///< -1 for an empty input
};

/// True for the 16-bit floating-point storage types, which cuprim reduces and scans in float.
template <class T>
inline constexpr bool is_half_like_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

/// The type an algorithm accumulates in when the caller's init (or output) type is T:
/// float for __half and __nv_bfloat16, T otherwise.
template <class T>
using accumulator_t = std::conditional_t<is_half_like_v<T>, float, T>;

/// Limits for every arithmetic type cuprim handles, __half and __nv_bfloat16 included, on host and device.
template <class T>
struct numeric_traits {
  static constexpr bool is_floating = std::is_floating_point_v<T>;
  CUPRIM_HD static T lowest() {
    if constexpr (std::is_floating_point_v<T>) return -std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::lowest();
  }
  CUPRIM_HD static T highest() {
    if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
    else return std::numeric_limits<T>::max();
  }
};
template <>
struct numeric_traits<__half> {
  static constexpr bool is_floating = true;
  CUPRIM_HD static __half lowest() { return __ushort_as_half(static_cast<unsigned short>(0xFC00u)); }   // -inf
  CUPRIM_HD static __half highest() { return __ushort_as_half(static_cast<unsigned short>(0x7C00u)); }  // +inf
};
template <>
struct numeric_traits<__nv_bfloat16> {
  static constexpr bool is_floating = true;
  CUPRIM_HD static __nv_bfloat16 lowest() { return __ushort_as_bfloat16(static_cast<unsigned short>(0xFF80u)); }
  CUPRIM_HD static __nv_bfloat16 highest() { return __ushort_as_bfloat16(static_cast<unsigned short>(0x7F80u)); }
};

namespace detail {
/// Converts between the caller's types and accumulator types (16-bit floats go through float).
template <class To, class From>
CUPRIM_HD To convert(const From& x) {
  if constexpr (std::is_same_v<To, From>) return x;
  else if constexpr (std::is_same_v<From, __half>) return static_cast<To>(__half2float(x));
  else if constexpr (std::is_same_v<From, __nv_bfloat16>) return static_cast<To>(__bfloat162float(x));
  else if constexpr (std::is_same_v<To, __half>) return __float2half_rn(static_cast<float>(x));
  else if constexpr (std::is_same_v<To, __nv_bfloat16>) return __float2bfloat16_rn(static_cast<float>(x));
  else return static_cast<To>(x);
}

/// x != x, for every floating type (false for integers and user types).
template <class T>
CUPRIM_HD bool is_nan(const T& x) {
  if constexpr (is_half_like_v<T>) return convert<float>(x) != convert<float>(x);
  else if constexpr (std::is_floating_point_v<T>) return x != x;
  else return false;
}

/// The arg-reduction step: the better (value, index) pair; ties go to the lower index; a NaN beats
/// every number (the first NaN is reported, as numpy does). Associative and commutative.
template <bool Max>
struct arg_op {
  static constexpr bool max = Max;  ///< argmax (true) or argmin (false)
  template <class T>
  CUPRIM_HD arg_result<T> operator()(const arg_result<T>& a, const arg_result<T>& b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    bool an = is_nan(a.value), bn = is_nan(b.value);
    if (an || bn) {
      if (an && bn) return a.index < b.index ? a : b;
      return an ? a : b;
    }
    bool b_better, equal;
    if constexpr (is_half_like_v<T>) {
      float av = convert<float>(a.value), bv = convert<float>(b.value);
      b_better = Max ? (av < bv) : (bv < av);
      equal = !(av < bv) && !(bv < av);
    } else {
      b_better = Max ? (a.value < b.value) : (b.value < a.value);
      equal = !(a.value < b.value) && !(b.value < a.value);
    }
    if (b_better) return b;
    if (equal && b.index < a.index) return b;
    return a;
  }

  /// The same step when b is known to come later in index order than a and both hold data: no index
  /// comparison, no empty check. Kernels use it inside a thread's run of increasing indices.
  template <class T>
  CUPRIM_HD arg_result<T> sequential(const arg_result<T>& a, const arg_result<T>& b) const {
    if constexpr (is_half_like_v<T>) {
      const float av = convert<float>(a.value), bv = convert<float>(b.value);
      if (av != av) return a;
      if (bv != bv) return b;
      return (Max ? (av < bv) : (bv < av)) ? b : a;
    } else {
      if (is_nan(a.value)) return a;
      if (is_nan(b.value)) return b;
      return (Max ? (a.value < b.value) : (b.value < a.value)) ? b : a;
    }
  }
};

/// Combines a running value with a later one: op.sequential(a, b) when InOrder (the caller knows b follows a
/// in index order) and the operator provides it, op(a, b) otherwise.
template <bool InOrder, class Op, class T>
CUPRIM_HD T step(const Op& op, const T& a, const T& b) {
  if constexpr (InOrder && requires { op.sequential(a, b); }) return op.sequential(a, b);
  else return op(a, b);
}
}  // namespace detail
}  // namespace cuprim
