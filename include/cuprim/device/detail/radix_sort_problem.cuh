// cuprim/device/detail/radix_sort_problem.cuh: what a radix sort is asked to do and what it needs: the options and
// double buffers of the entry points (device/radix_sort.cuh), the problem every launch function takes, the argument
// rules particular to the sort, and the workspace layouts, one per entry point kind, each of which both sizes the
// workspace (what <name>_workspace_bytes returns) and carves it.
#pragma once

#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/radix_sort_common.cuh>
#include <cuprim/device/detail/radix_sort_traits.cuh>
#include <cuprim/device/detail/radix_sort_tuning.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace cuprim {

enum class sort_order { ascending, descending };

/// What to sort by: the order and the bit range [begin_bit, end_bit) of the ordered key.
struct radix_sort_options {
  static constexpr int key_width = -1;  ///< end_bit default: the key's width in bits
  sort_order order = sort_order::ascending;
  int begin_bit = 0;
  int end_bit = key_width;
};

/// Two device buffers of n elements each; `selector` names the current one (0 or 1).
template <class T>
struct double_buffer {
  T* buffers[2] = {nullptr, nullptr};
  int selector = 0;
  double_buffer() = default;
  double_buffer(T* current, T* alternate) : buffers{current, alternate}, selector(0) {}
  T* current() const { return buffers[selector & 1]; }
  T* alternate() const { return buffers[(selector & 1) ^ 1]; }
};

namespace detail {

/// One sort, as every launch function takes it: the entry point (for errors), n keys, the bit range and order, the
/// workspace and the stream.
struct radix_sort_problem {
  const char* fn;
  std::uint64_t n;
  int begin_bit, end_bit;
  bool descending;
  workspace ws;
  cudaStream_t stream;
  int passes() const { return radix_passes(begin_bit, end_bit); }
};

/// The size class of values of V in the policy table: 0 for keys alone.
template <class V>
constexpr int radix_value_bytes = radix_has_values_v<V> ? int(sizeof(V)) : 0;

/// Values moved in every pass (1, 2, 4, 8 bytes) rather than by indices and a final gather.
template <class V>
constexpr bool radix_direct_v = !radix_has_values_v<V> || sizeof(V) == 1 || sizeof(V) == 2 || sizeof(V) == 4 ||
                                sizeof(V) == 8;

/// Whether radix_sort_pairs (plain form) and argsort under policy P pack keys of K with values of V (radix_sort_
/// policy's pack): 4-byte integer keys with 4-byte values.
template <radix_sort_policy P, class K, class V>
constexpr bool radix_packs_v = P.pack && sizeof(K) == 4 && radix_key<K>::kind != radix_kind::floating &&
                               radix_has_values_v<V> && sizeof(V) == 4;

/// Calls f.template operator()<Arch>() with the current device's tuned architecture (with_tuned_arch), or, under an
/// explicit policy (which gives every shape the call takes), with the oldest tuned one and no device query, so that
/// the argument and workspace rules of an explicit policy's call hold without a device.
template <auto Policy, class F>
decltype(auto) radix_with_arch(F&& f) {
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(Policy)>, tuned_t>)
    return with_tuned_arch(std::forward<F>(f));
  else
    return std::forward<F>(f).template operator()<tuned_archs[0]>();
}

/// The policy a sort of keys of K and values of V (radix_no_value: none) runs on architecture Arch.
template <auto Policy, int Arch, class K, class V>
constexpr radix_sort_policy radix_policy() {
  return pick_policy<Policy>(radix_sort_policy_for(Arch, int(sizeof(K)), radix_value_bytes<V>));
}

/// The policy of the packed passes (radix_sort_policy's pack): an explicit policy itself, else the row of 8-byte
/// keys alone (the packed passes move 8-byte keys).
template <auto Policy, int Arch>
constexpr radix_sort_policy radix_pack_policy() {
  return pick_policy<Policy>(radix_sort_policy_for(Arch, 8, 0));
}

// ---------------------------------------------------------------------------------------------------------------
// Argument rules of the sort (the general ones are core/validate.hpp's)

