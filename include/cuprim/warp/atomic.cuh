// cuprim/warp/atomic.cuh: warp-aggregated atomics (executed by any subset of a warp's lanes, in divergent code).
//
//   T warp::atomic_add(T* address, T value)      int32, uint32, int64, uint64 (long or long long), float, double
//   T warp::atomic_max(T* address, T value)      the integers above, float, double
//   T warp::atomic_min(T* address, T value)      the integers above, float, double
//   T warp::atomic_or / atomic_and / atomic_xor  the integers above
//
// A drop-in for atomicAdd and friends, called by whichever lanes reach it: the lanes that call together (the
// active mask, __activemask()) are grouped by address (__match_any_sync on the 64-bit address); each group's
// values are combined in registers and ONE lane per distinct address performs ONE hardware atomic with the
// combined value. A counter is atomic_add(p, 1). Global and shared memory both work (generic addresses).
//
// What each lane gets back. Within a group (the lanes of one call that name the same address, in lane order
// l0 < l1 < ... < lk), lane lj receives exactly what its own atomic would have returned had the group's atomics
// been performed one after another in lane order, with no other thread's atomic between them:
//   lane l0 gets old, the value the group's single atomic read;  lane lj gets old ⊕ v_l0 ⊕ ... ⊕ v_l(j-1).
// For the integer operations (add wraps, as atomicAdd does) and for max and min (integers and floating point)
// this is exact. For a floating-point add the group's partial sums are formed in registers in a fixed order that
// depends only on the group's lanes (a scan over the group, log2(group size) levels; or r * v when every calling
// lane adds the same v), so a lane's result and the amount added to memory can differ from sequential per-thread
// atomicAdds by rounding only; the sum stored is old + (the group's total), one rounding of the addition to memory
// instead of one per lane.
// Memory sees one atomic per group: the intermediate values (old ⊕ v_l0, ...) are never stored, and all of a
// group's updates become visible at once, with the memory order of atomicAdd (relaxed, device scope). The atomic is
// performed by one lane of the group (its highest): a caller's __threadfence() before the call orders that caller's
// own earlier writes, and the lanes are then joined by shuffles, which the memory model does not count as
// synchronisation. Code that publishes data with "write, fence, count" and needs every lane's writes ordered before
// the group's atomic should call __syncwarp() (which does order memory among the lanes it names) between the fence
// and the call, or use the per-thread atomic.
//
// Floating-point max and min order values by their bits as the hardware's integer atomics do: -0.0 below +0.0,
// otherwise the usual order. NaN values (in memory or as arguments) give unspecified results.
//
// How the groups are found, and what each case costs (the `aggregation` template argument, first, optional).
// Every call reads __activemask(); "shuffle" is one 32-bit shfl.sync (a 64-bit value takes two). When every lane of
// the warp calls (the common case), the shuffles and votes name the constant full mask: with a mask known only at
// run time the compiler precedes each one with a convergence check (an extra MATCH.ANY), which doubled the cost of
// the one-counter-per-warp case (H100: 7.6x -> 10.8x per-thread atomics from this alone).
//   uniform_first (default): three tests in one round, then the match only where they do not decide.
//     1. The tests. Each active lane receives the address (both words) and the value of the active lane below it
//        (a whole warp: shfl.up by one, no lane index), all shuffles issued together, and three independent votes
//        answer, for all active lanes at once:
//        - increasing: the low address words increase strictly (each thread its own counter: p + lane,
//          p + lane * stride, any increasing map). The addresses are distinct and every lane performs its own
//          hardware atomic: no match, nothing more. Distinct addresses in another order (or wrapping a 4 GiB
//          boundary) fail the test and go on to the match, which finds them distinct (step 3, last case).
//        - one address: every active lane names the same address; the group is the active mask, no match.
//        - uniform values: every active lane passes the same value (a counter: atomic_add(p, 1)).
//        One address with uniform values (a shared counter) is finished at once: a lane of rank r gets
//        old ⊕ v ⊕ ... ⊕ v (r times) in one step (r * v for add, v for max / min / and / or, v or 0 for xor), the
//        highest active lane performs the atomic with the total, and one shuffle hands `old` to the others.
//     2. The match: __match_any_sync on the 64-bit address gives each lane its group. Its cost grows with the
//        number of distinct addresses among the active lanes (cheap for one, as costly as several dozen shuffles
//        for 32), which is why the tests come first.
//     3. With uniform values, each group is finished as the shared counter above (ranks within the group).
//        Otherwise the values are scanned: a group of the whole warp by the plain shuffle scan (scan.cuh: five
//        shuffles per 32-bit word), other groups by rank within the group (each lane finds the lane 2^k members
//        below it in the group's mask; as many levels as the largest group needs, __reduce_max_sync of the group
//        sizes on compute capability 8.0 and later, 5 levels before); if every group has one lane, each lane
//        performs its own atomic with no shuffles. Then the atomic, the shuffle of `old`, and for each lane the
//        scan value of the lane below it in its group: computed without a shuffle for integer add and xor
//        (inclusive - value, inclusive ^ value), one more shuffle (per word) for the others.
//   The other orders, kept to measure what the tests cost or save (the lab's atomics/aggregated rows measure
//   every order): match_only: the match and the scan always, no test. distinct_then_match: the increasing test
//   alone (one shuffle, one vote), then the match and the scan. address_first: a one-address test against the
//   lowest active lane (one 64-bit shuffle, one vote), then, if it fails, the increasing test; then a
//   uniform-value test (one shuffle and one vote), each waiting for the one before.
// Summary, 32-bit types, per call of a full warp under the default: distinct increasing addresses 3 shuffles +
// 3 votes, then each lane's own atomic; one address and one value 4 shuffles + 3 votes + 1 atomic; several
// addresses, or varied values, add the match and the scan (up to 9 more shuffles). 64-bit values take two
// shuffles wherever a value moves. The call returns only after its atomic's old value came back (the shuffle of
// `old` waits for it), except on the distinct path, which returns the atomic's own result.
// For floating-point add with uniform values the partial sums are r * v, one rounding, instead of a scan.
//
// Nothing here relies on implicit warp-synchronous execution: every shuffle and vote names the active mask, and
// lanes that reach the call at different times simply form different (smaller) groups.
#pragma once

