// lab/sort.cu: the radix sort family: cuprim::radix_sort_keys / radix_sort_pairs (and the ladder: split by one bit
// with a scan per bit, 4-bit digits with block histograms) against
// cub::DeviceRadixSort::SortKeys / SortPairs in the same run, over random keys, low-entropy keys and a policy sweep.
//
// Inputs: lab::random_input (uint32 / uint64: every value; float: uniform [0, 1)). Low-entropy keys are the random
// uint32 keys masked to one bit per byte (x & 0x01010101: each byte 0 or 1, one bit of entropy per byte); "equal"
// keys are all the same value. Pairs carry the values 0, 1, ..., n - 1 so that stability can be checked.
//
// Verification (before timing): cuprim's output is sorted, a permutation of the input (order-independent hashes
// of the keys, and of the (key, value) pairs), stable (equal keys have increasing values), and bitwise equal to
// CUB's output; CUB's output is checked the same way.
#include "lab.hpp"

#include <cuprim/core/memory.hpp>
#include <cuprim/device/radix_sort.cuh>
#include <cuprim/device/scan.cuh>
#include <cuprim/device/segmented_sort.cuh>
#include <cuprim/host/radix_sort.hpp>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace lab {
namespace {

constexpr std::int64_t pow2(int k) { return std::int64_t(1) << k; }

enum class keyset { random, low_entropy, equal };

const char* keyset_name(keyset s) {
  switch (s) {
    case keyset::random: return "random";
    case keyset::low_entropy: return "1 bit/byte";
    case keyset::equal: return "all equal";
  }
  return "?";
}
const char* keyset_key(keyset s) {
  switch (s) {
    case keyset::random: return "random";
    case keyset::low_entropy: return "lowentropy";
    case keyset::equal: return "equal";
  }
  return "?";
}

template <class K>
__global__ void derive_keys_kernel(const K* in, K* out, std::size_t n, int mode) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if constexpr (std::is_integral_v<K>) out[i] = mode == 1 ? K(in[i] & K(0x0101010101010101ull)) : K(0x5a5a5a5a5a5a5a5aull);
    else out[i] = mode == 1 ? in[i] : K(0.25);
  }
}

template <class V>
__global__ void iota_kernel(V* out, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = V(i);
}

/// The keys of one case (device slices, host copy of slice 0).
template <class K>
struct key_data {
  std::shared_ptr<const input_set> base;  // random keys
  device_memory derived;                  // low-entropy / equal keys (one slice)
  std::vector<K> host0;
  int slices = 1;
  const K* slice(int rep) const { return derived.get() ? derived.template as<K>() : base->template slice<K>(rep); }
};

template <class K>
std::shared_ptr<const key_data<K>> keys_for(std::int64_t n, keyset s) {
  auto d = std::make_shared<key_data<K>>();
  d->base = random_input(dtype_v<K>, n);
  if (s == keyset::random) {
    d->slices = d->base->slices;
    auto h = d->base->template host<K>();
    d->host0.assign(h.begin(), h.end());
  } else {
    d->derived = device_memory(std::size_t(n) * sizeof(K));
    derive_keys_kernel<<<2048, 256>>>(d->base->template slice<K>(0), d->derived.template as<K>(), std::size_t(n),
                                      s == keyset::low_entropy ? 1 : 2);
    check(cudaGetLastError(), "launch of derive_keys_kernel");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (derived keys)");
    d->host0 = to_host(d->derived.template as<K>(), std::size_t(n));
  }
  return d;
}

/// Order-independent hash of a multiset of (key, value) pairs.
inline std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}
template <class K>
std::uint64_t key_bits(const K& k) {
  std::uint64_t b = 0;
  std::memcpy(&b, &k, sizeof(K));
  return b;
}

