// lab/ladder/reduce.cuh: the reduction optimisation ladder as selectable, correct variants (teaching code: built,
// tested and measured by the lab, not part of the installed library).
//
//   cuprim::ladder::reduce(variant, in, out, n, op, init, stream)
//
// The seed's steps (003, "Parallel Reduction") in order, then three steps beyond it. Each variant computes the
// same function as cuprim::reduce for any type and associative, commutative operator; they exist to be measured
// (cuprim-lab run reduce/ladder) and read. Production code calls cuprim::reduce, which is the dependent_launch rung.
//
//   interleaved_divergent    1. interleaved addressing, `tid % (2s) == 0` (divergent warps)
//   interleaved_strided      2. interleaved addressing, strided index (shared-memory bank conflicts)
//   sequential_addressing    3. sequential addressing (conflict-free, half the threads idle)
//   first_add_during_load    4. two loads and one add per thread before the tree
//   unroll_last_warp         5. the last warp without __syncthreads (correct with __syncwarp, not `volatile`)
//   complete_unroll          6. the whole tree unrolled with a template block size
//   multiple_elements        7. grid-stride loop, many elements per thread (the seed's final kernel)
//   warp_shuffle             8. 7 with a shuffle-based warp stage instead of shared memory
//   vector_loads             9. 8 with 16-byte loads, several in flight per thread (two launches)
//   single_pass             10. 9 finished in one launch by the last block to take an atomic ticket
//   dependent_launch        11. 9 with the second launch a programmatic dependent launch (PDL): its launch
//                               overlaps the first grid, and no ticket needs zeroing. This is cuprim::reduce:
//                               it measured fastest on an H200 (docs/tuning/reduce.md).
//
// Variants 1-8 launch passes until one value remains, as the seed's host loop does. Workspace comes from the
// current memory resource. Errors as for cuprim::reduce.
#pragma once

#include "common.cuh"
#include "reduce_kernels.cuh"

#include <cuprim/device/reduce.cuh>

#include <array>
#include <string_view>

