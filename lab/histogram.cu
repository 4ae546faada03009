// lab/histogram.cu: the histogram family: cuprim::histogram_even against cub::DeviceHistogram::HistogramEven in
// the same run (the issue's four targets), the ladder rung by rung, an entropy sweep, and the host reference.
//
// Inputs: lab::random_input (uint8: every byte value; uint32: every value); "equal" inputs hold one byte value
// everywhere; the entropy sweep keeps the top k bits of each random byte (2^k equally likely values, k bits of
// entropy; k = 0: every byte equal). GB/s counts the samples read once and the histogram written once. Each case
// prints the production path's privatization choice for its bin count (histogram_plan_for) when it is set up.
#include "lab.hpp"

#include <cuprim/device/histogram.cuh>
#include <cuprim/device/histogram_ladder.cuh>
#include <cuprim/host/histogram.hpp>

#include <cub/device/device_histogram.cuh>

#include <cstdint>
#include <cstdio>
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
                                          r->d.as<std::uint8_t>() + in.stride_bytes * std::size_t(s), std::size_t(in.n), k);
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

/// How a case computes: a ladder rung (production included), or an explicit configuration (the policy sweep).
struct how {
  cuprim::histogram_rung rung = cuprim::histogram_rung::production;
  bool config = false;
  cuprim::detail::hist_layout layout = cuprim::detail::hist_layout::lanes;
  int copies = 1;
  bool persistent = true;
  how(cuprim::histogram_rung r) : rung(r) {}
  how(cuprim::detail::hist_layout l, int c, bool p) : config(true), layout(l), copies(c), persistent(p) {}
};

