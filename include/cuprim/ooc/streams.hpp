// cuprim/ooc/streams.hpp: the streams and events every out-of-core schedule runs on.
//
// An out-of-core call moves items (the chunks of an array, the tiles of a matrix) through three stages: copy in
// (H2D), compute, copy out (D2H). Items take turns in S slots (item i in slot i mod S), each slot with its own
// device buffers and, for pageable arrays, its own page-locked staging (ooc/staging.hpp). The lanes say which
// stream runs which stage of which slot; they are the seed's amounts of concurrency:
//
//   lane_layout::per_slot    one stream per slot, running its item's three stages in order (the primitives of
//                            ooc/pipeline.cuh); the hardware queues of S streams overlap different items' stages
//   lane_layout::serial      one stream for everything: nothing overlaps
//   lane_layout::two_way     copies in both directions on one stream, compute on another: compute overlaps copies
//   lane_layout::three_way   a stream per stage: both copy engines and the SMs work at once
//   lane_layout::three_way_staged   three_way, plus a host stream for each direction's staging (pack before the
//                            H2D stream, unpack after the D2H stream), so that the host copies of one item
//                            overlap the DMA of another
//
// Staging through page-locked buffers adds two host stages, pack (pageable → page-locked, before copy in) and
// unpack (page-locked → pageable, after copy out). Every layout but three_way_staged runs them on the stream of the
// copy next to them, in line with it.
//
// Work crosses from one stage to another through a handoff (an event per slot: recorded after the producing
// stage's work, waited for before the consuming stage's); where the lanes run both stages on one stream, stream
// order already orders them and the handoff does nothing. pipeline_core holds the lanes and the staging threads,
// and copies host blocks in stream order (host functions in a stream) for schedules whose issuing thread must not
// wait for the device.
#pragma once

#include <cuprim/core/error.hpp>
#include <cuprim/ooc/staging.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <deque>
#include <utility>
#include <vector>

