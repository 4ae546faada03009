// cuprim/multi/histogram.cuh: the histogram of a sharded array, its bins on every rank.
//
//   cuprim::multi::histogram_even(comm, samples, hist, num_bins, lower, upper)
//   cuprim::multi::histogram_range(comm, samples, hist, num_bins, edges)      edges: host array of num_bins + 1
//
// Every rank counts its shard with cuprim's single-GPU histogram, then one all-reduce (sum) of the bins leaves the
// global counts on every rank: hist[i] holds num_bins counters on local rank i. Any bin count; the counts are
// exact (the same counts as a one-GPU histogram of the concatenated samples). Counter: uint32_t or uint64_t, as for
// the one-GPU histogram. Ordered on the communicator's streams; nothing waits on the host.
//
// Rules (cuprim::invalid_argument before anything runs): one shard per local rank in `samples` and `hist`, every
// hist shard at least num_bins counters, and the single-GPU histogram's rules for num_bins, the levels and edges.
#pragma once

#include <cuprim/core/validate.hpp>
#include <cuprim/device/histogram.cuh>
#include <cuprim/multi/detail/nccl.hpp>
#include <cuprim/multi/detail/partials.cuh>
#include <cuprim/multi/sharded.hpp>

namespace cuprim::multi {

namespace detail {
template <class Sample, class Counter, class LocalCount>
void histogram_run(const char* fn, const communicator& c, const sharded<Sample>& samples,
                   const sharded<Counter>& hist, int num_bins, LocalCount local_count) {
  static_assert(has_nccl_type<Counter>, "cuprim::multi histograms need a counter type NCCL can sum");
  check_shards(fn, "samples", c, samples);
  if (num_bins < 1) throw invalid_argument(fn, "num_bins", "must be at least 1");
  check_shards(fn, "hist", c, hist, num_bins);
  for (int i = 0; i < c.local_size(); ++i)  // every rank's, before any runs
    cuprim::detail::check_overlaps(
        fn, {{"samples", samples[i].data, std::size_t(samples[i].size) * sizeof(Sample), cuprim::detail::read_only},
             {"hist", hist[i].data, std::size_t(num_bins) * sizeof(Counter), cuprim::detail::written}});
  each_rank(c, [&](const local_rank& l, int i) { local_count(samples[i], hist[i].data, l.stream); });
  each_rank_grouped(c, [&](const local_rank& l, int i) {
    CUPRIM_NCCL_CHECK(ncclAllReduce(hist[i].data, hist[i].data, std::size_t(num_bins), nccl_type<Counter>(), ncclSum,
                                    l.comm, l.stream));
  });
}
}  // namespace detail

/// hist[i][b] = the number of samples of every shard in bin b of num_bins equal bins over [lower, upper).
template <class Sample, class Counter, class Level>
void histogram_even(const communicator& c, const sharded<Sample>& samples, const sharded<Counter>& hist,
                    int num_bins, Level lower, Level upper) {
  CUPRIM_ENTRY_NAME(fn);
  detail::histogram_run(fn, c, samples, hist, num_bins, [&](const auto& s, Counter* h, cudaStream_t stream) {
    cuprim::histogram_even(s.data, s.size, h, num_bins, lower, upper, stream);
  });
}

/// hist[i][b] = the number of samples x of every shard with edges[b] <= x < edges[b + 1] (edges: a host array of
/// num_bins + 1 sorted values).
template <class Sample, class Counter, class Level>
void histogram_range(const communicator& c, const sharded<Sample>& samples, const sharded<Counter>& hist,
                     int num_bins, const Level* edges) {
  CUPRIM_ENTRY_NAME(fn);
  detail::histogram_run(fn, c, samples, hist, num_bins, [&](const auto& s, Counter* h, cudaStream_t stream) {
    cuprim::histogram_range(s.data, s.size, h, num_bins, edges, stream);
  });
}

}  // namespace cuprim::multi
