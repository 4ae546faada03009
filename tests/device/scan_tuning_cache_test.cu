// The tuned scan under a tuning cache (core/tuning.hpp): an entry for this GPU naming a compiled candidate makes a
// tuned call run that candidate (bitwise the same result as the candidate called by its policy, and equal to the host
// reference); calls outside the entry's bucket, of another type, less aligned, or under an entry naming no
// candidate or keyed to another GPU take the table's row; the tuned workspace covers every candidate.
//
// The other tests compile the cache lookups out (tests/CMakeLists.txt); this executable, a single translation unit
// with the library, turns them on before anything includes cuprim.
#undef CUPRIM_USE_TUNING_CACHE
#define CUPRIM_USE_TUNING_CACHE 1

#include <cuprim/core/tuning.hpp>
#include <cuprim/device/scan.cuh>
#include <cuprim/host/scan.hpp>

#include "common/test_util.hpp"
#include "common/tuning_cache.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuprim_test {
namespace {

constexpr std::int64_t bucket_lo = 1 << 20, bucket_hi = 3 << 20;

/// A cache file for this GPU with the given entries (written into a fresh directory), made current.
class ScanTuningCache : public tuning_cache_test {
protected:
  template <class T>
  static cuprim::tuning::cache_entry entry_for(const cuprim::scan_pipeline_policy& p) {
    cuprim::tuning::cache_entry e;
    e.op = "scan";
    e.types = cuprim::tuning::type_name<T>();
    e.alignment = 16;
    e.size_min = bucket_lo;
    e.size_max = bucket_hi;
    e.policy_name = cuprim::scan_pipeline_policy::name;
    e.policy = cuprim::tuning::flatten(p);
    e.time_ms = 1;
    return e;
  }
};

template <class T>
std::vector<T> random_input(rng& r, std::int64_t n) {
  if constexpr (std::is_floating_point_v<T>) return random_vector<T>(r, std::size_t(n), 0.0, 1.0);
  else return random_vector<T>(r, std::size_t(n));
}

/// The tuned inclusive sum and the candidate's own, on one input: bitwise equal; both equal the host reference
/// (integers) or within the scan's bound (floats: checked loosely here; the scan tests check the bound).
template <class T, cuprim::scan_pipeline_policy P>
void expect_same_as_candidate(std::int64_t n, int offset_elems = 0, bool differs_from_row = false) {
  CUPRIM_TEST_RNG(r);
  const std::vector<T> h = random_input<T>(r, n);
  const auto len = static_cast<std::size_t>(n + offset_elems);
  cuprim::device_buffer<T> in(len), a(len), b(len);
  upload(in.data() + offset_elems, h);
  poison(a);
  poison(b);
  cuprim::inclusive_sum(in.data() + offset_elems, a.data() + offset_elems, n);
  cuprim::inclusive_scan<P>(in.data() + offset_elems, b.data() + offset_elems, n, cuprim::plus{});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<T> ga = download(a.data() + offset_elems, std::size_t(n));
  const std::vector<T> gb = download(b.data() + offset_elems, std::size_t(n));
  std::vector<T> ref(static_cast<std::size_t>(n));
  cuprim::host::inclusive_sum(h.data(), ref.data(), n);
  for (std::int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      ASSERT_NEAR(double(ga[std::size_t(i)]), double(ref[std::size_t(i)]), 1e-3 * double(i + 1)) << "i=" << i;
      ASSERT_TRUE(same_bytes(ga[std::size_t(i)], gb[std::size_t(i)])) << "i=" << i << seed_message();
    } else {
      ASSERT_EQ(ga[std::size_t(i)], ref[std::size_t(i)]) << "i=" << i << seed_message();
    }
  }
  if (differs_from_row) {
    cuprim::device_buffer<T> c(len);
    poison(c);
    cuprim::inclusive_scan<cuprim::scan_policy_for<T>(90)>(in.data() + offset_elems, c.data() + offset_elems, n,
                                                           cuprim::plus{});
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<T> gc = download(c.data() + offset_elems, std::size_t(n));
    std::int64_t differ = 0;
    for (std::int64_t i = 0; i < n; ++i) differ += !same_bytes(ga[std::size_t(i)], gc[std::size_t(i)]);
    EXPECT_GT(differ, 0) << "the tuned scan gave the row's bits: was the cache's candidate run?";
  }
}

