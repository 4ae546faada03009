// Warp-level primitives: warp::reduce (butterfly), warp::reduce_down (tree), the partial warp::reduce over
// lanes [0, valid), the shuffles on types of 1, 2, 3, 4, 8 and 12 bytes, and the votes. Small kernels run them
// over random data; the host computes what each lane must hold.
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/warp/reduce.cuh>
#include <cuprim/warp/shuffle.cuh>
#include <cuprim/warp/vote.cuh>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

namespace cuprim_test {
namespace {

constexpr int warps_per_launch = 64;  // warp w reduces its lanes [0, w % 32 + 1) in the partial form
constexpr int threads = warps_per_launch * 32;
constexpr int block = 128;

template <class T, class Op>
__global__ void warp_reduce_kernel(const T* in, T* butterfly, T* tree, T* partial, Op op) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const int warp = gid / 32;
  const T v = in[gid];
  butterfly[gid] = cuprim::warp::reduce(v, op);
  tree[gid] = cuprim::warp::reduce_down(v, op);
  partial[gid] = cuprim::warp::reduce(v, op, warp % 32 + 1);
}

/// op over lanes [0, count) of warp w, left to right.
template <class T, class Op>
T host_warp_reduce(const std::vector<T>& in, int w, int count, Op op) {
  T acc = in[w * 32];
  for (int l = 1; l < count; ++l) acc = op(acc, in[w * 32 + l]);
  return acc;
}

/// Runs the warp reductions of T with op and checks every lane. Integer and user types must match exactly;
/// floating types within the bound of a 32-term sum (and the butterfly must give every lane the same bits).
template <class T, class Op>
void check_warp_reduce(rng& r, Op op) {
  SCOPED_TRACE(type_name<T>());
  const std::vector<T> h = random_vector<T>(r, threads);
  cuprim::device_buffer<T> in{std::span<const T>(h)}, bf(threads), tr(threads), pa(threads);
  poison(bf);
  poison(tr);
  poison(pa);
  warp_reduce_kernel<<<threads / block, block>>>(in.data(), bf.data(), tr.data(), pa.data(), op);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto got_bf = bf.to_host_sync(), got_tr = tr.to_host_sync(), got_pa = pa.to_host_sync();

  auto check = [&](const T& got, int w, int count, const char* what, int lane) {
    const T ref = host_warp_reduce(h, w, count, op);
    if constexpr (is_float_like<T>) {
      double abs_sum = 0;
      for (int l = 0; l < count; ++l) abs_sum += std::fabs(to_double(h[w * 32 + l]));
      const double tol = sum_tolerance(epsilon<T>(), std::uint64_t(count), abs_sum);
      EXPECT_NEAR(to_double(got), to_double(ref), tol) << what << ", warp " << w << " lane " << lane;
    } else {
      EXPECT_TRUE(same_bytes(got, ref)) << what << ", warp " << w << " lane " << lane << ": got " << show(got)
                                        << ", expected " << show(ref);
    }
  };
  for (int w = 0; w < warps_per_launch; ++w) {
    for (int l = 0; l < 32; ++l) {
      check(got_bf[w * 32 + l], w, 32, "butterfly reduce", l);
      EXPECT_TRUE(same_bytes(got_bf[w * 32 + l], got_bf[w * 32])) << "butterfly: lanes disagree, warp " << w;
      check(got_pa[w * 32 + l], w, w % 32 + 1, "partial reduce", l);
      EXPECT_TRUE(same_bytes(got_pa[w * 32 + l], got_pa[w * 32])) << "partial: lanes disagree, warp " << w;
    }
    check(got_tr[w * 32], w, 32, "reduce_down (lane 0)", 0);
  }
}

class WarpReduce : public gpu_test {};

TEST_F(WarpReduce, IntegerPlusWraps) {
  CUPRIM_TEST_RNG(r);
  check_warp_reduce<std::uint32_t>(r, cuprim::plus{});
  check_warp_reduce<std::uint64_t>(r, cuprim::plus{});
}

TEST_F(WarpReduce, MinMax) {
  CUPRIM_TEST_RNG(r);
  check_warp_reduce<std::int32_t>(r, cuprim::maximum{});
  check_warp_reduce<std::int64_t>(r, cuprim::minimum{});
  check_warp_reduce<std::int8_t>(r, cuprim::maximum{});
  check_warp_reduce<double>(r, cuprim::minimum{});
}

TEST_F(WarpReduce, FloatingPlus) {
  CUPRIM_TEST_RNG(r);
  check_warp_reduce<float>(r, cuprim::plus{});
  check_warp_reduce<double>(r, cuprim::plus{});
}

TEST_F(WarpReduce, UserStruct12Bytes) {
  CUPRIM_TEST_RNG(r);
  check_warp_reduce<stats>(r, stats_op{});
}

// ---- lane order: reduce_ordered and the partial form combine earlier lanes on the left

/// x -> a·x + b over uint32 (wrapping). Composition is associative but not commutative.
struct affine {
  std::uint32_t a, b;
};
/// "f, then g": x -> g.a·(f.a·x + f.b) + g.b.
struct compose {
  CUPRIM_HD affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};

__global__ void warp_ordered_kernel(const affine* in, affine* ordered, affine* partial) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const affine v = in[gid];
  ordered[gid] = cuprim::warp::reduce_ordered(v, compose{});
  partial[gid] = cuprim::warp::reduce(v, compose{}, gid / 32 % 32 + 1);
}

