// cuprim/blas/detail/gemv_kernel.cuh: the matrix-vector product's kernels (y = alpha·op(A)·x + beta·y).
//
// A is column-major (element (i, j) at A[i + j·lda]), so consecutive rows of one column are consecutive in memory.
// Both kernels read A once, in loads that consecutive threads make to consecutive addresses:
//
//  gemv_n_kernel (op N, y_i = Σ_j A(i, j)·x_j): a block is `lanes` threads along the rows (each thread V consecutive
//    rows, one vector load per column) times threads / lanes groups of columns; a thread sums its rows over its
//    group's columns (j = c0 + group, + groups, ...) in increasing order, then the groups are added in a fixed tree
//    in shared memory. Grid: x over tiles of rows, y over slices of `chunk` columns (the split).
//  gemv_t_kernel (op T, y_j = Σ_i A(i, j)·x_i): a block is threads / lanes columns times `lanes` threads per column;
//    a thread sums V consecutive rows at a time (i = r0 + lane·V, + lanes·V, ...) in increasing order, then the
//    lanes of a column are added by warp shuffles (and, past 32 lanes, through shared memory). Grid: x over tiles of
//    columns, y over slices of `chunk` rows (the split).
//  gemv_t_short_kernel (op T, columns of at most 32 vectors: one pass of the lanes): as gemv_t_kernel, but each lane
//    loads its vector of x once and its vector of `cols` columns (j, j + columns per pass, ...: each load
//    coalesced), so a thread keeps `cols` loads in flight where a column alone gives it one. Never split.
//
// Unsplit (one slice), a kernel writes y = alpha·sum + beta·y itself (y not read when beta = 0). Split, it writes
// its slice's sums to partial[slice·len_y + i], and gemv_finish_kernel (a programmatic dependent launch) gives each
// element of y `fold` threads, thread w adding slices w, w + fold, ... in increasing order, then adds the fold sums
// in a fixed tree and writes y. Every order depends on the plan (shape, alignment, SM count), never on timing: the
// same bits each run.
//
// Strided vectors: element k of x is x[k·incx] and of y is y[k·incy]; the host passes, for a negative increment,
// the address of the last element in memory, so that BLAS's traversal from the end is the same formula.
#pragma once

#include <cuprim/blas/detail/gemv_tuning.cuh>
#include <cuprim/core/functional.cuh>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/load.cuh>

#include <cstdint>

