// cuprim/multi/select.cuh: stream compaction of a sharded array.
//
//   cuprim::multi::select_if(comm, in, out, counts, pred)
//
// Every rank compacts its own shard with cuprim::select_if into its own out shard (the selected items stay on the
// rank that held them, in order), then the counts are all-gathered: counts[i][r] is the number rank r kept, on
// every local rank i, so each rank knows where its items sit in the global result (the sum of counts[i][0, r)).
// The global result is the concatenation of out[r][0, counts[r]) in rank order: the same items, in the same order,
// as a one-GPU select_if of the concatenated input. Ordered on the communicator's streams; nothing waits on the host.
// To even the ranks out afterwards: copy counts to the host and multi::redistribute (cuprim/multi/redistribute.hpp)
// from those sizes to multi::even_split(total, P).
//
// Rules (cuprim::invalid_argument before anything runs): one shard per local rank in `in`, `out` and `counts`;
// every out shard at least as large as its in shard; every counts shard at least comm.size() elements.
#pragma once

#include <cuprim/core/validate.hpp>
#include <cuprim/device/select.cuh>
#include <cuprim/multi/detail/nccl.hpp>
#include <cuprim/multi/detail/partials.cuh>
#include <cuprim/multi/sharded.hpp>

#include <cstdint>

namespace cuprim::multi {

/// Keeps the items x of every shard with pred(x), each rank in its own out shard; counts[i][r] = rank r's count.
template <class T, class Pred>
void select_if(const communicator& c, const sharded<const T>& in, const sharded<T>& out,
               const sharded<std::int64_t>& counts, Pred pred) {
  CUPRIM_ENTRY_NAME(fn);
  detail::check_shards(fn, "in", c, in);
  detail::check_shards(fn, "out", c, out);
  detail::check_shards(fn, "counts", c, counts, c.size());
  for (int i = 0; i < c.local_size(); ++i) {  // every rank's, before any runs
    if (out[i].size < in[i].size) throw invalid_argument(fn, "out", "shards must be at least as large as in's");
    cuprim::detail::check_overlaps(
        fn, {{"in", in[i].data, std::size_t(in[i].size) * sizeof(T), cuprim::detail::read_only},
             {"out", out[i].data, std::size_t(in[i].size) * sizeof(T), cuprim::detail::written},
             {"counts", counts[i].data, std::size_t(c.size()) * sizeof(std::int64_t), cuprim::detail::written}});
  }
  detail::each_rank(c, [&](const local_rank& l, int i) {
    cuprim::select_if(in[i].data, out[i].data, counts[i].data + l.rank, in[i].size, pred, l.stream);
  });
  detail::each_rank_grouped(c, [&](const local_rank& l, int i) {
    CUPRIM_NCCL_CHECK(ncclAllGather(counts[i].data + l.rank, counts[i].data, 1, ncclInt64, l.comm, l.stream));
  });
}

/// select_if of a non-const view.
template <class T, class Pred>
void select_if(const communicator& c, const sharded<T>& in, const sharded<T>& out,
               const sharded<std::int64_t>& counts, Pred pred) {
  select_if(c, sharded<const T>(in), out, counts, pred);
}

}  // namespace cuprim::multi
