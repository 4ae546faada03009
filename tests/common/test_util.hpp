// tests/common/test_util.hpp: what every cuprim test shares.
//
//  - seeded random data for every element type cuprim reduces (CUPRIM_TEST_RNG; the seed is printed with any
//    failure; CUPRIM_TEST_SEED=<n> reproduces a run, otherwise every run draws a fresh seed)
//  - environment switches: CUPRIM_TEST_LARGE (default 1; 0 skips the huge-size cases, visibly)
//  - skip helpers: CUPRIM_REQUIRE_GPU(), CUPRIM_REQUIRE_LARGE(), and the gpu_test fixture
//  - poisoning of device outputs and checks that poison is intact
//  - independent host references and the floating-point error bound the reductions are checked against
//  - a 12-byte user struct with a user operator, and other small test types
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace cuprim_test {

// ---------------------------------------------------------------------------------------------------------------
// Environment switches and skips

/// Reads an integer environment variable; `fallback` when unset or empty.
inline long long env_int(const char* name, long long fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoll(v, nullptr, 0);
}

/// CUPRIM_TEST_LARGE (default 1): whether the huge-size cases (2^28 elements, n > 2^31) run.
inline bool large_enabled() { return env_int("CUPRIM_TEST_LARGE", 1) != 0; }

}  // namespace cuprim_test

/// Skips the current test (visibly) when no CUDA device is usable.
#define CUPRIM_REQUIRE_GPU()                                                   \
  do {                                                                         \
    if (!::cuprim::has_device()) GTEST_SKIP() << "no CUDA device";             \
  } while (0)

/// Skips the current test (visibly) when CUPRIM_TEST_LARGE=0.
#define CUPRIM_REQUIRE_LARGE()                                                                      \
  do {                                                                                              \
    if (!::cuprim_test::large_enabled()) GTEST_SKIP() << "huge-size case skipped (CUPRIM_TEST_LARGE=0)"; \
  } while (0)

namespace cuprim_test {

// ---------------------------------------------------------------------------------------------------------------
// Random numbers

/// splitmix64: seeds the generators and mixes seeds.
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// xoshiro256**: fast, good-quality 64-bit generator.
class rng {
public:
  explicit rng(std::uint64_t seed) {
    for (auto& w : s_) w = splitmix64(seed);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [lo, hi] (inclusive; the modulo bias is irrelevant for tests).
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    if (span == std::numeric_limits<std::uint64_t>::max()) return static_cast<std::int64_t>(next());
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + next() % (span + 1));
  }
  /// Uniform index in [0, n).
  std::uint64_t index(std::uint64_t n) { return next() % n; }

private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

/// The run's base seed: CUPRIM_TEST_SEED when set, else drawn from std::random_device once per process.
inline std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const char* v = std::getenv("CUPRIM_TEST_SEED");
    if (v != nullptr && *v != '\0') return static_cast<std::uint64_t>(std::strtoull(v, nullptr, 0));
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }();
  return seed;
}

/// The seed of the running test: the base seed mixed with the test's full name, so that one test reruns
/// with the same data under --gtest_filter whatever else runs.
inline std::uint64_t test_seed() {
  std::string name = "cuprim";
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
    name = std::string(info->test_suite_name()) + "." + info->name();
  }
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  std::uint64_t state = base_seed() ^ h;
  return splitmix64(state);
}

inline std::string seed_message() {
  std::ostringstream os;
  os << "random data from CUPRIM_TEST_SEED=" << base_seed() << " (set it to reproduce this run)";
  return os.str();
}

}  // namespace cuprim_test

/// Declares `name`, a generator seeded for the running test, and attaches the seed to every failure in scope.
#define CUPRIM_TEST_RNG(name)                                   \
  SCOPED_TRACE(::cuprim_test::seed_message());                  \
  ::cuprim_test::rng name(::cuprim_test::test_seed())

