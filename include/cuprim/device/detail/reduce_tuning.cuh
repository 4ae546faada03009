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
/// sm_90 (H100 SXM, H200): `cuprim-lab run reduce/policy` sweeps threads ∈ {256, 512}, unroll ∈ {2, 4, 8} and
/// blocks_per_sm ∈ {2, 4, 8} for 2^28 uint32 and float; the row kept is the fastest within run-to-run noise.
/// See docs/tuning.md for the measured table and the date. Other architectures use the sm_90 row until measured.
template <class T>
struct reduce_default_policy {
  using type = std::conditional_t<(sizeof(T) <= 2), reduce_policy<256, 16, 4, 4>,   // 1- and 2-byte types
               std::conditional_t<(sizeof(T) <= 8), reduce_policy<256, 16, 4, 4>,   // 4- and 8-byte types
                                  reduce_policy<256, 16, 1, 4>>>;                    // large user structs
};

}  // namespace cuprim
