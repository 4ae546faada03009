// cuprim/host/scan.hpp: sequential host references for the scan family.
//
//   cuprim::host::inclusive_scan(in, out, n, op)          out[i] = in[0] ⊕ ... ⊕ in[i]
//   cuprim::host::exclusive_scan(in, out, n, op, init)    out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1]
//   cuprim::host::inclusive_sum / exclusive_sum(in, out, n)
//
// The seed's ScanSeqInc: one pass in index order, O(n). They follow the device API's conventions: each input
// is converted to the accumulator of *out's type (accumulator_t<Out>: float for 16-bit floats, Out otherwise),
// the running value is kept in that type and converted to Out on every store, and the earlier part of the
// sequence is always the left operand (non-commutative operators are fine). A double `out` over float input
// gives the double-precision reference the lab checks float scans against. out == in (in place) is allowed.
#pragma once

#include <cuprim/core/functional.cuh>

#include <cstdint>

namespace cuprim::host {

/// out[i] = in[0] ⊕ ... ⊕ in[i] in index order; nothing is written when n ≤ 0.
template <class In, class Out, class Op>
void inclusive_scan(const In* in, Out* out, std::int64_t n, Op op) {
  using Acc = accumulator_t<Out>;
  if (n <= 0) return;
  Acc acc = detail::convert<Acc>(in[0]);
  out[0] = detail::convert<Out>(acc);
  for (std::int64_t i = 1; i < n; ++i) {
    acc = op(acc, detail::convert<Acc>(in[i]));  // read in[i] before out[i] is written: in place is fine
    out[i] = detail::convert<Out>(acc);
  }
}

/// out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1] (out[0] = init) in index order; nothing is written when n ≤ 0.
template <class In, class Out, class Op, class Init>
void exclusive_scan(const In* in, Out* out, std::int64_t n, Op op, Init init) {
  using Acc = accumulator_t<Out>;
  Acc acc = detail::convert<Acc>(init);
  for (std::int64_t i = 0; i < n; ++i) {
    const Acc x = detail::convert<Acc>(in[i]);
    out[i] = detail::convert<Out>(acc);
    acc = op(acc, x);
  }
}

/// out[i] = in[0] + ... + in[i].
template <class In, class Out>
void inclusive_sum(const In* in, Out* out, std::int64_t n) {
  host::inclusive_scan(in, out, n, plus{});
}

/// out[i] = in[0] + ... + in[i-1] (out[0] = 0).
template <class In, class Out>
void exclusive_sum(const In* in, Out* out, std::int64_t n) {
  host::exclusive_scan(in, out, n, plus{}, detail::convert<accumulator_t<Out>>(0));
}

}  // namespace cuprim::host
