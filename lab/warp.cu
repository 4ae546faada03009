// lab/warp.cu: the warp family: divergence (coherent vs divergent branches, 1- to 32-way switches, 2-D block
// shapes), branching vs predication (the lab reads its own kernels' SASS), independent thread scheduling (the
// A/B/C/D/Z example, the pre-Volta warp-synchronous reduction), and warp shuffles and votes (docs/warp.md).
//
// Every row checks its output against a host computation before it is timed. Compute-bound rows report useful
// FP32 flops (the "GF" column: the FMAs a thread needs, not the ones a diverged warp issues) or, for warp sums,
// the 31 additions a warp sum stands for; memory-bound rows report bytes read + written. Demonstration rows (the
// races, the SASS reading) record what they saw as an "observed:" line after the table and in their JSON row.
#include "lab.hpp"

#include <cuprim/core/error.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace lab {
namespace {

constexpr std::int64_t pow2(int k) { return std::int64_t(1) << k; }
constexpr unsigned full_mask = 0xffffffffu;

void launch_check(const char* what) { check(cudaGetLastError(), what); }
void sync_check(const char* what) { check(cudaDeviceSynchronize(), what); }

/// The host may test `count` elements out of n: every element when n is small, else an even spread (first and
/// last included), so that a compute-bound row's verification stays in milliseconds.
std::vector<std::int64_t> sample_indices(std::int64_t n, std::int64_t count = 4096) {
  std::vector<std::int64_t> v;
  if (n <= count) {
    for (std::int64_t i = 0; i < n; ++i) v.push_back(i);
    return v;
  }
  for (std::int64_t k = 0; k < count; ++k) v.push_back(k * (n - 1) / (count - 1));
  return v;
}

// ---------------------------------------------------------------------------------------------------------
// Arithmetic the branches do: dependent FMA chains. Two sides that differ only in their constants would be merged
// by the compiler into one chain fed by selected constants (it does so: no branch is left to diverge), so each step
// of a side ends in an empty asm statement whose text names the side: the compiler must keep the sides apart, and
// the asm emits no instruction. Host and device compute bit-identical results (fmaf is exact).

#if defined(__CUDA_ARCH__)
#define CUPRIM_LAB_KEEP(x, tag) asm volatile("// " tag : "+f"(x))
#else
#define CUPRIM_LAB_KEEP(x, tag) (void)(x)
#endif

template <int M>
__host__ __device__ __forceinline__ float side_a(float x) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int j = 0; j < M; ++j) {
    x = fmaf(x, 1.0001f, 0.5f);
    CUPRIM_LAB_KEEP(x, "side a");
  }
  return x;
}
template <int M>
__host__ __device__ __forceinline__ float side_b(float x) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int j = 0; j < M; ++j) {
    x = fmaf(x, 0.9999f, -0.25f);
    CUPRIM_LAB_KEEP(x, "side b");
  }
  return x;
}
/// M dependent FMAs x = x * a + b (the switch's cases; each case adds its own tag).
template <int M>
__host__ __device__ __forceinline__ float chain(float x, float a, float b) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int j = 0; j < M; ++j) x = fmaf(x, a, b);
  return x;
}
constexpr int path_len = 16;  // FMAs per side per iteration in the divergence rows
__host__ __device__ __forceinline__ float path_a(float x) { return side_a<path_len>(x); }
__host__ __device__ __forceinline__ float path_b(float x) { return side_b<path_len>(x); }

// ---------------------------------------------------------------------------------------------------------
// Divergence: the seed's a_kernel / b_kernel and the 2-D block conditions.

enum class cond { none, block_parity, thread_parity, y_parity, y_div4 };

const char* cond_name(cond c) {
  switch (c) {
    case cond::none: return "none";
    case cond::block_parity: return "blockIdx.x%2";
    case cond::thread_parity: return "threadIdx.x%2";
    case cond::y_parity: return "threadIdx.y%2";
    case cond::y_div4: return "threadIdx.y/4";
  }
  return "?";
}

__host__ __device__ inline bool take_a(cond c, unsigned block, unsigned tx, unsigned ty) {
  switch (c) {
    case cond::none: return false;
    case cond::block_parity: return block % 2 != 0;
    case cond::thread_parity: return tx % 2 != 0;
    case cond::y_parity: return ty % 2 != 0;
    case cond::y_div4: return ty / 4 != 0;
  }
  return false;
}

template <cond C>
__global__ void branch_kernel(const float* in, float* out, int iters) {
  const unsigned threads = blockDim.x * blockDim.y;
  const std::size_t i = std::size_t(blockIdx.x) * threads + threadIdx.y * blockDim.x + threadIdx.x;
  const bool a = take_a(C, blockIdx.x, threadIdx.x, threadIdx.y);
  float x = in[i];
  for (int k = 0; k < iters; ++k) {
    if (a) x = path_a(x);
    else x = path_b(x);
  }
  out[i] = x;
}

/// The host's value of thread i of a branch_kernel launch with blocks of bx × by threads.
float branch_host(cond c, float x, std::int64_t i, int bx, int by, int iters) {
  const std::int64_t threads = std::int64_t(bx) * by;
  const unsigned block = unsigned(i / threads), t = unsigned(i % threads);
  const bool a = take_a(c, block, t % unsigned(bx), t / unsigned(bx));
  for (int k = 0; k < iters; ++k) x = a ? path_a(x) : path_b(x);
  return x;
}

/// Distinct outcomes of `c` within each warp of a bx × by block: the largest and the mean over the block's warps.
std::pair<int, double> ways_per_warp(cond c, int bx, int by) {
  const int threads = bx * by, warps = (threads + 31) / 32;
  int most = 0, total = 0;
  for (int w = 0; w < warps; ++w) {
    std::set<bool> seen;
    for (int t = w * 32; t < std::min(threads, w * 32 + 32); ++t)
      seen.insert(take_a(c, 0, unsigned(t % bx), unsigned(t / bx)));
    most = std::max(most, int(seen.size()));
    total += int(seen.size());
  }
  return {most, double(total) / warps};
}

void launch_branch(cond c, dim3 block, unsigned blocks, const float* in, float* out, int iters, cudaStream_t s) {
  switch (c) {
    case cond::none: branch_kernel<cond::none><<<blocks, block, 0, s>>>(in, out, iters); break;
    case cond::block_parity: branch_kernel<cond::block_parity><<<blocks, block, 0, s>>>(in, out, iters); break;
    case cond::thread_parity: branch_kernel<cond::thread_parity><<<blocks, block, 0, s>>>(in, out, iters); break;
    case cond::y_parity: branch_kernel<cond::y_parity><<<blocks, block, 0, s>>>(in, out, iters); break;
    case cond::y_div4: branch_kernel<cond::y_div4><<<blocks, block, 0, s>>>(in, out, iters); break;
  }
  launch_check("launch of branch_kernel");
}

