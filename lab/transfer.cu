// lab/transfer.cu: `cuprim-lab transfer`, the host-memory transfer study (docs/ooc.md answers the questions it
// is for: when pinning pays, what managed memory costs, what the two copy engines allow).
//
// For each kind of host memory and each size (4 KiB, ×4, ..., 1 GiB by default):
//   alloc_ms   the allocation call (malloc / cudaMallocHost / cudaHostAlloc(WriteCombined) / cudaMallocManaged)
//   touch_ms   the first write of every byte from the host (memset): page faults for malloc and managed memory
//   free_ms    the release call
//   h2d_gbps   host → device:  cudaMemcpyAsync (pageable, pinned, pinned_wc); managed: a kernel reading the
//              buffer after the host wrote it (migration on fault); managed_prefetch: cudaMemPrefetchAsync to
//              the device
//   d2h_gbps   device → host:  cudaMemcpyAsync; managed: the host touching every 4 KiB page after a kernel wrote
//              the buffer (migration on CPU fault); managed_prefetch: cudaMemPrefetchAsync to the host
//   bidir_gbps H2D of one buffer and D2H of another, of the same size, issued at once on two streams; bytes of
//              both / time (managed: not measured)
// Every figure is the median over the repetitions (20 up to 1 MiB, 10 up to 64 MiB, 3 above); copies are timed
// with CUDA events, host-side steps with steady_clock. Output: a table on stdout and, with --json FILE, the
// document described in docs/ooc.md ("transfer JSON"). scripts/plot_transfer.py draws the figure from it.
#include "lab.hpp"

#include <cuprim/core/device.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace lab {
namespace {

enum class kind { pageable, pinned, pinned_wc, managed, managed_prefetch };
const char* kind_name(kind k) {
  switch (k) {
    case kind::pageable: return "pageable";
    case kind::pinned: return "pinned";
    case kind::pinned_wc: return "pinned_wc";
    case kind::managed: return "managed";
    case kind::managed_prefetch: return "managed_prefetch";
  }
  return "?";
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

void* host_alloc(kind k, std::size_t bytes) {
  void* p = nullptr;
  switch (k) {
    case kind::pageable: p = std::malloc(bytes); break;
    case kind::pinned: check(cudaMallocHost(&p, bytes), "cudaMallocHost"); break;
    case kind::pinned_wc: check(cudaHostAlloc(&p, bytes, cudaHostAllocWriteCombined), "cudaHostAlloc(WC)"); break;
    case kind::managed:
    case kind::managed_prefetch: check(cudaMallocManaged(&p, bytes), "cudaMallocManaged"); break;
  }
  if (!p) throw std::runtime_error("allocation failed");
  return p;
}
void host_free(kind k, void* p) {
  switch (k) {
    case kind::pageable: std::free(p); break;
    case kind::pinned:
    case kind::pinned_wc: check(cudaFreeHost(p), "cudaFreeHost"); break;
    case kind::managed:
    case kind::managed_prefetch: check(cudaFree(p), "cudaFree (managed)"); break;
  }
}

__global__ void read_kernel(const unsigned* p, std::size_t words, unsigned* sink) {
  unsigned acc = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) acc ^= p[i];
  if (acc == 0x9e3779b9u) *sink = acc;  // keeps the loads; practically never taken
}
__global__ void write_kernel(unsigned* p, std::size_t words) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) p[i] = unsigned(i);
}

struct row {
  kind k;
  std::size_t bytes;
  double alloc_ms, touch_ms, free_ms, h2d, d2h, bidir;  // bidir < 0: not measured
};

