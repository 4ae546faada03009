// cuprim/ooc/select.cuh: out-of-core stream compaction over host arrays of any size.
//
//   cuprim::ooc::select_if(in, out, num_selected, n, pred, options)    out = the x in `in` with pred(x), in order
//
// Same shape as cuprim::select_if (device/select.cuh), with host arrays: in and out are host arrays of n
// elements (pageable, page-locked or managed), num_selected a host pointer. Each chunk is compacted on its stream
// by cuprim::select_if into device memory; as soon as the host has the chunk's count (copied back right after the
// kernel), exactly its selected items are copied to their place in out, right after those of the chunks before
// (ooc/pipeline.cuh, chunk_output::packed): by DMA straight into out when it is page-locked, with no host copy;
// through page-locked staging, drained into out by the pipeline's copy threads, when it is pageable or managed.
// Synchronous: returns when out and *num_selected are written. Items of out past the count are not written.
//
// Cost: with page-locked arrays the copy engines move the input once and the selected items once, the two
// directions at once, and the host copies nothing (it only waits for counts), so the H2D copies bound the call.
// Waiting for a chunk's count does not idle the H2D engine: the copy of the chunk's items is issued before the H2D
// copy of the chunk that next takes its slot, and the chunks between are queued by then. With pageable output the
// host copies the selected items once (not whole chunks).
//
// Errors. cuprim::invalid_argument before any transfer: n < 0, null in/out with n > 0, null num_selected, out
// overlapping in, num_selected overlapping either, options out of range, device pointers.
#pragma once

#include <cuprim/core/validate.hpp>
#include <cuprim/device/select.cuh>
#include <cuprim/ooc/pipeline.cuh>

namespace cuprim::ooc {

/// Writes the items x of the host array [in, in + n) with pred(x) to out, in order, and their number to
/// *num_selected (host). Synchronous.
template <class T, class Pred>
void select_if(const T* in, T* out, std::int64_t* num_selected, std::int64_t n, Pred pred, const options& o = {}) {
  CUPRIM_ENTRY_NAME(fn);
  using cuprim::detail::read_only;
  using cuprim::detail::written;
  detail::validate_input(fn, in, n, o);
  cuprim::detail::check_pointer(fn, "out", out, n > 0);
  cuprim::detail::check_pointer(fn, "num_selected", num_selected);
  const std::size_t bytes = std::size_t(n) * sizeof(T);
  cuprim::detail::check_overlaps(fn, {{"in", in, bytes, read_only},
                                      {"out", out, bytes, written},
                                      {"num_selected", num_selected, sizeof(std::int64_t), written}});
  cuprim::detail::check_no_pending_error(fn);
  if (n == 0) {
    *num_selected = 0;
    return;
  }
  pipeline<T, T> p(fn, in, n, out, o, chunk_output::packed);
  std::int64_t total = 0;
  p.run([&](const chunk& c, const T* d_in, T* d_out,
            void*) { cuprim::select_if(d_in, d_out, c.d_out_count, c.count, pred, c.stream); },
        [&](const chunk& c, const T*) { total = c.out_first + c.out_count; });
  *num_selected = total;
}

}  // namespace cuprim::ooc
