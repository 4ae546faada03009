// The device scan's API beyond the typed sweep (scan_int_test.cu, scan_float_test.cu): the seed's example rows,
// in-place scans, misaligned inputs and outputs (the scalar load and store paths), the explicit-workspace overload
// with exactly scan_workspace_bytes, run-to-run bitwise reproducibility of float results, custom policies (tiny
// tiles, wide look-back windows, 1024 threads), streams, empty and null inputs, bad arguments (refused, nothing
// written), an error left pending by someone else, sizes beyond what the tile ids can count, and the huge cases:
// 2^28 elements, and more than 2^31 (uint8 into uint64, and in place) verified exactly on the host.
#include <cuprim/device/scan.cuh>
#include "ladder/scan.cuh"

#include "common/scan_types.hpp"
#include "common/test_util.hpp"
#include "common/pending_error.cuh"
#include "device/scan_cases.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cuprim_test {
namespace {

class ScanApi : public gpu_test {};

// ---- the seed's example (000, "Scan")

TEST_F(ScanApi, SeedExampleRows) {
  const std::vector<int> values = {4, 0, 5, 5, 0, 5, 5, 1, 3, 1, 0, 3, 1, 1, 3, 5};
  // The rows as the seed prints them.
  const std::vector<int> seed_inclusive = {4, 4, 9, 14, 14, 19, 24, 25, 28, 29, 29, 32, 33, 34, 37, 42};
  const std::vector<int> seed_exclusive = {0, 4, 4, 9, 14, 14, 19, 24, 25, 28, 29, 29, 32, 33, 34, 37};
  // The rows from the definition: inclusive[i] = Σ_{j ≤ i} values[j], exclusive[i] = Σ_{j < i} values[j].
  std::vector<int> inclusive(16, 0), exclusive(16, 0);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      if (j <= i) inclusive[i] += values[j];
      if (j < i) exclusive[i] += values[j];
    }
  ASSERT_EQ(inclusive, seed_inclusive) << "the seed's inclusive row";
  ASSERT_EQ(exclusive, seed_exclusive) << "the seed's exclusive row";

  const scan_input<int> data(values);
  auto run = [&](const char* what, auto call, const std::vector<int>& expected) {
    guarded_array<int> out(16);
    call(out.out());
    EXPECT_EQ(out.take(), expected) << what;
  };
  run("inclusive_sum", [&](int* o) { cuprim::inclusive_sum(data.d(), o, 16); }, inclusive);
  run("exclusive_sum", [&](int* o) { cuprim::exclusive_sum(data.d(), o, 16); }, exclusive);
  run("inclusive_scan(plus)", [&](int* o) { cuprim::inclusive_scan(data.d(), o, 16, cuprim::plus{}); }, inclusive);
  run("exclusive_scan(plus, 0)", [&](int* o) { cuprim::exclusive_scan(data.d(), o, 16, cuprim::plus{}, 0); },
      exclusive);
  for (auto v : cuprim::ladder::scan_variants)
    run(std::string(cuprim::ladder::to_string(v)).c_str(),
        [&](int* o) { cuprim::ladder::inclusive_scan(v, data.d(), o, 16, cuprim::plus{}, 0); }, inclusive);
  // In place, as the seed's ScanSeqInc does it.
  {
    guarded_array<int> buf(16);
    buf.fill(values.data());
    cuprim::inclusive_sum(buf.out(), buf.out(), 16);
    EXPECT_EQ(buf.take(), inclusive) << "in place";
  }
  // Narrow input, wide output: uint8 values scanned into int64.
  {
    std::vector<std::uint8_t> bytes(values.begin(), values.end());
    const scan_input<std::uint8_t> b(bytes);
    guarded_array<std::int64_t> out(16);
    cuprim::exclusive_sum(b.d(), out.out(), 16);
    const auto got = out.take();
    EXPECT_EQ(std::vector<int>(got.begin(), got.end()), exclusive) << "uint8 into int64";
  }
  // Haskell: scanl1 (+) [4,0,5,5] = [4,4,9,14]; scanl (+) 0 [4,0,5,5] = [0,4,4,9,14], which is the exclusive scan of
  // one element more (whatever it is).
  {
    guarded_array<int> out(4);
    cuprim::inclusive_sum(data.d(), out.out(), 4);
    EXPECT_EQ(out.take(), (std::vector<int>{4, 4, 9, 14}));
    guarded_array<int> ex(5);
    cuprim::exclusive_sum(data.d(), ex.out(), 5);
    EXPECT_EQ(ex.take(), (std::vector<int>{0, 4, 4, 9, 14}));
  }
  // APL: +\22 93 4.6 10 3.3 is 22 115 119.6 129.6 132.9.
  {
    const scan_input<double> apl(std::vector<double>{22, 93, 4.6, 10, 3.3});
    guarded_array<double> out(5);
    cuprim::inclusive_sum(apl.d(), out.out(), 5);
    const auto got = out.take();
    const double expected[] = {22, 115, 119.6, 129.6, 132.9};
    for (int i = 0; i < 5; ++i) EXPECT_NEAR(got[i], expected[i], 1e-12) << i;
  }
}

// ---- in place

template <class In, class Op>
void check_in_place(rng& r, Op op) {
  using Acc = cuprim::accumulator_t<In>;
  SCOPED_TRACE(scan_type_name<In>());
  constexpr std::int64_t tile = scan_tile<In>();
  std::vector<std::int64_t> sizes = {1, 33, tile - 1, tile + 1, 2 * tile + 1, (std::int64_t(1) << 20) + 7,
                                     300 * tile + 5};
  if constexpr (scan_cluster_max<In>() > 0) sizes.push_back(scan_cluster_max<In>() - 5);  // several cluster blocks
  const std::int64_t m = *std::max_element(sizes.begin(), sizes.end());
  const std::vector<In> h = scan_safe_vector<In>(r, std::size_t(m));
  const Acc init = random_init<scan_config<In, In, Op>>(r);
  const auto ref_incl = make_reference<In, In>(h.data(), m, op, false);
  const auto ref_excl = make_reference<In, In>(h.data(), m, op, true, init);
  for (std::int64_t n : sizes) {
    for (int off : {0, 1}) {
      CUPRIM_SCAN_TRACE(n, off, off);
      guarded_array<In> buf(n, off);
      buf.fill(h.data());
      cuprim::inclusive_scan(buf.out(), buf.out(), n, op);
      expect_scan_matches(buf.take(), ref_incl, n, tile, "inclusive_scan in place");
      buf.reset();
      buf.fill(h.data());
      cuprim::exclusive_scan(buf.out(), buf.out(), n, op, init);
      expect_scan_matches(buf.take(), ref_excl, n, tile, "exclusive_scan in place");
    }
  }
}