/// Compares got[i] with want(i) on the sampled indices (bit for bit); "" when they all agree.
template <class T, class F>
std::string compare_sampled(const std::vector<T>& got, std::int64_t n, F want) {
  std::int64_t bad = 0, first = -1;
  T g{}, w{};
  const auto idx = sample_indices(n);
  for (std::int64_t i : idx) {
    const T v = want(i);
    if (std::memcmp(&got[std::size_t(i)], &v, sizeof(T)) != 0 && bad++ == 0) {
      first = i;
      g = got[std::size_t(i)];
      w = v;
    }
  }
  if (!bad) return "";
  std::ostringstream m;
  m << bad << " of " << idx.size() << " sampled elements differ; first " << first << ": " << double(g) << " vs "
    << double(w);
  return m.str();
}

constexpr std::int64_t div_threads = pow2(20);  // 4096 blocks of 256: enough warps to fill every scheduler
constexpr int div_iters = 512;                  // 512 × 16 dependent FMAs per thread

case_def divergence_case(const std::string& name, const std::string& op, const std::string& variant, cond c, int bx,
                         int by) {
  case_def d;
  d.name = name;
  d.family = "warp";
  d.op = op;
  d.variant = variant;
  d.dtype = "float";
  d.n = div_threads;
  d.flops = 2.0 * double(div_threads) * div_iters * path_len;
  d.setup = [=]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory out;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::float32, div_threads);
    st->out = device_memory(std::size_t(div_threads) * sizeof(float));
    const unsigned blocks = unsigned(div_threads / (bx * by));
    bench b;
    b.run = [st, c, bx, by, blocks](cudaStream_t s, int) {
      launch_branch(c, dim3(unsigned(bx), unsigned(by)), blocks, st->in->slice<float>(0), st->out.as<float>(),
                    div_iters, s);
    };
    b.verify = [st, c, bx, by, run = b.run] {
      st->out.poison();
      run(0, 0);
      sync_check("cudaDeviceSynchronize (verify)");
      const auto got = to_host(st->out.as<float>(), std::size_t(div_threads));
      const auto x = st->in->host<float>();
      verify_result v;
      v.detail = compare_sampled(got, div_threads, [&](std::int64_t i) {
        return branch_host(c, x[std::size_t(i)], i, bx, by, div_iters);
      });
      v.ok = v.detail.empty();
      if (c != cond::none) {
        const auto [most, mean] = ways_per_warp(c, bx, by);
        std::ostringstream o;
        o << "block " << bx << "x" << by << ", " << cond_name(c) << ": ways per warp (host, from the shape): max "
          << most << ", mean " << mean;
        v.observed = o.str();
      }
      return v;
    };
    return b;
  };
  return d;
}

// 1- to 32-way divergence: a switch over 32 cases on a per-thread key; lane l of a warp holds key (l + warp) % ways.
#define CUPRIM_LAB_WAY(k)                                                   \
  case k:                                                                   \
    x = chain<path_len>(x, 1.0f + (k + 1) * 1.0e-4f, 0.5f - (k) * 0.03125f); \
    CUPRIM_LAB_KEEP(x, "way " #k);                                          \
    break;

__host__ __device__ inline float way_step(int key, float x) {
  switch (key) {
    CUPRIM_LAB_WAY(0) CUPRIM_LAB_WAY(1) CUPRIM_LAB_WAY(2) CUPRIM_LAB_WAY(3) CUPRIM_LAB_WAY(4) CUPRIM_LAB_WAY(5)
    CUPRIM_LAB_WAY(6) CUPRIM_LAB_WAY(7) CUPRIM_LAB_WAY(8) CUPRIM_LAB_WAY(9) CUPRIM_LAB_WAY(10) CUPRIM_LAB_WAY(11)
    CUPRIM_LAB_WAY(12) CUPRIM_LAB_WAY(13) CUPRIM_LAB_WAY(14) CUPRIM_LAB_WAY(15) CUPRIM_LAB_WAY(16)
    CUPRIM_LAB_WAY(17) CUPRIM_LAB_WAY(18) CUPRIM_LAB_WAY(19) CUPRIM_LAB_WAY(20) CUPRIM_LAB_WAY(21)
    CUPRIM_LAB_WAY(22) CUPRIM_LAB_WAY(23) CUPRIM_LAB_WAY(24) CUPRIM_LAB_WAY(25) CUPRIM_LAB_WAY(26)
    CUPRIM_LAB_WAY(27) CUPRIM_LAB_WAY(28) CUPRIM_LAB_WAY(29) CUPRIM_LAB_WAY(30) CUPRIM_LAB_WAY(31)
    default: break;
  }
  return x;
}
#undef CUPRIM_LAB_WAY

__global__ void ways_kernel(const int* keys, const float* in, float* out, int iters) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int key = keys[i];
  float x = in[i];
  for (int k = 0; k < iters; ++k) x = way_step(key, x);
  out[i] = x;
}

int way_key(std::int64_t i, int ways) { return int(((i % 32) + (i / 32)) % ways); }

case_def ways_case(int ways) {
  case_def d;
  d.name = "warp/divergence/ways/" + std::to_string(ways) + "/float/" + size_label(div_threads);
  d.family = "warp";
  d.op = "ways";
  d.variant = std::to_string(ways) + "-way switch";
  d.dtype = "float";
  d.n = div_threads;
  d.flops = 2.0 * double(div_threads) * div_iters * path_len;
  d.setup = [ways]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory keys, out;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::float32, div_threads);
    std::vector<int> k(static_cast<std::size_t>(div_threads));
    for (std::int64_t i = 0; i < div_threads; ++i) k[std::size_t(i)] = way_key(i, ways);
    st->keys = device_memory(k.size() * sizeof(int));
    check(cudaMemcpy(st->keys.get(), k.data(), k.size() * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy (keys)");
    st->out = device_memory(std::size_t(div_threads) * sizeof(float));
    bench b;
    b.run = [st](cudaStream_t s, int) {
      ways_kernel<<<unsigned(div_threads / 256), 256, 0, s>>>(st->keys.as<int>(), st->in->slice<float>(0),
                                                              st->out.as<float>(), div_iters);
      launch_check("launch of ways_kernel");
    };
    b.verify = [st, ways, run = b.run] {
      st->out.poison();
      run(0, 0);
      sync_check("cudaDeviceSynchronize (verify)");
      const auto got = to_host(st->out.as<float>(), std::size_t(div_threads));
      const auto x = st->in->host<float>();
      verify_result v;
      v.detail = compare_sampled(got, div_threads, [&](std::int64_t i) {
        float y = x[std::size_t(i)];
        for (int r = 0; r < div_iters; ++r) y = way_step(way_key(i, ways), y);
        return y;
      });
      v.ok = v.detail.empty();
      return v;
    };
    return b;
  };
  return d;
}

