// cuprim/device/histogram.cuh: histograms (host entry points).
//
//   cuprim::histogram_even(samples, n, histogram, num_bins, lower, upper, [ws,] stream)
//        histogram[b] = the number of samples in bin b of num_bins equal-width bins over [lower, upper)
//   cuprim::histogram_range(samples, n, histogram, num_bins, edges, [ws,] stream)
//        histogram[b] = the number of samples x with edges[b] <= x < edges[b + 1]   (num_bins + 1 edges)
//   cuprim::histogram_even_add / histogram_range_add (same arguments)
//        the same counts ADDED to what histogram already holds (for streaming an input in pieces)
//   cuprim::multi_histogram_even / multi_histogram_range (+ _add)
//        interleaved multi-channel samples (e.g. RGBA pixels): one histogram per chosen channel, in one pass
//   ... each with a `workspace` overload sized by the matching *_workspace_bytes function.
//
// The plain forms overwrite all num_bins counters (they are zeroed on `stream` first); the _add forms never zero.
// Everything is ordered on `stream`; no entry point synchronises it, except that histogram_range copies its
// converted edges from host memory with cudaMemcpyAsync, which for pageable memory may wait for work already
// queued on the stream.
//
// Samples: uint8_t … uint64_t, int8_t … int64_t, __half, float, double. Counters: uint32_t or uint64_t (any 4- or
// 8-byte unsigned integer). A uint32 counter counts modulo 2^32: a bin that receives 2^32 samples or more (summed
// over _add calls) wraps; use uint64 counters for such inputs.
//
// Levels and the bin rule. `lower`, `upper` and `edges` are HOST values (edges: a host array of num_bins + 1
// values). Samples outside [lower, upper) (or [edges[0], edges[num_bins])) are counted in no bin, nor are NaNs.
//  - Integer samples with integer levels: exact. Samples and levels are compared as int64 (as uint64 for uint64
//    samples; a level not representable there is rejected); histogram_even's bin of x is
//    floor((x - lower) · num_bins / (upper - lower)) computed exactly (no rounding, any range up to 2^64 - 1).
//  - Otherwise (floating-point samples, or floating-point levels): the floating-point rule. Sample and levels are
//    converted to double (exact for half, float and double, and for integers below 2^53); x is counted when
//    lower <= x < upper; its bin is min(num_bins - 1, floor((x - lower) · scale)) where scale = num_bins /
//    (upper - lower) is rounded to double once, and the subtraction and the product are each rounded to nearest
//    (no fused multiply-add). The host reference (cuprim/host/histogram.hpp) uses this exact sequence, so device
//    and host agree bit for bit; a sample within an ulp of an inner bin boundary may land in the neighbouring bin
//    relative to exact real arithmetic (as with any floating-point rule, CUB's included).
//  - histogram_range: x lands in bin i when edges[i] <= x < edges[i + 1], compared in the same key type (so an
//    edge equal to a sample sends it to the upper bin). Edges must be sorted non-decreasing (equal edges make an
//    empty bin).
//
// Multi-channel: samples holds num_pixels × num_channels interleaved values (num_channels ≤ 4); `channels` lists
// the num_active channels to count (distinct, each < num_channels) and histograms[k], num_bins[k], lower[k],
// upper[k] (or edges[k]) belong to channel channels[k]. All these arrays are host arrays of num_active entries.
//
// Algorithm (device/detail/histogram_kernel.cuh). A persistent grid streams the input once with 16-byte loads.
// The counters are privatized according to the total number of bins T (over the active channels), printed by
// `cuprim-lab` (histogram_plan_for):
//  - T ≤ 512: 32 per-lane sub-histograms per block in shared memory (bank = lane: no conflicts at any entropy);
//    for 1-byte samples whose levels cover the whole type with a power-of-two bin width (uint8 over [0, 256)), the
//    byte path: two interleaved per-lane copies, each sample binned by a byte permute and one shared atomic;
//  - T up to the shared-memory limit (about 57,000 bins on Hopper): per-warp-group sub-histograms of 32-bit
//    counters in shared memory (as many copies as fit 48 KiB), runs of equal bins merged per thread;
//  - larger: atomics on the output in device memory (it stays in L2 up to tens of MiB), runs of equal bins merged
//    per thread. Never #blocks × #bins of global memory: the workspace is 0 bytes (histogram_even) or the edges
//    (histogram_range), whatever the bin count.
// The overwriting forms zero the outputs with a small kernel and launch the histogram kernel as its programmatic
// dependent launch (Hopper): the histogram streams its input while the zeroing runs and waits for it only before
// its first write to an output.
//
// Errors. cuprim::invalid_argument before anything is launched, allocated or written: n < 0 (num_pixels < 0),
// num_bins < 1, samples null with n > 0, histogram or edges null, lower >= upper or a level that is NaN,
// infinite or not representable in the key type, unsorted edges, a histogram overlapping the samples or another
// histogram, bad channel lists, a workspace smaller than the *_workspace_bytes value. cuprim::cuda_error for a
// failed launch or an error already pending.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/detail/histogram_kernel.cuh>
#include <cuprim/device/detail/histogram_tuning.cuh>
#include <cuprim/device/reduce.cuh>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace cuprim {