TEST_F(ScanApi, InPlace) {
  CUPRIM_TEST_RNG(r);
  check_in_place<std::int32_t>(r, cuprim::plus{});
  check_in_place<std::uint8_t>(r, cuprim::plus{});
  check_in_place<float>(r, cuprim::plus{});
  check_in_place<__half>(r, cuprim::plus{});
  check_in_place<double>(r, cuprim::plus{});
  check_in_place<affine_map>(r, compose{});
  check_in_place<affine16>(r, compose16{});
}

// ---- misaligned input and output: the scalar load and store paths, and mixtures of the two

template <class In, class Out, class Op = cuprim::plus>
void check_misaligned(rng& r, Op op = {}) {
  using Acc = cuprim::accumulator_t<Out>;
  SCOPED_TRACE(::testing::Message() << scan_type_name<In>() << " into " << scan_type_name<Out>());
  constexpr std::int64_t tile = scan_tile<In>();
  std::vector<std::int64_t> sizes = {33, tile + 1, 2 * tile + 1, 37 * tile + 5};
  if constexpr (scan_cluster_max<In>() > 0) sizes.push_back(scan_cluster_max<In>() - 1);  // several cluster blocks
  const std::int64_t m = *std::max_element(sizes.begin(), sizes.end());
  const scan_input<In> data(scan_safe_vector<In>(r, std::size_t(m) + max_offset));
  const Acc init = random_init<scan_config<In, Out, Op>>(r);
  for (auto [in_off, out_off] : {std::pair{1, 0}, std::pair{0, 1}, std::pair{3, 2}, std::pair{2, 3}, std::pair{1, 3}}) {
    const auto ref_incl = make_reference<In, Out>(data.h(in_off), m, op, false);
    const auto ref_excl = make_reference<In, Out>(data.h(in_off), m, op, true, init);
    for (std::int64_t n : sizes) {
      CUPRIM_SCAN_TRACE(n, in_off, out_off);
      run_scan_case(n, out_off, ref_incl, tile, "inclusive_scan",
                    [&](Out* o) { cuprim::inclusive_scan(data.d(in_off), o, n, op); });
      run_scan_case(n, out_off, ref_excl, tile, "exclusive_scan",
                    [&](Out* o) { cuprim::exclusive_scan(data.d(in_off), o, n, op, init); });
    }
  }
}

TEST_F(ScanApi, MisalignedInputAndOutput) {
  CUPRIM_TEST_RNG(r);
  check_misaligned<std::uint32_t, std::uint32_t>(r);
  check_misaligned<std::int8_t, std::int64_t>(r);
  check_misaligned<std::uint16_t, std::uint32_t>(r);
  check_misaligned<float, float>(r);
  check_misaligned<__half, __half>(r);
  check_misaligned<double, double>(r);
  check_misaligned<affine16, affine16>(r, compose16{});
}

// ---- the explicit-workspace overload

template <class In, class Out, class Op = cuprim::plus>
void check_exact_workspace(rng& r, Op op = {}) {
  using Acc = cuprim::accumulator_t<Out>;
  SCOPED_TRACE(::testing::Message() << scan_type_name<In>() << " into " << scan_type_name<Out>());
  constexpr std::int64_t tile = scan_tile<In>();
  constexpr std::size_t guard = 256;
  const std::vector<std::int64_t> sizes = scan_sizes<In>();
  const std::int64_t m = *std::max_element(sizes.begin(), sizes.end());
  const scan_input<In> data(scan_safe_vector<In>(r, std::size_t(m)));
  const Acc init = random_init<scan_config<In, Out, Op>>(r);
  const auto ref_incl = make_reference<In, Out>(data.h(), m, op, false);
  const auto ref_excl = make_reference<In, Out>(data.h(), m, op, true, init);
  for (std::int64_t n : sizes) {
    CUPRIM_SCAN_TRACE(n, 0, 0);
    const std::size_t need = cuprim::scan_workspace_bytes<In, Out>(n);
    EXPECT_EQ(need == 0, n <= tile) << "a workspace is needed exactly when there is more than one tile";
    cuprim::device_buffer<unsigned char> ws(need + guard);
    poison(ws);  // the contents need not be initialised
    const cuprim::workspace w{need ? ws.data() : nullptr, need};
    for (int rep = 0; rep < 2; ++rep) {  // the same workspace again: it must be left ready for reuse
      SCOPED_TRACE(rep == 0 ? "first use of the workspace" : "second use of the workspace");
      run_scan_case(n, 0, ref_incl, tile, "inclusive_scan", [&](Out* o) { cuprim::inclusive_scan(data.d(), o, n, op, w); });
      run_scan_case(n, 0, ref_excl, tile, "exclusive_scan",
                    [&](Out* o) { cuprim::exclusive_scan(data.d(), o, n, op, init, w); });
    }
    EXPECT_TRUE(bytes_are(ws.data() + need, guard)) << "write past scan_workspace_bytes(" << n << ") = " << need;
  }
}

TEST_F(ScanApi, ExplicitWorkspaceOfExactlyTheReportedSize) {
  CUPRIM_TEST_RNG(r);
  check_exact_workspace<std::uint32_t, std::uint32_t>(r);
  check_exact_workspace<std::int8_t, std::int64_t>(r);
  check_exact_workspace<float, float>(r);
  check_exact_workspace<__half, __half>(r);
  check_exact_workspace<double, double>(r);
  check_exact_workspace<affine_map, affine_map>(r, compose{});
  check_exact_workspace<affine16, affine16>(r, compose16{});
}

