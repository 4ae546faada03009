// cuprim/ooc/gemm.hpp: out-of-core GEMM over host-resident matrices (library target cuprim::ooc_gemm).
//
//   cuprim::ooc::gemm_sync<T>(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, options, engine)
//       C = alpha * op(A) * op(B) + beta * C, T = float or double. A, B and C live in HOST memory (page-locked,
//       pageable or managed) and may be far larger than the device memory the call is allowed to use. Blocks the
//       calling thread until C is complete (hence _sync). Returns a gemm_report (tiles, bytes moved, CPU share).
//   cuprim::ooc::gemm_plan<T>(...)   the same arguments: validates them and returns the plan (tile shape, device
//       bytes, bytes each way) without running anything; throws what gemm_sync would throw for them (except the
//       device-pointer check). It needs the device only for device_budget_bytes == 0 (free memory) and for
//       four_way with a negative cpu_share (the measured rates).
//   cuprim::ooc::gemm_measure_rates<T>(options, engine)   the rates the 4-way split is chosen from (cached).
//   cuprim::ooc::cpu_blas_available() / cpu_blas_name()   whether a CPU BLAS could be loaded (for 4-way), and which.
//   cuprim::ooc::cpu_blas_gemm<T>(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, threads)
//       the same product computed entirely on the host by that CPU BLAS (blocks until done): the CPU comparison of
//       the lab's GEMM ladder, and a way to check a machine's CPU rate. threads: the BLAS's threads (0 = every
//       hardware thread). Argument rules as gemm_sync's (arrays in host memory the CPU can read; not checked),
//       dimensions and leading dimensions < 2^31, cpu_blas_unavailable when no CPU BLAS loads. The special values
//       (alpha = 0, beta = 0, k = 0) follow the loaded library.
//
// Layout (as in BLAS). Column-major: element (i, j) of a matrix X with leading dimension ldX is X[i + j*ldX].
// transa / transb: 'N' (op(X) = X) or 'T' (op(X) = X^T); lower case and 'C' (= 'T' for real types) accepted.
// op(A) is m x k, op(B) is k x n, C is m x n. Stored A is m x k ('N', lda >= max(1, m)) or k x m ('T',
// lda >= max(1, k)); stored B is k x n ('N', ldb >= max(1, k)) or n x k ('T', ldb >= max(1, n)); ldc >= max(1, m).
// BLAS semantics for the special values: with beta == 0, C is not read (NaN or Inf there do not propagate and C is
// not even copied to the device); with k == 0 or alpha == 0, C = beta * C (computed on the host, no transfer).
// m == 0 or n == 0 does nothing.
//
// Algorithm. C is cut into tiles (tile_m x tile_n); each tile is copied in (unless beta == 0), accumulated over
// k-panels of depth tile_k (op(A) row panel x op(B) column panel, streamed in), and copied back. The row panel of A
// is loaded once per row of tiles and shared by its tiles when k fits one panel (tile_k == k, the usual case), so
// the bytes sent to the device are then C (if beta != 0) + A + B * (m / tile_m), and C comes back once. The tiles
// run on the out-of-core pipeline's lanes (ooc/streams.hpp), in one of the seed's concurrency modes:
//   serial     one stream: copy in, compute, copy out, tile after tile (nothing overlaps);
//   two_way    2 buffer sets; one copy stream carries both directions (one copy engine's worth) while the compute
//              stream works on the other tile: compute overlaps copies;
//   three_way  3 buffer sets; H2D stream, compute stream and D2H stream: both copy engines and the SMs work at once
//              (the default);
//   four_way   three_way on the first columns of C, while CPU threads compute the last cpu_columns columns in place
//              through a CPU BLAS (those columns never cross PCIe). The CPU share is chosen so that both sides end
//              together, from measured rates (gemm_measure_rates: concurrent pinned H2D/D2H, the tile engine's
//              GEMM rate, the CPU BLAS's rate), or set with options.cpu_share.
//
// Host memory. cuprim::detail::host_memory_kind (core/validate.hpp), the rule every out-of-core call shares,
// decides: page-locked host memory (cudaMallocHost / cudaHostAlloc / cudaHostRegister) is copied directly with
// cudaMemcpy2DAsync; that is the fast path. A pageable array reaches the copy engines one of two ways
// (options.pageable):
//   register_in_place  its pages are page-locked where they are for the length of the call (cudaHostRegister;
//              read-only, where the device supports it, for input pages the process may only read) and copied
//              directly, with no host copy. C, and B when transb == 'N', are locked in pieces that follow the tiles'
//              columns (options.register_piece_bytes), each as soon as the tile before the first that needs it is
//              issued, so that locking a piece overlaps the device's work on the tiles before it; A (and B when
//              transb == 'T') whole, before the first tile. Everything is unlocked
//              before the call returns or throws, after every copy has finished. Where a registration is refused
//              (the device does not take registered memory, the system will not lock more, a page is locked by
//              someone else) the tiles that need those pages are staged instead: the result is the same.
//   stage      it is copied through page-locked buffers of one tile each, taken from the out-of-core staging cache
//              (ooc/staging.hpp: cached between calls, trim_staging frees them), packed and unpacked in stream
//              order by host functions split over the staging threads (in three_way, on host streams of their own,
//              so that packing one tile overlaps the DMA of another); a host copy per byte sent each way.
//   automatic  (the default) register_in_place for pageable arrays of at least 1 MiB, stage for smaller ones; and
//              once 16 MiB are locked, locking goes on only if it ran at 20 GB/s or more (the rate at which it costs
//              what staging C costs), else the pieces not locked yet are staged.
// Staging runs on options.host_threads threads (0: the out-of-core policy's count, at most half the cores); locking
// and unlocking on the calling thread.
// Locking costs a pass over the array's page tables per call (locking and unlocking), staging a host memcpy per byte
// per send: locking is the cheaper where the host locks pages fast, and far cheaper for arrays sent several times
// (B when m needs several tile rows, A when k needs several panels); docs/tuning/ooc.md has the costs.
// Managed memory is always staged (cudaHostRegister does not take it). Device pointers are rejected
// (invalid_argument).
//
// Device memory. All device buffers of a call come from cuprim::current_resource() (by default cuprim's caching
// pool, so memory stays reserved after the call: pool_resource::trim releases it) and together stay within
// options.device_budget_bytes (0 = 80% of the free device memory at the call). The tile engine's own workspace
// (cuBLAS's) is not counted. The call uses the current device.
//
// Tile engine. Tiles are computed by a gemm_tile_engine<T> (ooc/gemm_engine.hpp; pluggable), passed as the last
// argument: by default a cublas_tile_engine<T> (one cuBLAS handle per thread and device, kept for the life of the
// thread); cuprim's own GEMM is cuprim_tile_engine<T> (ooc/gemm_cuprim_engine.cuh, which says why cuBLAS stays the
// default: the same time where transfers bind, cuBLAS faster where compute does). Measured on an H100 (PCIe Gen5)
// at 8192 x 8192 x 288 in double with the device budget capped at 256 MiB, in one run beside cuBLAS: three_way 97.7%
// and four_way 105.8% of the transfer bound on cuprim_tile_engine, 93.3% and 95.0% on cuBLAS (four_way passes 100%:
// its CPU columns never cross PCIe); docs/tuning/ooc.md has the figures.
//
// CPU BLAS (four_way). Loaded at run time with dlopen/dlsym, so cuprim has no build dependency on it: the path in
// the environment variable CUPRIM_CBLAS if set (and then only that), else libopenblas.so.0, libopenblas.so,
// libcblas.so.3, libblis.so.4, libmkl_rt.so, libblas.so.3 (the first that exports cblas_dgemm and cblas_sgemm).
// If none loads, four_way throws cuprim::ooc::cpu_blas_unavailable (naming what was tried) before anything else
// happens, unless options.cpu_share == 0 (then it runs as three_way). The CPU's dimensions must fit a 32-bit int.
// OpenBLAS's thread count is set to options.cpu_threads (0 = hardware threads - 1) while the CPU part runs. Under
// a VM that hides the CPU's features OpenBLAS may pick a slow generic kernel: OPENBLAS_CORETYPE (e.g. SkylakeX)
// overrides it (docs/tuning/ooc.md has the measured effect).
//
// Errors. cuprim::invalid_argument before any allocation or transfer: transa/transb not N/T/C, m, n or k < 0,
// lda/ldb/ldc below the rule above, a null A, B (when m, n, k > 0) or C (when m, n > 0), C overlapping A or B,
// a device pointer for A, B or C, options out of range (cpu_share not in [0, 1] and not negative, cpu_threads < 0,
// tile sizes < 0, pageable not one of gemm_pageable's values, host_threads not in [0, 64]), and
// options.device_budget_bytes (or the memory free) too small for one tile of at least min(m,32) x min(n,32) x
// min(k,32) (or for the tile asked for).
// cuprim::ooc::cpu_blas_unavailable as said above; cuprim::bad_alloc / cuprim::cuda_error for failures while
// running, after which every stream is synchronised, every buffer (device and pinned) released and every page locked
// in place unlocked before the exception leaves the call. C is then partly updated.
#pragma once

