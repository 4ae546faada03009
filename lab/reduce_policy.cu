// lab/reduce_policy.cu: the reduction policy sweep (`cuprim-lab run reduce/policy`): the production kernel under
// explicit policies, threads ∈ {256, 512} × unroll ∈ {2, 4, 8} × blocks_per_sm ∈ {2, 4, 8}, 16-byte vectors,
// float sum of 2^28 elements, each against CUB. Full suite only. Its own translation unit, so the 18 kernel
// instantiations compile in parallel with reduce.cu.
#include "reduce_common.cuh"

#include <type_traits>

namespace lab {
namespace {

using namespace reduce_family;

template <int Threads, int Unroll, int BlocksPerSm>
void add_policy(std::int64_t n) {
  using P = cuprim::reduce_policy<Threads, 16, Unroll, BlocksPerSm>;
  const bool is_default = std::is_same_v<P, cuprim::reduce_default_policy<float>::type>;
  const std::string label = policy_label<P>();
  add_case(device_case<float, rop::sum>("reduce/policy/" + label + "/float/" + size_label(n), "sum",
                                        is_default ? label + " (default)" : label, n, false,
                                        [](const float* in, float* out, std::int64_t m, cuprim::workspace ws,
                                           cudaStream_t s) { cuprim_reduce<P, float, rop::sum>(in, out, m, ws, s); }));
}

template <int Threads, int Unroll>
void add_blocks(std::int64_t n) {
  add_policy<Threads, Unroll, 2>(n);
  add_policy<Threads, Unroll, 4>(n);
  add_policy<Threads, Unroll, 8>(n);
}

template <int Threads>
void add_unrolls(std::int64_t n) {
  add_blocks<Threads, 2>(n);
  add_blocks<Threads, 4>(n);
  add_blocks<Threads, 8>(n);
}

}  // namespace

void register_reduce_policy() {
  const std::int64_t n = std::int64_t(1) << 28;
  add_unrolls<256>(n);
  add_unrolls<512>(n);
  add_note("reduce/policy/", "reduce policy sweep rows: tT-vV-uU-bB = T threads per block, V-byte vector loads, U loads "
                     "in flight per thread, B blocks per SM");
}

}  // namespace lab
