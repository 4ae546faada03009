// lab/histogram.cu: the histogram family: cuprim::histogram_even against cub::DeviceHistogram::HistogramEven in
// the same run (the issue's four targets), the ladder rung by rung, an entropy sweep, the policy sweep
// (`cuprim-lab sweep histogram`) and the host reference.
//
// Inputs: lab::random_input (uint8: every byte value; uint32: every value); "equal" inputs hold one byte value
// everywhere; the entropy sweep keeps the top k bits of each random byte (2^k equally likely values, k bits of
// entropy; k = 0: every byte equal). GB/s counts the samples read once and the histogram written once. Every case
// records the policy it ran and the path that policy chose for its bins (cuprim::histogram_even_plan): the lab
// prints them after the table and writes them to the JSON row.
#include "lab.hpp"

#include "ladder/histogram.cuh"

#include <cuprim/device/histogram.cuh>
#include <cuprim/host/histogram.hpp>

#include <cub/device/device_histogram.cuh>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab {
namespace {

using C = std::uint32_t;
constexpr std::int64_t pow2(int k) { return std::int64_t(1) << k; }

/// How the samples are derived from the random input.
struct shape {
  int entropy_bits = 8;  ///< uint8 only: keep the top k bits (8 = the random bytes themselves); -1 = every byte 0x4D
};

__global__ void derive_bytes_kernel(const std::uint8_t* in, std::uint8_t* out, std::size_t n, int k) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = k < 0 ? std::uint8_t(0x4D) : k == 0 ? std::uint8_t(0) : std::uint8_t(in[i] >> (8 - k) << (8 - k));
}

std::uint8_t derive_byte(std::uint8_t x, int k) {
  return k < 0 ? std::uint8_t(0x4D) : k == 0 ? std::uint8_t(0) : std::uint8_t(x >> (8 - k) << (8 - k));
}

/// Derived uint8 inputs (every slice of the random input, same layout), memoised per entropy.
struct derived {
  device_memory d;
  std::vector<std::uint8_t> host0;
};

std::shared_ptr<const derived> derived_for(const input_set& in, int k) {
  return in.memo<std::shared_ptr<const derived>>("histogram/derived/" + std::to_string(k), [&] {
    auto r = std::make_shared<derived>();
    r->d = device_memory(in.stride_bytes * std::size_t(in.slices));
    for (int s = 0; s < in.slices; ++s)
      derive_bytes_kernel<<<4096, 256>>>(in.slice<std::uint8_t>(s),
                                          r->d.as<std::uint8_t>() + in.stride_bytes * std::size_t(s),
                                          std::size_t(in.n), k);
    check(cudaGetLastError(), "launch of derive_bytes_kernel");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (derived input)");
    auto x = in.host<std::uint8_t>();
    r->host0.resize(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) r->host0[i] = derive_byte(x[i], k);
    return std::shared_ptr<const derived>(std::move(r));
  });
}

template <class S>
struct state {
  std::shared_ptr<const input_set> in;
  std::shared_ptr<const derived> der;
  device_memory hist, base_hist, base_temp;
  std::size_t base_temp_bytes = 0;
  int bins = 0;
  std::int64_t lower = 0, upper = 0;
  const S* input(int rep) const {
    if (der) return reinterpret_cast<const S*>(der->d.as<char>() + in->stride_bytes * std::size_t(rep % in->slices));
    return in->slice<S>(rep);
  }
  const S* host0() const {
    if (der) return reinterpret_cast<const S*>(der->host0.data());
    return in->host<S>().data();
  }
};

template <class S>
void cub_call(state<S>& st, void* temp, std::size_t& bytes, int rep, cudaStream_t s) {
  if (st.in->n > std::numeric_limits<int>::max()) throw std::length_error("cuprim-lab: CUB histogram with n >= 2^31");
  using LevelT = std::conditional_t<(sizeof(S) >= 4), long long, int>;
  check(cub::DeviceHistogram::HistogramEven(temp, bytes, st.input(rep), st.base_hist.template as<C>(), st.bins + 1,
                                            LevelT(st.lower), LevelT(st.upper), int(st.in->n), s),
        "cub::DeviceHistogram::HistogramEven");
}

template <class S>
std::string compare(const std::vector<C>& got, const std::vector<C>& want) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i] && bad++ == 0) first = i;
  if (!bad) return "";
  std::ostringstream m;
  m << bad << " of " << want.size() << " bins differ; first " << first << ": " << got[first] << " vs " << want[first];
  return m.str();
}

using rung_t = cuprim::ladder::histogram_rung;

