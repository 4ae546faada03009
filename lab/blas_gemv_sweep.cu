// lab/blas_gemv_sweep.cu: gemv's policy sweep (`cuprim-lab sweep blas 'blas/sweep/gemv-*'`): cuprim::blas::gemv under
// named policies beside the tuned default, each row against cublas<S|D>gemv in the same run, over the shapes the
// first rows lost (docs/tuning/blas.md): float 4096^2 op N, 16 x 2^22 op N and op T, 16384^2 op N as the guard;
// double 8192^2 op N and op T. Its own translation unit, so the policies' kernels compile beside blas_gemv.cu.
//
// Labels gemv-tT-uU-bB-rR: T threads per block, U loads in flight per thread, B blocks per SM the split aims for,
// R most threads along the rows (op N); 16-byte loads throughout. "(default)" marks the table's row.
#include "blas_gemv_common.cuh"

#include <string>

namespace lab {
namespace {

using namespace gemv_family;

template <cuprim::blas::gemv_policy P>
std::string gemv_policy_label() {
  return "gemv-t" + std::to_string(P.threads) + "-u" + std::to_string(P.unroll) + "-b" +
         std::to_string(P.blocks_per_sm) + "-r" + std::to_string(P.row_lanes);
}

template <class T, cuprim::blas::gemv_policy P>
void add_policy_rows() {
  static const std::string label =
      gemv_policy_label<P>() + (P == cuprim::blas::gemv_policy_for<T>(cuprim::tuned_archs[0]) ? " (default)" : "");
  const std::string dt = sizeof(T) == 4 ? "float" : "double";
  struct shape {
    bool trans;
    std::int64_t m, n;
  };
  const shape float_shapes[] = {{false, 4096, 4096}, {false, 16, 1 << 22}, {true, 16, 1 << 22}, {false, 16384, 16384}};
  const shape double_shapes[] = {{false, 8192, 8192}, {true, 8192, 8192}};
  const auto add = [&](const shape& s) {
    add_gemv_case<T, P>("blas/sweep/" + gemv_policy_label<P>() + "/" + dt + "/" + (s.trans ? "T" : "N") + "/" +
                            shape_label(s.m, s.n),
                        s.trans, s.m, s.n, gemv_impl::production, cuprim::ladder::gemv_variant::thread_per_row, false,
                        10, label.c_str());
  };
  if constexpr (sizeof(T) == 4)
    for (const shape& s : float_shapes) add(s);
  else
    for (const shape& s : double_shapes) add(s);
}

constexpr cuprim::blas::gemv_policy with(int threads, int unroll, int blocks_per_sm, int row_lanes) {
  return {.threads = threads, .vector_bytes = 16, .unroll = unroll, .blocks_per_sm = blocks_per_sm,
          .row_lanes = row_lanes};
}

}  // namespace

void register_blas_gemv_sweep() {
  // float: the default (64 row lanes), the first row's 256 row lanes, 32 row lanes, 8 in flight, 8 blocks per SM.
  add_policy_rows<float, with(256, 4, 4, 64)>();
  add_policy_rows<float, with(256, 4, 4, 256)>();
  add_policy_rows<float, with(256, 4, 4, 32)>();
  add_policy_rows<float, with(256, 8, 4, 64)>();
  add_policy_rows<float, with(256, 4, 8, 64)>();
  // double: the default, 256 row lanes, 8 in flight, a split aiming at 8 or 16 blocks per SM (more, shorter blocks:
  // op T at 8192^2 has 1024 blocks of 8 columns, about 1.3 waves unsplit), 512 threads.
  add_policy_rows<double, with(256, 4, 4, 64)>();
  add_policy_rows<double, with(256, 4, 4, 256)>();
  add_policy_rows<double, with(256, 8, 4, 64)>();
  add_policy_rows<double, with(256, 4, 8, 64)>();
  add_policy_rows<double, with(256, 4, 16, 64)>();
  add_policy_rows<double, with(512, 4, 4, 64)>();
  add_note("blas/sweep/gemv-", "blas/sweep/gemv-tT-uU-bB-rR: cuprim::blas::gemv<gemv_policy{threads T, 16-byte "
                               "loads, unroll U, blocks_per_sm B, row_lanes R}>, alpha 1, beta 0, unit strides, "
                               "lda = m, against cublas<S|D>gemv in the same run; (default): the table's row");
}

}  // namespace lab
