// histogram_even / histogram_range on integer samples (uint8 … uint64, int8 … int64) against the host reference:
// bin counts 1, 2, 255, 256, 257, 4096, 65536 and 2^20; levels covering the type's whole range (the 32-bit shift
// path for powers of two) and an inner interval (samples below, inside, at and above the levels); random sorted
// edges with an empty bin; samples at the boundaries; every form (overwrite, add, caller workspace on a stream);
// inputs at element offsets 0..2 from an aligned allocation. uint32 counters, and uint64 for some types. The byte
// path of 1-byte samples at every power-of-two bin width, with runs of equal bytes.
#include "device/histogram_cases.hpp"

namespace cuprim_test::hist {
namespace {

TEST(HistogramInt, Uint8) { CUPRIM_REQUIRE_GPU(); sweep_type<std::uint8_t, std::uint32_t>(); }
TEST(HistogramInt, Int8) { CUPRIM_REQUIRE_GPU(); sweep_type<std::int8_t, std::uint32_t>(); }
TEST(HistogramInt, Uint16) { CUPRIM_REQUIRE_GPU(); sweep_type<std::uint16_t, std::uint32_t>(); }
TEST(HistogramInt, Int16) { CUPRIM_REQUIRE_GPU(); sweep_type<std::int16_t, std::uint64_t>(); }
TEST(HistogramInt, Uint32) { CUPRIM_REQUIRE_GPU(); sweep_type<std::uint32_t, std::uint32_t>(); }
TEST(HistogramInt, Int32) { CUPRIM_REQUIRE_GPU(); sweep_type<std::int32_t, std::uint32_t>(); }
TEST(HistogramInt, Uint64) { CUPRIM_REQUIRE_GPU(); sweep_type<std::uint64_t, std::uint64_t>(); }
TEST(HistogramInt, Int64) { CUPRIM_REQUIRE_GPU(); sweep_type<std::int64_t, std::uint32_t>(); }

/// The byte path (1-byte samples, levels covering the type, power-of-two bin width: every shift from 0 to 8):
/// random bytes, runs of 16 equal bytes (the one-atomic vector branch) mixed with random ones, all bytes equal,
/// at element offsets 0..3 and with a tail; uint32 and uint64 counters.
template <class S, class C>
void byte_path_sweep() {
  using L = level_t<S>;
  const auto [lo, hi] = levels_for<S>(true);
  for (int nb : {1, 2, 4, 16, 64, 128, 256}) {
    const std::uint64_t seed = base_seed() ^ 0xB7 ^ (std::uint64_t(nb) << 8) ^ sizeof(C);
    rng r(seed);
    const std::int64_t n = 3 * 65536 + 1 + std::int64_t(r.index(64));
    std::vector<S> x(static_cast<std::size_t>(n));
    for (auto& v : x) v = static_cast<S>(r.next());
    for (std::size_t i = 0; i + 16 <= x.size(); i += 48) {  // runs of 16 equal bytes at every alignment
      const S v = static_cast<S>(r.next());
      for (int j = 0; j < 16; ++j) x[i + std::size_t(j)] = v;
    }
    check_single<S, C, L>(x, nb, lo, hi, nullptr, seed, int(r.index(4)));
    if (::testing::Test::HasFatalFailure()) return;
    std::vector<S> same(static_cast<std::size_t>(n), static_cast<S>(r.next()));
    check_single<S, C, L>(same, nb, lo, hi, nullptr, seed, int(r.index(4)));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(HistogramInt, BytePathUint8) { CUPRIM_REQUIRE_GPU(); byte_path_sweep<std::uint8_t, std::uint32_t>(); }
TEST(HistogramInt, BytePathInt8) { CUPRIM_REQUIRE_GPU(); byte_path_sweep<std::int8_t, std::uint64_t>(); }

/// The exact rule's three paths (shift, multiply-high, 128-bit) at their edges: 64-bit ranges with bin counts
/// that do and do not divide them.
TEST(HistogramInt, ExactRulePaths) {
  CUPRIM_REQUIRE_GPU();
  const std::uint64_t seed = base_seed() ^ 0xE1;
  rng r(seed);
  struct lv { std::int64_t lo, hi; int nb; };
  for (lv c : {lv{std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), 1000},
               lv{std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), 1 << 20},
               lv{-1000, 1000, 3}, lv{-7, 1LL << 40, 1 << 16}, lv{5, 6, 7}}) {
    auto x = make_samples<std::int64_t>(r, 50001, c.lo, c.hi, c.nb);
    const auto span = std::uint64_t(std::max<__int128>(1, std::min<__int128>((__int128)c.hi - c.lo, INT64_MAX)));
    for (auto& v : x)
      if (r.index(2)) v = c.lo + std::int64_t(r.next() % span);
    check_single<std::int64_t, std::uint64_t, std::int64_t>(x, c.nb, c.lo, c.hi, nullptr, seed);
  }
  // uint8 with floating-point levels (the floating-point rule on integer samples).
  auto y = make_samples<std::uint8_t>(r, 70001, std::int64_t(0), std::int64_t(256), 10);
  check_single<std::uint8_t, std::uint32_t, double>(y, 10, 0.5, 200.25, nullptr, seed);
  check_single<std::uint8_t, std::uint32_t, float>(y, 3, 10.0f, 250.0f, nullptr, seed);
}

}  // namespace
}  // namespace cuprim_test::hist
