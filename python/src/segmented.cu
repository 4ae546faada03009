// python/src/segmented.cu: cuprim::segmented_reduce (sum, min, max) and cuprim::segmented_sort_keys over CSR offsets
// (num_segments + 1 int32 or int64 values in device memory for the reductions, int64 for the sort).
//
// Sums accumulate as cuprim.sum does (signed integers in int64, unsigned in uint64, floats in their type); min and
// max keep the input's type, and an empty segment gets the type's largest (min) or lowest (max) value: +inf / -inf
// for floats, as numeric_traits defines them.
#include "dispatch.cuh"

#include <cuprim/device/segmented_reduce.cuh>
#include <cuprim/device/segmented_sort.cuh>

namespace cuprim::python {
namespace {
using reduce_types = types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t, float, double>;
using sort_types = types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t, float, double>;

template <class T>
using sum_t = std::conditional_t<std::is_floating_point_v<T>, T,
                                 std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>>;
}  // namespace

void segmented_reduce(int dev, int op, int dtype, int offset_dtype, addr in, addr out, addr offsets,
                      std::int64_t num_segments, addr stream) {
  device_scope scope(dev);
  const char* fn = "cuprim.segmented_reduce";
  const cudaStream_t s = as_stream(stream);
  dispatch(fn, dtype, reduce_types{}, [&]<class T>(std::type_identity<T>) {
    dispatch(fn, offset_dtype, types<std::int32_t, std::int64_t>{}, [&]<class O>(std::type_identity<O>) {
      const T* x = ptr<const T>(in);
      const O* off = ptr<const O>(offsets);
      switch (reduce_op(op)) {
        case reduce_op::sum:
          cuprim::segmented_reduce(x, ptr<sum_t<T>>(out), off, num_segments, plus{}, sum_t<T>(0), s);
          return;
        case reduce_op::min:
          cuprim::segmented_reduce(x, ptr<T>(out), off, num_segments, minimum{}, numeric_traits<T>::highest(), s);
          return;
        case reduce_op::max:
          cuprim::segmented_reduce(x, ptr<T>(out), off, num_segments, maximum{}, numeric_traits<T>::lowest(), s);
          return;
        default:
          cuprim::detail::throw_invalid(fn, "op", "must be sum, min or max");
      }
    });
  });
}

void segmented_sort(int dev, int dtype, addr keys_in, addr keys_out, std::int64_t n, addr offsets,
                    std::int64_t num_segments, bool descending, addr stream) {
  device_scope scope(dev);
  radix_sort_options opt;
  opt.order = descending ? sort_order::descending : sort_order::ascending;
  dispatch("cuprim.segmented_sort", dtype, sort_types{}, [&]<class T>(std::type_identity<T>) {
    cuprim::segmented_sort_keys(ptr<const T>(keys_in), ptr<T>(keys_out), n, num_segments,
                                ptr<const std::int64_t>(offsets), opt, as_stream(stream));
  });
}

void describe_segmented(table& t) {
  describe(t, "segmented_reduce", reduce_types{});
  describe(t, "segmented_sort", sort_types{});
}

}  // namespace cuprim::python
