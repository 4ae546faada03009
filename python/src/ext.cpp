// python/src/ext.cpp: cuprim._ext, the nanobind module: thin bindings of api.hpp (raw device addresses, dtype codes,
// stream handles as integers) and the translation of cuprim's exceptions into Python's. The array handling,
// allocation, stream choice and argument checks live in the pure-Python layer (cuprim/__init__.py).
#include "api.hpp"

#include <cuprim/core/error.hpp>

#include <cuda_runtime_api.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <source_location>

namespace nb = nanobind;
using namespace nb::literals;

namespace cuprim::python {

const char* dtype_name(int code) {
  static const char* const names[dtype_count] = {"int8",   "int16",   "int32",    "int64",   "uint8",
                                                 "uint16", "uint32",  "uint64",   "float16", "bfloat16",
                                                 "float32", "float64", "bool"};
  return code >= 0 && code < dtype_count ? names[code] : "unknown dtype";
}

unsupported_dtype::unsupported_dtype(const char* fn, const std::string& what_types)
    : message_(std::string(fn) + ": unsupported dtype: " + what_types + " (this build of cuprim has no instantiation "
               "for it; cuprim.supported_dtypes() lists those it has)") {}

int pointer_device(addr p) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(p)) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ? attr.device : -1;
}

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

void throw_for_test(const std::string& kind) {
  if (kind == "invalid_argument") throw cuprim::invalid_argument("cuprim::test", "x", "must be tested");
  if (kind == "cuda_error")
    throw cuprim::cuda_error(cudaErrorInvalidValue, "cuprim::test", std::source_location::current());
  if (kind == "bad_alloc") throw cuprim::bad_alloc(123, "cuprim::test");
  if (kind == "unsupported_dtype") throw unsupported_dtype("cuprim.test", "complex64");
  throw std::logic_error("throw_for_test: unknown kind " + kind);
}

}  // namespace cuprim::python

