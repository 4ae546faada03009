// cuprim::inclusive_scan / exclusive_scan / inclusive_sum / exclusive_sum over the integer types (int8 widened
// into int64, and int32 / uint32 / int64 / uint64 in their own type) and over user structs with a
// non-commutative operator (affine maps over uint32: 8 bytes; over uint16: 4 bytes, the packed tile state), at
// every size of scan_sizes (empty, around the warp, the tile, two tiles, 2^20 + 7 and 300 tiles), input and output
// aligned and both one element off. Exact comparison with independent host references.
#include <cuprim/device/scan.cuh>

#include "common/scan_types.hpp"
#include "common/test_util.hpp"
#include "device/scan_cases.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace cuprim_test {
namespace {

struct int8_to_int64 : scan_config<std::int8_t, std::int64_t, cuprim::plus> {
  static constexpr const char* name = "int8_to_int64";
};
struct int32_plus : scan_config<std::int32_t, std::int32_t, cuprim::plus> {
  static constexpr const char* name = "int32";
};
struct uint32_plus : scan_config<std::uint32_t, std::uint32_t, cuprim::plus> {
  static constexpr const char* name = "uint32";
};
struct int64_plus : scan_config<std::int64_t, std::int64_t, cuprim::plus> {
  static constexpr const char* name = "int64";
};
struct uint64_plus : scan_config<std::uint64_t, std::uint64_t, cuprim::plus> {
  static constexpr const char* name = "uint64";
};
struct affine_compose : scan_config<affine_map, affine_map, compose> {
  static constexpr const char* name = "affine_map";
};
struct affine16_compose : scan_config<affine16, affine16, compose16> {
  static constexpr const char* name = "affine16";
};

template <class C>
class ScanInt : public typed_gpu_test<C> {};
using int_configs = ::testing::Types<int8_to_int64, int32_plus, uint32_plus, int64_plus, uint64_plus, affine_compose,
                                     affine16_compose>;
TYPED_TEST_SUITE(ScanInt, int_configs, type_names);

TYPED_TEST(ScanInt, EverySize) {
  CUPRIM_TEST_RNG(r);
  check_scan_sweep<TypeParam>(r);
}

}  // namespace
}  // namespace cuprim_test
