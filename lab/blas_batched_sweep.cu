// lab/blas_batched_sweep.cu: the small batched kernel's policy sweep (`cuprim-lab sweep blas 'blas/batched/sweep/*'`,
// or `run 'blas/batched/*'` with the production rows): cuprim::blas::gemm_strided_batched under named
// gemm_small_policy rows beside the table's, and under the general kernel's gemm_policy (the path before the small
// kernel), each row against cublas<S|D>gemmStridedBatched in the same run; 10^5 square products, NN, beta 0. Its own
// translation unit, so the policies' kernels compile beside blas_batched.cu.
//
// Labels tT-kK-gG-bB-mMxN-sS: tile T, k step K, G threads per product, B threads per block, M x N elements of C per
// thread, S blocks per SM; "general" the general kernel; "(default)" marks the table's row.
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
         std::to_string(P.blocks_per_sm);
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

constexpr cuprim::blas::gemm_small_policy small(int tile, int tile_k, int group, int threads, int tm, int tn, int bps) {
  return {.tile = tile, .tile_k = tile_k, .group = group, .threads = threads, .thread_m = tm, .thread_n = tn,
          .blocks_per_sm = bps};
}

}  // namespace

void register_blas_batched_sweep() {
  // The path before the small kernel: the general kernel's table row for every size.
  add_sweep_row<float, cuprim::blas::gemm_policy_for<float>(90)>();
  add_sweep_row<double, cuprim::blas::gemm_policy_for<double>(90)>();
  // float 16 x 16: a warp per product at 3 blocks per SM (default) and at 4 (64 registers), 64 threads (4 x 1 each),
  // 16 threads (4 x 4), blocks of 128.
  add_sweep_row<float, small(16, 16, 32, 256, 4, 2, 3)>();
  add_sweep_row<float, small(16, 16, 32, 256, 4, 2, 4)>();
  add_sweep_row<float, small(16, 16, 64, 256, 4, 1, 3)>();
  add_sweep_row<float, small(16, 16, 16, 256, 4, 4, 3)>();
  add_sweep_row<float, small(16, 16, 32, 128, 4, 2, 6)>();
  // float 32 x 32: 64 threads at 2 blocks per SM (default) and 3, 128 threads (4 x 2), k steps of 16, a warp per
  // product (8 x 4).
  add_sweep_row<float, small(32, 32, 64, 256, 4, 4, 2)>();
  add_sweep_row<float, small(32, 32, 64, 256, 4, 4, 3)>();
  add_sweep_row<float, small(32, 32, 128, 256, 4, 2, 3)>();
  add_sweep_row<float, small(32, 16, 64, 256, 4, 4, 3)>();
  add_sweep_row<float, small(32, 16, 32, 256, 8, 4, 2)>();
  // float 64 x 64: a block per product, k steps of 32 at 2 blocks per SM (default) and 3, 64 (one step) or 16; 128
  // threads of 8 x 4.
  add_sweep_row<float, small(64, 32, 256, 256, 4, 4, 2)>();
  add_sweep_row<float, small(64, 32, 256, 256, 4, 4, 3)>();
  add_sweep_row<float, small(64, 64, 256, 256, 4, 4, 2)>();
  add_sweep_row<float, small(64, 16, 256, 256, 4, 4, 3)>();
  add_sweep_row<float, small(64, 32, 128, 128, 8, 4, 4)>();
  // double: the defaults (32 x 32: 128 threads of 4 x 2) and one or two alternatives per tile.
  add_sweep_row<double, small(16, 16, 32, 256, 4, 2, 2)>();
  add_sweep_row<double, small(16, 16, 32, 256, 4, 2, 3)>();
  add_sweep_row<double, small(16, 16, 64, 256, 2, 2, 3)>();
  add_sweep_row<double, small(32, 16, 128, 256, 4, 2, 2)>();
  add_sweep_row<double, small(32, 16, 64, 256, 4, 4, 2)>();
  add_sweep_row<double, small(32, 32, 128, 256, 4, 2, 2)>();
  add_sweep_row<double, small(64, 16, 256, 256, 4, 4, 2)>();
  add_sweep_row<double, small(64, 32, 256, 256, 4, 4, 2)>();
  add_note("blas/batched/sweep/", "blas/batched/sweep/tT-kK-gG-bB-mMxN-sS: gemm_strided_batched<gemm_small_policy{tile "
                                  "T, tile_k K, group G, threads B, thread_m M, thread_n N, blocks_per_sm S}>; general: "
                                  "the general kernel (gemm_policy_for); 10^5 NN products, beta 0, against "
                                  "cublas<S|D>gemmStridedBatched in the same run; (default): the table's row");
}

}  // namespace lab
