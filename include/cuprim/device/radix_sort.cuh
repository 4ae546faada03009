// cuprim/device/radix_sort.cuh: stable LSD radix sort of keys and key-value pairs (host entry points).
//
//   cuprim::radix_sort_keys(keys_in, keys_out, n, [ws,] [options,] stream)         keys_out = sorted keys_in
//   cuprim::radix_sort_keys(double_buffer<K>& keys, n, [ws,] [options,] stream)     result in keys.current()
//   cuprim::radix_sort_pairs(keys_in, keys_out, values_in, values_out, n, [ws,] [options,] stream)
//   cuprim::radix_sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, n, [ws,] [options,] stream)
//   cuprim::argsort(keys, indices, n, [ws,] [options,] stream)   indices[i] = position in keys of the i-th smallest
//   cuprim::radix_sort_keys(keys_in, keys_out, n, decomposer, [options,] stream)    user-struct keys (below)
//   cuprim::radix_sort_pairs(keys_in, keys_out, values_in, values_out, n, decomposer, [options,] stream)
//   ... <name>_workspace_bytes<...>(n) sizes the explicit workspace (monotonic in n; 0 for small inputs).
// The options come before the stream: pass {} for the defaults (radix_sort_keys(in, out, n, {}, stream)).
//
// Order. Stable: keys that compare equal keep their input order (values travel with their keys), ascending or
// descending (options.order). Keys: any integer type (8 to 64 bits, signed or unsigned), float, double, __half,
// __nv_bfloat16. Floating point sorts in the IEEE total order of the bits:
//     -inf < negative normals < negative denormals < -0.0 < +0.0 < positive denormals < positive normals < +inf,
// with every NaN (any sign or payload) after +inf, in input order. -0.0 sorts strictly before +0.0. Descending
// order reverses everything except NaNs, which come last in both directions. (radix_sort_traits.cuh.)
//
// User-struct keys. A key decomposer is a functor or __host__ __device__ lambda returning
// cuprim::key_members(k.a, k.b, ...): the struct's members that form the key, most significant first, each of a
// key type above, 64 bits in all at most. The keys sort by those members in order (each in its type's order),
// stably, and move whole; the other members do not take part.
//
// Bit range. options.begin_bit / end_bit (default 0 / the key's width) restrict the sort to bits [begin_bit,
// end_bit) of the ordered key (for integers the key's own bits, signed keys with the sign bit flipped; for floats
// the bits of the order-preserving transform above). Keys equal on those bits keep their input order. Fewer bits,
// fewer passes: one pass per 8 bits.
//
// Values: any trivially copyable type, user structs included. Values of 1, 2, 4 or 8 bytes move with their keys in
// every pass; wider values are sorted as 32-bit (64-bit above 2^32 keys) indices and moved once at the end by a
// gather.
//
// The two forms. The plain form reads keys_in (never written) and leaves the result in keys_out, using a
// workspace of about n keys (and values) for the passes between; pairs of 4-byte integer keys and 4-byte values
// take twice that (2 n × 8 bytes): in the plain form each pair travels through the passes (two or more: more than
// 8 bits to sort) packed into one 8-byte key, the key's ordered bits above the value's bits, which moves them
// faster than as two arrays (radix_sort_policy's pack; a policy with pack = false sorts them in n × 8 bytes). The
// double-buffer form ping-pongs between the two buffers of a double_buffer: no copy and no such workspace; on
// return `selector` says which buffer holds the result (current()); the other holds garbage. For pairs, each
// double_buffer's selector is set independently (with values wider than 8 bytes the values' result lands in the
// other buffer from the keys' when the number of passes is even): always read each one's current().
//
// Sizes: n is 64-bit and may exceed 2^31 (and 2^32). Small inputs are sorted on chip in one launch with no
// workspace: up to one cluster block's threads (1024 by default for 4-byte keys and values, 512 for 8-byte ones)
// by one block, up to the policy's cluster tile (2^16 keys by default) by one thread-block cluster of 8 or 16
// blocks that exchange the keys through distributed shared memory after every pass. Larger inputs take one
// histogram pass, then one pass per 8-bit digit with decoupled look-back (device/detail/radix_sort_onesweep.cuh).
//
// Work is ordered on `stream`; nothing synchronises the host. Temporary memory comes from the current memory
// resource, or from the caller's workspace (aligned to 256 bytes, at least <name>_workspace_bytes(n); a workspace
// sized for the plain form is also large enough for the double-buffer form).
//
// Policy. Each entry point takes an optional cuprim::radix_sort_policy as its first template argument (default
// cuprim::tuned: the row of radix_sort_policy_for for the device and the keys' and values' sizes;
// device/detail/radix_sort_tuning.cuh), and each <name>_workspace_bytes the same after its element types.
//
// Errors. cuprim::invalid_argument, before anything is allocated, launched or written: n < 0; a null pointer with
// n > 0; begin_bit < 0, end_bit beyond the key's width (or negative other than radix_sort_options::key_width),
// begin_bit ≥ end_bit; any output overlapping any input or another output (the plain form's keys_out may not be
// keys_in: use the double-buffer form to sort without a second array of your own; inputs may alias each other, as
// keys sorted with themselves as values); a double_buffer whose two buffers overlap, or a selector other than 0 or
// 1; a workspace smaller than needed. cuprim::cuda_error for a failed launch or an error already pending.
#pragma once