namespace cuprim_test {

// ---------------------------------------------------------------------------------------------------------------
// Test types

/// A 12-byte user type with a user operator: (wrapping sum, minimum, maximum). Associative and commutative.
struct stats {
  std::uint32_t sum;
  std::int32_t lo;
  std::int32_t hi;
};
static_assert(sizeof(stats) == 12);

struct stats_op {
  CUPRIM_HD stats operator()(const stats& a, const stats& b) const {
    return {a.sum + b.sum, b.lo < a.lo ? b.lo : a.lo, a.hi < b.hi ? b.hi : a.hi};
  }
};
/// The identity-like start value of a stats reduction (any init works; this one leaves the data's stats).
inline stats stats_init() {
  return {0u, std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::lowest()};
}
/// int → stats, for transform_reduce.
struct to_stats {
  CUPRIM_HD stats operator()(std::int32_t x) const { return {static_cast<std::uint32_t>(x), x, x}; }
};
inline bool operator==(const stats& a, const stats& b) { return a.sum == b.sum && a.lo == b.lo && a.hi == b.hi; }
inline std::ostream& operator<<(std::ostream& os, const stats& s) {
  return os << "{sum " << s.sum << ", lo " << s.lo << ", hi " << s.hi << "}";
}

/// An 8-byte struct (mixed int / float) for the shuffles.
struct pair8 {
  std::int32_t key;
  float value;
};
static_assert(sizeof(pair8) == 8);

/// A 3-byte struct: a shuffle of a type that is not a whole number of words.
struct rgb {
  std::uint8_t r, g, b;
};
static_assert(sizeof(rgb) == 3);

// ---------------------------------------------------------------------------------------------------------------
// Type traits and conversions on the host

template <class T>
inline constexpr bool is_half_like = cuprim::is_half_like_v<T>;
template <class T>
inline constexpr bool is_float_like = std::is_floating_point_v<T> || is_half_like<T>;

/// The value as a double (exact for every arithmetic type up to 53 bits, and for the 16-bit floats).
template <class T>
double to_double(const T& x) {
  if constexpr (std::is_same_v<T, __half>) return static_cast<double>(__half2float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return static_cast<double>(__bfloat162float(x));
  else return static_cast<double>(x);
}

/// A double converted to T (rounded to nearest for the floating types).
template <class T>
T from_double(double x) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(static_cast<float>(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(static_cast<float>(x));
  else return static_cast<T>(x);
}

/// The bytes of x as an unsigned integer (for bitwise comparisons and printing).
template <class T>
auto bits(const T& x) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  using U = std::conditional_t<sizeof(T) == 1, std::uint8_t,
            std::conditional_t<sizeof(T) == 2, std::uint16_t,
            std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  U u;
  std::memcpy(&u, &x, sizeof(T));
  return u;
}

template <class T>
bool same_bytes(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
bool is_nan(const T& x) {
  if constexpr (is_float_like<T>) return std::isnan(to_double(x));
  else return false;
}

/// Prints any test value readably (16-bit floats as numbers, 8-bit integers as numbers).
template <class T>
std::string show(const T& x) {
  std::ostringstream os;
  if constexpr (is_float_like<T>) {
    os.precision(17);
    os << to_double(x) << " [0x" << std::hex << +bits(x) << "]";
  } else if constexpr (std::is_integral_v<T>) {
    os << +x;
  } else {
    os << x;
  }
  return os.str();
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, __half>) return "half";
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bfloat16";
  else if constexpr (std::is_same_v<T, stats>) return "stats";
  else if constexpr (std::is_same_v<T, pair8>) return "pair8";
  else if constexpr (std::is_same_v<T, rgb>) return "rgb";
  else return "unnamed";
}

/// For TYPED_TEST_SUITE: test names carry the element type.
struct type_names {
  template <class T>
  static std::string GetName(int) {
    if constexpr (requires { T::name; }) return T::name;
    else return type_name<T>();
  }
};

// ---------------------------------------------------------------------------------------------------------------
// Random values of every type

/// One value of T from its default distribution: every bit pattern for integers; for float and double a
/// uniform [-1, 1) mantissa scaled by 2^k, k in [-3, 3] (a spread of magnitudes); for the 16-bit floats
/// uniform [-1, 1) rounded to the type; for stats random fields.
template <class T>
T random_value(rng& r) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(r.next());
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(std::ldexp(r.uniform(-1.0, 1.0), static_cast<int>(r.between(-3, 3))));
  } else if constexpr (is_half_like<T>) {
    return from_double<T>(r.uniform(-1.0, 1.0));
  } else if constexpr (std::is_same_v<T, stats>) {
    auto a = static_cast<std::int32_t>(r.next()), b = static_cast<std::int32_t>(r.next());
    return {static_cast<std::uint32_t>(r.next()), std::min(a, b), std::max(a, b)};
  } else if constexpr (std::is_same_v<T, pair8>) {
    return {static_cast<std::int32_t>(r.next()), static_cast<float>(r.uniform(-1e3, 1e3))};
  } else if constexpr (std::is_same_v<T, rgb>) {
    std::uint64_t w = r.next();
    return {static_cast<std::uint8_t>(w), static_cast<std::uint8_t>(w >> 8), static_cast<std::uint8_t>(w >> 16)};
  } else {
    static_assert(sizeof(T) == 0, "no random_value for this type");
  }
}

