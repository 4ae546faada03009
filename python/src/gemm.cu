// python/src/gemm.cu: cuprim::blas::gemm_row_major: float and double (computed in their type; float also in the
// tf32 math modes), bfloat16 and half inputs with float accumulation into their own type or float.
#include "dispatch.cuh"

#include <cuprim/blas/gemm.cuh>

namespace cuprim::python {

void gemm(int dev, int in_dtype, int out_dtype, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n,
          std::int64_t k, double alpha, addr a, std::int64_t lda, addr b, std::int64_t ldb, double beta, addr c,
          std::int64_t ldc, addr stream, int math) {
  device_scope scope(dev);
  const char* fn = "cuprim.gemm";
  const blas::op oa = trans_a ? blas::op::T : blas::op::N, ob = trans_b ? blas::op::T : blas::op::N;
  const cudaStream_t s = as_stream(stream);
  dispatch(fn, in_dtype, types<float, double, __nv_bfloat16, __half>{}, [&]<class T>(std::type_identity<T>) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (out_dtype != code_of<T>)
        throw unsupported_dtype(fn, std::string(dtype_name(in_dtype)) + " into " + dtype_name(out_dtype));
      if constexpr (std::is_same_v<T, float>) {
        blas::gemm_row_major(blas::math(math), oa, ob, m, n, k, float(alpha), ptr<const float>(a), lda,
                             ptr<const float>(b), ldb, float(beta), ptr<float>(c), ldc, s);
        return;
      }
      if (math != 0) cuprim::detail::throw_invalid(fn, "math", "takes float32 inputs (float64 is computed in FP64)");
      blas::gemm_row_major(oa, ob, m, n, k, T(alpha), ptr<const T>(a), lda, ptr<const T>(b), ldb, T(beta), ptr<T>(c),
                           ldc, s);
    } else {
      if (math != 0) cuprim::detail::throw_invalid(fn, "math", "takes float32 inputs (16-bit inputs always run on tensor cores)");
      if (out_dtype == code_of<T>)
        blas::gemm_row_major(oa, ob, m, n, k, float(alpha), ptr<const T>(a), lda, ptr<const T>(b), ldb, float(beta),
                             ptr<T>(c), ldc, s);
      else if (out_dtype == code_of<float>)
        blas::gemm_row_major(oa, ob, m, n, k, float(alpha), ptr<const T>(a), lda, ptr<const T>(b), ldb, float(beta),
                             ptr<float>(c), ldc, s);
      else
        throw unsupported_dtype(fn, std::string(dtype_name(in_dtype)) + " into " + dtype_name(out_dtype));
    }
  });
}

void describe_gemm(table& t) {
  for (const char* e : {"gemm:float32>float32", "gemm:float64>float64", "gemm:bfloat16>bfloat16",
                        "gemm:bfloat16>float32", "gemm:float16>float16", "gemm:float16>float32"})
    t.push_back(e);
}

}  // namespace cuprim::python
