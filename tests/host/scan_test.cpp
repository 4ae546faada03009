// Host tests of the sequential scan references (cuprim/host/scan.hpp): the seed's rows, in place, empty and
// negative counts (nothing written), accumulation in the output's accumulator (int8 widened into int64 or
// wrapping in int8; 16-bit floats accumulated in float and rounded on every store; float data into a double
// reference), non-commutative operators in sequence order, and random data against independent references.
// No CUDA device needed.
#include <cuprim/core/functional.cuh>
#include <cuprim/host/scan.hpp>

#include "common/scan_types.hpp"
#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using cuprim_test::affine_map;
using cuprim_test::compose;
using cuprim_test::to_double;

const std::vector<int> seed_values = {4, 0, 5, 5, 0, 5, 5, 1, 3, 1, 0, 3, 1, 1, 3, 5};
const std::vector<int> seed_inclusive = {4, 4, 9, 14, 14, 19, 24, 25, 28, 29, 29, 32, 33, 34, 37, 42};
const std::vector<int> seed_exclusive = {0, 4, 4, 9, 14, 14, 19, 24, 25, 28, 29, 29, 32, 33, 34, 37};

TEST(HostScan, SeedRows) {
  // The rows follow from the definition ...
  for (int i = 0; i < 16; ++i) {
    int incl = 0, excl = 0;
    for (int j = 0; j <= i; ++j) incl += seed_values[j];
    for (int j = 0; j < i; ++j) excl += seed_values[j];
    ASSERT_EQ(incl, seed_inclusive[i]) << i;
    ASSERT_EQ(excl, seed_exclusive[i]) << i;
  }
  // ... and every form gives them.
  std::vector<int> out(16, -1);
  cuprim::host::inclusive_sum(seed_values.data(), out.data(), 16);
  EXPECT_EQ(out, seed_inclusive);
  out.assign(16, -1);
  cuprim::host::exclusive_sum(seed_values.data(), out.data(), 16);
  EXPECT_EQ(out, seed_exclusive);
  out.assign(16, -1);
  cuprim::host::inclusive_scan(seed_values.data(), out.data(), 16, cuprim::plus{});
  EXPECT_EQ(out, seed_inclusive);
  out.assign(16, -1);
  cuprim::host::exclusive_scan(seed_values.data(), out.data(), 16, cuprim::plus{}, 0);
  EXPECT_EQ(out, seed_exclusive);
  // With an init, every exclusive element moves by it.
  out.assign(16, -1);
  cuprim::host::exclusive_scan(seed_values.data(), out.data(), 16, cuprim::plus{}, 100);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], seed_exclusive[i] + 100) << i;
  // The seed's ScanSeqInc works in place.
  std::vector<int> v = seed_values;
  cuprim::host::inclusive_sum(v.data(), v.data(), 16);
  EXPECT_EQ(v, seed_inclusive);
  v = seed_values;
  cuprim::host::exclusive_sum(v.data(), v.data(), 16);
  EXPECT_EQ(v, seed_exclusive);
}

TEST(HostScan, OtherOperators) {
  const std::vector<int> v = {3, -1, 4, -1, 5, -9, 2, 6};
  std::vector<int> out(8);
  cuprim::host::inclusive_scan(v.data(), out.data(), 8, cuprim::maximum{});
  EXPECT_EQ(out, (std::vector<int>{3, 3, 4, 4, 5, 5, 5, 6}));
  cuprim::host::inclusive_scan(v.data(), out.data(), 8, cuprim::minimum{});
  EXPECT_EQ(out, (std::vector<int>{3, -1, -1, -1, -1, -9, -9, -9}));
  cuprim::host::exclusive_scan(v.data(), out.data(), 5, cuprim::multiplies{}, 1);
  EXPECT_EQ(std::vector<int>(out.begin(), out.begin() + 5), (std::vector<int>{1, 3, -3, -12, 12}));
}

