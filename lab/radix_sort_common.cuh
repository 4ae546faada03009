// lab/radix_sort_common.cuh: the pieces of the radix sort family shared by radix_sort.cu and radix_sort_sweep.cu:
// the key sets, verification of a sorted output, and the case builder (cuprim against CUB's DeviceRadixSort).
//
// Inputs: lab::random_input (uint32 / uint64: every value; float: uniform [0, 1)). Low-entropy keys are the random
// uint32 keys masked to one bit per byte (x & 0x01010101: each byte 0 or 1, one bit of entropy per byte); "equal"
// keys are all the same value. Pairs carry the values 0, 1, ..., n - 1 so that stability can be checked.
//
// Verification (before timing): cuprim's output is sorted, a permutation of the input (order-independent hashes
// of the keys, and of the (key, value) pairs), stable (equal keys have increasing values), and bitwise equal to
// CUB's output; CUB's output is checked the same way.
#pragma once

#include "lab.hpp"

#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/device/radix_sort.cuh>
#include <cuprim/host/radix_sort.hpp>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace lab::radix_sort_family {

constexpr std::int64_t pow2(int k) { return std::int64_t(1) << k; }

enum class keyset { random, low_entropy, equal };

/// A key set's name in case names (key) and in the variant column (label), in keyset's order.
struct keyset_names {
  const char* key;
  const char* label;
};
inline keyset_names names_of(keyset s) {
  constexpr keyset_names names[] = {{"random", "random"}, {"lowentropy", "1 bit/byte"}, {"equal", "all equal"}};
  return names[int(s)];
}

/// The timed baseline of a case whose state `st` keeps CUB's temporary storage (base_temp, base_temp_bytes):
/// sizes and allocates it with cub_call(nullptr, bytes, 0, 0), then returns one call of cub_call on it.
template <class State, class Call>
std::function<void(cudaStream_t, int)> cub_baseline(const std::shared_ptr<State>& st, Call cub_call) {
  cub_call(nullptr, st->base_temp_bytes, 0, 0);
  st->base_temp = device_memory(std::max<std::size_t>(st->base_temp_bytes, 1));
  return [st, cub_call](cudaStream_t s, int rep) {
    std::size_t bytes = st->base_temp_bytes;
    cub_call(st->base_temp.get(), bytes, rep, s);
  };
}

template <class K>
__global__ void derive_keys_kernel(const K* in, K* out, std::size_t n, int mode) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if constexpr (std::is_integral_v<K>)
      out[i] = mode == 1 ? K(in[i] & K(0x0101010101010101ull)) : K(0x5a5a5a5a5a5a5a5aull);
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

/// The verification's result: e, what was wrong with cuprim's output, and eb, with the baseline's (empty: nothing).
inline verify_result verdict(const std::string& e, const std::string& eb) {
  verify_result v;
  v.ok = e.empty();
  v.baseline_ok = eb.empty();
  v.detail = e.empty() ? (eb.empty() ? "" : "baseline: " + eb) : (eb.empty() ? e : e + "; baseline: " + eb);
  return v;
}

/// The policy a sort of keys of K with values of V (void: keys alone) runs under Policy on the current device.
template <class K, class V, auto Policy>
cuprim::radix_sort_policy policy_of() {
  if constexpr (!std::is_same_v<std::remove_cvref_t<decltype(Policy)>, cuprim::tuned_t>)
    return Policy;
  else if constexpr (std::is_void_v<V>)
    return cuprim::radix_sort_policy_for(cuprim::current_tuned_arch(), int(sizeof(K)), 0);
  else
    return cuprim::radix_sort_policy_for(cuprim::current_tuned_arch(), int(sizeof(K)), int(sizeof(V)));
}

