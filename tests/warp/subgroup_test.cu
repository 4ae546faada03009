// Warp reductions and scans over sub-groups and segments: warp::reduce<Width>, warp::inclusive_scan<Width> (with and
// without the sub-group total), warp::exclusive_scan<Width> (with and without the total) for every Width 1..32, and
// the head-flag forms warp::segmented_reduce, segmented_inclusive_scan and segmented_exclusive_scan over random,
// dense, empty (lane 0 only) and edge head patterns. Operators: uint32 plus (wrapping), int32 max, float plus
// (within the bound of a 32-term sum), and composition of affine maps over uint32, which is not commutative, so a
// lane that combined in the wrong order or took a value across a sub-group or segment boundary shows. The host
// computes what each lane must hold.
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/warp/reduce.cuh>
#include <cuprim/warp/scan.cuh>

#include "common/scan_types.hpp"
#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

namespace cuprim_test {
namespace {

constexpr int warps_per_launch = 64;
constexpr int threads = warps_per_launch * 32;
constexpr int block = 128;

enum slot : int {
  s_reduce,      // reduce<W>
  s_incl,        // inclusive_scan<W>(v, op)
  s_incl_t,      // inclusive_scan<W>(v, op, total)
  s_incl_total,  //   ... its total
  s_excl_t,      // exclusive_scan<W>(v, op, init, total)
  s_excl_total,  //   ... its total
  s_excl,        // exclusive_scan<W>(v, op, init)
  width_slots
};

template <int W, class T, class Op>
__global__ void width_kernel(const T* in, const T* inits, T* out, Op op) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const T v = in[gid];
  const T init = inits[gid / W];
  T* o = out + std::size_t(gid) * width_slots;
  T total;
  o[s_reduce] = cuprim::warp::reduce<W>(v, op);
  o[s_incl] = cuprim::warp::inclusive_scan<W>(v, op);
  o[s_incl_t] = cuprim::warp::inclusive_scan<W>(v, op, total);
  o[s_incl_total] = total;
  o[s_excl_t] = cuprim::warp::exclusive_scan<W>(v, op, init, total);
  o[s_excl_total] = total;
  o[s_excl] = cuprim::warp::exclusive_scan<W>(v, op, init);
}

enum seg_slot : int { g_reduce, g_incl, g_excl, seg_slots };

template <class T, class Op>
__global__ void segmented_kernel(const T* in, const unsigned* heads, const T* inits, T* out, Op op) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const int w = gid / 32, lane = gid % 32;
  const T v = in[gid];
  const bool head = (heads[w] >> lane) & 1u;
  T* o = out + std::size_t(gid) * seg_slots;
  o[g_reduce] = cuprim::warp::segmented_reduce(v, head, op);
  o[g_incl] = cuprim::warp::segmented_inclusive_scan(v, head, op);
  o[g_excl] = cuprim::warp::segmented_exclusive_scan(v, head, op, inits[w]);
}

/// What one lane must hold: the value (exact types), or the sum in double and Σ|terms| (float).
template <class T>
struct expected {
  T value;
  double sum = 0, abs_sum = 0;
};

template <class T, class Op>
expected<T> fold(const T* x, int count, Op op, const T* init = nullptr) {
  expected<T> e{init ? *init : x[0]};
  for (int i = init ? 0 : 1; i < count; ++i) e.value = op(e.value, x[i]);
  if constexpr (std::is_floating_point_v<T>) {
    if (init) e.sum = double(*init), e.abs_sum = std::fabs(double(*init));
    for (int i = 0; i < count; ++i) e.sum += double(x[i]), e.abs_sum += std::fabs(double(x[i]));
  }
  return e;
}

