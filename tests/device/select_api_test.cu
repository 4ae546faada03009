// Stream compaction on the device: select_if, select_flagged, partition, unique and run_length_encode against
// the host references (cuprim::host, and independent checks where the layout is the point: partition's
// stability), for uint8, int32, float, double and a 12-byte user struct; select_flagged_index (uint8, bool and
// float flags at densities 0%, 1%, 50%, 100% and in stretches; int32 and int64 indices) against a host loop.
//
// Every case: seeded random data, sizes around the warp and the tile (tile − 1, tile, tile + 1, a few tiles,
// 2^20 + 7), the input at element offsets 0 and 1 from a 256-byte aligned allocation (the vector and the scalar
// load paths), outputs and counts poisoned with guard elements on both sides before each run, items past the
// count checked untouched, both overloads (pool workspace; a poisoned caller workspace of exactly
// <name>_workspace_bytes on a created stream). Large cases (2^28 + 3 elements) run unless CUPRIM_TEST_LARGE=0.
#include <cuprim/device/select.cuh>
#include <cuprim/host/select.hpp>

#include "common/scan_types.hpp"
#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace cuprim_test {
namespace {

// ---------------------------------------------------------------------------------------------------------------
// Types, keys, predicates

/// A 12-byte user struct without padding (so outputs compare bytewise).
struct rec {
  std::int32_t key;
  std::uint32_t payload;
  float w;
};
static_assert(sizeof(rec) == 12);
CUPRIM_HD bool operator==(const rec& a, const rec& b) { return a.key == b.key && a.payload == b.payload && a.w == b.w; }

/// Equality of keys only (runs of records with the same key, whatever their payload).
struct same_key {
  CUPRIM_HD bool operator()(const rec& a, const rec& b) const { return a.key == b.key; }
};

/// The number a predicate looks at.
template <class T>
CUPRIM_HD double key_of(const T& x) {
  if constexpr (std::is_same_v<T, rec>) return static_cast<double>(x.key);
  else return static_cast<double>(x);
}

/// Keeps x with key_of(x) < t (t = -inf keeps nothing, +inf everything).
struct keep_below {
  double t;
  template <class T>
  CUPRIM_HD bool operator()(const T& x) const { return key_of(x) < t; }
};

template <class T>
T random_item(rng& r) {
  if constexpr (std::is_same_v<T, rec>) {
    return {static_cast<std::int32_t>(r.between(-1000, 1000)), static_cast<std::uint32_t>(r.next()),
            static_cast<float>(r.uniform(-1.0, 1.0))};
  } else {
    return random_value<T>(r);
  }
}

template <class T>
std::vector<T> random_items(rng& r, std::size_t n) {
  if constexpr (std::is_same_v<T, rec>) {
    std::vector<T> v(n);
    for (auto& x : v) x = random_item<T>(r);
    return v;
  } else {
    return random_vector<T>(r, n);
  }
}

/// Runs of equal items: `shape` 0 = random lengths (a third of length 1, most up to 16, a few up to 5000),
/// 1 = every run of length 1 (all adjacent items differ), 2 = one run over the whole input, 3 = long runs
/// (100 to 20000) between single items. Adjacent runs hold different values.
template <class T>
std::vector<T> run_items(rng& r, std::size_t n, int shape) {
  std::vector<T> v;
  v.reserve(n);
  T value = random_item<T>(r);
  bool long_run = true;
  while (v.size() < n) {
    std::size_t len = 1;
    if (shape == 0) {
      const auto d = r.index(100);
      len = d < 33 ? 1 : d < 97 ? 2 + r.index(15) : 17 + r.index(5000);
    } else if (shape == 2) {
      len = n;
    } else if (shape == 3) {
      len = long_run ? 100 + r.index(20000) : 1;
      long_run = !long_run;
    }
    for (std::size_t i = 0; i < len && v.size() < n; ++i) v.push_back(value);
    T next = random_item<T>(r);
    for (int tries = 0; tries < 100 && next == value; ++tries) next = random_item<T>(r);
    value = next;
  }
  return v;
}

/// The tile of the tuned policy's one-tile-per-block kernel (which every call below the pipeline's sizes takes).
template <class T>
std::int64_t default_tile() {
  constexpr auto P = cuprim::select_policy_for<T>(cuprim::tuned_archs[0]);
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(P)>, cuprim::select_pipeline_policy>)
    return cuprim::detail::select_shape<P.classic, T>::tile;
  else
    return cuprim::detail::select_shape<P, T>::tile;
}

template <class T>
std::vector<std::int64_t> select_sizes() {
  const std::int64_t tile = default_tile<T>();
  return {0, 1, 31, 32, 33, tile - 1, tile, tile + 1, 2 * tile + 1, 5 * tile + 17, (std::int64_t(1) << 20) + 7};
}

// ---------------------------------------------------------------------------------------------------------------
// Device data, guarded outputs

/// Host data and a device copy in a 256-byte aligned allocation; d(off) is the input at element offset off.
template <class T>
struct test_input {
  std::vector<T> host;
  cuprim::device_buffer<T> dev;
  explicit test_input(std::vector<T> h) : host(std::move(h)), dev(std::span<const T>(host)) {}
  const T* h(int off) const { return host.data() + off; }
  const T* d(int off) const { return dev.data() + off; }
};

