// lab/ladder/trsm.cuh: the seed's STRSM (left, lower, N, unit diagonal, alpha 1) as its first GPU step: one thread
// per column of B running the sequential loop unchanged (cuprim::host::trsm_seed). Every thread walks its own column
// down, so neighbouring threads touch addresses ldb apart (no coalescing), and each reads all of A's lower triangle
// once; the production call (cuprim::blas::trsm) is the next rung. Teaching code: outside the library headers.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace cuprim::ladder {

template <class T>
__global__ void trsm_seed_thread_per_column(std::int64_t m, std::int64_t n, const T* a, std::int64_t lda, T* b,
                                            std::int64_t ldb) {
  const std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  for (std::int64_t k = 0; k < m; k++)
    if (b[j * ldb + k] != T(0)) {
      for (std::int64_t i = k + 1; i < m; i++) b[j * ldb + i] -= a[k * lda + i] * b[j * ldb + k];
    }
}

template <class T>
void trsm_seed(std::int64_t m, std::int64_t n, const T* a, std::int64_t lda, T* b, std::int64_t ldb,
               cudaStream_t stream) {
  trsm_seed_thread_per_column<<<unsigned((n + 31) / 32), 32, 0, stream>>>(m, n, a, lda, b, ldb);
}

}  // namespace cuprim::ladder
