// tests/device/scan_cases.hpp: what the device scan tests share (cuprim::inclusive_scan / exclusive_scan /
// inclusive_sum / exclusive_sum, device/scan.cuh).
//
//  - the tile of the default policy and the sizes every type is scanned at (around the warp, the tile, two tiles,
//    the switch from the small tile to the large one,
//    2^20 + 7 and 300 tiles + 5: the look-back walks over many predecessors)
//  - guarded outputs: every case gets its own allocation of n elements with poisoned guard elements on both
//    sides (an out-of-range write is caught by the guard check, or by compute-sanitizer past the allocation)
//  - independent host references: wrapping integer arithmetic (uint64, then converted: modular in C++20), the
//    operator's sequential fold for user types, long double sums and Σ|x| prefixes for the floating types
//  - the floating-point bound per element (see float_tolerance)
#pragma once

#include <cuprim/device/scan.cuh>

#include "common/scan_types.hpp"
#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#define CUPRIM_SCAN_TRACE(n, in_off, out_off) \
  SCOPED_TRACE(::testing::Message() << "n = " << (n) << ", input offset " << (in_off) << ", output offset " << (out_off))

namespace cuprim_test {

/// The tuned policy of a scan of In (the tuning tables have one architecture's rows).
template <class In>
inline constexpr auto default_scan_policy = cuprim::scan_policy_for<In>(cuprim::tuned_archs[0]);

/// Whether Policy is a scan_pipeline_policy (else a scan_policy: one tile per block throughout).
template <auto Policy>
inline constexpr bool is_pipeline_policy =
    std::is_same_v<std::remove_cvref_t<decltype(Policy)>, cuprim::scan_pipeline_policy>;

/// The tile a scan of In under Policy works in at small sizes: the pipeline's for pipeline policies that take every
/// size (min_elems 0) and types it takes, else the small one-tile-per-block policy's where the policy has one (the
/// default for 4-byte types: up to 2^17 elements), else the one-tile-per-block kernel's. The default policy's
/// pipeline starts at 2^22 elements; the float bounds of tests that may reach it take scan_bound_tile below.
template <class In, auto Policy = default_scan_policy<In>>
constexpr std::int64_t scan_tile() {
  if constexpr (is_pipeline_policy<Policy>) {
    if constexpr (cuprim::detail::scan_pipeline_takes<In, In, In> && Policy.pipeline.min_elems == 0)
      return std::int64_t(cuprim::detail::pipeline_shape<Policy.pipeline, In>::TE);
    return std::int64_t(cuprim::detail::scan_first_tile_elems<Policy, In>(1));
  } else {
    return std::int64_t(cuprim::detail::scan_tile_elems<Policy, In>());
  }
}

/// The size up to which Policy scans In with its small one-tile-per-block policy (0: it has none).
template <class In, auto Policy = default_scan_policy<In>>
constexpr std::int64_t scan_small_max() {
  if constexpr (is_pipeline_policy<Policy>) return Policy.small_max;
  else return 0;
}

/// The smallest tile any path of Policy may scan In in: the float bounds count the tiles an element's prefix
/// crosses, so inputs that may reach more than one path are checked with this one.
template <class In, auto Policy = default_scan_policy<In>>
constexpr std::int64_t scan_bound_tile() {
  if constexpr (is_pipeline_policy<Policy>) {
    std::int64_t t = std::int64_t(cuprim::detail::scan_tile_elems<Policy.classic, In>());
    if constexpr (Policy.small_max > 0) {
      const std::int64_t s = std::int64_t(cuprim::detail::scan_tile_elems<Policy.small, In>());
      t = s < t ? s : t;
    }
    if constexpr (cuprim::detail::scan_pipeline_takes<In, In, In>) {
      const std::int64_t p = std::int64_t(cuprim::detail::pipeline_shape<Policy.pipeline, In>::TE);
      t = p < t ? p : t;
    }
    return t;
  } else {
    return std::int64_t(cuprim::detail::scan_tile_elems<Policy, In>());
  }
}

/// The cluster kernel's tile for In under Policy, and the largest input it takes (0, 0: the policy has none).
template <class In, auto Policy = default_scan_policy<In>>
constexpr std::int64_t scan_cluster_tile() {
  if constexpr (is_pipeline_policy<Policy>)
    return std::int64_t(cuprim::detail::scan_tile_elems<cuprim::detail::scan_cluster_shape, In>());
  else return 0;
}
template <class In, auto Policy = default_scan_policy<In>>
constexpr std::int64_t scan_cluster_max() {
  return std::int64_t(cuprim::detail::scan_cluster_blocks) * scan_cluster_tile<In, Policy>();
}

/// The sizes every type is scanned at (and, where the policy has a small tile, at the switch to the larger one;
/// where it has the cluster kernel, one and several of its blocks and the switch back to one tile per block).
template <class In>
std::vector<std::int64_t> scan_sizes() {
  constexpr std::int64_t tile = scan_tile<In>(), small_max = scan_small_max<In>();
  std::vector<std::int64_t> v{0, 1, 31, 32, 33, tile - 1, tile, tile + 1, 2 * tile + 1, (std::int64_t(1) << 20) + 7,
                              300 * tile + 5};
  if (small_max > 0) {  // the last size of the small tile, the first of the larger one (a partial last tile)
    v.push_back(small_max);
    v.push_back(small_max + 1);
  }
  if constexpr (scan_cluster_tile<In>() > 0) {
    constexpr std::int64_t c = scan_cluster_tile<In>(), cmax = scan_cluster_max<In>();
    for (std::int64_t n : {c, c + 1, 3 * c + 7, cmax - 1, cmax, cmax + 1}) v.push_back(n);
  }
  return v;
}

inline constexpr int max_offset = 3;

/// Host data and its device copy (one allocation, 256-byte aligned): h(off) / d(off) is the input at element
/// offset off.
template <class T>
struct scan_input {
  std::vector<T> host;
  cuprim::device_buffer<T> dev;
  explicit scan_input(std::vector<T> h) : host(std::move(h)), dev(std::span<const T>(host)) {}
  const T* h(int off = 0) const { return host.data() + off; }
  const T* d(int off = 0) const { return dev.data() + off; }
};

/// One output of n elements at element offset `off` from a 256-byte aligned allocation, with `guard` poisoned
/// elements before it (after the offset's elements, also poisoned) and after it.
template <class T>
class guarded_array {
public:
  static constexpr std::size_t guard = 64;
  guarded_array(std::int64_t n, int off = 0) : n_(std::size_t(n)), off_(std::size_t(off)), buf_(guard + off_ + n_ + guard) {
    poison(buf_);
  }
  T* out() { return buf_.data() + guard + off_; }
  void reset() { poison(buf_); }
  /// Puts `values` (n of them) in the output slot: the input of an in-place scan.
  void fill(const T* values) {
    if (n_) upload(out(), std::vector<T>(values, values + n_));
  }
  /// The n output elements; fails the test if a guard byte (or an offset element) was written.
  std::vector<T> take() {
    const std::vector<T> all = buf_.to_host_sync();
    const auto* b = reinterpret_cast<const unsigned char*>(all.data());
    const std::size_t before = (guard + off_) * sizeof(T), after = (guard + off_ + n_) * sizeof(T);
    const std::size_t end = all.size() * sizeof(T);
    for (std::size_t i = 0; i < before; ++i)
      if (b[i] != poison_byte) {
        ADD_FAILURE() << "write before the output: byte " << i << " of " << before << " bytes in front of out[0]";
        break;
      }
    for (std::size_t i = after; i < end; ++i)
      if (b[i] != poison_byte) {
        ADD_FAILURE() << "write past the output: element " << (i - after) / sizeof(T) << " after out[n - 1]";
        break;
      }
    return {all.begin() + std::ptrdiff_t(guard + off_), all.begin() + std::ptrdiff_t(guard + off_ + n_)};
  }
  /// True when nothing at all was written.
  bool untouched() { return bytes_are(buf_.data(), buf_.bytes()); }

private:
  std::size_t n_, off_;
  cuprim::device_buffer<T> buf_;
};

// ---------------------------------------------------------------------------------------------------------------
// References

template <class T>
inline constexpr bool is_scan_struct = std::is_same_v<T, affine_map> || std::is_same_v<T, affine16> ||
                                       std::is_same_v<T, mat2>;

/// The reference scan of x[0, n): exact values (`exact`, for integer and user types) or long double sums with
/// Σ|x| of the same prefix (`sum`, `abs`, for floating types). Exclusive scans include init, inclusive ones do not.
template <class Out>
struct scan_reference {
  std::vector<Out> exact;
  std::vector<long double> sum, abs;
  std::int64_t size() const { return std::int64_t(is_float_like<Out> ? sum.size() : exact.size()); }
};

/// Sign- or zero-extends an integer to uint64 (the wrapping reference accumulates in uint64).
template <class T>
std::uint64_t widen(T x) {
  if constexpr (std::is_signed_v<T>) return static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
  else return static_cast<std::uint64_t>(x);
}

/// Reference of the scan of In into Out with `op` (plus for arithmetic types: not called, the reference is
/// computed independently of cuprim's operators) and, for an exclusive scan, `init` (an accumulator value).
template <class In, class Out, class Op, class Acc = cuprim::accumulator_t<Out>>
scan_reference<Out> make_reference(const In* x, std::int64_t n, Op op, bool exclusive, Acc init = Acc{}) {
  scan_reference<Out> ref;
  if constexpr (is_float_like<Out>) {
    ref.sum.resize(std::size_t(n));
    ref.abs.resize(std::size_t(n));
    long double s = exclusive ? static_cast<long double>(to_double(init)) : 0.0L;
    long double a = exclusive ? std::fabs(s) : 0.0L;
    for (std::int64_t i = 0; i < n; ++i) {
      const long double v = to_double(x[i]);
      if (!exclusive) {
        s += v;
        a += std::fabs(v);
      }
      ref.sum[std::size_t(i)] = s;
      ref.abs[std::size_t(i)] = a;
      if (exclusive) {
        s += v;
        a += std::fabs(v);
      }
    }
  } else if constexpr (std::is_integral_v<Out>) {
    static_assert(std::is_integral_v<In>);
    ref.exact.resize(std::size_t(n));
    std::uint64_t s = exclusive ? widen(init) : 0u;
    for (std::int64_t i = 0; i < n; ++i) {
      // The input converted to the accumulator first (int8 -> int64 sign-extends; uint64 -> int8 would truncate).
      const std::uint64_t v = widen(static_cast<Acc>(x[i]));
      if (!exclusive) s += v;
      ref.exact[std::size_t(i)] = static_cast<Out>(s);
      if (exclusive) s += v;
    }
  } else {
    ref.exact.resize(std::size_t(n));
    if (n == 0) return ref;
    Acc s = exclusive ? init : x[0];
    for (std::int64_t i = 0; i < n; ++i) {
      if (exclusive) {
        ref.exact[std::size_t(i)] = s;
        s = op(s, x[i]);
      } else {
        if (i > 0) s = op(s, x[i]);
        ref.exact[std::size_t(i)] = s;
      }
    }
  }
  return ref;
}

/// Bound on |computed - exact| for element i of a floating-point scan accumulated in Acc and stored as Out.
///
/// Element i (in tile t = i / tile) is a tree of roundings whose depth is at most
///   t + 1    along the chain of tile prefixes (a tile combines the nearest published inclusive prefix with the
///            aggregates between, in a tree of depth ⌈log2 k⌉ over k tiles, then adds its own total: at most one
///            level per tile crossed)
///   + 52     inside the tile: one-tile-per-block kernel (≤ 16 elements per thread, ≤ 16 chunks, two 5-level
///            warp scans, the look-back's 5-level window reduction, the few combines that apply the prefixes);
///            pipeline shapes with ≤ 36 elements per lane and ≤ 8 segments, the default's and every tested one
///            (35 adds along a lane, a 5-level warp scan, ≤ 7 segment totals in sequence, 3 combines: 50)
/// and every term of a tree of depth d carries a relative error of at most d·eps (first order): |error| ≤
/// d·eps·Σ|x|. The bound takes twice that, plus the rounding of the result to Out.
template <class Out, class Acc = cuprim::accumulator_t<Out>>
double float_tolerance(std::int64_t i, std::int64_t tile, long double ref, long double abs_sum) {
  const double depth = static_cast<double>(i / tile + 1) + 52.0;
  const double tol = 2.0 * epsilon<Acc>() * depth * static_cast<double>(abs_sum);
  return tol + output_rounding<Out, Acc>(std::fabs(ref) + tol);
}

/// Compares the first n elements of `got` with the reference; reports the first few mismatches and their count.
template <class Out>
void expect_scan_matches(const std::vector<Out>& got, const scan_reference<Out>& ref, std::int64_t n,
                         std::int64_t tile, const std::string& what) {
  ASSERT_EQ(std::int64_t(got.size()), n) << what;
  ASSERT_GE(ref.size(), n) << what;
  std::int64_t bad = 0, first = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    bool ok;
    std::string detail;
    if constexpr (is_float_like<Out>) {
      const long double r = ref.sum[std::size_t(i)];
      const double tol = float_tolerance<Out>(i, tile, r, ref.abs[std::size_t(i)]);
      const double err = std::fabs(to_double(got[std::size_t(i)]) - static_cast<double>(r));
      ok = err <= tol;  // NaN fails
      if (!ok && bad < 5)
        detail = "got " + show(got[std::size_t(i)]) + ", reference " + std::to_string(static_cast<double>(r)) +
                 " (error " + std::to_string(err) + ", bound " + std::to_string(tol) + ")";
    } else {
      ok = same_bytes(got[std::size_t(i)], ref.exact[std::size_t(i)]);
      if (!ok && bad < 5) detail = "got " + show(got[std::size_t(i)]) + ", expected " + show(ref.exact[std::size_t(i)]);
    }
    if (!ok) {
      if (bad < 5) ADD_FAILURE() << what << ": out[" << i << "] (tile " << i / tile << ", element " << i % tile
                                 << " of it): " << detail;
      if (first < 0) first = i;
      ++bad;
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << n << " elements wrong, the first at " << first;
}

/// Exact-type check without a reference object: got[i] == expected[i] for i < n.
template <class T>
void expect_same_values(const std::vector<T>& got, const T* expected, std::int64_t n, const std::string& what) {
  ASSERT_EQ(std::int64_t(got.size()), n) << what;
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!same_bytes(got[std::size_t(i)], expected[i])) {
      if (bad < 5) ADD_FAILURE() << what << ": element " << i << " is " << show(got[std::size_t(i)]) << ", expected "
                                 << show(expected[i]);
      ++bad;
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << n << " elements differ";
}

/// Data whose same-width sums cannot overflow a signed accumulator (signed overflow is undefined behaviour, on the
/// device too): |x| ≤ max / (2 n_max). Other types: their full default distribution (unsigned sums wrap).
template <class T>
std::vector<T> scan_safe_vector(rng& r, std::size_t n) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) >= 4) {
    const double bound = std::floor(static_cast<double>(std::numeric_limits<T>::max()) / (2.0 * double(n)));
    return random_vector<T>(r, n, -bound, bound);
  } else {
    return random_scan_vector<T>(r, n);
  }
}

