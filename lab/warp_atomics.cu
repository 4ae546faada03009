// lab/warp_atomics.cu: the atomics/aggregated family: cuprim::warp::atomic_add (warp-aggregated) against plain
// per-thread atomicAdd, interleaved in the same run, in increments per second.
//
// Every case launches 2048 blocks of 256 threads (2^19 threads); each thread adds `value` (1) to its counter 32
// times and keeps the returned old values (xor-folded, so both kernels use the returning atomic, ATOM, not the
// fire-and-forget RED): n = 2^24 increments per call. The patterns (which counter thread t uses):
//   warp-address   t / 32: every lane of a warp on one address, a different address per warp (2^14 counters)
//   grid-address   0: the whole grid on one address
//   distinct       t: every address distinct (2^19 counters)
//   groups-4       t / 4: groups of 4 lanes on one address
//   groups-8       t / 8: groups of 8 lanes on one address
// Rows atomics/aggregated/<type>/<pattern> time warp::atomic_add as shipped (aggregation::uniform_first: one round
// of tests (increasing addresses, one address, one value) before __match_any_sync; every row adds 1, so one address
// per warp takes the shared-counter path: no match, no scan); rows .../<pattern>/match-only,
// /distinct-then-match and /address-first time the other orders, to show what the tests cost or save; rows
// .../{warp,grid}-address/one-lane time the floor of any aggregation (lane 0 adds 32 values, one shuffle returns
// old; no grouping, correct only where a whole warp shares one address). The baseline of every row is the
// per-thread atomic (atomicAdd). The throughput column (GF) counts increments: G increments per second. Targets (the
// summary after the table checks them): one address per warp (warp-address, grid-address) >= 10x the per-thread
// atomics; distinct >= 0.95x.
#include "lab.hpp"

#include <cuprim/warp/atomic.cuh>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace lab {
namespace {

constexpr int block_threads = 256;
constexpr int grid_blocks = 2048;
constexpr std::int64_t total_threads = std::int64_t(block_threads) * grid_blocks;  // 2^19
constexpr int iterations = 32;
constexpr std::int64_t increments = total_threads * iterations;  // 2^24

enum class pattern { warp_address, grid_address, distinct, groups_4, groups_8 };
constexpr pattern all_patterns[] = {pattern::warp_address, pattern::grid_address, pattern::distinct,
                                    pattern::groups_4, pattern::groups_8};

const char* pattern_name(pattern p) {
  switch (p) {
    case pattern::warp_address: return "warp-address";
    case pattern::grid_address: return "grid-address";
    case pattern::distinct: return "distinct";
    case pattern::groups_4: return "groups-4";
    default: return "groups-8";
  }
}

/// Lanes that share a counter (the size of a group of consecutive threads on one address); 0: all threads.
int group_of(pattern p) {
  switch (p) {
    case pattern::warp_address: return 32;
    case pattern::grid_address: return 0;
    case pattern::distinct: return 1;
    case pattern::groups_4: return 4;
    default: return 8;
  }
}

std::int64_t counters_for(pattern p) {
  const int g = group_of(p);
  return g == 0 ? 1 : total_threads / g;
}

enum class how { per_thread, aggregated, match_only, distinct_then_match, address_first, one_lane };

template <class T>
__device__ __forceinline__ unsigned long long bits_of(T x) {
  if constexpr (sizeof(T) == 4) return __builtin_bit_cast(unsigned, x);
  else return __builtin_bit_cast(unsigned long long, x);
}

/// The least that any aggregation of a full warp on one address does, without finding the group: lane 0 adds 32
/// values with one returning atomic and one shuffle hands each lane its old value. Correct only when every lane of
/// the warp names the same address (the warp-address and grid-address patterns); the reference rows' floor.
template <class T>
__device__ __forceinline__ T one_lane_add(T* p, T value) {
  const int lane = cuprim::warp::lane_id();
  T old{};
  if (lane == 0) old = cuprim::warp::detail::hardware_atomic<cuprim::warp::detail::atomic_add_op>(p, T(32) * value);
  old = cuprim::warp::shfl(old, 0);
  return old + T(lane) * value;
}

/// Each thread adds `value` to counters[t >> shift] (shift 31: counter 0) `iterations` times.
template <how H, class T>
__global__ void __launch_bounds__(block_threads) increments_kernel(T* counters, int shift, T value,
                                                                   unsigned long long sentinel, T* sink) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  T* const p = counters + (shift >= 31 ? 0u : t >> shift);
  unsigned long long folded = 0;
  T old{};
  for (int i = 0; i < iterations; ++i) {
    if constexpr (H == how::per_thread)
      old = cuprim::warp::detail::hardware_atomic<cuprim::warp::detail::atomic_add_op>(p, value);  // atomicAdd
    else if constexpr (H == how::aggregated)
      old = cuprim::warp::atomic_add(p, value);
    else if constexpr (H == how::match_only)
      old = cuprim::warp::atomic_add<cuprim::warp::aggregation::match_only>(p, value);
    else if constexpr (H == how::distinct_then_match)
      old = cuprim::warp::atomic_add<cuprim::warp::aggregation::distinct_then_match>(p, value);
    else if constexpr (H == how::address_first)
      old = cuprim::warp::atomic_add<cuprim::warp::aggregation::address_first>(p, value);
    else
      old = one_lane_add(p, value);
    folded ^= bits_of(old) + static_cast<unsigned long long>(i);
  }
  if (folded == sentinel) sink[0] = old;  // keeps the returned values live; practically never taken
}

