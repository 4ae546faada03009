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

/// Row-major C = alpha · op(A) · op(B) + beta · C; math: a blas::math value (float32 inputs only; 0 otherwise).
void gemm(int dev, int in_dtype, int out_dtype, bool trans_a, bool trans_b, std::int64_t m, std::int64_t n,
          std::int64_t k, double alpha, addr a, std::int64_t lda, addr b, std::int64_t ldb, double beta, addr c,
          std::int64_t ldc, addr stream, int math);

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

}  // namespace cuprim::python
