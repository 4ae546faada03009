// Argument validation of the stream-compaction entry points, and the workspace sizes. Every rule checked here is
// enforced before any CUDA call, so these tests run (label host) on a machine without a GPU: the pointers are
// host addresses or made-up ones and are only compared, never dereferenced. That nothing is written on the
// device when a rule is broken is checked by the GPU tests (device_select_api_test, BadArgumentsWriteNothing).
#include <cuprim/device/select.cuh>

#include <gtest/gtest.h>

#include "common/expect_invalid.hpp"

#include <cstdint>
#include <string>

namespace {

using cuprim_test::expect_invalid;
using cuprim_test::fake;

struct keep_positive {
  CUPRIM_HD bool operator()(int x) const { return x > 0; }
};
struct same {
  CUPRIM_HD bool operator()(int a, int b) const { return a == b; }
};

const int* in = fake<const int>(1);
int* out = fake<int>(2);
std::int64_t* count = fake<std::int64_t>(3);
int* counts = fake<int>(4);
const unsigned char* flags = fake<const unsigned char>(5);
constexpr std::int64_t n = 1000;
const cuprim::workspace big{fake<void>(6), std::size_t(1) << 30};

TEST(SelectArgs, NegativeCount) {
  for (std::int64_t bad : {std::int64_t(-1), INT64_MIN}) {
    expect_invalid([&] { cuprim::select_if(in, out, count, bad, keep_positive{}); }, "n", "cuprim::select_if");
    expect_invalid([&] { cuprim::select_if(in, out, count, bad, keep_positive{}, big); }, "n", "cuprim::select_if");
    expect_invalid([&] { cuprim::select_flagged(in, flags, out, count, bad); }, "n", "cuprim::select_flagged");
    expect_invalid([&] { cuprim::partition(in, out, count, bad, keep_positive{}); }, "n", "cuprim::partition");
    expect_invalid([&] { cuprim::unique(in, out, count, bad); }, "n", "cuprim::unique");
    expect_invalid([&] { cuprim::unique(in, out, count, bad, same{}, big); }, "n", "cuprim::unique");
    expect_invalid([&] { cuprim::run_length_encode(in, out, counts, count, bad); }, "n", "cuprim::run_length_encode");
    expect_invalid([&] { (void)cuprim::select_if_sync(in, out, bad, keep_positive{}); }, "n", "cuprim::select_if_sync");
  }
}

TEST(SelectArgs, NullArrays) {
  const int* null_in = nullptr;
  int* null_out = nullptr;
  std::int64_t* null_count = nullptr;
  expect_invalid([&] { cuprim::select_if(null_in, out, count, n, keep_positive{}); }, "in", "cuprim::select_if");
  expect_invalid([&] { cuprim::select_if(in, null_out, count, n, keep_positive{}, big); }, "out", "cuprim::select_if");
  expect_invalid([&] { cuprim::select_flagged(in, static_cast<const bool*>(nullptr), out, count, n); }, "flags",
                 "cuprim::select_flagged");
  expect_invalid([&] { cuprim::partition(in, null_out, count, n, keep_positive{}); }, "out", "cuprim::partition");
  expect_invalid([&] { cuprim::unique(null_in, out, count, n, big); }, "in", "cuprim::unique");
  expect_invalid([&] { cuprim::run_length_encode(in, null_out, counts, count, n); }, "unique_out",
                 "cuprim::run_length_encode");
  expect_invalid([&] { cuprim::run_length_encode(in, out, static_cast<int*>(nullptr), count, n); }, "counts_out",
                 "cuprim::run_length_encode");
  expect_invalid([&] { (void)cuprim::partition_sync(null_in, out, n, keep_positive{}); }, "in",
                 "cuprim::partition_sync");
  expect_invalid([&] { (void)cuprim::run_length_encode_sync(in, out, static_cast<int*>(nullptr), n); }, "counts_out",
                 "cuprim::run_length_encode_sync");
  // The count is written even for n = 0, so it must never be null; the arrays may be null when n = 0.
  for (std::int64_t m : {std::int64_t(0), n}) {
    expect_invalid([&] { cuprim::select_if(in, out, null_count, m, keep_positive{}); }, "num_selected",
                   "cuprim::select_if");
    expect_invalid([&] { cuprim::select_flagged(in, flags, out, null_count, m, big); }, "num_selected",
                   "cuprim::select_flagged");
    expect_invalid([&] { cuprim::partition(in, out, null_count, m, keep_positive{}, big); }, "num_selected",
                   "cuprim::partition");
    expect_invalid([&] { cuprim::unique(in, out, null_count, m); }, "num_selected", "cuprim::unique");
    expect_invalid([&] { cuprim::run_length_encode(in, out, counts, null_count, m, same{}); }, "num_runs",
                   "cuprim::run_length_encode");
  }
  expect_invalid([&] { cuprim::select_if(null_in, null_out, null_count, 0, keep_positive{}); }, "num_selected",
                 "cuprim::select_if");
}

TEST(SelectArgs, Overlaps) {
  // out inside the input, starting at its first, a middle and its last element.
  for (std::int64_t k : {std::int64_t(0), n / 2, n - 1}) {
    int* inside = const_cast<int*>(in) + k;
    expect_invalid([&] { cuprim::select_if(in, inside, count, n, keep_positive{}); }, "out", "cuprim::select_if");
    expect_invalid([&] { cuprim::partition(in, inside, count, n, keep_positive{}, big); }, "out", "cuprim::partition");
    expect_invalid([&] { cuprim::unique(in, inside, count, n); }, "out", "cuprim::unique");
    expect_invalid([&] { cuprim::run_length_encode(in, inside, counts, count, n); }, "unique_out",
                   "cuprim::run_length_encode");
    expect_invalid([&] { (void)cuprim::unique_sync(in, inside, n); }, "out", "cuprim::unique_sync");
  }
  // An output that starts before the input and reaches into it.
  expect_invalid([&] { cuprim::select_if(in, const_cast<int*>(in) - (n - 1), count, n, keep_positive{}); }, "out",
                 "cuprim::select_if");
  // out over the flags (in and flags may overlap each other).
  const auto* flags_in_out = reinterpret_cast<const unsigned char*>(out + 10);
  expect_invalid([&] { cuprim::select_flagged(in, flags_in_out, out, count, n); }, "out", "cuprim::select_flagged");
  // Run lengths over the input, over the values; the count inside an array.
  expect_invalid([&] { cuprim::run_length_encode(in, out, const_cast<int*>(in) + 3, count, n); }, "counts_out",
                 "cuprim::run_length_encode");
  expect_invalid([&] { cuprim::run_length_encode(in, out, out + n - 1, count, n); }, "counts_out",
                 "cuprim::run_length_encode");
  auto* count_in = reinterpret_cast<std::int64_t*>(const_cast<int*>(in) + 8);
  auto* count_out = reinterpret_cast<std::int64_t*>(out + n - 2);
  expect_invalid([&] { cuprim::select_if(in, out, count_in, n, keep_positive{}); }, "num_selected",
                 "cuprim::select_if");
  expect_invalid([&] { cuprim::partition(in, out, count_out, n, keep_positive{}); }, "num_selected",
                 "cuprim::partition");
  expect_invalid([&] { cuprim::run_length_encode(in, out, counts, reinterpret_cast<std::int64_t*>(counts + 5), n); },
                 "num_runs", "cuprim::run_length_encode");
  // In place is not allowed either.
  expect_invalid([&] { cuprim::select_if(in, const_cast<int*>(in), count, n, keep_positive{}); }, "out",
                 "cuprim::select_if");
}

TEST(SelectArgs, WorkspaceTooSmall) {
  const std::int64_t m = std::int64_t(1) << 20;
  const std::size_t need = cuprim::select_if_workspace_bytes<int>(m);
  ASSERT_GT(need, 0u);
  const cuprim::workspace small{fake<void>(6), need - 1};
  expect_invalid([&] { cuprim::select_if(in, out, count, m, keep_positive{}, small); }, "workspace",
                 "cuprim::select_if");
  expect_invalid([&] { cuprim::select_flagged(in, flags, out, count, m, cuprim::workspace{}); }, "workspace",
                 "cuprim::select_flagged");
  expect_invalid([&] { cuprim::partition(in, out, count, m, keep_positive{}, cuprim::workspace{nullptr, need}); },
                 "workspace", "cuprim::partition");
  expect_invalid([&] { cuprim::unique(in, out, count, m, small); }, "workspace", "cuprim::unique");
  expect_invalid([&] { cuprim::run_length_encode(in, out, counts, count, m, small); }, "workspace",
                 "cuprim::run_length_encode");
}

TEST(SelectArgs, FirstBrokenRuleIsReported) {
  // n, then in, then the flags / second output, then out, then the count.
  expect_invalid([] { cuprim::select_if(static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
                                        static_cast<std::int64_t*>(nullptr), -1, keep_positive{}); },
                 "n", "cuprim::select_if");
  expect_invalid([] { cuprim::select_if(static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
                                        static_cast<std::int64_t*>(nullptr), 5, keep_positive{}); },
                 "in", "cuprim::select_if");
  expect_invalid([] { cuprim::select_flagged(in, static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
                                             static_cast<std::int64_t*>(nullptr), 5); },
                 "flags", "cuprim::select_flagged");
}

TEST(SelectArgs, FlaggedIndex) {
  const auto* bool_flags = fake<const bool>(5);
  auto* idx = fake<std::int64_t>(2);
  auto* idx32 = fake<std::int32_t>(2);
  const char* fn = "cuprim::select_flagged_index";
  // n, then flags, then out, then the count; the arrays may be null when n = 0, the count never.
  for (std::int64_t bad : {std::int64_t(-1), INT64_MIN}) {
    expect_invalid([&] { cuprim::select_flagged_index(flags, idx, count, bad); }, "n", fn);
    expect_invalid([&] { cuprim::select_flagged_index(bool_flags, idx32, count, bad, big); }, "n", fn);
  }
  expect_invalid([&] { cuprim::select_flagged_index(static_cast<const float*>(nullptr), idx, count, n); }, "flags", fn);
  auto* null_idx = static_cast<std::int64_t*>(nullptr);
  expect_invalid([&] { cuprim::select_flagged_index(flags, null_idx, count, n, big); }, "out", fn);
  for (std::int64_t m : {std::int64_t(0), n})
    expect_invalid([&] { cuprim::select_flagged_index(flags, idx, static_cast<std::int64_t*>(nullptr), m); },
                   "num_selected", fn);
  expect_invalid([] { cuprim::select_flagged_index(static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
                                                   static_cast<std::int64_t*>(nullptr), 5); },
                 "flags", fn);
  expect_invalid([&] { (void)cuprim::select_flagged_index_sync(flags, null_idx, n); }, "out",
                 "cuprim::select_flagged_index_sync");
  // Indices of a type that cannot hold n - 1: 32-bit signed past 2^31 elements, unsigned past 2^32; n - 1 at the
  // type's maximum passes the rule (and stops at the workspace). Arrays far apart: n is large.
  const std::int64_t two31 = std::int64_t(1) << 31, two32 = std::int64_t(1) << 32;
  const auto* far_flags = fake<const unsigned char>(100);
  const cuprim::workspace none{};
  expect_invalid([&] { cuprim::select_flagged_index(far_flags, fake<int>(200), count, two31 + 1, big); }, "out", fn);
  expect_invalid([&] { cuprim::select_flagged_index(far_flags, fake<unsigned>(200), count, two32 + 1); }, "out", fn);
  expect_invalid([&] { (void)cuprim::select_flagged_index_sync(far_flags, fake<int>(200), two31 + 1); }, "out",
                 "cuprim::select_flagged_index_sync");
  expect_invalid([&] { cuprim::select_flagged_index(far_flags, fake<int>(200), count, two31, none); }, "workspace", fn);
  expect_invalid([&] { cuprim::select_flagged_index(far_flags, fake<unsigned>(200), count, two32, none); },
                 "workspace", fn);
  expect_invalid([&] { cuprim::select_flagged_index(far_flags, fake<std::int64_t>(200), count, two32 + 1, none); },
                 "workspace", fn);
  // Overlaps: out over the flags (from either side), the count inside out or the flags; in place is refused.
  const auto* flags_in_out = reinterpret_cast<const unsigned char*>(idx + 10);
  expect_invalid([&] { cuprim::select_flagged_index(flags_in_out, idx, count, n); }, "out", fn);
  auto* before_flags = reinterpret_cast<std::int64_t*>(const_cast<unsigned char*>(flags)) - 3;
  expect_invalid([&] { cuprim::select_flagged_index(flags, before_flags, count, n); }, "out", fn);
  expect_invalid([&] { cuprim::select_flagged_index(reinterpret_cast<const float*>(idx32), idx32, count, n); }, "out",
                 fn);
  expect_invalid([&] { cuprim::select_flagged_index(flags, idx, idx + n - 1, n); }, "num_selected", fn);
  auto* count_in_flags = reinterpret_cast<std::int64_t*>(const_cast<unsigned char*>(flags) + 8);
  expect_invalid([&] { cuprim::select_flagged_index(flags, idx, count_in_flags, n); }, "num_selected", fn);
  // out is n indices wide (8n bytes), not n flags: flags just short of its end still overlap it.
  const auto* flags_at_out_end = reinterpret_cast<const unsigned char*>(idx) + 7 * n;
  expect_invalid([&] { cuprim::select_flagged_index(flags_at_out_end, idx, count, n); }, "out", fn);
  // A workspace smaller than select_flagged_index_workspace_bytes.
  const std::int64_t m = std::int64_t(1) << 20;
  const std::size_t need = cuprim::select_flagged_index_workspace_bytes<unsigned char>(m);
  ASSERT_GT(need, 0u);
  const cuprim::workspace small{fake<void>(6), need - 1};
  expect_invalid([&] { cuprim::select_flagged_index(flags, idx, count, m, small); }, "workspace", fn);
  expect_invalid([&] { cuprim::select_flagged_index(flags, idx, count, m, cuprim::workspace{nullptr, need}); },
                 "workspace", fn);
}

TEST(SelectWorkspace, SizesAreMonotonicAndZeroForOneTile) {
  constexpr cuprim::select_pipeline_policy P = cuprim::select_policy_for<int>(cuprim::tuned_archs[0]);
  const std::int64_t tile = cuprim::detail::select_shape<P.classic, int>::tile;
  EXPECT_EQ(cuprim::select_if_workspace_bytes<int>(0), 0u);
  EXPECT_EQ(cuprim::select_if_workspace_bytes<int>(1), 0u);
  EXPECT_EQ(cuprim::select_if_workspace_bytes<int>(tile), 0u);
  EXPECT_GT(cuprim::select_if_workspace_bytes<int>(tile + 1), 0u);
  EXPECT_EQ(cuprim::partition_workspace_bytes<int>(tile), 0u);
  EXPECT_EQ(cuprim::run_length_encode_workspace_bytes<int>(tile), 0u);
  std::size_t last[5] = {};
  for (std::int64_t m = 0; m < 40 * tile; m += 97) {
    const std::size_t now[5] = {
        cuprim::select_if_workspace_bytes<int>(m), cuprim::select_flagged_workspace_bytes<int>(m),
        cuprim::partition_workspace_bytes<int>(m), cuprim::unique_workspace_bytes<int>(m),
        cuprim::run_length_encode_workspace_bytes<int>(m)};
    for (int k = 0; k < 5; ++k) {
      EXPECT_GE(now[k], last[k]) << "workspace " << k << " shrank at n = " << m;
      last[k] = now[k];
    }
  }
  // select_flagged_index tiles its flags as select_flagged tiles items of the flag type: the same workspace.
  for (std::int64_t m : {std::int64_t(0), tile, 40 * tile + 1, std::int64_t(1) << 28}) {
    EXPECT_EQ(cuprim::select_flagged_index_workspace_bytes<std::uint8_t>(m),
              cuprim::select_flagged_workspace_bytes<std::uint8_t>(m));
    EXPECT_EQ(cuprim::select_flagged_index_workspace_bytes<float>(m), cuprim::select_flagged_workspace_bytes<float>(m));
  }
  // Large n: a few bytes per tile (16 + 8 per tile for run_length_encode's (count, position) carry).
  const std::int64_t big_n = std::int64_t(1) << 34;
  EXPECT_LT(cuprim::select_if_workspace_bytes<std::uint8_t>(big_n), std::size_t(big_n) / 256);
  EXPECT_LT(cuprim::run_length_encode_workspace_bytes<double>(big_n), std::size_t(big_n) / 32);
  // More than 2^31 - 1 tiles is refused before anything runs.
  const std::int64_t too_many = (std::int64_t(1) << 31) * tile;
  expect_invalid([&] { cuprim::select_if(in, out, count, too_many, keep_positive{}, big); }, "n", "cuprim::select_if");
}

}  // namespace
