// cuprim/device/detail/radix_sort_run.cuh: the body of each radix sort entry point kind (device/radix_sort.cuh):
// validate the arguments, plan the workspace (its layout, radix_sort_problem.cuh), launch (radix_sort_launch.cuh).
// `ws` null: the workspace comes from the current memory resource.
#pragma once

#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/detail/radix_sort_launch.cuh>
#include <cuprim/device/detail/radix_sort_problem.cuh>

#include <cstdint>
#include <limits>
#include <type_traits>

namespace cuprim::detail {

/// The plain forms' destinations: pass p writes dst[p & 1], so the last pass writes `out` and the others alternate
/// with `tmp` (which on-chip sorts, whose one launch writes dst[(passes - 1) & 1], never touch).
template <class T>
struct radix_ping_pong {
  T* dst[2];
  radix_ping_pong(T* out, T* tmp, int passes) : dst{(passes & 1) ? out : tmp, (passes & 1) ? tmp : out} {}
};

/// The plan's end and the launch: the caller's workspace checked against layout L's bytes (`sizer`: the sizing call
/// to name), then, for n > 0, launch(problem) in that workspace or in one from the current memory resource.
template <class Layout, class Launch>
void radix_plan_launch(const char* fn, const Layout& L, const char* sizer, std::int64_t n,
                       const radix_sort_options& opt, int end, const workspace* ws, cudaStream_t stream,
                       Launch&& launch) {
  check_workspace(fn, ws, L.bytes(), sizer);
  check_no_pending_error(fn);
  if (n == 0) return;
  with_workspace(ws, L.bytes(), stream,
                 [&](const workspace& w) { launch(radix_problem(fn, n, opt, end, w, stream)); });
}

template <auto Policy, class K>
void radix_keys_run(const char* fn, const K* keys_in, K* keys_out, std::int64_t n, const workspace* ws,
                    const radix_sort_options& opt, cudaStream_t stream) {
  const int end = radix_validate_bits<K>(fn, n, opt);
  const std::size_t kb = std::size_t(n) * sizeof(K);
  radix_validate_arrays(fn, n, {{"keys_in", keys_in, kb, read_only}, {"keys_out", keys_out, kb, written}});
  radix_with_arch<Policy>([&]<int Arch>() {
    constexpr radix_sort_policy P = radix_policy<Policy, Arch, K, radix_no_value>();
    const radix_keys_layout<K> L(P, std::uint64_t(n), false);
    radix_plan_launch(fn, L, "radix_sort_keys_workspace_bytes(n)", n, opt, end, ws, stream,
                      [&](const radix_sort_problem& pb) {
                        const radix_ping_pong<K> k(keys_out, L.keys.in(pb.ws), pb.passes());
                        radix_no_value* const none[2] = {nullptr, nullptr};
                        radix_sort_core<P, K, radix_no_value>(pb, L.core, keys_in, k.dst, nullptr, none);
                      });
  });
}

template <auto Policy, class K>
void radix_keys_db_run(const char* fn, double_buffer<K>& keys, std::int64_t n, const workspace* ws,
                       const radix_sort_options& opt, cudaStream_t stream) {
  const int end = radix_validate_bits<K>(fn, n, opt);
  radix_validate_selector(fn, keys, "keys");
  const std::size_t kb = std::size_t(n) * sizeof(K);
  radix_validate_arrays(fn, n, {{"keys.current()", keys.current(), kb, written},
                                {"keys.alternate()", keys.alternate(), kb, written}});
  radix_with_arch<Policy>([&]<int Arch>() {
    constexpr radix_sort_policy P = radix_policy<Policy, Arch, K, radix_no_value>();
    const radix_keys_layout<K> L(P, std::uint64_t(n), true);
    radix_plan_launch(fn, L, "radix_sort_keys_workspace_bytes(n, true)", n, opt, end, ws, stream,
                      [&](const radix_sort_problem& pb) {
                        const bool on_chip = pb.n <= std::uint64_t(P.onchip_tile());  // one launch: in place
                        K* const dst[2] = {on_chip ? keys.current() : keys.alternate(), keys.current()};
                        radix_no_value* const none[2] = {nullptr, nullptr};
                        radix_sort_core<P, K, radix_no_value>(pb, L.core, keys.current(), dst, nullptr, none);
                        if (!on_chip && (pb.passes() & 1)) keys.selector ^= 1;
                      });
  });
}

/// radix_sort_pairs, plain form, values moved in every pass: packed where the policy packs such pairs, the values'
/// addresses allow 4-byte accesses and radix_packed_takes says so; unpacked otherwise.
template <radix_sort_policy P, radix_sort_policy Q, class K, class V>
void radix_pairs_launch(const radix_sort_problem& pb, const radix_pairs_layout<K, V>& L, const K* keys_in,
                        K* keys_out, const V* values_in, V* values_out) {
  if constexpr (radix_packs_v<P, K, V>) {
    const bool aligned =
        (reinterpret_cast<std::uintptr_t>(values_in) | reinterpret_cast<std::uintptr_t>(values_out)) % 4 == 0;
    if (aligned && radix_packed_takes(P, Q, pb.n, pb.passes()))
      return radix_sort_packed<Q, K>(pb, L.packed, keys_in, reinterpret_cast<const std::uint32_t*>(values_in),
                                     keys_out, reinterpret_cast<std::uint32_t*>(values_out));
  }
  const radix_ping_pong<K> k(keys_out, L.keys.in(pb.ws), pb.passes());
  const radix_ping_pong<V> v(values_out, L.values.in(pb.ws), pb.passes());
  radix_sort_core<P, K, V>(pb, L.core, keys_in, k.dst, values_in, v.dst);
}

/// radix_sort_pairs, plain form, values wider than 8 bytes: sorted as indices of I, then gathered.
template <radix_sort_policy P, class I, class K, class V>
void radix_pairs_gather_run(const char* fn, const K* keys_in, K* keys_out, const V* values_in, V* values_out,
                            std::int64_t n, const workspace* ws, const radix_sort_options& opt, int end,
                            cudaStream_t stream) {
  const radix_gather_layout<K, I> L(P, std::uint64_t(n), false);
  radix_plan_launch(fn, L, "radix_sort_pairs_workspace_bytes(n)", n, opt, end, ws, stream,
                    [&](const radix_sort_problem& pb) {
                      const radix_ping_pong<K> k(keys_out, L.keys.in(pb.ws), pb.passes());
                      radix_sort_gather<P>(pb, L, keys_in, k.dst, values_in, values_out);
                    });
}

template <auto Policy, class K, class V>
void radix_pairs_run(const char* fn, const K* keys_in, K* keys_out, const V* values_in, V* values_out,
                     std::int64_t n, const workspace* ws, const radix_sort_options& opt, cudaStream_t stream) {
  static_assert(std::is_trivially_copyable_v<V>, "radix_sort_pairs: values must be trivially copyable");
  const int end = radix_validate_bits<K>(fn, n, opt);
  const std::size_t kb = std::size_t(n) * sizeof(K), vb = std::size_t(n) * sizeof(V);
  radix_validate_arrays(fn, n, {{"keys_in", keys_in, kb, read_only},
                                {"values_in", values_in, vb, read_only},
                                {"keys_out", keys_out, kb, written},
                                {"values_out", values_out, vb, written}});
  radix_with_arch<Policy>([&]<int Arch>() {
    constexpr radix_sort_policy P = radix_policy<Policy, Arch, K, V>();
    if constexpr (radix_direct_v<V>) {
      constexpr radix_sort_policy Q = radix_pack_policy<Policy, Arch>();
      const radix_pairs_layout<K, V> L(P, Q, std::uint64_t(n), false, radix_packs_v<P, K, V>);
      radix_plan_launch(fn, L, "radix_sort_pairs_workspace_bytes(n)", n, opt, end, ws, stream,
                        [&](const radix_sort_problem& pb) {
                          radix_pairs_launch<P, Q>(pb, L, keys_in, keys_out, values_in, values_out);
                        });
    } else if (std::uint64_t(n) > 0xffffffffull) {
      radix_pairs_gather_run<P, std::uint64_t>(fn, keys_in, keys_out, values_in, values_out, n, ws, opt, end, stream);
    } else {
      radix_pairs_gather_run<P, std::uint32_t>(fn, keys_in, keys_out, values_in, values_out, n, ws, opt, end, stream);
    }
  });
}

/// radix_sort_pairs, double-buffer form, in workspace w (planned by radix_pairs_db_run). Values moved in every pass
/// flip with the keys; wider values are gathered into their other buffer, which then becomes current.
template <radix_sort_policy P, class I, class K, class V, class Layout>
void radix_pairs_db_launch(const radix_sort_problem& pb, const Layout& L, double_buffer<K>& keys,
                           double_buffer<V>& values) {
  const bool on_chip = pb.n <= std::uint64_t(P.onchip_tile());  // one launch: the result in place
  K* const dst[2] = {on_chip ? keys.current() : keys.alternate(), keys.current()};
  if constexpr (radix_direct_v<V>) {
    V* const vdst[2] = {on_chip ? values.current() : values.alternate(), values.current()};
    radix_sort_core<P, K, V>(pb, L.core, keys.current(), dst, values.current(), vdst);
    if (!on_chip && (pb.passes() & 1)) values.selector ^= 1;
  } else {
    radix_sort_gather<P>(pb, L, keys.current(), dst, values.current(), values.alternate());
    values.selector ^= 1;
  }
  if (!on_chip && (pb.passes() & 1)) keys.selector ^= 1;
}

template <auto Policy, class K, class V>
void radix_pairs_db_run(const char* fn, double_buffer<K>& keys, double_buffer<V>& values, std::int64_t n,
                        const workspace* ws, const radix_sort_options& opt, cudaStream_t stream) {
  static_assert(std::is_trivially_copyable_v<V>, "radix_sort_pairs: values must be trivially copyable");
  const int end = radix_validate_bits<K>(fn, n, opt);
  radix_validate_selector(fn, keys, "keys");
  radix_validate_selector(fn, values, "values");
  const std::size_t kb = std::size_t(n) * sizeof(K), vb = std::size_t(n) * sizeof(V);
  radix_validate_arrays(fn, n, {{"keys.current()", keys.current(), kb, written},
                                {"keys.alternate()", keys.alternate(), kb, written},
                                {"values.current()", values.current(), vb, written},
                                {"values.alternate()", values.alternate(), vb, written}});
  radix_with_arch<Policy>([&]<int Arch>() {
    constexpr radix_sort_policy P = radix_policy<Policy, Arch, K, V>();
    auto run = [&]<class I>(const auto& L) {
      radix_plan_launch(fn, L, "radix_sort_pairs_workspace_bytes(n, true)", n, opt, end, ws, stream,
                        [&](const radix_sort_problem& pb) { radix_pairs_db_launch<P, I>(pb, L, keys, values); });
    };
    if constexpr (radix_direct_v<V>)
      run.template operator()<V>(radix_pairs_layout<K, V>(P, P, std::uint64_t(n), true, false));
    else if (std::uint64_t(n) > 0xffffffffull)
      run.template operator()<std::uint64_t>(radix_gather_layout<K, std::uint64_t>(P, std::uint64_t(n), true));
    else
      run.template operator()<std::uint32_t>(radix_gather_layout<K, std::uint32_t>(P, std::uint64_t(n), true));
  });
}

/// argsort: packed where the policy packs such keys and indices (4-byte integer keys, 32-bit indices: the packing
/// pass makes the indices, the last pass stores only them) and radix_packed_takes says so; unpacked otherwise.
template <radix_sort_policy P, radix_sort_policy Q, bool Packs, class K, class I>
void radix_argsort_launch(const radix_sort_problem& pb, const radix_argsort_layout<K, I>& L, const K* keys,
                          I* indices) {
  if constexpr (Packs)
    if (radix_packed_takes(P, Q, pb.n, pb.passes()))
      return radix_sort_packed<Q, K>(pb, L.packed, keys, nullptr, nullptr, reinterpret_cast<std::uint32_t*>(indices));
  K* const kdst[2] = {L.keys[0].in(pb.ws), L.keys[1].in(pb.ws)};
  const radix_ping_pong<I> v(indices, L.indices.in(pb.ws), pb.passes());
  radix_sort_core<P, K, I>(pb, L.core, keys, kdst, static_cast<const I*>(nullptr), v.dst);
}

template <auto Policy, class K, class I>
void radix_argsort_run(const char* fn, const K* keys, I* indices, std::int64_t n, const workspace* ws,
                       const radix_sort_options& opt, cudaStream_t stream) {
  static_assert(std::is_integral_v<I> && sizeof(I) >= 4, "argsort: indices must be a 32- or 64-bit integer type");
  const int end = radix_validate_bits<K>(fn, n, opt);
  if (n > 0 && std::uint64_t(n - 1) > std::uint64_t(std::numeric_limits<I>::max()))
    throw_invalid(fn, "n", "indices of this type cannot hold n - 1");
  radix_validate_arrays(fn, n, {{"keys", keys, std::size_t(n) * sizeof(K), read_only},
                                {"indices", indices, std::size_t(n) * sizeof(I), written}});
  radix_with_arch<Policy>([&]<int Arch>() {
    constexpr radix_sort_policy P = radix_policy<Policy, Arch, K, I>();
    constexpr radix_sort_policy Q = radix_pack_policy<Policy, Arch>();
    constexpr bool packs = radix_packs_v<P, K, I>;
    const radix_argsort_layout<K, I> L(P, Q, std::uint64_t(n), packs);
    radix_plan_launch(fn, L, "argsort_workspace_bytes(n)", n, opt, end, ws, stream,
                      [&](const radix_sort_problem& pb) { radix_argsort_launch<P, Q, packs>(pb, L, keys, indices); });
  });
}

}  // namespace cuprim::detail
