// Argument validation of the reduction entry points. Every rule checked here is enforced before any CUDA call,
// so these tests run (label host) on a machine without a GPU: the pointers are host addresses and are only
// compared, never dereferenced. That nothing is written on the device when a rule is broken is checked by the
// GPU tests (device_reduce_api_test, which poisons outputs first), as are the workspace rules, whose required
// size depends on the device.
#include <cuprim/device/reduce.cuh>
#include "ladder/reduce.cuh"

#include <gtest/gtest.h>

#include "common/expect_invalid.hpp"

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>

namespace {

using cuprim_test::expect_invalid_from;

// Host arrays standing in for device pointers: validation compares addresses only.
struct arrays {
  int in[64] = {};
  int out[4] = {};
  float fin[64] = {};
  cuprim::arg_result<float> arg_out[2] = {};
};

TEST(ReduceArgs, NullInputWithElements) {
  arrays a;
  const int* null_in = nullptr;
  expect_invalid_from([&] { cuprim::reduce(null_in, a.out, 5, cuprim::plus{}, 0); }, "in");
  expect_invalid_from([&] { cuprim::reduce(null_in, a.out, 5, cuprim::plus{}, 0, cuprim::workspace{a.out, 16}); },
                      "in");
  expect_invalid_from([&] { cuprim::transform_reduce(null_in, a.out, 1, cuprim::identity{}, cuprim::plus{}, 0); },
                      "in");
  expect_invalid_from([&] { cuprim::sum(null_in, a.out, 3); }, "in");
  expect_invalid_from([&] { cuprim::min(null_in, a.out, 3); }, "in");
  expect_invalid_from([&] { cuprim::max(null_in, a.out, 3); }, "in");
  const float* null_f = nullptr;
  expect_invalid_from([&] { cuprim::argmin(null_f, a.arg_out, 3); }, "in", "cuprim::argmin");
  expect_invalid_from([&] { cuprim::argmax(null_f, a.arg_out, 3); }, "in", "cuprim::argmax");
  expect_invalid_from(
      [&] { cuprim::ladder::reduce(cuprim::ladder::reduce_variant::warp_shuffle, null_in, a.out, 7, cuprim::plus{}, 0); },
      "in", "cuprim::ladder::reduce");
}

TEST(ReduceArgs, NullOutput) {
  arrays a;
  int* null_out = nullptr;
  expect_invalid_from([&] { cuprim::reduce(a.in, null_out, 5, cuprim::plus{}, 0); }, "out");
  // n = 0 still writes init to *out, so out must be valid then too (and in may be null).
  expect_invalid_from([&] { cuprim::reduce(static_cast<const int*>(nullptr), null_out, 0, cuprim::plus{}, 0); }, "out");
  expect_invalid_from([&] { cuprim::reduce(a.in, null_out, 5, cuprim::plus{}, 0, cuprim::workspace{a.out, 16}); },
                      "out");
  expect_invalid_from([&] { cuprim::transform_reduce(a.in, null_out, 5, cuprim::identity{}, cuprim::maximum{}, 0); },
                      "out");
  expect_invalid_from([&] { cuprim::sum(a.in, null_out, 5); }, "out");
  expect_invalid_from([&] { cuprim::min(a.in, null_out, 5); }, "out");
  expect_invalid_from([&] { cuprim::max(a.in, null_out, 5); }, "out");
  cuprim::arg_result<float>* null_arg = nullptr;
  expect_invalid_from([&] { cuprim::argmin(a.fin, null_arg, 5); }, "out", "cuprim::argmin");
  expect_invalid_from([&] { cuprim::argmax(a.fin, null_arg, 5); }, "out", "cuprim::argmax");
  for (auto v : cuprim::ladder::reduce_variants)
    expect_invalid_from([&] { cuprim::ladder::reduce(v, a.in, null_out, 5, cuprim::plus{}, 0); }, "out",
                        "cuprim::ladder::reduce");
}

TEST(ReduceArgs, NegativeCount) {
  arrays a;
  for (std::int64_t n : {std::int64_t(-1), std::int64_t(-1000), INT64_MIN}) {
    expect_invalid_from([&] { cuprim::reduce(a.in, a.out, n, cuprim::plus{}, 0); }, "n");
    expect_invalid_from([&] { cuprim::reduce(a.in, a.out, n, cuprim::plus{}, 0, cuprim::workspace{a.out, 16}); }, "n");
    expect_invalid_from([&] { cuprim::transform_reduce(a.in, a.out, n, cuprim::identity{}, cuprim::plus{}, 0); }, "n");
    expect_invalid_from([&] { cuprim::sum(a.in, a.out, n); }, "n");
    expect_invalid_from([&] { cuprim::argmin(a.fin, a.arg_out, n); }, "n", "cuprim::argmin");
    expect_invalid_from([&] { cuprim::argmax(a.fin, a.arg_out, n); }, "n", "cuprim::argmax");
    expect_invalid_from(
        [&] { cuprim::ladder::reduce(cuprim::ladder::reduce_variant::single_pass, a.in, a.out, n, cuprim::plus{}, 0); }, "n",
        "cuprim::ladder::reduce");
  }
}

TEST(ReduceArgs, OutputOverlappingInput) {
  arrays a;
  // out inside [in, in + n): first element, middle, last element.
  for (int k : {0, 31, 63}) {
    expect_invalid_from([&] { cuprim::reduce(a.in, a.in + k, 64, cuprim::plus{}, 0); }, "out");
    expect_invalid_from([&] { cuprim::reduce(a.in, a.in + k, 64, cuprim::plus{}, 0, cuprim::workspace{a.out, 16}); },
                        "out");
    expect_invalid_from([&] { cuprim::sum(a.in, a.in + k, 64); }, "out");
    expect_invalid_from([&] { cuprim::ladder::reduce(cuprim::ladder::reduce_variant::interleaved_divergent, a.in, a.in + k, 64,
                                                    cuprim::plus{}, 0); },
                        "out", "cuprim::ladder::reduce");
  }
  // A wider output that straddles the end of the input overlaps its last bytes.
  auto* straddle = reinterpret_cast<double*>(reinterpret_cast<char*>(a.in + 63));
  expect_invalid_from([&] { cuprim::reduce(a.in, straddle, 64, cuprim::plus{}, 0.0); }, "out");
  // An output starting before the input and reaching into it.
  int padded[72] = {};
  const int* in = padded + 8;
  auto* before = reinterpret_cast<double*>(reinterpret_cast<char*>(padded + 8) - 4);
  expect_invalid_from([&] { cuprim::reduce(in, before, 64, cuprim::plus{}, 0.0); }, "out");
  // An output that reaches a single byte into the input overlaps it.
  auto* one_byte_in = reinterpret_cast<std::int64_t*>(reinterpret_cast<char*>(padded + 6) + 1);
  expect_invalid_from([&] { cuprim::reduce(in, one_byte_in, 64, cuprim::plus{}, std::int64_t{0}); }, "out");
  // argmin's 16-byte result overlapping the tail of the input.
  auto* arg_overlap = reinterpret_cast<cuprim::arg_result<float>*>(a.fin + 60);
  expect_invalid_from([&] { cuprim::argmin(a.fin, arg_overlap, 64); }, "out", "cuprim::argmin");
  expect_invalid_from([&] { cuprim::argmax(a.fin, arg_overlap, 64); }, "out", "cuprim::argmax");
}

TEST(ReduceArgs, InvalidLadderVariant) {
  arrays a;
  const int count = static_cast<int>(cuprim::ladder::reduce_variants.size());
  for (int bad : {count, count + 1, 1000, -1}) {
    const auto v = static_cast<cuprim::ladder::reduce_variant>(bad);
    expect_invalid_from([&] { cuprim::ladder::reduce(v, a.in, a.out, 64, cuprim::plus{}, 0); }, "variant",
                        "cuprim::ladder::reduce");
  }
}

// Rules are checked in a fixed order: a call that breaks several names the first of n, in, out.
TEST(ReduceArgs, FirstBrokenRuleIsReported) {
  expect_invalid_from([] { cuprim::reduce(static_cast<const int*>(nullptr), static_cast<int*>(nullptr), -1,
                                     cuprim::plus{}, 0); },
                      "n");
  expect_invalid_from([] { cuprim::reduce(static_cast<const int*>(nullptr), static_cast<int*>(nullptr), 4,
                                     cuprim::plus{}, 0); },
                      "in");
}

TEST(ReduceLadder, VariantsAreOrderedAndNamedDistinctly) {
  // The seed's eight steps, vector loads, and the one-launch finishes (cuprim::reduce is one of them).
  static_assert(cuprim::ladder::reduce_variants.size() >= 10);
  static_assert(cuprim::ladder::reduce_variants.front() == cuprim::ladder::reduce_variant::interleaved_divergent);
  static_assert(cuprim::ladder::to_string(cuprim::ladder::reduce_variant::warp_shuffle) == "warp_shuffle");
  static_assert(cuprim::ladder::to_string(cuprim::ladder::reduce_variant::single_pass) == "single_pass");
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < cuprim::ladder::reduce_variants.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(cuprim::ladder::reduce_variants[i]), i) << "reduce_variants is not in enum order";
    const std::string_view name = cuprim::ladder::to_string(cuprim::ladder::reduce_variants[i]);
    EXPECT_FALSE(name.empty());
    names.insert(name);
  }
  EXPECT_EQ(names.size(), cuprim::ladder::reduce_variants.size()) << "two rungs share a name";
}

TEST(ReduceWorkspace, ZeroForEmptyInputWithoutADevice) {
  // n <= 0 needs no workspace and no device query.
  EXPECT_EQ(cuprim::reduce_workspace_bytes<float>(0), 0u);
  EXPECT_EQ(cuprim::reduce_workspace_bytes<double>(-5), 0u);
}

}  // namespace
