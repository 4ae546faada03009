// lab/reduce_common.cuh: the pieces of the reduction family shared by reduce.cu and reduce_sweep.cu
// (operations, their CUB baselines, verification against cuprim::host, and the case builder).
#pragma once

#include "lab.hpp"

#include <cuprim/device/reduce.cuh>
#include <cuprim/host/reduce.hpp>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <stdexcept>
#include <type_traits>
#include <typeinfo>
#include <utility>

// The host references accumulate in long double through cuprim::host, whose operators are __host__ __device__:
// nvcc notes that long double would be double in device code, which never runs here.
#pragma nv_diag_suppress 20208

namespace lab::reduce_family {

enum class rop { sum, min, max, argmin };

/// The accumulator of a sum over T: int32 for int8 (the usual widening), float for 16-bit floats (cuprim's
/// rule), T otherwise.
template <class T>
using sum_acc_t = std::conditional_t<std::is_same_v<T, std::int8_t>, std::int32_t, cuprim::accumulator_t<T>>;

template <class T, rop O> struct op_def;

template <class T>
struct op_def<T, rop::sum> {
  using acc = sum_acc_t<T>;
  using out = acc;
  static constexpr const char* name = "sum";
  static constexpr const char* cub_name = std::is_same_v<T, __half> ? "cub::DeviceReduce::TransformReduce"
                                                                    : "cub::DeviceReduce::Sum";
  static cuprim::plus op() { return {}; }
  static acc init() { return acc(0); }
};
template <class T>
struct op_def<T, rop::min> {
  using acc = T;
  using out = T;
  static constexpr const char* name = "min";
  static constexpr const char* cub_name = "cub::DeviceReduce::Min";
  static cuprim::minimum op() { return {}; }
  static acc init() { return cuprim::numeric_traits<T>::highest(); }
};
template <class T>
struct op_def<T, rop::max> {
  using acc = T;
  using out = T;
  static constexpr const char* name = "max";
  static constexpr const char* cub_name = "cub::DeviceReduce::Max";
  static cuprim::maximum op() { return {}; }
  static acc init() { return cuprim::numeric_traits<T>::lowest(); }
};
template <class T>
struct op_def<T, rop::argmin> {
  using acc = cuprim::arg_result<T>;
  using out = cuprim::arg_result<T>;
  static constexpr const char* name = "argmin";
  static constexpr const char* cub_name = "cub::DeviceReduce::ArgMin";
  static acc init() { return {cuprim::numeric_traits<T>::highest(), -1}; }
};

/// The production entry point under `Policy` (cuprim::tuned: the table's row) with a caller's workspace.
/// argmin has no explicit-workspace overload in the public API; it is cuprim::transform_reduce with the
/// same transform and operator cuprim::argmin uses, so the kernel is the one cuprim::argmin launches.
template <auto Policy, class T, rop O>
void cuprim_reduce(const T* in, typename op_def<T, O>::out* out, std::int64_t n, cuprim::workspace ws,
                   cudaStream_t s) {
  using D = op_def<T, O>;
  if constexpr (O == rop::argmin)
    cuprim::transform_reduce<Policy>(in, out, n, cuprim::detail::arg_transform<T, T>{},
                                     cuprim::detail::arg_op<false>{}, D::init(), ws, s);
  else
    cuprim::reduce<Policy>(in, out, n, D::op(), D::init(), ws, s);
}

/// __half → float for CUB's TransformReduce (sum of half in float, as cuprim does).
struct half_to_float {
  __host__ __device__ float operator()(const __half& x) const { return __half2float(x); }
};

/// The CUB baseline's outputs: one value, plus an index for argmin.
template <class T, rop O>
struct cub_outputs {
  device_memory mem{256};
  auto* value() const {
    if constexpr (O == rop::argmin) return mem.as<T>();
    else return mem.as<typename op_def<T, O>::out>();
  }
  std::int64_t* index() const { return reinterpret_cast<std::int64_t*>(mem.as<char>() + 128); }
};

/// One CUB call; with temp == nullptr it only sets temp_bytes (CUB's two-phase protocol).
/// num_items is passed as int, as CUB's examples do (32-bit offsets); ArgMin takes int64 in this CCCL.
template <class T, rop O>
void cub_reduce(void* temp, std::size_t& temp_bytes, const T* in, const cub_outputs<T, O>& out, std::int64_t n64,
                cudaStream_t s) {
  if (n64 > std::numeric_limits<int>::max()) throw std::length_error("cuprim-lab: CUB baseline called with n >= 2^31");
  const int n = static_cast<int>(n64);
  cudaError_t e;
  if constexpr (O == rop::sum) {
    if constexpr (std::is_same_v<T, __half>)
      e = cub::DeviceReduce::TransformReduce(temp, temp_bytes, in, out.value(), n, ::cuda::std::plus<float>{},
                                             half_to_float{}, 0.0f, s);
    else
      e = cub::DeviceReduce::Sum(temp, temp_bytes, in, out.value(), n, s);
  } else if constexpr (O == rop::min) {
    e = cub::DeviceReduce::Min(temp, temp_bytes, in, out.value(), n, s);
  } else if constexpr (O == rop::max) {
    e = cub::DeviceReduce::Max(temp, temp_bytes, in, out.value(), n, s);
  } else {
    e = cub::DeviceReduce::ArgMin(temp, temp_bytes, in, out.value(), out.index(), n64, s);
  }
  check(e, "cub::DeviceReduce");
}

// ---------------------------------------------------------------------------------------------------------
// References and checks (host references are computed once per input, on slice 0)

template <class T>
struct abs_as_long_double {
  long double operator()(const T& x) const {
    return std::fabs(static_cast<long double>(cuprim::detail::convert<double>(x)));
  }
};

template <class V>
std::string to_text(const V& v) {
  std::ostringstream o;
  o.precision(17);
  if constexpr (std::is_same_v<V, std::int8_t> || std::is_same_v<V, std::uint8_t>) o << int(v);
  else if constexpr (cuprim::is_half_like_v<V>) o << cuprim::detail::convert<float>(v);
  else o << v;
  return o.str();
}

/// Checks a result of op O over input `in` (slice 0) against the host reference. Returns "" when correct, else
/// what differs.
template <class T, rop O>
std::string check_result(const input_set& in, const typename op_def<T, O>::out& got) {
  using D = op_def<T, O>;
  using acc = typename D::acc;
  const auto host = in.host<T>();
  const std::int64_t n = in.n;
  std::ostringstream msg;
  if constexpr (O == rop::sum && std::is_floating_point_v<acc>) {
    const long double ref = in.memo<long double>("sum/long double", [&] {
      return cuprim::host::reduce(host.data(), n, cuprim::plus{}, 0.0L);
    });
    const long double abs = in.memo<long double>("abs_sum/long double", [&] {
      return cuprim::host::transform_reduce(host.data(), n, abs_as_long_double<T>{}, cuprim::plus{}, 0.0L);
    });
    const double tol = sum_tolerance(std::numeric_limits<acc>::epsilon(), abs, ref, n);
    const double err = std::fabs(static_cast<double>(static_cast<long double>(got) - ref));
    if (!(err <= tol)) {
      msg.precision(17);
      msg << "sum " << static_cast<double>(got) << " vs reference " << static_cast<double>(ref) << " (|error| " << err
          << " > tolerance " << tol << ")";
    }
  } else if constexpr (O == rop::argmin) {
    const auto ref = in.memo<cuprim::arg_result<T>>("argmin", [&] { return cuprim::host::argmin(host.data(), n); });
    if (got.index != ref.index || to_text(got.value) != to_text(ref.value))
      msg << "argmin (" << to_text(got.value) << ", " << got.index << ") vs reference (" << to_text(ref.value) << ", "
          << ref.index << ")";
  } else {
    // Integer sums (exact, wrapping as the accumulator type does), min and max: bitwise equality.
    const std::string key = std::string(D::name) + "/" + typeid(acc).name();
    const acc ref = in.memo<acc>(key, [&] { return cuprim::host::reduce(host.data(), n, D::op(), D::init()); });
    if (to_text(got) != to_text(ref)) msg << D::name << " " << to_text(got) << " vs reference " << to_text(ref);
  }
  return msg.str();
}

// ---------------------------------------------------------------------------------------------------------
// The case builder

/// A device case over a random input of n elements of T: `call(in, out, n, ws, stream)` is the cuprim code
/// under test (ws: cuprim::reduce_workspace_bytes<acc>(n) bytes, allocated once); CUB is the baseline.
template <class T, rop O, class Call>
case_def device_case(std::string name, std::string op, std::string variant, std::int64_t n, bool quick, Call call) {
  using D = op_def<T, O>;
  using out_t = typename D::out;
  case_def c;
  c.name = std::move(name);
  c.family = "reduce";
  c.op = std::move(op);
  c.variant = std::move(variant);
  c.dtype = name_of<T>();
  c.n = n;
  c.bytes = double(n) * sizeof(T);
  c.quick = quick;
  c.baseline = D::cub_name;
  c.setup = [n, call]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory out{256}, ws;
      cub_outputs<T, O> base_out;
      device_memory base_temp;
      std::size_t base_temp_bytes = 0;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype_v<T>, n);
    st->ws = device_memory(cuprim::reduce_workspace_bytes<typename D::acc>(n));
    cub_reduce<T, O>(nullptr, st->base_temp_bytes, st->in->template slice<T>(0), st->base_out, n, 0);
    st->base_temp = device_memory(std::max<std::size_t>(st->base_temp_bytes, 1));

    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, call](cudaStream_t s, int rep) {
      call(st->in->template slice<T>(rep), st->out.template as<out_t>(), st->in->n,
           cuprim::workspace{st->ws.get(), st->ws.bytes()}, s);
    };
    b.baseline = [st](cudaStream_t s, int rep) {
      std::size_t bytes = st->base_temp_bytes;
      cub_reduce<T, O>(st->base_temp.get(), bytes, st->in->template slice<T>(rep), st->base_out, st->in->n, s);
    };
    b.verify = [st, run = b.run, base = b.baseline]() {
      verify_result v;
      // cuprim: poison the output and workspace, run once on slice 0, compare.
      st->out.poison();
      st->ws.poison();
      run(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
      const std::string e = check_result<T, O>(*st->in, to_host(st->out.template as<out_t>())[0]);
      v.ok = e.empty();
      // CUB on the same input: guards the lab's own wiring of the baseline.
      st->base_out.mem.poison();
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify baseline)");
      std::string eb;
      if constexpr (O == rop::argmin) {
        eb = check_result<T, O>(*st->in, cuprim::arg_result<T>{to_host(st->base_out.value())[0],
                                                                to_host(st->base_out.index())[0]});
      } else {
        eb = check_result<T, O>(*st->in, to_host(st->base_out.value())[0]);
      }
      v.baseline_ok = eb.empty();
      v.detail = e.empty() ? (eb.empty() ? "" : "baseline: " + eb) : (eb.empty() ? e : e + "; baseline: " + eb);
      return v;
    };
    return b;
  };
  return c;
}

/// The variant label of a policy: threads, vector bytes, unroll, blocks per SM.
inline std::string policy_label(const cuprim::reduce_policy& p) {
  return "t" + std::to_string(p.threads) + "-v" + std::to_string(p.vector_bytes) + "-u" + std::to_string(p.unroll) +
         "-b" + std::to_string(p.blocks_per_sm);
}

}  // namespace lab::reduce_family
