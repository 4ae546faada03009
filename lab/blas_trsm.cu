// cuprim-lab rows for the BLAS level-3 solvers: cuprim::blas::trsm against cublasStrsm / cublasDtrsm and
// cuprim::blas::symm against cublasSsymm / cublasDsymm, calls interleaved in the same run (each library its own
// copy of B or C), GFLOP/s from trsm's m²n (left) or mn² (right) and symm's 2m²n or 2mn² operations. Verified before
// timing on 8 sampled columns (left side) or rows (right side) of the result: trsm by the residual of each element
// against 2·(ka + 2)·u·(|op(A)|·|X| + |alpha·B|), symm against a long-double host sum within 2·(ka + 2)·u·Σ|a·b|.
// A is well conditioned (diagonal magnitudes in [1, 2), off-diagonals below 1/ka), alpha 1, beta 0, ld = rows.
// The timed repetitions solve in place again and again (each run's X is the next run's B, for both libraries).
//
//   cuprim-lab run 'blas/trsm/*'        float LLNN LUNN LLTN RLTN RUNN at 4096^2, LLNN RLTN at 8192^2; double LLNN
//                                       RLTN at 4096^2, LLNN at 8192^2
//   cuprim-lab run 'blas/symm/*'        float LL LU RL RU at 4096^2, LU at 8192^2; double LU and RL at 4096^2
//   cuprim-lab run 'blas/trsm-ladder/*' the seed's loop, one thread per column, then the production call (2048^2)
//   cuprim-lab run 'blas/trsm-sweep/*'  the diagonal kernel's block (columns per warp × warps), float LLNN and RLTN
//                                       and double LLNN at 4096^2, float LLNN at 2048^2
#include "blas_common.cuh"
#include "lab.hpp"

#include "ladder/trsm.cuh"

#include <cuprim/blas/symm.cuh>
#include <cuprim/blas/trsm.cuh>
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

std::string type_label(std::size_t size) { return size == 4 ? "float" : "double"; }

/// Column j (left) or row j (right) of an m × n column-major device array, to the host.
template <class T>
std::vector<T> slice(const T* p, std::int64_t m, std::int64_t n, bool column, std::int64_t j) {
  std::vector<T> v(std::size_t(column ? m : n));
  if (column)
    check(cudaMemcpy(v.data(), p + j * m, std::size_t(m) * sizeof(T), cudaMemcpyDeviceToHost), "copy a column");
  else
    check(cudaMemcpy2D(v.data(), sizeof(T), p + j, std::size_t(m) * sizeof(T), sizeof(T), std::size_t(n),
                       cudaMemcpyDeviceToHost),
          "copy a row");
  return v;
}

/// Sampled columns or rows: the first, the last and 6 random ones.
std::vector<std::int64_t> samples(std::int64_t count) {
  std::mt19937_64 g(11);
  std::vector<std::int64_t> s{0, count - 1};
  while (s.size() < 8) s.push_back(std::int64_t(g() % std::uint64_t(count)));
  return s;
}

enum class trsm_impl { production, seed };

struct trsm_shape {
  side s;
  uplo u;
  op t;
  diag d;
  std::string label() const {
    return std::string(s == side::left ? "L" : "R") + (u == uplo::lower ? "L" : "U") + (t == op::N ? "N" : "T") +
           (d == diag::unit ? "U" : "N");
  }
};

/// How many of `m` sampled-slice elements of X have their residual within the bound.
template <class T>
int trsm_residual_ok(const trsm_shape& sh, std::int64_t m, std::int64_t n, const std::vector<T>& a,
                     const std::vector<T>& x, const std::vector<T>& b0) {
  const bool left = sh.s == side::left, lower = sh.u == uplo::lower, t = sh.t == op::T, unit = sh.d == diag::unit;
  const std::int64_t ka = left ? m : n;
  const double u = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
  int ok = 0;
  for (std::int64_t i = 0; i < ka; ++i) {  // left: element i of the column; right: element i of the row
    long double acc = 0;
    double abs_acc = 0;
    for (std::int64_t l = 0; l < ka; ++l) {
      const long double e = left ? cuprim::host::detail::tri_at(a.data(), ka, lower, t, unit, i, l)
                                 : cuprim::host::detail::tri_at(a.data(), ka, lower, t, unit, l, i);
      if (e == 0.0L) continue;
      acc += e * x[std::size_t(l)];
      abs_acc += std::fabs(double(e)) * std::fabs(double(x[std::size_t(l)]));
    }
    const double r = double(acc - b0[std::size_t(i)]), bound = abs_acc + std::fabs(double(b0[std::size_t(i)]));
    ok += std::fabs(r) <= 2.0 * double(ka + 2) * u * bound;
  }
  return ok;
}

