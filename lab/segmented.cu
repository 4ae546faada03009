// lab/segmented.cu: the segmented family: cuprim::segmented_reduce over CSR offsets against
// cub::DeviceSegmentedReduce::Sum (many random-length segments, a few huge ones, many tiny ones),
// cuprim::inclusive_scan_by_key against cub::DeviceScan::InclusiveSumByKey, and the seed's "BLAS on compact sparse
// representations": a CSR sparse matrix-vector product y = A·x built on segmented_transform_reduce (fused: the
// products are formed as the values are loaded) and, for comparison, a products pass followed by segmented_reduce.
// Every case is checked against a double-precision host computation before it is timed.
#include "lab.hpp"

#include <cuprim/device/segmented_reduce.cuh>
#include <cuprim/device/segmented_scan.cuh>
#include <cuprim/host/segmented.hpp>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace lab {
namespace {

constexpr std::int64_t pow2(int k) { return std::int64_t(1) << k; }

/// Offsets of `segments` segments over n elements, cut at segments - 1 uniform random points (so lengths are
/// roughly exponential around n / segments, empty ones included).
std::vector<std::int32_t> random_offsets(std::int64_t n, std::int64_t segments, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::int64_t> cut(0, n);
  std::vector<std::int32_t> off(static_cast<std::size_t>(segments) + 1);
  for (std::int64_t s = 1; s < segments; ++s) off[static_cast<std::size_t>(s)] = static_cast<std::int32_t>(cut(gen));
  std::sort(off.begin() + 1, off.end() - 1);
  off.front() = 0;
  off.back() = static_cast<std::int32_t>(n);
  return off;
}

device_memory upload_offsets(const std::vector<std::int32_t>& off) {
  device_memory d(off.size() * sizeof(std::int32_t));
  check(cudaMemcpy(d.get(), off.data(), off.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice),
        "cudaMemcpy (offsets)");
  return d;
}

/// keys[i] = the segment holding element i (a binary search in the offsets), for the by-key scans.
__global__ void keys_from_offsets(const std::int32_t* off, std::int64_t segments, std::int64_t n, std::int32_t* keys) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::int64_t lo = 0, hi = segments;  // last s with off[s] <= i
    while (hi - lo > 1) {
      const std::int64_t mid = (lo + hi) / 2;
      if (off[mid] <= i) lo = mid;
      else hi = mid;
    }
    keys[i] = static_cast<std::int32_t>(lo);
  }
}

/// Random column indices in [0, cols).
__global__ void random_columns(std::int32_t* c, std::int64_t nnz, std::int64_t cols, std::uint64_t seed) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < nnz; i += stride) {
    std::uint64_t z = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull + seed * 0xD6E8FEB86659FD93ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    c[i] = static_cast<std::int32_t>((z ^ (z >> 31)) % static_cast<std::uint64_t>(cols));
  }
}

/// products[k] = vals[k] · x[cols[k]]: the first pass of the two-pass SpMV.
__global__ void csr_products(const float* vals, const std::int32_t* cols, const float* x, float* products,
                             std::int64_t nnz) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz; k += stride)
    products[k] = vals[k] * __ldg(x + cols[k]);
}

/// The fused SpMV's transform: element k of the values becomes vals[k] · x[cols[k]].
struct csr_product {
  static constexpr bool indexed = true;
  const float* x;
  const std::int32_t* cols;
  __host__ __device__ float operator()(float v, std::int64_t k) const { return v * x[cols[k]]; }
};
static_assert(csr_product::indexed);

/// Float sums checked per segment: |got - ref| <= eps · Σ|x| · (chain + 8), chain = a thread's run, the block's
/// carry scan, one step per tile and per chunk spanned (as tests/device/segmented_test.cu); "" when all agree.
std::string check_segment_sums(const std::vector<float>& got, const std::vector<double>& ref,
                               const std::vector<double>& abs_ref, const std::vector<std::int32_t>& off) {
  std::int64_t bad = 0, first = -1;
  for (std::size_t s = 0; s < ref.size(); ++s) {
    const double m = static_cast<double>(off[s + 1] - off[s]);
    const double chain = 15 + 16 + m / 2048.0 + 2.0 * std::log2(m + 2.0);
    const double tol = 0x1p-24 * abs_ref[s] * (chain + 8) + 0x1p-24 * std::fabs(ref[s]) + 1e-30;
    if (!(std::fabs(static_cast<double>(got[s]) - ref[s]) <= tol)) {
      if (first < 0) first = static_cast<std::int64_t>(s);
      ++bad;
    }
  }
  if (bad == 0) return "";
  std::ostringstream o;
  o.precision(17);
  o << bad << " of " << ref.size() << " segments differ; first " << first << ": " << got[first] << " vs " << ref[first];
  return o.str();
}