/// Checks n and the bit range against a key of `width` bits; returns end_bit resolved.
inline int radix_validate_bit_range(const char* fn, std::int64_t n, const radix_sort_options& o, int width,
                                    std::size_t key_bytes) {
  check_size(fn, "n", n, key_bytes);
  if (o.begin_bit < 0) throw_invalid(fn, "begin_bit", "must be non-negative");
  if (o.end_bit < 0 && o.end_bit != radix_sort_options::key_width)
    throw_invalid(fn, "end_bit", "must be non-negative (or radix_sort_options::key_width)");
  const int end = o.end_bit == radix_sort_options::key_width ? width : o.end_bit;
  if (end > width) throw_invalid(fn, "end_bit", "must not exceed the key's width in bits");
  if (o.begin_bit >= end) throw_invalid(fn, "begin_bit", "must be less than end_bit");
  return end;
}

/// Checks n and the bit range of keys of type K; returns end_bit resolved.
template <class K>
int radix_validate_bits(const char* fn, std::int64_t n, const radix_sort_options& o) {
  return radix_validate_bit_range(fn, n, o, radix_key<K>::bits, sizeof(K));
}

template <class T>
void radix_validate_selector(const char* fn, const double_buffer<T>& b, const char* name) {
  if (b.selector != 0 && b.selector != 1) throw_invalid(fn, name, "selector must be 0 or 1");
}

/// Each array of the call (null when n > 0 breaks a rule), then check_overlaps over them.
template <std::size_t N>
void radix_validate_arrays(const char* fn, std::int64_t n, const array_arg (&a)[N]) {
  for (const array_arg& x : a) check_pointer(fn, x.name, x.p, n > 0);
  check_overlaps(fn, a);
}

/// The problem of a validated call (n ≥ 0, the bit range resolved) in workspace ws.
inline radix_sort_problem radix_problem(const char* fn, std::int64_t n, const radix_sort_options& o, int end_bit,
                                        const workspace& ws, cudaStream_t stream) {
  return {fn, std::uint64_t(n), o.begin_bit, end_bit, o.order == sort_order::descending, ws, stream};
}

// ---------------------------------------------------------------------------------------------------------------
// Workspace layouts

/// The sorting core's parts of a workspace for n keys of K under policy P (radix_sort_core, radix_sort_packed): per
/// portion, pass and digit the keys' count (then the NaN flag) and where the digit starts in the output, and two
/// look-back state arrays, which the passes alternate between (each launch zeroes the other for the next). None for
/// inputs sorted on chip.
template <class K>
struct radix_core_parts {
  std::uint64_t portion = 0, portions = 0;  // keys per portion (whole tiles), and portions
  workspace_part<unsigned> hist;            // (portions, sizeof(K) passes, 256) counts, then the NaN flag
  workspace_part<std::uint64_t> bases;      // (portions, sizeof(K) passes, 256)
  workspace_part<unsigned> state[2];        // (radix_state_head + tiles of the largest portion × 256) each
  radix_core_parts() = default;
  radix_core_parts(workspace_layout& L, radix_sort_policy P, std::uint64_t n) {
    const std::uint64_t tile = std::uint64_t(P.tile());
    portion = (radix_portion_max / tile) * tile;
    portions = n == 0 ? 0 : (n + portion - 1) / portion;
    if (n <= std::uint64_t(P.onchip_tile())) return;
    const std::uint64_t tiles_max = std::min<std::uint64_t>((n + tile - 1) / tile, portion / tile);
    hist = L.add<unsigned>(portions * sizeof(K) * radix_digits + 1);
    bases = L.add<std::uint64_t>(portions * sizeof(K) * radix_digits);
    for (auto& s : state) s = L.add<unsigned>(radix_state_head + tiles_max * radix_digits);
  }
};

/// radix_sort_keys's workspace: the core's parts, then (plain form, above the on-chip size) n keys, the passes'
/// second buffer.
template <class K>
struct radix_keys_layout {
  workspace_layout L;
  radix_core_parts<K> core;
  workspace_part<K> keys;
  radix_keys_layout(radix_sort_policy P, std::uint64_t n, bool double_buffer_form) : core(L, P, n) {
    if (!double_buffer_form && n > std::uint64_t(P.onchip_tile())) keys = L.add<K>(n);
  }
  std::size_t bytes() const { return L.bytes(); }
};

