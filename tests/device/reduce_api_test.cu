// The rest of the reduction API on the device: a user struct with a user operator, transform_reduce, __device__
// lambdas, int8 wrapping, the explicit-workspace overload and its size, custom policies, streams and
// reduce_sync, bad arguments (nothing written), and an error left pending by someone else (reported as
// pre-existing, nothing written).
#include <cuprim/device/reduce.cuh>
#include "ladder/reduce.cuh"
#include <cuprim/host/reduce.hpp>

#include "common/test_util.hpp"
#include "common/pending_error.cuh"
#include "device/reduce_cases.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cuprim_test {
namespace {

class ReduceApi : public gpu_test {};

// ---- a user struct with a user operator

stats fold_stats(const stats* x, std::size_t n, stats init) {
  stats s = init;
  for (std::size_t i = 0; i < n; ++i) {
    s.sum += x[i].sum;
    s.lo = std::min(s.lo, x[i].lo);
    s.hi = std::max(s.hi, x[i].hi);
  }
  return s;
}

TEST_F(ReduceApi, UserStructWithUserOperator) {
  CUPRIM_TEST_RNG(r);
  test_data<stats> data(random_vector<stats>(r, data_elems<stats>()));
  guarded_out<stats> out;
  for (std::int64_t n : reduce_sizes<stats>()) {
    for (int off : {0, 1}) {
      CUPRIM_CASE_TRACE(n, off);
      const stats init = r.index(2) ? stats_init() : random_value<stats>(r);
      out.reset();
      cuprim::reduce(data.d(off), out.out(), n, stats_op{}, init);
      EXPECT_EQ(out.value(), fold_stats(data.h(off), std::size_t(n), init));
      if (n == 0) break;
    }
  }
}

TEST_F(ReduceApi, TransformReduceIntToUserStruct) {
  CUPRIM_TEST_RNG(r);
  test_data<std::int32_t> data(random_vector<std::int32_t>(r, data_elems<std::int32_t>()));
  guarded_out<stats> out;
  for (std::int64_t n : reduce_sizes<std::int32_t>()) {
    for (int off : input_offsets) {
      CUPRIM_CASE_TRACE(n, off);
      out.reset();
      cuprim::transform_reduce(data.d(off), out.out(), n, to_stats{}, stats_op{}, stats_init());
      stats ref = stats_init();
      for (std::int64_t i = 0; i < n; ++i) ref = stats_op{}(ref, to_stats{}(data.h(off)[i]));
      EXPECT_EQ(out.value(), ref);
      if (n == 0) break;
    }
  }
}

struct square_in_double {
  CUPRIM_HD double operator()(float x) const { return double(x) * double(x); }
};

TEST_F(ReduceApi, TransformReduceSquaresInDouble) {
  CUPRIM_TEST_RNG(r);
  test_data<float> data(random_vector<float>(r, data_elems<float>()));
  guarded_out<double> out;
  for (std::int64_t n : reduce_sizes<float>()) {
    for (int off : input_offsets) {
      CUPRIM_CASE_TRACE(n, off);
      out.reset();
      cuprim::transform_reduce(data.d(off), out.out(), n, square_in_double{}, cuprim::plus{}, 1.0);
      long double ref = 1.0L;
      for (std::int64_t i = 0; i < n; ++i) ref += static_cast<long double>(data.h(off)[i]) * data.h(off)[i];
      // Every term is positive: the bound is relative to the sum itself.
      EXPECT_LE(std::fabs(out.value() - static_cast<double>(ref)),
                sum_tolerance(epsilon<double>(), std::uint64_t(n), ref, device_lanes()));
      if (n == 0) break;
    }
  }
}

// __device__ lambdas as the operator and the transform (defined in a free function: extended lambdas may not be
// defined in a private member such as a test body).
void run_device_lambda_cases(rng& r) {
  test_data<std::uint32_t> data(random_vector<std::uint32_t>(r, data_elems<std::uint32_t>()));
  auto bit_xor = [] __device__(std::uint32_t a, std::uint32_t b) { return a ^ b; };
  auto low_byte = [] __device__(std::uint32_t x) { return std::uint64_t(x & 0xFFu); };
  auto hd_max = [] __host__ __device__(std::uint32_t a, std::uint32_t b) { return a < b ? b : a; };
  guarded_out<std::uint32_t> out;
  guarded_out<std::uint64_t> out64;
  for (std::int64_t n : reduce_sizes<std::uint32_t>()) {
    for (int off : input_offsets) {
      CUPRIM_CASE_TRACE(n, off);
      const auto* h = data.h(off);
      std::uint32_t ref_xor = 0x5A5A5A5Au, ref_max = 7u;
      std::uint64_t ref_bytes = 11u;
      for (std::int64_t i = 0; i < n; ++i) {
        ref_xor ^= h[i];
        ref_max = std::max(ref_max, h[i]);
        ref_bytes += h[i] & 0xFFu;
      }
      out.reset();
      cuprim::reduce(data.d(off), out.out(), n, bit_xor, 0x5A5A5A5Au);
      EXPECT_EQ(out.value(), ref_xor) << "xor with a __device__ lambda";
      out.reset();
      cuprim::reduce(data.d(off), out.out(), n, hd_max, 7u);
      EXPECT_EQ(out.value(), ref_max) << "max with a __host__ __device__ lambda";
      out64.reset();
      cuprim::transform_reduce(data.d(off), out64.out(), n, low_byte, cuprim::plus{}, std::uint64_t{11});
      EXPECT_EQ(out64.value(), ref_bytes) << "sum of a __device__ lambda transform";
      if (n == 0) break;
    }
  }
}

TEST_F(ReduceApi, DeviceLambdas) {
  CUPRIM_TEST_RNG(r);
  run_device_lambda_cases(r);
}

// ---- int8 accumulated in int8 wraps exactly as on the host

TEST_F(ReduceApi, Int8SumWrapsLikeTheHost) {
  CUPRIM_TEST_RNG(r);
  test_data<std::int8_t> data(random_vector<std::int8_t>(r, data_elems<std::int8_t>()));
  guarded_out<std::int8_t> out;
  for (std::int64_t n : reduce_sizes<std::int8_t>()) {
    for (int off : input_offsets) {
      CUPRIM_CASE_TRACE(n, off);
      const auto init = static_cast<std::int8_t>(r.next());
      out.reset();
      cuprim::reduce(data.d(off), out.out(), n, cuprim::plus{}, init);
      const std::int8_t got = out.value();
      EXPECT_EQ(got, cuprim::host::reduce(data.h(off), n, cuprim::plus{}, init));
      EXPECT_EQ(got, wrap_sum<std::int8_t>(data.h(off), std::size_t(n), init));
      if (n == 0) break;
    }
  }
  // Large positive data: the true sum is far outside int8; the result is the sum modulo 256.
  test_data<std::int8_t> big(std::vector<std::int8_t>(100003, 100));
  out.reset();
  cuprim::sum(big.d(0), out.out(), 100003);
  EXPECT_EQ(out.value(), static_cast<std::int8_t>(100003 * 100 % 256));
}

// ---- the explicit-workspace overload

template <class T, class Out, class Init, class Op>
void check_exact_workspace(rng& r, Op op, Init init) {
  using Acc = cuprim::accumulator_t<Init>;
  SCOPED_TRACE(type_name<T>());
  test_data<T> data(sum_safe_vector<T>(r, data_elems<T>()));
  guarded_out<Out> out;
  constexpr std::size_t guard = 256;
  for (std::int64_t n : reduce_sizes<T>()) {
    for (int off : input_offsets) {
      CUPRIM_CASE_TRACE(n, off);
      const std::size_t need = cuprim::reduce_workspace_bytes<Acc>(n);
      cuprim::device_buffer<unsigned char> ws(need + guard);
      poison(ws);  // the contents need not be initialised
      Out first{};
      for (int rep = 0; rep < 2; ++rep) {  // the same workspace again: it must be left ready for reuse
        out.reset();
        cuprim::reduce(data.d(off), out.out(), n, op, init, cuprim::workspace{need ? ws.data() : nullptr, need});
        const Out got = out.value();
        if (rep == 0) {
          first = got;
          if constexpr (std::is_same_v<Op, cuprim::plus>) {
            expect_sum_matches(got, data.h(off), n, Acc(init));
          } else {
            EXPECT_EQ(got, fold_stats(data.h(off), std::size_t(n), init));
          }
        } else {
          EXPECT_TRUE(same_bytes(got, first)) << "second use of the workspace gave " << show(got) << ", first "
                                              << show(first);
        }
      }
      EXPECT_TRUE(bytes_are(ws.data() + need, guard)) << "write past reduce_workspace_bytes(" << n << ") = " << need;
      if (n == 0) break;
    }
  }
}

TEST_F(ReduceApi, ExplicitWorkspaceOfExactlyTheReportedSize) {
  CUPRIM_TEST_RNG(r);
  check_exact_workspace<std::int32_t, std::int32_t>(r, cuprim::plus{}, std::int32_t{0});
  check_exact_workspace<std::uint8_t, std::uint64_t>(r, cuprim::plus{}, std::uint64_t{5});
  check_exact_workspace<float, float>(r, cuprim::plus{}, 0.0f);
  check_exact_workspace<__half, double>(r, cuprim::plus{}, 0.0);
  check_exact_workspace<stats, stats>(r, stats_op{}, stats_init());
}

TEST_F(ReduceApi, WorkspaceTooSmallOrNullIsRefusedAndNothingWritten) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = (std::int64_t(1) << 20) + 7;
  test_data<float> data(random_vector<float>(r, std::size_t(n)));
  const std::size_t need = cuprim::reduce_workspace_bytes<float>(n);
  ASSERT_GT(need, 0u);
  cuprim::device_buffer<unsigned char> ws(need);
  poison(ws);
  guarded_out<float> out;
  auto expect_workspace_error = [&](cuprim::workspace w) {
    try {
      cuprim::reduce(data.d(0), out.out(), n, cuprim::plus{}, 0.0f, w);
      ADD_FAILURE() << "no exception for a workspace of " << w.bytes << " bytes at " << w.data;
    } catch (const cuprim::invalid_argument& e) {
      EXPECT_EQ(e.argument(), "workspace") << e.what();
    }
    EXPECT_TRUE(out.untouched()) << "the output was written";
    EXPECT_TRUE(bytes_are(ws.data(), need)) << "the workspace was written";
  };
  expect_workspace_error({ws.data(), need - 1});
  expect_workspace_error({ws.data(), 0});
  expect_workspace_error({nullptr, need});
  expect_workspace_error({nullptr, 0});
  // The same through transform_reduce.
  try {
    cuprim::transform_reduce(data.d(0), out.out(), n, cuprim::identity{}, cuprim::plus{}, 0.0f,
                             cuprim::workspace{ws.data(), need / 2});
    ADD_FAILURE() << "no exception";
  } catch (const cuprim::invalid_argument& e) {
    EXPECT_EQ(e.argument(), "workspace");
  }
  EXPECT_TRUE(out.untouched());
  // n = 0 needs no workspace at all.
  EXPECT_EQ(cuprim::reduce_workspace_bytes<float>(0), 0u);
  cuprim::reduce(data.d(0), out.out(), 0, cuprim::plus{}, 2.5f, cuprim::workspace{});
  EXPECT_EQ(out.value(), 2.5f);
}

