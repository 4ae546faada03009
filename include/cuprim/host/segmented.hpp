// cuprim/host/segmented.hpp: sequential host references for the segmented family.
//
//   cuprim::host::segmented_reduce(in, out, offsets, num_segments, op, init)
//        out[s] = init ⊕ in[offsets[s]] ⊕ ... ⊕ in[offsets[s+1]-1]      (init for an empty segment)
//   cuprim::host::inclusive_scan_by_key(keys, in, out, n, op [, key_eq])
//   cuprim::host::exclusive_scan_by_key(keys, in, out, n, op, init [, key_eq])
//        a segment is a maximal run of consecutive equal keys
//   cuprim::host::inclusive_segmented_scan(in, head_flags, out, n, op)           a segment starts where flag != 0
//   cuprim::host::exclusive_segmented_scan(in, head_flags, out, n, op, init)
//   cuprim::host::inclusive_segmented_scan(in, offsets, num_segments, out, n, op)         segment s is
//   cuprim::host::exclusive_segmented_scan(in, offsets, num_segments, out, n, op, init)   [offsets[s], offsets[s+1])
//
// One pass in index order, with the device API's conventions: accumulation in accumulator_t of the output's type
// (of init's type for segmented_reduce), the earlier element always the left operand (non-commutative operators
// are fine), results converted on every store. The scans may run in place (out == in).
#pragma once

#include <cuprim/core/functional.cuh>

#include <cstdint>

namespace cuprim::host {

/// out[s] = init ⊕ in[offsets[s]] ⊕ ... ⊕ in[offsets[s+1] - 1] for s in [0, num_segments), in index order.
template <class In, class Out, class Offset, class Op, class Init>
void segmented_reduce(const In* in, Out* out, const Offset* offsets, std::int64_t num_segments, Op op, Init init) {
  using Acc = accumulator_t<Init>;
  for (std::int64_t s = 0; s < num_segments; ++s) {
    Acc acc = detail::convert<Acc>(init);
    for (std::int64_t i = static_cast<std::int64_t>(offsets[s]); i < static_cast<std::int64_t>(offsets[s + 1]); ++i)
      acc = op(acc, detail::convert<Acc>(in[i]));
    out[s] = detail::convert<Out>(acc);
  }
}

/// Inclusive scan restarted wherever `starts(i)` holds (element 0 always starts a segment).
template <class In, class Out, class Op, class Starts>
void inclusive_scan_segments(const In* in, Out* out, std::int64_t n, Op op, Starts starts) {
  using Acc = accumulator_t<Out>;
  Acc acc{};
  for (std::int64_t i = 0; i < n; ++i) {
    const Acc x = detail::convert<Acc>(in[i]);  // read before out[i] is written: in place is fine
    acc = (i == 0 || starts(i)) ? x : op(acc, x);
    out[i] = detail::convert<Out>(acc);
  }
}

/// Exclusive scan seeded with init at every segment start (element 0 always starts a segment).
template <class In, class Out, class Op, class Init, class Starts>
void exclusive_scan_segments(const In* in, Out* out, std::int64_t n, Op op, Init init, Starts starts) {
  using Acc = accumulator_t<Out>;
  const Acc first = detail::convert<Acc>(init);
  Acc acc = first;
  for (std::int64_t i = 0; i < n; ++i) {
    const Acc x = detail::convert<Acc>(in[i]);
    if (i == 0 || starts(i)) acc = first;
    out[i] = detail::convert<Out>(acc);
    acc = op(acc, x);
  }
}

/// out[i] = in[j] ⊕ ... ⊕ in[i], where j is the first index of the run of keys equal (by key_eq) to keys[i].
template <class Key, class In, class Out, class Op, class KeyEq = equal_to>
void inclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, KeyEq key_eq = {}) {
  inclusive_scan_segments(in, out, n, op, [&](std::int64_t i) { return !key_eq(keys[i - 1], keys[i]); });
}

/// out[i] = init ⊕ in[j] ⊕ ... ⊕ in[i-1] (init at the first index j of each run of equal keys).
template <class Key, class In, class Out, class Op, class Init, class KeyEq = equal_to>
void exclusive_scan_by_key(const Key* keys, const In* in, Out* out, std::int64_t n, Op op, Init init,
                           KeyEq key_eq = {}) {
  exclusive_scan_segments(in, out, n, op, init, [&](std::int64_t i) { return !key_eq(keys[i - 1], keys[i]); });
}

/// Inclusive scan restarted at every i with head_flags[i] != 0 (and at 0).
template <class In, class Flag, class Out, class Op>
void inclusive_segmented_scan(const In* in, const Flag* head_flags, Out* out, std::int64_t n, Op op) {
  inclusive_scan_segments(in, out, n, op, [&](std::int64_t i) { return head_flags[i] != Flag(0); });
}

/// Exclusive scan seeded with init at every i with head_flags[i] != 0 (and at 0).
template <class In, class Flag, class Out, class Op, class Init>
void exclusive_segmented_scan(const In* in, const Flag* head_flags, Out* out, std::int64_t n, Op op, Init init) {
  exclusive_scan_segments(in, out, n, op, init, [&](std::int64_t i) { return head_flags[i] != Flag(0); });
}

namespace detail_segmented {
/// Whether element i starts one of the segments [offsets[s], offsets[s+1]) (a sequential merge with the offsets).
template <class Offset>
struct offset_starts {
  const Offset* offsets;
  std::int64_t num_segments;
  std::int64_t s = 0;
  bool operator()(std::int64_t i) {  // called with increasing i
    while (s < num_segments && static_cast<std::int64_t>(offsets[s]) < i) ++s;
    return s < num_segments && static_cast<std::int64_t>(offsets[s]) == i;
  }
};
}  // namespace detail_segmented

/// Inclusive scan of each segment [offsets[s], offsets[s+1]) of [0, n) (offsets[0] = 0, offsets[num_segments] = n).
template <class In, class Offset, class Out, class Op>
void inclusive_segmented_scan(const In* in, const Offset* offsets, std::int64_t num_segments, Out* out,
                              std::int64_t n, Op op) {
  inclusive_scan_segments(in, out, n, op, detail_segmented::offset_starts<Offset>{offsets, num_segments});
}

/// Exclusive scan (init at each segment's first element) of each segment [offsets[s], offsets[s+1]) of [0, n).
template <class In, class Offset, class Out, class Op, class Init>
void exclusive_segmented_scan(const In* in, const Offset* offsets, std::int64_t num_segments, Out* out,
                              std::int64_t n, Op op, Init init) {
  exclusive_scan_segments(in, out, n, op, init, detail_segmented::offset_starts<Offset>{offsets, num_segments});
}

}  // namespace cuprim::host
