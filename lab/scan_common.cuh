// lab/scan_common.cuh: the pieces of the scan family shared by scan.cu (production scan, exclusive scan, the
// ladder) and scan_kernels.cu (the seed's warp-scan, bank-conflict and ballot tables): host references,
// comparisons, the CUB baselines and the case builder.
#pragma once

#include "lab.hpp"

#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/scan.cuh>
#include <cuprim/host/scan.hpp>

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace lab::scan_family {

constexpr std::int64_t pow2(int k) { return std::int64_t(1) << k; }

/// The reference's element type: double for floating-point scans (checked with a tolerance), T otherwise
/// (checked bitwise; integer sums wrap as T does).
template <class T>
using ref_t = std::conditional_t<std::is_floating_point_v<T>, double, T>;
template <class T>
using ref_ptr = std::shared_ptr<const std::vector<ref_t<T>>>;

/// The inclusive (or exclusive) sum of the input's slice 0, computed once per input.
template <class T, bool Exclusive = false>
ref_ptr<T> sum_reference(const input_set& in) {
  const std::string key = std::string(Exclusive ? "exclusive_sum/" : "inclusive_sum/") + typeid(ref_t<T>).name();
  return in.memo<ref_ptr<T>>(key, [&] {
    auto v = std::make_shared<std::vector<ref_t<T>>>(static_cast<std::size_t>(in.n));
    if constexpr (Exclusive) cuprim::host::exclusive_sum(in.host<T>().data(), v->data(), in.n);
    else cuprim::host::inclusive_sum(in.host<T>().data(), v->data(), in.n);
    return ref_ptr<T>(std::move(v));
  });
}

/// Independent inclusive sums of every `segment` consecutive elements of slice 0 (the last one may be short),
/// computed once per input and segment size.
template <class T>
ref_ptr<T> segmented_sum_reference(const input_set& in, std::int64_t segment) {
  const std::string key = "segmented_inclusive_sum/" + std::to_string(segment) + "/" + typeid(ref_t<T>).name();
  return in.memo<ref_ptr<T>>(key, [&] {
    auto v = std::make_shared<std::vector<ref_t<T>>>(static_cast<std::size_t>(in.n));
    const T* x = in.host<T>().data();
    for (std::int64_t s = 0; s < in.n; s += segment)
      cuprim::host::inclusive_sum(x + s, v->data() + s, std::min(segment, in.n - s));
    return ref_ptr<T>(std::move(v));
  });
}

template <class V>
std::string to_text(const V& v) {
  std::ostringstream o;
  o.precision(17);
  o << v;
  return o.str();
}

/// Compares a scan of n elements with its reference; "" when they agree, else the first difference and how many
/// elements differ. Integers: bitwise. Floating point (prefix sums of values in [0, 1), so ref[i] is the sum of
/// the absolute values): |got - ref| ≤ eps · ref · (2·ceil(log2(i + 2)) + sqrt(i + 1) + 16). The log term bounds
/// tree-shaped summation (Hillis-Steele, Blelloch, warp and block scans), the constant a thread's sequential
/// run; the sqrt term covers the chains of tile prefixes of the single-pass scans (look-back), whose rounding
/// errors add like a random walk. A missing or doubled element, block or tile exceeds it by orders of magnitude.
template <class T, class R>
std::string compare_scan(const T* got, const R* ref, std::int64_t n) {
  std::int64_t bad = 0, first = -1;
  double first_tol = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    bool ok;
    if constexpr (std::is_floating_point_v<T>) {
      const double r = static_cast<double>(ref[i]);
      const double factor = 2.0 * std::bit_width(static_cast<std::uint64_t>(i + 1)) +
                            std::sqrt(static_cast<double>(i + 1)) + 16.0;
      const double tol = std::numeric_limits<T>::epsilon() * std::fabs(r) * factor + 1e-30;
      ok = std::fabs(static_cast<double>(got[i]) - r) <= tol;  // false for NaN
      if (!ok && first < 0) first_tol = tol;
    } else {
      ok = got[i] == static_cast<T>(ref[i]);
    }
    if (!ok) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  if (bad == 0) return "";
  std::ostringstream msg;
  msg << bad << " of " << n << " elements differ; first at " << first << ": " << to_text(got[first])
      << " vs reference " << to_text(ref[first]);
  if constexpr (std::is_floating_point_v<T>) msg << " (tolerance " << first_tol << ")";
  return msg.str();
}

// ---------------------------------------------------------------------------------------------------------
// CUB baselines

enum class cub_scan { none, inclusive_sum, exclusive_sum };

inline const char* cub_name(cub_scan c) {
  switch (c) {
    case cub_scan::inclusive_sum: return "cub::DeviceScan::InclusiveSum";
    case cub_scan::exclusive_sum: return "cub::DeviceScan::ExclusiveSum";
    default: return "";
  }
}

/// One CUB call; with temp == nullptr it only sets temp_bytes (CUB's two-phase protocol). num_items is an int,
/// as in CUB's examples.
template <class T, cub_scan C>
void cub_call(void* temp, std::size_t& temp_bytes, const T* in, T* out, std::int64_t n64, cudaStream_t s) {
  static_assert(C != cub_scan::none);
  if (n64 > std::numeric_limits<int>::max()) throw std::length_error("cuprim-lab: CUB baseline called with n >= 2^31");
  const int n = static_cast<int>(n64);
  cudaError_t e;
  if constexpr (C == cub_scan::inclusive_sum) e = cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n, s);
  else e = cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, n, s);
  check(e, cub_name(C));
}