int shift_of(pattern p) {
  switch (group_of(p)) {
    case 0: return 31;
    case 1: return 0;
    case 4: return 2;
    case 8: return 3;
    default: return 5;
  }
}

template <class T>
struct state {
  device_memory counters, base_counters, sink;
  std::int64_t count = 0;
  int shift = 0;
  T* counters_ptr() const { return counters.as<T>(); }
  T* base_counters_ptr() const { return base_counters.as<T>(); }
  T* sink_ptr() const { return sink.as<T>(); }
};

template <how H, class T>
void launch(T* counters, int shift, T* sink, cudaStream_t s) {
  increments_kernel<H, T><<<grid_blocks, block_threads, 0, s>>>(counters, shift, T(1), 0x5a5a5a5a5a5a5a5aull, sink);
}

/// Zeroes the counters, runs `run` once and checks that every counter holds the increments it received.
template <class T>
std::string check_counts(const device_memory& counters, std::int64_t count, pattern p,
                         const std::function<void()>& run) {
  check(cudaMemset(counters.get(), 0, std::size_t(count) * sizeof(T)), "cudaMemset (counters)");
  run();
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
  const std::vector<T> got = to_host(static_cast<const T*>(counters.get()), std::size_t(count));
  const double per = double(group_of(p) == 0 ? total_threads : group_of(p)) * iterations;
  for (std::int64_t i = 0; i < count; ++i)
    if (double(got[i]) != per) {
      std::ostringstream m;
      m << "counter " << i << " holds " << double(got[i]) << ", expected " << per;
      return m.str();
    }
  return "";
}

