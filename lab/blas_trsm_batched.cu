// cuprim-lab rows for the batched triangular solve: cuprim::blas::trsm_batched (pointer arrays, the cuBLAS interface)
// and trsm_strided_batched against cublasStrsmBatched / cublasDtrsmBatched, calls interleaved in the same run (each
// library its own copy of B; the pointer arrays built on the device). 10^4 systems per call; GB/s from the bytes one
// call must move, A's triangle ka(ka + 1)/2 read and B's m·n read and written per batch (the copy ceiling bounds it).
// Verified before timing on 8 sampled batches (the first, the last, 6 random), every element by its residual against
// 2·(ka + 2)·u·(|op(A)|·|X| + |B|). A is well conditioned (diagonal magnitudes in [1, 2), off-diagonals below 1/ka),
// alpha 1, ld = rows, matrices back to back. The timed calls solve in place again and again (each run's X is the next
// run's B, for both libraries), 20 repetitions (the values shrink by about |diagonal| per solve).
//
//   cuprim-lab run 'blas/trsm-batched/*'
//       float LLNN 64x64 (arrays; strided; the block capped at 32 threads: t32), 64x1 (nrhs 1), 32x32, 16x16;
//       float LUTN, RLTN (and its t32), RUNN 64x64; double LLNN 64x64 and 64x1, RLTN 64x64; float LLNN 64x256 with
//       2500 systems (128 threads a block, and capped at 64: t64); float LLNN 100x100 with 1e3 systems (the
//       recursive path above 64)
#include "blas_common.cuh"
#include "lab.hpp"

#include <cuprim/blas/trsm_batched.cuh>
#include <cuprim/host/trsm.hpp>