#include <cuprim/ooc/gemm_engine.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace cuprim::ooc {

/// The seed's amounts of concurrency.
enum class gemm_mode { serial, two_way, three_way, four_way };

/// "serial", "2-way", "3-way", "4-way".
const char* gemm_mode_name(gemm_mode m) noexcept;

/// How a pageable array reaches the copy engines (see "Host memory" above).
enum class gemm_pageable {
  automatic,          ///< register_in_place from 1 MiB while locking is fast enough, stage otherwise
  register_in_place,  ///< page-locked where it is for the call (cudaHostRegister), copied directly
  stage,              ///< copied through page-locked staging buffers
};

/// "auto", "register", "stage".
const char* gemm_pageable_name(gemm_pageable p) noexcept;

/// No CPU BLAS could be loaded for four_way; what() lists the paths tried.
class cpu_blas_unavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct gemm_options {
  gemm_mode mode = gemm_mode::three_way;
  /// Cap on the device memory the call's buffers take (bytes); 0 = 80% of the memory free when the call starts.
  std::size_t device_budget_bytes = 0;
  /// Tile shape; 0 = chosen (C tiles of about 8 MiB, full columns of C where they fit, tile_k = k where it fits).
  std::int64_t tile_m = 0, tile_n = 0, tile_k = 0;
  /// four_way: fraction of C's columns the CPU computes; negative = chosen from measured rates.
  double cpu_share = -1.0;
  /// four_way: CPU BLAS threads; 0 = std::thread::hardware_concurrency() - 1 (at least 1).
  int cpu_threads = 0;
  /// Pageable (not page-locked, not managed) A, B and C: registered in place, staged, or chosen (by size, then by
  /// how fast locking runs).
  gemm_pageable pageable = gemm_pageable::automatic;
  /// register_in_place: the size of the pieces C (and B, transb == 'N') are locked in, each just before its first
  /// tile; 0 = chosen (the first piece one tile, each next one twice the one before, up to 64 MiB); SIZE_MAX locks
  /// every array whole before the first tile.
  std::size_t register_piece_bytes = 0;
  /// Threads that pack and unpack staged tiles (0 = the out-of-core policy's host_threads, at most half the cores;
  /// 1..64). Pinned arrays use none.
  int host_threads = 0;
};