template <class T>
::testing::AssertionResult matches(const T& got, const expected<T>& e) {
  if constexpr (std::is_floating_point_v<T>) {
    const double tol = sum_tolerance(epsilon<T>(), 34, e.abs_sum);
    if (std::fabs(double(got) - e.sum) <= tol) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << show(got) << ", expected " << e.sum << " (bound " << tol << ")";
  } else {
    if (same_bytes(got, e.value)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << show(got) << ", expected " << show(e.value);
  }
}

template <int W, class T, class Op>
void check_width(rng& r, Op op) {
  SCOPED_TRACE(::testing::Message() << "Width " << W);
  const std::vector<T> h = random_scan_vector<T>(r, threads);
  const std::vector<T> inits = random_scan_vector<T>(r, threads / W);
  cuprim::device_buffer<T> in{std::span<const T>(h)}, d_inits{std::span<const T>(inits)},
      out(std::size_t(threads) * width_slots);
  poison(out);
  width_kernel<W><<<threads / block, block>>>(in.data(), d_inits.data(), out.data(), op);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<T> got = out.to_host_sync();
  int failures = 0;
  auto expect = [&](int gid, int s, const expected<T>& e) {
    const auto m = matches(got[std::size_t(gid) * width_slots + s], e);
    if (!m && ++failures <= 20) ADD_FAILURE() << "slot " << s << ", thread " << gid << ": " << m.message();
  };
  for (int g = 0; g < threads / W; ++g) {
    const T* x = h.data() + g * W;
    const expected<T> total = fold(x, W, op);
    for (int i = 0; i < W; ++i) {
      const int gid = g * W + i;
      const expected<T> incl = fold(x, i + 1, op);
      const expected<T> excl = fold(x, i, op, &inits[g]);
      expect(gid, s_reduce, total);
      expect(gid, s_incl, incl);
      expect(gid, s_incl_t, incl);
      expect(gid, s_incl_total, total);
      expect(gid, s_excl_t, excl);
      expect(gid, s_excl_total, total);
      expect(gid, s_excl, excl);
    }
  }
  EXPECT_EQ(failures, 0);
}

template <class T, class Op>
void check_all_widths(rng& r, Op op, const char* what) {
  SCOPED_TRACE(what);
  check_width<1, T>(r, op);
  check_width<2, T>(r, op);
  check_width<4, T>(r, op);
  check_width<8, T>(r, op);
  check_width<16, T>(r, op);
  check_width<32, T>(r, op);
}

class WarpSubgroup : public gpu_test {};

TEST_F(WarpSubgroup, EveryWidthUint32Plus) {
  CUPRIM_TEST_RNG(r);
  check_all_widths<std::uint32_t>(r, cuprim::plus{}, "uint32 plus");
}
TEST_F(WarpSubgroup, EveryWidthInt32Max) {
  CUPRIM_TEST_RNG(r);
  check_all_widths<std::int32_t>(r, cuprim::maximum{}, "int32 max");
}
TEST_F(WarpSubgroup, EveryWidthFloatPlus) {
  CUPRIM_TEST_RNG(r);
  check_all_widths<float>(r, cuprim::plus{}, "float plus");
}
TEST_F(WarpSubgroup, EveryWidthNonCommutative) {
  CUPRIM_TEST_RNG(r);
  check_all_widths<affine_map>(r, compose{}, "affine maps over uint32");
  // The data tells the orders apart.
  const std::vector<affine_map> x = random_scan_vector<affine_map>(r, 32);
  EXPECT_NE(fold(x.data(), 32, compose{}).value, reversed_fold(x.data(), 32, compose{}));
}

template <class T, class Op>
void check_segmented(rng& r, Op op, const char* what) {
  SCOPED_TRACE(what);
  std::vector<unsigned> heads = {0u, 1u, 0xffffffffu, 0x80000000u, 0x00010000u, 0x55555555u, 0x80000001u, 0xfffffffeu};
  while (heads.size() < warps_per_launch / 2) heads.push_back(static_cast<unsigned>(r.next()));
  while (heads.size() < warps_per_launch) heads.push_back(static_cast<unsigned>(r.next() & r.next() & r.next()));
  const std::vector<T> h = random_scan_vector<T>(r, threads);
  const std::vector<T> inits = random_scan_vector<T>(r, warps_per_launch);
  cuprim::device_buffer<T> in{std::span<const T>(h)}, d_inits{std::span<const T>(inits)},
      out(std::size_t(threads) * seg_slots);
  cuprim::device_buffer<unsigned> d_heads{std::span<const unsigned>(heads)};
  poison(out);
  segmented_kernel<<<threads / block, block>>>(in.data(), d_heads.data(), d_inits.data(), out.data(), op);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<T> got = out.to_host_sync();
  int failures = 0;
  for (int w = 0; w < warps_per_launch; ++w) {
    const unsigned hd = heads[w] | 1u;
    for (int l = 0; l < 32; ++l) {
      int start = l, end = l;
      while (!((hd >> start) & 1u)) --start;
      while (end + 1 < 32 && !((hd >> (end + 1)) & 1u)) ++end;
      const T* x = h.data() + w * 32 + start;
      const int gid = w * 32 + l;
      const expected<T> want[seg_slots] = {fold(x, end - start + 1, op), fold(x, l - start + 1, op),
                                           fold(x, l - start, op, &inits[w])};
      const char* names[seg_slots] = {"segmented_reduce", "segmented_inclusive_scan", "segmented_exclusive_scan"};
      for (int s = 0; s < seg_slots; ++s) {
        const auto m = matches(got[std::size_t(gid) * seg_slots + s], want[s]);
        if (!m && ++failures <= 20)
          ADD_FAILURE() << names[s] << ", warp " << w << " (heads 0x" << std::hex << heads[w] << std::dec << ") lane "
                        << l << ": " << m.message();
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST_F(WarpSubgroup, SegmentedByHeadFlags) {
  CUPRIM_TEST_RNG(r);
  check_segmented<std::uint32_t>(r, cuprim::plus{}, "uint32 plus");
  check_segmented<std::int32_t>(r, cuprim::maximum{}, "int32 max");
  check_segmented<float>(r, cuprim::plus{}, "float plus");
  check_segmented<affine_map>(r, compose{}, "affine maps over uint32");
  check_segmented<mat2>(r, mat_mul{}, "2x2 uint32 matrices");
}

}  // namespace
}  // namespace cuprim_test