namespace detail {

template <class C>
inline constexpr bool hist_counter_v = std::is_integral_v<C> && std::is_unsigned_v<C> && (sizeof(C) == 4 || sizeof(C) == 8);

template <class S>
inline constexpr bool hist_sample_v = (hist_integer_sample_v<S> && sizeof(S) <= 8) || hist_float_sample_v<S>;

template <class Level>
inline constexpr bool hist_level_v = std::is_arithmetic_v<Level> || std::is_same_v<Level, __half>;

/// One histogram request (after the public overloads): single-channel requests have channels = active = 1.
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
      if (std::is_signed_v<K> && static_cast<std::uint64_t>(v) > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
        return false;
    }
    out = static_cast<K>(v);
    return true;
  }
}

template <class S, class Level>
struct hist_even_prep {
  bool fast_ok = false;
  bool all_in = false;  ///< fast_ok, 1- or 2-byte samples, and every value of S inside [lower, upper)
  hist_even_fast<S> fast{};
  hist_even_int<S> exact{};
  hist_even_float<S> flt{};
};

/// Builds the binners of one equal-width channel; throws invalid_argument for bad levels.
template <class S, class Level>
hist_even_prep<S, Level> hist_prepare_even(const char* fn, int num_bins, Level lower, Level upper, bool multi) {
  using K = hist_key_t<S, Level>;
  hist_even_prep<S, Level> r;
  const char* lname = multi ? "lower" : "lower";
  const char* uname = multi ? "upper" : "upper";
  K lo{}, hi{};
  if (!hist_level_key<K>(lower, lo))
    throw_invalid(fn, lname, std::is_same_v<K, double> ? "must be finite" : "must be representable in the sample's key type (int64; uint64 for uint64 samples)");
  if (!hist_level_key<K>(upper, hi))
    throw_invalid(fn, uname, std::is_same_v<K, double> ? "must be finite" : "must be representable in the sample's key type (int64; uint64 for uint64 samples)");
  if (!(lo < hi)) throw_invalid(fn, lname, "must be less than upper");
  if constexpr (std::is_same_v<K, double>) {
    const double width = hi - lo;
    if (!std::isfinite(width)) throw_invalid(fn, uname, "upper - lower must be finite in double");
    r.flt = {lo, hi, static_cast<double>(num_bins) / width, num_bins};
  } else {
    const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    hist_even_int<S> e{};
    e.lo = static_cast<std::uint64_t>(lo);
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
          static_cast<__int128>(hi) - smin <= two32 && smax - static_cast<__int128>(lo) < two32) {
        r.fast_ok = true;
        r.fast = {static_cast<std::uint32_t>(e.lo), static_cast<std::uint32_t>(range - 1), e.shift};
        r.all_in = sizeof(S) <= 2 && static_cast<__int128>(lo) <= smin && static_cast<__int128>(hi) > smax;
      }
    }
  }
  return r;
}

/// Converts and checks one channel's edges; appends them (as keys) to `keys`.
template <class S, class Level>
void hist_prepare_edges(const char* fn, int num_bins, const Level* edges, std::vector<hist_key_t<S, Level>>& keys) {
  using K = hist_key_t<S, Level>;
  if (edges == nullptr) throw_invalid(fn, "edges", "must not be null");
  for (int i = 0; i <= num_bins; ++i) {
    K k{};
    if (!hist_level_key<K>(edges[i], k))
      throw_invalid(fn, "edges", std::is_same_v<K, double> ? "must be finite (no NaN or infinity)"
                                                           : "must be representable in the sample's key type");
    if (i > 0 && k < keys.back()) throw_invalid(fn, "edges", "must be sorted (non-decreasing)");
    keys.push_back(k);
  }
}

/// Workspace bytes of a range request: the converted edges of each active channel, 256-byte aligned.
template <class S, class Level>
std::size_t hist_range_bytes(int active, const int* num_bins) {
  std::size_t b = 0;
  for (int k = 0; k < active; ++k)
    b += align_up(std::size_t(std::max(num_bins[k], 0) + 1) * sizeof(hist_key_t<S, Level>));
  return b;
}

