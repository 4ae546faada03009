// Warp stream compaction: warp::compact_append (cuprim/warp/compact.cuh) into a queue shared by every warp, and the
// masked forms of warp::ballot_exclusive_scan and warp::compact (cuprim/warp/scan.cuh).
//
//  - Append: 96 blocks of 80 threads (every third warp has 16 lanes); in each of three rounds the lanes of a warp
//    named by a call mask (full, lane % 3 != 0, random, one lane, halves, sparse) call from divergent code with
//    random predicates (dense, sparse, none, all), appending their values to one queue through a 32- or 64-bit
//    counter that starts at a random offset. Checked without assuming which lanes reached a call together: the
//    lanes that report the same base form one call; in it, the selected lanes have ranks 0..count-1 in lane
//    order, agree on count, and their values sit at out[base + rank]; the calls' ranges are disjoint and tile
//    [start, final counter) exactly, with nothing written past it.
//  - Masked ballot scan and compaction: only the lanes of a mask call (inside a branch), each warp into its own
//    slots: ranks, totals and the compacted values against popcounts on the host.
#include <cuprim/core/memory.hpp>
#include <cuprim/warp/compact.cuh>
#include <cuprim/warp/scan.cuh>

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

constexpr int block_threads = 80;  // warps of 32, 32 and 16 lanes
constexpr int warps_per_block = 3;
constexpr int blocks = 96;
constexpr int warps = blocks * warps_per_block;
constexpr int rounds = 3;
constexpr int calls = warps * 32 * rounds;

unsigned existing_lanes(int w) { return w % warps_per_block == 2 ? 0x0000ffffu : 0xffffffffu; }

struct slot_info {
  long long base;
  int rank;
  int count;
};

/// Call (round, warp w, lane) takes part when bit `lane` of masks[round·warps + w] is set, with predicate bit `lane`
/// of preds[...]; values[i] and info[i] with i = (round·warps + w)·32 + lane.
template <class Size>
__global__ void append_kernel(const unsigned* masks, const unsigned* preds, const std::uint32_t* values,
                              std::uint32_t* out, Size* counter, slot_info* info) {
  const int lane = threadIdx.x % 32;
  const int w = blockIdx.x * warps_per_block + threadIdx.x / 32;
  for (int round = 0; round < rounds; ++round) {
    const int k = round * warps + w;
    const int i = k * 32 + lane;
    if ((masks[k] >> lane) & 1u) {
      const bool pred = (preds[k] >> lane) & 1u;
      const cuprim::warp::compact_slot<Size> s = cuprim::warp::compact_append(values[i], pred, out, counter);
      info[i] = {static_cast<long long>(s.base), s.rank, s.count};
    }
  }
}

unsigned random_mask(int kind, rng& r) {
  switch (kind) {
    case 0: return 0xffffffffu;
    case 1: return 0xb6db6db6u;  // lane % 3 != 0
    case 2: return static_cast<unsigned>(r.next()) | 1u;
    case 3: return 1u << r.between(0, 31);
    case 4: return 0x0000ffffu;
    case 5: return 0xffff0000u;
    default: return static_cast<unsigned>(r.next() & r.next()) | 0x100u;
  }
}

unsigned random_preds(int kind, rng& r) {
  switch (kind) {
    case 0: return static_cast<unsigned>(r.next());
    case 1: return static_cast<unsigned>(r.next() & r.next() & r.next());
    case 2: return 0u;
    case 3: return 0xffffffffu;
    default: return static_cast<unsigned>(r.next() | r.next());
  }
}

