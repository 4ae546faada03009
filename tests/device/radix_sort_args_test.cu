// Argument validation of the radix sort entry points and the workspace sizes. Every rule is enforced before any
// CUDA call, so these tests run (label host) without a GPU: the pointers are made-up addresses, only compared. The
// workspace rules take explicit policies (the sm_90 rows), whose sizes need no device; the tuned sizes are the GPU
// tests' (device_radix_sort_api_test).
#include "common/expect_invalid.hpp"
#include <cuprim/device/radix_sort.cuh>
#include <cuprim/device/segmented_sort.cuh>
#include <cuprim/host/radix_sort.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace {

using cuprim_test::expect_invalid;

using cuprim_test::fake;

using K = std::uint32_t;
const K* kin = fake<const K>(1);
K* kout = fake<K>(2);
const float* vin = fake<const float>(3);
float* vout = fake<float>(4);
constexpr std::int64_t n = 100000;
const cuprim::workspace big{fake<void>(8), std::size_t(1) << 30};
const cuprim::workspace tiny{fake<void>(8), 16};
constexpr cuprim::radix_sort_policy keys_policy = cuprim::radix_sort_policy_for(90, sizeof(K), 0);
constexpr cuprim::radix_sort_policy pairs_policy = cuprim::radix_sort_policy_for(90, sizeof(K), sizeof(float));
const char* keys_fn = "cuprim::radix_sort_keys";
const char* pairs_fn = "cuprim::radix_sort_pairs";

TEST(RadixSortArgs, BitRange) {
  using O = cuprim::radix_sort_options;
  expect_invalid([] { cuprim::radix_sort_keys(kin, kout, n, O{.begin_bit = 8, .end_bit = 8}); }, "begin_bit", keys_fn);
  expect_invalid([] { cuprim::radix_sort_keys(kin, kout, n, O{.begin_bit = 9, .end_bit = 8}); }, "begin_bit", keys_fn);
  expect_invalid([] { cuprim::radix_sort_keys(kin, kout, n, O{.begin_bit = -1}); }, "begin_bit", keys_fn);
  expect_invalid([] { cuprim::radix_sort_keys(kin, kout, n, O{.end_bit = 33}); }, "end_bit", keys_fn);
  expect_invalid([] { cuprim::radix_sort_keys(kin, kout, n, O{.end_bit = -2}); }, "end_bit", keys_fn);
  expect_invalid([] { cuprim::radix_sort_keys(kin, kout, 0, O{.begin_bit = 32}); }, "begin_bit", keys_fn);
  expect_invalid(
      [] { cuprim::radix_sort_keys(fake<const std::uint8_t>(1), fake<std::uint8_t>(2), n, O{.end_bit = 9}); },
      "end_bit", keys_fn);
  expect_invalid([] { cuprim::radix_sort_keys(fake<const __half>(1), fake<__half>(2), n, O{.end_bit = 17}); },
                 "end_bit", keys_fn);
  expect_invalid([] { cuprim::radix_sort_pairs(kin, kout, vin, vout, n, big, O{.begin_bit = 4, .end_bit = 2}); },
                 "begin_bit", pairs_fn);
  expect_invalid([] { cuprim::argsort(kin, fake<std::int64_t>(2), n, O{.end_bit = 40}); }, "end_bit",
                 "cuprim::argsort");
}

TEST(RadixSortArgs, CountsAndNulls) {
  expect_invalid([] { cuprim::radix_sort_keys(kin, kout, -1); }, "n", keys_fn);
  expect_invalid([] { cuprim::radix_sort_keys(static_cast<const K*>(nullptr), kout, n); }, "keys_in", keys_fn);
  expect_invalid([] { cuprim::radix_sort_keys(kin, static_cast<K*>(nullptr), n, big); }, "keys_out", keys_fn);
  expect_invalid([] { cuprim::radix_sort_pairs(kin, kout, static_cast<const float*>(nullptr), vout, n); }, "values_in",
                 pairs_fn);
  expect_invalid([] { cuprim::argsort(kin, fake<std::int32_t>(2), std::int64_t(1) << 32); }, "n", "cuprim::argsort");
}

