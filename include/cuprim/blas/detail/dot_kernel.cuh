// cuprim/blas/detail/dot_kernel.cuh: the first pass of the level-1 reductions (dot, asum, nrm2): a transform-reduce
// over one or two strided vectors. The Term says what each element contributes (dot_term: x_k·y_k; asum_term: |x_k|;
// nrm2_term: x_k² in Blue's three scaled sums) and what the total becomes (finish).
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

#include <cmath>
#include <cstdint>

namespace cuprim::detail {

/// x_k·y_k in the accumulator.
struct dot_term {
  static constexpr bool binary = true;
  template <class Acc, class In>
  CUPRIM_HD static Acc term(const In& a, const In& b) {
    return convert<Acc>(a) * convert<Acc>(b);
  }
  template <class Out, class Acc>
  CUPRIM_HD static Out finish(const Acc& total) {
    return convert<Out>(total);
  }
};

/// |x_k| in the accumulator.
struct asum_term {
  static constexpr bool binary = false;
  template <class Acc, class In>
  CUPRIM_HD static Acc term(const In& a, const In&) {
    const Acc v = convert<Acc>(a);
    return v < Acc(0) ? -v : v;
  }
  template <class Out, class Acc>
  CUPRIM_HD static Out finish(const Acc& total) {
    return convert<Out>(total);
  }
};

/// Blue's three sums of squares (small, medium and big magnitudes, each scaled into double's safe range).
struct nrm2_sums {
  double sml = 0, med = 0, big = 0;
  friend CUPRIM_HD nrm2_sums operator+(const nrm2_sums& a, const nrm2_sums& b) {
    return {a.sml + b.sml, a.med + b.med, a.big + b.big};
  }
};

/// x_k² without overflow or underflow (Blue's algorithm; constants for IEEE double as in Anderson, "Algorithm 978:
/// Safe Scaling in the Level 1 BLAS", ACM TOMS 44(1), 2017): |x| above tbig is scaled by sbig before squaring, below
/// tsml by ssml, the rest squared as it is; finish combines the sums in the scale of the largest. Inputs of float and
/// the 16-bit types, converted to double, always land in the medium sum.
struct nrm2_term {
  static constexpr bool binary = false;
  static constexpr double tsml = 0x1p-511, tbig = 0x1p+486, ssml = 0x1p+537, sbig = 0x1p-538;
  template <class Acc, class In>
  CUPRIM_HD static nrm2_sums term(const In& a, const In&) {
    const double ax = ::fabs(convert<double>(a));
    nrm2_sums s;
    if (ax > tbig) s.big = (ax * sbig) * (ax * sbig);
    else if (ax < tsml) s.sml = (ax * ssml) * (ax * ssml);
    else s.med = ax * ax;  // NaN lands here and propagates
    return s;
  }
  template <class Out>
  CUPRIM_HD static Out finish(const nrm2_sums& s) {
    double r;
    if (s.med != s.med || s.big != s.big) {
      r = s.med + s.big;  // NaN
    } else if (s.big > 0) {
      r = ::sqrt(s.big + (s.med * sbig) * sbig) / sbig;  // the medium sum is negligible or of similar scale
    } else if (s.sml > 0 && s.med > 0) {
      const double ymed = ::sqrt(s.med), ysml = ::sqrt(s.sml) / ssml;
      const double lo = ymed < ysml ? ymed : ysml, hi = ymed < ysml ? ysml : ymed;
      r = hi * ::sqrt(1.0 + (lo / hi) * (lo / hi));
    } else if (s.sml > 0) {
      r = ::sqrt(s.sml) / ssml;
    } else {
      r = ::sqrt(s.med);
    }
    return convert<Out>(r);
  }
};

/// The first pass: every block reduces Term over its share of the elements (y is read only for a binary Term) and
/// writes one partial, or Term::finish of the total when the grid is one block.
template <class Policy, bool Vec, class Term, class In, class Acc, class Out>
__global__ void __launch_bounds__(Policy::value.threads)
level1_kernel(const In* x, std::int64_t incx, const In* y, std::int64_t incy, std::int64_t n, Out* out,
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
  for (int u = 0; u < U; ++u) accs[u] = Acc{};
  const std::int64_t vectors = n / V;
  std::int64_t k = tid;
  for (; k + std::int64_t(U - 1) * stride < vectors; k += std::int64_t(U) * stride) {
    In a[U][V], b[U][V];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t e = (k + std::int64_t(u) * stride) * V;
      if constexpr (Vec) {
        load_vector<In, 16>(x + e, a[u]);
        if constexpr (Term::binary) load_vector<In, 16>(y + e, b[u]);
      } else {
        a[u][0] = x[e * incx];
        if constexpr (Term::binary) b[u][0] = y[e * incy];
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int v = 0; v < V; ++v) accs[u] = accs[u] + Term::template term<Acc>(a[u][v], b[u][v]);
  }
  for (; k < vectors; k += stride) {  // fewer than U vectors left
    In a[V], b[V];
    if constexpr (Vec) {
      load_vector<In, 16>(x + k * V, a);
      if constexpr (Term::binary) load_vector<In, 16>(y + k * V, b);
    } else {
      a[0] = x[k * incx];
      if constexpr (Term::binary) b[0] = y[k * incy];
    }
#pragma unroll
    for (int v = 0; v < V; ++v) accs[0] = accs[0] + Term::template term<Acc>(a[v], b[v]);
  }
  if (Vec && tid < n - vectors * V) {  // the last n mod V elements
    const std::int64_t e = vectors * V + tid;
    accs[0] = accs[0] + Term::template term<Acc>(x[e], Term::binary ? y[e] : x[e]);
  }
  Acc acc = accs[0];
#pragma unroll
  for (int u = 1; u < U; ++u) acc = acc + accs[u];
  const Acc total = reducer::reduce(acc, plus{}, smem_raw.get());
  if (threadIdx.x != 0) return;
  if (gridDim.x == 1) *out = Term::template finish<Out>(total);
  else partials[blockIdx.x] = total;
}

/// The last pass of a Term whose total needs more than a conversion (nrm2): one block adds the partials in a fixed
/// order and writes Term::finish of the sum.
template <int Threads, class Term, class Acc, class Out>
__global__ void __launch_bounds__(Threads) level1_finish_kernel(const Acc* partials, unsigned count, Out* out) {
  using reducer = block::reducer<Acc, Threads>;
  __shared__ uninitialized<typename reducer::storage> smem_raw;
  wait_for_prerequisite_grid();
  Acc acc{};
  for (unsigned i = threadIdx.x; i < count; i += Threads) acc = acc + partials[i];
  const Acc total = reducer::reduce(acc, plus{}, smem_raw.get());
  if (threadIdx.x == 0) *out = Term::template finish<Out>(total);
}

}  // namespace cuprim::detail
