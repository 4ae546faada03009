// cuprim/warp/shuffle.cuh: warp shuffles for any trivially copyable type (executed by a warp).
//
// The hardware shuffles 32-bit words; larger or odd-sized types (double, int64, __half, user structs) are
// moved word by word. `mask` names the participating lanes, as for the __shfl_*_sync intrinsics.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cuprim::warp {

inline constexpr int size = 32;           ///< threads in a warp on every NVIDIA GPU cuprim targets
inline constexpr unsigned full_mask = 0xffffffffu;

/// The calling thread's lane (0..31).
__device__ __forceinline__ int lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return static_cast<int>(lane);
}

namespace detail {
template <class T, class Shfl>
__device__ __forceinline__ T shuffle_words(const T& value, Shfl shfl) {
  static_assert(std::is_trivially_copyable_v<T>, "warp shuffles need a trivially copyable type");
  if constexpr (sizeof(T) == 4) {
    return __builtin_bit_cast(T, shfl(__builtin_bit_cast(unsigned, value)));
  } else {
    constexpr int words = (sizeof(T) + 3) / 4;
    unsigned in[words] = {};
    unsigned out[words];
    std::memcpy(in, &value, sizeof(T));
#pragma unroll
    for (int i = 0; i < words; ++i) out[i] = shfl(in[i]);
    T result;
    std::memcpy(&result, out, sizeof(T));
    return result;
  }
}
}  // namespace detail

/// Value of `src_lane`.
template <class T>
__device__ __forceinline__ T shfl(const T& v, int src_lane, unsigned mask = full_mask) {
  return detail::shuffle_words(v, [&](unsigned w) { return __shfl_sync(mask, w, src_lane); });
}
/// Value of lane (lane - delta); lanes below delta keep their own value.
template <class T>
__device__ __forceinline__ T shfl_up(const T& v, unsigned delta, unsigned mask = full_mask) {
  return detail::shuffle_words(v, [&](unsigned w) { return __shfl_up_sync(mask, w, delta); });
}
/// Value of lane (lane + delta); lanes past the end keep their own value.
template <class T>
__device__ __forceinline__ T shfl_down(const T& v, unsigned delta, unsigned mask = full_mask) {
  return detail::shuffle_words(v, [&](unsigned w) { return __shfl_down_sync(mask, w, delta); });
}
/// Value of lane (lane ^ lane_mask).
template <class T>
__device__ __forceinline__ T shfl_xor(const T& v, int lane_mask, unsigned mask = full_mask) {
  return detail::shuffle_words(v, [&](unsigned w) { return __shfl_xor_sync(mask, w, lane_mask); });
}

}  // namespace cuprim::warp