/// The policy a case runs and the path it chose for the case's bins and levels (histogram_even_plan).
template <class S, auto Policy>
policy_record record_path(int bins, std::int64_t lower, std::int64_t upper) {
  const cuprim::histogram_policy p =
      cuprim::detail::pick_policy<Policy>(cuprim::histogram_policy_for<S>(cuprim::current_tuned_arch()));
  const std::string path = cuprim::histogram_even_plan<S, Policy>(bins, lower, upper).describe();
  policy_record r = record_policy(p);
  r.text += " -> " + path;
  r.json.insert(r.json.size() - 1, ", \"path\": \"" + path + "\"");
  return r;
}

/// How a case computes its histogram (the call it times) and the policy it records.
template <class S>
struct how {
  std::function<void(const S*, std::int64_t, C*, int, std::int64_t, std::int64_t, cudaStream_t)> run;
  std::function<policy_record(int, std::int64_t, std::int64_t)> policy;
};

/// cuprim::histogram_even under Policy (cuprim::tuned: the production call).
template <class S, auto Policy = cuprim::tuned>
how<S> production() {
  return {[](const S* in, std::int64_t n, C* h, int bins, std::int64_t lower, std::int64_t upper, cudaStream_t s) {
            cuprim::histogram_even<Policy>(in, n, h, bins, lower, upper, cuprim::workspace{}, s);
          },
          record_path<S, Policy>};
}

/// A rung of the ladder; the rungs that run the production kernel record its policy and path.
template <class S>
how<S> ladder(rung_t r) {
  if (r == rung_t::production) return production<S>();
  how<S> h;
  h.run = [r](const S* in, std::int64_t n, C* out, int bins, std::int64_t lower, std::int64_t upper, cudaStream_t s) {
    cuprim::ladder::histogram_even(r, in, n, out, bins, lower, upper, s);
  };
  if (r == rung_t::vector_loads) {
    h.policy = record_path<S, cuprim::ladder::vector_loads_policy>;
  } else if (r == rung_t::persistent) {
    h.policy = record_path<S, cuprim::ladder::persistent_policy>;
  } else {
    h.policy = [r](int, std::int64_t, std::int64_t) {
      const std::string name(cuprim::ladder::to_string(r));
      return policy_record{"ladder rung " + name, "{\"ladder_rung\": \"" + name + "\"}"};
    };
  }
  return h;
}

/// One case: histogram_even of n samples of S into `bins` bins over [lower, upper) as `h` computes it.
template <class S>
case_def make_case(std::string name, std::string op, std::string variant, how<S> h, std::int64_t n, int bins,
                   std::int64_t lower, std::int64_t upper, int entropy, bool quick, bool baseline) {
  case_def c;
  c.name = std::move(name);
  c.family = "histogram";
  c.op = std::move(op);
  c.variant = std::move(variant);
  c.dtype = name_of<S>();
  c.n = n;
  c.bytes = double(n) * sizeof(S) + double(bins) * sizeof(C);
  c.quick = quick;
  if (baseline) c.baseline = "cub::DeviceHistogram::HistogramEven";
  c.policy = [policy = h.policy, bins, lower, upper] { return policy(bins, lower, upper); };
  c.setup = [=]() -> bench {
    auto st = std::make_shared<state<S>>();
    st->in = random_input(dtype_v<S>, n);
    if constexpr (sizeof(S) == 1)
      if (entropy != 8) st->der = derived_for(*st->in, entropy);
    st->bins = bins;
    st->lower = lower;
    st->upper = upper;
    st->hist = device_memory(std::size_t(bins) * sizeof(C));
    const std::string key = "histogram/ref/" + std::to_string(entropy) + "/" + std::to_string(bins) + "/" +
                            std::to_string(lower) + "/" + std::to_string(upper);
    auto ref = st->in->template memo<std::shared_ptr<const std::vector<C>>>(key, [&] {
      auto v = std::make_shared<std::vector<C>>(std::size_t(bins));
      cuprim::host::histogram_even(st->host0(), n, v->data(), bins, lower, upper);
      return std::shared_ptr<const std::vector<C>>(std::move(v));
    });
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, run = h.run](cudaStream_t s, int rep) {
      run(st->input(rep), st->in->n, st->hist.template as<C>(), st->bins, st->lower, st->upper, s);
    };
    if (baseline) {
      st->base_hist = device_memory(std::size_t(bins) * sizeof(C));
      cub_call(*st, nullptr, st->base_temp_bytes, 0, 0);
      st->base_temp = device_memory(std::max<std::size_t>(st->base_temp_bytes, 1));
      std::printf("  [histogram] CUB temp storage for %d bins: %zu bytes; cuprim workspace: %zu bytes\n", bins,
                  st->base_temp_bytes, cuprim::histogram_even_workspace_bytes<S, C, std::int64_t>(n, bins));
      b.baseline = [st](cudaStream_t s, int rep) {
        std::size_t bytes = st->base_temp_bytes;
        cub_call(*st, st->base_temp.get(), bytes, rep, s);
      };
    }
    b.verify = [st, ref, run = b.run, base = b.baseline]() {
      verify_result v;
      st->hist.poison();
      run(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
      const std::string e = compare<S>(to_host(st->hist.template as<C>(), std::size_t(st->bins)), *ref);
      std::string eb;
      if (base) {
        st->base_hist.poison();
        base(0, 0);
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify baseline)");
        eb = compare<S>(to_host(st->base_hist.template as<C>(), std::size_t(st->bins)), *ref);
      }
      v.ok = e.empty();
      v.baseline_ok = eb.empty();
      v.detail = e.empty() ? (eb.empty() ? "" : "baseline: " + eb) : (eb.empty() ? e : e + "; baseline: " + eb);
      return v;
    };
    return b;
  };
  return c;
}

