// cuprim/multi/detail/nccl.hpp: NCCL's error check, groups and element types, for cuprim::multi's operations.
#pragma once

#include <cuprim/multi/communicator.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <nccl.h>

#include <cstdint>
#include <source_location>
#include <type_traits>

namespace cuprim::multi::detail {

/// The prefix of cuprim::multi's entry points' names in their errors (CUPRIM_ENTRY_NAME).
inline constexpr char entry_prefix[] = "cuprim::multi::";

/// Throws nccl_error unless `code` is ncclSuccess (prefer CUPRIM_NCCL_CHECK, which records the call).
void nccl_check(ncclResult_t code, const char* call, std::source_location where = std::source_location::current());

inline void group_start() { nccl_check(ncclGroupStart(), "ncclGroupStart()"); }
inline void group_end() { nccl_check(ncclGroupEnd(), "ncclGroupEnd()"); }

/// Runs f(local_rank&, i) for every local rank i, with its device current, inside one NCCL group (several GPUs driven by
/// one thread must issue their collectives as one group). A throwing f still closes the group.
template <class F>
void each_rank_grouped(const communicator& c, F&& f) {
  group_start();
  try {
    for (int i = 0; i < c.local_size(); ++i) {
      device_guard g(c[i].device);
      f(c[i], i);
    }
  } catch (...) {
    ncclGroupEnd();
    throw;
  }
  group_end();
}

/// Runs f(local_rank&, i) for every local rank i, with its device current (no group: local work only).
template <class F>
void each_rank(const communicator& c, F&& f) {
  for (int i = 0; i < c.local_size(); ++i) {
    device_guard g(c[i].device);
    f(c[i], i);
  }
}

/// NCCL's element type for T, where NCCL has one (the reductions of bins and sums need it).
template <class T>
constexpr ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<T, std::int8_t> || (std::is_same_v<T, char> && std::is_signed_v<char>))
    return ncclInt8;
  else if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, char>)
    return ncclUint8;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 4)
    return ncclInt32;
  else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && sizeof(T) == 4)
    return ncclUint32;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 8)
    return ncclInt64;
  else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && sizeof(T) == 8)
    return ncclUint64;
  else if constexpr (std::is_same_v<T, __half>)
    return ncclFloat16;
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return ncclBfloat16;
  else if constexpr (std::is_same_v<T, float>)
    return ncclFloat32;
  else if constexpr (std::is_same_v<T, double>)
    return ncclFloat64;
  else
    static_assert(sizeof(T) == 0, "no NCCL element type for this type");
}

/// Whether nccl_type<T>() names a type (8-, 32- and 64-bit integers, the floating types).
template <class T>
inline constexpr bool has_nccl_type =
    (std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8)) ||
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, __half> ||
    std::is_same_v<T, __nv_bfloat16>;

}  // namespace cuprim::multi::detail

/// Throws cuprim::multi::nccl_error, naming the call, unless it returned ncclSuccess.
#define CUPRIM_NCCL_CHECK(call) ::cuprim::multi::detail::nccl_check((call), #call)
