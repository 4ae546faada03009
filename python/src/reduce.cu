// python/src/reduce.cu: cuprim::sum, min and max (and the dispatch of every reduction); argmin and argmax are in
// reduce_arg.cu. sum accumulates integers in the 64-bit integer of their sign (NumPy's rule), floats in their own type
// (16-bit floats in float, rounded once to the output's type).
#include "dispatch.cuh"

#include <cuprim/device/reduce.cuh>

#include <chrono>

namespace cuprim::python {
namespace {
using reduce_types = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                           std::uint32_t, std::uint64_t, __half, __nv_bfloat16, float, double>;

/// The type sum writes for T.
template <class T>
using sum_t = std::conditional_t<std::is_integral_v<T>,
                                 std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>, T>;

void reduce_plain(int op, int in_dtype, int out_dtype, addr in, addr out, std::int64_t n, addr stream) {
  const char* fn = op == int(reduce_op::sum) ? "cuprim.sum" : op == int(reduce_op::min) ? "cuprim.min" : "cuprim.max";
  dispatch(fn, in_dtype, reduce_types{}, [&]<class T>(std::type_identity<T>) {
    if (op == int(reduce_op::sum)) {
      if (out_dtype != code_of<sum_t<T>>)
        throw unsupported_dtype(fn, std::string(dtype_name(in_dtype)) + " into " + dtype_name(out_dtype));
      cuprim::sum(ptr<const T>(in), ptr<sum_t<T>>(out), n, as_stream(stream));
      return;
    }
    if (out_dtype != code_of<T>)
      throw unsupported_dtype(fn, std::string(dtype_name(in_dtype)) + " into " + dtype_name(out_dtype));
    if (op == int(reduce_op::min)) cuprim::min(ptr<const T>(in), ptr<T>(out), n, as_stream(stream));
    else cuprim::max(ptr<const T>(in), ptr<T>(out), n, as_stream(stream));
  });
}
}  // namespace

void reduce_arg(int op, int in_dtype, addr in, addr out, std::int64_t n, addr stream);  // reduce_arg.cu

void reduce(int dev, int op, int in_dtype, int out_dtype, addr in, addr out, std::int64_t n, addr stream) {
  device_scope scope(dev);
  switch (reduce_op(op)) {
    case reduce_op::sum:
    case reduce_op::min:
    case reduce_op::max: reduce_plain(op, in_dtype, out_dtype, in, out, n, stream); return;
    case reduce_op::argmin:
    case reduce_op::argmax: reduce_arg(op, in_dtype, in, out, n, stream); return;
  }
  cuprim::detail::throw_invalid("cuprim._ext.reduce", "op", "must be sum, min, max, argmin or argmax");
}

double time_reduce_calls(int dev, int op, int in_dtype, int out_dtype, addr in, addr out, std::int64_t n, addr stream,
                         int reps) {
  reduce(dev, op, in_dtype, out_dtype, in, out, n, stream);  // warm
  CUPRIM_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream)));
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) reduce(dev, op, in_dtype, out_dtype, in, out, n, stream);
  const auto t1 = std::chrono::steady_clock::now();
  CUPRIM_CUDA_CHECK(cudaStreamSynchronize(as_stream(stream)));
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / (reps > 0 ? reps : 1);
}

void describe_reduce(table& t) {
  const auto one = [&]<class T>(std::type_identity<T>) {
    t.push_back(std::string("sum:") + dtype_name(code_of<T>) + ">" + dtype_name(code_of<sum_t<T>>));
  };
  [&]<class... Ts>(types<Ts...>) { (one(std::type_identity<Ts>{}), ...); }(reduce_types{});
  describe(t, "min", reduce_types{});
  describe(t, "max", reduce_types{});
  describe(t, "argmin", reduce_types{});
  describe(t, "argmax", reduce_types{});
}

}  // namespace cuprim::python
