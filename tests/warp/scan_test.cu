// Warp-level scans (cuprim/warp/scan.cuh): the shuffle scan in its four forms (plain, with the warp total, the
// partial form over lanes [0, valid), exclusive with init), the seed's shared-memory forms (predicated, and
// branchless with identity padding), the ballot scans (popc and the seed's bfi lane mask), bfi itself, and warp
// compaction. Each form runs over several warps of random data with plus and with non-commutative exact
// operators (affine maps over uint32 and uint16, 2×2 uint32 matrices), so a lane that combined its operands in
// the wrong order, or took a value from the wrong lane, shows; the host computes what each lane must hold.
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/warp/scan.cuh>

#include "common/scan_types.hpp"
#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <span>
#include <vector>

namespace cuprim_test {
namespace {

constexpr int warps_per_launch = 96;  // warp w's partial scan covers lanes [0, w % 32 + 1): every count, 3 times
constexpr int threads = warps_per_launch * 32;
constexpr int block = 128;
constexpr int warps_per_block = block / 32;

// Per thread, the kernel writes `slots` results (and the totals next to them).
enum slot : int {
  s_incl,         // inclusive_scan(v, op)
  s_incl_t,       // inclusive_scan(v, op, total)
  s_total,        //   ... its total
  s_part,         // inclusive_scan(v, op, valid, total)
  s_part_total,   //   ... its total
  s_excl_t,       // exclusive_scan(v, op, init, total)
  s_excl_total,   //   ... its total
  s_excl,         // exclusive_scan(v, op, init)
  s_shared,       // inclusive_scan_shared(v, op, smem)
  s_padded,       // inclusive_scan_padded(v, op, identity, smem)
  s_shared_again, // inclusive_scan_shared once more on the same shared memory (storage reuse)
  slots
};

template <class T, class Op>
__global__ void __launch_bounds__(block) warp_scan_kernel(const T* in, const T* inits, T* out, Op op, T identity) {
  // Raw shared storage (T may be a struct): 32 slots per warp for the predicated form, 48 for the padded one.
  __shared__ alignas(16) unsigned char shared_raw[warps_per_block * 32 * sizeof(T)];
  __shared__ alignas(16) unsigned char padded_raw[warps_per_block * 48 * sizeof(T)];
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const int w = gid / 32, wb = threadIdx.x / 32;
  T* smem = reinterpret_cast<T*>(shared_raw) + wb * 32;
  T* pmem = reinterpret_cast<T*>(padded_raw) + wb * 48;
  const T v = in[gid];
  const T init = inits[w];
  T* o = out + std::size_t(gid) * slots;
  T total;
  o[s_incl] = cuprim::warp::inclusive_scan(v, op);
  o[s_incl_t] = cuprim::warp::inclusive_scan(v, op, total);
  o[s_total] = total;
  o[s_part] = cuprim::warp::inclusive_scan(v, op, w % 32 + 1, total);
  o[s_part_total] = total;
  o[s_excl_t] = cuprim::warp::exclusive_scan(v, op, init, total);
  o[s_excl_total] = total;
  o[s_excl] = cuprim::warp::exclusive_scan(v, op, init);
  o[s_shared] = cuprim::warp::inclusive_scan_shared(v, op, smem);
  o[s_padded] = cuprim::warp::inclusive_scan_padded(v, op, identity, pmem);
  __syncwarp();
  // Reuse of the same slots with the lanes' values rotated: stale values from the first call must not leak in.
  const T rotated = cuprim::warp::shfl(v, (cuprim::warp::lane_id() + 5) & 31);
  o[s_shared_again] = cuprim::warp::inclusive_scan_shared(rotated, op, smem);
}

const char* slot_name(int s) {
  static const char* names[slots] = {"inclusive_scan",
                                     "inclusive_scan(total)",
                                     "total of inclusive_scan(total)",
                                     "inclusive_scan(valid, total)",
                                     "total of inclusive_scan(valid, total)",
                                     "exclusive_scan(init, total)",
                                     "total of exclusive_scan(init, total)",
                                     "exclusive_scan(init)",
                                     "inclusive_scan_shared",
                                     "inclusive_scan_padded",
                                     "inclusive_scan_shared (storage reused)"};
  return names[s];
}

/// What one lane must hold: exact (integers, user types), or for floating types the sum in double with the
/// magnitude the rounding error is bounded by.
template <class T>
struct expected {
  T value;
  double sum = 0;      // the exact sum in double (floating types)
  double abs_sum = 0;  // Σ|terms| (floating types)
  int terms = 1;       // number of terms combined
};

/// Host fold of x[0..count) left to right (in double for floating types, and the magnitude that bounds the error).
template <class T, class Op>
expected<T> host_fold(const T* x, int count, Op op, const T* init = nullptr) {
  expected<T> e{init ? *init : x[0], 0.0, 0.0, count + (init ? 1 : 0)};
  for (int i = init ? 0 : 1; i < count; ++i) e.value = op(e.value, x[i]);
  if constexpr (is_float_like<T>) {
    if (init) {
      e.sum = to_double(*init);
      e.abs_sum = std::fabs(e.sum);
    }
    for (int i = 0; i < count; ++i) {
      e.sum += to_double(x[i]);
      e.abs_sum += std::fabs(to_double(x[i]));
    }
  }
  return e;
}

template <class T>
::testing::AssertionResult matches(const T& got, const expected<T>& e) {
  if constexpr (is_float_like<T>) {
    // A scan of `terms` operands in the type itself: at most 5 shuffle levels, the init and the shift of the
    // exclusive form; sum_tolerance's bound (2 log2(terms) + 9 roundings) covers it with room to spare.
    const double tol = sum_tolerance(epsilon<T>(), std::uint64_t(e.terms), e.abs_sum);
    const double err = std::fabs(to_double(got) - e.sum);
    if (err <= tol) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << show(got) << ", expected " << e.sum << " (error " << err
                                         << ", bound " << tol << ")";
  } else {
    if (same_bytes(got, e.value)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << show(got) << ", expected " << show(e.value);
  }
}

template <class T, class Op>
void check_warp_scan(rng& r, Op op, T identity, const char* what) {
  SCOPED_TRACE(what);
  const std::vector<T> h = random_scan_vector<T>(r, threads);
  const std::vector<T> inits = random_scan_vector<T>(r, warps_per_launch);
  cuprim::device_buffer<T> in{std::span<const T>(h)}, d_inits{std::span<const T>(inits)},
      out(std::size_t(threads) * slots);
  poison(out);
  warp_scan_kernel<<<threads / block, block>>>(in.data(), d_inits.data(), out.data(), op, identity);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<T> got = out.to_host_sync();
  int failures = 0, order_blind = 0;
  auto expect = [&](int gid, int s, const expected<T>& e) {
    const auto m = matches(got[std::size_t(gid) * slots + s], e);
    if (!m && ++failures <= 20) ADD_FAILURE() << slot_name(s) << ", warp " << gid / 32 << " lane " << gid % 32 << ": " << m.message();
  };
  for (int w = 0; w < warps_per_launch; ++w) {
    const T* x = h.data() + w * 32;
    const int valid = w % 32 + 1;
    std::vector<T> rotated(32);
    for (int l = 0; l < 32; ++l) rotated[l] = x[(l + 5) & 31];
    const expected<T> total = host_fold(x, 32, op);
    const expected<T> part_total = host_fold(x, valid, op);
    for (int l = 0; l < 32; ++l) {
      const int gid = w * 32 + l;
      const expected<T> incl = host_fold(x, l + 1, op);
      expect(gid, s_incl, incl);
      expect(gid, s_incl_t, incl);
      expect(gid, s_total, total);
      if (l < valid) expect(gid, s_part, incl);  // lanes past `valid` hold unspecified values
      expect(gid, s_part_total, part_total);
      const expected<T> excl = host_fold(x, l, op, &inits[w]);
      expect(gid, s_excl_t, excl);
      expect(gid, s_excl_total, total);  // the total leaves init out
      expect(gid, s_excl, excl);
      expect(gid, s_shared, incl);
      expect(gid, s_padded, incl);
      expect(gid, s_shared_again, host_fold(rotated.data(), l + 1, op));
    }
    if constexpr (!std::is_arithmetic_v<T> && !is_half_like<T>)
      order_blind += same_bytes(total.value, reversed_fold(x, 32, op));
  }
  EXPECT_EQ(failures, 0) << failures << " lanes wrong";
  // The data tells the orders apart (a check that cannot fail is no check). Not in every warp: random operands
  // fold to the same total in both orders now and then (a uint16 affine map's offset matches 1 time in 65536),
  // so the check is that such warps are rare, not absent.
  EXPECT_LE(order_blind, warps_per_launch / 8) << order_blind << " of " << warps_per_launch
                                               << " warps fold to the same total in both orders: degenerate data";
}

class WarpScan : public gpu_test {};

TEST_F(WarpScan, IntegerPlus) {
  CUPRIM_TEST_RNG(r);
  check_warp_scan<std::uint32_t>(r, cuprim::plus{}, 0u, "uint32 plus (wrapping)");
  check_warp_scan<std::uint64_t>(r, cuprim::plus{}, std::uint64_t{0}, "uint64 plus");
  check_warp_scan<std::int8_t>(r, cuprim::plus{}, std::int8_t{0}, "int8 plus (1-byte shuffles, wrapping)");
}

TEST_F(WarpScan, FloatingPlus) {
  CUPRIM_TEST_RNG(r);
  check_warp_scan<float>(r, cuprim::plus{}, 0.0f, "float plus");
  check_warp_scan<double>(r, cuprim::plus{}, 0.0, "double plus");
}

TEST_F(WarpScan, IntegerMax) {
  CUPRIM_TEST_RNG(r);
  check_warp_scan<std::int32_t>(r, cuprim::maximum{}, std::numeric_limits<std::int32_t>::lowest(), "int32 max");
}

TEST_F(WarpScan, NonCommutativeAffineMaps) {
  CUPRIM_TEST_RNG(r);
  check_warp_scan<affine_map>(r, compose{}, affine_identity, "affine maps over uint32 (8 bytes)");
  check_warp_scan<affine16>(r, compose16{}, affine16_identity, "affine maps over uint16 (4 bytes)");
}

TEST_F(WarpScan, NonCommutativeMatrices) {
  CUPRIM_TEST_RNG(r);
  check_warp_scan<mat2>(r, mat_mul{}, mat2_identity, "2x2 uint32 matrices (16 bytes)");
}

// ---- ballot scans, bfi, compaction

constexpr int ballot_outputs = 5;  // rank, total, rank (bfi), total (bfi), compaction count

/// Warp w's lane l has predicate bit l of preds[w]. Each warp compacts its values into its own 32 slots.
__global__ void ballot_kernel(const unsigned* preds, const std::uint32_t* values, int* out, std::uint32_t* compacted) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const int w = gid / 32, lane = gid % 32;
  const bool p = (preds[w] >> lane) & 1u;
  int total = -1, total_bfi = -1;
  const int rank = cuprim::warp::ballot_exclusive_scan(p, total);
  const int rank_bfi = cuprim::warp::ballot_exclusive_scan_bfi(p, total_bfi);
  const int count = cuprim::warp::compact(values[gid], p, compacted + w * 32);
  int* o = out + gid * ballot_outputs;
  o[0] = rank;
  o[1] = total;
  o[2] = rank_bfi;
  o[3] = total_bfi;
  o[4] = count;
}

struct bfi_case {
  unsigned x, y, bit, bits;
};

__global__ void bfi_kernel(const bfi_case* cases, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = cuprim::warp::bfi(cases[i].x, cases[i].y, cases[i].bit, cases[i].bits);
}

__global__ void lanemask_kernel(unsigned* out) { out[threadIdx.x] = cuprim::warp::lanemask_lt(); }

class WarpBallot : public gpu_test {};

TEST_F(WarpBallot, ExclusiveScanAndCompactionMatchPopcounts) {
  CUPRIM_TEST_RNG(r);
  // All false, all true, single lanes, alternating, halves, then random (dense and sparse).
  std::vector<unsigned> preds = {0u,          ~0u,         1u,          0x80000000u, 0x55555555u,
                                 0xAAAAAAAAu, 0x0000FFFFu, 0xFFFF0000u, 0x7FFFFFFFu, 0xFFFFFFFEu};
  while (preds.size() < 40) preds.push_back(static_cast<unsigned>(r.next()));
  while (preds.size() < 64) preds.push_back(static_cast<unsigned>(r.next() & r.next() & r.next()));
  const int warps = static_cast<int>(preds.size());
  const std::vector<std::uint32_t> values = random_vector<std::uint32_t>(r, std::size_t(warps) * 32);
  cuprim::device_buffer<unsigned> d_preds{std::span<const unsigned>(preds)};
  cuprim::device_buffer<std::uint32_t> d_values{std::span<const std::uint32_t>(values)},
      compacted(std::size_t(warps) * 32);
  cuprim::device_buffer<int> out(std::size_t(warps) * 32 * ballot_outputs);
  poison(out);
  poison(compacted);
  ballot_kernel<<<warps, 32>>>(d_preds.data(), d_values.data(), out.data(), compacted.data());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto got = out.to_host_sync();
  const auto got_c = compacted.to_host_sync();
  std::uint32_t poison_word;
  std::memset(&poison_word, poison_byte, sizeof(poison_word));
  for (int w = 0; w < warps; ++w) {
    const unsigned p = preds[w];
    SCOPED_TRACE(::testing::Message() << "predicates 0x" << std::hex << p);
    const int total = std::popcount(p);
    for (int l = 0; l < 32; ++l) {
      const int* o = got.data() + (w * 32 + l) * ballot_outputs;
      const int rank = std::popcount(p & ((1u << l) - 1u));  // l ≤ 31: the shift is defined
      ASSERT_EQ(o[0], rank) << "ballot_exclusive_scan, lane " << l;
      ASSERT_EQ(o[1], total) << "ballot_exclusive_scan total, lane " << l;
      ASSERT_EQ(o[2], rank) << "ballot_exclusive_scan_bfi, lane " << l;
      ASSERT_EQ(o[3], total) << "ballot_exclusive_scan_bfi total, lane " << l;
      ASSERT_EQ(o[4], total) << "compact count, lane " << l;
    }
    // The selected values in lane order, then untouched slots.
    int k = 0;
    for (int l = 0; l < 32; ++l) {
      if ((p >> l) & 1u) {
        ASSERT_EQ(got_c[w * 32 + k], values[w * 32 + l]) << "compacted slot " << k << " (lane " << l << ")";
        ++k;
      }
    }
    for (; k < 32; ++k) ASSERT_EQ(got_c[w * 32 + k], poison_word) << "compaction wrote past its count, slot " << k;
  }
}

TEST_F(WarpBallot, BfiInsertsTheLowBitsOfXIntoY) {
  CUPRIM_TEST_RNG(r);
  std::vector<bfi_case> cases;
  // The seed's lane masks: bfi(0xffffffff, 0, 0, lane) sets bits [0, lane).
  for (unsigned l = 0; l <= 32; ++l) cases.push_back({0xffffffffu, 0u, 0u, l});
  for (int k = 0; k < 200; ++k) {
    const unsigned bit = static_cast<unsigned>(r.between(0, 31));
    const unsigned bits = static_cast<unsigned>(r.between(0, 32 - bit));  // fields that fit in the word
    cases.push_back({static_cast<unsigned>(r.next()), static_cast<unsigned>(r.next()), bit, bits});
  }
  const int n = static_cast<int>(cases.size());
  cuprim::device_buffer<bfi_case> d_cases{std::span<const bfi_case>(cases)};
  cuprim::device_buffer<unsigned> out(n);
  poison(out);
  bfi_kernel<<<(n + 127) / 128, 128>>>(d_cases.data(), out.data(), n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto got = out.to_host_sync();
  for (int i = 0; i < n; ++i) {
    const bfi_case& c = cases[i];
    const std::uint64_t field = c.bits >= 32 ? 0xffffffffull : ((1ull << c.bits) - 1);
    const std::uint64_t mask = (field << c.bit) & 0xffffffffull;
    const unsigned ref = static_cast<unsigned>(((std::uint64_t(c.x) << c.bit) & mask) | (c.y & ~mask));
    EXPECT_EQ(got[i], ref) << std::hex << "bfi(0x" << c.x << ", 0x" << c.y << ", " << std::dec << c.bit << ", "
                           << c.bits << ")";
  }
  cuprim::device_buffer<unsigned> masks(64);
  poison(masks);
  lanemask_kernel<<<1, 64>>>(masks.data());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto m = masks.to_host_sync();
  for (int t = 0; t < 64; ++t) EXPECT_EQ(m[t], (1u << (t % 32)) - 1u) << "lanemask_lt, thread " << t;
}

}  // namespace
}  // namespace cuprim_test
