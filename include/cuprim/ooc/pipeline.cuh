// cuprim/ooc/pipeline.cuh: the stream pipeline behind the out-of-core primitives, usable on its own.
//
//   cuprim::ooc::options             chunk size, stream count, device-memory cap, issue order (all settable;
//                                    0 = chosen from the measured rates in ooc/tuning.hpp)
//   cuprim::ooc::make_plan(...)      the plan a call will run: chunk elements, streams, staging, device bytes
//   cuprim::ooc::pipeline<In, Out>   runs a chunked operation over host-resident data of any size:
//                                    H2D copy → caller's kernel stage → D2H copy, chunk after chunk, with the
//                                    chunks spread over several streams so that the copy engines and the SMs
//                                    work on different chunks at once
//   cuprim::ooc::staging_stats()     page-locked staging memory in use / cached (leak checks, diagnostics)
//   cuprim::ooc::trim_staging()      frees the cached staging buffers
//
// Host memory. The input (and the output, if any) are host arrays: pageable (malloc, new, std::vector),
// page-locked (cudaMallocHost, cudaHostAlloc, cudaHostRegister) or managed. The pipeline asks
// cudaPointerGetAttributes: page-locked arrays are copied by DMA directly; pageable and managed arrays are staged
// through page-locked buffers, filled and drained by a few host threads, so the copy engines always read and
// write page-locked memory. Device pointers are rejected (use the in-core entry points in cuprim::).
//
// Streams, chunks and slots. Chunk c goes to slot c mod S (S = streams). A slot owns one stream, its device
// buffers (chunk input, chunk output, optional scratch), its staging buffers when they are needed, and an event
// marking the end of its last chunk. A slot is reused only after that event, so at most S chunks are in flight.
// Issue orders (the two loops of the lecture's copy-engine slides):
//   issue_order::by_chunk   for each chunk: H2D, kernel, D2H on its stream (depth first)
//   issue_order::by_stage   for each group of S chunks: every H2D, then every kernel, then every D2H (breadth
//                           first)
// On a GPU with two copy engines and per-stream hardware queues both overlap fully; the default is the one the
// lab measured faster (ooc/tuning.hpp).
//
// Device-memory cap. options.device_bytes bounds what the pipeline allocates on the device (S slots of input,
// output and scratch, plus the in-core calls' workspaces, estimated per element); the chunk shrinks to fit.
// The cap is what makes a GPU with plenty of memory behave like a small one (tests force many chunks with it).
//
// Synchronisation. Everything in cuprim::ooc is synchronous: a call returns when its results are in host
// memory, and it leaves the caller's streams alone (it makes and destroys its own). RAII everywhere: streams,
// events, device buffers and page-locked buffers are owned by objects that wait for the slot's stream before
// releasing them, so an exception thrown mid-run (a failed allocation, a failed launch) releases everything.
//
// Errors. cuprim::invalid_argument before anything is allocated or copied: n < 0, null arrays with n > 0,
// overlapping input and output (in place excepted where an operation allows it), options out of range,
// a device-memory cap too small for one chunk, device pointers. cuprim::bad_alloc / cuda_error otherwise.
#pragma once

#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/ooc/tuning.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <thread>
#include <vector>

