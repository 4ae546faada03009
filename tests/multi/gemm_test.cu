// cuprim::multi::gemm (column panels, gathered while the previous panel is multiplied) and detail::gemm_allgather
// (the same steps without the overlap) on P = 1, 2 and 4 GPUs of this process, against a double host reference of
// the global product: even shards, and uneven ones (m = 301, k = 257, n odd, a rank with no rows, a rank with no
// inner block, a rank whose own block is empty: P broadcasts instead of one all-gather), k = 0, and n = 643 (three
// panels at the default count, two of 256 columns and one of 131: both panel buffers reused); bf16 in with float C, bf16 C, float and
// double. C is poisoned (NaN) before every run with beta = 0 and holds random values for beta ≠ 0. Every element of
// C comes from one product over the whole k, rounded once, so the bound is the one-GPU GEMM tests':
//   16-bit in:        4·k·2^-24·|alpha|·Σ|a·b| + 2^-p·(|result| + |beta·c|)
//   float, double:    (k + 4)·u·(|alpha|·Σ|a·b| + |beta·c|)
// Two runs of gemm give the same bits, and the all-gather path gives gemm's bits (the same products). The other
// overlap modes (CUPRIM_MULTI_GEMM_RESERVE_SMS = 8 and 0) and the column-by-column assembly run too.
// Argument rules: invalid_argument before anything runs.
#include <cuprim/multi/gemm.cuh>

#include <gtest/gtest.h>

#include "blas/gemm_check.hpp"
#include "common/expect_invalid.hpp"
#include "common/test_util.hpp"

#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using bf16 = __nv_bfloat16;
namespace multi = cuprim::multi;
using cuprim_test::rng;

/// The communicators of ranks 0 .. P-1, made when a test first needs one (NCCL's setup takes a while) and
/// destroyed after each suite.
class multi_gemm_base : public ::testing::Test {
protected:
  static void TearDownTestSuite() {
    for (auto& c : comms_) c.reset();
  }
  static multi::communicator& comm(int P) {
    std::optional<multi::communicator>& c = comms_[P];
    if (!c) {
      setenv("NCCL_NVLS_ENABLE", "0", 1);
      std::vector<int> devices(static_cast<std::size_t>(P));
      std::iota(devices.begin(), devices.end(), 0);
      c.emplace(multi::communicator::local(devices));
    }
    return *c;
  }

private:
  static inline std::optional<multi::communicator> comms_[5];
};

class MultiGemm : public multi_gemm_base, public ::testing::WithParamInterface<int> {};
class MultiGemmArgs : public multi_gemm_base {};

#define REQUIRE_GPUS(P) \
  if (cuprim::device_count() < (P)) GTEST_SKIP() << "needs " << (P) << " GPUs"

/// One call's sizes and scalars (rows and inner: every rank's, in rank order).
struct problem {
  std::vector<std::int64_t> rows, inner;
  std::int64_t n;
  double alpha, beta;
};

std::string describe(const problem& p) {
  std::ostringstream os;
  os << "rows {";
  for (auto x : p.rows) os << " " << x;
  os << " } inner {";
  for (auto x : p.inner) os << " " << x;
  os << " } n " << p.n << " alpha " << p.alpha << " beta " << p.beta;
  return os.str();
}

std::int64_t total(const std::vector<std::int64_t>& v) { return std::accumulate(v.begin(), v.end(), std::int64_t(0)); }

/// Every rank's rows of a column-major matrix with `height` rows and `cols` columns, each shard column-major with
/// its own rows as leading dimension, concatenated in rank order (the host image of a sharded array).
template <class T>
std::vector<T> shard_rows(const std::vector<T>& global, std::int64_t height, std::int64_t cols,
                          const std::vector<std::int64_t>& split) {
  std::vector<T> out;
  std::int64_t first = 0;
  for (std::int64_t h : split) {
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < h; ++i) out.push_back(global[std::size_t(first + i + j * height)]);
    first += h;
  }
  return out;
}

/// The inverse of shard_rows.
template <class T>
std::vector<T> unshard_rows(const std::vector<T>& shards, std::int64_t height, std::int64_t cols,
                            const std::vector<std::int64_t>& split) {
  std::vector<T> out(std::size_t(height * cols));
  std::size_t x = 0;
  std::int64_t first = 0;
  for (std::int64_t h : split) {
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < h; ++i) out[std::size_t(first + i + j * height)] = shards[x++];
    first += h;
  }
  return out;
}

std::vector<std::int64_t> times(const std::vector<std::int64_t>& v, std::int64_t f) {
  std::vector<std::int64_t> out;
  for (auto x : v) out.push_back(x * f);
  return out;
}

