// tests/device/histogram_cases.hpp: what the histogram GPU tests share: sample generators (values inside and
// outside the levels, exact boundaries, NaN and infinities for floating point), level and edge choices per type,
// and the checks (guard counters on both sides of each histogram, poisoned before each run; the plain forms
// overwrite, the _add forms add to random prior counts; both the pool and a caller workspace overload).
#pragma once

#include <cuprim/device/histogram.cuh>
#include <cuprim/host/histogram.hpp>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace cuprim_test::hist {

template <class S>
constexpr bool is_float_sample = std::is_floating_point_v<S> || std::is_same_v<S, __half>;

/// The level type tests use for S: int64 (uint64 for uint64) for integers, double for floating point.
template <class S>
using level_t = std::conditional_t<is_float_sample<S>, double,
                                   std::conditional_t<std::is_same_v<S, std::uint64_t>, std::uint64_t, std::int64_t>>;

template <class S>
S from_double(double v) {
  if constexpr (std::is_same_v<S, __half>) return __double2half(v);
  else return static_cast<S>(v);
}

template <class S>
double to_double(S x) {
  if constexpr (std::is_same_v<S, __half>) return static_cast<double>(__half2float(x));
  else return static_cast<double>(x);
}

/// Levels [lower, upper) for a type: `full` covers the type's whole range where representable (integers ≤ 32 bits:
/// [min, max + 1), the fast shift path when num_bins is a power of two); otherwise an inner interval with samples
/// on both sides.
template <class S>
std::pair<level_t<S>, level_t<S>> levels_for(bool full) {
  using L = level_t<S>;
  if constexpr (is_float_sample<S>) {
    return full ? std::pair<L, L>{-2.0, 6.0} : std::pair<L, L>{-1.0, 3.5};
  } else {
    using lim = std::numeric_limits<S>;
    if (full) {
      if constexpr (sizeof(S) <= 4) return {L(lim::min()), L(lim::max()) + 1};
      else return {L(lim::min()), L(lim::max())};
    }
    const long double lo = (long double)lim::min(), hi = (long double)lim::max();
    const long double span = hi - lo;
    return {L(lo + span / 8), L(hi - span / 5)};
  }
}

/// n random samples: uniform over the type (integers) or around [lower, upper) (floating point), with about 1 in 8
/// drawn from special values: lower, upper, upper - 1 (integers), inner edges, NaN and infinities (floats).
template <class S, class L>
std::vector<S> make_samples(rng& r, std::int64_t n, L lower, L upper, int num_bins,
                            const std::vector<L>* edges = nullptr) {
  std::vector<S> v(std::size_t(std::max<std::int64_t>(n, 0)));
  const double lo = double(lower), hi = double(upper);
  for (auto& x : v) {
    const std::uint64_t pick = r.next();
    if ((pick & 7) == 0) {
      switch ((pick >> 3) % 6) {
        case 0: x = from_double<S>(lo); break;
        case 1:
          if constexpr (!is_float_sample<S>) {
            if (upper <= L(std::numeric_limits<S>::max())) x = static_cast<S>(upper);
            else x = std::numeric_limits<S>::max();
          } else x = from_double<S>(hi);
          break;
        case 2:
          if constexpr (!is_float_sample<S>)
            x = static_cast<S>(upper - 1 > L(std::numeric_limits<S>::max()) ? L(std::numeric_limits<S>::max())
                                                                             : upper - 1);
          else x = from_double<S>(NAN);
          break;
        case 3: {  // an inner bin boundary (even) or an edge (range)
          if (edges && !edges->empty()) {
            const L e = (*edges)[r.index(edges->size())];
            if constexpr (is_float_sample<S>) x = from_double<S>(double(e));
            else
              x = static_cast<S>(std::clamp<long double>((long double)e, (long double)std::numeric_limits<S>::min(),
                                                         (long double)std::numeric_limits<S>::max()));
          } else {
            const int k = int(r.index(std::uint64_t(num_bins) + 1));
            if constexpr (is_float_sample<S>) x = from_double<S>(lo + (hi - lo) * k / num_bins);
            else {
              const __int128 b = (__int128)lower + ((__int128)upper - (__int128)lower) * k / num_bins;
              x = static_cast<S>(std::clamp<__int128>(b, (__int128)std::numeric_limits<S>::min(),
                                                      (__int128)std::numeric_limits<S>::max()));
            }
          }
          break;
        }
        case 4:
          if constexpr (is_float_sample<S>) x = (pick >> 20) & 1 ? from_double<S>(INFINITY) : from_double<S>(-INFINITY);
          else x = std::numeric_limits<S>::min();
          break;
        default:
          if constexpr (is_float_sample<S>) x = from_double<S>(lo);
          else x = std::numeric_limits<S>::max();
          break;
      }
      continue;
    }
    if constexpr (is_float_sample<S>) {
      x = from_double<S>(r.uniform(lo - 0.25 * (hi - lo), hi + 0.25 * (hi - lo)));
    } else {
      x = static_cast<S>(r.next());
    }
  }
  return v;
}