/// Floats uniform in [-1, 1) scaled by 2^k, k in [-3, 3] (the default distribution), drawn fast enough for 2^28.
inline std::vector<float> fast_float_vector(rng& r, std::size_t n) {
  static constexpr float scale[8] = {0.125f, 0.25f, 0.5f, 1.0f, 2.0f, 4.0f, 8.0f, 1.0f};
  std::vector<float> v(n);
  for (auto& x : v) {
    const std::uint64_t w = r.next();
    x = (static_cast<float>(w >> 40) * 0x1.0p-23f - 1.0f) * scale[w & 7];
  }
  return v;
}

/// Integer-valued data whose running sum stays in [-limit, limit] (each step at most `step` in size, turned back
/// towards zero near the limits): every partial result of a scan (a sum over a contiguous range, plus init) is an
/// integer of magnitude ≤ 2·limit + |init|, exact in the accumulator, and every prefix is exact in T.
template <class T>
std::vector<T> bounded_walk(rng& r, std::size_t n, int limit, int step) {
  std::vector<T> v(n);
  long s = 0;
  for (auto& x : v) {
    long d = static_cast<long>(r.between(-step, step));
    if (s + d > limit || s + d < -limit) d = -d;
    s += d;
    x = from_double<T>(static_cast<double>(d));
  }
  return v;
}