TEST_F(ScanTuningCache, EntryChoosesItsCandidate) {
  constexpr auto cands = cuprim::scan_candidates<float>();
  constexpr auto cu = cuprim::scan_candidates<std::uint32_t>();
  cuprim::tuning::cache_section s;
  s.key = cuprim::tuning::current_key();
  s.entries.push_back(entry_for<float>(cands[2]));
  s.entries.push_back(entry_for<std::uint32_t>(cu[cu.size() - 1]));  // the one-tile-per-block kernels
  write(s);
  ASSERT_TRUE(cuprim::tuning::active());

  cuprim::device_buffer<float> x(static_cast<std::size_t>(bucket_hi) + 8), y(static_cast<std::size_t>(bucket_hi) + 8);
  const float* in = x.data();
  float* out = y.data();
  using cuprim::detail::scan_cached_candidate;
  EXPECT_EQ((scan_cached_candidate<float, float>(bucket_lo, in, out)), 2);
  EXPECT_EQ((scan_cached_candidate<float, float>(bucket_hi, in, out)), 2);
  EXPECT_EQ((scan_cached_candidate<float, float>(bucket_lo - 1, in, out)), -1) << "below the bucket";
  EXPECT_EQ((scan_cached_candidate<float, float>(bucket_hi + 1, in, out)), -1) << "above the bucket";
  EXPECT_EQ((scan_cached_candidate<float, float>(bucket_lo, in + 1, out)), -1) << "4-byte aligned input";
  EXPECT_EQ((scan_cached_candidate<double, double>(bucket_lo, reinterpret_cast<const double*>(in),
                                                   reinterpret_cast<double*>(out))),
            -1)
      << "no entry for double";
  const auto* ui = reinterpret_cast<const std::uint32_t*>(in);
  auto* uo = reinterpret_cast<std::uint32_t*>(out);
  EXPECT_EQ((scan_cached_candidate<std::uint32_t, std::uint32_t>(bucket_lo + 7, ui, uo)), int(cu.size()) - 1);

  expect_same_as_candidate<float, cands[2]>(bucket_lo + 12345);
  // A candidate whose tiles differ from the row's: the tuned result must be its, not the row's (float sums round
  // differently with other tile boundaries, so the check can fail).
  s.entries[0] = entry_for<float>(cands[4]);
  write(s);
  expect_same_as_candidate<float, cands[4]>(bucket_lo + 12345, 0, /*differs_from_row=*/true);
  expect_same_as_candidate<std::uint32_t, cu[cu.size() - 1]>(bucket_lo + 777);
  // Less aligned: the row runs (and is still right).
  expect_same_as_candidate<std::uint32_t, cu[cu.size() - 1]>(bucket_lo + 777, 1);
}

/// The workspace each float candidate needs at n, called by its policy.
template <std::size_t... I>
std::vector<std::size_t> candidate_workspaces(std::int64_t n, std::index_sequence<I...>) {
  return {cuprim::scan_workspace_bytes<float, float, cuprim::scan_candidates<float>()[I]>(n)...};
}

TEST_F(ScanTuningCache, WorkspaceCoversEveryCandidate) {
  constexpr auto cands = cuprim::scan_candidates<float>();
  for (std::int64_t n : {std::int64_t(1) << 20, std::int64_t(3) << 22, std::int64_t(1) << 26}) {
    const std::size_t tuned = cuprim::scan_workspace_bytes<float, float>(n);
    const std::vector<std::size_t> each = candidate_workspaces(n, std::make_index_sequence<cands.size()>{});
    for (std::size_t i = 0; i < each.size(); ++i) EXPECT_GE(tuned, each[i]) << "candidate " << i << ", n " << n;
  }
  // An explicit workspace of exactly the tuned size serves the cache's choice: candidate 7 (6 warps x 7 vectors)
  // has more tiles than the row at this size, so a workspace sized for the row alone would be refused.
  const std::int64_t n = bucket_lo + 99;
  EXPECT_GT((cuprim::scan_workspace_bytes<float, float, cands[7]>(n)),
            (cuprim::scan_workspace_bytes<float, float, cuprim::scan_policy_for<float>(90)>(n)));
  cuprim::tuning::cache_section s;
  s.key = cuprim::tuning::current_key();
  s.entries.push_back(entry_for<float>(cands[7]));
  write(s);
  ASSERT_EQ((cuprim::detail::scan_cached_candidate<float, float>(n, reinterpret_cast<const float*>(256),
                                                                reinterpret_cast<float*>(512))),
            7);
  CUPRIM_TEST_RNG(r);
  const std::vector<float> h = random_input<float>(r, n);
  cuprim::device_buffer<float> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  cuprim::device_buffer<unsigned char> ws(cuprim::scan_workspace_bytes<float, float>(n));
  upload(in.data(), h);
  poison(out);
  cuprim::inclusive_scan(in.data(), out.data(), n, cuprim::plus{}, cuprim::workspace{ws.data(), ws.size()});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<float> got = download(out.data(), std::size_t(n));
  double acc = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    acc += double(h[std::size_t(i)]);
    ASSERT_NEAR(double(got[std::size_t(i)]), acc, 1e-3 * double(i + 1)) << "i=" << i << seed_message();
  }
}

TEST_F(ScanTuningCache, UnknownPolicyOrOtherGpuTakesTheRow) {
  cuprim::scan_pipeline_policy odd = cuprim::scan_candidates<float>()[0];
  odd.pipeline.scan_warps = 7;  // no compiled candidate has 7 scan warps
  cuprim::tuning::cache_section s;
  s.key = cuprim::tuning::current_key();
  s.entries.push_back(entry_for<float>(odd));
  write(s);
  cuprim::device_buffer<float> x(static_cast<std::size_t>(bucket_lo)), y(static_cast<std::size_t>(bucket_lo));
  EXPECT_EQ((cuprim::detail::scan_cached_candidate<float, float>(bucket_lo, x.data(), y.data())), -1);

  // Keyed to another GPU: ignored, with one warning.
  std::filesystem::remove(path_);
  cuprim::tuning::cache_section other;
  other.key = cuprim::tuning::current_key();
  other.key.sms += 1;
  other.entries.push_back(entry_for<float>(cuprim::scan_candidates<float>()[1]));
  write(other);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ((cuprim::detail::scan_cached_candidate<float, float>(bucket_lo, x.data(), y.data())), -1);
  EXPECT_EQ((cuprim::detail::scan_cached_candidate<float, float>(bucket_lo, x.data(), y.data())), -1);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("no section for this GPU"), std::string::npos) << err;
  EXPECT_EQ(err.find("no section for this GPU"), err.rfind("no section for this GPU")) << "warned twice: " << err;
  expect_same_as_candidate<float, cuprim::scan_policy_for<float>(90)>(bucket_lo + 5);
}

}  // namespace
}  // namespace cuprim_test
