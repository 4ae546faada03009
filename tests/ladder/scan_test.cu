// cuprim::ladder::inclusive_scan: every rung (Hillis-Steele, Blelloch, reduce-then-scan, decoupled look-back)
// computes what cuprim::inclusive_scan computes. Sizes around one and two Hillis-Steele passes, the Blelloch tile
// (1024), the reduce-then-scan tile (4096 uint32 / 2048 affine maps), sizes that make Blelloch and
// reduce-then-scan recurse over their block sums (2^20 + 7, 2^24 + 1); out of place (input and output aligned,
// and both one element off) and in place. Configurations: uint32 plus and uint32 max (identity 0), affine maps
// (non-commutative, identity {1, 0}), and __half into __half (float accumulation: Blelloch keeps its block scans
// in a float buffer) on integer-valued data that is exact in half. Every comparison is exact.
#include "ladder/scan.cuh"

#include "common/scan_types.hpp"
#include "common/test_util.hpp"
#include "device/scan_cases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace cuprim_test {
namespace {

struct uint32_plus {
  static constexpr const char* name = "uint32_plus";
  using T = std::uint32_t;
  using op_t = cuprim::plus;
  static T identity() { return 0u; }
  static std::vector<T> data(rng& r, std::size_t n) { return random_vector<T>(r, n); }
  static std::vector<T> reference(const T* x, std::int64_t n) {
    return make_reference<T, T>(x, n, op_t{}, false).exact;
  }
};

struct uint32_max {
  static constexpr const char* name = "uint32_max";
  using T = std::uint32_t;
  using op_t = cuprim::maximum;
  static T identity() { return 0u; }
  // Running maxima change often only if the data are not all near the top: mix full-range and small values.
  static std::vector<T> data(rng& r, std::size_t n) {
    std::vector<T> v = random_vector<T>(r, n);
    for (auto& x : v) x >>= (x & 31u);
    return v;
  }
  static std::vector<T> reference(const T* x, std::int64_t n) {
    std::vector<T> out(static_cast<std::size_t>(n));
    T m = 0;
    for (std::int64_t i = 0; i < n; ++i) out[std::size_t(i)] = m = std::max(m, x[i]);
    return out;
  }
};

struct affine_compose {
  static constexpr const char* name = "affine_map";
  using T = affine_map;
  using op_t = compose;
  static T identity() { return affine_identity; }
  static std::vector<T> data(rng& r, std::size_t n) { return random_scan_vector<T>(r, n); }
  static std::vector<T> reference(const T* x, std::int64_t n) {
    return make_reference<T, T>(x, n, op_t{}, false).exact;
  }
};

struct half_plus {
  static constexpr const char* name = "half_plus";
  using T = __half;
  using op_t = cuprim::plus;
  static T identity() { return from_double<__half>(0.0); }
  // Prefixes within ±1000: exact in half, every partial sum exact in float.
  static std::vector<T> data(rng& r, std::size_t n) { return bounded_walk<T>(r, n, 1000, 3); }
  static std::vector<T> reference(const T* x, std::int64_t n) {
    std::vector<T> out(static_cast<std::size_t>(n));
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) out[std::size_t(i)] = from_double<T>(s += to_double(x[i]));
    return out;
  }
};

std::vector<std::int64_t> ladder_sizes() {
  return {0,    1,    2,    3,    4,    5,    31,   32,   33,   1023, 1024,
          1025, 2047, 2049, 4095, 4096, 4097, (std::int64_t(1) << 20) + 7};
}

template <class C>
class ScanLadder : public typed_gpu_test<C> {};
using ladder_configs = ::testing::Types<uint32_plus, uint32_max, affine_compose, half_plus>;
TYPED_TEST_SUITE(ScanLadder, ladder_configs, type_names);

