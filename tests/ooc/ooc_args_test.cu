// Argument validation of the out-of-core entry points, the chunk plan and its policy, the lanes and the staging
// threads' copies. Every rule checked here is enforced before any CUDA call, so these tests run (label host) without
// a GPU: the pointers are made-up host addresses, compared but never dereferenced. That nothing is copied when a rule
// is broken, and that device pointers are rejected, is checked by the GPU tests (ooc_test).
#include "common/expect_invalid.hpp"
#include <cuprim/ooc.cuh>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using cuprim_test::expect_invalid;

using cuprim_test::fake;

struct positive {
  CUPRIM_HD bool operator()(int x) const { return x > 0; }
};

const int* in = fake<const int>(1);
int* out = fake<int>(2);
long long* res = fake<long long>(3);
std::int64_t* count = fake<std::int64_t>(4);
unsigned* hist = fake<unsigned>(5);
constexpr std::int64_t n = 1000;

TEST(OocArgs, NegativeCount) {
  expect_invalid([] { cuprim::ooc::reduce(in, res, -1, cuprim::plus{}, 0LL); }, "n", "cuprim::ooc::reduce");
  expect_invalid([] { cuprim::ooc::inclusive_scan(in, out, -1, cuprim::plus{}); }, "n", "cuprim::ooc::inclusive_scan");
  expect_invalid([] { cuprim::ooc::exclusive_scan(in, out, INT64_MIN, cuprim::plus{}, 0); }, "n",
                 "cuprim::ooc::exclusive_scan");
  expect_invalid([] { cuprim::ooc::select_if(in, out, count, -5, positive{}); }, "n", "cuprim::ooc::select_if");
  expect_invalid([] { cuprim::ooc::histogram_even(in, -1, hist, 16, 0, 100); }, "n", "cuprim::ooc::histogram_even");
  // The shorthands name themselves.
  expect_invalid([] { cuprim::ooc::sum(in, res, -1); }, "n", "cuprim::ooc::sum");
  expect_invalid([] { cuprim::ooc::inclusive_sum(in, out, -1); }, "n", "cuprim::ooc::inclusive_sum");
  expect_invalid([] { cuprim::ooc::exclusive_sum(in, out, -1); }, "n", "cuprim::ooc::exclusive_sum");
}

TEST(OocArgs, NullPointers) {
  expect_invalid([] { cuprim::ooc::reduce(static_cast<const int*>(nullptr), res, n, cuprim::plus{}, 0LL); }, "in",
                 "cuprim::ooc::reduce");
  expect_invalid([] { cuprim::ooc::reduce(in, static_cast<long long*>(nullptr), n, cuprim::plus{}, 0LL); }, "out",
                 "cuprim::ooc::reduce");
  expect_invalid([] { cuprim::ooc::reduce(in, static_cast<long long*>(nullptr), 0, cuprim::plus{}, 0LL); }, "out",
                 "cuprim::ooc::reduce");
  expect_invalid([] { cuprim::ooc::inclusive_scan(static_cast<const int*>(nullptr), out, n, cuprim::plus{}); }, "in",
                 "cuprim::ooc::inclusive_scan");
  expect_invalid([] { cuprim::ooc::exclusive_scan(in, static_cast<int*>(nullptr), n, cuprim::plus{}, 0); }, "out",
                 "cuprim::ooc::exclusive_scan");
  expect_invalid([] { cuprim::ooc::select_if(in, static_cast<int*>(nullptr), count, n, positive{}); }, "out",
                 "cuprim::ooc::select_if");
  expect_invalid([] { cuprim::ooc::select_if(in, out, static_cast<std::int64_t*>(nullptr), n, positive{}); },
                 "num_selected", "cuprim::ooc::select_if");
  expect_invalid([] { cuprim::ooc::histogram_even(in, n, static_cast<unsigned*>(nullptr), 16, 0, 100); },
                 "histogram", "cuprim::ooc::histogram_even");
}