/// Checks a sorted output against the input: sorted, the same multiset, stable (values = input positions).
template <class K, class V>
std::string check_sorted(const std::vector<K>& in, const std::vector<K>& out, const std::vector<V>* vals,
                         int end_bit) {
  const cuprim::host::sort_compare<K> less{false, 0, end_bit};
  const std::size_t n = in.size();
  std::uint64_t h_in = 0, h_out = 0;
  for (std::size_t i = 0; i < n; ++i) {
    h_in += mix(key_bits(in[i]) ^ (vals ? mix(i + 1) : 0));
    const std::uint64_t v = vals ? std::uint64_t((*vals)[i]) : 0;
    h_out += mix(key_bits(out[i]) ^ (vals ? mix(v + 1) : 0));
    if (vals && v < n && !(key_bits(in[v]) == key_bits(out[i]))) {
      return "value " + std::to_string(i) + " does not point at its key";
    }
    if (i > 0) {
      if (less(out[i], out[i - 1])) return "not sorted at " + std::to_string(i);
      if (vals && !less(out[i - 1], out[i]) && (*vals)[i] <= (*vals)[i - 1])
        return "not stable at " + std::to_string(i);
    }
  }
  if (h_in != h_out) return "not a permutation of the input";
  return "";
}

struct policy_default {};