TEST(RadixSortArgs, Overlaps) {
  expect_invalid([] { cuprim::radix_sort_keys(kin, const_cast<K*>(kin), n); }, "keys_out", keys_fn);
  expect_invalid([] { cuprim::radix_sort_keys(kin, const_cast<K*>(kin) + 10, n, big); }, "keys_out", keys_fn);
  expect_invalid([] { cuprim::radix_sort_pairs(kin, kout, reinterpret_cast<const float*>(kout), vout, n); },
                 "keys_out", pairs_fn);
  expect_invalid([] { cuprim::radix_sort_pairs(kin, kout, vin, reinterpret_cast<float*>(kout) + 5, n); },
                 "values_out", pairs_fn);
  expect_invalid([] { cuprim::radix_sort_pairs(kin, kout, vin, const_cast<float*>(vin), n, big); }, "values_out",
                 pairs_fn);
  cuprim::double_buffer<K> db(kout, kout + 50);
  expect_invalid([&] { cuprim::radix_sort_keys(db, n); }, "keys.alternate()", keys_fn);
  cuprim::double_buffer<K> ok(kout, fake<K>(5));
  cuprim::double_buffer<float> vdb(reinterpret_cast<float*>(fake<K>(5)), vout);
  expect_invalid([&] { cuprim::radix_sort_pairs(ok, vdb, n); }, "values.current()", pairs_fn);
  ok.selector = 2;
  expect_invalid([&] { cuprim::radix_sort_keys(ok, n); }, "keys", keys_fn);
  expect_invalid([] { cuprim::argsort(kin, reinterpret_cast<std::int32_t*>(const_cast<K*>(kin)), n); }, "indices",
                 "cuprim::argsort");
}

TEST(RadixSortArgs, InputsMayAlias) {
  // Arrays the call only reads may alias each other (the keys as their own values): such a call gets past the
  // overlap rule to the workspace's, which this one breaks.
  const float* keys_as_values = reinterpret_cast<const float*>(kin);
  expect_invalid([&] { cuprim::radix_sort_pairs<pairs_policy>(kin, kout, keys_as_values, vout, n, tiny); },
                 "workspace", pairs_fn);
  expect_invalid([&] { cuprim::radix_sort_pairs<pairs_policy>(kin, kout, keys_as_values + 7, vout, n, tiny); },
                 "workspace", pairs_fn);
  // An output may overlap nothing, inputs included.
  float* values_over_keys = reinterpret_cast<float*>(const_cast<K*>(kin));
  expect_invalid([&] { cuprim::radix_sort_pairs<pairs_policy>(kin, kout, vin, values_over_keys, n, tiny); },
                 "values_out", pairs_fn);
}

// User-struct keys through a key decomposer: the bit range is over the members' bits (here 16 + 32 = 48).
struct cell_key {
  std::int16_t cell;
  float energy;
};
struct by_cell_energy {
  CUPRIM_HD cuprim::key_members_t<std::int16_t, float> operator()(const cell_key& k) const {
    return cuprim::key_members(k.cell, k.energy);
  }
};
static_assert(cuprim::key_members_t<std::int16_t, float>::bits == 48);
static_assert(cuprim::detail::key_decomposer<by_cell_energy, cell_key>);
static_assert(!cuprim::detail::key_decomposer<cuprim::radix_sort_options, cell_key>);

TEST(RadixSortHost, KeyMembersBits) {
  // Most significant member first; each member in its own order (signed: sign bit flipped; float: sign clear ->
  // top bit set, sign set -> all inverted); descending inverts each member except NaN (all ones, last).
  EXPECT_EQ((cuprim::key_members(std::int16_t(-1), 1.0f).fold<std::uint64_t>(0, false)), 0x7FFFBF800000ull);
  EXPECT_EQ((cuprim::key_members(std::int16_t(-1), 1.0f).fold<std::uint64_t>(0, true)), 0x8000407FFFFFull);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ((cuprim::key_members(std::uint8_t(3), nan).fold<std::uint64_t>(0, true)), 0xFCFFFFFFFFull);
  EXPECT_EQ((cuprim::key_members(std::uint8_t(0x12), std::int16_t(0x34)).fold<std::uint32_t>(0, false)), 0x128034u);
  EXPECT_EQ((cuprim::key_members(-0.0f).fold<std::uint32_t>(0, false)), 0x7FFFFFFFu);
  EXPECT_EQ((cuprim::key_members(std::uint64_t(5)).fold<std::uint64_t>(0, false)), 5ull);
  static_assert(cuprim::key_members_t<std::uint8_t, std::int16_t>::bits == 24);
}