/// A random value of magnitude in [1/4, 1), either sign (never zero), as T.
template <class T>
T nonzero(rng& r) {
  const double x = r.uniform(0.25, 1.0);
  return cuprim_test::from_double<T>(r.uniform() < 0.5 ? -x : x);
}

template <class T>
constexpr int precision_bits() {
  return std::is_same_v<T, double> ? 53 : std::is_same_v<T, float> ? 24 : std::is_same_v<T, __half> ? 11 : 8;
}

enum class path { panels, allgather };

/// One product's inputs on the host and on the devices; run() resets C and computes it on one path.
template <class T, class Out>
class gemm_case {
public:
  gemm_case(multi::communicator& c, const problem& p, rng& r)
      : c_(c), p_(p), m_(total(p.rows)), k_(total(p.inner)),
        a_size_(times(p.rows, k_)), b_size_(times(p.inner, p.n)), c_size_(times(p.rows, p.n)),
        A_(multi::sharded_buffer<T>::for_ranks(c, a_size_)), B_(multi::sharded_buffer<T>::for_ranks(c, b_size_)),
        C_(multi::sharded_buffer<Out>::for_ranks(c, c_size_)) {
    a_.resize(std::size_t(m_ * k_));
    b_.resize(std::size_t(k_ * p.n));
    c0_.resize(std::size_t(m_ * p.n));
    for (auto& x : a_) x = nonzero<T>(r);
    for (auto& x : b_) x = nonzero<T>(r);
    for (auto& x : c0_) x = nonzero<Out>(r);
    multi::copy_from_host(c, std::span<const T>(shard_rows(a_, m_, k_, p.rows)), a_size_, A_.view());
    multi::copy_from_host(c, std::span<const T>(shard_rows(b_, k_, p.n, p.inner)), b_size_, B_.view());
  }

  /// C poisoned (beta = 0) or the random C (beta ≠ 0), the product on `which` path, the global C read back.
  std::vector<Out> run(path which) {
    std::vector<Out> cin = shard_rows(c0_, m_, p_.n, p_.rows);
    if (p_.beta == 0) std::memset(static_cast<void*>(cin.data()), 0xFF, cin.size() * sizeof(Out));  // NaN
    multi::copy_from_host(c_, std::span<const Out>(cin), c_size_, C_.view());
    using S = multi::detail::gemm_scalar_t<T>;
    if (which == path::panels)  // the non-const views' overload
      multi::gemm(c_, p_.n, p_.rows, p_.inner, S(p_.alpha), A_.view(), B_.view(), S(p_.beta), C_.view());
    else
      multi::detail::gemm_allgather(c_, p_.n, p_.rows, p_.inner, S(p_.alpha), std::as_const(A_).view(),
                                    std::as_const(B_).view(), S(p_.beta), C_.view());
    std::vector<Out> got(cin.size());
    multi::copy_to_host(c_, std::as_const(C_).view(), c_size_, std::span<Out>(got));  // waits for the streams
    return unshard_rows(got, m_, p_.n, p_.rows);
  }

  /// Every element of a global C against the host reference.
  void check(const std::vector<Out>& got, rng& r) const {
    std::vector<double> ad(a_.size()), bd(b_.size()), cd(c0_.size());
    for (std::size_t x = 0; x < a_.size(); ++x) ad[x] = cuprim_test::to_double(a_[x]);
    for (std::size_t x = 0; x < b_.size(); ++x) bd[x] = cuprim_test::to_double(b_[x]);
    for (std::size_t x = 0; x < c0_.size(); ++x) cd[x] = cuprim_test::to_double(c0_[x]);
    const double k = double(k_);
    const double u_in = std::ldexp(1.0, -24), u_out = std::ldexp(1.0, -precision_bits<Out>());
    const auto one = [](std::int64_t x) { return std::max<std::int64_t>(1, x); };
    const cuprim_test::gemm_view v{'N', 'N', m_,      p_.n,    k_,         p_.alpha, ad.data(),
                                   one(m_), bd.data(), one(k_), p_.beta, cd,      one(m_)};
    const cuprim_test::gemm_check_result res = cuprim_test::gemm_check(
        v, [&](std::int64_t i, std::int64_t j) { return cuprim_test::to_double(got[std::size_t(i + j * m_)]); }, r,
        [&](double ref, double ab, double c0) {
          if constexpr (multi::detail::gemm_is_16bit<T>)
            return 4.0 * k * u_in * ab + u_out * (std::fabs(ref) + c0);
          else
            return (k + 4.0) * u_out * (ab + c0);
        });
    EXPECT_EQ(res.bad, 0) << res.bad << " of " << res.checked << " elements out of bound; first: " << res.first;
  }

private:
  multi::communicator& c_;
  problem p_;
  std::int64_t m_, k_;
  std::vector<std::int64_t> a_size_, b_size_, c_size_;
  multi::sharded_buffer<T> A_, B_;
  multi::sharded_buffer<Out> C_;
  std::vector<T> a_, b_;
  std::vector<Out> c0_;
};