#include <cuprim/warp/scan.cuh>
#include <cuprim/warp/shuffle.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim::warp {

/// How the lanes of a call find the lanes that share their address (see the header's comment).
enum class aggregation {
  uniform_first,        ///< the default: the distinct-address test, the match, the uniform-value test
  match_only,           ///< the match and the scan always (no test)
  distinct_then_match,  ///< the distinct-address test, then the match and the scan (no uniform-value test)
  address_first,        ///< a uniform-address test first (the whole active warp on one address skips the match)
};

namespace detail {

/// The combining operators, applied in registers; the floating-point max and min compare as the hardware atomics
/// of atomic_max / atomic_min do (-0.0 below +0.0).
struct atomic_add_op {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
struct atomic_or_op {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a | b; }
};
struct atomic_and_op {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a & b; }
};
struct atomic_xor_op {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return a ^ b; }
};

/// A signed integer that orders floating-point values as atomic_max / atomic_min do (non-NaN; -0.0 < +0.0).
__device__ __forceinline__ int order_key(float x) {
  const int b = __float_as_int(x);
  return b ^ ((b >> 31) & 0x7fffffff);
}
__device__ __forceinline__ long long order_key(double x) {
  const long long b = __double_as_longlong(x);
  return b ^ ((b >> 63) & 0x7fffffffffffffffll);
}
template <class T> __device__ __forceinline__ bool atomic_less(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return order_key(a) < order_key(b);
  else return a < b;
}
struct atomic_max_op {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return atomic_less(a, b) ? b : a; }
};
struct atomic_min_op {
  template <class T> __device__ __forceinline__ T operator()(T a, T b) const { return atomic_less(b, a) ? b : a; }
};

template <class T>
inline constexpr bool atomic_integer_v =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8);
template <class T>
inline constexpr bool atomic_float_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

/// The hardware word an integer T is operated on as: int / unsigned / long long / unsigned long long.
template <class T>
using atomic_word_t = std::conditional_t<sizeof(T) == 4, std::conditional_t<std::is_signed_v<T>, int, unsigned>,
                                         std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>>;
template <class T>
using atomic_bits_t = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;

