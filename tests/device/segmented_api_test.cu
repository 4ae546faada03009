// GPU tests of the segmented family: segmented_reduce (and its transform form) over CSR offsets, the by-key
// scans, and the segmented scans by head flags and by offsets, against the cuprim::host references.
//
// Segment mixes: all empty, many empty or tiny, a few huge, random lengths, one segment, zero segments, huge
// segments among many empty ones, lengths straddling tile sizes. Integers and the non-commutative affine-map
// operator (wrapping uint32: exact, and any reordering shows) are compared exactly; floating-point results within
// a bound derived from each segment's length and epsilon, and bitwise against a repeated run. Outputs are
// poisoned first and guarded on both sides; a rejected call must leave them untouched.
#include <cuprim/device/segmented_reduce.cuh>
#include <cuprim/device/segmented_scan.cuh>
#include <cuprim/host/segmented.hpp>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using cuprim_test::gpu_test;
using cuprim_test::rng;

/// An affine map x -> a·x + b over uint32 (wrapping); composition "f then g" is associative, not commutative.
struct affine {
  std::uint32_t a, b;
  bool operator==(const affine&) const = default;
};
struct compose {
  __host__ __device__ affine operator()(const affine& f, const affine& g) const { return {f.a * g.a, f.b * g.a + g.b}; }
};
std::ostream& operator<<(std::ostream& os, const affine& f) { return os << "(" << f.a << ", " << f.b << ")"; }

affine random_affine(rng& r) { return {static_cast<std::uint32_t>(r.next()) | 1u, static_cast<std::uint32_t>(r.next())}; }

// ---------------------------------------------------------------------------------------------------------
// Segment mixes

std::vector<std::int64_t> segment_lengths(const std::string& mix, std::int64_t segments, rng& r) {
  std::vector<std::int64_t> len(static_cast<std::size_t>(segments), 0);
  for (std::size_t s = 0; s < len.size(); ++s) {
    auto& l = len[s];
    if (mix == "empty") l = 0;
    else if (mix == "tiny") l = r.index(10) < 5 ? 0 : static_cast<std::int64_t>(r.index(4));
    else if (mix == "random") l = static_cast<std::int64_t>(r.index(512));
    else if (mix == "huge") l = (1 << 18) + static_cast<std::int64_t>(r.index(1 << 18));
    else if (mix == "mixed") l = r.index(1000) == 0 ? (1 << 17) + static_cast<std::int64_t>(r.index(1 << 17)) : (r.index(3) ? 0 : 1);
    else if (mix == "tiles") {  // around multiples of the 4-byte tile (3840 path items)
      const std::int64_t t = 3840 * static_cast<std::int64_t>(1 + r.index(3));
      l = t - 2 + static_cast<std::int64_t>(r.index(5));
    }
  }
  return len;
}

template <class Offset>
std::vector<Offset> offsets_of(const std::vector<std::int64_t>& len, std::int64_t base) {
  std::vector<Offset> off(len.size() + 1);
  std::int64_t at = base;
  off[0] = static_cast<Offset>(at);
  for (std::size_t s = 0; s < len.size(); ++s) off[s + 1] = static_cast<Offset>(at += len[s]);
  return off;
}

struct mix_case {
  const char* mix;
  std::int64_t segments;
};
const mix_case reduce_mixes[] = {{"empty", 1 << 16},  {"tiny", 1 << 18},  {"random", 1 << 14}, {"huge", 5},
                                 {"mixed", 1 << 16},  {"tiles", 300},     {"random", 1},       {"huge", 1},
                                 {"empty", 1},        {"random", 0},      {"tiny", 7},         {"random", 3}};

/// A guarded output of `count` elements: poison on both sides (and in it) before the call.
template <class T>
struct guarded {
  cuprim::device_buffer<T> buf;
  std::size_t count;
  explicit guarded(std::size_t c) : buf(c + 2), count(c) { cuprim_test::poison(buf); }
  T* data() { return buf.data() + 1; }
  std::vector<T> values() {
    std::vector<T> h = buf.to_host_sync();
    EXPECT_TRUE(cuprim_test::bytes_are(buf.data(), sizeof(T))) << "guard before the output was written";
    EXPECT_TRUE(cuprim_test::bytes_are(buf.data() + count + 1, sizeof(T))) << "guard after the output was written";
    return {h.begin() + 1, h.begin() + 1 + static_cast<std::ptrdiff_t>(count)};
  }
  bool untouched() { return cuprim_test::bytes_are(buf.data(), buf.bytes()); }
};

// ---------------------------------------------------------------------------------------------------------
// segmented_reduce: exact cases

class SegmentedReduce : public gpu_test {};