// The policy sweep's named policies, each run beside the tuned default (docs/tuning/histogram.md). For 256 bins
// of uint8 (the byte path) and 1024 bins of uint32 they take:
constexpr cuprim::histogram_policy nonpersistent{.persistent = false};  // one block per 32 Ki samples
constexpr cuprim::histogram_policy byte_vectors_2{.byte_vectors = 2};   // the byte path loading two vectors per step
constexpr cuprim::histogram_policy lanes_1024{.lanes_max_bins = 1024};  // 1024 bins: per-lane x1 (128 KiB)
constexpr cuprim::histogram_policy shared_x1{.lanes_max_bins = 0, .shared_max_copies = 1};    // shared x1
constexpr cuprim::histogram_policy shared_x4{.lanes_max_bins = 0, .shared_max_copies = 4};    // shared x4
constexpr cuprim::histogram_policy shared_x16{.lanes_max_bins = 0, .shared_bytes = 64 * 1024};  // shared x16

/// A row of the policy sweep: histogram_even<P> of n samples of S into `bins` bins over [0, upper).
template <class S, cuprim::histogram_policy P>
void add_sweep_row(const std::string& label, const std::string& input, const std::string& op, std::int64_t n, int bins,
                   std::int64_t upper, int entropy) {
  const bool is_default = P == cuprim::histogram_policy_for<S>(cuprim::tuned_archs[0]);
  case_def c = make_case<S>("histogram/sweep/" + label + "/" + input, op,
                            is_default ? label + " (default)" : label, production<S, P>(), n, bins, 0, upper, entropy,
                            false, false);
  c.sweep = true;
  add_case(std::move(c));
}

/// The sweep's rows of 256 bins over 2^30 uint8, uniform (entropy 8) or all equal (-1).
template <cuprim::histogram_policy P>
void add_sweep_byte_rows(const std::string& label, int entropy) {
  const std::string input = entropy == 8 ? "uniform" : "equal";
  add_sweep_row<std::uint8_t, P>(label, input + "/even256/uint8/2^30", "sweep/256/" + input, pow2(30), 256, 256,
                                 entropy);
}

/// The sweep's row of 1024 bins over 2^28 uint32 (every value).
template <cuprim::histogram_policy P>
void add_sweep_1024_row(const std::string& label) {
  add_sweep_row<std::uint32_t, P>(label, "even1024/uint32/2^28", "sweep/1024", pow2(28), 1024, pow2(32), 8);
}

void add_host(std::int64_t n) {
  case_def c;
  c.name = "host/histogram/even/256/uint8/" + size_label(n);
  c.family = "histogram";
  c.op = "even/256";
  c.variant = "host-sequential";
  c.dtype = "uint8";
  c.n = n;
  c.bytes = double(n) + 256 * 4;
  c.quick = true;
  c.host = true;
  c.setup = [n]() -> bench {
    struct host_state {
      std::vector<std::uint8_t> x;
      std::vector<C> h;
    };
    auto st = std::make_shared<host_state>();
    st->x.resize(std::size_t(n));
    st->h.resize(256);
    fill_random_host(dtype::uint8, st->x.data(), st->x.size(), 1);
    bench b;
    b.host_run = [st] {
      cuprim::host::histogram_even(st->x.data(), std::int64_t(st->x.size()), st->h.data(), 256, 0, 256);
    };
    b.verify = [st, run = b.host_run] {
      run();
      std::vector<C> want(256);
      for (auto v : st->x) ++want[v];
      verify_result r;
      r.ok = want == st->h;
      if (!r.ok) r.detail = "host histogram differs from direct counting";
      return r;
    };
    return b;
  };
  add_case(std::move(c));
}

}  // namespace

