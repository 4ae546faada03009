// The out-of-core GEMM's entry points (include/cuprim/ooc/gemm.hpp): validation, the tile plan, the rates the 4-way
// split is chosen from, and the call itself (its tiles run in ooc_gemm_tiles.cpp, its BLAS in ooc_gemm_blas.cpp).
#include "ooc_gemm.hpp"

#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/ooc/plan.hpp>
#include <cuprim/ooc/streams.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace cuprim::ooc {

const char* gemm_mode_name(gemm_mode m) noexcept {
  switch (m) {
    case gemm_mode::serial: return "serial";
    case gemm_mode::two_way: return "2-way";
    case gemm_mode::three_way: return "3-way";
    case gemm_mode::four_way: return "4-way";
  }
  return "?";
}

const char* gemm_pageable_name(gemm_pageable p) noexcept {
  switch (p) {
    case gemm_pageable::automatic: return "auto";
    case gemm_pageable::register_in_place: return "register";
    case gemm_pageable::stage: return "stage";
  }
  return "?";
}

namespace detail {
namespace {

// ---------------------------------------------------------------------------------------------------------------
// Validation

char norm_trans(char t, const char* fn, const char* argument) {
  switch (t) {
    case 'N': case 'n': return 'N';
    case 'T': case 't': case 'C': case 'c': return 'T';
    default: cuprim::detail::throw_invalid(fn, argument, "must be 'N' or 'T' (or 'C', the same as 'T' for real types)");
  }
}

/// Elements spanned by a column-major rows x cols matrix with leading dimension ld (0 when empty).
std::int64_t span_elems(std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  return rows == 0 || cols == 0 ? 0 : ld * (cols - 1) + rows;
}

struct validated {
  gemm_shape s;
  bool trivial = false;     // m == 0 or n == 0
  bool scale_only = false;  // k == 0 or alpha == 0: C = beta * C
  std::size_t a_bytes = 0, b_bytes = 0, c_bytes = 0;  // the bytes each array spans
};

void validate_options(const char* fn, const gemm_options& o) {
  using cuprim::detail::throw_invalid;
  if (!(o.cpu_share < 0) && !(o.cpu_share >= 0 && o.cpu_share <= 1))
    throw_invalid(fn, "options.cpu_share", "must be in [0, 1], or negative (chosen from rates)");
  if (o.cpu_threads < 0) throw_invalid(fn, "options.cpu_threads", "must be >= 0");
  if (o.tile_m < 0 || o.tile_n < 0 || o.tile_k < 0)
    throw_invalid(fn, "options.tile_m", "tile sizes must be >= 0 (0 = chosen)");
  if (o.mode != gemm_mode::serial && o.mode != gemm_mode::two_way && o.mode != gemm_mode::three_way &&
      o.mode != gemm_mode::four_way)
    throw_invalid(fn, "options.mode", "must be serial, two_way, three_way or four_way");
  if (o.pageable != gemm_pageable::automatic && o.pageable != gemm_pageable::register_in_place &&
      o.pageable != gemm_pageable::stage)
    throw_invalid(fn, "options.pageable", "must be automatic, register_in_place or stage");
  if (o.host_threads < 0 || o.host_threads > 64)
    throw_invalid(fn, "options.host_threads", "must be 0 (the out-of-core policy's count) or 1..64");
}

template <class T>
validated validate(const char* fn, char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha,
                   const T* A, std::int64_t lda, const T* B, std::int64_t ldb, const T* C, std::int64_t ldc,
                   const gemm_options& o) {
  using namespace cuprim::detail;
  validated v;
  gemm_shape& s = v.s;
  s.ta = norm_trans(transa, fn, "transa");
  s.tb = norm_trans(transb, fn, "transb");
  check_size(fn, "m", m);
  check_size(fn, "n", n);
  check_size(fn, "k", k);
  const std::int64_t a_rows = s.ta == 'N' ? m : k, a_cols = s.ta == 'N' ? k : m;
  const std::int64_t b_rows = s.tb == 'N' ? k : n, b_cols = s.tb == 'N' ? n : k;
  if (lda < std::max<std::int64_t>(1, a_rows))
    throw_invalid(fn, "lda", "must be >= max(1, rows of the stored A: m for 'N', k for 'T')");
  if (ldb < std::max<std::int64_t>(1, b_rows))
    throw_invalid(fn, "ldb", "must be >= max(1, rows of the stored B: k for 'N', n for 'T')");
  if (ldc < std::max<std::int64_t>(1, m)) throw_invalid(fn, "ldc", "must be >= max(1, m)");
  const bool full = m > 0 && n > 0 && k > 0;
  check_pointer(fn, "A", A, full);
  check_pointer(fn, "B", B, full);
  check_pointer(fn, "C", C, m > 0 && n > 0);
  validate_options(fn, o);
  s.m = m; s.n = n; s.k = k; s.lda = lda; s.ldb = ldb; s.ldc = ldc;
  v.trivial = m == 0 || n == 0;
  v.scale_only = !v.trivial && (k == 0 || alpha == T(0));
  const std::size_t e = sizeof(T);
  v.a_bytes = std::size_t(span_elems(a_rows, a_cols, lda)) * e;
  v.b_bytes = std::size_t(span_elems(b_rows, b_cols, ldb)) * e;
  v.c_bytes = std::size_t(span_elems(m, n, ldc)) * e;
  if (full && !v.scale_only)  // A and B are read, C written: C may overlap neither (A and B may alias)
    check_overlaps(fn, {{"A", A, v.a_bytes, read_only}, {"B", B, v.b_bytes, read_only}, {"C", C, v.c_bytes, written}});
  if (o.mode == gemm_mode::four_way && o.cpu_share != 0 && !v.trivial && !v.scale_only) {
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
      throw_invalid(fn, "m", "four_way's CPU part needs dimensions and leading dimensions < 2^31");
  }
  return v;
}

void require_cpu_blas(const char* fn, const gemm_options& o, const validated& v) {
  if (o.mode != gemm_mode::four_way || o.cpu_share == 0 || v.trivial || v.scale_only) return;
  if (!cblas_loaded())
    throw cpu_blas_unavailable(std::string(fn) +
                               ": four_way needs a CPU BLAS (cblas_dgemm/cblas_sgemm), loaded at run time; none "
                               "was found (tried: " + cblas_tried() +
                               "). Install OpenBLAS, point CUPRIM_CBLAS at a CBLAS library, or use three_way.");
}

// ---------------------------------------------------------------------------------------------------------------
// Host memory

/// gemm_pageable::automatic locks pageable arrays in place from this size up and stages smaller ones: locking has a
/// fixed cost per call besides its cost per page, which a small array's staging copies (tens of microseconds)
/// do not repay, and a small array is the likelier to share its pages with the caller's other data.
constexpr std::size_t register_min_bytes = std::size_t(1) << 20;

bool is_managed(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeManaged;
}

/// How array `arg` (spanning `bytes`) reaches the copy engines: page-locked memory directly (host_memory_kind, the
/// rule every out-of-core call shares, which also rejects device memory), pageable memory as options.pageable says,
/// managed memory (which cudaHostRegister does not take) through staging.
host_access access_of(const char* fn, const char* arg, const void* p, std::size_t bytes, gemm_pageable mode) {
  using cuprim::detail::host_memory;
  if (cuprim::detail::host_memory_kind(fn, arg, p) == host_memory::pinned) return host_access::direct;
  if (mode == gemm_pageable::stage || is_managed(p)) return host_access::stage;
  if (mode == gemm_pageable::automatic && bytes < register_min_bytes) return host_access::stage;
  return host_access::register_in_place;
}

// ---------------------------------------------------------------------------------------------------------------
// The tile plan

/// Buffer sets per mode.
int slots_of(gemm_mode mode) { return mode == gemm_mode::serial ? 1 : mode == gemm_mode::two_way ? 2 : 3; }

std::size_t tiling_bytes(const gemm_tiling& t, std::size_t elem) {
  const std::size_t S = std::size_t(t.slots);
  std::size_t e = S * std::size_t(t.mt) * std::size_t(t.nt) + S * std::size_t(t.kb) * std::size_t(t.nt) +
                  std::size_t(t.a_bufs) * std::size_t(t.mt) * std::size_t(t.kb);
  // Every buffer is 256-byte aligned.
  const std::size_t nbuf = 2 * S + std::size_t(t.a_bufs);
  return e * elem + nbuf * 256;
}

gemm_tiling make_tiling(std::int64_t mt, std::int64_t nt, std::int64_t kb, std::int64_t k, int slots, bool c_in) {
  gemm_tiling t;
  t.mt = mt;
  t.nt = nt;
  t.kb = kb;
  t.slots = slots;
  t.c_in = c_in;
  t.a_shared = kb >= k;
  t.a_bufs = t.a_shared ? std::min(2, slots) : slots;
  return t;
}

/// The default tile: C tiles of about 8 MiB (many tiles, so the pipeline's fill and drain are short), full columns
/// of C where they fit (contiguous copies, and A's row panel shared by every tile), one k-panel where it fits;
/// shrunk to the budget, the columns first (keeps full-column tiles and the shared A panel), then the rows, then
/// the depth. The smallest tile (min_* each way) fits: the caller checked it.
gemm_tiling default_tiling(std::int64_t m, std::int64_t n, std::int64_t k, int S, bool c_in, std::size_t budget,
                           std::size_t elem) {
  const std::int64_t min_m = std::min<std::int64_t>(m, 32), min_n = std::min<std::int64_t>(n, 32),
                     min_k = std::min<std::int64_t>(k, 32);
  const double target = 8.0 * 1024 * 1024 / double(elem);
  std::int64_t nt = std::clamp<std::int64_t>(std::int64_t(target / double(std::max<std::int64_t>(m, 1))), 128, n);
  nt = std::min(nt, n);
  std::int64_t mt = std::clamp<std::int64_t>(std::int64_t(target / double(nt)), 128, std::max<std::int64_t>(m, 1));
  mt = std::min(mt, m);
  std::int64_t kb = k;
  auto fits = [&] { return tiling_bytes(make_tiling(mt, nt, kb, k, S, c_in), elem) <= budget; };
  while (!fits()) {
    if (nt > 128) nt = std::max<std::int64_t>(128, (nt + 1) / 2);
    else if (mt > 256) mt = std::max<std::int64_t>(256, (mt + 1) / 2);
    else if (kb > 256) kb = (kb + 1) / 2;
    else if (mt >= nt && mt > min_m) mt = std::max(min_m, (mt + 1) / 2);
    else if (nt > min_n) nt = std::max(min_n, (nt + 1) / 2);
    else if (mt > min_m) mt = std::max(min_m, (mt + 1) / 2);
    else if (kb > min_k) kb = std::max(min_k, (kb + 1) / 2);
    else break;  // the smallest tile fits
  }
  return make_tiling(mt, nt, kb, k, S, c_in);
}

/// Chooses (or checks) the tile shape for the budget; throws invalid_argument when even the smallest tile does
/// not fit. Pure arithmetic: no CUDA call.
gemm_tiling choose_tiling(const gemm_shape& s, const gemm_options& o, std::size_t budget, std::size_t elem, bool c_in,
                          std::int64_t gpu_n, const char* fn) {
  const int S = slots_of(o.mode);
  const std::int64_t m = s.m, n = std::max<std::int64_t>(gpu_n, 1), k = s.k;
  const std::int64_t min_m = std::min<std::int64_t>(m, 32), min_n = std::min<std::int64_t>(n, 32),
                     min_k = std::min<std::int64_t>(k, 32);
  const gemm_tiling smallest = make_tiling(min_m, min_n, min_k, k, S, c_in);
  if (tiling_bytes(smallest, elem) > budget) {
    const std::string rule = "too small for one tile: " + std::to_string(min_m) + " x " + std::to_string(min_n) +
                             " x " + std::to_string(min_k) + " tiles in " + gemm_mode_name(o.mode) + " mode need " +
                             std::to_string(tiling_bytes(smallest, elem)) + " bytes, the budget is " +
                             std::to_string(budget);
    cuprim::detail::throw_invalid(fn, "options.device_budget_bytes", rule.c_str());
  }
  if (!o.tile_m && !o.tile_n && !o.tile_k) return default_tiling(m, n, k, S, c_in, budget, elem);
  // The caller's shape (0 components chosen: all rows, up to 256 columns, all of k).
  const std::int64_t mt = o.tile_m ? std::min(o.tile_m, m) : m;
  const std::int64_t nt = o.tile_n ? std::min(o.tile_n, n) : std::min<std::int64_t>(n, 256);
  const std::int64_t kb = o.tile_k ? std::min(o.tile_k, k) : k;
  gemm_tiling t = make_tiling(std::max<std::int64_t>(mt, 1), std::max<std::int64_t>(nt, 1),
                              std::max<std::int64_t>(kb, 1), k, S, c_in);
  if (tiling_bytes(t, elem) > budget) {
    const std::string rule = "too small for the requested tile (" + std::to_string(tiling_bytes(t, elem)) +
                             " bytes needed, " + std::to_string(budget) + " given)";
    cuprim::detail::throw_invalid(fn, "options.device_budget_bytes", rule.c_str());
  }
  return t;
}

std::size_t default_budget() {
  std::size_t free_b = 0, total_b = 0;
  CUPRIM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return free_b / 10 * 8;
}

/// Columns of C the CPU takes in four_way.
template <class T>
std::int64_t cpu_columns_for(const gemm_shape& s, const gemm_options& o, bool c_in, gemm_tile_engine<T>* engine) {
  if (o.mode != gemm_mode::four_way || o.cpu_share == 0) return 0;
  double share = o.cpu_share;
  if (share < 0) {
    const gemm_rates r = gemm_measure_rates<T>(o, engine);
    // Time per column of C on each side; the GPU side is its 3-way pipeline, bound by the slowest engine.
    const double e = sizeof(T);
    const double flops = 2.0 * double(s.m) * double(s.k);
    const double in = ((c_in ? double(s.m) : 0.0) + double(s.k)) * e, out = double(s.m) * e;
    const double g = std::max({in / (r.h2d_gbps * 1e9), out / (r.d2h_gbps * 1e9), flops / (r.gpu_gflops * 1e9)});
    const double c = r.cpu_gflops > 0 ? flops / (r.cpu_gflops * 1e9) : INFINITY;
    share = std::isfinite(c) ? g / (g + c) : 0.0;
  }
  return std::clamp<std::int64_t>(std::llround(share * double(s.n)), 0, s.n);
}

template <class T>
gemm_report plan_impl(const validated& v, T beta, const gemm_options& o, std::size_t budget, std::int64_t cpu_cols,
                      const char* fn) {
  gemm_report r;
  r.mode = o.mode;
  r.budget_bytes = budget;
  const gemm_shape& s = v.s;
  if (v.trivial || v.scale_only) return r;
  const bool c_in = beta != T(0);
  r.cpu_columns = cpu_cols;
  r.gpu_columns = s.n - cpu_cols;
  if (r.gpu_columns == 0) return r;
  const gemm_tiling t = choose_tiling(s, o, budget, sizeof(T), c_in, r.gpu_columns, fn);
  r.tile_m = t.mt;
  r.tile_n = t.nt;
  r.tile_k = t.kb;
  r.device_bytes = tiling_bytes(t, sizeof(T));
  const std::int64_t tm = (s.m + t.mt - 1) / t.mt, tn = (r.gpu_columns + t.nt - 1) / t.nt;
  r.tiles = tm * tn;
  const double e = sizeof(T), cells = double(s.m) * double(r.gpu_columns);
  r.bytes_h2d = (c_in ? cells * e : 0.0) + double(s.m) * double(s.k) * e * (t.a_shared ? 1.0 : double(tn)) +
                double(s.k) * double(r.gpu_columns) * e * double(tm);
  r.bytes_d2h = cells * e;
  return r;
}

template <class T>
void scale_columns_host(T* C, std::int64_t m, std::int64_t n, std::int64_t ldc, T beta) {
  for (std::int64_t j = 0; j < n; ++j) {
    T* c = C + j * ldc;
    if (beta == T(0)) std::fill(c, c + m, T(0));
    else
      for (std::int64_t i = 0; i < m; ++i) c[i] *= beta;
  }
}

/// Joins a thread on every exit path.
struct joiner {
  std::thread t;
  ~joiner() {
    if (t.joinable()) t.join();
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Rates

template <class T>
struct rates_cache {
  std::mutex mu;
  std::map<std::tuple<int, int, std::string>, gemm_rates> map;  // device, threads, engine name
};

/// Best rates of 3 (after a warm-up) of a 32 MiB pinned H2D and D2H copy running at once on two streams.
void measure_copy_rates(gemm_rates& r) {
  const std::size_t bytes = std::size_t(32) << 20;
  pinned_buffer<unsigned char> hin(bytes), hout(bytes);
  std::memset(hin.data(), 1, bytes);
  lanes streams(lane_layout::per_slot, 2);  // two streams
  const cudaStream_t s1 = streams.at(0), s2 = streams.at(1);
  device_buffer<unsigned char> din(bytes, s1), dout(bytes, s1);
  CUPRIM_CUDA_CHECK(cudaMemsetAsync(dout.data(), 0, bytes, s1));
  CUPRIM_CUDA_CHECK(cudaStreamSynchronize(s1));
  const event a0(true), a1(true), b0(true), b1(true);
  for (int rep = 0; rep < 4; ++rep) {
    a0.record(s1);
    b0.record(s2);
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(din.data(), hin.data(), bytes, cudaMemcpyHostToDevice, s1));
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(hout.data(), dout.data(), bytes, cudaMemcpyDeviceToHost, s2));
    a1.record(s1);
    b1.record(s2);
    const double ta = a0.ms_to(a1), tb = b0.ms_to(b1);
    if (rep > 0) {
      r.h2d_gbps = std::max(r.h2d_gbps, bytes / (ta * 1e-3) / 1e9);
      r.d2h_gbps = std::max(r.d2h_gbps, bytes / (tb * 1e-3) / 1e9);
    }
  }
}

/// Best rate of 3 (after a warm-up) of the engine on a 2048 x 2048 x 256 tile.
template <class T>
double measure_engine_rate(gemm_tile_engine<T>& eng) {
  const int mm = 2048, nn = 2048, kk = 256;
  lanes streams(lane_layout::per_slot, 1);
  const cudaStream_t s = streams.at(0);
  device_buffer<T> a(std::size_t(mm) * kk, s), b(std::size_t(kk) * nn, s), c(std::size_t(mm) * nn, s);
  CUPRIM_CUDA_CHECK(cudaMemsetAsync(a.data(), 0, a.bytes(), s));
  CUPRIM_CUDA_CHECK(cudaMemsetAsync(b.data(), 0, b.bytes(), s));
  const event e0(true), e1(true);
  double best = 0;
  for (int rep = 0; rep < 4; ++rep) {
    e0.record(s);
    eng.gemm(s, 'N', 'N', mm, nn, kk, T(1), a.data(), mm, b.data(), kk, T(0), c.data(), mm);
    e1.record(s);
    const double ms = e0.ms_to(e1);
    if (rep > 0) best = std::max(best, 2.0 * mm * nn * kk / (ms * 1e-3) / 1e9);
  }
  return best;
}

/// Best rate of 2 (after a warm-up) of the CPU BLAS on 1024 x 1024 x 256.
template <class T>
double measure_cpu_rate(int threads) {
  const int mm = 1024, nn = 1024, kk = 256;
  std::vector<T> a(std::size_t(mm) * kk, T(0.5)), b(std::size_t(kk) * nn, T(0.25)), c(std::size_t(mm) * nn);
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    cpu_gemm<T>(threads, 'N', 'N', mm, nn, kk, T(1), a.data(), mm, b.data(), kk, T(0), c.data(), mm);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (rep > 0) best = std::max(best, 2.0 * mm * nn * kk / sec / 1e9);
  }
  return best;
}

}  // namespace
}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// Entry points