template <class Size>
void check_append(rng& r) {
  SCOPED_TRACE(sizeof(Size) == 4 ? "32-bit counter" : "64-bit counter");
  std::vector<unsigned> masks(std::size_t(rounds) * warps), preds(masks.size());
  for (std::size_t k = 0; k < masks.size(); ++k) {
    masks[k] = random_mask(static_cast<int>(r.between(0, 6)), r);
    preds[k] = random_preds(static_cast<int>(r.between(0, 4)), r);
  }
  const std::vector<std::uint32_t> values = random_vector<std::uint32_t>(r, calls);
  const Size start = static_cast<Size>(r.between(0, 1000));
  const std::size_t capacity = std::size_t(start) + calls + 64;  // 64 guard slots past the most that can be appended
  cuprim::device_buffer<unsigned> d_masks{std::span<const unsigned>(masks)}, d_preds{std::span<const unsigned>(preds)};
  cuprim::device_buffer<std::uint32_t> d_values{std::span<const std::uint32_t>(values)}, out(capacity);
  const std::vector<Size> h_counter{start};
  cuprim::device_buffer<Size> counter{std::span<const Size>(h_counter)};
  cuprim::device_buffer<slot_info> info(calls);
  poison(out);
  poison(info);
  append_kernel<Size><<<blocks, block_threads>>>(d_masks.data(), d_preds.data(), d_values.data(), out.data(),
                                                  counter.data(), info.data());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto got_out = out.to_host_sync();
  const auto got_info = info.to_host_sync();
  const Size final = counter.to_host_sync()[0];

  std::size_t selected_total = 0;
  std::map<long long, std::vector<int>> by_base;  // call index i of every selected lane, grouped by reported base
  for (int k = 0; k < rounds * warps; ++k) {
    const unsigned calling = masks[k] & existing_lanes(k % warps);
    const unsigned sel = calling & preds[k];
    selected_total += std::popcount(sel);
    for (int l = 0; l < 32; ++l) {
      const int i = k * 32 + l;
      if (!((calling >> l) & 1u)) {
        ASSERT_TRUE(host_bytes_are(&got_info[i], sizeof(slot_info))) << "a lane that did not call reported, call " << i;
        continue;
      }
      const slot_info& s = got_info[i];
      ASSERT_GE(s.count, 0);
      ASSERT_LE(s.count, std::popcount(sel)) << "count larger than the warp's selected lanes, call " << i;
      if ((sel >> l) & 1u) {
        ASSERT_GE(s.count, 1) << "a selected lane reports count 0, call " << i;
        ASSERT_GE(s.rank, 0);
        ASSERT_LT(s.rank, s.count) << "call " << i;
        ASSERT_GE(s.base, static_cast<long long>(start)) << "call " << i;
        ASSERT_EQ(got_out[std::size_t(s.base + s.rank)], values[i]) << "value of call " << i << " not at base + rank";
        by_base[s.base].push_back(i);
      }
    }
  }
  ASSERT_EQ(static_cast<std::size_t>(final), std::size_t(start) + selected_total) << "final counter";
  // Each call: ranks 0..count-1 in lane order, the same count everywhere; ranges tile [start, final).
  long long next = static_cast<long long>(start);
  for (const auto& [base, lanes] : by_base) {
    ASSERT_EQ(base, next) << "the calls' ranges leave a gap or overlap at " << base;
    const int count = got_info[lanes.front()].count;
    ASSERT_EQ(static_cast<int>(lanes.size()), count) << "selected lanes of the call at base " << base;
    for (std::size_t j = 0; j < lanes.size(); ++j) {
      ASSERT_EQ(lanes[j] / 32, lanes.front() / 32) << "one call spans two warps' calls, base " << base;
      ASSERT_EQ(got_info[lanes[j]].rank, static_cast<int>(j)) << "ranks not in lane order, base " << base;
      ASSERT_EQ(got_info[lanes[j]].count, count);
    }
    next += count;
  }
  ASSERT_EQ(next, static_cast<long long>(final));
  // Nothing before start or after the final counter was written.
  for (std::size_t j = 0; j < capacity; ++j)
    if (j < std::size_t(start) || j >= std::size_t(final))
      ASSERT_TRUE(host_bytes_are(&got_out[j], sizeof(std::uint32_t))) << "slot " << j << " outside the appended range";
}

