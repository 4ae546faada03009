// The batched GEMM's small-product path (m, n, k ≤ blas::gemm_small_max: blas/detail/gemm_small_kernel.cuh) through
// cuprim::blas::gemm_strided_batched and gemm_batched (and a row-major form) against a double host reference: sizes
// around the tiles (1, 2, 7, 15, 16, 17, 31, 32, 33, 63, 64) mixed in m, n and k with every op pair; batch 1, a few
// hundred, thousands (several rounds of the persistent grid) and 10^5 (a random sample of batches checked, every
// batch's elements checked finite over C that held NaN); leading dimensions with padding, pointers off 16 bytes,
// odd strides (batches alternating between the 16-byte and the element paths), stride 0 (one operand for every
// batch), pointer arrays with repeated operands and C in any order; beta = 0 over NaN, beta ≠ 0; the guard regions
// before and after C and every element between the products unchanged; explicit small policies (thread blocks
// that are not whole vectors, k steps shorter than k); the same bits as one gemm per batch. Bound: gemm's,
// (k + 4)·u·(|alpha|·Σ|a·b| + |beta·c|).
#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/memory.hpp>

#include <gtest/gtest.h>

#include "common/test_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace {

using cuprim::blas::op;
using cuprim_test::gpu_test;
using cuprim_test::rng;

constexpr std::int64_t guard = 67;  // elements before and after each operand region (C's are checked unchanged)

struct small_case {
  op op_a, op_b;
  std::int64_t m, n, k, batch;
  double alpha = 1, beta = 0;
  std::int64_t pad = 0;    // added to every leading dimension
  std::int64_t gap = 0;    // elements between one batch's span and the next's
  std::int64_t shift = 0;  // elements past the regions' 256-byte-aligned start
  bool shared_a = false;   // stride_a = 0 (pointer arrays: every A the same)
  bool shared_b = false;
  bool array = false;      // the pointer-array form
  bool row_major = false;
};

std::string describe(const small_case& c) {
  std::ostringstream os;
  os << (c.array ? "array " : "strided ") << (c.op_a == op::T ? 'T' : 'N') << (c.op_b == op::T ? 'T' : 'N') << " m "
     << c.m << " n " << c.n << " k " << c.k << " batch " << c.batch << " alpha " << c.alpha << " beta " << c.beta
     << " pad " << c.pad << " gap " << c.gap << " shift " << c.shift << (c.shared_a ? " shared A" : "")
     << (c.shared_b ? " shared B" : "") << (c.row_major ? " row-major" : "");
  return os.str();
}

/// A matrix of rows × cols stored column-major (or row-major) with leading dimension ld: its span in elements and
/// the offset of element (r, c).
struct layout {
  std::int64_t rows, cols, ld;
  bool row_major;
  std::int64_t inner() const { return row_major ? cols : rows; }
  std::int64_t outer() const { return row_major ? rows : cols; }
  std::int64_t span() const { return (outer() - 1) * ld + inner(); }
  std::int64_t at(std::int64_t r, std::int64_t c) const { return row_major ? r * ld + c : r + c * ld; }
};

layout make_layout(std::int64_t rows, std::int64_t cols, std::int64_t pad, bool row_major) {
  layout l{rows, cols, 0, row_major};
  l.ld = std::max<std::int64_t>(1, l.inner()) + pad;
  return l;
}

/// The batches to check against the reference: all of them up to 1000, else the first, the last and 800 random.
std::vector<std::int64_t> sample_batches(std::int64_t batch, rng& r) {
  std::vector<std::int64_t> z;
  if (batch <= 1000) {
    z.resize(std::size_t(batch));
    std::iota(z.begin(), z.end(), 0);
  } else {
    z = {0, batch - 1};
    for (int s = 0; s < 800; ++s) z.push_back(r.between(1, batch - 2));
  }
  return z;
}