namespace cuprim::ooc {

/// Settings of an out-of-core call. Zero means "choose from the measured rates" (see ooc/tuning.hpp).
struct options {
  std::size_t chunk_bytes = 0;   ///< input bytes per chunk (rounded down to whole elements; ≥ 1 element)
  int streams = 0;               ///< slots (streams) in flight, 1..32
  std::size_t device_bytes = 0;  ///< cap on the device memory the pipeline takes (0: 3/4 of the free memory)
  issue_order order = issue_order::automatic;
  int host_threads = 0;          ///< threads that fill/drain staging buffers for pageable arrays, 1..64
};

/// How a call will run: what make_plan chose.
struct plan {
  std::int64_t n = 0;
  std::int64_t chunk_elems = 0;  ///< elements per chunk (the last chunk may be shorter)
  std::int64_t chunks = 0;
  int streams = 0;
  issue_order order = issue_order::by_chunk;
  int host_threads = 0;
  bool stage_in = false;         ///< the input is pageable/managed and goes through page-locked buffers
  bool stage_out = false;        ///< the output does
  std::size_t device_bytes = 0;  ///< what the slots take on the device (estimate incl. in-core workspaces)
  std::size_t pinned_bytes = 0;  ///< page-locked staging the call holds
};

/// Page-locked staging memory: handed out to running pipelines, and cached for the next call.
struct staging_info {
  std::size_t in_use_bytes = 0;
  std::size_t cached_bytes = 0;
  std::size_t buffers_in_use = 0;
};

namespace detail {

// ---------------------------------------------------------------------------------------------------------
// Staging cache: page-locked buffers are expensive to allocate (the lab's transfer study measures it), so a
// pipeline returns its staging buffers to a small process-wide cache instead of freeing them.

struct staging_cache {
  std::mutex m;
  std::vector<std::pair<void*, std::size_t>> free_list;
  std::size_t in_use = 0, cached = 0, buffers = 0;
  static staging_cache& get() {
    static staging_cache* c = new staging_cache;  // never destroyed: buffers may be released at exit
    return *c;
  }
  void* acquire(std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(m);
      auto best = free_list.end();
      for (auto it = free_list.begin(); it != free_list.end(); ++it)
        if (it->second >= bytes && (best == free_list.end() || it->second < best->second)) best = it;
      if (best != free_list.end()) {
        void* p = best->first;
        const std::size_t b = best->second;
        free_list.erase(best);
        cached -= b;
        in_use += b;
        ++buffers;
        sizes_push(p, b);
        return p;
      }
    }
    void* p = nullptr;
    cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocDefault);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw cuprim::bad_alloc(bytes, std::string("cudaHostAlloc (ooc staging): ") + cudaGetErrorString(e));
    }
    std::lock_guard<std::mutex> lock(m);
    in_use += bytes;
    ++buffers;
    sizes_push(p, bytes);
    return p;
  }
  void release(void* p) noexcept {
    if (!p) return;
    std::lock_guard<std::mutex> lock(m);
    std::size_t bytes = 0;
    for (auto it = sizes.begin(); it != sizes.end(); ++it)
      if (it->first == p) {
        bytes = it->second;
        sizes.erase(it);
        break;
      }
    in_use -= bytes;
    --buffers;
    if (cached + bytes <= tuning::staging_cache_bytes) {
      free_list.emplace_back(p, bytes);
      cached += bytes;
    } else {
      (void)cudaFreeHost(p);
    }
  }
  void trim() noexcept {
    std::lock_guard<std::mutex> lock(m);
    for (auto& [p, b] : free_list) (void)cudaFreeHost(p);
    free_list.clear();
    cached = 0;
  }

private:
  std::vector<std::pair<void*, std::size_t>> sizes;
  void sizes_push(void* p, std::size_t b) { sizes.emplace_back(p, b); }
};

/// RAII page-locked staging buffer from the cache.
class staging_buffer {
public:
  staging_buffer() = default;
  explicit staging_buffer(std::size_t bytes) : p_(bytes ? staging_cache::get().acquire(bytes) : nullptr) {}
  staging_buffer(const staging_buffer&) = delete;
  staging_buffer& operator=(const staging_buffer&) = delete;
  staging_buffer(staging_buffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  staging_buffer& operator=(staging_buffer&& o) noexcept {
    if (this != &o) {
      staging_cache::get().release(p_);
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  ~staging_buffer() { staging_cache::get().release(p_); }
  void* get() const noexcept { return p_; }

private:
  void* p_ = nullptr;
};

// ---------------------------------------------------------------------------------------------------------
// Host copies with a few threads: one thread's memcpy does not reach the rate of the copy engines.

class host_copier {
public:
  explicit host_copier(int threads) : threads_(std::max(1, threads)) {
    for (int t = 1; t < threads_; ++t) workers_.emplace_back([this, t] { work(t); });
  }
  host_copier(const host_copier&) = delete;
  host_copier& operator=(const host_copier&) = delete;
  ~host_copier() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
      ++generation_;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }
  /// memcpy(dst, src, bytes) split over the threads; returns when every part is done.
  void copy(void* dst, const void* src, std::size_t bytes) {
    if (bytes < (std::size_t(1) << 20) || threads_ == 1) {
      std::memcpy(dst, src, bytes);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      dst_ = static_cast<char*>(dst);
      src_ = static_cast<const char*>(src);
      bytes_ = bytes;
      pending_ = threads_ - 1;
      ++generation_;
    }
    cv_.notify_all();
    part(0);
    std::unique_lock<std::mutex> lock(m_);
    done_cv_.wait(lock, [&] { return pending_ == 0; });
  }

private:
  void part(int t) {
    const std::size_t share = (bytes_ + std::size_t(threads_) - 1) / std::size_t(threads_);
    const std::size_t per = (share + 4095) / 4096 * 4096;  // parts of whole pages covering every byte
    const std::size_t lo = std::min(bytes_, per * std::size_t(t)), hi = std::min(bytes_, lo + per);
    if (hi > lo) std::memcpy(dst_ + lo, src_ + lo, hi - lo);
  }
  void work(int t) {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (stop_) return;
      }
      part(t);
      {
        std::lock_guard<std::mutex> lock(m_);
        if (--pending_ == 0) done_cv_.notify_one();
      }
    }
  }
  int threads_;
  std::vector<std::thread> workers_;
  std::mutex m_;
  std::condition_variable cv_, done_cv_;
  std::uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  char* dst_ = nullptr;
  const char* src_ = nullptr;
  std::size_t bytes_ = 0;
};