template <class Offset>
void affine_reduce_case(const mix_case& m, std::int64_t base, rng& r) {
  SCOPED_TRACE(std::string("mix ") + m.mix + ", segments " + std::to_string(m.segments) + ", base " + std::to_string(base));
  const auto off = offsets_of<Offset>(segment_lengths(m.mix, m.segments, r), base);
  std::vector<affine> in(static_cast<std::size_t>(off.back()));
  for (auto& x : in) x = random_affine(r);
  const affine init = random_affine(r);
  std::vector<affine> ref(static_cast<std::size_t>(m.segments));
  cuprim::host::segmented_reduce(in.data(), ref.data(), off.data(), m.segments, compose{}, init);

  cuprim::device_buffer<affine> d_in{std::span<const affine>(in)};
  cuprim::device_buffer<Offset> d_off{std::span<const Offset>(off)};
  guarded<affine> out(static_cast<std::size_t>(m.segments));
  cuprim::segmented_reduce(d_in.data(), out.data(), d_off.data(), m.segments, compose{}, init);
  const auto got = out.values();
  std::int64_t bad = 0, first = -1;
  for (std::size_t s = 0; s < got.size(); ++s)
    if (!(got[s] == ref[s])) {
      if (first < 0) first = static_cast<std::int64_t>(s);
      ++bad;
    }
  EXPECT_EQ(bad, 0) << "first bad segment " << first << ": " << (first >= 0 ? got[first] : affine{}) << " vs "
                    << (first >= 0 ? ref[first] : affine{});
}

TEST_F(SegmentedReduce, NonCommutativeOperatorEveryMixInt32Offsets) {
  CUPRIM_TEST_RNG(r);
  for (const auto& m : reduce_mixes) affine_reduce_case<std::int32_t>(m, 0, r);
}

TEST_F(SegmentedReduce, NonCommutativeOperatorEveryMixInt64OffsetsNonZeroBase) {
  CUPRIM_TEST_RNG(r);
  for (const auto& m : reduce_mixes) affine_reduce_case<std::int64_t>(m, 1 + static_cast<std::int64_t>(r.index(7)), r);
}

/// uint32 sums (wrapping) of vectorised input at every alignment and base.
TEST_F(SegmentedReduce, IntegerSumsAtEveryAlignment) {
  CUPRIM_TEST_RNG(r);
  for (const auto& m : reduce_mixes) {
    for (int shift : {0, 1, 2, 3}) {
      SCOPED_TRACE(std::string("mix ") + m.mix + ", shift " + std::to_string(shift));
      const auto off = offsets_of<std::int32_t>(segment_lengths(m.mix, m.segments, r), shift);
      std::vector<std::uint32_t> in(static_cast<std::size_t>(off.back()) + 4);
      for (auto& x : in) x = static_cast<std::uint32_t>(r.next());
      std::vector<std::uint32_t> ref(static_cast<std::size_t>(m.segments));
      // The device sees the array from element `shift` on (misaligned for shift != 0), offsets relative to it.
      cuprim::host::segmented_reduce(in.data() + shift, ref.data(), off.data(), m.segments, cuprim::plus{}, 7u);
      cuprim::device_buffer<std::uint32_t> d_in{std::span<const std::uint32_t>(in)};
      cuprim::device_buffer<std::int32_t> d_off{std::span<const std::int32_t>(off)};
      guarded<std::uint32_t> out(static_cast<std::size_t>(m.segments));
      cuprim::segmented_reduce(d_in.data() + shift, out.data(), d_off.data(), m.segments, cuprim::plus{}, 7u);
      EXPECT_EQ(out.values(), ref);
    }
  }
}

TEST_F(SegmentedReduce, Int8IntoInt64AndDoubleMax) {
  CUPRIM_TEST_RNG(r);
  for (const auto& m : reduce_mixes) {
    SCOPED_TRACE(std::string("mix ") + m.mix);
    const auto off = offsets_of<std::int64_t>(segment_lengths(m.mix, m.segments, r), 0);
    const auto n = static_cast<std::size_t>(off.back());
    std::vector<std::int8_t> bytes(n);
    std::vector<double> dbl(n);
    for (auto& x : bytes) x = static_cast<std::int8_t>(r.between(-128, 127));
    for (auto& x : dbl) x = r.uniform(-1e6, 1e6);
    std::vector<std::int64_t> ref_sum(static_cast<std::size_t>(m.segments));
    std::vector<double> ref_max(static_cast<std::size_t>(m.segments));
    cuprim::host::segmented_reduce(bytes.data(), ref_sum.data(), off.data(), m.segments, cuprim::plus{}, std::int64_t(0));
    cuprim::host::segmented_reduce(dbl.data(), ref_max.data(), off.data(), m.segments, cuprim::maximum{}, -1e300);
    cuprim::device_buffer<std::int8_t> d_bytes{std::span<const std::int8_t>(bytes)};
    cuprim::device_buffer<double> d_dbl{std::span<const double>(dbl)};
    cuprim::device_buffer<std::int64_t> d_off{std::span<const std::int64_t>(off)};
    guarded<std::int64_t> sums(static_cast<std::size_t>(m.segments));
    guarded<double> maxes(static_cast<std::size_t>(m.segments));
    cuprim::segmented_reduce(d_bytes.data(), sums.data(), d_off.data(), m.segments, cuprim::plus{}, std::int64_t(0));
    cuprim::segmented_reduce(d_dbl.data(), maxes.data(), d_off.data(), m.segments, cuprim::maximum{}, -1e300);
    EXPECT_EQ(sums.values(), ref_sum);
    EXPECT_EQ(maxes.values(), ref_max);
  }
}