/// One hardware atomic: *p = op(*p, v); returns the old value.
template <class Op, class T>
__device__ __forceinline__ T hardware_atomic(T* p, T v) {
  if constexpr (atomic_float_v<T>) {
    if constexpr (std::is_same_v<Op, atomic_add_op>) {
      return atomicAdd(p, v);
    } else if constexpr (std::is_same_v<T, float>) {
      // Non-negative values order as signed integers, negative ones in reverse as unsigned integers.
      const int b = __float_as_int(v);
      int* ip = reinterpret_cast<int*>(p);
      unsigned* up = reinterpret_cast<unsigned*>(p);
      constexpr bool is_max = std::is_same_v<Op, atomic_max_op>;
      if (b >= 0) return __int_as_float(is_max ? atomicMax(ip, b) : atomicMin(ip, b));
      return __uint_as_float(is_max ? atomicMin(up, unsigned(b)) : atomicMax(up, unsigned(b)));
    } else {
      const long long b = __double_as_longlong(v);
      long long* ip = reinterpret_cast<long long*>(p);
      unsigned long long* up = reinterpret_cast<unsigned long long*>(p);
      constexpr bool is_max = std::is_same_v<Op, atomic_max_op>;
      if (b >= 0) return __longlong_as_double(is_max ? atomicMax(ip, b) : atomicMin(ip, b));
      return __longlong_as_double(static_cast<long long>(is_max ? atomicMin(up, static_cast<unsigned long long>(b))
                                                             : atomicMax(up, static_cast<unsigned long long>(b))));
    }
  } else {
    using W = atomic_word_t<T>;
    using B = atomic_bits_t<T>;  // add (two's complement wraps alike) and the bit operations
    B* bp = reinterpret_cast<B*>(p);
    const B bv = static_cast<B>(v);
    if constexpr (std::is_same_v<Op, atomic_add_op>) return static_cast<T>(atomicAdd(bp, bv));
    else if constexpr (std::is_same_v<Op, atomic_or_op>) return static_cast<T>(atomicOr(bp, bv));
    else if constexpr (std::is_same_v<Op, atomic_and_op>) return static_cast<T>(atomicAnd(bp, bv));
    else if constexpr (std::is_same_v<Op, atomic_xor_op>) return static_cast<T>(atomicXor(bp, bv));
    else if constexpr (std::is_same_v<Op, atomic_max_op>)
      return static_cast<T>(atomicMax(reinterpret_cast<W*>(p), static_cast<W>(v)));
    else return static_cast<T>(atomicMin(reinterpret_cast<W*>(p), static_cast<W>(v)));
  }
}

/// Position of the set bit of rank n (0-based, from bit 0) of mask, which has more than n bits set.
__device__ __forceinline__ int nth_set_bit(unsigned mask, int n) {
  int pos = 0;
#pragma unroll
  for (int w = size / 2; w > 0; w /= 2)
    if (__popc(mask & ((1u << (pos + w)) - 1u)) <= n) pos += w;  // pos + w <= 31: the shift is defined
  return pos;
}

/// The bits of a 32- or 64-bit value, for exact comparison (floating point: -0.0 and +0.0 differ, NaN equals
/// itself).
template <class T> __device__ __forceinline__ atomic_bits_t<T> bits_of(T x) {
  return __builtin_bit_cast(atomic_bits_t<T>, x);
}

/// op applied to n (≥ 1) copies of v: v ⊕ v ⊕ ... ⊕ v. Integer add wraps; floating-point add is n * v, one rounding.
template <class Op, class T>
__device__ __forceinline__ T repeated(T v, int n) {
  if constexpr (std::is_same_v<Op, atomic_add_op>) {
    if constexpr (atomic_float_v<T>) return static_cast<T>(n) * v;
    else return static_cast<T>(static_cast<atomic_bits_t<T>>(v) * static_cast<atomic_bits_t<T>>(n));
  } else if constexpr (std::is_same_v<Op, atomic_xor_op>) {
    return (n & 1) ? v : T(0);
  } else {
    return v;  // max, min, and, or: idempotent
  }
}

/// Integer add and xor can undo the lane's own term of an inclusive scan, exactly.
template <class Op, class T>
inline constexpr bool invertible_v =
    atomic_integer_v<T> && (std::is_same_v<Op, atomic_add_op> || std::is_same_v<Op, atomic_xor_op>);