/// What kind of memory a host array is, for staging. Throws invalid_argument for device memory.
inline bool needs_staging(const char* fn, const char* arg, const void* p) {
  if (p == nullptr) return false;
  cudaPointerAttributes a{};
  cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return true;  // unknown to CUDA: pageable
  }
  switch (a.type) {
    case cudaMemoryTypeHost: return false;  // page-locked (cudaMallocHost / cudaHostAlloc / cudaHostRegister)
    case cudaMemoryTypeDevice: cuprim::detail::throw_invalid(fn, arg, "must be host memory (device memory: use the in-core call)");
    default: return true;  // pageable or managed
  }
}

inline bool overlap(const void* a, std::size_t ab, const void* b, std::size_t bb) {
  auto pa = reinterpret_cast<std::uintptr_t>(a), pb = reinterpret_cast<std::uintptr_t>(b);
  return ab && bb && pa < pb + bb && pb < pa + ab;
}

/// The argument rules every out-of-core call shares (checked before any CUDA call).
inline void validate_options(const char* fn, const options& o) {
  if (o.streams < 0 || o.streams > 32) cuprim::detail::throw_invalid(fn, "options.streams", "must be 0 (automatic) or 1..32");
  if (o.host_threads < 0 || o.host_threads > 64)
    cuprim::detail::throw_invalid(fn, "options.host_threads", "must be 0 (automatic) or 1..64");
  if (o.order != issue_order::automatic && o.order != issue_order::by_chunk && o.order != issue_order::by_stage)
    cuprim::detail::throw_invalid(fn, "options.order", "must be automatic, by_chunk or by_stage");
}

/// RAII stream + events of one slot.
struct slot_stream {
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr, ordered = nullptr;
  slot_stream() {
    CUPRIM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaError_t e = cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&ordered, cudaEventDisableTiming);
    if (e != cudaSuccess) {
      release();
      cuprim::detail::cuda_check(e, "cudaEventCreateWithFlags");
    }
  }
  slot_stream(const slot_stream&) = delete;
  slot_stream& operator=(const slot_stream&) = delete;
  ~slot_stream() { release(); }
  void release() noexcept {
    if (stream) (void)cudaStreamSynchronize(stream);
    if (done) (void)cudaEventDestroy(done);
    if (ordered) (void)cudaEventDestroy(ordered);
    if (stream) (void)cudaStreamDestroy(stream);
    stream = nullptr;
    done = ordered = nullptr;
  }
};

}  // namespace detail

/// Page-locked staging memory held by running out-of-core calls and kept in the cache.
inline staging_info staging_stats() {
  auto& c = detail::staging_cache::get();
  std::lock_guard<std::mutex> lock(c.m);
  return {c.in_use, c.cached, c.buffers};
}

/// Frees the page-locked staging buffers cached for later calls.
inline void trim_staging() { detail::staging_cache::get().trim(); }