/// One value of T in [lo, hi] (integers, inclusive) or [lo, hi) (floating types, then rounded to T).
template <class T>
T random_value(rng& r, double lo, double hi) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(r.between(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)));
  } else {
    return from_double<T>(r.uniform(lo, hi));
  }
}

template <class T>
std::vector<T> random_vector(rng& r, std::size_t n) {
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T> && sizeof(T) < 8) {
    // Several values per draw: generating 2^31 bytes stays fast.
    constexpr std::size_t per = 8 / sizeof(T);
    std::size_t i = 0;
    for (; i + per <= n; i += per) {
      std::uint64_t w = r.next();
      std::memcpy(v.data() + i, &w, sizeof(w));
    }
    for (; i < n; ++i) v[i] = static_cast<T>(r.next());
  } else {
    for (auto& x : v) x = random_value<T>(r);
  }
  return v;
}

template <class T>
std::vector<T> random_vector(rng& r, std::size_t n, double lo, double hi) {
  std::vector<T> v(n);
  for (auto& x : v) x = random_value<T>(r, lo, hi);
  return v;
}

// ---------------------------------------------------------------------------------------------------------------
// Independent host references (written here, not taken from cuprim::host, so that a shared mistake cannot hide)

/// init + Σ x_i for an integer accumulator A, wrapping modulo 2^bits(A) (computed in uint64, then converted,
/// which C++20 defines as modular).
template <class A, class T>
A wrap_sum(const T* x, std::size_t n, A init) {
  static_assert(std::is_integral_v<A> && std::is_integral_v<T>);
  std::uint64_t s = static_cast<std::uint64_t>(static_cast<std::int64_t>(init));
  if constexpr (std::is_unsigned_v<A>) s = static_cast<std::uint64_t>(init);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_signed_v<T>) s += static_cast<std::uint64_t>(static_cast<std::int64_t>(x[i]));
    else s += static_cast<std::uint64_t>(x[i]);
  }
  return static_cast<A>(s);
}

/// Σ x_i and Σ |x_i| in long double (the reference for floating-point sums).
struct float_sum {
  long double sum = 0;
  long double abs_sum = 0;
};
template <class T>
float_sum reference_sum(const T* x, std::size_t n, double init = 0) {
  float_sum r{init, std::fabs(static_cast<long double>(init))};
  for (std::size_t i = 0; i < n; ++i) {
    const long double v = to_double(x[i]);
    r.sum += v;
    r.abs_sum += std::fabs(v);
  }
  return r;
}

