// cuprim/blas/gemm.cuh: general matrix multiply with BLAS conventions (host entry points).
//
//   cuprim::blas::gemm(op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream)
//        C = alpha · op(A) · op(B) + beta · C, column-major as in BLAS and cuBLAS: op(A) is m × k, op(B) is k × n,
//        C is m × n, and element (i, j) of an array X with leading dimension ldx is X[i + j·ldx]. op(X) is X for
//        blas::op::N and its transpose for blas::op::T (for real types, BLAS's 'C' is 'T').
//   cuprim::blas::gemm_row_major(op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream)
//        the same product over row-major arrays (element (i, j) at X[i·ldx + j]; lda ≥ the stored columns).
//
// Types: float and double, computed in the element type on CUDA cores (true FP32 and FP64: fused multiply-adds, no
// reduced-precision inputs); each element's sum runs over k in increasing order, so results are the same bits from
// run to run and |error| ≤ k·u·(|alpha|·Σ|a||b|) + u·|beta·c| to first order (u = 2^-24 or 2^-53).
//
// Semantics, exactly BLAS's: m = 0 or n = 0 does nothing; k = 0 or alpha = 0 sets C = beta·C (A and B are not read);
// beta = 0 writes C without reading it, so NaN or Inf already in C do not propagate. Any shape, leading dimension and
// alignment; sizes and leading dimensions are 64-bit. No workspace; the call is ordered on `stream` and returns
// without waiting for the GPU (graph-capturable).
//
// Algorithm (blas/detail/gemm_kernel.cuh): a block per tile of C, both operands' tiles staged through shared memory
// with the next tiles' loads in flight, 2-D register blocking (float: 16-byte loads and stores where the operands
// are 16-byte aligned with leading dimensions of whole 16-byte vectors; any other layout takes element accesses). Tensor-core paths (TF32, BF16, FP64 DMMA) are not
// built yet.
//
// Policy. Each entry point takes an optional cuprim::blas::gemm_policy as its first template argument (default
// cuprim::tuned: gemm_policy_for<T> for the device; blas/detail/gemm_tuning.cuh).
//
// Errors. cuprim::invalid_argument before anything runs: m, n or k negative; lda below max(1, the rows of A as
// stored: m for op N, k for op T), ldb below max(1, k or n), ldc below max(1, m); A, B or C null where its operand
// is non-empty; C overlapping A or B (A and B may overlap each other: both are only read); a grid too large for
// one launch. cuprim::cuda_error for a failed launch or an error already pending.
#pragma once

#include <cuprim/blas/detail/gemm_kernel.cuh>
#include <cuprim/blas/detail/gemm_tuning.cuh>
#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/launch.cuh>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace cuprim::blas {

/// op(X): X itself or its transpose (BLAS 'N' and 'T'; for real types 'C' is 'T').
enum class op { N, T };

}  // namespace cuprim::blas

