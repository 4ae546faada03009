// tests/device/reduce_cases.hpp: the typed checks of cuprim::reduce / sum / min / max / argmin / argmax, shared by
// the per-type-family test files (split so the build compiles them in parallel).
//
// Every case: random data (seeded, see common/test_util.hpp), the input at offsets 0, 1 and 3 elements from a
// 256-byte aligned allocation (so vectorised types take the misaligned-head path), sizes around the warp, the
// tile and the grid, an output slot with poisoned guards on both sides, and an independent host reference.
#pragma once

#include <cuprim/device/reduce.cuh>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace cuprim_test {

/// The tuned policy for T on the current device.
template <class T>
cuprim::reduce_policy default_policy() {
  return cuprim::reduce_policy_for<T>(cuprim::current_tuned_arch());
}

/// Elements per tile of the default policy for T: threads × unroll × elements per vector load.
template <class T>
std::int64_t default_tile() {
  const cuprim::reduce_policy p = default_policy<T>();
  const int elems = p.vector_bytes == 16   ? cuprim::detail::vector_traits<T, 16>::elems
                    : p.vector_bytes == 8 ? cuprim::detail::vector_traits<T, 8>::elems
                                          : cuprim::detail::vector_traits<T, 4>::elems;
  return std::int64_t(p.threads) * p.unroll * elems;
}

/// The sizes every type is reduced at: empty, one element, around a warp, around a tile, a few tiles, 2^20 + 7,
/// and more full tiles than the grid has blocks (every block strides over several tiles, then a partial tile).
template <class T>
std::vector<std::int64_t> reduce_sizes() {
  const std::int64_t tile = default_tile<T>();
  const std::int64_t max_grid = std::int64_t(cuprim::get_device_info().sm_count) * default_policy<T>().blocks_per_sm;
  return {0, 1, 31, 32, 33, tile - 1, tile, tile + 1, 3 * tile + 5, (std::int64_t(1) << 20) + 7,
          tile * (2 * max_grid + 3) + tile / 2 + 17};
}

inline constexpr int input_offsets[] = {0, 1, 3};
inline constexpr int max_offset = 3;

/// Host data and its device copy (256-byte aligned allocation); window(off) is the input at element offset off.
template <class T>
struct test_data {
  std::vector<T> host;
  cuprim::device_buffer<T> dev;
  explicit test_data(std::vector<T> h) : host(std::move(h)), dev(std::span<const T>(host)) {}
  const T* h(int off) const { return host.data() + off; }
  const T* d(int off) const { return dev.data() + off; }
};

/// Largest size the typed cases use, plus room for the offsets.
template <class T>
std::size_t data_elems() {
  std::int64_t m = 0;
  for (auto n : reduce_sizes<T>()) m = std::max(m, n);
  return static_cast<std::size_t>(m) + max_offset;
}

/// Data whose same-width sums cannot overflow a signed accumulator (signed overflow is undefined behaviour in
/// C++, on the host and the device alike): |x| ≤ max / (2 n_max). Other types: their full default distribution
/// (unsigned and narrow signed sums wrap, which C++ defines).
template <class T>
std::vector<T> sum_safe_vector(rng& r, std::size_t n) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) >= 4) {
    const double bound = std::floor(static_cast<double>(std::numeric_limits<T>::max()) / (2.0 * double(n)));
    return random_vector<T>(r, n, -bound, bound);
  } else {
    return random_vector<T>(r, n);
  }
}

/// The wider accumulator a caller passes as init to avoid overflow: int64 / uint64 for integers, double for
/// floating types.
template <class T>
using wide_t = std::conditional_t<std::is_integral_v<T>, std::conditional_t<std::is_signed_v<T>, std::int64_t,
                                                                             std::uint64_t>,
                                  double>;

#define CUPRIM_CASE_TRACE(n, off) SCOPED_TRACE(::testing::Message() << "n = " << (n) << ", input offset " << (off))