// ---------------------------------------------------------------------------------------------------------------
// The typed sweep: one configuration per (input type, output type, operator)

template <class In_, class Out_, class Op_>
struct scan_config {
  using in_t = In_;
  using out_t = Out_;
  using op_t = Op_;
};

/// A random init for an exclusive scan of configuration C (an accumulator value; small for signed integers, whose
/// sums must not overflow).
template <class C>
cuprim::accumulator_t<typename C::out_t> random_init(rng& r) {
  using Acc = cuprim::accumulator_t<typename C::out_t>;
  if constexpr (is_scan_struct<Acc>) return random_scan_value<Acc>(r);
  else if constexpr (std::is_integral_v<Acc> && std::is_signed_v<Acc>) return static_cast<Acc>(r.between(-100, 100));
  else if constexpr (std::is_integral_v<Acc>) return static_cast<Acc>(r.next());
  else return static_cast<Acc>(r.uniform(-100.0, 100.0));
}

/// Runs `call(out)` into a fresh guarded output of n elements at element offset out_off, checks the guards and
/// compares with the reference.
template <class Out, class F>
void run_scan_case(std::int64_t n, int out_off, const scan_reference<Out>& ref, std::int64_t tile,
                   const std::string& what, F&& call) {
  guarded_array<Out> out(n, out_off);
  call(out.out());
  expect_scan_matches(out.take(), ref, n, tile, what);
}

