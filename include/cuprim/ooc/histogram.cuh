// cuprim/ooc/histogram.cuh: out-of-core histograms of host arrays of any size.
//
//   cuprim::ooc::histogram_even(samples, n, histogram, num_bins, lower, upper, options)
//       histogram[b] = number of samples in bin b of num_bins equal bins over [lower, upper) (overwrites)
//   cuprim::ooc::histogram_even_add(...)       the same, added to the counts already in histogram
//
// samples: a host array of n values (pageable, page-locked or managed); histogram: a host array of num_bins
// counters (any integer type; counts are kept in 64 bits on the device and converted). Samples outside
// [lower, upper) (and NaN) are not counted. Binning: integers exactly, b = (x - lower) × num_bins / (upper - lower)
// in 64-bit integer arithmetic; floating point in double, clamped to the last bin (detail::even_bin).
//
// Each chunk is counted on its stream into one device-wide array of counts (per-block counts in shared memory,
// added atomically), which is copied back once at the end. Synchronous.
//
// Errors. cuprim::invalid_argument before any transfer: n < 0, null samples with n > 0, null histogram,
// num_bins < 1, !(lower < upper), histogram overlapping samples, options out of range, device pointers.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/ooc/detail/kernels.cuh>
#include <cuprim/ooc/pipeline.cuh>

#include <vector>

namespace cuprim::ooc {

namespace detail {

template <class T, class Counter, class Level>
void histogram_even_impl(const char* fn, const T* samples, std::int64_t n, Counter* histogram, int num_bins,
                         Level lower, Level upper, bool add, const options& o) {
  static_assert(std::is_integral_v<Counter>, "histogram counters must be an integer type");
  validate_input(fn, samples, n, o);
  if (histogram == nullptr) cuprim::detail::throw_invalid(fn, "histogram", "must not be null");
  if (num_bins < 1) cuprim::detail::throw_invalid(fn, "num_bins", "must be at least 1");
  if (!(lower < upper)) cuprim::detail::throw_invalid(fn, "upper", "must be greater than lower");
  if (overlap(samples, std::size_t(n) * sizeof(T), histogram, std::size_t(num_bins) * sizeof(Counter)))
    cuprim::detail::throw_invalid(fn, "histogram", "must not overlap the samples");
  cuprim::detail::check_no_pending_error(fn);
  std::vector<unsigned long long> counts(std::size_t(num_bins), 0);
  if (n > 0) {
    const std::size_t smem = std::size_t(num_bins) * sizeof(unsigned);
    const bool shared = smem <= 48 * 1024;
    pipeline<T> p(fn, samples, n, nullptr, o, true, 0, 0, std::size_t(num_bins) * 8);
    device_buffer<unsigned long long> d_counts(std::size_t(num_bins), p.stream(0));
    const auto guard = p.guard();
    CUPRIM_CUDA_CHECK(cudaMemsetAsync(d_counts.data(), 0, std::size_t(num_bins) * 8, p.stream(0)));
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(p.stream(0)));
    const int blocks = 2 * get_device_info().sm_count;
    unsigned long long* dc = d_counts.data();
    p.run(
        [&](const chunk& c, const T* d_in, char*, void*) {
          const unsigned grid = unsigned(std::min<std::int64_t>(blocks, (c.count + 255) / 256));
          histogram_even_kernel<<<grid, 256, shared ? smem : 0, c.stream>>>(d_in, c.count, dc, num_bins, lower,
                                                                            upper, shared);
          cuprim::detail::check_launch(fn);
        },
        [](const chunk&, const char*) {});
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(counts.data(), dc, std::size_t(num_bins) * 8, cudaMemcpyDeviceToHost,
                                      p.stream(0)));
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(p.stream(0)));
  }
  for (int b = 0; b < num_bins; ++b)
    histogram[b] = add ? Counter(histogram[b] + Counter(counts[std::size_t(b)])) : Counter(counts[std::size_t(b)]);
}

}  // namespace detail

/// histogram[b] = number of samples of the host array in bin b of num_bins equal bins over [lower, upper).
/// Overwrites histogram (host, num_bins counters). Synchronous.
template <class T, class Counter, class Level>
void histogram_even(const T* samples, std::int64_t n, Counter* histogram, int num_bins, Level lower, Level upper,
                    const options& o = {}) {
  detail::histogram_even_impl("cuprim::ooc::histogram_even", samples, n, histogram, num_bins, lower, upper, false, o);
}

/// As histogram_even, adding to the counts already in histogram. Synchronous.
template <class T, class Counter, class Level>
void histogram_even_add(const T* samples, std::int64_t n, Counter* histogram, int num_bins, Level lower,
                        Level upper, const options& o = {}) {
  detail::histogram_even_impl("cuprim::ooc::histogram_even_add", samples, n, histogram, num_bins, lower, upper, true,
                              o);
}

}  // namespace cuprim::ooc
