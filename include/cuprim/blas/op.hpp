// cuprim/blas/op.hpp: the operand transform every BLAS entry point takes (gemm, gemv).
#pragma once

namespace cuprim::blas {

/// op(X): X itself or its transpose (BLAS 'N' and 'T'; for real types 'C' is 'T').
enum class op { N, T };

}  // namespace cuprim::blas
