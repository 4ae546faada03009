// lab/multi.cu: the multi-GPU page, `cuprim-lab run multi/` (built only where cuprim::multi is, i.e. where NCCL was
// found: lab/CMakeLists.txt defines CUPRIM_LAB_MULTI). In one run, on the GPUs this process sees (P = 1, 2, 4 where
// that many exist; one process drives them all through cuprim::multi::communicator::local, NCCL_NVLS_ENABLE=0):
//
//   single rows   cuprim's single-GPU call on device 0 over the whole array (the sort and the GEMM also at n/P and
//                 m/P: the local work of P ranks, which their bounds are built from);
//   P=<P> rows    the cuprim::multi call on P equal shards of the same global array (the same values: element g of
//                 the global array is the lab's random value g, wherever it lies). The baseline column is the
//                 single row of the whole array, so the table's speedup is the multi-GPU speed-up;
//   nccl rows     all-reduce, all-gather and all-to-all (grouped ncclSend/ncclRecv) on the same communicators: the
//                 sizes the operations move (a few bytes to 256 KiB, and the sort's n/P keys per rank) and 256 MiB
//                 and 1 GiB per rank.
//
//   reduce          sum of float, 2^31 elements                      target speed-up >= 0.9·P
//   scan            inclusive sum of int32, 2^31                     target >= 0.6·P (3 moves per element on P GPUs
//                                                                   against 2 on one: at most 2P/3); its phases are
//                                                                   timed apart (local reduce, exchange, local scan)
//   histogram       histogram_even of float, 256 and 65536 bins, 2^31   target >= 0.9·P
//   select          select_if of float keeping x < 0.5 (about half), 2^30   no target: reported
//   radix sort      radix_sort_keys of uint32, 2^31                  target: <= 1.1 × the bound [single-GPU sort of
//                                                                   n/P keys + the all-to-all of n/P keys, its
//                                                                   own nccl row]; its phases are timed as
//                                                                   prefixes of the call (local sort, splitters and
//                                                                   table, exchange, merge)
//   GEMM            bf16 A and B, float C, 16384^3                   target speed-up >= 0.9·P
//
// Sizes: CUPRIM_LAB_MULTI_LOG2N (default 31: reduce, scan, histogram and sort take 2^k elements in all, select
// 2^(k-1)) and CUPRIM_LAB_MULTI_GEMM (default 16384: m = n = k, a multiple of 256); the run command has no size
// options, and the row names carry the sizes.
//
// Verification, once per row before it is timed, against host computations on the same values (generated on the
// host by the lab's generator, in parallel): integer results, the histograms, the selection and the sort exactly;
// the float sum within lab::sum_tolerance (plus P roundings of the partials); the GEMM's single row at sampled
// entries against a double host product, and a P-GPU product entry by entry against cuprim's single-GPU product
// on device 0 (both within 4·k·2^-24·Σ|a||b| of the exact value). A multi row also checks that every rank holds
// the same result where every rank gets one (sum, histogram, counts).
//
// Timing (every row, single ones too, the same way): before each call every rank's stream is idle (synchronised
// from the host); per rank a CUDA event on its stream before and after the call; the call's time is the slowest
// rank's (end - start); the median over the reps after the warm-up (max(3, reps/10) calls). No stream-holding
// kernel: the multi scan waits on the host inside its call. The host wall time of each call (from before the first
// start event to after the last synchronisation) is kept beside it and printed in the summary. At the default sizes
// every rank's input is at least 1 GiB (the select's 2^30 floats over 4 ranks), far above L2, so no input is
// rotated (the smaller sizes the environment allows are for checks, not figures). Workspace
// comes from cuprim's pool inside the timed calls, for the single-GPU calls as for the multi ones (which have no
// workspace overloads); every row frees its buffers and trims the pools of its devices when it ends.
//
// The summary after the table gives each operation's speed-up per P against its target, the collectives' algorithm
// and bus bandwidths (nccl-tests conventions), and each operation's bound built from this run's rows.
#include "lab.hpp"

#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/device/histogram.cuh>
#include <cuprim/device/radix_sort.cuh>
#include <cuprim/device/reduce.cuh>
#include <cuprim/device/scan.cuh>
#include <cuprim/device/select.cuh>
#include <cuprim/host/histogram.hpp>
#include <cuprim/multi/communicator.hpp>
#include <cuprim/multi/detail/nccl.hpp>
#include <cuprim/multi/gemm.cuh>
#include <cuprim/multi/histogram.cuh>
#include <cuprim/multi/radix_sort.cuh>
#include <cuprim/multi/reduce.cuh>
#include <cuprim/multi/scan.cuh>
#include <cuprim/multi/select.cuh>
#include <cuprim/multi/sharded.hpp>

#include <cuda_bf16.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

// The host sum accumulates in long double (host code only; nvcc notes that long double would be double in device
// code), as lab/reduce_common.cuh does.
#pragma nv_diag_suppress 20208

namespace lab {
namespace {

namespace multi = cuprim::multi;
using multi::device_guard;

constexpr std::int64_t pow2(int k) { return std::int64_t(1) << k; }

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// ---------------------------------------------------------------------------------------------------------------
// Sizes, ranks, communicators

struct page_sizes {
  int log2n = 31;             // reduce, scan, histogram, sort: 2^log2n elements in all; select: 2^(log2n - 1)
  std::int64_t gemm = 16384;  // m = n = k
  std::int64_t n() const { return pow2(log2n); }
  std::int64_t select_n() const { return pow2(log2n - 1); }
};

page_sizes sizes_from_environment() {
  page_sizes s;
  if (const char* e = std::getenv("CUPRIM_LAB_MULTI_LOG2N"); e && *e) {
    char* end = nullptr;
    const long v = std::strtol(e, &end, 10);
    if (*end || v < 16 || v > 32)
      throw std::invalid_argument("CUPRIM_LAB_MULTI_LOG2N must be a number in [16, 32], is '" + std::string(e) + "'");
    s.log2n = int(v);
  }
  if (const char* e = std::getenv("CUPRIM_LAB_MULTI_GEMM"); e && *e) {
    char* end = nullptr;
    const long v = std::strtol(e, &end, 10);
    if (*end || v < 256 || v > 65536 || v % 256 != 0)
      throw std::invalid_argument("CUPRIM_LAB_MULTI_GEMM must be a multiple of 256 in [256, 65536], is '" +
                                  std::string(e) + "'");
    s.gemm = v;
  }
  return s;
}

/// The rank counts the page measures: 1, 2 and 4 where that many devices are visible (all three without a device,
/// so that `list` shows the page anywhere; the host path runs no device case).
std::vector<int> rank_counts() {
  const int d = cuprim::device_count();
  std::vector<int> ps;
  for (int p : {1, 2, 4})
    if (d == 0 || p <= d) ps.push_back(p);
  return ps;
}

std::vector<int> first_devices(int P) {
  std::vector<int> d(std::size_t(P), 0);
  std::iota(d.begin(), d.end(), 0);
  return d;
}

/// The communicator of devices 0 .. P-1, made on first use and kept for the rest of the run, so that every row of
/// that P (operations and collectives) runs on the same one. The map is constructed by the first row's setup, after
/// the CUDA runtime is initialised, so it is destroyed (the NCCL communicators with it) before the runtime's own
/// teardown at exit.
multi::communicator& comm_for(int P) {
  static std::map<int, std::unique_ptr<multi::communicator>> comms;
  if (auto it = comms.find(P); it != comms.end()) return *it->second;
  const int visible = cuprim::device_count();
  if (visible < P)
    throw std::runtime_error("needs " + std::to_string(P) + " GPUs, " + std::to_string(visible) + " visible");
  setenv("NCCL_NVLS_ENABLE", "0", 1);  // NVLink multicast: not used by cuprim::multi, and off on the lab's machines
  auto c = std::make_unique<multi::communicator>(multi::communicator::local(first_devices(P)));
  return *comms.emplace(P, std::move(c)).first->second;
}

// ---------------------------------------------------------------------------------------------------------------
// Device memory on a chosen device, streams, pools

/// Device memory (cudaMalloc, outside cuprim's pools) on `device`, freed with that device current. Move-constructible
/// only (vectors of them are built and moved whole).
class dbuf {
public:
  dbuf() = default;
  dbuf(int device, std::size_t bytes) : device_(device) {
    device_guard g(device);
    mem_ = device_memory(std::max<std::size_t>(bytes, 256));
  }
  dbuf(dbuf&& o) noexcept : device_(o.device_), mem_(std::move(o.mem_)) {}
  dbuf(const dbuf&) = delete;
  dbuf& operator=(const dbuf&) = delete;
  ~dbuf() { release(); }

