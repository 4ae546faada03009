// cuprim/device/detail/histogram_plan.cuh: a histogram call before anything runs: the request, its validation,
// its workspace, the binner its levels allow and the path (privatization) its bin count takes.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/histogram_bins.cuh>
#include <cuprim/device/detail/histogram_kernel.cuh>
#include <cuprim/device/detail/histogram_tuning.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace cuprim {

/// How a call privatizes its counters: the path histogram_plan_for chose for its total bin count.
struct histogram_plan {
  detail::hist_layout layout = detail::hist_layout::global_runs;
  int copies = 1;                ///< sub-histograms per block (a power of two)
  std::size_t shared_bytes = 0;  ///< dynamic shared memory per block
  bool byte_path = false;        ///< the byte binner's per-lane layout (two interleaved copies)
  bool persistent = true;        ///< grid: the resident blocks, or one block per threads × 64 samples
  std::string describe() const {
    switch (layout) {
      case detail::hist_layout::lanes:
        return std::string(byte_path ? "byte path: " : "") + "shared, 32 per-lane sub-histograms x " +
               std::to_string(copies) + " (" + std::to_string(shared_bytes / 1024) + " KiB/block)";
      case detail::hist_layout::shared:
        return "shared, " + std::to_string(copies) + " sub-histogram(s)/block (" + std::to_string(shared_bytes / 1024) +
               " KiB/block), runs merged";
      default: return "global atomics in L2, runs merged, no privatization";
    }
  }
};

namespace detail {

/// The largest power of two ≤ v (v ≥ 1): sub-histogram counts are powers of two (warp w uses copy w & (copies-1)).
constexpr int hist_pow2_floor(std::size_t v) {
  int p = 1;
  while (std::size_t(p) * 2 <= v) p *= 2;
  return p;
}

/// The shared memory a block of the current device may use (after opting in).
inline std::size_t hist_max_shared_bytes() {
  const device_info& d = get_device_info();
  return d.smem_per_block_optin ? d.smem_per_block_optin : d.smem_per_block;
}

}  // namespace detail

/// The path of a histogram of total_bins bins (all active channels together) under policy P, on a device whose
/// blocks may use max_shared_bytes of shared memory (histogram_policy states the rule). byte_binner: the call
/// bins with the byte binner (1-byte samples whose levels cover the whole type with a power-of-two bin width).
inline histogram_plan histogram_plan_for(const histogram_policy& P, int total_bins, bool byte_binner,
                                         std::size_t max_shared_bytes) {
  histogram_plan plan;
  plan.persistent = P.persistent;
  const std::size_t T = std::size_t(std::max(total_bins, 1));
  const auto fits = [&](std::size_t bytes) { return bytes + 1024 <= max_shared_bytes; };
  if (T <= std::size_t(P.lanes_max_bins)) {
    const int copies = byte_binner ? 2 : detail::hist_pow2_floor(std::clamp<std::size_t>(
                                             std::size_t(P.lanes_bytes) / (T * 128), 1, P.lanes_max_copies));
    if (fits(std::size_t(copies) * T * 128)) {
      plan.layout = detail::hist_layout::lanes;
      plan.byte_path = byte_binner;
      plan.copies = copies;
      plan.shared_bytes = std::size_t(copies) * T * 128;
      return plan;
    }
  }
  if (fits(T * 4)) {  // one copy fits; the copies aim at shared_bytes
    plan.layout = detail::hist_layout::shared;
    plan.copies = detail::hist_pow2_floor(
        std::clamp<std::size_t>(std::size_t(P.shared_bytes) / (T * 4), 1, P.shared_max_copies));
    plan.shared_bytes = std::size_t(plan.copies) * T * 4;
    return plan;
  }
  plan.layout = detail::hist_layout::global_runs;
  return plan;
}

/// histogram_plan_for on the current device.
inline histogram_plan histogram_plan_for(const histogram_policy& P, int total_bins, bool byte_binner) {
  return histogram_plan_for(P, total_bins, byte_binner, detail::hist_max_shared_bytes());
}