/// The policy of the segmented reductions of floats here (segmented_reduce_policy_for<float, float>).
policy_record reduce_policy_record() {
  return record_policy(cuprim::segmented_reduce_policy_for<float, float>(cuprim::current_tuned_arch()));
}

// ---------------------------------------------------------------------------------------------------------
// segmented_reduce: sum of floats

void add_reduce_sum(std::int64_t n, std::int64_t segments, const std::string& mix, bool quick) {
  case_def c;
  c.name = "segmented/reduce_sum/float/" + size_label(n) + "/" + size_label(segments) + "-" + mix;
  c.family = "segmented";
  c.op = "reduce_sum";
  c.variant = size_label(segments) + " segs " + mix;
  c.dtype = "float";
  c.n = n;
  c.bytes = double(n) * 4 + double(segments + 1) * 4 + double(segments) * 4;
  c.quick = quick;
  c.baseline = "cub::DeviceSegmentedReduce::Sum";
  c.policy = reduce_policy_record;
  c.setup = [n, segments]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      std::vector<std::int32_t> off;
      device_memory d_off, out, ws, base_out, base_temp;
      std::size_t base_temp_bytes = 0;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::float32, n);
    st->off = random_offsets(n, segments, 42 + static_cast<std::uint64_t>(segments));
    st->d_off = upload_offsets(st->off);
    st->out = device_memory(std::size_t(segments) * sizeof(float));
    st->base_out = device_memory(std::size_t(segments) * sizeof(float));
    st->ws = device_memory(cuprim::segmented_reduce_workspace_bytes<float>(segments));
    const auto* off = st->d_off.as<std::int32_t>();
    check(cub::DeviceSegmentedReduce::Sum(nullptr, st->base_temp_bytes, st->in->slice<float>(0), st->base_out.as<float>(),
                                          segments, off, off + 1, 0),
          "cub::DeviceSegmentedReduce::Sum (size)");
    st->base_temp = device_memory(std::max<std::size_t>(st->base_temp_bytes, 1));
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, segments](cudaStream_t s, int rep) {
      cuprim::segmented_reduce(st->in->slice<float>(rep), st->out.as<float>(), st->d_off.as<std::int32_t>(), segments,
                               cuprim::plus{}, 0.f, cuprim::workspace{st->ws.get(), st->ws.bytes()}, s);
    };
    b.baseline = [st, segments](cudaStream_t s, int rep) {
      std::size_t bytes = st->base_temp_bytes;
      const auto* o = st->d_off.as<std::int32_t>();
      check(cub::DeviceSegmentedReduce::Sum(st->base_temp.get(), bytes, st->in->slice<float>(rep), st->base_out.as<float>(),
                                            segments, o, o + 1, s),
            "cub::DeviceSegmentedReduce::Sum");
    };
    b.verify = [st, segments, run = b.run, base = b.baseline]() {
      const auto& off = st->off;
      std::vector<double> ref(static_cast<std::size_t>(segments)), abs_ref(ref.size());
      const float* x = st->in->host<float>().data();
      for (std::int64_t s = 0; s < segments; ++s)
        for (std::int64_t i = off[s]; i < off[s + 1]; ++i) {
          ref[s] += x[i];
          abs_ref[s] += std::fabs(x[i]);
        }
      verify_result v;
      st->out.poison();
      st->ws.poison();
      run(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
      const std::string e = check_segment_sums(to_host(st->out.as<float>(), std::size_t(segments)), ref, abs_ref, off);
      st->base_out.poison();
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify baseline)");
      const std::string eb = check_segment_sums(to_host(st->base_out.as<float>(), std::size_t(segments)), ref, abs_ref, off);
      v.ok = e.empty();
      v.baseline_ok = eb.empty();
      v.detail = e.empty() ? (eb.empty() ? "" : "baseline: " + eb) : (eb.empty() ? e : e + "; baseline: " + eb);
      return v;
    };
    return b;
  };
  add_case(std::move(c));
}

