// cuprim/ooc/pipeline.cuh: the stream pipeline behind the out-of-core primitives, usable on its own.
//
//   cuprim::ooc::options, plan, make_plan     the settings of a call and what they give (ooc/plan.hpp)
//   cuprim::ooc::pipeline<In, Out>           runs a chunked operation over host-resident data of any size:
//                                            H2D copy → caller's kernel stage → D2H copy, chunk after chunk, with
//                                            the chunks spread over several streams so that the copy engines and
//                                            the SMs work on different chunks at once
//   cuprim::ooc::staging_stats(), trim_staging()   the page-locked staging cache (ooc/staging.hpp)
//
// Host memory. The input (and the output, if any) are host arrays: pageable (malloc, new, std::vector),
// page-locked (cudaMallocHost, cudaHostAlloc, cudaHostRegister) or managed. cuprim::detail::host_memory_kind
// (core/validate.hpp) decides: page-locked arrays are copied by DMA directly; pageable and managed arrays are
// staged through page-locked buffers, filled and drained by a few host threads on the issuing thread's turn, so
// the copy engines always read and write page-locked memory. Device pointers are rejected (use the in-core entry
// points in cuprim::).
//
// Streams, chunks and slots. Chunk c goes to slot c mod S (S = streams). A slot owns one stream (lane_layout::
// per_slot, ooc/streams.hpp), its device buffers (chunk input, chunk output, optional scratch), its staging buffers
// when they are needed, and an event marking the end of its last chunk. A slot is reused only after that event, so
// at most S chunks are in flight. Issue orders (the two loops of the lecture's copy-engine slides):
//   issue_order::by_chunk   for each chunk: H2D, kernel, D2H on its stream (depth first)
//   issue_order::by_stage   for each group of S chunks: every H2D, then every kernel, then every D2H (breadth
//                           first)
// On a GPU with two copy engines and per-stream hardware queues both overlap fully; the default is the one the
// lab measured faster (ooc_policy, ooc/tuning.hpp).
//
// Synchronisation. Everything in cuprim::ooc is synchronous: a call returns when its results are in host
// memory, and it leaves the caller's streams alone (it makes and destroys its own). RAII everywhere: streams,
// events, device buffers and page-locked buffers are owned by objects that wait for the streams before
// releasing them, so an exception thrown mid-run (a failed allocation, a failed launch) releases everything.
//
// Errors. cuprim::invalid_argument before anything is allocated or copied: n < 0, null arrays with n > 0,
// overlapping input and output (in place excepted where an operation allows it), options out of range,
// a device-memory cap too small for one chunk, device pointers. cuprim::bad_alloc / cuda_error otherwise.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/ooc/plan.hpp>
#include <cuprim/ooc/staging.hpp>
#include <cuprim/ooc/streams.hpp>
#include <cuprim/ooc/tuning.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuprim::ooc {

/// Where the D2H stage puts a chunk's outputs.
enum class chunk_output {
  mapped,    ///< chunk c's count outputs go to out[first, first + count)
  unmapped,  ///< d_out's first count elements come back to a page-locked copy that retire reads (host_out)
  packed,    ///< the kernel stage writes how many outputs it made to *d_out_count; that many go to out right after
             ///< those of the chunks before, out[out_first, out_first + out_count) (compactions)
};

/// One chunk as the kernel stage sees it.
struct chunk {
  std::int64_t index = 0;  ///< 0, 1, ... in input order
  std::int64_t first = 0;  ///< index of its first element in the whole array
  std::int64_t count = 0;  ///< elements in this chunk
  int slot = 0;            ///< its slot (0..streams-1): selects the slot's scratch
  cudaStream_t stream = nullptr;
  std::int64_t* d_out_count = nullptr;  ///< packed output: where the kernel stage writes its output count (device)
  std::int64_t out_first = 0;           ///< packed output, in retire: where the chunk's outputs are in out
  std::int64_t out_count = 0;           ///< packed output, in retire: how many there are
};