TEST_F(WarpReduce, OrderedFormsKeepLaneOrder) {
  CUPRIM_TEST_RNG(r);
  std::vector<affine> h(threads);
  for (auto& f : h) f = {static_cast<std::uint32_t>(r.next()) | 1u, static_cast<std::uint32_t>(r.next())};
  cuprim::device_buffer<affine> in{std::span<const affine>(h)}, ordered(threads), partial(threads);
  poison(ordered);
  poison(partial);
  warp_ordered_kernel<<<threads / block, block>>>(in.data(), ordered.data(), partial.data());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto got_o = ordered.to_host_sync(), got_p = partial.to_host_sync();
  auto same = [](const affine& x, const affine& y) { return x.a == y.a && x.b == y.b; };
  for (int w = 0; w < warps_per_launch; ++w) {
    const affine full = host_warp_reduce(h, w, 32, compose{});
    const affine part = host_warp_reduce(h, w, w % 32 + 1, compose{});
    // The reversed order gives a different answer on random data, so the check can tell the orders apart.
    affine reversed = h[w * 32 + 31];
    for (int l = 30; l >= 0; --l) reversed = compose{}(reversed, h[w * 32 + l]);
    EXPECT_FALSE(same(full, reversed)) << "degenerate data";
    for (int l = 0; l < 32; ++l) {
      EXPECT_TRUE(same(got_o[w * 32 + l], full)) << "reduce_ordered, warp " << w << " lane " << l;
      EXPECT_TRUE(same(got_p[w * 32 + l], part)) << "reduce(v, op, " << w % 32 + 1 << "), warp " << w << " lane " << l;
    }
  }
}

// ---- shuffles

constexpr int shuffle_patterns = 16;

template <class T>
__global__ void shuffle_kernel(const T* in, T* out) {
  using namespace cuprim::warp;
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = lane_id();
  const T v = in[gid];
  T* o = out + std::size_t(gid) * shuffle_patterns;
  o[0] = shfl(v, (lane * 5 + 3) & 31);
  o[1] = shfl(v, 17);
  o[2] = shfl_up(v, 1);
  o[3] = shfl_up(v, 3);
  o[4] = shfl_up(v, 16);
  o[5] = shfl_up(v, 31);
  o[6] = shfl_down(v, 1);
  o[7] = shfl_down(v, 3);
  o[8] = shfl_down(v, 16);
  o[9] = shfl_down(v, 31);
  o[10] = shfl_xor(v, 1);
  o[11] = shfl_xor(v, 6);
  o[12] = shfl_xor(v, 16);
  o[13] = shfl_xor(v, 31);
  // Partial masks: only the named lanes take part; the others keep their value.
  T lower = v, upper = v;
  if (lane < 16) lower = shfl(v, (lane + 1) & 15, 0x0000ffffu);
  if (lane >= 16) upper = shfl_down(v, 2, 0xffff0000u);
  o[14] = lower;
  o[15] = upper;
}

template <class T>
void check_shuffles(rng& r) {
  SCOPED_TRACE(type_name<T>());
  const int n = 4 * 32;
  const std::vector<T> h = random_vector<T>(r, n);
  cuprim::device_buffer<T> in{std::span<const T>(h)}, out(std::size_t(n) * shuffle_patterns);
  poison(out);
  shuffle_kernel<<<1, n>>>(in.data(), out.data());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto got = out.to_host_sync();
  for (int gid = 0; gid < n; ++gid) {
    const int lane = gid % 32, base = gid - lane;
    auto at = [&](int l) { return h[base + l]; };
    const T expected[shuffle_patterns] = {
        at((lane * 5 + 3) & 31),
        at(17),
        lane >= 1 ? at(lane - 1) : at(lane),
        lane >= 3 ? at(lane - 3) : at(lane),
        lane >= 16 ? at(lane - 16) : at(lane),
        lane >= 31 ? at(lane - 31) : at(lane),
        lane + 1 < 32 ? at(lane + 1) : at(lane),
        lane + 3 < 32 ? at(lane + 3) : at(lane),
        lane + 16 < 32 ? at(lane + 16) : at(lane),
        lane + 31 < 32 ? at(lane + 31) : at(lane),
        at(lane ^ 1),
        at(lane ^ 6),
        at(lane ^ 16),
        at(lane ^ 31),
        lane < 16 ? at((lane + 1) & 15) : at(lane),
        // shfl_down within the upper half-warp (width 32, mask 0xffff0000): lanes 30 and 31 keep their own value.
        lane >= 16 ? (lane + 2 < 32 ? at(lane + 2) : at(lane)) : at(lane),
    };
    for (int k = 0; k < shuffle_patterns; ++k)
      EXPECT_TRUE(same_bytes(got[std::size_t(gid) * shuffle_patterns + k], expected[k]))
          << "pattern " << k << ", thread " << gid;
  }
}