template <class T>
bool same_bits(const std::vector<T>& x, const std::vector<T>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(T)) == 0);
}

/// gemm against the reference, twice (the same bits), and the all-gather path (gemm's bits).
template <class T, class Out>
void check_problem(multi::communicator& c, const problem& p, rng& r) {
  SCOPED_TRACE(describe(p));
  gemm_case<T, Out> g(c, p, r);
  const std::vector<Out> first = g.run(path::panels);
  g.check(first, r);
  EXPECT_TRUE(same_bits(first, g.run(path::panels))) << "two runs of gemm differ";
  EXPECT_TRUE(same_bits(first, g.run(path::allgather))) << "the all-gather path differs from gemm";
}

/// Even shards: m and k split evenly (for P = 4, rows of 128 and inner blocks of 96: whole 16-byte vectors).
problem even(int P, double beta) {
  return {multi::even_split(512, P), multi::even_split(384, P), 129, 1.5, beta};
}

/// Wide: n = 643 columns, three panels at the default panel count (two of 256 columns and one of 131), so both
/// panel buffers are reused; even shards (an all-gather per panel).
problem wide(int P, double beta) {
  return {multi::even_split(256, P), multi::even_split(192, P), 643, 0.5, beta};
}

/// Uneven shards of m = 301, k = 257, n = 67: a rank without rows, a rank without an inner block (for P = 2, rank
/// 0 holds every row but no block of B: its first product is with rank 1's block).
problem uneven(int P, double beta) {
  switch (P) {
    case 1: return {{301}, {257}, 67, -0.75, beta};
    case 2: return {{301, 0}, {0, 257}, 67, -0.75, beta};
    default: return {{97, 0, 140, 64}, {64, 100, 0, 93}, 67, -0.75, beta};
  }
}

TEST_P(MultiGemm, Bf16ToFloat) {
  const int P = GetParam();
  REQUIRE_GPUS(P);
  CUPRIM_TEST_RNG(r);
  multi::communicator& c = comm(P);
  for (double beta : {0.0, 0.5}) {
    check_problem<bf16, float>(c, even(P, beta), r);
    check_problem<bf16, float>(c, uneven(P, beta), r);
  }
  check_problem<bf16, float>(c, wide(P, 0.25), r);
}

/// Sets an environment variable for its lifetime, then restores what was there.
class scoped_env {
public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~scoped_env() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

private:
  const char* name_;
  std::optional<std::string> old_;
};

/// Uneven shards, as uneven(), over n = 643 columns: several panels gathered by broadcasts.
problem uneven_wide(int P, double beta) {
  problem p = uneven(P, beta);
  p.n = 643;
  return p;
}

/// The other overlap modes (gemm.cuh, "Cost"): a persistent grid R SMs short with the gathers on side communicators
/// of at most R CTAs, and no reserve; the same bits as the all-gather path either way.
TEST_P(MultiGemm, ReservedSms) {
  const int P = GetParam();
  REQUIRE_GPUS(P);
  if (P == 1) GTEST_SKIP() << "one rank gathers nothing: no mode to choose";
  CUPRIM_TEST_RNG(r);
  multi::communicator& c = comm(P);
  for (const char* reserve : {"8", "0"}) {
    SCOPED_TRACE(std::string("CUPRIM_MULTI_GEMM_RESERVE_SMS=") + reserve);
    const scoped_env mode("CUPRIM_MULTI_GEMM_RESERVE_SMS", reserve);
    check_problem<bf16, float>(c, wide(P, 0.0), r);
    check_problem<float, float>(c, uneven_wide(P, 0.5), r);
  }
}

/// Columns of B longer than a 2-D copy's pitch may be (k·sizeof(T) past cudaDevAttrMaxPitch, about 2 GiB) are
/// assembled a column at a copy: the limit lowered to 64 bytes takes that path at test sizes.
TEST_P(MultiGemm, ColumnCopies) {
  const int P = GetParam();
  REQUIRE_GPUS(P);
  if (P == 1) GTEST_SKIP() << "one rank assembles nothing";
  CUPRIM_TEST_RNG(r);
  multi::communicator& c = comm(P);
  const std::int64_t previous = multi::detail::gemm_max_copy_pitch;
  multi::detail::gemm_max_copy_pitch = 64;
  check_problem<float, float>(c, uneven_wide(P, 0.5), r);
  check_problem<bf16, bf16>(c, wide(P, 0.0), r);
  multi::detail::gemm_max_copy_pitch = previous;
}

