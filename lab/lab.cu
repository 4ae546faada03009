// lab/lab.cu: registry, random inputs, environment record, copy ceiling, timing, table and JSON writer.
#include "lab.hpp"

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <list>
#include <source_location>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "provenance.inc"  // CUPRIM_BUILD_COMMIT, _TREE, _CHANGES (cmake/provenance.cmake, at build time)

namespace lab {

void check(cudaError_t code, const char* what) {
  if (code != cudaSuccess) {
    (void)cudaGetLastError();
    throw cuprim::cuda_error(code, what, std::source_location::current());
  }
}

// ---------------------------------------------------------------------------------------------------------
// Element types

const char* dtype_name(dtype t) {
  switch (t) {
    case dtype::int8: return "int8";
    case dtype::uint8: return "uint8";
    case dtype::int32: return "int32";
    case dtype::uint32: return "uint32";
    case dtype::int64: return "int64";
    case dtype::uint64: return "uint64";
    case dtype::half: return "half";
    case dtype::bfloat16: return "bfloat16";
    case dtype::float32: return "float";
    case dtype::float64: return "double";
  }
  return "?";
}

std::size_t dtype_bytes(dtype t) {
  switch (t) {
    case dtype::int8: case dtype::uint8: return 1;
    case dtype::half: case dtype::bfloat16: return 2;
    case dtype::int32: case dtype::uint32: case dtype::float32: return 4;
    case dtype::int64: case dtype::uint64: case dtype::float64: return 8;
  }
  return 0;
}

std::string size_label(std::int64_t n) {
  if (n > 0 && (n & (n - 1)) == 0) {
    int k = 0;
    while ((std::int64_t(1) << k) < n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

// ---------------------------------------------------------------------------------------------------------
// Random values

namespace {

/// splitmix64's finaliser over a counter built from (seed, index): a fast, well-mixed hash.
__host__ __device__ inline std::uint64_t hash64(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = i * 0x9E3779B97F4A7C15ull + (seed + 1) * 0xD6E8FEB86659FD93ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <class T>
__host__ __device__ inline T random_value(std::uint64_t h) {
  const float unit_f = static_cast<float>(h >> 40) * 0x1p-24f;  // [0, 1), 24 random bits
  if constexpr (std::is_same_v<T, float>) return unit_f;
  else if constexpr (std::is_same_v<T, double>) return static_cast<double>(h >> 11) * 0x1p-53;
  else if constexpr (std::is_same_v<T, __half>) return __float2half_rn(unit_f);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(unit_f);
  else if constexpr (std::is_same_v<T, std::int8_t>) return static_cast<std::int8_t>(int((h >> 32) % 201u) - 100);
  else if constexpr (std::is_same_v<T, std::uint8_t>) return static_cast<std::uint8_t>(h >> 56);
  else if constexpr (std::is_same_v<T, std::int32_t>) return static_cast<std::int32_t>((h >> 32) % 2001u) - 1000;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return static_cast<std::uint32_t>(h >> 32);
  else if constexpr (std::is_same_v<T, std::int64_t>) return static_cast<std::int64_t>(h >> 23) - (std::int64_t(1) << 40);
  else return static_cast<std::uint64_t>(h);
}

template <class T>
__global__ void fill_random_kernel(T* p, std::size_t n, std::uint64_t seed, std::uint64_t first) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = random_value<T>(hash64(seed, first + i));
}

template <class T>
void fill_device_typed(void* p, std::size_t n, std::uint64_t seed, std::uint64_t first, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t blocks = std::min<std::size_t>((n + 255) / 256, 65536);
  fill_random_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(static_cast<T*>(p), n, seed, first);
  check(cudaGetLastError(), "launch of fill_random_kernel");
}

template <class T>
void fill_host_typed(void* p, std::size_t n, std::uint64_t seed, std::uint64_t first) {
  T* out = static_cast<T*>(p);
  for (std::size_t i = 0; i < n; ++i) out[i] = random_value<T>(hash64(seed, first + i));
}

template <class F>
void dispatch_dtype(dtype t, F&& f) {
  switch (t) {
    case dtype::int8: f(std::int8_t{}); break;
    case dtype::uint8: f(std::uint8_t{}); break;
    case dtype::int32: f(std::int32_t{}); break;
    case dtype::uint32: f(std::uint32_t{}); break;
    case dtype::int64: f(std::int64_t{}); break;
    case dtype::uint64: f(std::uint64_t{}); break;
    case dtype::half: f(__half{}); break;
    case dtype::bfloat16: f(__nv_bfloat16{}); break;
    case dtype::float32: f(float{}); break;
    case dtype::float64: f(double{}); break;
  }
}

}  // namespace

void fill_random_device(dtype t, void* p, std::size_t n, std::uint64_t seed, std::uint64_t first_index,
                        cudaStream_t stream) {
  dispatch_dtype(t, [&](auto tag) { fill_device_typed<decltype(tag)>(p, n, seed, first_index, stream); });
}

void fill_random_host(dtype t, void* p, std::size_t n, std::uint64_t seed, std::uint64_t first_index) {
  dispatch_dtype(t, [&](auto tag) { fill_host_typed<decltype(tag)>(p, n, seed, first_index); });
}

// ---------------------------------------------------------------------------------------------------------
// Memory

device_memory::device_memory(std::size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  cudaError_t e = cudaMalloc(&p_, bytes);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    throw cuprim::bad_alloc(bytes, std::string("cudaMalloc: ") + cudaGetErrorString(e));
  }
}
device_memory::device_memory(device_memory&& o) noexcept
    : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
device_memory& device_memory::operator=(device_memory&& o) noexcept {
  if (this != &o) {
    if (p_) (void)cudaFree(p_);
    p_ = std::exchange(o.p_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}
device_memory::~device_memory() {
  if (p_) (void)cudaFree(p_);
}
void device_memory::poison(unsigned char byte) const {
  if (!p_) return;
  check(cudaMemset(p_, byte, bytes_), "cudaMemset (poison)");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (poison)");
}

namespace {
struct input_cache {
  std::list<std::shared_ptr<input_set>> entries;  // most recently used first (handed out as const)
};
input_cache& inputs() {
  static input_cache c;
  return c;
}
std::size_t input_cache_budget() {
  const auto& info = cuprim::get_device_info();
  return std::min<std::size_t>(std::size_t(8) << 30, info.global_mem_bytes / 4);
}
}  // namespace

std::shared_ptr<const input_set> random_input(dtype t, std::int64_t n, std::uint64_t seed) {
  auto& cache = inputs();
  for (auto it = cache.entries.begin(); it != cache.entries.end(); ++it) {
    if ((*it)->type == t && (*it)->n == n && (*it)->seed == seed) {
      auto hit = *it;
      cache.entries.erase(it);
      cache.entries.push_front(hit);
      return hit;
    }
  }
  const auto& info = cuprim::get_device_info();
  const std::size_t elem = dtype_bytes(t);
  const std::size_t one = std::size_t(n) * elem;
  const std::size_t stride = std::max<std::size_t>(256, (one + 255) / 256 * 256);
  const std::size_t target = 4 * std::max<std::size_t>(info.l2_bytes, std::size_t(1) << 20);
  const int slices = one >= target ? 1 : static_cast<int>((target + stride - 1) / stride);
  const std::size_t total = stride * std::size_t(slices);

  // Make room: drop least recently used inputs (those still held by a case stay alive until it ends).
  std::size_t held = 0;
  for (auto& e : cache.entries) held += e->device.bytes();
  while (!cache.entries.empty() && held + total > input_cache_budget()) {
    held -= cache.entries.back()->device.bytes();
    cache.entries.pop_back();
  }

  auto in = std::make_shared<input_set>();
  in->type = t;
  in->n = n;
  in->seed = seed;
  in->slices = slices;
  in->stride_bytes = stride;
  in->device = device_memory(total);
  // One stream of random values over the whole allocation: slice k holds elements k·stride/elem onwards, so
  // every slice differs from every other.
  fill_random_device(t, in->device.get(), total / elem, seed, 0, 0);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (fill_random)");
  in->host0.resize(one);
  if (one) check(cudaMemcpy(in->host0.data(), in->device.get(), one, cudaMemcpyDeviceToHost), "cudaMemcpy (input to host)");
  cache.entries.push_front(in);
  return in;
}

void release_inputs() { inputs().entries.clear(); }

void relocate_inputs() {
  for (auto& e : inputs().entries) {
    if (e->device.bytes() == 0) continue;
    device_memory moved(e->device.bytes());
    check(cudaMemcpy(moved.get(), e->device.get(), e->device.bytes(), cudaMemcpyDeviceToDevice),
          "cudaMemcpy (relocating an input)");
    e->device = std::move(moved);  // frees the old copy
  }
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (relocated inputs)");
}

device_memory placement_spacer(int k) {
  if (k <= 0) return {};
  const std::size_t bytes = std::size_t(k) * (std::size_t(736) << 20);
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (bytes > free_bytes / 2) return {};  // no room: the caller stops adding placements
  return device_memory(bytes);
}

// ---------------------------------------------------------------------------------------------------------
// Registry

namespace {
std::vector<case_def>& registry() {
  static std::vector<case_def> r;
  return r;
}
std::vector<std::pair<std::string, std::string>>& note_registry() {
  static std::vector<std::pair<std::string, std::string>> r;
  return r;
}
}  // namespace

void add_case(case_def c) {
  for (const auto& e : registry())
    if (e.name == c.name) throw std::logic_error("cuprim-lab: duplicate case name " + c.name);
  registry().push_back(std::move(c));
}
const std::vector<case_def>& all_cases() { return registry(); }
void add_note(const std::string& name_prefix, const std::string& line) {
  note_registry().emplace_back(name_prefix, line);
}
namespace {
using summary_fn = std::function<std::vector<std::string>(const std::vector<result>&)>;
std::vector<std::pair<std::string, summary_fn>>& summary_registry() {
  static std::vector<std::pair<std::string, summary_fn>> r;
  return r;
}
}  // namespace
void add_summary(const std::string& name_prefix, summary_fn make_lines) {
  summary_registry().emplace_back(name_prefix, std::move(make_lines));
}
std::vector<std::string> summaries_for(const std::vector<result>& results) {
  std::vector<std::string> out;
  for (const auto& [prefix, fn] : summary_registry()) {
    auto hit = [&](const result& r) { return r.c && r.c->name.rfind(prefix, 0) == 0; };
    if (!std::any_of(results.begin(), results.end(), hit)) continue;
    for (auto& line : fn(results)) out.push_back(std::move(line));
  }
  return out;
}
std::vector<std::string> notes_for(const std::vector<const case_def*>& selected) {
  std::vector<std::string> out;
  for (const auto& [prefix, line] : note_registry()) {
    auto hit = [&](const case_def* c) { return c->name.rfind(prefix, 0) == 0; };
    if (std::any_of(selected.begin(), selected.end(), hit)) out.push_back(line);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Verification helpers

double sum_tolerance(double eps, long double abs_sum, long double ref, std::int64_t n, bool sequential) {
  const double terms = static_cast<double>(std::max<std::int64_t>(n, 2));
  const double factor = sequential ? terms : 2.0 * std::ceil(std::log2(terms));
  return eps * static_cast<double>(abs_sum) * factor + 4.0 * eps * std::fabs(static_cast<double>(ref)) + 1e-30;
}

// ---------------------------------------------------------------------------------------------------------
// Environment

namespace {
std::string iso8601_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}
std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto pos = line.find(':');
      if (pos != std::string::npos) {
        std::string m = line.substr(pos + 1);
        m.erase(0, m.find_first_not_of(' '));
        return m;
      }
    }
  }
  return "unknown CPU";
}
}  // namespace

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}
timing summarize(const std::vector<double>& ms) {
  timing t;
  t.reps = static_cast<int>(ms.size());
  if (ms.empty()) return t;
  t.median_ms = median_of(ms);
  t.min_ms = *std::min_element(ms.begin(), ms.end());
  t.max_ms = *std::max_element(ms.begin(), ms.end());
  return t;
}

environment record_environment(bool gpu) {
  environment env;
  env.gpu = gpu;
  env.commit = CUPRIM_BUILD_COMMIT;
  env.tree = CUPRIM_BUILD_TREE;
  env.changes = CUPRIM_BUILD_CHANGES;
  env.date = iso8601_now();
  env.driver = cuprim::driver_version_string();
  int rt = 0;
  if (cudaRuntimeGetVersion(&rt) == cudaSuccess) env.runtime = std::to_string(rt / 1000) + "." + std::to_string((rt % 1000) / 10);
  else (void)cudaGetLastError();
  if (!gpu) {
    env.device_name = "host: " + cpu_model();
    return env;
  }
  const auto& d = cuprim::get_device_info();
  env.device_name = d.name;
  env.sm_count = d.sm_count;
  env.cc_major = d.cc_major;
  env.cc_minor = d.cc_minor;
  env.sm_clock_khz = d.clock_khz;
  env.memory_clock_khz = d.memory_clock_khz;
  env.memory_bus_bits = d.memory_bus_bits;
  env.l2_bytes = d.l2_bytes;
  env.global_mem_bytes = d.global_mem_bytes;
  return env;
}

double measure_copy_ceiling(cudaStream_t stream) {
  const std::size_t bytes = std::size_t(1) << 30;  // 2^28 floats
  device_memory src(bytes), dst(bytes);
  fill_random_device(dtype::float32, src.get(), bytes / 4, 7, 0, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  constexpr int warmup = 3, reps = 20;
  for (int i = 0; i < warmup; ++i)
    check(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync (D2D)");
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) check(cudaEventCreate(&e), "cudaEventCreate");
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(ev[2 * r], stream), "cudaEventRecord");
    check(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync (D2D)");
    check(cudaEventRecord(ev[2 * r + 1], stream), "cudaEventRecord");
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<double> ms(reps);
  for (int r = 0; r < reps; ++r) {
    float t = 0;
    check(cudaEventElapsedTime(&t, ev[2 * r], ev[2 * r + 1]), "cudaEventElapsedTime");
    ms[r] = t;
  }
  for (auto& e : ev) (void)cudaEventDestroy(e);
  return 2.0 * double(bytes) / (median_of(ms) * 1e-3) / 1e9;
}

double measure_host_copy_ceiling() {
  const std::size_t bytes = std::size_t(128) << 20;
  std::vector<unsigned char> src(bytes), dst(bytes);
  fill_random_host(dtype::uint8, src.data(), bytes, 7);
  std::memcpy(dst.data(), src.data(), bytes);  // warm-up: faults the pages in
  std::vector<double> ms;
  for (int r = 0; r < 7; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    std::memcpy(dst.data(), src.data(), bytes);
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  volatile unsigned char sink = dst[bytes / 2];
  (void)sink;
  return 2.0 * double(bytes) / (median_of(ms) * 1e-3) / 1e9;
}

// ---------------------------------------------------------------------------------------------------------
// Timing

namespace {

__device__ __forceinline__ std::uint64_t globaltimer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Holds the stream until the host sets *release (or the timeout passes, which it reports in *timed_out), so
/// that a whole batch of timed calls is queued before the first one starts: the GPU then runs them back to
/// back, and the events measure GPU execution rather than how fast the host launches.
__global__ void hold_stream_kernel(const volatile int* release, int* timed_out, std::uint64_t timeout_ns) {
  if (threadIdx.x != 0) return;
  const std::uint64_t t0 = globaltimer_ns();
  while (*release == 0) {
    if (globaltimer_ns() - t0 > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(1000);
  }
}

struct hold_flags {
  volatile int* host = nullptr;  // [0]: release, [1]: timed out
  int* device = nullptr;
  hold_flags() {
    void* p = nullptr;
    check(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped), "cudaHostAlloc (hold flags)");
    host = static_cast<volatile int*>(p);
    void* d = nullptr;
    check(cudaHostGetDevicePointer(&d, p, 0), "cudaHostGetDevicePointer");
    device = static_cast<int*>(d);
  }
};
hold_flags& flags() {
  static hold_flags f;  // page-locked for the life of the process
  return f;
}

/// Calls per hold: small enough that the launch queue never fills (which would block the host before it
/// releases the hold), large enough that the hold's start-up cost is spread thin.
constexpr int reps_per_hold = 16;
constexpr std::uint64_t hold_timeout_ns = 2'000'000'000ull;

}  // namespace

int default_reps(std::int64_t n) {
  if (n <= (std::int64_t(1) << 20)) return 200;
  if (n <= (std::int64_t(1) << 24)) return 50;
  return 20;
}

int case_reps(const case_def& c, int requested) {
  if (requested > 0) return requested;
  return c.reps > 0 ? c.reps : default_reps(c.n);
}

namespace {
int fp32_lanes_per_sm(int major, int minor) {
  if (major == 6) return minor == 0 ? 64 : 128;
  if (major == 7) return 64;
  if (major == 8) return minor == 0 ? 64 : 128;
  if (major >= 9) return 128;
  return 0;
}
}  // namespace

math_peak fp32_cuda_core_peak() {
  math_peak p;
  const auto& d = cuprim::get_device_info();
  const int lanes = fp32_lanes_per_sm(d.cc_major, d.cc_minor);
  if (lanes == 0 || d.clock_khz == 0) {
    p.how = "FP32 peak unknown for this device (lanes per SM or clock not known)";
    return p;
  }
  p.tflops = double(d.sm_count) * lanes * 2.0 * (d.clock_khz * 1e3) / 1e12;
  char buf[200];
  std::snprintf(buf, sizeof buf, "FP32 peak = %d SMs x %d lanes x 2 flops x %.0f MHz = %.1f TFLOP/s", d.sm_count, lanes,
                d.clock_khz / 1000.0, p.tflops);
  p.how = buf;
  return p;
}

namespace {
int bf16_tensor_fma_per_sm(int major, int minor) {
  if (major == 8 && minor == 0) return 1024;
  if (major == 9 && minor == 0) return 2048;
  return 0;
}
}  // namespace

math_peak bf16_tensor_core_peak() {
  math_peak p;
  const auto& d = cuprim::get_device_info();
  const int fma = bf16_tensor_fma_per_sm(d.cc_major, d.cc_minor);
  if (fma == 0 || d.clock_khz == 0) {
    p.how = "BF16 tensor-core peak unknown for this device (dense FMAs per SM or clock not known)";
    return p;
  }
  p.tflops = double(d.sm_count) * fma * 2.0 * (d.clock_khz * 1e3) / 1e12;
  char buf[200];
  std::snprintf(buf, sizeof buf, "BF16 dense tensor-core peak = %d SMs x %d FMA/clk x 2 flops x %.0f MHz = %.1f TFLOP/s",
                d.sm_count, fma, d.clock_khz / 1000.0, p.tflops);
  p.how = buf;
  return p;
}

pair_timing time_device(const bench& b, int reps, int warmup, cudaStream_t stream) {
  const bool with_base = static_cast<bool>(b.baseline);
  for (int w = 0; w < warmup; ++w) {
    b.run(stream, 2 * w);
    if (with_base) b.baseline(stream, 2 * w + 1);
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (warm-up)");

  std::vector<cudaEvent_t> ev(4 * std::size_t(reps));
  for (auto& e : ev) check(cudaEventCreate(&e), "cudaEventCreate");
  auto& f = flags();
  pair_timing out;
  for (int r0 = 0; r0 < reps; r0 += reps_per_hold) {
    const int r1 = std::min(reps, r0 + reps_per_hold);
    f.host[0] = 0;
    f.host[1] = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    hold_stream_kernel<<<1, 32, 0, stream>>>(f.device, f.device + 1, hold_timeout_ns);
    check(cudaGetLastError(), "launch of hold_stream_kernel");
    for (int r = r0; r < r1; ++r) {
      // Alternate which call goes first, so neither always runs right after the other.
      // Inputs continue after the warm-up's, so no timed call finds its input left in L2 by the warm-up.
      const int input = 2 * (warmup + r);
      auto main_call = [&] {
        check(cudaEventRecord(ev[4 * r], stream), "cudaEventRecord");
        b.run(stream, input);
        check(cudaEventRecord(ev[4 * r + 1], stream), "cudaEventRecord");
      };
      auto base_call = [&] {
        check(cudaEventRecord(ev[4 * r + 2], stream), "cudaEventRecord");
        b.baseline(stream, input + 1);
        check(cudaEventRecord(ev[4 * r + 3], stream), "cudaEventRecord");
      };
      if (!with_base || r % 2 == 0) {
        main_call();
        if (with_base) base_call();
      } else {
        base_call();
        main_call();
      }
    }
    std::atomic_thread_fence(std::memory_order_seq_cst);
    f.host[0] = 1;
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (timed calls)");
    if (f.host[1]) out.hold_timed_out = true;
  }
  std::vector<double> main_ms, base_ms;
  for (int r = 0; r < reps; ++r) {
    float t = 0;
    check(cudaEventElapsedTime(&t, ev[4 * r], ev[4 * r + 1]), "cudaEventElapsedTime");
    main_ms.push_back(t);
    if (with_base) {
      check(cudaEventElapsedTime(&t, ev[4 * r + 2], ev[4 * r + 3]), "cudaEventElapsedTime");
      base_ms.push_back(t);
    }
  }
  for (auto& e : ev) (void)cudaEventDestroy(e);
  out.main = summarize(main_ms);
  if (with_base) out.base = summarize(base_ms);
  return out;
}

pair_timing combine_placements(const std::vector<pair_timing>& per, result& r) {
  if (per.size() <= 1) return per.empty() ? pair_timing{} : per.front();
  // The mean over placements of each placement's median: the placements' times cluster in two or three groups
  // (docs/tuning/radix_sort.md, run 14), where a median of a few jumps from one group to another between
  // processes and a mean moves by the share of each.
  auto over = [](const std::vector<double>& ms) {
    timing t;
    for (double m : ms) t.median_ms += m / double(ms.size());
    t.min_ms = *std::min_element(ms.begin(), ms.end());
    t.max_ms = *std::max_element(ms.begin(), ms.end());
    return t;
  };
  pair_timing out;
  std::vector<double> main_ms, base_ms;
  bool all_base = true;
  int main_reps = 0, base_reps = 0;
  r.placement_ms.clear();
  for (const auto& t : per) {
    main_ms.push_back(t.main.median_ms);
    main_reps += t.main.reps;
    if (t.base) {
      base_ms.push_back(t.base->median_ms);
      base_reps += t.base->reps;
    } else {
      all_base = false;
    }
    out.hold_timed_out = out.hold_timed_out || t.hold_timed_out;
    r.placement_ms.emplace_back(t.main.median_ms, t.base ? std::optional<double>(t.base->median_ms) : std::nullopt);
  }
  out.main = over(main_ms);
  out.main.reps = main_reps;
  if (all_base) {
    out.base = over(base_ms);
    out.base->reps = base_reps;
  }
  return out;
}

timing time_host(const bench& b, int reps) {
  b.host_run();  // warm-up: page faults, caches
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    b.host_run();
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return summarize(ms);
}

// ---------------------------------------------------------------------------------------------------------
// Reports

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
/// Milliseconds with at least four significant digits for sub-millisecond times.
std::string fmt_ms(double ms) {
  if (ms >= 100) return fmt("%.2f", ms);
  if (ms >= 1) return fmt("%.4f", ms);
  return fmt("%.5f", ms);
}
std::string correct_cell(const result& r) {
  if (!r.correct) return "FAIL";
  if (!r.baseline_correct) return "ok (base FAIL)";
  return "ok";
}
double throughput(const result& r) {  // GB/s (bytes) or GFLOP/s (flops)
  const double s = r.median_ms * 1e-3;
  if (!r.timed || s <= 0) return 0;
  return (r.c->bytes > 0 ? r.c->bytes : r.c->flops) / s / 1e9;
}

}  // namespace

void print_header(std::FILE* f, const environment& env, const std::vector<std::string>& notes) {
  std::fprintf(f, "cuprim-lab  commit %s  tree %s (changes: %s)  %s\n", env.commit.c_str(), env.tree.c_str(),
               env.changes.c_str(), env.date.c_str());
  if (env.gpu) {
    std::fprintf(f, "device: %s  cc %d.%d  %d SMs  L2 %.0f MiB  %.1f GiB\n", env.device_name.c_str(), env.cc_major,
                 env.cc_minor, env.sm_count, env.l2_bytes / 1048576.0, env.global_mem_bytes / 1073741824.0);
    std::fprintf(f, "clocks: SM %s  memory %s (%d-bit bus)  driver %s  runtime %s\n",
                 env.sm_clock_khz ? fmt("%.0f MHz", env.sm_clock_khz / 1000.0).c_str() : "not reported",
                 env.memory_clock_khz ? fmt("%.0f MHz", env.memory_clock_khz / 1000.0).c_str() : "not reported",
                 env.memory_bus_bits, env.driver.c_str(), env.runtime.c_str());
  } else {
    std::fprintf(f, "device: none (%s)  driver %s\n", env.device_name.c_str(), env.driver.c_str());
  }
  std::fprintf(f, "copy ceiling: %.1f GB/s (%s)\n", env.copy_ceiling_gbps, env.copy_ceiling_how.c_str());
  if (env.gpu) {
    std::fprintf(f, "%%copy: a case's GB/s over the copy ceiling; a read-only stream (a reduction) can exceed a "
                    "copy's read + write rate, so values above 100 are possible\n");
    std::fprintf(f,
                 "timing: CUDA events around each call, median of the reps after warm-up; calls are queued behind a "
                 "stream-holding kernel (GPU time, not launch rate); cuprim and baseline alternate call by call; "
                 "inputs smaller than 4 x L2 rotate through copies totalling >= 4 x L2, so every call reads its "
                 "input from DRAM; GB/s = bytes moved (input read once) / median\n");
  } else {
    std::fprintf(f, "timing: std::chrono::steady_clock around each call, median of the reps after one warm-up\n");
  }
  for (const auto& n : notes) std::fprintf(f, "%s\n", n.c_str());
}

std::string placement_line(const result& r) {
  if (r.placement_ms.size() < 2) return "";
  std::string main_s, base_s, ratio_s;
  double lo = 0, hi = 0;
  bool ratios = true;
  for (std::size_t k = 0; k < r.placement_ms.size(); ++k) {
    const auto& [m, b] = r.placement_ms[k];
    main_s += (k ? " " : "") + fmt_ms(m);
    if (b && m > 0) {
      base_s += (k ? " " : "") + fmt_ms(*b);
      const double q = *b / m;
      ratio_s += (k ? " " : "") + fmt("%.3f", q);
      lo = k ? std::min(lo, q) : q;
      hi = k ? std::max(hi, q) : q;
    } else {
      ratios = false;
    }
  }
  std::string line = "placements: " + r.c->name + ": " + std::to_string(r.placement_ms.size()) + " placements, cuprim " +
                     main_s + " ms";
  if (ratios) {
    line += "; baseline " + base_s + " ms; ratio " + ratio_s + " (" + fmt("%.3f", lo) + "-" + fmt("%.3f", hi) +
            "x; the table gives the means over the placements)";
  }
  return line;
}

void print_table(std::FILE* f, const environment& env, const std::vector<result>& results) {
  const std::vector<std::string> head = {"op", "variant", "dtype", "n", "median_ms", "GB/s", "%copy",
                                         "baseline", "base_ms", "speedup", "correct"};
  const std::vector<bool> right = {false, false, false, true, true, true, true, false, true, true, false};
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : results) {
    const double tp = throughput(r);
    std::vector<std::string> row;
    row.push_back(r.c->op);
    row.push_back(r.c->variant);
    row.push_back(r.c->dtype);
    row.push_back(size_label(r.c->n));
    row.push_back(r.timed ? fmt_ms(r.median_ms) : "-");
    row.push_back(r.timed ? (r.c->bytes > 0 ? fmt("%.1f", tp) : fmt("%.1f GF", tp)) : "-");
    row.push_back(r.timed && r.c->bytes > 0 && env.copy_ceiling_gbps > 0 ? fmt("%.1f", 100.0 * tp / env.copy_ceiling_gbps)
                                                                        : "-");
    row.push_back(r.c->baseline.empty() ? "-" : r.c->baseline);
    row.push_back(r.timed && r.baseline_ms ? fmt_ms(*r.baseline_ms) : "-");
    row.push_back(r.timed && r.baseline_ms && r.median_ms > 0 ? fmt("%.3f", *r.baseline_ms / r.median_ms) : "-");
    row.push_back(correct_cell(r));
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> w(head.size());
  for (std::size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const std::size_t pad = w[i] - cells[i].size();
      if (i) s += "  ";
      if (right[i]) s += std::string(pad, ' ') + cells[i];
      else s += cells[i] + (i + 1 < cells.size() ? std::string(pad, ' ') : "");
    }
    std::fprintf(f, "%s\n", s.c_str());
  };
  line(head);
  std::size_t total = 0;
  for (auto x : w) total += x;
  std::fprintf(f, "%s\n", std::string(total + 2 * (w.size() - 1), '-').c_str());
  for (const auto& row : rows) line(row);
  for (const auto& r : results)
    if (!r.error.empty()) std::fprintf(f, "note: %s: %s\n", r.c->name.c_str(), r.error.c_str());
  for (const auto& r : results)
    if (!r.observed.empty()) std::fprintf(f, "observed: %s: %s\n", r.c->name.c_str(), r.observed.c_str());
  for (const auto& r : results)
    if (std::string p = placement_line(r); !p.empty()) std::fprintf(f, "%s\n", p.c_str());
  // The policies the rows ran, each once, with the rows that ran it (in table order).
  std::vector<std::pair<std::string, std::vector<std::string>>> policies;
  for (const auto& r : results) {
    if (r.policy.text.empty()) continue;
    auto it = std::find_if(policies.begin(), policies.end(), [&](const auto& p) { return p.first == r.policy.text; });
    if (it == policies.end()) policies.push_back({r.policy.text, {r.c->name}});
    else it->second.push_back(r.c->name);
  }
  for (const auto& [text, names] : policies) {
    std::string rows = names.front();
    if (names.size() == 2) rows += ", " + names.back();
    if (names.size() > 2) rows += " ... " + names.back() + " (" + std::to_string(names.size()) + " rows)";
    std::fprintf(f, "policy: %s: %s\n", rows.c_str(), text.c_str());
  }
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (unsigned char ch : s) {
    switch (ch) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\b': o += "\\b"; break;
      case '\f': o += "\\f"; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      default:
        if (ch < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", ch);
          o += buf;
        } else {
          o += static_cast<char>(ch);
        }
    }
  }
  return o + "\"";
}
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

namespace {
std::string json_opt(const std::optional<double>& v) { return v ? json_number(*v) : "null"; }

}  // namespace

bool write_json(const std::string& path, const environment& env, const std::vector<result>& results) {
  std::ostringstream o;
  o << "{\n  \"device\": {";
  o << "\"name\": " << json_string(env.device_name);
  o << ", \"sm_count\": " << env.sm_count;
  o << ", \"cc\": " << json_string(env.gpu ? std::to_string(env.cc_major) + "." + std::to_string(env.cc_minor) : "none");
  o << ", \"clocks\": {\"sm_mhz\": " << json_number(env.sm_clock_khz / 1000.0)
    << ", \"memory_mhz\": " << json_number(env.memory_clock_khz / 1000.0) << "}";
  o << ", \"driver\": " << json_string(env.driver);
  o << ", \"l2_bytes\": " << env.l2_bytes << "},\n";
  o << "  \"commit\": " << json_string(env.commit) << ",\n";
  o << "  \"tree\": " << json_string(env.tree) << ",\n";
  o << "  \"changes\": " << json_string(env.changes) << ",\n";
  o << "  \"copy_ceiling_gbps\": " << json_number(env.copy_ceiling_gbps) << ",\n";
  o << "  \"date\": " << json_string(env.date) << ",\n";
  // Every row carries where it was measured and what was built, so that a row copied elsewhere keeps them.
  const std::string provenance =
      "{\"commit\": " + json_string(env.commit) + ", \"tree\": " + json_string(env.tree) +
      ", \"changes\": " + json_string(env.changes) + ", \"gpu\": " + json_string(env.device_name) +
      ", \"driver\": " + json_string(env.driver) + ", \"date\": " + json_string(env.date) + "}";
  o << "  \"results\": [";
  bool first = true;
  for (const auto& r : results) {
    const double tp = throughput(r);
    std::optional<double> gbps, pct, base, speedup;
    if (r.timed && r.c->bytes > 0) {
      gbps = tp;
      if (env.copy_ceiling_gbps > 0) pct = 100.0 * tp / env.copy_ceiling_gbps;
    }
    if (r.timed && r.baseline_ms) {
      base = *r.baseline_ms;
      if (r.median_ms > 0) speedup = *r.baseline_ms / r.median_ms;
    }
    o << (first ? "\n" : ",\n") << "    {";
    first = false;
    o << "\"name\": " << json_string(r.c->name);
    o << ", \"family\": " << json_string(r.c->family);
    o << ", \"op\": " << json_string(r.c->op);
    o << ", \"variant\": " << json_string(r.c->variant);
    o << ", \"dtype\": " << json_string(r.c->dtype);
    o << ", \"n\": " << r.c->n;
    o << ", \"median_ms\": " << (r.timed ? json_number(r.median_ms) : "null");
    o << ", \"gbps\": " << json_opt(gbps);
    o << ", \"pct_copy\": " << json_opt(pct);
    o << ", \"baseline\": " << (r.c->baseline.empty() ? "null" : json_string(r.c->baseline));
    o << ", \"baseline_ms\": " << json_opt(base);
    o << ", \"speedup_vs_baseline\": " << json_opt(speedup);
    o << ", \"correct\": " << ((r.correct && r.baseline_correct) ? "true" : "false");
    o << ", \"reps\": " << r.reps;
    o << ", \"policy\": " << (r.policy.json.empty() ? "null" : r.policy.json);
    if (!r.observed.empty()) o << ", \"observed\": " << json_string(r.observed);
    o << ", \"provenance\": " << provenance;
    if (!r.placement_ms.empty()) {
      o << ", \"placements\": [";
      for (std::size_t k = 0; k < r.placement_ms.size(); ++k)
        o << (k ? ", " : "") << "{\"median_ms\": " << json_number(r.placement_ms[k].first)
          << ", \"baseline_ms\": " << json_opt(r.placement_ms[k].second) << "}";
      o << "]";
    }
    o << "}";
  }
  o << (results.empty() ? "]\n}\n" : "\n  ]\n}\n");
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    std::fprintf(stderr, "cuprim-lab: cannot open %s for writing\n", path.c_str());
    return false;
  }
  file << o.str();
  file.close();
  if (!file) {
    std::fprintf(stderr, "cuprim-lab: error writing %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace lab
