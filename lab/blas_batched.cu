// cuprim-lab rows for the batched GEMM of many small products: cuprim::blas::gemm_strided_batched against
// cublasSgemmStridedBatched / cublasDgemmStridedBatched, and gemm_batched (pointer arrays) against
// cublasSgemmBatched, calls interleaved in the same run (lab/blas_batched_common.cuh: the row, its bytes and its
// verification). 10^5 square products of 16, 32 and 64, NN, tight, alpha 1, beta 0 and beta 1, float and double:
// the small kernel's headline shapes (blas/detail/gemm_small_kernel.cuh gives their bound).
//
//   cuprim-lab run 'blas/batched/gemm/*'      the strided rows
//   cuprim-lab run 'blas/batched/gemm-ptr/*'  the pointer-array row
//   cuprim-lab run 'blas/batched/*'           both, and the sweep's rows (blas_batched_sweep.cu)
#include "blas_batched_common.cuh"

#include <cstdint>
#include <string>

namespace lab {

void register_blas_batched() {
  using batched_family::add_batched_case;
  using batched_family::batch_label;
  constexpr std::int64_t batch = 100000;
  for (std::int64_t s : {16, 32, 64}) {
    const std::string shape = std::to_string(s) + "x" + std::to_string(s) + "/" + batch_label(batch);
    add_batched_case<float>("blas/batched/gemm/float/" + shape, s, batch, false, false, s == 32);
    add_batched_case<float>("blas/batched/gemm/float/" + shape + "/beta1", s, batch, true, false, false);
    add_batched_case<double>("blas/batched/gemm/double/" + shape, s, batch, false, false, false);
    add_batched_case<double>("blas/batched/gemm/double/" + shape + "/beta1", s, batch, true, false, false);
  }
  add_batched_case<float>("blas/batched/gemm-ptr/float/32x32/" + batch_label(batch), 32, batch, false, true, false);
  add_note("blas/batched/", "blas/batched: batch square s x s x s products, NN, tight ld and strides, alpha 1, beta 0 "
                            "(or /beta1), inputs uniform in [-1, 1); bytes = batch (A + B + C, + C read for beta 1) "
                            "size; against cublas<S|D>gemmStridedBatched (gemm-ptr: cublasSgemmBatched) interleaved "
                            "in the same run; verified on 48 sampled batches before timing");
}

}  // namespace lab