TEST_F(ScanApi, WorkspaceTooSmallOrNullIsRefusedAndNothingWritten) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = (std::int64_t(1) << 20) + 7;
  const scan_input<float> data(random_vector<float>(r, std::size_t(n)));
  const std::size_t need = cuprim::scan_workspace_bytes<float, float>(n);
  ASSERT_GT(need, 0u);
  cuprim::device_buffer<unsigned char> ws(need);
  poison(ws);
  guarded_array<float> out(n);
  auto expect_workspace_error = [&](cuprim::workspace w) {
    SCOPED_TRACE(::testing::Message() << "workspace of " << w.bytes << " bytes at " << w.data << ", " << need
                                      << " needed");
    for (int k = 0; k < 2; ++k) {
      try {
        if (k == 0) cuprim::inclusive_scan(data.d(), out.out(), n, cuprim::plus{}, w);
        else cuprim::exclusive_scan(data.d(), out.out(), n, cuprim::plus{}, 1.0f, w);
        ADD_FAILURE() << "no exception";
      } catch (const cuprim::invalid_argument& e) {
        EXPECT_EQ(e.argument(), "workspace") << e.what();
      }
    }
    EXPECT_TRUE(out.untouched()) << "the output was written";
    EXPECT_TRUE(bytes_are(ws.data(), need)) << "the workspace was written";
  };
  expect_workspace_error({ws.data(), need - 1});
  expect_workspace_error({ws.data(), 0});
  expect_workspace_error({nullptr, need});
  expect_workspace_error({nullptr, 0});
  // One tile needs no workspace at all.
  const std::int64_t one_tile = scan_tile<float>();
  EXPECT_EQ(cuprim::scan_workspace_bytes<float>(one_tile), 0u);
  guarded_array<float> small(one_tile);
  cuprim::inclusive_scan(data.d(), small.out(), one_tile, cuprim::plus{}, cuprim::workspace{});
  expect_scan_matches(small.take(), make_reference<float, float>(data.h(), one_tile, cuprim::plus{}, false), one_tile,
                      one_tile, "one tile, empty workspace");
}

// ---- bitwise reproducibility (device/scan.cuh: "Floating-point results are bitwise identical from run to run on
// the same GPU")

template <class T>
void check_reproducible(rng& r, std::int64_t n, int runs) {
  SCOPED_TRACE(::testing::Message() << type_name<T>() << ", n = " << n);
  const scan_input<T> data(random_vector<T>(r, std::size_t(n)));
  std::vector<T> first;
  for (int k = 0; k < runs; ++k) {
    guarded_array<T> out(n);
    cuprim::inclusive_sum(data.d(), out.out(), n);
    std::vector<T> got = out.take();
    if (k == 0) {
      expect_scan_matches(got, make_reference<T, T>(data.h(), n, cuprim::plus{}, false), n, scan_bound_tile<T>(),
                          "inclusive_sum");
      first = std::move(got);
      continue;
    }
    std::int64_t differ = 0, at = -1;
    for (std::int64_t i = 0; i < n; ++i)
      if (!same_bytes(got[std::size_t(i)], first[std::size_t(i)])) {
        if (at < 0) at = i;
        ++differ;
      }
    EXPECT_EQ(differ, 0) << "run " << k << " differs from run 0 in " << differ << " elements, the first at " << at
                         << " (tile " << at / scan_tile<T>() << "): " << (at >= 0 ? show(got[std::size_t(at)]) : "")
                         << " vs " << (at >= 0 ? show(first[std::size_t(at)]) : "");
  }
}

TEST_F(ScanApi, FloatResultsAreBitwiseReproducible) {
  CUPRIM_TEST_RNG(r);
  check_reproducible<float>(r, scan_cluster_max<float>(), 4);  // one cluster of blocks
  check_reproducible<double>(r, scan_cluster_max<double>() - 3, 4);
  check_reproducible<float>(r, (std::int64_t(1) << 24) + 1, 4);
  check_reproducible<double>(r, (std::int64_t(1) << 23) + 1, 4);
  check_reproducible<float>(r, 300 * scan_tile<float>() + 5, 4);
  check_reproducible<float>(r, 1100 * scan_tile<float>() + 5, 4);
}

// ---- custom policies: tiny tiles (thousands of look-back steps), look-back windows of several tiles per lane,
// no back-off, 32 warps per block

template <auto Policy, class In, class Out, class Op = cuprim::plus>
void check_policy(rng& r, const char* what, Op op = {}) {
  using Acc = cuprim::accumulator_t<Out>;
  SCOPED_TRACE(::testing::Message() << what << ", " << scan_type_name<In>());
  constexpr std::int64_t tile = scan_tile<In, Policy>();
  // The float bounds count tiles of the smallest tile any path may take (a pipeline policy falls back to its
  // one-tile-per-block policy where the pipeline cannot run).
  constexpr std::int64_t bound_tile = scan_bound_tile<In, Policy>();
  const std::vector<std::int64_t> sizes = {1, tile - 1, tile, tile + 1, 33 * tile + 1, 300 * tile + 7,
                                           (std::int64_t(1) << 20) + 7};
  const std::int64_t m = *std::max_element(sizes.begin(), sizes.end());
  const scan_input<In> data(scan_safe_vector<In>(r, std::size_t(m)));
  const Acc init = random_init<scan_config<In, Out, Op>>(r);
  const auto ref_incl = make_reference<In, Out>(data.h(), m, op, false);
  const auto ref_excl = make_reference<In, Out>(data.h(), m, op, true, init);
  for (std::int64_t n : sizes) {
    CUPRIM_SCAN_TRACE(n, 0, 0);
    run_scan_case(n, 0, ref_incl, bound_tile, "inclusive_scan<Policy>",
                  [&](Out* o) { cuprim::inclusive_scan<Policy>(data.d(), o, n, op); });
    cuprim::device_buffer<unsigned char> ws(cuprim::scan_workspace_bytes<In, Out, Policy>(n));
    run_scan_case(n, 0, ref_excl, bound_tile, "exclusive_scan<Policy> with its workspace", [&](Out* o) {
      cuprim::exclusive_scan<Policy>(data.d(), o, n, op, init, cuprim::workspace{ws.data(), ws.bytes()});
    });
  }
}

