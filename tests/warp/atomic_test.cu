// Warp-aggregated atomics (cuprim/warp/atomic.cuh): atomic_add / max / min / or / and / xor over int32, uint32,
// int64 (long and long long), uint64, float and double, every order of finding the groups (uniform_first, the
// default, on every type and operation; match_only, distinct_then_match and address_first on a few).
//
//  - LaneOrder: each warp owns 32 addresses and calls once under one of eleven address patterns (all lanes on one
//    address, all distinct, groups of 2/4/8, interleaved groups, random groups, one big group beside singletons),
//    one of eight call masks (full, lane % 3 != 0, random, one lane, halves, sparse random) and random values or
//    one value for the whole warp (the uniform-value path), from divergent code, in blocks of 80 threads (every
//    third warp has 16 lanes). "All distinct" is increasing (the distinct-address test's path) or permuted (the
//    match's). With no other warp on its addresses, each lane's returned value is known exactly: what its own
//    atomic would have read with the group's atomics performed in lane order (floating-point add: within the bound
//    of a 32-term sum), and memory ends at init ⊕ every value. This assumes that the lanes of a call mask, which
//    leave one branch together, reach the call together (one group per address); lanes that did not call must
//    leave their output slots poisoned.
//  - Hammer: 128 blocks of 256 threads, four rounds each, on a few addresses (every lane of a warp on one address,
//    lanes interleaved over the addresses, random), a quarter of the calls skipped (divergent), with random values
//    and with one value per warp and round. For add with positive values (integers, and integer-valued floats,
//    whose sums are exact) the returned old values of an address, sorted, must chain: the first is the initial
//    value, each next one is the previous plus that call's value, and memory ends at the last plus its value; that
//    is, they are the exact prefix sums of some order of the calls (no grouping assumed). Max and min: memory ends
//    at the extreme and every returned value is the initial value or one of the values added. Xor: memory ends at
//    the xor of everything.
//  - SharedMemory: the same chain check on counters in shared memory, per block.
#include <cuprim/core/memory.hpp>
#include <cuprim/warp/atomic.cuh>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <vector>

namespace cuprim_test {
namespace {

using cuprim::warp::aggregation;

enum class op_kind { add, max, min, bit_or, bit_and, bit_xor };

const char* op_name(op_kind k) {
  switch (k) {
    case op_kind::add: return "atomic_add";
    case op_kind::max: return "atomic_max";
    case op_kind::min: return "atomic_min";
    case op_kind::bit_or: return "atomic_or";
    case op_kind::bit_and: return "atomic_and";
    default: return "atomic_xor";
  }
}

template <class T>
std::string atomic_type_name() {
  if constexpr (std::is_same_v<T, long long>) return "long long";
  else return type_name<T>();
}

template <op_kind K, aggregation A, class T>
__device__ __forceinline__ T call(T* p, T v) {
  using namespace cuprim::warp;
  if constexpr (K == op_kind::add) return atomic_add<A>(p, v);
  else if constexpr (K == op_kind::max) return atomic_max<A>(p, v);
  else if constexpr (K == op_kind::min) return atomic_min<A>(p, v);
  else if constexpr (K == op_kind::bit_or) return atomic_or<A>(p, v);
  else if constexpr (K == op_kind::bit_and) return atomic_and<A>(p, v);
  else return atomic_xor<A>(p, v);
}

/// The host's order of floating-point values for max / min: -0.0 below +0.0 (as the device's integer trick).
template <class T>
long long order_key(T x) {
  if constexpr (std::is_same_v<T, float>) {
    const std::int32_t b = std::bit_cast<std::int32_t>(x);
    return b ^ ((b >> 31) & 0x7fffffff);
  } else if constexpr (std::is_same_v<T, double>) {
    const std::int64_t b = std::bit_cast<std::int64_t>(x);
    return b ^ ((b >> 63) & 0x7fffffffffffffffll);
  } else {
    return 0;
  }
}

template <op_kind K, class T>
T host_op(T a, T b) {
  if constexpr (K == op_kind::add) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));  // wraps
    } else {
      return a + b;
    }
  } else if constexpr (K == op_kind::max || K == op_kind::min) {
    bool less;
    if constexpr (std::is_floating_point_v<T>) less = order_key(a) < order_key(b);
    else less = a < b;
    return K == op_kind::max ? (less ? b : a) : (less ? a : b);
  } else if constexpr (K == op_kind::bit_or) {
    return a | b;
  } else if constexpr (K == op_kind::bit_and) {
    return a & b;
  } else {
    return a ^ b;
  }
}