template <class Acc, class In>
void check_workspace_size(const char* what) {
  SCOPED_TRACE(what);
  constexpr cuprim::reduce_policy P = cuprim::reduce_policy_for<In>(cuprim::tuned_archs[0]);
  std::size_t prev = 0;
  std::vector<std::int64_t> ns;
  for (std::int64_t n = 0; n <= 300000; n += (n < 5000 ? 1 : 997)) ns.push_back(n);
  for (int s = 19; s <= 44; ++s) ns.push_back(std::int64_t(1) << s);
  for (std::int64_t n : ns) {
    const std::size_t w = cuprim::reduce_workspace_bytes<Acc>(n);
    ASSERT_GE(w, prev) << "reduce_workspace_bytes decreased at n = " << n;
    prev = w;
    if (n == 0) {
      EXPECT_EQ(w, 0u);
      continue;
    }
    // Enough for one partial per block of the grid the kernel launches, for every alignment of the input (a fake
    // address: reduce_grid only computes with it).
    for (std::uintptr_t misalign = 0; misalign < 16; misalign += sizeof(In)) {
      const auto* in = reinterpret_cast<const In*>(std::uintptr_t(1) << 20 | misalign);
      const unsigned grid = cuprim::detail::reduce_grid<P>(in, std::uint64_t(n));
      ASSERT_GE(w, std::size_t(grid) * sizeof(cuprim::accumulator_t<Acc>))
          << "n = " << n << ", grid " << grid << ", misalignment " << misalign;
    }
  }
}