template <class T, auto Policy = cuprim::tuned>
void run_case(const small_case& sc, rng& r) {
  SCOPED_TRACE(describe(sc));
  const bool ta = sc.op_a == op::T, tb = sc.op_b == op::T, rm = sc.row_major;
  const layout la = make_layout(ta ? sc.k : sc.m, ta ? sc.m : sc.k, sc.pad, rm);
  const layout lb = make_layout(tb ? sc.n : sc.k, tb ? sc.k : sc.n, sc.pad, rm);
  const layout lc = make_layout(sc.m, sc.n, sc.pad, rm);
  const std::int64_t nb = sc.batch;
  const std::int64_t slot_a = la.span() + sc.gap, slot_b = lb.span() + sc.gap, slot_c = lc.span() + sc.gap;
  // Strided form: stride 0 for a shared operand; pointer arrays: one slot per batch, A and B from random slots.
  const std::int64_t stride_a = sc.shared_a && !sc.array ? 0 : slot_a, stride_b = sc.shared_b && !sc.array ? 0 : slot_b;
  const std::int64_t count_a = stride_a == 0 ? 1 : nb, count_b = stride_b == 0 ? 1 : nb;
  const auto region = [&](std::int64_t slots, std::int64_t slot, std::int64_t span) {
    return std::size_t(sc.shift + guard + (slots - 1) * slot + span + guard);
  };
  std::vector<T> ha(region(count_a, slot_a, la.span())), hb(region(count_b, slot_b, lb.span())),
      hc(region(nb, slot_c, lc.span()));
  for (auto& x : ha) x = static_cast<T>(r.uniform(-1, 1));
  for (auto& x : hb) x = static_cast<T>(r.uniform(-1, 1));
  // beta = 0: C holds NaN everywhere (it must not show, and every product must be written); else random values.
  for (auto& x : hc) x = sc.beta == 0 ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(r.uniform(-1, 1));
  cuprim::device_buffer<T> da{std::span<const T>(ha)}, db{std::span<const T>(hb)}, dc{std::span<const T>(hc)};
  const std::int64_t base = sc.shift + guard;  // batch 0's slot in each region

  // Which slots batch z reads and writes.
  const auto count = static_cast<std::size_t>(nb);
  std::vector<std::int64_t> pa(count), pb(count), pc(count);
  std::iota(pc.begin(), pc.end(), std::int64_t(0));
  if (count_a > 1) pa = pc;
  if (count_b > 1) pb = pc;
  const T alpha = static_cast<T>(sc.alpha), beta = static_cast<T>(sc.beta);
  if (sc.array) {
    std::iota(pc.begin(), pc.end(), 0);
    for (std::int64_t z = nb - 1; z > 0; --z) std::swap(pc[std::size_t(z)], pc[std::size_t(r.between(0, z))]);
    for (std::int64_t z = 0; z < nb; ++z) {
      pa[std::size_t(z)] = sc.shared_a ? 0 : r.between(0, nb - 1);
      pb[std::size_t(z)] = sc.shared_b ? 0 : r.between(0, nb - 1);
    }
    std::vector<const T*> pta(count), ptb(count);
    std::vector<T*> ptc(count);
    for (std::int64_t z = 0; z < nb; ++z) {
      pta[std::size_t(z)] = da.data() + base + pa[std::size_t(z)] * slot_a;
      ptb[std::size_t(z)] = db.data() + base + pb[std::size_t(z)] * slot_b;
      ptc[std::size_t(z)] = dc.data() + base + pc[std::size_t(z)] * slot_c;
    }
    cuprim::device_buffer<const T*> a_dev{std::span<const T* const>(pta)}, b_dev{std::span<const T* const>(ptb)};
    cuprim::device_buffer<T*> c_dev{std::span<T* const>(ptc)};
    if (rm)
      cuprim::blas::gemm_batched_row_major<Policy>(sc.op_a, sc.op_b, sc.m, sc.n, sc.k, alpha, a_dev.data(), la.ld,
                                                   b_dev.data(), lb.ld, beta, c_dev.data(), lc.ld, nb);
    else
      cuprim::blas::gemm_batched<Policy>(sc.op_a, sc.op_b, sc.m, sc.n, sc.k, alpha, a_dev.data(), la.ld, b_dev.data(),
                                         lb.ld, beta, c_dev.data(), lc.ld, nb);
    CUPRIM_CUDA_CHECK(cudaDeviceSynchronize());
  } else if (rm) {
    cuprim::blas::gemm_strided_batched_row_major<Policy>(sc.op_a, sc.op_b, sc.m, sc.n, sc.k, alpha, da.data() + base,
                                                         la.ld, stride_a, db.data() + base, lb.ld, stride_b, beta,
                                                         dc.data() + base, lc.ld, slot_c, nb);
  } else {
    cuprim::blas::gemm_strided_batched<Policy>(sc.op_a, sc.op_b, sc.m, sc.n, sc.k, alpha, da.data() + base, la.ld,
                                               stride_a, db.data() + base, lb.ld, stride_b, beta, dc.data() + base,
                                               lc.ld, slot_c, nb);
  }
  const std::vector<T> got = dc.to_host_sync();

  // Every element of C: inside a product finite (beta = 0 wrote over NaN), outside every product unchanged.
  std::vector<char> inside(hc.size(), 0);
  for (std::int64_t s = 0; s < nb; ++s)
    for (std::int64_t j = 0; j < sc.n; ++j)
      for (std::int64_t i = 0; i < sc.m; ++i) inside[std::size_t(base + s * slot_c + lc.at(i, j))] = 1;
  std::int64_t touched = 0, unwritten = 0;
  for (std::size_t e = 0; e < hc.size(); ++e) {
    if (inside[e])
      unwritten += !std::isfinite(got[e]);
    else
      touched += std::memcmp(&got[e], &hc[e], sizeof(T)) != 0;
  }
  EXPECT_EQ(touched, 0) << "elements outside every product (guards, padding, gaps) were written";
  EXPECT_EQ(unwritten, 0) << "elements of the products left unwritten or not finite";

  // The sampled batches against the reference.
  const double u = std::numeric_limits<T>::epsilon() / 2;
  std::int64_t bad = 0, checked = 0;
  std::string first;
  for (const std::int64_t z : sample_batches(nb, r)) {
    const T* a = ha.data() + base + pa[std::size_t(z)] * slot_a;
    const T* b = hb.data() + base + pb[std::size_t(z)] * slot_b;
    const std::int64_t c_at = base + pc[std::size_t(z)] * slot_c;
    for (std::int64_t j = 0; j < sc.n; ++j)
      for (std::int64_t i = 0; i < sc.m; ++i) {
        double sum = 0, abs_sum = 0;
        for (std::int64_t p = 0; p < sc.k; ++p) {
          const double x = double(ta ? a[la.at(p, i)] : a[la.at(i, p)]);
          const double y = double(tb ? b[lb.at(j, p)] : b[lb.at(p, j)]);
          sum += x * y;
          abs_sum += std::fabs(x * y);
        }
        const std::size_t e = std::size_t(c_at + lc.at(i, j));
        const double c0 = sc.beta == 0 ? 0.0 : double(hc[e]);
        const double ref = sc.alpha * sum + sc.beta * c0;
        const double tol = double(sc.k + 4) * u * (std::fabs(sc.alpha) * abs_sum + std::fabs(sc.beta * c0));
        const double g = double(got[e]);
        ++checked;
        if (!(std::fabs(g - ref) <= tol) && bad++ == 0) {
          std::ostringstream os;
          os << "batch " << z << " (" << i << ", " << j << "): " << g << " vs " << ref << " (bound " << tol << ")";
          first = os.str();
        }
      }
  }
  EXPECT_EQ(bad, 0) << "of " << checked << " checked; first: " << first;
}

