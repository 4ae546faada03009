// cuprim/device/detail/reduce_kernel.cuh: the production reduction kernel (agent and __global__).
//
// Production path (two launches, the second a programmatic dependent launch, PDL):
//  1. Each block strides over full tiles (threads × unroll vectors of 16 bytes), keeping `unroll` independent
//     loads in flight per thread and one accumulator per load slot; every block owns at least one full tile,
//     so accumulators start from data and no identity element is needed (any user operator works).
//  2. The misaligned head (< one vector) and the partial last tile are spread over the grid's threads.
//  3. The block reduces by warp shuffles (block::reducer) and writes one partial.
//  4. One block (the same kernel over the partials, launched with programmatic stream serialisation so that
//     its launch overlaps the first grid; it waits on griddepcontrol.wait) reduces the partials in block
//     order, applies init and writes the result.
// reduce_finish::single_pass instead finishes in the first launch: the last block to take an atomic ticket
// reduces the partials (the ladder's single_pass rung; the ticket must be zeroed before the launch).
// The order of every operation depends only on n, the alignment of the input and the grid size, so results
// are bitwise reproducible run to run. Inputs smaller than one tile run in one block and one launch.
// Inside a thread's run of increasing element indices, step() lets an indexed operator (argmin/argmax) use a
// cheaper form with no index comparison; the pass over partials, whose indices are not in order, never does.
#pragma once

#include <cuprim/block/reduce.cuh>
#include <cuprim/core/functional.cuh>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/load.cuh>
#include <cuprim/device/detail/reduce_tuning.cuh>

#include <cstdint>

