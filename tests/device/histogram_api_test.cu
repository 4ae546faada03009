// Histogram entry points beyond the per-type sweeps: multi-channel input (1-4 interleaved channels, chosen
// channels, even and range), n = 0 and 1, every sample in one bin (small, medium and huge histograms), the seed's
// text example, 2^28 samples and n > 2^31 (uint8), the byte binner beyond 256 bins, bad arguments writing nothing,
// and explicit policies (every path under other shapes).

#include "device/histogram_cases.hpp"

#include <array>
#include <cstring>
#include <string>

namespace cuprim_test::hist {
namespace {

template <class S, class C, class L>
void check_multi(int channels, std::vector<int> chosen, std::vector<int> bins, bool range, std::int64_t pixels,
                 std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << "channels=" << channels << " active=" << chosen.size() << " range=" << range
                                    << " pixels=" << pixels << " seed=" << seed);
  rng r(seed);
  const int active = int(chosen.size());
  const auto [lo, hi] = levels_for<S>(false);
  std::vector<L> lower(active, lo), upper(active, hi);
  std::vector<std::vector<L>> edges(active);
  std::vector<const L*> edge_ptrs(active);
  for (int k = 0; k < active; ++k) {
    lower[k] = lo + L(k);
    edges[k] = make_edges<S, L>(r, bins[k], lower[k], upper[k]);
    edge_ptrs[k] = edges[k].data();
  }
  auto x = make_samples<S>(r, pixels * channels, lower[0], upper[0], bins[0]);
  cuprim::device_buffer<S> d(std::max<std::size_t>(x.size(), 1));
  if (!x.empty()) CUPRIM_CUDA_CHECK(cudaMemcpy(d.data(), x.data(), x.size() * sizeof(S), cudaMemcpyHostToDevice));
  std::vector<guarded<C>> h;
  std::vector<C*> ptrs;
  for (int k = 0; k < active; ++k) h.emplace_back(bins[k]);
  for (int k = 0; k < active; ++k) {
    h[k].poison();
    ptrs.push_back(h[k].data());
  }
  if (range)
    cuprim::multi_histogram_range(d.data(), pixels, channels, active, chosen.data(), ptrs.data(), bins.data(),
                                  edge_ptrs.data());
  else
    cuprim::multi_histogram_even(d.data(), pixels, channels, active, chosen.data(), ptrs.data(), bins.data(),
                                 lower.data(), upper.data());
  CUPRIM_CUDA_CHECK(cudaDeviceSynchronize());
  for (int k = 0; k < active; ++k) {
    std::vector<C> want(static_cast<std::size_t>(bins[k]));
    if (range)
      cuprim::host::histogram_range_strided(x.data(), pixels, channels, chosen[k], want.data(), bins[k],
                                            edges[k].data());
    else
      cuprim::host::histogram_even_strided(x.data(), pixels, channels, chosen[k], want.data(), bins[k], lower[k],
                                           upper[k]);
    ASSERT_EQ(first_diff(h[k].get(), want), "") << "channel " << chosen[k];
  }
}

TEST(HistogramMulti, RgbaUint8) {
  CUPRIM_REQUIRE_GPU();
  const std::uint64_t seed = base_seed() ^ 0x4A;
  check_multi<std::uint8_t, std::uint32_t, std::int64_t>(4, {0, 1, 2, 3}, {256, 256, 256, 256}, false, 300001, seed);
  check_multi<std::uint8_t, std::uint32_t, std::int64_t>(4, {2, 0}, {16, 300}, false, 100003, seed + 1);
  check_multi<std::uint8_t, std::uint64_t, std::int64_t>(4, {3}, {255}, true, 100003, seed + 2);
}

TEST(HistogramMulti, ChannelCounts) {
  CUPRIM_REQUIRE_GPU();
  const std::uint64_t seed = base_seed() ^ 0x4B;
  check_multi<float, std::uint32_t, double>(1, {0}, {100}, false, 50001, seed);
  check_multi<float, std::uint32_t, double>(2, {1, 0}, {7, 70000}, false, 50001, seed + 1);
  check_multi<std::int16_t, std::uint32_t, std::int64_t>(3, {0, 2}, {4096, 3}, false, 50001, seed + 2);
  check_multi<std::int16_t, std::uint32_t, std::int64_t>(3, {1, 2, 0}, {5, 600, 1000}, true, 50001, seed + 3);
  check_multi<double, std::uint32_t, double>(4, {3, 1}, {1 << 17, 9}, true, 40001, seed + 4);
  check_multi<std::uint32_t, std::uint32_t, std::int64_t>(2, {0, 1}, {1024, 1 << 20}, false, 0, seed + 5);
  check_multi<std::uint32_t, std::uint32_t, std::int64_t>(2, {0, 1}, {1024, 1 << 20}, false, 1, seed + 6);
}

TEST(Histogram, SmallInputs) {
  CUPRIM_REQUIRE_GPU();
  const std::uint64_t seed = base_seed() ^ 0x11;
  rng r(seed);
  for (std::int64_t n : {0, 1, 2, 15, 16, 17, 33, 1000}) {
    auto x = make_samples<std::uint8_t>(r, n, std::int64_t(0), std::int64_t(256), 256);
    check_single<std::uint8_t, std::uint32_t, std::int64_t>(x, 256, 0, 256, nullptr, seed, int(n % 3));
    auto y = make_samples<double>(r, n, 0.0, 1.0, 5);
    check_single<double, std::uint32_t, double>(y, 5, 0.0, 1.0, nullptr, seed, int(n % 2));
    auto z = make_samples<std::uint32_t>(r, n, std::int64_t(0), std::int64_t(1) << 32, 1 << 20);
    check_single<std::uint32_t, std::uint32_t, std::int64_t>(z, 1 << 20, 0, std::int64_t(1) << 32, nullptr, seed);
  }
}

/// The byte binner with more bins than byte values (levels beyond the type, bins of width one): 257 to 512 bins
/// take the byte path with its two copies, more take the shared path.
TEST(Histogram, ByteBinnerBeyondTheType) {
  CUPRIM_REQUIRE_GPU();
  const std::uint64_t seed = base_seed() ^ 0x2B;
  rng r(seed);
  std::vector<std::uint8_t> x(100003);
  for (auto& v : x) v = std::uint8_t(r.next());
  check_single<std::uint8_t, std::uint32_t, std::int64_t>(x, 512, 0, 512, nullptr, seed, 1);
  check_single<std::uint8_t, std::uint32_t, std::int64_t>(x, 1024, 0, 1024, nullptr, seed, 2);
  std::vector<std::int8_t> y(x.size());
  for (auto& v : y) v = std::int8_t(r.next());
  check_single<std::int8_t, std::uint64_t, std::int64_t>(y, 384, -128, 256, nullptr, seed, 3);
}

/// Every sample in one bin: the contention worst case, through each layout (lanes, shared, global).
TEST(Histogram, AllEqual) {
  CUPRIM_REQUIRE_GPU();
  const std::uint64_t seed = base_seed() ^ 0x22;
  rng r(seed);
  const std::uint8_t b = std::uint8_t(r.next());
  std::vector<std::uint8_t> x(std::size_t(1) << (large_enabled() ? 24 : 16), b);
  check_single<std::uint8_t, std::uint32_t, std::int64_t>(x, 256, 0, 256, nullptr, seed);
  const std::uint32_t v = std::uint32_t(r.next());
  std::vector<std::uint32_t> y(std::size_t(1) << (large_enabled() ? 22 : 14), v);
  for (int nb : {1, 1024, 30000, 1 << 20})
    check_single<std::uint32_t, std::uint32_t, std::int64_t>(y, nb, 0, std::int64_t(1) << 32, nullptr, seed);
}

/// The seed's text example: letters in bins of four (a-d, e-h, i-l, m-p, q-t, u-x, y-z); other characters
/// (the spaces) fall outside [a, a + 28).
TEST(Histogram, Letters) {
  CUPRIM_REQUIRE_GPU();
  const std::string text = "programming massively parallel processors";
  std::array<std::uint32_t, 7> want{};
  for (char c : text)
    if (c >= 'a' && c <= 'z') ++want[std::size_t((c - 'a') / 4)];
  EXPECT_EQ(want, (std::array<std::uint32_t, 7>{5, 5, 6, 10, 10, 1, 1}));
  cuprim::device_buffer<char> d(text.size());
  CUPRIM_CUDA_CHECK(cudaMemcpy(d.data(), text.data(), text.size(), cudaMemcpyHostToDevice));
  guarded<std::uint32_t> h(7);
  h.poison();
  cuprim::histogram_even(reinterpret_cast<const std::int8_t*>(d.data()), std::int64_t(text.size()), h.data(), 7,
                         int('a'), int('a') + 28);
  auto got = h.get();
  for (int i = 0; i < 7; ++i) EXPECT_EQ(got[i], want[i]) << "bin " << i;
}

TEST(Histogram, Large2to28) {
  CUPRIM_REQUIRE_GPU();
  CUPRIM_REQUIRE_LARGE();
  const std::uint64_t seed = base_seed() ^ 0x33;
  rng r(seed);
  std::vector<std::uint32_t> x(std::size_t(1) << 28);
  for (auto& v : x) v = std::uint32_t(r.next());
  check_single<std::uint32_t, std::uint32_t, std::int64_t>(x, 1024, 0, std::int64_t(1) << 32, nullptr, seed);
}

/// n > 2^31 uint8 samples (64-bit indexing), 256 bins; one in 2^20 samples is 255 so bins differ.
TEST(Histogram, MoreThan2to31) {
  CUPRIM_REQUIRE_GPU();
  CUPRIM_REQUIRE_LARGE();
  const std::int64_t n = (std::int64_t(1) << 31) + 4099;
  std::vector<std::uint8_t> x(static_cast<std::size_t>(n));
  std::uint64_t s = base_seed() | 1;
  for (auto& v : x) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    v = std::uint8_t(s >> 56);
  }
  cuprim::device_buffer<std::uint8_t> d(x.size());
  CUPRIM_CUDA_CHECK(cudaMemcpy(d.data(), x.data(), x.size(), cudaMemcpyHostToDevice));
  std::vector<std::uint64_t> want(256);
  cuprim::host::histogram_even(x.data(), n, want.data(), 256, 0, 256);
  guarded<std::uint64_t> h(256);
  h.poison();
  cuprim::histogram_even(d.data(), n, h.data(), 256, 0, 256);
  ASSERT_EQ(first_diff(h.get(), want), "");
  guarded<std::uint32_t> h2(7);
  h2.poison();
  cuprim::histogram_even(d.data(), n, h2.data(), 7, 10.0, 250.0);  // the general path, n > 2^31
  std::vector<std::uint32_t> want2(7);
  cuprim::host::histogram_even(x.data(), n, want2.data(), 7, 10.0, 250.0);
  ASSERT_EQ(first_diff(h2.get(), want2), "");
}