/// Checks a reduction result `got` (of type Out, accumulated in Acc from init) against the reference over
/// h[0, n): exact for integers, within the error bound for floating types. n = 0 must give init exactly.
template <class Out, class Acc, class T>
void expect_sum_matches(const Out& got, const T* h, std::int64_t n, Acc init) {
  if (n == 0) {
    const Out expected = cuprim::detail::convert<Out>(init);
    EXPECT_TRUE(same_bytes(got, expected)) << "empty input: got " << show(got) << ", expected init " << show(expected);
    return;
  }
  if constexpr (std::is_integral_v<Acc>) {
    const Acc ref = wrap_sum<Acc>(h, static_cast<std::size_t>(n), init);
    EXPECT_EQ(got, static_cast<Out>(ref)) << "got " << show(got) << ", expected " << show(static_cast<Out>(ref));
  } else {
    const float_sum r = reference_sum(h, static_cast<std::size_t>(n), to_double(init));
    const double tol = sum_tolerance(epsilon<Acc>(), std::uint64_t(n), r.abs_sum, device_lanes());
    const double bound = tol + output_rounding<Out, Acc>(std::fabs(static_cast<double>(r.sum)) + tol);
    const double err = std::fabs(to_double(got) - static_cast<double>(r.sum));
    EXPECT_LE(err, bound) << "got " << show(got) << ", reference " << static_cast<double>(r.sum) << " (error "
                          << err << ", bound " << bound << ", sum |x| " << static_cast<double>(r.abs_sum) << ")";
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The typed cases

/// cuprim::sum (accumulates in T; float for the 16-bit floats) at every size and offset.
template <class T>
void check_sum(rng& r) {
  test_data<T> data(sum_safe_vector<T>(r, data_elems<T>()));
  guarded_out<T> out;
  for (std::int64_t n : reduce_sizes<T>()) {
    for (int off : input_offsets) {
      CUPRIM_CASE_TRACE(n, off);
      out.reset();
      cuprim::sum(data.d(off), out.out(), n);
      expect_sum_matches(out.value(), data.h(off), n, cuprim::accumulator_t<T>{});
      if (n == 0) break;
    }
  }
}

/// cuprim::reduce with plus and a random init of a wider type (int64 / uint64 / double).
template <class T>
void check_reduce_wide(rng& r) {
  using W = wide_t<T>;
  test_data<T> data(sum_safe_vector<T>(r, data_elems<T>()));
  guarded_out<W> out;
  for (std::int64_t n : reduce_sizes<T>()) {
    for (int off : input_offsets) {
      CUPRIM_CASE_TRACE(n, off);
      W init;
      if constexpr (std::is_integral_v<W>) {
        // Small enough that the int64 sums of bounded int64 data cannot overflow.
        init = static_cast<W>(r.between(-(std::int64_t(1) << 40), std::int64_t(1) << 40));
      } else {
        init = r.uniform(-100.0, 100.0);
      }
      out.reset();
      cuprim::reduce(data.d(off), out.out(), n, cuprim::plus{}, init);
      expect_sum_matches(out.value(), data.h(off), n, init);
      if (n == 0) break;
    }
  }
}

/// cuprim::min / cuprim::max: exact; empty input gives the type's highest / lowest value.
template <class T>
void check_min_max(rng& r) {
  test_data<T> data(random_vector<T>(r, data_elems<T>()));
  guarded_out<T> out;
  for (std::int64_t n : reduce_sizes<T>()) {
    for (int off : input_offsets) {
      CUPRIM_CASE_TRACE(n, off);
      const T ref_min = n ? reference_extreme<false>(data.h(off), std::size_t(n)) : cuprim::numeric_traits<T>::highest();
      const T ref_max = n ? reference_extreme<true>(data.h(off), std::size_t(n)) : cuprim::numeric_traits<T>::lowest();
      out.reset();
      cuprim::min(data.d(off), out.out(), n);
      T got = out.value();
      EXPECT_TRUE(same_bytes(got, ref_min)) << "min: got " << show(got) << ", expected " << show(ref_min);
      out.reset();
      cuprim::max(data.d(off), out.out(), n);
      got = out.value();
      EXPECT_TRUE(same_bytes(got, ref_max)) << "max: got " << show(got) << ", expected " << show(ref_max);
      if (n == 0) break;
    }
  }
}

/// Runs argmin and argmax over `data` at every size and offset and compares index and value bits with the
/// independent reference (first NaN, else the first position of the extreme).
template <class T>
void check_arg_on(const test_data<T>& data, const std::vector<std::int64_t>& sizes, const char* what) {
  SCOPED_TRACE(what);
  guarded_out<cuprim::arg_result<T>> out;
  for (std::int64_t n : sizes) {
    for (int off : input_offsets) {
      CUPRIM_CASE_TRACE(n, off);
      for (bool is_max : {false, true}) {
        out.reset();
        if (is_max) cuprim::argmax(data.d(off), out.out(), n);
        else cuprim::argmin(data.d(off), out.out(), n);
        const cuprim::arg_result<T> got = out.value();
        const std::int64_t ref = is_max ? reference_arg_index<true>(data.h(off), std::size_t(n))
                                        : reference_arg_index<false>(data.h(off), std::size_t(n));
        ASSERT_EQ(got.index, ref) << (is_max ? "argmax" : "argmin") << " index";
        const T expected_value = ref >= 0 ? data.h(off)[ref]
                                          : (is_max ? cuprim::numeric_traits<T>::lowest()
                                                    : cuprim::numeric_traits<T>::highest());
        EXPECT_TRUE(same_bytes(got.value, expected_value))
            << (is_max ? "argmax" : "argmin") << " value " << show(got.value) << ", expected " << show(expected_value);
      }
      if (n == 0) break;
    }
  }
}

/// Integers in [lo, hi] as T (exactly representable in every type): data with many ties.
template <class T>
std::vector<T> random_small_ints(rng& r, std::size_t n, int lo, int hi) {
  std::vector<T> v(n);
  for (auto& x : v) x = from_double<T>(static_cast<double>(r.between(lo, hi)));
  return v;
}

/// Sets element `pos` of both copies; returns the old value.
template <class T>
T plant(test_data<T>& data, std::size_t pos, T value) {
  const T old = data.host[pos];
  data.host[pos] = value;
  upload(data.dev.data() + pos, std::vector<T>{value});
  return old;
}

/// For every size n: plants `values` at random positions of the back half of the window [0, n) (as seen from
/// every offset), runs argmin / argmax on that size alone, then restores the data. The first occurrence of the
/// planted extreme sits in a late block, so the lowest index must win across blocks.
template <class T>
void check_arg_planted(rng& r, test_data<T>& data, const std::vector<T>& values, const char* what) {
  for (std::int64_t n : reduce_sizes<T>()) {
    if (n < 2 * max_offset + 2) continue;
    std::vector<std::pair<std::size_t, T>> saved;
    const std::uint64_t lo = std::uint64_t(n / 2 + max_offset), span = std::uint64_t(n) - lo;
    for (const T& v : values) {
      const std::size_t pos = std::size_t(lo + r.index(span));
      saved.emplace_back(pos, plant(data, pos, v));
    }
    check_arg_on(data, {n}, what);
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) plant(data, it->first, it->second);
  }
}

/// argmin / argmax over random data, over data with heavy ties, over planted extremes in the back half, and
/// over an all-equal array (index 0).
template <class T>
void check_arg(rng& r) {
  const std::size_t m = data_elems<T>();
  const auto sizes = reduce_sizes<T>();
  check_arg_on(test_data<T>(random_vector<T>(r, m)), sizes, "random data");
  check_arg_on(test_data<T>(random_small_ints<T>(r, m, 0, 3)), sizes, "few distinct values");
  {
    test_data<T> data(random_small_ints<T>(r, m, 10, 20));
    const T lo = from_double<T>(5), hi = from_double<T>(30);
    check_arg_planted(r, data, {lo, hi, lo, hi, lo, hi}, "planted extremes");
  }
  check_arg_on(test_data<T>(std::vector<T>(m, from_double<T>(7))), sizes, "all equal");
  // Sorted data: every tile of a thread holds a new maximum (ascending) or minimum (descending), the worst case of
  // the arithmetic types' first pass, which searches a tile for its extreme only when the extreme beats the best.
  std::vector<T> ascending = random_vector<T>(r, m);
  std::sort(ascending.begin(), ascending.end(), [](const T& a, const T& b) { return to_double(a) < to_double(b); });
  check_arg_on(test_data<T>(ascending), sizes, "ascending");
  std::reverse(ascending.begin(), ascending.end());
  check_arg_on(test_data<T>(ascending), sizes, "descending");
}

/// argmin / argmax with NaNs planted among random numbers (the first NaN is reported, however small or large the
/// numbers before it), and over signed zeros (-0 and +0 tie: the lower index wins) and infinities.
template <class T>
void check_arg_nan(rng& r) {
  const std::size_t m = data_elems<T>();
  {
    test_data<T> data(random_vector<T>(r, m));
    const T nan = from_double<T>(std::numeric_limits<double>::quiet_NaN());
    check_arg_planted(r, data, {nan, nan}, "NaNs planted");
    check_arg_planted(r, data, {nan, from_double<T>(-1e30), from_double<T>(1e30)}, "NaN and large numbers planted");
  }
  const double choices[] = {0.0, -0.0, 1.0, -1.0, std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity()};
  std::vector<T> z(m);
  for (auto& x : z) x = from_double<T>(choices[r.index(2)]);
  check_arg_on(test_data<T>(z), reduce_sizes<T>(), "signed zeros");
  for (auto& x : z) x = from_double<T>(choices[r.index(6)]);
  check_arg_on(test_data<T>(std::move(z)), reduce_sizes<T>(), "zeros and infinities");
}

/// Floating-point sums of integer-valued data whose every partial sum is exactly representable in the
/// accumulator: the result must be exact whatever the order of evaluation. Unlike the error bound, this catches
/// a single dropped or doubled element.
template <class T>
void check_exact_integer_sum(rng& r) {
  using Acc = cuprim::accumulator_t<T>;
  const std::size_t m = data_elems<T>();
  // Every partial sum, in any grouping, lies in [-N - 1000, P + 1000] (P, N: the sums of the positive and of the
  // negative values, 1000: the largest |init|), so it is exact when that stays within 2^digits(Acc). Values in
  // [-k, k] give P ≈ N ≈ m k / 4; k is as large as that allows (at most 64, and at least 1).
  const double limit = std::ldexp(1.0, std::numeric_limits<Acc>::digits) - 1000.0;
  const int k = static_cast<int>(std::clamp(std::floor(3.6 * limit / static_cast<double>(m)), 1.0, 64.0));
  test_data<T> data(random_small_ints<T>(r, m, -k, k));
  double pos = 0, neg = 0;
  for (const T& x : data.host) (to_double(x) > 0 ? pos : neg) += std::fabs(to_double(x));
  ASSERT_LE(std::max(pos, neg), limit) << "the data would not sum exactly in this accumulator (k = " << k << ")";
  guarded_out<Acc> out;
  for (std::int64_t n : reduce_sizes<T>()) {
    for (int off : input_offsets) {
      CUPRIM_CASE_TRACE(n, off);
      const Acc init = static_cast<Acc>(r.between(-1000, 1000));
      out.reset();
      cuprim::reduce(data.d(off), out.out(), n, cuprim::plus{}, init);
      const Acc got = out.value();
      const float_sum ref = reference_sum(data.h(off), std::size_t(n), static_cast<double>(init));
      EXPECT_EQ(static_cast<double>(got), static_cast<double>(ref.sum)) << "exact integer-valued sum";
      if (n == 0) break;
    }
  }
}

}  // namespace cuprim_test
