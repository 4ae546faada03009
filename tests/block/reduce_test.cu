// block::reducer<T, B>: the full reduction (thread 0), the partial one over threads [0, valid), and all_reduce
// (every thread), for block sizes of one warp up to 1024 threads (96: a warp count that is not a power of two),
// sharing one storage between the calls as the documented contract allows (a __syncthreads between uses).
#include <cuprim/block/reduce.cuh>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

namespace cuprim_test {
namespace {

template <class T, int B, class Op>
__global__ void __launch_bounds__(B) block_reduce_kernel(const T* in, const int* valids, T* full, T* partial, T* all,
                                                         Op op) {
  using R = cuprim::block::reducer<T, B>;
  __shared__ typename R::storage smem;
  const T v = in[std::size_t(blockIdx.x) * B + threadIdx.x];
  const T f = R::reduce(v, op, smem);
  if (threadIdx.x == 0) full[blockIdx.x] = f;
  __syncthreads();
  const T p = R::reduce(v, op, valids[blockIdx.x], smem);
  if (threadIdx.x == 0) partial[blockIdx.x] = p;
  __syncthreads();
  all[std::size_t(blockIdx.x) * B + threadIdx.x] = R::all_reduce(v, op, smem);
}

/// The valid counts the blocks of one launch use: 1, 31, 32, 33, B - 1, B (those ≤ B), the warp boundaries
/// around 64, and random ones.
template <int B>
std::vector<int> valid_counts(rng& r) {
  std::vector<int> v;
  for (int c : {1, 2, 31, 32, 33, 63, 64, 65, B - 33, B - 32, B - 31, B - 1, B})
    if (c >= 1 && c <= B) v.push_back(c);
  for (int k = 0; k < 12; ++k) v.push_back(static_cast<int>(r.between(1, B)));
  return v;
}

template <class T, int B, class Op>
void check_block_reduce(rng& r, Op op) {
  SCOPED_TRACE(::testing::Message() << type_name<T>() << ", " << B << " threads");
  const std::vector<int> valids = valid_counts<B>(r);
  const int blocks = static_cast<int>(valids.size());
  const std::vector<T> h = random_vector<T>(r, std::size_t(blocks) * B);
  cuprim::device_buffer<T> in{std::span<const T>(h)}, full(blocks), partial(blocks), all(std::size_t(blocks) * B);
  cuprim::device_buffer<int> d_valids{std::span<const int>(valids)};
  poison(full);
  poison(partial);
  poison(all);
  block_reduce_kernel<T, B><<<blocks, B>>>(in.data(), d_valids.data(), full.data(), partial.data(), all.data(), op);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const auto got_full = full.to_host_sync(), got_partial = partial.to_host_sync(), got_all = all.to_host_sync();

  auto check = [&](const T& got, int b, int count, const char* what) {
    const T* x = h.data() + std::size_t(b) * B;
    T ref = x[0];
    for (int i = 1; i < count; ++i) ref = op(ref, x[i]);
    if constexpr (is_float_like<T>) {
      double abs_sum = 0;
      for (int i = 0; i < count; ++i) abs_sum += std::fabs(to_double(x[i]));
      EXPECT_NEAR(to_double(got), to_double(ref), sum_tolerance(epsilon<T>(), std::uint64_t(count), abs_sum))
          << what << ", block " << b << ", valid " << count;
    } else {
      EXPECT_TRUE(same_bytes(got, ref)) << what << ", block " << b << ", valid " << count << ": got " << show(got)
                                        << ", expected " << show(ref);
    }
  };
  for (int b = 0; b < blocks; ++b) {
    check(got_full[b], b, B, "reduce");
    check(got_partial[b], b, valids[b], "reduce(valid)");
    if (valids[b] == B) EXPECT_TRUE(same_bytes(got_partial[b], got_full[b])) << "valid = B must equal the full form";
    for (int t = 0; t < B; ++t)
      ASSERT_TRUE(same_bytes(got_all[std::size_t(b) * B + t], got_full[b]))
          << "all_reduce: thread " << t << " of block " << b << " differs from the reduction";
  }
}

template <int B>
void check_block_size(rng& r) {
  check_block_reduce<std::uint32_t, B>(r, cuprim::plus{});
  check_block_reduce<std::int32_t, B>(r, cuprim::maximum{});
  check_block_reduce<float, B>(r, cuprim::plus{});
  check_block_reduce<stats, B>(r, stats_op{});
}

class BlockReduce : public gpu_test {};

TEST_F(BlockReduce, OneWarp) {
  CUPRIM_TEST_RNG(r);
  check_block_size<32>(r);
}

TEST_F(BlockReduce, TwoWarps) {
  CUPRIM_TEST_RNG(r);
  check_block_size<64>(r);
}

TEST_F(BlockReduce, ThreeWarps) {
  CUPRIM_TEST_RNG(r);
  check_block_size<96>(r);
}

TEST_F(BlockReduce, EightWarps) {
  CUPRIM_TEST_RNG(r);
  check_block_size<256>(r);
  check_block_reduce<double, 256>(r, cuprim::plus{});
  check_block_reduce<std::int64_t, 256>(r, cuprim::minimum{});
}

TEST_F(BlockReduce, ThirtyTwoWarps) {
  CUPRIM_TEST_RNG(r);
  check_block_size<1024>(r);
}

}  // namespace
}  // namespace cuprim_test