NB_MODULE(_ext, m) {
  namespace py = cuprim::python;
  m.doc() = "cuprim's compiled core: C++ entry points on raw device addresses (use the cuprim package instead).";

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const py::unsupported_dtype& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const cuprim::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const cuprim::cuda_error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const cuprim::bad_alloc& e) {
      PyErr_SetString(PyExc_MemoryError, e.what());
    }
  });

  m.def("sort", &py::sort, "dev"_a, "dtype"_a, "keys_in"_a, "keys_out"_a, "n"_a, "descending"_a, "begin_bit"_a,
        "end_bit"_a, "stream"_a);
  m.def("argsort", &py::argsort, "dev"_a, "dtype"_a, "keys"_a, "indices"_a, "n"_a, "descending"_a, "stream"_a);
  m.def("sort_pairs", &py::sort_pairs, "dev"_a, "key_dtype"_a, "value_bytes"_a, "keys_in"_a, "keys_out"_a,
        "values_in"_a, "values_out"_a, "n"_a, "descending"_a, "stream"_a);
  m.def("inclusive_sum", &py::scan_sum_inclusive, "dev"_a, "in_dtype"_a, "out_dtype"_a, "x"_a, "out"_a, "n"_a,
        "stream"_a);
  m.def("exclusive_sum", &py::scan_sum_exclusive, "dev"_a, "in_dtype"_a, "out_dtype"_a, "x"_a, "out"_a, "n"_a,
        "stream"_a);
  m.def("reduce", &py::reduce, "dev"_a, "op"_a, "in_dtype"_a, "out_dtype"_a, "x"_a, "out"_a, "n"_a, "stream"_a);
  m.def("select_flagged", &py::select_flagged, "dev"_a, "value_bytes"_a, "flag_dtype"_a, "x"_a, "flags"_a, "out"_a,
        "count"_a, "n"_a, "stream"_a);
  m.def("select_flagged_index", &py::select_flagged_index, "dev"_a, "flag_dtype"_a, "flags"_a, "out"_a, "count"_a,
        "n"_a, "stream"_a);
  m.def("unique", &py::unique, "dev"_a, "dtype"_a, "x"_a, "out"_a, "count"_a, "n"_a, "stream"_a);
  m.def("run_length_encode", &py::run_length_encode, "dev"_a, "dtype"_a, "x"_a, "unique_out"_a, "counts_out"_a,
        "num_runs"_a, "n"_a, "stream"_a);
  m.def("histogram_even_int", &py::histogram_even_int, "dev"_a, "dtype"_a, "samples"_a, "n"_a, "hist"_a, "bins"_a,
        "lower"_a, "upper"_a, "stream"_a);
  m.def("histogram_even_float", &py::histogram_even_float, "dev"_a, "dtype"_a, "samples"_a, "n"_a, "hist"_a,
        "bins"_a, "lower"_a, "upper"_a, "stream"_a);
  m.def("histogram_range", &py::histogram_range, "dev"_a, "dtype"_a, "samples"_a, "n"_a, "hist"_a, "edges"_a,
        "stream"_a);
  m.def("segmented_reduce", &py::segmented_reduce, "dev"_a, "op"_a, "dtype"_a, "offset_dtype"_a, "x"_a, "out"_a,
        "offsets"_a, "num_segments"_a, "stream"_a);
  m.def("segmented_sort", &py::segmented_sort, "dev"_a, "dtype"_a, "keys_in"_a, "keys_out"_a, "n"_a, "offsets"_a,
        "num_segments"_a, "descending"_a, "stream"_a);
  m.def("gemm", &py::gemm, "dev"_a, "in_dtype"_a, "out_dtype"_a, "trans_a"_a, "trans_b"_a, "m"_a, "n"_a, "k"_a,
        "alpha"_a, "a"_a, "lda"_a, "b"_a, "ldb"_a, "beta"_a, "c"_a, "ldc"_a, "stream"_a, "math"_a = 0);
  m.def("dot", &py::dot, "dev"_a, "dtype"_a, "n"_a, "x"_a, "incx"_a, "y"_a, "incy"_a, "result"_a, "stream"_a);
  m.def("gemv", &py::gemv, "dev"_a, "dtype"_a, "trans"_a, "m"_a, "n"_a, "alpha"_a, "a"_a, "lda"_a, "x"_a, "incx"_a,
        "beta"_a, "y"_a, "incy"_a, "stream"_a);
  m.def("trsm", &py::trsm, "dev"_a, "dtype"_a, "left"_a, "lower"_a, "trans"_a, "unit"_a, "m"_a, "n"_a, "alpha"_a,
        "a"_a, "lda"_a, "b"_a, "ldb"_a, "stream"_a);
  m.def("symm", &py::symm, "dev"_a, "dtype"_a, "left"_a, "lower"_a, "m"_a, "n"_a, "alpha"_a, "a"_a, "lda"_a, "b"_a,
        "ldb"_a, "beta"_a, "c"_a, "ldc"_a, "stream"_a);
  m.def("gemm_strided_batched", &py::gemm_strided_batched, "dev"_a, "dtype"_a, "trans_a"_a, "trans_b"_a, "m"_a, "n"_a,
        "k"_a, "alpha"_a, "a"_a, "lda"_a, "stride_a"_a, "b"_a, "ldb"_a, "stride_b"_a, "beta"_a, "c"_a, "ldc"_a,
        "stride_c"_a, "batch"_a, "stream"_a);
  m.def("trsm_strided_batched", &py::trsm_strided_batched, "dev"_a, "dtype"_a, "left"_a, "lower"_a, "trans"_a,
        "unit"_a, "m"_a, "n"_a, "alpha"_a, "a"_a, "lda"_a, "stride_a"_a, "b"_a, "ldb"_a, "stride_b"_a, "batch"_a,
        "stream"_a);

  m.def("copy", [](int dev, std::uintptr_t dst, std::uintptr_t src, std::int64_t bytes, std::uintptr_t stream) {
    if (bytes <= 0 || dst == src) return;
    int previous = 0;
    CUPRIM_CUDA_CHECK(cudaGetDevice(&previous));
    if (dev >= 0 && dev != previous) CUPRIM_CUDA_CHECK(cudaSetDevice(dev));
    const cudaError_t e = cudaMemcpyAsync(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src),
                                          std::size_t(bytes), cudaMemcpyDeviceToDevice,
                                          reinterpret_cast<cudaStream_t>(stream));
    if (dev >= 0 && dev != previous) (void)cudaSetDevice(previous);
    if (e != cudaSuccess) throw cuprim::cuda_error(e, "cuprim.copy", std::source_location::current());
  }, "dev"_a, "dst"_a, "src"_a, "bytes"_a, "stream"_a, "bytes from src to dst (device memory), ordered on stream.");
  m.def("pointer_device", &py::pointer_device, "ptr"_a,
        "The CUDA ordinal of the device memory at ptr, or -1 for host memory.");
  m.def("device_count", &py::device_count, "Number of CUDA devices visible (0 without a driver or device).");
  m.def("supported", [] {
    py::table t;
    py::describe_sort(t);
    py::describe_sort_pairs(t);
    py::describe_scan(t);
    py::describe_reduce(t);
    py::describe_select(t);
    py::describe_histogram(t);
    py::describe_gemm(t);
    py::describe_blas(t);
    py::describe_segmented(t);
    return t;
  }, "What this build instantiates: 'op:dtype' and 'op:in>out' entries.");
  m.def("dlpack_info", [](nb::ndarray<nb::ro> a) {
    nb::list shape, strides;
    for (size_t i = 0; i < a.ndim(); ++i) {
      shape.append(a.shape(i));
      strides.append(a.stride(i));
    }
    const nb::dlpack::dtype d = a.dtype();
    return nb::make_tuple(reinterpret_cast<std::uintptr_t>(a.data()), nb::tuple(shape), nb::tuple(strides),
                          nb::make_tuple(int(d.code), int(d.bits), int(d.lanes)), a.device_type(), a.device_id());
  }, "x"_a, "(address, shape, strides in elements, (DLPack type code, bits, lanes), device type, device id) of any "
           "object speaking DLPack, imported without a copy.");

  // Host-overhead hooks (bench.py): an empty call, and the same reduction looped in C++.
  m.def("_noop", [](std::uintptr_t, std::uintptr_t, std::int64_t, std::uintptr_t) {}, "An empty call (4 arguments).");
  m.def("_time_reduce_calls", &py::time_reduce_calls, "dev"_a, "op"_a, "in_dtype"_a, "out_dtype"_a, "x"_a, "out"_a,
        "n"_a, "stream"_a, "reps"_a,
        "Host microseconds per call of reps back-to-back reduce calls made from C++ (synchronises the stream before "
        "and after the loop).");
  m.def("_throw_for_test", &py::throw_for_test, "kind"_a);
}
