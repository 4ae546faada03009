// cuprim/blas/detail/strided.hpp: BLAS's strided vectors (n elements, increment inc) on the host side of level 1
// and 2: the bytes one spans, and the address the kernels index from.
//
// BLAS's rule: with inc > 0, element k is at x[k·inc]; with inc < 0, at x[(n - 1 - k)·|inc|] (the traversal starts
// at the end); with inc = 0 every element is x[0]. strided_base returns the address b with element k at b[k·inc]
// for every sign, so kernels use one formula.
#pragma once

#include <cuprim/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>

namespace cuprim::detail {

/// Bytes spanned by n elements of elem bytes at increment inc ((n - 1)·|inc| + 1 elements; 0 when n = 0); throws
/// invalid_argument naming `inc_name` when that exceeds the address space.
inline std::size_t strided_span_bytes(const char* fn, const char* inc_name, std::int64_t n, std::int64_t inc,
                                      std::size_t elem) {
  if (n <= 0) return 0;
  if (inc == std::numeric_limits<std::int64_t>::min()) throw_invalid(fn, inc_name, "must be above -2^63");
  const std::uint64_t step = std::uint64_t(inc < 0 ? -inc : inc);
  const std::uint64_t most = SIZE_MAX / elem - 1;  // elements the address space holds, less the first
  if (step != 0 && std::uint64_t(n - 1) > most / step)
    throw_invalid(fn, inc_name, "spans more than the address space with this n");
  return std::size_t((std::uint64_t(n - 1) * step + 1) * elem);
}

/// The address b with element k of the strided vector at b[k·inc] (see the file comment).
template <class T>
T* strided_base(T* p, std::int64_t n, std::int64_t inc) {
  return inc < 0 && n > 0 ? p + (n - 1) * -inc : p;
}

}  // namespace cuprim::detail