/// The plan for n elements: `in_bytes` / `out_bytes` per element moved in and out (out 0: no output stream),
/// `scratch_bytes` per element of device scratch per slot, `fixed_bytes` per slot, `stage_in` / `stage_out`
/// whether the host arrays are pageable. `fn` names the caller in errors (a cap too small for one element).
inline plan make_plan(const char* fn, std::int64_t n, std::size_t in_bytes, std::size_t out_bytes,
                      std::size_t scratch_bytes, std::size_t fixed_bytes, bool stage_in, bool stage_out,
                      const options& o, std::size_t free_device_bytes) {
  plan p;
  p.n = n;
  p.stage_in = stage_in;
  p.stage_out = stage_out && out_bytes > 0;
  p.streams = o.streams ? o.streams : (stage_in || p.stage_out ? tuning::streams_staged : tuning::streams_pinned);
  p.order = o.order == issue_order::automatic ? tuning::default_order : o.order;
  p.host_threads = o.host_threads ? o.host_threads
                                  : int(std::max(1u, std::min<unsigned>(tuning::max_host_threads,
                                                                        std::thread::hardware_concurrency() / 2)));
  const std::size_t per_elem = in_bytes + out_bytes + scratch_bytes + tuning::workspace_bytes_per_elem;
  std::int64_t chunk = o.chunk_bytes ? std::int64_t(o.chunk_bytes / in_bytes) : std::int64_t(tuning::chunk_bytes() / in_bytes);
  if (o.chunk_bytes == 0) {
    // Small inputs: still cut into a few chunks per stream so that the stages overlap.
    const std::int64_t min_chunk = std::int64_t(tuning::min_chunk_bytes / in_bytes);
    chunk = std::min(chunk, std::max(min_chunk, (n + 4 * p.streams - 1) / (4 * p.streams)));
  }
  chunk = std::max<std::int64_t>(1, chunk);
  const std::size_t cap = o.device_bytes ? o.device_bytes : free_device_bytes / 4 * 3;
  const std::size_t per_slot_cap = cap / std::size_t(p.streams);
  if (per_slot_cap <= fixed_bytes + per_elem)
    cuprim::detail::throw_invalid(fn, "options.device_bytes", "too small for one element per stream");
  chunk = std::min<std::int64_t>(chunk, std::int64_t((per_slot_cap - fixed_bytes) / per_elem));
  chunk = std::max<std::int64_t>(1, std::min<std::int64_t>(chunk, std::max<std::int64_t>(n, 1)));
  p.chunk_elems = chunk;
  p.chunks = n == 0 ? 0 : (n + chunk - 1) / chunk;
  if (p.chunks < p.streams && p.chunks > 0) p.streams = int(p.chunks);
  p.device_bytes = std::size_t(p.streams) * (fixed_bytes + std::size_t(chunk) * per_elem);
  p.pinned_bytes = std::size_t(p.streams) * std::size_t(chunk) * ((stage_in ? in_bytes : 0) + (p.stage_out ? out_bytes : 0));
  return p;
}

/// One chunk as the kernel stage sees it.
struct chunk {
  std::int64_t index = 0;  ///< 0, 1, ... in input order
  std::int64_t first = 0;  ///< index of its first element in the whole array
  std::int64_t count = 0;  ///< elements in this chunk
  int slot = 0;            ///< its slot (0..streams-1): selects the slot's scratch
  cudaStream_t stream = nullptr;
};