using cuprim::detail::trsm_leaves;

/// CPW and WARPS, when not 0, pick the diagonal kernel's block (which inverts the diagonal blocks, and solves them
/// with Leaves = substitution) for a production-path call (the sweep rows).
template <class T, int CPW = 0, int WARPS = 0, trsm_leaves Leaves = trsm_leaves::inverse>
void add_trsm_case(std::string name, trsm_shape sh, std::int64_t m, std::int64_t n, trsm_impl impl, bool quick,
                   int reps) {
  constexpr bool custom = CPW > 0 || Leaves != trsm_leaves::inverse;
  constexpr int cpw = CPW > 0 ? CPW : cuprim::detail::trsm_cols_per_warp;
  constexpr int warps = WARPS > 0 ? WARPS : cuprim::detail::trsm_warps;
  case_def c;
  c.name = std::move(name);
  c.family = "blas";
  c.op = "trsm-" + sh.label();
  c.variant = impl == trsm_impl::seed ? "seed-thread-per-column"
              : custom ? std::string(Leaves == trsm_leaves::inverse ? "inverse" : "substitution") + "-leaves-cpw" +
                             std::to_string(cpw) + "-warps" + std::to_string(warps)
                       : "production";
  c.dtype = type_label(sizeof(T));
  c.n = m * n;
  const std::int64_t ka = sh.s == side::left ? m : n;
  c.flops = double(ka) * double(ka) * double(sh.s == side::left ? n : m);
  c.bytes = double(ka * ka / 2 + 2 * m * n) * sizeof(T);
  c.quick = quick;
  c.reps = reps;
  c.baseline = sizeof(T) == 4 ? "cublasStrsm" : "cublasDtrsm";
  c.setup = [=]() -> bench {
    struct state {
      device_memory a, b, b0, base_b;
      cublas_handle blas;
    };
    auto st = std::make_shared<state>();
    st->a = device_memory(std::size_t(ka * ka) * sizeof(T));
    st->b = device_memory(std::size_t(m * n) * sizeof(T));
    st->b0 = device_memory(std::size_t(m * n) * sizeof(T));
    st->base_b = device_memory(std::size_t(m * n) * sizeof(T));
    fill_triangles<<<1024, 256>>>(st->a.template as<T>(), ka, 1, 51u);
    fill_signed<<<1024, 256>>>(st->b0.template as<T>(), std::uint64_t(m * n), 52u);
    check(cudaGetLastError(), "launch of the trsm inputs' fill");
    check(cudaMemcpy(st->b.get(), st->b0.get(), st->b0.bytes(), cudaMemcpyDeviceToDevice), "copy B");
    check(cudaMemcpy(st->base_b.get(), st->b0.get(), st->b0.bytes(), cudaMemcpyDeviceToDevice), "copy B");
    bench b;
    if constexpr (custom)
      b.run = [st, sh, m, n, ka](cudaStream_t s, int) {
        cuprim::detail::trsm_run<T, cpw, warps, Leaves>("cuprim::blas::trsm", sh.s, sh.u, sh.t, sh.d, m, n, T(1),
                                                        st->a.template as<T>(), ka, st->b.template as<T>(), m,
                                                        nullptr, s);
      };
    else if (impl == trsm_impl::production)
      b.run = [st, sh, m, n, ka](cudaStream_t s, int) {
        cuprim::blas::trsm<T>(sh.s, sh.u, sh.t, sh.d, m, n, T(1), st->a.template as<T>(), ka, st->b.template as<T>(),
                              m, s);
      };
    else
      b.run = [st, m, n](cudaStream_t s, int) {
        cuprim::ladder::trsm_seed<T>(m, n, st->a.template as<T>(), m, st->b.template as<T>(), m, s);
      };
    b.baseline = [st, sh, m, n, ka](cudaStream_t s, int) {
      const T one = 1;
      cublasSetStream(st->blas.h, s);
      const auto cs = sh.s == side::left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
      const auto cu = sh.u == uplo::lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
      const auto ct = sh.t == op::N ? CUBLAS_OP_N : CUBLAS_OP_T;
      const auto cd = sh.d == diag::unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
      cublasStatus_t r;
      if constexpr (sizeof(T) == 4)
        r = cublasStrsm(st->blas.h, cs, cu, ct, cd, int(m), int(n), &one, st->a.template as<T>(), int(ka),
                        st->base_b.template as<T>(), int(m));
      else
        r = cublasDtrsm(st->blas.h, cs, cu, ct, cd, int(m), int(n), &one, st->a.template as<T>(), int(ka),
                        st->base_b.template as<T>(), int(m));
      if (r != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublas trsm failed");
    };
    b.verify = [st, sh, m, n, ka, run = b.run, base = b.baseline]() {
      check(cudaMemcpy(st->b.get(), st->b0.get(), st->b0.bytes(), cudaMemcpyDeviceToDevice), "copy B");
      check(cudaMemcpy(st->base_b.get(), st->b0.get(), st->b0.bytes(), cudaMemcpyDeviceToDevice), "copy B");
      run(0, 0);
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (trsm verify)");
      const std::vector<T> a = to_host(st->a.template as<T>(), std::size_t(ka * ka));
      const bool left = sh.s == side::left;
      int ok = 0, ok_base = 0;
      const std::vector<std::int64_t> js = samples(left ? n : m);
      for (std::int64_t j : js) {
        const std::vector<T> b0 = slice(st->b0.template as<T>(), m, n, left, j);
        ok += trsm_residual_ok(sh, m, n, a, slice(st->b.template as<T>(), m, n, left, j), b0);
        ok_base += trsm_residual_ok(sh, m, n, a, slice(st->base_b.template as<T>(), m, n, left, j), b0);
      }
      const int all = int(js.size()) * int(ka);
      verify_result v;
      v.ok = ok == all;
      v.baseline_ok = ok_base == all;
      v.detail = "residuals of 8 sampled " + std::string(left ? "columns" : "rows") +
                 " within 2 (ka + 2) u (|op(A)||X| + |B|): " + std::to_string(ok) + "/" + std::to_string(all) +
                 " cuprim, " + std::to_string(ok_base) + "/" + std::to_string(all) + " cuBLAS";
      // The timed runs start from B again.
      check(cudaMemcpy(st->b.get(), st->b0.get(), st->b0.bytes(), cudaMemcpyDeviceToDevice), "copy B");
      check(cudaMemcpy(st->base_b.get(), st->b0.get(), st->b0.bytes(), cudaMemcpyDeviceToDevice), "copy B");
      return v;
    };
    return b;
  };
  if (impl == trsm_impl::production)
    c.policy = [] { return record_policy(cuprim::blas::gemm_policy_for<T>(cuprim::current_tuned_arch())); };
  add_case(std::move(c));
}

/// How many of the ka elements of a sampled column (left: A·b) or row (right: b·A) of symm's C are within
/// 2·(ka + 2)·u·Σ|a·b| of a long-double host sum (A symmetric, its `lower` or upper triangle read, ld ka).
template <class T>
int symm_sample_ok(bool left, bool lower, std::int64_t ka, const std::vector<T>& a, const std::vector<T>& b,
                   const std::vector<T>& c) {
  const double eps = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
  int ok = 0;
  for (std::int64_t i = 0; i < ka; ++i) {
    long double acc = 0;
    double abs_acc = 0;
    for (std::int64_t l = 0; l < ka; ++l) {
      const std::int64_t r = left ? i : l, q = left ? l : i;  // A(r, q), symmetric
      const bool stored = lower ? r >= q : r <= q;
      const T e = stored ? a[std::size_t(r + q * ka)] : a[std::size_t(q + r * ka)];
      acc += static_cast<long double>(e) * b[std::size_t(l)];
      abs_acc += std::fabs(double(e) * double(b[std::size_t(l)]));
    }
    ok += std::fabs(double(c[std::size_t(i)]) - double(acc)) <= 2.0 * double(ka + 2) * eps * abs_acc;
  }
  return ok;
}

template <class T>
void add_symm_case(side s, uplo u, std::int64_t size, bool quick) {
  const std::int64_t m = size, n = size, ka = s == side::left ? m : n;
  case_def c;
  c.name = "blas/symm/" + type_label(sizeof(T)) + "/" + (s == side::left ? "L" : "R") + (u == uplo::lower ? "L" : "U") +
           "/" + size_label(size);
  c.family = "blas";
  c.op = std::string("symm-") + (s == side::left ? "L" : "R") + (u == uplo::lower ? "L" : "U");
  c.variant = "production";
  c.dtype = type_label(sizeof(T));
  c.n = m * n;
  c.flops = 2.0 * double(ka) * double(ka) * double(s == side::left ? n : m);
  c.bytes = double(ka * ka / 2 + 2 * m * n) * sizeof(T);
  c.quick = quick;
  c.baseline = sizeof(T) == 4 ? "cublasSsymm" : "cublasDsymm";
  c.setup = [=]() -> bench {
    struct state {
      device_memory a, b, c, base_c;
      cublas_handle blas;
    };
    auto st = std::make_shared<state>();
    st->a = device_memory(std::size_t(ka * ka) * sizeof(T));
    st->b = device_memory(std::size_t(m * n) * sizeof(T));
    st->c = device_memory(std::size_t(m * n) * sizeof(T));
    st->base_c = device_memory(std::size_t(m * n) * sizeof(T));
    fill_signed<<<1024, 256>>>(st->a.template as<T>(), std::uint64_t(ka * ka), 61u);
    fill_signed<<<1024, 256>>>(st->b.template as<T>(), std::uint64_t(m * n), 62u);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (symm inputs)");
    bench b;
    b.run = [st, s, u, m, n, ka](cudaStream_t stream, int) {
      cuprim::blas::symm<T>(s, u, m, n, T(1), st->a.template as<T>(), ka, st->b.template as<T>(), m, T(0),
                            st->c.template as<T>(), m, stream);
    };
    b.baseline = [st, s, u, m, n, ka](cudaStream_t stream, int) {
      const T one = 1, zero = 0;
      cublasSetStream(st->blas.h, stream);
      const auto cs = s == side::left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
      const auto cu = u == uplo::lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
      cublasStatus_t r;
      if constexpr (sizeof(T) == 4)
        r = cublasSsymm(st->blas.h, cs, cu, int(m), int(n), &one, st->a.template as<T>(), int(ka),
                        st->b.template as<T>(), int(m), &zero, st->base_c.template as<T>(), int(m));
      else
        r = cublasDsymm(st->blas.h, cs, cu, int(m), int(n), &one, st->a.template as<T>(), int(ka),
                        st->b.template as<T>(), int(m), &zero, st->base_c.template as<T>(), int(m));
      if (r != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublas symm failed");
    };
    b.verify = [st, s, u, m, n, ka, run = b.run, base = b.baseline]() {
      st->c.poison();
      st->base_c.poison();
      run(0, 0);
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (symm verify)");
      const std::vector<T> a = to_host(st->a.template as<T>(), std::size_t(ka * ka));
      const bool left = s == side::left, lower = u == uplo::lower;
      int ok = 0, ok_base = 0;
      const std::vector<std::int64_t> js = samples(left ? n : m);
      for (std::int64_t j : js) {
        // left: column j of C = A · column j of B; right: row j of C = row j of B · A.
        const std::vector<T> bj = slice(st->b.template as<T>(), m, n, left, j);
        const std::vector<T> cj = slice(st->c.template as<T>(), m, n, left, j);
        const std::vector<T> bcj = slice(st->base_c.template as<T>(), m, n, left, j);
        ok += symm_sample_ok(left, lower, ka, a, bj, cj);
        ok_base += symm_sample_ok(left, lower, ka, a, bj, bcj);
      }
      const int all = int(js.size()) * int(ka);
      verify_result v;
      v.ok = ok == all;
      v.baseline_ok = ok_base == all;
      v.detail = "8 sampled " + std::string(left ? "columns" : "rows") +
                 " of C within 2 (ka + 2) u sum|a b| of a long-double host sum: " + std::to_string(ok) + "/" +
                 std::to_string(all) + " cuprim, " + std::to_string(ok_base) + "/" + std::to_string(all) + " cuBLAS";
      return v;
    };
    return b;
  };
  c.policy = [] { return record_policy(cuprim::blas::gemm_policy_for<T>(cuprim::current_tuned_arch())); };
  add_case(std::move(c));
}

template <class T>
void add_trsm_row(const trsm_shape& sh, std::int64_t size, bool quick) {
  add_trsm_case<T>("blas/trsm/" + type_label(sizeof(T)) + "/" + sh.label() + "/" + size_label(size), sh, size, size,
                   trsm_impl::production, quick, size > 4096 ? 10 : 0);
}

}  // namespace

void register_blas_trsm() {
  const trsm_shape llnn{side::left, uplo::lower, op::N, diag::non_unit},
      rltn{side::right, uplo::lower, op::T, diag::non_unit}, llnu{side::left, uplo::lower, op::N, diag::unit};
  // Every side × uplo × trans at 4096^2 (non-unit), float and double; at 8192^2 the issue's LLNU for both, and
  // float LLNN and RLTN.
  for (side s : {side::left, side::right})
    for (uplo u : {uplo::lower, uplo::upper})
      for (op t : {op::N, op::T}) {
        const trsm_shape sh{s, u, t, diag::non_unit};
        add_trsm_row<float>(sh, 4096, sh.label() == "LLNN");
        add_trsm_row<double>(sh, 4096, false);
      }
  for (const trsm_shape& sh : {llnu, llnn, rltn}) add_trsm_row<float>(sh, 8192, false);
  add_trsm_row<double>(llnu, 8192, false);
  for (side s : {side::left, side::right})
    for (uplo u : {uplo::lower, uplo::upper}) add_symm_case<float>(s, u, 4096, s == side::left && u == uplo::upper);
  add_symm_case<float>(side::left, uplo::upper, 8192, false);
  add_symm_case<double>(side::left, uplo::upper, 4096, false);
  add_symm_case<double>(side::right, uplo::lower, 4096, false);
  const trsm_shape seed{side::left, uplo::lower, op::N, diag::unit};
  add_trsm_case<float>("blas/trsm-ladder/seed-thread-per-column/float/LLNU/" + size_label(2048), seed, 2048, 2048,
                       trsm_impl::seed, false, 3);
  add_trsm_case<float, 0, 0, trsm_leaves::substitution>("blas/trsm-ladder/substitution-leaves/float/LLNU/" +
                                                            size_label(2048),
                                                        seed, 2048, 2048, trsm_impl::production, false, 20);
  add_trsm_case<float>("blas/trsm-ladder/production/float/LLNU/" + size_label(2048), seed, 2048, 2048,
                       trsm_impl::production, false, 20);
  // The leaves (production: the diagonal blocks inverted at once, then multiplied; or solved by substitution, a
  // launch each) and the diagonal kernel's block (columns per warp × warps; production 2 × 4), at 4096^2: float LLNN
  // and RLTN (the right side reads B's rows through the shared-memory tiles), double LLNN.
  for (const trsm_shape& sh : {llnn, rltn}) {
    const std::string f = "blas/trsm-sweep/float/" + sh.label() + "/" + size_label(4096) + "/";
    add_trsm_case<float, 2, 4>(f + "inverse-cpw2-w4", sh, 4096, 4096, trsm_impl::production, false, 0);
    add_trsm_case<float, 2, 8>(f + "inverse-cpw2-w8", sh, 4096, 4096, trsm_impl::production, false, 0);
    add_trsm_case<float, 2, 4, trsm_leaves::substitution>(f + "substitution-cpw2-w4", sh, 4096, 4096,
                                                          trsm_impl::production, false, 0);
    add_trsm_case<float, 2, 8, trsm_leaves::substitution>(f + "substitution-cpw2-w8", sh, 4096, 4096,
                                                          trsm_impl::production, false, 0);
  }
  {
    const std::string f = "blas/trsm-sweep/double/LLNN/" + size_label(4096) + "/";
    add_trsm_case<double, 2, 4>(f + "inverse-cpw2-w4", llnn, 4096, 4096, trsm_impl::production, false, 0);
    add_trsm_case<double, 2, 4, trsm_leaves::substitution>(f + "substitution-cpw2-w4", llnn, 4096, 4096,
                                                           trsm_impl::production, false, 0);
  }
  add_note("blas/trsm-sweep", "blas/trsm-sweep: the leaves, <inverse|substitution>-cpw<columns per warp>-w<warps per "
                              "block> of the diagonal kernel (production inverse-cpw2-w4), otherwise as blas/trsm");
  add_note("blas/trsm", "blas/trsm: op(A) X = B (left) or X op(A) = B (right) in place, alpha 1, ld = rows, A well "
                        "conditioned (|diagonal| in [1, 2), off-diagonal below 1/ka); flops m^2 n (left) or m n^2 "
                        "(right); against cublas<S|D>trsm interleaved in the same run, each on its own B; rows named "
                        "<side><uplo><trans><diag>");
  add_note("blas/symm", "blas/symm: C = A B (left) or B A (right), A symmetric with one triangle read, alpha 1, beta 0; "
                        "flops 2 m^2 n or 2 m n^2; against cublas<S|D>symm interleaved in the same run");
  add_note("blas/trsm-ladder", "blas/trsm-ladder: the seed's STRSM loop with one thread per column (lab/ladder/trsm.cuh), "
                               "the blocked solve with its diagonal blocks substituted, then the production call "
                               "(diagonal blocks inverted and multiplied), each against cublasStrsm");
}

}  // namespace lab