/// The smallest / largest element by operator< on the value (as double for the 16-bit floats).
template <bool Max, class T>
T reference_extreme(const T* x, std::size_t n) {
  T best = x[0];
  for (std::size_t i = 1; i < n; ++i) {
    const bool better = Max ? to_double(best) < to_double(x[i]) : to_double(x[i]) < to_double(best);
    if (better) best = x[i];
  }
  return best;
}

/// Index of the argmin / argmax: the first NaN if there is one, else the first position of the extreme value.
template <bool Max, class T>
std::int64_t reference_arg_index(const T* x, std::size_t n) {
  if (n == 0) return -1;
  for (std::size_t i = 0; i < n; ++i)
    if (is_nan(x[i])) return static_cast<std::int64_t>(i);
  std::size_t best = 0;
  for (std::size_t i = 1; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      if (Max ? x[best] < x[i] : x[i] < x[best]) best = i;
    } else {
      if (Max ? to_double(x[best]) < to_double(x[i]) : to_double(x[i]) < to_double(x[best])) best = i;
    }
  }
  return static_cast<std::int64_t>(best);
}

// ---------------------------------------------------------------------------------------------------------------
// Floating-point error bound

/// Machine epsilon of an accumulator type.
template <class A>
constexpr double epsilon() {
  if constexpr (std::is_same_v<A, __half>) return 0x1.0p-10;
  else if constexpr (std::is_same_v<A, __nv_bfloat16>) return 0x1.0p-7;
  else return static_cast<double>(std::numeric_limits<A>::epsilon());
}

/// Parallel lanes the error bound assumes: the production kernel and the grid-stride ladder rungs keep at
/// least min(65536, SMs × 2048) independent accumulators for large n, so no chain of dependent operations is
/// longer than about n / lanes plus logarithmic tree terms.
inline double device_lanes() {
  const double sms = cuprim::has_device() ? cuprim::get_device_info().sm_count : 32;
  return std::min(65536.0, std::max(1.0, sms * 2048.0));
}

/// Error bound of a parallel sum of n terms accumulated in a type with epsilon `eps`:
///   eps · (⌈n / lanes⌉ + 2⌈log2(n + 1)⌉ + 8) · Σ|x_i|
/// (the longest chain of dependent roundings times the unit error, a first-order bound with a 2× margin).
inline double sum_tolerance(double eps, std::uint64_t n, long double abs_sum, double lanes = 65536.0) {
  const double chain = std::ceil(static_cast<double>(n) / lanes) +
                       2.0 * std::ceil(std::log2(static_cast<double>(n) + 1.0)) + 8.0;
  return eps * chain * static_cast<double>(abs_sum);
}

