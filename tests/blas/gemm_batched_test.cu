// cuprim::blas::gemm_strided_batched and gemm_batched (and their row-major forms) against the double host reference
// (cuprim::host::gemm, batch by batch): batch 1 and 10^4 of small products, more than 65535 batches (the kernels'
// loop over blockIdx.z), strides with padding between batches, stride 0 (one operand for every batch), batches
// whose alignment alternates (the 16-byte paths chosen per batch), pointer arrays in any order with shared
// operands, alpha/beta edges (NaN in C with beta = 0; k = 0 and alpha = 0 scale C), float and double. The bound is
// gemm's: (k + 4)·u·(|alpha|·Σ|a·b| + |beta·c|). Bytes of C outside every batch's product must be untouched.
#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/host/gemm.hpp>

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

char trans(op o) { return o == op::T ? 'T' : 'N'; }

struct batched_case {
  op op_a, op_b;
  std::int64_t m, n, k, batch;
  double alpha = 1, beta = 0;
  std::int64_t gap = 0;    // elements of padding between consecutive batches (every operand)
  std::int64_t pad = 0;    // added to every leading dimension
  std::int64_t shift = 0;  // elements past the allocations' start
  bool shared_a = false;   // stride_a = 0: one A for every batch (strided form); pointer form: few distinct A
  bool nan_c = false;      // C holds NaN before the call (beta = 0: must not show)
  bool row_major = false;
};

std::string describe(const batched_case& c) {
  std::ostringstream os;
  os << trans(c.op_a) << trans(c.op_b) << " m " << c.m << " n " << c.n << " k " << c.k << " batch " << c.batch
     << " alpha " << c.alpha << " beta " << c.beta << " gap " << c.gap << " pad " << c.pad << " shift " << c.shift
     << (c.shared_a ? " shared A" : "") << (c.nan_c ? " NaN in C" : "") << (c.row_major ? " row-major" : "");
  return os.str();
}

/// The operands of every batch laid out one after another (stride = one operand's storage + gap), A, B and C, with
/// the shapes of the column-major view.
template <class T>
struct batched_data {
  std::int64_t va_rows, va_cols, vb_rows, vb_cols, vm, vn;  // column-major view (row-major: the transposes)
  std::int64_t lda, ldb, ldc, stride_a, stride_b, stride_c;
  std::vector<T> a, b, c;

  batched_data(const batched_case& bc, rng& r) {
    const bool ta = bc.op_a == op::T, tb = bc.op_b == op::T;
    std::int64_t a_rows = ta ? bc.k : bc.m, a_cols = ta ? bc.m : bc.k, b_rows = tb ? bc.n : bc.k,
                 b_cols = tb ? bc.k : bc.n, c_rows = bc.m, c_cols = bc.n;
    if (bc.row_major) {
      std::swap(a_rows, a_cols);
      std::swap(b_rows, b_cols);
      std::swap(c_rows, c_cols);
    }
    lda = std::max<std::int64_t>(1, a_rows) + bc.pad;
    ldb = std::max<std::int64_t>(1, b_rows) + bc.pad;
    ldc = std::max<std::int64_t>(1, c_rows) + bc.pad;
    stride_a = bc.shared_a ? 0 : lda * std::max<std::int64_t>(1, a_cols) + bc.gap;
    stride_b = ldb * std::max<std::int64_t>(1, b_cols) + bc.gap;
    stride_c = ldc * std::max<std::int64_t>(1, c_cols) + bc.gap;
    const std::int64_t nb = std::max<std::int64_t>(1, bc.batch);
    a.resize(std::size_t(bc.shared_a ? lda * std::max<std::int64_t>(1, a_cols) : stride_a * nb));
    b.resize(std::size_t(stride_b * nb));
    c.resize(std::size_t(stride_c * nb));
    for (auto& x : a) x = static_cast<T>(r.uniform(-1, 1));
    for (auto& x : b) x = static_cast<T>(r.uniform(-1, 1));
    for (auto& x : c) x = bc.nan_c ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(r.uniform(-1, 1));
    vm = c_rows;
    vn = c_cols;
  }
};

