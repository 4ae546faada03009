// python/src/blas.cu: the BLAS routines after gemm, on row-major (C-contiguous) arrays: dot (float, double; float16
// and bfloat16 with float32 sums), gemv, trsm, symm, and the strided-batched gemm and trsm (float, double).
//
// cuprim::blas is column-major, as BLAS. A row-major matrix is the column-major view of its transpose, so each call
// is turned into the column-major call on those views: gemv flips op; trsm and symm flip the side and the stored
// triangle and swap m and n (A stored lower row-major is its transpose stored upper column-major, and
// op(A)·X = B is X^T·op(A)^T = B^T); the batched gemm uses the row-major entry point.
#include "dispatch.cuh"

#include <cuprim/blas/dot.cuh>
#include <cuprim/blas/gemm.cuh>
#include <cuprim/blas/gemv.cuh>
#include <cuprim/blas/symm.cuh>
#include <cuprim/blas/trsm.cuh>
#include <cuprim/blas/trsm_batched.cuh>

namespace cuprim::python {
namespace {

using real_types = types<float, double>;

blas::side side_of(bool left, bool row_major) { return left != row_major ? blas::side::left : blas::side::right; }
blas::uplo uplo_of(bool lower, bool row_major) { return lower != row_major ? blas::uplo::lower : blas::uplo::upper; }

}  // namespace

void dot(int dev, int dtype, std::int64_t n, addr x, std::int64_t incx, addr y, std::int64_t incy, addr result,
         addr stream) {
  device_scope scope(dev);
  dispatch("cuprim.dot", dtype, types<float, double, __half, __nv_bfloat16>{}, [&]<class T>(std::type_identity<T>) {
    using Acc = cuprim::accumulator_t<T>;
    blas::dot(n, ptr<const T>(x), incx, ptr<const T>(y), incy, ptr<Acc>(result), as_stream(stream));
  });
}

void gemv(int dev, int dtype, bool trans, std::int64_t m, std::int64_t n, double alpha, addr a, std::int64_t lda,
          addr x, std::int64_t incx, double beta, addr y, std::int64_t incy, addr stream) {
  device_scope scope(dev);
  dispatch("cuprim.gemv", dtype, real_types{}, [&]<class T>(std::type_identity<T>) {
    // Row-major A (m × n) is the column-major n × m matrix A^T: op flips, the shape swaps.
    blas::gemv(trans ? blas::op::N : blas::op::T, n, m, T(alpha), ptr<const T>(a), lda, ptr<const T>(x), incx,
               T(beta), ptr<T>(y), incy, as_stream(stream));
  });
}

void trsm(int dev, int dtype, bool left, bool lower, bool trans, bool unit, std::int64_t m, std::int64_t n,
          double alpha, addr a, std::int64_t lda, addr b, std::int64_t ldb, addr stream) {
  device_scope scope(dev);
  dispatch("cuprim.trsm", dtype, real_types{}, [&]<class T>(std::type_identity<T>) {
    blas::trsm<T>(side_of(left, true), uplo_of(lower, true), trans ? blas::op::T : blas::op::N,
                  unit ? blas::diag::unit : blas::diag::non_unit, n, m, T(alpha), ptr<const T>(a), lda, ptr<T>(b), ldb,
                  as_stream(stream));
  });
}

void symm(int dev, int dtype, bool left, bool lower, std::int64_t m, std::int64_t n, double alpha, addr a,
          std::int64_t lda, addr b, std::int64_t ldb, double beta, addr c, std::int64_t ldc, addr stream) {
  device_scope scope(dev);
  dispatch("cuprim.symm", dtype, real_types{}, [&]<class T>(std::type_identity<T>) {
    blas::symm<T>(side_of(left, true), uplo_of(lower, true), n, m, T(alpha), ptr<const T>(a), lda, ptr<const T>(b),
                  ldb, T(beta), ptr<T>(c), ldc, as_stream(stream));
  });
}

void gemm_strided_batched(int dev, int dtype, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n,
                          std::int64_t k, double alpha, addr a, std::int64_t lda, std::int64_t stride_a, addr b,
                          std::int64_t ldb, std::int64_t stride_b, double beta, addr c, std::int64_t ldc,
                          std::int64_t stride_c, std::int64_t batch, addr stream) {
  device_scope scope(dev);
  dispatch("cuprim.gemm_batched", dtype, real_types{}, [&]<class T>(std::type_identity<T>) {
    blas::gemm_strided_batched_row_major(trans_a ? blas::op::T : blas::op::N, trans_b ? blas::op::T : blas::op::N, m,
                                         n, k, T(alpha), ptr<const T>(a), lda, stride_a, ptr<const T>(b), ldb,
                                         stride_b, T(beta), ptr<T>(c), ldc, stride_c, batch, as_stream(stream));
  });
}

void trsm_strided_batched(int dev, int dtype, bool left, bool lower, bool trans, bool unit, std::int64_t m,
                          std::int64_t n, double alpha, addr a, std::int64_t lda, std::int64_t stride_a, addr b,
                          std::int64_t ldb, std::int64_t stride_b, std::int64_t batch, addr stream) {
  device_scope scope(dev);
  dispatch("cuprim.trsm_batched", dtype, real_types{}, [&]<class T>(std::type_identity<T>) {
    blas::trsm_strided_batched<T>(side_of(left, true), uplo_of(lower, true), trans ? blas::op::T : blas::op::N,
                                  unit ? blas::diag::unit : blas::diag::non_unit, n, m, T(alpha), ptr<const T>(a), lda,
                                  stride_a, ptr<T>(b), ldb, stride_b, batch, as_stream(stream));
  });
}

void describe_blas(table& t) {
  describe(t, "dot", types<float, double, __half, __nv_bfloat16>{});
  for (const char* op : {"gemv", "trsm", "symm", "gemm_batched", "trsm_batched"}) describe(t, op, real_types{});
}

}  // namespace cuprim::python
