// cuprim/blas/op.hpp: the small enums BLAS entry points take: the operand transform (gemm, gemv, trsm), and the
// side, triangle and diagonal of a triangular or symmetric operand (trsm, symm).
#pragma once

namespace cuprim::blas {

/// op(X): X itself or its transpose (BLAS 'N' and 'T'; for real types 'C' is 'T').
enum class op { N, T };

/// Which side of the unknown (trsm) or of B (symm) the triangular or symmetric A stands on (BLAS 'L' and 'R').
enum class side { left, right };

/// Which triangle of A is stored and read (BLAS 'L' and 'U'); the other is never read.
enum class uplo { lower, upper };

/// Whether A's diagonal is read (non_unit) or taken as all ones without being read (unit; BLAS 'N' and 'U').
enum class diag { non_unit, unit };

}  // namespace cuprim::blas
