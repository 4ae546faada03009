// cuprim/device/detail/reduce_tuning.cuh: the reduction's policy and its table.
#pragma once

#include <cuprim/core/functional.cuh>
#include <cuprim/core/policy.hpp>

#include <type_traits>

namespace cuprim {

/// Tile shape of the single-pass reduction. Each thread keeps `unroll` independent vector loads of `vector_bytes`
/// in flight; a block owns tiles of threads × unroll × (vector_bytes / sizeof(T)) elements; the grid is
/// blocks_per_sm × SM count blocks (fewer for small inputs), striding over tiles.
struct reduce_policy {
  static constexpr const char* name = "reduce_policy";
  int threads = 512;       ///< a multiple of 32, at most 1024
  int vector_bytes = 16;   ///< 4, 8 or 16
  int unroll = 4;          ///< 1 to 16
  int blocks_per_sm = 4;   ///< 1 to 8 (the workspace holds 8 partials per SM; the final pass reads them coherently)

  friend constexpr bool operator==(const reduce_policy&, const reduce_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("threads", threads);
    f("vector_bytes", vector_bytes);
    f("unroll", unroll);
    f("blocks_per_sm", blocks_per_sm);
  }
};

namespace detail {
/// The rules of a reduce_policy, checked where a kernel is instantiated with it.
template <reduce_policy P>
constexpr bool reduce_policy_valid() {
  static_assert(P.threads % 32 == 0 && P.threads >= 32 && P.threads <= 1024,
                "reduce_policy: threads must be a multiple of 32, at most 1024");
  static_assert(P.vector_bytes == 4 || P.vector_bytes == 8 || P.vector_bytes == 16,
                "reduce_policy: vector_bytes must be 4, 8 or 16");
  static_assert(P.unroll >= 1 && P.unroll <= 16, "reduce_policy: unroll must be in [1, 16]");
  static_assert(P.blocks_per_sm >= 1 && P.blocks_per_sm <= 8, "reduce_policy: blocks_per_sm must be in [1, 8]");
  return true;
}

/// Whether loads of T can be packed into vector_bytes-wide loads: arithmetic types and 16-bit floats whose size
/// divides the vector; user structs load one element at a time.
template <class T, int VectorBytes>
inline constexpr bool vectorizable_v =
    (std::is_arithmetic_v<T> || is_half_like_v<T>) && sizeof(T) <= VectorBytes && VectorBytes % sizeof(T) == 0;
}  // namespace detail

/// The table: the policy of a reduction over elements of T on a device of tuned architecture `arch`.
template <class T>
constexpr reduce_policy reduce_policy_for(int arch) {
  (void)arch;  // sm_90 rows serve every architecture until another is measured
  // sm_90, every arithmetic type: H200, 2^28 float sums, `cuprim-lab sweep reduce`: 1.018x CUB (256/4/4 1.009x,
  // 512/2/4 1.007x, 512/8/4 0.994x; 1024/4/2, outside today's sweep, 1.018x); 16-byte loads: the same bytes in flight
  // for any size.
  if (detail::vectorizable_v<T, 16>) return {.threads = 512, .vector_bytes = 16, .unroll = 4, .blocks_per_sm = 4};
  // sm_90, user structs (one element per load slot): not measured.
  return {.threads = 256, .vector_bytes = 16, .unroll = 4, .blocks_per_sm = 4};
}

}  // namespace cuprim