/// Extra error from converting an accumulated value near `ref` to Out (half an ulp of Out, plus Out's
/// smallest subnormal step for results near zero); 0 when Out holds the accumulator exactly.
template <class Out, class Acc>
double output_rounding(long double ref) {
  if constexpr (sizeof(Out) >= sizeof(Acc) || !is_float_like<Out>) {
    return 0.0;
  } else if constexpr (std::is_same_v<Out, __half>) {
    return 0x1.0p-11 * std::fabs(static_cast<double>(ref)) + 0x1.0p-24;
  } else if constexpr (std::is_same_v<Out, __nv_bfloat16>) {
    return 0x1.0p-8 * std::fabs(static_cast<double>(ref)) + 0x1.0p-133;
  } else {  // float from double
    return 0x1.0p-24 * std::fabs(static_cast<double>(ref)) + 0x1.0p-149;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Device memory helpers

inline constexpr unsigned char poison_byte = 0xCD;

/// Fills every byte of the buffer with poison_byte (stream-ordered; the next download synchronises).
template <class T>
void poison(cuprim::device_buffer<T>& b, unsigned char byte = poison_byte) {
  b.fill_bytes(byte);
}

/// Copies `count` elements at `p` (device memory) to the host, synchronously.
template <class T>
std::vector<T> download(const T* p, std::size_t count) {
  std::vector<T> out(count);
  if (count) {
    const cudaError_t e = cudaMemcpy(out.data(), p, count * sizeof(T), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) ADD_FAILURE() << "cudaMemcpy to host failed: " << cudaGetErrorString(e);
  }
  return out;
}

template <class T>
T download_one(const T* p) {
  return download(p, 1)[0];
}

template <class T>
void upload(T* p, const std::vector<T>& v) {
  if (v.empty()) return;
  const cudaError_t e = cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  if (e != cudaSuccess) ADD_FAILURE() << "cudaMemcpy to device failed: " << cudaGetErrorString(e);
}

/// Whether bytes [first, first + count) of the device range at p all hold `byte`.
inline ::testing::AssertionResult bytes_are(const void* p, std::size_t count, unsigned char byte = poison_byte) {
  std::vector<unsigned char> h(count);
  if (count) {
    const cudaError_t e = cudaMemcpy(h.data(), p, count, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return ::testing::AssertionFailure() << "cudaMemcpy failed: " << cudaGetErrorString(e);
  }
  for (std::size_t i = 0; i < count; ++i)
    if (h[i] != byte)
      return ::testing::AssertionFailure() << "byte " << i << " of " << count << " is 0x" << std::hex << +h[i]
                                           << ", expected 0x" << +byte << " (memory written that must not be)";
  return ::testing::AssertionSuccess();
}

/// Whether bytes [0, count) at p, in HOST memory (an element of a downloaded vector), all hold `byte`. For device
/// memory use bytes_are, which copies the range to the host first (a host pointer there fails the copy).
inline ::testing::AssertionResult host_bytes_are(const void* p, std::size_t count, unsigned char byte = poison_byte) {
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < count; ++i)
    if (b[i] != byte)
      return ::testing::AssertionFailure() << "byte " << i << " of " << count << " is 0x" << std::hex << +b[i]
                                           << ", expected 0x" << +byte << " (memory written that must not be)";
  return ::testing::AssertionSuccess();
}

/// An output slot with poisoned guard elements on both sides: out() points to the middle of three elements.
/// value() downloads the slot and checks the guards (an out-of-bounds write fails the test).
template <class T>
class guarded_out {
public:
  guarded_out() : buf_(3) { reset(); }
  void reset() { poison(buf_); }
  T* out() { return buf_.data() + 1; }
  T value() {
    std::vector<T> h = buf_.to_host_sync();
    EXPECT_TRUE(bytes_are_host(&h[0])) << "guard element before the output was written";
    EXPECT_TRUE(bytes_are_host(&h[2])) << "guard element after the output was written";
    return h[1];
  }
  /// True when the output slot still holds the poison (nothing was written).
  bool untouched() {
    std::vector<T> h = buf_.to_host_sync();
    return bytes_are_host(&h[0]) && bytes_are_host(&h[1]) && bytes_are_host(&h[2]);
  }

private:
  static bool bytes_are_host(const T* p) {
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    return std::all_of(b, b + sizeof(T), [](unsigned char c) { return c == poison_byte; });
  }
  cuprim::device_buffer<T> buf_;
};

// ---------------------------------------------------------------------------------------------------------------
// The fixture of every GPU test: skips without a device; after each test, the device must be clean
// (no fault from asynchronous work, no error left pending).

class gpu_test : public ::testing::Test {
protected:
  void SetUp() override { CUPRIM_REQUIRE_GPU(); }
  void TearDown() override {
    if (!cuprim::has_device()) return;
    cudaError_t e = cudaDeviceSynchronize();
    EXPECT_EQ(e, cudaSuccess) << "asynchronous CUDA error after the test: " << cudaGetErrorName(e);
    e = cudaGetLastError();
    EXPECT_EQ(e, cudaSuccess) << "CUDA error left pending by the test: " << cudaGetErrorName(e);
  }
};

template <class T>
class typed_gpu_test : public gpu_test {};

}  // namespace cuprim_test