/// num_bins + 1 sorted edges between lower and upper (random, with some equal neighbours: empty bins).
template <class S, class L>
std::vector<L> make_edges(rng& r, int num_bins, L lower, L upper) {
  std::vector<L> e(std::size_t(num_bins) + 1);
  for (auto& x : e) {
    if constexpr (std::is_floating_point_v<L>) x = r.uniform(double(lower), double(upper));
    else {
      const __int128 span = (__int128)upper - (__int128)lower;
      x = L((__int128)lower + (__int128)(r.next() % (std::uint64_t)std::min<__int128>(span, (__int128)UINT64_MAX)));
    }
  }
  std::sort(e.begin(), e.end());
  e.front() = lower;
  if (num_bins > 2) e[1] = e[2];  // an empty bin
  return e;
}

template <class C>
std::string first_diff(const std::vector<C>& got, const std::vector<C>& want) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i] && bad++ == 0) first = i;
  if (!bad) return "";
  std::ostringstream m;
  m << bad << " of " << want.size() << " bins differ; first bin " << first << ": " << +got[first] << " vs "
    << +want[first];
  return m.str();
}

/// A device histogram with a poisoned guard counter on each side.
template <class C>
struct guarded {
  cuprim::device_buffer<C> buf;
  int bins;
  explicit guarded(int b) : buf(std::size_t(b) + 2), bins(b) {}
  C* data() { return buf.data() + 1; }
  void poison() { buf.fill_bytes(0xA5); }
  void set(const std::vector<C>& v) {
    poison();
    CUPRIM_CUDA_CHECK(cudaMemcpy(buf.data() + 1, v.data(), v.size() * sizeof(C), cudaMemcpyHostToDevice));
  }
  /// The counts; fails the test when a guard was touched.
  std::vector<C> get() {
    auto all = buf.to_host_sync();
    C poison_value;
    std::memset(&poison_value, 0xA5, sizeof(C));
    EXPECT_EQ(all.front(), poison_value) << "guard before the histogram was written";
    EXPECT_EQ(all.back(), poison_value) << "guard after the histogram was written";
    return std::vector<C>(all.begin() + 1, all.end() - 1);
  }
};

enum class form { plain, add, plain_ws, add_ws };