TEST(RadixSortArgs, Decomposer) {
  const cell_key* cin = fake<const cell_key>(1);
  cell_key* cout = fake<cell_key>(2);
  const by_cell_energy dec;
  expect_invalid([&] { cuprim::radix_sort_keys(cin, cout, -1, dec); }, "n", keys_fn);
  expect_invalid([&] { cuprim::radix_sort_keys(cin, cout, n, dec, {.end_bit = 49}); }, "end_bit", keys_fn);
  expect_invalid([&] { cuprim::radix_sort_keys(cin, cout, n, dec, {.begin_bit = 48}); }, "begin_bit", keys_fn);
  expect_invalid([&] { cuprim::radix_sort_keys(cin, cout, n, dec, {.begin_bit = -1}); }, "begin_bit", keys_fn);
  expect_invalid([&] { cuprim::radix_sort_keys(cin, const_cast<cell_key*>(cin) + 3, n, dec); }, "keys_out",
                 keys_fn);
  expect_invalid([&] { cuprim::radix_sort_keys(static_cast<const cell_key*>(nullptr), cout, n, dec); }, "keys_in",
                 keys_fn);
  expect_invalid([&] { cuprim::radix_sort_pairs(cin, cout, vin, reinterpret_cast<float*>(cout) + 1, n, dec); },
                 "values_out", pairs_fn);
}

TEST(RadixSortArgs, Workspace) {
  const std::size_t need = cuprim::radix_sort_keys_workspace_bytes<K, keys_policy>(n);
  EXPECT_GT(need, n * sizeof(K));
  expect_invalid(
      [&] { cuprim::radix_sort_keys<keys_policy>(kin, kout, n, cuprim::workspace{fake<void>(8), need - 1}); },
      "workspace", keys_fn);
  expect_invalid([&] { cuprim::radix_sort_keys<keys_policy>(kin, kout, n, cuprim::workspace{nullptr, need}); },
                 "workspace", keys_fn);
  // Monotonic in n, zero for inputs one block sorts, the double-buffer form never larger.
  std::size_t last = 0;
  for (std::int64_t m : {0, 1, 100, 4096, 4097, 65536, 65537, 100000, 1 << 20, 1 << 28, (1 << 30) + 5}) {
    const std::size_t b = cuprim::radix_sort_pairs_workspace_bytes<K, float, pairs_policy>(m);
    EXPECT_GE(b, last) << m;
    EXPECT_LE((cuprim::radix_sort_pairs_workspace_bytes<K, float, pairs_policy>(m, true)), b);
    last = b;
  }
  EXPECT_EQ((cuprim::radix_sort_keys_workspace_bytes<K, keys_policy>(4096)), 0u);
  EXPECT_EQ((cuprim::radix_sort_keys_workspace_bytes<K, keys_policy>(65536)), 0u);  // the cluster sort: on chip
  EXPECT_GT((cuprim::radix_sort_keys_workspace_bytes<K, keys_policy>(65537)), 0u);
  // n <= 0 needs no workspace and no device query, under the tuned policy too.
  EXPECT_EQ(cuprim::radix_sort_keys_workspace_bytes<K>(0), 0u);
  EXPECT_EQ((cuprim::radix_sort_pairs_workspace_bytes<K, float>(-3)), 0u);
  EXPECT_EQ((cuprim::argsort_workspace_bytes<K, std::int32_t>(0)), 0u);
}

TEST(RadixSortArgs, PolicyRows) {
  // Every size class's row obeys the policy's rules, and its shapes are those measured (docs/tuning/radix_sort.md).
  using cuprim::radix_sort_policy_for;
  static_assert(cuprim::detail::radix_sort_policy_valid<radix_sort_policy_for(90, 4, 0)>() &&
                cuprim::detail::radix_sort_policy_valid<radix_sort_policy_for(90, 8, 0)>() &&
                cuprim::detail::radix_sort_policy_valid<radix_sort_policy_for(90, 4, 4)>() &&
                cuprim::detail::radix_sort_policy_valid<radix_sort_policy_for(90, 8, 8)>());
  static_assert(radix_sort_policy_for(90, 4, 0).tile() == 384 * 40 &&
                radix_sort_policy_for(90, 1, 0).tile() == 384 * 40);
  static_assert(radix_sort_policy_for(90, 8, 0).tile() == 256 * 40 &&
                radix_sort_policy_for(90, 4, 4).tile() == 256 * 44);
  static_assert(radix_sort_policy_for(90, 8, 4).tile() == 384 * 16 &&
                radix_sort_policy_for(90, 4, 16).tile() == 384 * 16);
  static_assert(radix_sort_policy_for(90, 4, 4).pack && !radix_sort_policy_for(90, 2, 4).pack);
  static_assert(radix_sort_policy_for(90, 4, 0).onchip_tile() == 65536 &&
                radix_sort_policy_for(90, 8, 0).onchip_tile() == 65536);
  EXPECT_EQ(cuprim::describe(radix_sort_policy_for(90, 4, 0)),
            "threads=384 items=40 look_back=2 exchange_first=false joint_exchange=false prefetch_tiles=32 store_hint=0 "
            "pack=false min_blocks=2 hist_items=16 small_threads=512 small_items=8 cluster_threads=1024 "
            "cluster_items=8");
}