/// The chunked H2D → kernel → D2H pipeline over host arrays. In: the input element type; Out: the output
/// element type of the D2H stage (void for none). Construction checks that the arrays are host memory and plans
/// the call (the entry points validate the rest); it allocates the slots (streams, device buffers, staging).
///
/// run(kernel, retire):
///   kernel(const chunk& c, const In* d_in, Out* d_out, void* d_scratch)
///       enqueues the chunk's work on c.stream: d_in holds its c.count inputs; it writes the chunk's output to
///       d_out (capacity chunk_elems + out_extra elements), which the D2H stage copies back (packed output: and
///       how many it wrote to *c.d_out_count). Chunks are issued in order; ordered_begin/ordered_end make a step
///       run in chunk order across streams (a carry).
///   retire(const chunk& c, const Out* host_out)
///       runs on the host once the chunk is complete, in chunk order. With a mapped output the pipeline has already
///       written out[first, first + count) (host_out points there); with a packed one out[out_first, out_first +
///       out_count) (host_out points there); with an unmapped one host_out is the staged page-locked copy of d_out's
///       first `count` elements.
///
/// Packed output. The host learns a chunk's count from a copy of *d_out_count and then copies exactly that many
/// outputs to their place: into out itself when out is page-locked (the DMA writes the final place; no host copy),
/// else into the slot's page-locked staging, drained into out by the copy threads at retire. The copy of chunk c is
/// issued when the host first has to wait for something anyway: before its slot takes chunk c + streams, whose H2D
/// copy the stream then runs after it. By then the copy engine has the H2D copies of the chunks between queued, so
/// waiting for chunk c's count never leaves it idle.
template <class In, class Out = void>
class pipeline {
  using out_t = std::conditional_t<std::is_void_v<Out>, char, Out>;
  static constexpr std::size_t out_size = std::is_void_v<Out> ? 0 : sizeof(out_t);

public:
  /// `out` may be null (no D2H stage). `mapped`: chunk c's output goes to out[first, first + count), else unmapped.
  /// `out_extra`: extra device elements per slot's output buffer. `scratch_per_elem` × chunk_elems +
  /// `scratch_fixed` device bytes per slot for the kernel stage.
  pipeline(const char* fn, const In* in, std::int64_t n, out_t* out, const options& o, bool mapped = true,
           std::size_t out_extra = 0, std::size_t scratch_per_elem = 0, std::size_t scratch_fixed = 0)
      : pipeline(fn, in, n, out, o, mapped ? chunk_output::mapped : chunk_output::unmapped, out_extra,
                 scratch_per_elem, scratch_fixed) {}

  /// As above, with the output's mode named (packed: a compaction's).
  pipeline(const char* fn, const In* in, std::int64_t n, out_t* out, const options& o, chunk_output mode,
           std::size_t out_extra = 0, std::size_t scratch_per_elem = 0, std::size_t scratch_fixed = 0)
      : in_(in), out_(out), mode_(mode) {
    using cuprim::detail::host_memory;
    using cuprim::detail::host_memory_kind;
    const bool stage_in = in != nullptr && host_memory_kind(fn, "in", in) == host_memory::pageable;
    const bool has_out = out != nullptr && out_size > 0;
    const bool stage_out = has_out && (mode == chunk_output::unmapped ||
                                       host_memory_kind(fn, "out", out) == host_memory::pageable);
    std::size_t free_b = 0, total_b = 0;
    CUPRIM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const std::size_t fixed = scratch_fixed + (has_out ? out_extra * out_size : 0) + 4096;
    plan_ = make_plan(fn, n, sizeof(In), has_out ? out_size : 0, scratch_per_elem, fixed, stage_in, stage_out, o,
                      free_b, ooc_policy_for(current_tuned_arch()));
    if (plan_.chunks == 0) return;
    const int S = plan_.streams;
    core_ = std::make_unique<detail::pipeline_core>(detail::lane_layout::per_slot, S,
                                                    stage_in || plan_.stage_out ? plan_.host_threads : 1);
    const auto& lanes = core_->streams();
    loaded_ = std::make_unique<detail::handoff>(lanes, detail::stage::in, detail::stage::compute, S);
    computed_ = std::make_unique<detail::handoff>(lanes, detail::stage::compute, detail::stage::out, S);
    done_.resize(std::size_t(S));
    ordered_.resize(std::size_t(S));
    if (packed()) {
      counted_.resize(std::size_t(S));
      counts_ = detail::staging_buffer(std::size_t(S) * sizeof(std::int64_t));
    }
    const std::size_t ce = std::size_t(plan_.chunk_elems);
    slots_.resize(std::size_t(S));
    for (int s = 0; s < S; ++s) {
      slot& sl = slots_[std::size_t(s)];
      const cudaStream_t st = lanes.stream(detail::stage::in, s);
      if (plan_.stage_in) sl.pin_in = detail::staging_buffer(ce * sizeof(In));
      if (plan_.stage_out) sl.pin_out = detail::staging_buffer((ce + out_extra) * out_size);
      sl.d_in = device_buffer<In>(ce, st);
      if (has_out) sl.d_out = device_buffer<out_t>(ce + out_extra, st);
      const std::size_t sb = scratch_fixed + scratch_per_elem * ce;
      if (sb) sl.d_scratch = device_buffer<unsigned char>(sb, st);
      if (packed()) sl.d_count = device_buffer<std::int64_t>(1, st);
    }
  }
  pipeline(const pipeline&) = delete;
  pipeline& operator=(const pipeline&) = delete;
  ~pipeline() {
    if (core_) core_->streams().synchronize();
  }

