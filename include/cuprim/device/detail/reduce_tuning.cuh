// cuprim/device/detail/reduce_tuning.cuh: launch policies for device-wide reduction.
//
// A policy is a literal type; the same type drives the kernel (tile shape, unroll) and the host launch
// (grid size), so the two cannot disagree. Users may pass their own to cuprim::reduce<Policy>(...).
#pragma once

#include <cuprim/core/functional.cuh>

#include <cstddef>
#include <type_traits>

namespace cuprim {

/// Tile shape of the single-pass reduction. Each thread keeps `unroll` independent vector loads of
/// `vector_bytes` in flight; a block owns tiles of threads × unroll × (vector_bytes / sizeof(T)) elements;
/// the grid is blocks_per_sm × SM count blocks (fewer for small inputs), striding over tiles.
template <int Threads, int VectorBytes, int Unroll, int BlocksPerSm>
struct reduce_policy {
  static constexpr int threads = Threads;
  static constexpr int vector_bytes = VectorBytes;
  static constexpr int unroll = Unroll;
  static constexpr int blocks_per_sm = BlocksPerSm;
  static_assert(Threads % 32 == 0 && Threads <= 1024, "threads must be a multiple of 32, at most 1024");
  static_assert(VectorBytes == 4 || VectorBytes == 8 || VectorBytes == 16, "vector_bytes must be 4, 8 or 16");
  static_assert(Unroll >= 1 && Unroll <= 16, "unroll must be in [1, 16]");
  // The workspace holds 8 partials per SM; the final pass reads them with coherent loads.
  static_assert(BlocksPerSm >= 1 && BlocksPerSm <= 8, "blocks_per_sm must be in [1, 8]");
};

namespace detail {
/// Whether loads of T can be packed into vector_bytes-wide loads: arithmetic types and 16-bit floats
/// whose size divides the vector; user structs load one element at a time.
template <class T, int VectorBytes>
inline constexpr bool vectorizable_v =
    (std::is_arithmetic_v<T> || is_half_like_v<T>) && sizeof(T) <= VectorBytes && VectorBytes % sizeof(T) == 0;
}  // namespace detail

/// The tuning table, keyed by the size class of the input element type.
///
/// sm_90, NVIDIA H200 (132 SMs), 2^28 float sums, production path (partials grid + dependent launch), CUB
/// DeviceReduce in the same run (2026-11-22; docs/tuning.md):
///   threads/unroll/blocks_per_sm  256/4/4 1.009x   512/4/4 1.018x   1024/4/2 1.018x   512/2/4 1.007x
///                                 512/4/2 1.013x   512/8/4 0.994x
/// 512/4/4 is kept for every arithmetic type (16-byte loads make the bytes in flight the same whatever the
/// element size); user structs load one element per slot. Other architectures use the sm_90 row until measured.
template <class T>
struct reduce_default_policy {
  using type = std::conditional_t<detail::vectorizable_v<T, 16>, reduce_policy<512, 16, 4, 4>,   // arithmetic
                                  reduce_policy<256, 16, 4, 4>>;                                // user structs
};

}  // namespace cuprim