TEST_F(ReduceApi, WorkspaceSizeIsMonotonicAndCoversTheGrid) {
  check_workspace_size<std::int8_t, std::int8_t>("int8");
  check_workspace_size<std::int64_t, std::int8_t>("int8 data, int64 accumulator");
  check_workspace_size<float, float>("float");
  check_workspace_size<double, double>("double");
  check_workspace_size<__half, __half>("half (float accumulator)");
  check_workspace_size<stats, stats>("stats");
  check_workspace_size<cuprim::arg_result<double>, double>("argmin of double");
}

// ---- custom policies

template <cuprim::reduce_policy Policy, class T>
void check_policy(rng& r, const char* what) {
  SCOPED_TRACE(what);
  const std::int64_t tile = std::int64_t(Policy.threads) * Policy.unroll *
                            cuprim::detail::vector_traits<T, Policy.vector_bytes>::elems;
  const std::int64_t max_grid = std::int64_t(cuprim::get_device_info().sm_count) * Policy.blocks_per_sm;
  const std::vector<std::int64_t> sizes = {1, 33, tile - 1, tile, tile + 1, 5 * tile + 3,
                                           tile * (2 * max_grid + 1) + 7};
  test_data<T> data(sum_safe_vector<T>(r, std::size_t(sizes.back()) + max_offset));
  guarded_out<T> out;
  for (std::int64_t n : sizes) {
    for (int off : input_offsets) {
      CUPRIM_CASE_TRACE(n, off);
      out.reset();
      cuprim::reduce<Policy>(data.d(off), out.out(), n, cuprim::plus{}, T{});
      expect_sum_matches(out.value(), data.h(off), n, T{});
      // The explicit-workspace form with the reported size serves every policy too.
      cuprim::device_buffer<unsigned char> ws(cuprim::reduce_workspace_bytes<T>(n));
      out.reset();
      cuprim::reduce<Policy>(data.d(off), out.out(), n, cuprim::plus{}, T{}, cuprim::workspace{ws.data(), ws.bytes()});
      expect_sum_matches(out.value(), data.h(off), n, T{});
    }
  }
}