// ---------------------------------------------------------------------------------------------------------
// The case builder

/// What a case checks its output against: returns "" when `got` (n elements of Out, computed from slice 0 of
/// `in`) is correct.
template <class Out>
using checker = std::function<std::string(const input_set& in, const std::vector<Out>& got)>;

/// Checks against the (exclusive) sum of the whole input.
template <class T, bool Exclusive = false>
checker<T> whole_sum_check() {
  return [](const input_set& in, const std::vector<T>& got) {
    return compare_scan(got.data(), sum_reference<T, Exclusive>(in)->data(), in.n);
  };
}

/// Checks against independent inclusive sums of every `segment` elements.
template <class T>
checker<T> segmented_sum_check(std::int64_t segment) {
  return [segment](const input_set& in, const std::vector<T>& got) {
    return compare_scan(got.data(), segmented_sum_reference<T>(in, segment)->data(), in.n);
  };
}

/// A device case over a random input of n elements of T with an output of n elements of T:
/// `call(in, out, n, ws, stream)` is the code under test (ws: ws_bytes, by default
/// cuprim::scan_workspace_bytes<T, T>(n) bytes, allocated once: the production scan's explicit workspace; other
/// calls ignore it). C names the CUB baseline (none: no baseline). bytes = 2·n·sizeof(T) (read once, written
/// once). Verification poisons the output and the workspace, runs once on slice 0 and applies `check`; the CUB
/// baseline is checked with it too.
template <class T, cub_scan C, class Call>
case_def device_case(std::string name, std::string op, std::string variant, std::int64_t n, bool quick, Call call,
                     checker<T> check_fn, std::size_t ws_bytes = 0) {
  case_def c;
  c.name = std::move(name);
  c.family = "scan";
  c.op = std::move(op);
  c.variant = std::move(variant);
  c.dtype = name_of<T>();
  c.n = n;
  c.bytes = 2.0 * double(n) * sizeof(T);
  c.quick = quick;
  c.baseline = cub_name(C);
  if (ws_bytes == 0) ws_bytes = cuprim::scan_workspace_bytes<T, T>(n);
  c.setup = [n, call, check_fn, ws_bytes]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory out, ws, base_out, base_temp;
      std::size_t base_temp_bytes = 0;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype_v<T>, n);
    st->out = device_memory(std::size_t(n) * sizeof(T));
    st->ws = device_memory(ws_bytes);
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, call](cudaStream_t s, int rep) {
      call(st->in->template slice<T>(rep), st->out.template as<T>(), st->in->n,
           cuprim::workspace{st->ws.get(), st->ws.bytes()}, s);
    };
    if constexpr (C != cub_scan::none) {
      st->base_out = device_memory(std::size_t(n) * sizeof(T));
      cub_call<T, C>(nullptr, st->base_temp_bytes, st->in->template slice<T>(0), st->base_out.template as<T>(), n, 0);
      st->base_temp = device_memory(std::max<std::size_t>(st->base_temp_bytes, 1));
      b.baseline = [st](cudaStream_t s, int rep) {
        std::size_t bytes = st->base_temp_bytes;
        cub_call<T, C>(st->base_temp.get(), bytes, st->in->template slice<T>(rep), st->base_out.template as<T>(),
                       st->in->n, s);
      };
    }
    b.verify = [st, check_fn, run = b.run, base = b.baseline]() {
      verify_result v;
      st->out.poison();
      st->ws.poison();
      run(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
      const std::string e = check_fn(*st->in, to_host(st->out.template as<T>(), std::size_t(st->in->n)));
      v.ok = e.empty();
      std::string eb;
      if (base) {
        st->base_out.poison();
        base(0, 0);
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify baseline)");
        eb = check_fn(*st->in, to_host(st->base_out.template as<T>(), std::size_t(st->in->n)));
      }
      v.baseline_ok = eb.empty();
      v.detail = e.empty() ? (eb.empty() ? "" : "baseline: " + eb) : (eb.empty() ? e : e + "; baseline: " + eb);
      return v;
    };
    return b;
  };
  return c;
}

}  // namespace lab::scan_family