class WarpCompact : public gpu_test {};

TEST_F(WarpCompact, AppendWith32BitCounter) {
  CUPRIM_TEST_RNG(r);
  check_append<unsigned>(r);
  check_append<int>(r);
}

TEST_F(WarpCompact, AppendWith64BitCounter) {
  CUPRIM_TEST_RNG(r);
  check_append<unsigned long long>(r);
  check_append<std::int64_t>(r);
}

// ---- masked ballot scan and compaction (every lane of the mask calls; each warp into its own 32 slots)

constexpr int masked_outputs = 3;  // rank, total, count

__global__ void masked_kernel(const unsigned* masks, const unsigned* preds, const std::uint32_t* values, int* out,
                              std::uint32_t* compacted) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const int w = gid / 32, lane = gid % 32;
  const unsigned m = masks[w];
  if ((m >> lane) & 1u) {
    const bool p = (preds[w] >> lane) & 1u;
    int total = -1;
    const int rank = cuprim::warp::ballot_exclusive_scan(p, total, m);
    const int count = cuprim::warp::compact(values[gid], p, compacted + w * 32, m);
    out[gid * masked_outputs + 0] = rank;
    out[gid * masked_outputs + 1] = total;
    out[gid * masked_outputs + 2] = count;
  }
}

TEST_F(WarpCompact, MaskedBallotScanAndCompaction) {
  CUPRIM_TEST_RNG(r);
  const int n_warps = 64;
  std::vector<unsigned> masks(n_warps), preds(n_warps);
  for (int w = 0; w < n_warps; ++w) {
    masks[w] = random_mask(w % 7, r);
    preds[w] = random_preds(w / 7 % 5, r);
  }
  const std::vector<std::uint32_t> values = random_vector<std::uint32_t>(r, std::size_t(n_warps) * 32);
  cuprim::device_buffer<unsigned> d_masks{std::span<const unsigned>(masks)}, d_preds{std::span<const unsigned>(preds)};
  cuprim::device_buffer<std::uint32_t> d_values{std::span<const std::uint32_t>(values)},
      compacted(std::size_t(n_warps) * 32);
  cuprim::device_buffer<int> out(std::size_t(n_warps) * 32 * masked_outputs);
  poison(out);
  poison(compacted);
  masked_kernel<<<n_warps / 2, 64>>>(d_masks.data(), d_preds.data(), d_values.data(), out.data(), compacted.data());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto got = out.to_host_sync();
  const auto got_c = compacted.to_host_sync();
  for (int w = 0; w < n_warps; ++w) {
    const unsigned sel = masks[w] & preds[w];
    SCOPED_TRACE(::testing::Message() << "warp " << w << std::hex << ", mask 0x" << masks[w] << ", predicates 0x"
                                      << preds[w]);
    for (int l = 0; l < 32; ++l) {
      const int* o = got.data() + (w * 32 + l) * masked_outputs;
      if (!((masks[w] >> l) & 1u)) {
        ASSERT_TRUE(host_bytes_are(o, masked_outputs * sizeof(int))) << "lane " << l << " is outside the mask";
        continue;
      }
      ASSERT_EQ(o[0], std::popcount(sel & ((1u << l) - 1u))) << "rank, lane " << l;
      ASSERT_EQ(o[1], std::popcount(sel)) << "total, lane " << l;
      ASSERT_EQ(o[2], std::popcount(sel)) << "compact count, lane " << l;
    }
    int k = 0;
    for (int l = 0; l < 32; ++l)
      if ((sel >> l) & 1u) ASSERT_EQ(got_c[w * 32 + k++], values[w * 32 + l]) << "compacted slot " << k - 1;
    for (; k < 32; ++k) ASSERT_TRUE(host_bytes_are(&got_c[w * 32 + k], 4)) << "compaction wrote past its count, slot " << k;
  }
}

}  // namespace
}  // namespace cuprim_test
