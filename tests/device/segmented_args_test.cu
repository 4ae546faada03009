// Argument validation of the segmented entry points (segmented_reduce, the by-key and segmented scans). Every
// rule checked here is enforced before any CUDA call, so these tests run (label host) on a machine without a GPU:
// the pointers are host addresses, only compared, never dereferenced. That nothing is written on the device when
// a rule is broken, and the segmented reduction's workspace rule (its size depends on the device), are checked
// by device_segmented_api_test.
#include <cuprim/device/segmented_reduce.cuh>
#include <cuprim/device/segmented_scan.cuh>

#include <gtest/gtest.h>

#include "common/expect_invalid.hpp"

#include <cstdint>
#include <string>

namespace {

using cuprim_test::expect_invalid;

struct arrays {
  float in[64] = {};
  float out[64] = {};
  int keys[64] = {};
  unsigned char flags[64] = {};
  int offsets[65] = {};
  std::int64_t offsets64[65] = {};
};

constexpr const char* reduce_fn = "cuprim::segmented_reduce";
constexpr const char* sum_fn = "cuprim::segmented_sum";
constexpr const char* transform_fn = "cuprim::segmented_transform_reduce";

struct twice {
  CUPRIM_HD float operator()(float x) const { return 2 * x; }
};

TEST(SegmentedReduceArgs, NegativeSegmentCount) {
  arrays a;
  expect_invalid([&] { cuprim::segmented_reduce(a.in, a.out, a.offsets, -1, cuprim::plus{}, 0.f); }, "num_segments",
                 reduce_fn);
  expect_invalid([&] { cuprim::segmented_sum(a.in, a.out, a.offsets64, -5); }, "num_segments", sum_fn);
}

// Every entry point reports its own name, segmented_transform_reduce included (it once reported itself as
// segmented_reduce).
TEST(SegmentedReduceArgs, EachEntryPointNamesItself) {
  arrays a;
  float* null_out = nullptr;
  const cuprim::workspace big{a.out, std::size_t(1) << 30};
  expect_invalid([&] { cuprim::segmented_transform_reduce(a.in, null_out, a.offsets, 4, twice{}, cuprim::plus{}, 0.f); },
                 "out", transform_fn);
  expect_invalid([&] {
    cuprim::segmented_transform_reduce(a.in, a.out, a.offsets, -2, twice{}, cuprim::plus{}, 0.f, big);
  }, "num_segments", transform_fn);
  expect_invalid([&] { cuprim::segmented_reduce(a.in, null_out, a.offsets, 4, cuprim::plus{}, 0.f, big); }, "out",
                 reduce_fn);
  expect_invalid([&] { cuprim::segmented_sum(a.in, null_out, a.offsets, 4); }, "out", sum_fn);
}

TEST(SegmentedReduceArgs, NullPointers) {
  arrays a;
  const float* null_in = nullptr;
  float* null_out = nullptr;
  const int* null_offsets = nullptr;
  expect_invalid([&] { cuprim::segmented_reduce(a.in, null_out, a.offsets, 4, cuprim::plus{}, 0.f); }, "out", reduce_fn);
  expect_invalid([&] { cuprim::segmented_reduce(a.in, a.out, null_offsets, 4, cuprim::plus{}, 0.f); }, "offsets",
                 reduce_fn);
  // A null `in` is valid (every segment may be empty; the element count lives on the device): the next rule
  // broken is reported instead.
  expect_invalid([&] { cuprim::segmented_reduce(null_in, null_out, a.offsets, 4, cuprim::plus{}, 0.f); }, "out",
                 reduce_fn);
  expect_invalid([&] { cuprim::segmented_sum(a.in, null_out, a.offsets, 2); }, "out", sum_fn);
}

TEST(SegmentedReduceArgs, OutputOverlappingOffsets) {
  arrays a;
  auto* out_over_offsets = reinterpret_cast<int*>(a.offsets) + 3;
  expect_invalid([&] { cuprim::segmented_reduce(a.keys, out_over_offsets, a.offsets, 8, cuprim::plus{}, 0); }, "out",
                 reduce_fn);
}

TEST(SegmentedReduceArgs, WorkspaceBytesForZeroSegments) {
  EXPECT_EQ(cuprim::segmented_reduce_workspace_bytes<float>(0), 0u);  // no device needed
}

TEST(SegmentedScanArgs, NegativeSizes) {
  arrays a;
  expect_invalid([&] { cuprim::inclusive_scan_by_key(a.keys, a.in, a.out, -1, cuprim::plus{}); }, "n",
                 "cuprim::inclusive_scan_by_key");
  expect_invalid([&] { cuprim::exclusive_scan_by_key(a.keys, a.in, a.out, -3, cuprim::plus{}, 0.f); }, "n",
                 "cuprim::exclusive_scan_by_key");
  expect_invalid([&] { cuprim::inclusive_segmented_scan(a.in, a.flags, a.out, -1, cuprim::plus{}); }, "n",
                 "cuprim::inclusive_segmented_scan");
  expect_invalid([&] { cuprim::inclusive_segmented_scan(a.in, a.offsets, -1, a.out, 4, cuprim::plus{}); },
                 "num_segments", "cuprim::inclusive_segmented_scan");
  expect_invalid([&] { cuprim::exclusive_segmented_scan(a.in, a.offsets, 2, a.out, -4, cuprim::plus{}, 0.f); }, "n",
                 "cuprim::exclusive_segmented_scan");
  // Segments must cover [0, n): none cannot cover n > 0 elements.
  expect_invalid([&] { cuprim::inclusive_segmented_scan(a.in, a.offsets, 0, a.out, 4, cuprim::plus{}); },
                 "num_segments", "cuprim::inclusive_segmented_scan");
}

TEST(SegmentedScanArgs, NullPointers) {
  arrays a;
  const int* null_keys = nullptr;
  const float* null_in = nullptr;
  float* null_out = nullptr;
  const unsigned char* null_flags = nullptr;
  const int* null_offsets = nullptr;
  expect_invalid([&] { cuprim::inclusive_scan_by_key(null_keys, a.in, a.out, 5, cuprim::plus{}); }, "keys",
                 "cuprim::inclusive_scan_by_key");
  expect_invalid([&] { cuprim::inclusive_scan_by_key(a.keys, null_in, a.out, 5, cuprim::plus{}); }, "in",
                 "cuprim::inclusive_scan_by_key");
  expect_invalid([&] { cuprim::exclusive_scan_by_key(a.keys, a.in, null_out, 5, cuprim::plus{}, 0.f); }, "out",
                 "cuprim::exclusive_scan_by_key");
  expect_invalid([&] { cuprim::inclusive_segmented_scan(a.in, null_flags, a.out, 5, cuprim::plus{}); }, "head_flags",
                 "cuprim::inclusive_segmented_scan");
  expect_invalid([&] { cuprim::exclusive_segmented_scan(null_in, a.flags, a.out, 5, cuprim::plus{}, 1.f); }, "in",
                 "cuprim::exclusive_segmented_scan");
  expect_invalid([&] { cuprim::inclusive_segmented_scan(a.in, null_offsets, 3, a.out, 5, cuprim::plus{}); }, "offsets",
                 "cuprim::inclusive_segmented_scan");
}

TEST(SegmentedScanArgs, Overlaps) {
  arrays a;
  // out partially overlapping in (in place, out == in, is allowed).
  expect_invalid([&] { cuprim::inclusive_scan_by_key(a.keys, a.in, a.in + 1, 8, cuprim::plus{}); }, "out",
                 "cuprim::inclusive_scan_by_key");
  // out overlapping the keys, flags or offsets.
  auto* out_on_keys = reinterpret_cast<float*>(a.keys) + 2;
  expect_invalid([&] { cuprim::exclusive_scan_by_key(a.keys, a.in, out_on_keys, 8, cuprim::plus{}, 0.f); }, "out",
                 "cuprim::exclusive_scan_by_key");
  auto* out_on_flags = reinterpret_cast<float*>(a.flags);
  expect_invalid([&] { cuprim::inclusive_segmented_scan(a.in, a.flags, out_on_flags, 8, cuprim::plus{}); }, "out",
                 "cuprim::inclusive_segmented_scan");
  auto* out_on_offsets = reinterpret_cast<float*>(a.offsets) + 1;
  expect_invalid([&] { cuprim::inclusive_segmented_scan(a.in, a.offsets, 4, out_on_offsets, 8, cuprim::plus{}); },
                 "out", "cuprim::inclusive_segmented_scan");
}

TEST(SegmentedScanArgs, WorkspaceTooSmall) {
  arrays a;
  const std::int64_t n = 40;
  const std::size_t need = cuprim::segmented_scan_workspace_bytes<float>(n);
  ASSERT_GT(need, 0u);
  const cuprim::workspace small{a.out, need - 1};
  expect_invalid([&] { cuprim::inclusive_scan_by_key(a.keys, a.in, a.out, n, cuprim::plus{}, small); }, "workspace",
                 "cuprim::inclusive_scan_by_key");
  expect_invalid([&] { cuprim::exclusive_segmented_scan(a.in, a.flags, a.out, n, cuprim::plus{}, 0.f, small); },
                 "workspace", "cuprim::exclusive_segmented_scan");
  expect_invalid([&] { cuprim::inclusive_segmented_scan(a.in, a.offsets, 3, a.out, n, cuprim::plus{}, small); },
                 "workspace", "cuprim::inclusive_segmented_scan");
  const cuprim::workspace null_data{nullptr, need};
  expect_invalid([&] { cuprim::inclusive_segmented_scan(a.in, a.flags, a.out, n, cuprim::plus{}, null_data); },
                 "workspace", "cuprim::inclusive_segmented_scan");
}

TEST(SegmentedScanArgs, WorkspaceBytesAreMonotonic) {
  std::size_t prev = 0;
  for (std::int64_t n = 0; n < (std::int64_t(1) << 22); n = n * 3 + 1) {
    const std::size_t b = cuprim::segmented_scan_workspace_bytes<float>(n);
    EXPECT_GE(b, prev) << "n = " << n;
    prev = b;
  }
  EXPECT_EQ(cuprim::segmented_scan_workspace_bytes<float>(0), 0u);
}

}  // namespace