TEST(OocArgs, Overlap) {
  expect_invalid([] { cuprim::ooc::reduce(in, reinterpret_cast<long long*>(const_cast<int*>(in) + 10), n,
                                          cuprim::plus{}, 0LL); },
                 "out", "cuprim::ooc::reduce");
  expect_invalid([] { cuprim::ooc::inclusive_scan(in, const_cast<int*>(in) + 1, n, cuprim::plus{}); }, "out",
                 "cuprim::ooc::inclusive_scan");
  expect_invalid([] { cuprim::ooc::select_if(in, const_cast<int*>(in) + 3, count, n, positive{}); }, "out",
                 "cuprim::ooc::select_if");
  expect_invalid([] { cuprim::ooc::select_if(in, out, reinterpret_cast<std::int64_t*>(out + 4), n, positive{}); },
                 "num_selected", "cuprim::ooc::select_if");
  expect_invalid([] { cuprim::ooc::histogram_even(in, n, reinterpret_cast<unsigned*>(const_cast<int*>(in)), 16, 0,
                                                  100); },
                 "histogram", "cuprim::ooc::histogram_even");
}

TEST(OocArgs, HistogramLevels) {
  expect_invalid([] { cuprim::ooc::histogram_even(in, n, hist, 0, 0, 100); }, "num_bins",
                 "cuprim::ooc::histogram_even");
  // The in-core histogram's level rules (device/histogram.cuh), under the out-of-core name.
  expect_invalid([] { cuprim::ooc::histogram_even_add(in, n, hist, 16, 100, 100); }, "lower",
                 "cuprim::ooc::histogram_even_add");
  expect_invalid([] { cuprim::ooc::histogram_even(in, n, hist, 16, 5.0, -1.0); }, "lower",
                 "cuprim::ooc::histogram_even");
  expect_invalid([] { cuprim::ooc::histogram_even(in, n, hist, 16, 0.0, std::numeric_limits<double>::infinity()); },
                 "upper", "cuprim::ooc::histogram_even");
  expect_invalid([] { cuprim::ooc::histogram_even(static_cast<const int*>(nullptr), n, hist, 16, 0, 100); },
                 "samples", "cuprim::ooc::histogram_even");
}

TEST(OocArgs, Options) {
  cuprim::ooc::options o;
  o.streams = 33;
  expect_invalid([&] { cuprim::ooc::reduce(in, res, n, cuprim::plus{}, 0LL, o); }, "options.streams",
                 "cuprim::ooc::reduce");
  o.streams = -1;
  expect_invalid([&] { cuprim::ooc::inclusive_scan(in, out, n, cuprim::plus{}, o); }, "options.streams",
                 "cuprim::ooc::inclusive_scan");
  o = {};
  o.host_threads = 65;
  expect_invalid([&] { cuprim::ooc::select_if(in, out, count, n, positive{}, o); }, "options.host_threads",
                 "cuprim::ooc::select_if");
  o = {};
  o.order = static_cast<cuprim::ooc::issue_order>(7);
  expect_invalid([&] { cuprim::ooc::histogram_even(in, n, hist, 4, 0, 10, o); }, "options.order",
                 "cuprim::ooc::histogram_even");
}

// The plan: pure arithmetic, no CUDA.
// The policy every plan below is made with: the table's row for sm_90 (no device needed).
constexpr cuprim::ooc::ooc_policy policy = cuprim::ooc::ooc_policy_for(90);

TEST(OocPlan, DefaultChunkFollowsTheMeasuredRates) {
  // R × t0 / f = 55e9 × 4e-6 / 0.0025 = 88 MB: the nearest power of two is 64 MiB.
  EXPECT_EQ(cuprim::ooc::default_chunk_bytes(policy), std::size_t(64) << 20);
  const auto p = cuprim::ooc::make_plan("f", std::int64_t(1) << 31, 4, 0, 0, 0, false, false, {},
                                        std::size_t(80) << 30, policy);
  EXPECT_EQ(p.chunk_elems, (std::int64_t(64) << 20) / 4);
  EXPECT_EQ(p.chunks, 128);
  EXPECT_EQ(p.streams, policy.streams_pinned);
  EXPECT_EQ(p.pinned_bytes, 0u);
  EXPECT_EQ(p.order, policy.order);
  EXPECT_EQ(policy.order, cuprim::ooc::issue_order::by_stage);
}

