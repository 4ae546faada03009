// lab/reduce.cu: the reduction family: production cuprim::reduce against CUB, the optimisation ladder, and
// the host references (the no-GPU path). The policy sweep is in reduce_sweep.cu.
#include "reduce_common.cuh"

#include "ladder/reduce.cuh"

#include <algorithm>
#include <numeric>
#include <vector>

namespace lab {
namespace {

using namespace reduce_family;

constexpr std::int64_t pow2(int k) { return std::int64_t(1) << k; }

template <class T, rop O>
void add_production(std::int64_t n, bool quick) {
  using D = op_def<T, O>;
  using out_t = typename D::out;
  case_def c = device_case<T, O>("reduce/" + std::string(D::name) + "/" + name_of<T>() + "/" + size_label(n), D::name,
                                  "production", n, quick,
                                  [](const T* in, out_t* out, std::int64_t m, cuprim::workspace ws, cudaStream_t s) {
                                    cuprim_reduce<cuprim::tuned, T, O>(in, out, m, ws, s);
                                  });
  c.policy = [] { return record_policy(cuprim::reduce_policy_for<T>(cuprim::current_tuned_arch())); };
  add_case(std::move(c));
}

/// Every rung of the ladder in order (sum), each against CUB on the same input.
template <class T>
void add_ladder(std::int64_t n, bool quick) {
  using acc = typename op_def<T, rop::sum>::acc;
  for (cuprim::ladder::reduce_variant v : cuprim::ladder::reduce_variants) {
    const std::string rung(cuprim::ladder::to_string(v));
    case_def c = device_case<T, rop::sum>("reduce/ladder/" + rung + "/" + name_of<T>() + "/" + size_label(n), "sum",
                                          rung, n, quick,
                                          [v](const T* in, acc* out, std::int64_t m, cuprim::workspace, cudaStream_t s) {
                                            cuprim::ladder::reduce(v, in, out, m, cuprim::plus{}, acc(0), s);
                                          });
    if (cuprim::ladder::takes_reduce_policy(v))
      c.policy = [] { return record_policy(cuprim::reduce_policy_for<T>(cuprim::current_tuned_arch())); };
    else
      c.policy = [v] { return record_policy(cuprim::ladder::reduce_rung_policy(v)); };
    add_case(std::move(c));
  }
}

// ---------------------------------------------------------------------------------------------------------
// Host references (the no-GPU path): cuprim::host::reduce / argmin timed on the CPU, each checked against an
// independent computation (a wider accumulator, std::min_element).

template <class T, rop O>
std::string check_host(const std::vector<T>& x, const typename op_def<T, O>::out& got) {
  using D = op_def<T, O>;
  const std::int64_t n = static_cast<std::int64_t>(x.size());
  std::ostringstream msg;
  msg.precision(17);
  if constexpr (O == rop::sum && std::is_floating_point_v<typename D::acc>) {
    long double ref = 0, abs = 0;
    for (const T& v : x) {
      ref += static_cast<long double>(v);
      abs += std::fabs(static_cast<long double>(v));
    }
    // Index-order summation: the sequential error bound.
    const double tol = sum_tolerance(std::numeric_limits<typename D::acc>::epsilon(), abs, ref, n, true);
    const double err = std::fabs(static_cast<double>(static_cast<long double>(got) - ref));
    if (!(err <= tol)) msg << "sum " << double(got) << " vs " << double(ref) << " (|error| " << err << " > " << tol << ")";
  } else if constexpr (O == rop::sum) {
    // Integers: a 64-bit (wrapping, unsigned) sum reduced to the accumulator's width.
    std::uint64_t wide = 0;
    for (const T& v : x) wide += static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    const auto ref = static_cast<typename D::acc>(wide);
    if (got != ref) msg << "sum " << to_text(got) << " vs " << to_text(ref);
  } else if constexpr (O == rop::min || O == rop::max) {
    const T ref = O == rop::min ? *std::min_element(x.begin(), x.end()) : *std::max_element(x.begin(), x.end());
    if (to_text(got) != to_text(ref)) msg << D::name << " " << to_text(got) << " vs " << to_text(ref);
  } else {
    const auto it = std::min_element(x.begin(), x.end());  // the first smallest: the lowest index
    const std::int64_t idx = it - x.begin();
    if (got.index != idx || to_text(got.value) != to_text(*it))
      msg << "argmin (" << to_text(got.value) << ", " << got.index << ") vs (" << to_text(*it) << ", " << idx << ")";
  }
  return msg.str();
}

template <class T, rop O>
void add_host(std::int64_t n) {
  using D = op_def<T, O>;
  using out_t = typename D::out;
  case_def c;
  c.name = "host/reduce/" + std::string(D::name) + "/" + name_of<T>() + "/" + size_label(n);
  c.family = "reduce";
  c.op = D::name;
  c.variant = "host-sequential";
  c.dtype = name_of<T>();
  c.n = n;
  c.bytes = double(n) * sizeof(T);
  c.quick = true;
  c.host = true;
  c.setup = [n]() -> bench {
    struct state {
      std::vector<T> x;
      out_t result{};
    };
    auto st = std::make_shared<state>();
    st->x.resize(static_cast<std::size_t>(n));
    fill_random_host(dtype_v<T>, st->x.data(), st->x.size(), 1);
    bench b;
    b.host_run = [st] {
      if constexpr (O == rop::argmin) st->result = cuprim::host::argmin(st->x.data(), std::int64_t(st->x.size()));
      else st->result = cuprim::host::reduce(st->x.data(), std::int64_t(st->x.size()), D::op(), D::init());
    };
    b.verify = [st, run = b.host_run] {
      run();
      verify_result v;
      v.detail = check_host<T, O>(st->x, st->result);
      v.ok = v.detail.empty();
      return v;
    };
    return b;
  };
  add_case(std::move(c));
}


}  // namespace

void register_reduce() {
  // Production: the headline sizes for uint32 and float (quick), then other types and operators (full).
  for (int k : {10, 16, 20, 28}) add_production<std::uint32_t, rop::sum>(pow2(k), true);
  for (int k : {10, 16, 20, 28}) add_production<float, rop::sum>(pow2(k), true);
  add_production<std::int8_t, rop::sum>(pow2(28), false);
  add_production<std::int64_t, rop::sum>(pow2(28), false);
  add_production<double, rop::sum>(pow2(28), false);
  add_production<__half, rop::sum>(pow2(28), false);
  add_production<float, rop::min>(pow2(28), false);
  add_production<float, rop::max>(pow2(28), false);
  add_production<float, rop::argmin>(pow2(28), true);  // quick: the arg-reduction pass

  // The ladder: int32 at 2^24 (the seed's setting) in the quick suite, float at 2^28 in the full one.
  add_ladder<std::int32_t>(pow2(24), true);
  add_ladder<float>(pow2(28), false);

  // Host references, timed when there is no device.
  add_host<float, rop::sum>(pow2(24));
  add_host<double, rop::sum>(pow2(24));
  add_host<std::uint32_t, rop::sum>(pow2(24));
  add_host<std::int32_t, rop::sum>(pow2(24));
  add_host<float, rop::min>(pow2(24));
  add_host<float, rop::max>(pow2(24));
  add_host<float, rop::argmin>(pow2(24));

  add_note("reduce/", "reduce: int8 sums accumulate in int32, half sums in float (CUB: TransformReduce to float); "
                      "cuprim and CUB use workspace allocated once before timing");
  add_note("reduce/argmin/", "reduce/argmin: timed through cuprim::transform_reduce with argmin's transform and "
                             "operator (cuprim::argmin has no explicit-workspace overload): the same kernel");
  add_note("reduce/ladder/", "reduce/ladder: each rung is cuprim::ladder::reduce (lab/ladder/reduce.cuh), which takes its workspace from "
                             "cuprim's pool inside the timed call (there is no explicit-workspace overload)");
}

}  // namespace lab
