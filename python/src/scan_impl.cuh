// python/src/scan_impl.cuh: the sums (cumsum) of scan_inclusive.cu and scan_exclusive.cu, one file each so that two
// cores compile them side by side. Pairs: every type into itself (16-bit floats accumulated in float), and the
// integers narrower than 64 bits into the 64-bit integer of their sign (NumPy's cumsum rule).
#pragma once

#include "dispatch.cuh"

#include <cuprim/device/scan.cuh>

namespace cuprim::python {

using scan_types = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                         std::uint32_t, std::uint64_t, __half, __nv_bfloat16, float, double>;

/// The 64-bit integer an integer narrower than 64 bits widens to (void: no widened form).
template <class T>
using widened_t = std::conditional_t<std::is_integral_v<T> && sizeof(T) < 8,
                                     std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>, void>;

template <bool Exclusive>
void scan_sum_run(const char* fn, int dev, int in_dtype, int out_dtype, addr in, addr out, std::int64_t n,
                  addr stream) {
  device_scope scope(dev);
  dispatch(fn, in_dtype, scan_types{}, [&]<class T>(std::type_identity<T>) {
    const auto run = [&]<class O>(std::type_identity<O>) {
      if constexpr (Exclusive) exclusive_sum(ptr<const T>(in), ptr<O>(out), n, as_stream(stream));
      else inclusive_sum(ptr<const T>(in), ptr<O>(out), n, as_stream(stream));
    };
    if (out_dtype == code_of<T>) return run(std::type_identity<T>{});
    if constexpr (!std::is_void_v<widened_t<T>>) {
      if (out_dtype == code_of<widened_t<T>>) return run(std::type_identity<widened_t<T>>{});
    }
    throw unsupported_dtype(fn, std::string(dtype_name(in_dtype)) + " into " + dtype_name(out_dtype));
  });
}

template <class... Ts>
void describe_scan_pairs(table& t, const char* op, types<Ts...>) {
  const auto one = [&]<class T>(std::type_identity<T>) {
    t.push_back(std::string(op) + ":" + dtype_name(code_of<T>) + ">" + dtype_name(code_of<T>));
    if constexpr (!std::is_void_v<widened_t<T>>)
      t.push_back(std::string(op) + ":" + dtype_name(code_of<T>) + ">" + dtype_name(code_of<widened_t<T>>));
  };
  (one(std::type_identity<Ts>{}), ...);
}

}  // namespace cuprim::python
