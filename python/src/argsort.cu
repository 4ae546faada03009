// python/src/argsort.cu: cuprim::argsort (int64 indices) for every key type the radix sort takes.
#include "dispatch.cuh"

#include <cuprim/device/radix_sort.cuh>

namespace cuprim::python {
namespace {
using key_types = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                        std::uint32_t, std::uint64_t, __half, __nv_bfloat16, float, double>;
}

void argsort(int dev, int key_dtype, addr keys, addr indices, std::int64_t n, bool descending, addr stream) {
  device_scope scope(dev);
  radix_sort_options opt;
  opt.order = descending ? sort_order::descending : sort_order::ascending;
  dispatch("cuprim.argsort", key_dtype, key_types{}, [&]<class T>(std::type_identity<T>) {
    cuprim::argsort(ptr<const T>(keys), ptr<std::int64_t>(indices), n, opt, as_stream(stream));
  });
}

}  // namespace cuprim::python