// ---------------------------------------------------------------------------------------------------------
// Branching vs predication. The kernels are extern "C" so that cuobjdump finds them by name in the lab binary.
// Each is straight-line (one element per thread, no loop), so any BRA in it besides the final self-loop belongs
// to the if/else regions.

constexpr int pred_iters = 64;  // loop trips per thread; trip r takes bit r % 32 of the thread's word

/// The thread's branch word: lane (lane & lane_mask) of its warp's words (lane_mask 31: its own, random across the
/// warp; 0: lane 0's, the same for the whole warp).
__device__ __forceinline__ unsigned branch_word(const unsigned* bits, std::size_t i, unsigned lane_mask) {
  return __shfl_sync(full_mask, bits[i], int(threadIdx.x & lane_mask));
}

}  // namespace
}  // namespace lab

/// The seed's `int a = 0; if (i < n) a = 1; else a = 2;` on a loaded value.
extern "C" __global__ void cuprim_lab_pred_seed_if(const int* in, int* out, int n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  int a = 0;
  if (in[i] < n) a = 1;
  else a = 2;
  out[i] = a;
}
/// The seed's improved form: a = (i < n) ? 1 : 2.
extern "C" __global__ void cuprim_lab_pred_seed_ternary(const int* in, int* out, int n) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  out[i] = in[i] < n ? 1 : 2;
}

// The bodies: a do-while loop (its only branch goes backwards) around one if/else region per trip, so that a
// forward BRA in the SASS belongs to the region.
#define CUPRIM_LAB_PRED_KERNEL(name, ...)                                                                    \
  extern "C" __global__ void name(const float* in, const unsigned* bits, float* out, unsigned lane_mask,     \
                                  int iters) {                                                               \
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;                                \
    const unsigned w = lab::branch_word(bits, i, lane_mask);                                                 \
    float x = in[i];                                                                                         \
    int r = 0;                                                                                               \
    _Pragma("unroll 1") do {                                                                                 \
      const bool p = (w >> (r & 31)) & 1u;                                                                   \
      __VA_ARGS__                                                                                            \
    } while (++r < iters);                                                                                   \
    out[i] = x;                                                                                              \
  }
/// if/else, 4 FMAs a side: small enough that the compiler predicates both sides.
CUPRIM_LAB_PRED_KERNEL(cuprim_lab_pred_if4, if (p) x = lab::side_a<4>(x); else x = lab::side_b<4>(x);)
/// if/else, 8 FMAs a side: the compiler branches.
CUPRIM_LAB_PRED_KERNEL(cuprim_lab_pred_if8, if (p) x = lab::side_a<8>(x); else x = lab::side_b<8>(x);)
/// The ternary on the calls: still only one side is evaluated, so it still branches.
CUPRIM_LAB_PRED_KERNEL(cuprim_lab_pred_ternary8, x = p ? lab::side_a<8>(x) : lab::side_b<8>(x);)
/// Both sides computed, then a ternary on the values: a select, no branch (and both sides' work for every thread).
CUPRIM_LAB_PRED_KERNEL(cuprim_lab_pred_select8, const float a = lab::side_a<8>(x); const float b = lab::side_b<8>(x);
                       x = p ? a : b;)
#undef CUPRIM_LAB_PRED_KERNEL