namespace cuprim::detail {

/// Everything a gemv kernel needs (the host fills it from the plan, blas/gemv.cuh).
template <class In, class Acc>
struct gemv_args {
  const In* a;
  std::int64_t lda;
  const In* x;  ///< element k at x[k·incx]
  std::int64_t incx;
  In* y;  ///< element k at y[k·incy]
  std::int64_t incy;
  std::int64_t m, n;  ///< A's stored rows and columns
  Acc alpha, beta;
  Acc* partial;        ///< null: write y; else the slices' sums, [slice][len_y]
  int lanes;           ///< op N: threads along the rows; op T: threads per column (a power of two)
  int cols;            ///< op T, short columns: columns per thread (1 to the policy's unroll)
  std::int64_t chunk;  ///< op N: columns per slice; op T: rows per slice (a multiple of the vector)
  bool x_vec;          ///< op T: x has unit stride and 16-byte alignment (vector loads of x)
};

/// y = alpha·sum + beta·y (y not read when beta = 0: NaN or Inf there does not propagate).
template <class In, class Acc>
__device__ __forceinline__ void gemv_store(In* y, Acc alpha, Acc sum, Acc beta) {
  Acc r = alpha * sum;
  if (beta != Acc(0)) r += beta * convert<Acc>(*y);
  *y = convert<In>(r);
}

/// V consecutive elements at p: one vector load when all V exist (`full`, p aligned), else the `rem` that do.
template <class In, int VectorBytes, int V>
__device__ __forceinline__ void gemv_load(const In* p, bool full, std::int64_t rem, In (&v)[V]) {
  if constexpr (V > 1) {
    if (full) {
      load_vector<In, VectorBytes>(p, v);
      return;
    }
#pragma unroll
    for (int e = 0; e < V; ++e) v[e] = e < rem ? p[e] : convert<In>(0.f);
  } else {
    v[0] = *p;
  }
}

/// op N. Vec: V = the policy's vector of rows per thread (A 16-byte aligned, lda a whole number of vectors); else 1.
template <class Policy, bool Vec, class In, class Acc>
__global__ void __launch_bounds__(Policy::value.threads) gemv_n_kernel(gemv_args<In, Acc> g) {
  constexpr blas::gemv_policy P = Policy::value;
  constexpr int V = Vec ? vector_traits<In, P.vector_bytes>::elems : 1, U = P.unroll;
  __shared__ Acc red[P.threads * V];
  allow_dependent_launch();  // the slices' sum may be scheduled now (it waits for this grid)
  const int lanes = g.lanes, groups = P.threads / lanes;
  const int lane = int(threadIdx.x) & (lanes - 1), group = int(threadIdx.x) / lanes;
  const std::int64_t i0 = (std::int64_t(blockIdx.x) * lanes + lane) * V;
  const std::int64_t c0 = std::int64_t(blockIdx.y) * g.chunk;
  const std::int64_t c1 = c0 + g.chunk < g.n ? c0 + g.chunk : g.n;
  Acc acc[V];
#pragma unroll
  for (int e = 0; e < V; ++e) acc[e] = Acc(0);

  if (i0 < g.m) {
    const bool full = i0 + V <= g.m;
    const std::int64_t rem = g.m - i0;
    const In* rows = g.a + i0;
    std::int64_t j = c0 + group;
    for (; j + std::int64_t(U - 1) * groups < c1; j += std::int64_t(U) * groups) {  // U columns in flight
      In v[U][V];
      Acc xj[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const std::int64_t c = j + std::int64_t(u) * groups;
        gemv_load<In, P.vector_bytes>(rows + c * g.lda, full, rem, v[u]);
        xj[u] = convert<Acc>(g.x[c * g.incx]);
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int e = 0; e < V; ++e) acc[e] += convert<Acc>(v[u][e]) * xj[u];
    }
    for (; j < c1; j += groups) {
      In v[V];
      gemv_load<In, P.vector_bytes>(rows + j * g.lda, full, rem, v);
      const Acc xj = convert<Acc>(g.x[j * g.incx]);
#pragma unroll
      for (int e = 0; e < V; ++e) acc[e] += convert<Acc>(v[e]) * xj;
    }
  }

  // The column groups' sums, added in a fixed tree (group k takes group k + s for s = groups/2, ..., 1).
  if (groups > 1) {
#pragma unroll
    for (int e = 0; e < V; ++e) red[threadIdx.x * V + e] = acc[e];
    for (int s = groups / 2; s > 0; s /= 2) {
      __syncthreads();
      if (group < s) {
#pragma unroll
        for (int e = 0; e < V; ++e) {
          acc[e] += red[(threadIdx.x + s * lanes) * V + e];
          red[threadIdx.x * V + e] = acc[e];
        }
      }
    }
  }
  if (group != 0 || i0 >= g.m) return;
#pragma unroll
  for (int e = 0; e < V; ++e) {
    const std::int64_t i = i0 + e;
    if (i >= g.m) break;
    if (g.partial) g.partial[std::int64_t(blockIdx.y) * g.m + i] = acc[e];
    else gemv_store(g.y + i * g.incy, g.alpha, acc[e], g.beta);
  }
}

/// op T. Vec: V = the policy's vector of rows per load (A 16-byte aligned, lda a whole number of vectors); else 1.
template <class Policy, bool Vec, class In, class Acc>
__global__ void __launch_bounds__(Policy::value.threads) gemv_t_kernel(gemv_args<In, Acc> g) {
  constexpr blas::gemv_policy P = Policy::value;
  constexpr int V = Vec ? vector_traits<In, P.vector_bytes>::elems : 1, U = P.unroll;
  constexpr int warps = P.threads / 32;
  __shared__ Acc red[warps];
  allow_dependent_launch();  // the slices' sum may be scheduled now (it waits for this grid)
  const int lanes = g.lanes;
  const int lane = int(threadIdx.x) & (lanes - 1), col = int(threadIdx.x) / lanes;
  const std::int64_t j = std::int64_t(blockIdx.x) * (P.threads / lanes) + col;
  const std::int64_t r0 = std::int64_t(blockIdx.y) * g.chunk;
  const std::int64_t r1 = r0 + g.chunk < g.m ? r0 + g.chunk : g.m;
  Acc acc = Acc(0);

  if (j < g.n) {
    const In* column = g.a + j * g.lda;
    const std::int64_t step = std::int64_t(lanes) * V;
    std::int64_t i = r0 + std::int64_t(lane) * V;
    for (; i + std::int64_t(U - 1) * step + V <= r1; i += std::int64_t(U) * step) {  // U whole vectors in flight
      In v[U][V], xv[U][V];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const std::int64_t r = i + std::int64_t(u) * step;
        gemv_load<In, P.vector_bytes>(column + r, true, V, v[u]);
        if (V > 1 && g.x_vec) {
          gemv_load<In, P.vector_bytes>(g.x + r, true, V, xv[u]);
        } else {
#pragma unroll
          for (int e = 0; e < V; ++e) xv[u][e] = g.x[(r + e) * g.incx];
        }
      }
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int e = 0; e < V; ++e) acc += convert<Acc>(v[u][e]) * convert<Acc>(xv[u][e]);
    }
    for (; i < r1; i += step) {
      const bool full = i + V <= r1;
      In v[V];
      gemv_load<In, P.vector_bytes>(column + i, full, r1 - i, v);
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (full || i + e < r1) acc += convert<Acc>(v[e]) * convert<Acc>(g.x[(i + e) * g.incx]);
    }
  }

  // The lanes of a column: a butterfly inside the warp (lanes ≤ 32), then the column's warps in order.
  for (int off = (lanes < 32 ? lanes : 32) / 2; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  if (lanes > 32) {
    const int warp = int(threadIdx.x) / 32;
    if ((threadIdx.x & 31) == 0) red[warp] = acc;
    __syncthreads();
    if (lane != 0) return;
    for (int w = 1; w < lanes / 32; ++w) acc += red[warp + w];
  } else if (lane != 0) {
    return;
  }
  if (j >= g.n) return;
  if (g.partial) g.partial[std::int64_t(blockIdx.y) * g.n + j] = acc;
  else gemv_store(g.y + j * g.incy, g.alpha, acc, g.beta);
}

