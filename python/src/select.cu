// python/src/select.cu: cuprim::select_flagged and cuprim::select_flagged_index. select's items only move, so they
// ride on the unsigned integer of their width under a byte mask (bool or uint8: nonzero selects): items of 1, 2, 4
// or 8 bytes. nonzero's indices come from select_flagged_index (int64, generated from the flags' positions, no index
// array) under flags of any integer width (nonzero bits) or float / double (nonzero values: -0.0 is zero, NaN is
// not).
#include "dispatch.cuh"

#include <cuprim/device/select.cuh>

namespace cuprim::python {
namespace {
using index_flag_types = types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, float, double>;

bool byte_flags(int flag_dtype) {
  return flag_dtype == int(dtype::u8) || flag_dtype == int(dtype::b8) || flag_dtype == int(dtype::i8);
}
}  // namespace

void select_flagged(int dev, int value_bytes, int flag_dtype, addr in, addr flags, addr out, addr count,
                    std::int64_t n, addr stream) {
  device_scope scope(dev);
  const char* fn = "cuprim.select";
  if (!byte_flags(flag_dtype)) throw unsupported_dtype(fn, std::string(dtype_name(flag_dtype)) + " masks");
  dispatch_width<1, 2, 4, 8>(fn, value_bytes, [&]<int B>(std::integral_constant<int, B>) {
    using V = uint_of<B>;
    cuprim::select_flagged(ptr<const V>(in), ptr<const std::uint8_t>(flags), ptr<V>(out), ptr<std::int64_t>(count), n,
                           as_stream(stream));
  });
}

void select_flagged_index(int dev, int flag_dtype, addr flags, addr out, addr count, std::int64_t n, addr stream) {
  device_scope scope(dev);
  const char* fn = "cuprim.nonzero";
  const int code = byte_flags(flag_dtype) ? int(dtype::u8) : flag_dtype;
  dispatch(fn, code, index_flag_types{}, [&]<class F>(std::type_identity<F>) {
    cuprim::select_flagged_index(ptr<const F>(flags), ptr<std::int64_t>(out), ptr<std::int64_t>(count), n,
                                 as_stream(stream));
  });
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