  template <class T> T* as() const noexcept { return mem_.as<T>(); }
  void* get() const noexcept { return mem_.get(); }
  int device() const noexcept { return device_; }
  /// Sets every byte to 0xA5 and waits (before a verification).
  void poison() const {
    device_guard g(device_);
    mem_.poison();
  }

private:
  void release() noexcept {
    if (!mem_.get()) return;
    int previous = 0;
    (void)cudaGetDevice(&previous);
    (void)cudaSetDevice(device_);
    mem_ = device_memory();
    (void)cudaSetDevice(previous);
  }
  int device_ = 0;
  device_memory mem_;
};

/// A non-blocking stream on `device`, synchronised and destroyed with the row.
struct owned_stream {
  int device = 0;
  cudaStream_t s = nullptr;
  explicit owned_stream(int d) : device(d) {
    device_guard g(d);
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  }
  owned_stream(const owned_stream&) = delete;
  owned_stream& operator=(const owned_stream&) = delete;
  ~owned_stream() {
    int previous = 0;
    (void)cudaGetDevice(&previous);
    (void)cudaSetDevice(device);
    (void)cudaStreamSynchronize(s);
    (void)cudaStreamDestroy(s);
    (void)cudaSetDevice(previous);
  }
};

/// Returns the memory cuprim's pools cache on these devices to the system when the row ends (the pools keep what the
/// calls freed: a later row, or another P, finds the device's memory free).
struct pool_trimmer {
  std::vector<int> devices;
  ~pool_trimmer() {
    for (int d : devices) {
      int previous = 0;
      (void)cudaGetDevice(&previous);
      if (cudaSetDevice(d) != cudaSuccess) {
        (void)cudaGetLastError();
        continue;
      }
      try {
        if (auto* p = dynamic_cast<cuprim::pool_resource*>(&cuprim::current_resource())) p->trim();
      } catch (...) {  // a failed context: the driver reports it to the next row
      }
      (void)cudaSetDevice(previous);
    }
  }
};

void wait_device(int device) {
  device_guard g(device);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

/// Elements first .. first + count - 1 of the lab's random stream (t, seed) into b, on b's device; waits.
void fill_global(dtype t, const dbuf& b, std::int64_t count, std::uint64_t seed, std::int64_t first) {
  device_guard g(b.device());
  fill_random_device(t, b.get(), std::size_t(count), seed, std::uint64_t(first), 0);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (fill)");
}

template <class T>
void copy_to_host(T* host, const dbuf& b, std::int64_t count) {
  if (count <= 0) return;
  device_guard g(b.device());
  check(cudaMemcpy(host, b.get(), std::size_t(count) * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy (to host)");
}

/// The view cuprim::multi takes of per-rank buffers (local rank i = rank i = device i here).
template <class T>
multi::sharded<T> shards(const std::vector<dbuf>& b, const std::vector<std::int64_t>& sizes) {
  std::vector<multi::shard<T>> v;
  for (std::size_t i = 0; i < b.size(); ++i) v.push_back({b[i].template as<std::remove_const_t<T>>(), sizes[i]});
  return multi::sharded<T>(std::move(v));
}

// ---------------------------------------------------------------------------------------------------------------
// Timing: per-rank CUDA events around a call that starts with every rank's stream idle

struct lane {
  int device = 0;
  cudaStream_t stream = nullptr;
};

std::vector<lane> lanes_of(const multi::communicator& c) {
  std::vector<lane> v;
  for (const multi::local_rank& l : c.locals()) v.push_back({l.device, l.stream});
  return v;
}

struct lane_timing {
  timing t;                     ///< per call, the slowest lane's (end - start); median, min, max over the reps
  double wall_ms = 0;           ///< median host wall time of a call (first start event to the last synchronisation)
  std::vector<double> lane_ms;  ///< each lane's median (end - start)
};

void sync_lanes(const std::vector<lane>& lanes) {
  for (const lane& l : lanes) {
    device_guard g(l.device);
    check(cudaStreamSynchronize(l.stream), "cudaStreamSynchronize");
  }
}

/// Events made on their lane's device, destroyed there.
struct event_set {
  std::vector<std::pair<int, cudaEvent_t>> all;
  cudaEvent_t make(int device) {
    device_guard g(device);
    cudaEvent_t e = nullptr;
    check(cudaEventCreate(&e), "cudaEventCreate");
    all.emplace_back(device, e);
    return e;
  }
  ~event_set() {
    int previous = 0;
    (void)cudaGetDevice(&previous);
    for (auto [d, e] : all) {
      (void)cudaSetDevice(d);
      (void)cudaEventDestroy(e);
    }
    (void)cudaSetDevice(previous);
  }
};

lane_timing time_lanes(const std::vector<lane>& lanes, int reps, int warmup, const std::function<void()>& call) {
  for (int w = 0; w < warmup; ++w) {  // the first calls also set up NCCL's connections and fill the pools
    call();
    sync_lanes(lanes);
  }
  const std::size_t L = lanes.size();
  event_set events;
  std::vector<std::vector<cudaEvent_t>> start(L), stop(L);
  for (std::size_t i = 0; i < L; ++i)
    for (int r = 0; r < reps; ++r) {
      start[i].push_back(events.make(lanes[i].device));
      stop[i].push_back(events.make(lanes[i].device));
    }
  std::vector<double> wall;
  for (int r = 0; r < reps; ++r) {
    sync_lanes(lanes);  // every rank idle before the call starts
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < L; ++i) {
      device_guard g(lanes[i].device);
      check(cudaEventRecord(start[i][std::size_t(r)], lanes[i].stream), "cudaEventRecord");
    }
    call();
    for (std::size_t i = 0; i < L; ++i) {
      device_guard g(lanes[i].device);
      check(cudaEventRecord(stop[i][std::size_t(r)], lanes[i].stream), "cudaEventRecord");
    }
    sync_lanes(lanes);
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  lane_timing out;
  std::vector<double> slowest(std::size_t(reps), 0.0);
  for (std::size_t i = 0; i < L; ++i) {
    std::vector<double> mine;
    for (int r = 0; r < reps; ++r) {
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start[i][std::size_t(r)], stop[i][std::size_t(r)]), "cudaEventElapsedTime");
      mine.push_back(ms);
      slowest[std::size_t(r)] = std::max(slowest[std::size_t(r)], double(ms));
    }
    out.lane_ms.push_back(median_of(mine));
  }
  out.t = summarize(slowest);
  out.wall_ms = median_of(wall);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// What the summary reads: the rows in registration order, their operation groups, and what each row measured

enum class row_kind { single, multi, nccl };
enum class coll { all_reduce, all_gather, all_to_all };

struct row_info {
  std::string name{}, group{};
  row_kind kind = row_kind::single;
  int P = 0;             // multi and nccl rows
  std::int64_t n = 0;    // single rows: the size they run (elements; GEMM: m)
  coll collective{};     // nccl rows
  std::string size_text{};  // nccl rows: "256MiB", "8B-each" ...
  std::int64_t bytes = 0;    // nccl rows: each rank's buffer
  std::string dtype{};
};

/// target: the speed-up target's factor of P (0: none); sort and gemm: their bounds (the sort also its phases),
/// scan: its phases.
enum class bound_kind { collective, scan, sort, gemm };

struct group_info {
  std::string key, title;
  std::int64_t n = 0;       // elements in all (GEMM: m = n = k)
  double factor = 0;        // speed-up target factor × P (0: none)
  bound_kind bound = bound_kind::collective;
  // bound_kind::collective: the NCCL row whose latency the call adds to its local work
  coll collective{};
  std::string collective_size;  // nccl row size_text
  std::string collective_text;
};

std::vector<row_info>& row_registry() {
  static std::vector<row_info> r;
  return r;
}
std::vector<group_info>& group_registry() {
  static std::vector<group_info> g;
  return g;
}

struct scan_phases {
  lane_timing local_reduce, exchange, local_scan;
};
/// The sort's prefixes: the call stopped after its local sort, after the splitters and the table's wait, after the
/// exchange, and the whole call (multi::detail::sort_stop); its phases are their differences.
struct sort_prefixes {
  lane_timing local_sort, splitters, exchange, full;
};
struct row_record {
  lane_timing t;
  std::optional<scan_phases> phases;
  std::optional<sort_prefixes> prefixes;
};
std::map<std::string, row_record>& records() {
  static std::map<std::string, row_record> r;
  return r;
}
/// The single rows' timings, by group and size: the baseline of the multi rows measured after them.
std::map<std::string, timing>& single_timings() {
  static std::map<std::string, timing> t;
  return t;
}
std::string single_key(const std::string& group, std::int64_t n) { return group + "@" + std::to_string(n); }

// ---------------------------------------------------------------------------------------------------------------
// Host references (on the lab's random values, generated on the host in pieces by several threads)

int host_threads() {
  const unsigned h = std::thread::hardware_concurrency();
  return int(std::clamp<unsigned>(h ? h : 4u, 2u, 64u));
}

/// f(lo, hi, t) over [0, n) split into `threads` contiguous parts (the same parts for the same n and threads).
void parallel_for(std::int64_t n, int threads, const std::function<void(std::int64_t, std::int64_t, int)>& f) {
  std::vector<std::thread> ts;
  const std::int64_t per = (n + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const std::int64_t lo = std::min(n, per * t), hi = std::min(n, lo + per);
    ts.emplace_back(f, lo, hi, t);
  }
  for (auto& x : ts) x.join();
}

constexpr std::int64_t piece = std::int64_t(1) << 16;

/// Elements [a, a + count) of the random stream (T, seed) into buf (resized to `piece`).
template <class T>
const T* generate(std::vector<T>& buf, std::uint64_t seed, std::int64_t a, std::int64_t count) {
  buf.resize(std::size_t(piece));
  fill_random_host(dtype_v<T>, buf.data(), std::size_t(count), seed, std::uint64_t(a));
  return buf.data();
}

constexpr std::uint64_t float_seed = 1, int_seed = 2, key_seed = 3, gemm_seed_a = 11, gemm_seed_b = 12;

/// Σ of the first n floats of stream float_seed, each thread's part summed in long double (all values are in [0, 1):
/// it is also Σ|x|). Kept as double (no container of long double: with relaxed constexpr its members would reach the
/// device compilation).
double host_float_sum(std::int64_t n) {
  static std::map<std::int64_t, double> memo;
  if (auto it = memo.find(n); it != memo.end()) return it->second;
  const int T = host_threads();
  std::vector<double> part(std::size_t(T), 0.0);
  parallel_for(n, T, [&](std::int64_t lo, std::int64_t hi, int t) {
    std::vector<float> buf;
    long double s = 0;
    for (std::int64_t a = lo; a < hi; a += piece) {
      const std::int64_t c = std::min(piece, hi - a);
      const float* v = generate(buf, float_seed, a, c);
      for (std::int64_t i = 0; i < c; ++i) s += v[i];
    }
    part[std::size_t(t)] = double(s);
  });
  long double s = 0;
  for (double p : part) s += p;
  return memo[n] = double(s);
}

/// The host histogram (cuprim::host::even_bin, the device's rule) of the first n floats over [0, 1).
const std::vector<std::uint64_t>& host_histogram(std::int64_t n, int bins) {
  static std::map<std::pair<std::int64_t, int>, std::vector<std::uint64_t>> memo;
  if (auto it = memo.find({n, bins}); it != memo.end()) return it->second;
  const int T = host_threads();
  std::vector<std::vector<std::uint64_t>> part(std::size_t(T), std::vector<std::uint64_t>(std::size_t(bins), 0));
  parallel_for(n, T, [&](std::int64_t lo, std::int64_t hi, int t) {
    std::vector<float> buf;
    auto& h = part[std::size_t(t)];
    for (std::int64_t a = lo; a < hi; a += piece) {
      const std::int64_t c = std::min(piece, hi - a);
      const float* v = generate(buf, float_seed, a, c);
      for (std::int64_t i = 0; i < c; ++i) {
        const int b = cuprim::host::even_bin(v[i], bins, 0.0f, 1.0f);
        if (b >= 0) ++h[std::size_t(b)];
      }
    }
  });
  std::vector<std::uint64_t> h(std::size_t(bins), 0);
  for (const auto& p : part)
    for (int b = 0; b < bins; ++b) h[std::size_t(b)] += p[std::size_t(b)];
  return memo[{n, bins}] = std::move(h);
}

/// "" when out (n int32) is the inclusive sum of the first n values of stream int_seed (wrapping mod 2^32).
std::string check_inclusive_sum(const std::vector<std::int32_t>& out, std::int64_t n) {
  const int T = host_threads();
  std::vector<std::uint32_t> part(std::size_t(T), 0);
  parallel_for(n, T, [&](std::int64_t lo, std::int64_t hi, int t) {
    std::vector<std::int32_t> buf;
    std::uint32_t s = 0;
    for (std::int64_t a = lo; a < hi; a += piece) {
      const std::int64_t c = std::min(piece, hi - a);
      const std::int32_t* v = generate(buf, int_seed, a, c);
      for (std::int64_t i = 0; i < c; ++i) s += std::uint32_t(v[i]);
    }
    part[std::size_t(t)] = s;
  });
  struct miss {
    std::int64_t at = -1;
    std::int32_t got = 0, want = 0;
  };
  std::vector<miss> bad(static_cast<std::size_t>(T));
  parallel_for(n, T, [&](std::int64_t lo, std::int64_t hi, int t) {
    std::vector<std::int32_t> buf;
    std::uint32_t run = 0;
    for (int u = 0; u < t; ++u) run += part[std::size_t(u)];
    for (std::int64_t a = lo; a < hi; a += piece) {
      const std::int64_t c = std::min(piece, hi - a);
      const std::int32_t* v = generate(buf, int_seed, a, c);
      for (std::int64_t i = 0; i < c; ++i) {
        run += std::uint32_t(v[i]);
        if (std::uint32_t(out[std::size_t(a + i)]) != run) {
          bad[std::size_t(t)] = {a + i, out[std::size_t(a + i)], std::int32_t(run)};
          return;
        }
      }
    }
  });
  for (const miss& m : bad)
    if (m.at >= 0)
      return "out[" + std::to_string(m.at) + "] = " + std::to_string(m.got) + ", the host's inclusive sum " +
             std::to_string(m.want);
  return "";
}

struct keep_low_half {
  __host__ __device__ bool operator()(float x) const { return x < 0.5f; }
};

/// "" when kept (its size: the count) holds, in order, the x < 0.5 of the first n floats of stream float_seed.
std::string check_selection(const std::vector<float>& kept, std::int64_t n) {
  const int T = host_threads();
  std::vector<std::int64_t> part(std::size_t(T), 0);
  parallel_for(n, T, [&](std::int64_t lo, std::int64_t hi, int t) {
    std::vector<float> buf;
    std::int64_t k = 0;
    for (std::int64_t a = lo; a < hi; a += piece) {
      const std::int64_t c = std::min(piece, hi - a);
      const float* v = generate(buf, float_seed, a, c);
      for (std::int64_t i = 0; i < c; ++i) k += keep_low_half{}(v[i]) ? 1 : 0;
    }
    part[std::size_t(t)] = k;
  });
  const std::int64_t want = std::accumulate(part.begin(), part.end(), std::int64_t(0));
  if (std::int64_t(kept.size()) != want)
    return "count " + std::to_string(kept.size()) + ", the host's " + std::to_string(want);
  std::vector<std::int64_t> bad(std::size_t(T), -1);
  parallel_for(n, T, [&](std::int64_t lo, std::int64_t hi, int t) {
    std::vector<float> buf;
    std::int64_t j = 0;
    for (int u = 0; u < t; ++u) j += part[std::size_t(u)];
    for (std::int64_t a = lo; a < hi; a += piece) {
      const std::int64_t c = std::min(piece, hi - a);
      const float* v = generate(buf, float_seed, a, c);
      for (std::int64_t i = 0; i < c; ++i) {
        if (!keep_low_half{}(v[i])) continue;
        if (std::memcmp(&kept[std::size_t(j)], &v[i], sizeof(float)) != 0) {
          bad[std::size_t(t)] = j;
          return;
        }
        ++j;
      }
    }
  });
  for (std::int64_t b : bad)
    if (b >= 0) return "item " + std::to_string(b) + " of the selection differs from the host's";
  return "";
}

/// The first n uint32 of stream key_seed, sorted on the host (buckets of the top 16 bits, each sorted by std::sort,
/// on every thread); the last one computed is kept.
std::shared_ptr<const std::vector<std::uint32_t>> host_sorted_keys(std::int64_t n) {
  static std::int64_t memo_n = -1;
  static std::shared_ptr<const std::vector<std::uint32_t>> memo;
  if (memo_n == n) return memo;
  memo.reset();
  const int T = host_threads();
  constexpr int B = 1 << 16;
  std::vector<std::vector<std::int64_t>> at(std::size_t(T), std::vector<std::int64_t>(B, 0));
  parallel_for(n, T, [&](std::int64_t lo, std::int64_t hi, int t) {
    std::vector<std::uint32_t> buf;
    auto& cnt = at[std::size_t(t)];
    for (std::int64_t a = lo; a < hi; a += piece) {
      const std::int64_t c = std::min(piece, hi - a);
      const std::uint32_t* v = generate(buf, key_seed, a, c);
      for (std::int64_t i = 0; i < c; ++i) ++cnt[v[i] >> 16];
    }
  });
  std::vector<std::int64_t> bucket(B + 1, 0);
  std::int64_t run = 0;
  for (int b = 0; b < B; ++b) {
    bucket[std::size_t(b)] = run;
    for (int t = 0; t < T; ++t) {
      const std::int64_t c = at[std::size_t(t)][std::size_t(b)];
      at[std::size_t(t)][std::size_t(b)] = run;
      run += c;
    }
  }
  bucket[B] = run;
  auto out = std::make_shared<std::vector<std::uint32_t>>(std::size_t(n));
  parallel_for(n, T, [&](std::int64_t lo, std::int64_t hi, int t) {
    std::vector<std::uint32_t> buf;
    auto& pos = at[std::size_t(t)];
    for (std::int64_t a = lo; a < hi; a += piece) {
      const std::int64_t c = std::min(piece, hi - a);
      const std::uint32_t* v = generate(buf, key_seed, a, c);
      for (std::int64_t i = 0; i < c; ++i) (*out)[std::size_t(pos[v[i] >> 16]++)] = v[i];
    }
  });
  std::atomic<int> next{0};
  parallel_for(T, T, [&](std::int64_t, std::int64_t, int) {
    for (int b = next++; b < B; b = next++)
      std::sort(out->begin() + bucket[std::size_t(b)], out->begin() + bucket[std::size_t(b) + 1]);
  });
  memo_n = n;
  memo = out;
  return memo;
}

std::string compare_keys(const std::vector<std::uint32_t>& got, const std::vector<std::uint32_t>& want) {
  if (got.size() != want.size()) return "size " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
  const int T = host_threads();
  std::vector<std::int64_t> bad(std::size_t(T), -1);
  parallel_for(std::int64_t(got.size()), T, [&](std::int64_t lo, std::int64_t hi, int t) {
    for (std::int64_t i = lo; i < hi; ++i)
      if (got[std::size_t(i)] != want[std::size_t(i)]) {
        bad[std::size_t(t)] = i;
        return;
      }
  });
  for (std::int64_t b : bad)
    if (b >= 0)
      return "key " + std::to_string(b) + " is " + std::to_string(got[std::size_t(b)]) + ", the host sort's " +
             std::to_string(want[std::size_t(b)]);
  return "";
}

// ---------------------------------------------------------------------------------------------------------------
// Row states. A single state runs on device 0 with its own stream; a multi state on the communicator of P ranks.
// Members are destroyed in reverse order: the buffers (declared in the derived states) first, then the stream, then
// the pools are trimmed.

struct single_base {
  pool_trimmer trim{{0}};
  owned_stream stream{0};
};

struct multi_base {
  explicit multi_base(int P) : trim{first_devices(P)}, comm(comm_for(P)), P(P), lanes(lanes_of(comm)) {}
  pool_trimmer trim;
  multi::communicator& comm;
  int P;
  std::vector<lane> lanes;
};

/// Per rank, `per_rank(i)` bytes on rank i's device.
template <class F>
std::vector<dbuf> rank_buffers(const multi::communicator& c, F per_rank) {
  std::vector<dbuf> v;
  for (int i = 0; i < c.local_size(); ++i) v.emplace_back(c[i].device, std::size_t(per_rank(i)));
  return v;
}

/// The input of a P-GPU row: n 4-byte elements over P even shards, shard i on device i holding elements off_i ...
/// of the lab's random stream (t, seed), so that the shards concatenate to the single row's array.
struct sharded_rows : multi_base {
  std::int64_t n;
  std::vector<std::int64_t> sizes;
  std::vector<dbuf> in;
  sharded_rows(int P, std::int64_t n, dtype t, std::uint64_t seed)
      : multi_base(P), n(n), sizes(multi::even_split(n, P)),
        in(rank_buffers(comm, [&](int i) { return sizes[std::size_t(i)] * 4; })) {
    const auto off = multi::detail::shard_offsets(sizes);
    for (int i = 0; i < P; ++i) fill_global(t, in[std::size_t(i)], sizes[std::size_t(i)], seed, off[std::size_t(i)]);
  }
  /// Per-rank buffers the size of the input's shards.
  std::vector<dbuf> like_in() const {
    return rank_buffers(comm, [&](int i) { return sizes[std::size_t(i)] * 4; });
  }
  /// The shards of `out` (sizes[i] elements of T on rank i), concatenated on the host (after the ranks' work).
  template <class T>
  std::vector<T> gather(const std::vector<dbuf>& out) const {
    std::vector<T> got(static_cast<std::size_t>(n));
    const auto off = multi::detail::shard_offsets(sizes);
    for (int i = 0; i < P; ++i) copy_to_host(got.data() + off[std::size_t(i)], out[std::size_t(i)], sizes[std::size_t(i)]);
    return got;
  }
};

verify_result result_of(std::string problem, std::string ok_text) {
  verify_result v;
  v.ok = problem.empty();
  v.detail = v.ok ? std::move(ok_text) : std::move(problem);
  return v;
}

// ---- reduce: sum of float ---------------------------------------------------------------------------------------

double sum_bound(std::int64_t n, int ranks) {
  const double ref = host_float_sum(n);
  const double eps = std::numeric_limits<float>::epsilon();
  return sum_tolerance(eps, ref, ref, n) + ranks * eps * double(ref);
}

std::string check_sum(float got, std::int64_t n, int ranks) {
  const double ref = host_float_sum(n);
  const double tol = sum_bound(n, ranks), err = std::fabs(double(got) - double(ref));
  if (err <= tol) return "";
  return "sum " + fmt("%.9g", got) + " vs the host's " + fmt("%.9g", double(ref)) + " (|error| " + fmt("%.3g", err) +
         " > " + fmt("%.3g", tol) + ")";
}

struct reduce_single : single_base {
  std::int64_t n;
  dbuf in, out;
  explicit reduce_single(std::int64_t n) : n(n), in(0, std::size_t(n) * 4), out(0, 256) {
    fill_global(dtype::float32, in, n, float_seed, 0);
  }
  void call(cudaStream_t s) { cuprim::reduce(in.as<const float>(), out.as<float>(), n, cuprim::plus{}, 0.0f, s); }
  verify_result verify() {
    out.poison();
    call(stream.s);
    wait_device(0);
    float got = 0;
    copy_to_host(&got, out, 1);
    return result_of(check_sum(got, n, 1), "within lab::sum_tolerance of the long double host sum");
  }
};

struct reduce_multi : sharded_rows {
  std::vector<dbuf> out;
  reduce_multi(int P, std::int64_t n)
      : sharded_rows(P, n, dtype::float32, float_seed), out(rank_buffers(comm, [](int) { return 256; })) {}
  void call() {
    multi::sum(comm, shards<const float>(in, sizes), shards<float>(out, std::vector<std::int64_t>(std::size_t(P), 1)));
  }
  verify_result verify() {
    for (const dbuf& b : out) b.poison();
    call();
    comm.synchronize();
    std::vector<float> got(static_cast<std::size_t>(P));
    for (int i = 0; i < P; ++i) copy_to_host(&got[std::size_t(i)], out[std::size_t(i)], 1);
    for (int i = 1; i < P; ++i)
      if (std::memcmp(&got[std::size_t(i)], &got[0], sizeof(float)) != 0)
        return result_of("rank " + std::to_string(i) + " holds " + fmt("%.9g", got[std::size_t(i)]) + ", rank 0 " +
                             fmt("%.9g", got[0]),
                         "");
    return result_of(check_sum(got[0], n, P), "every rank the same bits, within lab::sum_tolerance + P roundings "
                                              "of the long double host sum");
  }
};

// ---- scan: inclusive sum of int32 --------------------------------------------------------------------------------

struct scan_single : single_base {
  std::int64_t n;
  dbuf in, out;
  explicit scan_single(std::int64_t n) : n(n), in(0, std::size_t(n) * 4), out(0, std::size_t(n) * 4) {
    fill_global(dtype::int32, in, n, int_seed, 0);
  }
  void call(cudaStream_t s) { cuprim::inclusive_sum(in.as<const std::int32_t>(), out.as<std::int32_t>(), n, s); }
  verify_result verify() {
    out.poison();
    call(stream.s);
    wait_device(0);
    std::vector<std::int32_t> got(static_cast<std::size_t>(n));
    copy_to_host(got.data(), out, n);
    return result_of(check_inclusive_sum(got, n), "every element equals the host's inclusive sum");
  }
};

template <class T>
__global__ void fold_partials(const unsigned char* gathered, int ranks, std::size_t stride, T* out) {
  T s = 0;
  for (int r = 0; r < ranks; ++r) s += *reinterpret_cast<const T*>(gathered + std::size_t(r) * stride);
  *out = s;
}

struct scan_multi : sharded_rows {
  std::vector<dbuf> out;
  scan_multi(int P, std::int64_t n) : sharded_rows(P, n, dtype::int32, int_seed), out(like_in()) {}
  void call() { multi::inclusive_sum(comm, shards<const std::int32_t>(in, sizes), shards<std::int32_t>(out, sizes)); }
  verify_result verify() {
    for (const dbuf& b : out) b.poison();
    call();
    comm.synchronize();
    return result_of(check_inclusive_sum(gather<std::int32_t>(out), n), "every element of the concatenated shards equals the host's "
                                                  "inclusive sum");
  }
  /// The call's three steps, each timed alone the same way (cuprim::multi::inclusive_sum's own sequence, rebuilt
  /// here from its parts): every rank reduces its shard (cuprim::reduce); the partials are all-gathered (NCCL, 8
  /// bytes per rank, as detail::gathered_partials sends them), folded by one thread and copied to pageable host
  /// memory, and the host waits for them (the exchange: its wall time is what the call pays, the copies to pageable
  /// memory block the host as the multi scan's do); every rank scans its shard from its carry
  /// (cuprim::detail::scan_run with an init, as the multi scan calls it; rank 0 without). The carries here are not
  /// the real ones (the exchange gathers no partial of the reduce): only the times count.
  void phases(int reps, int warmup, row_record& rec) {
    std::vector<dbuf> slot = rank_buffers(comm, [&](int) { return 256 + 8 * P + 8; });
    std::vector<std::int32_t> carry(std::size_t(P), 0);
    scan_phases ph;
    ph.local_reduce = time_lanes(lanes, reps, warmup, [&] {
      multi::detail::each_rank(comm, [&](const multi::local_rank& l, int i) {
        cuprim::reduce(in[std::size_t(i)].as<const std::int32_t>(), slot[std::size_t(i)].as<std::int32_t>(),
                       sizes[std::size_t(i)], cuprim::plus{}, std::int32_t(0), l.stream);
      });
    });
    ph.exchange = time_lanes(lanes, reps, warmup, [&] {
      multi::detail::each_rank_grouped(comm, [&](const multi::local_rank& l, int i) {
        unsigned char* g = slot[std::size_t(i)].as<unsigned char>() + 256;
        CUPRIM_NCCL_CHECK(ncclAllGather(g + 8 * l.rank, g, 8, ncclUint8, l.comm, l.stream));
      });
      multi::detail::each_rank(comm, [&](const multi::local_rank& l, int i) {
        unsigned char* g = slot[std::size_t(i)].as<unsigned char>() + 256;
        auto* folded = reinterpret_cast<std::int32_t*>(g + 8 * P);
        fold_partials<std::int32_t><<<1, 1, 0, l.stream>>>(g, l.rank, 8, folded);
        check(cudaGetLastError(), "launch of fold_partials");
        check(cudaMemcpyAsync(&carry[std::size_t(i)], folded, sizeof(std::int32_t), cudaMemcpyDeviceToHost, l.stream),
              "cudaMemcpyAsync (carry)");
      });
    });  // time_lanes' synchronisation after the call is the host's wait for the carries
    ph.local_scan = time_lanes(lanes, reps, warmup, [&] {
      multi::detail::each_rank(comm, [&](const multi::local_rank& l, int i) {
        const std::int32_t* src = in[std::size_t(i)].as<const std::int32_t>();
        std::int32_t* dst = out[std::size_t(i)].as<std::int32_t>();
        if (l.rank == 0)
          cuprim::inclusive_sum(src, dst, sizes[std::size_t(i)], l.stream);
        else
          cuprim::detail::scan_run<cuprim::tuned, false, std::int32_t, std::int32_t, cuprim::plus, true>(
              "cuprim-lab multi/scan phases", src, dst, sizes[std::size_t(i)], cuprim::plus{}, carry[std::size_t(i)],
              nullptr, l.stream);
      });
    });
    rec.phases = ph;
  }
};

// ---- histogram_even of float samples -----------------------------------------------------------------------------

std::string compare_bins(const std::vector<std::uint32_t>& got, const std::vector<std::uint64_t>& want) {
  for (std::size_t b = 0; b < want.size(); ++b)
    if (std::uint64_t(got[b]) != want[b])
      return "bin " + std::to_string(b) + " holds " + std::to_string(got[b]) + ", the host's " + std::to_string(want[b]);
  return "";
}

struct hist_single : single_base {
  std::int64_t n;
  int bins;
  dbuf in, hist;
  hist_single(std::int64_t n, int bins) : n(n), bins(bins), in(0, std::size_t(n) * 4), hist(0, std::size_t(bins) * 4) {
    fill_global(dtype::float32, in, n, float_seed, 0);
  }
  void call(cudaStream_t s) {
    cuprim::histogram_even(in.as<const float>(), n, hist.as<std::uint32_t>(), bins, 0.0f, 1.0f, s);
  }
  verify_result verify() {
    hist.poison();
    call(stream.s);
    wait_device(0);
    std::vector<std::uint32_t> got(static_cast<std::size_t>(bins));
    copy_to_host(got.data(), hist, bins);
    return result_of(compare_bins(got, host_histogram(n, bins)), "every bin equals cuprim::host::histogram_even's");
  }
};

struct hist_multi : sharded_rows {
  int bins;
  std::vector<dbuf> hist;
  hist_multi(int P, std::int64_t n, int bins)
      : sharded_rows(P, n, dtype::float32, float_seed), bins(bins),
        hist(rank_buffers(comm, [&](int) { return std::int64_t(bins) * 4; })) {}
  void call() {
    multi::histogram_even(comm, shards<const float>(in, sizes),
                          shards<std::uint32_t>(hist, std::vector<std::int64_t>(std::size_t(P), bins)), bins, 0.0f,
                          1.0f);
  }
  verify_result verify() {
    for (const dbuf& b : hist) b.poison();
    call();
    comm.synchronize();
    const auto& want = host_histogram(n, bins);
    for (int i = 0; i < P; ++i) {
      std::vector<std::uint32_t> got(static_cast<std::size_t>(bins));
      copy_to_host(got.data(), hist[std::size_t(i)], bins);
      if (std::string p = compare_bins(got, want); !p.empty()) return result_of("rank " + std::to_string(i) + ": " + p, "");
    }
    return result_of("", "every rank's bins equal cuprim::host::histogram_even's");
  }
};

// ---- select_if: keep x < 0.5 ---------------------------------------------------------------------------------------

struct select_single : single_base {
  std::int64_t n;
  dbuf in, out, count;
  explicit select_single(std::int64_t n) : n(n), in(0, std::size_t(n) * 4), out(0, std::size_t(n) * 4), count(0, 256) {
    fill_global(dtype::float32, in, n, float_seed, 0);
  }
  void call(cudaStream_t s) {
    cuprim::select_if(in.as<const float>(), out.as<float>(), count.as<std::int64_t>(), n, keep_low_half{}, s);
  }
  verify_result verify() {
    out.poison();
    count.poison();
    call(stream.s);
    wait_device(0);
    std::int64_t k = 0;
    copy_to_host(&k, count, 1);
    if (k < 0 || k > n) return result_of("count " + std::to_string(k) + " out of range", "");
    std::vector<float> got(static_cast<std::size_t>(k));
    copy_to_host(got.data(), out, k);
    return result_of(check_selection(got, n), "the count and every kept item, in order, equal the host's");
  }
};

struct select_multi : sharded_rows {
  std::vector<dbuf> out, counts;
  select_multi(int P, std::int64_t n)
      : sharded_rows(P, n, dtype::float32, float_seed), out(like_in()),
        counts(rank_buffers(comm, [&](int) { return std::int64_t(8) * P; })) {}
  void call() {
    multi::select_if(comm, shards<const float>(in, sizes), shards<float>(out, sizes),
                     shards<std::int64_t>(counts, std::vector<std::int64_t>(std::size_t(P), P)), keep_low_half{});
  }
  verify_result verify() {
    for (const dbuf& b : out) b.poison();
    for (const dbuf& b : counts) b.poison();
    call();
    comm.synchronize();
    std::vector<std::vector<std::int64_t>> k(static_cast<std::size_t>(P), std::vector<std::int64_t>(static_cast<std::size_t>(P), 0));
    for (int i = 0; i < P; ++i) copy_to_host(k[std::size_t(i)].data(), counts[std::size_t(i)], P);
    for (int i = 1; i < P; ++i)
      if (k[std::size_t(i)] != k[0]) return result_of("rank " + std::to_string(i) + "'s counts differ from rank 0's", "");
    std::vector<float> got;
    for (int r = 0; r < P; ++r) {
      const std::int64_t c = k[0][std::size_t(r)];
      if (c < 0 || c > sizes[std::size_t(r)]) return result_of("rank " + std::to_string(r) + "'s count is out of range", "");
      const std::size_t at = got.size();
      got.resize(at + std::size_t(c));
      copy_to_host(got.data() + at, out[std::size_t(r)], c);
    }
    return result_of(check_selection(got, n), "every rank the same counts; the ranks' kept items, concatenated, "
                                              "equal the host's selection");
  }
};

// ---- radix_sort_keys of uint32 -------------------------------------------------------------------------------------

struct sort_single : single_base {
  std::int64_t n;
  dbuf in, out;
  explicit sort_single(std::int64_t n) : n(n), in(0, std::size_t(n) * 4), out(0, std::size_t(n) * 4) {
    fill_global(dtype::uint32, in, n, key_seed, 0);
  }
  void call(cudaStream_t s) { cuprim::radix_sort_keys(in.as<const std::uint32_t>(), out.as<std::uint32_t>(), n, {}, s); }
  verify_result verify() {
    out.poison();
    call(stream.s);
    wait_device(0);
    std::vector<std::uint32_t> got(static_cast<std::size_t>(n));
    copy_to_host(got.data(), out, n);
    return result_of(compare_keys(got, *host_sorted_keys(n)), "every key equals the host sort's");
  }
};

struct sort_multi : sharded_rows {
  std::vector<dbuf> out;
  sort_multi(int P, std::int64_t n) : sharded_rows(P, n, dtype::uint32, key_seed), out(like_in()) {}
  void call() { multi::radix_sort_keys(comm, shards<const std::uint32_t>(in, sizes), shards<std::uint32_t>(out, sizes)); }
  verify_result verify() {
    for (const dbuf& b : out) b.poison();
    call();
    comm.synchronize();
    return result_of(compare_keys(gather<std::uint32_t>(out), *host_sorted_keys(n)), "the ranks' shards, concatenated, equal the host sort "
                                                              "key for key");
  }
  /// The call stopped after each of its steps (multi::detail::sort_run with a sort_stop: the same validation,
  /// workspace and launches as the call's, up to that step), every prefix timed the same way as the call. One rank
  /// runs the single-GPU sort, with no steps to tell apart: none timed.
  void phases(int reps, int warmup, row_record& rec) {
    if (P == 1) return;
    using multi::detail::sort_stop;
    using V = multi::detail::no_values;
    const char* fn = "cuprim-lab multi/radix_sort phases";
    auto prefix = [&](sort_stop stop) {
      return time_lanes(lanes, reps, warmup, [&] {
        multi::detail::sort_run<std::uint32_t, V>(
            fn, comm,
            multi::detail::sort_validate<std::uint32_t, V>(fn, comm, shards<const std::uint32_t>(in, sizes),
                                                           shards<std::uint32_t>(out, sizes), nullptr, nullptr),
            multi::detail::sort_finish::merge, stop);
      });
    };
    rec.prefixes = sort_prefixes{prefix(sort_stop::after_local_sort), prefix(sort_stop::after_splitters),
                                 prefix(sort_stop::after_exchange), prefix(sort_stop::full)};
  }
};

// ---- GEMM: bf16 A and B, float C ---------------------------------------------------------------------------------

using bf16 = __nv_bfloat16;

__host__ __device__ inline std::uint64_t mix64(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = i * 0x9E3779B97F4A7C15ull + (seed + 1) * 0xD6E8FEB86659FD93ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/// Entry `index` (column-major in the global matrix) of a GEMM operand: j/256 for a random byte j, in [0, 1) and
/// exact in bf16, so host and device read the same values and every product is non-negative (Σ|a||b| = the exact
/// result, which the error bound is written in).
__host__ __device__ inline float gemm_value(std::uint64_t seed, std::uint64_t index) {
  return float(mix64(seed, index) >> 56) * (1.0f / 256.0f);
}

/// rows × cols column-major (ld = rows) at p: rows row_off .. row_off + rows - 1 of a global matrix of global_rows.
__global__ void fill_gemm_operand(bf16* p, std::int64_t rows, std::int64_t cols, std::int64_t row_off,
                                  std::int64_t global_rows, std::uint64_t seed) {
  const std::int64_t total = rows * cols;
  for (std::int64_t x = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; x < total;
       x += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = x % rows, j = x / rows;
    p[x] = __float2bfloat16_rn(gemm_value(seed, std::uint64_t((row_off + i) + j * global_rows)));
  }
}

void fill_operand(const dbuf& b, std::int64_t rows, std::int64_t cols, std::int64_t row_off, std::int64_t global_rows,
                  std::uint64_t seed) {
  if (rows * cols == 0) return;
  device_guard g(b.device());
  fill_gemm_operand<<<4096, 256>>>(b.as<bf16>(), rows, cols, row_off, global_rows, seed);
  check(cudaGetLastError(), "launch of fill_gemm_operand");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (fill_gemm_operand)");
}

/// The bound cuprim::blas::gemm's bf16 path is held to (4·k·2^-24·Σ|a||b|, plus C's rounding to float).
double gemm_tolerance(std::int64_t k, double abs_sum) {
  return 4.0 * double(k) * 0x1p-24 * abs_sum + 0x1p-24 * abs_sum + 1e-30;
}

/// Checks C (m × n, ld m, float, on the host) at 256 sampled entries (corners, the rows around every P-way split
/// of m, hashed ones) against the double host product.
std::string check_gemm_samples(const std::vector<float>& C, std::int64_t m, std::int64_t n, std::int64_t k) {
  std::vector<std::pair<std::int64_t, std::int64_t>> at = {{0, 0}, {m - 1, n - 1}, {0, n - 1}, {m - 1, 0}};
  for (int P : {2, 4})
    for (int r = 1; r < P; ++r) {
      at.push_back({m / P * r - 1, (n / P * r) % n});
      at.push_back({m / P * r, (n / P * r + 1) % n});
    }
  for (std::uint64_t s = 0; at.size() < 256; ++s) {
    const std::uint64_t h = mix64(99, s);
    at.push_back({std::int64_t(h % std::uint64_t(m)), std::int64_t((h >> 32) % std::uint64_t(n))});
  }
  std::vector<std::string> bad(at.size());
  const int T = host_threads();
  parallel_for(std::int64_t(at.size()), T, [&](std::int64_t lo, std::int64_t hi, int) {
    for (std::int64_t s = lo; s < hi; ++s) {
      const auto [i, j] = at[std::size_t(s)];
      double ref = 0;
      for (std::int64_t l = 0; l < k; ++l)
        ref += double(gemm_value(gemm_seed_a, std::uint64_t(i + l * m))) * double(gemm_value(gemm_seed_b, std::uint64_t(l + j * k)));
      const double got = C[std::size_t(i + j * m)], tol = gemm_tolerance(k, ref);
      if (!(std::fabs(got - ref) <= tol))
        bad[std::size_t(s)] = "C(" + std::to_string(i) + ", " + std::to_string(j) + ") = " + fmt("%.9g", got) +
                              ", the double host product " + fmt("%.9g", ref) + " (tolerance " + fmt("%.3g", tol) + ")";
    }
  });
  for (const auto& b : bad)
    if (!b.empty()) return b;
  return "";
}

struct gemm_single : single_base {
  std::int64_t m, n, k;
  dbuf A, B, C;
  gemm_single(std::int64_t m, std::int64_t n, std::int64_t k)
      : m(m), n(n), k(k), A(0, std::size_t(m * k) * 2), B(0, std::size_t(k * n) * 2), C(0, std::size_t(m * n) * 4) {
    fill_operand(A, m, k, 0, m, gemm_seed_a);
    fill_operand(B, k, n, 0, k, gemm_seed_b);
  }
  void call(cudaStream_t s) {
    cuprim::blas::gemm(cuprim::blas::op::N, cuprim::blas::op::N, m, n, k, 1.0f, A.as<const bf16>(), m,
                       B.as<const bf16>(), k, 0.0f, C.as<float>(), m, s);
  }
  std::vector<float> result() {
    C.poison();
    call(stream.s);
    wait_device(0);
    std::vector<float> h(std::size_t(m * n));
    copy_to_host(h.data(), C, m * n);
    return h;
  }
  verify_result verify() {
    return result_of(check_gemm_samples(result(), m, n, k),
                     "256 sampled entries within 4·k·2^-24·Σ|a||b| of the double host product");
  }
};

struct gemm_multi : multi_base {
  std::int64_t m, n, k;
  std::vector<std::int64_t> rows, inner, a_sizes, b_sizes, c_sizes;
  std::vector<dbuf> A, B, C;
  gemm_multi(int P, std::int64_t m, std::int64_t n, std::int64_t k)
      : multi_base(P), m(m), n(n), k(k), rows(multi::even_split(m, P)), inner(multi::even_split(k, P)) {
    for (int r = 0; r < P; ++r) {
      a_sizes.push_back(rows[std::size_t(r)] * k);
      b_sizes.push_back(inner[std::size_t(r)] * n);
      c_sizes.push_back(rows[std::size_t(r)] * n);
    }
    A = rank_buffers(comm, [&](int i) { return a_sizes[std::size_t(i)] * 2; });
    B = rank_buffers(comm, [&](int i) { return b_sizes[std::size_t(i)] * 2; });
    C = rank_buffers(comm, [&](int i) { return c_sizes[std::size_t(i)] * 4; });
    const auto row_off = multi::detail::shard_offsets(rows), k_off = multi::detail::shard_offsets(inner);
    for (int i = 0; i < P; ++i) {
      fill_operand(A[std::size_t(i)], rows[std::size_t(i)], k, row_off[std::size_t(i)], m, gemm_seed_a);
      fill_operand(B[std::size_t(i)], inner[std::size_t(i)], n, k_off[std::size_t(i)], k, gemm_seed_b);
    }
  }
  void call() {
    multi::gemm<bf16, float>(comm, n, rows, inner, 1.0f, shards<const bf16>(A, a_sizes), shards<const bf16>(B, b_sizes),
                             0.0f, shards<float>(C, c_sizes));
  }
  verify_result verify() {
    for (const dbuf& b : C) b.poison();
    call();
    comm.synchronize();
    std::vector<float> got(std::size_t(m * n));  // the global C, column-major (ld m), from the ranks' row blocks
    const auto row_off = multi::detail::shard_offsets(rows);
    for (int i = 0; i < P; ++i) {
      const std::int64_t mr = rows[std::size_t(i)];
      if (mr == 0) continue;
      std::vector<float> part(std::size_t(mr * n));
      copy_to_host(part.data(), C[std::size_t(i)], mr * n);
      for (std::int64_t j = 0; j < n; ++j)
        std::memcpy(&got[std::size_t(row_off[std::size_t(i)] + j * m)], &part[std::size_t(j * mr)], std::size_t(mr) * 4);
    }
    if (std::string p = check_gemm_samples(got, m, n, k); !p.empty()) return result_of(p, "");
    // Entry by entry against cuprim's single-GPU product on device 0 (made here, then freed): each within the bound
    // of the exact value, so within twice it of each other (Σ|a||b| = the exact value ≈ the single-GPU result).
    std::vector<float> ref;
    {
      gemm_single one(m, n, k);
      ref = one.result();
    }
    const int T = host_threads();
    std::vector<std::int64_t> bad(std::size_t(T), -1);
    parallel_for(m * n, T, [&](std::int64_t lo, std::int64_t hi, int t) {
      for (std::int64_t x = lo; x < hi; ++x) {
        const double r = ref[std::size_t(x)], tol = 2.0 * gemm_tolerance(k, 1.01 * std::fabs(r));
        if (!(std::fabs(double(got[std::size_t(x)]) - r) <= tol)) {
          bad[std::size_t(t)] = x;
          return;
        }
      }
    });
    for (std::int64_t x : bad)
      if (x >= 0)
        return result_of("C(" + std::to_string(x % m) + ", " + std::to_string(x / m) + ") = " +
                             fmt("%.9g", got[std::size_t(x)]) + ", cuprim's single-GPU product " +
                             fmt("%.9g", ref[std::size_t(x)]),
                         "");
    return result_of("", "256 sampled entries within the bound of the double host product; every entry within twice "
                         "it of cuprim::blas::gemm on device 0");
  }
};

// ---- the NCCL collectives --------------------------------------------------------------------------------------

const char* coll_name(coll c) {
  switch (c) {
    case coll::all_reduce: return "all-reduce";
    case coll::all_gather: return "all-gather";
    case coll::all_to_all: return "all-to-all";
  }
  return "?";
}

/// nccl-tests' bus-bandwidth factor: 2(P-1)/P for all-reduce, (P-1)/P for all-gather and all-to-all.
double bus_factor(coll c, int P) {
  return c == coll::all_reduce ? 2.0 * (P - 1) / P : double(P - 1) / P;
}

template <class T>
__global__ void fill_value(T* p, std::size_t n, T v) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = v;
}

struct nccl_state : multi_base {
  coll kind;
  ncclDataType_t type;
  std::size_t esize;
  std::int64_t bytes;  // each rank's buffer: the all-reduce's, the all-gather's output, the all-to-all's send (= receive)
  std::vector<dbuf> send, recv;
  nccl_state(int P, coll kind, ncclDataType_t type, std::size_t esize, std::int64_t bytes)
      : multi_base(P), kind(kind), type(type), esize(esize), bytes(bytes) {
    const std::int64_t send_bytes = kind == coll::all_gather ? bytes / P : bytes;
    send = rank_buffers(comm, [&](int) { return send_bytes; });
    recv = rank_buffers(comm, [&](int) { return bytes; });
  }
  void call() {
    const std::size_t count = std::size_t(bytes) / esize;
    multi::detail::each_rank_grouped(comm, [&](const multi::local_rank& l, int i) {
      void* s = send[std::size_t(i)].get();
      void* r = recv[std::size_t(i)].get();
      switch (kind) {
        case coll::all_reduce:
          CUPRIM_NCCL_CHECK(ncclAllReduce(s, r, count, type, ncclSum, l.comm, l.stream));
          break;
        case coll::all_gather:
          CUPRIM_NCCL_CHECK(ncclAllGather(s, r, count / std::size_t(P), type, l.comm, l.stream));
          break;
        case coll::all_to_all: {
          const std::size_t chunk = count / std::size_t(P);
          for (int peer = 0; peer < P; ++peer) {
            CUPRIM_NCCL_CHECK(ncclSend(static_cast<char*>(s) + std::size_t(peer) * chunk * esize, chunk, type, peer,
                                       l.comm, l.stream));
            CUPRIM_NCCL_CHECK(ncclRecv(static_cast<char*>(r) + std::size_t(peer) * chunk * esize, chunk, type, peer,
                                       l.comm, l.stream));
          }
          break;
        }
      }
    });
  }
  /// Fills element range [at, at + count) of a buffer with v (as the row's type) on its device.
  void fill(const dbuf& b, std::size_t at, std::size_t count, double v) {
    device_guard g(b.device());
    const unsigned blocks = unsigned(std::min<std::size_t>((count + 255) / 256, 4096));
    if (count == 0) return;
    if (type == ncclFloat32) fill_value<float><<<blocks, 256>>>(b.as<float>() + at, count, float(v));
    else if (type == ncclUint32) fill_value<std::uint32_t><<<blocks, 256>>>(b.as<std::uint32_t>() + at, count, std::uint32_t(v));
    else fill_value<std::int64_t><<<blocks, 256>>>(b.as<std::int64_t>() + at, count, std::int64_t(v));
    check(cudaGetLastError(), "launch of fill_value");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (fill_value)");
  }
  double read(const dbuf& b, std::size_t at) {
    device_guard g(b.device());
    if (type == ncclFloat32) {
      float x = 0;
      check(cudaMemcpy(&x, b.as<float>() + at, 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
      return x;
    }
    if (type == ncclUint32) {
      std::uint32_t x = 0;
      check(cudaMemcpy(&x, b.as<std::uint32_t>() + at, 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
      return x;
    }
    std::int64_t x = 0;
    check(cudaMemcpy(&x, b.as<std::int64_t>() + at, 8, cudaMemcpyDeviceToHost), "cudaMemcpy");
    return double(x);
  }
  /// Known values in, the collective once, the first, middle and last element of every part checked.
  verify_result verify() {
    const std::size_t count = std::size_t(bytes) / esize, part = count / std::size_t(P);
    for (int i = 0; i < P; ++i) {
      recv[std::size_t(i)].poison();
      if (kind == coll::all_reduce) fill(send[std::size_t(i)], 0, count, i + 1);
      else if (kind == coll::all_gather) fill(send[std::size_t(i)], 0, part, i + 1);
      else
        for (int j = 0; j < P; ++j) fill(send[std::size_t(i)], std::size_t(j) * part, part, i * P + j + 1);
    }
    call();
    comm.synchronize();
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j)
        for (std::size_t at : {std::size_t(0), part / 2, part - 1}) {
          const std::size_t x = std::size_t(j) * part + at;
          const double want = kind == coll::all_reduce ? P * (P + 1) / 2.0 : kind == coll::all_gather ? j + 1 : j * P + i + 1;
          const double got = read(recv[std::size_t(i)], x);
          if (got != want)
            return result_of("rank " + std::to_string(i) + ", element " + std::to_string(x) + ": " + fmt("%g", got) +
                                 ", expected " + fmt("%g", want),
                             "");
        }
    return result_of("", "the first, middle and last element of every rank's part, on every rank");
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Registration

const std::string prefix = "multi/";
const std::string single_baseline = "cuprim single-GPU (device 0)";

/// A row that times itself: its state's call under time_lanes (single states on their stream, multi states on the
/// communicator's), recorded under the row's name; `baseline` gives the pair's base (the multi rows: their single
/// row's timing); a non-empty `store_as` files the row's own timing as a baseline for the rows after it.
template <class State, class Make>
case_def self_timed_case(case_def c, Make make, std::function<std::optional<timing>()> baseline,
                         std::string store_as = {}) {
  c.setup = [make, baseline, store_as, name = c.name]() -> bench {
    std::shared_ptr<State> st = make();
    bench b;
    b.verify = [st] { return st->verify(); };
    b.self_timed = [st, name, baseline, store_as](int reps, int warmup) {
      pair_timing p;
      row_record& rec = records()[name];
      if constexpr (std::is_base_of_v<single_base, State>) {
        rec.t = time_lanes({{0, st->stream.s}}, reps, warmup, [&] { st->call(st->stream.s); });
      } else {
        rec.t = time_lanes(st->lanes, reps, warmup, [&] { st->call(); });
        if constexpr (requires { st->phases(reps, warmup, rec); }) st->phases(reps, warmup, rec);
      }
      p.main = rec.t.t;
      if (baseline) p.base = baseline();
      if (!store_as.empty()) single_timings()[store_as] = p.main;
      return p;
    };
    return b;
  };
  return c;
}

struct op_desc {
  std::string group;   // key
  std::string title;   // the summary's name for it
  std::string path;    // name: multi/<path>/<size>/<variant>
  std::string op, dtype;
  std::int64_t n = 0;
  double factor = 0;
  bound_kind bound = bound_kind::collective;
  coll collective{};
  std::string collective_size, collective_text;
  std::function<std::string(std::int64_t)> size_text;
  std::function<double(std::int64_t)> bytes, flops;
};

template <class Single, class Multi>
void add_op(const op_desc& d, const std::vector<int>& ps, std::function<std::shared_ptr<Single>(std::int64_t)> single,
            std::function<std::shared_ptr<Multi>(int)> multi_state, bool local_rows, std::function<policy_record()> policy) {
  group_registry().push_back({d.group, d.title, d.n, d.factor, d.bound, d.collective, d.collective_size, d.collective_text});
  auto base_case = [&](std::int64_t n, const std::string& variant) {
    case_def c;
    c.name = prefix + d.path + "/" + d.size_text(n) + "/" + variant;
    c.family = "multi";
    c.op = d.op;
    c.variant = variant;
    c.dtype = d.dtype;
    c.n = n;
    c.bytes = d.bytes ? d.bytes(n) : 0;
    c.flops = d.flops ? d.flops(n) : 0;
    c.quick = false;
    if (policy) c.policy = policy;
    return c;
  };
  // The single rows: the whole array, then (sort, GEMM) the local work of every P > 1.
  std::vector<std::int64_t> single_sizes{d.n};
  if (local_rows)
    for (int P : ps)
      if (P > 1) single_sizes.push_back(d.n / P);
  for (std::int64_t n : single_sizes) {
    case_def c = base_case(n, "single");
    // The single row's timing is also the baseline of the multi rows measured after it.
    c = self_timed_case<Single>(std::move(c), [single, n] { return single(n); }, {}, single_key(d.group, n));
    row_registry().push_back({.name = c.name, .group = d.group, .kind = row_kind::single, .n = n});
    add_case(std::move(c));
  }
  for (int P : ps) {
    case_def c = base_case(d.n, "P=" + std::to_string(P));
    c.baseline = single_baseline;
    const std::string key = single_key(d.group, d.n);
    c = self_timed_case<Multi>(std::move(c), [multi_state, P] { return multi_state(P); },
                               [key]() -> std::optional<timing> {
                                 auto it = single_timings().find(key);
                                 if (it == single_timings().end()) return std::nullopt;
                                 return it->second;
                               });
    row_registry().push_back({.name = c.name, .group = d.group, .kind = row_kind::multi, .P = P, .n = d.n});
    add_case(std::move(c));
  }
}

std::string bytes_text(std::int64_t b) {
  if (b >= pow2(30) && b % pow2(30) == 0) return std::to_string(b >> 30) + "GiB";
  if (b >= pow2(20) && b % pow2(20) == 0) return std::to_string(b >> 20) + "MiB";
  if (b >= pow2(10) && b % pow2(10) == 0) return std::to_string(b >> 10) + "KiB";
  return std::to_string(b) + "B";
}

void add_nccl(int P, coll kind, ncclDataType_t type, const char* dt, std::size_t esize, std::int64_t bytes,
              const std::string& size_text) {
  case_def c;
  c.name = prefix + "nccl/" + coll_name(kind) + "/" + dt + "/" + size_text + "/P=" + std::to_string(P);
  c.family = "multi";
  c.op = coll_name(kind);
  c.variant = "P=" + std::to_string(P);
  c.dtype = dt;
  c.n = bytes / std::int64_t(esize);
  c.bytes = double(bytes);  // each rank's buffer: the table's GB/s is the algorithm bandwidth
  c.quick = false;
  c = self_timed_case<nccl_state>(std::move(c), [=] { return std::make_shared<nccl_state>(P, kind, type, esize, bytes); },
                                  {});
  row_registry().push_back({.name = c.name, .group = "nccl", .kind = row_kind::nccl, .P = P, .collective = kind,
                            .size_text = size_text, .bytes = bytes, .dtype = dt});
  add_case(std::move(c));
}

// ---------------------------------------------------------------------------------------------------------------
// The summary after the table

std::string ms(double v) { return v >= 100 ? fmt("%.2f", v) : v >= 1 ? fmt("%.4f", v) : fmt("%.5f", v); }

std::vector<std::string> summary(const std::vector<result>& results) {
  std::map<std::string, const result*> by;
  for (const auto& r : results)
    if (r.c && r.timed) by[r.c->name] = &r;
  auto find_row = [&](const std::string& group, row_kind kind, int P, std::int64_t n) -> const row_info* {
    for (const auto& ri : row_registry())
      if (ri.group == group && ri.kind == kind && (kind != row_kind::multi || ri.P == P) &&
          (kind != row_kind::single || ri.n == n))
        return &ri;
    return nullptr;
  };
  auto timed_ms = [&](const row_info* ri) -> std::optional<double> {
    if (!ri) return std::nullopt;
    auto it = by.find(ri->name);
    if (it == by.end()) return std::nullopt;
    return it->second->median_ms;
  };
  auto nccl_row = [&](coll kind, int P, const std::string& size) -> const row_info* {
    for (const auto& ri : row_registry())
      if (ri.kind == row_kind::nccl && ri.collective == kind && ri.P == P && ri.size_text == size) return &ri;
    return nullptr;
  };
  std::vector<std::string> out;
  char line[512];

  // 1. Speed-ups against the targets.
  out.push_back("multi: speed-up = the single row's median (cuprim's one-GPU call on device 0, the whole array) / the "
                "P-GPU call's median; target = factor x P; wall = median host time of a call; ranks = the fastest and "
                "slowest rank's median");
  std::snprintf(line, sizeof line, "  %-38s %2s %11s %11s %11s %23s %9s %9s  %s", "operation", "P", "single ms",
                "multi ms", "wall ms", "ranks ms (min-max)", "speed-up", "target", "met");
  out.push_back(line);
  for (const auto& g : group_registry()) {
    const auto single = timed_ms(find_row(g.key, row_kind::single, 0, g.n));
    for (const auto& ri : row_registry()) {
      if (ri.group != g.key || ri.kind != row_kind::multi) continue;
      const auto t = timed_ms(&ri);
      if (!t) continue;
      const auto& rec = records()[ri.name];
      double lo = 0, hi = 0;
      if (!rec.t.lane_ms.empty()) {
        lo = *std::min_element(rec.t.lane_ms.begin(), rec.t.lane_ms.end());
        hi = *std::max_element(rec.t.lane_ms.begin(), rec.t.lane_ms.end());
      }
      const double speedup = single && *t > 0 ? *single / *t : 0;
      const bool has_target = g.factor > 0 && g.bound != bound_kind::sort;
      const double target = g.factor * ri.P;
      std::string met = !single ? "- (no single row)" : !has_target ? "-" : speedup >= target ? "yes" : "NO";
      std::snprintf(line, sizeof line, "  %-38s %2d %11s %11s %11s %23s %9s %9s  %s", g.title.c_str(), ri.P,
                    single ? ms(*single).c_str() : "-", ms(*t).c_str(), ms(rec.t.wall_ms).c_str(),
                    (ms(lo) + "-" + ms(hi)).c_str(), single ? fmt("%.3fx", speedup).c_str() : "-",
                    has_target ? fmt(">= %.2fx", target).c_str()
                               : g.bound == bound_kind::sort ? "bound" : "none",
                    met.c_str());
      out.push_back(line);
    }
  }

  // 2. The collectives.
  bool any_nccl = false;
  for (const auto& ri : row_registry())
    if (ri.kind == row_kind::nccl && by.count(ri.name)) any_nccl = true;
  if (any_nccl) {
    out.push_back("multi: NCCL collectives on the operations' communicators (nccl-tests conventions: size = each rank's "
                  "buffer (all-gather: its output; all-to-all: what it sends, 1/P to every rank, itself included); "
                  "algbw = size / time; busbw = algbw x 2(P-1)/P for all-reduce, x (P-1)/P for all-gather and "
                  "all-to-all)");
    std::snprintf(line, sizeof line, "  %-11s %-6s %-9s %2s %11s %11s %12s %12s", "collective", "dtype", "size", "P",
                  "time ms", "wall ms", "algbw GB/s", "busbw GB/s");
    out.push_back(line);
    for (const auto& ri : row_registry()) {
      if (ri.kind != row_kind::nccl) continue;
      const auto t = timed_ms(&ri);
      if (!t) continue;
      const double alg = double(ri.bytes) / (*t * 1e-3) / 1e9;
      std::snprintf(line, sizeof line, "  %-11s %-6s %-9s %2d %11s %11s %12.1f %12.1f", coll_name(ri.collective),
                    ri.dtype.c_str(), ri.size_text.c_str(), ri.P, ms(*t).c_str(), ms(records()[ri.name].t.wall_ms).c_str(),
                    alg, alg * bus_factor(ri.collective, ri.P));
      out.push_back(line);
    }
  }

  // 3. Bounds.
  out.push_back("multi: bounds from this run's rows (each P-GPU call against the model of its time; '-' where a row "
                "it needs did not run)");
  auto nccl_ms = [&](coll kind, int P, const std::string& size) -> std::optional<double> {
    if (P == 1) return 0.0;  // one rank: nothing crosses a link
    return timed_ms(nccl_row(kind, P, size));
  };
  for (const auto& g : group_registry()) {
    const auto single = timed_ms(find_row(g.key, row_kind::single, 0, g.n));
    for (const auto& ri : row_registry()) {
      if (ri.group != g.key || ri.kind != row_kind::multi) continue;
      const auto t = timed_ms(&ri);
      if (!t) continue;
      const int P = ri.P;
      std::string s = "  " + g.title + ", P=" + std::to_string(P) + ": ";
      if (g.bound == bound_kind::collective) {
        const auto c = nccl_ms(g.collective, P, g.collective_size);
        if (!single || !c) {
          out.push_back(s + "-");
          continue;
        }
        const double model = *single / P + *c;
        s += "single / P " + ms(*single / P) + " ms + " +
             (P == 1 ? std::string("no collective (one rank)") : g.collective_text + " " + ms(*c) + " ms") + " = " +
             ms(model) + " ms; measured " + ms(*t) + " ms = " + fmt("%.3fx", *t / model) + " the model";
      } else if (g.bound == bound_kind::scan) {
        const auto& rec = records()[ri.name];
        if (single) {
          const double ideal = 1.5 * *single / P;
          s += "by bytes (3 moves per element on P GPUs, 2 on one) 1.5 x single / P = " + ms(ideal) +
               " ms, a speed-up of at most " + fmt("%.2fx", 2.0 * P / 3.0) + "; measured " + ms(*t) + " ms = " +
               fmt("%.3fx", *t / ideal) + " it";
        } else {
          s += "measured " + ms(*t) + " ms";
        }
        if (rec.phases) {
          const auto& ph = *rec.phases;
          const double sum = ph.local_reduce.t.median_ms + ph.exchange.wall_ms + ph.local_scan.t.median_ms;
          s += "; the phases alone: local reduce " + ms(ph.local_reduce.t.median_ms) + " ms + exchange " +
               ms(ph.exchange.wall_ms) + " ms (all-gather of the partials, fold, carry to the host and its wait: "
               "host wall time) + local scan " +
               ms(ph.local_scan.t.median_ms) + " ms = " + ms(sum) + " ms (" + fmt("%.0f%%", 100.0 * ph.local_reduce.t.median_ms / sum) +
               " / " + fmt("%.0f%%", 100.0 * ph.exchange.wall_ms / sum) + " / " +
               fmt("%.0f%%", 100.0 * ph.local_scan.t.median_ms / sum) + "), against the call's " + ms(*t) + " ms";
        }
      } else if (g.bound == bound_kind::sort) {
        std::string phases;  // from the prefixes' medians
        if (const auto& rec = records()[ri.name]; rec.prefixes) {
          const auto& px = *rec.prefixes;
          const double at[] = {0, px.local_sort.t.median_ms, px.splitters.t.median_ms, px.exchange.t.median_ms,
                               px.full.t.median_ms};
          const char* name[] = {"local sort", "splitters and table", "exchange", "merge"};
          phases = "; the phases (the call stopped after each step, timed alone; differences of the medians): ";
          for (int x = 0; x < 4; ++x)
            phases += std::string(x ? " + " : "") + name[x] + " " + ms(at[x + 1] - at[x]) + " ms (" +
                      fmt("%.0f%%", 100.0 * (at[x + 1] - at[x]) / at[4]) + ")";
          phases += " = " + ms(at[4]) + " ms, against the call's " + ms(*t) + " ms";
        }
        const auto local = timed_ms(find_row(g.key, row_kind::single, 0, g.n / P));
        const std::int64_t per_rank = g.n / P * 4;
        std::optional<double> a2a = 0.0;
        std::string rate = "";
        if (P > 1) {
          // The all-to-all of the sort's own volume where it ran, else a bandwidth row's rate.
          const row_info* x = nccl_row(coll::all_to_all, P, bytes_text(per_rank));
          if (!timed_ms(x)) x = nccl_row(coll::all_to_all, P, "1GiB");
          if (!timed_ms(x)) x = nccl_row(coll::all_to_all, P, "256MiB");
          const auto xt = timed_ms(x);
          if (xt) {
            const double alg = double(x->bytes) / (*xt * 1e-3);  // bytes per second
            a2a = double(per_rank) / alg * 1e3;
            rate = " at the " + x->size_text + " all-to-all row's algbw " + fmt("%.1f GB/s", alg / 1e9);
          } else {
            a2a.reset();
          }
        }
        if (!local || !a2a) {
          out.push_back(s + "- (needs the single row of " + size_label(g.n / P) + " keys" +
                        (P > 1 ? " and an all-to-all row)" : ")") + phases);
          continue;
        }
        const double bound = *local + *a2a;
        const double ratio = *t / bound;
        s += "single-GPU sort of " + size_label(g.n / P) + " keys " + ms(*local) + " ms + " +
             (P == 1 ? std::string("no all-to-all (one rank)")
                     : "all-to-all of " + bytes_text(per_rank) + " per rank" + rate + " " + ms(*a2a) + " ms") +
             " = " + ms(bound) + " ms; measured " +
             ms(*t) + " ms = " + fmt("%.3fx", ratio) + " the bound (target <= 1.10x: " +
             (ratio <= 1.10 ? "met)" : "MISSED)") + phases;
      } else {  // gemm
        const auto local = timed_ms(find_row(g.key, row_kind::single, 0, g.n / P));
        const double b_bytes = double(g.n) * double(g.n) * 2;  // B: k × n bf16
        std::optional<double> gather = 0.0;
        std::string rate;
        if (P > 1) {
          const row_info* x = nccl_row(coll::all_gather, P, "1GiB");
          if (!timed_ms(x)) x = nccl_row(coll::all_gather, P, "256MiB");
          const auto xt = timed_ms(x);
          if (xt) {
            const double alg = double(x->bytes) / (*xt * 1e-3);
            gather = b_bytes / alg * 1e3;
            rate = " at the " + x->size_text + " all-gather row's algbw " + fmt("%.1f GB/s", alg / 1e9);
          } else {
            gather.reset();
          }
        }
        if (!local || !gather) {
          out.push_back(s + "- (needs the single row of " + std::to_string(g.n / P) + " rows" +
                        (P > 1 ? " and an all-gather row)" : ")"));
          continue;
        }
        // multi::gemm: the first of Q panels is gathered alone, then the others beside the products.
        const int panels = P > 1 ? int(multi::detail::gemm_panel_starts(g.n).size()) - 1 : 1;
        const double first = P > 1 ? *gather / panels : 0.0, bound = std::max(*local + first, *gather);
        s += "local product " + std::to_string(g.n / P) + "x" + std::to_string(g.n) + "x" + std::to_string(g.n) +
             " alone " + ms(*local) + " ms; " +
             (P == 1 ? std::string("nothing to gather (one rank)")
                     : "gathering B (" + bytes_text(std::int64_t(b_bytes)) + rate + ") " + ms(*gather) + " ms, its " +
                           "first of " + std::to_string(panels) + " panels " + ms(first) + " ms") +
             "; bound max(first panel + local, gather) = " + ms(bound) + " ms; measured " + ms(*t) + " ms = " +
             fmt("%.3fx", *t / bound) + " the bound";
        if (single) s += "; speed-up " + fmt("%.3fx", *single / *t) + " (target >= " + fmt("%.2fx", g.factor * P) + ")";
      }
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace

void register_multi() {
  const page_sizes z = sizes_from_environment();
  const std::vector<int> ps = rank_counts();
  const std::int64_t N = z.n();
  auto label = [](std::int64_t n) { return size_label(n); };

  {
    op_desc d;
    d.group = "reduce";
    d.title = "reduce sum float " + size_label(N);
    d.path = "reduce/sum/float";
    d.op = "sum";
    d.dtype = "float";
    d.n = N;
    d.factor = 0.9;
    d.collective = coll::all_gather;
    d.collective_size = "8B-each";
    d.collective_text = "all-gather of one 8-byte partial per rank";
    d.size_text = label;
    d.bytes = [](std::int64_t n) { return double(n) * 4; };
    add_op<reduce_single, reduce_multi>(
        d, ps, [](std::int64_t n) { return std::make_shared<reduce_single>(n); },
        [N](int P) { return std::make_shared<reduce_multi>(P, N); }, false,
        [] { return record_policy(cuprim::reduce_policy_for<float>(cuprim::current_tuned_arch())); });
  }
  {
    op_desc d;
    d.group = "scan";
    d.title = "inclusive_sum int32 " + size_label(N);
    d.path = "scan/inclusive_sum/int32";
    d.op = "inclusive_sum";
    d.dtype = "int32";
    d.n = N;
    d.factor = 0.6;
    d.bound = bound_kind::scan;
    d.size_text = label;
    d.bytes = [](std::int64_t n) { return double(n) * 8; };
    add_op<scan_single, scan_multi>(
        d, ps, [](std::int64_t n) { return std::make_shared<scan_single>(n); },
        [N](int P) { return std::make_shared<scan_multi>(P, N); }, false,
        [] { return record_policy(cuprim::scan_policy_for<std::int32_t>(cuprim::current_tuned_arch())); });
  }
  for (int bins : {256, 65536}) {
    op_desc d;
    d.group = "histogram" + std::to_string(bins);
    d.title = "histogram_even " + std::to_string(bins) + " bins float " + size_label(N);
    d.path = "histogram/even" + std::to_string(bins) + "/float";
    d.op = "histogram_even/" + std::to_string(bins);
    d.dtype = "float";
    d.n = N;
    d.factor = 0.9;
    d.collective = coll::all_reduce;
    d.collective_size = bytes_text(std::int64_t(bins) * 4);
    d.collective_text = "all-reduce of the " + std::to_string(bins) + " uint32 bins";
    d.size_text = label;
    d.bytes = [bins](std::int64_t n) { return double(n) * 4 + double(bins) * 4; };
    add_op<hist_single, hist_multi>(
        d, ps, [bins](std::int64_t n) { return std::make_shared<hist_single>(n, bins); },
        [N, bins](int P) { return std::make_shared<hist_multi>(P, N, bins); }, false, {});
  }
  {
    const std::int64_t Ns = z.select_n();
    op_desc d;
    d.group = "select";
    d.title = "select_if keep50 float " + size_label(Ns);
    d.path = "select/select_if/keep50/float";
    d.op = "select_if/keep50";
    d.dtype = "float";
    d.n = Ns;
    d.factor = 0;  // no target set: reported
    d.collective = coll::all_gather;
    d.collective_size = "8B-each";
    d.collective_text = "all-gather of one 8-byte count per rank";
    d.size_text = label;
    d.bytes = [](std::int64_t n) { return double(n) * 4 + double(n) / 2 * 4; };
    add_op<select_single, select_multi>(
        d, ps, [](std::int64_t n) { return std::make_shared<select_single>(n); },
        [Ns](int P) { return std::make_shared<select_multi>(P, Ns); }, false,
        [] { return record_policy(cuprim::select_policy_for<float>(cuprim::current_tuned_arch())); });
  }
  {
    op_desc d;
    d.group = "sort";
    d.title = "radix_sort_keys uint32 " + size_label(N);
    d.path = "radix_sort/keys/uint32";
    d.op = "radix_sort_keys";
    d.dtype = "uint32";
    d.n = N;
    d.bound = bound_kind::sort;
    d.size_text = label;
    d.bytes = [](std::int64_t n) { return double(n) * 8; };
    add_op<sort_single, sort_multi>(
        d, ps, [](std::int64_t n) { return std::make_shared<sort_single>(n); },
        [N](int P) { return std::make_shared<sort_multi>(P, N); }, true, {});
  }
  {
    const std::int64_t G = z.gemm;
    op_desc d;
    d.group = "gemm";
    d.title = "gemm bf16 (float C) " + std::to_string(G) + "^3";
    d.path = "gemm/bf16";
    d.op = "gemm";
    d.dtype = "bfloat16";
    d.n = G;
    d.factor = 0.9;
    d.bound = bound_kind::gemm;
    d.size_text = [G](std::int64_t m) { return std::to_string(m) + "x" + std::to_string(G) + "x" + std::to_string(G); };
    d.flops = [G](std::int64_t m) { return 2.0 * double(m) * double(G) * double(G); };
    add_op<gemm_single, gemm_multi>(
        d, ps, [G](std::int64_t m) { return std::make_shared<gemm_single>(m, G, G); },
        [G](int P) { return std::make_shared<gemm_multi>(P, G, G, G); }, true, {});
  }
  for (int P : ps) {
    if (P < 2) continue;  // one rank: nothing crosses a link (a bus bandwidth of 0 by the convention)
    // What the operations move: one 8-byte value per rank (the reduce's partial, the select's count), the
    // histograms' bins; then the bandwidth sizes.
    add_nccl(P, coll::all_gather, ncclInt64, "int64", 8, 8 * std::int64_t(P), "8B-each");
    add_nccl(P, coll::all_reduce, ncclUint32, "uint32", 4, 256 * 4, bytes_text(256 * 4));
    add_nccl(P, coll::all_reduce, ncclUint32, "uint32", 4, 65536 * 4, bytes_text(65536 * 4));
    for (std::int64_t b : {pow2(28), pow2(30)}) {
      add_nccl(P, coll::all_reduce, ncclFloat32, "float", 4, b, bytes_text(b));
      add_nccl(P, coll::all_gather, ncclFloat32, "float", 4, b, bytes_text(b));
      add_nccl(P, coll::all_to_all, ncclFloat32, "float", 4, b, bytes_text(b));
    }
    // The sort's data: the all-to-all of each rank's n/P uint32 keys, the volume its bound is held to.
    if (const std::int64_t b = z.n() / P * 4; b != pow2(28) && b != pow2(30))
      add_nccl(P, coll::all_to_all, ncclUint32, "uint32", 4, b, bytes_text(b));
  }
  add_note(prefix, "multi: P GPUs (devices 0..P-1) driven by one process through cuprim::multi "
                   "(communicator::local, NCCL, NCCL_NVLS_ENABLE=0), one communicator per P for the whole run; "
                   "'single' rows: cuprim's one-GPU call on device 0 (sort and GEMM also at n/P and m/P: the local work "
                   "their bounds are built from); 'P=<P>' rows: the cuprim::multi call on P equal shards of the same "
                   "global array, their baseline the single row of the whole array (speedup = the multi-GPU speed-up); "
                   "nccl rows: the collectives on the same communicators, GB/s = the algorithm bandwidth (each "
                   "rank's buffer / time)");
  add_note(prefix, "multi: timing: before every call all the ranks' streams are idle (synchronised from the host); per "
                   "rank a CUDA event before and after the call on its stream; a call's time is the slowest rank's "
                   "(end - start), the median over the reps after max(3, reps/10) warm-up calls; no stream-holding "
                   "kernel (the multi scan waits on the host inside its call), the single rows timed the same way on "
                   "one stream; the host wall time of each call is kept beside it (summary)");
  add_note(prefix, "multi: GB/s of a P=<P> row is the whole array's bytes over its time: the P GPUs together, so %copy "
                   "(against one GPU's copy ceiling) passes 100; every rank's input is at least 1 GiB at the default "
                   "sizes (no input rotation); workspace comes from cuprim's pool inside the timed calls, "
                   "single and multi alike; each row frees its buffers and trims its devices' pools when it ends");
  add_summary(prefix, summary);
}

}  // namespace lab
