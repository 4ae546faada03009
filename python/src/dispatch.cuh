// python/src/dispatch.cuh: from a run-time dtype code to a C++ type, over a list of the types one family instantiates.
#pragma once

#include "api.hpp"

#include <cuprim/core/error.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>

namespace cuprim::python {

template <class... Ts>
struct types {};

template <class T> inline constexpr int code_of = -1;
template <> inline constexpr int code_of<std::int8_t> = int(dtype::i8);
template <> inline constexpr int code_of<std::int16_t> = int(dtype::i16);
template <> inline constexpr int code_of<std::int32_t> = int(dtype::i32);
template <> inline constexpr int code_of<std::int64_t> = int(dtype::i64);
template <> inline constexpr int code_of<std::uint8_t> = int(dtype::u8);
template <> inline constexpr int code_of<std::uint16_t> = int(dtype::u16);
template <> inline constexpr int code_of<std::uint32_t> = int(dtype::u32);
template <> inline constexpr int code_of<std::uint64_t> = int(dtype::u64);
template <> inline constexpr int code_of<__half> = int(dtype::f16);
template <> inline constexpr int code_of<__nv_bfloat16> = int(dtype::bf16);
template <> inline constexpr int code_of<float> = int(dtype::f32);
template <> inline constexpr int code_of<double> = int(dtype::f64);
template <> inline constexpr int code_of<bool> = int(dtype::b8);

/// Calls f(std::type_identity<T>{}) for the T of `code` in the list; unsupported_dtype (naming `fn` and the code)
/// when the list has none.
template <class... Ts, class F>
decltype(auto) dispatch(const char* fn, int code, types<Ts...>, F&& f) {
  using R = decltype(f(std::type_identity<typename std::tuple_element<0, std::tuple<Ts...>>::type>{}));
  if constexpr (std::is_void_v<R>) {
    bool done = ((code == code_of<Ts> ? (f(std::type_identity<Ts>{}), true) : false) || ...);
    if (!done) throw unsupported_dtype(fn, dtype_name(code));
  } else {
    R r{};
    bool done = ((code == code_of<Ts> ? (r = f(std::type_identity<Ts>{}), true) : false) || ...);
    if (!done) throw unsupported_dtype(fn, dtype_name(code));
    return r;
  }
}

/// The unsigned integer of a width in bytes (values that only move: their bits are all that matters).
template <int Bytes>
using uint_of = std::conditional_t<Bytes == 1, std::uint8_t,
                std::conditional_t<Bytes == 2, std::uint16_t,
                std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>>>;

/// Calls f(std::integral_constant<int, B>{}) for value_bytes among Bs.
template <int... Bs, class F>
void dispatch_width(const char* fn, int value_bytes, F&& f) {
  bool done = ((value_bytes == Bs ? (f(std::integral_constant<int, Bs>{}), true) : false) || ...);
  if (!done) throw unsupported_dtype(fn, std::to_string(value_bytes) + "-byte values");
}

/// Adds "op:name" for each type of the list.
template <class... Ts>
void describe(table& t, const char* op, types<Ts...>) {
  (t.push_back(std::string(op) + ":" + dtype_name(code_of<Ts>)), ...);
}

/// Makes `dev` the current device for the call's duration (a no-op when it already is).
class device_scope {
public:
  explicit device_scope(int dev) {
    CUPRIM_CUDA_CHECK(cudaGetDevice(&previous_));
    if (dev >= 0 && dev != previous_) {
      CUPRIM_CUDA_CHECK(cudaSetDevice(dev));
      restore_ = true;
    }
  }
  ~device_scope() {
    if (restore_) (void)cudaSetDevice(previous_);
  }
  device_scope(const device_scope&) = delete;
  device_scope& operator=(const device_scope&) = delete;

private:
  int previous_ = 0;
  bool restore_ = false;
};

template <class T>
inline T* ptr(addr a) {
  return reinterpret_cast<T*>(a);
}
inline cudaStream_t as_stream(addr s) { return reinterpret_cast<cudaStream_t>(s); }

}  // namespace cuprim::python