// ---------------------------------------------------------------------------------------------------------
// segmented_reduce: floating point

/// Bound for a float sum of m terms as the kernel groups them: a thread's run (≤ 15), the block's scan of carries
/// (log2 256), one step per tile and per chunk the segment spans; eps · Σ|x| · (chain + 8).
double segment_tolerance(double eps, double abs_sum, std::int64_t m) {
  const double chain = 15 + 2 * 8 + static_cast<double>(m) / 2048.0 + 2.0 * std::log2(static_cast<double>(m) + 2.0);
  return eps * abs_sum * (chain + 8) + 1e-30;
}

template <class In>
void float_sum_case(const mix_case& m, rng& r) {
  SCOPED_TRACE(std::string("mix ") + m.mix + ", segments " + std::to_string(m.segments));
  const auto off = offsets_of<std::int32_t>(segment_lengths(m.mix, m.segments, r), 0);
  std::vector<In> in(static_cast<std::size_t>(off.back()));
  for (auto& x : in) x = cuprim_test::from_double<In>(r.uniform(-1, 1));
  std::vector<double> ref(static_cast<std::size_t>(m.segments)), abs_ref(ref.size());
  for (std::int64_t s = 0; s < m.segments; ++s) {
    for (std::int64_t i = off[s]; i < off[s + 1]; ++i) {
      ref[s] += cuprim_test::to_double(in[i]);
      abs_ref[s] += std::fabs(cuprim_test::to_double(in[i]));
    }
  }
  cuprim::device_buffer<In> d_in{std::span<const In>(in)};
  cuprim::device_buffer<std::int32_t> d_off{std::span<const std::int32_t>(off)};
  guarded<float> out(static_cast<std::size_t>(m.segments));
  cuprim::segmented_sum(d_in.data(), out.data(), d_off.data(), m.segments);
  const auto got = out.values();
  std::int64_t bad = 0, first = -1;
  for (std::int64_t s = 0; s < m.segments; ++s) {
    const double tol = segment_tolerance(0x1p-24, abs_ref[s], off[s + 1] - off[s]) + 0x1p-24 * std::fabs(ref[s]);
    if (!(std::fabs(got[s] - ref[s]) <= tol)) {
      if (first < 0) first = s;
      ++bad;
    }
  }
  EXPECT_EQ(bad, 0) << "first bad segment " << first << ": " << (first >= 0 ? got[first] : 0.f) << " vs "
                    << (first >= 0 ? ref[first] : 0.0);
}

TEST_F(SegmentedReduce, FloatAndHalfSums) {
  CUPRIM_TEST_RNG(r);
  for (const auto& m : reduce_mixes) {
    float_sum_case<float>(m, r);
    float_sum_case<__half>(m, r);
  }
}

/// Small integers held in floats sum exactly (every partial sum is an integer below 2^24): exact comparison.
TEST_F(SegmentedReduce, FloatSumsOfSmallIntegersAreExact) {
  CUPRIM_TEST_RNG(r);
  for (const auto& m : reduce_mixes) {
    const auto off = offsets_of<std::int32_t>(segment_lengths(m.mix, m.segments, r), 0);
    std::vector<float> in(static_cast<std::size_t>(off.back()));
    for (auto& x : in) x = static_cast<float>(r.index(8));
    std::vector<float> ref(static_cast<std::size_t>(m.segments));
    cuprim::host::segmented_reduce(in.data(), ref.data(), off.data(), m.segments, cuprim::plus{}, 0.f);
    cuprim::device_buffer<float> d_in{std::span<const float>(in)};
    cuprim::device_buffer<std::int32_t> d_off{std::span<const std::int32_t>(off)};
    guarded<float> out(static_cast<std::size_t>(m.segments));
    cuprim::segmented_sum(d_in.data(), out.data(), d_off.data(), m.segments);
    EXPECT_EQ(out.values(), ref) << "mix " << m.mix;
  }
}

TEST_F(SegmentedReduce, BitwiseDeterministic) {
  CUPRIM_TEST_RNG(r);
  for (const char* mix : {"random", "huge", "mixed"}) {
    const auto off = offsets_of<std::int32_t>(segment_lengths(mix, std::string(mix) == "random" ? 1 << 14 : 8, r), 0);
    std::vector<float> in(static_cast<std::size_t>(off.back()));
    for (auto& x : in) x = static_cast<float>(r.uniform(-1, 1));
    const std::int64_t S = static_cast<std::int64_t>(off.size()) - 1;
    cuprim::device_buffer<float> d_in{std::span<const float>(in)};
    cuprim::device_buffer<std::int32_t> d_off{std::span<const std::int32_t>(off)};
    cuprim::device_buffer<float> a(static_cast<std::size_t>(S)), b(static_cast<std::size_t>(S));
    cuprim::segmented_sum(d_in.data(), a.data(), d_off.data(), S);
    cuprim::segmented_sum(d_in.data(), b.data(), d_off.data(), S);
    const auto ha = a.to_host_sync(), hb = b.to_host_sync();
    EXPECT_EQ(0, std::memcmp(ha.data(), hb.data(), ha.size() * sizeof(float))) << "mix " << mix;
  }
}