/// Every rung at every size: out of place at offsets (0, 0) and (1, 1), and in place.
template <class C>
void check_ladder(rng& r, const std::vector<std::int64_t>& sizes) {
  using T = typename C::T;
  using Op = typename C::op_t;
  const std::int64_t m = *std::max_element(sizes.begin(), sizes.end());
  const scan_input<T> data(C::data(r, std::size_t(m) + 1));
  const std::vector<T> ref[2] = {C::reference(data.h(0), m), C::reference(data.h(1), m)};
  if constexpr (std::is_same_v<T, affine_map>) EXPECT_NE(ref[0].back(), reversed_fold(data.h(0), std::size_t(m), Op{}));
  for (std::int64_t n : sizes) {
    for (cuprim::ladder::scan_variant v : cuprim::ladder::scan_variants) {
      SCOPED_TRACE(std::string("rung ") + std::string(cuprim::ladder::to_string(v)));
      for (int off : {0, 1}) {
        CUPRIM_SCAN_TRACE(n, off, off);
        guarded_array<T> out(n, off);
        cuprim::ladder::inclusive_scan(v, data.d(off), out.out(), n, Op{}, C::identity());
        expect_same_values(out.take(), ref[off].data(), n, "out of place");
      }
      CUPRIM_SCAN_TRACE(n, 0, 0);
      guarded_array<T> buf(n);
      buf.fill(data.h(0));
      cuprim::ladder::inclusive_scan(v, buf.out(), buf.out(), n, Op{}, C::identity());
      expect_same_values(buf.take(), ref[0].data(), n, "in place");
    }
  }
}

TYPED_TEST(ScanLadder, EveryRungEverySize) {
  CUPRIM_TEST_RNG(r);
  check_ladder<TypeParam>(r, ladder_sizes());
}

TYPED_TEST(ScanLadder, EveryRungTwoToThe24PlusOne) {
  CUPRIM_TEST_RNG(r);
  check_ladder<TypeParam>(r, {(std::int64_t(1) << 24) + 1});
}

// The rungs convert each input to the output's accumulator: int8 scanned into int64 does not wrap at 8 bits.
class ScanLadderWiden : public gpu_test {};

TEST_F(ScanLadderWiden, Int8IntoInt64EveryRung) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t m = 70001;
  const scan_input<std::int8_t> data(random_vector<std::int8_t>(r, std::size_t(m)));
  const auto ref = make_reference<std::int8_t, std::int64_t>(data.h(), m, cuprim::plus{}, false);
  for (std::int64_t n : {std::int64_t(1), std::int64_t(2), std::int64_t(1025), m}) {
    for (cuprim::ladder::scan_variant v : cuprim::ladder::scan_variants) {
      SCOPED_TRACE(std::string("rung ") + std::string(cuprim::ladder::to_string(v)) + ", n = " + std::to_string(n));
      guarded_array<std::int64_t> out(n);
      cuprim::ladder::inclusive_scan(v, data.d(), out.out(), n, cuprim::plus{}, 0);
      expect_same_values(out.take(), ref.exact.data(), n, "int8 into int64");
    }
  }
}

// An invalid rung or overlapping arguments are refused before anything is written.
class ScanLadderArgs : public gpu_test {};

TEST_F(ScanLadderArgs, InvalidArgumentsWriteNothing) {
  CUPRIM_TEST_RNG(r);
  const std::vector<std::uint32_t> h = random_vector<std::uint32_t>(r, 3000);
  scan_input<std::uint32_t> data(h);
  guarded_array<std::uint32_t> out(2000);
  for (int bad : {static_cast<int>(cuprim::ladder::scan_variants.size()), 17, -1}) {
    EXPECT_THROW(cuprim::ladder::inclusive_scan(static_cast<cuprim::ladder::scan_variant>(bad), data.d(), out.out(),
                                                2000, cuprim::plus{}, 0u),
                 cuprim::invalid_argument)
        << bad;
  }
  EXPECT_TRUE(out.untouched());
  for (cuprim::ladder::scan_variant v : cuprim::ladder::scan_variants) {
    EXPECT_THROW(cuprim::ladder::inclusive_scan(v, data.d(), data.dev.data() + 1000, 2000, cuprim::plus{}, 0u),
                 cuprim::invalid_argument)
        << cuprim::ladder::to_string(v);
    EXPECT_THROW(cuprim::ladder::inclusive_scan(v, data.d(), out.out(), -5, cuprim::plus{}, 0u),
                 cuprim::invalid_argument);
  }
  EXPECT_EQ(data.dev.to_host_sync(), h) << "the input was modified";
  EXPECT_TRUE(out.untouched());
}

}  // namespace
}  // namespace cuprim_test
