// cuprim/ooc/select.cuh: out-of-core stream compaction over host arrays of any size.
//
//   cuprim::ooc::select_if(in, out, num_selected, n, pred, options)    out = the x in `in` with pred(x), in order
//
// Same shape as cuprim::select_if (device/select.cuh), with host arrays: in and out are host arrays of n
// elements (pageable, page-locked or managed), num_selected a host pointer. Each chunk is compacted on its stream
// by cuprim::select_if into device memory; the chunk's items and count come back through page-locked staging,
// and the host appends the chunk's selected items to out in chunk order (with the pipeline's copy threads) while
// later chunks run. Synchronous: returns when out and *num_selected are written. Items of out past the count are
// not written.
//
// Cost: the D2H stage copies whole chunks (the count is known only when the chunk is done, and waiting for it
// would stall the pipeline); the D2H engine is otherwise idle, so this costs no time while the input's H2D
// copies are the bottleneck.
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
  detail::staging_buffer counts(sizeof(std::int64_t) * 32);  // one per stream; outlives the pipeline
  pipeline<T, T> p(fn, in, n, out, o, /*mapped=*/false, 0, 0, 256);
  auto* host_counts = static_cast<std::int64_t*>(counts.get());
  std::int64_t total = 0;
  p.run(
      [&](const chunk& c, const T* d_in, T* d_out, void* scratch) {
        auto* d_count = static_cast<std::int64_t*>(scratch);
        cuprim::select_if(d_in, d_out, d_count, c.count, pred, c.stream);
        CUPRIM_CUDA_CHECK(cudaMemcpyAsync(host_counts + c.slot, d_count, sizeof(std::int64_t),
                                          cudaMemcpyDeviceToHost, c.stream));
      },
      [&](const chunk& c, const T* staged) {
        const std::int64_t k = host_counts[c.slot];
        p.host_copy(out + total, staged, std::size_t(k) * sizeof(T));
        total += k;
      });
  *num_selected = total;
}

}  // namespace cuprim::ooc
