// python/src/sort_keys.cu: cuprim::radix_sort_keys for every key type the radix sort takes.
#include "dispatch.cuh"

#include <cuprim/device/radix_sort.cuh>

namespace cuprim::python {
namespace {
using key_types = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                        std::uint32_t, std::uint64_t, __half, __nv_bfloat16, float, double>;
}

void sort(int dev, int key_dtype, addr keys_in, addr keys_out, std::int64_t n, bool descending, int begin_bit,
          int end_bit, addr stream) {
  device_scope scope(dev);
  radix_sort_options opt;
  opt.order = descending ? sort_order::descending : sort_order::ascending;
  opt.begin_bit = begin_bit;
  opt.end_bit = end_bit;
  dispatch("cuprim.sort", key_dtype, key_types{}, [&]<class T>(std::type_identity<T>) {
    radix_sort_keys(ptr<const T>(keys_in), ptr<T>(keys_out), n, opt, as_stream(stream));
  });
}

void describe_sort(table& t) {
  describe(t, "sort", key_types{});
  describe(t, "argsort", key_types{});
}

}  // namespace cuprim::python