/// The chunked H2D → kernel → D2H pipeline over host arrays. In: the input element type; Out: the output
/// element type of the D2H stage (void for none). Construction validates nothing (the entry points do); it
/// allocates the slots (streams, device buffers, staging) from the plan.
///
/// run(kernel, retire):
///   kernel(const chunk& c, const In* d_in, Out* d_out, void* d_scratch)
///       enqueues the chunk's work on c.stream: d_in holds its c.count inputs; it writes the chunk's output to
///       d_out (capacity chunk_elems + out_extra elements), which the D2H stage copies back. Chunks are issued
///       in order; ordered_begin/ordered_end make a step run in chunk order across streams (a carry).
///   retire(const chunk& c, const Out* host_out)
///       runs on the host once the chunk is complete, in chunk order. With an output in `mapped` mode the
///       pipeline has already written out[first, first + count) (host_out points there); in unmapped mode
///       host_out is the staged page-locked copy of d_out's first `count` elements (e.g. compaction).
template <class In, class Out = void>
class pipeline {
  using out_t = std::conditional_t<std::is_void_v<Out>, char, Out>;
  static constexpr std::size_t out_size = std::is_void_v<Out> ? 0 : sizeof(out_t);

public:
  /// `out` may be null (no D2H stage). `mapped`: chunk c's output goes to out[first, first + count).
  /// `out_extra`: extra device elements per slot's output buffer. `scratch_bytes(chunk_elems)` device bytes per
  /// slot for the kernel stage.
  pipeline(const char* fn, const In* in, std::int64_t n, out_t* out, const options& o, bool mapped = true,
           std::size_t out_extra = 0, std::size_t scratch_per_elem = 0, std::size_t scratch_fixed = 0)
      : fn_(fn), in_(in), out_(out), mapped_(mapped), out_extra_(out_extra) {
    const bool stage_in = detail::needs_staging(fn, "in", in);
    const bool has_out = out != nullptr && out_size > 0;
    const bool stage_out = has_out && (!mapped || detail::needs_staging(fn, "out", out));
    std::size_t free_b = 0, total_b = 0;
    CUPRIM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const std::size_t fixed = scratch_fixed + (has_out ? out_extra * out_size : 0) + 4096;
    plan_ = make_plan(fn, n, sizeof(In), has_out ? out_size : 0, scratch_per_elem, fixed, stage_in, stage_out, o,
                      free_b);
    if (plan_.chunks == 0) return;
    copier_ = std::make_unique<detail::host_copier>(stage_in || plan_.stage_out ? plan_.host_threads : 1);
    const std::size_t ce = std::size_t(plan_.chunk_elems);
    slots_.reserve(std::size_t(plan_.streams));
    for (int s = 0; s < plan_.streams; ++s) {
      auto sl = std::make_unique<slot>();
      if (plan_.stage_in) sl->pin_in = detail::staging_buffer(ce * sizeof(In));
      if (plan_.stage_out) sl->pin_out = detail::staging_buffer((ce + out_extra) * out_size);
      sl->d_in = device_buffer<In>(ce, sl->ss.stream);
      if (has_out) sl->d_out = device_buffer<out_t>(ce + out_extra, sl->ss.stream);
      const std::size_t sb = scratch_fixed + scratch_per_elem * ce;
      if (sb) sl->d_scratch = device_buffer<unsigned char>(sb, sl->ss.stream);
      slots_.push_back(std::move(sl));
    }
  }
  pipeline(const pipeline&) = delete;
  pipeline& operator=(const pipeline&) = delete;
  ~pipeline() {
    for (auto& s : slots_) (void)cudaStreamSynchronize(s->ss.stream);
  }

  const plan& get_plan() const noexcept { return plan_; }
  /// The stream of slot s (for extra work before/after run, e.g. zeroing a shared accumulator).
  cudaStream_t stream(int s) const noexcept { return slots_[std::size_t(s)]->ss.stream; }

  /// An object whose destructor waits for every slot's stream: declare it after buffers the kernel stage uses
  /// on several streams, so that an exception cannot free them under running work.
  struct stream_guard {
    const pipeline* p;
    ~stream_guard() {
      for (auto& s : p->slots_) (void)cudaStreamSynchronize(s->ss.stream);
    }
  };
  stream_guard guard() const noexcept { return {this}; }

  /// memcpy on the host with the pipeline's staging threads (for retire steps that copy large results).
  void host_copy(void* dst, const void* src, std::size_t bytes) {
    if (copier_) copier_->copy(dst, src, bytes);
    else std::memcpy(dst, src, bytes);
  }

  /// Makes c.stream wait for the previous chunk's ordered step (call before the step, inside kernel()).
  void ordered_begin(const chunk& c) {
    if (c.index == 0) return;
    const int prev = int((c.index - 1) % plan_.streams);
    CUPRIM_CUDA_CHECK(cudaStreamWaitEvent(c.stream, slots_[std::size_t(prev)]->ss.ordered, 0));
  }
  /// Marks the end of chunk c's ordered step (call after it, inside kernel()).
  void ordered_end(const chunk& c) {
    CUPRIM_CUDA_CHECK(cudaEventRecord(slots_[std::size_t(c.slot)]->ss.ordered, c.stream));
  }