/// An array of n elements with one poisoned guard element on each side.
template <class T>
struct guarded_array {
  cuprim::device_buffer<T> buf;
  std::size_t n;
  explicit guarded_array(std::size_t count) : buf(count + 2), n(count) {}
  T* p() { return buf.data() + 1; }
  /// Poisons the whole buffer and waits (the calls under test may run on another, non-blocking stream).
  void poison() {
    ::cuprim_test::poison(buf);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  /// The n elements; the guards must hold the poison, and so must elements [written, n).
  std::vector<T> get(std::size_t written, const char* what) {
    std::vector<T> h = buf.to_host_sync();
    EXPECT_TRUE(poisoned(&h[0], 1)) << what << ": guard element before the array was written";
    EXPECT_TRUE(poisoned(&h[n + 1], 1)) << what << ": guard element after the array was written";
    if (written < n)
      EXPECT_TRUE(poisoned(&h[1 + written], n - written))
          << what << ": elements past the count were written (" << written << " of " << n << " expected)";
    return std::vector<T>(h.begin() + 1, h.begin() + 1 + std::ptrdiff_t(n));
  }
  bool untouched() {
    std::vector<T> h = buf.to_host_sync();
    return poisoned(h.data(), h.size());
  }
  static bool poisoned(const T* p, std::size_t count) {
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < count * sizeof(T); ++i)
      if (b[i] != poison_byte) return false;
    return true;
  }
};

/// First index where got and want differ bytewise, as a failure message ("" when equal).
template <class T>
std::string compare_items(const T* got, const T* want, std::size_t count, const char* what) {
  for (std::size_t i = 0; i < count; ++i) {
    if (!same_bytes(got[i], want[i])) {
      std::ostringstream m;
      m << what << " differ at " << i << " of " << count;
      if constexpr (std::is_same_v<T, rec>) {
        m << ": {" << got[i].key << "," << got[i].payload << "," << got[i].w << "} vs {" << want[i].key << ","
          << want[i].payload << "," << want[i].w << "}";
      } else {
        m << ": " << show(got[i]) << " vs " << show(want[i]);
      }
      return m.str();
    }
  }
  return "";
}

/// The stream and workspace variant of a run: even runs use the pool overload on the default stream, odd runs a
/// poisoned caller workspace of exactly the required size on a created stream.
struct run_env {
  cudaStream_t stream = nullptr;
  run_env() { EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess); }
  ~run_env() {
    (void)cudaStreamSynchronize(stream);
    (void)cudaStreamDestroy(stream);
  }
  run_env(const run_env&) = delete;
  run_env& operator=(const run_env&) = delete;
  /// A poisoned workspace of `bytes` (nullptr data when 0).
  cuprim::device_buffer<unsigned char> workspace(std::size_t bytes) {
    cuprim::device_buffer<unsigned char> ws(bytes);
    if (bytes) ::cuprim_test::poison(ws);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    return ws;
  }
};

#define CUPRIM_SELECT_TRACE(n, off, extra) \
  SCOPED_TRACE(::testing::Message() << "n = " << (n) << ", input offset " << (off) << ", " << extra)

// ---------------------------------------------------------------------------------------------------------------
// Checks of one call each

/// select_if(in, ..., n, pred) against host::select_if.
template <class T, class Pred, auto Policy = cuprim::tuned>
void check_select_if(const test_input<T>& data, int off, std::int64_t n, Pred pred, bool explicit_ws, run_env& env) {
  guarded_array<T> out{std::size_t(n)};
  guarded_array<std::int64_t> count(1);
  out.poison();
  count.poison();
  if (explicit_ws) {
    auto ws = env.workspace(cuprim::select_if_workspace_bytes<T, Policy>(n));
    cuprim::select_if<Policy>(data.d(off), out.p(), count.p(), n, pred, cuprim::workspace{ws.data(), ws.bytes()},
                              env.stream);
    ASSERT_EQ(cudaStreamSynchronize(env.stream), cudaSuccess);
  } else {
    cuprim::select_if<Policy>(data.d(off), out.p(), count.p(), n, pred);
  }
  std::vector<T> want(static_cast<std::size_t>(n) + 1);
  const std::int64_t want_count = cuprim::host::select_if(data.h(off), want.data(), n, pred);
  const std::int64_t got_count = count.get(1, "num_selected")[0];
  ASSERT_EQ(got_count, want_count);
  const std::vector<T> got = out.get(std::size_t(want_count), "out");
  EXPECT_EQ(compare_items(got.data(), want.data(), std::size_t(want_count), "selected items"), "");
}

template <class T, class Flag>
void check_select_flagged(const test_input<T>& data, const test_input<Flag>& flags, int off, std::int64_t n,
                          bool explicit_ws, run_env& env) {
  guarded_array<T> out{std::size_t(n)};
  guarded_array<std::int64_t> count(1);
  out.poison();
  count.poison();
  if (explicit_ws) {
    auto ws = env.workspace(cuprim::select_flagged_workspace_bytes<T>(n));
    cuprim::select_flagged(data.d(off), flags.d(off), out.p(), count.p(), n, cuprim::workspace{ws.data(), ws.bytes()},
                           env.stream);
    ASSERT_EQ(cudaStreamSynchronize(env.stream), cudaSuccess);
  } else {
    cuprim::select_flagged(data.d(off), flags.d(off), out.p(), count.p(), n);
  }
  std::vector<T> want(static_cast<std::size_t>(n) + 1);
  const std::int64_t want_count = cuprim::host::select_flagged(data.h(off), flags.h(off), want.data(), n);
  ASSERT_EQ(count.get(1, "num_selected")[0], want_count);
  const std::vector<T> got = out.get(std::size_t(want_count), "out");
  EXPECT_EQ(compare_items(got.data(), want.data(), std::size_t(want_count), "selected items"), "");
}