template <class T>
void add_row(pattern p, how h) {
  case_def c;
  const std::string base = "atomics/aggregated/" + std::string(name_of<T>()) + "/" + pattern_name(p);
  const char* suffix = h == how::match_only ? "/match-only" : h == how::distinct_then_match ? "/distinct-then-match"
                       : h == how::address_first ? "/address-first" : h == how::one_lane ? "/one-lane" : "";
  c.name = base + suffix;
  c.family = "atomics";
  c.op = std::string("add ") + pattern_name(p);
  c.variant = h == how::match_only ? "warp::atomic_add<match_only>"
              : h == how::distinct_then_match ? "warp::atomic_add<distinct_then_match>"
              : h == how::address_first ? "warp::atomic_add<address_first>"
              : h == how::one_lane ? "one lane: atomicAdd(32 v) + shfl" : "warp::atomic_add";
  c.dtype = name_of<T>();
  c.n = increments;
  c.flops = double(increments);  // the throughput column: increments per second
  c.quick = h == how::aggregated && std::is_same_v<T, std::int32_t> &&
            (p == pattern::warp_address || p == pattern::distinct);
  c.baseline = "per-thread atomicAdd";
  c.setup = [p, h]() -> bench {
    auto st = std::make_shared<state<T>>();
    st->count = counters_for(p);
    st->shift = shift_of(p);
    st->counters = device_memory(std::size_t(st->count) * sizeof(T));
    st->base_counters = device_memory(std::size_t(st->count) * sizeof(T));
    st->sink = device_memory(sizeof(T));
    check(cudaMemset(st->counters.get(), 0, std::size_t(st->count) * sizeof(T)), "cudaMemset (counters)");
    check(cudaMemset(st->base_counters.get(), 0, std::size_t(st->count) * sizeof(T)), "cudaMemset (counters)");
    bench b;
    if (h == how::match_only)
      b.run = [st](cudaStream_t s, int) { launch<how::match_only>(st->counters_ptr(), st->shift, st->sink_ptr(), s); };
    else if (h == how::distinct_then_match)
      b.run = [st](cudaStream_t s, int) {
        launch<how::distinct_then_match>(st->counters_ptr(), st->shift, st->sink_ptr(), s);
      };
    else if (h == how::address_first)
      b.run = [st](cudaStream_t s, int) {
        launch<how::address_first>(st->counters_ptr(), st->shift, st->sink_ptr(), s);
      };
    else if (h == how::one_lane)
      b.run = [st](cudaStream_t s, int) { launch<how::one_lane>(st->counters_ptr(), st->shift, st->sink_ptr(), s); };
    else
      b.run = [st](cudaStream_t s, int) { launch<how::aggregated>(st->counters_ptr(), st->shift, st->sink_ptr(), s); };
    b.baseline = [st](cudaStream_t s, int) {
      launch<how::per_thread>(st->base_counters_ptr(), st->shift, st->sink_ptr(), s);
    };
    b.verify = [st, p, run = b.run, baseline = b.baseline]() {
      verify_result v;
      const std::string e = check_counts<T>(st->counters, st->count, p, [&] { run(0, 0); });
      const std::string eb = check_counts<T>(st->base_counters, st->count, p, [&] { baseline(0, 0); });
      check(cudaGetLastError(), "increments_kernel");
      v.ok = e.empty();
      v.baseline_ok = eb.empty();
      v.detail = e.empty() ? (eb.empty() ? "" : "baseline: " + eb) : (eb.empty() ? e : e + "; baseline: " + eb);
      return v;
    };
    return b;
  };
  add_case(std::move(c));
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::vector<std::string> summary(const std::vector<result>& results) {
  std::vector<std::string> out{"atomics/aggregated: G increments/s of warp::atomic_add and of per-thread atomicAdd "
                               "(same run), speedup, target"};
  for (const result& r : results) {
    if (!r.c || r.c->name.rfind("atomics/aggregated/", 0) != 0) continue;
    if (!r.timed || !r.baseline_ms || r.median_ms <= 0) {
      out.push_back("  " + r.c->name + ": not timed" + (r.correct ? "" : " (FAILED verification)"));
      continue;
    }
    const double rate = double(r.c->n) / (r.median_ms * 1e-3) / 1e9;
    const double base = double(r.c->n) / (*r.baseline_ms * 1e-3) / 1e9;
    const double speedup = *r.baseline_ms / r.median_ms;
    std::string target;
    const bool one_per_warp = r.c->op == "add warp-address" || r.c->op == "add grid-address";
    if (r.c->name.find("/one-lane") != std::string::npos) target = "the floor of any aggregation, no target";
    else if (one_per_warp) target = speedup >= 10.0 ? "target >= 10x: met" : "target >= 10x: MISSED";
    else if (r.c->op == "add distinct") target = speedup >= 0.95 ? "target >= 0.95x: met" : "target >= 0.95x: MISSED";
    out.push_back("  " + r.c->name + ": " + fmt("%.2f", rate) + " vs " + fmt("%.2f", base) + " G/s, " +
                  fmt("%.2f", speedup) + "x" + (target.empty() ? "" : "  (" + target + ")") +
                  (r.correct && r.baseline_correct ? "" : "  FAILED verification"));
  }
  return out;
}

}  // namespace

void register_warp_atomics() {
  for (pattern p : all_patterns) {
    add_row<std::int32_t>(p, how::aggregated);
    add_row<std::int64_t>(p, how::aggregated);
    add_row<float>(p, how::aggregated);
    add_row<double>(p, how::aggregated);
    add_row<std::int32_t>(p, how::match_only);
    add_row<float>(p, how::match_only);
    for (how h : {how::distinct_then_match, how::address_first}) {
      add_row<std::int32_t>(p, h);
      add_row<std::int64_t>(p, h);
      add_row<float>(p, h);
      add_row<double>(p, h);
    }
  }
  for (pattern p : {pattern::warp_address, pattern::grid_address}) {  // the floor: only where a warp shares one address
    add_row<std::int32_t>(p, how::one_lane);
    add_row<std::int64_t>(p, how::one_lane);
    add_row<float>(p, how::one_lane);
    add_row<double>(p, how::one_lane);
  }
  add_note("atomics/aggregated/",
           "atomics/aggregated: 2^19 threads x 32 increments of 1 each (n = 2^24), returning atomics in both kernels; "
           "GF = G increments/s; baseline: per-thread atomicAdd on the same pattern, interleaved; /match-only rows: "
           "aggregation::match_only (no distinct-address or uniform-value test); /distinct-then-match: the distinct-address "
           "test, then the match (no uniform-value test); /address-first: a uniform-address test before the others; "
           "/one-lane: the floor of any aggregation (lane 0 adds 32 values, one shuffle returns old; no grouping)");
  add_summary("atomics/aggregated/", summary);
}

}  // namespace lab