namespace cuprim::detail {

/// Bytes spanned by a column-major rows × cols array with leading dimension ld (0 when empty).
inline std::size_t gemm_span_bytes(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::size_t elem) {
  if (rows <= 0 || cols <= 0) return 0;
  return (std::size_t(cols - 1) * std::size_t(ld) + std::size_t(rows)) * elem;
}

inline void gemm_check_ld(const char* fn, const char* arg, std::int64_t ld, std::int64_t rows) {
  if (ld < std::max<std::int64_t>(1, rows)) {
    std::string rule = "must be at least max(1, ";
    rule += std::to_string(rows);
    rule += "), the rows of the array as stored";
    throw_invalid(fn, arg, rule.c_str());
  }
}

/// The caller's names of the column-major view's arguments: the row-major form computes Cᵀ = op(B)ᵀ · op(A)ᵀ, so
/// its B, ldb, n and op_b are the view's A, lda, m and op_a.
struct gemm_names {
  const char *m, *n, *a, *lda, *op_a, *b, *ldb, *op_b;
};
inline constexpr gemm_names gemm_column_major{"m", "n", "A", "lda", "op_a", "B", "ldb", "op_b"};
inline constexpr gemm_names gemm_row_major_view{"n", "m", "B", "ldb", "op_b", "A", "lda", "op_a"};

/// The argument rules of gemm, on the column-major view (names: the caller's).
template <class T>
void gemm_validate(const char* fn, const gemm_names& nm, blas::op op_a, blas::op op_b, std::int64_t m,
                   std::int64_t n, std::int64_t k, const T* a, std::int64_t lda, const T* b, std::int64_t ldb,
                   const T* c, std::int64_t ldc) {
  check_size(fn, nm.m, m, sizeof(T));
  check_size(fn, nm.n, n, sizeof(T));
  check_size(fn, "k", k, sizeof(T));
  const bool ta = op_a == blas::op::T, tb = op_b == blas::op::T;
  if (op_a != blas::op::N && !ta) throw_invalid(fn, nm.op_a, "must be blas::op::N or blas::op::T");
  if (op_b != blas::op::N && !tb) throw_invalid(fn, nm.op_b, "must be blas::op::N or blas::op::T");
  const std::int64_t a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
  gemm_check_ld(fn, nm.lda, lda, a_rows);
  gemm_check_ld(fn, nm.ldb, ldb, b_rows);
  gemm_check_ld(fn, "ldc", ldc, m);
  const bool product = m > 0 && n > 0 && k > 0;
  check_pointer(fn, nm.a, a, product);
  check_pointer(fn, nm.b, b, product);
  check_pointer(fn, "C", c, m > 0 && n > 0);
  if (product)
    check_overlaps(fn, {{nm.a, a, gemm_span_bytes(a_rows, a_cols, lda, sizeof(T)), read_only},
                        {nm.b, b, gemm_span_bytes(b_rows, b_cols, ldb, sizeof(T)), read_only},
                        {"C", c, gemm_span_bytes(m, n, ldc, sizeof(T)), written}});
}

/// Every gemm ends here: validate, then the scaling kernel (k = 0 or alpha = 0) or the GEMM kernel.
template <auto Policy, class T>
void gemm_run(const char* fn, const gemm_names& nm, blas::op op_a, blas::op op_b, std::int64_t m, std::int64_t n, std::int64_t k, T alpha,
              const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T beta, T* c, std::int64_t ldc,
              cudaStream_t stream) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "cuprim::blas::gemm: float or double (tensor-core types are not built yet)");
  gemm_validate(fn, nm, op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc);
  with_tuned_arch([&]<int Arch>() {
    constexpr blas::gemm_policy P = pick_policy<Policy>(blas::gemm_policy_for<T>(Arch));
    const std::uint64_t tiles_m = (std::uint64_t(m) + P.tile_m - 1) / P.tile_m;
    const std::uint64_t tiles_n = (std::uint64_t(n) + P.tile_n - 1) / P.tile_n;
    if (tiles_m > 0x7fffffffu) throw_invalid(fn, nm.m, "too large for one launch");
    if (tiles_n > 65535) throw_invalid(fn, nm.n, "too large for one launch (at most 65535 tiles of columns)");
    check_no_pending_error(fn);
    if (m == 0 || n == 0) return;
    if (k == 0 || alpha == T(0)) {
      constexpr unsigned threads = 256;
      const dim3 grid(unsigned((std::uint64_t(m) + threads - 1) / threads), unsigned(std::min<std::int64_t>(n, 65535)));
      gemm_scale_kernel<<<grid, threads, 0, stream>>>(c, m, n, ldc, beta);
      check_launch(fn);
      return;
    }
    const auto vec = [](const T* p, std::int64_t ld) {
      return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 && (ld * std::int64_t(sizeof(T))) % 16 == 0;
    };
    const gemm_args<T> g{a,     b,    c,    m,    n,    k,    lda, ldb, ldc, alpha, beta, op_a == blas::op::T,
                         op_b == blas::op::T, vec(a, lda), vec(b, ldb), vec(c, ldc)};
    const dim3 grid{unsigned(tiles_m), unsigned(tiles_n), 1u};
    if constexpr (P.split && std::is_same_v<T, float>) {
      gemm_simt_split_kernel<policy_constant<P>><<<grid, P.threads(), 0, stream>>>(g);
    } else {
      gemm_simt_kernel<policy_constant<P>><<<grid, P.threads(), 0, stream>>>(g);
    }
    check_launch(fn);
  });
}

}  // namespace cuprim::detail

namespace cuprim::blas {

/// C = alpha · op(A) · op(B) + beta · C over column-major arrays (see the file comment).
template <auto Policy = tuned, class T>
void gemm(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A, std::int64_t lda,
          const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc, cudaStream_t stream = 0) {
  detail::gemm_run<Policy>("cuprim::blas::gemm", detail::gemm_column_major, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, stream);
}

/// The same product over row-major arrays: C = alpha · op(A) · op(B) + beta · C with element (i, j) of X at
/// X[i·ldx + j] (ldx at least the stored columns). Computed as the column-major Cᵀ = op(B)ᵀ · op(A)ᵀ.
template <auto Policy = tuned, class T>
void gemm_row_major(op op_a, op op_b, std::int64_t m, std::int64_t n, std::int64_t k, T alpha, const T* A,
                    std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C, std::int64_t ldc,
                    cudaStream_t stream = 0) {
  detail::gemm_run<Policy>("cuprim::blas::gemm_row_major", detail::gemm_row_major_view, op_b, op_a, n, m, k, alpha, B, ldb, A, lda, beta, C, ldc,
                           stream);
}

}  // namespace cuprim::blas