// ---------------------------------------------------------------------------------------------------------
// inclusive_scan_by_key: float sums over runs of int32 keys

/// Policy cuprim::tuned: the production row segmented/inclusive_sum_by_key/...; otherwise a sweep row
/// segmented/sweep/<key>/inclusive_sum_by_key/... (the sweep behind the default, `cuprim-lab sweep segmented`).
template <auto Policy = cuprim::tuned>
case_def scan_by_key_case(std::int64_t n, std::int64_t segments, bool quick, const std::string& key = "",
                          const std::string& label = "") {
  case_def c;
  c.name = (key.empty() ? std::string("segmented/") : "segmented/sweep/" + key + "/") + "inclusive_sum_by_key/float/" +
           size_label(n) + "/" + size_label(segments) + "-runs";
  c.family = "segmented";
  c.op = "inclusive_sum_by_key";
  c.variant = size_label(segments) + " runs" + (label.empty() ? std::string() : " " + label);
  c.dtype = "float";
  c.n = n;
  c.bytes = double(n) * (4 + 4 + 4);  // keys and values read, values written
  c.quick = quick;
  c.baseline = "cub::DeviceScan::InclusiveSumByKey";
  c.setup = [n, segments]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      std::vector<std::int32_t> off;
      device_memory keys, out, ws, base_out, base_temp;
      std::size_t base_temp_bytes = 0;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::float32, n);
    st->off = random_offsets(n, segments, 7 + static_cast<std::uint64_t>(segments));
    {
      device_memory d_off = upload_offsets(st->off);
      st->keys = device_memory(std::size_t(n) * sizeof(std::int32_t));
      keys_from_offsets<<<4096, 256>>>(d_off.template as<std::int32_t>(), segments, n,
                                       st->keys.template as<std::int32_t>());
      check(cudaGetLastError(), "launch of keys_from_offsets");
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (keys)");
    }
    st->out = device_memory(std::size_t(n) * sizeof(float));
    st->base_out = device_memory(std::size_t(n) * sizeof(float));
    st->ws = device_memory(cuprim::segmented_scan_workspace_bytes<float, float, Policy>(n));
    check(cub::DeviceScan::InclusiveSumByKey(nullptr, st->base_temp_bytes, st->keys.template as<std::int32_t>(),
                                             st->in->template slice<float>(0), st->base_out.template as<float>(), n),
          "cub::DeviceScan::InclusiveSumByKey (size)");
    st->base_temp = device_memory(std::max<std::size_t>(st->base_temp_bytes, 1));
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, n](cudaStream_t s, int rep) {
      cuprim::inclusive_scan_by_key<Policy>(st->keys.template as<std::int32_t>(), st->in->template slice<float>(rep),
                                            st->out.template as<float>(), n, cuprim::plus{},
                                            cuprim::workspace{st->ws.get(), st->ws.bytes()}, s);
    };
    b.baseline = [st, n](cudaStream_t s, int rep) {
      std::size_t bytes = st->base_temp_bytes;
      check(cub::DeviceScan::InclusiveSumByKey(st->base_temp.get(), bytes, st->keys.template as<std::int32_t>(),
                                               st->in->template slice<float>(rep), st->base_out.template as<float>(), n,
                                               ::cuda::std::equal_to<>{}, s),
            "cub::DeviceScan::InclusiveSumByKey");
    };
    b.verify = [st, n, run = b.run, base = b.baseline]() {
      const float* x = st->in->template host<float>().data();
      auto compare = [&](const std::vector<float>& got) -> std::string {
        std::int64_t bad = 0, first = -1;
        double first_ref = 0;
        for (std::size_t s = 0; s + 1 < st->off.size(); ++s) {
          double acc = 0;
          for (std::int64_t i = st->off[s]; i < st->off[s + 1]; ++i) {
            acc += x[i];  // values in [0, 1): the prefix is its own absolute sum
            const double run_len = static_cast<double>(i - st->off[s] + 1);
            const double tol = 0x1p-24 * acc * (2 * std::log2(run_len + 1) + std::sqrt(run_len) + 16) + 1e-30;
            if (!(std::fabs(static_cast<double>(got[static_cast<std::size_t>(i)]) - acc) <= tol)) {
              if (first < 0) first = i, first_ref = acc;
              ++bad;
            }
          }
        }
        if (bad == 0) return "";
        std::ostringstream o;
        o.precision(17);
        o << bad << " of " << n << " elements differ; first " << first << ": " << got[first] << " vs " << first_ref;
        return o.str();
      };
      verify_result v;
      st->out.poison();
      st->ws.poison();
      run(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
      const std::string e = compare(to_host(st->out.template as<float>(), std::size_t(n)));
      st->base_out.poison();
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify baseline)");
      const std::string eb = compare(to_host(st->base_out.template as<float>(), std::size_t(n)));
      v.ok = e.empty();
      v.baseline_ok = eb.empty();
      v.detail = e.empty() ? (eb.empty() ? "" : "baseline: " + eb) : (eb.empty() ? e : e + "; baseline: " + eb);
      return v;
    };
    return b;
  };
  return c;
}