namespace cuprim::detail {

/// A transform that also receives the element's index (used by argmin / argmax).
template <class F>
concept indexed_transform = requires { F::indexed; };

/// Applies the transform to element `x` at global index `i`, giving an accumulator value.
template <class Acc, class F, class In>
__device__ __forceinline__ Acc feed(const F& f, const In& x, std::uint64_t i) {
  if constexpr (indexed_transform<F>) return f(x, static_cast<std::int64_t>(i));
  else return convert<Acc>(f(x));
}

/// What a block does with its partial: finish the reduction itself when it is the last (single pass),
/// or only store it (the first pass of a two-pass reduction).
enum class reduce_finish { single_pass, partials_only };

/// ReadOnly: the input does not change while the kernel runs, so it may be read through the read-only cache.
/// The final pass over partials is a dependent launch that starts while the first grid still writes them:
/// it is instantiated with ReadOnly = false and reads them with ordinary coherent loads.
/// Policy: a policy_constant of a reduce_policy.
template <class Policy, reduce_finish Finish, bool ReadOnly, class In, class Acc, class Out, class Op, class F>
__global__ void __launch_bounds__(Policy::value.threads)
reduce_kernel(const In* in, std::uint64_t n, std::uint64_t head, Out* out, Acc init, Op op, F f,
              Acc* partials, unsigned* ticket) {
  constexpr reduce_policy P = Policy::value;
  using vt = vector_traits<In, P.vector_bytes>;
  using reducer = block::reducer<Acc, P.threads>;
  constexpr int V = vt::elems, U = P.unroll, TH = P.threads;
  constexpr std::uint64_t tile_elems = std::uint64_t(TH) * U * V;
  __shared__ uninitialized<typename reducer::storage> smem_raw;
  __shared__ bool is_last;
  auto& smem = smem_raw.get();

  // Let a dependent launch (programmatic stream serialisation) start early; when this kernel is itself such a
  // dependent launch, wait for the grid it depends on. Both are no-ops for ordinary launches.
  allow_dependent_launch();
  wait_for_prerequisite_grid();
  const int tid = threadIdx.x;
  const In* body = in + head;
  const std::uint64_t full_tiles = (n - head) / tile_elems;
  Acc acc = init;  // overwritten from data before use; init only keeps the value defined
  int valid_threads = TH;

  if (full_tiles > 0) {
    // Grid ≤ full_tiles: tile blockIdx.x exists, so every thread starts from real data.
    Acc accs[U];
    std::uint64_t t = blockIdx.x;
    {
      In v[U][V];
      const In* base = body + t * tile_elems;
#pragma unroll
      for (int k = 0; k < U; ++k)
        load_vector<In, P.vector_bytes, ReadOnly>(base + (std::uint64_t(k) * TH + tid) * V, v[k]);
#pragma unroll
      for (int k = 0; k < U; ++k) {
        std::uint64_t i0 = head + t * tile_elems + (std::uint64_t(k) * TH + tid) * V;
        accs[k] = feed<Acc>(f, v[k][0], i0);
#pragma unroll
        for (int e = 1; e < V; ++e) accs[k] = step<indexed_transform<F>>(op, accs[k], feed<Acc>(f, v[k][e], i0 + e));
      }
    }
    for (t += gridDim.x; t < full_tiles; t += gridDim.x) {
      In v[U][V];
      const In* base = body + t * tile_elems;
#pragma unroll
      for (int k = 0; k < U; ++k)
        load_vector<In, P.vector_bytes, ReadOnly>(base + (std::uint64_t(k) * TH + tid) * V, v[k]);
#pragma unroll
      for (int k = 0; k < U; ++k) {
        std::uint64_t i0 = head + t * tile_elems + (std::uint64_t(k) * TH + tid) * V;
#pragma unroll
        for (int e = 0; e < V; ++e) accs[k] = step<indexed_transform<F>>(op, accs[k], feed<Acc>(f, v[k][e], i0 + e));
      }
    }
    acc = accs[0];
#pragma unroll
    for (int k = 1; k < U; ++k) acc = op(acc, accs[k]);
    // Leftovers: the misaligned head and the partial last tile, spread over all threads of the grid.
    const std::uint64_t gtid = std::uint64_t(blockIdx.x) * TH + tid, gthreads = std::uint64_t(gridDim.x) * TH;
    if (gtid < head) acc = op(acc, feed<Acc>(f, in[gtid], gtid));
    for (std::uint64_t i = head + full_tiles * tile_elems + gtid; i < n; i += gthreads)
      acc = step<indexed_transform<F>>(op, acc, feed<Acc>(f, in[i], i));  // the partial tile follows every full tile
  } else {
    // Less than one tile: a single block, strided scalar loads; threads past n hold nothing.
    valid_threads = n < TH ? static_cast<int>(n) : TH;
    if (static_cast<std::uint64_t>(tid) < n) {
      acc = feed<Acc>(f, in[tid], tid);
      for (std::uint64_t i = tid + TH; i < n; i += TH)
        acc = step<indexed_transform<F>>(op, acc, feed<Acc>(f, in[i], i));
    }
  }

  Acc total = valid_threads == TH ? reducer::reduce(acc, op, smem) : reducer::reduce(acc, op, valid_threads, smem);

  if (gridDim.x == 1) {
    if (tid == 0) *out = convert<Out>(op(init, total));
    return;
  }
  if (tid == 0) partials[blockIdx.x] = total;
  if constexpr (Finish == reduce_finish::partials_only) {
    return;
  } else {
    if (tid == 0) {
      __threadfence();  // publish the partial before taking a ticket
      is_last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;
    __threadfence();  // every other block's partial is visible now
    const int g = static_cast<int>(gridDim.x);
    Acc a = init;
    if (tid < g) {
      a = load_cg(partials + tid);
      for (int i = tid + TH; i < g; i += TH) a = op(a, load_cg(partials + i));
    }
    __syncthreads();  // smem is reused
    total = reducer::reduce(a, op, g < TH ? g : TH, smem);
    if (tid == 0) {
      *out = convert<Out>(op(init, total));
      *ticket = 0;  // re-arm: the workspace is left ready for the next call
    }
  }
}

/// Writes one value (the result of an empty reduction).
template <class Out, class Acc>
__global__ void write_value_kernel(Out* out, Acc value) {
  *out = convert<Out>(value);
}

}  // namespace cuprim::detail