TEST_F(ScanApi, CustomPolicies) {
  CUPRIM_TEST_RNG(r);
  constexpr cuprim::scan_policy tiny{.threads = 32, .vector_bytes = 4, .vectors = 1};
  check_policy<tiny, std::uint32_t, std::uint32_t>(r, "one warp, one 4-byte vector per thread");
  check_policy<tiny, affine_map, affine_map>(r, "one warp, one element per thread", compose{});
  constexpr cuprim::scan_policy wide_lookback{.threads = 64, .vector_bytes = 8, .vectors = 3, .first_wait_ns = 0,
                                              .poll_wait_ns = 0, .lookback_tiles_per_lane = 4};
  check_policy<wide_lookback, std::uint32_t, std::uint32_t>(r, "4 tiles per look-back lane, no back-off");
  check_policy<wide_lookback, affine16, affine16>(r, "4 tiles per look-back lane, no back-off", compose16{});
  constexpr cuprim::scan_policy widest_lookback{.threads = 256, .vector_bytes = 16, .vectors = 2,
                                                .first_wait_ns = 2000, .poll_wait_ns = 1000,
                                                .lookback_tiles_per_lane = 8};
  check_policy<widest_lookback, affine_map, affine_map>(r, "8 tiles per look-back lane", compose{});
  check_policy<widest_lookback, float, float>(r, "8 tiles per look-back lane");
  // The ordered fold (floating point and user types), small tiles.
  constexpr cuprim::scan_policy ordered{.threads = 128, .vector_bytes = 16, .vectors = 2};
  check_policy<ordered, float, float>(r, "ordered fold");
  check_policy<ordered, affine_map, affine_map>(r, "ordered fold", compose{});
  constexpr cuprim::scan_policy full_block{.threads = 1024, .vector_bytes = 16, .vectors = 1};
  check_policy<full_block, std::uint32_t, std::uint32_t>(r, "1024 threads (32 warps)");
  check_policy<full_block, affine_map, affine_map>(r, "1024 threads (32 warps)", compose{});
  // Outputs wider than the input: 32 or 128 bytes of results per lane-vector, stored through the per-warp staging
  // buffer (4 warps) or as strided 16-byte pieces (16 warps: the staging buffer would pass 16 KiB).
  constexpr cuprim::scan_policy staged{.threads = 128, .vector_bytes = 16, .vectors = 3};
  check_policy<staged, std::uint32_t, std::uint64_t>(r, "uint32 into uint64, staged stores");
  check_policy<staged, std::int8_t, std::int64_t>(r, "int8 into int64, staged stores");
  constexpr cuprim::scan_policy strided{.threads = 512, .vector_bytes = 16, .vectors = 2};
  check_policy<strided, std::uint32_t, std::uint64_t>(r, "uint32 into uint64, strided 16-byte stores");
  check_policy<strided, std::uint8_t, std::int32_t>(r, "uint8 into int32, strided 16-byte stores");
}

// ---- the large-input pipeline (persistent blocks, bulk copies, warp roles) under policies that take every size:
// tiny tiles (hundreds of stages refilled per block, thousands of look-backs), two stages, wide look-back windows,
// 4- and 8-byte types (packed and separate-array tile states), and a non-commutative operator on uint64

/// x -> a·x + b modulo 2^32 packed in a uint64 (a in the high half): composition "f, then g", associative and
/// not commutative, on an arithmetic type the pipeline takes.
struct packed_affine {
  CUPRIM_HD std::uint64_t operator()(std::uint64_t f, std::uint64_t g) const {
    const std::uint32_t fa = std::uint32_t(f >> 32), fb = std::uint32_t(f), ga = std::uint32_t(g >> 32),
                        gb = std::uint32_t(g);
    return (std::uint64_t(ga * fa) << 32) | std::uint32_t(ga * fb + gb);
  }
};

template <auto Policy>
void check_pipeline_non_commutative(rng& r, const char* what) {
  SCOPED_TRACE(what);
  constexpr std::int64_t tile = scan_tile<std::uint64_t, Policy>();
  const std::int64_t m = 300 * tile + 7;
  std::vector<std::uint64_t> h(static_cast<std::size_t>(m));
  for (auto& x : h) x = r.next() | (std::uint64_t(1) << 32);  // odd a: every map invertible
  const scan_input<std::uint64_t> data(h);
  const std::uint64_t init = r.next() | (std::uint64_t(1) << 32);
  for (std::int64_t n : {std::int64_t(1), tile - 1, tile + 1, 33 * tile + 1, m}) {
    CUPRIM_SCAN_TRACE(n, 0, 0);
    std::vector<std::uint64_t> incl(static_cast<std::size_t>(n)), excl(static_cast<std::size_t>(n));
    std::uint64_t s = init;
    for (std::int64_t i = 0; i < n; ++i) {
      excl[std::size_t(i)] = s;
      s = packed_affine{}(s, h[std::size_t(i)]);
      incl[std::size_t(i)] = i == 0 ? h[0] : packed_affine{}(incl[std::size_t(i - 1)], h[std::size_t(i)]);
    }
    guarded_array<std::uint64_t> out(n);
    cuprim::inclusive_scan<Policy>(data.d(), out.out(), n, packed_affine{});
    expect_same_values(out.take(), incl.data(), n, "inclusive_scan<pipeline>, packed affine maps");
    out.reset();
    cuprim::exclusive_scan<Policy>(data.d(), out.out(), n, packed_affine{}, init);
    expect_same_values(out.take(), excl.data(), n, "exclusive_scan<pipeline>, packed affine maps");
  }
}

