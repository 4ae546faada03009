// cuprim/multi/scan.cuh: prefix scans of a sharded array; every rank's output continues the ranks before it.
//
//   cuprim::multi::inclusive_scan(comm, in, out, op)          out = in[0] ⊕ ... ⊕ in[g] at global index g
//   cuprim::multi::exclusive_scan(comm, in, out, op, init)    out = init ⊕ in[0] ⊕ ... ⊕ in[g - 1]
//   cuprim::multi::inclusive_sum / exclusive_sum(comm, in, out)
//
// Three steps: every rank reduces its shard (cuprim::reduce: it reads the shard once), the P partials are
// all-gathered, and every rank scans its shard with the fold of the ranks before it as its init (cuprim's
// single-GPU scan: one more read and one write). So each element is moved three times where one GPU moves it twice:
// P GPUs reach at most 2P/3 times one GPU's rate.
//
// Waits on the host: between the gather and the local scans, each rank's carry-in (a few bytes) is copied to the
// host, because the single-GPU scan takes its init by value. Everything else is ordered on the communicator's
// streams. The result is the same bits on every run; for floating-point data it differs from a one-GPU scan only by
// the association of the ranks' partials.
//
// Rules (cuprim::invalid_argument before anything runs): one shard per local rank in `in` and `out`; out[i] has
// in[i]'s size (out == in, a scan in place, is allowed); non-null data where a shard is not empty.
#pragma once

#include <cuprim/core/validate.hpp>
#include <cuprim/device/scan.cuh>
#include <cuprim/multi/detail/nccl.hpp>
#include <cuprim/multi/detail/partials.cuh>
#include <cuprim/multi/sharded.hpp>

#include <vector>

namespace cuprim::multi {

namespace detail {

/// The scans' common path: Exclusive scans start from init on rank 0; every later rank starts from the fold of the
/// partials before it (and init).
template <bool Exclusive, class In, class Out, class Op>
void scan_run(const char* fn, const communicator& c, const sharded<In>& in, const sharded<Out>& out, Op op,
              accumulator_t<Out> init) {
  using Acc = accumulator_t<Out>;
  check_shards(fn, "in", c, in);
  check_shards(fn, "out", c, out);
  for (int i = 0; i < c.local_size(); ++i) {
    if (out[i].size != in[i].size) throw invalid_argument(fn, "out", "shard sizes must be in's shard sizes");
    cuprim::detail::scan_validate(fn, in[i].data, out[i].data, in[i].size);  // every rank's, before any runs
  }
  gathered_partials<Acc> g(c, in, op);
  // Each rank's carry: init (exclusive) ⊕ the partials of the ranks before it.
  std::vector<partial<Acc>> carry(std::size_t(c.local_size()));
  each_rank(c, [&](const local_rank& l, int i) {
    fold_partials_kernel<known_identity<Op, Acc>>
        <<<1, 1, 0, l.stream>>>(g.gathered(i), l.rank, op, init, Exclusive ? 1 : 0, g.result(i));
    cuprim::detail::check_launch(fn);
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(&carry[std::size_t(i)], g.result(i), sizeof(partial<Acc>),
                                      cudaMemcpyDeviceToHost, l.stream));
  });
  c.synchronize();
  each_rank(c, [&](const local_rank& l, int i) {
    const partial<Acc> k = carry[std::size_t(i)];
    if constexpr (Exclusive)
      cuprim::detail::scan_run<tuned, true>(fn, in[i].data, out[i].data, in[i].size, op, k.value, nullptr, l.stream);
    else if (k.has)
      cuprim::detail::scan_run<tuned, false, std::remove_const_t<In>, Out, Op, true>(
          fn, in[i].data, out[i].data, in[i].size, op, k.value, nullptr, l.stream);
    else
      cuprim::detail::scan_run<tuned, false>(fn, in[i].data, out[i].data, in[i].size, op, Acc{}, nullptr, l.stream);
  });
}

}  // namespace detail

/// out = the inclusive ⊕-scan of the global array (see the file comment).
template <class In, class Out, class Op>
void inclusive_scan(const communicator& c, const sharded<In>& in, const sharded<Out>& out, Op op) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_run<false>(fn, c, in, out, op, accumulator_t<Out>{});
}

/// out = the exclusive ⊕-scan of the global array, starting from init.
template <class In, class Out, class Op, class Init>
void exclusive_scan(const communicator& c, const sharded<In>& in, const sharded<Out>& out, Op op, Init init) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_run<true>(fn, c, in, out, op, cuprim::detail::convert<accumulator_t<Out>>(init));
}

/// out = the inclusive sum of the global array.
template <class In, class Out>
void inclusive_sum(const communicator& c, const sharded<In>& in, const sharded<Out>& out) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_run<false>(fn, c, in, out, plus{}, accumulator_t<Out>{});
}

/// out = the exclusive sum of the global array (0 first).
template <class In, class Out>
void exclusive_sum(const communicator& c, const sharded<In>& in, const sharded<Out>& out) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_run<true>(fn, c, in, out, plus{}, cuprim::detail::convert<accumulator_t<Out>>(0));
}

}  // namespace cuprim::multi