// ---- lane order: one call per warp on the warp's own addresses

constexpr int lane_patterns = 11;
constexpr int mask_patterns = 8;
constexpr int block_threads = 80;  // warps of 32, 32 and 16 lanes
constexpr int warps_per_block = 3;
constexpr int value_patterns = 2;  // random values; one value for every lane of the warp (a counter)
// Every combination of address pattern, call mask and value pattern in every warp kind: warp w has address pattern
// w % 11, mask pattern (w / 11) % 8, kind w % 3 and value pattern w / 264.
constexpr int lane_warps = lane_patterns * mask_patterns * warps_per_block * value_patterns;
constexpr int lane_blocks = lane_warps / warps_per_block;

/// Lane `lane` of warp w (of the launch) calls when bit `lane` of masks[w] is set, on targets[slot[w·32 + lane]].
template <op_kind K, aggregation A, class T>
__global__ void lane_order_kernel(T* targets, const int* slot, const T* values, const unsigned* masks, T* returned) {
  const int lane = threadIdx.x % 32;
  const int w = blockIdx.x * warps_per_block + threadIdx.x / 32;
  const int id = w * 32 + lane;
  const unsigned m = masks[w];
  if ((m >> lane) & 1u) returned[id] = call<K, A>(targets + slot[id], values[id]);
}

/// The address offset (0..31 within the warp's addresses) of each lane under pattern p.
std::vector<int> lane_slots(int p, rng& r) {
  std::vector<int> s(32);
  const int k = static_cast<int>(r.between(1, 8));
  const int a = static_cast<int>(r.between(0, 31)), b = static_cast<int>(r.between(0, 31));
  for (int l = 0; l < 32; ++l) {
    switch (p) {
      case 0: s[l] = 7; break;                                    // every lane on one address
      case 1: s[l] = l; break;                                    // all distinct (increasing; permuted below)
      case 2: s[l] = l / 2; break;                                // pairs
      case 3: s[l] = l / 4; break;                                // groups of 4
      case 4: s[l] = l / 8; break;                                // groups of 8
      case 5: s[l] = l % 2; break;                                // two interleaved groups
      case 6: s[l] = 31 - l % 3; break;                           // three interleaved groups
      case 7: s[l] = static_cast<int>(r.between(0, k - 1)); break;  // random groups (k addresses)
      case 8: s[l] = (r.next() & 1) ? a : b; break;               // two random addresses
      case 9: s[l] = l < 16 ? 0 : l; break;                       // a half-warp group and singletons
      default: s[l] = l % 4 == 0 ? 3 : l; break;                  // a strided group and singletons
    }
  }
  if (p == 1 && (r.next() & 1)) {  // distinct but not increasing: the match must find the singletons
    for (int l = 31; l > 0; --l) std::swap(s[l], s[static_cast<std::size_t>(r.between(0, l))]);
  }
  return s;
}

unsigned call_mask(int m, rng& r) {
  switch (m) {
    case 0: return 0xffffffffu;
    case 1: return 0xb6db6db6u;  // lane % 3 != 0
    case 2: return static_cast<unsigned>(r.next()) | 1u;
    case 3: return 1u << r.between(0, 31);
    case 4: return 0x0000ffffu;
    case 5: return 0xffff0000u;
    case 6: return static_cast<unsigned>(r.next() & r.next() & r.next()) | 0x10u;
    default: return 0x80000001u;
  }
}

/// The lanes that exist in warp w of a launch of 80-thread blocks.
unsigned existing_lanes(int w) { return w % warps_per_block == 2 ? 0x0000ffffu : 0xffffffffu; }

template <class T>
std::vector<T> op_values(rng& r, std::size_t n) {
  return random_vector<T>(r, n);
}

const char* order_name(aggregation a) {
  switch (a) {
    case aggregation::match_only: return "match_only";
    case aggregation::distinct_then_match: return "distinct_then_match";
    case aggregation::address_first: return "address_first";
    default: return "uniform_first";
  }
}

