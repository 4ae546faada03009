// cuprim/host/select.hpp: sequential host references for stream compaction.
//
//   std::int64_t cuprim::host::select_if(in, out, n, pred)            kept items, in order
//   std::int64_t cuprim::host::select_flagged(in, flags, out, n)      items whose flag is true
//   std::int64_t cuprim::host::partition(in, out, n, pred)            selected in order, then rejected in order
//   std::int64_t cuprim::host::unique(in, out, n, eq = equal_to{})    adjacent duplicates dropped
//   std::int64_t cuprim::host::run_length_encode(in, unique_out, counts_out, n, eq = equal_to{})
//
// Each returns the count the device version writes to *num_selected (partition: the number selected;
// run_length_encode: the number of runs). One pass in index order (the lecture's sequential filter). The layouts
// are the device API's: partition keeps the rejected items in input order after the selected ones; a run starts
// at i > 0 when !eq(in[i-1], in[i]). Outputs must not overlap the inputs; nothing is written when n ≤ 0.
#pragma once

#include <cuprim/core/functional.cuh>

#include <cstdint>

namespace cuprim::host {

/// out[0 .. count) = the x in in[0 .. n) with pred(x), in order; returns count.
template <class T, class Pred>
std::int64_t select_if(const T* in, T* out, std::int64_t n, Pred pred) {
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (pred(in[i])) out[count++] = in[i];
  return count;
}

/// out[0 .. count) = the in[i] with static_cast<bool>(flags[i]), in order; returns count.
template <class T, class Flag>
std::int64_t select_flagged(const T* in, const Flag* flags, T* out, std::int64_t n) {
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (static_cast<bool>(flags[i])) out[count++] = in[i];
  return count;
}

/// out = [the x with pred(x), in order; then the others, in order]; returns the number selected.
template <class T, class Pred>
std::int64_t partition(const T* in, T* out, std::int64_t n, Pred pred) {
  std::int64_t selected = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (pred(in[i])) ++selected;
  std::int64_t s = 0, r = selected;
  for (std::int64_t i = 0; i < n; ++i) {
    if (pred(in[i])) out[s++] = in[i];
    else out[r++] = in[i];
  }
  return selected;
}

/// out[0 .. count) = in[0] and every in[i] with !eq(in[i-1], in[i]), in order; returns count.
template <class T, class Eq = equal_to>
std::int64_t unique(const T* in, T* out, std::int64_t n, Eq eq = {}) {
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (i == 0 || !eq(in[i - 1], in[i])) out[count++] = in[i];
  return count;
}

/// For each run of adjacent items equal under eq: its first item to unique_out, its length (converted to Count)
/// to counts_out, in order; returns the number of runs.
template <class T, class Count, class Eq = equal_to>
std::int64_t run_length_encode(const T* in, T* unique_out, Count* counts_out, std::int64_t n, Eq eq = {}) {
  std::int64_t runs = 0, start = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i == 0 || !eq(in[i - 1], in[i])) {
      if (i > 0) counts_out[runs - 1] = static_cast<Count>(i - start);
      unique_out[runs++] = in[i];
      start = i;
    }
  }
  if (runs > 0) counts_out[runs - 1] = static_cast<Count>(n - start);
  return runs;
}

}  // namespace cuprim::host