/// The aggregated atomic: groups the calling lanes by address, one hardware atomic per group, and returns each
/// lane's lane-order result (see the header's comment for the paths and their costs).
/// This is the work for the lanes in `active` (== __activemask()). Full: active is the whole warp, and every
/// shuffle and vote names the constant full mask (with a mask known only at run time, the compiler checks the
/// warp's convergence before each one with an extra MATCH.ANY, which costs more than the shuffle itself).
template <aggregation A, bool Full, class Op, class T>
__device__ __forceinline__ T aggregated_atomic_in(T* address, T value, Op op, unsigned active_lanes) {
  const unsigned active = Full ? full_mask : active_lanes;
  const int lane = lane_id();
  const unsigned lower_active = active & lanemask_lt();
  // The active lane just below this one (this lane itself for the lowest active lane).
  [[maybe_unused]] const int prev = lower_active ? size - 1 - __clz(static_cast<int>(lower_active)) : lane;
  const unsigned long long a = reinterpret_cast<unsigned long long>(address);
  bool one_address = false, uniform_values = false;
  if constexpr (A == aggregation::uniform_first) {
    // 1. One round of tests against the active lane below: its address (both words) and its value are shuffled
    //    together, and three votes (independent of one another) tell every lane which tests hold for all lanes.
    //    A whole warp shuffles up by one (lane 0 reads its own values), which needs no lane index.
    const unsigned long long prev_a = Full ? shfl_up(a, 1) : shfl(a, prev, active);
    const T prev_value = Full ? shfl_up(value, 1) : shfl(value, prev, active);
    const bool lowest = Full ? lane == 0 : lower_active == 0u;
    const bool increasing = __all_sync(active, lowest || static_cast<unsigned>(prev_a) < static_cast<unsigned>(a));
    one_address = __all_sync(active, lowest || prev_a == a);
    uniform_values = __all_sync(active, lowest || bits_of(prev_value) == bits_of(value));
    if (increasing) return hardware_atomic<Op>(address, value);  // strictly increasing: all addresses distinct
    if (one_address && uniform_values) {
      // One group, one value (a shared counter): no match, no scan, ranks from the active mask alone.
      const int rank = Full ? lane : __popc(lower_active);
      const int last = Full ? size - 1 : size - 1 - __clz(static_cast<int>(active));
      T old{};
      if (lane == last) old = hardware_atomic<Op>(address, repeated<Op>(value, Full ? size : __popc(active)));
      old = shfl(old, last, active);
      return rank > 0 ? op(old, repeated<Op>(value, rank)) : old;
    }
  } else {
    if constexpr (A == aggregation::address_first) {
      // 0. Every active lane on the lowest active lane's address: one group, no match.
      one_address = __all_sync(active, shfl(a, __ffs(static_cast<int>(active)) - 1, active) == a);
    }
    if constexpr (A != aggregation::match_only) {
      if (!one_address) {
        // 1. Strictly increasing low address words across the active lanes: all addresses distinct.
        const unsigned prev_low = detail::shfl_idx_word(static_cast<unsigned>(a), prev, active);
        if (__all_sync(active, lower_active == 0u || prev_low < static_cast<unsigned>(a)))
          return hardware_atomic<Op>(address, value);
      }
    }
    if constexpr (A == aggregation::address_first) {
      const T prev_value = shfl(value, prev, active);
      uniform_values = __all_sync(active, lower_active == 0u || bits_of(prev_value) == bits_of(value));
    }
  }
  // 2. The lanes that share this lane's address.
  const unsigned peers = one_address ? active : __match_any_sync(active, a);
  const unsigned below = peers & lanemask_lt();  // the group's lanes below this one
  const int rank = __popc(below);
  const int last = size - 1 - __clz(static_cast<int>(peers));  // performs the group's atomic
  // 3. total: op over the group's values (needed at `last`); before: op over the group's values below this lane
  //    (needed where rank > 0).
  T total = value, before = value;
  if (uniform_values) {
    total = repeated<Op>(value, __popc(peers));
    if (rank > 0) before = repeated<Op>(value, rank);
  } else {
    T inclusive = value;  // op over the group's values up to this lane, in lane order
    if (peers == full_mask) {
      inclusive = inclusive_scan(value, op);  // the whole warp: rank = lane
    } else {
#if __CUDA_ARCH__ >= 800
      const unsigned largest = __reduce_max_sync(active, static_cast<unsigned>(__popc(peers)));
#else
      const unsigned largest = size;
#endif
      if (largest == 1) return hardware_atomic<Op>(address, value);  // every address distinct: no shuffles
      for (unsigned d = 1; d < largest; d *= 2) {  // the same trip count on every active lane
        const bool has = static_cast<unsigned>(rank) >= d;
        const int src = has ? nth_set_bit(peers, rank - static_cast<int>(d)) : lane;
        const T earlier = shfl(inclusive, src, active);
        if (has) inclusive = op(earlier, inclusive);
      }
    }
    total = inclusive;
    if constexpr (invertible_v<Op, T>) {
      using B = atomic_bits_t<T>;
      if constexpr (std::is_same_v<Op, atomic_add_op>)
        before = static_cast<T>(static_cast<B>(inclusive) - static_cast<B>(value));
      else
        before = static_cast<T>(inclusive ^ value);
    } else {
      before = shfl(inclusive, below ? size - 1 - __clz(static_cast<int>(below)) : lane, active);
    }
  }
  T old{};
  if (lane == last) old = hardware_atomic<Op>(address, total);
  old = shfl(old, last, active);
  return rank > 0 ? op(old, before) : old;
}