void add_scan_by_key(std::int64_t n, std::int64_t segments, bool quick) {
  case_def c = scan_by_key_case(n, segments, quick);
  c.policy = [] { return record_policy(cuprim::segmented_scan_policy_for<float>(cuprim::current_tuned_arch())); };
  add_case(std::move(c));
}

/// A sweep row: the by-key scan under one tile per block of Threads x Vectors 16-byte vectors of values (the pairs
/// take twice the registers), back-off First/Poll ns; the pipeline off.
template <int Threads, int Vectors, int First = 1200, int Poll = 650>
void add_scan_by_key_sweep(std::int64_t n, std::int64_t segments) {
  static constexpr cuprim::segmented_scan_policy p{.tile = {.threads = Threads, .vector_bytes = 16, .vectors = Vectors,
                                                            .first_wait_ns = First, .poll_wait_ns = Poll},
                                                   .pipeline = {.min_elems = 0}};
  std::string key = std::to_string(Threads) + "x" + std::to_string(Vectors), label = key;
  if (First != 1200 || Poll != 650) {
    key += "-" + std::to_string(First) + "-" + std::to_string(Poll);
    label += " w" + std::to_string(First) + "/" + std::to_string(Poll);
  }
  case_def c = scan_by_key_case<p>(n, segments, false, key, label);
  c.sweep = true;
  c.policy = [] { return record_policy(p); };
  add_case(std::move(c));
}

/// A sweep row: the by-key scan on the keyed look-back pipeline of Warps segment warps x Vectors 16-byte vectors per
/// lane x Stages stages (a stage holds the tile's values and keys).
template <int Warps, int Vectors, int Stages>
void add_scan_by_key_pipeline_sweep(std::int64_t n, std::int64_t segments) {
  static constexpr cuprim::segmented_scan_policy p{
      .tile = cuprim::segmented_scan_policy_for<float>(cuprim::tuned_archs[0]).tile,
      .pipeline = {.scan_warps = Warps, .lane_vectors = Vectors, .stages = Stages, .min_elems = 1ll << 22,
                   .first_wait_ns = 1200, .poll_wait_ns = 650}};
  const std::string key = "pipeline-" + std::to_string(Warps) + "w" + std::to_string(Vectors) + "v" +
                          std::to_string(Stages) + "s";
  case_def c = scan_by_key_case<p>(n, segments, false, key, key);
  c.sweep = true;
  c.policy = [] { return record_policy(p); };
  add_case(std::move(c));
}

// ---------------------------------------------------------------------------------------------------------
// CSR SpMV: y = A·x