template <class T, class Pred>
std::vector<T> check_partition(const test_input<T>& data, int off, std::int64_t n, Pred pred, bool explicit_ws,
                               run_env& env, std::int64_t* selected = nullptr) {
  guarded_array<T> out{std::size_t(n)};
  guarded_array<std::int64_t> count(1);
  out.poison();
  count.poison();
  if (explicit_ws) {
    auto ws = env.workspace(cuprim::partition_workspace_bytes<T>(n));
    cuprim::partition(data.d(off), out.p(), count.p(), n, pred, cuprim::workspace{ws.data(), ws.bytes()}, env.stream);
    EXPECT_EQ(cudaStreamSynchronize(env.stream), cudaSuccess);
  } else {
    cuprim::partition(data.d(off), out.p(), count.p(), n, pred);
  }
  std::vector<T> want(static_cast<std::size_t>(n) + 1);
  const std::int64_t want_count = cuprim::host::partition(data.h(off), want.data(), n, pred);
  const std::int64_t got_count = count.get(1, "num_selected")[0];
  EXPECT_EQ(got_count, want_count);
  std::vector<T> got = out.get(std::size_t(n), "out");
  EXPECT_EQ(compare_items(got.data(), want.data(), std::size_t(n), "partitioned items"), "");
  if (selected) *selected = got_count;
  return got;
}

template <class T, class Eq>
void check_unique(const test_input<T>& data, int off, std::int64_t n, Eq eq, bool explicit_ws, run_env& env) {
  guarded_array<T> out{std::size_t(n)};
  guarded_array<std::int64_t> count(1);
  out.poison();
  count.poison();
  if (explicit_ws) {
    auto ws = env.workspace(cuprim::unique_workspace_bytes<T>(n));
    cuprim::unique(data.d(off), out.p(), count.p(), n, eq, cuprim::workspace{ws.data(), ws.bytes()}, env.stream);
    ASSERT_EQ(cudaStreamSynchronize(env.stream), cudaSuccess);
  } else {
    cuprim::unique(data.d(off), out.p(), count.p(), n, eq);
  }
  std::vector<T> want(static_cast<std::size_t>(n) + 1);
  const std::int64_t want_count = cuprim::host::unique(data.h(off), want.data(), n, eq);
  ASSERT_EQ(count.get(1, "num_selected")[0], want_count);
  const std::vector<T> got = out.get(std::size_t(want_count), "out");
  EXPECT_EQ(compare_items(got.data(), want.data(), std::size_t(want_count), "unique items"), "");
}

template <class T, class Count, class Eq>
void check_run_length(const test_input<T>& data, int off, std::int64_t n, Eq eq, bool explicit_ws, run_env& env) {
  guarded_array<T> out{std::size_t(n)};
  guarded_array<Count> counts{std::size_t(n)};
  guarded_array<std::int64_t> runs(1);
  out.poison();
  counts.poison();
  runs.poison();
  if (explicit_ws) {
    auto ws = env.workspace(cuprim::run_length_encode_workspace_bytes<T>(n));
    cuprim::run_length_encode(data.d(off), out.p(), counts.p(), runs.p(), n, eq,
                              cuprim::workspace{ws.data(), ws.bytes()}, env.stream);
    ASSERT_EQ(cudaStreamSynchronize(env.stream), cudaSuccess);
  } else {
    cuprim::run_length_encode(data.d(off), out.p(), counts.p(), runs.p(), n, eq);
  }
  std::vector<T> want(static_cast<std::size_t>(n) + 1);
  std::vector<Count> want_counts(static_cast<std::size_t>(n) + 1);
  const std::int64_t want_runs = cuprim::host::run_length_encode(data.h(off), want.data(), want_counts.data(), n, eq);
  ASSERT_EQ(runs.get(1, "num_runs")[0], want_runs);
  const std::vector<T> got = out.get(std::size_t(want_runs), "unique_out");
  const std::vector<Count> got_counts = counts.get(std::size_t(want_runs), "counts_out");
  EXPECT_EQ(compare_items(got.data(), want.data(), std::size_t(want_runs), "run values"), "");
  EXPECT_EQ(compare_items(got_counts.data(), want_counts.data(), std::size_t(want_runs), "run lengths"), "");
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < want_runs; ++i) total += std::int64_t(got_counts[std::size_t(i)]);
  EXPECT_EQ(total, n) << "run lengths must add up to n";
}

/// Thresholds keeping 0%, about 50%, 100% and a random fraction of the first n items.
template <class T>
std::vector<double> thresholds(rng& r, const T* h, std::int64_t n) {
  std::vector<double> keys;
  for (std::int64_t i = 0; i < n; ++i) keys.push_back(key_of(h[i]));
  double median = 0, random_key = 0;
  if (n > 0) {
    std::nth_element(keys.begin(), keys.begin() + n / 2, keys.end());
    median = keys[std::size_t(n / 2)];
    random_key = keys[r.index(std::uint64_t(n))];
  }
  const double inf = std::numeric_limits<double>::infinity();
  return {-inf, median, inf, random_key};
}

// ---------------------------------------------------------------------------------------------------------------
// Typed tests

template <class T>
class Select : public gpu_test {};
using select_types = ::testing::Types<std::uint8_t, std::int32_t, float, double, rec>;

struct select_type_names {
  template <class T>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<T, rec>) return "rec";
    else return type_name<T>();
  }
};
TYPED_TEST_SUITE(Select, select_types, select_type_names);

TYPED_TEST(Select, SelectIfKeepsNoneHalfAllAndRandomFractions) {
  using T = TypeParam;
  CUPRIM_TEST_RNG(r);
  const auto sizes = select_sizes<T>();
  test_input<T> data(random_items<T>(r, std::size_t(sizes.back()) + 1));
  run_env env;
  int variant = 0;
  for (std::int64_t n : sizes) {
    for (int off : {0, 1}) {
      const auto ts = thresholds(r, data.h(off), n);
      for (std::size_t k = 0; k < ts.size(); ++k) {
        CUPRIM_SELECT_TRACE(n, off, "threshold " << k << " (" << ts[k] << ")");
        check_select_if(data, off, n, keep_below{ts[k]}, (variant++ % 2) == 1, env);
      }
      if (n == 0) break;
    }
  }
}