/// A CSR matrix-vector product through an indexed transform: y[r] = Σ_k vals[k] · x[cols[k]], integer-valued
/// floats (exact).
struct csr_product {
  static constexpr bool indexed = true;
  const float* x;
  const std::int32_t* cols;
  __host__ __device__ float operator()(float v, std::int64_t k) const { return v * x[cols[k]]; }
};

static_assert(csr_product::indexed, "the transform receives (value, index)");

TEST_F(SegmentedReduce, IndexedTransformSpmv) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t rows = 5000, ncols = 3000;
  const auto off = offsets_of<std::int32_t>(segment_lengths("random", rows, r), 0);
  const std::size_t nnz = static_cast<std::size_t>(off.back());
  std::vector<float> vals(nnz), x(static_cast<std::size_t>(ncols));
  std::vector<std::int32_t> cols(nnz);
  for (auto& v : vals) v = static_cast<float>(r.between(-3, 3));
  for (auto& c : cols) c = static_cast<std::int32_t>(r.index(ncols));
  for (auto& v : x) v = static_cast<float>(r.between(-4, 4));
  std::vector<float> ref(static_cast<std::size_t>(rows));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t k = off[i]; k < off[i + 1]; ++k) ref[i] += vals[k] * x[cols[k]];
  cuprim::device_buffer<float> d_vals{std::span<const float>(vals)}, d_x{std::span<const float>(x)};
  cuprim::device_buffer<std::int32_t> d_cols{std::span<const std::int32_t>(cols)}, d_off{std::span<const std::int32_t>(off)};
  guarded<float> y(static_cast<std::size_t>(rows));
  cuprim::segmented_transform_reduce(d_vals.data(), y.data(), d_off.data(), rows, csr_product{d_x.data(), d_cols.data()},
                                     cuprim::plus{}, 0.f);
  EXPECT_EQ(y.values(), ref);
}

TEST_F(SegmentedReduce, ExplicitWorkspaceAndRejectedCalls) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t S = 1000;
  const auto off = offsets_of<std::int32_t>(segment_lengths("random", S, r), 0);
  std::vector<std::uint32_t> in(static_cast<std::size_t>(off.back()));
  for (auto& x : in) x = static_cast<std::uint32_t>(r.next());
  std::vector<std::uint32_t> ref(static_cast<std::size_t>(S));
  cuprim::host::segmented_reduce(in.data(), ref.data(), off.data(), S, cuprim::plus{}, 0u);
  cuprim::device_buffer<std::uint32_t> d_in{std::span<const std::uint32_t>(in)};
  cuprim::device_buffer<std::int32_t> d_off{std::span<const std::int32_t>(off)};
  const std::size_t need = cuprim::segmented_reduce_workspace_bytes<std::uint32_t>(S);
  ASSERT_GT(need, 0u);
  EXPECT_EQ(cuprim::segmented_reduce_workspace_bytes<std::uint32_t>(1), need);  // independent of the segment count
  cuprim::device_buffer<unsigned char> ws(need);
  cuprim_test::poison(ws);  // the workspace needs no initialisation
  for (int rep = 0; rep < 3; ++rep) {  // reuse without re-zeroing by the caller
    guarded<std::uint32_t> out(static_cast<std::size_t>(S));
    cuprim::segmented_reduce(d_in.data(), out.data(), d_off.data(), S, cuprim::plus{}, 0u,
                             cuprim::workspace{ws.data(), need});
    EXPECT_EQ(out.values(), ref);
  }
  guarded<std::uint32_t> out(static_cast<std::size_t>(S));
  EXPECT_THROW(cuprim::segmented_reduce(d_in.data(), out.data(), d_off.data(), S, cuprim::plus{}, 0u,
                                        cuprim::workspace{ws.data(), need - 1}),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::segmented_reduce(d_in.data(), out.data(), d_off.data(), -1, cuprim::plus{}, 0u),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::segmented_reduce(d_in.data(), out.data(), static_cast<const std::int32_t*>(nullptr), S,
                                        cuprim::plus{}, 0u),
               cuprim::invalid_argument);
  EXPECT_TRUE(out.untouched()) << "a rejected call wrote its output";
  // Zero segments: nothing to do, null pointers allowed.
  EXPECT_NO_THROW(cuprim::segmented_reduce(static_cast<const float*>(nullptr), static_cast<float*>(nullptr),
                                           static_cast<const std::int32_t*>(nullptr), 0, cuprim::plus{}, 0.f));
}