// The policy as the lab records it: every field by name.
TEST(OocPlan, PolicyDescribesItself) {
  EXPECT_EQ(cuprim::describe(policy),
            "h2d_gbps=55.000000 chunk_overhead_us=4.000000 overhead_fraction=0.002500 min_chunk_bytes=1048576 "
            "chunks_per_stream=4 streams_pinned=3 streams_staged=4 host_threads=8 order=by_stage");
  EXPECT_EQ(cuprim::to_json(policy).rfind("{\"policy\": \"ooc_policy\", \"h2d_gbps\": 55.0", 0), 0u);
}

TEST(OocPlan, DeviceCapShrinksTheChunk) {
  cuprim::ooc::options o;
  o.device_bytes = std::size_t(1) << 20;  // 1 MiB for 3 streams of int in + int out (+1 B workspace estimate)
  const auto p = cuprim::ooc::make_plan("f", 10'000'000, 4, 4, 0, 4096, false, true, o, std::size_t(80) << 30, policy);
  EXPECT_LE(p.device_bytes, o.device_bytes);
  EXPECT_GT(p.chunks, 100);
  EXPECT_EQ(p.chunks, (10'000'000 + p.chunk_elems - 1) / p.chunk_elems);
  EXPECT_TRUE(p.stage_out);
  EXPECT_EQ(p.streams, policy.streams_staged);
  EXPECT_EQ(p.pinned_bytes, std::size_t(p.streams) * std::size_t(p.chunk_elems) * 4);
}

TEST(OocPlan, SettableAndValidated) {
  cuprim::ooc::options o;
  o.chunk_bytes = 1000;  // 250 ints
  o.streams = 5;
  o.order = cuprim::ooc::issue_order::by_stage;
  const auto p = cuprim::ooc::make_plan("f", 1001, 4, 4, 0, 0, true, true, o, std::size_t(1) << 30, policy);
  EXPECT_EQ(p.chunk_elems, 250);
  EXPECT_EQ(p.chunks, 5);
  EXPECT_EQ(p.streams, 5);
  EXPECT_EQ(p.order, cuprim::ooc::issue_order::by_stage);
  o.device_bytes = 40;  // 8 bytes per stream: not even one element (4 + 4 + 1 bytes)
  expect_invalid([&] { (void)cuprim::ooc::make_plan("cuprim::ooc::reduce", 1001, 4, 4, 0, 0, true, true, o, 1u << 30,
                                                    policy); },
                 "options.device_bytes", "cuprim::ooc::reduce");
  // Fewer chunks than streams: only as many streams as chunks.
  o = {};
  o.chunk_bytes = 4000;
  EXPECT_EQ(cuprim::ooc::make_plan("f", 1500, 4, 0, 0, 0, false, false, o, 1u << 30, policy).streams, 2);
}

TEST(OocPlan, SmallInputsStillPipeline) {
  // 64 MiB of ints, default options: at least 4 chunks per stream (3 streams), so 12 chunks of 1398102 ints.
  const std::int64_t n = std::int64_t(16) << 20;
  const auto p = cuprim::ooc::make_plan("f", n, 4, 4, 0, 0, false, false, {}, std::size_t(80) << 30, policy);
  EXPECT_EQ(p.chunks, 12);
  EXPECT_EQ(p.chunk_elems, (n + 11) / 12);
  // Never under min_chunk_bytes: 1 MiB of ints is one chunk of 1 MiB.
  const auto q = cuprim::ooc::make_plan("f", 1 << 18, 4, 0, 0, 0, false, false, {}, std::size_t(80) << 30, policy);
  EXPECT_EQ(q.chunks, 1);
  EXPECT_EQ(q.streams, 1);
}

