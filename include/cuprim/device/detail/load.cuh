// cuprim/device/detail/load.cuh: vector loads and cache-hinted loads used by the device kernels.
#pragma once

#include <cuprim/core/functional.cuh>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cuprim::detail {

template <int Bytes>
struct raw_vector;
template <> struct raw_vector<4> { using type = unsigned; };
template <> struct raw_vector<8> { using type = uint2; };
template <> struct raw_vector<16> { using type = uint4; };

/// How a thread loads T in vectors of VectorBytes: `elems` values per load (1 for user structs).
template <class T, int VectorBytes>
struct vector_traits {
  static constexpr bool vectorized =
      (std::is_arithmetic_v<T> || is_half_like_v<T>) && sizeof(T) <= VectorBytes && VectorBytes % sizeof(T) == 0;
  static constexpr int elems = vectorized ? VectorBytes / static_cast<int>(sizeof(T)) : 1;
  static constexpr int bytes = vectorized ? VectorBytes : static_cast<int>(sizeof(T));
};

/// Loads `elems` consecutive values from p (aligned to the vector size when vectorized), through the
/// read-only path when ReadOnly (the data must not change while the kernel runs).
template <class T, int VectorBytes, bool ReadOnly = true>
__device__ __forceinline__ void load_vector(const T* p, T (&out)[vector_traits<T, VectorBytes>::elems]) {
  if constexpr (vector_traits<T, VectorBytes>::vectorized) {
    using raw = typename raw_vector<VectorBytes>::type;
    raw r;
    if constexpr (ReadOnly) r = __ldg(reinterpret_cast<const raw*>(p));
    else r = *reinterpret_cast<const raw*>(p);
    std::memcpy(out, &r, VectorBytes);
  } else {
    out[0] = *p;
  }
}

/// Number of leading elements before p + k is aligned to `align` bytes (0 when already aligned, or when
/// T cannot be vectorized).
template <class T>
__host__ __device__ inline std::uint64_t misaligned_head(const T* p, std::uint64_t n, unsigned align) {
  auto addr = reinterpret_cast<std::uintptr_t>(p);
  if (addr % sizeof(T) != 0 || align <= sizeof(T)) return 0;
  std::uint64_t head = ((align - addr % align) % align) / sizeof(T);
  return head < n ? head : n;
}

/// A load that bypasses L1 (reads what other blocks wrote and fenced), for any trivially copyable T.
template <class T>
__device__ __forceinline__ T load_cg(const T* p) {
  T value;
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    unsigned words[sizeof(T) / 4];
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T) / 4); ++i)
      words[i] = __ldcg(reinterpret_cast<const unsigned*>(p) + i);
    std::memcpy(&value, words, sizeof(T));
  } else {
    unsigned char bytes[sizeof(T)];
#pragma unroll
    for (int i = 0; i < static_cast<int>(sizeof(T)); ++i)
      bytes[i] = __ldcg(reinterpret_cast<const unsigned char*>(p) + i);
    std::memcpy(&value, bytes, sizeof(T));
  }
  return value;
}

/// Shared memory for a T that may have constructors (user structs): raw, suitably aligned bytes.
template <class T>
struct uninitialized {
  alignas(T) unsigned char bytes[sizeof(T)];
  __device__ __forceinline__ T& get() { return *reinterpret_cast<T*>(bytes); }
};

}  // namespace cuprim::detail
