// python/src/api.hpp: the C++ entry points behind cuprim._ext, on raw device addresses and dtype codes.
//
// The nanobind module (ext.cpp, a plain C++ translation unit) calls these; the .cu files next to it define them,
// each instantiating cuprim's templates for the dtypes listed in its own table. Addresses and stream handles are
// passed as integers (what PyTorch, CuPy and __cuda_array_interface__ give Python). `device` is the CUDA ordinal
// the arrays live on: the call makes it current for its duration. Errors are cuprim's exceptions, plus
// unsupported_dtype for a dtype (or pair of dtypes) this build has no instantiation for.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace cuprim::python {

/// Element types, as the Python layer codes them (cuprim/_dtypes.py holds the same table).
enum class dtype : int { i8 = 0, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, b8 };
inline constexpr int dtype_count = 13;
const char* dtype_name(int code);

/// No instantiation for this dtype (Python: TypeError).
class unsupported_dtype : public std::exception {
public:
  unsupported_dtype(const char* fn, const std::string& what_types);
  const char* what() const noexcept override { return message_.c_str(); }

private:
  std::string message_;
};

using addr = std::uintptr_t;

/// Reductions: what `reduce` computes.
enum class reduce_op : int { sum = 0, min, max, argmin, argmax };

void sort(int dev, int key_dtype, addr keys_in, addr keys_out, std::int64_t n, bool descending, int begin_bit,
          int end_bit, addr stream);
void argsort(int dev, int key_dtype, addr keys, addr indices /* int64 */, std::int64_t n, bool descending,
             addr stream);
/// Values move with their keys: only their width matters (value_bytes 4 or 8).
void sort_pairs(int dev, int key_dtype, int value_bytes, addr keys_in, addr keys_out, addr values_in,
                addr values_out, std::int64_t n, bool descending, addr stream);

/// out[i] = in[0] + ... + in[i] (exclusive: + in[i-1], out[0] = 0), accumulated in out's type.
void scan_sum_inclusive(int dev, int in_dtype, int out_dtype, addr in, addr out, std::int64_t n, addr stream);
void scan_sum_exclusive(int dev, int in_dtype, int out_dtype, addr in, addr out, std::int64_t n, addr stream);

/// *out = the reduction (argmin/argmax: cuprim::arg_result<T>, 16 bytes: the value, then the int64 index at +8).
void reduce(int dev, int op, int in_dtype, int out_dtype, addr in, addr out, std::int64_t n, addr stream);

/// out = the items of in (value_bytes wide) whose flag (bool, int8 or uint8) is nonzero; *count (int64) = their
/// number.
void select_flagged(int dev, int value_bytes, int flag_dtype, addr in, addr flags, addr out, addr count,
                    std::int64_t n, addr stream);
/// out (int64) = the indices i with flags[i] nonzero, in order (no index array: generated from the positions);
/// *count (int64) = their number. Flags: uint8 (bool and int8 too), uint16, uint32, uint64 (signed integers pass
/// the unsigned code of their width), float32, float64.
void select_flagged_index(int dev, int flag_dtype, addr flags, addr out, addr count, std::int64_t n, addr stream);
/// out = in without adjacent duplicates; *count = their number.
void unique(int dev, int dtype, addr in, addr out, addr count, std::int64_t n, addr stream);
/// Each run of equal adjacent items: its item to unique_out, its length (int64) to counts_out; *num_runs.
void run_length_encode(int dev, int dtype, addr in, addr unique_out, addr counts_out, addr num_runs, std::int64_t n,
                       addr stream);

/// hist[0, bins) (uint64 counters) = counts of samples in `bins` equal bins over [lower, upper): integer samples
/// with integer levels (exact), floating-point samples with double levels.
void histogram_even_int(int dev, int dtype, addr samples, std::int64_t n, addr hist, int bins, std::int64_t lower,
                        std::int64_t upper, addr stream);
void histogram_even_float(int dev, int dtype, addr samples, std::int64_t n, addr hist, int bins, double lower,
                          double upper, addr stream);

/// hist[0, edges.size() - 1) (uint64) = counts of samples with edges[b] <= x < edges[b + 1] (edges: host, sorted).
void histogram_range(int dev, int dtype, addr samples, std::int64_t n, addr hist, const std::vector<double>& edges,
                     addr stream);

