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
// Everything is ordered on `stream`; no entry point waits for it. The range forms carry their converted edges to
// the workspace in kernel parameters (a copy from pageable host memory would wait for the stream): the host's
// edges array may be freed as soon as the call returns.
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
// The counters are privatized according to the total number of bins T (over the active channels); the call's
// path is reported by histogram_plan_for and histogram_even_plan (cuprim-lab prints it):
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
// Policy. Each entry point takes an optional cuprim::histogram_policy as its first template argument (default
// cuprim::tuned: the row of histogram_policy_for for the sample type and the device;
// device/detail/histogram_tuning.cuh, which states how a policy chooses the path above).
//
// Errors. cuprim::invalid_argument before anything is launched, allocated or written: n < 0 (num_pixels < 0),
// num_bins < 1, samples null with n > 0, histogram or edges null, lower >= upper or a level that is NaN,
// infinite or not representable in the key type, unsorted edges, a histogram overlapping the samples or another
// histogram, bad channel lists, a workspace smaller than the *_workspace_bytes value. cuprim::cuda_error for a
// failed launch or an error already pending.
#pragma once

#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/histogram_launch.cuh>
#include <cuprim/device/detail/histogram_plan.cuh>
#include <cuprim/device/detail/histogram_tuning.cuh>

#include <algorithm>
#include <cstdint>

