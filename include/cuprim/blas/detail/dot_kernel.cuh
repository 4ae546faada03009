// cuprim/blas/detail/dot_kernel.cuh: the dot product's first pass (a transform-reduce over two strided vectors).
//
// Each of at most blocks_per_sm × SMs blocks strides over the elements: with unit strides and both vectors 16-byte
// aligned (Vec), over 16-byte vectors of both (the last n mod V elements by the grid's first threads), else over
// single elements at x[k·incx], y[k·incy]. A thread keeps `unroll` accumulators, one per load slot, summed in a
// fixed order; the block adds its threads by warp shuffles (block::reducer) and writes one partial, or the result
// when the grid is one block. The host then launches the reduction's final pass (device/detail/reduce_kernel.cuh)
// over the partials. The order depends only on n, the strides, the alignment and the grid: the same bits each run.
#pragma once

#include <cuprim/blas/detail/gemv_tuning.cuh>
#include <cuprim/block/reduce.cuh>
#include <cuprim/core/functional.cuh>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/load.cuh>

#include <cstdint>

namespace cuprim::detail {

template <class Policy, bool Vec, class In, class Acc, class Out>
__global__ void __launch_bounds__(Policy::value.threads)
dot_kernel(const In* x, std::int64_t incx, const In* y, std::int64_t incy, std::int64_t n, Out* out,
           Acc* partials) {
  constexpr blas::dot_policy P = Policy::value;
  constexpr int V = Vec ? 16 / int(sizeof(In)) : 1, U = P.unroll;
  using reducer = block::reducer<Acc, P.threads>;
  __shared__ uninitialized<typename reducer::storage> smem_raw;
  allow_dependent_launch();

  const std::int64_t tid = std::int64_t(blockIdx.x) * P.threads + threadIdx.x;
  const std::int64_t stride = std::int64_t(gridDim.x) * P.threads;
  Acc accs[U];
#pragma unroll
  for (int u = 0; u < U; ++u) accs[u] = Acc(0);
  const std::int64_t vectors = n / V;
  std::int64_t k = tid;
  for (; k + std::int64_t(U - 1) * stride < vectors; k += std::int64_t(U) * stride) {
    In a[U][V], b[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t e = (k + std::int64_t(u) * stride) * V;
      if constexpr (Vec) {
        load_vector<In, 16>(x + e, a[u]);
        load_vector<In, 16>(y + e, b[u]);
      } else {
        a[u][0] = x[e * incx];
        b[u][0] = y[e * incy];
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int v = 0; v < V; ++v) accs[u] += convert<Acc>(a[u][v]) * convert<Acc>(b[u][v]);
  }
  for (; k < vectors; k += stride) {  // fewer than U vectors left
    In a[V], b[V];
    if constexpr (Vec) {
      load_vector<In, 16>(x + k * V, a);
      load_vector<In, 16>(y + k * V, b);
    } else {
      a[0] = x[k * incx];
      b[0] = y[k * incy];
    }
#pragma unroll
    for (int v = 0; v < V; ++v) accs[0] += convert<Acc>(a[v]) * convert<Acc>(b[v]);
  }
  if (Vec && tid < n - vectors * V) {  // the last n mod V elements
    const std::int64_t e = vectors * V + tid;
    accs[0] += convert<Acc>(x[e]) * convert<Acc>(y[e]);
  }
  Acc acc = accs[0];
#pragma unroll
  for (int u = 1; u < U; ++u) acc += accs[u];
  const Acc total = reducer::reduce(acc, plus{}, smem_raw.get());
  if (threadIdx.x != 0) return;
  if (gridDim.x == 1) *out = convert<Out>(total);
  else partials[blockIdx.x] = total;
}

}  // namespace cuprim::detail
