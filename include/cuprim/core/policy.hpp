// cuprim/core/policy.hpp: how every family's tuning policy is written, chosen and described.
//
// A policy is a literal struct with named fields and their defaults (reduce_policy, scan_policy, ...), passed to an
// entry point as a class-type template argument written with designated initializers:
//
//   cuprim::reduce<cuprim::reduce_policy{.threads = 256, .unroll = 8}>(in, out, n, op, init, stream);
//
// With no argument (cuprim::tuned) an entry point takes its family's row for the current device: one constexpr
// function per family, <family>_policy_for<T>(arch) (device/detail/<family>_tuning.cuh), maps the device's tuned
// architecture and the element type's size class to a policy value. The kernel is instantiated with that value and
// the host sizes its launch from the same value, so the two cannot disagree. Each row of a table carries one
// provenance line (GPU, lab command, measured gain); docs/tuning/<family>.md has the measurements.
//
// A policy lists its fields once, in fields(f), which describe() and to_json() use: the lab prints the policy
// each case ran and records it in its JSON.
#pragma once

#include <cuprim/core/device.hpp>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace cuprim {

/// The default policy argument of every entry point: the family's tuned row for the current device.
struct tuned_t {
  friend constexpr bool operator==(tuned_t, tuned_t) = default;
};
inline constexpr tuned_t tuned{};

/// The compute capabilities (× 10: 90 is sm_90) that the tuning tables have rows for, oldest first.
inline constexpr int tuned_archs[] = {90};

/// The row a device of compute capability `cc` (× 10) takes: that of the newest tuned architecture not newer than
/// the device, or the oldest one for older devices (whose rows are not measured).
constexpr int tuned_arch(int cc) {
  int best = tuned_archs[0];
  for (int a : tuned_archs)
    if (a <= cc) best = a;
  return best;
}

/// The tuned architecture of the current device; the oldest tuned architecture where no device is visible, so that
/// argument rules and workspace sizes can still be checked on a host without a GPU (nothing launches there).
inline int current_tuned_arch() { return has_device() ? tuned_arch(get_device_info().arch()) : tuned_archs[0]; }

namespace detail {

template <std::size_t I, class F>
decltype(auto) with_tuned_arch_from(int arch, F&& f) {
  if constexpr (I + 1 == std::size(tuned_archs)) {
    return std::forward<F>(f).template operator()<tuned_archs[I]>();
  } else {
    if (arch == tuned_archs[I]) return std::forward<F>(f).template operator()<tuned_archs[I]>();
    return with_tuned_arch_from<I + 1>(arch, std::forward<F>(f));
  }
}

/// Calls f.template operator()<A>() with A the current device's tuned architecture, a compile-time constant, so
/// that a table row can become a template argument: `with_tuned_arch([&]<int A>() { launch<policy_for(A)>(...); })`.
/// Architectures whose rows are equal instantiate the same kernels.
template <class F>
decltype(auto) with_tuned_arch(F&& f) {
  return with_tuned_arch_from<0>(current_tuned_arch(), std::forward<F>(f));
}

/// The policy an entry point runs: `Policy` itself, or the table's row when Policy is cuprim::tuned. A policy of
/// another family is a compile-time error naming the expected type.
template <auto Policy, class P>
constexpr P pick_policy(P row) {
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(Policy)>, tuned_t>) {
    return row;
  } else {
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(Policy)>, P>,
                  "cuprim: the policy argument must be cuprim::tuned or this family's policy type (see the entry "
                  "point's header)");
    return Policy;
  }
}

/// A policy value as a type. Kernels take their policy this way (`template <class Policy, ...> __global__ void
/// k(...)`, reading `constexpr auto P = Policy::value`): the host stubs nvcc 13.0 generates for __global__ templates
/// cannot name a class-type template argument given directly (the stub refers to the template parameter object by
/// a mangled name it never declares), while a type that wraps one compiles. Host templates take the value itself.
template <auto V>
struct policy_constant {
  static constexpr auto value = V;
};

/// A policy type: it names itself (P::name) and lists its fields (fields(f) calls f(name, value) for each).
template <class P>
concept described_policy = requires { P::name; };

template <class V>
void append_value(std::string& s, const V& v, bool json);

template <class P>
void append_fields(std::string& s, const P& p, bool json) {
  bool first = true;
  p.fields([&](const char* name, const auto& v) {
    if (!first) s += json ? ", " : " ";
    first = false;
    s += json ? std::string("\"") + name + "\": " : std::string(name) + "=";
    append_value(s, v, json);
  });
}

template <class V>
void append_value(std::string& s, const V& v, bool json) {
  if constexpr (described_policy<V>) {
    s += "{";
    append_fields(s, v, json);
    s += "}";
  } else if constexpr (std::is_same_v<V, bool>) {
    s += v ? "true" : "false";
  } else if constexpr (std::is_convertible_v<V, const char*>) {  // a named choice, e.g. an enumerator's name
    s += json ? "\"" + std::string(v) + "\"" : std::string(v);
  } else {
    s += std::to_string(v);
  }
}

}  // namespace detail

/// The policy's fields as text, "threads=512 vector_bytes=16 unroll=4 blocks_per_sm=4" (nested policies in braces).
template <detail::described_policy P>
std::string describe(const P& p) {
  std::string s;
  detail::append_fields(s, p, false);
  return s;
}

/// The policy as a JSON object, {"policy": "reduce_policy", "threads": 512, ...}.
template <detail::described_policy P>
std::string to_json(const P& p) {
  std::string s = std::string("{\"policy\": \"") + P::name + "\", ";
  detail::append_fields(s, p, true);
  return s + "}";
}

}  // namespace cuprim