namespace cuprim {

namespace detail {
// The size functions a caller's workspace is checked against, as its errors name them.
inline constexpr char hist_even_sizer[] = "histogram_even_workspace_bytes(n, num_bins)";
inline constexpr char hist_range_sizer[] = "histogram_range_workspace_bytes(n, num_bins)";
inline constexpr char hist_multi_even_sizer[] =
    "multi_histogram_even_workspace_bytes(num_pixels, num_active, num_bins)";
inline constexpr char hist_multi_range_sizer[] =
    "multi_histogram_range_workspace_bytes(num_pixels, num_active, num_bins)";
}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// Workspace sizes and paths

/// Bytes of workspace histogram_even needs: 0 (the overloads exist for a uniform, allocation-free interface).
template <class Sample, class Counter = std::uint32_t, class Level = int>
std::size_t histogram_even_workspace_bytes(std::int64_t /*n*/, int /*num_bins*/) {
  return 0;
}
/// Bytes of workspace histogram_range needs: the num_bins + 1 edges in the key type, 256-byte aligned.
template <class Sample, class Counter = std::uint32_t, class Level = int>
std::size_t histogram_range_workspace_bytes(std::int64_t /*n*/, int num_bins) {
  return detail::hist_workspace_layout<Sample, Level>(true, 1, &num_bins).bytes();
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
  return detail::hist_workspace_layout<Sample, Level>(true, std::clamp(num_active, 0, detail::hist_max_channels),
                                                      num_bins)
      .bytes();
}

/// The path histogram_even<Policy> takes on the current device for samples of type Sample and these levels
/// (the binner they allow, and the privatization of num_bins bins), as cuprim-lab prints it. Throws
/// invalid_argument for num_bins < 1 and bad levels.
template <class Sample, auto Policy = tuned, class Level>
histogram_plan histogram_even_plan(int num_bins, Level lower, Level upper) {
  CUPRIM_ENTRY_NAME(fn);
  if (num_bins < 1) detail::throw_invalid(fn, "num_bins", "must be at least 1");
  const detail::hist_even_prep<Sample> prep = detail::hist_prepare_even<Sample>(fn, num_bins, lower, upper);
  const bool bytes = detail::hist_even_binner<Sample, Level>(&prep, 1, true) == detail::hist_binner::bytes;
  return detail::with_tuned_arch([&]<int Arch>() {
    return histogram_plan_for(detail::pick_policy<Policy>(histogram_policy_for<Sample>(Arch)), num_bins, bytes);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// histogram_even

/// Overwrites histogram[0, num_bins) with the counts of samples[0, n) in num_bins equal-width bins over
/// [lower, upper). Ordered on `stream`, asynchronous.
template <auto Policy = tuned, class Sample, class Counter, class Level>
void histogram_even(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, Level lower, Level upper,
                    cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::hist_call<Policy, false>(fn, detail::hist_even_single(samples, n, histogram, num_bins, lower, upper),
                                   nullptr, true, detail::hist_even_sizer, stream);
}
/// histogram_even in the caller's workspace (histogram_even_workspace_bytes: 0 bytes).
template <auto Policy = tuned, class Sample, class Counter, class Level>
void histogram_even(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, Level lower, Level upper,
                    workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::hist_call<Policy, false>(fn, detail::hist_even_single(samples, n, histogram, num_bins, lower, upper), &ws,
                                   true, detail::hist_even_sizer, stream);
}
/// Adds the counts of samples[0, n) to histogram[0, num_bins) (no zeroing): for inputs streamed in pieces.
template <auto Policy = tuned, class Sample, class Counter, class Level>
void histogram_even_add(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, Level lower,
                        Level upper, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::hist_call<Policy, false>(fn, detail::hist_even_single(samples, n, histogram, num_bins, lower, upper),
                                   nullptr, false, detail::hist_even_sizer, stream);
}
/// histogram_even_add in the caller's workspace.
template <auto Policy = tuned, class Sample, class Counter, class Level>
void histogram_even_add(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, Level lower,
                        Level upper, workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::hist_call<Policy, false>(fn, detail::hist_even_single(samples, n, histogram, num_bins, lower, upper), &ws,
                                   false, detail::hist_even_sizer, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// histogram_range

/// Overwrites histogram[0, num_bins) with the counts of samples x with edges[b] <= x < edges[b + 1]; edges is a
/// host array of num_bins + 1 sorted values. Uses histogram_range_workspace_bytes of temporary device memory.
template <auto Policy = tuned, class Sample, class Counter, class Level>
void histogram_range(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, const Level* edges,
                     cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::hist_call<Policy, false>(fn, detail::hist_range_single(samples, n, histogram, num_bins, edges), nullptr,
                                   true, detail::hist_range_sizer, stream);
}
/// histogram_range in the caller's workspace (histogram_range_workspace_bytes<Sample, Counter, Level>(n, num_bins)).
template <auto Policy = tuned, class Sample, class Counter, class Level>
void histogram_range(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, const Level* edges,
                     workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::hist_call<Policy, false>(fn, detail::hist_range_single(samples, n, histogram, num_bins, edges), &ws, true,
                                   detail::hist_range_sizer, stream);
}
/// Adds the range-bin counts of samples[0, n) to histogram.
template <auto Policy = tuned, class Sample, class Counter, class Level>
void histogram_range_add(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, const Level* edges,
                         cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::hist_call<Policy, false>(fn, detail::hist_range_single(samples, n, histogram, num_bins, edges), nullptr,
                                   false, detail::hist_range_sizer, stream);
}
/// histogram_range_add in the caller's workspace.
template <auto Policy = tuned, class Sample, class Counter, class Level>
void histogram_range_add(const Sample* samples, std::int64_t n, Counter* histogram, int num_bins, const Level* edges,
                         workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::hist_call<Policy, false>(fn, detail::hist_range_single(samples, n, histogram, num_bins, edges), &ws, false,
                                   detail::hist_range_sizer, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// Multi-channel

/// One pass over num_pixels pixels of num_channels interleaved samples: histograms[k] (num_bins[k] counters) is
/// overwritten with the equal-width histogram over [lower[k], upper[k]) of channel channels[k], k < num_active.
/// All array arguments are host arrays of num_active entries (the histograms themselves are device memory).
template <auto Policy = tuned, class Sample, class Counter, class Level>
void multi_histogram_even(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                          const int* channels, Counter* const* histograms, const int* num_bins, const Level* lower,
                          const Level* upper, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  const auto r = detail::hist_multi_even(fn, samples, num_pixels, num_channels, num_active, channels, histograms,
                                         num_bins, lower, upper);
  detail::hist_call<Policy, true>(fn, r, nullptr, true, detail::hist_multi_even_sizer, stream);
}
/// multi_histogram_even in the caller's workspace.
template <auto Policy = tuned, class Sample, class Counter, class Level>
void multi_histogram_even(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                          const int* channels, Counter* const* histograms, const int* num_bins, const Level* lower,
                          const Level* upper, workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  const auto r = detail::hist_multi_even(fn, samples, num_pixels, num_channels, num_active, channels, histograms,
                                         num_bins, lower, upper);
  detail::hist_call<Policy, true>(fn, r, &ws, true, detail::hist_multi_even_sizer, stream);
}
/// multi_histogram_even, adding to the counts already there.
template <auto Policy = tuned, class Sample, class Counter, class Level>
void multi_histogram_even_add(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                              const int* channels, Counter* const* histograms, const int* num_bins,
                              const Level* lower, const Level* upper, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  const auto r = detail::hist_multi_even(fn, samples, num_pixels, num_channels, num_active, channels, histograms,
                                         num_bins, lower, upper);
  detail::hist_call<Policy, true>(fn, r, nullptr, false, detail::hist_multi_even_sizer, stream);
}
/// multi_histogram_even_add in the caller's workspace.
template <auto Policy = tuned, class Sample, class Counter, class Level>
void multi_histogram_even_add(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                              const int* channels, Counter* const* histograms, const int* num_bins,
                              const Level* lower, const Level* upper, workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  const auto r = detail::hist_multi_even(fn, samples, num_pixels, num_channels, num_active, channels, histograms,
                                         num_bins, lower, upper);
  detail::hist_call<Policy, true>(fn, r, &ws, false, detail::hist_multi_even_sizer, stream);
}
/// One pass, range bins per channel: edges[k] is a host array of num_bins[k] + 1 sorted edges for channel
/// channels[k]. Overwrites the histograms.
template <auto Policy = tuned, class Sample, class Counter, class Level>
void multi_histogram_range(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                           const int* channels, Counter* const* histograms, const int* num_bins,
                           const Level* const* edges, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  const auto r = detail::hist_multi_range(fn, samples, num_pixels, num_channels, num_active, channels, histograms,
                                          num_bins, edges);
  detail::hist_call<Policy, true>(fn, r, nullptr, true, detail::hist_multi_range_sizer, stream);
}
/// multi_histogram_range in the caller's workspace (multi_histogram_range_workspace_bytes).
template <auto Policy = tuned, class Sample, class Counter, class Level>
void multi_histogram_range(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                           const int* channels, Counter* const* histograms, const int* num_bins,
                           const Level* const* edges, workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  const auto r = detail::hist_multi_range(fn, samples, num_pixels, num_channels, num_active, channels, histograms,
                                          num_bins, edges);
  detail::hist_call<Policy, true>(fn, r, &ws, true, detail::hist_multi_range_sizer, stream);
}
/// multi_histogram_range, adding to the counts already there.
template <auto Policy = tuned, class Sample, class Counter, class Level>
void multi_histogram_range_add(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                               const int* channels, Counter* const* histograms, const int* num_bins,
                               const Level* const* edges, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  const auto r = detail::hist_multi_range(fn, samples, num_pixels, num_channels, num_active, channels, histograms,
                                          num_bins, edges);
  detail::hist_call<Policy, true>(fn, r, nullptr, false, detail::hist_multi_range_sizer, stream);
}
/// multi_histogram_range_add in the caller's workspace.
template <auto Policy = tuned, class Sample, class Counter, class Level>
void multi_histogram_range_add(const Sample* samples, std::int64_t num_pixels, int num_channels, int num_active,
                               const int* channels, Counter* const* histograms, const int* num_bins,
                               const Level* const* edges, workspace ws, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  const auto r = detail::hist_multi_range(fn, samples, num_pixels, num_channels, num_active, channels, histograms,
                                          num_bins, edges);
  detail::hist_call<Policy, true>(fn, r, &ws, false, detail::hist_multi_range_sizer, stream);
}

}  // namespace cuprim