namespace lab {
namespace {

/// What cuobjdump shows for one kernel of this binary.
struct sass_facts {
  bool found = false;
  int branches = 0;    ///< forward BRA (a loop's back edge and the final self-loop excepted)
  int sync = 0;        ///< BSSY (a convergence barrier set up for a divergent region)
  int selects = 0;     ///< SEL / FSEL
  int predicated = 0;  ///< instructions under a @P / @!P guard, branches and exits excepted
  std::string listing;
};

/// The directory holding cuobjdump: the toolkit the lab was built with, else $CUDA_PATH/bin, else PATH.
std::string find_cuobjdump() {
  auto exists = [](const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; };
#ifdef CUPRIM_LAB_CUDA_BIN_DIR
  if (exists(std::string(CUPRIM_LAB_CUDA_BIN_DIR) + "/cuobjdump")) return std::string(CUPRIM_LAB_CUDA_BIN_DIR) + "/cuobjdump";
#endif
  if (const char* cp = std::getenv("CUDA_PATH"); cp && exists(std::string(cp) + "/bin/cuobjdump"))
    return std::string(cp) + "/bin/cuobjdump";
  if (std::system("command -v cuobjdump >/dev/null 2>&1") == 0) return "cuobjdump";
  return "";
}

/// This process's executable, resolved: "/proc/self/exe" itself must not reach cuobjdump, where it would name
/// cuobjdump's own binary (no device code: exit status 255). Empty when it cannot be resolved.
std::string own_executable() {
  std::vector<char> buf(4096);
  for (;;) {
    const ssize_t len = readlink("/proc/self/exe", buf.data(), buf.size());
    if (len < 0) return "";
    if (std::size_t(len) < buf.size()) return std::string(buf.data(), std::size_t(len));
    buf.resize(buf.size() * 2);  // truncated: try again with more room
  }
}

/// `s` quoted for sh: in single quotes, each ' written as '\''.
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// The SASS facts of the predication kernels, read once per process; empty map when SASS is not available.
const std::map<std::string, sass_facts>& predication_sass(std::string& why) {
  static std::map<std::string, sass_facts> facts;
  static std::string reason;
  static std::once_flag once;
  std::call_once(once, [] {
    const std::string tool = find_cuobjdump();
    if (tool.empty()) {
      reason = "SASS not available (cuobjdump not found)";
      return;
    }
    const std::string exe = own_executable();
    if (exe.empty()) {
      reason = "SASS not available (cannot resolve /proc/self/exe)";
      return;
    }
    const std::string base = shell_quote(tool) +
                             " -sass -fun cuprim_lab_pred_seed_if,cuprim_lab_pred_seed_ternary,cuprim_lab_pred_if4,"
                             "cuprim_lab_pred_if8,cuprim_lab_pred_ternary8,cuprim_lab_pred_select8 " +
                             shell_quote(exe);
    FILE* p = popen((base + " 2>/dev/null").c_str(), "r");
    if (!p) {
      reason = "SASS not available (cannot run cuobjdump)";
      return;
    }
    std::string cur;
    std::vector<std::string> lines;
    char buf[1024];
    auto flush = [&] {
      if (cur.empty()) return;
      sass_facts f;
      f.found = true;
      for (const std::string& l : lines) {
        // "/*0150*/  @!P0 BRA 0x290 ;": forward when the target lies after the instruction (the self-loop after
        // the final EXIT and a loop's back edge do not).
        const auto at = l.find(" BRA ");
        const bool bra = at != std::string::npos;
        if (bra) {
          const auto a0 = l.find("/*");
          const unsigned long own = std::strtoul(l.c_str() + a0 + 2, nullptr, 16);
          const unsigned long target = std::strtoul(l.c_str() + at + 5, nullptr, 16);
          if (target > own) ++f.branches;
        }
        if (l.find(" BSSY ") != std::string::npos) ++f.sync;
        if (l.find(" SEL ") != std::string::npos || l.find(" FSEL ") != std::string::npos) ++f.selects;
        if ((l.find("@P") != std::string::npos || l.find("@!P") != std::string::npos) && !bra &&
            l.find("EXIT") == std::string::npos)
          ++f.predicated;
        f.listing += l + "\n";
      }
      facts[cur] = f;
      lines.clear();
    };
    while (std::fgets(buf, sizeof buf, p)) {
      std::string l(buf);
      if (!l.empty() && l.back() == '\n') l.pop_back();
      if (auto at = l.find("Function : "); at != std::string::npos) {
        flush();
        cur = l.substr(at + 11);
        continue;
      }
      if (!cur.empty() && l.find("/*") != std::string::npos && l.find(";") != std::string::npos) lines.push_back(l);
    }
    flush();
    const int status = pclose(p);
    if (facts.empty()) {
      // Why: cuobjdump's first message, from a second run that keeps only its stderr (read separately, so that the
      // listing above is never interleaved with it).
      std::string complaint;
      if (FILE* e = popen((base + " 2>&1 >/dev/null").c_str(), "r")) {
        while (std::fgets(buf, sizeof buf, e)) {
          std::string l(buf);
          if (!l.empty() && l.back() == '\n') l.pop_back();
          if (complaint.empty() && !l.empty() && l.find("--function") == std::string::npos) complaint = l;
        }
        pclose(e);
      }
      const std::string how = status != -1 && WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                                                  : "wait status " + std::to_string(status);
      reason = "SASS not available (cuobjdump on " + exe + ": " + how + ", no listing" +
               (complaint.empty() ? std::string() : ": " + complaint) + ")";
    }
  });
  why = reason;
  return facts;
}

/// "branched: 32 BRA, 32 BSSY; 0 SEL, 12 predicated" for one kernel.
std::string sass_summary(const std::string& kernel) {
  std::string why;
  const auto& facts = predication_sass(why);
  auto it = facts.find(kernel);
  if (it == facts.end()) return why.empty() ? "SASS not available (" + kernel + " not in the listing)" : why;
  const sass_facts& f = it->second;
  std::ostringstream o;
  o << kernel << " SASS: " << (f.branches ? "BRANCHED" : "no branch (predicated / select)") << " ("
    << f.branches << " forward BRA, " << f.sync << " BSSY, " << f.selects << " SEL/FSEL, " << f.predicated << " guarded instructions)";
  return o.str();
}

constexpr std::int64_t pred_seed_n = pow2(26);
constexpr std::int64_t pred_body_n = pow2(24);

case_def pred_seed_case(bool ternary) {
  case_def d;
  const std::string v = ternary ? "ternary" : "if-else";
  d.name = "warp/predication/seed/" + v + "/int32/" + size_label(pred_seed_n);
  d.family = "warp";
  d.op = "predication/seed";
  d.variant = v;
  d.dtype = "int32";
  d.n = pred_seed_n;
  d.bytes = 8.0 * double(pred_seed_n);
  d.setup = [ternary]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory out;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::int32, pred_seed_n);
    st->out = device_memory(std::size_t(pred_seed_n) * sizeof(int));
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, ternary](cudaStream_t s, int rep) {
      const unsigned blocks = unsigned(pred_seed_n / 256);
      if (ternary) cuprim_lab_pred_seed_ternary<<<blocks, 256, 0, s>>>(st->in->slice<int>(rep), st->out.as<int>(), 0);
      else cuprim_lab_pred_seed_if<<<blocks, 256, 0, s>>>(st->in->slice<int>(rep), st->out.as<int>(), 0);
      launch_check("launch of a predication kernel");
    };
    b.verify = [st, ternary, run = b.run] {
      st->out.poison();
      run(0, 0);
      sync_check("cudaDeviceSynchronize (verify)");
      const auto got = to_host(st->out.as<int>(), std::size_t(pred_seed_n));
      const auto x = st->in->host<int>();
      std::int64_t bad = 0;
      for (std::int64_t i = 0; i < pred_seed_n; ++i) bad += got[std::size_t(i)] != (x[std::size_t(i)] < 0 ? 1 : 2);
      verify_result v;
      v.ok = bad == 0;
      if (bad) v.detail = std::to_string(bad) + " elements differ";
      v.observed = sass_summary(ternary ? "cuprim_lab_pred_seed_ternary" : "cuprim_lab_pred_seed_if");
      return v;
    };
    return b;
  };
  return d;
}

enum class body { if4, if8, ternary8, select8 };

