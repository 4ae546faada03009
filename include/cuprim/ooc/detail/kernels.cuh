// cuprim/ooc/detail/kernels.cuh: the small kernels that join chunks: the running total of a reduction and the
// carry of a scan.
#pragma once

#include <cuprim/core/functional.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim::ooc::detail {

/// acc = first ? part : op(acc, part). One thread; launched in chunk order (the pipeline's ordered step).
template <class Acc, class Op>
__global__ void combine_kernel(Acc* acc, const Acc* part, bool first, Op op) {
  *acc = first ? *part : op(*acc, *part);
}

/// *out = op(init, *acc) converted to Out.
template <class Out, class Acc, class Op>
__global__ void finish_kernel(Out* out, const Acc* acc, Acc init, Op op) {
  *out = cuprim::detail::convert<Out>(op(init, *acc));
}

/// Applies the running total of the chunks before this one to a scanned chunk, in place, and publishes the
/// running total after it.
///   inclusive: buf[0, count) holds the chunk's inclusive scan; buf[j] = carry ⊕ buf[j] (when there is a carry:
///              every chunk but the first). carry_out = the new buf[count - 1].
///   exclusive: buf[1, count] holds the chunk's inclusive scan; buf[0] = carry, buf[j] = carry ⊕ buf[j] for
///              1 ≤ j < count, carry_out = carry ⊕ buf[count] (buf[count] is not copied back).
/// carry_in is read only when has_carry; for the first exclusive chunk it is `init` (passed by value).
template <bool Exclusive, class Out, class Acc, class Op>
__global__ void carry_kernel(Out* buf, std::int64_t count, const Acc* carry_in, Acc* carry_out, bool has_carry,
                             bool use_init, Acc init, Op op) {
  using cuprim::detail::convert;
  const Acc carry = use_init ? init : has_carry ? *carry_in : Acc{};
  const std::int64_t last = Exclusive ? count : count - 1;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j <= last; j += stride) {
    if constexpr (Exclusive) {
      if (j == 0) {
        buf[0] = convert<Out>(carry);
        continue;
      }
      const Acc v = op(carry, convert<Acc>(buf[j]));
      if (j == last) *carry_out = v;
      else buf[j] = convert<Out>(v);
    } else {
      const Acc v = has_carry ? op(carry, convert<Acc>(buf[j])) : convert<Acc>(buf[j]);
      if (has_carry) buf[j] = convert<Out>(v);
      if (j == last) *carry_out = v;
    }
  }
}

}  // namespace cuprim::ooc::detail