/// op T over short columns (the plan's lanes cover a column in one pass, at most a vector each; never split).
template <class Policy, bool Vec, class In, class Acc>
__global__ void __launch_bounds__(Policy::value.threads) gemv_t_short_kernel(gemv_args<In, Acc> g) {
  constexpr blas::gemv_policy P = Policy::value;
  constexpr int V = Vec ? vector_traits<In, P.vector_bytes>::elems : 1, U = P.unroll;
  const int lanes = g.lanes, per_pass = P.threads / lanes;
  const int lane = int(threadIdx.x) & (lanes - 1), col = int(threadIdx.x) / lanes;
  const std::int64_t i = std::int64_t(lane) * V;
  const std::int64_t j0 = std::int64_t(blockIdx.x) * per_pass * g.cols + col;
  const bool has_rows = i < g.m, full = i + V <= g.m;
  const std::int64_t rem = g.m - i;
  In xv[V];
#pragma unroll
  for (int e = 0; e < V; ++e) xv[e] = convert<In>(0.f);
  if (has_rows) {
    if (V > 1 && g.x_vec && full) {
      gemv_load<In, P.vector_bytes>(g.x + i, true, V, xv);
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (e < rem) xv[e] = g.x[(i + e) * g.incx];
    }
  }
  In v[U][V];
#pragma unroll
  for (int u = 0; u < U; ++u) {  // every column's load first: cols loads in flight
    const std::int64_t j = j0 + std::int64_t(u) * per_pass;
    if (u < g.cols && has_rows && j < g.n) gemv_load<In, P.vector_bytes>(g.a + j * g.lda + i, full, rem, v[u]);
  }
  Acc acc[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    acc[u] = Acc(0);
    const std::int64_t j = j0 + std::int64_t(u) * per_pass;
    if (u < g.cols && has_rows && j < g.n) {
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (full || e < rem) acc[u] += convert<Acc>(v[u][e]) * convert<Acc>(xv[e]);
    }
  }
  // The lanes of each column: a butterfly inside the warp (every thread takes part; lanes ≤ 32).
  for (int off = lanes / 2; off > 0; off /= 2)
#pragma unroll
    for (int u = 0; u < U; ++u) acc[u] += __shfl_xor_sync(0xffffffffu, acc[u], off);
  if (lane != 0) return;
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const std::int64_t j = j0 + std::int64_t(u) * per_pass;
    if (u < g.cols && j < g.n) gemv_store(g.y + j * g.incy, g.alpha, acc[u], g.beta);
  }
}

/// Threads per block of the slices' sum.
inline constexpr int gemv_finish_threads = 256;

/// y_i = alpha·Σ_s partial[s·len + i] + beta·y_i: `fold` threads per element (a power of two, at most 256), thread w
/// adding slices w, w + fold, ... in increasing order, then the fold sums in a fixed tree (w takes w + h for
/// h = fold/2, ..., 1). A programmatic dependent launch: it waits for the product's grid before reading.
template <class In, class Acc>
__global__ void __launch_bounds__(gemv_finish_threads) gemv_finish_kernel(const Acc* partial, std::int64_t slices,
                                                                         std::int64_t len, int fold, In* y,
                                                                         std::int64_t incy, Acc alpha, Acc beta) {
  __shared__ Acc red[gemv_finish_threads];
  const int per_block = gemv_finish_threads / fold;
  const int x = int(threadIdx.x) % per_block, w = int(threadIdx.x) / per_block;
  const std::int64_t i = std::int64_t(blockIdx.x) * per_block + x;
  wait_for_prerequisite_grid();
  Acc s = Acc(0);
  if (i < len) {
#pragma unroll 4
    for (std::int64_t k = w; k < slices; k += fold) s += partial[k * len + i];
  }
  if (fold > 1) {
    red[threadIdx.x] = s;
    for (int h = fold / 2; h > 0; h /= 2) {
      __syncthreads();
      if (w < h) {
        s += red[threadIdx.x + h * per_block];
        red[threadIdx.x] = s;
      }
    }
  }
  if (w == 0 && i < len) gemv_store(y + i * incy, alpha, s, beta);
}

/// y = beta·y over len elements (alpha = 0, or nothing to sum); y not read when beta = 0.
template <class In, class Acc>
__global__ void gemv_scale_kernel(In* y, std::int64_t incy, std::int64_t len, Acc beta) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < len; i += stride)
    gemv_store(y + i * incy, Acc(0), Acc(0), beta);
}

}  // namespace cuprim::detail