#include <cublas_v2.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab {
namespace {

using blas_family::cublas_handle;
using blas_family::fill_signed;
using blas_family::fill_triangles;
using cuprim::blas::diag;
using cuprim::blas::op;
using cuprim::blas::side;
using cuprim::blas::uplo;

/// out[z] = base + z·stride (the pointer arrays, built on the device).
template <class T>
__global__ void build_pointers(T* base, std::int64_t stride, std::int64_t count, T** out) {
  for (std::int64_t z = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; z < count;
       z += std::int64_t(gridDim.x) * blockDim.x)
    out[z] = base + z * stride;
}

struct flags {
  side s;
  uplo u;
  op t;
  diag d;
  std::string label() const {
    return std::string(s == side::left ? "L" : "R") + (u == uplo::lower ? "L" : "U") + (t == op::N ? "N" : "T") +
           (d == diag::unit ? "U" : "N");
  }
};

enum class form { arrays, strided };

/// How many elements of batch z's X (m × n, ld m) have their residual within the bound (A ka × ka, ld ka).
template <class T>
int batch_residual_ok(const flags& f, std::int64_t m, std::int64_t n, const std::vector<T>& a,
                      const std::vector<T>& x, const std::vector<T>& b0) {
  const char cs = f.s == side::left ? 'L' : 'R', cu = f.u == uplo::lower ? 'L' : 'U', ct = f.t == op::N ? 'N' : 'T',
             cd = f.d == diag::unit ? 'U' : 'N';
  const std::int64_t ka = f.s == side::left ? m : n;
  const auto res = cuprim::host::trsm_residual(cs, cu, ct, cd, m, n, T(1), a.data(), ka, x.data(), m, b0.data(), m);
  const double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
  int ok = 0;
  for (const auto& e : res) ok += std::fabs(e.r) <= 2.0 * double(ka + 2) * u * e.bound;
  return ok;
}

/// max_threads: 0 for the production block, else the cap passed to the small kernel (the t32 / t128 rows).
template <class T>
void add_batched_case(const flags& f, std::int64_t m, std::int64_t n, std::int64_t batch, form fm, int max_threads,
                      bool quick) {
  const std::int64_t ka = f.s == side::left ? m : n, nn = f.s == side::left ? n : m;
  case_def c;
  const std::string batch_label = batch == 10000 ? "1e4" : batch == 1000 ? "1e3" : std::to_string(batch);
  c.name = "blas/trsm-batched/" + std::string(sizeof(T) == 4 ? "float" : "double") + "/" + f.label() + "/" +
           std::to_string(m) + "x" + std::to_string(n) + "/" + batch_label;
  c.variant = fm == form::arrays ? "arrays" : "strided";
  if (fm == form::strided) c.name += "/strided";
  if (max_threads > 0) {
    c.name += "/t" + std::to_string(max_threads);
    c.variant += "-t" + std::to_string(max_threads);
  }
  c.family = "blas";
  c.op = "trsm-batched-" + f.label();
  c.dtype = sizeof(T) == 4 ? "float" : "double";
  c.n = batch * m * n;
  c.flops = double(batch) * double(ka) * double(ka) * double(nn);
  c.bytes = double(batch) * double(ka * (ka + 1) / 2 + 2 * m * n) * sizeof(T);
  c.quick = quick;
  c.reps = 20;
  c.baseline = sizeof(T) == 4 ? "cublasStrsmBatched" : "cublasDtrsmBatched";
  c.setup = [=]() -> bench {
    struct state {
      device_memory a, b, b0, base_b, a_ptrs, b_ptrs, base_b_ptrs;
      cublas_handle blas;
    };
    auto st = std::make_shared<state>();
    const std::size_t sa = std::size_t(ka * ka), sb = std::size_t(m * n);
    st->a = device_memory(sa * std::size_t(batch) * sizeof(T));
    st->b = device_memory(sb * std::size_t(batch) * sizeof(T));
    st->b0 = device_memory(sb * std::size_t(batch) * sizeof(T));
    st->base_b = device_memory(sb * std::size_t(batch) * sizeof(T));
    st->a_ptrs = device_memory(std::size_t(batch) * sizeof(T*));
    st->b_ptrs = device_memory(std::size_t(batch) * sizeof(T*));
    st->base_b_ptrs = device_memory(std::size_t(batch) * sizeof(T*));
    fill_triangles<<<1024, 256>>>(st->a.template as<T>(), ka, batch, 71u);
    fill_signed<<<1024, 256>>>(st->b0.template as<T>(), std::uint64_t(sb) * std::uint64_t(batch), 72u);
    build_pointers<<<64, 256>>>(st->a.template as<T>(), std::int64_t(sa), batch, st->a_ptrs.template as<T*>());
    build_pointers<<<64, 256>>>(st->b.template as<T>(), std::int64_t(sb), batch, st->b_ptrs.template as<T*>());
    build_pointers<<<64, 256>>>(st->base_b.template as<T>(), std::int64_t(sb), batch,
                                st->base_b_ptrs.template as<T*>());
    check(cudaGetLastError(), "launch of the batched trsm inputs' fill");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (batched trsm inputs)");
    bench b;
    if (fm == form::arrays)
      b.run = [st, f, m, n, ka, batch, max_threads](cudaStream_t s, int) {
        cuprim::detail::trsm_array_batched_run<T>("cuprim::blas::trsm_batched", f.s, f.u, f.t, f.d, m, n, T(1),
                                                  st->a_ptrs.template as<const T* const>(), ka,
                                                  st->b_ptrs.template as<T* const>(), m, batch, s, max_threads);
      };
    else
      b.run = [st, f, m, n, ka, batch, max_threads](cudaStream_t s, int) {
        cuprim::detail::trsm_strided_batched_run<T>("cuprim::blas::trsm_strided_batched", f.s, f.u, f.t, f.d, m, n,
                                                    T(1), st->a.template as<T>(), ka, ka * ka, st->b.template as<T>(),
                                                    m, m * n, batch, s, max_threads);
      };
    b.baseline = [st, f, m, n, ka, batch](cudaStream_t s, int) {
      const T one = 1;
      cublasSetStream(st->blas.h, s);
      const auto cs = f.s == side::left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
      const auto cu = f.u == uplo::lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
      const auto ct = f.t == op::N ? CUBLAS_OP_N : CUBLAS_OP_T;
      const auto cd = f.d == diag::unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
      cublasStatus_t r;
      if constexpr (sizeof(T) == 4)
        r = cublasStrsmBatched(st->blas.h, cs, cu, ct, cd, int(m), int(n), &one, st->a_ptrs.template as<float* const>(),
                               int(ka), st->base_b_ptrs.template as<float* const>(), int(m), int(batch));
      else
        r = cublasDtrsmBatched(st->blas.h, cs, cu, ct, cd, int(m), int(n), &one,
                               st->a_ptrs.template as<double* const>(), int(ka),
                               st->base_b_ptrs.template as<double* const>(), int(m), int(batch));
      if (r != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublas trsmBatched failed");
    };
    b.verify = [st, f, m, n, ka, batch, sa, sb, run = b.run, base = b.baseline]() {
      const auto reset = [&] {
        check(cudaMemcpy(st->b.get(), st->b0.get(), st->b0.bytes(), cudaMemcpyDeviceToDevice), "copy B");
        check(cudaMemcpy(st->base_b.get(), st->b0.get(), st->b0.bytes(), cudaMemcpyDeviceToDevice), "copy B");
      };
      reset();
      run(0, 0);
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (batched trsm verify)");
      std::mt19937_64 g(13);
      std::vector<std::int64_t> zs{0, batch - 1};
      while (zs.size() < 8) zs.push_back(std::int64_t(g() % std::uint64_t(batch)));
      int ok = 0, ok_base = 0;
      for (std::int64_t z : zs) {
        const std::vector<T> a = to_host(st->a.template as<T>() + std::size_t(z) * sa, sa);
        const std::vector<T> b0 = to_host(st->b0.template as<T>() + std::size_t(z) * sb, sb);
        ok += batch_residual_ok(f, m, n, a, to_host(st->b.template as<T>() + std::size_t(z) * sb, sb), b0);
        ok_base += batch_residual_ok(f, m, n, a, to_host(st->base_b.template as<T>() + std::size_t(z) * sb, sb), b0);
      }
      const int all = int(zs.size() * sb);
      verify_result v;
      v.ok = ok == all;
      v.baseline_ok = ok_base == all;
      v.detail = "residuals of 8 sampled batches within 2 (ka + 2) u (|op(A)||X| + |B|): " + std::to_string(ok) + "/" +
                 std::to_string(all) + " cuprim, " + std::to_string(ok_base) + "/" + std::to_string(all) + " cuBLAS";
      reset();  // the timed runs start from B again
      return v;
    };
    return b;
  };
  add_case(std::move(c));
}

}  // namespace

void register_blas_trsm_batched() {
  const flags llnn{side::left, uplo::lower, op::N, diag::non_unit}, lutn{side::left, uplo::upper, op::T, diag::non_unit},
      rltn{side::right, uplo::lower, op::T, diag::non_unit}, runn{side::right, uplo::upper, op::N, diag::non_unit};
  const std::int64_t e4 = 10000;
  add_batched_case<float>(llnn, 64, 64, e4, form::arrays, 0, true);
  add_batched_case<float>(llnn, 64, 64, e4, form::strided, 0, false);
  add_batched_case<float>(llnn, 64, 1, e4, form::arrays, 0, false);
  add_batched_case<float>(lutn, 64, 64, e4, form::arrays, 0, false);
  add_batched_case<float>(rltn, 64, 64, e4, form::arrays, 0, false);
  add_batched_case<float>(runn, 64, 64, e4, form::arrays, 0, false);
  add_batched_case<float>(llnn, 32, 32, e4, form::arrays, 0, false);
  add_batched_case<float>(llnn, 16, 16, e4, form::arrays, 0, false);
  add_batched_case<double>(llnn, 64, 64, e4, form::arrays, 0, false);
  add_batched_case<double>(llnn, 64, 1, e4, form::arrays, 0, false);
  add_batched_case<double>(rltn, 64, 64, e4, form::arrays, 0, false);
  // The small kernel's block: 64 threads for 64 columns in production, 32 beside it (two groups of columns per
  // batch, half the shared memory); 128 threads for 256 columns, 64 beside it.
  add_batched_case<float>(llnn, 64, 64, e4, form::arrays, 32, false);
  add_batched_case<float>(rltn, 64, 64, e4, form::arrays, 32, false);
  add_batched_case<float>(llnn, 64, 256, e4 / 4, form::arrays, 0, false);
  add_batched_case<float>(llnn, 64, 256, e4 / 4, form::arrays, 64, false);
  // Above the small kernel: the batched recursion (diagonal blocks and batched gemm updates).
  add_batched_case<float>(llnn, 100, 100, 1000, form::arrays, 0, false);
  add_note("blas/trsm-batched", "blas/trsm-batched: 10^4 (1e4) systems op(A) X = B (left) or X op(A) = B (right) in "
                                "place, alpha 1, ld = rows, <m>x<n> per system; GB/s from A's triangle read and B read "
                                "and written; against cublas<S|D>trsmBatched (device pointer arrays) in the same run; "
                                "/strided: trsm_strided_batched; /t<N>: the small kernel's block capped at N threads");
}

}  // namespace lab