template <op_kind K, aggregation A, class T>
void check_lane_order(rng& r) {
  SCOPED_TRACE(::testing::Message() << op_name(K) << "<" << order_name(A) << "> on " << atomic_type_name<T>());
  const int n = lane_warps * 32;
  std::vector<int> slot(n);
  std::vector<unsigned> masks(lane_warps);
  for (int w = 0; w < lane_warps; ++w) {
    const std::vector<int> s = lane_slots(w % lane_patterns, r);
    for (int l = 0; l < 32; ++l) slot[w * 32 + l] = w * 32 + s[l];
    masks[w] = call_mask((w / lane_patterns) % mask_patterns, r);
  }
  std::vector<T> values = op_values<T>(r, n);
  const std::vector<T> init = op_values<T>(r, n);
  for (int w = lane_warps / value_patterns; w < lane_warps; ++w)  // value pattern 1: every lane adds one value
    for (int l = 1; l < 32; ++l) values[w * 32 + l] = values[w * 32];
  cuprim::device_buffer<int> d_slot{std::span<const int>(slot)};
  cuprim::device_buffer<unsigned> d_masks{std::span<const unsigned>(masks)};
  cuprim::device_buffer<T> d_values{std::span<const T>(values)}, targets{std::span<const T>(init)}, returned(n);
  poison(returned);
  lane_order_kernel<K, A, T><<<lane_blocks, block_threads>>>(targets.data(), d_slot.data(), d_values.data(),
                                                              d_masks.data(), returned.data());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<T> got = returned.to_host_sync(), mem = targets.to_host_sync();

  // The host performs the calls in lane order; for floating-point add it also tracks Σ|terms| per address.
  std::vector<T> ref = init;
  std::vector<double> abs_sum(n), exact(n);
  for (int i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      abs_sum[i] = std::fabs(double(init[i]));
      exact[i] = double(init[i]);
    }
  }
  int failures = 0;
  auto fail = [&](const std::string& what) {
    if (++failures <= 20) ADD_FAILURE() << what;
  };
  for (int w = 0; w < lane_warps; ++w) {
    const unsigned calls = masks[w] & existing_lanes(w);
    for (int l = 0; l < 32; ++l) {
      const int id = w * 32 + l;
      if (!((calls >> l) & 1u)) {
        if (!host_bytes_are(&got[id], sizeof(T))) fail("a lane that did not call was written, warp " + std::to_string(w));
        continue;
      }
      const int a = slot[id];
      if constexpr (K == op_kind::add && std::is_floating_point_v<T>) {
        const double tol = sum_tolerance(epsilon<T>(), 33, abs_sum[a]);
        if (std::fabs(double(got[id]) - exact[a]) > tol)
          fail("warp " + std::to_string(w) + " lane " + std::to_string(l) + ": got " + show(got[id]) +
               ", expected " + std::to_string(exact[a]) + " (bound " + std::to_string(tol) + ")");
        exact[a] += double(values[id]);
        abs_sum[a] += std::fabs(double(values[id]));
      } else {
        if (!same_bytes(got[id], ref[a]))
          fail("warp " + std::to_string(w) + " (pattern " + std::to_string(w % lane_patterns) + ", mask 0x" +
               [&] { std::ostringstream o; o << std::hex << calls; return o.str(); }() + ") lane " +
               std::to_string(l) + ": got " + show(got[id]) + ", expected " + show(ref[a]));
        ref[a] = host_op<K>(ref[a], values[id]);
      }
    }
  }
  for (int a = 0; a < n; ++a) {
    if constexpr (K == op_kind::add && std::is_floating_point_v<T>) {
      const double tol = sum_tolerance(epsilon<T>(), 33, abs_sum[a]);
      if (std::fabs(double(mem[a]) - exact[a]) > tol)
        fail("memory at address " + std::to_string(a) + ": " + show(mem[a]) + ", expected " + std::to_string(exact[a]));
    } else if (!same_bytes(mem[a], ref[a])) {
      fail("memory at address " + std::to_string(a) + ": " + show(mem[a]) + ", expected " + show(ref[a]));
    }
  }
  EXPECT_EQ(failures, 0);
}