TEST_F(ScanApi, PipelinePolicies) {
  CUPRIM_TEST_RNG(r);
  constexpr cuprim::scan_policy classic{.threads = 128, .vector_bytes = 16, .vectors = 6};
  // 256 4-byte elements per tile, two stages: thousands of tiles, every stage refilled hundreds of times.
  constexpr cuprim::scan_pipeline_policy tiny{.pipeline = tiny_pipeline, .classic = classic};
  check_policy<tiny, std::uint32_t, std::uint32_t>(r, "pipeline, 2 warps x 1 vector, 2 stages, no back-off");
  check_policy<tiny, float, float>(r, "pipeline, 2 warps x 1 vector, 2 stages, no back-off");
  check_policy<tiny, double, double>(r, "pipeline, 2 warps x 1 vector, 2 stages, no back-off");
  check_pipeline_non_commutative<tiny>(r, "pipeline, 2 warps x 1 vector, 2 stages");
  // The default shape, taking every size.
  constexpr cuprim::scan_pipeline_policy shape{
      .pipeline = {.scan_warps = 8, .lane_vectors = 9, .stages = 3, .min_elems = 0}, .classic = classic};
  check_policy<shape, std::uint32_t, std::uint32_t>(r, "pipeline, default shape");
  check_policy<shape, std::int64_t, std::int64_t>(r, "pipeline, default shape");
  check_policy<shape, float, float>(r, "pipeline, default shape");
  check_pipeline_non_commutative<shape>(r, "pipeline, default shape");
  // Four tiles per look-back lane, six stages.
  constexpr cuprim::scan_pipeline_policy wide{
      .pipeline = {.scan_warps = 4, .lane_vectors = 3, .stages = 6, .min_elems = 0, .first_wait_ns = 400,
                   .poll_wait_ns = 200, .lookback_tiles_per_lane = 4},
      .classic = classic};
  check_policy<wide, std::int32_t, std::int32_t>(r, "pipeline, 4 tiles per look-back lane, 6 stages");
  check_policy<wide, double, double>(r, "pipeline, 4 tiles per look-back lane, 6 stages");
  check_policy<wide, float, float>(r, "pipeline, 4 tiles per look-back lane, 6 stages");
}

/// The default policy's three paths and the sizes where it switches between them (4-byte types: the small tile up
/// to small_max, the large tile, the pipeline from min_elems), inclusive and exclusive with a workspace.
template <class T>
void check_default_paths(rng& r) {
  constexpr cuprim::scan_pipeline_policy P = default_scan_policy<T>;
  static_assert(scan_small_max<T>() > 0, "the default policy for 4-byte types has a small tile");
  SCOPED_TRACE(scan_type_name<T>());
  constexpr std::int64_t s = P.small_max, p = P.pipeline.min_elems, tile = scan_bound_tile<T>();
  constexpr std::int64_t one = scan_tile<T>(), c = scan_cluster_max<T>();  // one block; the cluster kernel's last
  const std::vector<std::int64_t> sizes = {one, one + 1, c, c + 1, s - 1, s, s + 1, p - 1, p, p + 13};
  const std::int64_t m = p + 13;
  const scan_input<T> data(scan_safe_vector<T>(r, std::size_t(m)));
  const auto ref_incl = make_reference<T, T>(data.h(), m, cuprim::plus{}, false);
  const auto ref_excl = make_reference<T, T>(data.h(), m, cuprim::plus{}, true, T(3));
  for (std::int64_t n : sizes) {
    CUPRIM_SCAN_TRACE(n, 0, 0);
    run_scan_case(n, 0, ref_incl, tile, "inclusive_sum", [&](T* o) { cuprim::inclusive_sum(data.d(), o, n); });
    cuprim::device_buffer<unsigned char> ws(cuprim::scan_workspace_bytes<T>(n));
    run_scan_case(n, 0, ref_excl, tile, "exclusive_scan with its workspace", [&](T* o) {
      cuprim::exclusive_scan(data.d(), o, n, cuprim::plus{}, T(3), cuprim::workspace{ws.data(), ws.bytes()});
    });
  }
}

TEST_F(ScanApi, DefaultPolicyPathSwitches) {
  CUPRIM_TEST_RNG(r);
  check_default_paths<std::uint32_t>(r);
  check_default_paths<float>(r);
  check_default_paths<std::int32_t>(r);
}

TEST_F(ScanApi, PipelineInPlaceAndMisalignedFallBack) {
  CUPRIM_TEST_RNG(r);
  constexpr cuprim::scan_pipeline_policy P{
      .pipeline = {.scan_warps = 4, .lane_vectors = 3, .stages = 3, .min_elems = 0},
      .classic = {.threads = 128, .vector_bytes = 16, .vectors = 6}};
  constexpr std::int64_t tile = scan_tile<std::uint32_t, P>();
  const std::int64_t n = 97 * tile + 13;
  const std::vector<std::uint32_t> h = random_vector<std::uint32_t>(r, std::size_t(n) + 4);
  const auto ref = make_reference<std::uint32_t, std::uint32_t>(h.data(), n, cuprim::plus{}, false);
  // In place.
  guarded_array<std::uint32_t> a(n);
  a.fill(h.data());
  cuprim::inclusive_scan<P>(a.out(), a.out(), n, cuprim::plus{});
  expect_scan_matches(a.take(), ref, n, tile, "in place, pipeline");
  // Input and output off the 16-byte grid take the one-tile-per-block kernel.
  for (int off : {1, 2, 3}) {
    const scan_input<std::uint32_t> data(h);
    guarded_array<std::uint32_t> o(n, off);
    cuprim::inclusive_scan<P>(data.d(0), o.out(), n, cuprim::plus{});
    expect_scan_matches(o.take(), ref, n, tile, "aligned input, misaligned output");
    const auto ref_off = make_reference<std::uint32_t, std::uint32_t>(h.data() + off, n, cuprim::plus{}, false);
    guarded_array<std::uint32_t> o2(n);
    cuprim::inclusive_scan<P>(data.d(off), o2.out(), n, cuprim::plus{});
    expect_scan_matches(o2.take(), ref_off, n, tile, "misaligned input, aligned output");
  }
}

// ---- streams