#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/radix_sort_decomposed.cuh>
#include <cuprim/device/detail/radix_sort_problem.cuh>
#include <cuprim/device/detail/radix_sort_run.cuh>
#include <cuprim/device/detail/radix_sort_traits.cuh>
#include <cuprim/device/detail/radix_sort_tuning.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim {

// ---------------------------------------------------------------------------------------------------------------
// Workspace sizes (Policy: as the entry point's). Monotonic in n; 0 for n ≤ 0 and for inputs sorted on chip. An
// explicit policy, or n ≤ 0, needs no device to size its workspace.

/// Bytes of workspace radix_sort_keys needs for n keys of K (plain form; double_buffer_form: the double-buffer form).
template <class K, auto Policy = tuned>
std::size_t radix_sort_keys_workspace_bytes(std::int64_t n, bool double_buffer_form = false) {
  if (n <= 0) return 0;
  return detail::radix_with_arch<Policy>([&]<int Arch>() {
    return detail::radix_workspace_bytes<Policy, Arch, K, detail::radix_no_value>(std::uint64_t(n),
                                                                                  double_buffer_form);
  });
}

/// Bytes of workspace radix_sort_pairs needs for n pairs of K, V.
template <class K, class V, auto Policy = tuned>
std::size_t radix_sort_pairs_workspace_bytes(std::int64_t n, bool double_buffer_form = false) {
  if (n <= 0) return 0;
  return detail::radix_with_arch<Policy>([&]<int Arch>() {
    return detail::radix_workspace_bytes<Policy, Arch, K, V>(std::uint64_t(n), double_buffer_form);
  });
}

/// Bytes of workspace argsort needs for n keys of K and indices of I.
template <class K, class I, auto Policy = tuned>
std::size_t argsort_workspace_bytes(std::int64_t n) {
  if (n <= 0) return 0;
  return detail::radix_with_arch<Policy>([&]<int Arch>() {
    constexpr radix_sort_policy P = detail::radix_policy<Policy, Arch, K, I>();
    constexpr radix_sort_policy Q = detail::radix_pack_policy<Policy, Arch>();
    return detail::radix_argsort_layout<K, I>(P, Q, std::uint64_t(n), detail::radix_packs_v<P, K, I>).bytes();
  });
}

// ---------------------------------------------------------------------------------------------------------------
// radix_sort_keys

/// keys_out[0, n) = the keys of keys_in[0, n) in sorted order (stable); in the caller's workspace
/// (radix_sort_keys_workspace_bytes<K>(n)). keys_in is not written.
template <auto Policy = tuned, class K>
void radix_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, workspace ws, radix_sort_options opt = {},
                     cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_keys_run<Policy>(fn, keys_in, keys_out, n, &ws, opt, stream);
}

/// radix_sort_keys with its workspace from the current memory resource.
template <auto Policy = tuned, class K>
void radix_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, radix_sort_options opt = {},
                     cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_keys_run<Policy>(fn, keys_in, keys_out, n, nullptr, opt, stream);
}

/// Sorts keys.current()[0, n), ping-ponging between the two buffers; on return keys.current() holds the result
/// (keys.selector may have flipped). In the caller's workspace (radix_sort_keys_workspace_bytes<K>(n, true)).
template <auto Policy = tuned, class K>
void radix_sort_keys(double_buffer<K>& keys, std::int64_t n, workspace ws, radix_sort_options opt = {},
                     cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_keys_db_run<Policy>(fn, keys, n, &ws, opt, stream);
}