TEST_F(SegmentedReduce, LargeRandomAndHugeSegments) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  for (const mix_case m : {mix_case{"random", 1 << 17}, mix_case{"huge", 64}}) {
    SCOPED_TRACE(m.mix);
    const auto off = offsets_of<std::int64_t>(segment_lengths(m.mix, m.segments, r), 0);
    std::vector<std::uint32_t> in(static_cast<std::size_t>(off.back()));
    for (auto& x : in) x = static_cast<std::uint32_t>(r.next());
    std::vector<std::uint32_t> ref(static_cast<std::size_t>(m.segments));
    cuprim::host::segmented_reduce(in.data(), ref.data(), off.data(), m.segments, cuprim::plus{}, 0u);
    cuprim::device_buffer<std::uint32_t> d_in{std::span<const std::uint32_t>(in)};
    cuprim::device_buffer<std::int64_t> d_off{std::span<const std::int64_t>(off)};
    guarded<std::uint32_t> out(static_cast<std::size_t>(m.segments));
    cuprim::segmented_reduce(d_in.data(), out.data(), d_off.data(), m.segments, cuprim::plus{}, 0u);
    EXPECT_EQ(out.values(), ref);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Scans by key, by flags, by offsets

/// Keys in runs: run lengths from the mix ("single": all 1, "short": 1..8, "long": up to 5000, "one": one run).
std::vector<std::int32_t> key_runs(const std::string& mix, std::int64_t n, rng& r) {
  std::vector<std::int32_t> keys(static_cast<std::size_t>(n));
  std::int32_t key = static_cast<std::int32_t>(r.index(100));
  std::int64_t left = 0;
  for (auto& k : keys) {
    if (left == 0) {
      key += 1 + static_cast<std::int32_t>(r.index(3));
      if (mix == "single") left = 1;
      else if (mix == "short") left = 1 + static_cast<std::int64_t>(r.index(8));
      else if (mix == "long") left = 1 + static_cast<std::int64_t>(r.index(5000));
      else left = n;
    }
    k = key;
    --left;
  }
  return keys;
}

/// The tiles of the default policies: user structs (affine maps) and 4-byte arithmetic values.
template <class In>
constexpr std::int64_t default_scan_tile() {
  constexpr cuprim::segmented_scan_policy p = cuprim::segmented_scan_policy_for<In>(cuprim::tuned_archs[0]);
  return std::int64_t(cuprim::detail::scan_tile_elems<p.tile, In>());
}
constexpr std::int64_t struct_tile = default_scan_tile<affine>();
constexpr std::int64_t value_tile = default_scan_tile<std::uint32_t>();
const std::int64_t scan_sizes[] = {0,
                                   1,
                                   31,
                                   32,
                                   33,
                                   struct_tile - 1,
                                   struct_tile,
                                   struct_tile + 1,
                                   3 * struct_tile + 1,
                                   value_tile - 1,
                                   value_tile,
                                   value_tile + 1,
                                   2 * value_tile + 1,
                                   (1 << 20) + 7};

class SegmentedScan : public gpu_test {};

/// A key equality coarser than ==: keys equal after dividing by 4.
struct same_quarter {
  __host__ __device__ bool operator()(std::int64_t a, std::int64_t b) const { return a / 4 == b / 4; }
};

template <class T>
void expect_equal_scan(const std::vector<T>& got, const std::vector<T>& ref, const std::string& what) {
  std::int64_t bad = 0, first = -1;
  for (std::size_t i = 0; i < ref.size(); ++i)
    if (!(got[i] == ref[i])) {
      if (first < 0) first = static_cast<std::int64_t>(i);
      ++bad;
    }
  EXPECT_EQ(bad, 0) << what << ": first difference at " << first << ": " << (first >= 0 ? got[first] : T{}) << " vs "
                    << (first >= 0 ? ref[first] : T{});
}

TEST_F(SegmentedScan, ByKeyNonCommutativeEverySize) {
  CUPRIM_TEST_RNG(r);
  for (const char* mix : {"single", "short", "long", "one"})
    for (std::int64_t n : scan_sizes) {
      const std::string what = std::string(mix) + ", n " + std::to_string(n);
      const auto keys = key_runs(mix, n, r);
      std::vector<affine> in(static_cast<std::size_t>(n));
      for (auto& x : in) x = random_affine(r);
      const affine init = random_affine(r);
      std::vector<affine> ref_in(in.size()), ref_ex(in.size());
      cuprim::host::inclusive_scan_by_key(keys.data(), in.data(), ref_in.data(), n, compose{});
      cuprim::host::exclusive_scan_by_key(keys.data(), in.data(), ref_ex.data(), n, compose{}, init);
      cuprim::device_buffer<std::int32_t> d_keys{std::span<const std::int32_t>(keys)};
      cuprim::device_buffer<affine> d_in{std::span<const affine>(in)};
      guarded<affine> out_in(in.size()), out_ex(in.size());
      cuprim::inclusive_scan_by_key(d_keys.data(), d_in.data(), out_in.data(), n, compose{});
      cuprim::exclusive_scan_by_key(d_keys.data(), d_in.data(), out_ex.data(), n, compose{}, init);
      expect_equal_scan(out_in.values(), ref_in, "inclusive " + what);
      expect_equal_scan(out_ex.values(), ref_ex, "exclusive " + what);
    }
}

TEST_F(SegmentedScan, ByKeyVectorisedIntegersInPlaceAndKeyEquality) {
  CUPRIM_TEST_RNG(r);
  for (const char* mix : {"single", "short", "long"})
    for (std::int64_t n : scan_sizes) {
      const std::string what = std::string(mix) + ", n " + std::to_string(n);
      const auto keys32 = key_runs(mix, n, r);
      std::vector<std::int64_t> keys(keys32.begin(), keys32.end());
      std::vector<std::uint32_t> in(static_cast<std::size_t>(n));
      for (auto& x : in) x = static_cast<std::uint32_t>(r.next());
      std::vector<std::uint32_t> ref_in(in.size()), ref_ex(in.size()), ref_eq(in.size());
      cuprim::host::inclusive_scan_by_key(keys.data(), in.data(), ref_in.data(), n, cuprim::plus{});
      cuprim::host::exclusive_scan_by_key(keys.data(), in.data(), ref_ex.data(), n, cuprim::plus{}, 5u);
      cuprim::host::inclusive_scan_by_key(keys.data(), in.data(), ref_eq.data(), n, cuprim::plus{}, same_quarter{});
      cuprim::device_buffer<std::int64_t> d_keys{std::span<const std::int64_t>(keys)};
      cuprim::device_buffer<std::uint32_t> d_in{std::span<const std::uint32_t>(in)};
      guarded<std::uint32_t> out_ex(in.size()), out_eq(in.size());
      cuprim::exclusive_scan_by_key(d_keys.data(), d_in.data(), out_ex.data(), n, cuprim::plus{}, 5u);
      cuprim::inclusive_scan_by_key(d_keys.data(), d_in.data(), out_eq.data(), n, cuprim::plus{}, same_quarter{});
      expect_equal_scan(out_ex.values(), ref_ex, "exclusive " + what);
      expect_equal_scan(out_eq.values(), ref_eq, "key_eq " + what);
      // In place, with an explicit workspace.
      const std::size_t need = cuprim::segmented_scan_workspace_bytes<std::uint32_t>(n);
      cuprim::device_buffer<unsigned char> ws(need);
      cuprim::inclusive_scan_by_key(d_keys.data(), d_in.data(), d_in.data(), n, cuprim::plus{},
                                    cuprim::workspace{ws.data(), need});
      expect_equal_scan(d_in.to_host_sync(), ref_in, "inclusive in place " + what);
    }
}

// The large inclusive scans by key run on the keyed look-back pipeline (16-byte aligned keys, input and output of
// one 4- or 8-byte size, from the policy's pipeline.min_elems); outputs here are 16-byte aligned with 16 guard bytes
// on each side (guarded<T> shifts by one element, which sends a call to the one-tile kernel).

/// Affine maps x -> a·x + b mod 2^32 packed in 64 bits (a high, b low), composed left to right: associative, not
/// commutative, an arithmetic type (so the pipeline takes it).
struct compose64 {
  __host__ __device__ std::uint64_t operator()(std::uint64_t f, std::uint64_t g) const {
    const std::uint32_t a1 = std::uint32_t(f >> 32), b1 = std::uint32_t(f), a2 = std::uint32_t(g >> 32),
                        b2 = std::uint32_t(g);
    return (std::uint64_t(a1 * a2) << 32) | std::uint32_t(a2 * b1 + b2);
  }
};

/// Runs inclusive_scan_by_key on device copies of keys and in (at `shift` elements past a 16-byte boundary, output
/// likewise), in place when asked, and checks it bit for bit against the host reference and its guards.
template <class T, class Key, class Op, class Eq = cuprim::equal_to>
void check_scan_by_key(const std::vector<Key>& keys, const std::vector<T>& in, Op op, std::int64_t shift, bool in_place,
                       const std::string& what, Eq eq = {}) {
  const std::int64_t n = static_cast<std::int64_t>(in.size());
  constexpr std::int64_t G = 16 / sizeof(T);  // guard elements (16 bytes) on each side
  std::vector<T> ref(in.size());
  cuprim::host::inclusive_scan_by_key(keys.data(), in.data(), ref.data(), n, op, eq);
  cuprim::device_buffer<Key> d_keys(static_cast<std::size_t>(n + 2 * G));
  cuprim::device_buffer<T> d_in(static_cast<std::size_t>(n + 2 * G)), d_out(static_cast<std::size_t>(n + 2 * G));
  cuprim_test::poison(d_out);
  cuprim_test::poison(d_in);
  CUPRIM_CUDA_CHECK(cudaMemcpy(d_keys.data() + G + shift, keys.data(), keys.size() * sizeof(Key), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(d_in.data() + G + shift, in.data(), in.size() * sizeof(T), cudaMemcpyHostToDevice));
  T* out = (in_place ? d_in.data() : d_out.data()) + G + shift;
  cuprim::inclusive_scan_by_key(d_keys.data() + G + shift, d_in.data() + G + shift, out, n, op, eq);
  std::vector<T> got(in.size());
  CUPRIM_CUDA_CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
  expect_equal_scan(got, ref, what);
  cuprim::device_buffer<T>& written = in_place ? d_in : d_out;
  EXPECT_TRUE(cuprim_test::bytes_are(written.data(), std::size_t(G + shift) * sizeof(T))) << what << ": guard before";
  EXPECT_TRUE(cuprim_test::bytes_are(written.data() + G + shift + n, std::size_t(G - shift) * sizeof(T)))
      << what << ": guard after";
}

TEST_F(SegmentedScan, ByKeyPipelineEveryMixAndSize) {
  CUPRIM_TEST_RNG(r);
  constexpr cuprim::segmented_scan_policy p = cuprim::segmented_scan_policy_for<float>(cuprim::tuned_archs[0]);
  const std::int64_t tile = std::int64_t(cuprim::detail::pipeline_shape<p.pipeline, float>::TE);
  const std::int64_t first = p.pipeline.min_elems;
  // Float sums of 0s and 1s are exact below 2^24, so every association gives the reference's bits.
  for (const char* mix : {"single", "short", "long", "one"})
    for (std::int64_t n : {first, first + 1, (first / tile + 1) * tile, (first / tile + 2) * tile - 1}) {
      const auto keys = key_runs(mix, n, r);
      std::vector<float> in(static_cast<std::size_t>(n));
      for (auto& x : in) x = static_cast<float>(r.index(2));
      check_scan_by_key(keys, in, cuprim::plus{}, 0, false, std::string(mix) + ", float, n " + std::to_string(n));
    }
}

TEST_F(SegmentedScan, ByKeyPipelineTypesInPlaceMisalignedAndKeyEquality) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = (1 << 22) + 4099;
  for (const char* mix : {"short", "long"}) {
    const auto keys32 = key_runs(mix, n, r);
    const std::vector<std::uint32_t> ukeys(keys32.begin(), keys32.end());
    const std::vector<std::int64_t> keys64(keys32.begin(), keys32.end());
    const std::vector<std::uint64_t> ukeys64(keys32.begin(), keys32.end());
    std::vector<std::uint32_t> u(static_cast<std::size_t>(n));
    for (auto& x : u) x = static_cast<std::uint32_t>(r.next());
    std::vector<double> d(static_cast<std::size_t>(n));
    for (auto& x : d) x = static_cast<double>(r.index(1000));  // exact: integers below 2^53
    std::vector<std::uint64_t> maps(static_cast<std::size_t>(n));
    for (auto& x : maps) x = r.next() | (1ull << 32);
    const std::string m = std::string(mix) + ", ";
    check_scan_by_key(ukeys, u, cuprim::plus{}, 0, false, m + "uint32 by uint32");
    check_scan_by_key(ukeys, u, cuprim::plus{}, 0, true, m + "uint32 in place");
    check_scan_by_key(ukeys, u, cuprim::plus{}, 1, false, m + "uint32 misaligned (one tile per block)");
    check_scan_by_key(ukeys, u, cuprim::maximum{}, 0, false, m + "uint32 max, keys equal by quarter", same_quarter{});
    check_scan_by_key(keys64, d, cuprim::plus{}, 0, false, m + "double by int64");
    check_scan_by_key(ukeys64, maps, compose64{}, 0, false, m + "affine maps by uint64 (operand order)");
    check_scan_by_key(keys32, u, cuprim::plus{}, 0, false, m + "uint32 by int32");
  }
}

TEST_F(SegmentedScan, ByKeyFloatWithinBoundAndBitwiseDeterministic) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = (1 << 22) + 13;
  const auto keys = key_runs("long", n, r);
  std::vector<float> in(static_cast<std::size_t>(n));
  for (auto& x : in) x = static_cast<float>(r.uniform());
  std::vector<double> ref(in.size());
  cuprim::host::inclusive_scan_by_key(keys.data(), in.data(), ref.data(), n, cuprim::plus{});
  cuprim::device_buffer<std::int32_t> d_keys{std::span<const std::int32_t>(keys)};
  cuprim::device_buffer<float> d_in{std::span<const float>(in)};
  cuprim::device_buffer<float> a(in.size()), b(in.size());
  cuprim::inclusive_scan_by_key(d_keys.data(), d_in.data(), a.data(), n, cuprim::plus{});
  cuprim::inclusive_scan_by_key(d_keys.data(), d_in.data(), b.data(), n, cuprim::plus{});
  const auto ha = a.to_host_sync(), hb = b.to_host_sync();
  EXPECT_EQ(0, std::memcmp(ha.data(), hb.data(), ha.size() * sizeof(float)));
  std::int64_t bad = 0, first = -1, run = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    run = (i == 0 || keys[i] != keys[i - 1]) ? 1 : run + 1;
    // Positive values: the reference prefix is the sum of absolute values.
    const double tol = 0x1p-24 * ref[i] * (2 * std::log2(run + 1.0) + std::sqrt(run + 1.0) + 16) + 1e-30;
    if (!(std::fabs(ha[i] - ref[i]) <= tol)) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  EXPECT_EQ(bad, 0) << "first at " << first;
}