/// A case sorting n keys of K (with values of V: their input positions; void: keys alone) of keyset ks under Policy,
/// the bits [0, end_bit), against CUB's DeviceRadixSort (baseline) in the same run.
template <class K, class V, auto Policy = cuprim::tuned>
case_def make_case(std::string name, std::string op, std::string variant, std::int64_t n, keyset ks, bool quick,
                   bool baseline, int end_bit = int(sizeof(K) * 8)) {
  constexpr bool pairs = !std::is_void_v<V>;
  using VV = std::conditional_t<pairs, V, std::uint32_t>;
  case_def c;
  c.name = std::move(name);
  c.family = "radix_sort";
  c.op = std::move(op);
  c.variant = std::move(variant);
  c.dtype = pairs ? std::string(name_of<K>()) + "+" + name_of<VV>() : std::string(name_of<K>());
  c.n = n;
  c.bytes = 2.0 * double(n) * (sizeof(K) + (pairs ? sizeof(VV) : 0));  // read once, written once
  c.quick = quick;
  if (baseline) c.baseline = pairs ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys";
  c.policy = [] { return record_policy(policy_of<K, V, Policy>()); };
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
      st->ws_bytes = cuprim::radix_sort_pairs_workspace_bytes<K, VV, Policy>(n);
    } else {
      st->ws_bytes = cuprim::radix_sort_keys_workspace_bytes<K, Policy>(n);
    }
    st->ws = device_memory(std::max<std::size_t>(st->ws_bytes, 1));
    bench b;
    b.input_slices = st->keys->slices;
    b.run = [st, n, end_bit](cudaStream_t s, int rep) {
      const cuprim::workspace ws{st->ws.get(), st->ws_bytes};
      const cuprim::radix_sort_options opt{cuprim::sort_order::ascending, 0, end_bit};
      if constexpr (pairs)
        cuprim::radix_sort_pairs<Policy>(st->keys->slice(rep), st->out.template as<K>(), st->vals.template as<VV>(),
                                         st->vout.template as<VV>(), n, ws, opt, s);
      else cuprim::radix_sort_keys<Policy>(st->keys->slice(rep), st->out.template as<K>(), n, ws, opt, s);
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
      b.baseline = cub_baseline(st, cub_call);
    }
    b.verify = [st, n, end_bit, run = b.run, base = b.baseline]() {
      // One call (cuprim's or CUB's) on poisoned outputs; its keys and values.
      auto outputs = [&](const std::function<void(cudaStream_t, int)>& call, device_memory& keys,
                         device_memory& vals) {
        keys.poison();
        if constexpr (pairs) vals.poison();
        call(0, 0);
        check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
        std::pair<std::vector<K>, std::vector<VV>> got{to_host(keys.template as<K>(), std::size_t(n)), {}};
        if constexpr (pairs) got.second = to_host(vals.template as<VV>(), std::size_t(n));
        return got;
      };
      st->ws.poison();
      const auto [out, vout] = outputs(run, st->out, st->vout);
      std::string e = check_sorted<K, VV>(st->keys->host0, out, pairs ? &vout : nullptr, end_bit);
      std::string eb;
      if (base) {
        const auto [bout, bvout] = outputs(base, st->base_out, st->base_vout);
        // Bitwise equal to cuprim's output (already checked) makes CUB's correct too; otherwise check it alone.
        const bool same = std::memcmp(out.data(), bout.data(), out.size() * sizeof(K)) == 0 &&
                          (!pairs || std::memcmp(vout.data(), bvout.data(), vout.size() * sizeof(VV)) == 0);
        if (!same) {
          eb = check_sorted<K, VV>(st->keys->host0, bout, pairs ? &bvout : nullptr, end_bit);
          if (e.empty() && eb.empty()) e = "output differs from CUB's";
        }
      }
      return verdict(e, eb);
    };
    return b;
  };
  return c;
}

/// "384x40-lb2-pf32-xf-joint-evl-pack": threads × items, the look-back window, and the options that are on (prefetch
/// tiles ahead, exchange first, joint exchange, evict_last stores, packed pairs); "-s" and "-c" name the on-chip
/// shapes when they differ from the struct's defaults.
inline std::string policy_label(const cuprim::radix_sort_policy& p) {
  const cuprim::radix_sort_policy d{};
  std::string s = std::to_string(p.threads) + "x" + std::to_string(p.items) + "-lb" + std::to_string(p.look_back);
  if (p.prefetch_tiles) s += "-pf" + std::to_string(p.prefetch_tiles);
  if (p.exchange_first) s += "-xf";
  if (p.joint_exchange) s += "-joint";
  if (p.store_hint == cuprim::detail::radix_store_evict_last) s += "-evl";
  if (p.pack) s += "-pack";
  if (p.min_blocks != d.min_blocks) s += "-mb" + std::to_string(p.min_blocks);
  if (p.hist_items != d.hist_items) s += "-h" + std::to_string(p.hist_items);
  if (p.small_threads != d.small_threads || p.small_items != d.small_items)
    s += "-s" + std::to_string(p.small_threads) + "x" + std::to_string(p.small_items);
  if (p.cluster_threads != d.cluster_threads || p.cluster_items != d.cluster_items)
    s += "-c" + std::to_string(p.cluster_threads) + "x" + std::to_string(p.cluster_items);
  return s;
}

}  // namespace lab::radix_sort_family