  const plan& get_plan() const noexcept { return plan_; }
  /// The stream of slot s (for extra work before/after run, e.g. zeroing a shared accumulator).
  cudaStream_t stream(int s) const noexcept { return core_->stream(detail::stage::compute, s); }

  /// An object whose destructor waits for every slot's stream: declare it after buffers the kernel stage uses
  /// on several streams, so that an exception cannot free them under running work.
  struct stream_guard {
    const pipeline* p;
    ~stream_guard() {
      if (p->core_) p->core_->streams().synchronize();
    }
  };
  stream_guard guard() const noexcept { return {this}; }

  /// memcpy on the host with the pipeline's staging threads (for retire steps that copy large results).
  void host_copy(void* dst, const void* src, std::size_t bytes) {
    if (core_) core_->copier().copy(dst, src, bytes);
    else std::memcpy(dst, src, bytes);
  }

  /// Makes c.stream wait for the previous chunk's ordered step (call before the step, inside kernel()).
  void ordered_begin(const chunk& c) {
    if (c.index == 0) return;
    ordered_[std::size_t((c.index - 1) % plan_.streams)].wait(c.stream);
  }
  /// Marks the end of chunk c's ordered step (call after it, inside kernel()).
  void ordered_end(const chunk& c) { ordered_[std::size_t(c.slot)].record(c.stream); }

  /// Runs every chunk; returns when all are retired (every stream idle).
  template <class Kernel, class Retire>
  void run(Kernel&& kernel, Retire&& retire) {
    const std::int64_t C = plan_.chunks, S = plan_.streams;
    std::int64_t next_retire = 0, next_place = 0;
    auto retire_one = [&] { retire_chunk(make_chunk(next_retire++), retire); };
    auto place_one = [&] {  // packed output: the chunk's outputs to their place
      const chunk k = make_chunk(next_place++);
      while (next_retire <= k.index - S) retire_one();  // the slot's staging and its done event are free
      place(k);
    };
    auto h2d = [&](const chunk& k) {
      // The slot's previous chunk must be complete (or, packed, its outputs' copy queued before this chunk's H2D).
      if (packed())
        while (next_place <= k.index - S) place_one();
      else
        while (next_retire <= k.index - S) retire_one();
      copy_in(k);
    };
    auto compute = [&](const chunk& k) {
      slot& sl = slots_[std::size_t(k.slot)];
      loaded_->wait(k.slot);
      kernel(k, static_cast<const In*>(sl.d_in.data()), static_cast<out_t*>(sl.d_out.data()),
             static_cast<void*>(sl.d_scratch.data()));
      if (packed()) count_out(k);
      computed_->record(k.slot);
    };
    if (plan_.order == issue_order::by_stage) {
      for (std::int64_t w = 0; w < C; w += S) {
        const std::int64_t e = std::min(C, w + S);
        for (std::int64_t c = w; c < e; ++c) h2d(make_chunk(c));
        for (std::int64_t c = w; c < e; ++c) compute(make_chunk(c));
        for (std::int64_t c = w; c < e; ++c) copy_out(make_chunk(c));
      }
    } else {
      for (std::int64_t c = 0; c < C; ++c) {
        const chunk k = make_chunk(c);
        h2d(k);
        compute(k);
        copy_out(k);
      }
    }
    while (next_place < C && packed()) place_one();
    while (next_retire < C) retire_one();
  }

private:
  struct slot {
    detail::staging_buffer pin_in, pin_out;
    device_buffer<In> d_in;
    device_buffer<out_t> d_out;
    device_buffer<unsigned char> d_scratch;
    device_buffer<std::int64_t> d_count;  // packed output: the chunk's output count
    std::int64_t out_first = 0, out_count = 0;  // packed output: where its last chunk's outputs went
  };

  bool packed() const noexcept { return mode_ == chunk_output::packed; }
  std::int64_t* host_count(int slot) const { return counts_.as<std::int64_t>() + slot; }