TEST_F(ReduceApi, CustomPolicies) {
  CUPRIM_TEST_RNG(r);
  check_policy<cuprim::reduce_policy{.threads = 128, .vector_bytes = 8, .unroll = 2, .blocks_per_sm = 2}, float>(
      r, "128 threads, 8-byte vectors, unroll 2, 2 per SM");
  check_policy<cuprim::reduce_policy{.threads = 512, .vector_bytes = 4, .unroll = 8, .blocks_per_sm = 8},
               std::uint32_t>(r, "512 threads, 4-byte vectors, unroll 8");
  check_policy<cuprim::reduce_policy{.threads = 64, .unroll = 1, .blocks_per_sm = 8}, std::uint16_t>(
      r, "64 threads, unroll 1, 8 per SM");
}

// ---- streams and reduce_sync

TEST_F(ReduceApi, NonDefaultStreamAndReduceSync) {
  CUPRIM_TEST_RNG(r);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  {
    const std::int64_t n = (std::int64_t(1) << 20) + 7;
    const std::vector<std::uint32_t> h = random_vector<std::uint32_t>(r, std::size_t(n));
    cuprim::device_buffer<std::uint32_t> in(std::span<const std::uint32_t>(h), s);
    cuprim::device_buffer<std::uint64_t> out(1, s);
    cuprim::reduce(in.data(), out.data(), n, cuprim::plus{}, std::uint64_t{3}, s);
    EXPECT_EQ(out.to_host_sync()[0], wrap_sum<std::uint64_t>(h.data(), h.size(), std::uint64_t{3}));
    cuprim::device_buffer<cuprim::arg_result<std::uint32_t>> arg(1, s);
    poison(arg);  // defined bytes in the struct's padding too (compute-sanitizer initcheck)
    cuprim::argmax(in.data(), arg.data(), n, s);
    EXPECT_EQ(arg.to_host_sync()[0].index, reference_arg_index<true>(h.data(), h.size()));
    EXPECT_EQ(cuprim::reduce_sync(in.data(), n, cuprim::maximum{}, std::uint32_t{0}, s),
              reference_extreme<true>(h.data(), h.size()));
    EXPECT_EQ(cuprim::reduce_sync(in.data(), 0, cuprim::plus{}, std::uint32_t{42}, s), 42u);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  }
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

// ---- bad arguments on the device: refused, nothing written

TEST_F(ReduceApi, BadArgumentsWriteNothing) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = 5000;
  // The input and a slot after it live in one allocation, so "overlap" is about real device addresses.
  std::vector<std::int32_t> h = random_vector<std::int32_t>(r, std::size_t(n) + 8, -100, 100);
  test_data<std::int32_t> data(h);
  std::int32_t* base = data.dev.data();
  guarded_out<std::int32_t> out;
  guarded_out<cuprim::arg_result<std::int32_t>> arg;
  auto input_intact = [&] { return data.dev.to_host_sync() == h; };

  for (std::int64_t k : {std::int64_t(0), n / 2, n - 1}) {
    EXPECT_THROW(cuprim::reduce(base, base + k, n, cuprim::plus{}, 0), cuprim::invalid_argument) << k;
    EXPECT_THROW(cuprim::sum(base, base + k, n), cuprim::invalid_argument) << k;
    EXPECT_THROW(cuprim::max(base, base + k, n), cuprim::invalid_argument) << k;
    EXPECT_THROW(cuprim::ladder::reduce(cuprim::ladder::reduce_variant::complete_unroll, base, base + k, n, cuprim::plus{}, 0),
                 cuprim::invalid_argument)
        << k;
  }
  // An int64 output straddling the last input element.
  EXPECT_THROW(cuprim::reduce(base, reinterpret_cast<std::int64_t*>(base + n - 1), n, cuprim::plus{}, std::int64_t{0}),
               cuprim::invalid_argument);
  EXPECT_TRUE(input_intact()) << "the input was modified by a refused call";

  EXPECT_THROW(cuprim::reduce(static_cast<const std::int32_t*>(nullptr), out.out(), n, cuprim::plus{}, 0),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::reduce(base, out.out(), -1, cuprim::plus{}, 0), cuprim::invalid_argument);
  EXPECT_THROW(cuprim::transform_reduce(base, out.out(), -3, cuprim::identity{}, cuprim::plus{}, 0),
               cuprim::invalid_argument);
  EXPECT_THROW(cuprim::argmin(base, arg.out(), -1), cuprim::invalid_argument);
  EXPECT_THROW(cuprim::argmax(static_cast<const std::int32_t*>(nullptr), arg.out(), 10), cuprim::invalid_argument);
  EXPECT_THROW(cuprim::ladder::reduce(static_cast<cuprim::ladder::reduce_variant>(42), base, out.out(), n, cuprim::plus{}, 0),
               cuprim::invalid_argument);
  EXPECT_TRUE(out.untouched()) << "a refused call wrote the output";
  EXPECT_TRUE(arg.untouched()) << "a refused call wrote the output";
  EXPECT_TRUE(input_intact());
}

