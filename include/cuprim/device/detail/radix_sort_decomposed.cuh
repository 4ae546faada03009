// cuprim/device/detail/radix_sort_decomposed.cuh: user-struct keys, sorted by the members a key decomposer names
// (radix_sort_keys / radix_sort_pairs with a decomposer, device/radix_sort.cuh). A convenience path, not tuned: one
// kernel computes the members' ordered bits (32 or 64 bits), argsort orders them (stable), and one gather moves the
// keys (and one the values).
#pragma once

#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/radix_sort_launch.cuh>
#include <cuprim/device/detail/radix_sort_problem.cuh>
#include <cuprim/device/detail/radix_sort_run.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim::detail {

/// The launches of the key decomposer entry points (arguments validated, n > 0): the members' ordered bits (U: 32
/// or 64 bits) computed once, argsort of them with indices of I (ascending: the order is in the bits), and the keys
/// (and values, V not void) gathered by the sorted indices.
template <class U, class I, class K, class V, class D>
void radix_decomposed_launch(const char* fn, const K* keys_in, K* keys_out, const V* values_in, V* values_out,
                             std::int64_t n, const D& dec, bool descending, const radix_sort_options& inner,
                             cudaStream_t stream) {
  workspace_layout L;
  const workspace_part<U> bits_part = L.add<U>(std::size_t(n));
  const workspace_part<I> idx_part = L.add<I>(std::size_t(n));
  scratch tmp(L.bytes(), stream);
  U* bits = bits_part.in(tmp.get());
  I* idx = idx_part.in(tmp.get());
  const unsigned grid = radix_gather_grid(std::uint64_t(n));
  radix_decompose_kernel<<<grid, 256, 0, stream>>>(keys_in, bits, std::uint64_t(n), dec, descending);
  check_launch(fn);
  radix_argsort_run<tuned>(fn, static_cast<const U*>(bits), idx, n, nullptr, inner, stream);
  radix_gather_kernel<<<grid, 256, 0, stream>>>(keys_in, static_cast<const I*>(idx), keys_out, std::uint64_t(n));
  check_launch(fn);
  if constexpr (!std::is_void_v<V>) {
    radix_gather_kernel<<<grid, 256, 0, stream>>>(values_in, static_cast<const I*>(idx), values_out,
                                                  std::uint64_t(n));
    check_launch(fn);
  }
}

/// The key decomposer entry points: validate, then radix_decomposed_launch. V void: keys only.
template <class K, class V, class D>
void radix_sort_decomposed(const char* fn, const K* keys_in, K* keys_out, const V* values_in, V* values_out,
                           std::int64_t n, const D& dec, const radix_sort_options& opt, cudaStream_t stream) {
  using M = std::remove_cvref_t<std::invoke_result_t<const D&, const K&>>;
  static_assert(M::bits > 0 && M::bits <= 64, "key decomposer: the key's members must be 1 to 64 bits wide in all");
  using U = std::conditional_t<(M::bits <= 32), std::uint32_t, std::uint64_t>;
  // The key's width: its members' bits in all.
  const int end = radix_validate_bit_range(fn, n, opt, M::bits, sizeof(K));
  const std::size_t kb = std::size_t(n) * sizeof(K);
  if constexpr (!std::is_void_v<V>) {
    const std::size_t vb = std::size_t(n) * sizeof(V);
    radix_validate_arrays(fn, n, {{"keys_in", keys_in, kb, read_only},
                                  {"values_in", values_in, vb, read_only},
                                  {"keys_out", keys_out, kb, written},
                                  {"values_out", values_out, vb, written}});
  } else {
    radix_validate_arrays(fn, n, {{"keys_in", keys_in, kb, read_only}, {"keys_out", keys_out, kb, written}});
  }
  check_no_pending_error(fn);
  if (n == 0) return;
  const radix_sort_options inner{sort_order::ascending, opt.begin_bit, end};  // the order is in the bits
  const bool desc = opt.order == sort_order::descending;
  if (std::uint64_t(n) - 1 <= 0xffffffffull)
    radix_decomposed_launch<U, std::uint32_t>(fn, keys_in, keys_out, values_in, values_out, n, dec, desc, inner,
                                              stream);
  else
    radix_decomposed_launch<U, std::uint64_t>(fn, keys_in, keys_out, values_in, values_out, n, dec, desc, inner,
                                              stream);
}

}  // namespace cuprim::detail
