// Argument validation of the scan entry points (device/scan.cuh, lab/ladder/scan.cuh), and the workspace size.
// Every rule checked here is enforced before any CUDA call, so these tests run (label host) on a machine without a
// GPU: the pointers are host addresses and are only compared, never dereferenced. That nothing is written on the
// device when a rule is broken is checked by the GPU tests (device_scan_api_test, which poisons outputs first).
#include <cuprim/device/scan.cuh>
#include "ladder/scan.cuh"

#include "common/scan_types.hpp"
#include "device/scan_cases.hpp"

#include <gtest/gtest.h>

#include "common/expect_invalid.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

namespace {

using cuprim_test::expect_invalid_from;

using cuprim_test::affine_map;
using cuprim_test::compose;

// Host arrays standing in for device pointers: validation compares addresses only.
struct arrays {
  int in[64] = {};
  int out[64] = {};
  affine_map fin[64] = {};
  affine_map fout[64] = {};
};

/// Every scan entry point with (in, out, n): the four device-wide forms, both workspace overloads, the ladder. Each
/// reports its own name (inclusive_sum as cuprim::inclusive_sum, the ladder as cuprim::ladder::inclusive_scan).
/// A workspace larger than any need keeps the workspace rule out of the way.
template <class F>
void for_each_entry_point(F&& check) {
  static char big[1];
  const cuprim::workspace ws{big, std::size_t(1) << 60};
  check("inclusive_scan", [](const int* in, int* out, std::int64_t n) { cuprim::inclusive_scan(in, out, n, cuprim::plus{}); });
  check("inclusive_scan", [ws](const int* in, int* out, std::int64_t n) {
    cuprim::inclusive_scan(in, out, n, cuprim::plus{}, ws);
  });
  check("exclusive_scan", [](const int* in, int* out, std::int64_t n) { cuprim::exclusive_scan(in, out, n, cuprim::plus{}, 3); });
  check("exclusive_scan", [ws](const int* in, int* out, std::int64_t n) {
    cuprim::exclusive_scan(in, out, n, cuprim::plus{}, 3, ws);
  });
  check("inclusive_sum", [](const int* in, int* out, std::int64_t n) { cuprim::inclusive_sum(in, out, n); });
  check("exclusive_sum", [](const int* in, int* out, std::int64_t n) { cuprim::exclusive_sum(in, out, n); });
  for (auto v : cuprim::ladder::scan_variants)
    check("ladder::inclusive_scan", [v](const int* in, int* out, std::int64_t n) {
      cuprim::ladder::inclusive_scan(v, in, out, n, cuprim::plus{}, 0);
    });
}

TEST(ScanArgs, NullInputWithElements) {
  arrays a;
  for_each_entry_point([&](const char* fn, auto call) {
    SCOPED_TRACE(fn);
    expect_invalid_from([&] { call(nullptr, a.out, 5); }, "in", std::string("cuprim::") + fn);
    expect_invalid_from([&] { call(nullptr, a.out, 1); }, "in", std::string("cuprim::") + fn);
  });
  const affine_map* null_f = nullptr;
  expect_invalid_from([&] { cuprim::inclusive_scan(null_f, a.fout, 5, compose{}); }, "in");
  expect_invalid_from([&] { cuprim::exclusive_scan(null_f, a.fout, 5, compose{}, cuprim_test::affine_identity); },
                      "in");
}

TEST(ScanArgs, NullOutputWithElements) {
  arrays a;
  for_each_entry_point([&](const char* fn, auto call) {
    SCOPED_TRACE(fn);
    expect_invalid_from([&] { call(a.in, nullptr, 5); }, "out", std::string("cuprim::") + fn);
  });
  expect_invalid_from([&] { cuprim::inclusive_scan(a.fin, static_cast<affine_map*>(nullptr), 1, compose{}); }, "out");
  expect_invalid_from([&] { cuprim::inclusive_sum(a.in, static_cast<std::int64_t*>(nullptr), 3); }, "out");
}

TEST(ScanArgs, NegativeCount) {
  arrays a;
  for (std::int64_t n : {std::int64_t(-1), std::int64_t(-1000), INT64_MIN}) {
    for_each_entry_point([&](const char* fn, auto call) {
      SCOPED_TRACE(fn);
      expect_invalid_from([&] { call(a.in, a.out, n); }, "n", std::string("cuprim::") + fn);
    });
  }
}

TEST(ScanArgs, PartialOverlapOfOutputAndInput) {
  int buf[128] = {};
  const int* in = buf + 32;
  // out = in + k for k in (-n, n), k != 0: every start inside the input, and every start before it that reaches in.
  for (int k : {1, 2, 31, 63, -1, -31, -63}) {
    for_each_entry_point([&](const char* fn, auto call) {
      SCOPED_TRACE(::testing::Message() << fn << ", out = in + " << k);
      expect_invalid_from([&] { call(in, buf + 32 + k, 64); }, "out", std::string("cuprim::") + fn);
    });
  }
  // A wider output at the input's own address is not in place (it reaches past the input's first half).
  expect_invalid_from([&] { cuprim::inclusive_sum(in, reinterpret_cast<std::int64_t*>(buf + 32), 64); }, "out");
  // A narrower one neither.
  expect_invalid_from([&] { cuprim::inclusive_sum(reinterpret_cast<const std::int64_t*>(buf + 32), buf + 32, 32); },
                      "out");
  // A wider output just before the input whose last bytes reach into it.
  expect_invalid_from([&] { cuprim::inclusive_sum(in, reinterpret_cast<std::int64_t*>(buf), 64); }, "out");
  // An output reaching a single byte into the input (64 int64 ending one byte past the input's start).
  alignas(8) static char storage[2048];
  const auto* in2 = reinterpret_cast<const int*>(storage + 1024);
  auto* one_byte = reinterpret_cast<std::int64_t*>(storage + 1024 - 8 * 64 + 1);
  expect_invalid_from([&] { cuprim::exclusive_scan(in2, one_byte, 64, cuprim::plus{}, std::int64_t{0}); }, "out");
  // ... and one ending exactly at the input's start is fine.
  EXPECT_NO_THROW(cuprim::detail::scan_validate("f", in2, reinterpret_cast<std::int64_t*>(storage + 1024 - 8 * 64), 64));
  // User structs: out = in + 1.
  arrays a;
  expect_invalid_from([&] { cuprim::inclusive_scan(a.fin, a.fin + 1, 64, compose{}); }, "out");
}

TEST(ScanArgs, ExactInPlaceAndAdjacentRangesPassValidation) {
  // Validation only (running them needs a GPU; device_scan_api_test does).
  int buf[128] = {};
  EXPECT_NO_THROW(cuprim::detail::scan_validate("f", buf, buf, 64));
  EXPECT_NO_THROW(cuprim::detail::scan_validate("f", reinterpret_cast<const float*>(buf), buf, 64));  // same size
  EXPECT_NO_THROW(cuprim::detail::scan_validate("f", buf, buf + 64, 64));                          // adjacent after
  EXPECT_NO_THROW(cuprim::detail::scan_validate("f", buf + 64, buf, 64));                          // adjacent before
  EXPECT_NO_THROW(cuprim::detail::scan_validate("f", static_cast<const int*>(nullptr), static_cast<int*>(nullptr), 0));
  EXPECT_NO_THROW(cuprim::detail::scan_validate("f", buf, buf + 1, 0));  // nothing to overlap
  affine_map f[8];
  EXPECT_NO_THROW(cuprim::detail::scan_validate("f", f, f, 8));
}

TEST(ScanArgs, InvalidLadderVariant) {
  arrays a;
  const int count = static_cast<int>(cuprim::ladder::scan_variants.size());
  for (int bad : {count, count + 1, 1000, -1}) {
    const auto v = static_cast<cuprim::ladder::scan_variant>(bad);
    expect_invalid_from([&] { cuprim::ladder::inclusive_scan(v, a.in, a.out, 64, cuprim::plus{}, 0); }, "variant",
                        "cuprim::ladder::inclusive_scan");
  }
}

// Rules are checked in a fixed order: a call that breaks several names the first of n, in, out, then the workspace
// (or the variant).
TEST(ScanArgs, FirstBrokenRuleIsReported) {
  int buf[8] = {};
  const int* null_in = nullptr;
  int* null_out = nullptr;
  expect_invalid_from([&] { cuprim::inclusive_sum(null_in, null_out, -1); }, "n");
  expect_invalid_from([&] { cuprim::inclusive_sum(null_in, null_out, 4); }, "in");
  expect_invalid_from([&] { cuprim::exclusive_scan(buf, buf + 1, 4, cuprim::plus{}, 0, cuprim::workspace{}); }, "out");
  expect_invalid_from([&] {
    cuprim::ladder::inclusive_scan(static_cast<cuprim::ladder::scan_variant>(99), buf, buf + 1, 4, cuprim::plus{}, 0);
  }, "out", "cuprim::ladder::inclusive_scan");
}

// ---- the workspace: size rules, and refusal of one too small (both checked before any CUDA call)

TEST(ScanWorkspace, TooSmallOrNullIsRefused) {
  static char ws[1];
  for (std::int64_t n : {cuprim_test::scan_tile<std::uint32_t>() + 1, std::int64_t(1) << 20, std::int64_t(1) << 34}) {
    SCOPED_TRACE(::testing::Message() << "n = " << n);
    // Fake, far-apart ranges: only their addresses are compared.
    const auto* fin = reinterpret_cast<const std::uint32_t*>(std::uintptr_t(1) << 40);
    auto* fout = reinterpret_cast<std::uint32_t*>(std::uintptr_t(1) << 44);
    const std::size_t need = cuprim::scan_workspace_bytes<std::uint32_t>(n);
    ASSERT_GT(need, 0u);
    for (const cuprim::workspace w : {cuprim::workspace{ws, need - 1}, cuprim::workspace{ws, 0},
                                      cuprim::workspace{nullptr, need}, cuprim::workspace{}}) {
      expect_invalid_from([&] { cuprim::inclusive_scan(fin, fout, n, cuprim::plus{}, w); }, "workspace");
      expect_invalid_from([&] { cuprim::exclusive_scan(fin, fout, n, cuprim::plus{}, 0u, w); }, "workspace");
    }
  }
  // A tile's published state holds its value: an 8-byte struct's (a 16-byte word each) needs more than a 4-byte
  // type's (an 8-byte word each) at the same tile count.
  const std::int64_t tiles = 1000;
  const std::int64_t n32 =
      tiles * std::int64_t(cuprim::detail::scan_tile_elems<cuprim_test::default_scan_policy<std::uint32_t>.classic,
                                                           std::uint32_t>());
  const std::int64_t nf = tiles * cuprim_test::scan_tile<affine_map>();
  EXPECT_GT((cuprim::scan_workspace_bytes<affine_map, affine_map>(nf)), cuprim::scan_workspace_bytes<std::uint32_t>(n32));
  const auto* fa = reinterpret_cast<const affine_map*>(std::uintptr_t(1) << 40);
  auto* fb = reinterpret_cast<affine_map*>(std::uintptr_t(1) << 44);
  expect_invalid_from([&] {
    cuprim::inclusive_scan(fa, fb, nf, compose{},
                           cuprim::workspace{ws, cuprim::scan_workspace_bytes<affine_map, affine_map>(nf) - 1});
  }, "workspace");
}

/// scan_workspace_bytes<In, Out>(n): 0 up to one tile, then positive and never decreasing in n.
template <class In, class Out>
void check_workspace_size(const char* what) {
  SCOPED_TRACE(what);
  const std::int64_t tile = cuprim_test::scan_tile<In>();
  std::size_t prev = 0;
  std::vector<std::int64_t> ns;
  for (std::int64_t n = -3; n <= 300000; n += (n < 5000 ? 1 : 997)) ns.push_back(n);
  for (std::int64_t k : {1, 2, 3, 31, 32, 33, 1000}) {
    ns.push_back(k * tile - 1);
    ns.push_back(k * tile);
    ns.push_back(k * tile + 1);
  }
  for (int s = 19; s <= 44; ++s) ns.push_back(std::int64_t(1) << s);
  std::sort(ns.begin(), ns.end());
  for (std::int64_t n : ns) {
    const std::size_t w = cuprim::scan_workspace_bytes<In, Out>(n);
    ASSERT_GE(w, prev) << "scan_workspace_bytes decreased at n = " << n;
    prev = w;
    if (n <= tile) {
      ASSERT_EQ(w, 0u) << "n = " << n << " fits one tile (" << tile << ")";
    } else {
      // At least the counter and one published state per tile (of the tile the input takes at this size).
      constexpr std::int64_t small_max = cuprim_test::scan_small_max<In>();
      const std::uint64_t t = std::uint64_t(
          small_max > 0 && n > small_max
              ? std::int64_t(cuprim::detail::scan_first_tile_elems<cuprim_test::default_scan_policy<In>, In>(n))
              : tile);
      const std::uint64_t tiles = (std::uint64_t(n) + t - 1) / t;
      ASSERT_GE(w, tiles * sizeof(std::uint32_t)) << "n = " << n;
    }
  }
}

TEST(ScanWorkspace, SizeIsZeroForOneTileAndMonotonic) {
  check_workspace_size<std::uint32_t, std::uint32_t>("uint32");
  check_workspace_size<std::int8_t, std::int64_t>("int8 into int64");
  check_workspace_size<std::uint8_t, std::uint8_t>("uint8");
  check_workspace_size<float, float>("float");
  check_workspace_size<double, double>("double");
  check_workspace_size<__half, __half>("half (float accumulator)");
  check_workspace_size<affine_map, affine_map>("affine_map (8-byte struct)");
  check_workspace_size<cuprim_test::affine16, cuprim_test::affine16>("affine16 (4-byte struct)");
  check_workspace_size<cuprim_test::mat2, cuprim_test::mat2>("mat2 (16-byte struct)");
}

TEST(ScanLadder, VariantsAreOrderedAndNamedDistinctly) {
  namespace L = cuprim::ladder;
  static_assert(L::scan_variants.size() == 4);
  static_assert(L::scan_variants.back() == L::scan_variant::decoupled_lookback);
  static_assert(L::to_string(L::scan_variant::hillis_steele) == "hillis_steele");
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < L::scan_variants.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(L::scan_variants[i]), i) << "scan_variants is not in enum order";
    const std::string_view name = L::to_string(L::scan_variants[i]);
    EXPECT_FALSE(name.empty());
    names.insert(name);
  }
  EXPECT_EQ(names.size(), L::scan_variants.size()) << "two rungs share a name";
}

}  // namespace