case_def pred_body_case(body k, bool coherent) {
  const char* kname = k == body::if4        ? "cuprim_lab_pred_if4"
                      : k == body::if8      ? "cuprim_lab_pred_if8"
                      : k == body::ternary8 ? "cuprim_lab_pred_ternary8"
                                            : "cuprim_lab_pred_select8";
  const char* label = k == body::if4 ? "if-4fma" : k == body::if8 ? "if-8fma" : k == body::ternary8 ? "ternary-8fma"
                                                                                                    : "select-8fma";
  const int m = k == body::if4 ? 4 : 8;
  case_def d;
  d.name = std::string("warp/predication/") + label + "/" + (coherent ? "coherent" : "random") + "/float/" +
           size_label(pred_body_n);
  d.family = "warp";
  d.op = std::string("predication/") + (coherent ? "coherent" : "random");
  d.variant = label;
  d.dtype = "float";
  d.n = pred_body_n;
  d.flops = 2.0 * double(pred_body_n) * pred_iters * m;  // the FMAs one side needs
  d.setup = [=]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in, bits;
      device_memory out;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::float32, pred_body_n);
    st->bits = random_input(dtype::uint32, pred_body_n, 7);
    st->out = device_memory(std::size_t(pred_body_n) * sizeof(float));
    const unsigned lane_mask = coherent ? 0u : 31u;
    bench b;
    b.run = [st, k, lane_mask](cudaStream_t s, int) {
      const unsigned blocks = unsigned(pred_body_n / 256);
      const float* in = st->in->slice<float>(0);
      const unsigned* bits = st->bits->slice<unsigned>(0);
      float* out = st->out.as<float>();
      switch (k) {
        case body::if4: cuprim_lab_pred_if4<<<blocks, 256, 0, s>>>(in, bits, out, lane_mask, pred_iters); break;
        case body::if8: cuprim_lab_pred_if8<<<blocks, 256, 0, s>>>(in, bits, out, lane_mask, pred_iters); break;
        case body::ternary8:
          cuprim_lab_pred_ternary8<<<blocks, 256, 0, s>>>(in, bits, out, lane_mask, pred_iters);
          break;
        case body::select8: cuprim_lab_pred_select8<<<blocks, 256, 0, s>>>(in, bits, out, lane_mask, pred_iters); break;
      }
      launch_check("launch of a predication kernel");
    };
    b.verify = [st, m, lane_mask, kname, run = b.run] {
      st->out.poison();
      run(0, 0);
      sync_check("cudaDeviceSynchronize (verify)");
      const auto got = to_host(st->out.as<float>(), std::size_t(pred_body_n));
      const auto x = st->in->host<float>();
      const auto bits = st->bits->host<unsigned>();
      verify_result v;
      v.detail = compare_sampled(got, pred_body_n, [&](std::int64_t i) {
        const unsigned w = bits[std::size_t((i & ~std::int64_t(31)) + ((i & 31) & lane_mask))];
        float y = x[std::size_t(i)];
        for (int r = 0; r < pred_iters; ++r) {
          const bool a = (w >> (r & 31)) & 1u;
          y = m == 4 ? (a ? side_a<4>(y) : side_b<4>(y)) : (a ? side_a<8>(y) : side_b<8>(y));
        }
        return y;
      });
      v.ok = v.detail.empty();
      v.observed = sass_summary(kname);
      return v;
    };
    return b;
  };
  return d;
}

// ---------------------------------------------------------------------------------------------------------
// Independent thread scheduling.

/// How many times a race row runs its kernel while verifying (CUPRIM_LAB_RACE_RUNS overrides: 1 under
/// compute-sanitizer racecheck).
int race_runs(int dflt) {
  if (const char* e = std::getenv("CUPRIM_LAB_RACE_RUNS")) {
    const int v = std::atoi(e);
    if (v >= 1) return v;
  }
  return dflt;
}

/// The seed's A/B/C/D/Z: lanes 0-3 run A then B, the others C then D, each leaving a value in shared memory; Z
/// reads the neighbouring lane's value. Without __syncwarp Z's read races with the neighbour's write (nothing orders
/// them under independent thread scheduling); with it the warp reconverges and the writes are visible.
template <bool Sync>
__global__ void abcdz_kernel(const float* in, float* out) {
  __shared__ float s[256];
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x & 31u;
  float x = in[i];
  if (lane < 4) {
    x = side_a<8>(x);   // A
    s[threadIdx.x] = x;               // B
  } else {
    x = side_b<8>(x);   // C
    s[threadIdx.x] = x;                // D
  }
  if constexpr (Sync) __syncwarp();
  const unsigned nb = (threadIdx.x & ~31u) | ((lane + 1) & 31u);
  out[i] = x + s[nb];  // Z
}

float abcdz_lane_value(float x, unsigned lane) {
  return lane < 4 ? side_a<8>(x) : side_b<8>(x);
}

case_def abcdz_case(bool sync, std::int64_t n) {
  case_def d;
  const std::string v = sync ? "syncwarp" : "no-syncwarp";
  d.name = "warp/its/abcdz/" + v + "/float/" + size_label(n);
  d.family = "warp";
  d.op = "its/abcdz";
  d.variant = v;
  d.dtype = "float";
  d.n = n;
  d.bytes = 8.0 * double(n);
  d.setup = [=]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory out;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::float32, n);
    st->out = device_memory(std::size_t(n) * sizeof(float));
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, sync, n](cudaStream_t s, int rep) {
      if (sync) abcdz_kernel<true><<<unsigned(n / 256), 256, 0, s>>>(st->in->slice<float>(rep), st->out.as<float>());
      else abcdz_kernel<false><<<unsigned(n / 256), 256, 0, s>>>(st->in->slice<float>(rep), st->out.as<float>());
      launch_check("launch of abcdz_kernel");
    };
    b.verify = [st, sync, n, run = b.run] {
      const auto x = st->in->host<float>();
      std::vector<float> want(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        const unsigned lane = unsigned(i & 31);
        const std::int64_t nb = (i & ~std::int64_t(31)) | ((lane + 1) & 31u);
        want[std::size_t(i)] = abcdz_lane_value(x[std::size_t(i)], lane) +
                               abcdz_lane_value(x[std::size_t(nb)], unsigned(nb & 31));
      }
      const int runs = race_runs(10);
      std::int64_t wrong = 0, wrong_runs = 0;
      for (int r = 0; r < runs; ++r) {
        st->out.poison();
        run(0, 0);
        sync_check("cudaDeviceSynchronize (verify)");
        const auto got = to_host(st->out.as<float>(), std::size_t(n));
        std::int64_t w = 0;
        for (std::int64_t i = 0; i < n; ++i) w += std::memcmp(&got[std::size_t(i)], &want[std::size_t(i)], 4) != 0;
        wrong += w;
        wrong_runs += w != 0;
      }
      verify_result v;
      std::ostringstream o;
      o << wrong << " wrong of " << std::int64_t(runs) * n << " outputs (" << wrong_runs << " of " << runs
        << " runs with any)";
      v.observed = o.str();
      // The synchronised form must be right; the racy one is a demonstration: what it produced is its result.
      v.ok = !sync || wrong == 0;
      if (!v.ok) v.detail = v.observed;
      return v;
    };
    return b;
  };
  return d;
}