template <class T, auto Policy = cuprim::tuned>
void run_both(small_case sc, rng& r) {
  sc.array = false;
  run_case<T, Policy>(sc, r);
  sc.array = true;
  run_case<T, Policy>(sc, r);
}

constexpr std::int64_t sizes[] = {1, 2, 7, 15, 16, 17, 31, 32, 33, 63, 64};
constexpr int size_count = int(std::size(sizes));

class BlasGemmBatchedSmall : public gpu_test {};

TEST(BlasGemmBatchedSmallPolicy, TileAndTableRules) {
  using cuprim::blas::gemm_small_tile;
  EXPECT_EQ(gemm_small_tile(1, 1), 16);
  EXPECT_EQ(gemm_small_tile(16, 7), 16);
  EXPECT_EQ(gemm_small_tile(7, 17), 32);
  EXPECT_EQ(gemm_small_tile(32, 32), 32);
  EXPECT_EQ(gemm_small_tile(33, 2), 64);
  EXPECT_EQ(gemm_small_tile(64, 64), 64);
  for (int tile : {16, 32, 64}) {
    EXPECT_EQ(cuprim::blas::gemm_small_policy_for<float>(90, tile).tile, tile);
    EXPECT_EQ(cuprim::blas::gemm_small_policy_for<double>(90, tile).tile, tile);
  }
}