class WarpShuffle : public gpu_test {};

TEST_F(WarpShuffle, OneTwoAndThreeByteTypes) {
  CUPRIM_TEST_RNG(r);
  check_shuffles<std::int8_t>(r);
  check_shuffles<__half>(r);
  check_shuffles<rgb>(r);
}

TEST_F(WarpShuffle, WordTypes) {
  CUPRIM_TEST_RNG(r);
  check_shuffles<std::uint32_t>(r);
  check_shuffles<float>(r);
}

TEST_F(WarpShuffle, EightByteTypesAndStruct) {
  CUPRIM_TEST_RNG(r);
  check_shuffles<double>(r);
  check_shuffles<std::int64_t>(r);
  check_shuffles<pair8>(r);
}

TEST_F(WarpShuffle, TwelveByteStruct) {
  CUPRIM_TEST_RNG(r);
  check_shuffles<stats>(r);
}

// ---- votes

constexpr unsigned vote_mask = 0x0F0F0F0Fu;
constexpr int vote_outputs = 8;

/// Warp w's lane l votes bit l of preds[w]. Outputs per warp: all, any, ballot, count over the full warp, then
/// the same over the lanes of vote_mask (only those lanes call).
__global__ void vote_kernel(const unsigned* preds, unsigned* out) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const int w = gid / 32, lane = gid % 32;
  const bool p = (preds[w] >> lane) & 1u;
  const bool a = cuprim::warp::all(p), y = cuprim::warp::any(p);
  const unsigned b = cuprim::warp::ballot(p);
  const int c = cuprim::warp::count(p);
  if (lane == 0) {
    out[w * vote_outputs + 0] = a;
    out[w * vote_outputs + 1] = y;
    out[w * vote_outputs + 2] = b;
    out[w * vote_outputs + 3] = static_cast<unsigned>(c);
  }
  if ((vote_mask >> lane) & 1u) {
    const bool ma = cuprim::warp::all(p, vote_mask), my = cuprim::warp::any(p, vote_mask);
    const unsigned mb = cuprim::warp::ballot(p, vote_mask);
    const int mc = cuprim::warp::count(p, vote_mask);
    if (lane == 0) {
      out[w * vote_outputs + 4] = ma;
      out[w * vote_outputs + 5] = my;
      out[w * vote_outputs + 6] = mb;
      out[w * vote_outputs + 7] = static_cast<unsigned>(mc);
    }
  }
}

__global__ void lane_kernel(int* out) { out[threadIdx.x] = cuprim::warp::lane_id(); }

class WarpVote : public gpu_test {};

TEST_F(WarpVote, AllAnyBallotCount) {
  CUPRIM_TEST_RNG(r);
  // Edge patterns, then random ones.
  std::vector<unsigned> preds = {0u, ~0u, 1u, 0x80000000u, vote_mask, ~vote_mask, 0x0F0F0F0Eu, 0x00000100u};
  while (preds.size() < 64) preds.push_back(static_cast<unsigned>(r.next()));
  const int warps = static_cast<int>(preds.size());
  cuprim::device_buffer<unsigned> d_preds{std::span<const unsigned>(preds)}, out(std::size_t(warps) * vote_outputs);
  poison(out);
  vote_kernel<<<warps, 32>>>(d_preds.data(), out.data());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto got = out.to_host_sync();
  for (int w = 0; w < warps; ++w) {
    const unsigned p = preds[w], pm = p & vote_mask;
    SCOPED_TRACE(::testing::Message() << "predicates 0x" << std::hex << p);
    EXPECT_EQ(got[w * vote_outputs + 0], p == ~0u ? 1u : 0u) << "all";
    EXPECT_EQ(got[w * vote_outputs + 1], p != 0u ? 1u : 0u) << "any";
    EXPECT_EQ(got[w * vote_outputs + 2], p) << "ballot";
    EXPECT_EQ(got[w * vote_outputs + 3], static_cast<unsigned>(__builtin_popcount(p))) << "count";
    EXPECT_EQ(got[w * vote_outputs + 4], pm == vote_mask ? 1u : 0u) << "all (mask)";
    EXPECT_EQ(got[w * vote_outputs + 5], pm != 0u ? 1u : 0u) << "any (mask)";
    EXPECT_EQ(got[w * vote_outputs + 6], pm) << "ballot (mask)";
    EXPECT_EQ(got[w * vote_outputs + 7], static_cast<unsigned>(__builtin_popcount(pm))) << "count (mask)";
  }
}

TEST_F(WarpVote, LaneId) {
  // lane_id() agrees with threadIdx.x % 32 in every warp of a multi-warp block.
  cuprim::device_buffer<int> out(256);
  poison(out);
  lane_kernel<<<1, 256>>>(out.data());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto got = out.to_host_sync();
  for (int t = 0; t < 256; ++t) EXPECT_EQ(got[t], t % 32) << "thread " << t;
}

}  // namespace
}  // namespace cuprim_test