template <class F>
void expect_invalid_nothing_written(F&& call, const char* argument) {
  try {
    call();
    ADD_FAILURE() << "no exception for " << argument;
  } catch (const cuprim::invalid_argument& e) {
    EXPECT_EQ(e.argument(), argument) << e.what();
  }
}

TEST(Histogram, BadArgumentsWriteNothing) {
  CUPRIM_REQUIRE_GPU();
  cuprim::device_buffer<std::uint8_t> d(1000);
  d.fill_bytes(3);
  guarded<std::uint32_t> h(16);
  h.poison();
  std::vector<std::uint32_t> poisoned(16);
  std::memset(poisoned.data(), 0xA5, 64);
  expect_invalid_nothing_written([&] { cuprim::histogram_even(d.data(), 1000, h.data(), 16, 10, 10); }, "lower");
  expect_invalid_nothing_written([&] { cuprim::histogram_even(d.data(), 1000, h.data(), 0, 0, 256); }, "num_bins");
  const std::int64_t e[4] = {0, 5, 3, 10};
  expect_invalid_nothing_written([&] { cuprim::histogram_range(d.data(), 1000, h.data(), 3, e); }, "edges");
  expect_invalid_nothing_written([&] { cuprim::histogram_even(d.data(), 1000, h.data(), 16, 0.0, double(NAN)); },
                                 "upper");
  expect_invalid_nothing_written([&] { cuprim::histogram_even_add(d.data(), -1, h.data(), 16, 0, 256); }, "n");
  CUPRIM_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(h.get(), poisoned);
}