TEST_P(MultiGemm, Bf16ToBf16) {
  const int P = GetParam();
  REQUIRE_GPUS(P);
  CUPRIM_TEST_RNG(r);
  multi::communicator& c = comm(P);
  check_problem<bf16, bf16>(c, even(P, 0.0), r);
  check_problem<bf16, bf16>(c, uneven(P, -1.25), r);
  check_problem<bf16, bf16>(c, wide(P, 0.0), r);
}

TEST_P(MultiGemm, Float) {
  const int P = GetParam();
  REQUIRE_GPUS(P);
  CUPRIM_TEST_RNG(r);
  multi::communicator& c = comm(P);
  for (double beta : {0.0, 0.5}) {
    check_problem<float, float>(c, even(P, beta), r);
    check_problem<float, float>(c, uneven(P, beta), r);
  }
  // k = 0: C = beta·C (and zeros for beta = 0, over the poison).
  check_problem<float, float>(c, {multi::even_split(40, P), std::vector<std::int64_t>(std::size_t(P), 0), 9, 1.0, 0.5},
                              r);
  check_problem<float, float>(c, {multi::even_split(40, P), std::vector<std::int64_t>(std::size_t(P), 0), 9, 1.0, 0.0},
                              r);
}

TEST_P(MultiGemm, Double) {
  const int P = GetParam();
  REQUIRE_GPUS(P);
  CUPRIM_TEST_RNG(r);
  multi::communicator& c = comm(P);
  check_problem<double, double>(c, even(P, 0.0), r);
  check_problem<double, double>(c, uneven(P, 0.5), r);
  check_problem<double, double>(c, wide(P, 0.5), r);
}

INSTANTIATE_TEST_SUITE_P(Ranks, MultiGemm, ::testing::Values(1, 2, 4),
                         [](const ::testing::TestParamInfo<int>& info) { return "P" + std::to_string(info.param); });

TEST_F(MultiGemmArgs, InvalidArguments) {
  REQUIRE_GPUS(1);
  multi::communicator& c = comm(1);
  using cuprim_test::expect_invalid;
  using cuprim_test::fake;
  const char* fn = "cuprim::multi::gemm";
  // m = 4, k = 3, n = 2 on one rank; the pointers are never dereferenced.
  const std::vector<std::int64_t> rows{4}, inner{3};
  const multi::sharded<const float> A{{fake<const float>(1), 12}}, B{{fake<const float>(2), 6}};
  const multi::sharded<float> C{{fake<float>(3), 8}};
  const auto call = [&](std::int64_t n, const std::vector<std::int64_t>& rw, const std::vector<std::int64_t>& in,
                        const multi::sharded<const float>& a, const multi::sharded<const float>& b,
                        const multi::sharded<float>& cc) { multi::gemm(c, n, rw, in, 1.0f, a, b, 0.0f, cc); };
  expect_invalid([&] { call(-1, rows, inner, A, B, C); }, "n", fn);
  expect_invalid([&] { call(2, {4, 0}, inner, A, B, C); }, "rows", fn);
  expect_invalid([&] { call(2, {-4}, inner, A, B, C); }, "rows", fn);
  expect_invalid([&] { call(2, rows, {}, A, B, C); }, "inner", fn);
  expect_invalid([&] { call(2, rows, inner, {}, B, C); }, "A", fn);
  expect_invalid([&] { call(2, rows, inner, {{fake<const float>(1), 11}}, B, C); }, "A", fn);
  expect_invalid([&] { call(2, rows, {2}, A, B, C); }, "A", fn);  // k = 2: A must hold 4·2
  expect_invalid([&] { call(2, rows, inner, A, {{fake<const float>(2), 9}}, C); }, "B", fn);
  expect_invalid([&] { call(2, rows, inner, A, {{nullptr, 6}}, C); }, "B", fn);
  expect_invalid([&] { call(3, rows, inner, A, {{fake<const float>(2), 9}}, C); }, "C", fn);  // C must hold 4·3
  expect_invalid([&] { call(2, rows, inner, A, B, {{reinterpret_cast<float*>(fake<char>(1) + 8), 8}}); }, "C", fn);
}

}  // namespace
