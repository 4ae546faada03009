// cuprim::inclusive_scan / exclusive_scan / inclusive_sum / exclusive_sum over the floating types: float, double,
// __half and __nv_bfloat16 (accumulated in float, stored in their own type), and __half into float, at every size
// of scan_sizes, input and output aligned and both one element off. Random data is compared per element with a
// long double reference within a bound derived from eps, the prefix's Σ|x| and the tile structure
// (float_tolerance); integer-valued data whose every partial sum is exact in the accumulator must come out exact,
// which a dropped, doubled or misplaced element cannot.
#include <cuprim/device/scan.cuh>

#include "common/test_util.hpp"
#include "device/scan_cases.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace cuprim_test {
namespace {

struct float_plus : scan_config<float, float, cuprim::plus> {
  static constexpr const char* name = "float";
};
struct double_plus : scan_config<double, double, cuprim::plus> {
  static constexpr const char* name = "double";
};
struct half_plus : scan_config<__half, __half, cuprim::plus> {
  static constexpr const char* name = "half";
};
struct bfloat16_plus : scan_config<__nv_bfloat16, __nv_bfloat16, cuprim::plus> {
  static constexpr const char* name = "bfloat16";
};
struct half_to_float : scan_config<__half, float, cuprim::plus> {
  static constexpr const char* name = "half_to_float";
};

template <class C>
class ScanFloat : public typed_gpu_test<C> {};
using float_configs = ::testing::Types<float_plus, double_plus, half_plus, bfloat16_plus, half_to_float>;
TYPED_TEST_SUITE(ScanFloat, float_configs, type_names);

TYPED_TEST(ScanFloat, EverySize) {
  CUPRIM_TEST_RNG(r);
  check_scan_sweep<TypeParam>(r);
}

/// The largest |prefix| (and step) of integer-valued data that every partial result, and the stored prefix, hold
/// exactly: half has 11 significant bits (2048), bfloat16 8 (256); float accumulation has 24.
template <class Out>
constexpr int exact_limit() {
  if constexpr (std::is_same_v<Out, __half>) return 1000;
  else if constexpr (std::is_same_v<Out, __nv_bfloat16>) return 120;
  else return 1 << 20;
}

TYPED_TEST(ScanFloat, IntegerValuedDataIsExact) {
  using In = typename TypeParam::in_t;
  using Out = typename TypeParam::out_t;
  using Acc = cuprim::accumulator_t<Out>;
  CUPRIM_TEST_RNG(r);
  constexpr std::int64_t tile = scan_tile<In>();
  const std::vector<std::int64_t> sizes = scan_sizes<In>();
  const std::int64_t m = *std::max_element(sizes.begin(), sizes.end());
  constexpr int limit = std::min(exact_limit<In>(), exact_limit<Out>());
  const scan_input<In> data(bounded_walk<In>(r, std::size_t(m) + 1, limit - 8, limit >= 1000 ? 4 : 2));
  const Acc init = static_cast<Acc>(r.between(-8, 8));
  for (int off : {0, 1}) {
    // With exact arithmetic the reference is exact too; compare as exact values (a zero bound).
    std::vector<Out> incl(static_cast<std::size_t>(m)), excl(static_cast<std::size_t>(m));
    double s = 0;
    for (std::int64_t i = 0; i < m; ++i) {
      excl[std::size_t(i)] = from_double<Out>(s + static_cast<double>(init));
      s += to_double(data.h(off)[i]);
      incl[std::size_t(i)] = from_double<Out>(s);
      ASSERT_EQ(to_double(incl[std::size_t(i)]), s) << "the data is not exact in the output type";
    }
    for (std::int64_t n : sizes) {
      CUPRIM_SCAN_TRACE(n, off, off);
      guarded_array<Out> out(n, off);
      cuprim::inclusive_scan(data.d(off), out.out(), n, cuprim::plus{});
      expect_same_values(out.take(), incl.data(), n, "inclusive_scan");
      out.reset();
      cuprim::exclusive_scan(data.d(off), out.out(), n, cuprim::plus{}, init);
      expect_same_values(out.take(), excl.data(), n, "exclusive_scan");
    }
  }
}

}  // namespace
}  // namespace cuprim_test