/// The largest power of two ≤ v (v ≥ 1): sub-histogram counts are powers of two (warp w uses copy w & (copies-1)).
inline int hist_pow2_floor(std::size_t v) {
  int p = 1;
  while (std::size_t(p) * 2 <= v) p *= 2;
  return p;
}

inline std::size_t hist_max_shared_bytes() {
  const device_info& d = get_device_info();
  return d.smem_per_block_optin ? d.smem_per_block_optin : d.smem_per_block;
}

/// Launches one kernel configuration over the request's samples (slices of at most grid × 2^31 samples).
template <hist_layout L, bool Vector, bool Sectioned = false, class S, class B, class C>
void hist_launch(const char* fn, hist_params<S, B, C> p, std::uint64_t total, int copies, bool persistent,
                 cudaStream_t stream) {
  if constexpr (L == hist_layout::lanes && hist_is_bytes<B>::value)  // histogram_plan_for's byte path
    if (copies != 2) throw std::logic_error("hist_launch: the byte path's layout has exactly two copies");
  const std::size_t smem = L == hist_layout::lanes    ? std::size_t(copies) * p.total_bins * 32 * 4
                           : L == hist_layout::shared ? std::size_t(copies) * p.total_bins * 4
                                                      : 0;
  p.copies = copies;
  auto kernel = Sectioned ? histogram_sectioned_kernel<S, B, C> : histogram_kernel<S, B, C, L, Vector>;
  if (smem > 48 * 1024)
    CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  const device_info& d = get_device_info();
  std::uint64_t grid;
  if (persistent || Sectioned) {
    int per_sm = 0;
    CUPRIM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, hist_threads, smem));
    grid = std::uint64_t(std::max(per_sm, 1)) * d.sm_count;
  } else {
    grid = std::max<std::uint64_t>(1, (total + hist_threads * 64ull - 1) / (hist_threads * 64ull));
    grid = std::min<std::uint64_t>(grid, 1u << 30);
  }
  const std::uint64_t slice = grid * hist_threads * (std::uint64_t(1) << 22);  // ≤ 2^31 samples per block
  const S* base = p.in;
  for (std::uint64_t first = 0; first < total; first += slice) {
    p.in = base + first;
    p.first = first;
    p.n = std::min(slice, total - first);
    const unsigned g = static_cast<unsigned>(std::min<std::uint64_t>(grid, (p.n + hist_threads - 1) / hist_threads));
    if (p.dependent && first == 0) {
      launch_dependent_smem(fn, kernel, g, hist_threads, smem, stream, p);
    } else {
      kernel<<<g, hist_threads, smem, stream>>>(p);
      check_launch(fn);
    }
  }
}

}  // namespace detail

/// How the production path privatizes a histogram of total_bins bins (all active channels together).
struct histogram_plan {
  detail::hist_layout layout = detail::hist_layout::global_runs;
  int copies = 1;
  std::size_t shared_bytes = 0;
  bool byte_path = false;
  std::string describe() const {
    switch (layout) {
      case detail::hist_layout::lanes:
        return std::string(byte_path ? "byte path: " : "") + "shared, 32 per-lane sub-histograms x " +
               std::to_string(copies) + " (" + std::to_string(shared_bytes / 1024) + " KiB/block)";
      case detail::hist_layout::shared:
        return "shared, " + std::to_string(copies) + " sub-histogram(s)/block (" + std::to_string(shared_bytes / 1024) +
               " KiB/block), runs merged";
      case detail::hist_layout::global_runs: return "global atomics in L2, runs merged, no privatization";
      default: return "global atomics";
    }
  }
};

/// The production path's choice for total_bins bins on the current device (see the header comment).
/// byte_samples: 1-byte samples whose levels cover the whole type with a power-of-two bin width (the byte path).
inline histogram_plan histogram_plan_for(int total_bins, bool byte_samples = false) {
  histogram_plan p;
  const std::size_t T = std::size_t(std::max(total_bins, 1));
  if (byte_samples && T <= 256) {
    p.layout = detail::hist_layout::lanes;
    p.byte_path = true;
    p.copies = 2;
    p.shared_bytes = T * 256;
    return p;
  }
  if (T <= histogram_tuning::lanes_max_bins) {
    p.layout = detail::hist_layout::lanes;
    p.copies = detail::hist_pow2_floor(
        std::clamp<std::size_t>(histogram_tuning::lanes_bytes / (T * 128), 1, histogram_tuning::lanes_max_copies));
    p.shared_bytes = std::size_t(p.copies) * T * 128;
    return p;
  }
  const std::size_t limit = detail::hist_max_shared_bytes();
  if (T * 4 + 1024 <= limit) {
    p.layout = detail::hist_layout::shared;
    p.copies = detail::hist_pow2_floor(
        std::clamp<std::size_t>(histogram_tuning::shared_bytes / (T * 4), 1, histogram_tuning::shared_max_copies));
    p.shared_bytes = std::size_t(p.copies) * T * 4;
    return p;
  }
  p.layout = detail::hist_layout::global_runs;
  return p;
}