template <class T>
void check_all_ops(rng& r) {
  check_lane_order<op_kind::add, aggregation::uniform_first, T>(r);
  check_lane_order<op_kind::max, aggregation::uniform_first, T>(r);
  check_lane_order<op_kind::min, aggregation::uniform_first, T>(r);
  if constexpr (std::is_integral_v<T>) {
    check_lane_order<op_kind::bit_or, aggregation::uniform_first, T>(r);
    check_lane_order<op_kind::bit_and, aggregation::uniform_first, T>(r);
    check_lane_order<op_kind::bit_xor, aggregation::uniform_first, T>(r);
  }
}

class WarpAtomic : public gpu_test {};

TEST_F(WarpAtomic, LaneOrderInt32) {
  CUPRIM_TEST_RNG(r);
  check_all_ops<std::int32_t>(r);
}
TEST_F(WarpAtomic, LaneOrderUint32) {
  CUPRIM_TEST_RNG(r);
  check_all_ops<std::uint32_t>(r);
}
TEST_F(WarpAtomic, LaneOrderInt64) {
  CUPRIM_TEST_RNG(r);
  check_all_ops<std::int64_t>(r);
  check_lane_order<op_kind::add, aggregation::uniform_first, long long>(r);
  check_lane_order<op_kind::min, aggregation::uniform_first, long long>(r);
}
TEST_F(WarpAtomic, LaneOrderUint64) {
  CUPRIM_TEST_RNG(r);
  check_all_ops<std::uint64_t>(r);
}
TEST_F(WarpAtomic, LaneOrderFloat) {
  CUPRIM_TEST_RNG(r);
  check_all_ops<float>(r);
}
TEST_F(WarpAtomic, LaneOrderDouble) {
  CUPRIM_TEST_RNG(r);
  check_all_ops<double>(r);
}
TEST_F(WarpAtomic, LaneOrderMatchOnly) {
  CUPRIM_TEST_RNG(r);
  check_lane_order<op_kind::add, aggregation::match_only, std::int32_t>(r);
  check_lane_order<op_kind::add, aggregation::match_only, double>(r);
  check_lane_order<op_kind::max, aggregation::match_only, std::uint64_t>(r);
  check_lane_order<op_kind::bit_xor, aggregation::match_only, std::uint32_t>(r);
}
TEST_F(WarpAtomic, LaneOrderOtherOrders) {
  CUPRIM_TEST_RNG(r);
  check_lane_order<op_kind::add, aggregation::distinct_then_match, std::int32_t>(r);
  check_lane_order<op_kind::add, aggregation::distinct_then_match, double>(r);
  check_lane_order<op_kind::add, aggregation::address_first, std::int64_t>(r);
  check_lane_order<op_kind::add, aggregation::address_first, float>(r);
  check_lane_order<op_kind::min, aggregation::address_first, std::uint32_t>(r);
}

// ---- many warps and blocks on a few addresses

constexpr int hammer_blocks = 128;
constexpr int hammer_threads = 256;
constexpr int hammer_n = hammer_blocks * hammer_threads;
constexpr int hammer_rounds = 4;

__host__ __device__ inline std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

/// The address of call (gid, round) under pattern p: 0 every lane of a warp on one address (a different one per
/// warp and round), 1 lanes interleaved over the addresses, 2 random; -1: the call is skipped.
__host__ __device__ inline int hammer_slot(int p, int gid, int round, int addresses, std::uint32_t seed) {
  if (mix(std::uint32_t(gid) * 4u + std::uint32_t(round) + seed) % 4u == 0u) return -1;
  if (p == 0) return (gid / 32 + round) % addresses;
  if (p == 1) return (gid + round) % addresses;
  return static_cast<int>(mix(std::uint32_t(gid) * 977u + std::uint32_t(round) * 131u + seed * 7u) % addresses);
}

template <op_kind K, class T>
__global__ void hammer_kernel(T* targets, int addresses, const T* values, T* returned, int p, std::uint32_t seed) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int round = 0; round < hammer_rounds; ++round) {
    const int s = hammer_slot(p, gid, round, addresses, seed);
    if (s >= 0) {
      const int i = round * hammer_n + gid;
      returned[i] = call<K, aggregation::uniform_first>(targets + s, values[i]);
    }
  }
}

template <class T>
std::vector<T> positive_values(rng& r, std::size_t n) {
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(r.between(1, std::is_floating_point_v<T> ? 8 : 1000));
  return v;
}

