// lab/ooc.cu: `cuprim-lab ooc`, the out-of-core rows: cuprim::ooc reduce, histogram, inclusive scan and
// select_if over host arrays of several GiB, each beside the bandwidth reference it is judged against, measured
// in the same run:
//   pinned H2D           one cudaMemcpyAsync of the whole page-locked input to the device
//   pinned H2D+D2H       that copy and a D2H copy of the same size into page-locked memory, at once on two streams
//                        (bytes of both / time)
//   pageable H2D         one cudaMemcpy of the whole pageable (malloc) input to the device
// Targets (issue 6): reduce and histogram over pinned input ≥ 90% of pinned H2D; inclusive scan pinned → pinned
// ≥ 85% of pinned H2D+D2H (bytes in + out); over pageable input ≥ 1.5× pageable H2D. Issue 27: select_if keeping
// half, pinned → pinned, ≥ 90% of pinned H2D (input bytes).
//
// Data: uint32 values from lab's hash generator (fill_random_host, filled with several threads). Every result is
// checked against a host computation (several threads) once; times are steady_clock around the synchronous call,
// median of --reps after one untimed call (which also fills the staging cache and the device pool).
// Output: a table and, with --json FILE, the document described in docs/ooc.md ("ooc JSON"); both name the
// out-of-core policy the defaults came from (ooc/tuning.hpp).
#include "lab.hpp"

#include <cuprim/ooc.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace lab {
namespace {

using T = std::uint32_t;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// Runs f(lo, hi, t) over [0, n) split across `threads` threads.
void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t, std::size_t, int)>& f) {
  std::vector<std::thread> ts;
  const std::size_t per = (n + std::size_t(threads) - 1) / std::size_t(threads);
  for (int t = 0; t < threads; ++t) {
    const std::size_t lo = std::min(n, per * std::size_t(t)), hi = std::min(n, lo + per);
    ts.emplace_back(f, lo, hi, t);
  }
  for (auto& x : ts) x.join();
}

struct row {
  std::string name, reference, target;
  double seconds = 0, bytes = 0, gbps = 0, ref_gbps = 0, ratio = 0, goal = 0;
  bool correct = true, met = false;
  std::string plan;
};

struct below_half {
  __host__ __device__ bool operator()(const T& x) const { return x < (1u << 31); }
};

std::string plan_text(const cuprim::ooc::options& o) {
  std::string s;
  using cuprim::ooc::issue_order;
  s += o.order == issue_order::by_stage ? "by_stage" : o.order == issue_order::by_chunk ? "by_chunk" : "default";
  if (o.chunk_bytes) s += ", chunk " + std::to_string(o.chunk_bytes >> 20) + " MiB";
  if (o.streams) s += ", " + std::to_string(o.streams) + " streams";
  return s;
}

}  // namespace