/// Checks batch z of `got` (laid out as d.c) against the reference of the column-major view; counts the elements
/// out of bound and the bytes of C outside the product that changed.
template <class T>
void check_batch(const batched_case& bc, const batched_data<T>& d, const std::vector<T>& got, std::int64_t z,
                 std::size_t a_off, std::size_t b_off, std::size_t c_off, std::int64_t& bad, std::int64_t& touched,
                 std::string& first) {
  const bool rm = bc.row_major;
  const char ta = rm ? trans(bc.op_b) : trans(bc.op_a), tb = rm ? trans(bc.op_a) : trans(bc.op_b);
  const std::vector<T>& va = rm ? d.b : d.a;
  const std::vector<T>& vb = rm ? d.a : d.b;
  const std::size_t va_off = rm ? b_off : a_off, vb_off = rm ? a_off : b_off;
  const std::int64_t vlda = rm ? d.ldb : d.lda, vldb = rm ? d.lda : d.ldb;
  const std::int64_t va_size = rm ? d.stride_b : (d.stride_a ? d.stride_a : std::int64_t(d.a.size()));
  const std::int64_t vb_size = rm ? (d.stride_a ? d.stride_a : std::int64_t(d.a.size())) : d.stride_b;
  const std::vector<double> a(va.begin() + std::ptrdiff_t(va_off),
                              va.begin() + std::ptrdiff_t(std::min<std::size_t>(va.size(), va_off + std::size_t(va_size))));
  const std::vector<double> b(vb.begin() + std::ptrdiff_t(vb_off),
                              vb.begin() + std::ptrdiff_t(std::min<std::size_t>(vb.size(), vb_off + std::size_t(vb_size))));
  std::vector<double> c(d.c.begin() + std::ptrdiff_t(c_off), d.c.begin() + std::ptrdiff_t(c_off + std::size_t(d.stride_c)));
  const std::vector<double> bound = cuprim::host::gemm_abs_bound(ta, tb, d.vm, d.vn, bc.k, bc.alpha, a.data(), vlda,
                                                                 b.data(), vldb, bc.beta, c.data(), d.ldc);
  cuprim::host::gemm(ta, tb, d.vm, d.vn, bc.k, bc.alpha, a.data(), vlda, b.data(), vldb, bc.beta, c.data(), d.ldc);
  const double u = std::numeric_limits<T>::epsilon() / 2;
  for (std::int64_t e = 0; e < d.stride_c; ++e) {
    const std::int64_t col = e / d.ldc, row = e % d.ldc;
    const std::size_t at = c_off + std::size_t(e);
    if (row < d.vm && col < d.vn) {
      const double g = got[at], ref = c[std::size_t(e)];
      const double tol = double(bc.k + 4) * u * bound[std::size_t(row + col * d.vm)];
      if (!(std::fabs(g - ref) <= tol) && !(g == ref) && bad++ == 0) {
        std::ostringstream os;
        os << "batch " << z << " (" << row << ", " << col << "): " << g << " vs " << ref;
        first = os.str();
      }
    } else if (std::memcmp(&got[at], &d.c[at], sizeof(T)) != 0) {
      ++touched;
    }
  }
}

template <class T>
void expect_clean(std::int64_t bad, std::int64_t touched, const std::string& first) {
  EXPECT_EQ(bad, 0) << "first: " << first;
  EXPECT_EQ(touched, 0) << "elements of C outside the batches' products were written";
}

