// block::scanner<T, B> (cuprim/block/scan.cuh), the multiscan: inclusive (with and without the block total) and
// exclusive with init (and the block total, which leaves init out), for one warp up to 1024 threads (96: a warp
// count that is not a power of two), with plus and with non-commutative exact operators (affine maps over uint32
// and uint16, 2×2 uint32 matrices): a warp's offset combined on the wrong side, or taken from the wrong warp,
// shows. One storage serves the three calls in turn, with a __syncthreads between uses, as the contract allows.
#include <cuprim/block/scan.cuh>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>

#include "common/scan_types.hpp"
#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

namespace cuprim_test {
namespace {

constexpr int blocks = 7;

enum slot : int { s_incl, s_incl_total, s_incl_plain, s_excl, s_excl_total, slots };

template <class T, int B, class Op>
__global__ void __launch_bounds__(B) block_scan_kernel(const T* in, const T* inits, T* out, Op op) {
  using S = cuprim::block::scanner<T, B>;
  __shared__ typename S::storage smem;
  const std::size_t gid = std::size_t(blockIdx.x) * B + threadIdx.x;
  const T v = in[gid];
  T* o = out + gid * slots;
  T total;
  o[s_incl] = S::inclusive_scan(v, op, smem, total);
  o[s_incl_total] = total;
  __syncthreads();
  o[s_incl_plain] = S::inclusive_scan(v, op, smem);
  __syncthreads();
  T excl_total;
  o[s_excl] = S::exclusive_scan(v, op, inits[blockIdx.x], smem, excl_total);
  o[s_excl_total] = excl_total;
}

const char* slot_name(int s) {
  static const char* names[slots] = {"inclusive_scan(block_total)", "block_total of inclusive_scan",
                                     "inclusive_scan", "exclusive_scan(init, block_total)",
                                     "block_total of exclusive_scan"};
  return names[s];
}

template <class T, int B, class Op>
void check_block_scan(rng& r, Op op) {
  SCOPED_TRACE(::testing::Message() << scan_type_name<T>() << " (" << sizeof(T) << " bytes), " << B << " threads");
  const std::vector<T> h = random_scan_vector<T>(r, std::size_t(blocks) * B);
  const std::vector<T> inits = random_scan_vector<T>(r, blocks);
  cuprim::device_buffer<T> in{std::span<const T>(h)}, d_inits{std::span<const T>(inits)},
      out(std::size_t(blocks) * B * slots);
  poison(out);
  block_scan_kernel<T, B><<<blocks, B>>>(in.data(), d_inits.data(), out.data(), op);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<T> got = out.to_host_sync();

  int failures = 0;
  for (int b = 0; b < blocks; ++b) {
    const T* x = h.data() + std::size_t(b) * B;
    // Sequential references: inclusive prefixes, exclusive prefixes from init, the total.
    // (For floating types also in double: sums and Σ|x|, the reference the bound applies to.)
    std::vector<T> incl(B), excl(B);
    std::vector<double> sum_incl(B), sum_excl(B), abs_incl(B), abs_excl(B);
    T acc = x[0], eacc = inits[b];
    double s = 0, es = 0, a = 0, ea = 0;
    if constexpr (is_float_like<T>) {
      es = to_double(inits[b]);
      ea = std::fabs(es);
    }
    for (int t = 0; t < B; ++t) {
      if (t > 0) acc = op(acc, x[t]);
      incl[t] = acc;
      excl[t] = eacc;
      sum_excl[t] = es;
      abs_excl[t] = ea;
      eacc = op(eacc, x[t]);
      if constexpr (is_float_like<T>) {
        s += to_double(x[t]);
        es += to_double(x[t]);
        a += std::fabs(to_double(x[t]));
        ea += std::fabs(to_double(x[t]));
      }
      sum_incl[t] = s;
      abs_incl[t] = a;
    }
    if constexpr (!std::is_arithmetic_v<T>) {
      EXPECT_NE(incl[B - 1], reversed_fold(x, B, op)) << "degenerate data, block " << b;
    }
    auto check = [&](int t, int sl, const T& ref, double sum, double abs_sum, int terms) {
      const T& g = got[(std::size_t(b) * B + t) * slots + sl];
      bool ok;
      double tol = 0;
      if constexpr (is_float_like<T>) {
        // Thread t's value: ≤ 5 levels of its warp's scan, ≤ 5 of the warp totals' scan, two combines.
        tol = sum_tolerance(epsilon<T>(), std::uint64_t(terms), abs_sum);
        ok = std::fabs(to_double(g) - sum) <= tol;
      } else {
        ok = same_bytes(g, ref);
      }
      if (!ok && ++failures <= 20)
        ADD_FAILURE() << slot_name(sl) << ", block " << b << " thread " << t << ": got " << show(g) << ", expected "
                      << (is_float_like<T> ? std::to_string(sum) : show(ref))
                      << (tol > 0 ? " (bound " + std::to_string(tol) + ")" : std::string());
    };
    for (int t = 0; t < B; ++t) {
      check(t, s_incl, incl[t], sum_incl[t], abs_incl[t], t + 1);
      check(t, s_incl_total, incl[B - 1], sum_incl[B - 1], abs_incl[B - 1], B);
      check(t, s_incl_plain, incl[t], sum_incl[t], abs_incl[t], t + 1);
      check(t, s_excl, excl[t], sum_excl[t], abs_excl[t], t + 1);
      check(t, s_excl_total, incl[B - 1], sum_incl[B - 1], abs_incl[B - 1], B);
    }
  }
  EXPECT_EQ(failures, 0) << failures << " threads wrong";
}

template <int B>
void check_block_size(rng& r) {
  check_block_scan<std::uint32_t, B>(r, cuprim::plus{});
  check_block_scan<float, B>(r, cuprim::plus{});
  check_block_scan<affine_map, B>(r, compose{});
  check_block_scan<affine16, B>(r, compose16{});
  check_block_scan<mat2, B>(r, mat_mul{});
}

class BlockScan : public gpu_test {};

TEST_F(BlockScan, OneWarp) {
  CUPRIM_TEST_RNG(r);
  check_block_size<32>(r);
}

TEST_F(BlockScan, TwoWarps) {
  CUPRIM_TEST_RNG(r);
  check_block_size<64>(r);
}

TEST_F(BlockScan, ThreeWarps) {
  CUPRIM_TEST_RNG(r);
  check_block_size<96>(r);
}

TEST_F(BlockScan, EightWarps) {
  CUPRIM_TEST_RNG(r);
  check_block_size<256>(r);
  check_block_scan<double, 256>(r, cuprim::plus{});
  check_block_scan<std::int64_t, 256>(r, cuprim::maximum{});
}

TEST_F(BlockScan, ThirtyTwoWarps) {
  CUPRIM_TEST_RNG(r);
  check_block_size<1024>(r);
}

}  // namespace
}  // namespace cuprim_test
