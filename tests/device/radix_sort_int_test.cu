// Radix sort of every integer key type against std::stable_sort (keys and stable pairs, both directions, sizes
// around the one-block limit and the tile, edge values, duplicates, sorted / reversed / low-entropy inputs).
#include "device/radix_sort_cases.hpp"

namespace {

template <class K>
class RadixSortInt : public cuprim_test::gpu_test {};
using int_keys = ::testing::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t,
                                  std::uint64_t, std::int64_t>;
TYPED_TEST_SUITE(RadixSortInt, int_keys, cuprim_test::type_names);

TYPED_TEST(RadixSortInt, MatchesStableSort) {
  CUPRIM_TEST_RNG(r);
  radix_test::run_all<TypeParam>(r);
}

}  // namespace