// Every size of the list as m, with n and k from further along it, every op pair: batch 1 (beta 0 over NaN) and
// 257 batches (alpha, beta ≠ 0, 1), both forms; double with the other mix.
TEST_F(BlasGemmBatchedSmall, EverySizeEveryOp) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (int s = 0; s < size_count; ++s) {
        const std::int64_t m = sizes[s], n = sizes[(s + 3) % size_count], k = sizes[(s + 7) % size_count];
        run_both<float>({oa, ob, m, n, k, 1}, r);
        run_both<float>({oa, ob, n, k, m, 257, -0.5, 1.5}, r);
        run_both<double>({oa, ob, k, m, n, 1, 2.0, 0.0}, r);
        run_both<double>({oa, ob, m, k, n, 130, 1.0, -1.0}, r);
      }
}

// The squares and their neighbours, every op pair, with thousands of batches (several rounds of the persistent grid).
TEST_F(BlasGemmBatchedSmall, ThousandsOfBatches) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_both<float>({oa, ob, 32, 32, 32, 7000}, r);
      run_both<float>({oa, ob, 64, 64, 64, 2500, 1.0, 1.0}, r);
      run_both<float>({oa, ob, 31, 33, 17, 3001, 0.5, 0.0}, r);
      run_both<double>({oa, ob, 32, 32, 32, 4000, 1.0, 1.0}, r);
      run_both<double>({oa, ob, 64, 63, 64, 1200}, r);
    }
}

// 10^5 products (800 random batches checked against the reference, every product checked written).
TEST_F(BlasGemmBatchedSmall, HundredThousandBatches) {
  CUPRIM_TEST_RNG(r);
  run_both<float>({op::N, op::N, 16, 16, 16, 100000}, r);
  run_both<float>({op::N, op::N, 16, 16, 16, 100000, 1.0, 1.0}, r);
  run_both<double>({op::N, op::N, 16, 16, 16, 100000}, r);
  run_case<float>({op::T, op::N, 7, 17, 15, 100000, -1.0, 0.0}, r);
  run_case<double>({op::N, op::T, 15, 2, 33, 100003, 1.0, 0.5}, r);
  run_case<float>({op::T, op::T, 32, 32, 32, 70001, 1.0, 0.0}, r);
}

// Leading dimensions past the rows, pointers off 16 bytes, gaps that make batches alternate in alignment.
TEST_F(BlasGemmBatchedSmall, PaddingAndUnalignedPointers) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (std::int64_t s : {16, 33, 64}) {
        run_both<float>({oa, ob, s, s, s, 300, 1.0, 0.0, 1, 0, 1}, r);   // ld + 1, one float off
        run_both<float>({oa, ob, s, s, s, 300, 1.0, 0.5, 4, 1, 2}, r);   // ld + 4 (vectors), odd strides, 2 off
        run_both<float>({oa, ob, s, s, s, 300, 2.0, 0.0, 0, 3, 0}, r);   // tight columns, odd strides
        run_both<double>({oa, ob, s, s, s, 200, 1.0, 1.0, 3, 1, 1}, r);  // one double off
        run_both<double>({oa, ob, s, s, s, 200, 1.0, 0.0, 2, 2, 0}, r);  // ld + 2, aligned
      }
}

// stride 0: one A (or one B) for every batch; pointer arrays whose A or B are all the same.
TEST_F(BlasGemmBatchedSmall, SharedOperand) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T}) {
    run_both<float>({oa, op::N, 32, 32, 32, 5000, 1.0, 0.0, 0, 0, 0, true, false}, r);
    run_both<float>({oa, op::T, 16, 16, 16, 5000, 1.0, 1.0, 0, 0, 0, false, true}, r);
    run_both<double>({oa, op::N, 64, 17, 64, 900, 1.0, 0.0, 0, 0, 1, true, false}, r);
    run_both<double>({oa, op::T, 7, 7, 7, 900, 1.0, 0.0, 0, 1, 0, false, true}, r);
  }
}

// BLAS's scalar rules on the small path: beta 0 over NaN (every test above), beta 1, beta -1 with alpha -1; alpha 0
// and k = 0 (C = beta·C, by the scaling kernel).
TEST_F(BlasGemmBatchedSmall, AlphaBetaEdges) {
  CUPRIM_TEST_RNG(r);
  for (double alpha : {0.0, 1.0, -1.0})
    for (double beta : {0.0, 1.0, -1.0}) {
      run_both<float>({op::N, op::N, 16, 16, 16, 600, alpha, beta}, r);
      run_both<double>({op::T, op::N, 33, 31, 9, 300, alpha, beta}, r);
    }
  run_both<float>({op::N, op::N, 16, 16, 0, 600, 1.0, 0.0}, r);
  run_both<float>({op::N, op::N, 16, 16, 0, 600, 1.0, 2.0}, r);
}