/// Sorted by returned old value, the calls on one address must chain from `init` to `final` (see the top).
template <class T>
::testing::AssertionResult chains(std::vector<std::pair<T, T>> calls, T init, T final) {
  std::sort(calls.begin(), calls.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  T expect = init;
  for (std::size_t k = 0; k < calls.size(); ++k) {
    if (!same_bytes(calls[k].first, expect))
      return ::testing::AssertionFailure() << "call " << k << " of " << calls.size() << " (by returned value) returned "
                                           << show(calls[k].first) << ", the chain expects " << show(expect);
    expect = static_cast<T>(expect + calls[k].second);
  }
  if (!same_bytes(final, expect))
    return ::testing::AssertionFailure() << "memory ends at " << show(final) << ", the chain at " << show(expect);
  return ::testing::AssertionSuccess();
}

template <op_kind K, class T>
void check_hammer(rng& r, int p, int addresses, bool warp_uniform_values = false) {
  SCOPED_TRACE(::testing::Message() << op_name(K) << " on " << atomic_type_name<T>() << ", pattern " << p << ", "
                                    << addresses << " addresses" << (warp_uniform_values ? ", one value per warp" : ""));
  const std::size_t calls = std::size_t(hammer_n) * hammer_rounds;
  const std::uint32_t seed = static_cast<std::uint32_t>(r.next());
  std::vector<T> values = K == op_kind::add ? positive_values<T>(r, calls) : op_values<T>(r, calls);
  if (warp_uniform_values)  // every lane of a warp adds the same value in a round (a counter's case)
    for (std::size_t i = 0; i < calls; ++i) values[i] = values[i & ~std::size_t(31)];
  const std::vector<T> init = K == op_kind::add ? positive_values<T>(r, addresses) : op_values<T>(r, addresses);
  cuprim::device_buffer<T> d_values{std::span<const T>(values)}, targets{std::span<const T>(init)}, returned(calls);
  poison(returned);
  hammer_kernel<K, T><<<hammer_blocks, hammer_threads>>>(targets.data(), addresses, d_values.data(), returned.data(),
                                                         p, seed);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<T> got = returned.to_host_sync(), mem = targets.to_host_sync();
  std::vector<std::vector<std::pair<T, T>>> per(addresses);  // (returned, value) of each call, per address
  for (int round = 0; round < hammer_rounds; ++round)
    for (int gid = 0; gid < hammer_n; ++gid) {
      const int s = hammer_slot(p, gid, round, addresses, seed);
      const std::size_t i = std::size_t(round) * hammer_n + gid;
      if (s >= 0) per[s].emplace_back(got[i], values[i]);
      else ASSERT_TRUE(host_bytes_are(&got[i], sizeof(T))) << "a skipped call wrote its result";
    }
  for (int a = 0; a < addresses; ++a) {
    ASSERT_FALSE(per[a].empty()) << "no call on address " << a << " (degenerate pattern)";
    if constexpr (K == op_kind::add) {
      EXPECT_TRUE(chains(per[a], init[a], mem[a])) << "address " << a;
    } else if constexpr (K == op_kind::bit_xor) {
      T x = init[a];
      for (const auto& c : per[a]) x ^= c.second;
      EXPECT_EQ(mem[a], x) << "address " << a;
    } else {
      T extreme = init[a];
      std::vector<T> allowed{init[a]};
      for (const auto& c : per[a]) {
        extreme = host_op<K>(extreme, c.second);
        allowed.push_back(c.second);
      }
      std::sort(allowed.begin(), allowed.end());
      EXPECT_TRUE(same_bytes(mem[a], extreme)) << "address " << a << ": " << show(mem[a]) << ", expected " << show(extreme);
      int bad = 0;
      for (const auto& c : per[a]) {
        // A returned value is the initial value or one of the values applied, and never past the final extreme.
        const bool member = std::binary_search(allowed.begin(), allowed.end(), c.first);
        const bool inside = same_bytes(host_op<K>(c.first, extreme), extreme);
        if ((!member || !inside) && ++bad <= 5)
          ADD_FAILURE() << "address " << a << ": returned " << show(c.first) << (member ? "" : " (never applied)")
                        << (inside ? "" : " (past the final value)");
      }
    }
  }
}

TEST_F(WarpAtomic, HammerAddChainsIntegers) {
  CUPRIM_TEST_RNG(r);
  for (int p = 0; p < 3; ++p) {
    check_hammer<op_kind::add, std::int32_t>(r, p, 4);
    check_hammer<op_kind::add, std::uint32_t>(r, p, 1);
    check_hammer<op_kind::add, std::int64_t>(r, p, 7);
    check_hammer<op_kind::add, std::uint64_t>(r, p, 3);
    check_hammer<op_kind::add, std::int32_t>(r, p, 4, true);
    check_hammer<op_kind::add, std::uint64_t>(r, p, 3, true);
  }
}

TEST_F(WarpAtomic, HammerAddChainsIntegerValuedFloats) {
  CUPRIM_TEST_RNG(r);
  for (int p = 0; p < 3; ++p) {
    check_hammer<op_kind::add, float>(r, p, 4);  // sums below 2^24: exact in float
    check_hammer<op_kind::add, double>(r, p, 2);
    check_hammer<op_kind::add, float>(r, p, 4, true);
    check_hammer<op_kind::add, double>(r, p, 2, true);
  }
}

TEST_F(WarpAtomic, HammerMaxMinXor) {
  CUPRIM_TEST_RNG(r);
  for (int p = 0; p < 3; ++p) {
    check_hammer<op_kind::max, std::int32_t>(r, p, 4);
    check_hammer<op_kind::min, std::uint64_t>(r, p, 3);
    check_hammer<op_kind::max, float>(r, p, 5);
    check_hammer<op_kind::min, double>(r, p, 2);
    check_hammer<op_kind::bit_xor, std::uint32_t>(r, p, 4);
    check_hammer<op_kind::bit_xor, std::uint32_t>(r, p, 4, true);
    check_hammer<op_kind::max, float>(r, p, 5, true);
  }
}

// ---- shared memory

constexpr int shared_counters = 5;

template <class T>
__global__ void shared_kernel(const T* values, T* returned, T* totals, std::uint32_t seed) {
  __shared__ T counters[shared_counters];
  if (threadIdx.x < shared_counters) counters[threadIdx.x] = T(threadIdx.x + 1);
  __syncthreads();
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int round = 0; round < hammer_rounds; ++round) {
    const int s = hammer_slot(2, gid, round, shared_counters, seed);
    if (s >= 0) {
      const int i = round * hammer_n + gid;
      returned[i] = cuprim::warp::atomic_add(counters + s, values[i]);
    }
  }
  __syncthreads();
  if (threadIdx.x < shared_counters) totals[blockIdx.x * shared_counters + threadIdx.x] = counters[threadIdx.x];
}

