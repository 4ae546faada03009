// cuprim/ooc/staging.hpp: page-locked staging of pageable host memory, shared by every out-of-core call.
//
//   cuprim::ooc::staging_stats()   page-locked staging memory in use / cached (leak checks, diagnostics)
//   cuprim::ooc::trim_staging()    frees the cached staging buffers
//
// The copy engines stream only page-locked memory at full rate, so an out-of-core call copies a pageable (or
// managed) array through page-locked buffers of one chunk or tile each. Page-locked buffers are expensive to
// allocate (the lab's transfer study: cudaHostAlloc costs more than copying through the buffer), so a call takes
// them from a small process-wide cache and gives them back to it (staging_buffer). One thread's memcpy (about
// 10 GB/s) is slower than a copy engine, so the copies into and out of them are split over a few host threads
// (host_copier).
#pragma once

#include <cuprim/core/error.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace cuprim::ooc {

/// Page-locked staging memory: handed out to running calls, and cached for the next call.
struct staging_info {
  std::size_t in_use_bytes = 0;
  std::size_t cached_bytes = 0;
  std::size_t buffers_in_use = 0;
};

namespace detail {

/// Page-locked memory the cache keeps between calls (allocating it costs more than copying through it: see
/// docs/ooc.md, "When pinning pays").
inline constexpr std::size_t staging_cache_bytes = std::size_t(1) << 30;

/// The process-wide cache of page-locked staging buffers (best fit from the free list, else cudaHostAlloc).
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
        hand_out(p, b);
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
    hand_out(p, bytes);
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
    if (cached + bytes <= staging_cache_bytes) {
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
  std::vector<std::pair<void*, std::size_t>> sizes;  // the buffers handed out, with their sizes
  void hand_out(void* p, std::size_t b) {
    in_use += b;
    ++buffers;
    sizes.emplace_back(p, b);
  }
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
  template <class T>
  T* as() const noexcept {
    return static_cast<T*>(p_);
  }

private:
  void* p_ = nullptr;
};

/// A block of host memory as the copier moves it: `runs` runs of `width` bytes, each `pitch` bytes after the one
/// before (a column-major matrix block: a run per column, width = rows × element size, pitch = ld × element size;
/// a flat array: one run).
struct host_block {
  void* p;
  std::size_t pitch;
};

/// Host copies split over a few threads (the caller and threads - 1 workers). Copies under 1 MiB are done by the
/// caller alone; larger ones are cut into `threads` parts: a flat copy into parts of whole 4 KiB pages, a strided
/// one into parts of whole runs. One copy at a time (callers on several threads take turns).
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
  int threads() const noexcept { return threads_; }

  /// memcpy(dst, src, bytes); returns when every part is done.
  void copy(void* dst, const void* src, std::size_t bytes) {
    copy(host_block{dst, bytes}, host_block{const_cast<void*>(src), bytes}, bytes, 1);
  }

  /// `runs` runs of `width` bytes from src to dst; returns when every part is done.
  void copy(host_block dst, host_block src, std::size_t width, std::size_t runs) {
    job j{static_cast<char*>(dst.p), dst.pitch, static_cast<const char*>(src.p), src.pitch, width, runs};
    if (j.flat()) j = {j.dst, width * runs, j.src, width * runs, width * runs, 1};
    if (width * runs < (std::size_t(1) << 20) || threads_ == 1) {
      j.part(0, 1);
      return;
    }
    std::lock_guard<std::mutex> one_at_a_time(run_m_);
    {
      std::lock_guard<std::mutex> lock(m_);
      job_ = j;
      pending_ = threads_ - 1;
      ++generation_;
    }
    cv_.notify_all();
    j.part(0, threads_);
    std::unique_lock<std::mutex> lock(m_);
    done_cv_.wait(lock, [&] { return pending_ == 0; });
  }

private:
  struct job {
    char* dst;
    std::size_t dst_pitch;
    const char* src;
    std::size_t src_pitch, width, runs;
    bool flat() const { return runs == 1 || (dst_pitch == width && src_pitch == width); }
    /// Part t of `parts`: of a single run, whole pages covering every byte; of several, whole runs.
    void part(int t, int parts) const {
      if (runs == 1) {
        const std::size_t share = (width + std::size_t(parts) - 1) / std::size_t(parts);
        const std::size_t per = (share + 4095) / 4096 * 4096;
        const std::size_t lo = std::min(width, per * std::size_t(t)), hi = std::min(width, lo + per);
        if (hi > lo) std::memcpy(dst + lo, src + lo, hi - lo);
        return;
      }
      const std::size_t lo = runs * std::size_t(t) / std::size_t(parts);
      const std::size_t hi = runs * std::size_t(t + 1) / std::size_t(parts);
      for (std::size_t r = lo; r < hi; ++r) std::memcpy(dst + r * dst_pitch, src + r * src_pitch, width);
    }
  };
  void work(int t) {
    std::uint64_t seen = 0;
    for (;;) {
      job j;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (stop_) return;
        j = job_;
      }
      j.part(t, threads_);
      {
        std::lock_guard<std::mutex> lock(m_);
        if (--pending_ == 0) done_cv_.notify_one();
      }
    }
  }
  int threads_;
  std::vector<std::thread> workers_;
  std::mutex m_, run_m_;
  std::condition_variable cv_, done_cv_;
  std::uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  job job_{};
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

}  // namespace cuprim::ooc