/// A block sum of 256 ints: shared-memory tree with __syncthreads down to 64 values, then the last warp.
/// Form 0: the pre-Volta warp-synchronous idiom (volatile, no __syncwarp): racy under independent thread scheduling.
/// Form 1: the same with __syncwarp between each step's read and write. Form 2: shuffles.
template <int Form>
__global__ void block_sum_kernel(const int* in, int* out) {
  __shared__ int sdata[256];
  const unsigned tid = threadIdx.x;
  sdata[tid] = in[std::size_t(blockIdx.x) * 256 + tid];
  __syncthreads();
  if (tid < 128) sdata[tid] += sdata[tid + 128];
  __syncthreads();
  if (tid < 64) sdata[tid] += sdata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    if constexpr (Form == 0) {
      volatile int* v = sdata;
      v[tid] = v[tid] + v[tid + 32];
      v[tid] = v[tid] + v[tid + 16];
      v[tid] = v[tid] + v[tid + 8];
      v[tid] = v[tid] + v[tid + 4];
      v[tid] = v[tid] + v[tid + 2];
      v[tid] = v[tid] + v[tid + 1];
    } else if constexpr (Form == 1) {
      int t = sdata[tid] + sdata[tid + 32];
      __syncwarp();
      sdata[tid] = t;
      __syncwarp();
#pragma unroll
      for (int off = 16; off > 0; off /= 2) {
        t += sdata[tid + off];
        __syncwarp();
        sdata[tid] = t;
        __syncwarp();
      }
    } else {
      int t = sdata[tid] + sdata[tid + 32];
#pragma unroll
      for (int off = 16; off > 0; off /= 2) t += __shfl_down_sync(full_mask, t, off);
      if (tid == 0) sdata[0] = t;
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
  }
}

case_def block_sum_case(int form, std::int64_t n) {
  const char* label = form == 0 ? "volatile-no-syncwarp" : form == 1 ? "syncwarp" : "shfl";
  case_def d;
  d.name = std::string("warp/its/block-sum/") + label + "/int32/" + size_label(n);
  d.family = "warp";
  d.op = "its/block-sum";
  d.variant = label;
  d.dtype = "int32";
  d.n = n;
  d.bytes = 4.0 * double(n) + 4.0 * double(n / 256);
  d.setup = [=]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory out;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::int32, n);
    st->out = device_memory(std::size_t(n / 256) * sizeof(int));
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, form, n](cudaStream_t s, int rep) {
      const unsigned blocks = unsigned(n / 256);
      const int* in = st->in->slice<int>(rep);
      if (form == 0) block_sum_kernel<0><<<blocks, 256, 0, s>>>(in, st->out.as<int>());
      else if (form == 1) block_sum_kernel<1><<<blocks, 256, 0, s>>>(in, st->out.as<int>());
      else block_sum_kernel<2><<<blocks, 256, 0, s>>>(in, st->out.as<int>());
      launch_check("launch of block_sum_kernel");
    };
    b.verify = [st, form, n, run = b.run] {
      const auto x = st->in->host<int>();
      std::vector<int> want(std::size_t(n / 256), 0);
      for (std::int64_t i = 0; i < n; ++i) want[std::size_t(i / 256)] += x[std::size_t(i)];
      const int runs = race_runs(form == 0 ? 50 : 3);
      std::int64_t wrong = 0, wrong_runs = 0;
      for (int r = 0; r < runs; ++r) {
        st->out.poison();
        run(0, 0);
        sync_check("cudaDeviceSynchronize (verify)");
        const auto got = to_host(st->out.as<int>(), want.size());
        std::int64_t w = 0;
        for (std::size_t k = 0; k < want.size(); ++k) w += got[k] != want[k];
        wrong += w;
        wrong_runs += w != 0;
      }
      verify_result v;
      std::ostringstream o;
      o << wrong << " wrong of " << std::int64_t(runs) * std::int64_t(want.size()) << " block sums (" << wrong_runs
        << " of " << runs << " runs with any)";
      v.observed = o.str();
      v.ok = form == 0 || wrong == 0;  // the racy idiom is the demonstration: its count is its result
      if (!v.ok) v.detail = v.observed;
      return v;
    };
    return b;
  };
  return d;
}

// ---------------------------------------------------------------------------------------------------------
// Shuffles: the four variants with a width, outputs checked against the documented semantics.

enum class shfl { idx, up, down, bxor };
const char* shfl_name(shfl k) {
  return k == shfl::idx ? "idx" : k == shfl::up ? "up" : k == shfl::down ? "down" : "xor";
}
constexpr int shfl_delta = 3;  // up / down
constexpr int shfl_lane_mask = 5;  // xor
__host__ __device__ inline int shfl_src_lane(unsigned lane) { return int((lane * 7u + 3u) & 31u); }  // idx

template <shfl K>
__global__ void shuffle_kernel(const int* in, int* out, int width) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const int v = in[i];
  int r;
  if constexpr (K == shfl::idx) r = __shfl_sync(full_mask, v, shfl_src_lane(threadIdx.x & 31u), width);
  else if constexpr (K == shfl::up) r = __shfl_up_sync(full_mask, v, shfl_delta, width);
  else if constexpr (K == shfl::down) r = __shfl_down_sync(full_mask, v, shfl_delta, width);
  else r = __shfl_xor_sync(full_mask, v, shfl_lane_mask, width);
  out[i] = r;
}

/// The lane whose value lane `lane` receives (CUDA C++ Programming Guide, warp shuffle functions): within segments
/// of `width` lanes; up/down keep their own value when the source falls outside the segment.
int shfl_source(shfl k, int lane, int width) {
  const int base = lane & ~(width - 1), pos = lane - base;
  switch (k) {
    case shfl::idx: return base + shfl_src_lane(unsigned(lane)) % width;
    case shfl::up: return pos >= shfl_delta ? lane - shfl_delta : lane;
    case shfl::down: return pos + shfl_delta < width ? lane + shfl_delta : lane;
    case shfl::bxor: {
      const int src = lane ^ shfl_lane_mask;
      return src < base + width ? src : lane;  // a later segment: own value
    }
  }
  return lane;
}

constexpr std::int64_t shfl_n = pow2(24);