template <class T>
void check_shared(rng& r) {
  SCOPED_TRACE(atomic_type_name<T>());
  const std::size_t calls = std::size_t(hammer_n) * hammer_rounds;
  const std::uint32_t seed = static_cast<std::uint32_t>(r.next());
  const std::vector<T> values = positive_values<T>(r, calls);
  cuprim::device_buffer<T> d_values{std::span<const T>(values)}, returned(calls),
      totals(std::size_t(hammer_blocks) * shared_counters);
  poison(returned);
  poison(totals);
  shared_kernel<T><<<hammer_blocks, hammer_threads>>>(d_values.data(), returned.data(), totals.data(), seed);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<T> got = returned.to_host_sync(), tot = totals.to_host_sync();
  for (int b = 0; b < hammer_blocks; ++b) {
    std::vector<std::vector<std::pair<T, T>>> per(shared_counters);
    for (int round = 0; round < hammer_rounds; ++round)
      for (int t = 0; t < hammer_threads; ++t) {
        const int gid = b * hammer_threads + t;
        const int s = hammer_slot(2, gid, round, shared_counters, seed);
        const std::size_t i = std::size_t(round) * hammer_n + gid;
        if (s >= 0) per[s].emplace_back(got[i], values[i]);
      }
    for (int s = 0; s < shared_counters; ++s)
      ASSERT_TRUE(chains(per[s], T(s + 1), tot[b * shared_counters + s])) << "block " << b << ", counter " << s;
  }
}

TEST_F(WarpAtomic, SharedMemoryCounters) {
  CUPRIM_TEST_RNG(r);
  check_shared<std::uint32_t>(r);
  check_shared<std::int64_t>(r);
  check_shared<float>(r);
}

}  // namespace
}  // namespace cuprim_test