namespace cuprim::ooc::detail {

enum class stage { in, compute, out, pack, unpack };

enum class lane_layout { per_slot, serial, two_way, three_way, three_way_staged };

/// RAII CUDA event.
class event {
public:
  /// `timing`: the event can be timed (ms_to); the schedules' events are not (cheaper to record).
  explicit event(bool timing = false) {
    CUPRIM_CUDA_CHECK(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  event(const event&) = delete;
  event& operator=(const event&) = delete;
  event(event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  event& operator=(event&&) = delete;
  ~event() {
    if (e_) (void)cudaEventDestroy(e_);
  }
  cudaEvent_t get() const noexcept { return e_; }
  void record(cudaStream_t s) const { CUPRIM_CUDA_CHECK(cudaEventRecord(e_, s)); }
  /// Makes stream s wait for the work recorded last.
  void wait(cudaStream_t s) const { CUPRIM_CUDA_CHECK(cudaStreamWaitEvent(s, e_, 0)); }
  /// Makes the host wait for it.
  void synchronize() const { CUPRIM_CUDA_CHECK(cudaEventSynchronize(e_)); }
  /// Milliseconds from this event to `end` (both timing events), once `end` is complete.
  double ms_to(const event& end) const {
    end.synchronize();
    float ms = 0;
    CUPRIM_CUDA_CHECK(cudaEventElapsedTime(&ms, e_, end.e_));
    return ms;
  }

private:
  cudaEvent_t e_ = nullptr;
};

/// How many streams `layout` takes for `slots` slots.
constexpr int lane_count(lane_layout layout, int slots) {
  switch (layout) {
    case lane_layout::per_slot: return slots;
    case lane_layout::serial: return 1;
    case lane_layout::two_way: return 2;
    case lane_layout::three_way: return 3;
    case lane_layout::three_way_staged: return 5;
  }
  return 1;
}

/// Which of those streams runs stage `st` of slot `slot`.
constexpr int lane_of(lane_layout layout, stage st, int slot) {
  // The host stages in line with their copies: pack on the copy-in stream, unpack on the copy-out stream.
  const stage copy = st == stage::pack ? stage::in : st == stage::unpack ? stage::out : st;
  switch (layout) {
    case lane_layout::per_slot: return slot;
    case lane_layout::serial: return 0;
    case lane_layout::two_way: return copy == stage::compute ? 1 : 0;
    case lane_layout::three_way: return copy == stage::in ? 0 : copy == stage::compute ? 1 : 2;
    case lane_layout::three_way_staged:
      return st == stage::pack ? 3 : st == stage::unpack ? 4 : copy == stage::in ? 0 : copy == stage::compute ? 1 : 2;
  }
  return 0;
}

/// The streams of a schedule, laid out by lane_layout. Destroying it waits for every stream first.
class lanes {
public:
  lanes(lane_layout layout, int slots) : layout_(layout) {
    const int n = lane_count(layout, slots);
    streams_.reserve(std::size_t(n));
    try {
      for (int i = 0; i < n; ++i) {
        cudaStream_t s = nullptr;
        CUPRIM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        streams_.push_back(s);
      }
    } catch (...) {
      release();
      throw;
    }
  }
  lanes(const lanes&) = delete;
  lanes& operator=(const lanes&) = delete;
  ~lanes() { release(); }

  /// The stream that runs stage `st` of slot `slot`.
  cudaStream_t stream(stage st, int slot) const noexcept {
    return streams_[std::size_t(lane_of(layout_, st, slot))];
  }
  /// Whether one stream runs both stages of a slot.
  bool shared(stage a, stage b) const noexcept { return lane_of(layout_, a, 0) == lane_of(layout_, b, 0); }
  int count() const noexcept { return int(streams_.size()); }
  cudaStream_t at(int i) const noexcept { return streams_[std::size_t(i)]; }
  /// Waits for every stream (errors are left to the calls that follow).
  void synchronize() const noexcept {
    for (cudaStream_t s : streams_) (void)cudaStreamSynchronize(s);
  }
  /// As synchronize(), reporting the first error.
  void synchronize_checked() const {
    for (cudaStream_t s : streams_) CUPRIM_CUDA_CHECK(cudaStreamSynchronize(s));
  }

private:
  void release() noexcept {
    synchronize();
    for (cudaStream_t s : streams_) (void)cudaStreamDestroy(s);
    streams_.clear();
  }
  lane_layout layout_;
  std::vector<cudaStream_t> streams_;
};

/// Work handed from stage `from` to stage `to` of the same slot, one event per slot (or per buffer of a ring, for
/// lanes whose streams do not depend on the slot): record(i) after the producing work, wait(i) before the consuming
/// work. Nothing at all where the lanes run both stages on one stream.
class handoff {
public:
  handoff(const lanes& l, stage from, stage to, int count) : lanes_(&l), from_(from), to_(to) {
    if (l.shared(from, to)) return;
    events_.reserve(std::size_t(count));
    for (int i = 0; i < count; ++i) events_.emplace_back(false);
  }
  void record(int i) const {
    if (!events_.empty()) events_[std::size_t(i)].record(lanes_->stream(from_, i));
  }
  void wait(int i) const {
    if (!events_.empty()) events_[std::size_t(i)].wait(lanes_->stream(to_, i));
  }

private:
  const lanes* lanes_;
  stage from_, to_;
  std::vector<event> events_;
};

/// What every out-of-core schedule runs on: its lanes, and the staging threads that fill and drain page-locked
/// buffers. Destroying it waits for every stream before the threads and pending host copies go.
class pipeline_core {
public:
  /// `slots` items in flight laid out by `layout`; `host_threads` staging threads (1 when nothing is staged).
  pipeline_core(lane_layout layout, int slots, int host_threads) : lanes_(layout, slots), copier_(host_threads) {}
  pipeline_core(const pipeline_core&) = delete;
  pipeline_core& operator=(const pipeline_core&) = delete;
  ~pipeline_core() { lanes_.synchronize(); }

  const lanes& streams() const noexcept { return lanes_; }
  cudaStream_t stream(stage st, int slot) const noexcept { return lanes_.stream(st, slot); }
  host_copier& copier() noexcept { return copier_; }

  /// Copies `runs` runs of `width` bytes from src to dst on the host, in the order of stream s (a host function
  /// in the stream, split over the staging threads): the issuing thread does not wait.
  void host_copy_async(cudaStream_t s, host_block dst, host_block src, std::size_t width, std::size_t runs) {
    jobs_.push_back(host_job{&copier_, dst, src, width, runs});
    CUPRIM_CUDA_CHECK(cudaLaunchHostFunc(s, &host_job::run, &jobs_.back()));
  }

private:
  struct host_job {
    host_copier* copier;
    host_block dst, src;
    std::size_t width, runs;
    static void CUDART_CB run(void* p) {
      auto* j = static_cast<host_job*>(p);
      j->copier->copy(j->dst, j->src, j->width, j->runs);
    }
  };
  lanes lanes_;
  host_copier copier_;
  std::deque<host_job> jobs_;  // stable addresses for the host functions
};

}  // namespace cuprim::ooc::detail