TEST_F(BlasGemmBatchedSmall, RowMajorForms) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_both<float>({oa, ob, 16, 7, 33, 1000, 1.0, 0.0, 1, 1, 1, false, false, false, true}, r);
      run_both<double>({oa, ob, 64, 32, 16, 500, 1.0, 1.0, 0, 0, 0, false, false, false, true}, r);
    }
}

// Explicit small policies: a thread block of 8 rows (two vectors per column), one of 2 rows (element accesses to
// shared memory and C), k steps of 8 (several steps, the last one partial), groups of half a warp.
constexpr cuprim::blas::gemm_small_policy tall{
    .tile = 32, .tile_k = 8, .group = 32, .threads = 128, .thread_m = 8, .thread_n = 4, .blocks_per_sm = 2};
// narrow and half_warp prefetch into L2 3 and 2 rounds ahead (the rounds before the loop too; the table's rows take
// 0 or 1).
constexpr cuprim::blas::gemm_small_policy narrow{.tile = 16, .tile_k = 8, .group = 32, .threads = 64, .thread_m = 2,
                                                 .thread_n = 4, .blocks_per_sm = 2, .prefetch = 3};
// Two products per warp (each group's barrier over its half of the lanes; an odd batch count leaves one half idle).
constexpr cuprim::blas::gemm_small_policy half_warp{.tile = 16, .tile_k = 16, .group = 16, .threads = 128,
                                                    .thread_m = 4, .thread_n = 4, .blocks_per_sm = 2, .prefetch = 2};

TEST_F(BlasGemmBatchedSmall, ExplicitPolicies) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_both<float, tall>({oa, ob, 32, 32, 32, 3000}, r);
      run_both<float, tall>({oa, ob, 30, 17, 61, 500, 1.0, 0.5, 1, 1, 1}, r);
      run_both<float, tall>({oa, ob, 33, 33, 33, 50}, r);  // past the tile: the general kernel
      run_both<float, narrow>({oa, ob, 16, 16, 16, 3000, 1.0, 1.0}, r);
      run_both<float, narrow>({oa, ob, 15, 9, 19, 500, 1.0, 0.0, 2, 3, 3}, r);
      run_both<float, half_warp>({oa, ob, 16, 16, 16, 2999, 1.0, 0.0}, r);
      run_both<float, half_warp>({oa, ob, 13, 16, 40, 301, 1.0, 1.0, 1, 1, 1}, r);
    }
}

// Each batch of the small path gives the bits of one gemm call on its arrays (alpha and beta powers of two: the
// epilogue rounds once whichever multiply the compiler fuses).
TEST_F(BlasGemmBatchedSmall, SameBitsAsOneGemmPerBatch) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (std::int64_t s : {16, 17, 32, 64}) {
      const std::int64_t m = s, n = s - 1, k = s, batch = 40;
      std::vector<float> a(std::size_t(m * k * batch)), b(std::size_t(k * n * batch)), c(std::size_t(m * n * batch));
      for (auto& x : a) x = static_cast<float>(r.uniform(-1, 1));
      for (auto& x : b) x = static_cast<float>(r.uniform(-1, 1));
      for (auto& x : c) x = static_cast<float>(r.uniform(-1, 1));
      cuprim::device_buffer<float> da{std::span<const float>(a)}, db{std::span<const float>(b)},
          c1{std::span<const float>(c)}, c2{std::span<const float>(c)};
      const std::int64_t lda = oa == op::T ? k : m;
      cuprim::blas::gemm_strided_batched(oa, op::N, m, n, k, -2.f, da.data(), lda, m * k, db.data(), k, k * n, 0.5f,
                                         c1.data(), m, m * n, batch);
      for (std::int64_t z = 0; z < batch; ++z)
        cuprim::blas::gemm(oa, op::N, m, n, k, -2.f, da.data() + z * m * k, lda, db.data() + z * k * n, k, 0.5f,
                           c2.data() + z * m * n, m);
      const auto h1 = c1.to_host_sync(), h2 = c2.to_host_sync();
      EXPECT_EQ(0, std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(float))) << "size " << s;
    }
}

}  // namespace