template <aggregation A, class Op, class T>
__device__ __forceinline__ T aggregated_atomic(T* address, T value, Op op) {
  const unsigned active = __activemask();
  if (active == full_mask) return aggregated_atomic_in<A, true>(address, value, op, full_mask);
  return aggregated_atomic_in<A, false>(address, value, op, active);
}

}  // namespace detail

/// *address += value for every calling lane, one atomicAdd per distinct address; returns this lane's old value
/// in lane order within its group (see above). Integers wrap; floating-point sums differ from per-thread
/// atomicAdd by rounding only.
template <aggregation A = aggregation::uniform_first, class T>
__device__ __forceinline__ T atomic_add(T* address, std::type_identity_t<T> value) {
  static_assert(detail::atomic_integer_v<T> || detail::atomic_float_v<T>,
                "warp::atomic_add: T must be a 32- or 64-bit integer, float or double");
  return detail::aggregated_atomic<A>(address, value, detail::atomic_add_op{});
}

/// *address = max(*address, value) for every calling lane; returns max(old, values of the group's earlier lanes).
template <aggregation A = aggregation::uniform_first, class T>
__device__ __forceinline__ T atomic_max(T* address, std::type_identity_t<T> value) {
  static_assert(detail::atomic_integer_v<T> || detail::atomic_float_v<T>,
                "warp::atomic_max: T must be a 32- or 64-bit integer, float or double");
  return detail::aggregated_atomic<A>(address, value, detail::atomic_max_op{});
}

/// *address = min(*address, value) for every calling lane; returns min(old, values of the group's earlier lanes).
template <aggregation A = aggregation::uniform_first, class T>
__device__ __forceinline__ T atomic_min(T* address, std::type_identity_t<T> value) {
  static_assert(detail::atomic_integer_v<T> || detail::atomic_float_v<T>,
                "warp::atomic_min: T must be a 32- or 64-bit integer, float or double");
  return detail::aggregated_atomic<A>(address, value, detail::atomic_min_op{});
}

/// *address |= value for every calling lane; returns old | (values of the group's earlier lanes).
template <aggregation A = aggregation::uniform_first, class T>
__device__ __forceinline__ T atomic_or(T* address, std::type_identity_t<T> value) {
  static_assert(detail::atomic_integer_v<T>, "warp::atomic_or: T must be a 32- or 64-bit integer");
  return detail::aggregated_atomic<A>(address, value, detail::atomic_or_op{});
}

/// *address &= value for every calling lane; returns old & (values of the group's earlier lanes).
template <aggregation A = aggregation::uniform_first, class T>
__device__ __forceinline__ T atomic_and(T* address, std::type_identity_t<T> value) {
  static_assert(detail::atomic_integer_v<T>, "warp::atomic_and: T must be a 32- or 64-bit integer");
  return detail::aggregated_atomic<A>(address, value, detail::atomic_and_op{});
}

/// *address ^= value for every calling lane; returns old ^ (values of the group's earlier lanes).
template <aggregation A = aggregation::uniform_first, class T>
__device__ __forceinline__ T atomic_xor(T* address, std::type_identity_t<T> value) {
  static_assert(detail::atomic_integer_v<T>, "warp::atomic_xor: T must be a 32- or 64-bit integer");
  return detail::aggregated_atomic<A>(address, value, detail::atomic_xor_op{});
}

}  // namespace cuprim::warp