TYPED_TEST(Select, SelectFlaggedWithByteFlags) {
  using T = TypeParam;
  CUPRIM_TEST_RNG(r);
  const auto sizes = select_sizes<T>();
  const std::size_t m = std::size_t(sizes.back()) + 1;
  test_input<T> data(random_items<T>(r, m));
  // Flags: random (about half), then runs of all-set and all-clear stretches.
  std::vector<std::uint8_t> f(m);
  for (std::size_t i = 0; i < m; ++i)
    f[i] = (i / 5000) % 3 == 2 ? std::uint8_t((i / 5000) % 2) : std::uint8_t(r.index(2) * (1 + r.index(255)));
  test_input<std::uint8_t> flags(std::move(f));
  run_env env;
  int variant = 0;
  for (std::int64_t n : sizes) {
    for (int off : {0, 1}) {
      CUPRIM_SELECT_TRACE(n, off, "uint8 flags");
      check_select_flagged(data, flags, off, n, (variant++ % 2) == 1, env);
      if (n == 0) break;
    }
  }
}

TYPED_TEST(Select, PartitionIsStableOnBothSides) {
  using T = TypeParam;
  CUPRIM_TEST_RNG(r);
  const auto sizes = select_sizes<T>();
  test_input<T> data(random_items<T>(r, std::size_t(sizes.back()) + 1));
  run_env env;
  int variant = 0;
  for (std::int64_t n : sizes) {
    for (int off : {0, 1}) {
      const auto ts = thresholds(r, data.h(off), n);
      for (std::size_t k = 0; k < ts.size(); ++k) {
        CUPRIM_SELECT_TRACE(n, off, "threshold " << k << " (" << ts[k] << ")");
        check_partition(data, off, n, keep_below{ts[k]}, (variant++ % 2) == 1, env);
      }
      if (n == 0) break;
    }
  }
}

TYPED_TEST(Select, UniqueDropsAdjacentDuplicates) {
  using T = TypeParam;
  CUPRIM_TEST_RNG(r);
  const auto sizes = select_sizes<T>();
  run_env env;
  int variant = 0;
  for (int shape : {0, 1, 2, 3}) {
    test_input<T> data(run_items<T>(r, std::size_t(sizes.back()) + 1, shape));
    for (std::int64_t n : sizes) {
      for (int off : {0, 1}) {
        CUPRIM_SELECT_TRACE(n, off, "run shape " << shape);
        check_unique(data, off, n, cuprim::equal_to{}, (variant++ % 2) == 1, env);
        if (n == 0) break;
      }
    }
  }
}

