// cuprim/ooc/reduce.cuh: out-of-core reductions over host arrays of any size.
//
//   cuprim::ooc::reduce(in, out, n, op, init, options)     *out = init ⊕ in[0] ⊕ ... ⊕ in[n-1]
//   cuprim::ooc::sum(in, out, n, options)                  *out = Σ in[i] (accumulated in *out's type)
//
// Same shape as cuprim::reduce (device/reduce.cuh), with host arrays: `in` is a host array of n elements
// (pageable, page-locked or managed), `out` a host pointer. The input streams through the device in chunks
// (ooc/pipeline.cuh): each chunk is reduced on its stream by cuprim::reduce, and the chunk results are joined in
// chunk order by a one-thread kernel, so the kernels hide behind the H2D copies. Synchronous: returns when *out
// is written.
//
// Types and operator as for cuprim::reduce: the accumulator is Init's type (float for 16-bit floats), `op` any
// associative and commutative host/device callable; no identity is needed. Floating-point results are the same
// from run to run for the same n, options and GPU, but differ in the last bits from cuprim::reduce (another
// association).
//
// Errors. cuprim::invalid_argument before any transfer: n < 0, null in with n > 0, null out, out overlapping the
// input, options out of range, a device pointer. cuprim::bad_alloc / cuda_error: everything is released first.
#pragma once

#include <cuprim/core/validate.hpp>
#include <cuprim/device/reduce.cuh>
#include <cuprim/ooc/detail/kernels.cuh>
#include <cuprim/ooc/pipeline.cuh>

namespace cuprim::ooc {

namespace detail {

template <class In, class Out, class Op, class Init>
void reduce_run(const char* fn, const In* in, Out* out, std::int64_t n, Op op, Init init, const options& o) {
  using Acc = accumulator_t<Init>;
  using cuprim::detail::read_only;
  using cuprim::detail::written;
  validate_input(fn, in, n, o);
  cuprim::detail::check_pointer(fn, "out", out);
  cuprim::detail::check_overlaps(fn, {{"in", in, std::size_t(n) * sizeof(In), read_only},
                                      {"out", out, sizeof(Out), written}});
  cuprim::detail::check_no_pending_error(fn);
  const Acc init_acc = cuprim::detail::convert<Acc>(init);
  if (n == 0) {
    *out = cuprim::detail::convert<Out>(init_acc);
    return;
  }
  pipeline<In> p(fn, in, n, nullptr, o, true, 0, 0, 256);
  device_buffer<Acc> acc(1, p.stream(0));
  device_buffer<Out> result(1, p.stream(0));
  const auto guard = p.guard();  // waits for every stream before acc and result are released
  CUPRIM_CUDA_CHECK(cudaStreamSynchronize(p.stream(0)));  // acc is used on every stream
  Acc* acc_p = acc.data();
  p.run(
      [&](const chunk& c, const In* d_in, char*, void* scratch) {
        Acc* part = static_cast<Acc*>(scratch);
        // The chunk's first element (read on the host) starts its accumulator: no identity needed.
        cuprim::reduce(d_in + 1, part, c.count - 1, op, cuprim::detail::convert<Acc>(in[c.first]), c.stream);
        p.ordered_begin(c);
        combine_kernel<<<1, 1, 0, c.stream>>>(acc_p, part, c.index == 0, op);
        cuprim::detail::check_launch(fn);
        p.ordered_end(c);
      },
      [](const chunk&, const char*) {});
  finish_kernel<<<1, 1, 0, p.stream(0)>>>(result.data(), acc_p, init_acc, op);
  cuprim::detail::check_launch(fn);
  Out host{};
  CUPRIM_CUDA_CHECK(cudaMemcpyAsync(&host, result.data(), sizeof(Out), cudaMemcpyDeviceToHost, p.stream(0)));
  CUPRIM_CUDA_CHECK(cudaStreamSynchronize(p.stream(0)));
  *out = host;
}

}  // namespace detail

/// *out = init ⊕ in[0] ⊕ ... ⊕ in[n-1] over a host array; *out is a host location. Synchronous.
template <class In, class Out, class Op, class Init>
void reduce(const In* in, Out* out, std::int64_t n, Op op, Init init, const options& o = {}) {
  CUPRIM_ENTRY_NAME(fn);
  detail::reduce_run(fn, in, out, n, op, init, o);
}

/// *out = Σ in[i], accumulated in *out's type (float for 16-bit floats). Synchronous.
template <class In, class Out>
void sum(const In* in, Out* out, std::int64_t n, const options& o = {}) {
  CUPRIM_ENTRY_NAME(fn);
  detail::reduce_run(fn, in, out, n, plus{}, cuprim::detail::convert<accumulator_t<Out>>(0), o);
}

}  // namespace cuprim::ooc