TEST_F(ScanApi, NonDefaultStream) {
  CUPRIM_TEST_RNG(r);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  {
    const std::int64_t n = 50 * scan_tile<std::uint32_t>() + 3;
    const std::vector<std::uint32_t> h = random_vector<std::uint32_t>(r, std::size_t(n));
    cuprim::device_buffer<std::uint32_t> in(std::span<const std::uint32_t>(h), s);
    cuprim::device_buffer<std::uint64_t> out(static_cast<std::size_t>(n), s);
    cuprim::inclusive_sum(in.data(), out.data(), n, s);
    expect_scan_matches(out.to_host_sync(), make_reference<std::uint32_t, std::uint64_t>(h.data(), n, cuprim::plus{}, false),
                        n, scan_tile<std::uint32_t>(), "inclusive_sum on a stream");
    cuprim::device_buffer<unsigned char> ws(cuprim::scan_workspace_bytes<std::uint32_t, std::uint64_t>(n), s);
    cuprim::exclusive_scan(in.data(), out.data(), n, cuprim::plus{}, std::uint64_t{7},
                           cuprim::workspace{ws.data(), ws.bytes()}, s);
    expect_scan_matches(out.to_host_sync(),
                        make_reference<std::uint32_t, std::uint64_t>(h.data(), n, cuprim::plus{}, true, std::uint64_t{7}),
                        n, scan_tile<std::uint32_t>(), "exclusive_scan with workspace on a stream");
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  }
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

// ---- empty input

TEST_F(ScanApi, EmptyInputWritesNothingAndAcceptsNull) {
  guarded_array<int> out(0);
  const scan_input<int> data(std::vector<int>{1, 2, 3});
  cuprim::inclusive_sum(data.d(), out.out(), 0);
  cuprim::exclusive_scan(data.d(), out.out(), 0, cuprim::plus{}, 5);
  cuprim::inclusive_scan(data.d(), out.out(), 0, cuprim::plus{}, cuprim::workspace{});
  for (auto v : cuprim::ladder::scan_variants)
    cuprim::ladder::inclusive_scan(v, data.d(), out.out(), 0, cuprim::plus{}, 0);
  EXPECT_TRUE(out.untouched());
  // Null pointers are fine when there is nothing to scan.
  EXPECT_NO_THROW(cuprim::inclusive_sum(static_cast<const int*>(nullptr), static_cast<int*>(nullptr), 0));
  EXPECT_NO_THROW(cuprim::exclusive_sum(static_cast<const int*>(nullptr), static_cast<long long*>(nullptr), 0));
  EXPECT_NO_THROW(cuprim::inclusive_scan(static_cast<const affine_map*>(nullptr), static_cast<affine_map*>(nullptr), 0,
                                         compose{}));
  EXPECT_EQ(cuprim::scan_workspace_bytes<int>(0), 0u);
}

// ---- bad arguments on the device: refused with cuprim::invalid_argument naming the argument, nothing written

template <class F>
void expect_invalid(F&& call, const std::string& argument, const char* what) {
  try {
    call();
    ADD_FAILURE() << what << ": no exception; expected cuprim::invalid_argument for '" << argument << "'";
  } catch (const cuprim::invalid_argument& e) {
    EXPECT_EQ(e.argument(), argument) << what << ": " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": wrong exception (expected cuprim::invalid_argument for '" << argument
                  << "'): " << e.what();
  }
}

TEST_F(ScanApi, BadArgumentsWriteNothing) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = scan_tile<std::int32_t>() + 1000;  // two tiles: a workspace is needed
  // The input and room on both sides of it in one allocation, so "overlap" is about real device addresses.
  const std::vector<std::int32_t> h = random_vector<std::int32_t>(r, std::size_t(n) + 16, -100, 100);
  scan_input<std::int32_t> data(h);
  std::int32_t* base = data.dev.data();
  const std::int32_t* in = base + 8;
  guarded_array<std::int32_t> out(n);
  auto input_intact = [&] { return data.dev.to_host_sync() == h; };

  // Partial overlap: out starts inside the input, or before it and reaches into it.
  for (std::int64_t k : {std::int64_t(1), std::int64_t(7), n / 2, n - 1, std::int64_t(-1), std::int64_t(-8)}) {
    SCOPED_TRACE(::testing::Message() << "out = in + " << k);
    std::int32_t* o = base + 8 + k;
    expect_invalid([&] { cuprim::inclusive_scan(in, o, n, cuprim::plus{}); }, "out", "inclusive_scan");
    expect_invalid([&] { cuprim::exclusive_scan(in, o, n, cuprim::plus{}, 0); }, "out", "exclusive_scan");
    expect_invalid([&] { cuprim::inclusive_sum(in, o, n); }, "out", "inclusive_sum");
    expect_invalid([&] { cuprim::exclusive_sum(in, o, n); }, "out", "exclusive_sum");
    for (auto v : cuprim::ladder::scan_variants)
      expect_invalid([&] { cuprim::ladder::inclusive_scan(v, in, o, n, cuprim::plus{}, 0); }, "out",
                     "ladder::inclusive_scan");
  }
  // The same address with a wider output is not "in place": its second half overlaps the input's tail.
  expect_invalid([&] { cuprim::inclusive_sum(in, reinterpret_cast<std::int64_t*>(base + 8), n); }, "out",
                 "int32 into int64 at the input's address");
  EXPECT_TRUE(input_intact()) << "the input was modified by a refused call";

  expect_invalid([&] { cuprim::inclusive_scan(static_cast<const std::int32_t*>(nullptr), out.out(), n, cuprim::plus{}); },
                 "in", "null input");
  expect_invalid([&] { cuprim::exclusive_sum(in, static_cast<std::int32_t*>(nullptr), n); }, "out", "null output");
  expect_invalid([&] { cuprim::inclusive_sum(in, out.out(), -1); }, "n", "negative n");
  expect_invalid([&] { cuprim::exclusive_scan(in, out.out(), INT64_MIN, cuprim::plus{}, 0); }, "n", "negative n");
  expect_invalid([&] {
    cuprim::ladder::inclusive_scan(static_cast<cuprim::ladder::scan_variant>(cuprim::ladder::scan_variants.size()), in,
                                   out.out(), n, cuprim::plus{}, 0);
  }, "variant", "invalid ladder variant");
  const std::size_t need = cuprim::scan_workspace_bytes<std::int32_t, std::int32_t>(n);
  ASSERT_GT(need, 0u);
  cuprim::device_buffer<unsigned char> ws(need);
  poison(ws);
  expect_invalid([&] { cuprim::inclusive_scan(in, out.out(), n, cuprim::plus{}, cuprim::workspace{ws.data(), need - 1}); },
                 "workspace", "workspace one byte short");
  expect_invalid([&] { cuprim::exclusive_scan(in, out.out(), n, cuprim::plus{}, 0, cuprim::workspace{nullptr, need}); },
                 "workspace", "null workspace");
  EXPECT_TRUE(out.untouched()) << "a refused call wrote the output";
  EXPECT_TRUE(bytes_are(ws.data(), need)) << "a refused call wrote the workspace";
  EXPECT_TRUE(input_intact());

  // The output right after the input (adjacent, not overlapping) is fine, as is the exact in-place form.
  cuprim::inclusive_sum(in, base + 8 + n, 8);
  cuprim::inclusive_sum(base, base, 8);
  const auto after = data.dev.to_host_sync();
  std::int32_t s = 0, t = 0;
  for (int i = 0; i < 8; ++i) {
    s += h[8 + i];
    t += h[i];
    EXPECT_EQ(after[std::size_t(8 + n + i)], s) << "adjacent output, element " << i;
    EXPECT_EQ(after[std::size_t(i)], t) << "in place, element " << i;
  }
}