TEST(HostScan, EmptyOrNegativeCountWritesNothing) {
  std::vector<int> out(4, -7);
  const std::vector<int> in = {1, 2, 3, 4};
  for (std::int64_t n : {std::int64_t(0), std::int64_t(-1), INT64_MIN}) {
    cuprim::host::inclusive_scan(in.data(), out.data(), n, cuprim::plus{});
    cuprim::host::exclusive_scan(in.data(), out.data(), n, cuprim::plus{}, 9);
    cuprim::host::inclusive_sum(in.data(), out.data(), n);
    cuprim::host::exclusive_sum(in.data(), out.data(), n);
    EXPECT_EQ(out, (std::vector<int>(4, -7))) << "n = " << n;
  }
  // Null pointers are never touched when there is nothing to scan.
  cuprim::host::inclusive_sum(static_cast<const int*>(nullptr), static_cast<int*>(nullptr), 0);
  cuprim::host::exclusive_scan(static_cast<const int*>(nullptr), static_cast<int*>(nullptr), 0, cuprim::plus{}, 1);
}

TEST(HostScan, AccumulatesInTheOutputsType) {
  // 200 × 100: int8 wraps (100, -56, 44, ...), int64 does not.
  const std::vector<std::int8_t> v(200, 100);
  std::vector<std::int8_t> narrow(200);
  std::vector<std::int64_t> wide(200);
  cuprim::host::inclusive_sum(v.data(), narrow.data(), 200);
  cuprim::host::inclusive_sum(v.data(), wide.data(), 200);
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(wide[i], 100 * (i + 1)) << i;
    EXPECT_EQ(narrow[i], static_cast<std::int8_t>(100 * (i + 1))) << i;  // modulo 2^8 (C++20)
  }
  // Negative int8 values sign-extend into int64.
  const std::vector<std::int8_t> neg = {-128, -1, 127, -128};
  std::vector<std::int64_t> out(4);
  cuprim::host::exclusive_scan(neg.data(), out.data(), 4, cuprim::plus{}, std::int64_t{1} << 40);
  EXPECT_EQ(out, (std::vector<std::int64_t>{(1ll << 40), (1ll << 40) - 128, (1ll << 40) - 129, (1ll << 40) - 2}));
  // uint32 wraps modulo 2^32.
  const std::vector<std::uint32_t> u = {0xFFFFFFFFu, 2u, 0xFFFFFFFFu};
  std::vector<std::uint32_t> uo(3);
  cuprim::host::inclusive_sum(u.data(), uo.data(), 3);
  EXPECT_EQ(uo, (std::vector<std::uint32_t>{0xFFFFFFFFu, 1u, 0u}));
}

TEST(HostScan, SixteenBitFloatsAccumulateInFloat) {
  // 4096 ones into __half: the running value is a float (4096 at the end), each store rounds to half (2049 ones
  // store as 2048, ties to even). A __half accumulator would stall at 2048.
  const std::vector<__half> ones(4096, __float2half(1.0f));
  std::vector<__half> out(4096);
  cuprim::host::inclusive_sum(ones.data(), out.data(), 4096);
  EXPECT_EQ(to_double(out[2047]), 2048.0);
  EXPECT_EQ(to_double(out[2048]), 2048.0);  // 2049 rounded to half
  EXPECT_EQ(to_double(out[2049]), 2050.0);
  EXPECT_EQ(to_double(out[4095]), 4096.0);
  // Into float: exact all the way.
  std::vector<float> f(4096);
  cuprim::host::inclusive_sum(ones.data(), f.data(), 4096);
  for (int i = 0; i < 4096; ++i) ASSERT_EQ(f[i], float(i + 1)) << i;
  // bfloat16 (8 significant bits): 1000 ones, exclusive; stored values are rounded to bfloat16.
  const std::vector<__nv_bfloat16> b(1000, __float2bfloat16(1.0f));
  std::vector<__nv_bfloat16> bo(1000);
  cuprim::host::exclusive_sum(b.data(), bo.data(), 1000);
  EXPECT_EQ(to_double(bo[0]), 0.0);
  EXPECT_EQ(to_double(bo[257]), 256.0);  // 257 rounds to 256
  EXPECT_EQ(to_double(bo[999]), 1000.0);  // 999 rounds to 1000
}