// The lanes: which stream runs which stage of which slot (the seed's amounts of concurrency).
TEST(OocLanes, StagesShareStreamsAsTheLayoutSays) {
  using namespace cuprim::ooc::detail;
  constexpr stage in_ = stage::in, compute = stage::compute, out_ = stage::out;
  // per_slot: a stream per slot, running all three stages of its item.
  EXPECT_EQ(lane_count(lane_layout::per_slot, 4), 4);
  for (int s = 0; s < 4; ++s)
    for (stage st : {in_, compute, out_}) EXPECT_EQ(lane_of(lane_layout::per_slot, st, s), s);
  // serial: one stream; two_way: copies both ways on one stream, compute on the other; three_way: one each.
  EXPECT_EQ(lane_count(lane_layout::serial, 3), 1);
  EXPECT_EQ(lane_count(lane_layout::two_way, 3), 2);
  EXPECT_EQ(lane_count(lane_layout::three_way, 3), 3);
  for (int s = 0; s < 3; ++s) {
    for (stage st : {in_, compute, out_}) EXPECT_EQ(lane_of(lane_layout::serial, st, s), 0);
    EXPECT_EQ(lane_of(lane_layout::two_way, in_, s), lane_of(lane_layout::two_way, out_, s));
    EXPECT_NE(lane_of(lane_layout::two_way, in_, s), lane_of(lane_layout::two_way, compute, s));
    EXPECT_EQ(lane_of(lane_layout::three_way, in_, s), 0);
    EXPECT_EQ(lane_of(lane_layout::three_way, compute, s), 1);
    EXPECT_EQ(lane_of(lane_layout::three_way, out_, s), 2);
  }
}

// The staging threads' copy: every byte, for sizes below and above the split threshold, odd sizes and offsets.
TEST(OocHostCopier, CopiesEveryByte) {
  for (int threads : {1, 3, 8}) {
    cuprim::ooc::detail::host_copier copier(threads);
    for (std::size_t bytes : {std::size_t(0), std::size_t(1), std::size_t(4097), (std::size_t(1) << 20) + 13,
                              (std::size_t(37) << 20) + 5}) {
      std::vector<unsigned char> src(bytes + 3), dst(bytes + 3, 0xEE);
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
      copier.copy(dst.data() + 1, src.data() + 2, bytes);
      bool ok = dst[0] == 0xEE && dst[bytes + 1] == 0xEE;
      for (std::size_t i = 0; i < bytes && ok; ++i) ok = dst[i + 1] == src[i + 2];
      EXPECT_TRUE(ok) << threads << " threads, " << bytes << " bytes";
    }
  }
}

// Strided blocks (the GEMM's tiles: runs of `width` bytes, a pitch apart): every run copied, the gaps untouched;
// small blocks by the caller, large ones split by runs.
TEST(OocHostCopier, CopiesEveryRunOfABlock) {
  using cuprim::ooc::detail::host_block;
  for (int threads : {1, 3, 8})
    for (std::size_t width : {std::size_t(1), std::size_t(40), std::size_t(65536) + 3})
      for (std::size_t runs : {std::size_t(1), std::size_t(2), std::size_t(7), std::size_t(33)}) {
        cuprim::ooc::detail::host_copier copier(threads);
        const std::size_t src_pitch = width + 24, dst_pitch = width + 8;
        std::vector<unsigned char> src(src_pitch * runs), dst(dst_pitch * runs, 0xEE);
        for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 2654435761u >> 11);
        copier.copy(host_block{dst.data(), dst_pitch}, host_block{src.data(), src_pitch}, width, runs);
        bool ok = true;
        for (std::size_t r = 0; r < runs && ok; ++r)
          for (std::size_t i = 0; i < dst_pitch && ok; ++i)
            ok = dst[r * dst_pitch + i] == (i < width ? src[r * src_pitch + i] : 0xEE);
        EXPECT_TRUE(ok) << threads << " threads, " << runs << " runs of " << width << " bytes";
      }
}

}  // namespace