/// Explicit policies: each path (byte path with two vectors per step, per-lane, shared with one and many copies,
/// global atomics) and a smaller block, on the shapes that reach it, against the host reference.
template <cuprim::histogram_policy P>
void check_policy(const char* what) {
  SCOPED_TRACE(what);
  const std::uint64_t seed = base_seed() ^ 0x5E;
  rng r(seed);
  const std::int64_t n = large_enabled() ? 1000003 : 30011;
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n));
  for (auto& v : bytes) v = std::uint8_t(r.next());
  for (std::size_t i = 0; i + 16 <= bytes.size(); i += 64)  // runs of equal bytes (the one-atomic vectors)
    for (int j = 0; j < 16; ++j) bytes[i + std::size_t(j)] = bytes[i];
  for (int nb : {256, 64})
    check_single<std::uint8_t, std::uint32_t, std::int64_t, P>(bytes, nb, 0, 256, nullptr, seed, 1);
  auto words = make_samples<std::uint32_t>(r, n, std::int64_t(0), std::int64_t(1) << 32, 1024);
  for (int nb : {100, 1024, 30000, 1 << 20})
    check_single<std::uint32_t, std::uint32_t, std::int64_t, P>(words, nb, 0, std::int64_t(1) << 32, nullptr, seed);
  auto reals = make_samples<float>(r, n, -1.0, 3.5, 777);
  check_single<float, std::uint64_t, double, P>(reals, 777, -1.0, 3.5, nullptr, seed, 2);
  const std::vector<double> e = {-1.0, 0.0, 0.5, 0.5, 2.0, 3.5};
  check_single<float, std::uint32_t, double, P>(reals, 5, -1.0, 3.5, &e, seed);
}

TEST(Histogram, CustomPolicies) {
  CUPRIM_REQUIRE_GPU();
  check_policy<cuprim::histogram_policy{.byte_vectors = 2, .persistent = false}>("two vectors per step, one block "
                                                                                  "per 32 Ki samples");
  check_policy<cuprim::histogram_policy{.vectors = 1, .lanes_max_bins = 0, .shared_max_copies = 1}>(
      "shared x1, one vector per step");
  check_policy<cuprim::histogram_policy{.threads = 256, .lanes_max_bins = 1024, .lanes_bytes = 64 * 1024,
                                        .lanes_max_copies = 8, .shared_bytes = 16 * 1024, .shared_max_copies = 8}>(
      "256 threads, per-lane up to 1024 bins");
  check_policy<cuprim::histogram_policy{.lanes_max_bins = 0, .shared_bytes = 0}>("shared x1 from a 0-byte target");
}

}  // namespace
}  // namespace cuprim_test::hist
