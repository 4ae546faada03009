// Out-of-core GEMM (include/cuprim/device/gemm_ooc.hpp): planning, the stream pipeline, the cuBLAS tile engine,
// the run-time CPU BLAS loader and the rate measurements of the 4-way split.
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/gemm_ooc.hpp>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

namespace cuprim {

const char* ooc_mode_name(ooc_mode m) noexcept {
  switch (m) {
    case ooc_mode::serial: return "serial";
    case ooc_mode::two_way: return "2-way";
    case ooc_mode::three_way: return "3-way";
    case ooc_mode::four_way: return "4-way";
  }
  return "?";
}

namespace {

constexpr const char* fn_sync = "cuprim::gemm_ooc_sync";

// ---------------------------------------------------------------------------------------------------------------
// CPU BLAS, loaded at run time

constexpr int cblas_col_major = 102, cblas_no_trans = 111, cblas_trans = 112;
using dgemm_fn = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                          double*, int);
using sgemm_fn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*,
                          int);
using set_threads_fn = void (*)(int);

struct cblas_library {
  void* handle = nullptr;
  dgemm_fn dgemm = nullptr;
  sgemm_fn sgemm = nullptr;
  set_threads_fn set_threads = nullptr;  // openblas_set_num_threads, when exported
  std::string path;
  std::string tried;  // for the error message
};

const cblas_library& cblas() {
  static cblas_library lib;
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("CUPRIM_CBLAS"); env && *env) {
      candidates.emplace_back(env);
    } else {
      candidates = {"libopenblas.so.0", "libopenblas.so", "libcblas.so.3", "libblis.so.4", "libmkl_rt.so",
                    "libblas.so.3"};
    }
    for (const auto& c : candidates) {
      void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) {
        const char* e = dlerror();
        lib.tried += (lib.tried.empty() ? "" : "; ") + c + " (" + (e ? e : "not loadable") + ")";
        continue;
      }
      auto d = reinterpret_cast<dgemm_fn>(dlsym(h, "cblas_dgemm"));
      auto s = reinterpret_cast<sgemm_fn>(dlsym(h, "cblas_sgemm"));
      if (!d || !s) {
        lib.tried += (lib.tried.empty() ? "" : "; ") + c + " (no cblas_dgemm/cblas_sgemm)";
        dlclose(h);
        continue;
      }
      lib.handle = h;
      lib.dgemm = d;
      lib.sgemm = s;
      lib.set_threads = reinterpret_cast<set_threads_fn>(dlsym(h, "openblas_set_num_threads"));
      lib.path = c;
      using corename_fn = char* (*)();
      if (auto core = reinterpret_cast<corename_fn>(dlsym(h, "openblas_get_corename")))
        if (const char* name = core()) lib.path += std::string(" (") + name + ")";
      return;
    }
  });
  return lib;
}

std::mutex& cpu_blas_mutex() {  // one CPU GEMM at a time per process (the thread count is global state)
  static std::mutex m;
  return m;
}

int cpu_thread_count(const gemm_ooc_options& o) {
  if (o.cpu_threads > 0) return o.cpu_threads;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 1 ? static_cast<int>(hw) - 1 : 1;
}

template <class T>
void cpu_gemm(int threads, char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
              std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc) {
  const cblas_library& lib = cblas();
  std::lock_guard<std::mutex> lock(cpu_blas_mutex());
  if (lib.set_threads) lib.set_threads(threads);
  const int oa = ta == 'N' ? cblas_no_trans : cblas_trans, ob = tb == 'N' ? cblas_no_trans : cblas_trans;
  if constexpr (std::is_same_v<T, double>)
    lib.dgemm(cblas_col_major, oa, ob, int(m), int(n), int(k), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));
  else
    lib.sgemm(cblas_col_major, oa, ob, int(m), int(n), int(k), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));
}

// ---------------------------------------------------------------------------------------------------------------
// Validation and planning

char norm_trans(char t, const char* function, const char* argument) {
  switch (t) {
    case 'N': case 'n': return 'N';
    case 'T': case 't': case 'C': case 'c': return 'T';
    default: detail::throw_invalid(function, argument, "must be 'N' or 'T' (or 'C', the same as 'T' for real types)");
  }
}

/// Elements spanned by a column-major rows x cols matrix with leading dimension ld (0 when empty).
std::int64_t span_elems(std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  return rows == 0 || cols == 0 ? 0 : ld * (cols - 1) + rows;
}

struct shape {
  char ta, tb;
  std::int64_t m, n, k, lda, ldb, ldc;
};

/// Slots (buffer sets) per mode.
int slots_of(ooc_mode mode) { return mode == ooc_mode::serial ? 1 : mode == ooc_mode::two_way ? 2 : 3; }

struct tiling {
  std::int64_t mt = 0, nt = 0, kb = 0;
  int slots = 1;
  bool a_shared = false;  // one k-panel: the A row panel is loaded once per row of tiles, double-buffered
  int a_bufs = 0;
  bool c_in = true;       // beta != 0: C tiles are copied in
};

std::size_t tiling_bytes(const tiling& t, std::size_t elem) {
  const std::size_t S = std::size_t(t.slots);
  std::size_t e = S * std::size_t(t.mt) * std::size_t(t.nt) + S * std::size_t(t.kb) * std::size_t(t.nt) +
                  std::size_t(t.a_bufs) * std::size_t(t.mt) * std::size_t(t.kb);
  // Every buffer is 256-byte aligned.
  const std::size_t nbuf = 2 * S + std::size_t(t.a_bufs);
  return e * elem + nbuf * 256;
}

tiling make_tiling(std::int64_t mt, std::int64_t nt, std::int64_t kb, std::int64_t k, int slots, bool c_in) {
  tiling t;
  t.mt = mt;
  t.nt = nt;
  t.kb = kb;
  t.slots = slots;
  t.c_in = c_in;
  t.a_shared = kb >= k;
  t.a_bufs = t.a_shared ? std::min(2, slots) : slots;
  return t;
}

