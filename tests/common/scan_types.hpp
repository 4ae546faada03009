// tests/common/scan_types.hpp: exact, associative, NON-commutative operators for the scan tests, and the
// sequential folds they are checked against.
//
// A scan that reorders its operands (combines a later part of the sequence on the left, or swaps two tiles,
// warps, lanes or chunks) gives a different answer with these operators, while a correct one is exact: the
// arithmetic wraps modulo 2^32 (2^16), so there is no rounding to hide behind and no overflow to avoid.
//
//   affine_map {a, b}     x -> a·x + b over uint32; compose(f, g) = "f, then g" = {g.a·f.a, g.a·f.b + g.b};
//                         identity {1, 0}; 8 bytes (the device scan's separate-array tile state)
//   affine16   {a, b}     the same over uint16; 4 bytes (the device scan's packed 64-bit tile state)
//   mat2       {m00..m11} 2×2 uint32 matrix product; identity I; 16 bytes
//
// Random values keep every map invertible modulo 2^k (a odd; det odd), so no prefix ever loses information: an
// error anywhere before element i still shows at element i, however far back it was made.
//
// Also, for the device tests (CUDA sources), the look-back pipeline shape the scan and select tests share:
// tiny_pipeline.
#pragma once

#include <cuprim/core/functional.cuh>
#ifdef __CUDACC__
#include <cuprim/device/detail/scan_tuning.cuh>
#endif

#include "common/test_util.hpp"

#include <cstdint>
#include <ostream>
#include <vector>

namespace cuprim_test {

#ifdef __CUDACC__
/// The look-back pipeline at its smallest, taking every size: 2 segment warps x 1 vector per lane (256 4-byte
/// elements per tile), two stages (every stage refilled hundreds of times), no back-off.
inline constexpr cuprim::lookback_pipeline_policy tiny_pipeline{
    .scan_warps = 2, .lane_vectors = 1, .stages = 2, .min_elems = 0, .first_wait_ns = 0, .poll_wait_ns = 0};
#endif

struct affine_map {
  std::uint32_t a, b;
};
static_assert(sizeof(affine_map) == 8);

struct compose {
  CUPRIM_HD affine_map operator()(const affine_map& f, const affine_map& g) const {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};

struct affine16 {
  std::uint16_t a, b;
};
static_assert(sizeof(affine16) == 4);

struct compose16 {
  CUPRIM_HD affine16 operator()(const affine16& f, const affine16& g) const {
    // uint32 arithmetic (uint16 operands would be promoted to int, whose overflow is undefined), then mod 2^16.
    const std::uint32_t ga = g.a, fa = f.a, fb = f.b, gb = g.b;
    return {static_cast<std::uint16_t>(ga * fa), static_cast<std::uint16_t>(ga * fb + gb)};
  }
};

struct mat2 {
  std::uint32_t m00, m01, m10, m11;
};
static_assert(sizeof(mat2) == 16);

/// Matrix product a·b (row-major), wrapping.
struct mat_mul {
  CUPRIM_HD mat2 operator()(const mat2& a, const mat2& b) const {
    return {a.m00 * b.m00 + a.m01 * b.m10, a.m00 * b.m01 + a.m01 * b.m11,
            a.m10 * b.m00 + a.m11 * b.m10, a.m10 * b.m01 + a.m11 * b.m11};
  }
};

inline constexpr affine_map affine_identity{1u, 0u};
inline constexpr affine16 affine16_identity{1u, 0u};
inline constexpr mat2 mat2_identity{1u, 0u, 0u, 1u};

inline bool operator==(const affine_map& x, const affine_map& y) { return x.a == y.a && x.b == y.b; }
inline bool operator!=(const affine_map& x, const affine_map& y) { return !(x == y); }
inline bool operator==(const affine16& x, const affine16& y) { return x.a == y.a && x.b == y.b; }
inline bool operator!=(const affine16& x, const affine16& y) { return !(x == y); }
inline bool operator==(const mat2& x, const mat2& y) {
  return x.m00 == y.m00 && x.m01 == y.m01 && x.m10 == y.m10 && x.m11 == y.m11;
}
inline bool operator!=(const mat2& x, const mat2& y) { return !(x == y); }
inline std::ostream& operator<<(std::ostream& os, const affine_map& f) { return os << "{" << f.a << ", " << f.b << "}"; }
inline std::ostream& operator<<(std::ostream& os, const affine16& f) { return os << "{" << f.a << ", " << f.b << "}"; }
inline std::ostream& operator<<(std::ostream& os, const mat2& m) {
  return os << "[[" << m.m00 << ", " << m.m01 << "], [" << m.m10 << ", " << m.m11 << "]]";
}

inline affine_map random_affine(rng& r) {
  const std::uint64_t w = r.next();
  return {static_cast<std::uint32_t>(w) | 1u, static_cast<std::uint32_t>(w >> 32)};
}
inline affine16 random_affine16(rng& r) {
  const std::uint64_t w = r.next();
  return {static_cast<std::uint16_t>(w | 1u), static_cast<std::uint16_t>(w >> 16)};
}
/// m00 and m11 odd, m01 even: the determinant m00·m11 - m01·m10 is odd, so the matrix is invertible mod 2^32.
inline mat2 random_mat2(rng& r) {
  const std::uint64_t w = r.next(), v = r.next();
  return {static_cast<std::uint32_t>(w) | 1u, static_cast<std::uint32_t>(w >> 32) & ~1u,
          static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v >> 32) | 1u};
}

/// Random values of the three operator types (and of anything random_value knows).
template <class T>
T random_scan_value(rng& r) {
  if constexpr (std::is_same_v<T, affine_map>) return random_affine(r);
  else if constexpr (std::is_same_v<T, affine16>) return random_affine16(r);
  else if constexpr (std::is_same_v<T, mat2>) return random_mat2(r);
  else return random_value<T>(r);
}

template <class T>
std::vector<T> random_scan_vector(rng& r, std::size_t n) {
  if constexpr (std::is_same_v<T, affine_map> || std::is_same_v<T, affine16> || std::is_same_v<T, mat2>) {
    std::vector<T> v(n);
    for (auto& x : v) x = random_scan_value<T>(r);
    return v;
  } else {
    return random_vector<T>(r, n);
  }
}

/// A readable name for test messages (type_name for the types test_util.hpp knows).
template <class T>
const char* scan_type_name() {
  if constexpr (std::is_same_v<T, affine_map>) return "affine_map";
  else if constexpr (std::is_same_v<T, affine16>) return "affine16";
  else if constexpr (std::is_same_v<T, mat2>) return "mat2";
  else return type_name<T>();
}

/// The fold in the opposite order (later elements on the left): differs from the true fold on random data, so a
/// test can check that it is able to tell the two apart.
template <class T, class Op>
T reversed_fold(const T* x, std::size_t n, Op op) {
  T acc = x[n - 1];
  for (std::size_t i = n - 1; i-- > 0;) acc = op(acc, x[i]);
  return acc;
}

}  // namespace cuprim_test