void register_histogram() {
  const std::int64_t u32_top = std::int64_t(1) << 32;
  // The issue's targets (quick): 256 bins over 1 GiB of uint8 (random; every byte equal), 1024 bins over the full
  // uint32 range and 2^20 bins, 2^28 random uint32.
  add_case(make_case<std::uint8_t>("histogram/even256/uniform/uint8/2^30", "even/256", "production, uniform",
                                   production<std::uint8_t>(), pow2(30), 256, 0, 256, 8, true, true));
  add_case(make_case<std::uint8_t>("histogram/even256/equal/uint8/2^30", "even/256", "production, all equal",
                                   production<std::uint8_t>(), pow2(30), 256, 0, 256, -1, true, true));
  add_case(make_case<std::uint32_t>("histogram/even1024/uniform/uint32/2^28", "even/1024", "production",
                                    production<std::uint32_t>(), pow2(28), 1024, 0, u32_top, 8, true, true));
  add_case(make_case<std::uint32_t>("histogram/even2^20/uniform/uint32/2^28", "even/2^20", "production",
                                    production<std::uint32_t>(), pow2(28), 1 << 20, 0, u32_top, 8, true, true));
  // Medium histograms (shared sub-histograms) and the 2^16 global path.
  for (int nb : {4096, 1 << 16})
    add_case(make_case<std::uint32_t>("histogram/even" + size_label(nb) + "/uniform/uint32/2^28",
                                      "even/" + size_label(nb), "production", production<std::uint32_t>(), pow2(28), nb,
                                      0, u32_top, 8, false, true));

  // The ladder: 256 bins over 2^28 uint8 (uniform), and 1024 bins over 2^26 uint32.
  for (rung_t r : cuprim::ladder::histogram_rungs) {
    const std::string rn(cuprim::ladder::to_string(r));
    const bool last = r == rung_t::production;
    add_case(make_case<std::uint8_t>("histogram/ladder/" + rn + "/even256/uint8/2^28", "ladder/256", rn,
                                     ladder<std::uint8_t>(r), pow2(28), 256, 0, 256, 8, false, last));
    add_case(make_case<std::uint32_t>("histogram/ladder/" + rn + "/even1024/uint32/2^26", "ladder/1024", rn,
                                      ladder<std::uint32_t>(r), pow2(26), 1024, 0, u32_top, 8, false, last));
  }

  // Entropy sweep: 256 bins over 2^28 uint8 whose bytes keep their top k random bits (k = 0: all equal).
  for (int bits : {0, 1, 2, 3, 4, 6, 8}) {
    for (rung_t r : {rung_t::interleaved_global, rung_t::shared_block, rung_t::production}) {
      const std::string rn(cuprim::ladder::to_string(r));
      add_case(make_case<std::uint8_t>("histogram/entropy/" + std::to_string(bits) + "bits/" + rn + "/uint8/2^28",
                                       "entropy/" + std::to_string(bits) + "bits", rn, ladder<std::uint8_t>(r),
                                       pow2(28), 256, 0, 256, bits, false, r == rung_t::production));
    }
  }

  // The policy sweep (`cuprim-lab sweep histogram`): 256 bins over 2^30 uint8 (uniform and all equal), 1024 bins
  // over 2^28 uint32.
  constexpr cuprim::histogram_policy tuned8 = cuprim::histogram_policy_for<std::uint8_t>(cuprim::tuned_archs[0]);
  constexpr cuprim::histogram_policy tuned32 = cuprim::histogram_policy_for<std::uint32_t>(cuprim::tuned_archs[0]);
  for (int ent : {8, -1}) {
    add_sweep_byte_rows<tuned8>("lanes-x2", ent);
    add_sweep_byte_rows<nonpersistent>("lanes-x2-nonpersistent", ent);
    add_sweep_byte_rows<byte_vectors_2>("lanes-x2-vectors2", ent);
    add_sweep_byte_rows<shared_x1>("shared-x1", ent);
    add_sweep_byte_rows<shared_x4>("shared-x4", ent);
    add_sweep_byte_rows<shared_x16>("shared-x16", ent);
  }
  add_sweep_1024_row<lanes_1024>("lanes-x1");
  add_sweep_1024_row<shared_x1>("shared-x1");
  add_sweep_1024_row<shared_x4>("shared-x4");
  add_sweep_1024_row<tuned32>("shared-x8");
  add_sweep_1024_row<shared_x16>("shared-x16");

  add_host(pow2(24));

  add_note("histogram/", "histogram: uint32 counters; cuprim and CUB with workspace allocated once before timing; CUB "
                         "gets int num_samples and integer levels; GB/s counts the samples read once and the "
                         "histogram written once; results checked bin for bin against cuprim::host");
  add_note("histogram/sweep/", "histogram sweep rows: the path each policy takes for the row's bins (per-lane or "
                               "shared sub-histograms xN copies); -nonpersistent: one block per 32 Ki samples; "
                               "-vectors2: two 16-byte vectors per step on the byte path (the default loads four)");
  add_note("histogram/entropy/", "histogram/entropy: the top k bits of each random byte kept (2^k equally likely "
                                 "values = k bits of entropy; 0 bits = one value repeated)");
}

}  // namespace lab