TEST_F(SegmentedScan, HeadFlagsEveryFlagType) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : scan_sizes) {
    const std::string what = "n " + std::to_string(n);
    std::vector<std::uint8_t> f8(static_cast<std::size_t>(n));
    for (auto& f : f8) f = r.index(6) == 0 ? static_cast<std::uint8_t>(1 + r.index(255)) : 0;
    std::vector<int> f32(f8.begin(), f8.end());
    std::vector<std::uint32_t> in(static_cast<std::size_t>(n));
    for (auto& x : in) x = static_cast<std::uint32_t>(r.next());
    std::vector<std::uint32_t> ref_in(in.size()), ref_ex(in.size());
    cuprim::host::inclusive_segmented_scan(in.data(), f8.data(), ref_in.data(), n, cuprim::plus{});
    cuprim::host::exclusive_segmented_scan(in.data(), f8.data(), ref_ex.data(), n, cuprim::plus{}, 3u);
    cuprim::device_buffer<std::uint8_t> d_f8{std::span<const std::uint8_t>(f8)};
    cuprim::device_buffer<int> d_f32{std::span<const int>(f32)};
    cuprim::device_buffer<std::uint32_t> d_in{std::span<const std::uint32_t>(in)};
    guarded<std::uint32_t> a(in.size()), b(in.size()), c(in.size()), d(in.size());
    cuprim::inclusive_segmented_scan(d_in.data(), d_f8.data(), a.data(), n, cuprim::plus{});
    cuprim::exclusive_segmented_scan(d_in.data(), d_f8.data(), b.data(), n, cuprim::plus{}, 3u);
    cuprim::inclusive_segmented_scan(d_in.data(), d_f32.data(), c.data(), n, cuprim::plus{});
    cuprim::exclusive_segmented_scan(d_in.data(), d_f32.data(), d.data(), n, cuprim::plus{}, 3u);
    expect_equal_scan(a.values(), ref_in, "inclusive uint8 flags " + what);
    expect_equal_scan(b.values(), ref_ex, "exclusive uint8 flags " + what);
    expect_equal_scan(c.values(), ref_in, "inclusive int flags " + what);
    expect_equal_scan(d.values(), ref_ex, "exclusive int flags " + what);
  }
}