template <class K, class V, class P>
case_def make_case(std::string name, std::string op, std::string variant, std::int64_t n, keyset ks, bool quick,
                   bool baseline, int end_bit = int(sizeof(K) * 8)) {
  constexpr bool pairs = !std::is_void_v<V>;
  using VV = std::conditional_t<pairs, V, std::uint32_t>;
  using Pol = std::conditional_t<std::is_same_v<P, policy_default>, void, P>;
  case_def c;
  c.name = std::move(name);
  c.family = "sort";
  c.op = std::move(op);
  c.variant = std::move(variant);
  c.dtype = pairs ? std::string(name_of<K>()) + "+" + name_of<VV>() : std::string(name_of<K>());
  c.n = n;
  c.bytes = 2.0 * double(n) * (sizeof(K) + (pairs ? sizeof(VV) : 0));  // read once, written once
  c.quick = quick;
  if (baseline) c.baseline = pairs ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys";
  c.setup = [n, ks, baseline, end_bit]() -> bench {
    struct state {
      std::shared_ptr<const key_data<K>> keys;
      device_memory vals, out, vout, ws, base_out, base_vout, base_temp;
      std::size_t ws_bytes = 0, base_temp_bytes = 0;
    };
    auto st = std::make_shared<state>();
    st->keys = keys_for<K>(n, ks);
    st->out = device_memory(std::size_t(n) * sizeof(K));
    if constexpr (pairs) {
      st->vals = device_memory(std::size_t(n) * sizeof(VV));
      st->vout = device_memory(std::size_t(n) * sizeof(VV));
      iota_kernel<<<2048, 256>>>(st->vals.template as<VV>(), std::size_t(n));
      check(cudaGetLastError(), "launch of iota_kernel");
      st->ws_bytes = cuprim::radix_sort_pairs_workspace_bytes<K, VV, Pol>(n);
    } else {
      st->ws_bytes = cuprim::radix_sort_keys_workspace_bytes<K, Pol>(n);
    }
    st->ws = device_memory(std::max<std::size_t>(st->ws_bytes, 1));
    bench b;
    b.input_slices = st->keys->slices;
    b.run = [st, n, end_bit](cudaStream_t s, int rep) {
      const cuprim::workspace ws{st->ws.get(), st->ws_bytes};
      const cuprim::radix_sort_options opt{cuprim::sort_order::ascending, 0, end_bit};
      if constexpr (pairs)
        cuprim::radix_sort_pairs<Pol>(st->keys->slice(rep), st->out.template as<K>(), st->vals.template as<VV>(),
                                      st->vout.template as<VV>(), n, ws, opt, s);
      else cuprim::radix_sort_keys<Pol>(st->keys->slice(rep), st->out.template as<K>(), n, ws, opt, s);
    };
    auto cub_call = [st, n, end_bit](void* temp, std::size_t& bytes, int rep, cudaStream_t s) {
      if (n > std::numeric_limits<int>::max()) throw std::length_error("cuprim-lab: CUB baseline with n >= 2^31");
      cudaError_t e;
      if constexpr (pairs)
        e = cub::DeviceRadixSort::SortPairs(temp, bytes, st->keys->slice(rep), st->base_out.template as<K>(),
                                            st->vals.template as<VV>(), st->base_vout.template as<VV>(), int(n), 0,
                                            end_bit, s);
      else
        e = cub::DeviceRadixSort::SortKeys(temp, bytes, st->keys->slice(rep), st->base_out.template as<K>(), int(n),
                                           0, end_bit, s);
      check(e, "cub::DeviceRadixSort");
    };
    if (baseline) {
      st->base_out = device_memory(std::size_t(n) * sizeof(K));
      if constexpr (pairs) st->base_vout = device_memory(std::size_t(n) * sizeof(VV));
      cub_call(nullptr, st->base_temp_bytes, 0, 0);
      st->base_temp = device_memory(std::max<std::size_t>(st->base_temp_bytes, 1));
      b.baseline = [st, cub_call](cudaStream_t s, int rep) {
        std::size_t bytes = st->base_temp_bytes;
        cub_call(st->base_temp.get(), bytes, rep, s);
      };
    }
    b.verify = [st, n, end_bit, run = b.run, base = b.baseline]() {
      verify_result v;
      st->out.poison();
      st->ws.poison();
      if constexpr (pairs) st->vout.poison();
      run(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
      const auto out = to_host(st->out.template as<K>(), std::size_t(n));
      std::vector<VV> vout;
      if constexpr (pairs) vout = to_host(st->vout.template as<VV>(), std::size_t(n));
      std::string e = check_sorted<K, VV>(st->keys->host0, out, pairs ? &vout : nullptr, end_bit);
      std::string eb;
      if (base) {
        st->base_out.poison();
        if constexpr (pairs) st->base_vout.poison();
        base(0, 0);
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify baseline)");
        const auto bout = to_host(st->base_out.template as<K>(), std::size_t(n));
        std::vector<VV> bvout;
        if constexpr (pairs) bvout = to_host(st->base_vout.template as<VV>(), std::size_t(n));
        // Bitwise equal to cuprim's output (already checked) makes CUB's correct too; otherwise check it alone.
        const bool same = std::memcmp(out.data(), bout.data(), out.size() * sizeof(K)) == 0 &&
                          (!pairs || std::memcmp(vout.data(), bvout.data(), vout.size() * sizeof(VV)) == 0);
        if (!same) {
          eb = check_sorted<K, VV>(st->keys->host0, bout, pairs ? &bvout : nullptr, end_bit);
          if (e.empty() && eb.empty()) e = "output differs from CUB's";
        }
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

template <class K, class V = void>
void add_production(std::int64_t n, keyset ks, bool quick) {
  const bool pairs = !std::is_void_v<V>;
  std::string dt = name_of<K>();
  if constexpr (!std::is_void_v<V>) dt += std::string("+") + name_of<V>();
  const std::string op = pairs ? "pairs" : "keys";
  case_def c = make_case<K, V, policy_default>("sort/" + op + "/" + keyset_key(ks) + "/" + dt + "/" + size_label(n), op,
                                              std::string("production ") + keyset_name(ks), n, ks, quick, true);
  // From 2^26 keys both libraries' times move by up to 12% with where the buffers lie in physical memory, each in
  // its own direction (docs/tuning.md, "Radix sort", runs 13-14): the figure is the mean over nine placements.
  if (n >= (std::int64_t(1) << 26)) c.placements = 9;
  add_case(std::move(c));
}

template <int Threads, int Items, int LookBack, int Rank = 0, bool Early = false>
void add_policy(std::int64_t n) {
  using P = cuprim::radix_sort_policy<Threads, Items, 512, 8, 16, LookBack, Rank, Early>;
  static const char* const rank_name[] = {"", " rank-atomic", " rank-match"};
  static const char* const rank_key[] = {"", "-atomic", "-match"};
  const std::string label = std::to_string(Threads) + "x" + std::to_string(Items) + " lb" + std::to_string(LookBack) +
                            rank_name[Rank] + (Early ? " early" : "");
  const std::string key = std::to_string(Threads) + "x" + std::to_string(Items) + "-lb" + std::to_string(LookBack) +
                          rank_key[Rank] + (Early ? "-early" : "");
  add_case(make_case<std::uint32_t, void, P>("sort/policy/" + key + "/uint32/" + size_label(n), "keys", label, n,
                                             keyset::random, false, true));
}

/// The production sort over the low `bits` bits only (one or two passes): with the full sort, separates the
/// histogram pass and the fixed costs from the per-pass cost.
void add_bits(std::int64_t n, int bits) {
  add_case(make_case<std::uint32_t, void, policy_default>(
      "sort/bits/0-" + std::to_string(bits) + "/uint32/" + size_label(n), "keys",
      "bits [0," + std::to_string(bits) + ")", n, keyset::random, false, true, bits));
}

template <class P>
std::string policy_text() {
  return "onesweep " + std::to_string(P::threads) + "x" + std::to_string(P::items) + " (tile " +
         std::to_string(P::tile) + "), one block up to " + std::to_string(P::small_tile) + " keys (" +
         std::to_string(P::small_threads) + "x" + std::to_string(P::small_items) + "), one cluster from " +
         std::to_string(P::cluster_threads + 1) + " to " + std::to_string(P::cluster_tile) + " keys (blocks of " +
         std::to_string(P::cluster_threads) + " threads, up to " + std::to_string(P::cluster_items) +
         " keys each), histogram " + std::to_string(P::hist_threads) + "x" +
         std::to_string(P::hist_items) + " (one block per SM, a copy of the counters per lane), look-back window " +
         std::to_string(P::look_back) +
         (P::rank == 0 ? ", rank by ballots + warp-synchronous counters" : P::rank == 1 ? ", rank by ballots + shared atomics" : ", rank by match.any + shared atomics") +
         (P::early_counts ? ", early counts" : "") +
         (P::exchange_first ? ", keys exchanged before the look-back" : "") +
         (P::joint_exchange ? ", pairs exchanged jointly" : "") +
         (P::prefetch_tiles > 0 ? ", keys of the tile " + std::to_string(P::prefetch_tiles) + " ahead prefetched to L2"
                                : std::string()) +
         (P::store_hint == 1 ? ", stores under L2 evict_first"
          : P::store_hint == 2 ? ", stores under L2 evict_last but in the last pass" : "");
}


// ---------------------------------------------------------------------------------------------------------
// Segmented sort: uint32 keys in `segments` segments cut at uniform random points (exponential-like lengths,
// empty ones included), against cub::DeviceSegmentedSort::StableSortKeys.

case_def make_segmented_case(std::int64_t n, std::int64_t segments, bool quick) {
  using K = std::uint32_t;
  case_def c;
  c.name = "sort/segmented/" + size_label(segments) + "-segments/uint32/" + size_label(n);
  c.family = "sort";
  c.op = "segmented";
  c.variant = size_label(segments) + " random segments";
  c.dtype = name_of<K>();
  c.n = n;
  c.bytes = 2.0 * double(n) * sizeof(K) + double(segments + 1) * sizeof(std::int32_t);
  c.quick = quick;
  c.baseline = "cub::DeviceSegmentedSort::StableSortKeys";
  c.setup = [n, segments]() -> bench {
    struct state {
      std::shared_ptr<const key_data<K>> keys;
      std::vector<std::int32_t> off;
      device_memory d_off, out, ws, base_out, base_temp;
      std::size_t ws_bytes = 0, base_temp_bytes = 0;
    };
    auto st = std::make_shared<state>();
    st->keys = keys_for<K>(n, keyset::random);
    std::mt19937_64 gen(99 + std::uint64_t(segments));
    std::uniform_int_distribution<std::int64_t> cut(0, n);
    st->off.assign(std::size_t(segments) + 1, 0);
    for (std::int64_t s = 1; s < segments; ++s) st->off[std::size_t(s)] = std::int32_t(cut(gen));
    st->off[std::size_t(segments)] = std::int32_t(n);
    std::sort(st->off.begin(), st->off.end());
    st->d_off = device_memory(st->off.size() * sizeof(std::int32_t));
    check(cudaMemcpy(st->d_off.get(), st->off.data(), st->off.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice),
          "cudaMemcpy (offsets)");
    st->out = device_memory(std::size_t(n) * sizeof(K));
    st->base_out = device_memory(std::size_t(n) * sizeof(K));
    st->ws_bytes = cuprim::segmented_sort_keys_workspace_bytes<K, std::int32_t>(n, segments);
    st->ws = device_memory(std::max<std::size_t>(st->ws_bytes, 1));
    const std::int32_t* off = st->d_off.as<std::int32_t>();
    auto cub_call = [st, n, segments, off](void* temp, std::size_t& bytes, int rep, cudaStream_t s) {
      check(cub::DeviceSegmentedSort::StableSortKeys(temp, bytes, st->keys->slice(rep), st->base_out.as<K>(), int(n),
                                                     int(segments), off, off + 1, s),
            "cub::DeviceSegmentedSort::StableSortKeys");
    };
    cub_call(nullptr, st->base_temp_bytes, 0, 0);
    st->base_temp = device_memory(std::max<std::size_t>(st->base_temp_bytes, 1));
    bench b;
    b.input_slices = st->keys->slices;
    b.run = [st, n, segments, off](cudaStream_t s, int rep) {
      cuprim::segmented_sort_keys(st->keys->slice(rep), st->out.as<K>(), n, segments, off,
                                  cuprim::workspace{st->ws.get(), st->ws_bytes}, {}, s);
    };
    b.baseline = [st, cub_call](cudaStream_t s, int rep) {
      std::size_t bytes = st->base_temp_bytes;
      cub_call(st->base_temp.get(), bytes, rep, s);
    };
    b.verify = [st, n, segments, run = b.run, base = b.baseline]() {
      verify_result v;
      st->out.poison();
      st->base_out.poison();
      run(0, 0);
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
      std::vector<K> want = st->keys->host0;
      for (std::int64_t s = 0; s < segments; ++s)
        std::sort(want.begin() + st->off[std::size_t(s)], want.begin() + st->off[std::size_t(s) + 1]);
      const auto out = to_host(st->out.as<K>(), std::size_t(n));
      const auto bout = to_host(st->base_out.as<K>(), std::size_t(n));
      v.ok = out == want;
      v.baseline_ok = bout == want;
      v.detail = v.ok ? (v.baseline_ok ? "" : "baseline differs from the host sort") : "differs from the host sort";
      return v;
    };
    return b;
  };
  return c;
}

// ---------------------------------------------------------------------------------------------------------
// The ladder: the lecture's split sort (one bit per pass, one scan per bit) and a 4-bit-digit sort with a
// per-block histogram pass, both stable LSD sorts of uint32 keys built on cuprim::exclusive_scan.

/// f[i] = 1 when bit b of key i is 0 (the keys that go first).
__global__ void split_flags_kernel(const std::uint32_t* k, std::uint32_t* f, std::size_t n, int b) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    f[i] = ((k[i] >> b) & 1u) ? 0u : 1u;
}
/// Zeros go to pos[i] (zeros before i); ones after all zeros, in order: zeros_total + i - pos[i].
__global__ void split_scatter_kernel(const std::uint32_t* k, const std::uint32_t* f, const std::uint32_t* pos,
                                     std::uint32_t* out, std::size_t n) {
  const std::uint32_t zeros = pos[n - 1] + f[n - 1];
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[f[i] ? pos[i] : zeros + std::uint32_t(i) - pos[i]] = k[i];
}

constexpr int ladder_threads = 256, ladder_items = 8, ladder_tile = ladder_threads * ladder_items;

/// counts[d * blocks + block] = keys of digit d (4 bits at `shift`) in the block's tile.
__global__ void __launch_bounds__(ladder_threads) digit4_count_kernel(const std::uint32_t* k, std::uint32_t* counts,
                                                                       std::size_t n, int shift) {
  __shared__ std::uint32_t c[16];
  if (threadIdx.x < 16) c[threadIdx.x] = 0;
  __syncthreads();
  const std::size_t base = std::size_t(blockIdx.x) * ladder_tile;
  for (int i = 0; i < ladder_items; ++i) {
    const std::size_t idx = base + std::size_t(i) * ladder_threads + threadIdx.x;
    if (idx < n) atomicAdd(&c[(k[idx] >> shift) & 15u], 1u);
  }
  __syncthreads();
  if (threadIdx.x < 16) counts[std::size_t(threadIdx.x) * gridDim.x + blockIdx.x] = c[threadIdx.x];
}

/// Stable scatter: each warp ranks its keys (warp-striped) by 4-bit digit with ballots, warps are ordered in the
/// block, the block's digit start comes from the scanned counts.
__global__ void __launch_bounds__(ladder_threads) digit4_scatter_kernel(const std::uint32_t* k,
                                                                         const std::uint32_t* offsets,
                                                                         std::uint32_t* out, std::size_t n, int shift) {
  constexpr int W = ladder_threads / 32;
  __shared__ std::uint32_t hist[W][17];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = threadIdx.x; i < W * 17; i += ladder_threads) (&hist[0][0])[i] = 0;
  __syncthreads();
  const std::size_t first = std::size_t(blockIdx.x) * ladder_tile + std::size_t(warp) * ladder_items * 32 + lane;
  std::uint32_t key[ladder_items], rank[ladder_items];
  const unsigned lt = (1u << lane) - 1u;
  for (int i = 0; i < ladder_items; ++i) {
    const std::size_t idx = first + std::size_t(i) * 32;
    const bool ok = idx < n;
    key[i] = ok ? k[idx] : 0u;
    const unsigned d = ok ? (key[i] >> shift) & 15u : 16u;
    const unsigned peers = cuprim::detail::radix_match<5>(d);
    const unsigned before = hist[warp][d];
    __syncwarp();
    if ((peers & lt) == 0) hist[warp][d] = before + __popc(peers);
    __syncwarp();
    rank[i] = before + __popc(peers & lt);
  }
  __syncthreads();
  if (threadIdx.x < 16) {  // warp starts within the block, per digit
    std::uint32_t run = 0;
    for (int w = 0; w < W; ++w) {
      const std::uint32_t c = hist[w][threadIdx.x];
      hist[w][threadIdx.x] = run;
      run += c;
    }
  }
  __syncthreads();
  for (int i = 0; i < ladder_items; ++i) {
    const std::size_t idx = first + std::size_t(i) * 32;
    if (idx < n) {
      const unsigned d = (key[i] >> shift) & 15u;
      out[offsets[std::size_t(d) * gridDim.x + blockIdx.x] + hist[warp][d] + rank[i]] = key[i];
    }
  }
}

enum class rung { split_bit, digit4 };

case_def make_ladder_case(rung r, std::int64_t n) {
  using K = std::uint32_t;
  case_def c;
  const char* key = r == rung::split_bit ? "split-bit" : "4bit-digit";
  c.name = std::string("sort/ladder/") + key + "/uint32/" + size_label(n);
  c.family = "sort";
  c.op = "keys";
  c.variant = r == rung::split_bit ? "ladder: 1-bit split, scan per bit" : "ladder: 4-bit, block histograms";
  c.dtype = name_of<K>();
  c.n = n;
  c.bytes = 2.0 * double(n) * sizeof(K);
  c.baseline = "cub::DeviceRadixSort::SortKeys";
  c.setup = [r, n]() -> bench {
    struct state {
      std::shared_ptr<const key_data<K>> keys;
      device_memory a, b, f, pos, counts, offsets, ws, base_out, base_temp;
      std::size_t ws_bytes = 0, base_temp_bytes = 0;
      std::uint64_t blocks = 0;
    };
    auto st = std::make_shared<state>();
    st->keys = keys_for<K>(n, keyset::random);
    st->a = device_memory(std::size_t(n) * sizeof(K));
    st->b = device_memory(std::size_t(n) * sizeof(K));
    st->blocks = (std::uint64_t(n) + ladder_tile - 1) / ladder_tile;
    if (r == rung::split_bit) {
      st->f = device_memory(std::size_t(n) * sizeof(K));
      st->pos = device_memory(std::size_t(n) * sizeof(K));
      st->ws_bytes = cuprim::scan_workspace_bytes<K, K>(n);
    } else {
      st->counts = device_memory(std::size_t(st->blocks) * 16 * sizeof(K));
      st->offsets = device_memory(std::size_t(st->blocks) * 16 * sizeof(K));
      st->ws_bytes = cuprim::scan_workspace_bytes<K, K>(std::int64_t(st->blocks) * 16);
    }
    st->ws = device_memory(std::max<std::size_t>(st->ws_bytes, 1));
    bench b;
    b.input_slices = st->keys->slices;
    // Pass 0 reads the input into a; then b, a, ...; 32 and 8 passes both end in b.
    b.run = [st, r, n](cudaStream_t s, int rep) {
      const cuprim::workspace ws{st->ws.get(), st->ws_bytes};
      const std::size_t un = std::size_t(n);
      const int passes = r == rung::split_bit ? 32 : 8;
      for (int p = 0; p < passes; ++p) {
        const K* src = p == 0 ? st->keys->slice(rep) : ((p & 1) ? st->a.as<K>() : st->b.as<K>());
        K* dst = (p & 1) ? st->b.as<K>() : st->a.as<K>();
        if (r == rung::split_bit) {
          split_flags_kernel<<<2048, 256, 0, s>>>(src, st->f.as<K>(), un, p);
          cuprim::exclusive_scan(st->f.as<K>(), st->pos.as<K>(), n, cuprim::plus{}, K(0), ws, s);
          split_scatter_kernel<<<2048, 256, 0, s>>>(src, st->f.as<K>(), st->pos.as<K>(), dst, un);
        } else {
          digit4_count_kernel<<<unsigned(st->blocks), ladder_threads, 0, s>>>(src, st->counts.as<K>(), un, 4 * p);
          cuprim::exclusive_scan(st->counts.as<K>(), st->offsets.as<K>(), std::int64_t(st->blocks) * 16,
                                 cuprim::plus{}, K(0), ws, s);
          digit4_scatter_kernel<<<unsigned(st->blocks), ladder_threads, 0, s>>>(src, st->offsets.as<K>(), dst, un,
                                                                               4 * p);
        }
      }
      check(cudaGetLastError(), "launch of a ladder kernel");
    };
    st->base_out = device_memory(std::size_t(n) * sizeof(K));
    auto cub_call = [st, n](void* temp, std::size_t& bytes, int rep, cudaStream_t s) {
      check(cub::DeviceRadixSort::SortKeys(temp, bytes, st->keys->slice(rep), st->base_out.as<K>(), int(n), 0, 32, s),
            "cub::DeviceRadixSort");
    };
    cub_call(nullptr, st->base_temp_bytes, 0, 0);
    st->base_temp = device_memory(std::max<std::size_t>(st->base_temp_bytes, 1));
    b.baseline = [st, cub_call](cudaStream_t s, int rep) {
      std::size_t bytes = st->base_temp_bytes;
      cub_call(st->base_temp.get(), bytes, rep, s);
    };
    b.verify = [st, n, run = b.run, base = b.baseline]() {
      verify_result v;
      st->b.poison();
      run(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
      const auto out = to_host(st->b.as<K>(), std::size_t(n));
      std::string e = check_sorted<K, K>(st->keys->host0, out, nullptr, 32);
      base(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify baseline)");
      const auto bout = to_host(st->base_out.as<K>(), std::size_t(n));
      if (e.empty() && std::memcmp(out.data(), bout.data(), out.size() * sizeof(K)) != 0) e = "output differs from CUB's";
      v.ok = e.empty();
      v.detail = e;
      return v;
    };
    return b;
  };
  return c;
}

}  // namespace

void register_sort() {
  // The targets: 2^28 uint32 keys, 2^27 uint32 pairs, 2^27 uint64 keys, 2^28 float keys, low-entropy keys.
  add_production<std::uint32_t>(pow2(28), keyset::random, true);
  add_production<std::uint32_t, std::uint32_t>(pow2(27), keyset::random, true);
  add_production<std::uint64_t>(pow2(27), keyset::random, true);
  add_production<float>(pow2(28), keyset::random, true);
  add_production<std::uint32_t>(pow2(28), keyset::low_entropy, true);
  add_production<std::uint32_t>(pow2(28), keyset::equal, true);
  // Sizes: the one-block path (2^10), the cluster sort (2^12 to 2^16), the one-sweep path at middle sizes.
  for (int k : {10, 12, 14, 16, 20, 24}) add_production<std::uint32_t>(pow2(k), keyset::random, false);
  add_production<std::uint32_t, std::uint32_t>(pow2(16), keyset::random, false);
  add_production<std::uint64_t>(pow2(16), keyset::random, false);
  // Small inputs without the cluster sort (one block up to 2^12, then the one-sweep path), and with clusters of
  // 256-thread blocks: what the cluster sort saves, and where it should start.
  using policy_no_cluster = cuprim::radix_sort_policy<384, 24, 512, 8, 16, 8, 1, false, false>;
  using policy_cluster256 = cuprim::radix_sort_policy<384, 24, 512, 8, 16, 8, 1, false, true, 256, 32>;
  using policy_block1024 = cuprim::radix_sort_policy<384, 24, 1024, 4, 16, 8, 1, false, false>;
  for (int k : {10, 12})
    add_case(make_case<std::uint32_t, void, policy_block1024>("sort/small/block1024/uint32/" + size_label(pow2(k)),
                                                              "keys", "one block of 1024 threads", pow2(k),
                                                              keyset::random, false, true));
  for (int k : {10, 12, 14, 16}) {
    add_case(make_case<std::uint32_t, void, policy_no_cluster>("sort/small/no-cluster/uint32/" + size_label(pow2(k)),
                                                               "keys", "no cluster sort", pow2(k), keyset::random,
                                                               false, true));
    add_case(make_case<std::uint32_t, void, policy_cluster256>("sort/small/cluster256/uint32/" + size_label(pow2(k)),
                                                               "keys", "cluster of 256-thread blocks", pow2(k),
                                                               keyset::random, false, true));
  }
  add_production<std::uint64_t, std::uint64_t>(pow2(26), keyset::random, false);
  // The ladder (uint32 keys, 2^24): split by one bit with a scan per bit; 4-bit digits with block histograms.
  add_case(make_ladder_case(rung::split_bit, pow2(24)));
  add_case(make_ladder_case(rung::digit4, pow2(24)));
  // Segmented sort: 2^24 keys in 2^20 random segments (the target), and in 16 (a few huge ones).
  add_case(make_segmented_case(pow2(24), pow2(20), true));
  add_case(make_segmented_case(pow2(24), 16, false));
  add_case(make_segmented_case(pow2(24), pow2(17), false));
  // Per-pass cost: 8 and 16 of the 32 bits.
  add_bits(pow2(28), 8);
  add_bits(pow2(28), 16);
  // Policy sweep (uint32 keys, 2^28): threads x items, look-back window (lb1: one dependent load per tile), rank
  // (1: ballots + shared atomic), early counts. The default is 384 x 40, window 2 (docs/tuning.md, run 4).
  add_policy<384, 24, 8, 1>(pow2(28));
  add_policy<384, 28, 2, 1>(pow2(28));
  add_policy<384, 32, 2, 1>(pow2(28));
  add_policy<384, 36, 2, 1>(pow2(28));
  add_policy<384, 40, 1, 1>(pow2(28));
  add_policy<384, 40, 4, 1>(pow2(28));
  add_policy<384, 40, 8, 1>(pow2(28));
  add_policy<384, 40, 2, 1, true>(pow2(28));
  add_policy<512, 24, 2, 1>(pow2(28));

  add_note("sort/", "sort policy (uint32 keys): " +
                        policy_text<cuprim::radix_sort_default_policy<4, 0>::type>() +
                        "; pairs (uint32 + uint32): each pair packed into an 8-byte key (the key above the value) "
                        "by the first pass and unpacked by the last, every pass in the uint64 keys' policy (below); "
                        "pairs of float keys: " +
                        policy_text<cuprim::radix_sort_default_policy<4, 4>::type>() +
                        "; uint64 keys: " + policy_text<cuprim::radix_sort_default_policy<8, 0>::type>() +
                        "; workspaces allocated once before timing; CUB gets int num_items and the full bit range");
  add_note("sort/", "sort: GB/s counts keys (and values) read once and written once; outputs checked sorted, a "
                    "permutation, stable (pairs carry their input positions) and bitwise equal to CUB's");
  add_note("sort/", "sort: production rows from 2^26 keys are timed in 9 placements of their buffers in physical "
                    "memory (the first as the run left memory, then each made while 736 MiB more is held, inputs "
                    "moved too; verified in the first); median_ms and base_ms are the means over the placements of "
                    "each placement's median (--placements P overrides)");
}

}  // namespace lab