/// What a call did (or, from gemm_plan, will do).
struct gemm_report {
  gemm_mode mode = gemm_mode::three_way;
  std::int64_t tile_m = 0, tile_n = 0, tile_k = 0;
  std::int64_t tiles = 0;          ///< C tiles computed on the GPU
  std::int64_t gpu_columns = 0;    ///< columns of C computed on the GPU
  std::int64_t cpu_columns = 0;    ///< columns of C computed by the CPU BLAS (four_way)
  std::size_t device_bytes = 0;    ///< device memory the call's buffers take (<= the budget)
  std::size_t budget_bytes = 0;    ///< the budget it was planned against
  double bytes_h2d = 0;            ///< bytes copied host -> device
  double bytes_d2h = 0;            ///< bytes copied device -> host
  bool staged_a = false, staged_b = false, staged_c = false;  ///< some tile of it went through staging buffers
  bool registered_a = false, registered_b = false, registered_c = false;  ///< some of it was locked in place
  double register_ms = 0;          ///< time spent locking pageable arrays in place (cudaHostRegister)
  double unregister_ms = 0;        ///< and unlocking them (cudaHostUnregister)
  int host_threads = 0;            ///< staging threads the call ran (1 when nothing was pageable; 0 from gemm_plan)
  std::string engine;              ///< the tile engine's name
  double gpu_ms = 0;               ///< wall time of the GPU pipeline (set up, run, drained)
  double cpu_ms = 0;               ///< wall time of the CPU BLAS part (four_way)
};

/// Rates measured on the current device (cached per device, T, thread count and engine name after the first call).
struct gemm_rates {
  double h2d_gbps = 0, d2h_gbps = 0;  ///< pinned copies, both directions running at once (GB/s)
  double gpu_gflops = 0;              ///< the tile engine's GEMM rate on a 2048 x 2048 x min(k,256)-class tile
  double cpu_gflops = 0;              ///< the CPU BLAS's rate (0 when none is available)
  int cpu_threads = 0;
};

template <class T>
gemm_report gemm_sync(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
                      std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc,
                      const gemm_options& options = {}, gemm_tile_engine<T>* engine = nullptr);

template <class T>
gemm_report gemm_plan(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
                      std::int64_t lda, const T* B, std::int64_t ldb, T beta, const T* C, std::int64_t ldc,
                      const gemm_options& options = {});

template <class T>
gemm_rates gemm_measure_rates(const gemm_options& options = {}, gemm_tile_engine<T>* engine = nullptr);

/// True when a CPU BLAS (cblas_dgemm and cblas_sgemm) could be loaded; never throws.
bool cpu_blas_available() noexcept;
/// The path of the loaded CPU BLAS (with OpenBLAS's core name in parentheses when it reports one), or "" when none.
std::string cpu_blas_name();

/// C = alpha * op(A) * op(B) + beta * C on the host by the CPU BLAS (see cpu_blas_gemm in the file comment).
template <class T>
void cpu_blas_gemm(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
                   std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc, int threads = 0);

}  // namespace cuprim::ooc