TEST_F(SegmentedScan, OffsetsEveryMix) {
  CUPRIM_TEST_RNG(r);
  for (const auto& m : reduce_mixes) {
    if (m.segments == 0) continue;
    const std::string what = std::string("mix ") + m.mix + ", segments " + std::to_string(m.segments);
    const auto off = offsets_of<std::int32_t>(segment_lengths(m.mix, m.segments, r), 0);
    const std::int64_t n = off.back();
    std::vector<affine> in(static_cast<std::size_t>(n));
    for (auto& x : in) x = random_affine(r);
    const affine init = random_affine(r);
    std::vector<affine> ref_in(in.size()), ref_ex(in.size());
    cuprim::host::inclusive_segmented_scan(in.data(), off.data(), m.segments, ref_in.data(), n, compose{});
    cuprim::host::exclusive_segmented_scan(in.data(), off.data(), m.segments, ref_ex.data(), n, compose{}, init);
    cuprim::device_buffer<std::int32_t> d_off{std::span<const std::int32_t>(off)};
    cuprim::device_buffer<affine> d_in{std::span<const affine>(in)};
    guarded<affine> a(in.size()), b(in.size());
    cuprim::inclusive_segmented_scan(d_in.data(), d_off.data(), m.segments, a.data(), n, compose{});
    cuprim::exclusive_segmented_scan(d_in.data(), d_off.data(), m.segments, b.data(), n, compose{}, init);
    expect_equal_scan(a.values(), ref_in, "inclusive " + what);
    expect_equal_scan(b.values(), ref_ex, "exclusive " + what);
  }
}