template <class T>
gemm_rates gemm_measure_rates(const gemm_options& options, gemm_tile_engine<T>* engine) {
  CUPRIM_ENTRY_NAME(fn);
  cuprim::detail::check_no_pending_error(fn);
  const int threads = detail::cpu_thread_count(options);
  int dev = 0;
  CUPRIM_CUDA_CHECK(cudaGetDevice(&dev));
  gemm_tile_engine<T>& eng = engine ? *engine : detail::default_tile_engine<T>();
  const std::tuple<int, int, std::string> key{dev, threads, eng.name()};
  static detail::rates_cache<T> cache;
  std::lock_guard<std::mutex> lock(cache.mu);
  if (auto it = cache.map.find(key); it != cache.map.end()) return it->second;
  gemm_rates r;
  r.cpu_threads = threads;
  detail::measure_copy_rates(r);
  r.gpu_gflops = detail::measure_engine_rate<T>(eng);
  if (detail::cblas_loaded()) r.cpu_gflops = detail::measure_cpu_rate<T>(threads);
  cache.map[key] = r;
  return r;
}

template <class T>
gemm_report gemm_plan(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
                      std::int64_t lda, const T* B, std::int64_t ldb, T beta, const T* C, std::int64_t ldc,
                      const gemm_options& options) {
  CUPRIM_ENTRY_NAME(fn);
  const detail::validated v = detail::validate<T>(fn, transa, transb, m, n, k, alpha, A, lda, B, ldb, C, ldc, options);
  detail::require_cpu_blas(fn, options, v);
  const std::size_t budget = options.device_budget_bytes ? options.device_budget_bytes : detail::default_budget();
  const std::int64_t cpu_cols =
      v.trivial || v.scale_only ? 0 : detail::cpu_columns_for<T>(v.s, options, beta != T(0), nullptr);
  return detail::plan_impl<T>(v, beta, options, budget, cpu_cols, fn);
}