TEST(HostScan, FloatDataIntoADoubleReference) {
  // 0.1f summed 10^6 times: the float scan drifts, the double one (the lab's reference) does not.
  const std::vector<float> v(1000000, 0.1f);
  std::vector<double> d(v.size());
  std::vector<float> f(v.size());
  cuprim::host::inclusive_sum(v.data(), d.data(), std::int64_t(v.size()));
  cuprim::host::inclusive_sum(v.data(), f.data(), std::int64_t(v.size()));
  const double exact = 1e6 * static_cast<double>(0.1f);
  EXPECT_NEAR(d.back(), exact, 1e-3);
  EXPECT_GT(std::fabs(f.back() - exact), 1.0) << "float accumulation unexpectedly exact";
  // The double scan is the sequential double sum, element by element.
  double s = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    s += static_cast<double>(v[i]);
    ASSERT_EQ(d[i], s) << i;
  }
}

TEST(HostScan, NonCommutativeOperatorsKeepSequenceOrder) {
  CUPRIM_TEST_RNG(r);
  const std::size_t n = 1000;
  std::vector<affine_map> f(n);
  for (auto& x : f) x = cuprim_test::random_affine(r);
  std::vector<affine_map> incl(n), excl(n);
  cuprim::host::inclusive_scan(f.data(), incl.data(), std::int64_t(n), compose{});
  const affine_map init = cuprim_test::random_affine(r);
  cuprim::host::exclusive_scan(f.data(), excl.data(), std::int64_t(n), compose{}, init);
  // Element i is "apply f[0], then f[1], ..., then f[i]": check it by applying the maps to points.
  for (std::size_t i = 0; i < n; i += 37) {
    for (std::uint32_t x0 : {0u, 1u, 12345u, 0xDEADBEEFu}) {
      std::uint32_t x = x0;
      for (std::size_t j = 0; j <= i; ++j) x = f[j].a * x + f[j].b;
      EXPECT_EQ(incl[i].a * x0 + incl[i].b, x) << "inclusive, element " << i;
      std::uint32_t y = init.a * x0 + init.b;
      for (std::size_t j = 0; j < i; ++j) y = f[j].a * y + f[j].b;
      EXPECT_EQ(excl[i].a * x0 + excl[i].b, y) << "exclusive, element " << i;
    }
  }
  EXPECT_NE(incl.back(), cuprim_test::reversed_fold(f.data(), n, compose{})) << "degenerate data";
  // 2×2 matrices: element i = M0·M1·...·Mi.
  std::vector<cuprim_test::mat2> m(64), mo(64);
  for (auto& x : m) x = cuprim_test::random_mat2(r);
  cuprim::host::inclusive_scan(m.data(), mo.data(), 64, cuprim_test::mat_mul{});
  cuprim_test::mat2 p = cuprim_test::mat2_identity;
  for (int i = 0; i < 64; ++i) {
    p = cuprim_test::mat_mul{}(p, m[i]);
    EXPECT_EQ(mo[i], p) << i;
  }
  // In place, the same.
  std::vector<affine_map> g = f;
  cuprim::host::inclusive_scan(g.data(), g.data(), std::int64_t(n), compose{});
  EXPECT_EQ(g, incl);
}

TEST(HostScan, RandomIntegersMatchIndependentReference) {
  CUPRIM_TEST_RNG(r);
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1000), std::size_t(100003)}) {
    const auto v = cuprim_test::random_vector<std::uint32_t>(r, n);
    std::vector<std::uint32_t> out(n);
    const auto init = static_cast<std::uint32_t>(r.next());
    cuprim::host::exclusive_scan(v.data(), out.data(), std::int64_t(n), cuprim::plus{}, init);
    for (std::size_t i = 0; i < n; i += 97)
      ASSERT_EQ(out[i], cuprim_test::wrap_sum<std::uint32_t>(v.data(), i, init)) << "n = " << n << ", i = " << i;
    const auto b = cuprim_test::random_vector<std::int8_t>(r, n);
    std::vector<std::int64_t> wide(n);
    cuprim::host::inclusive_sum(b.data(), wide.data(), std::int64_t(n));
    for (std::size_t i = 0; i < n; i += 89)
      ASSERT_EQ(wide[i], cuprim_test::wrap_sum<std::int64_t>(b.data(), i + 1, std::int64_t{0})) << "n = " << n;
    ASSERT_EQ(wide[n - 1], cuprim_test::wrap_sum<std::int64_t>(b.data(), n, std::int64_t{0}));
  }
}

}  // namespace
