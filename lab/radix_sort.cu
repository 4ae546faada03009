// lab/radix_sort.cu: the radix sort family: cuprim::radix_sort_keys / radix_sort_pairs and the segmented sort (and
// the ladder: split by one bit with a scan per bit, 4-bit digits with block histograms) against
// cub::DeviceRadixSort::SortKeys / SortPairs and cub::DeviceSegmentedSort in the same run, over random keys and
// low-entropy keys. Inputs and verification: radix_sort_common.cuh. The policy sweep is in radix_sort_sweep.cu.
#include "radix_sort_common.cuh"

#include <cuprim/device/scan.cuh>
#include <cuprim/device/segmented_sort.cuh>

#include <cub/device/device_segmented_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace lab {
namespace {

using namespace radix_sort_family;

template <class K, class V = void>
void add_production(std::int64_t n, keyset ks, bool quick) {
  const bool pairs = !std::is_void_v<V>;
  std::string dt = name_of<K>();
  if constexpr (!std::is_void_v<V>) dt += std::string("+") + name_of<V>();
  const std::string op = pairs ? "pairs" : "keys";
  case_def c = make_case<K, V>("radix_sort/" + op + "/" + names_of(ks).key + "/" + dt + "/" + size_label(n), op,
                                std::string("production ") + names_of(ks).label, n, ks, quick, true);
  // From 2^26 keys both libraries' times move by up to 12% with where the buffers lie in physical memory, each in
  // its own direction (docs/tuning/radix_sort.md, runs 13-14): the figure is the mean over nine placements.
  if (n >= (std::int64_t(1) << 26)) c.placements = 9;
  add_case(std::move(c));
}

/// The production sort over the low `bits` bits only (one or two passes): with the full sort, separates the
/// histogram pass and the fixed costs from the per-pass cost.
void add_bits(std::int64_t n, int bits) {
  add_case(make_case<std::uint32_t, void>("radix_sort/bits/0-" + std::to_string(bits) + "/uint32/" + size_label(n),
                                          "keys", "bits [0," + std::to_string(bits) + ")", n, keyset::random, false,
                                          true, bits));
}

// ---------------------------------------------------------------------------------------------------------
// Segmented sort: uint32 keys in `segments` segments cut at uniform random points (exponential-like lengths,
// empty ones included), against cub::DeviceSegmentedSort::StableSortKeys.

case_def make_segmented_case(std::int64_t n, std::int64_t segments, bool quick) {
  using K = std::uint32_t;
  case_def c;
  c.name = "radix_sort/segmented/" + size_label(segments) + "-segments/uint32/" + size_label(n);
  c.family = "radix_sort";
  c.op = "segmented";
  c.variant = size_label(segments) + " random segments";
  c.dtype = name_of<K>();
  c.n = n;
  c.bytes = 2.0 * double(n) * sizeof(K) + double(segments + 1) * sizeof(std::int32_t);
  c.quick = quick;
  c.baseline = "cub::DeviceSegmentedSort::StableSortKeys";
  c.policy = [] { return record_policy(policy_of<K, void, cuprim::tuned>()); };
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
    bench b;
    b.input_slices = st->keys->slices;
    b.run = [st, n, segments, off](cudaStream_t s, int rep) {
      cuprim::segmented_sort_keys(st->keys->slice(rep), st->out.as<K>(), n, segments, off,
                                  cuprim::workspace{st->ws.get(), st->ws_bytes}, {}, s);
    };
    b.baseline = cub_baseline(st, cub_call);
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
  c.name = std::string("radix_sort/ladder/") + key + "/uint32/" + size_label(n);
  c.family = "radix_sort";
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
    b.baseline = cub_baseline(st, cub_call);
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
      if (e.empty() && std::memcmp(out.data(), bout.data(), out.size() * sizeof(K)) != 0)
        e = "output differs from CUB's";
      v.ok = e.empty();
      v.detail = e;
      return v;
    };
    return b;
  };
  return c;
}

}  // namespace

void register_radix_sort() {
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

  add_note("radix_sort/", "radix_sort: each row prints the policy of its keys' and values' sizes; pairs of uint32 "
                          "keys and uint32 values travel packed into 8-byte keys (the key above the value), packed by "
                          "the first pass and unpacked by the last, every pass under the uint64 keys' row; "
                          "workspaces allocated once before timing; CUB gets int num_items and the full bit range");
  add_note("radix_sort/", "radix_sort: GB/s counts keys (and values) read once and written once; outputs checked "
                          "sorted, a permutation, stable (pairs carry their input positions) and bitwise equal to "
                          "CUB's");
  add_note("radix_sort/", "radix_sort: rows from 2^26 keys are timed in 9 placements of their buffers in physical "
                          "memory (the first as the run left memory, then each made while 736 MiB more is held, inputs "
                          "moved too; verified in the first); median_ms and base_ms are the means over the placements "
                          "of each placement's median (--placements P overrides)");
}

}  // namespace lab