TYPED_TEST(Select, RunLengthEncodeRandomSingleAndLongRuns) {
  using T = TypeParam;
  CUPRIM_TEST_RNG(r);
  const auto sizes = select_sizes<T>();
  run_env env;
  int variant = 0;
  for (int shape : {0, 1, 2, 3}) {
    test_input<T> data(run_items<T>(r, std::size_t(sizes.back()) + 1, shape));
    for (std::int64_t n : sizes) {
      for (int off : {0, 1}) {
        CUPRIM_SELECT_TRACE(n, off, "run shape " << shape);
        check_run_length<T, std::int32_t>(data, off, n, cuprim::equal_to{}, (variant++ % 2) == 1, env);
        if (n == 0) break;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Other flag types, count types, equalities, predicates; stability by payload; the sync conveniences

class SelectApi : public gpu_test {};

TEST_F(SelectApi, FlagsOfIntAndBool) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t m = (std::int64_t(1) << 20) + 9;
  test_input<std::int32_t> data(random_items<std::int32_t>(r, std::size_t(m)));
  std::vector<int> fi(static_cast<std::size_t>(m));
  for (auto& f : fi) f = r.index(3) == 0 ? 0 : static_cast<int>(r.between(-5, 5)) | 1;  // nonzero values count as set
  test_input<int> flags_int(std::move(fi));
  // bool flags: 0 / 1 bytes, on the host and the device.
  std::unique_ptr<bool[]> bool_host(new bool[std::size_t(m)]);
  for (std::int64_t i = 0; i < m; ++i) bool_host[std::size_t(i)] = r.index(2) == 1;
  cuprim::device_buffer<bool> bool_dev(static_cast<std::size_t>(m));
  ASSERT_EQ(cudaMemcpy(bool_dev.data(), bool_host.get(), std::size_t(m), cudaMemcpyHostToDevice), cudaSuccess);
  run_env env;
  int variant = 0;
  for (std::int64_t n : std::vector<std::int64_t>{0, 1, 33, 3073, 100003, m - 1}) {
    for (int off : {0, 1}) {
      CUPRIM_SELECT_TRACE(n, off, "int flags");
      check_select_flagged(data, flags_int, off, n, (variant++ % 2) == 1, env);
      SCOPED_TRACE("bool flags");
      guarded_array<std::int32_t> out{std::size_t(n)};
      guarded_array<std::int64_t> count(1);
      out.poison();
      count.poison();
      cuprim::select_flagged(data.d(off), bool_dev.data() + off, out.p(), count.p(), n);
      std::vector<std::int32_t> want(static_cast<std::size_t>(n) + 1);
      const std::int64_t c = cuprim::host::select_flagged(data.h(off), bool_host.get() + off, want.data(), n);
      ASSERT_EQ(count.get(1, "num_selected")[0], c);
      const auto got = out.get(std::size_t(c), "out");
      EXPECT_EQ(compare_items(got.data(), want.data(), std::size_t(c), "selected items"), "");
    }
  }
}

TEST_F(SelectApi, RunLengthEncodeWith64BitCountsAndKeyEquality) {
  CUPRIM_TEST_RNG(r);
  run_env env;
  const std::int64_t m = (std::int64_t(1) << 20) + 7;
  for (int shape : {0, 3}) {
    test_input<std::int32_t> ints(run_items<std::int32_t>(r, std::size_t(m) + 1, shape));
    // Records whose runs are defined by the key alone: payloads differ inside a run.
    std::vector<rec> recs = run_items<rec>(r, std::size_t(m) + 1, shape);
    for (std::size_t i = 0; i < recs.size(); ++i) recs[i].payload = static_cast<std::uint32_t>(i);
    test_input<rec> keyed(std::move(recs));
    int variant = 0;
    for (std::int64_t n : std::vector<std::int64_t>{0, 1, 1025, 3073, 65537, m}) {
      for (int off : {0, 1}) {
        CUPRIM_SELECT_TRACE(n, off, "run shape " << shape);
        check_run_length<std::int32_t, std::int64_t>(ints, off, n, cuprim::equal_to{}, (variant++ % 2) == 1, env);
        check_run_length<rec, std::uint32_t>(keyed, off, n, same_key{}, (variant++ % 2) == 1, env);
        check_unique(keyed, off, n, same_key{}, (variant++ % 2) == 1, env);
      }
    }
  }
}

TEST_F(SelectApi, PartitionKeepsInputOrderByPayload) {
  CUPRIM_TEST_RNG(r);
  run_env env;
  const std::int64_t n = 5 * default_tile<rec>() + 123;
  std::vector<rec> v = random_items<rec>(r, std::size_t(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i].payload = static_cast<std::uint32_t>(i);
  test_input<rec> data(std::move(v));
  std::int64_t selected = 0;
  const std::vector<rec> got = check_partition(data, 0, n, keep_below{0.0}, true, env, &selected);
  ASSERT_GT(selected, 0);
  ASSERT_LT(selected, n);
  for (std::int64_t i = 0; i < n; ++i) {
    const bool left = i < selected;
    EXPECT_EQ(got[std::size_t(i)].key < 0, left) << "item " << i << " on the wrong side";
    if (i > 0 && i != selected)
      EXPECT_LT(got[std::size_t(i - 1)].payload, got[std::size_t(i)].payload) << "order broken at " << i;
  }
}

/// A __device__ lambda predicate (defined outside the test body, whose class access rules nvcc's extended lambdas
/// do not accept).
std::int64_t select_odd_with_lambda(const std::uint32_t* in, std::uint32_t* out, std::int64_t* count, std::int64_t n,
                                    cudaStream_t s) {
  cuprim::select_if(in, out, count, n, [] __device__(std::uint32_t x) { return (x & 1u) != 0; }, s);
  return cuprim::select_if_sync(in, out, n, [] __device__(std::uint32_t x) { return (x & 1u) != 0; }, s);
}

TEST_F(SelectApi, DeviceLambdaAndSyncConveniences) {
  CUPRIM_TEST_RNG(r);
  run_env env;
  const std::int64_t n = 300001;
  test_input<std::uint32_t> data(random_vector<std::uint32_t>(r, std::size_t(n)));
  guarded_array<std::uint32_t> out{std::size_t(n)};
  guarded_array<std::int64_t> count(1);
  out.poison();
  count.poison();
  std::vector<std::uint32_t> want(static_cast<std::size_t>(n));
  const auto odd = [](std::uint32_t x) { return (x & 1u) != 0; };
  const std::int64_t c = cuprim::host::select_if(data.h(0), want.data(), n, odd);
  EXPECT_EQ(select_odd_with_lambda(data.d(0), out.p(), count.p(), n, env.stream), c);
  EXPECT_EQ(count.get(1, "num_selected")[0], c);
  auto got = out.get(std::size_t(c), "out");
  EXPECT_EQ(compare_items(got.data(), want.data(), std::size_t(c), "selected items"), "");

  // The other conveniences: each returns the count and matches the reference.
  test_input<std::uint8_t> flags(random_vector<std::uint8_t>(r, std::size_t(n)));
  const std::int64_t f = cuprim::host::select_flagged(data.h(0), flags.h(0), want.data(), n);
  EXPECT_EQ(cuprim::select_flagged_sync(data.d(0), flags.d(0), out.p(), n, env.stream), f);
  got = out.get(std::size_t(n), "out");
  EXPECT_EQ(compare_items(got.data(), want.data(), std::size_t(f), "flagged"), "");
  const keep_below half{double(1u << 31)};
  EXPECT_EQ(cuprim::partition_sync(data.d(0), out.p(), n, half, env.stream),
            cuprim::host::partition(data.h(0), want.data(), n, half));
  got = out.get(std::size_t(n), "out");
  EXPECT_EQ(compare_items(got.data(), want.data(), std::size_t(n), "partitioned"), "");
  test_input<std::uint32_t> runs(run_items<std::uint32_t>(r, std::size_t(n), 0));
  const std::int64_t u = cuprim::host::unique(runs.h(0), want.data(), n);
  EXPECT_EQ(cuprim::unique_sync(runs.d(0), out.p(), n, env.stream), u);
  EXPECT_EQ(cuprim::unique_sync(runs.d(0), out.p(), n, cuprim::equal_to{}, env.stream), u);
  got = out.get(std::size_t(n), "out");
  EXPECT_EQ(compare_items(got.data(), want.data(), std::size_t(u), "unique"), "");
  guarded_array<std::int32_t> counts{std::size_t(n)};
  counts.poison();
  std::vector<std::int32_t> want_counts(static_cast<std::size_t>(n));
  EXPECT_EQ(cuprim::run_length_encode_sync(runs.d(0), out.p(), counts.p(), n, env.stream),
            cuprim::host::run_length_encode(runs.h(0), want.data(), want_counts.data(), n));
  got = out.get(std::size_t(n), "out");
  const auto got_counts = counts.get(std::size_t(n), "counts");
  EXPECT_EQ(compare_items(got.data(), want.data(), std::size_t(u), "run values"), "");
  EXPECT_EQ(compare_items(got_counts.data(), want_counts.data(), std::size_t(u), "run lengths"), "");
  // n = 0: the count is 0, nothing else is touched.
  EXPECT_EQ(cuprim::select_if_sync(data.d(0), out.p(), 0, half, env.stream), 0);
  EXPECT_EQ(cuprim::run_length_encode_sync(runs.d(0), out.p(), counts.p(), 0, env.stream), 0);
}

TEST_F(SelectApi, RepeatedCallsReuseTheWorkspace) {
  // The workspace's contents need not be initialised: the same buffer, dirty from the last call, serves again.
  CUPRIM_TEST_RNG(r);
  run_env env;
  const std::int64_t n = (std::int64_t(1) << 21) + 3;
  test_input<std::int32_t> data(random_items<std::int32_t>(r, std::size_t(n)));
  const std::size_t bytes = std::max({cuprim::select_if_workspace_bytes<std::int32_t>(n),
                                      cuprim::partition_workspace_bytes<std::int32_t>(n),
                                      cuprim::run_length_encode_workspace_bytes<std::int32_t>(n)});
  auto ws = env.workspace(bytes);
  guarded_array<std::int32_t> out{std::size_t(n)};
  guarded_array<std::int64_t> count(1);
  std::vector<std::int32_t> want(static_cast<std::size_t>(n));
  for (int rep = 0; rep < 3; ++rep) {
    const keep_below pred{double(r.between(-1000000000, 1000000000))};
    out.poison();
    count.poison();
    cuprim::select_if(data.d(0), out.p(), count.p(), n, pred, cuprim::workspace{ws.data(), ws.bytes()}, env.stream);
    cuprim::partition(data.d(0), out.p(), count.p(), n, pred, cuprim::workspace{ws.data(), ws.bytes()}, env.stream);
    ASSERT_EQ(cudaStreamSynchronize(env.stream), cudaSuccess);
    const std::int64_t c = cuprim::host::partition(data.h(0), want.data(), n, pred);
    EXPECT_EQ(count.get(1, "num_selected")[0], c);
    const auto got = out.get(std::size_t(n), "out");
    EXPECT_EQ(compare_items(got.data(), want.data(), std::size_t(n), "partitioned"), "");
  }
}

// ---------------------------------------------------------------------------------------------------------------
// select_flagged_index: the indices of the set flags, generated from their positions

/// How a flag type is held on the host: bool flags as 0 / 1 bytes (std::vector<bool> has no data()).
template <class Flag>
using flag_store_t = std::conditional_t<std::is_same_v<Flag, bool>, std::uint8_t, Flag>;

/// n flags (plus `extra`), set with probability percent / 100 (percent < 0: stretches of 5000 all clear, all set,
/// half set at random). A set flag is any nonzero value (uint8: 1 to 255; float: ±1.5, NaN, ±inf, a denormal), a
/// clear one zero (float: +0.0 or -0.0).
template <class Flag>
std::vector<flag_store_t<Flag>> random_flags(rng& r, std::size_t n, int percent) {
  using S = flag_store_t<Flag>;
  std::vector<S> f(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int pct = percent >= 0 ? percent : std::array<int, 3>{0, 100, 50}[(i / 5000) % 3];
    const bool set = int(r.index(100)) < pct;
    if constexpr (std::is_floating_point_v<S>) {
      constexpr S set_values[] = {S(1.5), S(-1.5), std::numeric_limits<S>::quiet_NaN(),
                                  std::numeric_limits<S>::infinity(), -std::numeric_limits<S>::infinity(),
                                  std::numeric_limits<S>::denorm_min()};
      f[i] = set ? set_values[r.index(std::size(set_values))] : (r.index(2) ? S(0) : -S(0));
    } else if constexpr (std::is_same_v<Flag, bool>) {
      f[i] = set ? 1 : 0;
    } else {
      f[i] = set ? S(1 + r.index(255)) : S(0);
    }
  }
  return f;
}

/// select_flagged_index(flags + off, ..., n) into Index against the indices i < n with flags[off + i] != 0.
template <class Flag, class Index>
void check_select_flagged_index(const test_input<flag_store_t<Flag>>& flags, int off, std::int64_t n, int variant,
                                run_env& env) {
  guarded_array<Index> out{std::size_t(n)};
  guarded_array<std::int64_t> count(1);
  out.poison();
  count.poison();
  const auto* f = reinterpret_cast<const Flag*>(flags.d(off));
  std::int64_t got_count = -1;
  if (variant % 3 == 1) {
    auto ws = env.workspace(cuprim::select_flagged_index_workspace_bytes<Flag>(n));
    cuprim::select_flagged_index(f, out.p(), count.p(), n, cuprim::workspace{ws.data(), ws.bytes()}, env.stream);
    ASSERT_EQ(cudaStreamSynchronize(env.stream), cudaSuccess);
    got_count = count.get(1, "num_selected")[0];
  } else if (variant % 3 == 2) {
    got_count = cuprim::select_flagged_index_sync(f, out.p(), n, env.stream);
    EXPECT_TRUE(count.untouched());
  } else {
    cuprim::select_flagged_index(f, out.p(), count.p(), n);
    got_count = count.get(1, "num_selected")[0];
  }
  std::vector<Index> want;
  for (std::int64_t i = 0; i < n; ++i)
    if (flags.host[std::size_t(off + i)] != 0) want.push_back(static_cast<Index>(i));  // NaN != 0: set
  ASSERT_EQ(got_count, std::int64_t(want.size()));
  const std::vector<Index> got = out.get(want.size(), "out");
  EXPECT_EQ(compare_items(got.data(), want.data(), want.size(), "indices"), "");
}

/// Every density on sizes around the flag type's tile, up to past the pipeline's threshold of select_if (2^22),
/// at offsets 0 (vector loads) and 1 (element loads), each overload in turn.
template <class Flag, class Index>
void check_flagged_index_densities(rng& r) {
  SCOPED_TRACE(::testing::Message() << "flags " << type_name<flag_store_t<Flag>>()
                                    << (std::is_same_v<Flag, bool> ? " (bool)" : "") << ", indices "
                                    << type_name<Index>());
  const std::int64_t tile = default_tile<Flag>();
  const std::vector<std::int64_t> sizes = {0, 1, 15, 16, 17, 33, tile - 1, tile, tile + 1, 2 * tile + 1,
                                           5 * tile + 17, (std::int64_t(1) << 20) + 7, (std::int64_t(1) << 22) + 5};
  run_env env;
  int variant = 0;
  for (int percent : {0, 1, 50, 100, -1}) {
    const test_input<flag_store_t<Flag>> flags(random_flags<Flag>(r, std::size_t(sizes.back()) + 1, percent));
    for (std::int64_t n : sizes) {
      for (int off : {0, 1}) {
        CUPRIM_SELECT_TRACE(n, off, "flags set " << percent << "%");
        check_select_flagged_index<Flag, Index>(flags, off, n, variant++, env);
        if (n == 0) break;
      }
    }
  }
}

TEST_F(SelectApi, FlaggedIndexOfByteFlags) {
  CUPRIM_TEST_RNG(r);
  check_flagged_index_densities<std::uint8_t, std::int64_t>(r);
  check_flagged_index_densities<std::uint8_t, std::int32_t>(r);
}

TEST_F(SelectApi, FlaggedIndexOfBoolAndFloatFlags) {
  CUPRIM_TEST_RNG(r);
  check_flagged_index_densities<bool, std::int64_t>(r);
  check_flagged_index_densities<float, std::int32_t>(r);
}

TEST_F(SelectApi, FlaggedIndexUnderOtherPolicies) {
  // A small tile (many look-backs) and a pipeline policy (its classic tile serves): the same indices.
  CUPRIM_TEST_RNG(r);
  run_env env;
  const std::int64_t n = (std::int64_t(1) << 20) + 3;
  const test_input<std::uint8_t> flags(random_flags<std::uint8_t>(r, std::size_t(n), 50));
  constexpr cuprim::select_policy small{.threads = 32, .vector_bytes = 4, .vectors = 1};
  constexpr cuprim::select_pipeline_policy piped{.pipeline = tiny_pipeline, .classic = small};
  std::vector<std::int64_t> want;
  for (std::int64_t i = 0; i < n; ++i)
    if (flags.host[std::size_t(i)]) want.push_back(i);
  for (int k = 0; k < 2; ++k) {
    SCOPED_TRACE(k == 0 ? "select_policy 32 x 1 x 4 bytes" : "select_pipeline_policy");
    guarded_array<std::int64_t> out{std::size_t(n)};
    guarded_array<std::int64_t> count(1);
    out.poison();
    count.poison();
    const std::size_t bytes = k == 0 ? cuprim::select_flagged_index_workspace_bytes<std::uint8_t, small>(n)
                                     : cuprim::select_flagged_index_workspace_bytes<std::uint8_t, piped>(n);
    EXPECT_EQ(bytes, (cuprim::select_flagged_index_workspace_bytes<std::uint8_t, small>(n)));
    auto ws = env.workspace(bytes);
    const cuprim::workspace w{ws.data(), ws.bytes()};
    if (k == 0) cuprim::select_flagged_index<small>(flags.d(0), out.p(), count.p(), n, w, env.stream);
    else cuprim::select_flagged_index<piped>(flags.d(0), out.p(), count.p(), n, w, env.stream);
    ASSERT_EQ(cudaStreamSynchronize(env.stream), cudaSuccess);
    ASSERT_EQ(count.get(1, "num_selected")[0], std::int64_t(want.size()));
    const auto got = out.get(want.size(), "out");
    EXPECT_EQ(compare_items(got.data(), want.data(), want.size(), "indices"), "");
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Errors: nothing written

__global__ void empty_kernel() {}

TEST_F(SelectApi, BadArgumentsWriteNothing) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = 4 * default_tile<std::int32_t>() + 1;
  test_input<std::int32_t> data(random_items<std::int32_t>(r, std::size_t(n)));
  guarded_array<std::int32_t> out{std::size_t(n)};
  guarded_array<std::int32_t> counts{std::size_t(n)};
  guarded_array<std::int64_t> count(1);
  out.poison();
  counts.poison();
  count.poison();
  const std::size_t need = cuprim::select_if_workspace_bytes<std::int32_t>(n);
  ASSERT_GT(need, 0u);
  cuprim::device_buffer<unsigned char> ws(need);
  const cuprim::workspace small{ws.data(), need - 1};
  const keep_below pred{0.0};
  EXPECT_THROW(cuprim::select_if(data.d(0), out.p(), count.p(), n, pred, small), cuprim::invalid_argument);
  EXPECT_THROW(cuprim::partition(data.d(0), out.p(), count.p(), n, pred, cuprim::workspace{ws.data(), 0}),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::unique(data.d(0), out.p(), count.p(), n, cuprim::workspace{nullptr, 0}),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::run_length_encode(data.d(0), out.p(), counts.p(), count.p(), n, cuprim::workspace{nullptr, 0}),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::select_if(data.d(0), out.p(), static_cast<std::int64_t*>(nullptr), n, pred),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::select_if(data.d(0), const_cast<std::int32_t*>(data.d(0)) + 5, count.p(), n, pred),
               cuprim::invalid_argument);
  // select_flagged_index: a small workspace, no count, out over the flags, indices too narrow for n.
  const auto* flags = reinterpret_cast<const std::uint8_t*>(data.d(0));
  auto* idx = reinterpret_cast<std::int64_t*>(out.p());
  const std::size_t need_index = cuprim::select_flagged_index_workspace_bytes<std::uint8_t>(n);
  ASSERT_GT(need_index, 0u);
  EXPECT_THROW(cuprim::select_flagged_index(flags, out.p(), count.p(), n, cuprim::workspace{ws.data(), 0}),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::select_flagged_index(flags, idx, static_cast<std::int64_t*>(nullptr), n / 2),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::select_flagged_index(reinterpret_cast<const std::uint8_t*>(out.p()) + 4, idx, count.p(), n / 2),
               cuprim::invalid_argument);
  EXPECT_THROW((void)cuprim::select_flagged_index_sync(flags, out.p(), (std::int64_t(1) << 31) + 1),
               cuprim::invalid_argument);
  // An error left pending by someone else is reported as pre-existing; nothing runs.
  empty_kernel<<<1, 2048>>>();
  const cudaError_t pending = cudaPeekAtLastError();
  ASSERT_NE(pending, cudaSuccess);
  try {
    cuprim::select_if(data.d(0), out.p(), count.p(), n, pred);
    ADD_FAILURE() << "no exception although an error was pending";
  } catch (const cuprim::cuda_error& e) {
    EXPECT_TRUE(e.pre_existing()) << e.what();
    EXPECT_EQ(e.code(), pending);
  }
  (void)cudaGetLastError();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(out.untouched());
  EXPECT_TRUE(counts.untouched());
  EXPECT_TRUE(count.untouched());
}

// ---------------------------------------------------------------------------------------------------------------
// Large inputs (CUPRIM_TEST_LARGE)

// select_if through the look-back pipeline (persistent blocks, bulk copies, warp roles) under policies that take
// every size: tiny tiles (thousands of look-backs, two stages), the default shape; 4- and 8-byte types; nothing,
// about half, everything kept; an input offset of one element (off the 16-byte grid: the one-tile-per-block path).
template <class T, auto Policy>
void check_select_pipeline(rng& r, const char* what) {
  SCOPED_TRACE(::testing::Message() << what << ", " << select_type_names::GetName<T>(0));
  run_env env;
  constexpr std::int64_t tile = std::int64_t(cuprim::detail::pipeline_shape<Policy.pipeline, T>::TE);
  const std::vector<std::int64_t> sizes = {1, 31, tile - 1, tile, tile + 1, 7 * tile + 5, 301 * tile + 3,
                                           (std::int64_t(1) << 20) + 7};
  const std::int64_t m = *std::max_element(sizes.begin(), sizes.end());
  const test_input<T> data(random_items<T>(r, std::size_t(m) + 1));
  const double inf = std::numeric_limits<double>::infinity();
  const double half = std::is_unsigned_v<T> ? std::ldexp(1.0, int(8 * sizeof(T)) - 1) : 0.0;  // about half kept
  int k = 0;
  for (std::int64_t n : sizes) {
    for (double t : {-inf, half, inf}) {
      for (int off : {0, 1}) {
        if (off == 1 && t != half) continue;
        CUPRIM_SELECT_TRACE(n, off, "keep below " << t);
        check_select_if<T, keep_below, Policy>(data, off, n, keep_below{t}, (k++ & 1) != 0, env);
      }
    }
  }
}

TEST_F(SelectApi, PipelineSelectIf) {
  CUPRIM_TEST_RNG(r);
  constexpr cuprim::select_policy classic{.threads = 128, .vector_bytes = 16, .vectors = 6};
  constexpr cuprim::select_pipeline_policy tiny{.pipeline = tiny_pipeline, .classic = classic};
  check_select_pipeline<std::int32_t, tiny>(r, "pipeline, 2 warps x 1 vector, 2 stages");
  check_select_pipeline<double, tiny>(r, "pipeline, 2 warps x 1 vector, 2 stages");
  constexpr cuprim::select_pipeline_policy shape{
      .pipeline = {.scan_warps = 8, .lane_vectors = 9, .stages = 5, .min_elems = 0, .first_wait_ns = 400,
                   .poll_wait_ns = 200},
      .classic = classic};
  check_select_pipeline<std::uint32_t, shape>(r, "pipeline, default shape");
  check_select_pipeline<float, shape>(r, "pipeline, default shape");
  check_select_pipeline<std::int64_t, shape>(r, "pipeline, default shape");
}

TEST_F(SelectApi, LargeInputs) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  run_env env;
  const std::int64_t n = (std::int64_t(1) << 28) + 3;
  {
    test_input<std::int32_t> data(random_vector<std::int32_t>(r, std::size_t(n)));
    const keep_below half{0.0};
    {
      SCOPED_TRACE("select_if, 2^28 + 3 int32, about half kept");
      check_select_if(data, 0, n, half, true, env);
    }
    {
      SCOPED_TRACE("partition, 2^28 + 3 int32, about half kept");
      check_partition(data, 1, n - 1, half, false, env);
    }
  }
  {
    SCOPED_TRACE("select_flagged_index, 2^28 + 3 uint8 flags, about half set, int64 indices");
    const test_input<std::uint8_t> flags(random_flags<std::uint8_t>(r, std::size_t(n), 50));
    check_select_flagged_index<std::uint8_t, std::int64_t>(flags, 1, n - 1, 1, env);
  }
  {
    SCOPED_TRACE("run_length_encode, 2^28 + 3 uint8, random run lengths");
    test_input<std::uint8_t> runs(run_items<std::uint8_t>(r, std::size_t(n), 0));
    check_run_length<std::uint8_t, std::int32_t>(runs, 0, n, cuprim::equal_to{}, true, env);
  }
}

}  // namespace
}  // namespace cuprim_test
