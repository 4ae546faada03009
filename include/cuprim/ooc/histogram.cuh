// cuprim/ooc/histogram.cuh: out-of-core histograms of host arrays of any size.
//
//   cuprim::ooc::histogram_even(samples, n, histogram, num_bins, lower, upper, options)
//       histogram[b] = number of samples in bin b of num_bins equal bins over [lower, upper) (overwrites)
//   cuprim::ooc::histogram_even_add(...)       the same, added to the counts already in histogram
//
// Same shape and rules as cuprim::histogram_even / histogram_even_add (device/histogram.cuh): sample types,
// counters (uint32_t or uint64_t; uint32 counts modulo 2^32), levels and the bin rule are theirs, and the arguments
// are checked by the same validation. Here `samples` is a host array of n values (pageable, page-locked or
// managed) and `histogram` a host array of num_bins counters.
//
// Each chunk is counted on its stream by cuprim::histogram_even_add into one device array of counters (the
// in-core kernels add to the output with atomics only, so chunks on different streams may add at once); the
// counts are copied back once at the end. Synchronous.
//
// Errors. cuprim::invalid_argument before any transfer: every rule of cuprim::histogram_even (n < 0, null samples
// with n > 0, null histogram, num_bins < 1, lower >= upper or a level not representable, histogram overlapping
// the samples), options out of range, device pointers.
#pragma once

#include <cuprim/device/histogram.cuh>
#include <cuprim/ooc/pipeline.cuh>

#include <vector>

namespace cuprim::ooc {

namespace detail {

template <class T, class Counter, class Level>
void histogram_even_impl(const char* fn, const T* samples, std::int64_t n, Counter* histogram, int num_bins,
                         Level lower, Level upper, bool add, const options& o) {
  cuprim::detail::hist_validate(fn, cuprim::detail::hist_even_single(samples, n, histogram, num_bins, lower, upper));
  validate_options(fn, o);
  cuprim::detail::check_no_pending_error(fn);
  std::vector<Counter> counts(std::size_t(num_bins), 0);
  if (n > 0) {
    pipeline<T> p(fn, samples, n, nullptr, o);  // (the counters, num_bins × sizeof(Counter), are outside the cap)
    device_buffer<Counter> d_counts(std::size_t(num_bins), p.stream(0));
    const auto guard = p.guard();  // waits for every stream before d_counts is released
    CUPRIM_CUDA_CHECK(cudaMemsetAsync(d_counts.data(), 0, std::size_t(num_bins) * sizeof(Counter), p.stream(0)));
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(p.stream(0)));
    Counter* dc = d_counts.data();
    p.run([&](const chunk& c, const T* d_in, char*,
              void*) { cuprim::histogram_even_add(d_in, c.count, dc, num_bins, lower, upper, c.stream); },
          [](const chunk&, const char*) {});
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(counts.data(), dc, std::size_t(num_bins) * sizeof(Counter),
                                      cudaMemcpyDeviceToHost, p.stream(0)));
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(p.stream(0)));
  }
  for (int b = 0; b < num_bins; ++b)
    histogram[b] = add ? Counter(histogram[b] + counts[std::size_t(b)]) : counts[std::size_t(b)];
}

}  // namespace detail

/// histogram[b] = number of samples of the host array in bin b of num_bins equal bins over [lower, upper).
/// Overwrites histogram (host, num_bins uint32/uint64 counters). Synchronous.
template <class T, class Counter, class Level>
void histogram_even(const T* samples, std::int64_t n, Counter* histogram, int num_bins, Level lower, Level upper,
                    const options& o = {}) {
  CUPRIM_ENTRY_NAME(fn);
  detail::histogram_even_impl(fn, samples, n, histogram, num_bins, lower, upper, false, o);
}

/// As histogram_even, adding to the counts already in histogram. Synchronous.
template <class T, class Counter, class Level>
void histogram_even_add(const T* samples, std::int64_t n, Counter* histogram, int num_bins, Level lower,
                        Level upper, const options& o = {}) {
  CUPRIM_ENTRY_NAME(fn);
  detail::histogram_even_impl(fn, samples, n, histogram, num_bins, lower, upper, true, o);
}

}  // namespace cuprim::ooc