namespace detail {

template <class S, class B, class C>
void hist_launch_production(const char* fn, hist_params<S, B, C> p, std::uint64_t total, cudaStream_t stream) {
  const histogram_plan plan = histogram_plan_for(p.total_bins, hist_is_bytes<B>::value);
  switch (plan.layout) {
    case hist_layout::lanes: hist_launch<hist_layout::lanes, true>(fn, p, total, plan.copies, true, stream); break;
    case hist_layout::shared: hist_launch<hist_layout::shared, true>(fn, p, total, plan.copies, true, stream); break;
    default: hist_launch<hist_layout::global_runs, true>(fn, p, total, 1, true, stream); break;
  }
}

/// The launcher a request goes to: the production path, or (the ladder) a given configuration.
struct hist_launcher {
  template <class S, class B, class C>
  void operator()(const char* fn, hist_params<S, B, C> p, std::uint64_t total, cudaStream_t stream) const {
    hist_launch_production(fn, p, total, stream);
  }
};

template <class S, class C, class Level>
std::size_t hist_request_workspace(const hist_request<S, C, Level>& r) {
  return r.range ? hist_range_bytes<S, Level>(r.active, r.bins) : 0;
}

/// Validates a request completely (nothing launched or written before this returns).
template <class S, class C, class Level>
void hist_validate(const char* fn, const hist_request<S, C, Level>& r) {
  static_assert(hist_sample_v<S>, "histogram samples: uint8..uint64, int8..int64, __half, float or double");
  static_assert(hist_counter_v<C>, "histogram counters: uint32_t or uint64_t");
  static_assert(hist_level_v<Level>, "histogram levels: an arithmetic type or __half");
  const char* nname = r.multi ? "num_pixels" : "n";
  if ((r.multi ? r.pixels : r.samples) < 0) throw_invalid(fn, nname, "must be non-negative");
  if (r.multi) {
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
  if (std::uint64_t(std::max<std::int64_t>(r.samples, 0)) > SIZE_MAX / sizeof(S))
    throw_invalid(fn, nname, "is larger than the address space");
  if (r.samples > 0 && r.in == nullptr) throw_invalid(fn, "samples", "must not be null when n > 0");
  std::int64_t total = 0;
  for (int k = 0; k < r.active; ++k) {
    if (r.bins[k] < 1) throw_invalid(fn, "num_bins", "must be at least 1");
    total += r.bins[k];
  }
  if (total > std::numeric_limits<int>::max() / 2) throw_invalid(fn, "num_bins", "total bins must be below 2^30");
  for (int k = 0; k < r.active; ++k) {
    if (r.out[k] == nullptr) throw_invalid(fn, r.multi ? "histograms" : "histogram", "must not be null");
    const std::size_t hb = std::size_t(r.bins[k]) * sizeof(C);
    if (ranges_overlap(r.in, std::size_t(std::max<std::int64_t>(r.samples, 0)) * sizeof(S), r.out[k], hb))
      throw_invalid(fn, r.multi ? "histograms" : "histogram", "must not overlap the samples");
    for (int j = 0; j < k; ++j)
      if (ranges_overlap(r.out[j], std::size_t(r.bins[j]) * sizeof(C), r.out[k], hb))
        throw_invalid(fn, "histograms", "must not overlap each other");
  }
  // Levels: building the binners checks them.
  for (int k = 0; k < r.active; ++k) {
    if (r.range) {
      std::vector<hist_key_t<S, Level>> keys;
      hist_prepare_edges<S, Level>(fn, r.bins[k], r.edges[k], keys);
    } else {
      (void)hist_prepare_even<S, Level>(fn, r.bins[k], r.lower[k], r.upper[k], r.multi);
    }
  }
}

/// Zeroes a request's outputs on the stream (one launch for every channel).
template <class S, class C, class Level>
void hist_zero(const char* fn, const hist_request<S, C, Level>& r, cudaStream_t stream) {
  hist_zero_args<C> a{};
  int most = 0;
  for (int k = 0; k < r.active; ++k) {
    a.out[k] = r.out[k];
    a.bins[k] = r.bins[k];
    most = std::max(most, r.bins[k]);
  }
  a.count = r.active;
  constexpr int threads = 256;
  const int blocks = std::clamp((most + threads - 1) / threads, 1, get_device_info().sm_count * 4);
  hist_zero_kernel<<<blocks, threads, 0, stream>>>(a);
  check_launch(fn);
}

/// Runs a validated request: uploads edges, builds the binner, zeroes the outputs (overwrite) and launches, the
/// histogram kernel as a dependent launch of the zeroing one (it streams its input while the zeroing runs).
/// Multi = false: the single-channel entry points (only single-channel kernels are instantiated); true: the
/// multi-channel ones (only the multi-channel kernels).
template <bool Multi, class S, class C, class Level, class Launcher = hist_launcher>
void hist_run(const char* fn, const hist_request<S, C, Level>& r, workspace ws, bool overwrite, cudaStream_t stream,
              Launcher launch = {}) {
  using K = hist_key_t<S, Level>;
  int total = 0;
  for (int k = 0; k < r.active; ++k) total += r.bins[k];
  if (r.samples == 0) {
    if (overwrite) hist_zero(fn, r, stream);
    return;
  }

  // The zeroing is the last thing queued before the histogram kernel, which is its dependent launch.
  auto zero_and_launch = [&](auto& p) {
    p.dependent = overwrite;
    if (overwrite) hist_zero(fn, r, stream);
    launch(fn, p, std::uint64_t(r.samples), stream);
  };
  auto go = [&](auto binners /* array of hist_multi slots' binners */) {
    using B1 = std::remove_cvref_t<decltype(binners[0])>;
    if constexpr (!Multi) {
      hist_params<S, B1, C> p{};
      p.in = r.in;
      p.bin = binners[0];
      p.out[0] = r.out[0];
      p.num_out = 1;
      p.total_bins = total;
      zero_and_launch(p);
    } else {
      hist_params<S, hist_multi<B1>, C> p{};
      p.in = r.in;
      int off = 0;
      for (int c = 0; c < hist_max_channels; ++c) p.bin.slot[c] = -1;
      for (int k = 0; k < r.active; ++k) {
        p.bin.b[k] = binners[k];
        p.bin.slot[r.chan[k]] = k;
        p.bin.offset[k] = off;
        p.offset[k] = off;
        p.out[k] = r.out[k];
        off += r.bins[k];
      }
      p.bin.channels = r.channels;
      p.num_out = r.active;
      p.total_bins = total;
      zero_and_launch(p);
    }
  };

  if (r.range) {
    std::array<hist_range<S, K>, hist_max_channels> b{};
    std::size_t at = 0;
    for (int k = 0; k < r.active; ++k) {
      std::vector<K> keys;
      hist_prepare_edges<S, Level>(fn, r.bins[k], r.edges[k], keys);
      K* dst = reinterpret_cast<K*>(static_cast<char*>(ws.data) + at);
      CUPRIM_CUDA_CHECK(cudaMemcpyAsync(dst, keys.data(), keys.size() * sizeof(K), cudaMemcpyHostToDevice, stream));
      b[k] = {dst, r.bins[k]};
      at += align_up(keys.size() * sizeof(K));
    }
    go(b);
    return;
  }
  std::array<hist_even_prep<S, Level>, hist_max_channels> prep{};
  bool all_fast = true, all_in = true;
  for (int k = 0; k < r.active; ++k) {
    prep[k] = hist_prepare_even<S, Level>(fn, r.bins[k], r.lower[k], r.upper[k], r.multi);
    all_fast = all_fast && prep[k].fast_ok;
    all_in = all_in && prep[k].all_in;
  }
  if constexpr (std::is_same_v<K, double>) {
    std::array<hist_even_float<S>, hist_max_channels> b{};
    for (int k = 0; k < r.active; ++k) b[k] = prep[k].flt;
    go(b);
  } else {
    if constexpr (sizeof(S) == 1) {
      // The uint8 / 256-bin shape (and int8 over [-128, 128), and wider power-of-two bins over the whole type):
      // the byte path, whose binning is a SIMD map per four samples.
      const std::uint32_t type_min = static_cast<std::uint32_t>(static_cast<std::int32_t>(std::numeric_limits<S>::min()));
      if (all_fast && all_in && !Multi && prep[0].fast.lo == type_min) {
        std::array<hist_bytes<S>, hist_max_channels> b{};
        b[0] = {std::is_signed_v<S> ? 0x80u : 0u, prep[0].fast.shift};
        go(b);
        return;
      }
    }
    if constexpr (sizeof(S) <= 2) {
      if (all_fast && all_in && !Multi) {  // no range test
        std::array<hist_even_fast<S, true>, hist_max_channels> b{};
        b[0] = {prep[0].fast.lo, prep[0].fast.rm1, prep[0].fast.shift};
        go(b);
        return;
      }
    }
    if constexpr (sizeof(S) <= 4) {
      if (all_fast) {
        std::array<hist_even_fast<S>, hist_max_channels> b{};
        for (int k = 0; k < r.active; ++k) b[k] = prep[k].fast;
        go(b);
        return;
      }
    }
    std::array<hist_even_int<S>, hist_max_channels> b{};
    for (int k = 0; k < r.active; ++k) b[k] = prep[k].exact;
    go(b);
  }
}

inline void hist_validate_workspace(const char* fn, workspace ws, std::size_t need, const char* sizer) {
  if (ws.bytes < need) throw_invalid(fn, "workspace", sizer);
  if (need && ws.data == nullptr) throw_invalid(fn, "workspace", "data must not be null");
}

/// Validate, check the workspace, run (in the caller's workspace, or one from the current resource).
template <bool Multi = false, class S, class C, class Level, class Launcher = hist_launcher>
void hist_entry(const char* fn, const hist_request<S, C, Level>& r, const workspace* ws, bool overwrite,
                cudaStream_t stream, const char* sizer, Launcher launch = {}) {
  hist_validate(fn, r);
  const std::size_t need = hist_request_workspace(r);
  if (ws) hist_validate_workspace(fn, *ws, need, sizer);
  check_no_pending_error(fn);
  if (ws) {
    hist_run<Multi>(fn, r, *ws, overwrite, stream, launch);
  } else {
    scratch s(need, stream);
    hist_run<Multi>(fn, r, s.get(), overwrite, stream, launch);
  }
}

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
hist_request<S, C, Level> hist_multi_request(const char* fn, const S* samples, std::int64_t num_pixels, int num_channels,
                                             int num_active, const int* channels, C* const* histograms,
                                             const int* num_bins) {
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
  if (channels == nullptr) throw_invalid(fn, "channels", "must not be null");
  if (histograms == nullptr) throw_invalid(fn, "histograms", "must not be null");
  if (num_bins == nullptr) throw_invalid(fn, "num_bins", "must not be null");
  for (int k = 0; k < std::clamp(num_active, 0, hist_max_channels); ++k) {
    r.chan[k] = channels[k];
    r.out[k] = histograms[k];
    r.bins[k] = num_bins[k];
  }
  return r;
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// Workspace sizes

/// Bytes of workspace histogram_even needs: 0 (the overloads exist for a uniform, allocation-free interface).
template <class Sample, class Counter = std::uint32_t, class Level = int>
std::size_t histogram_even_workspace_bytes(std::int64_t /*n*/, int /*num_bins*/) {
  return 0;
}
/// Bytes of workspace histogram_range needs: the num_bins + 1 edges in the key type, 256-byte aligned.
template <class Sample, class Counter = std::uint32_t, class Level = int>
std::size_t histogram_range_workspace_bytes(std::int64_t /*n*/, int num_bins) {
  return detail::hist_range_bytes<Sample, Level>(1, &num_bins);
}
/// Bytes of workspace multi_histogram_even needs: 0.
template <class Sample, class Counter = std::uint32_t, class Level = int>
std::size_t multi_histogram_even_workspace_bytes(std::int64_t /*num_pixels*/, int /*num_active*/,
                                                 const int* /*num_bins*/) {
  return 0;
}
/// Bytes of workspace multi_histogram_range needs (num_bins: host array of num_active bin counts).
template <class Sample, class Counter = std::uint32_t, class Level = int>
std::size_t multi_histogram_range_workspace_bytes(std::int64_t /*num_pixels*/, int num_active, const int* num_bins) {
  return detail::hist_range_bytes<Sample, Level>(std::clamp(num_active, 0, detail::hist_max_channels), num_bins);
}

// ---------------------------------------------------------------------------------------------------------------
// histogram_even

/// Overwrites histogram[0, num_bins) with the counts of samples[0, n) in num_bins equal-width bins over
/// [lower, upper). Ordered on `stream`, asynchronous.
template <class Sample, class Counter, class Level>
void histogram_even(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, Level lower, Level upper,
                    cudaStream_t stream = 0) {
  detail::hist_entry("cuprim::histogram_even", detail::hist_even_single(samples, n, histogram, num_bins, lower, upper),
                     nullptr, true, stream, "");
}
/// histogram_even in the caller's workspace (histogram_even_workspace_bytes: 0 bytes).
template <class Sample, class Counter, class Level>
void histogram_even(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, Level lower, Level upper,
                    workspace ws, cudaStream_t stream = 0) {
  detail::hist_entry("cuprim::histogram_even", detail::hist_even_single(samples, n, histogram, num_bins, lower, upper),
                     &ws, true, stream, "smaller than histogram_even_workspace_bytes");
}
/// Adds the counts of samples[0, n) to histogram[0, num_bins) (no zeroing): for inputs streamed in pieces.
template <class Sample, class Counter, class Level>
void histogram_even_add(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, Level lower,
                        Level upper, cudaStream_t stream = 0) {
  detail::hist_entry("cuprim::histogram_even_add",
                     detail::hist_even_single(samples, n, histogram, num_bins, lower, upper), nullptr, false, stream,
                     "");
}
/// histogram_even_add in the caller's workspace.
template <class Sample, class Counter, class Level>
void histogram_even_add(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, Level lower,
                        Level upper, workspace ws, cudaStream_t stream = 0) {
  detail::hist_entry("cuprim::histogram_even_add",
                     detail::hist_even_single(samples, n, histogram, num_bins, lower, upper), &ws, false, stream,
                     "smaller than histogram_even_workspace_bytes");
}

// ---------------------------------------------------------------------------------------------------------------
// histogram_range

/// Overwrites histogram[0, num_bins) with the counts of samples x with edges[b] <= x < edges[b + 1]; edges is a
/// host array of num_bins + 1 sorted values. Uses histogram_range_workspace_bytes of temporary device memory.
template <class Sample, class Counter, class Level>
void histogram_range(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, const Level* edges,
                     cudaStream_t stream = 0) {
  detail::hist_entry("cuprim::histogram_range", detail::hist_range_single(samples, n, histogram, num_bins, edges),
                     nullptr, true, stream, "");
}
/// histogram_range in the caller's workspace (histogram_range_workspace_bytes<Sample, Counter, Level>(n, num_bins)).
template <class Sample, class Counter, class Level>
void histogram_range(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, const Level* edges,
                     workspace ws, cudaStream_t stream = 0) {
  detail::hist_entry("cuprim::histogram_range", detail::hist_range_single(samples, n, histogram, num_bins, edges), &ws,
                     true, stream, "smaller than histogram_range_workspace_bytes");
}
/// Adds the range-bin counts of samples[0, n) to histogram.
template <class Sample, class Counter, class Level>
void histogram_range_add(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, const Level* edges,
                         cudaStream_t stream = 0) {
  detail::hist_entry("cuprim::histogram_range_add", detail::hist_range_single(samples, n, histogram, num_bins, edges),
                     nullptr, false, stream, "");
}
/// histogram_range_add in the caller's workspace.
template <class Sample, class Counter, class Level>
void histogram_range_add(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, const Level* edges,
                         workspace ws, cudaStream_t stream = 0) {
  detail::hist_entry("cuprim::histogram_range_add", detail::hist_range_single(samples, n, histogram, num_bins, edges),
                     &ws, false, stream, "smaller than histogram_range_workspace_bytes");
}

// ---------------------------------------------------------------------------------------------------------------
// Multi-channel

namespace detail {
template <class S, class C, class Level>
hist_request<S, C, Level> hist_multi_even(const char* fn, const S* samples, std::int64_t num_pixels, int num_channels, int num_active,
                                          const int* channels, C* const* histograms, const int* num_bins,
                                          const Level* lower, const Level* upper) {
  auto r = hist_multi_request<S, C, Level>(fn, samples, num_pixels, num_channels, num_active, channels, histograms,
                                           num_bins);
  if (lower == nullptr) throw_invalid(fn, "lower", "must not be null");
  if (upper == nullptr) throw_invalid(fn, "upper", "must not be null");
  for (int k = 0; k < std::clamp(num_active, 0, hist_max_channels); ++k) {
    r.lower[k] = lower[k];
    r.upper[k] = upper[k];
  }
  return r;
}
template <class S, class C, class Level>
hist_request<S, C, Level> hist_multi_range(const char* fn, const S* samples, std::int64_t num_pixels, int num_channels, int num_active,
                                           const int* channels, C* const* histograms, const int* num_bins,
                                           const Level* const* edges) {
  auto r = hist_multi_request<S, C, Level>(fn, samples, num_pixels, num_channels, num_active, channels, histograms,
                                           num_bins);
  if (edges == nullptr) throw_invalid(fn, "edges", "must not be null");
  r.range = true;
  for (int k = 0; k < std::clamp(num_active, 0, hist_max_channels); ++k) r.edges[k] = edges[k];
  return r;
}
}  // namespace detail

/// One pass over num_pixels pixels of num_channels interleaved samples: histograms[k] (num_bins[k] counters) is
/// overwritten with the equal-width histogram over [lower[k], upper[k]) of channel channels[k], k < num_active.
/// All array arguments are host arrays of num_active entries (the histograms themselves are device memory).
template <class Sample, class Counter, class Level>
void multi_histogram_even(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                          const int* channels, Counter* const* histograms, const int* num_bins, const Level* lower,
                          const Level* upper, cudaStream_t stream = 0) {
  detail::hist_entry<true>("cuprim::multi_histogram_even",
                     detail::hist_multi_even("cuprim::multi_histogram_even", samples, num_pixels, num_channels, num_active, channels, histograms,
                                             num_bins, lower, upper),
                     nullptr, true, stream, "");
}
/// multi_histogram_even in the caller's workspace.
template <class Sample, class Counter, class Level>
void multi_histogram_even(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                          const int* channels, Counter* const* histograms, const int* num_bins, const Level* lower,
                          const Level* upper, workspace ws, cudaStream_t stream = 0) {
  detail::hist_entry<true>("cuprim::multi_histogram_even",
                     detail::hist_multi_even("cuprim::multi_histogram_even", samples, num_pixels, num_channels, num_active, channels, histograms,
                                             num_bins, lower, upper),
                     &ws, true, stream, "smaller than multi_histogram_even_workspace_bytes");
}
/// multi_histogram_even, adding to the counts already there.
template <class Sample, class Counter, class Level>
void multi_histogram_even_add(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                              const int* channels, Counter* const* histograms, const int* num_bins, const Level* lower,
                              const Level* upper, cudaStream_t stream = 0) {
  detail::hist_entry<true>("cuprim::multi_histogram_even_add",
                     detail::hist_multi_even("cuprim::multi_histogram_even_add", samples, num_pixels, num_channels, num_active, channels, histograms,
                                             num_bins, lower, upper),
                     nullptr, false, stream, "");
}
/// multi_histogram_even_add in the caller's workspace.
template <class Sample, class Counter, class Level>
void multi_histogram_even_add(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                              const int* channels, Counter* const* histograms, const int* num_bins, const Level* lower,
                              const Level* upper, workspace ws, cudaStream_t stream = 0) {
  detail::hist_entry<true>("cuprim::multi_histogram_even_add",
                     detail::hist_multi_even("cuprim::multi_histogram_even_add", samples, num_pixels, num_channels, num_active, channels, histograms,
                                             num_bins, lower, upper),
                     &ws, false, stream, "smaller than multi_histogram_even_workspace_bytes");
}
/// One pass, range bins per channel: edges[k] is a host array of num_bins[k] + 1 sorted edges for channel
/// channels[k]. Overwrites the histograms.
template <class Sample, class Counter, class Level>
void multi_histogram_range(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                           const int* channels, Counter* const* histograms, const int* num_bins,
                           const Level* const* edges, cudaStream_t stream = 0) {
  detail::hist_entry<true>("cuprim::multi_histogram_range",
                     detail::hist_multi_range("cuprim::multi_histogram_range", samples, num_pixels, num_channels, num_active, channels, histograms,
                                              num_bins, edges),
                     nullptr, true, stream, "");
}
/// multi_histogram_range in the caller's workspace (multi_histogram_range_workspace_bytes).
template <class Sample, class Counter, class Level>
void multi_histogram_range(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                           const int* channels, Counter* const* histograms, const int* num_bins,
                           const Level* const* edges, workspace ws, cudaStream_t stream = 0) {
  detail::hist_entry<true>("cuprim::multi_histogram_range",
                     detail::hist_multi_range("cuprim::multi_histogram_range", samples, num_pixels, num_channels, num_active, channels, histograms,
                                              num_bins, edges),
                     &ws, true, stream, "smaller than multi_histogram_range_workspace_bytes");
}
/// multi_histogram_range, adding to the counts already there.
template <class Sample, class Counter, class Level>
void multi_histogram_range_add(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                               const int* channels, Counter* const* histograms, const int* num_bins,
                               const Level* const* edges, cudaStream_t stream = 0) {
  detail::hist_entry<true>("cuprim::multi_histogram_range_add",
                     detail::hist_multi_range("cuprim::multi_histogram_range_add", samples, num_pixels, num_channels, num_active, channels, histograms,
                                              num_bins, edges),
                     nullptr, false, stream, "");
}
/// multi_histogram_range_add in the caller's workspace.
template <class Sample, class Counter, class Level>
void multi_histogram_range_add(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                               const int* channels, Counter* const* histograms, const int* num_bins,
                               const Level* const* edges, workspace ws, cudaStream_t stream = 0) {
  detail::hist_entry<true>("cuprim::multi_histogram_range_add",
                     detail::hist_multi_range("cuprim::multi_histogram_range_add", samples, num_pixels, num_channels, num_active, channels, histograms,
                                              num_bins, edges),
                     &ws, false, stream, "smaller than multi_histogram_range_workspace_bytes");
}

}  // namespace cuprim