template <class T>
void run_strided(const batched_case& bc, rng& r) {
  SCOPED_TRACE("strided " + describe(bc));
  batched_data<T> d(bc, r);
  cuprim::device_buffer<T> da(d.a.size() + 4), db(d.b.size() + 4), dc(d.c.size() + 4);
  CUPRIM_CUDA_CHECK(cudaMemcpy(da.data() + bc.shift, d.a.data(), d.a.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(db.data() + bc.shift, d.b.data(), d.b.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(dc.data() + bc.shift, d.c.data(), d.c.size() * sizeof(T), cudaMemcpyHostToDevice));
  const T alpha = static_cast<T>(bc.alpha), beta = static_cast<T>(bc.beta);
  if (bc.row_major)
    cuprim::blas::gemm_strided_batched_row_major(bc.op_a, bc.op_b, bc.m, bc.n, bc.k, alpha, da.data() + bc.shift, d.lda,
                                                 d.stride_a, db.data() + bc.shift, d.ldb, d.stride_b, beta,
                                                 dc.data() + bc.shift, d.ldc, d.stride_c, bc.batch);
  else
    cuprim::blas::gemm_strided_batched(bc.op_a, bc.op_b, bc.m, bc.n, bc.k, alpha, da.data() + bc.shift, d.lda,
                                       d.stride_a, db.data() + bc.shift, d.ldb, d.stride_b, beta, dc.data() + bc.shift,
                                       d.ldc, d.stride_c, bc.batch);
  std::vector<T> got(d.c.size());
  CUPRIM_CUDA_CHECK(cudaMemcpy(got.data(), dc.data() + bc.shift, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
  std::int64_t bad = 0, touched = 0;
  std::string first;
  for (std::int64_t z = 0; z < bc.batch; ++z)
    check_batch(bc, d, got, z, std::size_t(z * d.stride_a), std::size_t(z * d.stride_b), std::size_t(z * d.stride_c),
                bad, touched, first);
  if (bc.batch == 0) EXPECT_EQ(0, std::memcmp(got.data(), d.c.data(), got.size() * sizeof(T))) << "batch 0 wrote C";
  expect_clean<T>(bad, touched, first);
}

/// The pointer-array form over the same layout, batch z computed from A slot pa[z], B slot pb[z] into C slot pc[z]
/// (pc a permutation: each C once; pa and pb any slots, shared_a: only 3 distinct A).
template <class T>
void run_array(const batched_case& bc, rng& r) {
  SCOPED_TRACE("pointer array " + describe(bc));
  batched_case layout = bc;
  layout.shared_a = false;  // every batch has its slot; shared_a picks few of them
  batched_data<T> d(layout, r);
  const std::int64_t nb = bc.batch;
  const std::size_t count = static_cast<std::size_t>(nb);
  std::vector<std::int64_t> pa(count), pb(count), pc(count);
  std::iota(pc.begin(), pc.end(), 0);
  for (std::int64_t z = nb - 1; z > 0; --z) std::swap(pc[std::size_t(z)], pc[std::size_t(r.between(0, z))]);
  for (std::int64_t z = 0; z < nb; ++z) {
    pa[std::size_t(z)] = r.between(0, bc.shared_a ? std::min<std::int64_t>(2, nb - 1) : nb - 1);
    pb[std::size_t(z)] = r.between(0, nb - 1);
  }
  cuprim::device_buffer<T> da(d.a.size() + 4), db(d.b.size() + 4), dc(d.c.size() + 4);
  CUPRIM_CUDA_CHECK(cudaMemcpy(da.data() + bc.shift, d.a.data(), d.a.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(db.data() + bc.shift, d.b.data(), d.b.size() * sizeof(T), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemcpy(dc.data() + bc.shift, d.c.data(), d.c.size() * sizeof(T), cudaMemcpyHostToDevice));
  std::vector<const T*> ha(count), hb(count);
  std::vector<T*> hc(count);
  for (std::int64_t z = 0; z < nb; ++z) {
    ha[std::size_t(z)] = da.data() + bc.shift + pa[std::size_t(z)] * d.stride_a;
    hb[std::size_t(z)] = db.data() + bc.shift + pb[std::size_t(z)] * d.stride_b;
    hc[std::size_t(z)] = dc.data() + bc.shift + pc[std::size_t(z)] * d.stride_c;
  }
  cuprim::device_buffer<const T*> pa_dev{std::span<const T* const>(ha)}, pb_dev{std::span<const T* const>(hb)};
  cuprim::device_buffer<T*> pc_dev{std::span<T* const>(hc)};
  const T alpha = static_cast<T>(bc.alpha), beta = static_cast<T>(bc.beta);
  if (bc.row_major)
    cuprim::blas::gemm_batched_row_major(bc.op_a, bc.op_b, bc.m, bc.n, bc.k, alpha, pa_dev.data(), d.lda, pb_dev.data(),
                                         d.ldb, beta, pc_dev.data(), d.ldc, nb);
  else
    cuprim::blas::gemm_batched(bc.op_a, bc.op_b, bc.m, bc.n, bc.k, alpha, pa_dev.data(), d.lda, pb_dev.data(), d.ldb,
                               beta, pc_dev.data(), d.ldc, nb);
  std::vector<T> got(d.c.size());
  CUPRIM_CUDA_CHECK(cudaMemcpy(got.data(), dc.data() + bc.shift, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
  std::int64_t bad = 0, touched = 0;
  std::string first;
  for (std::int64_t z = 0; z < nb; ++z)
    check_batch(bc, d, got, z, std::size_t(pa[std::size_t(z)] * d.stride_a), std::size_t(pb[std::size_t(z)] * d.stride_b),
                std::size_t(pc[std::size_t(z)] * d.stride_c), bad, touched, first);
  expect_clean<T>(bad, touched, first);
}

template <class T>
void run_both(const batched_case& bc, rng& r) {
  run_strided<T>(bc, r);
  if (bc.batch > 0) run_array<T>(bc, r);
}

class BlasGemmBatched : public gpu_test {};

TEST_F(BlasGemmBatched, OneBatchEveryOp) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (std::int64_t s : {1, 7, 17, 65, 129}) {
        run_both<float>({oa, ob, s, s + 2, s + 1, 1, 1.0, 0.0}, r);
        run_both<double>({oa, ob, s + 1, s, s + 3, 1, -1.0, 0.5, 0, 1, 1}, r);
      }
}

TEST_F(BlasGemmBatched, TenThousandSmallBatches) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T}) {
    run_both<float>({oa, op::N, 16, 16, 16, 10000, 1.0, 0.0, 0, 0, 0, false, true}, r);
    run_both<double>({oa, op::T, 7, 5, 3, 10000, 2.0, -1.0, 3, 1, 0}, r);
  }
  run_both<float>({op::N, op::T, 17, 9, 33, 10000, 0.5, 1.0, 5, 2, 1, true}, r);  // one A (stride 0), gaps
}

TEST_F(BlasGemmBatched, MoreBatchesThanOneGridHolds) {
  CUPRIM_TEST_RNG(r);
  run_both<float>({op::N, op::N, 3, 2, 4, 70001, 1.0, 0.0, 1}, r);
  run_both<double>({op::T, op::N, 2, 3, 2, 65537, -1.0, 1.0}, r);
  run_strided<float>({op::N, op::N, 5, 4, 0, 70001, 1.0, -2.0}, r);  // k = 0: C = beta·C over every batch
}

TEST_F(BlasGemmBatched, VectorPathsPerBatch) {
  // 128-multiples with leading dimensions of whole 16-byte vectors: the float kernel's 16-byte paths. A gap of 4
  // keeps every batch aligned; a gap of 1 leaves only batch 0 aligned (the element path for the others).
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T})
      for (std::int64_t gap : {4, 1}) run_both<float>({oa, ob, 256, 128, 64, 3, 1.0, 0.5, gap}, r);
  run_both<double>({op::N, op::N, 128, 128, 64, 3, 1.0, 0.0, 2}, r);
}

TEST_F(BlasGemmBatched, AlphaBetaEdgesFollowBlas) {
  CUPRIM_TEST_RNG(r);
  for (double alpha : {0.0, 1.0, -1.0})
    for (double beta : {0.0, 1.0, -1.0}) {
      run_both<float>({op::T, op::N, 33, 20, 9, 5, alpha, beta, 2, 1, 0, false, beta == 0.0}, r);
      run_both<double>({op::N, op::T, 20, 33, 9, 5, alpha, beta, 1, 0, 1, false, beta == 0.0}, r);
    }
  run_both<float>({op::N, op::N, 40, 30, 0, 4, 1.0, 0.0, 0, 0, 0, false, true}, r);  // k = 0, beta = 0: zeros
}

TEST_F(BlasGemmBatched, RowMajorForms) {
  CUPRIM_TEST_RNG(r);
  for (op oa : {op::N, op::T})
    for (op ob : {op::N, op::T}) {
      run_both<float>({oa, ob, 130, 67, 45, 3, 1.0, 0.5, 2, 1, 1, false, false, true}, r);
      run_both<double>({oa, ob, 9, 20, 33, 100, -2.0, 0.0, 0, 0, 0, false, true, true}, r);
    }
}

TEST_F(BlasGemmBatched, BatchZeroAndEmptyProducts) {
  CUPRIM_TEST_RNG(r);
  run_strided<float>({op::N, op::N, 16, 16, 16, 0}, r);
  run_both<float>({op::N, op::N, 0, 16, 16, 7}, r);
  run_both<double>({op::T, op::T, 16, 0, 16, 7}, r);
}

TEST_F(BlasGemmBatched, SameBitsAsOneGemmPerBatch) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t m = 130, n = 70, k = 300, batch = 4;
  std::vector<float> a(std::size_t(m * k * batch)), b(std::size_t(k * n * batch));
  for (auto& x : a) x = static_cast<float>(r.uniform(-1, 1));
  for (auto& x : b) x = static_cast<float>(r.uniform(-1, 1));
  cuprim::device_buffer<float> da{std::span<const float>(a)}, db{std::span<const float>(b)},
      c1(std::size_t(m * n * batch)), c2(std::size_t(m * n * batch));
  cuprim::blas::gemm_strided_batched(op::N, op::N, m, n, k, 1.f, da.data(), m, m * k, db.data(), k, k * n, 0.f,
                                     c1.data(), m, m * n, batch);
  for (std::int64_t z = 0; z < batch; ++z)
    cuprim::blas::gemm(op::N, op::N, m, n, k, 1.f, da.data() + z * m * k, m, db.data() + z * k * n, k, 0.f,
                       c2.data() + z * m * n, m);
  const auto h1 = c1.to_host_sync(), h2 = c2.to_host_sync();
  EXPECT_EQ(0, std::memcmp(h1.data(), h2.data(), h1.size() * sizeof(float)));
}

}  // namespace