void add_spmv(std::int64_t rows, std::int64_t nnz, bool fused, bool quick) {
  case_def c;
  c.name = "segmented/spmv/float/" + size_label(rows) + "x" + size_label(rows) + "/" + size_label(nnz) + "-nnz/" +
           (fused ? "fused" : "two-pass");
  c.family = "segmented";
  c.op = "spmv";
  c.variant = fused ? "fused transform" : "products+reduce";
  c.dtype = "float";
  c.n = nnz;
  // Values and column indices read once, the row pointer read and y written, x read (at least) once.
  c.bytes = double(nnz) * 8 + double(rows + 1) * 4 + double(rows) * 4 + double(rows) * 4;
  c.flops = 2.0 * double(nnz);
  c.quick = quick;
  c.policy = reduce_policy_record;
  c.setup = [rows, nnz, fused]() -> bench {
    struct state {
      std::shared_ptr<const input_set> vals, x;
      std::vector<std::int32_t> off;
      device_memory d_off, cols, y, ws, products;
    };
    auto st = std::make_shared<state>();
    st->vals = random_input(dtype::float32, nnz, 11);
    st->x = random_input(dtype::float32, rows, 12);
    st->off = random_offsets(nnz, rows, 13);
    st->d_off = upload_offsets(st->off);
    st->cols = device_memory(std::size_t(nnz) * sizeof(std::int32_t));
    random_columns<<<4096, 256>>>(st->cols.as<std::int32_t>(), nnz, rows, 14);
    check(cudaGetLastError(), "launch of random_columns");
    st->y = device_memory(std::size_t(rows) * sizeof(float));
    st->ws = device_memory(cuprim::segmented_reduce_workspace_bytes<float>(rows));
    if (!fused) st->products = device_memory(std::size_t(nnz) * sizeof(float));
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (spmv setup)");
    bench b;
    b.input_slices = st->vals->slices;
    b.run = [st, rows, nnz, fused](cudaStream_t s, int rep) {
      const float* vals = st->vals->slice<float>(rep);
      const float* x = st->x->slice<float>(0);
      const auto* cols = st->cols.as<std::int32_t>();
      const cuprim::workspace ws{st->ws.get(), st->ws.bytes()};
      if (fused) {
        cuprim::segmented_transform_reduce(vals, st->y.as<float>(), st->d_off.as<std::int32_t>(), rows,
                                           csr_product{x, cols}, cuprim::plus{}, 0.f, ws, s);
      } else {
        csr_products<<<4096, 256, 0, s>>>(vals, cols, x, st->products.as<float>(), nnz);
        check(cudaGetLastError(), "launch of csr_products");
        cuprim::segmented_reduce(st->products.as<float>(), st->y.as<float>(), st->d_off.as<std::int32_t>(), rows,
                                 cuprim::plus{}, 0.f, ws, s);
      }
    };
    b.verify = [st, rows, run = b.run]() {
      const float* vals = st->vals->host<float>().data();
      const float* x = st->x->host<float>().data();
      const std::vector<std::int32_t> cols = to_host(st->cols.as<std::int32_t>(), st->vals->host<float>().size());
      std::vector<double> ref(static_cast<std::size_t>(rows)), abs_ref(ref.size());
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t k = st->off[r]; k < st->off[r + 1]; ++k) {
          const double p = double(vals[k]) * double(x[cols[static_cast<std::size_t>(k)]]);
          ref[r] += p;
          abs_ref[r] += std::fabs(p);
        }
      verify_result v;
      st->y.poison();
      run(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
      // Each product is rounded once more than a plain sum's term: one more eps·|p| per term, inside the bound.
      v.detail = check_segment_sums(to_host(st->y.as<float>(), std::size_t(rows)), ref, abs_ref, st->off);
      v.ok = v.detail.empty();
      return v;
    };
    return b;
  };
  add_case(std::move(c));
}

// ---------------------------------------------------------------------------------------------------------
// The host reference (the no-GPU path)