case_def shuffle_case(shfl k, int width) {
  case_def d;
  d.name = std::string("warp/shuffle/") + shfl_name(k) + "/width" + std::to_string(width) + "/int32/" +
           size_label(shfl_n);
  d.family = "warp";
  d.op = std::string("shuffle/") + shfl_name(k);
  d.variant = "width " + std::to_string(width);
  d.dtype = "int32";
  d.n = shfl_n;
  d.bytes = 8.0 * double(shfl_n);
  d.setup = [=]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory out;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::int32, shfl_n);
    st->out = device_memory(std::size_t(shfl_n) * sizeof(int));
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, k, width](cudaStream_t s, int rep) {
      const unsigned blocks = unsigned(shfl_n / 256);
      const int* in = st->in->slice<int>(rep);
      int* out = st->out.as<int>();
      switch (k) {
        case shfl::idx: shuffle_kernel<shfl::idx><<<blocks, 256, 0, s>>>(in, out, width); break;
        case shfl::up: shuffle_kernel<shfl::up><<<blocks, 256, 0, s>>>(in, out, width); break;
        case shfl::down: shuffle_kernel<shfl::down><<<blocks, 256, 0, s>>>(in, out, width); break;
        case shfl::bxor: shuffle_kernel<shfl::bxor><<<blocks, 256, 0, s>>>(in, out, width); break;
      }
      launch_check("launch of shuffle_kernel");
    };
    b.verify = [st, k, width, run = b.run] {
      st->out.poison();
      run(0, 0);
      sync_check("cudaDeviceSynchronize (verify)");
      const auto got = to_host(st->out.as<int>(), std::size_t(shfl_n));
      const auto x = st->in->host<int>();
      std::int64_t bad = 0, first = -1;
      for (std::int64_t i = 0; i < shfl_n; ++i) {
        const std::int64_t src = (i & ~std::int64_t(31)) + shfl_source(k, int(i & 31), width);
        if (got[std::size_t(i)] != x[std::size_t(src)] && bad++ == 0) first = i;
      }
      verify_result v;
      v.ok = bad == 0;
      if (bad) v.detail = std::to_string(bad) + " outputs differ; first at " + std::to_string(first);
      return v;
    };
    return b;
  };
  return d;
}

// Warp sums in a compute-bound loop: each iteration sums the warp's 32 values and feeds the sum back.
enum class wsum { shfl_down, shfl_xor, shared };
const char* wsum_name(wsum k) { return k == wsum::shfl_down ? "shfl-down" : k == wsum::shfl_xor ? "shfl-xor" : "shared"; }

template <wsum K>
__global__ void warp_sum_kernel(const unsigned* in, unsigned* out, int iters) {
  __shared__ unsigned s[256];
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x & 31u, base = threadIdx.x & ~31u;
  unsigned x = in[i];
  for (int r = 0; r < iters; ++r) {
    unsigned t = x;
    if constexpr (K == wsum::shfl_down) {
      for (int off = 16; off > 0; off /= 2) t += __shfl_down_sync(full_mask, t, off);
      t = __shfl_sync(full_mask, t, 0);  // the seed's down sum leaves the total in lane 0: broadcast it
    } else if constexpr (K == wsum::shfl_xor) {
      for (int off = 16; off > 0; off /= 2) t += __shfl_xor_sync(full_mask, t, off);
    } else {
      s[threadIdx.x] = t;
      __syncwarp();
      for (unsigned off = 16; off > 0; off /= 2) {
        const unsigned o = s[base + ((lane + off) & 31u)];
        __syncwarp();
        t += o;
        s[threadIdx.x] = t;
        __syncwarp();
      }
      t = s[base];
      __syncwarp();
    }
    x = t + lane * 2654435761u;  // the next iteration's value depends on this sum
  }
  out[i] = x;
}

constexpr std::int64_t wsum_threads = pow2(20);
constexpr int wsum_iters = 256;

case_def warp_sum_case(wsum k) {
  case_def d;
  d.name = std::string("warp/sum/") + wsum_name(k) + "/uint32/" + size_label(wsum_threads);
  d.family = "warp";
  d.op = "warp-sum";
  d.variant = wsum_name(k);
  d.dtype = "uint32";
  d.n = wsum_threads;
  const double sums = double(wsum_threads / 32) * wsum_iters;
  d.flops = 31.0 * sums;  // additions a warp sum stands for
  d.setup = [k, sums]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory out;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::uint32, wsum_threads);
    st->out = device_memory(std::size_t(wsum_threads) * sizeof(unsigned));
    bench b;
    b.run = [st, k](cudaStream_t s, int) {
      const unsigned blocks = unsigned(wsum_threads / 256);
      const unsigned* in = st->in->slice<unsigned>(0);
      unsigned* out = st->out.as<unsigned>();
      if (k == wsum::shfl_down) warp_sum_kernel<wsum::shfl_down><<<blocks, 256, 0, s>>>(in, out, wsum_iters);
      else if (k == wsum::shfl_xor) warp_sum_kernel<wsum::shfl_xor><<<blocks, 256, 0, s>>>(in, out, wsum_iters);
      else warp_sum_kernel<wsum::shared><<<blocks, 256, 0, s>>>(in, out, wsum_iters);
      launch_check("launch of warp_sum_kernel");
    };
    b.verify = [st, sums, run = b.run] {
      st->out.poison();
      run(0, 0);
      sync_check("cudaDeviceSynchronize (verify)");
      const auto got = to_host(st->out.as<unsigned>(), std::size_t(wsum_threads));
      const auto x = st->in->host<unsigned>();
      std::int64_t bad = 0, checked = 0;
      for (std::int64_t w = 0; w < wsum_threads / 32; w += 97) {  // every 97th warp, all its lanes
        std::array<unsigned, 32> v;
        for (int l = 0; l < 32; ++l) v[std::size_t(l)] = x[std::size_t(w * 32 + l)];
        for (int r = 0; r < wsum_iters; ++r) {
          unsigned t = 0;
          for (unsigned u : v) t += u;
          for (int l = 0; l < 32; ++l) v[std::size_t(l)] = t + unsigned(l) * 2654435761u;
        }
        for (int l = 0; l < 32; ++l) bad += got[std::size_t(w * 32 + l)] != v[std::size_t(l)];
        checked += 32;
      }
      verify_result v;
      v.ok = bad == 0;
      if (bad) v.detail = std::to_string(bad) + " of " + std::to_string(checked) + " sampled lanes differ";
      std::ostringstream o;
      o << sums << " warp sums per call (divide the median by it for the time per warp sum, all SMs busy)";
      v.observed = o.str();
      return v;
    };
    return b;
  };
  return d;
}