/// Chooses (or checks) the tile shape for the budget; throws invalid_argument when even the smallest tile does
/// not fit. Pure arithmetic: no CUDA call.
tiling choose_tiling(const shape& s, const gemm_ooc_options& o, std::size_t budget, std::size_t elem, bool c_in,
                     std::int64_t gpu_n, const char* function) {
  const int S = slots_of(o.mode);
  const std::int64_t m = s.m, n = std::max<std::int64_t>(gpu_n, 1), k = s.k;
  const std::int64_t min_m = std::min<std::int64_t>(m, 32), min_n = std::min<std::int64_t>(n, 32),
                     min_k = std::min<std::int64_t>(k, 32);
  const tiling smallest = make_tiling(min_m, min_n, min_k, k, S, c_in);
  if (tiling_bytes(smallest, elem) > budget) {
    const std::string rule = "too small for one tile: " + std::to_string(min_m) + " x " + std::to_string(min_n) +
                             " x " + std::to_string(min_k) + " tiles in " + ooc_mode_name(o.mode) + " mode need " +
                             std::to_string(tiling_bytes(smallest, elem)) + " bytes, the budget is " +
                             std::to_string(budget);
    detail::throw_invalid(function, "options.device_budget_bytes", rule.c_str());
  }
  if (o.tile_m || o.tile_n || o.tile_k) {  // the caller's shape (0 components are chosen as below)
    const std::int64_t mt = o.tile_m ? std::min(o.tile_m, m) : m;
    const std::int64_t nt = o.tile_n ? std::min(o.tile_n, n) : std::min<std::int64_t>(n, 256);
    const std::int64_t kb = o.tile_k ? std::min(o.tile_k, k) : k;
    tiling t = make_tiling(std::max<std::int64_t>(mt, 1), std::max<std::int64_t>(nt, 1),
                           std::max<std::int64_t>(kb, 1), k, S, c_in);
    if (tiling_bytes(t, elem) > budget) {
      const std::string rule = "too small for the requested tile (" + std::to_string(tiling_bytes(t, elem)) +
                               " bytes needed, " + std::to_string(budget) + " given)";
      detail::throw_invalid(function, "options.device_budget_bytes", rule.c_str());
    }
    return t;
  }
  // Default: C tiles of about 8 MiB (many tiles, so the pipeline's fill and drain are short), full columns of C
  // where they fit (contiguous copies, and A's row panel shared by every tile), one k-panel where it fits.
  const double target = 8.0 * 1024 * 1024 / double(elem);
  std::int64_t nt = std::clamp<std::int64_t>(std::int64_t(target / double(std::max<std::int64_t>(m, 1))), 128, n);
  nt = std::min(nt, n);
  std::int64_t mt = std::clamp<std::int64_t>(std::int64_t(target / double(nt)), 128, std::max<std::int64_t>(m, 1));
  mt = std::min(mt, m);
  std::int64_t kb = k;
  auto fits = [&] { return tiling_bytes(make_tiling(mt, nt, kb, k, S, c_in), elem) <= budget; };
  // Shrink the columns first (keeps full-column tiles and the shared A panel), then the rows, then the depth.
  while (!fits()) {
    if (nt > 128) nt = std::max<std::int64_t>(128, (nt + 1) / 2);
    else if (mt > 256) mt = std::max<std::int64_t>(256, (mt + 1) / 2);
    else if (kb > 256) kb = (kb + 1) / 2;
    else if (mt >= nt && mt > min_m) mt = std::max(min_m, (mt + 1) / 2);
    else if (nt > min_n) nt = std::max(min_n, (nt + 1) / 2);
    else if (mt > min_m) mt = std::max(min_m, (mt + 1) / 2);
    else if (kb > min_k) kb = std::max(min_k, (kb + 1) / 2);
    else break;  // the smallest tile fits (checked above)
  }
  return make_tiling(mt, nt, kb, k, S, c_in);
}

struct validated {
  shape s;
  bool trivial = false;   // m == 0 or n == 0
  bool scale_only = false;  // k == 0 or alpha == 0: C = beta * C
};

