// lab/reduce_sweep.cu: the reduction's policy sweep (`cuprim-lab sweep reduce`): the production kernel under named
// policies, threads ∈ {256, 512} × unroll ∈ {2, 4, 8} × blocks_per_sm ∈ {2, 4, 8}, 16-byte vectors, float sum of
// 2^28 elements, each against CUB. Its own translation unit, so the 18 kernel instantiations compile in parallel
// with reduce.cu.
#include "reduce_common.cuh"

namespace lab {
namespace {

using namespace reduce_family;

template <cuprim::reduce_policy P>
void add_policy(std::int64_t n) {
  const bool is_default = P == cuprim::reduce_policy_for<float>(cuprim::tuned_archs[0]);
  const std::string label = policy_label(P);
  case_def c = device_case<float, rop::sum>("reduce/sweep/" + label + "/float/" + size_label(n), "sum",
                                            is_default ? label + " (default)" : label, n, false,
                                            [](const float* in, float* out, std::int64_t m, cuprim::workspace ws,
                                               cudaStream_t s) { cuprim_reduce<P, float, rop::sum>(in, out, m, ws, s); });
  c.sweep = true;
  c.policy = [] { return record_policy(P); };
  add_case(std::move(c));
}

template <int Threads, int Unroll>
void add_blocks(std::int64_t n) {
  add_policy<cuprim::reduce_policy{.threads = Threads, .unroll = Unroll, .blocks_per_sm = 2}>(n);
  add_policy<cuprim::reduce_policy{.threads = Threads, .unroll = Unroll, .blocks_per_sm = 4}>(n);
  add_policy<cuprim::reduce_policy{.threads = Threads, .unroll = Unroll, .blocks_per_sm = 8}>(n);
}

template <int Threads>
void add_unrolls(std::int64_t n) {
  add_blocks<Threads, 2>(n);
  add_blocks<Threads, 4>(n);
  add_blocks<Threads, 8>(n);
}

}  // namespace

void register_reduce_sweep() {
  const std::int64_t n = std::int64_t(1) << 28;
  add_unrolls<256>(n);
  add_unrolls<512>(n);
  add_note("reduce/sweep/", "reduce sweep rows: tT-vV-uU-bB = T threads per block, V-byte vector loads, U loads "
                            "in flight per thread, B blocks per SM");
}

}  // namespace lab