/// The packed sort's workspace (radix_sort_policy's pack): the core's parts under the packed passes' policy Q, then
/// two buffers of n 8-byte keys, none on chip.
template <class K>
struct radix_packed_parts {
  workspace_layout L;
  radix_core_parts<K> core;
  workspace_part<std::uint64_t> packed[2];
  radix_packed_parts(radix_sort_policy Q, std::uint64_t n) : core(L, Q, n) {
    if (n > std::uint64_t(Q.onchip_tile()))
      for (auto& b : packed) b = L.add<std::uint64_t>(n);
  }
};

/// radix_sort_pairs's workspace for values moved in every pass (radix_direct_v): the core's parts, then (plain form,
/// above the on-chip size) n keys and n values, the passes' second buffers; or, where the plain form packs (P, K, V:
/// radix_packs_v), the packed sort's parts, whichever is larger (both start at the workspace's start).
template <class K, class V>
struct radix_pairs_layout {
  workspace_layout L;
  radix_core_parts<K> core;
  workspace_part<K> keys;
  workspace_part<V> values;
  radix_packed_parts<K> packed;
  radix_pairs_layout(radix_sort_policy P, radix_sort_policy Q, std::uint64_t n, bool double_buffer_form, bool packs)
      : core(L, P, n), packed(Q, packs && !double_buffer_form ? n : 0) {
    if (!double_buffer_form && n > std::uint64_t(P.onchip_tile())) {
      keys = L.add<K>(n);
      values = L.add<V>(n);
    }
  }
  std::size_t bytes() const { return std::max(L.bytes(), packed.L.bytes()); }
};

/// radix_sort_pairs's workspace for values wider than 8 bytes, sorted as indices of I and gathered at the end: the
/// core's parts, (plain form, above the on-chip size) n keys, then two arrays of n indices.
template <class K, class I>
struct radix_gather_layout {
  workspace_layout L;
  radix_core_parts<K> core;
  workspace_part<K> keys;
  workspace_part<I> index[2];
  radix_gather_layout(radix_sort_policy P, std::uint64_t n, bool double_buffer_form) : core(L, P, n) {
    if (!double_buffer_form && n > std::uint64_t(P.onchip_tile())) keys = L.add<K>(n);
    for (auto& x : index) x = L.add<I>(n);
  }
  std::size_t bytes() const { return L.bytes(); }
};

/// argsort's workspace: the core's parts, two arrays of n keys (the sorted keys are not kept) and one of n indices;
/// or, where it packs (radix_packs_v), the packed sort's parts, whichever is larger.
template <class K, class I>
struct radix_argsort_layout {
  workspace_layout L;
  radix_core_parts<K> core;
  workspace_part<K> keys[2];
  workspace_part<I> indices;
  radix_packed_parts<K> packed;
  radix_argsort_layout(radix_sort_policy P, radix_sort_policy Q, std::uint64_t n, bool packs)
      : core(L, P, n), packed(Q, packs ? n : 0) {
    for (auto& k : keys) k = L.add<K>(n);
    indices = L.add<I>(n);
  }
  std::size_t bytes() const { return std::max(L.bytes(), packed.L.bytes()); }
};

/// The workspace radix_sort_keys (V: radix_no_value) or radix_sort_pairs needs for n keys under Policy on
/// architecture Arch (double_buffer_form: the double-buffer form's).
template <auto Policy, int Arch, class K, class V>
std::size_t radix_workspace_bytes(std::uint64_t n, bool double_buffer_form) {
  constexpr radix_sort_policy P = radix_policy<Policy, Arch, K, V>();
  if constexpr (!radix_has_values_v<V>) {
    return radix_keys_layout<K>(P, n, double_buffer_form).bytes();
  } else if constexpr (radix_direct_v<V>) {
    constexpr radix_sort_policy Q = radix_pack_policy<Policy, Arch>();
    return radix_pairs_layout<K, V>(P, Q, n, double_buffer_form, radix_packs_v<P, K, V>).bytes();
  } else if (n > 0xffffffffull) {
    return radix_gather_layout<K, std::uint64_t>(P, n, double_buffer_form).bytes();
  } else {
    return radix_gather_layout<K, std::uint32_t>(P, n, double_buffer_form).bytes();
  }
}

}  // namespace detail
}  // namespace cuprim
