// cuprim/warp/shuffle.cuh: warp shuffles for any trivially copyable type (executed by a warp).
//
// The hardware shuffles 32-bit words; larger or odd-sized types (double, int64, __half, user structs) are
// moved word by word. `mask` names the participating lanes, as for the __shfl_*_sync intrinsics.
//
// Each word moves by one `shfl.sync` in volatile inline assembly, not by the __shfl_*_sync intrinsics: with the
// intrinsics, nvcc 13 sank a shuffle written before `if (lane >= offset) v = op(earlier, v)` into both arms of a
// branch on the lane, where the warp is diverged, and every shuffle then took the compiler's slow path for
// diverged warps (BRA.DIV to a WARPSYNC.COLLECTIVE loop). A volatile shuffle stays where it is written, with the
// whole warp. Measured (H100, 8 rows of a warp-striped segment scanned as in scan_pipeline_kernel.cuh, clock64 per
// call): float 10.7k -> 3.3k cycles, (start, value) pairs 21.1k -> 8.0k, with only the scan loop's shuffles changed.
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

namespace detail {
// One 32-bit word by shfl.sync (c: the clamp and segment mask operand of the PTX instruction, for a full warp).
__device__ __forceinline__ unsigned shfl_idx_word(unsigned w, int src, unsigned mask) {
  unsigned r;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, %3;" : "=r"(r) : "r"(w), "r"(src), "r"(mask));
  return r;
}
__device__ __forceinline__ unsigned shfl_up_word(unsigned w, unsigned delta, unsigned mask) {
  unsigned r;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, %3;" : "=r"(r) : "r"(w), "r"(delta), "r"(mask));
  return r;
}
__device__ __forceinline__ unsigned shfl_down_word(unsigned w, unsigned delta, unsigned mask) {
  unsigned r;
  asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, %3;" : "=r"(r) : "r"(w), "r"(delta), "r"(mask));
  return r;
}
__device__ __forceinline__ unsigned shfl_xor_word(unsigned w, int lane_mask, unsigned mask) {
  unsigned r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, %3;" : "=r"(r) : "r"(w), "r"(lane_mask), "r"(mask));
  return r;
}
}  // namespace detail

/// Value of `src_lane`.
template <class T>
__device__ __forceinline__ T shfl(const T& v, int src_lane, unsigned mask = full_mask) {
  return detail::shuffle_words(v, [&](unsigned w) { return detail::shfl_idx_word(w, src_lane, mask); });
}
/// Value of lane (lane - delta); lanes below delta keep their own value.
template <class T>
__device__ __forceinline__ T shfl_up(const T& v, unsigned delta, unsigned mask = full_mask) {
  return detail::shuffle_words(v, [&](unsigned w) { return detail::shfl_up_word(w, delta, mask); });
}
/// Value of lane (lane + delta); lanes past the end keep their own value.
template <class T>
__device__ __forceinline__ T shfl_down(const T& v, unsigned delta, unsigned mask = full_mask) {
  return detail::shuffle_words(v, [&](unsigned w) { return detail::shfl_down_word(w, delta, mask); });
}
/// Value of lane (lane ^ lane_mask).
template <class T>
__device__ __forceinline__ T shfl_xor(const T& v, int lane_mask, unsigned mask = full_mask) {
  return detail::shuffle_words(v, [&](unsigned w) { return detail::shfl_xor_word(w, lane_mask, mask); });
}

}  // namespace cuprim::warp