template <class T>
validated validate(const char* function, char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k,
                   T alpha, const T* A, std::int64_t lda, const T* B, std::int64_t ldb, const T* C,
                   std::int64_t ldc, const gemm_ooc_options& o) {
  validated v;
  shape& s = v.s;
  s.ta = norm_trans(transa, function, "transa");
  s.tb = norm_trans(transb, function, "transb");
  if (m < 0) detail::throw_invalid(function, "m", "must be >= 0");
  if (n < 0) detail::throw_invalid(function, "n", "must be >= 0");
  if (k < 0) detail::throw_invalid(function, "k", "must be >= 0");
  const std::int64_t a_rows = s.ta == 'N' ? m : k, a_cols = s.ta == 'N' ? k : m;
  const std::int64_t b_rows = s.tb == 'N' ? k : n, b_cols = s.tb == 'N' ? n : k;
  if (lda < std::max<std::int64_t>(1, a_rows))
    detail::throw_invalid(function, "lda", "must be >= max(1, rows of the stored A: m for 'N', k for 'T')");
  if (ldb < std::max<std::int64_t>(1, b_rows))
    detail::throw_invalid(function, "ldb", "must be >= max(1, rows of the stored B: k for 'N', n for 'T')");
  if (ldc < std::max<std::int64_t>(1, m)) detail::throw_invalid(function, "ldc", "must be >= max(1, m)");
  const bool full = m > 0 && n > 0 && k > 0;
  if (full && A == nullptr) detail::throw_invalid(function, "A", "must not be null when m, n and k are > 0");
  if (full && B == nullptr) detail::throw_invalid(function, "B", "must not be null when m, n and k are > 0");
  if (m > 0 && n > 0 && C == nullptr) detail::throw_invalid(function, "C", "must not be null when m and n are > 0");
  if (!(o.cpu_share < 0) && !(o.cpu_share >= 0 && o.cpu_share <= 1))
    detail::throw_invalid(function, "options.cpu_share", "must be in [0, 1], or negative (chosen from rates)");
  if (o.cpu_threads < 0) detail::throw_invalid(function, "options.cpu_threads", "must be >= 0");
  if (o.tile_m < 0 || o.tile_n < 0 || o.tile_k < 0)
    detail::throw_invalid(function, "options.tile_m", "tile sizes must be >= 0 (0 = chosen)");
  if (o.mode != ooc_mode::serial && o.mode != ooc_mode::two_way && o.mode != ooc_mode::three_way &&
      o.mode != ooc_mode::four_way)
    detail::throw_invalid(function, "options.mode", "must be serial, two_way, three_way or four_way");
  s.m = m; s.n = n; s.k = k; s.lda = lda; s.ldb = ldb; s.ldc = ldc;
  v.trivial = m == 0 || n == 0;
  v.scale_only = !v.trivial && (k == 0 || alpha == T(0));
  if (full && !v.scale_only) {
    auto overlaps = [](const void* p, std::int64_t pe, const void* q, std::int64_t qe) {
      const auto a0 = reinterpret_cast<std::uintptr_t>(p), b0 = reinterpret_cast<std::uintptr_t>(q);
      const auto a1 = a0 + std::uintptr_t(pe) * sizeof(T), b1 = b0 + std::uintptr_t(qe) * sizeof(T);
      return a0 < b1 && b0 < a1;
    };
    const std::int64_t ce = span_elems(m, n, ldc);
    if (overlaps(C, ce, A, span_elems(a_rows, a_cols, lda))) detail::throw_invalid(function, "C", "overlaps A");
    if (overlaps(C, ce, B, span_elems(b_rows, b_cols, ldb))) detail::throw_invalid(function, "C", "overlaps B");
  }
  if (o.mode == ooc_mode::four_way && o.cpu_share != 0 && !v.trivial && !v.scale_only) {
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
      detail::throw_invalid(function, "m", "four_way's CPU part needs dimensions and leading dimensions < 2^31");
  }
  return v;
}

void require_cpu_blas(const gemm_ooc_options& o, const validated& v) {
  if (o.mode != ooc_mode::four_way || o.cpu_share == 0 || v.trivial || v.scale_only) return;
  const cblas_library& lib = cblas();
  if (!lib.handle)
    throw cpu_blas_unavailable(std::string(fn_sync) +
                               ": four_way needs a CPU BLAS (cblas_dgemm/cblas_sgemm), loaded at run time; none "
                               "was found (tried: " + lib.tried +
                               "). Install OpenBLAS, point CUPRIM_CBLAS at a CBLAS library, or use three_way.");
}

std::size_t default_budget() {
  std::size_t free_b = 0, total_b = 0;
  CUPRIM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  return free_b / 10 * 8;
}

// ---------------------------------------------------------------------------------------------------------------
// RAII pieces

struct stream_handle {
  cudaStream_t s = nullptr;
  stream_handle() { CUPRIM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~stream_handle() {
    if (s) {
      (void)cudaStreamSynchronize(s);
      (void)cudaStreamDestroy(s);
    }
  }
  stream_handle(const stream_handle&) = delete;
  stream_handle& operator=(const stream_handle&) = delete;
};

struct event_handle {
  cudaEvent_t e = nullptr;
  explicit event_handle(bool timing = false) {
    CUPRIM_CUDA_CHECK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~event_handle() {
    if (e) (void)cudaEventDestroy(e);
  }
  event_handle(const event_handle&) = delete;
  event_handle& operator=(const event_handle&) = delete;
};

/// Joins a thread on every exit path.
struct joiner {
  std::thread t;
  ~joiner() {
    if (t.joinable()) t.join();
  }
};

/// A 2-D block of a host or device array: rows x cols elements, leading dimension ld (elements).
template <class T>
struct block2d {
  T* p;
  std::int64_t ld, rows, cols;
};

/// A few host threads that split a memcpy with the thread that asks (the staging of pageable arrays: one thread's
/// memcpy runs at a fraction of the host's memory bandwidth). run() calls are serialised.
class copy_pool {
public:
  explicit copy_pool(int threads) {
    for (int i = 0; i < threads; ++i) workers_.emplace_back([this] { loop(); });
  }
  ~copy_pool() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  copy_pool(const copy_pool&) = delete;
  copy_pool& operator=(const copy_pool&) = delete;
  int threads() const { return int(workers_.size()); }

