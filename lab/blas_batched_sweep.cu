// lab/blas_batched_sweep.cu: the small batched kernel's policy sweep (`cuprim-lab sweep blas 'blas/batched/sweep/*'`,
// or `run 'blas/batched/*'` with the production rows): cuprim::blas::gemm_strided_batched under named
// gemm_small_policy rows beside the table's, and under the general kernel's gemm_policy (the path before the small
// kernel), each row against cublas<S|D>gemmStridedBatched in the same run; 10^5 square products, NN, beta 0. Its own
// translation unit, so the policies' kernels compile beside blas_batched.cu.
//
// Labels tT-kK-gG-bB-mMxN-sS[-pD]: tile T, k step K, G threads per product, B threads per block, M x N elements of C
// per thread, S blocks per SM, L2 prefetch D rounds ahead (none without -pD); "general" the general kernel;
// "(default)" marks the table's row.
#include "blas_batched_common.cuh"

#include <cstdint>
#include <string>
#include <type_traits>

namespace lab {
namespace {

using batched_family::add_batched_case;
using batched_family::batch_label;

template <cuprim::blas::gemm_small_policy P>
std::string small_label() {
  return "t" + std::to_string(P.tile) + "-k" + std::to_string(P.tile_k) + "-g" + std::to_string(P.group) + "-b" +
         std::to_string(P.threads) + "-m" + std::to_string(P.thread_m) + "x" + std::to_string(P.thread_n) + "-s" +
         std::to_string(P.blocks_per_sm) + (P.prefetch ? "-p" + std::to_string(P.prefetch) : std::string());
}

template <class T, auto P>
void add_sweep_row() {
  constexpr bool general = std::is_same_v<std::remove_cvref_t<decltype(P)>, cuprim::blas::gemm_policy>;
  std::int64_t s;
  std::string label, path;
  if constexpr (general) {
    s = 0;
    label = path = "general";
  } else {
    s = P.tile;
    label = path = small_label<P>();
    if (P == cuprim::blas::gemm_small_policy_for<T>(cuprim::tuned_archs[0], P.tile)) label += " (default)";
  }
  const auto add = [&](std::int64_t size) {
    add_batched_case<T, P>("blas/batched/sweep/" + path + "/" + (sizeof(T) == 4 ? "float/" : "double/") +
                               std::to_string(size) + "x" +
                               std::to_string(size) + "/" + batch_label(100000),
                           size, 100000, false, false, false, label.c_str());
  };
  if constexpr (general) {
    for (std::int64_t size : {16, 32, 64}) add(size);
  } else {
    add(s);
  }
}

constexpr cuprim::blas::gemm_small_policy small(int tile, int tile_k, int group, int threads, int tm, int tn, int bps,
                                                int prefetch = 0) {
  return {.tile = tile, .tile_k = tile_k, .group = group, .threads = threads, .thread_m = tm, .thread_n = tn,
          .blocks_per_sm = bps, .prefetch = prefetch};
}

}  // namespace

void register_blas_batched_sweep() {
  // The path before the small kernel: the general kernel's table row for every size.
  add_sweep_row<float, cuprim::blas::gemm_policy_for<float>(90)>();
  add_sweep_row<double, cuprim::blas::gemm_policy_for<double>(90)>();
  // Each size: the table's row, the previous sweep's winner without L2 prefetch where the row prefetches, and the
  // alternatives still open (the previous sweep's losers are gone: docs/tuning/blas.md keeps their figures).
  // float 16 x 16: a warp per product in blocks of 128 at 6 per SM (default), and prefetching 2 rounds ahead.
  add_sweep_row<float, small(16, 16, 32, 128, 4, 2, 6)>();
  add_sweep_row<float, small(16, 16, 32, 128, 4, 2, 6, 2)>();
  // float 32 x 32: 128 threads of 4 x 2 at 3 per SM, prefetch 1 (default), 0 and 2; 64 threads of 4 x 4 prefetching.
  add_sweep_row<float, small(32, 32, 128, 256, 4, 2, 3, 1)>();
  add_sweep_row<float, small(32, 32, 128, 256, 4, 2, 3)>();
  add_sweep_row<float, small(32, 32, 128, 256, 4, 2, 3, 2)>();
  add_sweep_row<float, small(32, 32, 64, 256, 4, 4, 3, 1)>();
  // float 64 x 64: a block of 4 x 4 at 3 per SM, prefetch 1 (default), 0 and 2, and at 2 per SM (no spill); 64
  // threads of 8 x 8 per product (half the shared reads per FMA of 4 x 4), 2 products per block at 3 blocks per SM
  // and 4 per block at 2.
  add_sweep_row<float, small(64, 32, 256, 256, 4, 4, 3, 1)>();
  add_sweep_row<float, small(64, 32, 256, 256, 4, 4, 3)>();
  add_sweep_row<float, small(64, 32, 256, 256, 4, 4, 3, 2)>();
  add_sweep_row<float, small(64, 32, 256, 256, 4, 4, 2, 1)>();
  add_sweep_row<float, small(64, 16, 64, 128, 8, 8, 3, 1)>();
  add_sweep_row<float, small(64, 16, 64, 256, 8, 8, 2, 1)>();
  // double 16 x 16: 64 threads of 2 x 2 at 3 per SM (default), and prefetching 1 round ahead.
  add_sweep_row<double, small(16, 16, 64, 256, 2, 2, 3)>();
  add_sweep_row<double, small(16, 16, 64, 256, 2, 2, 3, 1)>();
  // double 32 x 32: 64 threads of 4 x 4, prefetch 1 (default), 0 and 2.
  add_sweep_row<double, small(32, 16, 64, 256, 4, 4, 2, 1)>();
  add_sweep_row<double, small(32, 16, 64, 256, 4, 4, 2)>();
  add_sweep_row<double, small(32, 16, 64, 256, 4, 4, 2, 2)>();
  // double 64 x 64: a block of 4 x 4, prefetch 1 (default), 0 and 2.
  add_sweep_row<double, small(64, 16, 256, 256, 4, 4, 2, 1)>();
  add_sweep_row<double, small(64, 16, 256, 256, 4, 4, 2)>();
  add_sweep_row<double, small(64, 16, 256, 256, 4, 4, 2, 2)>();
  add_note("blas/batched/sweep/", "blas/batched/sweep/tT-kK-gG-bB-mMxN-sS[-pD]: gemm_strided_batched<gemm_small_policy{"
                                  "tile T, tile_k K, group G, threads B, thread_m M, thread_n N, blocks_per_sm S, "
                                  "prefetch D (0 without -pD)}>; general: the general kernel (gemm_policy_for); 10^5 "
                                  "NN products, beta 0, against cublas<S|D>gemmStridedBatched in the same run; "
                                  "(default): the table's row");
}

}  // namespace lab
