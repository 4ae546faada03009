// The out-of-core GEMM's internal interfaces, shared by its three sources:
//   ooc_gemm.cpp        the entry points: validation, the tile plan, the rates of the 4-way split
//   ooc_gemm_tiles.cpp  the tile schedule on the out-of-core pipeline's lanes (run_tiles)
//   ooc_gemm_blas.cpp   the cuBLAS tile engine, and the CPU BLAS loaded at run time
#pragma once

#include <cuprim/ooc/gemm.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace cuprim::ooc::detail {

/// A problem after validation: trans normalised to 'N' / 'T'.
struct gemm_shape {
  char ta, tb;
  std::int64_t m, n, k, lda, ldb, ldc;
};

/// The tile plan: C tiles of mt x nt, k-panels of depth kb, `slots` buffer sets.
struct gemm_tiling {
  std::int64_t mt = 0, nt = 0, kb = 0;
  int slots = 1;
  bool a_shared = false;  // one k-panel: the A row panel is loaded once per row of tiles, double-buffered
  int a_bufs = 0;
  bool c_in = true;       // beta != 0: C tiles are copied in
};

/// How an array reaches the copy engines: directly (page-locked memory), locked in place for the call
/// (pageable memory, gemm_pageable::register_in_place), or through page-locked staging buffers.
enum class host_access { direct, register_in_place, stage };

/// How A, B and C reach the copy engines, and the size of the pieces C and B are locked in (0: chosen, SIZE_MAX:
/// whole). `adaptive` (gemm_pageable::automatic): locking goes on only while it is fast enough to beat staging.
struct gemm_access {
  host_access a = host_access::direct, b = host_access::direct, c = host_access::direct;
  std::size_t piece_bytes = 0;
  bool adaptive = false;
  int host_threads = 0;  // staging threads (0: the out-of-core policy's)
  bool pageable() const { return a != host_access::direct || b != host_access::direct || c != host_access::direct; }
};

/// What the GPU part of a call did.
struct gemm_tiles_done {
  std::int64_t tiles = 0;
  double bytes_h2d = 0, bytes_d2h = 0;
  bool staged_a = false, staged_b = false, staged_c = false;            // some copy went through staging
  bool registered_a = false, registered_b = false, registered_c = false;  // some pages were locked in place
  double register_ms = 0, unregister_ms = 0;
  int host_threads = 1;  // staging threads (1 when nothing is pageable)
};

/// Runs the GPU part of a call: op(A) * op(B) into C's first gpu_n columns, tile after tile through the device
/// (serial, two_way or three_way lanes; four_way runs its GPU part as three_way), each array reaching the copy
/// engines as `access` says. Returns when every tile is back in C and every page it locked is unlocked.
template <class T>
gemm_tiles_done run_tiles(const gemm_shape& s, const gemm_tiling& t, gemm_mode mode, std::int64_t gpu_n, T alpha,
                          const T* A, const T* B, T beta, T* C, const gemm_access& access,
                          gemm_tile_engine<T>& engine);

/// The default engine of the calling thread for the current device.
template <class T>
gemm_tile_engine<T>& default_tile_engine();

/// Whether a CPU BLAS was loaded, and what was tried (for the error message when none was).
bool cblas_loaded();
const std::string& cblas_tried();

/// The CPU BLAS's threads for a call: options.cpu_threads, else the hardware threads - 1.
int cpu_thread_count(const gemm_options& o);

/// C = alpha * op(A) * op(B) + beta * C by the CPU BLAS on `threads` threads (one CPU GEMM at a time per process).
template <class T>
void cpu_gemm(int threads, char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
              std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc);

}  // namespace cuprim::ooc::detail