  /// Runs fn(part) for every part in [0, parts) on the workers and the caller; returns when all are done.
  void run(int parts, const std::function<void(int)>& fn) {
    std::lock_guard<std::mutex> one_at_a_time(run_mu_);
    std::unique_lock<std::mutex> l(mu_);
    fn_ = &fn;
    parts_ = parts;
    next_ = 0;
    done_ = 0;
    ++generation_;
    cv_.notify_all();
    l.unlock();
    work();
    l.lock();
    done_cv_.wait(l, [&] { return done_ == parts_; });
    fn_ = nullptr;
  }

private:
  void work() {
    for (;;) {
      int p;
      {
        std::lock_guard<std::mutex> l(mu_);
        if (!fn_ || next_ >= parts_) return;
        p = next_++;
      }
      (*fn_)(p);
      std::lock_guard<std::mutex> l(mu_);
      if (++done_ == parts_) done_cv_.notify_all();
    }
  }
  void loop() {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      work();
    }
  }
  std::vector<std::thread> workers_;
  std::mutex mu_, run_mu_;
  std::condition_variable cv_, done_cv_;
  const std::function<void(int)>* fn_ = nullptr;
  int parts_ = 0, next_ = 0, done_ = 0;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
};

/// Packs or unpacks a strided host block to or from a contiguous staging buffer; run by a stream callback, split
/// over the copy pool.
template <class T>
struct host_copy_job {
  const T* src;
  std::int64_t src_ld;
  T* dst;
  std::int64_t dst_ld;
  std::int64_t rows, cols;
  copy_pool* pool;
  static void CUDART_CB run(void* p) {
    auto* j = static_cast<host_copy_job*>(p);
    const bool flat = j->src_ld == j->rows && j->dst_ld == j->rows;
    const std::int64_t total = j->rows * j->cols;
    const int parts = int(std::clamp<std::int64_t>(total * std::int64_t(sizeof(T)) / (std::int64_t(1) << 20), 1,
                                                   j->pool ? j->pool->threads() + 1 : 1));
    auto part = [j, flat, total, parts](int q) {
      if (flat) {
        const std::int64_t b = total * q / parts, e = total * (q + 1) / parts;
        std::memcpy(j->dst + b, j->src + b, std::size_t(e - b) * sizeof(T));
      } else {
        const std::int64_t b = j->cols * q / parts, e = j->cols * (q + 1) / parts;
        for (std::int64_t c = b; c < e; ++c)
          std::memcpy(j->dst + c * j->dst_ld, j->src + c * j->src_ld, std::size_t(j->rows) * sizeof(T));
      }
    };
    if (parts == 1) part(0);
    else j->pool->run(parts, part);
  }
};

bool is_pinned(const void* p, const char* function, const char* argument) {
  cudaPointerAttributes a{};
  cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return false;  // unknown to CUDA: pageable
  }
  if (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged)
    detail::throw_invalid(function, argument, "must be host memory (pinned or pageable), not device or managed memory");
  return a.type == cudaMemoryTypeHost;
}

/// The GPU pipeline of one call: buffers, streams, events and the issue loop.
template <class T>
class pipeline {
public:
  pipeline(const shape& s, const tiling& t, ooc_mode mode, std::int64_t gpu_n, T alpha, const T* A, const T* B,
           T beta, T* C, bool pinned_a, bool pinned_b, bool pinned_c, gemm_tile_engine<T>& engine)
      : s_(s), t_(t), mode_(mode), gpu_n_(gpu_n), alpha_(alpha), beta_(beta), A_(A), B_(B), C_(C), engine_(engine) {
    stage_a_ = !pinned_a;
    stage_b_ = !pinned_b;
    stage_c_ = !pinned_c;
    const int S = t.slots;
    // Streams: serial uses one; two_way a copy stream and a compute stream; three_way one per engine.
    const int nstreams = mode == ooc_mode::serial ? 1 : mode == ooc_mode::two_way ? 2 : 3;
    for (int i = 0; i < nstreams; ++i) streams_.push_back(std::make_unique<stream_handle>());
    h2d_ = streams_[0]->s;
    comp_ = streams_[nstreams == 1 ? 0 : 1]->s;
    d2h_ = nstreams == 1 ? streams_[0]->s : nstreams == 2 ? streams_[0]->s : streams_[2]->s;
    // Device buffers (from the current resource, released in stream order on h2d_ after everything finished).
    const std::size_t c_el = std::size_t(t.mt) * std::size_t(t.nt), b_el = std::size_t(t.kb) * std::size_t(t.nt),
                      a_el = std::size_t(t.mt) * std::size_t(t.kb);
    for (int i = 0; i < S; ++i) {
      cbuf_.emplace_back(c_el, h2d_);
      bbuf_.emplace_back(b_el, h2d_);
    }
    for (int i = 0; i < t.a_bufs; ++i) abuf_.emplace_back(a_el, h2d_);
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(h2d_));  // allocations ordered before the other streams use them
    // Pinned staging for pageable arrays: one tile's worth per buffer.
    if (stage_c_)
      for (int i = 0; i < S; ++i) cstage_.emplace_back(c_el);
    if (stage_b_)
      for (int i = 0; i < S; ++i) bstage_.emplace_back(b_el);
    if (stage_a_)
      for (int i = 0; i < t.a_bufs; ++i) astage_.emplace_back(a_el);
    if (stage_a_ || stage_b_ || stage_c_) {
      const unsigned hw = std::thread::hardware_concurrency();
      pool_ = std::make_unique<copy_pool>(int(std::clamp<unsigned>(hw > 2 ? hw - 2 : 1, 1, 7)));
    }
    auto make = [](std::vector<std::unique_ptr<event_handle>>& v, int count) {
      for (int i = 0; i < count; ++i) v.push_back(std::make_unique<event_handle>());
    };
    make(loaded_, S);
    make(computed_, S);
    make(stored_, S);
    make(panel_free_, S);
    make(a_loaded_, t.a_bufs);
    make(a_free_, t.a_bufs);
  }

  ~pipeline() {
    // Everything queued must finish before the buffers it uses go away (also when unwinding an exception).
    for (auto& s : streams_) (void)cudaStreamSynchronize(s->s);
  }

  void run() {
    const std::int64_t tiles_m = (s_.m + t_.mt - 1) / t_.mt, tiles_n = (gpu_n_ + t_.nt - 1) / t_.nt;
    const std::int64_t kpanels = (s_.k + t_.kb - 1) / t_.kb;
    const int S = t_.slots;
    const int lag = S == 1 ? 0 : 1;  // stores trail loads by one tile, so a shared copy stream never idles
    std::int64_t t = 0;
    std::deque<std::int64_t> pending;  // tiles computed, store not yet issued
    std::deque<std::tuple<std::int64_t, std::int64_t, std::int64_t>> tile_of;
    for (std::int64_t i = 0; i < tiles_m; ++i) {
      const std::int64_t r0 = i * t_.mt, rows = std::min(t_.mt, s_.m - r0);
      const int ab = t_.a_shared ? int(i % t_.a_bufs) : 0;
      if (t_.a_shared) {
        wait(h2d_, a_free_[ab]->e);
        load_a(r0, rows, 0, s_.k, abuf_[ab].data(), stage_a_ ? astage_[ab].data() : nullptr);
        record(h2d_, a_loaded_[ab]->e);
      }
      for (std::int64_t j = 0; j < tiles_n; ++j, ++t) {
        const std::int64_t c0 = j * t_.nt, cols = std::min(t_.nt, gpu_n_ - c0);
        const int sl = int(t % S);
        T* cb = cbuf_[sl].data();
        wait(h2d_, stored_[sl]->e);  // the slot's previous tile is back on the host
        if (t_.c_in) {
          copy_in(block2d<T>{C_ + r0 + c0 * s_.ldc, s_.ldc, rows, cols}, cb, stage_c_ ? cstage_[sl].data() : nullptr);
        }
        if (t_.a_shared) wait(comp_, a_loaded_[ab]->e);
        for (std::int64_t p = 0; p < kpanels; ++p) {
          const std::int64_t k0 = p * t_.kb, depth = std::min(t_.kb, s_.k - k0);
          wait(h2d_, panel_free_[sl]->e);  // the slot's panel buffers are no longer read
          T* ap = t_.a_shared ? abuf_[ab].data() : abuf_[sl].data();
          if (!t_.a_shared) load_a(r0, rows, k0, depth, ap, stage_a_ ? astage_[sl].data() : nullptr);
          load_b(k0, depth, c0, cols, bbuf_[sl].data(), stage_b_ ? bstage_[sl].data() : nullptr);
          record(h2d_, loaded_[sl]->e);
          wait(comp_, loaded_[sl]->e);
          const int lda_d = s_.ta == 'N' ? int(rows) : int(depth);
          const int ldb_d = s_.tb == 'N' ? int(depth) : int(cols);
          const T beta_p = p == 0 ? (t_.c_in ? beta_ : T(0)) : T(1);
          engine_.gemm(comp_, s_.ta, s_.tb, int(rows), int(cols), int(depth), alpha_, ap, lda_d, bbuf_[sl].data(),
                       ldb_d, beta_p, cb, int(rows));
          record(comp_, panel_free_[sl]->e);
        }
        record(comp_, computed_[sl]->e);
        if (t_.a_shared && j == tiles_n - 1) record(comp_, a_free_[ab]->e);
        pending.push_back(t);
        tile_of.emplace_back(r0, rows, c0);
        if (std::int64_t(pending.size()) > lag) {
          issue_store(pending.front(), tile_of.front(), cols_of(std::get<2>(tile_of.front())));
          pending.pop_front();
          tile_of.pop_front();
        }
      }
    }
    while (!pending.empty()) {
      issue_store(pending.front(), tile_of.front(), cols_of(std::get<2>(tile_of.front())));
      pending.pop_front();
      tile_of.pop_front();
    }
    for (auto& s : streams_) CUPRIM_CUDA_CHECK(cudaStreamSynchronize(s->s));
    tiles_ = t;
  }

  std::int64_t tiles() const { return tiles_; }