/// Every size, input and output at offsets (0, 0) and (1, 1), with inclusive_scan(op), exclusive_scan(op, init)
/// and, for arithmetic outputs, inclusive_sum and exclusive_sum.
template <class C>
void check_scan_sweep(rng& r) {
  using In = typename C::in_t;
  using Out = typename C::out_t;
  using Op = typename C::op_t;
  using Acc = cuprim::accumulator_t<Out>;
  constexpr std::int64_t tile = scan_tile<In>();
  const std::vector<std::int64_t> sizes = scan_sizes<In>();
  const std::int64_t m = *std::max_element(sizes.begin(), sizes.end());
  const scan_input<In> data(scan_safe_vector<In>(r, std::size_t(m) + max_offset));
  for (int off : {0, 1}) {
    const Acc init = random_init<C>(r);
    const auto ref_incl = make_reference<In, Out>(data.h(off), m, Op{}, false);
    const auto ref_excl = make_reference<In, Out>(data.h(off), m, Op{}, true, init);
    scan_reference<Out> ref_excl0;
    if constexpr (!is_scan_struct<Out>) ref_excl0 = make_reference<In, Out>(data.h(off), m, Op{}, true, Acc{});
    if constexpr (is_scan_struct<Out>) {
      // The data tells a reordered scan from the true one.
      EXPECT_NE(ref_incl.exact[std::size_t(m - 1)], reversed_fold(data.h(off), std::size_t(m), Op{}));
    }
    for (std::int64_t n : sizes) {
      CUPRIM_SCAN_TRACE(n, off, off);
      const In* in = data.d(off);
      run_scan_case(n, off, ref_incl, tile, "inclusive_scan", [&](Out* o) { cuprim::inclusive_scan(in, o, n, Op{}); });
      run_scan_case(n, off, ref_excl, tile, "exclusive_scan",
                    [&](Out* o) { cuprim::exclusive_scan(in, o, n, Op{}, init); });
      if constexpr (!is_scan_struct<Out>) {
        run_scan_case(n, off, ref_incl, tile, "inclusive_sum", [&](Out* o) { cuprim::inclusive_sum(in, o, n); });
        run_scan_case(n, off, ref_excl0, tile, "exclusive_sum", [&](Out* o) { cuprim::exclusive_sum(in, o, n); });
      }
    }
  }
}

}  // namespace cuprim_test