  chunk make_chunk(std::int64_t c) {
    chunk k;
    k.index = c;
    k.first = c * plan_.chunk_elems;
    k.count = std::min(plan_.chunk_elems, plan_.n - k.first);
    k.slot = int(c % plan_.streams);
    k.stream = core_->stream(detail::stage::compute, k.slot);
    if (packed()) k.d_out_count = slots_[std::size_t(k.slot)].d_count.data();
    return k;
  }
  /// H2D of chunk k, through the slot's staging when the input is pageable (copied on this thread).
  void copy_in(const chunk& k) {
    slot& sl = slots_[std::size_t(k.slot)];
    const std::size_t bytes = std::size_t(k.count) * sizeof(In);
    const void* src = in_ + k.first;
    if (plan_.stage_in) {
      core_->copier().copy(sl.pin_in.get(), src, bytes);
      src = sl.pin_in.get();
    }
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(sl.d_in.data(), src, bytes, cudaMemcpyHostToDevice,
                                      core_->stream(detail::stage::in, k.slot)));
    loaded_->record(k.slot);
  }
  /// D2H of chunk k (into the slot's staging when unmapped or pageable), then the event the host waits for. A packed
  /// output is copied later, by place(), once its count is known.
  void copy_out(const chunk& k) {
    if (packed()) return;
    slot& sl = slots_[std::size_t(k.slot)];
    const cudaStream_t st = core_->stream(detail::stage::out, k.slot);
    computed_->wait(k.slot);
    if (out_ && out_size) {
      void* dst = plan_.stage_out ? sl.pin_out.get() : static_cast<void*>(out_ + k.first);
      CUPRIM_CUDA_CHECK(
          cudaMemcpyAsync(dst, sl.d_out.data(), std::size_t(k.count) * out_size, cudaMemcpyDeviceToHost, st));
    }
    done_[std::size_t(k.slot)].record(st);
  }
  /// Packed output: after the kernel stage of chunk k, its count back to the host (page-locked), and the event that
  /// says it is there.
  void count_out(const chunk& k) {
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(host_count(k.slot), k.d_out_count, sizeof(std::int64_t), cudaMemcpyDeviceToHost,
                                      k.stream));
    counted_[std::size_t(k.slot)].record(k.stream);
  }
  /// Packed output: waits for chunk k's count, then copies exactly its outputs after those of the chunks before:
  /// straight into out when it is page-locked, else into the slot's staging (drained at retire).
  void place(const chunk& k) {
    slot& sl = slots_[std::size_t(k.slot)];
    const cudaStream_t st = core_->stream(detail::stage::out, k.slot);
    counted_[std::size_t(k.slot)].synchronize();
    sl.out_first = placed_;
    sl.out_count = *host_count(k.slot);
    placed_ += sl.out_count;
    computed_->wait(k.slot);
    if (sl.out_count > 0) {
      void* dst = plan_.stage_out ? sl.pin_out.get() : static_cast<void*>(out_ + sl.out_first);
      CUPRIM_CUDA_CHECK(cudaMemcpyAsync(dst, sl.d_out.data(), std::size_t(sl.out_count) * out_size,
                                        cudaMemcpyDeviceToHost, st));
    }
    done_[std::size_t(k.slot)].record(st);
  }
  /// Waits for chunk k, drains its staged output into `out` (mapped and packed modes), and hands it to retire.
  template <class Retire>
  void retire_chunk(chunk k, Retire& retire) {
    slot& sl = slots_[std::size_t(k.slot)];
    done_[std::size_t(k.slot)].synchronize();
    const out_t* host_out = nullptr;
    if (out_ && out_size) {
      std::int64_t first = k.first, count = k.count;
      if (packed()) {
        first = k.out_first = sl.out_first;
        count = k.out_count = sl.out_count;
      }
      if (mode_ == chunk_output::unmapped) {
        host_out = static_cast<const out_t*>(sl.pin_out.get());
      } else {
        if (plan_.stage_out && count > 0)
          core_->copier().copy(out_ + first, sl.pin_out.get(), std::size_t(count) * out_size);
        host_out = out_ + first;
      }
    }
    retire(k, host_out);
  }

  const In* in_;
  out_t* out_;
  chunk_output mode_;
  std::int64_t placed_ = 0;  // packed output: outputs placed so far
  plan plan_;
  // Destroyed in reverse order: ~pipeline has waited for every stream; then the slots' buffers go (device buffers
  // released in order on their streams), the events, the counts' page-locked buffer, and the core (staging threads,
  // streams) last.
  std::unique_ptr<detail::pipeline_core> core_;
  detail::staging_buffer counts_;  // packed output: each slot's last count, back from the device
  std::unique_ptr<detail::handoff> loaded_, computed_;
  // Per slot: the slot's last chunk is back; its ordered step is done; (packed) its count is back.
  std::vector<detail::event> done_, ordered_, counted_;
  std::vector<slot> slots_;
};

}  // namespace cuprim::ooc