// Votes: __all_sync / __any_sync / __ballot_sync, each warp's answer compacted into one word (the seed's
// voteAllKernel: a 32x reduction of the predicates).
enum class vote { all, any, ballot };
const char* vote_name(vote k) { return k == vote::all ? "all" : k == vote::any ? "any" : "ballot"; }
/// The predicate of a random word: all: true unless its low 10 bits are 0 (most warps vote true); any: true only
/// when they are (most warps vote false); ballot: bit 0.
__host__ __device__ inline bool vote_pred(vote k, unsigned v) {
  return k == vote::all ? (v & 1023u) != 0 : k == vote::any ? (v & 1023u) == 0 : (v & 1u) != 0;
}

template <vote K>
__global__ void vote_kernel(const unsigned* input, unsigned* result) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool p = vote_pred(K, input[i]);
  unsigned r;
  if constexpr (K == vote::all) r = unsigned(__all_sync(full_mask, p));
  else if constexpr (K == vote::any) r = unsigned(__any_sync(full_mask, p));
  else r = __ballot_sync(full_mask, p);
  if ((threadIdx.x & 31u) == 0) result[i / 32] = r;
}

constexpr std::int64_t vote_n = pow2(26);

case_def vote_case(vote k) {
  case_def d;
  d.name = std::string("warp/vote/") + vote_name(k) + "/uint32/" + size_label(vote_n);
  d.family = "warp";
  d.op = "vote";
  d.variant = std::string(vote_name(k)) + (k == vote::all ? " (voteAllKernel)" : "");
  d.dtype = "uint32";
  d.n = vote_n;
  d.bytes = 4.0 * double(vote_n) + 4.0 * double(vote_n / 32);
  d.setup = [k]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory out;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::uint32, vote_n);
    st->out = device_memory(std::size_t(vote_n / 32) * sizeof(unsigned));
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, k](cudaStream_t s, int rep) {
      const unsigned blocks = unsigned(vote_n / 256);
      const unsigned* in = st->in->slice<unsigned>(rep);
      unsigned* out = st->out.as<unsigned>();
      if (k == vote::all) vote_kernel<vote::all><<<blocks, 256, 0, s>>>(in, out);
      else if (k == vote::any) vote_kernel<vote::any><<<blocks, 256, 0, s>>>(in, out);
      else vote_kernel<vote::ballot><<<blocks, 256, 0, s>>>(in, out);
      launch_check("launch of vote_kernel");
    };
    b.verify = [st, k, run = b.run] {
      st->out.poison();
      run(0, 0);
      sync_check("cudaDeviceSynchronize (verify)");
      const auto got = to_host(st->out.as<unsigned>(), std::size_t(vote_n / 32));
      const auto x = st->in->host<unsigned>();
      std::int64_t bad = 0, ones = 0;
      for (std::int64_t w = 0; w < vote_n / 32; ++w) {
        unsigned bits = 0;
        for (int l = 0; l < 32; ++l) bits |= unsigned(vote_pred(k, x[std::size_t(w * 32 + l)])) << l;
        const unsigned want = k == vote::all ? unsigned(bits == full_mask) : k == vote::any ? unsigned(bits != 0) : bits;
        bad += got[std::size_t(w)] != want;
        ones += want != 0;
      }
      verify_result v;
      v.ok = bad == 0;
      if (bad) v.detail = std::to_string(bad) + " warp words differ";
      if (k != vote::ballot)
        v.observed = std::to_string(ones) + " of " + std::to_string(vote_n / 32) + " warps voted true";
      return v;
    };
    return b;
  };
  return d;
}

}  // namespace

void register_warp() {
  const std::string nt = "/float/" + size_label(div_threads);
  // The seed's a_kernel (blockIdx.x % 2: coherent) and b_kernel (threadIdx.x % 2: divergent), beside no branch.
  add_case(divergence_case("warp/divergence/none" + nt, "divergence", "no branch (path b only)", cond::none, 256, 1));
  add_case(divergence_case("warp/divergence/coherent" + nt, "divergence", "blockIdx.x%2 (coherent)",
                           cond::block_parity, 256, 1));
  add_case(divergence_case("warp/divergence/divergent" + nt, "divergence", "threadIdx.x%2 (divergent)",
                           cond::thread_parity, 256, 1));
  for (int ways : {1, 2, 4, 8, 16, 32}) add_case(ways_case(ways));
  // 2-D blocks: the ways per warp come from the shape (computed on the host, shown in the variant).
  for (auto [bx, by] : {std::pair{32, 8}, std::pair{16, 16}, std::pair{8, 32}, std::pair{4, 64}}) {
    for (cond c : {cond::y_parity, cond::y_div4}) {
      const auto [most, mean] = ways_per_warp(c, bx, by);
      std::ostringstream v;
      v << cond_name(c) << " " << bx << "x" << by << " (ways/warp max " << most << " mean " << mean << ")";
      add_case(divergence_case("warp/divergence/2d/" + std::string(c == cond::y_parity ? "y-mod2" : "y-div4") + "/" +
                                   std::to_string(bx) + "x" + std::to_string(by) + nt,
                               "divergence/2d", v.str(), c, bx, by));
    }
  }

  add_case(pred_seed_case(false));
  add_case(pred_seed_case(true));
  for (bool coherent : {false, true})
    for (body k : {body::if4, body::if8, body::ternary8, body::select8}) add_case(pred_body_case(k, coherent));

  for (bool sync : {false, true}) add_case(abcdz_case(sync, pow2(24)));
  for (int form : {0, 1, 2}) add_case(block_sum_case(form, pow2(24)));
  // Small rows for compute-sanitizer racecheck (the device script verifies each alone): the racy forms and their
  // fixed controls.
  for (bool sync : {false, true}) add_case(abcdz_case(sync, pow2(14)));
  for (int form : {0, 1}) add_case(block_sum_case(form, pow2(14)));

  for (shfl k : {shfl::idx, shfl::up, shfl::down, shfl::bxor})
    for (int width : {32, 8}) add_case(shuffle_case(k, width));
  for (wsum k : {wsum::shfl_down, wsum::shfl_xor, wsum::shared}) add_case(warp_sum_case(k));
  for (vote k : {vote::all, vote::any, vote::ballot}) add_case(vote_case(k));

  add_note("warp/", "warp: compute-bound rows count useful FP32 flops (GF: the FMAs a thread needs, not those a "
                    "diverged warp issues; warp sums: 31 additions per warp sum); memory-bound rows count bytes read + "
                    "written; compute rows check an even sample of 4096 threads (or every 97th warp) bit for bit "
                    "against the host, memory rows every element; race rows (its/*no-syncwarp*, volatile) pass "
                    "whatever they produce and report it as 'observed'; docs/warp.md");
}

}  // namespace lab
