// cuprim/ooc/scan.cuh: out-of-core prefix scans over host arrays of any size.
//
//   cuprim::ooc::inclusive_scan(in, out, n, op, options)          out[i] = in[0] ⊕ ... ⊕ in[i]
//   cuprim::ooc::exclusive_scan(in, out, n, op, init, options)    out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1]
//   cuprim::ooc::inclusive_sum / exclusive_sum(in, out, n, options)
//
// Same shape as cuprim::inclusive_scan / exclusive_scan (device/scan.cuh), with host arrays (pageable,
// page-locked or managed; in and out may be of different kinds). Each chunk is scanned on its stream by the
// in-core scan; a small kernel then folds in the running total of the chunks before it (the carry) and
// publishes the running total after it. The carry steps run in chunk order across the streams (the pipeline's
// ordered step, an event chain); everything else overlaps. Synchronous: returns when out is written.
//
// Types, operator, in place: as for the in-core scans. The accumulator is *out's type (float for 16-bit
// floats); the carry is kept in it. `op` must be associative (commutativity is not needed: the earlier part is
// always the left operand). out == in is allowed; any other overlap is rejected. Floating-point results differ
// in the last bits from the in-core scan (the chunks' sums are associated differently).
//
// Device memory per stream: one chunk of In, one of Out (+1 element for the exclusive scan's shift) and the
// in-core scan's workspace.
//
// Errors. cuprim::invalid_argument before any transfer: n < 0, null arrays with n > 0, partial overlap of in and
// out, options out of range, device pointers. cuprim::bad_alloc / cuda_error: everything is released first.
#pragma once

#include <cuprim/core/validate.hpp>
#include <cuprim/device/scan.cuh>
#include <cuprim/ooc/detail/kernels.cuh>
#include <cuprim/ooc/pipeline.cuh>

namespace cuprim::ooc {

namespace detail {

template <bool Exclusive, class In, class Out, class Op, class Acc>
void scan_impl(const char* fn, const In* in, Out* out, std::int64_t n, Op op, Acc init, const options& o) {
  validate_input(fn, in, n, o);
  cuprim::detail::check_pointer(fn, "out", out, n > 0);
  if (!cuprim::detail::in_place(in, out))  // in place is allowed; any other overlap is not
    cuprim::detail::check_overlaps(fn, {{"in", in, std::size_t(n) * sizeof(In), cuprim::detail::read_only},
                                        {"out", out, std::size_t(n) * sizeof(Out), cuprim::detail::written}});
  cuprim::detail::check_no_pending_error(fn);
  if (n == 0) return;
  pipeline<In, Out> p(fn, in, n, out, o, true, Exclusive ? 1 : 0, 0, 0);
  device_buffer<Acc> carry(2, p.stream(0));
  const auto guard = p.guard();  // waits for every stream before carry is released
  CUPRIM_CUDA_CHECK(cudaStreamSynchronize(p.stream(0)));
  Acc* carry_p = carry.data();
  const int blocks = 4 * get_device_info().sm_count;
  p.run(
      [&](const chunk& c, const In* d_in, Out* d_out, void*) {
        cuprim::inclusive_scan(d_in, d_out + (Exclusive ? 1 : 0), c.count, op, c.stream);
        p.ordered_begin(c);
        const std::int64_t items = c.count + (Exclusive ? 1 : 0);
        const unsigned grid = unsigned(std::min<std::int64_t>(blocks, (items + 255) / 256));
        carry_kernel<Exclusive><<<grid, 256, 0, c.stream>>>(d_out, c.count, carry_p + (c.index % 2),
                                                            carry_p + ((c.index + 1) % 2), c.index > 0,
                                                            Exclusive && c.index == 0, init, op);
        cuprim::detail::check_launch(fn);
        p.ordered_end(c);
      },
      [](const chunk&, const Out*) {});
}

}  // namespace detail

/// out[i] = in[0] ⊕ ... ⊕ in[i] over host arrays. Synchronous.
template <class In, class Out, class Op>
void inclusive_scan(const In* in, Out* out, std::int64_t n, Op op, const options& o = {}) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_impl<false>(fn, in, out, n, op, accumulator_t<Out>{}, o);
}

/// out[i] = init ⊕ in[0] ⊕ ... ⊕ in[i-1] (out[0] = init) over host arrays. Synchronous.
template <class In, class Out, class Op, class Init>
void exclusive_scan(const In* in, Out* out, std::int64_t n, Op op, Init init, const options& o = {}) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_impl<true>(fn, in, out, n, op, cuprim::detail::convert<accumulator_t<Out>>(init), o);
}

/// out[i] = in[0] + ... + in[i]. Synchronous.
template <class In, class Out>
void inclusive_sum(const In* in, Out* out, std::int64_t n, const options& o = {}) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_impl<false>(fn, in, out, n, plus{}, accumulator_t<Out>{}, o);
}

/// out[i] = in[0] + ... + in[i-1] (out[0] = 0). Synchronous.
template <class In, class Out>
void exclusive_sum(const In* in, Out* out, std::int64_t n, const options& o = {}) {
  CUPRIM_ENTRY_NAME(fn);
  detail::scan_impl<true>(fn, in, out, n, plus{}, cuprim::detail::convert<accumulator_t<Out>>(0), o);
}

}  // namespace cuprim::ooc