int run_ooc_study(int argc, char** argv) {
  std::string json;
  double gib = 8;
  int reps = 3;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json" && i + 1 < argc) json = argv[++i];
    else if (a == "--gib" && i + 1 < argc) gib = std::atof(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: cuprim-lab ooc [--gib G (8)] [--reps N (3)] [--json FILE]\n");
      return 2;
    }
  }
  check(cudaSetDevice(0), "cudaSetDevice");
  const environment env = record_environment(true);
  const policy_record policy = record_policy(cuprim::ooc::ooc_policy_for(cuprim::current_tuned_arch()));
  const int threads = int(std::max(2u, std::min(16u, std::thread::hardware_concurrency())));
  const std::size_t n = std::size_t(gib * double(std::size_t(1) << 30)) / sizeof(T);
  const std::size_t bytes = n * sizeof(T);
  std::fprintf(stderr, "ooc study: %zu elements (%.2f GiB) per array, %d host threads\n", n, double(bytes) / (1 << 30),
               threads);

  double t0 = now_s();
  T* pin_in = nullptr;
  T* pin_out = nullptr;
  check(cudaHostAlloc(reinterpret_cast<void**>(&pin_in), bytes, cudaHostAllocDefault), "cudaHostAlloc (in)");
  check(cudaHostAlloc(reinterpret_cast<void**>(&pin_out), bytes, cudaHostAllocDefault), "cudaHostAlloc (out)");
  const double pin_alloc_s = now_s() - t0;
  T* pag_in = static_cast<T*>(std::malloc(bytes));
  T* pag_out = static_cast<T*>(std::malloc(bytes));
  if (!pag_in || !pag_out) throw std::runtime_error("malloc failed");
  t0 = now_s();
  parallel_for(n, threads, [&](std::size_t lo, std::size_t hi, int) {
    fill_random_host(dtype::uint32, pin_in + lo, hi - lo, 42, lo);
    std::memcpy(pag_in + lo, pin_in + lo, (hi - lo) * sizeof(T));
    std::memset(pag_out + lo, 0, (hi - lo) * sizeof(T));
    std::memset(pin_out + lo, 0, (hi - lo) * sizeof(T));
  });
  std::fprintf(stderr, "2 x %.1f GiB pinned allocated in %.2f s; filled in %.2f s\n", double(bytes) / (1 << 30),
               pin_alloc_s, now_s() - t0);

  // Host references: the sum, the histogram (256 bins: the top byte), per-thread partial sums for the scan check.
  std::vector<unsigned long long> part(std::size_t(threads), 0);
  std::vector<std::vector<unsigned long long>> hpart(std::size_t(threads), std::vector<unsigned long long>(256, 0));
  std::vector<std::size_t> bounds(std::size_t(threads) + 1, n);
  parallel_for(n, threads, [&](std::size_t lo, std::size_t hi, int t) {
    unsigned long long s = 0;
    auto& h = hpart[std::size_t(t)];
    for (std::size_t i = lo; i < hi; ++i) {
      s += pin_in[i];
      ++h[pin_in[i] >> 24];
    }
    part[std::size_t(t)] = s;
    bounds[std::size_t(t)] = lo;
  });
  unsigned long long ref_sum = 0;
  std::vector<unsigned long long> ref_hist(256, 0);
  for (int t = 0; t < threads; ++t) {
    ref_sum += part[std::size_t(t)];
    for (int b = 0; b < 256; ++b) ref_hist[std::size_t(b)] += hpart[std::size_t(t)][std::size_t(b)];
  }
  auto check_scan = [&](const T* out) {
    std::vector<char> ok(std::size_t(threads), 1);
    parallel_for(n, threads, [&](std::size_t lo, std::size_t hi, int t) {
      T run = 0;
      for (int u = 0; u < t; ++u) run += T(part[std::size_t(u)]);  // wraps mod 2^32 like the scan
      for (std::size_t i = lo; i < hi; ++i) {
        run += pin_in[i];
        if (out[i] != run) {
          ok[std::size_t(t)] = 0;
          return;
        }
      }
    });
    return std::all_of(ok.begin(), ok.end(), [](char c) { return c != 0; });
  };

  // Bandwidth references (same run).
  device_memory d_a(bytes), d_b(bytes);
  check(cudaMemset(d_b.get(), 3, bytes), "cudaMemset");
  cudaStream_t s1, s2;
  check(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), "cudaStreamCreate");
  auto time_reps = [&](const std::function<void()>& f) {
    f();  // untimed: warm-up, staging cache, pool
    std::vector<double> v;
    for (int r = 0; r < reps; ++r) {
      const double a = now_s();
      f();
      v.push_back(now_s() - a);
    }
    return median(v);
  };
  const double h2d_s = time_reps([&] {
    check(cudaMemcpyAsync(d_a.get(), pin_in, bytes, cudaMemcpyHostToDevice, s1), "H2D");
    check(cudaStreamSynchronize(s1), "sync");
  });
  const double both_s = time_reps([&] {
    check(cudaMemcpyAsync(d_a.get(), pin_in, bytes, cudaMemcpyHostToDevice, s1), "H2D");
    check(cudaMemcpyAsync(pin_out, d_b.get(), bytes, cudaMemcpyDeviceToHost, s2), "D2H");
    check(cudaStreamSynchronize(s1), "sync");
    check(cudaStreamSynchronize(s2), "sync");
  });
  const double pageable_s =
      time_reps([&] { check(cudaMemcpy(d_a.get(), pag_in, bytes, cudaMemcpyHostToDevice), "pageable H2D"); });
  const double h2d = double(bytes) / h2d_s / 1e9, both = 2.0 * double(bytes) / both_s / 1e9,
               pageable = double(bytes) / pageable_s / 1e9;
  std::fprintf(stderr, "references: pinned H2D %.2f GB/s, pinned H2D+D2H %.2f GB/s, pageable H2D %.2f GB/s\n", h2d,
               both, pageable);

  std::vector<row> rows;
  auto add = [&](std::string name, double secs, double moved, const char* ref_name, double ref, double goal,
                 bool correct, const cuprim::ooc::options& o, bool ratio_is_speedup) {
    row r;
    r.name = std::move(name);
    r.seconds = secs;
    r.bytes = moved;
    r.gbps = moved / secs / 1e9;
    r.reference = ref_name;
    r.ref_gbps = ref;
    r.ratio = r.gbps / ref;
    r.goal = goal;
    r.met = goal > 0 && r.ratio >= goal;
    r.correct = correct;
    r.target = goal <= 0          ? "-"
               : ratio_is_speedup ? ">= " + std::to_string(goal).substr(0, 4) + "x"
                                  : ">= " + std::to_string(int(goal * 100)) + "%";
    r.plan = plan_text(o);
    std::fprintf(stderr, "%-40s %8.3f s %8.2f GB/s  %.3f of %s  %s%s\n", r.name.c_str(), secs, r.gbps, r.ratio,
                 ref_name, correct ? "" : "WRONG ", goal > 0 ? (r.met ? "met" : "MISSED") : "");
    rows.push_back(std::move(r));
  };

  for (auto order : {cuprim::ooc::issue_order::by_chunk, cuprim::ooc::issue_order::by_stage}) {
    cuprim::ooc::options o;
    o.order = order;
    unsigned long long s = 0;
    const double t = time_reps([&] { cuprim::ooc::reduce(pin_in, &s, std::int64_t(n), cuprim::plus{}, 0ull, o); });
    add(std::string("reduce sum pinned ") + plan_text(o), t, double(bytes), "pinned H2D", h2d, 0.90, s == ref_sum, o,
        false);
  }
  {
    cuprim::ooc::options o;
    std::vector<unsigned long long> hist(256);
    const double t = time_reps([&] {
      cuprim::ooc::histogram_even(pin_in, std::int64_t(n), hist.data(), 256, 0ll, 1ll << 32, o);
    });
    add("histogram_even 256 bins pinned", t, double(bytes), "pinned H2D", h2d, 0.90, hist == ref_hist, o, false);
  }
  for (auto order : {cuprim::ooc::issue_order::by_chunk, cuprim::ooc::issue_order::by_stage}) {
    cuprim::ooc::options o;
    o.order = order;
    const double t =
        time_reps([&] { cuprim::ooc::inclusive_scan(pin_in, pin_out, std::int64_t(n), cuprim::plus{}, o); });
    add(std::string("inclusive_scan pinned->pinned ") + plan_text(o), t, 2.0 * double(bytes), "pinned H2D+D2H", both,
        0.85, check_scan(pin_out), o, false);
  }
  {
    cuprim::ooc::options o;
    unsigned long long s = 0;
    const double t = time_reps([&] { cuprim::ooc::reduce(pag_in, &s, std::int64_t(n), cuprim::plus{}, 0ull, o); });
    add("reduce sum pageable", t, double(bytes), "pageable H2D", pageable, 1.5, s == ref_sum, o, true);
    std::vector<unsigned long long> hist(256);
    const double th = time_reps([&] {
      cuprim::ooc::histogram_even(pag_in, std::int64_t(n), hist.data(), 256, 0ll, 1ll << 32, o);
    });
    add("histogram_even 256 bins pageable", th, double(bytes), "pageable H2D", pageable, 1.5, hist == ref_hist, o,
        true);
    const double ts =
        time_reps([&] { cuprim::ooc::inclusive_scan(pag_in, pag_out, std::int64_t(n), cuprim::plus{}, o); });
    add("inclusive_scan pageable->pageable", ts, double(bytes), "pageable H2D", pageable, 0, check_scan(pag_out), o,
        true);
  }
  {
    // Keeps the values below 2^31, about half: the items come back to their place in out by DMA (pinned out) or
    // through staging (pageable out). Checked: the count, and every item kept in order (below_half, sampled).
    std::int64_t ref_k = 0;
    for (int b = 0; b < 128; ++b) ref_k += std::int64_t(ref_hist[std::size_t(b)]);
    auto check_select = [&](const T* out, std::int64_t k) {
      if (k != ref_k) return false;
      std::vector<char> ok(std::size_t(threads), 1);
      parallel_for(std::size_t(k), threads, [&](std::size_t lo, std::size_t hi, int t) {
        for (std::size_t i = lo; i < hi; ++i)
          if (!(out[i] < (1u << 31))) {
            ok[std::size_t(t)] = 0;
            return;
          }
      });
      std::size_t j = 0;  // the first 2^20 items, in order, against the input
      for (std::size_t i = 0; i < n && j < (std::size_t(1) << 20) && j < std::size_t(k); ++i)
        if (pin_in[i] < (1u << 31) && out[j++] != pin_in[i]) return false;
      return std::all_of(ok.begin(), ok.end(), [](char c) { return c != 0; });
    };
    cuprim::ooc::options o;
    std::int64_t k = 0;
    const double t = time_reps([&] { cuprim::ooc::select_if(pin_in, pin_out, &k, std::int64_t(n), below_half{}, o); });
    add("select_if 50% pinned->pinned", t, double(bytes), "pinned H2D", h2d, 0.90, check_select(pin_out, k), o, false);
    const double tp = time_reps([&] { cuprim::ooc::select_if(pag_in, pag_out, &k, std::int64_t(n), below_half{}, o); });
    add("select_if 50% pageable->pageable", tp, double(bytes), "pageable H2D", pageable, 0, check_select(pag_out, k), o,
        true);
  }
  // Chunk-size sweep of the pinned reduction (what the default chunk was chosen from).
  for (std::size_t mib : {4, 16, 64, 256}) {
    cuprim::ooc::options o;
    o.chunk_bytes = mib << 20;
    unsigned long long s = 0;
    const double t = time_reps([&] { cuprim::ooc::reduce(pin_in, &s, std::int64_t(n), cuprim::plus{}, 0ull, o); });
    add("reduce sum pinned sweep " + plan_text(o), t, double(bytes), "pinned H2D", h2d, 0, s == ref_sum, o, false);
  }

  std::printf("ooc study on %s, driver %s, commit %s: %.2f GiB per array, median of %d\n", env.device_name.c_str(),
              env.driver.c_str(), env.commit.c_str(), double(bytes) / (1 << 30), reps);
  std::printf("references: pinned H2D %.2f GB/s | pinned H2D+D2H (both at once) %.2f GB/s | pageable H2D %.2f GB/s\n",
              h2d, both, pageable);
  std::printf("policy: %s\n", policy.text.c_str());
  std::printf("%-52s %9s %9s %-16s %7s %7s %-7s %s\n", "row", "seconds", "GB/s", "reference", "ratio", "target", "met",
              "correct");
  bool all_ok = true;
  for (const row& r : rows) {
    std::printf("%-52s %9.4f %9.2f %-16s %7.3f %7s %-7s %s\n", r.name.c_str(), r.seconds, r.gbps, r.reference.c_str(),
                r.ratio, r.target.c_str(), r.goal > 0 ? (r.met ? "yes" : "NO") : "-", r.correct ? "yes" : "NO");
    all_ok = all_ok && r.correct;
  }
  if (!json.empty()) {
    std::FILE* f = std::fopen(json.c_str(), "w");
    if (f) {
      std::fprintf(f,
                   "{\n  \"study\": \"ooc\",\n  \"device\": \"%s\",\n  \"driver\": \"%s\",\n  \"commit\": \"%s\",\n"
                   "  \"tree\": \"%s\",\n  \"changes\": \"%s\",\n  \"date\": \"%s\",\n",
                   env.device_name.c_str(), env.driver.c_str(), env.commit.c_str(), env.tree.c_str(),
                   env.changes.c_str(), env.date.c_str());
      std::fprintf(f, "  \"bytes_per_array\": %zu,\n  \"reps\": %d,\n  \"pinned_alloc_seconds_2_arrays\": %.4f,\n",
                   bytes, reps, pin_alloc_s);
      std::fprintf(f, "  \"policy\": %s,\n", policy.json.c_str());
      std::fprintf(f,
                   "  \"references_gbps\": {\"pinned_h2d\": %.4f, \"pinned_h2d_d2h\": %.4f, \"pageable_h2d\": %.4f},\n",
                   h2d, both, pageable);
      std::fprintf(f, "  \"rows\": [\n");
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const row& r = rows[i];
        std::fprintf(f,
                     "    {\"name\": \"%s\", \"seconds\": %.6f, \"bytes\": %.0f, \"gbps\": %.4f, "
                     "\"reference\": \"%s\", "
                     "\"reference_gbps\": %.4f, \"ratio\": %.4f, \"goal\": %.2f, \"met\": %s, \"correct\": %s}%s\n",
                     r.name.c_str(), r.seconds, r.bytes, r.gbps, r.reference.c_str(), r.ref_gbps, r.ratio, r.goal,
                     r.goal > 0 ? (r.met ? "true" : "false") : "null", r.correct ? "true" : "false",
                     i + 1 < rows.size() ? "," : "");
      }
      std::fprintf(f, "  ]\n}\n");
      std::fclose(f);
    }
  }
  (void)cudaStreamDestroy(s1);
  (void)cudaStreamDestroy(s2);
  cuprim::ooc::trim_staging();
  (void)cudaFreeHost(pin_in);
  (void)cudaFreeHost(pin_out);
  std::free(pag_in);
  std::free(pag_out);
  return all_ok ? 0 : 1;
}

}  // namespace lab