TEST(RadixSortHost, FloatOrder) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  float in[] = {nan, 1.0f, -0.0f, 0.0f, -inf, inf, -nan, -1.0f, 1e-45f, -1e-45f};
  float out[10];
  cuprim::host::radix_sort_keys(in, out, 10);
  const float want[] = {-inf, -1.0f, -1e-45f, -0.0f, 0.0f, 1e-45f, 1.0f, inf};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(out[i], want[i]) << i;
    EXPECT_EQ(std::signbit(out[i]), std::signbit(want[i])) << i;
  }
  EXPECT_TRUE(std::isnan(out[8]) && std::isnan(out[9]));
  EXPECT_FALSE(std::signbit(out[8]));  // NaNs keep input order
  EXPECT_TRUE(std::signbit(out[9]));
  // the bit transform agrees with the value order on the non-NaN values
  using T = cuprim::detail::radix_key<float>;
  for (int i = 0; i + 1 < 8; ++i) EXPECT_LT(T::ordered(want[i]), T::ordered(want[i + 1])) << i;
  for (int i = 0; i + 1 < 8; ++i) EXPECT_GT(T::ordered(want[i], true), T::ordered(want[i + 1], true)) << i;
  EXPECT_EQ(T::ordered(nan, true), 0xffffffffu);
  EXPECT_EQ(T::ordered(-nan), 0xffffffffu);
}

}  // namespace

namespace {

TEST(SegmentedSortArgs, Rules) {
  const char* fk = "cuprim::segmented_sort_keys";
  const char* fp = "cuprim::segmented_sort_pairs";
  const std::int32_t* off = fake<const std::int32_t>(9);
  using O = cuprim::radix_sort_options;
  expect_invalid([&] { cuprim::segmented_sort_keys(kin, kout, -1, 10, off); }, "n", fk);
  expect_invalid([&] { cuprim::segmented_sort_keys(kin, kout, n, -1, off); }, "num_segments", fk);
  expect_invalid([&] { cuprim::segmented_sort_keys(kin, kout, n, 10, static_cast<const std::int32_t*>(nullptr)); },
                 "offsets", fk);
  expect_invalid([&] { cuprim::segmented_sort_keys(static_cast<const K*>(nullptr), kout, n, 10, off); }, "keys_in", fk);
  expect_invalid([&] { cuprim::segmented_sort_keys(kin, const_cast<K*>(kin) + 1, n, 10, off); }, "keys_out", fk);
  expect_invalid([&] { cuprim::segmented_sort_keys(kin, kout, n, 10, off, O{.begin_bit = 3, .end_bit = 3}); },
                 "begin_bit", fk);
  expect_invalid([&] { cuprim::segmented_sort_keys(kin, kout, n, 10, reinterpret_cast<const std::int32_t*>(kout)); },
                 "offsets", fk);
  expect_invalid([&] { cuprim::segmented_sort_pairs(kin, kout, vin, reinterpret_cast<float*>(kout), n, 10, off); },
                 "values_out", fp);
  expect_invalid([&] { cuprim::segmented_sort_pairs<pairs_policy>(kin, kout, vin, vout, n, 10, off, tiny); },
                 "workspace", fp);
  // Inputs and offsets may alias each other: past the overlap rule to the workspace's.
  const std::int32_t* offsets_in_keys = reinterpret_cast<const std::int32_t*>(kin);
  expect_invalid([&] { cuprim::segmented_sort_keys<keys_policy>(kin, kout, n, 10, offsets_in_keys, tiny); },
                 "workspace", fk);
  EXPECT_EQ((cuprim::segmented_sort_keys_workspace_bytes<K, std::int32_t>(0, 10)), 0u);
  EXPECT_GT((cuprim::segmented_sort_keys_workspace_bytes<K, std::int32_t, keys_policy>(n, 10)), 0u);
}

}  // namespace
