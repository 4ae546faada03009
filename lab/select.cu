// lab/select.cu: the stream-compaction family: cuprim::select_if / select_flagged / select_flagged_index /
// partition / unique / run_length_encode against cub::DeviceSelect::If / Flagged (select_flagged_index: Flagged over
// a thrust::counting_iterator), cub::DevicePartition::If, cub::DeviceSelect::Unique and
// cub::DeviceRunLengthEncode::Encode in the same run, the policy sweeps of select_if and select_flagged_index
// (`cuprim-lab sweep select`), and the host reference.
//
// Inputs (uint32): uniformly random values (lab::random_input), selected by x < t, which keeps a fraction
// t / 2^32 of them (0%, 10%, 50%, 100%); select_flagged's uint8 flags are x < 2^31 on the same values, and so are
// select_flagged_index's (which writes int64 indices). unique and run_length_encode read runs of random lengths (a
// new run starts where the random value is a multiple of 8: runs of mean length 8, single-element runs included)
// holding the run's index.
#include "lab.hpp"

#include <cuprim/core/memory.hpp>
#include <cuprim/device/select.cuh>
#include <cuprim/host/select.hpp>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab {
namespace {

using T = std::uint32_t;
using count_t = int;          // run lengths (CUB's Encode writes its int offsets)
using index_t = std::int64_t;  // select_flagged_index's indices (numpy.flatnonzero's, torch.nonzero's)
constexpr std::int64_t pow2(int k) { return std::int64_t(1) << k; }

/// Keeps x < t: on uniformly random uint32 values, a fraction t / 2^32.
struct below {
  std::uint64_t t;
  __host__ __device__ bool operator()(const T& x) const { return x < t; }
};
constexpr std::uint64_t keep_fraction(int percent) { return (std::uint64_t(1) << 32) * std::uint64_t(percent) / 100; }

enum class sop { select_if, select_flagged, flagged_index, partition, unique, run_length };

const char* op_name(sop o) {
  switch (o) {
    case sop::select_if: return "select_if";
    case sop::select_flagged: return "select_flagged";
    case sop::flagged_index: return "select_flagged_index";
    case sop::partition: return "partition";
    case sop::unique: return "unique";
    case sop::run_length: return "run_length_encode";
  }
  return "?";
}
const char* cub_name(sop o) {
  switch (o) {
    case sop::select_if: return "cub::DeviceSelect::If";
    case sop::select_flagged: return "cub::DeviceSelect::Flagged";
    case sop::flagged_index: return "cub::DeviceSelect::Flagged(counting_iterator)";
    case sop::partition: return "cub::DevicePartition::If";
    case sop::unique: return "cub::DeviceSelect::Unique";
    case sop::run_length: return "cub::DeviceRunLengthEncode::Encode";
  }
  return "";
}

// ---------------------------------------------------------------------------------------------------------
// Derived inputs (memoised on the random input, so cases over the same input share them)

/// uint8 flags x < 2^31 for every slice of the input (same slice layout, stride n rounded up to 256 bytes).
struct flag_data {
  device_memory d;
  std::size_t stride = 0;
  std::vector<std::uint8_t> host0;
  const std::uint8_t* slice(int rep, int slices) const {
    return d.as<std::uint8_t>() + stride * static_cast<std::size_t>(rep % slices);
  }
};

__global__ void make_flags_kernel(const T* x, std::uint8_t* f, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    f[i] = x[i] < (1u << 31) ? 1 : 0;
}

std::shared_ptr<const flag_data> flags_for(const input_set& in) {
  return in.memo<std::shared_ptr<const flag_data>>("select/flags", [&] {
    auto f = std::make_shared<flag_data>();
    f->stride = (std::size_t(in.n) + 255) / 256 * 256;
    f->d = device_memory(f->stride * std::size_t(in.slices));
    for (int s = 0; s < in.slices; ++s)
      make_flags_kernel<<<4096, 256>>>(in.slice<T>(s), f->d.as<std::uint8_t>() + f->stride * std::size_t(s),
                                       std::size_t(in.n));
    check(cudaGetLastError(), "launch of make_flags_kernel");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (flags)");
    auto x = in.host<T>();
    f->host0.resize(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) f->host0[i] = x[i] < (1u << 31) ? 1 : 0;
    return std::shared_ptr<const flag_data>(std::move(f));
  });
}

/// Runs of random lengths (one slice): element i starts a new run when i == 0 or the random x[i] is a multiple
/// of 8; it holds its run's index.
struct run_data {
  device_memory d;
  std::vector<T> host;
};

std::shared_ptr<const run_data> runs_for(const input_set& in) {
  return in.memo<std::shared_ptr<const run_data>>("select/runs", [&] {
    auto r = std::make_shared<run_data>();
    auto x = in.host<T>();
    r->host.resize(x.size());
    T run = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (i > 0 && x[i] % 8 == 0) ++run;
      r->host[i] = run;
    }
    r->d = device_memory(x.size() * sizeof(T));
    check(cudaMemcpy(r->d.get(), r->host.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy (runs)");
    return std::shared_ptr<const run_data>(std::move(r));
  });
}

/// The host reference of one operation on slice 0 (items; run lengths for run_length_encode; the count).
struct reference {
  std::vector<T> items;
  std::vector<count_t> counts;
  std::vector<index_t> indices;  // select_flagged_index
  std::int64_t count = 0;
};

std::shared_ptr<const reference> reference_for(const input_set& in, sop o, std::uint64_t t) {
  const std::string key = std::string("select/ref/") + op_name(o) + "/" + std::to_string(t);
  return in.memo<std::shared_ptr<const reference>>(key, [&] {
    auto r = std::make_shared<reference>();
    const std::int64_t n = in.n;
    r->items.resize(std::size_t(n));
    switch (o) {
      case sop::select_if: r->count = cuprim::host::select_if(in.host<T>().data(), r->items.data(), n, below{t}); break;
      case sop::select_flagged:
        r->count = cuprim::host::select_flagged(in.host<T>().data(), flags_for(in)->host0.data(), r->items.data(), n);
        break;
      case sop::flagged_index: {
        const auto& f = flags_for(in)->host0;
        for (std::int64_t i = 0; i < n; ++i)
          if (f[std::size_t(i)]) r->indices.push_back(i);
        r->count = std::int64_t(r->indices.size());
        break;
      }
      case sop::partition: r->count = cuprim::host::partition(in.host<T>().data(), r->items.data(), n, below{t}); break;
      case sop::unique: r->count = cuprim::host::unique(runs_for(in)->host.data(), r->items.data(), n); break;
      case sop::run_length:
        r->counts.resize(std::size_t(n));
        r->count = cuprim::host::run_length_encode(runs_for(in)->host.data(), r->items.data(), r->counts.data(), n);
        r->counts.resize(std::size_t(r->count));
        break;
    }
    if (o == sop::flagged_index) std::vector<T>().swap(r->items);  // its reference is the indices
    else if (o != sop::partition) r->items.resize(std::size_t(r->count));
    return std::shared_ptr<const reference>(std::move(r));
  });
}

// ---------------------------------------------------------------------------------------------------------
// Verification

template <class V>
std::string first_difference(const char* what, const V* got, const V* want, std::size_t count) {
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < count; ++i)
    if (got[i] != want[i]) {
      if (bad++ == 0) first = i;
    }
  if (bad == 0) return "";
  std::ostringstream m;
  m << what << ": " << bad << " of " << count << " differ; first at " << first << ": " << +got[first] << " vs "
    << +want[first];
  return m.str();
}

/// Checks one run's outputs (already on the host). `cub_partition`: the rejected items are expected in reverse
/// (CUB's layout) rather than in input order (cuprim's).
std::string check_outputs(const reference& ref, sop o, std::int64_t n, std::int64_t count, const std::vector<T>& out,
                          const std::vector<count_t>& counts, bool cub_partition) {
  if (count != ref.count) {
    std::ostringstream m;
    m << "count " << count << " vs reference " << ref.count;
    return m.str();
  }
  if (o == sop::partition) {
    std::string e = first_difference("selected items", out.data(), ref.items.data(), std::size_t(count));
    if (!e.empty()) return e;
    if (!cub_partition)
      return first_difference("rejected items", out.data() + count, ref.items.data() + count, std::size_t(n - count));
    std::vector<T> reversed(ref.items.begin() + count, ref.items.end());
    std::reverse(reversed.begin(), reversed.end());
    return first_difference("rejected items (reversed)", out.data() + count, reversed.data(), reversed.size());
  }
  std::string e = first_difference("items", out.data(), ref.items.data(), std::size_t(count));
  if (e.empty() && o == sop::run_length)
    e = first_difference("run lengths", counts.data(), ref.counts.data(), std::size_t(count));
  return e;
}

// ---------------------------------------------------------------------------------------------------------
// The case builder

struct state {
  std::shared_ptr<const input_set> in;
  std::shared_ptr<const flag_data> flags;
  std::shared_ptr<const run_data> runs;
  device_memory out, counts, num, ws;
  device_memory base_out, base_counts, base_num, base_temp;
  std::size_t base_temp_bytes = 0;
  std::uint64_t t = 0;

