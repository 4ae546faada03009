// python/src/select.cu: cuprim::select_flagged. The items only move, so they ride on the unsigned integer of their
// width. Two sets of instantiations: items of 1, 2, 4 or 8 bytes under a byte mask (bool or uint8: nonzero selects),
// and 8-byte items (the indices of nonzero) under flags of any integer width (nonzero bits) or float / double
// (nonzero values: -0.0 is zero, NaN is not).
#include "dispatch.cuh"

#include <cuprim/device/select.cuh>

namespace cuprim::python {
namespace {
using index_flag_types = types<std::uint16_t, std::uint32_t, std::uint64_t, float, double>;
}

void select_flagged(int dev, int value_bytes, int flag_dtype, addr in, addr flags, addr out, addr count,
                    std::int64_t n, addr stream) {
  device_scope scope(dev);
  const char* fn = "cuprim.select";
  const auto run = [&]<class V, class F>(std::type_identity<V>, std::type_identity<F>) {
    cuprim::select_flagged(ptr<const V>(in), ptr<const F>(flags), ptr<V>(out), ptr<std::int64_t>(count), n,
                           as_stream(stream));
  };
  if (flag_dtype == int(dtype::u8) || flag_dtype == int(dtype::b8) || flag_dtype == int(dtype::i8)) {
    dispatch_width<1, 2, 4, 8>(fn, value_bytes, [&]<int B>(std::integral_constant<int, B>) {
      run(std::type_identity<uint_of<B>>{}, std::type_identity<std::uint8_t>{});
    });
    return;
  }
  if (value_bytes != 8)
    throw unsupported_dtype(fn, std::string(dtype_name(flag_dtype)) + " flags with items other than 8-byte ones");
  dispatch(fn, flag_dtype, index_flag_types{},
           [&]<class F>(std::type_identity<F>) { run(std::type_identity<std::uint64_t>{}, std::type_identity<F>{}); });
}

void describe_select(table& t) {
  // As the Python layer offers them: masks of bool, int8 or uint8 over items of any dtype; nonzero of any integer,
  // bool, float or double; unique and run_length_encode likewise (integers by width, unique.cu).
  describe(t, "select_mask", types<bool, std::int8_t, std::uint8_t>{});
  using nonzero_types = types<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                              std::uint32_t, std::uint64_t, float, double>;
  describe(t, "nonzero", nonzero_types{});
  describe(t, "unique", nonzero_types{});
  describe(t, "run_length_encode", nonzero_types{});
}

}  // namespace cuprim::python