namespace detail {

template <class C>
inline constexpr bool hist_counter_v =
    std::is_integral_v<C> && std::is_unsigned_v<C> && (sizeof(C) == 4 || sizeof(C) == 8);

template <class S>
inline constexpr bool hist_sample_v = (hist_integer_sample_v<S> && sizeof(S) <= 8) || hist_float_sample_v<S>;

template <class Level>
inline constexpr bool hist_level_v = std::is_arithmetic_v<Level> || std::is_same_v<Level, __half>;

/// One histogram call's arguments (after the public overloads): single-channel calls have channels = active = 1.
template <class S, class C, class Level>
struct hist_request {
  const S* in = nullptr;
  std::int64_t samples = 0;  ///< total samples (pixels × channels)
  std::int64_t pixels = 0;
  int channels = 1, active = 1;
  int chan[hist_max_channels] = {0, 0, 0, 0};
  C* out[hist_max_channels] = {};
  int bins[hist_max_channels] = {};
  bool range = false;
  Level lower[hist_max_channels] = {}, upper[hist_max_channels] = {};
  const Level* edges[hist_max_channels] = {};
  bool multi = false;
  int total_bins() const {
    int total = 0;
    for (int k = 0; k < active; ++k) total += bins[k];
    return total;
  }
};

/// A level converted to the key type K, or false when not representable (or NaN / infinite for double).
template <class K, class Level>
bool hist_level_key(Level v, K& out) {
  if constexpr (std::is_same_v<K, double>) {
    double d;
    if constexpr (std::is_same_v<Level, __half>) d = static_cast<double>(__half2float(v));
    else d = static_cast<double>(v);
    if (!std::isfinite(d)) return false;
    out = d;
    return true;
  } else {
    if constexpr (std::is_signed_v<Level>) {
      if (std::is_unsigned_v<K> && v < 0) return false;
    } else {
      constexpr auto most = std::uint64_t(std::numeric_limits<std::int64_t>::max());
      if (std::is_signed_v<K> && static_cast<std::uint64_t>(v) > most) return false;
    }
    out = static_cast<K>(v);
    return true;
  }
}

/// The binners one equal-width channel may use (which one runs: hist_even_binner).
template <class S>
struct hist_even_prep {
  bool fast_ok = false;
  bool all_in = false;  ///< fast_ok, 1- or 2-byte samples, and every value of S inside [lower, upper)
  hist_even_fast<S> fast{};
  hist_even_int<S> exact{};
  hist_even_float<S> flt{};
};

/// The exact integer binner of [lo, hi) in num_bins bins, and the 32-bit shift binner where its conditions hold.
template <class S>
void hist_prepare_exact(hist_even_prep<S>& r, int num_bins, std::uint64_t lo, std::uint64_t hi, __int128 lo_key,
                        __int128 hi_key) {
  const std::uint64_t range = hi - lo;
  hist_even_int<S> e{};
  e.lo = lo;
  e.range = range;
  e.num_bins = num_bins;
  e.m = ~std::uint64_t(0) / range;
  const std::uint64_t nb = static_cast<std::uint64_t>(num_bins);
  if (range % nb == 0 && ((range / nb) & (range / nb - 1)) == 0) {
    e.mode = hist_even_int<S>::by_shift;
    std::uint64_t w = range / nb;
    while (w > 1) {
      w >>= 1;
      ++e.shift;
    }
  } else if (range - 1 <= ~std::uint64_t(0) / nb) {
    e.mode = hist_even_int<S>::by_mulhi;
  } else {
    e.mode = hist_even_int<S>::by_wide;
  }
  r.exact = e;
  if constexpr (sizeof(S) <= 4) {
    using lim = std::numeric_limits<S>;
    const __int128 smin = static_cast<__int128>(lim::min()), smax = static_cast<__int128>(lim::max());
    const __int128 two32 = static_cast<__int128>(1) << 32;
    if (e.mode == hist_even_int<S>::by_shift && e.shift < 32 && range <= (std::uint64_t(1) << 32) &&
        hi_key - smin <= two32 && smax - lo_key < two32) {
      r.fast_ok = true;
      r.fast = {static_cast<std::uint32_t>(e.lo), static_cast<std::uint32_t>(range - 1), e.shift};
      r.all_in = sizeof(S) <= 2 && lo_key <= smin && hi_key > smax;
    }
  }
}

/// Builds the binners of one equal-width channel; throws invalid_argument for bad levels.
template <class S, class Level>
hist_even_prep<S> hist_prepare_even(const char* fn, int num_bins, Level lower, Level upper) {
  using K = hist_key_t<S, Level>;
  constexpr const char* not_key =
      std::is_same_v<K, double> ? "must be finite"
                                : "must be representable in the sample's key type (int64; uint64 for uint64 samples)";
  hist_even_prep<S> r;
  K lo{}, hi{};
  if (!hist_level_key<K>(lower, lo)) throw_invalid(fn, "lower", not_key);
  if (!hist_level_key<K>(upper, hi)) throw_invalid(fn, "upper", not_key);
  if (!(lo < hi)) throw_invalid(fn, "lower", "must be less than upper");
  if constexpr (std::is_same_v<K, double>) {
    const double width = hi - lo;
    if (!std::isfinite(width)) throw_invalid(fn, "upper", "upper - lower must be finite in double");
    r.flt = {lo, hi, static_cast<double>(num_bins) / width, num_bins};
  } else {
    hist_prepare_exact(r, num_bins, static_cast<std::uint64_t>(lo), static_cast<std::uint64_t>(hi),
                       static_cast<__int128>(lo), static_cast<__int128>(hi));
  }
  return r;
}

/// Converts and checks one channel's edges; appends them (as keys) to `keys`.
template <class S, class Level>
void hist_prepare_edges(const char* fn, int num_bins, const Level* edges, std::vector<hist_key_t<S, Level>>& keys) {
  using K = hist_key_t<S, Level>;
  check_pointer(fn, "edges", edges);
  for (int i = 0; i <= num_bins; ++i) {
    K k{};
    if (!hist_level_key<K>(edges[i], k))
      throw_invalid(fn, "edges", std::is_same_v<K, double> ? "must be finite (no NaN or infinity)"
                                                           : "must be representable in the sample's key type");
    if (i > 0 && k < keys.back()) throw_invalid(fn, "edges", "must be sorted (non-decreasing)");
    keys.push_back(k);
  }
}

/// The binner an equal-width call runs, the cheapest whose conditions hold for every active channel (the kinds of
/// histogram_bins.cuh). The byte binner and the one without a range test serve single-channel calls only.
enum class hist_binner { bytes, fast_all_in, fast, exact, floating };

template <class S, class Level>
hist_binner hist_even_binner(const hist_even_prep<S>* prep, int active, bool single_channel) {
  if constexpr (std::is_same_v<hist_key_t<S, Level>, double>) {
    return hist_binner::floating;
  } else {
    bool all_fast = true, all_in = true;
    for (int k = 0; k < active; ++k) {
      all_fast = all_fast && prep[k].fast_ok;
      all_in = all_in && prep[k].all_in;
    }
    if (all_fast && all_in && single_channel) {
      // The uint8 / 256-bin shape (and int8 over [-128, 128), and wider power-of-two bins over the whole type): the
      // byte binner, a SIMD map per four samples.
      const auto type_min = static_cast<std::uint32_t>(static_cast<std::int32_t>(std::numeric_limits<S>::min()));
      if (sizeof(S) == 1 && prep[0].fast.lo == type_min) return hist_binner::bytes;
      return hist_binner::fast_all_in;
    }
    return all_fast ? hist_binner::fast : hist_binner::exact;
  }
}

/// The channel rules of the multi-channel forms.
template <class S, class C, class Level>
void hist_validate_channels(const char* fn, const hist_request<S, C, Level>& r) {
  if (r.channels < 1 || r.channels > hist_max_channels) throw_invalid(fn, "num_channels", "must be in [1, 4]");
  if (r.active < 1 || r.active > r.channels) throw_invalid(fn, "num_active", "must be in [1, num_channels]");
  if (r.pixels > std::numeric_limits<std::int64_t>::max() / r.channels)
    throw_invalid(fn, "num_pixels", "num_pixels x num_channels overflows int64");
  for (int k = 0; k < r.active; ++k) {
    if (r.chan[k] < 0 || r.chan[k] >= r.channels) throw_invalid(fn, "channels", "each must be in [0, num_channels)");
    for (int j = 0; j < k; ++j)
      if (r.chan[j] == r.chan[k]) throw_invalid(fn, "channels", "must be distinct");
  }
}

/// Validates a call completely (nothing launched or written before this returns).
template <class S, class C, class Level>
void hist_validate(const char* fn, const hist_request<S, C, Level>& r) {
  static_assert(hist_sample_v<S>, "histogram samples: uint8..uint64, int8..int64, __half, float or double");
  static_assert(hist_counter_v<C>, "histogram counters: uint32_t or uint64_t");
  static_assert(hist_level_v<Level>, "histogram levels: an arithmetic type or __half");
  const char* count = r.multi ? "num_pixels" : "n";
  const char* outputs = r.multi ? "histograms" : "histogram";
  check_size(fn, count, r.multi ? r.pixels : r.samples);
  if (r.multi) hist_validate_channels(fn, r);
  check_size(fn, count, r.samples, sizeof(S));
  check_pointer(fn, "samples", r.in, r.samples > 0);
  std::int64_t total = 0;
  for (int k = 0; k < r.active; ++k) {
    if (r.bins[k] < 1) throw_invalid(fn, "num_bins", "must be at least 1");
    total += r.bins[k];
  }
  if (total > std::numeric_limits<int>::max() / 2) throw_invalid(fn, "num_bins", "total bins must be below 2^30");
  for (int k = 0; k < r.active; ++k) check_pointer(fn, outputs, r.out[k]);
  const auto output = [&](int k) {
    return k < r.active ? array_arg{outputs, r.out[k], std::size_t(r.bins[k]) * sizeof(C), written}
                        : array_arg{outputs, nullptr, 0, written};
  };
  check_overlaps(fn, {{"samples", r.in, std::size_t(r.samples) * sizeof(S), read_only}, output(0), output(1),
                      output(2), output(3)});
  for (int k = 0; k < r.active; ++k) {  // the levels (building the binners checks them)
    if (r.range) {
      std::vector<hist_key_t<S, Level>> keys;
      hist_prepare_edges<S, Level>(fn, r.bins[k], r.edges[k], keys);
    } else {
      (void)hist_prepare_even<S, Level>(fn, r.bins[k], r.lower[k], r.upper[k]);
    }
  }
}

/// The histogram's workspace: the edges of each active channel converted to the key type (range forms; the
/// equal-width forms need none).
template <class S, class Level>
struct hist_workspace_layout {
  workspace_part<hist_key_t<S, Level>> edges[hist_max_channels];  // (num_bins[k] + 1) for channel k
  workspace_layout L;
  hist_workspace_layout(bool range, int active, const int* num_bins) {
    if (range)
      for (int k = 0; k < active; ++k)
        edges[k] = L.add<hist_key_t<S, Level>>(std::size_t(std::max(num_bins[k], 0)) + 1);
  }
  template <class C>
  explicit hist_workspace_layout(const hist_request<S, C, Level>& r)
      : hist_workspace_layout(r.range, r.active, r.bins) {}
  std::size_t bytes() const { return L.bytes(); }
};

// The requests of the public overloads.

template <class S, class C, class Level>
hist_request<S, C, Level> hist_single(const S* samples, std::int64_t n, C* histogram, int num_bins) {
  hist_request<S, C, Level> r;
  r.in = samples;
  r.samples = n;
  r.pixels = n;
  r.out[0] = histogram;
  r.bins[0] = num_bins;
  return r;
}

template <class S, class C, class Level>
hist_request<S, C, Level> hist_even_single(const S* samples, std::int64_t n, C* histogram, int num_bins, Level lower,
                                           Level upper) {
  auto r = hist_single<S, C, Level>(samples, n, histogram, num_bins);
  r.lower[0] = lower;
  r.upper[0] = upper;
  return r;
}

template <class S, class C, class Level>
hist_request<S, C, Level> hist_range_single(const S* samples, std::int64_t n, C* histogram, int num_bins,
                                            const Level* edges) {
  auto r = hist_single<S, C, Level>(samples, n, histogram, num_bins);
  r.range = true;
  r.edges[0] = edges;
  return r;
}

template <class S, class C, class Level>
hist_request<S, C, Level> hist_multi_request(const char* fn, const S* samples, std::int64_t num_pixels,
                                             int num_channels, int num_active, const int* channels,
                                             C* const* histograms, const int* num_bins) {
  hist_request<S, C, Level> r;
  r.multi = true;
  r.in = samples;
  r.pixels = num_pixels;
  r.channels = num_channels;
  r.active = num_active;
  r.samples = (num_channels >= 1 && num_channels <= hist_max_channels && num_pixels >= 0 &&
               num_pixels <= std::numeric_limits<std::int64_t>::max() / num_channels)
                  ? num_pixels * num_channels
                  : 0;
  check_pointer(fn, "channels", channels);
  check_pointer(fn, "histograms", histograms);
  check_pointer(fn, "num_bins", num_bins);
  for (int k = 0; k < std::clamp(num_active, 0, hist_max_channels); ++k) {
    r.chan[k] = channels[k];
    r.out[k] = histograms[k];
    r.bins[k] = num_bins[k];
  }
  return r;
}

template <class S, class C, class Level>
hist_request<S, C, Level> hist_multi_even(const char* fn, const S* samples, std::int64_t num_pixels,
                                          int num_channels, int num_active, const int* channels,
                                          C* const* histograms, const int* num_bins, const Level* lower,
                                          const Level* upper) {
  auto r = hist_multi_request<S, C, Level>(fn, samples, num_pixels, num_channels, num_active, channels, histograms,
                                           num_bins);
  check_pointer(fn, "lower", lower);
  check_pointer(fn, "upper", upper);
  for (int k = 0; k < std::clamp(num_active, 0, hist_max_channels); ++k) {
    r.lower[k] = lower[k];
    r.upper[k] = upper[k];
  }
  return r;
}

template <class S, class C, class Level>
hist_request<S, C, Level> hist_multi_range(const char* fn, const S* samples, std::int64_t num_pixels,
                                           int num_channels, int num_active, const int* channels,
                                           C* const* histograms, const int* num_bins, const Level* const* edges) {
  auto r = hist_multi_request<S, C, Level>(fn, samples, num_pixels, num_channels, num_active, channels, histograms,
                                           num_bins);
  check_pointer(fn, "edges", edges);
  r.range = true;
  for (int k = 0; k < std::clamp(num_active, 0, hist_max_channels); ++k) r.edges[k] = edges[k];
  return r;
}

}  // namespace detail
}  // namespace cuprim