namespace cuprim::ladder {

enum class reduce_variant {
  interleaved_divergent,
  interleaved_strided,
  sequential_addressing,
  first_add_during_load,
  unroll_last_warp,
  complete_unroll,
  multiple_elements,
  warp_shuffle,
  vector_loads,
  single_pass,
  dependent_launch,
};

/// Every rung, in the ladder's order.
inline constexpr std::array<reduce_variant, 11> reduce_variants = {
    reduce_variant::interleaved_divergent, reduce_variant::interleaved_strided,
    reduce_variant::sequential_addressing, reduce_variant::first_add_during_load,
    reduce_variant::unroll_last_warp,      reduce_variant::complete_unroll,
    reduce_variant::multiple_elements,     reduce_variant::warp_shuffle,
    reduce_variant::vector_loads,          reduce_variant::single_pass,
    reduce_variant::dependent_launch};

/// The rung's name as the lab prints it.
constexpr std::string_view to_string(reduce_variant v) {
  constexpr std::array<std::string_view, 11> names = {
      "interleaved_divergent", "interleaved_strided", "sequential_addressing", "first_add_during_load",
      "unroll_last_warp",      "complete_unroll",     "multiple_elements",     "warp_shuffle",
      "vector_loads",          "single_pass",         "dependent_launch"};
  return names[static_cast<int>(v)];
}

/// Rungs 1-8 use one launch shape (rung_policy); rungs 9-11 run the production kernel under the reduce_policy of
/// their input type (reduce_policy_for).
inline constexpr bool takes_reduce_policy(reduce_variant v) {
  return v == reduce_variant::vector_loads || v == reduce_variant::single_pass || v == reduce_variant::dependent_launch;
}

/// The launch shape of rungs 1-8: 256 threads; rungs 4-8 load two elements per thread before the tree (7-8 then
/// stride over the rest of the input).
inline constexpr rung_policy reduce_rung_policy(reduce_variant v) {
  const bool one = v == reduce_variant::interleaved_divergent || v == reduce_variant::interleaved_strided ||
                   v == reduce_variant::sequential_addressing;
  return {.threads = 256, .items = one ? 1 : 2};
}

namespace detail {

template <class Acc, class Out, class Op>
__global__ void ladder_finish_kernel(const Acc* partial, Out* out, Acc init, Op op) {
  *out = convert<Out>(op(init, *partial));
}

/// One pass of rungs 1-8: reduces n elements to one partial per block; returns the number of partials.
template <class In, class Acc, class Op>
std::uint64_t ladder_pass(reduce_variant v, const In* in, std::uint64_t n, Acc* out, Op op, cudaStream_t stream) {
  namespace L = cuprim::ladder::detail;
  constexpr int B = L::block_threads;
  const std::size_t smem = B * sizeof(Acc);
  static_assert(B == reduce_rung_policy(reduce_variant::interleaved_divergent).threads);
  const std::uint64_t per_block = std::uint64_t(B) * reduce_rung_policy(v).items;
  std::uint64_t grid = (n + per_block - 1) / per_block;
  if (v == reduce_variant::multiple_elements || v == reduce_variant::warp_shuffle) {
    // A fixed, occupancy-filling grid; each thread strides over many elements (the seed's final kernel).
    grid = std::min<std::uint64_t>((n + B - 1) / B, std::uint64_t(get_device_info().sm_count) * 8);
  }
  const unsigned g = static_cast<unsigned>(grid);
  switch (v) {
    case reduce_variant::interleaved_divergent: L::interleaved_divergent<<<g, B, smem, stream>>>(in, n, out, op); break;
    case reduce_variant::interleaved_strided: L::interleaved_strided<<<g, B, smem, stream>>>(in, n, out, op); break;
    case reduce_variant::sequential_addressing: L::sequential_addressing<<<g, B, smem, stream>>>(in, n, out, op); break;
    case reduce_variant::first_add_during_load: L::first_add_during_load<<<g, B, smem, stream>>>(in, n, out, op); break;
    case reduce_variant::unroll_last_warp: L::unroll_last_warp<<<g, B, smem, stream>>>(in, n, out, op); break;
    case reduce_variant::complete_unroll: L::complete_unroll<B><<<g, B, smem, stream>>>(in, n, out, op); break;
    case reduce_variant::multiple_elements: L::multiple_elements<B><<<g, B, smem, stream>>>(in, n, out, op); break;
    case reduce_variant::warp_shuffle: L::warp_shuffle<B><<<g, B, 0, stream>>>(in, n, out, op); break;
    default: throw_invalid("cuprim::ladder::reduce", "variant", "is not a multi-pass rung");
  }
  check_launch("cuprim::ladder::reduce pass");
  return grid;
}

/// The ladder's workspace: two ping-pong partial arrays of one value per block of the first pass, and a ticket.
template <class Acc>
struct reduce_layout {
  workspace_part<Acc> a, b;  // (blocks) each
  workspace_part<unsigned> ticket;
  workspace_layout L;
  explicit reduce_layout(std::uint64_t n) {
    const std::uint64_t blocks = (n + block_threads - 1) / block_threads;
    a = L.add<Acc>(blocks);
    b = L.add<Acc>(blocks);
    ticket = L.add<unsigned>(1);
  }
};

}  // namespace detail

/// *out = init ⊕ in[0] ⊕ ... ⊕ in[n-1] computed by the ladder's rung `variant`.
template <class In, class Out, class Op, class Init>
void reduce(reduce_variant variant, const In* in, Out* out, std::int64_t n, Op op, Init init,
            cudaStream_t stream = 0) {
  using namespace cuprim::detail;
  CUPRIM_ENTRY_NAME(fn);
  using Acc = accumulator_t<Init>;
  reduce_validate(fn, in, out, n);
  if (static_cast<unsigned>(variant) >= reduce_variants.size()) throw_invalid(fn, "variant", "is not a reduce_variant");
  check_no_pending_error(fn);
  const Acc acc_init = convert<Acc>(init);
  if (variant == reduce_variant::dependent_launch) {
    cuprim::reduce(in, out, n, op, init, stream);
    return;
  }
  if (n == 0) {
    write_value_kernel<Out, Acc><<<1, 1, 0, stream>>>(out, acc_init);
    check_launch(fn);
    return;
  }
  const detail::reduce_layout<Acc> L{std::uint64_t(n)};
  scratch ws(L.L.bytes(), stream);
  Acc* a = L.a.in(ws.get());
  Acc* b = L.b.in(ws.get());
  constexpr reduce_policy P = reduce_policy_for<In>(tuned_archs[0]);
  const std::uint64_t un = std::uint64_t(n);
  const unsigned grid = reduce_grid<P>(in, un);
  using vt = vector_traits<In, P.vector_bytes>;
  const std::uint64_t head = vt::vectorized ? misaligned_head(in, un, P.vector_bytes) : 0;
  if (variant == reduce_variant::single_pass) {
    // One launch; the last block to take a ticket (zeroed first) reduces the partials.
    unsigned* ticket = L.ticket.in(ws.get());
    if (grid > 1) CUPRIM_CUDA_CHECK(cudaMemsetAsync(ticket, 0, sizeof(unsigned), stream));
    reduce_kernel<policy_constant<P>, reduce_finish::single_pass, true>
        <<<grid, P.threads, 0, stream>>>(in, un, head, out, acc_init, op, identity{}, a, ticket);
    check_launch(fn);
    return;
  }
  if (variant == reduce_variant::vector_loads) {
    // Pass 1 writes one partial per block; pass 2 (one block, an ordinary launch) finishes with init.
    constexpr reduce_policy PA = reduce_policy_for<Acc>(tuned_archs[0]);
    reduce_kernel<policy_constant<P>, reduce_finish::partials_only, true>
        <<<grid, P.threads, 0, stream>>>(in, un, head, out, acc_init, op, identity{}, a, nullptr);
    check_launch(fn);
    if (grid > 1) {
      reduce_kernel<policy_constant<PA>, reduce_finish::partials_only, false>
          <<<1, PA.threads, 0, stream>>>(a, std::uint64_t(grid), 0, out, acc_init, op, identity{}, b, nullptr);
      check_launch(fn);
    }
    return;
  }
  std::uint64_t m = detail::ladder_pass(variant, in, un, a, op, stream);
  while (m > 1) {
    m = detail::ladder_pass(variant, static_cast<const Acc*>(a), m, b, op, stream);
    std::swap(a, b);
  }
  detail::ladder_finish_kernel<<<1, 1, 0, stream>>>(a, out, acc_init, op);
  check_launch(fn);
}

}  // namespace cuprim::ladder
