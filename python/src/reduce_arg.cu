// python/src/reduce_arg.cu: cuprim::argmin and argmax; the result is a cuprim::arg_result<T> (the value, then the
// int64 index 8 bytes in, for every T here).
#include "dispatch.cuh"

#include <cuprim/device/reduce.cuh>

namespace cuprim::python {
namespace {
using arg_types = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                        std::uint32_t, std::uint64_t, __half, __nv_bfloat16, float, double>;
}

void reduce_arg(int op, int in_dtype, addr in, addr out, std::int64_t n, addr stream) {
  const bool max = op == int(reduce_op::argmax);
  dispatch(max ? "cuprim.argmax" : "cuprim.argmin", in_dtype, arg_types{}, [&]<class T>(std::type_identity<T>) {
    static_assert(sizeof(arg_result<T>) == 16 && offsetof(arg_result<T>, index) == 8);
    if (max) cuprim::argmax(ptr<const T>(in), ptr<arg_result<T>>(out), n, as_stream(stream));
    else cuprim::argmin(ptr<const T>(in), ptr<arg_result<T>>(out), n, as_stream(stream));
  });
}

}  // namespace cuprim::python
