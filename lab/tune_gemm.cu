// lab/tune_gemm.cu: `cuprim-lab tune gemm`, the auto-tuner of the 16-bit tensor-core GEMM (docs/tuning/README.md,
// "Auto-tuning").
//
// The space is blas::gemm_sm90_recipe, its legal points blas::gemm_sm90_point_ok's; what is searched are the compiled
// candidates (blas::gemm_sm90_candidates): the tile rows the library instantiates, each under the split rules
// (unsplit, the per-call count, 2 to 16 slices forced). Shapes the tensor-core kernel does not take (operands TMA
// cannot read, too small to repack) are skipped: every plan would run the same fallback. At a shape, candidates whose
// rule gives the same k slices are one plan and are timed once (the per-call rule kept, being the one that carries
// over to other shapes). The model that orders them is the chooser's score (blas::gemm_sm90_score: the row's speed,
// wave and padding efficiency); the search is lab/tune_search.hpp's (the model's best first, then local search in
// (row, slices)).
//
// For each shape of the tuning grid (--dims: every m × n × k of the values) it checks every candidate it times on
// 256 sampled elements of C against a double host sum of the exact inputs, then times it alone (CUDA events, warm-up,
// median; operand slices rotated so that each call reads A and B that are not in L2 for products smaller than 4 ×
// L2); the compiled default (the chooser's plan, through gemm itself) is timed alone too, then once more with
// cublasGemmEx of the same types interleaved, for the cuBLAS ratio only. Comparisons take the default's plan as
// timed among the candidates (shape_result::def_cmp_ms).
// A winner at least --min-gain percent (default 3) faster than the default goes into the tuning cache
// (core/tuning.hpp) with the shape's bucket: per dimension, from the geometric midpoint with the grid's value below to
// the one above (half the first value and twice the last at the ends); elsewhere a "default" entry (the chooser
// decides there), so that a new run replaces every bucket it measured. The default chooses per shape, so a winner
// only pins its bucket where it beat the default clearly at the bucket's centre (on an H200's held-out shapes an entry
// for every bucket, --min-gain 0, lost to the default where the centre's row did not suit the bucket's edges).
// `--held-out` shapes are then measured exhaustively: what the cache's choice (looked up as the library looks it up)
// and the compiled default reach against the best candidate.
//
// The lab is compiled with CUPRIM_USE_TUNING_CACHE=0: its gemm<tuned> is the compiled default whatever cache the
// machine holds, and candidates run through cuprim::detail::gemm_tensor_candidate.
#include "blas_common.cuh"
#include "lab.hpp"
#include "tune_common.hpp"
#include "tune_search.hpp"

#include <cuprim/blas/gemm.cuh>
#include <cuprim/core/tuning.hpp>

#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace lab {

const char* const tune_gemm_usage =
    "gemm: cuprim-lab tune gemm [--types T,...] [--layouts L,...] [--dims N,...] [--held-out MxNxK,...]\n"
    "                           [--budget MINUTES] [--exhaustive] [--min-gain PERCENT] [--out FILE] [--no-write]\n"
    "                           [--json FILE]\n"
    "  --types      bf16, fp16 (C of the input type; default bf16)\n"
    "  --layouts    op pairs NN, NT, TN, TT (default NN)\n"
    "  --dims       the tuning grid: every m x n x k of these values (default 128,256,...,32768)\n"
    "  --held-out   shapes not in the grid, measured exhaustively after tuning: the cache's choice and the compiled\n"
    "               default against the best candidate\n"
    "  --budget     minutes for the search (default 10): no new candidate is timed after it\n"
    "  --exhaustive time every candidate at every grid shape (default: model-ordered local search)\n"
    "  --min-gain   write an entry only where the winner is this many percent faster than the default (default 3;\n"
    "               0: an entry for every bucket)\n"
    "  --out, --no-write, --json as for scan\n";