struct timer {
  cudaEvent_t a, b;
  timer() {
    check(cudaEventCreate(&a), "cudaEventCreate");
    check(cudaEventCreate(&b), "cudaEventCreate");
  }
  ~timer() {
    (void)cudaEventDestroy(a);
    (void)cudaEventDestroy(b);
  }
  float ms() {
    check(cudaEventSynchronize(b), "cudaEventSynchronize");
    float t = 0;
    check(cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime");
    return t;
  }
};

row measure(kind k, std::size_t bytes, int reps, cudaStream_t s1, cudaStream_t s2, unsigned* sink, void* d1, void* d2) {
  row r{k, bytes, 0, 0, 0, 0, 0, -1};
  std::vector<double> a, t, f;
  for (int i = 0; i < reps; ++i) {
    double t0 = now_ms();
    void* p = host_alloc(k, bytes);
    double t1 = now_ms();
    std::memset(p, i + 1, bytes);
    double t2 = now_ms();
    host_free(k, p);
    double t3 = now_ms();
    a.push_back(t1 - t0);
    t.push_back(t2 - t1);
    f.push_back(t3 - t2);
  }
  r.alloc_ms = median(a);
  r.touch_ms = median(t);
  r.free_ms = median(f);

  void* h = host_alloc(k, bytes);
  void* h2 = host_alloc(k, bytes);
  std::memset(h, 1, bytes);
  std::memset(h2, 2, bytes);
  timer tm, tm2;
  cudaEvent_t e_end2;
  check(cudaEventCreate(&e_end2), "cudaEventCreate");
  const std::size_t words = bytes / 4;
  const int grid = 1024;
  const cudaMemLocation dev{cudaMemLocationTypeDevice, 0};
  const cudaMemLocation cpu{cudaMemLocationTypeHost, 0};
  std::vector<double> up, down, both;
  for (int i = -1; i < reps; ++i) {  // i = -1: warm-up
    // H2D
    if (k == kind::managed || k == kind::managed_prefetch) {
      std::memset(h, i + 3, bytes);  // the pages now live on the host
      check(cudaEventRecord(tm.a, s1), "cudaEventRecord");
      if (k == kind::managed) read_kernel<<<grid, 256, 0, s1>>>(static_cast<const unsigned*>(h), words, sink);
      else check(cudaMemPrefetchAsync(h, bytes, dev, 0, s1), "cudaMemPrefetchAsync (device)");
      check(cudaEventRecord(tm.b, s1), "cudaEventRecord");
    } else {
      check(cudaEventRecord(tm.a, s1), "cudaEventRecord");
      check(cudaMemcpyAsync(d1, h, bytes, cudaMemcpyHostToDevice, s1), "cudaMemcpyAsync H2D");
      check(cudaEventRecord(tm.b, s1), "cudaEventRecord");
    }
    const double up_ms = tm.ms();
    check(cudaGetLastError(), "read_kernel");
    // D2H
    double down_ms = 0;
    if (k == kind::managed || k == kind::managed_prefetch) {
      write_kernel<<<grid, 256, 0, s1>>>(static_cast<unsigned*>(h), words);  // the pages now live on the GPU
      check(cudaStreamSynchronize(s1), "write_kernel");
      if (k == kind::managed) {
        const double t0 = now_ms();
        volatile unsigned acc = 0;
        const unsigned* q = static_cast<const unsigned*>(h);
        for (std::size_t w = 0; w < words; w += 1024) acc = acc + q[w];  // one word per 4 KiB page
        down_ms = now_ms() - t0;
      } else {
        check(cudaEventRecord(tm.a, s1), "cudaEventRecord");
        check(cudaMemPrefetchAsync(h, bytes, cpu, 0, s1), "cudaMemPrefetchAsync (host)");
        check(cudaEventRecord(tm.b, s1), "cudaEventRecord");
        down_ms = tm.ms();
      }
    } else {
      check(cudaEventRecord(tm.a, s1), "cudaEventRecord");
      check(cudaMemcpyAsync(h, d1, bytes, cudaMemcpyDeviceToHost, s1), "cudaMemcpyAsync D2H");
      check(cudaEventRecord(tm.b, s1), "cudaEventRecord");
      down_ms = tm.ms();
    }
    // Both directions at once (two streams).
    double both_ms = -1;
    if (k != kind::managed && k != kind::managed_prefetch) {
      check(cudaEventRecord(tm.a, s1), "cudaEventRecord");
      check(cudaStreamWaitEvent(s2, tm.a, 0), "cudaStreamWaitEvent");
      check(cudaMemcpyAsync(d1, h, bytes, cudaMemcpyHostToDevice, s1), "cudaMemcpyAsync H2D");
      check(cudaMemcpyAsync(h2, d2, bytes, cudaMemcpyDeviceToHost, s2), "cudaMemcpyAsync D2H");
      check(cudaEventRecord(e_end2, s2), "cudaEventRecord");
      check(cudaStreamWaitEvent(s1, e_end2, 0), "cudaStreamWaitEvent");
      check(cudaEventRecord(tm.b, s1), "cudaEventRecord");
      both_ms = tm.ms();
    }
    if (i >= 0) {
      up.push_back(up_ms);
      down.push_back(down_ms);
      if (both_ms >= 0) both.push_back(both_ms);
    }
  }
  (void)cudaEventDestroy(e_end2);
  host_free(k, h);
  host_free(k, h2);
  r.h2d = double(bytes) / (median(up) * 1e6);
  r.d2h = double(bytes) / (median(down) * 1e6);
  if (!both.empty()) r.bidir = 2.0 * double(bytes) / (median(both) * 1e6);
  return r;
}

}  // namespace