TEST_F(SegmentedScan, HalfInputFloatOutputAndRejectedCalls) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = 100000;
  const auto keys = key_runs("short", n, r);
  std::vector<__half> in(static_cast<std::size_t>(n));
  for (auto& x : in) x = __float2half_rn(static_cast<float>(r.index(16)));  // small integers: exact in float
  std::vector<float> ref(in.size());
  cuprim::host::inclusive_scan_by_key(keys.data(), in.data(), ref.data(), n, cuprim::plus{});
  cuprim::device_buffer<std::int32_t> d_keys{std::span<const std::int32_t>(keys)};
  cuprim::device_buffer<__half> d_in{std::span<const __half>(in)};
  guarded<float> out(in.size());
  cuprim::inclusive_scan_by_key(d_keys.data(), d_in.data(), out.data(), n, cuprim::plus{});
  expect_equal_scan(out.values(), ref, "half by key");

  guarded<float> untouched(in.size());
  const std::size_t need = cuprim::segmented_scan_workspace_bytes<__half, float>(n);
  cuprim::device_buffer<unsigned char> ws(need);
  EXPECT_THROW(cuprim::inclusive_scan_by_key(d_keys.data(), d_in.data(), untouched.data(), n, cuprim::plus{},
                                             cuprim::workspace{ws.data(), need - 1}),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::inclusive_scan_by_key(static_cast<const std::int32_t*>(nullptr), d_in.data(), untouched.data(), n,
                                             cuprim::plus{}),
               cuprim::invalid_argument);
  EXPECT_TRUE(untouched.untouched()) << "a rejected call wrote its output";
}

}  // namespace