namespace {

namespace bl = cuprim::blas;
using blas_family::cublas_handle;
using blas_family::fill_16bit;

struct shape {
  std::int64_t m = 0, n = 0, k = 0;
};

std::string shape_label(const shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

struct gemm_tune_options {
  std::vector<std::string> types{"bf16"};
  std::vector<std::string> layouts{"NN"};
  std::vector<std::int64_t> dims{128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
  std::vector<shape> held_out;
  double budget_min = 10;
  bool exhaustive = false;
  double min_gain = 3;
  std::string out;
  bool write = true;
  std::string json;
};

[[noreturn]] void usage_error(const std::string& m) {
  std::fprintf(stderr, "cuprim-lab tune gemm: %s\n\n%s", m.c_str(), tune_gemm_usage);
  std::exit(2);
}

std::int64_t parse_dim(const std::string& s, const std::string& what) {
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (end == s.c_str() || *end || v < 1 || v > (1ll << 20)) usage_error("cannot read " + what + " '" + s + "'");
  return v;
}

shape parse_shape(const std::string& s) {
  const std::size_t x1 = s.find('x'), x2 = x1 == std::string::npos ? x1 : s.find('x', x1 + 1);
  if (x2 == std::string::npos) usage_error("a shape is MxNxK, not '" + s + "'");
  return {parse_dim(s.substr(0, x1), "m"), parse_dim(s.substr(x1 + 1, x2 - x1 - 1), "n"),
          parse_dim(s.substr(x2 + 1), "k")};
}

gemm_tune_options parse(int argc, char** argv) {
  gemm_tune_options o;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--types") o.types = tune::split(value());
    else if (a == "--layouts") o.layouts = tune::split(value());
    else if (a == "--dims") {
      o.dims.clear();
      for (const auto& d : tune::split(value())) o.dims.push_back(parse_dim(d, "dimension"));
    } else if (a == "--held-out") {
      for (const auto& h : tune::split(value())) o.held_out.push_back(parse_shape(h));
    } else if (a == "--budget") {
      o.budget_min = std::atof(value().c_str());
      if (!(o.budget_min > 0)) usage_error("--budget needs a positive number of minutes");
    } else if (a == "--exhaustive") o.exhaustive = true;
    else if (a == "--min-gain") {
      o.min_gain = std::atof(value().c_str());
      if (!(o.min_gain >= 0)) usage_error("--min-gain needs a percentage >= 0");
    } else if (a == "--out") o.out = value();
    else if (a == "--no-write") o.write = false;
    else if (a == "--json") o.json = value();
    else usage_error("unknown option '" + a + "'");
  }
  for (const auto& t : o.types)
    if (t != "bf16" && t != "fp16") usage_error("type '" + t + "' is not tuned (bf16, fp16)");
  for (const auto& l : o.layouts)
    if (l.size() != 2 || (l[0] != 'N' && l[0] != 'T') || (l[1] != 'N' && l[1] != 'T'))
      usage_error("layout '" + l + "' is not an op pair (NN, NT, TN, TT)");
  if (o.dims.empty()) usage_error("--dims needs at least one value");
  std::sort(o.dims.begin(), o.dims.end());
  o.dims.erase(std::unique(o.dims.begin(), o.dims.end()), o.dims.end());
  for (const shape& h : o.held_out) {
    const auto in_grid = [&](std::int64_t d) { return std::find(o.dims.begin(), o.dims.end(), d) != o.dims.end(); };
    if (in_grid(h.m) && in_grid(h.n) && in_grid(h.k))
      usage_error("held-out shape " + shape_label(h) + " is a grid shape");
  }
  return o;
}

/// The bucket of grid value dims[i]: from the geometric midpoint with the value below (half the first value for the
/// first) to the one with the value above (twice the last for the last): an entry answers no farther than that from
/// what was measured (a forced count of slices at m = 32768 says nothing of m = 10^6).
std::pair<std::int64_t, std::int64_t> bucket(const std::vector<std::int64_t>& dims, std::size_t i) {
  const auto mid = [&](std::size_t a) { return std::int64_t(std::sqrt(double(dims[a]) * double(dims[a + 1]))); };
  return {i == 0 ? std::max<std::int64_t>(1, dims[0] / 2) : mid(i - 1) + 1,
          i + 1 == dims.size() ? 2 * dims.back() : mid(i)};
}

// ---------------------------------------------------------------------------------------------------------
// One shape's operands, their host reference on sampled elements, and the calls

/// The operands of one product as rotated slices (A and B; each call reads its own unless one slice already exceeds
/// 4 × L2), C and cuBLAS's C, and the reference: 256 sampled elements of C (the last row and column among them) as
/// double sums of slice 0's exact values, with the sums of |a·b| that bound their error.
template <class In>
struct gemm_state {
  shape s;
  bool ta = false, tb = false;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::size_t ea = 0, eb = 0, ec = 0;
  std::size_t sa = 0, sb = 0;  ///< slice strides: ea and eb rounded up to 64 elements (every slice 128-byte aligned)
  int slices = 1;
  device_memory a, b, c, base_c;
  cublas_handle blas;
  std::vector<std::int64_t> si, sj;
  std::vector<double> ref, ref_abs;

  const In* a_of(int r) const { return a.template as<In>() + std::size_t(r % slices) * sa; }
  const In* b_of(int r) const { return b.template as<In>() + std::size_t(r % slices) * sb; }
};

template <class In>
std::shared_ptr<gemm_state<In>> make_state(const shape& s, bool ta, bool tb, std::size_t l2_bytes) {
  constexpr bool bf = std::is_same_v<In, __nv_bfloat16>;
  auto st = std::make_shared<gemm_state<In>>();
  st->s = s;
  st->ta = ta;
  st->tb = tb;
  st->lda = ta ? s.k : s.m;
  st->ldb = tb ? s.n : s.k;
  st->ldc = s.m;
  st->ea = std::size_t(s.m) * std::size_t(s.k);
  st->eb = std::size_t(s.k) * std::size_t(s.n);
  st->ec = std::size_t(s.m) * std::size_t(s.n);
  st->sa = (st->ea + 63) / 64 * 64;
  st->sb = (st->eb + 63) / 64 * 64;
  const std::size_t pair = (st->sa + st->sb) * sizeof(In);
  st->slices = int(std::clamp<std::size_t>((4 * l2_bytes + pair - 1) / pair, 1, 511));
  if (st->slices > 1 && st->slices % 2 == 0) ++st->slices;  // time_device reads input 2i: an odd count visits all
  st->a = device_memory(st->sa * sizeof(In) * std::size_t(st->slices));
  st->b = device_memory(st->sb * sizeof(In) * std::size_t(st->slices));
  st->c = device_memory(st->ec * sizeof(In));
  st->base_c = device_memory(st->ec * sizeof(In));
  fill_16bit<<<1024, 256>>>(st->a.get(), st->sa * std::size_t(st->slices), 17u, bf);
  fill_16bit<<<1024, 256>>>(st->b.get(), st->sb * std::size_t(st->slices), 18u, bf);
  check(cudaGetLastError(), "launch of fill_16bit");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (gemm inputs)");
  // The sampled rows of op(A) and columns of op(B), copied by strided 2-D copies of slice 0.
  std::mt19937_64 g(5);
  for (int t = 0; t < 256; ++t) {
    st->si.push_back(t < 16 ? s.m - 1 : std::int64_t(g() % std::uint64_t(s.m)));
    st->sj.push_back(t >= 16 && t < 32 ? s.n - 1 : std::int64_t(g() % std::uint64_t(s.n)));
  }
  // op(A)(i, l) at a[ta ? l + i·lda : i + l·lda]; op(B)(l, j) at b[tb ? j + l·ldb : l + j·ldb].
  const auto strip = [&](const In* base, std::int64_t first, std::int64_t step) {
    std::vector<In> v(std::size_t(s.k));
    check(cudaMemcpy2D(v.data(), sizeof(In), base + first, std::size_t(step) * sizeof(In), sizeof(In),
                       std::size_t(s.k), cudaMemcpyDeviceToHost),
          "cudaMemcpy2D (reference operands)");
    return v;
  };
  for (int t = 0; t < 256; ++t) {
    const std::int64_t i = st->si[std::size_t(t)], j = st->sj[std::size_t(t)];
    const std::vector<In> row = ta ? strip(st->a_of(0), i * st->lda, 1) : strip(st->a_of(0), i, st->lda);
    const std::vector<In> col = tb ? strip(st->b_of(0), j, st->ldb) : strip(st->b_of(0), j * st->ldb, 1);
    double sum = 0, abs_sum = 0;
    for (std::int64_t l = 0; l < s.k; ++l) {
      const double p = double(float(row[std::size_t(l)])) * double(float(col[std::size_t(l)]));
      sum += p;
      abs_sum += std::fabs(p);
    }
    st->ref.push_back(sum);
    st->ref_abs.push_back(abs_sum);
  }
  return st;
}

/// The sampled elements of `c` against the reference: the count within 4·k·2^-24·Σ|a·b| plus one rounding to the
/// output type (the bound the GEMM tests hold every element to).
template <class In>
int count_within(const gemm_state<In>& st, const device_memory& c) {
  constexpr bool bf = std::is_same_v<In, __nv_bfloat16>;
  const double out_u = bf ? 0x1p-8 : 0x1p-11;
  int good = 0;
  for (std::size_t t = 0; t < st.si.size(); ++t) {
    In v{};
    check(cudaMemcpy(&v, c.template as<In>() + std::size_t(st.si[t] + st.sj[t] * st.ldc), sizeof(In),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy (sampled C)");
    const double tol = 4.0 * double(st.s.k) * 0x1p-24 * st.ref_abs[t] + out_u * std::fabs(st.ref[t]);
    good += std::fabs(double(float(v)) - st.ref[t]) <= tol;
  }
  return good;
}

/// A plan at one shape: candidate `index` (-1: the compiled default, gemm<tuned>), its row and k slices.
struct plan_point {
  int index = -1;
  int row = 0, splits = 1;
  std::string label;
};

template <class In>
void run_plan(const gemm_state<In>& st, const plan_point& p, int r, cudaStream_t stream) {
  const auto op_a = st.ta ? bl::op::T : bl::op::N, op_b = st.tb ? bl::op::T : bl::op::N;
  if (p.index < 0)
    bl::gemm(op_a, op_b, st.s.m, st.s.n, st.s.k, 1.f, st.a_of(r), st.lda, st.b_of(r), st.ldb, 0.f,
             st.c.template as<In>(), st.ldc, stream);
  else
    cuprim::detail::gemm_tensor_candidate<In, In>(p.index, op_a, op_b, st.s.m, st.s.n, st.s.k, 1.f, st.a_of(r),
                                                  st.lda, st.b_of(r), st.ldb, 0.f, st.c.template as<In>(), st.ldc,
                                                  stream);
}

template <class In>
void run_cublas(gemm_state<In>& st, int r, cudaStream_t stream) {
  constexpr bool bf = std::is_same_v<In, __nv_bfloat16>;
  const float one = 1, zero = 0;
  const cudaDataType t = bf ? CUDA_R_16BF : CUDA_R_16F;
  cublasSetStream(st.blas.h, stream);
  const cublasStatus_t rc = cublasGemmEx(
      st.blas.h, st.ta ? CUBLAS_OP_T : CUBLAS_OP_N, st.tb ? CUBLAS_OP_T : CUBLAS_OP_N, int(st.s.m), int(st.s.n),
      int(st.s.k), &one, st.a_of(r), t, int(st.lda), st.b_of(r), t, int(st.ldb), &zero, st.base_c.get(), t,
      int(st.ldc), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (rc != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasGemmEx failed");
}

struct measurement {
  double ms = std::numeric_limits<double>::quiet_NaN();  ///< NaN: not timed; +inf: failed
  double cublas_ms = 0;     ///< cublasGemmEx interleaved with the call (with_cublas)
  double cublas_ratio = 0;  ///< cuBLAS's time over the call's, both from the interleaved run
  std::string error;
};

/// Checks plan p on slice 0, then times it: reps from the product's size (about 50 ms of calls, 5 to 100), a tenth
/// of them (at least 2) as warm-up. `with_cublas`: then times it again with cublasGemmEx interleaved call by call,
/// for the cuBLAS ratio only: interleaved with cuBLAS a large product runs up to ~10% slower (the two share the
/// card's power), so every time the tuner compares, the default's included, is taken alone.
template <class In>
measurement measure(gemm_state<In>& st, const plan_point& p, bool with_cublas, cudaStream_t stream) {
  measurement m;
  try {
    st.c.poison(0xff);
    run_plan(st, p, 0, stream);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (gemm check)");
    const int good = count_within(st, st.c);
    if (good != int(st.si.size())) {
      m.ms = std::numeric_limits<double>::infinity();
      m.error = "verification failed: " + std::to_string(good) + " of 256 sampled elements within the bound";
      return m;
    }
    const double flops = 2.0 * double(st.s.m) * double(st.s.n) * double(st.s.k);
    const int reps = int(std::clamp(0.05 / (flops / 5e14), 5.0, 100.0));
    bench b;
    b.run = [&st, p](cudaStream_t s, int r) { run_plan(st, p, r, s); };
    b.input_slices = st.slices;
    m.ms = time_device(b, reps, std::max(2, reps / 10), stream).main.median_ms;
    if (with_cublas) {
      b.baseline = [&st](cudaStream_t s, int r) { run_cublas(st, r, s); };
      const pair_timing t = time_device(b, reps, std::max(2, reps / 10), stream);
      m.cublas_ratio = t.base && t.main.median_ms > 0 ? t.base->median_ms / t.main.median_ms : 0;
      m.cublas_ms = t.base ? t.base->median_ms : 0;
    }
  } catch (const std::exception& e) {
    m.ms = std::numeric_limits<double>::infinity();
    m.error = e.what();
  }
  return m;
}

// ---------------------------------------------------------------------------------------------------------
// The search at one shape

/// The candidates' distinct plans at shape s on `sms` SMs: one point per (row, k slices), the per-call rule's
/// candidate kept where another rule gives the same slices; coordinates (row, position of the slices among
/// 1, 2, 3, 4, 6, 8, 12, 16); the model: 1 / blas::gemm_sm90_score.
std::vector<plan_point> distinct_plans(const shape& s, int sms, std::vector<tune::point>& pts) {
  constexpr auto cands = bl::gemm_sm90_candidates(90);
  constexpr int counts[] = {1, 2, 3, 4, 6, 8, 12, 16};
  std::vector<plan_point> out;
  pts.clear();
  for (int pass = 0; pass < 2; ++pass)  // the per-call rule first, so that it is the one kept
    for (std::size_t c = 0; c < cands.size(); ++c) {
      const bl::gemm_sm90_candidate& cand = cands[c];
      if ((cand.policy.splits == 0) != (pass == 0)) continue;
      const bl::gemm_sm90_plan plan = cuprim::detail::gemm_sm90_candidate_plan(cand, s.m, s.n, s.k, sms);
      if (std::any_of(out.begin(), out.end(),
                      [&](const plan_point& q) { return q.row == plan.row && q.splits == plan.splits; }))
        continue;
      const bl::gemm_sm90_policy& rp = cand.policy;
      plan_point p{int(c), plan.row, plan.splits,
                   std::to_string(rp.tile_m) + "x" + std::to_string(rp.tile_n()) + " " +
                       (rp.splits == 0 ? "k auto=" + std::to_string(plan.splits)
                                       : "k" + std::to_string(plan.splits))};
      int pos = 0;
      for (int i = 0; i < int(std::size(counts)); ++i)
        if (std::abs(counts[i] - plan.splits) < std::abs(counts[pos] - plan.splits)) pos = i;
      tune::point pt;
      pt.coord = {plan.row, pos};
      pt.model = 1.0 / std::max(1e-9, bl::gemm_sm90_score(bl::gemm_sm90_tile_row_for(90, plan.row).speed, rp, s.m,
                                                          s.n, s.k, sms));
      out.push_back(std::move(p));
      pts.push_back(std::move(pt));
    }
  return out;
}

struct shape_result {
  std::string type, layout;
  shape s;
  bool held_out = false;
  std::vector<plan_point> plans;
  std::vector<measurement> per;  ///< per plan
  measurement def;               ///< the compiled default, cuBLAS beside it
  plan_point def_plan;
  /// The default's time for comparisons: its plan's time as a candidate where the search timed that plan (the same
  /// conditions as the others: a plan timed twice in one run differed by up to 8% on an H200, the card's clocks
  /// moving under its power limit), else the default's own timing.
  double def_cmp_ms() const {
    for (std::size_t i = 0; i < plans.size(); ++i)
      if (plans[i].row == def_plan.row && plans[i].splits == def_plan.splits && std::isfinite(per[i].ms))
        return per[i].ms;
    return def.ms;
  }
  int best = -1, runner_up = -1, cached = -1;  ///< indices into plans (cached: -1 none or not measured here)
  int timed = 0;
  bool skipped = false;  ///< the tensor-core kernel does not take the shape: every plan would run the fallback
};

/// Whether gemm runs the shape on the tensor-core kernel (gemm_tensor_run's decision for these operands): elsewhere
/// every plan runs the same CUDA-core fallback and there is nothing to tune.
template <class In>
bool tensor_path(const gemm_state<In>& st) {
  namespace cd = cuprim::detail;
  const std::int64_t m = st.s.m, n = st.s.n, k = st.s.k;
  const bool big = double(m) * double(n) * double(k) >= bl::gemm_sm90_pack_min_volume;
  const auto ok = [&](const In* p, std::int64_t rows, std::int64_t ld) {
    return (big && cd::gemm_pack_wanted(p, rows, ld)) || cd::gemm_sm90_operand_ok(p, ld);
  };
  return cd::gemm_sm90_runs_here<In, In>(cuprim::get_device_info(), m, n, k) &&
         ok(st.a_of(0), st.ta ? k : m, st.lda) && ok(st.b_of(0), st.tb ? n : k, st.ldb);
}

template <class In>
shape_result tune_shape(const shape& s, const std::string& layout, bool held_out, const gemm_tune_options& o,
                        int sms, std::size_t l2, double budget_s, cudaStream_t stream) {
  shape_result r;
  r.type = std::is_same_v<In, __nv_bfloat16> ? "bf16" : "fp16";
  r.layout = layout;
  r.s = s;
  r.held_out = held_out;
  std::vector<tune::point> pts;
  r.plans = distinct_plans(s, sms, pts);
  r.per.assign(r.plans.size(), measurement{});
  auto st = make_state<In>(s, layout[0] == 'T', layout[1] == 'T', l2);
  const std::string what = "gemm " + r.type + " " + layout + " " + shape_label(s) + (held_out ? " (held out)" : "");
  if (!tensor_path(*st)) {
    std::fprintf(stderr, "%s: skipped (the tensor-core kernel does not take these operands)\n", what.c_str());
    r.skipped = true;
    return r;
  }
  tune::options so;
  so.exhaustive = o.exhaustive || held_out;
  so.budget_s = held_out ? std::numeric_limits<double>::infinity() : budget_s;
  std::fprintf(stderr, "%s: %zu plans%s\n", what.c_str(), r.plans.size(), so.exhaustive ? ", exhaustive" : "");
  const tune::outcome out = tune::search(
      pts, so,
      [&](int i) {
        r.per[std::size_t(i)] = measure(*st, r.plans[std::size_t(i)], false, stream);
        const measurement& m = r.per[std::size_t(i)];
        if (!m.error.empty())
          std::fprintf(stderr, "\n  %s: %s\n", r.plans[std::size_t(i)].label.c_str(), m.error.c_str());
        return m.error.empty() ? m.ms : std::numeric_limits<double>::infinity();
      },
      [&](int done, int planned, double el) { tune::progress_line(what, done, planned, el); });
  if (isatty(2)) std::fprintf(stderr, "\n");
  const bl::gemm_sm90_plan dp = bl::gemm_sm90_plan_for(90, s.m, s.n, s.k, layout[0] == 'T', layout[1] == 'T', sms);
  r.def_plan = {-1, dp.row, dp.splits, "default"};
  r.def = measure(*st, r.def_plan, true, stream);
  r.best = out.best;
  r.runner_up = out.runner_up;
  r.timed = int(out.order.size());
  if (out.budget_spent) std::fprintf(stderr, "  the budget ended the search at %s\n", shape_label(s).c_str());
  return r;
}

void print_shape(const shape_result& r) {
  if (r.skipped) {
    std::printf("\ngemm %s %s %s%s: skipped (the tensor-core kernel does not take these operands)\n", r.type.c_str(),
                r.layout.c_str(), shape_label(r.s).c_str(), r.held_out ? " held out" : "");
    return;
  }
  const double flops = 2.0 * double(r.s.m) * double(r.s.n) * double(r.s.k);
  std::printf("\ngemm %s %s %s%s: default (row %d, k%d) %.4f ms, %.0f TFLOP/s; %.3fx cuBLAS interleaved (%.4f ms)\n",
              r.type.c_str(), r.layout.c_str(), shape_label(r.s).c_str(), r.held_out ? " held out" : "",
              r.def_plan.row, r.def_plan.splits, r.def.ms, flops / (r.def.ms * 1e9), r.def.cublas_ratio,
              r.def.cublas_ms);
  for (std::size_t i = 0; i < r.plans.size(); ++i) {
    const measurement& m = r.per[i];
    if (std::isnan(m.ms)) continue;
    if (!m.error.empty()) {
      std::printf("  %-22s FAIL %s\n", r.plans[i].label.c_str(), m.error.c_str());
      continue;
    }
    std::printf("  %-22s %10.4f ms %6.0f TFLOP/s %7.3fx default %s\n", r.plans[i].label.c_str(), m.ms,
                flops / (m.ms * 1e9), r.def.ms / m.ms,
                int(i) == r.best ? "<- best" : int(i) == r.runner_up ? "<- runner-up" : "");
  }
}

/// The candidate a cache entry names (by its policy's fields), or -1.
int candidate_of(const cuprim::tuning::cache_entry& e) {
  constexpr auto cands = bl::gemm_sm90_candidates(90);
  if (e.policy_name != bl::gemm_sm90_policy::name) return -1;
  for (std::size_t c = 0; c < cands.size(); ++c)
    if (cuprim::tuning::flatten(cands[c].policy) == e.policy) return int(c);
  return -1;
}

bool write_report(const std::string& path, const environment& env, const cuprim::tuning::cache_key& key,
                  const gemm_tune_options& o, const std::vector<shape_result>& results, double took_s) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cuprim-lab tune gemm: cannot write %s\n", path.c_str());
    return false;
  }
  const auto q = [](const std::string& v) { return json_string(v); };
  std::fprintf(f,
               "{\n  \"family\": \"gemm\",\n  \"gpu\": %s, \"sms\": %d, \"cc\": %d, \"driver\": %d, \"runtime\": %d,\n",
               q(key.gpu).c_str(), key.sms, key.cc, key.driver, key.runtime);
  std::fprintf(f, "  \"cuprim\": %s, \"commit\": %s, \"tree\": %s, \"changes\": %s,\n", q(key.cuprim).c_str(),
               q(env.commit).c_str(), q(env.tree).c_str(), q(env.changes).c_str());
  std::fprintf(f, "  \"exhaustive\": %s, \"seconds\": %s,\n  \"results\": [\n", o.exhaustive ? "true" : "false",
               json_number(took_s).c_str());
  for (std::size_t k = 0; k < results.size(); ++k) {
    const shape_result& r = results[k];
    std::fprintf(f,
                 "    {\"type\": %s, \"layout\": %s, \"m\": %lld, \"n\": %lld, \"k\": %lld, \"held_out\": %s, "
                 "\"best\": %d, \"runner_up\": %d, \"cached\": %d, \"timed\": %d,\n"
                 "     \"default\": {\"row\": %d, \"splits\": %d, \"ms\": %s, \"cmp_ms\": %s, \"cublas_ms\": %s, "
                 "\"cublas_ratio\": %s},\n     \"plans\": [\n",
                 q(r.type).c_str(), q(r.layout).c_str(), (long long)r.s.m, (long long)r.s.n, (long long)r.s.k,
                 r.held_out ? "true" : "false", r.best, r.runner_up, r.cached, r.timed, r.def_plan.row,
                 r.def_plan.splits, json_number(r.def.ms).c_str(), json_number(r.def_cmp_ms()).c_str(),
                 json_number(r.def.cublas_ms).c_str(),
                 json_number(r.def.cublas_ratio).c_str());
    for (std::size_t i = 0; i < r.plans.size(); ++i)
      std::fprintf(f, "       {\"label\": %s, \"candidate\": %d, \"row\": %d, \"splits\": %d, \"ms\": %s}%s\n",
                   q(r.plans[i].label).c_str(), r.plans[i].index, r.plans[i].row, r.plans[i].splits,
                   json_number(r.per[i].ms).c_str(), i + 1 < r.plans.size() ? "," : "");
    std::fprintf(f, "     ]}%s\n", k + 1 < results.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  return std::fclose(f) == 0;
}

}  // namespace

int run_tune_gemm(int argc, char** argv) {
  const gemm_tune_options o = parse(argc, argv);
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  const environment env = record_environment(true);
  const cuprim::tuning::cache_key key = cuprim::tuning::current_key();
  if (key.cc != 90) {
    std::fprintf(stderr, "cuprim-lab tune gemm: the tensor-core GEMM's candidates run on sm_90 (this GPU: cc %d)\n",
                 key.cc);
    return 1;
  }
  const math_peak peak = bf16_tensor_core_peak();
  std::printf("cuprim-lab tune gemm on %s (%d SMs, cc %d, driver %d, runtime %d), commit %s (%s); tensor-core peak "
              "%.0f TFLOP/s (%s)\n",
              key.gpu.c_str(), key.sms, key.cc, key.driver, key.runtime, env.commit.c_str(), env.changes.c_str(),
              peak.tflops, peak.how.c_str());
  const std::string out = o.out.empty() ? cuprim::tuning::cache_path() : o.out;
  if (o.write && out.empty()) {
    std::fprintf(stderr, "cuprim-lab tune gemm: the tuning cache is turned off (CUPRIM_TUNING_CACHE is empty); use "
                         "--out or --no-write\n");
    return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const double budget_end = o.budget_min * 60;
  std::vector<shape_result> results;
  cuprim::tuning::cache_section section;
  section.key = key;

  const auto for_type = [&](const std::string& t, auto&& f) {
    if (t == "bf16") f.template operator()<__nv_bfloat16>();
    else f.template operator()<__half>();
  };
  // The grid.
  int grid_shapes = 0, entries = 0;
  for (const auto& t : o.types)
    for (const auto& layout : o.layouts)
      for (std::size_t im = 0; im < o.dims.size(); ++im)
        for (std::size_t in = 0; in < o.dims.size(); ++in)
          for (std::size_t ik = 0; ik < o.dims.size(); ++ik) {
            const shape s{o.dims[im], o.dims[in], o.dims[ik]};
            for_type(t, [&]<class In>() {
              shape_result r = tune_shape<In>(s, layout, false, o, env.sm_count, env.l2_bytes,
                                              std::max(0.0, budget_end - elapsed()), stream);
              print_shape(r);
              ++grid_shapes;
              const bool same_plan = r.best >= 0 && r.plans[std::size_t(r.best)].row == r.def_plan.row &&
                                     r.plans[std::size_t(r.best)].splits == r.def_plan.splits;
              const bool wins = r.best >= 0 && (o.min_gain == 0 || (!same_plan && r.per[std::size_t(r.best)].ms *
                                                                                     (1 + o.min_gain / 100) <=
                                                                                 r.def_cmp_ms()));
              if (r.best >= 0) {
                const plan_point& b = r.plans[std::size_t(r.best)];
                constexpr auto cands = bl::gemm_sm90_candidates(90);
                cuprim::tuning::cache_entry e;
                e.op = "gemm";
                e.types = cuprim::detail::gemm_tensor_types_name<In, In>();
                e.layout = layout;
                e.alignment = 16;
                e.size_min = 0;
                e.size_max = std::numeric_limits<std::int64_t>::max();
                e.shape = {bucket(o.dims, im), bucket(o.dims, in), bucket(o.dims, ik)};
                // Where the winner did not beat the default, a "default" entry: the chooser decides in the bucket,
                // and the entry replaces whatever an earlier run (of an earlier default) left there.
                e.policy_name = wins ? bl::gemm_sm90_policy::name : "default";
                if (wins) e.policy = cuprim::tuning::flatten(cands[std::size_t(b.index)].policy);
                e.time_ms = r.per[std::size_t(r.best)].ms;
                e.default_ms = r.def_cmp_ms();
                if (r.runner_up >= 0) {
                  e.runner_up_ms = r.per[std::size_t(r.runner_up)].ms;
                  e.runner_up_name = bl::gemm_sm90_policy::name;
                  const int ru = r.plans[std::size_t(r.runner_up)].index;
                  e.runner_up = cuprim::tuning::flatten(cands[std::size_t(ru)].policy);
                }
                section.entries.push_back(std::move(e));
                entries += wins;
              }
              results.push_back(std::move(r));
            });
          }
  const double tuning_s = elapsed();
  std::printf("\ntuned %d shapes in %.1f s (budget %.1f min); %d entries name a candidate, %d leave the default\n",
              grid_shapes, tuning_s, o.budget_min, entries, int(section.entries.size()) - entries);
  if (!o.json.empty() && !write_report(o.json, env, key, o, results, tuning_s)) return 1;
  if (o.write) {
    cuprim::tuning::merge_into_file(out, section);
    std::printf("wrote %zu entries to %s\n", section.entries.size(), out.c_str());
    setenv("CUPRIM_TUNING_CACHE", out.c_str(), 1);
    cuprim::tuning::reset();
  }
  // Held-out shapes: every plan, and the cache's choice as the library looks it up.
  struct ratio_sum {
    int count = 0, cached_ok = 0, default_ok = 0;
    double cached_log = 0, default_log = 0, cached_min = 1e9, default_min = 1e9;
  } sum;
  for (const auto& t : o.types)
    for (const auto& layout : o.layouts)
      for (const shape& s : o.held_out)
        for_type(t, [&]<class In>() {
          shape_result r = tune_shape<In>(s, layout, true, o, env.sm_count, env.l2_bytes, 0, stream);
          std::optional<cuprim::tuning::cache_entry> e;
          const std::int64_t dims[3] = {s.m, s.n, s.k};
          const char* types = cuprim::detail::gemm_tensor_types_name<In, In>();
          if (o.write) {
            e = cuprim::tuning::lookup_shape("gemm", types, layout, 16, dims);
          } else {
            const cuprim::tuning::cache_file mem{{section}};  // the library's rule, on the entries not written
            if (const auto* x =
                    cuprim::tuning::detail::find_entry_shape(mem, section.key, "gemm", types, layout, 16, dims))
              e = *x;
          }
          const int cand = e ? candidate_of(*e) : -1;
          double cached_ms = r.def_cmp_ms();
          if (cand >= 0) {
            constexpr auto cands = bl::gemm_sm90_candidates(90);
            const bl::gemm_sm90_plan p =
                cuprim::detail::gemm_sm90_candidate_plan(cands[std::size_t(cand)], s.m, s.n, s.k, env.sm_count);
            for (std::size_t i = 0; i < r.plans.size(); ++i)
              if (r.plans[i].row == p.row && r.plans[i].splits == p.splits) r.cached = int(i);
            if (r.cached >= 0) cached_ms = r.per[std::size_t(r.cached)].ms;
          }
          print_shape(r);
          if (r.best >= 0) {
            const double best = r.per[std::size_t(r.best)].ms;
            const double rc = best / cached_ms, rd = best / r.def_cmp_ms();
            std::printf("  held out %s %s %s: cached choice %s %.3fx the best; compiled default %.3fx the best "
                        "(its own call %.3fx)\n",
                        r.type.c_str(), layout.c_str(), shape_label(s).c_str(),
                        r.cached >= 0 ? r.plans[std::size_t(r.cached)].label.c_str() : "(none: the default)", rc, rd,
                        best / r.def.ms);
            ++sum.count;
            sum.cached_ok += rc >= 0.97;
            sum.default_ok += rd >= 0.90;
            sum.cached_log += std::log(rc);
            sum.default_log += std::log(rd);
            sum.cached_min = std::min(sum.cached_min, rc);
            sum.default_min = std::min(sum.default_min, rd);
          }
          results.push_back(std::move(r));
        });
  if (sum.count > 0)
    std::printf("\nheld out: %d shapes; cached choice geomean %.3fx, min %.3fx, %d of %d >= 0.97x the exhaustive best; "
                "compiled default geomean %.3fx, min %.3fx, %d of %d >= 0.90x\n",
                sum.count, std::exp(sum.cached_log / sum.count), sum.cached_min, sum.cached_ok, sum.count,
                std::exp(sum.default_log / sum.count), sum.default_min, sum.default_ok, sum.count);
  std::printf("\ntuning took %.1f s (grid %.1f s)\n", elapsed(), tuning_s);
  if (!o.json.empty() && !write_report(o.json, env, key, o, results, tuning_s)) return 1;
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return 0;
}

}  // namespace lab