// Sizes whose tile ids do not fit in 32 bits, or whose byte size does not fit in the address space, are invalid
// arguments, refused before anything runs (device/scan.cuh; the pointers here are fake and never dereferenced).
TEST_F(ScanApi, HugeCountsAreInvalidArguments) {
  constexpr std::int64_t tile = scan_tile<std::uint8_t>();
  const std::int64_t too_many_tiles = std::int64_t(0x80000000ll) * tile;  // 2^31 tiles
  const auto* fake_in = reinterpret_cast<const std::uint8_t*>(std::uintptr_t(1) << 40);
  auto* fake_out = reinterpret_cast<std::uint8_t*>((std::uintptr_t(1) << 40) + (std::uintptr_t(1) << 52));
  // With a (fake) workspace of the reported size: refused by the tile-id check.
  const std::size_t need = cuprim::scan_workspace_bytes<std::uint8_t>(too_many_tiles);
  const cuprim::workspace fake_ws{reinterpret_cast<void*>(std::uintptr_t(1) << 45), need};
  expect_invalid([&] { cuprim::inclusive_scan(fake_in, fake_out, too_many_tiles, cuprim::plus{}, fake_ws); }, "n",
                 "2^31 tiles, caller's workspace");
  expect_invalid([&] { cuprim::exclusive_scan(fake_in, fake_out, too_many_tiles, cuprim::plus{}, std::uint8_t{0}, fake_ws); },
                 "n", "2^31 tiles, caller's workspace (exclusive)");
  // Through the allocating overload: the count is just as invalid (the workspace it would need is about 3·10^12
  // bytes).
  expect_invalid([&] { cuprim::inclusive_sum(fake_in, fake_out, std::int64_t(1) << 52); }, "n",
                 "2^52 elements, allocating overload");
  // n · sizeof(T) beyond the address space: out = in + 1 overlaps, whatever the arithmetic wraps to.
  const auto* in32 = reinterpret_cast<const std::int32_t*>(std::uintptr_t(1) << 40);
  auto* out32 = const_cast<std::int32_t*>(in32) + 1;
  for (std::int64_t n : {std::int64_t(1) << 62, INT64_MAX}) {
    try {
      cuprim::inclusive_sum(in32, out32, n);
      ADD_FAILURE() << "n = " << n << ": no exception";
    } catch (const cuprim::invalid_argument& e) {
      EXPECT_TRUE(e.argument() == "n" || e.argument() == "out") << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "n = " << n << " with out = in + 1: expected cuprim::invalid_argument, got: " << e.what();
    }
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a refused call left an error pending";
}

// ---- an error left pending by someone else

using cuprim_test::expect_pre_existing;

TEST_F(ScanApi, PendingErrorIsReportedAsPreExistingAndNothingWritten) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = (std::int64_t(1) << 20) + 7;
  const scan_input<float> data(random_vector<float>(r, std::size_t(n)));
  guarded_array<float> out(n);
  cuprim::device_buffer<unsigned char> ws(cuprim::scan_workspace_bytes<float>(n));
  poison(ws);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  expect_pre_existing([&] { cuprim::inclusive_scan(data.d(), out.out(), n, cuprim::plus{}); }, "inclusive_scan");
  expect_pre_existing([&] { cuprim::exclusive_scan(data.d(), out.out(), n, cuprim::plus{}, 0.0f); }, "exclusive_scan");
  expect_pre_existing([&] { cuprim::inclusive_sum(data.d(), out.out(), n); }, "inclusive_sum");
  expect_pre_existing([&] { cuprim::exclusive_sum(data.d(), out.out(), 10); }, "exclusive_sum, one tile");
  expect_pre_existing(
      [&] { cuprim::inclusive_scan(data.d(), out.out(), n, cuprim::plus{}, cuprim::workspace{ws.data(), ws.bytes()}); },
      "inclusive_scan with workspace");
  for (auto v : cuprim::ladder::scan_variants)
    expect_pre_existing([&] { cuprim::ladder::inclusive_scan(v, data.d(), out.out(), n, cuprim::plus{}, 0.0f); },
                        "ladder::inclusive_scan");
  (void)cudaGetLastError();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(out.untouched()) << "the output was written despite the pending error";
  EXPECT_TRUE(bytes_are(ws.data(), ws.bytes())) << "the workspace was written despite the pending error";
  cuprim::inclusive_sum(data.d(), out.out(), n);
  expect_scan_matches(out.take(), make_reference<float, float>(data.h(), n, cuprim::plus{}, false), n,
                      scan_tile<float>(), "after the error was cleared");
}

// ---- huge inputs (CUPRIM_TEST_LARGE=0 skips them)

class ScanLarge : public gpu_test {};