template <class T>
gemm_report gemm_sync(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
                      std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc,
                      const gemm_options& options, gemm_tile_engine<T>* engine) {
  CUPRIM_ENTRY_NAME(fn);
  // Validate.
  const detail::validated v = detail::validate<T>(fn, transa, transb, m, n, k, alpha, A, lda, B, ldb, C, ldc, options);
  detail::require_cpu_blas(fn, options, v);
  // With the budget given, an impossible tile is reported before any CUDA call.
  if (options.device_budget_bytes && !v.trivial && !v.scale_only)
    (void)detail::choose_tiling(v.s, options, options.device_budget_bytes, sizeof(T), beta != T(0), n, fn);
  gemm_report report;
  report.mode = options.mode;
  if (v.trivial) return report;
  if (v.scale_only) {
    detail::scale_columns_host(C, m, n, ldc, beta);
    return report;
  }
  cuprim::detail::check_no_pending_error(fn);
  detail::gemm_access access;
  access.a = detail::access_of(fn, "A", A, v.a_bytes, options.pageable);
  access.b = detail::access_of(fn, "B", B, v.b_bytes, options.pageable);
  access.c = detail::access_of(fn, "C", C, v.c_bytes, options.pageable);
  access.piece_bytes = options.register_piece_bytes;
  access.adaptive = options.pageable == gemm_pageable::automatic;
  access.host_threads = options.host_threads;
  // Plan.
  const std::size_t budget = options.device_budget_bytes ? options.device_budget_bytes : detail::default_budget();
  const std::int64_t cpu_cols = detail::cpu_columns_for<T>(v.s, options, beta != T(0), engine);
  report = detail::plan_impl<T>(v, beta, options, budget, cpu_cols, fn);
  gemm_tile_engine<T>& eng = engine ? *engine : detail::default_tile_engine<T>();
  report.engine = eng.name();
  const detail::gemm_shape& s = v.s;
  // Run: the CPU's columns [gpu_n, n) in place on a thread of their own while the GPU's tiles stream through.
  std::exception_ptr cpu_error;
  detail::joiner cpu;
  const std::int64_t gpu_n = n - cpu_cols;
  if (cpu_cols > 0) {
    const int threads = detail::cpu_thread_count(options);
    const T* Bc = s.tb == 'N' ? B + gpu_n * ldb : B + gpu_n;
    T* Cc = C + gpu_n * ldc;
    cpu.t = std::thread([=, &cpu_error, &report] {
      try {
        const auto t0 = std::chrono::steady_clock::now();
        detail::cpu_gemm<T>(threads, s.ta, s.tb, m, cpu_cols, k, alpha, A, lda, Bc, ldb, beta, Cc, ldc);
        report.cpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      } catch (...) {
        cpu_error = std::current_exception();
      }
    });
  }
  if (gpu_n > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    const detail::gemm_tiling t = detail::choose_tiling(s, options, budget, sizeof(T), beta != T(0), gpu_n, fn);
    const detail::gemm_tiles_done done =
        detail::run_tiles<T>(s, t, options.mode, gpu_n, alpha, A, B, beta, C, access, eng);
    report.tiles = done.tiles;
    report.bytes_h2d = done.bytes_h2d;
    report.bytes_d2h = done.bytes_d2h;
    report.staged_a = done.staged_a;
    report.staged_b = done.staged_b;
    report.staged_c = done.staged_c;
    report.registered_a = done.registered_a;
    report.registered_b = done.registered_b;
    report.registered_c = done.registered_c;
    report.register_ms = done.register_ms;
    report.unregister_ms = done.unregister_ms;
    report.host_threads = done.host_threads;
    report.gpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  if (cpu.t.joinable()) cpu.t.join();
  if (cpu_error) std::rethrow_exception(cpu_error);
  return report;
}

template <class T>
void cpu_blas_gemm(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
                   std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc, int threads) {
  CUPRIM_ENTRY_NAME(fn);
  if (threads < 0) cuprim::detail::throw_invalid(fn, "threads", "must be >= 0 (0: every hardware thread)");
  const detail::validated v = detail::validate<T>(fn, transa, transb, m, n, k, alpha, A, lda, B, ldb, C, ldc, {});
  if (v.trivial) return;
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
    cuprim::detail::throw_invalid(fn, "m", "the CPU BLAS takes dimensions and leading dimensions < 2^31");
  if (!detail::cblas_loaded())
    throw cpu_blas_unavailable(std::string(fn) + ": no CPU BLAS (cblas_dgemm/cblas_sgemm) could be loaded (tried: " +
                               detail::cblas_tried() + "). Install OpenBLAS or point CUPRIM_CBLAS at a CBLAS library.");
  const unsigned hw = std::thread::hardware_concurrency();
  const int t = threads > 0 ? threads : hw > 0 ? static_cast<int>(hw) : 1;
  detail::cpu_gemm<T>(t, v.s.ta, v.s.tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

#define CUPRIM_OOC_GEMM_INSTANTIATE(T)                                                                                \
  template void cpu_blas_gemm<T>(char, char, std::int64_t, std::int64_t, std::int64_t, T, const T*, std::int64_t,    \
                                 const T*, std::int64_t, T, T*, std::int64_t, int);                                  \
  template gemm_report gemm_sync<T>(char, char, std::int64_t, std::int64_t, std::int64_t, T, const T*, std::int64_t, \
                                    const T*, std::int64_t, T, T*, std::int64_t, const gemm_options&,                 \
                                    gemm_tile_engine<T>*);                                                            \
  template gemm_report gemm_plan<T>(char, char, std::int64_t, std::int64_t, std::int64_t, T, const T*, std::int64_t, \
                                    const T*, std::int64_t, T, const T*, std::int64_t, const gemm_options&);          \
  template gemm_rates gemm_measure_rates<T>(const gemm_options&, gemm_tile_engine<T>*);
CUPRIM_OOC_GEMM_INSTANTIATE(float)
CUPRIM_OOC_GEMM_INSTANTIATE(double)
#undef CUPRIM_OOC_GEMM_INSTANTIATE

}  // namespace cuprim::ooc
