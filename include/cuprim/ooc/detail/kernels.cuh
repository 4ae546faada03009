// cuprim/ooc/detail/kernels.cuh: the small kernels that join chunks: the running total of a reduction, the
// carry of a scan, and a histogram of one chunk added to device-wide counts.
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

/// The bin of sample x in `bins` equal bins over [lower, upper), or -1 outside. Integers: exact 64-bit
/// arithmetic; floating point: (x - lower) × bins / (upper - lower) in double, clamped to the last bin.
template <class T, class Level>
CUPRIM_HD int even_bin(const T& x_, int bins, Level lower, Level upper) {
  if constexpr (std::is_integral_v<T> && std::is_integral_v<Level>) {
    const long long x = static_cast<long long>(x_);
    if (x < static_cast<long long>(lower) || x >= static_cast<long long>(upper)) return -1;
    const unsigned long long off = static_cast<unsigned long long>(x - static_cast<long long>(lower));
    const unsigned long long range = static_cast<unsigned long long>(static_cast<long long>(upper) -
                                                                     static_cast<long long>(lower));
    return static_cast<int>(off * static_cast<unsigned long long>(bins) / range);
  } else {
    const double x = cuprim::detail::convert<double>(x_);
    const double lo = static_cast<double>(lower), hi = static_cast<double>(upper);
    if (!(x >= lo && x < hi)) return -1;
    int b = static_cast<int>((x - lo) * bins / (hi - lo));
    return b >= bins ? bins - 1 : b;
  }
}

/// counts[b] += number of samples of the chunk in bin b. Per-block counts in shared memory when they fit.
template <class T, class Level>
__global__ void histogram_even_kernel(const T* samples, std::int64_t n, unsigned long long* counts, int bins,
                                      Level lower, Level upper, bool shared) {
  extern __shared__ unsigned local[];  // per-block counts (a chunk has < 2^32 samples)
  if (shared) {
    for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
  }
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int b = even_bin(samples[i], bins, lower, upper);
    if (b >= 0) {
      if (shared) atomicAdd(&local[b], 1u);
      else atomicAdd(&counts[b], 1ull);
    }
  }
  if (shared) {
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
      if (local[b]) atomicAdd(&counts[b], static_cast<unsigned long long>(local[b]));
  }
}

}  // namespace cuprim::ooc::detail
