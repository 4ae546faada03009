// cuprim/device/detail/reduce_arg_kernel.cuh: the first pass of argmin / argmax over arithmetic types.
//
// The general reduction kernel (reduce_kernel.cuh) carries a (value, index) pair through every element: a compare,
// two selects of the 64-bit index and the index's own arithmetic per element, in four chains of pairs per thread.
// Here a thread instead takes each tile's extreme VALUE only (one min or max per element; for floating types a NaN
// propagates, so a NaN in the tile shows in its extreme), and only when that beats the thread's best so far (strictly:
// a later equal value never wins) does it look through the tile, in index order, for the first element holding it.
// Within a thread the indices increase tile by tile and, inside a tile, slot by slot, so the first element found this
// way is the lowest index of the thread's extreme, and the first NaN is the lowest NaN. Searches are rare on most
// data (a new extreme of a random sequence occurs about ln(tiles) times per thread); a sorted input searches every
// tile and runs at about the general kernel's speed.
//
// What the general kernel does around the tiles (the misaligned head, the partial last tile, the block reduction
// and the partials, a single block writing the result) is the same here, with the full arg_op (indices compared).
#pragma once

#include <cuprim/block/reduce.cuh>
#include <cuprim/core/functional.cuh>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/load.cuh>
#include <cuprim/device/detail/reduce_tuning.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

/// The transform of argmin / argmax: element i becomes (its value, i).
template <class In, class Acc>
struct arg_transform {
  static constexpr bool indexed = true;
  __host__ __device__ arg_result<Acc> operator()(const In& x, std::int64_t i) const {
    return {convert<Acc>(x), i};
  }
};

/// Whether reduce_launch runs the first pass of a reduction with transform F and operator Op over In through
/// arg_reduce_kernel: argmin / argmax (arg_transform<In, In>, arg_op) of an arithmetic or 16-bit floating type.
template <class In, class F, class Op>
inline constexpr bool arg_reduction_v = false;
template <class In, bool Max>
inline constexpr bool arg_reduction_v<In, arg_transform<In, In>, arg_op<Max>> =
    std::is_arithmetic_v<In> || is_half_like_v<In>;

/// The type an arg reduction compares in: the element's own, float for the 16-bit floats.
template <class T>
using arg_compare_t = std::conditional_t<is_half_like_v<T>, float, T>;

/// The extreme of a and b (Max: the larger); for floating types a NaN operand wins, so that a tile's extreme is
/// NaN exactly when the tile holds one.
template <bool Max, class C>
__device__ __forceinline__ C arg_extreme(C a, C b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<C, float>) {
    float r;
    if constexpr (Max) asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    else asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
  }
#endif
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return Max ? (a < b ? b : a) : (b < a ? b : a);
}

/// A thread's best (value, index) over the tiles it has taken; index -1 until its first tile.
template <class C, bool Max>
struct arg_best {
  C value{};
  std::int64_t index = -1;
  bool nan = false;  ///< value is a NaN: nothing later can win

  /// Whether a tile whose extreme is `ext` holds an element that beats the best so far.
  __device__ __forceinline__ bool beaten_by(C ext) const {
    if (nan) return false;
    if (index < 0 || is_nan(ext)) return true;
    return Max ? value < ext : ext < value;
  }
};

/// First pass of argmin (Max = false) / argmax (Max = true) over n elements of In: each block strides over full
/// tiles as reduce_kernel does, then folds the head, the partial tile and its threads' bests with arg_op, and writes
/// one partial (or, as a single block, the result). Policy: a policy_constant of a reduce_policy.
template <class Policy, bool Max, class In, class Out>
__global__ void __launch_bounds__(Policy::value.threads)
arg_reduce_kernel(const In* in, std::uint64_t n, std::uint64_t head, Out* out, arg_result<In> init,
                  arg_result<In>* partials) {
  constexpr reduce_policy P = Policy::value;
  using C = arg_compare_t<In>;
  using R = arg_result<In>;
  using vt = vector_traits<In, P.vector_bytes>;
  using reducer = block::reducer<R, P.threads>;
  constexpr int V = vt::elems, U = P.unroll, TH = P.threads;
  constexpr std::uint64_t tile_elems = std::uint64_t(TH) * U * V;
  __shared__ uninitialized<typename reducer::storage> smem_raw;
  auto& smem = smem_raw.get();
  const arg_op<Max> op{};

  allow_dependent_launch();
  const int tid = threadIdx.x;
  const In* body = in + head;
  const std::uint64_t full_tiles = (n - head) / tile_elems;  // ≥ gridDim.x: the host launches it only so
  arg_best<C, Max> best;
  for (std::uint64_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
    In v[U][V];
    const In* base = body + t * tile_elems;
#pragma unroll
    for (int k = 0; k < U; ++k) load_vector<In, P.vector_bytes, true>(base + (std::uint64_t(k) * TH + tid) * V, v[k]);
    // The tile's extreme value: U independent chains of V, then across the chains.
    C ext_k[U];
#pragma unroll
    for (int k = 0; k < U; ++k) {
      ext_k[k] = convert<C>(v[k][0]);
#pragma unroll
      for (int e = 1; e < V; ++e) ext_k[k] = arg_extreme<Max>(ext_k[k], convert<C>(v[k][e]));
    }
    C ext = ext_k[0];
#pragma unroll
    for (int k = 1; k < U; ++k) ext = arg_extreme<Max>(ext, ext_k[k]);
    if (best.beaten_by(ext)) {
      // Rare: the first element of the tile, in index order, that holds ext (ext is a NaN: the first NaN).
      const bool want_nan = is_nan(ext);
      bool found = false;
#pragma unroll
      for (int k = 0; k < U; ++k) {
#pragma unroll
        for (int e = 0; e < V; ++e) {
          const C x = convert<C>(v[k][e]);
          if (!found && (want_nan ? is_nan(x) : x == ext)) {
            found = true;
            best.value = x;
            best.index = std::int64_t(head + t * tile_elems + (std::uint64_t(k) * TH + tid) * V + e);
          }
        }
      }
      best.nan = want_nan;
    }
  }
  // The thread's best joins the head and the partial last tile, whose indices lie outside its run: full arg_op.
  R acc = best.index >= 0 ? R{convert<In>(best.value), best.index} : R{init.value, -1};
  const std::uint64_t gtid = std::uint64_t(blockIdx.x) * TH + tid, gthreads = std::uint64_t(gridDim.x) * TH;
  if (gtid < head) acc = op(acc, R{in[gtid], std::int64_t(gtid)});
  for (std::uint64_t i = head + full_tiles * tile_elems + gtid; i < n; i += gthreads)
    acc = op(acc, R{in[i], std::int64_t(i)});
  // Every thread of a block with a tile holds a best (the grid is at most the tiles), so the block reduces all.
  const R total = reducer::reduce(acc, op, smem);
  if (tid != 0) return;
  if (gridDim.x == 1) *out = convert<Out>(op(init, total));
  else partials[blockIdx.x] = total;
}

}  // namespace cuprim::detail