  /// Runs every chunk; returns when all are retired (every stream idle).
  template <class Kernel, class Retire>
  void run(Kernel&& kernel, Retire&& retire) {
    const std::int64_t C = plan_.chunks, S = plan_.streams;
    std::int64_t next_retire = 0;
    auto make = [&](std::int64_t c) {
      chunk k;
      k.index = c;
      k.first = c * plan_.chunk_elems;
      k.count = std::min(plan_.chunk_elems, plan_.n - k.first);
      k.slot = int(c % S);
      k.stream = slots_[std::size_t(k.slot)]->ss.stream;
      return k;
    };
    auto retire_one = [&] {
      const chunk k = make(next_retire++);
      slot& sl = *slots_[std::size_t(k.slot)];
      CUPRIM_CUDA_CHECK(cudaEventSynchronize(sl.ss.done));
      const out_t* host_out = nullptr;
      if (out_ && out_size) {
        if (!mapped_) {
          host_out = static_cast<const out_t*>(sl.pin_out.get());
        } else {
          if (plan_.stage_out)
            copier_->copy(out_ + k.first, sl.pin_out.get(), std::size_t(k.count) * out_size);
          host_out = out_ + k.first;
        }
      }
      retire(k, host_out);
    };
    auto h2d = [&](const chunk& k) {
      slot& sl = *slots_[std::size_t(k.slot)];
      while (next_retire <= k.index - S) retire_one();  // the slot's previous chunk must be complete
      const std::size_t bytes = std::size_t(k.count) * sizeof(In);
      const void* src = in_ + k.first;
      if (plan_.stage_in) {
        copier_->copy(sl.pin_in.get(), src, bytes);
        src = sl.pin_in.get();
      }
      CUPRIM_CUDA_CHECK(cudaMemcpyAsync(sl.d_in.data(), src, bytes, cudaMemcpyHostToDevice, k.stream));
    };
    auto compute = [&](const chunk& k) {
      slot& sl = *slots_[std::size_t(k.slot)];
      kernel(k, static_cast<const In*>(sl.d_in.data()), static_cast<out_t*>(sl.d_out.data()),
             static_cast<void*>(sl.d_scratch.data()));
    };
    auto d2h = [&](const chunk& k) {
      slot& sl = *slots_[std::size_t(k.slot)];
      if (out_ && out_size) {
        void* dst = plan_.stage_out ? sl.pin_out.get() : static_cast<void*>(out_ + k.first);
        CUPRIM_CUDA_CHECK(cudaMemcpyAsync(dst, sl.d_out.data(), std::size_t(k.count) * out_size,
                                          cudaMemcpyDeviceToHost, k.stream));
      }
      CUPRIM_CUDA_CHECK(cudaEventRecord(sl.ss.done, k.stream));
    };
    if (plan_.order == issue_order::by_stage) {
      for (std::int64_t w = 0; w < C; w += S) {
        const std::int64_t e = std::min(C, w + S);
        for (std::int64_t c = w; c < e; ++c) h2d(make(c));
        for (std::int64_t c = w; c < e; ++c) compute(make(c));
        for (std::int64_t c = w; c < e; ++c) d2h(make(c));
      }
    } else {
      for (std::int64_t c = 0; c < C; ++c) {
        const chunk k = make(c);
        h2d(k);
        compute(k);
        d2h(k);
      }
    }
    while (next_retire < C) retire_one();
  }

private:
  struct slot {
    detail::slot_stream ss;  // declared first: destroyed last, after it has waited for the stream
    detail::staging_buffer pin_in, pin_out;
    device_buffer<In> d_in;
    device_buffer<out_t> d_out;
    device_buffer<unsigned char> d_scratch;
    ~slot() { (void)cudaStreamSynchronize(ss.stream); }
  };
  const char* fn_;
  const In* in_;
  out_t* out_;
  bool mapped_;
  std::size_t out_extra_;
  plan plan_;
  std::unique_ptr<detail::host_copier> copier_;
  std::vector<std::unique_ptr<slot>> slots_;
};

}  // namespace cuprim::ooc

namespace cuprim::ooc::detail {

/// Rules shared by the entry points: n ≥ 0, in not null when n > 0, options in range.
template <class In>
void validate_input(const char* fn, const In* in, std::int64_t n, const options& o) {
  if (n < 0) cuprim::detail::throw_invalid(fn, "n", "must be non-negative");
  if (std::uint64_t(n) > SIZE_MAX / sizeof(In)) cuprim::detail::throw_invalid(fn, "n", "is larger than the address space");
  if (n > 0 && in == nullptr) cuprim::detail::throw_invalid(fn, "in", "must not be null when n > 0");
  validate_options(fn, o);
}

}  // namespace cuprim::ooc::detail