private:
  std::int64_t cols_of(std::int64_t c0) const { return std::min(t_.nt, gpu_n_ - c0); }

  void wait(cudaStream_t s, cudaEvent_t e) { CUPRIM_CUDA_CHECK(cudaStreamWaitEvent(s, e, 0)); }
  void record(cudaStream_t s, cudaEvent_t e) { CUPRIM_CUDA_CHECK(cudaEventRecord(e, s)); }

  /// Host block -> contiguous device buffer (leading dimension = rows), on the H2D stream.
  void copy_in(block2d<T> src, T* dev, T* stage) {
    if (src.rows == 0 || src.cols == 0) return;
    const T* from = src.p;
    std::int64_t from_ld = src.ld;
    if (stage) {
      jobs_.push_back(host_copy_job<T>{src.p, src.ld, stage, src.rows, src.rows, src.cols, pool_.get()});
      CUPRIM_CUDA_CHECK(cudaLaunchHostFunc(h2d_, &host_copy_job<T>::run, &jobs_.back()));
      from = stage;
      from_ld = src.rows;
    }
    CUPRIM_CUDA_CHECK(cudaMemcpy2DAsync(dev, std::size_t(src.rows) * sizeof(T), from, std::size_t(from_ld) * sizeof(T),
                                        std::size_t(src.rows) * sizeof(T), std::size_t(src.cols),
                                        cudaMemcpyHostToDevice, h2d_));
    bytes_h2d_ += double(src.rows) * double(src.cols) * sizeof(T);
  }

  /// op(A)(r0 .. r0+rows, k0 .. k0+depth) as stored.
  void load_a(std::int64_t r0, std::int64_t rows, std::int64_t k0, std::int64_t depth, T* dev, T* stage) {
    if (s_.ta == 'N') copy_in(block2d<T>{const_cast<T*>(A_) + r0 + k0 * s_.lda, s_.lda, rows, depth}, dev, stage);
    else copy_in(block2d<T>{const_cast<T*>(A_) + k0 + r0 * s_.lda, s_.lda, depth, rows}, dev, stage);
  }
  /// op(B)(k0 .. k0+depth, c0 .. c0+cols) as stored.
  void load_b(std::int64_t k0, std::int64_t depth, std::int64_t c0, std::int64_t cols, T* dev, T* stage) {
    if (s_.tb == 'N') copy_in(block2d<T>{const_cast<T*>(B_) + k0 + c0 * s_.ldb, s_.ldb, depth, cols}, dev, stage);
    else copy_in(block2d<T>{const_cast<T*>(B_) + c0 + k0 * s_.ldb, s_.ldb, cols, depth}, dev, stage);
  }

  void issue_store(std::int64_t t, const std::tuple<std::int64_t, std::int64_t, std::int64_t>& tile,
                   std::int64_t cols) {
    const auto [r0, rows, c0] = tile;
    const int sl = int(t % t_.slots);
    wait(d2h_, computed_[sl]->e);
    T* dst = C_ + r0 + c0 * s_.ldc;
    if (stage_c_) {
      T* st = cstage_[sl].data();
      CUPRIM_CUDA_CHECK(cudaMemcpyAsync(st, cbuf_[sl].data(), std::size_t(rows * cols) * sizeof(T),
                                        cudaMemcpyDeviceToHost, d2h_));
      jobs_.push_back(host_copy_job<T>{st, rows, dst, s_.ldc, rows, cols, pool_.get()});
      CUPRIM_CUDA_CHECK(cudaLaunchHostFunc(d2h_, &host_copy_job<T>::run, &jobs_.back()));
    } else {
      CUPRIM_CUDA_CHECK(cudaMemcpy2DAsync(dst, std::size_t(s_.ldc) * sizeof(T), cbuf_[sl].data(),
                                          std::size_t(rows) * sizeof(T), std::size_t(rows) * sizeof(T),
                                          std::size_t(cols), cudaMemcpyDeviceToHost, d2h_));
    }
    record(d2h_, stored_[sl]->e);
    bytes_d2h_ += double(rows) * double(cols) * sizeof(T);
  }