  const T* input(int rep) const { return runs ? runs->d.as<T>() : in->slice<T>(rep); }
  const std::uint8_t* flag(int rep) const { return flags->slice(rep, in->slices); }
};

template <auto P>
std::size_t cuprim_workspace(sop o, std::int64_t n) {
  switch (o) {
    case sop::select_if: return cuprim::select_if_workspace_bytes<T, P>(n);
    case sop::select_flagged: return cuprim::select_flagged_workspace_bytes<T, P>(n);
    case sop::flagged_index: return cuprim::select_flagged_index_workspace_bytes<std::uint8_t, P>(n);
    case sop::partition: return cuprim::partition_workspace_bytes<T, P>(n);
    case sop::unique: return cuprim::unique_workspace_bytes<T, P>(n);
    case sop::run_length: return cuprim::run_length_encode_workspace_bytes<T, P>(n);
  }
  return 0;
}

/// One cuprim call of operation O under policy P (cuprim::tuned for the production rows), in the case's workspace.
template <auto P, sop O>
void cuprim_call(const state& st, int rep, cudaStream_t s) {
  const std::int64_t n = st.in->n;
  const cuprim::workspace ws{st.ws.get(), st.ws.bytes()};
  auto* num = st.num.as<std::int64_t>();
  if constexpr (O == sop::select_if) cuprim::select_if<P>(st.input(rep), st.out.as<T>(), num, n, below{st.t}, ws, s);
  else if constexpr (O == sop::select_flagged)
    cuprim::select_flagged<P>(st.input(rep), st.flag(rep), st.out.as<T>(), num, n, ws, s);
  else if constexpr (O == sop::flagged_index)
    cuprim::select_flagged_index<P>(st.flag(rep), st.out.as<index_t>(), num, n, ws, s);
  else if constexpr (O == sop::partition)
    cuprim::partition<P>(st.input(rep), st.out.as<T>(), num, n, below{st.t}, ws, s);
  else if constexpr (O == sop::unique) cuprim::unique<P>(st.input(rep), st.out.as<T>(), num, n, ws, s);
  else cuprim::run_length_encode<P>(st.input(rep), st.out.as<T>(), st.counts.as<count_t>(), num, n, ws, s);
}

/// One CUB call of operation o; with temp == nullptr it only sets temp_bytes. num_items is an int, as in CUB's
/// examples (CUB's 32-bit offset path).
void cub_call(const state& st, sop o, void* temp, std::size_t& temp_bytes, int rep, cudaStream_t s) {
  if (st.in->n > std::numeric_limits<int>::max())
    throw std::length_error("cuprim-lab: CUB baseline called with n >= 2^31");
  const int n = static_cast<int>(st.in->n);
  auto* out = st.base_out.as<T>();
  auto* num = st.base_num.as<std::int64_t>();
  cudaError_t e = cudaSuccess;
  switch (o) {
    case sop::select_if: e = cub::DeviceSelect::If(temp, temp_bytes, st.input(rep), out, num, n, below{st.t}, s); break;
    case sop::select_flagged:
      e = cub::DeviceSelect::Flagged(temp, temp_bytes, st.input(rep), st.flag(rep), out, num, n, s);
      break;
    case sop::flagged_index:
      e = cub::DeviceSelect::Flagged(temp, temp_bytes, thrust::counting_iterator<index_t>(0), st.flag(rep),
                                     st.base_out.as<index_t>(), num, n, s);
      break;
    case sop::partition:
      e = cub::DevicePartition::If(temp, temp_bytes, st.input(rep), out, num, n, below{st.t}, s);
      break;
    case sop::unique: e = cub::DeviceSelect::Unique(temp, temp_bytes, st.input(rep), out, num, n, s); break;
    case sop::run_length:
      e = cub::DeviceRunLengthEncode::Encode(temp, temp_bytes, st.input(rep), out, st.base_counts.as<count_t>(), num, n,
                                             s);
      break;
  }
  check(e, cub_name(o));
}

/// Bytes one call moves at least: the input (and flags) read once, the expected output written once.
double case_bytes(sop o, std::int64_t n, int percent) {
  const double N = double(n), E = sizeof(T);
  switch (o) {
    case sop::select_if: return N * E + N * E * percent / 100.0;
    case sop::select_flagged: return N * (E + 1) + N * E * 0.5;
    case sop::flagged_index: return N + N * sizeof(index_t) * 0.5;  // the flags read, half of them as indices
    case sop::partition: return 2 * N * E;
    case sop::unique: return N * E + N / 8 * E;                         // runs of mean length 8
    case sop::run_length: return N * E + N / 8 * (E + sizeof(count_t));
  }
  return 0;
}

template <auto P, sop O>
case_def make_case(std::string name, std::string variant, std::int64_t n, int percent, bool quick, bool baseline) {
  case_def c;
  c.name = std::move(name);
  c.family = "select";
  c.op = op_name(O);
  c.variant = std::move(variant);
  c.dtype = O == sop::flagged_index ? name_of<std::uint8_t>() : name_of<T>();  // what the call reads
  c.n = n;
  c.bytes = case_bytes(O, n, percent);
  c.quick = quick;
  if (baseline) c.baseline = cub_name(O);
  c.setup = [n, percent, baseline]() -> bench {
    constexpr std::size_t out_bytes = O == sop::flagged_index ? sizeof(index_t) : sizeof(T);
    auto st = std::make_shared<state>();
    st->in = random_input(dtype_v<T>, n);
    st->t = keep_fraction(percent);
    if constexpr (O == sop::select_flagged || O == sop::flagged_index) st->flags = flags_for(*st->in);
    if constexpr (O == sop::unique || O == sop::run_length) st->runs = runs_for(*st->in);
    const auto ref = reference_for(*st->in, O, st->t);
    st->out = device_memory(std::size_t(n) * out_bytes);
    st->num = device_memory(sizeof(std::int64_t));
    st->ws = device_memory(cuprim_workspace<P>(O, n));
    if constexpr (O == sop::run_length) st->counts = device_memory(std::size_t(n) * sizeof(count_t));
    bench b;
    b.input_slices = st->runs ? 1 : st->in->slices;
    b.run = [st](cudaStream_t s, int rep) { cuprim_call<P, O>(*st, rep, s); };
    if (baseline) {
      st->base_out = device_memory(std::size_t(n) * out_bytes);
      st->base_num = device_memory(sizeof(std::int64_t));
      if constexpr (O == sop::run_length) st->base_counts = device_memory(std::size_t(n) * sizeof(count_t));
      cub_call(*st, O, nullptr, st->base_temp_bytes, 0, 0);
      st->base_temp = device_memory(std::max<std::size_t>(st->base_temp_bytes, 1));
      b.baseline = [st](cudaStream_t s, int rep) {
        std::size_t bytes = st->base_temp_bytes;
        cub_call(*st, O, st->base_temp.get(), bytes, rep, s);
      };
    }
    b.verify = [st, ref, run = b.run, base = b.baseline]() {
      verify_result v;
      const std::int64_t n = st->in->n;
      auto outputs = [&](const device_memory& out, const device_memory& counts, const device_memory& num, bool cub) {
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
        const std::int64_t count = to_host(num.as<std::int64_t>())[0];
        if (count < 0 || count > n) return std::string("count ") + std::to_string(count) + " out of range";
        const std::size_t items = O == sop::partition ? std::size_t(n) : std::size_t(count);
        if constexpr (O == sop::flagged_index) {
          if (count != ref->count)
            return "count " + std::to_string(count) + " vs reference " + std::to_string(ref->count);
          return first_difference("indices", to_host(out.as<index_t>(), items).data(), ref->indices.data(), items);
        }
        std::vector<count_t> c;
        if (O == sop::run_length) c = to_host(counts.as<count_t>(), std::size_t(count));
        return check_outputs(*ref, O, n, count, to_host(out.as<T>(), items), c, cub);
      };
      st->out.poison();
      st->num.poison();
      st->ws.poison();
      if (O == sop::run_length) st->counts.poison();
      run(0, 0);
      const std::string e = outputs(st->out, st->counts, st->num, false);
      std::string eb;
      if (base) {
        st->base_out.poison();
        st->base_num.poison();
        if (O == sop::run_length) st->base_counts.poison();
        base(0, 0);
        eb = outputs(st->base_out, st->base_counts, st->base_num, true);
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

template <sop O>
void add_production(std::int64_t n, int percent, bool quick) {
  std::string name = "select/" + std::string(op_name(O)) + "/";
  std::string variant = "production";
  if (O == sop::select_if || O == sop::partition) {
    name += "keep" + std::to_string(percent) + "/";
    variant = "keep " + std::to_string(percent) + "%";
  } else if (O == sop::select_flagged || O == sop::flagged_index) {
    variant = "flags 50%";
  } else {
    variant = "runs mean 8";
  }
  using L = std::conditional_t<O == sop::flagged_index, std::uint8_t, T>;  // the type the call tiles by
  case_def c = make_case<cuprim::tuned, O>(name + name_of<L>() + "/" + size_label(n), variant, n, percent, quick, true);
  c.policy = [] { return record_policy(cuprim::select_policy_for<L>(cuprim::current_tuned_arch())); };
  add_case(std::move(c));
}

/// select/sweep/<key>/uint32/<n>: select_if keeping 50% under policy P.
template <auto P>
void add_sweep(const std::string& key, const std::string& label, std::int64_t n) {
  case_def c = make_case<P, sop::select_if>("select/sweep/" + key + "/" + name_of<T>() + "/" + size_label(n), label, n,
                                            50, false, true);
  c.sweep = true;
  c.policy = [] { return record_policy(P); };
  add_case(std::move(c));
}

/// select/sweep/index-<Threads>x<Vectors>/uint8/<n>: select_flagged_index of uint8 flags (50% set) into int64
/// indices, one tile per block of Threads x Vectors 16-byte vectors (the production row: 128 x 2).
template <int Threads, int Vectors>
void add_index_sweep(std::int64_t n) {
  constexpr cuprim::select_policy p{.threads = Threads, .vector_bytes = 16, .vectors = Vectors};
  const std::string shape = std::to_string(Threads) + "x" + std::to_string(Vectors);
  case_def c = make_case<p, sop::flagged_index>("select/sweep/index-" + shape + "/" + name_of<std::uint8_t>() + "/" +
                                                    size_label(n),
                                                "index " + shape, n, 50, false, true);
  c.sweep = true;
  c.policy = [p] { return record_policy(p); };
  add_case(std::move(c));
}

/// One tile per block: threads x vectors of 16 bytes, back-off First/Poll ns.
template <int Threads, int Vectors, int First, int Poll>
void add_classic(std::int64_t n) {
  constexpr cuprim::select_policy p{.threads = Threads, .vector_bytes = 16, .vectors = Vectors,
                                    .first_wait_ns = First, .poll_wait_ns = Poll};
  const std::string shape = std::to_string(Threads) + "x" + std::to_string(Vectors);
  const std::string waits = std::to_string(First) + "/" + std::to_string(Poll);
  add_sweep<p>(shape + "-" + std::to_string(First) + "-" + std::to_string(Poll), shape + " " + waits, n);
}

/// The pipeline taking every size (min_elems 0): W segment warps x K vectors per lane, S stages, back-off
/// First/Poll ns, falling back to one tile per block of 128 x 6.
template <int W, int K, int S, int First, int Poll>
void add_pipeline(std::int64_t n) {
  constexpr cuprim::select_pipeline_policy p{
      .pipeline = {.scan_warps = W, .lane_vectors = K, .stages = S, .min_elems = 0, .first_wait_ns = First,
                   .poll_wait_ns = Poll},
      .classic = {.threads = 128, .vector_bytes = 16, .vectors = 6}};
  const std::string shape = std::to_string(W) + "w" + std::to_string(K) + "v" + std::to_string(S) + "s";
  const std::string waits = std::to_string(First) + "/" + std::to_string(Poll);
  add_sweep<p>("pipe-" + shape + "-" + std::to_string(First) + "-" + std::to_string(Poll), "pipe " + shape + " " + waits,
               n);
}

/// The host reference (the no-GPU path), checked against std::copy_if.
void add_host(std::int64_t n) {
  case_def c;
  c.name = "host/select/select_if/keep50/" + std::string(name_of<T>()) + "/" + size_label(n);
  c.family = "select";
  c.op = "select_if";
  c.variant = "host-sequential";
  c.dtype = name_of<T>();
  c.n = n;
  c.bytes = case_bytes(sop::select_if, n, 50);
  c.quick = true;
  c.host = true;
  c.setup = [n]() -> bench {
    struct host_state {
      std::vector<T> x, out;
      std::int64_t count = 0;
    };
    auto st = std::make_shared<host_state>();
    st->x.resize(std::size_t(n));
    st->out.resize(std::size_t(n));
    fill_random_host(dtype_v<T>, st->x.data(), st->x.size(), 1);
    bench b;
    b.host_run = [st] {
      st->count = cuprim::host::select_if(st->x.data(), st->out.data(), std::int64_t(st->x.size()),
                                          below{keep_fraction(50)});
    };
    b.verify = [st, run = b.host_run] {
      run();
      std::vector<T> want;
      std::copy_if(st->x.begin(), st->x.end(), std::back_inserter(want), below{keep_fraction(50)});
      verify_result v;
      if (st->count != std::int64_t(want.size()))
        v.detail = "count " + std::to_string(st->count) + " vs " + std::to_string(want.size());
      else v.detail = first_difference("items", st->out.data(), want.data(), want.size());
      v.ok = v.detail.empty();
      return v;
    };
    return b;
  };
  add_case(std::move(c));
}

}  // namespace

void register_select() {
  // The headline: select_if keeping 50% of 2^28 uint32 (quick); then 0%, 10%, 100%, and 2^20 / 2^24 (full).
  add_production<sop::select_if>(pow2(28), 50, true);
  for (int pct : {0, 10, 100}) add_production<sop::select_if>(pow2(28), pct, false);
  for (int k : {20, 24}) add_production<sop::select_if>(pow2(k), 50, false);
  add_production<sop::select_flagged>(pow2(28), 50, false);
  for (int k : {24, 28}) add_production<sop::flagged_index>(pow2(k), 50, false);
  add_production<sop::partition>(pow2(28), 50, false);
  add_production<sop::unique>(pow2(28), 0, false);
  add_production<sop::run_length>(pow2(28), 0, false);

  // The sweep: select_if keeping 50% of 2^28 uint32 (threads x vectors, first wait / poll wait in ns); the
  // production policy is the select_if keep50 row.
  add_classic<128, 6, 1200, 650>(pow2(28));  // one tile per block: the previous production row
  add_classic<128, 8, 1200, 650>(pow2(28));
  add_classic<256, 6, 1200, 650>(pow2(28));
  add_pipeline<8, 9, 5, 400, 200>(pow2(28));
  add_pipeline<8, 7, 3, 1200, 650>(pow2(28));
  add_pipeline<8, 5, 3, 1200, 650>(pow2(28));
  add_pipeline<8, 7, 2, 1200, 650>(pow2(28));
  add_pipeline<4, 7, 3, 1200, 650>(pow2(28));
  add_pipeline<4, 5, 3, 1200, 650>(pow2(28));
  // Shapes around the H200's best (4 x 7, 3 stages) and the H100's (6 x 7, 4 stages, the production row): stages,
  // vectors per lane, segment warps and back-off one step either side (docs/tuning/select.md).
  add_pipeline<4, 7, 2, 1200, 650>(pow2(28));
  add_pipeline<4, 7, 4, 1200, 650>(pow2(28));
  add_pipeline<4, 9, 3, 1200, 650>(pow2(28));
  add_pipeline<6, 7, 3, 1200, 650>(pow2(28));
  add_pipeline<5, 7, 3, 1200, 650>(pow2(28));
  add_pipeline<7, 7, 3, 1200, 650>(pow2(28));
  add_pipeline<6, 5, 3, 1200, 650>(pow2(28));
  add_pipeline<6, 7, 4, 1200, 650>(pow2(28));
  add_pipeline<6, 7, 3, 1600, 900>(pow2(28));
  add_pipeline<4, 7, 3, 800, 400>(pow2(28));
  add_pipeline<4, 7, 3, 1600, 900>(pow2(28));
  add_production<sop::select_if>(pow2(22), 50, false);
  // select_flagged_index of 2^28 uint8 flags (50% set) into int64 indices: tiles of 128 threads x 1, 2 (the
  // production row), 3, 4 16-byte vectors, 256 x 1 and 2, 512 x 1 (shared memory: 4 bytes per tile element).
  add_index_sweep<128, 1>(pow2(28));
  add_index_sweep<128, 2>(pow2(28));
  add_index_sweep<128, 3>(pow2(28));
  add_index_sweep<128, 4>(pow2(28));
  add_index_sweep<256, 1>(pow2(28));
  add_index_sweep<256, 2>(pow2(28));
  add_index_sweep<512, 1>(pow2(28));

  add_host(pow2(24));

  add_note("select/", "select: cuprim and CUB use workspace allocated once before timing; CUB gets int num_items");
  add_note("select/sweep/", "select sweep rows: TxV F/P = T threads x V 16-byte vectors, one tile per block, "
                            "look-back back-off F/P ns; pipe WwKvSs F/P = W segment warps x K vectors per lane, S "
                            "stages (taking every size; 128x6 one tile per block where it cannot run)");
  add_note("select/", "select: keepP keeps x < P% of 2^32 on uniformly random uint32; flags are x < 2^31 as uint8; "
                      "unique / run_length_encode read runs of mean length 8; GB/s counts the input (and flags) read "
                      "once and the expected output written once; outputs checked bitwise against cuprim::host");
  add_note("select/select_flagged_index/", "select_flagged_index: int64 indices of the set uint8 flags (no index "
                                           "array; GB/s counts 1 byte read per flag and 8 written per index); CUB: "
                                           "DeviceSelect::Flagged over thrust::counting_iterator<int64_t>");
  add_note("select/partition/", "select/partition: cuprim keeps the rejected items in input order (two passes: "
                                "count, then scatter); CUB writes them reversed (one pass); each is checked against "
                                "its layout");
}

}  // namespace lab