/// Runs one single-channel histogram (even or range) in each form under Policy and checks it against the host
/// reference.
template <class S, class C, class L, auto Policy = cuprim::tuned>
void check_single(const std::vector<S>& x, int num_bins, L lower, L upper, const std::vector<L>* edges,
                  std::uint64_t seed, int offset = 0) {
  SCOPED_TRACE(::testing::Message() << "n=" << x.size() << " bins=" << num_bins << " range=" << (edges != nullptr)
                                    << " offset=" << offset << " seed=" << seed);
  const std::int64_t n = std::int64_t(x.size());
  std::vector<C> want(static_cast<std::size_t>(num_bins));
  if (edges) cuprim::host::histogram_range(x.data(), n, want.data(), num_bins, edges->data());
  else cuprim::host::histogram_even(x.data(), n, want.data(), num_bins, lower, upper);
  cuprim::device_buffer<S> d(x.size() + std::size_t(offset) + 1);
  if (n) CUPRIM_CUDA_CHECK(cudaMemcpy(d.data() + offset, x.data(), x.size() * sizeof(S), cudaMemcpyHostToDevice));
  const S* in = n ? d.data() + offset : nullptr;
  guarded<C> h(num_bins);
  rng r(seed ^ 0x5151);
  const std::size_t need = edges ? cuprim::histogram_range_workspace_bytes<S, C, L>(n, num_bins)
                                 : cuprim::histogram_even_workspace_bytes<S, C, L>(n, num_bins);
  cuprim::device_buffer<unsigned char> ws(std::max<std::size_t>(need, 1));
  ws.fill_bytes(0x5A);
  cudaStream_t s;
  CUPRIM_CUDA_CHECK(cudaStreamCreate(&s));
  for (form f : {form::plain, form::add, form::plain_ws, form::add_ws}) {
    SCOPED_TRACE(int(f));
    std::vector<C> prior(static_cast<std::size_t>(num_bins));
    const bool add = f == form::add || f == form::add_ws;
    if (add) {
      for (auto& c : prior) c = C(r.next() & 0xFFFFFF);
      h.set(prior);
    } else {
      h.poison();
    }
    const cuprim::workspace w{ws.data(), need};
    if (edges) {
      switch (f) {
        case form::plain: cuprim::histogram_range<Policy>(in, n, h.data(), num_bins, edges->data()); break;
        case form::add: cuprim::histogram_range_add<Policy>(in, n, h.data(), num_bins, edges->data()); break;
        case form::plain_ws: cuprim::histogram_range<Policy>(in, n, h.data(), num_bins, edges->data(), w, s); break;
        case form::add_ws: cuprim::histogram_range_add<Policy>(in, n, h.data(), num_bins, edges->data(), w, s); break;
      }
    } else {
      switch (f) {
        case form::plain: cuprim::histogram_even<Policy>(in, n, h.data(), num_bins, lower, upper); break;
        case form::add: cuprim::histogram_even_add<Policy>(in, n, h.data(), num_bins, lower, upper); break;
        case form::plain_ws: cuprim::histogram_even<Policy>(in, n, h.data(), num_bins, lower, upper, w, s); break;
        case form::add_ws: cuprim::histogram_even_add<Policy>(in, n, h.data(), num_bins, lower, upper, w, s); break;
      }
    }
    CUPRIM_CUDA_CHECK(cudaDeviceSynchronize());
    auto got = h.get();
    std::vector<C> expect = want;
    if (add)
      for (std::size_t b = 0; b < expect.size(); ++b) expect[b] += prior[b];
    ASSERT_EQ(first_diff(got, expect), "");
  }
  CUPRIM_CUDA_CHECK(cudaStreamDestroy(s));
}

/// The bin counts the issue lists.
inline std::vector<int> bin_counts() { return {1, 2, 255, 256, 257, 4096, 65536, 1 << 20}; }

/// Every bin count, even and range, full and inner levels, for one sample type and counter.
template <class S, class C>
void sweep_type() {
  using L = level_t<S>;
  for (int nb : bin_counts()) {
    for (bool full : {true, false}) {
      const std::uint64_t seed = base_seed() ^ (std::uint64_t(nb) * 2654435761u) ^ (full ? 1 : 2) ^ sizeof(S) * 977;
      rng r(seed);
      const auto [lo, hi] = levels_for<S>(full);
      const std::int64_t n = nb >= 65536 ? 300007 : 100003;
      auto x = make_samples<S>(r, n, lo, hi, nb);
      check_single<S, C, L>(x, nb, lo, hi, nullptr, seed, int(r.index(3)));
      if (::testing::Test::HasFatalFailure()) return;
      if (!full || nb <= 4096) {
        auto e = make_edges<S, L>(r, nb, lo, hi);
        auto xr = make_samples<S>(r, n, lo, hi, nb, &e);
        check_single<S, C, L>(xr, nb, lo, hi, &e, seed, int(r.index(3)));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

}  // namespace cuprim_test::hist
