// cuprim/multi/redistribute.hpp: moves a sharded array to other shard sizes (rebalancing).
//
//   cuprim::multi::redistribute(comm, in, from_sizes, out, to_sizes)
//
// The global array (in's shards, from_sizes[r] elements on rank r) is copied into out, whose shards hold
// to_sizes[r] elements on rank r: the same elements in the same global order, cut differently. Each rank sends the
// overlap of its slice with every other rank's new slice, in one group of ncclSend/ncclRecv (the part that stays on
// a rank is a device copy). Typical use: even out the ranks after a select_if (copy the gathered counts to the host,
// then redistribute to multi::even_split(total, P)). Every rank passes every rank's sizes (the same spans
// everywhere). Ordered on the communicator's streams; nothing waits on the host.
//
// Rules (cuprim::invalid_argument before anything runs): from_sizes and to_sizes hold comm.size() non-negative sizes
// with the same sum; one shard per local rank in `in` (at least from_sizes[rank] elements) and `out` (at least
// to_sizes[rank]); out's shards overlap no shard of in on the same rank.
#pragma once

#include <cuprim/core/validate.hpp>
#include <cuprim/multi/communicator.hpp>
#include <cuprim/multi/detail/nccl.hpp>
#include <cuprim/multi/sharded.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <type_traits>

namespace cuprim::multi {

template <class T>
void redistribute(const communicator& c, const sharded<const T>& in, std::span<const std::int64_t> from_sizes,
                  const sharded<T>& out, std::span<const std::int64_t> to_sizes) {
  static_assert(std::is_trivially_copyable_v<T>, "redistribute copies trivially copyable elements");
  CUPRIM_ENTRY_NAME(fn);
  detail::check_rank_sizes(fn, "from_sizes", c, from_sizes);
  detail::check_rank_sizes(fn, "to_sizes", c, to_sizes);
  const auto from = detail::shard_offsets(from_sizes), to = detail::shard_offsets(to_sizes);
  if (from.back() != to.back()) throw invalid_argument(fn, "to_sizes", "must add up to what from_sizes adds up to");
  if (in.local_size() != c.local_size()) throw invalid_argument(fn, "in", "must hold one shard per local rank");
  if (out.local_size() != c.local_size()) throw invalid_argument(fn, "out", "must hold one shard per local rank");
  for (int i = 0; i < c.local_size(); ++i) {
    const auto r = std::size_t(c[i].rank);
    if (in[i].size < from_sizes[r] || (from_sizes[r] > 0 && in[i].data == nullptr))
      throw invalid_argument(fn, "in", "each shard must hold its rank's from_sizes elements");
    if (out[i].size < to_sizes[r] || (to_sizes[r] > 0 && out[i].data == nullptr))
      throw invalid_argument(fn, "out", "each shard must hold its rank's to_sizes elements");
    if (cuprim::detail::ranges_overlap(in[i].data, std::size_t(from_sizes[r]) * sizeof(T), out[i].data,
                                       std::size_t(to_sizes[r]) * sizeof(T)))
      throw invalid_argument(fn, "out", "must not overlap in");
  }
  // [lo, hi) of the global array that rank a's old slice and rank b's new slice share.
  const auto overlap = [](std::int64_t a0, std::int64_t a1, std::int64_t b0, std::int64_t b1) {
    return std::pair{std::max(a0, b0), std::min(a1, b1)};
  };
  // What stays on a rank is a device copy, issued before the group: a failing CUDA call must not leave a group
  // half-issued (peers would wait for sends that never come).
  detail::each_rank(c, [&](const local_rank& l, int i) {
    const auto r = std::size_t(l.rank);
    const auto [lo, hi] = overlap(from[r], from[r + 1], to[r], to[r + 1]);
    if (hi > lo)
      CUPRIM_CUDA_CHECK(cudaMemcpyAsync(out[i].data + (lo - to[r]), in[i].data + (lo - from[r]),
                                        std::size_t(hi - lo) * sizeof(T), cudaMemcpyDeviceToDevice, l.stream));
  });
  detail::each_rank_grouped(c, [&](const local_rank& l, int i) {
    const auto r = std::size_t(l.rank);
    for (std::size_t q = 0; q < std::size_t(c.size()); ++q) {
      if (q == r) continue;
      const auto [slo, shi] = overlap(from[r], from[r + 1], to[q], to[q + 1]);  // mine, to rank q
      const auto [rlo, rhi] = overlap(to[r], to[r + 1], from[q], from[q + 1]);  // rank q's, to me
      if (shi > slo)
        CUPRIM_NCCL_CHECK(ncclSend(in[i].data + (slo - from[r]), std::size_t(shi - slo) * sizeof(T), ncclUint8,
                                   int(q), l.comm, l.stream));
      if (rhi > rlo)
        CUPRIM_NCCL_CHECK(ncclRecv(out[i].data + (rlo - to[r]), std::size_t(rhi - rlo) * sizeof(T), ncclUint8,
                                   int(q), l.comm, l.stream));
    }
  });
}

/// redistribute of a non-const view.
template <class T>
void redistribute(const communicator& c, const sharded<T>& in, std::span<const std::int64_t> from_sizes,
                  const sharded<T>& out, std::span<const std::int64_t> to_sizes) {
  redistribute(c, sharded<const T>(in), from_sizes, out, to_sizes);
}

}  // namespace cuprim::multi