/// out[s] = the reduction (reduce_op sum, min or max) of in[offsets[s], offsets[s + 1]); offsets int32 or int64.
void segmented_reduce(int dev, int op, int dtype, int offset_dtype, addr in, addr out, addr offsets,
                      std::int64_t num_segments, addr stream);
/// Each segment [offsets[s], offsets[s + 1]) of keys_out = that segment of keys_in, sorted (offsets: int64).
void segmented_sort(int dev, int dtype, addr keys_in, addr keys_out, std::int64_t n, addr offsets,
                    std::int64_t num_segments, bool descending, addr stream);

/// Row-major C = alpha · op(A) · op(B) + beta · C; math: a blas::math value (float32 inputs only; 0 otherwise).
void gemm(int dev, int in_dtype, int out_dtype, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n,
          std::int64_t k, double alpha, addr a, std::int64_t lda, addr b, std::int64_t ldb, double beta, addr c,
          std::int64_t ldc, addr stream, int math);

/// The BLAS routines after gemm on row-major arrays (blas.cu): `a`, `b`, `c` row-major with leading dimensions in
/// elements; flags as the Python layer names them. dot: *result (float32 for the 16-bit inputs) = Σ x_k·y_k.
void dot(int dev, int dtype, std::int64_t n, addr x, std::int64_t incx, addr y, std::int64_t incy, addr result,
         addr stream);
/// y = alpha · op(A) · x + beta · y, A row-major m × n.
void gemv(int dev, int dtype, bool trans, std::int64_t m, std::int64_t n, double alpha, addr a, std::int64_t lda,
          addr x, std::int64_t incx, double beta, addr y, std::int64_t incy, addr stream);
/// Solves op(A)·X = alpha·B (left) or X·op(A) = alpha·B, B (m × n) overwritten by X.
void trsm(int dev, int dtype, bool left, bool lower, bool trans, bool unit, std::int64_t m, std::int64_t n,
          double alpha, addr a, std::int64_t lda, addr b, std::int64_t ldb, addr stream);
/// C = alpha·A·B + beta·C (left) or alpha·B·A + beta·C, A symmetric, only its `lower` (or upper) triangle read.
void symm(int dev, int dtype, bool left, bool lower, std::int64_t m, std::int64_t n, double alpha, addr a,
          std::int64_t lda, addr b, std::int64_t ldb, double beta, addr c, std::int64_t ldc, addr stream);
/// batch row-major products, operand z at a + z·stride_a (elements), and so on.
void gemm_strided_batched(int dev, int dtype, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n,
                          std::int64_t k, double alpha, addr a, std::int64_t lda, std::int64_t stride_a, addr b,
                          std::int64_t ldb, std::int64_t stride_b, double beta, addr c, std::int64_t ldc,
                          std::int64_t stride_c, std::int64_t batch, addr stream);
/// batch row-major triangular solves, as trsm, operand z at a + z·stride_a and b + z·stride_b.
void trsm_strided_batched(int dev, int dtype, bool left, bool lower, bool trans, bool unit, std::int64_t m,
                          std::int64_t n, double alpha, addr a, std::int64_t lda, std::int64_t stride_a, addr b,
                          std::int64_t ldb, std::int64_t stride_b, std::int64_t batch, addr stream);

/// Host microseconds per call of `reps` back-to-back reduce(...) calls made from C++: the loop's wall time divided
/// by reps, nothing synchronised inside it (the stream is synchronised after one warm-up call before the loop, and
/// after the loop, outside the timing).
double time_reduce_calls(int dev, int op, int in_dtype, int out_dtype, addr in, addr out, std::int64_t n, addr stream,
                         int reps);

/// The ordinal of the device `p` lives on, or -1 for host memory (pageable or not a CUDA allocation).
int pointer_device(addr p);
int device_count();

/// Test hook: throws the exception `kind` names (invalid_argument, cuda_error, bad_alloc, unsupported_dtype).
void throw_for_test(const std::string& kind);

/// What this build instantiates, as "op:dtype" or "op:dtype>dtype" entries (each family's .cu adds its own, from the
/// same type lists its dispatch uses), for the Python layer's dtype checks and the tests.
using table = std::vector<std::string>;
void describe_sort(table&);
void describe_sort_pairs(table&);
void describe_scan(table&);
void describe_reduce(table&);
void describe_select(table&);
void describe_histogram(table&);
void describe_gemm(table&);
void describe_blas(table&);
void describe_segmented(table&);

}  // namespace cuprim::python