/// The double-buffer radix_sort_keys with its workspace from the current memory resource.
template <auto Policy = tuned, class K>
void radix_sort_keys(double_buffer<K>& keys, std::int64_t n, radix_sort_options opt = {}, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_keys_db_run<Policy>(fn, keys, n, nullptr, opt, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// radix_sort_pairs

/// keys_out / values_out = the pairs (keys_in[i], values_in[i]) ordered by key (stable); in the caller's
/// workspace (radix_sort_pairs_workspace_bytes<K, V>(n)). The inputs are not written (and may be one array).
template <auto Policy = tuned, class K, class V>
void radix_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n, workspace ws,
                      radix_sort_options opt = {}, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_pairs_run<Policy>(fn, keys_in, keys_out, values_in, values_out, n, &ws, opt, stream);
}

/// radix_sort_pairs with its workspace from the current memory resource.
template <auto Policy = tuned, class K, class V>
void radix_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                      radix_sort_options opt = {}, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_pairs_run<Policy>(fn, keys_in, keys_out, values_in, values_out, n, nullptr, opt, stream);
}

/// Sorts the pairs (keys.current()[i], values.current()[i]) by key (stable), ping-ponging between each
/// double_buffer's two buffers; on return each one's current() holds its result (the selectors may differ). In
/// the caller's workspace (radix_sort_pairs_workspace_bytes<K, V>(n, true)).
template <auto Policy = tuned, class K, class V>
void radix_sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, std::int64_t n, workspace ws,
                      radix_sort_options opt = {}, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_pairs_db_run<Policy>(fn, keys, values, n, &ws, opt, stream);
}

/// The double-buffer radix_sort_pairs with its workspace from the current memory resource.
template <auto Policy = tuned, class K, class V>
void radix_sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, std::int64_t n, radix_sort_options opt = {},
                      cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_pairs_db_run<Policy>(fn, keys, values, n, nullptr, opt, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// argsort

/// indices[i] = the position in keys[0, n) of the i-th key in sorted order (stable: equal keys by position);
/// I is an integer type able to hold n - 1. keys is not written. In the caller's workspace
/// (argsort_workspace_bytes<K, I>(n)). 4-byte integer keys with 32-bit indices sort as packed pairs (as
/// radix_sort_pairs's do, under a policy with pack, the default: above the on-chip size, two passes or more), the
/// indices made by the first pass, and take 2 n × 8 bytes.
template <auto Policy = tuned, class K, class I>
void argsort(const K* keys, I* indices, std::int64_t n, workspace ws, radix_sort_options opt = {},
             cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_argsort_run<Policy>(fn, keys, indices, n, &ws, opt, stream);
}

/// argsort with its workspace from the current memory resource.
template <auto Policy = tuned, class K, class I>
void argsort(const K* keys, I* indices, std::int64_t n, radix_sort_options opt = {}, cudaStream_t stream = 0) {
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_argsort_run<Policy>(fn, keys, indices, n, nullptr, opt, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// User-struct keys: a key decomposer names the members that form the key

/// keys_out[0, n) = the user-struct keys of keys_in[0, n), stably sorted by the members `dec` names:
/// dec(key) returns cuprim::key_members(key.a, key.b, ...), most significant first (integers, floats, __half,
/// __nv_bfloat16; 64 bits in all at most). `dec` must be callable on the host and the device (a functor or a
/// __host__ __device__ lambda): for example
///     cuprim::radix_sort_keys(in, out, n, [] __host__ __device__ (const particle& p) {
///       return cuprim::key_members(p.cell, p.energy); });
/// options.order applies to every member (each in its type's order, NaNs last in both directions); the bit range
/// is over the members' ordered bits laid end to end (the last member in the lowest bits; the default end_bit is
/// their total width). The keys are moved whole; workspace from the current memory resource (the members' bits,
/// 32-bit indices (64-bit above 2^32 keys), and argsort's). Errors as for radix_sort_keys.
template <class K, class D>
  requires detail::key_decomposer<D, K>
void radix_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, D dec, radix_sort_options opt = {},
                     cudaStream_t stream = 0) {
  static_assert(std::is_trivially_copyable_v<K>, "radix_sort_keys: keys must be trivially copyable");
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_sort_decomposed<K, void>(fn, keys_in, keys_out, static_cast<const void*>(nullptr),
                                         static_cast<void*>(nullptr), n, dec, opt, stream);
}

/// The pairs (keys_in[i], values_in[i]) stably sorted by the members `dec` names of each user-struct key (as for
/// radix_sort_keys with a decomposer); values: any trivially copyable type.
template <class K, class V, class D>
  requires detail::key_decomposer<D, K>
void radix_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n, D dec,
                      radix_sort_options opt = {}, cudaStream_t stream = 0) {
  static_assert(std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>,
                "radix_sort_pairs: keys and values must be trivially copyable");
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_sort_decomposed<K, V>(fn, keys_in, keys_out, values_in, values_out, n, dec, opt, stream);
}

}  // namespace cuprim