// The output right after the input (adjacent, not overlapping) is allowed.
TEST_F(ReduceApi, OutputJustPastTheInputIsAllowed) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = 70001;
  std::vector<std::int32_t> h = random_vector<std::int32_t>(r, std::size_t(n) + 1, -1000, 1000);
  test_data<std::int32_t> data(h);
  cuprim::sum(data.dev.data(), data.dev.data() + n, n);
  const auto after = data.dev.to_host_sync();
  EXPECT_EQ(after[std::size_t(n)], wrap_sum<std::int32_t>(h.data(), std::size_t(n), 0));
  EXPECT_TRUE(std::equal(h.begin(), h.begin() + n, after.begin())) << "the input was modified";
}

// ---- an error left pending by someone else

using cuprim_test::expect_pre_existing;

TEST_F(ReduceApi, PendingErrorIsReportedAsPreExistingAndNothingWritten) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = (std::int64_t(1) << 20) + 7;
  test_data<float> data(random_vector<float>(r, std::size_t(n)));
  guarded_out<float> out;
  guarded_out<cuprim::arg_result<float>> arg;
  cuprim::device_buffer<unsigned char> ws(cuprim::reduce_workspace_bytes<float>(n));
  poison(ws);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaPeekAtLastError(), cudaSuccess);

  expect_pre_existing([&] { cuprim::reduce(data.d(0), out.out(), n, cuprim::plus{}, 0.0f); }, "reduce");
  expect_pre_existing([&] { cuprim::sum(data.d(0), out.out(), n); }, "sum");
  expect_pre_existing([&] { cuprim::reduce(data.d(0), out.out(), 0, cuprim::plus{}, 0.0f); }, "reduce, n = 0");
  expect_pre_existing(
      [&] { cuprim::reduce(data.d(0), out.out(), n, cuprim::plus{}, 0.0f, cuprim::workspace{ws.data(), ws.bytes()}); },
      "reduce with workspace");
  expect_pre_existing([&] { cuprim::argmin(data.d(0), arg.out(), n); }, "argmin");
  expect_pre_existing([&] { cuprim::argmax(data.d(0), arg.out(), n); }, "argmax");
  for (auto v : {cuprim::ladder::reduce_variant::interleaved_divergent, cuprim::ladder::reduce_variant::vector_loads,
                 cuprim::ladder::reduce_variant::single_pass})
    expect_pre_existing([&] { cuprim::ladder::reduce(v, data.d(0), out.out(), n, cuprim::plus{}, 0.0f); },
                        "ladder::reduce");

  // Clear it (it belonged to empty_kernel's launch), then check that nothing was written.
  (void)cudaGetLastError();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a launch-configuration error must not be sticky";
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(out.untouched()) << "the output was written despite the pending error";
  EXPECT_TRUE(arg.untouched()) << "the output was written despite the pending error";
  EXPECT_TRUE(bytes_are(ws.data(), ws.bytes())) << "the workspace was written despite the pending error";

  // With the error cleared, the same call works.
  cuprim::reduce(data.d(0), out.out(), n, cuprim::plus{}, 0.0f);
  expect_sum_matches(out.value(), data.h(0), n, 0.0f);
}

}  // namespace
}  // namespace cuprim_test
