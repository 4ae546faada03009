// python/src/sort_pairs.cu: cuprim::radix_sort_pairs for 32- and 64-bit keys, with 4- or 8-byte values (values only
// move, so any dtype of those widths rides on the unsigned integer of its width).
#include "dispatch.cuh"

#include <cuprim/device/radix_sort.cuh>

namespace cuprim::python {
namespace {
using pair_key_types = types<std::int32_t, std::int64_t, std::uint32_t, std::uint64_t, float, double>;
}

void sort_pairs(int dev, int key_dtype, int value_bytes, addr keys_in, addr keys_out, addr values_in,
                addr values_out, std::int64_t n, bool descending, addr stream) {
  device_scope scope(dev);
  radix_sort_options opt;
  opt.order = descending ? sort_order::descending : sort_order::ascending;
  dispatch("cuprim.sort_pairs", key_dtype, pair_key_types{}, [&]<class K>(std::type_identity<K>) {
    dispatch_width<4, 8>("cuprim.sort_pairs", value_bytes, [&]<int B>(std::integral_constant<int, B>) {
      using V = uint_of<B>;
      radix_sort_pairs(ptr<const K>(keys_in), ptr<K>(keys_out), ptr<const V>(values_in), ptr<V>(values_out), n, opt,
                       as_stream(stream));
    });
  });
}

void describe_sort_pairs(table& t) { describe(t, "sort_pairs", pair_key_types{}); }

}  // namespace cuprim::python
