// cuprim/device/detail/select_tuning.cuh: launch policies for stream compaction (select_if, select_flagged,
// partition, unique, run_length_encode).
#pragma once

#include <cuprim/device/detail/load.cuh>
#include <cuprim/device/detail/scan_tuning.cuh>

#include <algorithm>
#include <type_traits>

namespace cuprim {

/// Tile shape of the single-pass compaction. Each thread loads `vectors` chunks of vector_bytes / sizeof(T)
/// consecutive elements (one element per chunk for user structs); a warp's chunk k covers 32 consecutive vectors
/// (coalesced 16-byte loads); a tile is threads × vectors × (vector_bytes / sizeof(T)) elements, one tile per
/// block. The tile's selected items are compacted in shared memory (tile × sizeof(T) bytes, plus 4 bytes per
/// element for run_length_encode's run starts) and written out with coalesced stores.
///
/// first_wait_ns and poll_wait_ns are the look-back's back-off, as in scan_policy: a block sleeps before its
/// first read of its predecessors' counts and between polls of a window that is not ready.
template <int Threads, int VectorBytes, int Vectors, int FirstWaitNs = 1200, int PollWaitNs = 650>
struct select_policy {
  static constexpr int threads = Threads;
  static constexpr int vector_bytes = VectorBytes;
  static constexpr int vectors = Vectors;
  static constexpr unsigned first_wait_ns = FirstWaitNs;
  static constexpr unsigned poll_wait_ns = PollWaitNs;
  static_assert(Threads % 32 == 0 && Threads >= 32 && Threads <= 1024,
                "threads must be a multiple of 32, at most 1024");
  static_assert(VectorBytes == 4 || VectorBytes == 8 || VectorBytes == 16, "vector_bytes must be 4, 8 or 16");
  static_assert(Vectors >= 1 && Vectors <= 16, "vectors must be in [1, 16]");
};

namespace detail {
/// Chunks per thread for a user struct (one element per chunk): about 12 KiB of shared memory per 128 threads.
template <class T>
constexpr int struct_vectors() {
  return std::clamp(static_cast<int>(12288 / (128 * sizeof(T))), 1, 8);
}
}  // namespace detail

/// The tuning table, keyed by the element's size class. Each thread keeps its tile items unpacked, one per
/// register, so the rows hold the items per thread near 24-32 whatever the size (1-byte items in 16-byte
/// vectors would otherwise take 96 registers at 6 vectors). sm_90 rows:
///   4- and 8-byte types: 128 threads × 6 vectors of 16 bytes (3072 4-byte elements per tile), look-back
///     back-off 1200/650 ns. Provenance: the scan's sm_90 row (docs/tuning.md "Scan"), then `cuprim-lab run
///     select` on the H200 (select_if keeping 50% of 2^28 uint32 against cub::DeviceSelect::If in the same run):
///     0.87x CUB, the best of 64x8, 128x4, 128x8, 256x6, 384x4 (0.78-0.83x) with 600/300 ns tied (0.87x) and
///     2400/1200 ns behind (0.82x); docs/tuning.md "Stream compaction" has the table.
///   1-byte types: 128 × 2 vectors (4096 elements); 2-byte types: 128 × 3 vectors (3072). Not measured: the
///     4-byte row's register budget.
///   user structs: 128 threads × struct_vectors<T>() elements per thread (about 12 KiB of tile), 32 threads × 1
///     for structs over 96 bytes. Not measured: chosen to keep a tile's shared memory near the other rows'.
/// run_length_encode takes the same rows; it keeps a 4-byte run start per element beside the items in shared
/// memory (at most 4096 × 5 bytes for 1-byte types, 3072 × 8 for 4-byte ones).
/// select_if of 2^22 or more 4- and 8-byte arithmetic items (16-byte aligned input, sm_90) takes the look-back
/// pipeline (device/detail/select_pipeline_kernel.cuh): 6 segment warps × 7 vectors per lane (21 KiB tiles),
/// 4 stages (two blocks per SM), 1200/650 ns back-off. On an H100 (2^28 keeping 50%, CUB in the same run, two
/// runs): 1.221-1.223x CUB at 92.4-92.7% of the copy, against 1.209-1.211x for 3 stages and 1.187-1.195x for the
/// earlier row, 4 warps × 7 vectors × 3 stages (1.24x on an H200, where 8 warps × 7 took 1.20x and one block per SM
/// with 5 stages 0.87x; 6 × 7 × 4 is not measured there). The other operations and calls take the row above
/// (scan_pipeline_policy's fallback). Measurements: docs/tuning.md "Stream compaction".
template <class T>
struct select_default_policy {
  static constexpr bool vectorized = detail::vector_traits<T, 16>::vectorized;
  using classic = std::conditional_t<
      vectorized,
      std::conditional_t<sizeof(T) == 1, select_policy<128, 16, 2>,
                         std::conditional_t<sizeof(T) == 2, select_policy<128, 16, 3>, select_policy<128, 16, 6>>>,
      std::conditional_t<(sizeof(T) <= 96), select_policy<128, 16, detail::struct_vectors<T>()>,
                         select_policy<32, 16, 1>>>;
  using type = std::conditional_t<vectorized && (sizeof(T) == 4 || sizeof(T) == 8),
                                  scan_pipeline_policy<6, 7, 4, classic, (1ll << 22), 1200, 650>, classic>;
};

}  // namespace cuprim
