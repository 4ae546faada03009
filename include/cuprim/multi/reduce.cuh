// cuprim/multi/reduce.cuh: the reduction of a sharded array, its result on every rank (an all-reduce).
//
//   cuprim::multi::reduce(comm, in, out, op, init)   *out[i] = init ⊕ (every element of every shard, in rank order)
//   cuprim::multi::sum(comm, in, out) / min / max
//
// in: the local ranks' shards (cuprim/multi/sharded.hpp); out: one element (or more: the first is written) per local
// rank, on its device. Each rank reduces its shard with cuprim::reduce, the P partials are all-gathered (one small
// collective), and every rank folds them in rank order: every rank gets the same bits, on every run. Ordered on the
// communicator's streams; nothing waits on the host.
//
// Floating-point results differ from a one-GPU reduce of the concatenated array only by the order of the additions
// (each rank's partial, then P - 1 more): the error bound is the one-GPU bound of n elements plus P - 1 roundings.
// op must be associative; identity-free ops are fine (empty shards contribute nothing).
//
// Rules (cuprim::invalid_argument before anything runs): one shard per local rank in `in` and `out`, shard sizes
// ≥ 0, non-null data where a shard is not empty, every out shard at least one element.
#pragma once

#include <cuprim/core/validate.hpp>
#include <cuprim/multi/detail/nccl.hpp>
#include <cuprim/multi/detail/partials.cuh>
#include <cuprim/multi/sharded.hpp>

namespace cuprim::multi {

namespace detail {
template <class Out, class Acc>
__global__ void store_partial_kernel(const partial<Acc>* p, Out* out) {
  *out = cuprim::detail::convert<Out>(p->value);
}
}  // namespace detail

/// *out[i] = init ⊕ in[all ranks] for every local rank i (see the file comment).
template <class In, class Out, class Op, class Init>
void reduce(const communicator& c, const sharded<In>& in, const sharded<Out>& out, Op op, Init init) {
  CUPRIM_ENTRY_NAME(fn);
  using Acc = accumulator_t<Init>;
  detail::check_shards(fn, "in", c, in);
  detail::check_shards(fn, "out", c, out, 1);
  for (int i = 0; i < c.local_size(); ++i) cuprim::detail::reduce_validate(fn, in[i].data, out[i].data, in[i].size);
  detail::gathered_partials<Acc> g(c, in, op);
  detail::each_rank(c, [&](const local_rank& l, int i) {
    detail::fold_partials_kernel<detail::known_identity<Op, Acc>>
        <<<1, 1, 0, l.stream>>>(g.gathered(i), c.size(), op, cuprim::detail::convert<Acc>(init), 1, g.result(i));
    cuprim::detail::check_launch(fn);
    detail::store_partial_kernel<<<1, 1, 0, l.stream>>>(g.result(i), out[i].data);
    cuprim::detail::check_launch(fn);
  });
}

/// *out[i] = Σ in[all ranks], accumulated in out's type (float for 16-bit floats).
template <class In, class Out>
void sum(const communicator& c, const sharded<In>& in, const sharded<Out>& out) {
  reduce(c, in, out, plus{}, accumulator_t<Out>(0));
}

/// *out[i] = the smallest element of every shard (the type's highest value when all are empty).
template <class In, class T>
void min(const communicator& c, const sharded<In>& in, const sharded<T>& out) {
  reduce(c, in, out, minimum{}, numeric_traits<T>::highest());
}

/// *out[i] = the largest element of every shard (the type's lowest value when all are empty).
template <class In, class T>
void max(const communicator& c, const sharded<In>& in, const sharded<T>& out) {
  reduce(c, in, out, maximum{}, numeric_traits<T>::lowest());
}

}  // namespace cuprim::multi