TEST_F(ScanLarge, TwoToThe28) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = std::int64_t(1) << 28;
  {
    const scan_input<std::uint32_t> data(random_vector<std::uint32_t>(r, std::size_t(n)));
    const auto* x = data.h();
    cuprim::device_buffer<std::uint32_t> out(static_cast<std::size_t>(n));
    cuprim::inclusive_sum(data.d(), out.data(), n);
    std::vector<std::uint32_t> got = out.to_host_sync();
    std::uint32_t s = 0;
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      s += x[i];
      if (got[std::size_t(i)] != s && bad++ < 5) ADD_FAILURE() << "uint32 inclusive_sum, element " << i;
    }
    EXPECT_EQ(bad, 0) << "uint32 inclusive_sum: elements wrong";
    const std::uint32_t init = static_cast<std::uint32_t>(r.next());
    cuprim::exclusive_scan(data.d(), out.data(), n, cuprim::plus{}, init);
    got = out.to_host_sync();
    s = init;
    bad = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      if (got[std::size_t(i)] != s && bad++ < 5) ADD_FAILURE() << "uint32 exclusive_scan, element " << i;
      s += x[i];
    }
    EXPECT_EQ(bad, 0) << "uint32 exclusive_scan: elements wrong";
  }
  {
    const scan_input<float> data(fast_float_vector(r, std::size_t(n)));
    cuprim::device_buffer<float> out(static_cast<std::size_t>(n));
    cuprim::inclusive_sum(data.d(), out.data(), n);
    const std::vector<float> got = out.to_host_sync();
    long double s = 0, a = 0;  // the reference, element by element (a stored one would take 8 GiB)
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      s += data.host[std::size_t(i)];
      a += std::fabs(data.host[std::size_t(i)]);
      const double tol = float_tolerance<float>(i, scan_bound_tile<float>(), s, a);
      if (!(std::fabs(static_cast<long double>(got[std::size_t(i)]) - s) <= tol) && bad++ < 5)
        ADD_FAILURE() << "float inclusive_sum, element " << i << ": got " << got[std::size_t(i)] << ", reference "
                      << static_cast<double>(s) << ", bound " << tol;
    }
    EXPECT_EQ(bad, 0) << "float inclusive_sum: elements wrong";
  }
  {
    std::vector<affine_map> h(static_cast<std::size_t>(n));
    for (auto& f : h) f = random_affine(r);
    const scan_input<affine_map> data(std::move(h));
    cuprim::device_buffer<affine_map> out(static_cast<std::size_t>(n));
    cuprim::inclusive_scan(data.d(), out.data(), n, compose{});
    const std::vector<affine_map> got = out.to_host_sync();
    affine_map acc = data.host[0];
    std::int64_t bad = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      if (i > 0) acc = compose{}(acc, data.host[std::size_t(i)]);
      if (got[std::size_t(i)] != acc && bad++ < 5) ADD_FAILURE() << "affine inclusive_scan, element " << i;
    }
    EXPECT_EQ(bad, 0) << "affine inclusive_scan: elements wrong";
  }
}

/// Downloads [0, n) of a device array in chunks and hands each to check(first_index, values, count).
template <class T, class F>
void for_each_chunk(const T* d, std::uint64_t n, F&& check) {
  constexpr std::size_t chunk = std::size_t(1) << 23;
  T* pinned = nullptr;
  std::vector<T> pageable;
  if (cudaMallocHost(&pinned, chunk * sizeof(T)) != cudaSuccess) {
    (void)cudaGetLastError();
    pinned = nullptr;
    pageable.resize(chunk);
  }
  T* buf = pinned ? pinned : pageable.data();
  for (std::uint64_t base = 0; base < n; base += chunk) {
    const std::size_t count = std::size_t(std::min<std::uint64_t>(chunk, n - base));
    ASSERT_EQ(cudaMemcpy(buf, d + base, count * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    if (!check(base, buf, count)) break;
  }
  if (pinned) cudaFreeHost(pinned);
}

// More than 2^31 elements: 64-bit sizes, tile ids past 2^17 and element indices past 2^31 throughout. uint8 data
// scanned into uint64 (sums past 2^32), then the same data scanned in place in uint8 (wrapping), both checked
// exactly, element by element.
TEST_F(ScanLarge, Uint8Beyond2e31) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = (std::int64_t(1) << 31) + (std::int64_t(1) << 20) + 13;
  cuprim::device_buffer<std::uint8_t> in(static_cast<std::size_t>(n));
  std::vector<std::uint8_t> h = random_vector<std::uint8_t>(r, std::size_t(n));
  upload(in.data(), h);
  std::int64_t bad = 0;
  {
    cuprim::device_buffer<std::uint64_t> out(static_cast<std::size_t>(n));
    cuprim::inclusive_sum(in.data(), out.data(), n);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::uint64_t s = 0;
    for_each_chunk(out.data(), std::uint64_t(n), [&](std::uint64_t base, const std::uint64_t* got, std::size_t count) {
      for (std::size_t j = 0; j < count; ++j) {
        s += h[base + j];
        if (got[j] != s) {
          if (bad < 5) ADD_FAILURE() << "uint8 into uint64: element " << base + j << " is " << got[j] << ", expected " << s;
          ++bad;
        }
      }
      return bad < 1000;
    });
    EXPECT_EQ(bad, 0) << "uint8 into uint64: elements wrong";
    EXPECT_GT(s, std::uint64_t(1) << 32) << "the sums did not pass 2^32";
  }
  bad = 0;
  const auto init = static_cast<std::uint8_t>(r.next());
  cuprim::exclusive_scan(in.data(), in.data(), n, cuprim::plus{}, init);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::uint8_t s = init;
  for_each_chunk(in.data(), std::uint64_t(n), [&](std::uint64_t base, const std::uint8_t* got, std::size_t count) {
    for (std::size_t j = 0; j < count; ++j) {
      if (got[j] != s) {
        if (bad < 5) ADD_FAILURE() << "uint8 exclusive in place: element " << base + j << " is " << +got[j]
                                   << ", expected " << +s;
        ++bad;
      }
      s = static_cast<std::uint8_t>(s + h[base + j]);
    }
    return bad < 1000;
  });
  EXPECT_EQ(bad, 0) << "uint8 exclusive_scan in place: elements wrong";
}

}  // namespace
}  // namespace cuprim_test