public:
  double bytes_h2d_ = 0, bytes_d2h_ = 0;

private:
  shape s_;
  tiling t_;
  ooc_mode mode_;
  std::int64_t gpu_n_;
  T alpha_, beta_;
  const T* A_;
  const T* B_;
  T* C_;
  gemm_tile_engine<T>& engine_;
  bool stage_a_ = false, stage_b_ = false, stage_c_ = false;
  std::int64_t tiles_ = 0;
  // Destroyed in reverse order: ~pipeline has synchronised every stream; then the staging buffers, callbacks'
  // jobs and events go, then the device buffers (released in order on h2d_), and the streams last.
  std::vector<std::unique_ptr<stream_handle>> streams_;
  std::vector<device_buffer<T>> cbuf_, bbuf_, abuf_;
  std::vector<std::unique_ptr<event_handle>> loaded_, computed_, stored_, panel_free_, a_loaded_, a_free_;
  std::deque<host_copy_job<T>> jobs_;  // stable addresses for the callbacks
  std::vector<pinned_buffer<T>> cstage_, bstage_, astage_;
  std::unique_ptr<copy_pool> pool_;
  cudaStream_t h2d_ = nullptr, comp_ = nullptr, d2h_ = nullptr;
};

/// The default engine of the calling thread for the current device.
template <class T>
gemm_tile_engine<T>& default_engine() {
  thread_local std::map<int, std::unique_ptr<cublas_tile_engine<T>>> engines;
  int dev = 0;
  CUPRIM_CUDA_CHECK(cudaGetDevice(&dev));
  auto& e = engines[dev];
  if (!e) e = std::make_unique<cublas_tile_engine<T>>();
  return *e;
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

/// Columns of C the CPU takes in four_way.
template <class T>
std::int64_t cpu_columns_for(const shape& s, const gemm_ooc_options& o, bool c_in, gemm_tile_engine<T>* engine) {
  if (o.mode != ooc_mode::four_way || o.cpu_share == 0) return 0;
  double share = o.cpu_share;
  if (share < 0) {
    const gemm_ooc_rates r = gemm_ooc_measure_rates<T>(o, engine);
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
gemm_ooc_report plan_impl(const validated& v, T beta, const gemm_ooc_options& o, std::size_t budget,
                          std::int64_t cpu_cols, const char* function) {
  gemm_ooc_report r;
  r.mode = o.mode;
  r.budget_bytes = budget;
  const shape& s = v.s;
  if (v.trivial || v.scale_only) return r;
  const bool c_in = beta != T(0);
  r.cpu_columns = cpu_cols;
  r.gpu_columns = s.n - cpu_cols;
  if (r.gpu_columns == 0) return r;
  const tiling t = choose_tiling(s, o, budget, sizeof(T), c_in, r.gpu_columns, function);
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
struct rates_cache {
  std::mutex mu;
  std::map<std::pair<int, int>, gemm_ooc_rates> map;
};

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// cuBLAS engine

template <class T>
cublas_tile_engine<T>::cublas_tile_engine() {
  CUPRIM_CUDA_CHECK(cudaGetDevice(&device_));
  cublasHandle_t h = nullptr;
  const cublasStatus_t st = cublasCreate(&h);
  if (st != CUBLAS_STATUS_SUCCESS)
    throw cuda_error(cudaErrorUnknown, std::string("cublasCreate: ") + cublasGetStatusString(st),
                     std::source_location::current());
  handle_ = h;
}

template <class T>
cublas_tile_engine<T>::~cublas_tile_engine() {
  if (handle_) (void)cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

template <class T>
void cublas_tile_engine<T>::gemm(cudaStream_t stream, char transa, char transb, int m, int n, int k, T alpha,
                                 const T* A, int lda, const T* B, int ldb, T beta, T* C, int ldc) {
  auto h = static_cast<cublasHandle_t>(handle_);
  auto check = [](cublasStatus_t st, const char* call) {
    if (st != CUBLAS_STATUS_SUCCESS)
      throw cuda_error(cudaErrorUnknown, std::string(call) + ": " + cublasGetStatusString(st),
                       std::source_location::current());
  };
  check(cublasSetStream(h, stream), "cublasSetStream");
  const cublasOperation_t oa = transa == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t ob = transb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
  if constexpr (std::is_same_v<T, double>)
    check(cublasDgemm(h, oa, ob, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc), "cublasDgemm");
  else
    check(cublasSgemm(h, oa, ob, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc), "cublasSgemm");
}

template class cublas_tile_engine<float>;
template class cublas_tile_engine<double>;

// ---------------------------------------------------------------------------------------------------------------
// CPU BLAS queries

bool cpu_blas_available() noexcept {
  try {
    return cblas().handle != nullptr;
  } catch (...) {
    return false;
  }
}
std::string cpu_blas_name() { return cblas().path; }

// ---------------------------------------------------------------------------------------------------------------
// Rates

template <class T>
gemm_ooc_rates gemm_ooc_measure_rates(const gemm_ooc_options& options, gemm_tile_engine<T>* engine) {
  detail::check_no_pending_error("cuprim::gemm_ooc_measure_rates");
  const int threads = cpu_thread_count(options);
  int dev = 0;
  CUPRIM_CUDA_CHECK(cudaGetDevice(&dev));
  static rates_cache<T> cache;
  std::lock_guard<std::mutex> lock(cache.mu);
  if (auto it = cache.map.find({dev, threads}); it != cache.map.end()) return it->second;
  gemm_tile_engine<T>& eng = engine ? *engine : default_engine<T>();
  gemm_ooc_rates r;
  r.cpu_threads = threads;
  using clock = std::chrono::steady_clock;
  {  // concurrent pinned copies, 32 MiB each way, best of 3
    const std::size_t bytes = std::size_t(32) << 20;
    pinned_buffer<unsigned char> hin(bytes), hout(bytes);
    std::memset(hin.data(), 1, bytes);
    stream_handle s1, s2;
    device_buffer<unsigned char> din(bytes, s1.s), dout(bytes, s1.s);
    CUPRIM_CUDA_CHECK(cudaMemsetAsync(dout.data(), 0, bytes, s1.s));
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(s1.s));
    event_handle ea0(true), ea1(true), eb0(true), eb1(true);
    cudaEvent_t a0 = ea0.e, a1 = ea1.e, b0 = eb0.e, b1 = eb1.e;
    double best_h = 0, best_d = 0;
    for (int rep = 0; rep < 4; ++rep) {
      CUPRIM_CUDA_CHECK(cudaEventRecord(a0, s1.s));
      CUPRIM_CUDA_CHECK(cudaEventRecord(b0, s2.s));
      CUPRIM_CUDA_CHECK(cudaMemcpyAsync(din.data(), hin.data(), bytes, cudaMemcpyHostToDevice, s1.s));
      CUPRIM_CUDA_CHECK(cudaMemcpyAsync(hout.data(), dout.data(), bytes, cudaMemcpyDeviceToHost, s2.s));
      CUPRIM_CUDA_CHECK(cudaEventRecord(a1, s1.s));
      CUPRIM_CUDA_CHECK(cudaEventRecord(b1, s2.s));
      CUPRIM_CUDA_CHECK(cudaEventSynchronize(a1));
      CUPRIM_CUDA_CHECK(cudaEventSynchronize(b1));
      float ta = 0, tb = 0;
      CUPRIM_CUDA_CHECK(cudaEventElapsedTime(&ta, a0, a1));
      CUPRIM_CUDA_CHECK(cudaEventElapsedTime(&tb, b0, b1));
      if (rep > 0) {
        best_h = std::max(best_h, bytes / (ta * 1e-3) / 1e9);
        best_d = std::max(best_d, bytes / (tb * 1e-3) / 1e9);
      }
    }
    r.h2d_gbps = best_h;
    r.d2h_gbps = best_d;
  }
  {  // the engine on a 2048 x 2048 x 256 tile, best of 3 after one warm-up
    const int mm = 2048, nn = 2048, kk = 256;
    stream_handle s;
    device_buffer<T> a(std::size_t(mm) * kk, s.s), b(std::size_t(kk) * nn, s.s), c(std::size_t(mm) * nn, s.s);
    CUPRIM_CUDA_CHECK(cudaMemsetAsync(a.data(), 0, a.bytes(), s.s));
    CUPRIM_CUDA_CHECK(cudaMemsetAsync(b.data(), 0, b.bytes(), s.s));
    event_handle ev0(true), ev1(true);
    cudaEvent_t e0 = ev0.e, e1 = ev1.e;
    double best = 0;
    for (int rep = 0; rep < 4; ++rep) {
      CUPRIM_CUDA_CHECK(cudaEventRecord(e0, s.s));
      eng.gemm(s.s, 'N', 'N', mm, nn, kk, T(1), a.data(), mm, b.data(), kk, T(0), c.data(), mm);
      CUPRIM_CUDA_CHECK(cudaEventRecord(e1, s.s));
      CUPRIM_CUDA_CHECK(cudaEventSynchronize(e1));
      float ms = 0;
      CUPRIM_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
      if (rep > 0) best = std::max(best, 2.0 * mm * nn * kk / (ms * 1e-3) / 1e9);
    }
    r.gpu_gflops = best;
  }
  if (cblas().handle) {  // the CPU BLAS on 1024 x 1024 x 256, best of 2 after one warm-up
    const int mm = 1024, nn = 1024, kk = 256;
    std::vector<T> a(std::size_t(mm) * kk, T(0.5)), b(std::size_t(kk) * nn, T(0.25)), c(std::size_t(mm) * nn);
    double best = 0;
    for (int rep = 0; rep < 3; ++rep) {
      const auto t0 = clock::now();
      cpu_gemm<T>(threads, 'N', 'N', mm, nn, kk, T(1), a.data(), mm, b.data(), kk, T(0), c.data(), mm);
      const double sec = std::chrono::duration<double>(clock::now() - t0).count();
      if (rep > 0) best = std::max(best, 2.0 * mm * nn * kk / sec / 1e9);
    }
    r.cpu_gflops = best;
  }
  cache.map[{dev, threads}] = r;
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// Entry points

template <class T>
gemm_ooc_report gemm_ooc_plan(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha,
                              const T* A, std::int64_t lda, const T* B, std::int64_t ldb, T beta, const T* C,
                              std::int64_t ldc, const gemm_ooc_options& options) {
  constexpr const char* fn = "cuprim::gemm_ooc_plan";
  const validated v = validate<T>(fn, transa, transb, m, n, k, alpha, A, lda, B, ldb, C, ldc, options);
  require_cpu_blas(options, v);
  const std::size_t budget = options.device_budget_bytes ? options.device_budget_bytes : default_budget();
  std::int64_t cpu_cols = 0;
  if (!v.trivial && !v.scale_only && options.mode == ooc_mode::four_way && options.cpu_share >= 0)
    cpu_cols = std::clamp<std::int64_t>(std::llround(options.cpu_share * double(n)), 0, n);
  else if (!v.trivial && !v.scale_only && options.mode == ooc_mode::four_way)
    cpu_cols = cpu_columns_for<T>(v.s, options, beta != T(0), nullptr);
  return plan_impl<T>(v, beta, options, budget, cpu_cols, fn);
}

template <class T>
gemm_ooc_report gemm_ooc_sync(char transa, char transb, std::int64_t m, std::int64_t n, std::int64_t k, T alpha,
                              const T* A, std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C,
                              std::int64_t ldc, const gemm_ooc_options& options, gemm_tile_engine<T>* engine) {
  const validated v = validate<T>(fn_sync, transa, transb, m, n, k, alpha, A, lda, B, ldb, C, ldc, options);
  require_cpu_blas(options, v);
  // With the budget given, an impossible tile is reported before any CUDA call.
  if (options.device_budget_bytes && !v.trivial && !v.scale_only)
    (void)choose_tiling(v.s, options, options.device_budget_bytes, sizeof(T), beta != T(0), n, fn_sync);
  gemm_ooc_report report;
  report.mode = options.mode;
  if (v.trivial) return report;
  if (v.scale_only) {
    scale_columns_host(C, m, n, ldc, beta);
    return report;
  }
  detail::check_no_pending_error(fn_sync);
  const bool pa = is_pinned(A, fn_sync, "A"), pb = is_pinned(B, fn_sync, "B"), pc = is_pinned(C, fn_sync, "C");
  const std::size_t budget = options.device_budget_bytes ? options.device_budget_bytes : default_budget();
  const std::int64_t cpu_cols = cpu_columns_for<T>(v.s, options, beta != T(0), engine);
  report = plan_impl<T>(v, beta, options, budget, cpu_cols, fn_sync);
  gemm_tile_engine<T>& eng = engine ? *engine : default_engine<T>();
  report.engine = eng.name();
  report.staged_a = !pa;
  report.staged_b = !pb;
  report.staged_c = !pc && beta != T(0);
  const shape& s = v.s;

  // The CPU's columns [gpu_n, n), computed in place while the GPU pipeline runs.
  std::exception_ptr cpu_error;
  joiner cpu;
  const std::int64_t gpu_n = n - cpu_cols;
  if (cpu_cols > 0) {
    const int threads = cpu_thread_count(options);
    const T* Bc = s.tb == 'N' ? B + gpu_n * ldb : B + gpu_n;
    T* Cc = C + gpu_n * ldc;
    cpu.t = std::thread([=, &cpu_error, &report] {
      try {
        const auto t0 = std::chrono::steady_clock::now();
        cpu_gemm<T>(threads, s.ta, s.tb, m, cpu_cols, k, alpha, A, lda, Bc, ldb, beta, Cc, ldc);
        report.cpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      } catch (...) {
        cpu_error = std::current_exception();
      }
    });
  }
  if (gpu_n > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool c_in = beta != T(0);
    const tiling t = choose_tiling(s, options, budget, sizeof(T), c_in, gpu_n, fn_sync);
    const ooc_mode gpu_mode = options.mode == ooc_mode::four_way ? ooc_mode::three_way : options.mode;
    pipeline<T> pipe(s, t, gpu_mode, gpu_n, alpha, A, B, beta, C, pa, pb, pc, eng);
    pipe.run();
    report.tiles = pipe.tiles();
    report.bytes_h2d = pipe.bytes_h2d_;
    report.bytes_d2h = pipe.bytes_d2h_;
    report.gpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  if (cpu.t.joinable()) cpu.t.join();
  if (cpu_error) std::rethrow_exception(cpu_error);
  return report;
}

#define CUPRIM_GEMM_OOC_INSTANTIATE(T)                                                                              \
  template gemm_ooc_report gemm_ooc_sync<T>(char, char, std::int64_t, std::int64_t, std::int64_t, T, const T*,     \
                                            std::int64_t, const T*, std::int64_t, T, T*, std::int64_t,            \
                                            const gemm_ooc_options&, gemm_tile_engine<T>*);                         \
  template gemm_ooc_report gemm_ooc_plan<T>(char, char, std::int64_t, std::int64_t, std::int64_t, T, const T*,     \
                                            std::int64_t, const T*, std::int64_t, T, const T*, std::int64_t,      \
                                            const gemm_ooc_options&);                                               \
  template gemm_ooc_rates gemm_ooc_measure_rates<T>(const gemm_ooc_options&, gemm_tile_engine<T>*);
CUPRIM_GEMM_OOC_INSTANTIATE(float)
CUPRIM_GEMM_OOC_INSTANTIATE(double)
#undef CUPRIM_GEMM_OOC_INSTANTIATE

}  // namespace cuprim