int run_transfer_study(int argc, char** argv) {
  std::string json;
  std::size_t max_bytes = std::size_t(1) << 30, min_bytes = 4096;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) json = argv[++i];
    else if (a == "--max-bytes" && i + 1 < argc) max_bytes = std::strtoull(argv[++i], nullptr, 0);
    else if (a == "--min-bytes" && i + 1 < argc) min_bytes = std::strtoull(argv[++i], nullptr, 0);
    else {
      std::fprintf(stderr, "usage: cuprim-lab transfer [--json FILE] [--min-bytes N] [--max-bytes N]\n");
      return 2;
    }
  }
  check(cudaSetDevice(0), "cudaSetDevice");
  const environment env = record_environment(true);
  int engines = 0, concurrent_managed = 0;
  check(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, 0), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&concurrent_managed, cudaDevAttrConcurrentManagedAccess, 0), "cudaDeviceGetAttribute");
  cudaStream_t s1, s2;
  check(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "cudaStreamCreate");
  device_memory d1(max_bytes), d2(max_bytes), sink(256);
  check(cudaMemset(d2.get(), 7, max_bytes), "cudaMemset");
  std::vector<row> rows;
  std::printf("transfer study on %s (%d copy engines, concurrentManagedAccess %d), driver %s, commit %s\n",
              env.device_name.c_str(), engines, concurrent_managed, env.driver.c_str(), env.commit.c_str());
  std::printf("%-17s %12s %10s %10s %10s %9s %9s %9s\n", "kind", "bytes", "alloc_ms", "touch_ms", "free_ms", "H2D GB/s",
              "D2H GB/s", "both GB/s");
  for (std::size_t b = min_bytes; b <= max_bytes; b *= 4)
    for (kind k : {kind::pageable, kind::pinned, kind::pinned_wc, kind::managed, kind::managed_prefetch}) {
      const int reps = b <= (std::size_t(1) << 20) ? 20 : b <= (std::size_t(64) << 20) ? 10 : 3;
      row r = measure(k, b, reps, s1, s2, sink.as<unsigned>(), d1.get(), d2.get());
      rows.push_back(r);
      std::printf("%-17s %12zu %10.4f %10.4f %10.4f %9.2f %9.2f %9s\n", kind_name(k), b, r.alloc_ms, r.touch_ms,
                  r.free_ms, r.h2d, r.d2h, r.bidir < 0 ? "-" : std::to_string(r.bidir).substr(0, 6).c_str());
      std::fflush(stdout);
    }
  if (!json.empty()) {
    std::FILE* f = std::fopen(json.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", json.c_str());
      return 1;
    }
    std::fprintf(f, "{\n  \"study\": \"transfer\",\n  \"device\": \"%s\",\n  \"copy_engines\": %d,\n",
                 env.device_name.c_str(), engines);
    std::fprintf(f, "  \"concurrent_managed_access\": %d,\n  \"driver\": \"%s\",\n", concurrent_managed,
                 env.driver.c_str());
    std::fprintf(f, "  \"commit\": \"%s\",\n  \"tree\": \"%s\",\n  \"changes\": \"%s\",\n  \"date\": \"%s\",\n",
                 env.commit.c_str(), env.tree.c_str(), env.changes.c_str(), env.date.c_str());
    std::fprintf(f, "  \"rows\": [\n");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const row& r = rows[i];
      std::fprintf(f,
                   "    {\"kind\": \"%s\", \"bytes\": %zu, \"alloc_ms\": %.6f, \"touch_ms\": %.6f, \"free_ms\": %.6f, "
                   "\"h2d_gbps\": %.4f, \"d2h_gbps\": %.4f, \"bidir_gbps\": ",
                   kind_name(r.k), r.bytes, r.alloc_ms, r.touch_ms, r.free_ms, r.h2d, r.d2h);
      if (r.bidir < 0) std::fprintf(f, "null}");
      else std::fprintf(f, "%.4f}", r.bidir);
      std::fprintf(f, "%s\n", i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
    std::fclose(f);
  }
  (void)cudaStreamDestroy(s1);
  (void)cudaStreamDestroy(s2);
  return 0;
}

}  // namespace lab