/// One case: histogram_even of n samples of S into `bins` bins over [lower, upper) by `rung`.
template <class S>
case_def make_case(std::string name, std::string op, std::string variant, how rung, std::int64_t n,
                   int bins, std::int64_t lower, std::int64_t upper, int entropy, bool quick, bool baseline) {
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
  c.setup = [=]() -> bench {
    auto st = std::make_shared<state<S>>();
    st->in = random_input(dtype_v<S>, n);
    if constexpr (sizeof(S) == 1)
      if (entropy != 8) st->der = derived_for(*st->in, entropy);
    st->bins = bins;
    st->lower = lower;
    st->upper = upper;
    st->hist = device_memory(std::size_t(bins) * sizeof(C));
    const bool byte_samples = sizeof(S) == 1 && lower == std::int64_t(std::numeric_limits<S>::min()) &&
                              upper - lower == 256 && 256 % bins == 0;
    std::printf("  [histogram] %s: %d bins -> %s\n", name_of<S>(), bins,
                cuprim::histogram_plan_for(bins, byte_samples).describe().c_str());
    const std::string key = "histogram/ref/" + std::to_string(entropy) + "/" + std::to_string(bins) + "/" +
                            std::to_string(lower) + "/" + std::to_string(upper);
    auto ref = st->in->template memo<std::shared_ptr<const std::vector<C>>>(key, [&] {
      auto v = std::make_shared<std::vector<C>>(std::size_t(bins));
      cuprim::host::histogram_even(st->host0(), n, v->data(), bins, lower, upper);
      return std::shared_ptr<const std::vector<C>>(std::move(v));
    });
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, rung](cudaStream_t s, int rep) {
      if (rung.config)
        cuprim::histogram_even_config(rung.layout, rung.copies, rung.persistent, st->input(rep), st->in->n,
                                      st->hist.template as<C>(), st->bins, st->lower, st->upper, s);
      else if (rung.rung == cuprim::histogram_rung::production)
        cuprim::histogram_even(st->input(rep), st->in->n, st->hist.template as<C>(), st->bins, st->lower, st->upper,
                               cuprim::workspace{}, s);
      else
        cuprim::histogram_even_rung(rung.rung, st->input(rep), st->in->n, st->hist.template as<C>(), st->bins, st->lower,
                                    st->upper, s);
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
    b.host_run = [st] { cuprim::host::histogram_even(st->x.data(), std::int64_t(st->x.size()), st->h.data(), 256, 0, 256); };
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
  using R = cuprim::histogram_rung;
  const std::int64_t u32_top = std::int64_t(1) << 32;
  // The issue's targets (quick): 256 bins over 1 GiB of uint8 (random; every byte equal), 1024 bins over the full
  // uint32 range and 2^20 bins, 2^28 random uint32.
  add_case(make_case<std::uint8_t>("histogram/even256/uniform/uint8/2^30", "even/256", "production, uniform",
                                   R::production, pow2(30), 256, 0, 256, 8, true, true));
  add_case(make_case<std::uint8_t>("histogram/even256/equal/uint8/2^30", "even/256", "production, all equal",
                                   R::production, pow2(30), 256, 0, 256, -1, true, true));
  add_case(make_case<std::uint32_t>("histogram/even1024/uniform/uint32/2^28", "even/1024", "production", R::production,
                                    pow2(28), 1024, 0, u32_top, 8, true, true));
  add_case(make_case<std::uint32_t>("histogram/even2^20/uniform/uint32/2^28", "even/2^20", "production", R::production,
                                    pow2(28), 1 << 20, 0, u32_top, 8, true, true));
  // Medium histograms (shared sub-histograms) and the 2^16 global path.
  for (int nb : {4096, 1 << 16})
    add_case(make_case<std::uint32_t>("histogram/even" + size_label(nb) + "/uniform/uint32/2^28",
                                      "even/" + size_label(nb), "production", R::production, pow2(28), nb, 0, u32_top,
                                      8, false, true));

  // The ladder: 256 bins over 2^28 uint8 (uniform), and 1024 bins over 2^26 uint32.
  for (int k = 0; k <= int(R::production); ++k) {
    const R r = R(k);
    const std::string rn = cuprim::histogram_rung_name(r);
    add_case(make_case<std::uint8_t>("histogram/ladder/" + rn + "/even256/uint8/2^28", "ladder/256", rn, r, pow2(28),
                                     256, 0, 256, 8, false, k == int(R::production)));
    add_case(make_case<std::uint32_t>("histogram/ladder/" + rn + "/even1024/uint32/2^26", "ladder/1024", rn, r,
                                      pow2(26), 1024, 0, u32_top, 8, false, k == int(R::production)));
  }

  // Entropy sweep: 256 bins over 2^28 uint8 whose bytes keep their top k random bits (k = 0: all equal).
  for (int bits : {0, 1, 2, 3, 4, 6, 8}) {
    for (R r : {R::interleaved_global, R::shared_block, R::production}) {
      const std::string rn = cuprim::histogram_rung_name(r);
      add_case(make_case<std::uint8_t>("histogram/entropy/" + std::to_string(bits) + "bits/" + rn + "/uint8/2^28",
                                       "entropy/" + std::to_string(bits) + "bits", rn, r, pow2(28), 256, 0, 256, bits,
                                       false, r == R::production));
    }
  }

  // Policy sweep (explicit layouts): 256 bins over 2^30 uint8 (uniform and all equal), 1024 bins over 2^28 uint32.
  using HL = cuprim::detail::hist_layout;
  struct pol { HL layout; int copies; bool persistent; const char* label; };
  // uint8 with 256 bins takes the byte path, whose per-lane layout has exactly two copies (hist_launch refuses
  // others): the lanes rows here are that path, persistent or not.
  const pol p8[] = {{HL::lanes, 2, true, "lanes-x2"},        {HL::lanes, 2, false, "lanes-x2-nonpersistent"},
                    {HL::shared, 1, true, "shared-x1"},      {HL::shared, 4, true, "shared-x4"},
                    {HL::shared, 16, true, "shared-x16"}};
  for (const pol& q : p8)
    for (int ent : {8, -1})
      add_case(make_case<std::uint8_t>(std::string("histogram/policy/") + q.label + (ent == 8 ? "/uniform" : "/equal") +
                                           "/even256/uint8/2^30",
                                       ent == 8 ? "policy/256/uniform" : "policy/256/equal", q.label,
                                       how(q.layout, q.copies, q.persistent), pow2(30), 256, 0, 256, ent, false, false));
  const pol p32[] = {{HL::lanes, 1, true, "lanes-x1"}, {HL::shared, 1, true, "shared-x1"},
                     {HL::shared, 4, true, "shared-x4"}, {HL::shared, 8, true, "shared-x8"},
                     {HL::shared, 16, true, "shared-x16"}};
  for (const pol& q : p32)
    add_case(make_case<std::uint32_t>(std::string("histogram/policy/") + q.label + "/even1024/uint32/2^28",
                                      "policy/1024", q.label, how(q.layout, q.copies, q.persistent), pow2(28), 1024, 0,
                                      u32_top, 8, false, false));

  add_host(pow2(24));

  add_note("histogram/", "histogram: uint32 counters; cuprim and CUB with workspace allocated once before timing; CUB "
                         "gets int num_samples and integer levels; GB/s counts the samples read once and the "
                         "histogram written once; results checked bin for bin against cuprim::host");
  add_note("histogram/entropy/", "histogram/entropy: the top k bits of each random byte kept (2^k equally likely "
                                 "values = k bits of entropy; 0 bits = one value repeated)");
}

}  // namespace lab