void add_host_reduce(std::int64_t n, std::int64_t segments) {
  case_def c;
  c.name = "host/segmented/reduce_sum/float/" + size_label(n) + "/" + size_label(segments) + "-random";
  c.family = "segmented";
  c.op = "reduce_sum";
  c.variant = "host-sequential";
  c.dtype = "float";
  c.n = n;
  c.bytes = double(n) * 4 + double(segments + 1) * 4 + double(segments) * 4;
  c.quick = true;
  c.host = true;
  c.setup = [n, segments]() -> bench {
    struct state {
      std::vector<float> x, out;
      std::vector<std::int32_t> off;
    };
    auto st = std::make_shared<state>();
    st->x.resize(static_cast<std::size_t>(n));
    fill_random_host(dtype::float32, st->x.data(), st->x.size(), 1);
    st->off = random_offsets(n, segments, 42);
    st->out.resize(static_cast<std::size_t>(segments));
    bench b;
    b.host_run = [st, segments] {
      cuprim::host::segmented_reduce(st->x.data(), st->out.data(), st->off.data(), segments, cuprim::plus{}, 0.f);
    };
    b.verify = [st, segments, run = b.host_run] {
      run();
      std::vector<double> ref(static_cast<std::size_t>(segments)), abs_ref(ref.size());
      for (std::int64_t s = 0; s < segments; ++s)
        for (std::int64_t i = st->off[s]; i < st->off[s + 1]; ++i) {
          ref[s] += st->x[i];
          abs_ref[s] += std::fabs(st->x[i]);
        }
      // Index-order float summation: the sequential bound, eps · Σ|x| · m, covers it; check_segment_sums is
      // tighter, so compare with the sequential bound here.
      verify_result v;
      std::int64_t bad = 0;
      for (std::int64_t s = 0; s < segments; ++s) {
        const double m = static_cast<double>(st->off[s + 1] - st->off[s]);
        if (!(std::fabs(st->out[s] - ref[s]) <= 0x1p-24 * abs_ref[s] * (m + 2) + 1e-30)) ++bad;
      }
      if (bad) v.detail = std::to_string(bad) + " segments outside the sequential bound";
      v.ok = bad == 0;
      return v;
    };
    return b;
  };
  add_case(std::move(c));
}

}  // namespace

void register_segmented() {
  // The headline: 2^28 floats in 2^20 random-length segments and in 64 segments (quick), then many tiny segments.
  add_reduce_sum(pow2(28), pow2(20), "random", true);
  add_reduce_sum(pow2(28), 64, "random", true);
  add_reduce_sum(pow2(28), pow2(24), "random", false);  // 16 elements per segment on average, many empty
  add_reduce_sum(pow2(24), pow2(22), "random", false);  // 4 per segment: ends weigh as much as elements
  add_scan_by_key(pow2(28), pow2(20), true);
  add_scan_by_key(pow2(28), pow2(24), false);
  // The sweep: the keyed pipeline's shapes (segment warps x vectors per lane x stages), then tiles of the one tile
  // per block kernel (threads x 16-byte vectors of values; the pairs take twice the registers) with the pipeline off.
  add_scan_by_key_pipeline_sweep<4, 9, 3>(pow2(28), pow2(20));
  add_scan_by_key_pipeline_sweep<4, 7, 3>(pow2(28), pow2(20));
  add_scan_by_key_pipeline_sweep<6, 5, 3>(pow2(28), pow2(20));
  add_scan_by_key_pipeline_sweep<8, 5, 2>(pow2(28), pow2(20));
  add_scan_by_key_pipeline_sweep<8, 7, 2>(pow2(28), pow2(20));
  add_scan_by_key_sweep<128, 8>(pow2(28), pow2(20));
  add_scan_by_key_sweep<256, 6>(pow2(28), pow2(20));
  add_scan_by_key_sweep<256, 8>(pow2(28), pow2(20));
  add_scan_by_key_sweep<512, 4>(pow2(28), pow2(20));
  add_scan_by_key_sweep<128, 8, 600, 300>(pow2(28), pow2(20));
  add_scan_by_key_sweep<128, 8, 2000, 1000>(pow2(28), pow2(20));
  add_spmv(pow2(20), pow2(26), true, true);
  add_spmv(pow2(20), pow2(26), false, true);
  add_host_reduce(pow2(24), pow2(16));

  add_note("segmented/", "segmented_reduce: grid = blocks/SM x SMs, each block an equal share of the merge path (ends "
                         "+ elements)");
  add_note("segmented/", "segmented: segment lengths from uniform random cut points (exponential-like, empty ones "
                         "included); GB/s counts values, offsets (or keys) and outputs once each; float results "
                         "within eps * sum|x| * (chain + 8) of a double reference");
  add_note("segmented/spmv", "spmv: y = A x, CSR, random columns, x of 2^20 floats (L2-resident); GB/s counts values, "
                             "column indices, row pointer, y and x once; no cuSPARSE baseline in this build");
}

}  // namespace lab
