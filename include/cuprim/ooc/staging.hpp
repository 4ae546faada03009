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
//
// The other way to the copy engines is to page-lock the caller's own pages for the length of a call
// (cudaHostRegister) and copy them directly: no host copy at all, for the price of locking and unlocking the pages
// once per call (host_registrations; the out-of-core GEMM's gemm_pageable::register_in_place).
#pragma once

#include <cuprim/core/error.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if !defined(_WIN32)
#include <unistd.h>
#endif

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

// ---------------------------------------------------------------------------------------------------------------
// Registration in place

/// Bytes of a host page, the unit cudaHostRegister locks.
inline std::size_t host_page_bytes() noexcept {
#if defined(_WIN32)
  return 4096;
#else
  static const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  return page;
#endif
}

/// A hook for tests: when set, it is asked before each registration of host_registrations and makes it fail (as if
/// cudaHostRegister had refused it every way: nothing of [p, p + bytes) is locked) when it returns true. Unset, it
/// costs one relaxed load per registration.
inline std::atomic<bool (*)(const void* p, std::size_t bytes)> host_register_refuse{nullptr};

/// Part of a host block (runs of `width` bytes, `pitch` apart; a column-major matrix block: a run per column):
/// `count` runs of `bytes` bytes, starting `offset` bytes into run `first`. In a packed copy of the block (runs
/// `width` apart) the part starts at first × width + offset.
struct block_part {
  std::size_t first, offset, bytes, count;
};

/// Calls f(block_part) for the parts of the block at address `base` that lie in the address range [lo, hi), in
/// address order: the run cut by lo (if lo cuts one), the whole runs, the run cut by hi (if hi cuts one). Runs
/// that lie in no part of [lo, hi) give nothing; so do the gaps between runs.
template <class F>
void for_each_part_in(std::uintptr_t base, std::size_t width, std::size_t pitch, std::size_t runs, std::uintptr_t lo,
                      std::uintptr_t hi, F&& f) {
  if (runs == 0 || width == 0) return;
  if (runs == 1) pitch = width;
  const std::uintptr_t end = base + (runs - 1) * pitch + width;
  lo = std::max(lo, base);
  hi = std::min(hi, end);
  if (lo >= hi) return;
  auto start = [&](std::size_t j) { return base + j * pitch; };
  std::size_t j0 = (lo - base) / pitch;  // the run holding lo, or the one whose gap holds it
  if (start(j0) + width <= lo) ++j0;     // lo in a gap: the first bytes are the next run's
  const std::size_t j1 = (hi - 1 - base) / pitch;  // the last run starting before hi
  if (j0 > j1) return;                             // [lo, hi) lies in one gap
  std::size_t a = j0, b = j1 + 1;                  // whole runs [a, b)
  if (lo > start(j0)) {                            // run j0 starts before lo: its tail
    f(block_part{j0, lo - start(j0), std::size_t(std::min(start(j0) + width, hi) - lo), 1});
    a = j0 + 1;
  }
  const bool cut_tail = b > a && start(j1) + width > hi;  // run j1 ends after hi: its head
  if (cut_tail) --b;
  if (b > a) f(block_part{a, 0, width, b - a});
  if (cut_tail) f(block_part{j1, 0, std::size_t(hi - start(j1)), 1});
}

/// Pages of the caller's memory locked in place for one call (cudaHostRegister), unlocked when the object goes (or
/// by release()), which must be after every copy from them has finished. Ranges are whole pages and never overlap:
/// add() locks only the pages of its range that no earlier add() locked, so arrays that share a page (neighbours in
/// one allocation, aliased inputs) are locked once. Used from one thread.
class host_registrations {
public:
  /// For the current device: whether it takes registered memory at all, and read-only registrations.
  host_registrations() {
    int dev = 0, supported = 0, read_only = 0;
    // A refused query means "not supported", not an error of the call (hence the errors cleared).
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&supported, cudaDevAttrHostRegisterSupported, dev) != cudaSuccess) {
      (void)cudaGetLastError();
      supported = 0;
    } else if (cudaDeviceGetAttribute(&read_only, cudaDevAttrHostRegisterReadOnlySupported, dev) != cudaSuccess) {
      (void)cudaGetLastError();
      read_only = 0;
    }
    supported_ = supported != 0;
    read_only_ = read_only != 0;
  }
  host_registrations(const host_registrations&) = delete;
  host_registrations& operator=(const host_registrations&) = delete;
  ~host_registrations() { release(); }

  /// Locks the pages of [p, p + bytes) not locked yet (for the device to read and write; `read_only`: it only reads
  /// them, so memory the process may only read is locked read-only where the device supports that). Returns whether
  /// any page of the range is locked now; pages refused stay pageable, and copies that touch them must be staged.
  bool add(const void* p, std::size_t bytes, bool read_only) {
    if (bytes == 0) return false;
    const std::uintptr_t page = host_page_bytes();
    const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(p) / page * page;
    const std::uintptr_t hi = (reinterpret_cast<std::uintptr_t>(p) + bytes + page - 1) / page * page;
    std::uintptr_t at = lo;
    while (at < hi) {  // the gaps of [lo, hi) between the ranges locked already
      const range* r = next_range(at);
      if (r && r->lo <= at) {
        at = r->hi;
        continue;
      }
      const std::uintptr_t gap_end = r ? std::min(hi, r->lo) : hi;
      lock(at, gap_end, read_only);
      at = gap_end;
    }
    const range* r = next_range(lo);
    return r && r->lo < hi;
  }

  /// Calls f(block_part) for the parts of the host block at `base` (runs of `width` bytes, `pitch` apart) that lie
  /// in one locked range each, so that every part is a copy from (or to) a single registration, and returns true;
  /// or returns false, calling nothing, when a page of the block's span is not locked (or, for `write`, the device
  /// may not write it).
  template <class F>
  bool for_each_locked_part(const void* base, std::size_t width, std::size_t pitch, std::size_t runs, bool write,
                            F&& f) const {
    if (runs == 0 || width == 0) return true;
    const std::uintptr_t b = reinterpret_cast<std::uintptr_t>(base);
    const std::uintptr_t e = b + (runs - 1) * pitch + width;
    std::size_t first = 0, last = 0;
    if (!covering(b, e, write, first, last)) return false;
    for (std::size_t i = first; i <= last; ++i)
      for_each_part_in(b, width, pitch, runs, ranges_[i].lo, ranges_[i].hi, f);
    return true;
  }

  /// Unlocks every range now (errors are left alone: the ranges are gone either way).
  void release() noexcept {
    if (ranges_.empty()) return;
    const auto t0 = std::chrono::steady_clock::now();
    for (const range& r : ranges_) (void)cudaHostUnregister(reinterpret_cast<void*>(r.lo));
    (void)cudaGetLastError();
    ranges_.clear();
    unlock_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  bool empty() const noexcept { return ranges_.empty(); }
  /// Bytes locked so far, and the time spent in cudaHostRegister and in cudaHostUnregister so far (ms).
  std::size_t locked_bytes() const noexcept { return locked_bytes_; }
  double lock_ms() const noexcept { return lock_ms_; }
  double unlock_ms() const noexcept { return unlock_ms_; }

private:
  struct range {
    std::uintptr_t lo, hi;
    bool read_only;
  };

  /// The first range that ends after `at` (ranges are sorted and disjoint), or nullptr.
  const range* next_range(std::uintptr_t at) const {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), at,
                               [](std::uintptr_t a, const range& r) { return a < r.hi; });
    return it == ranges_.end() ? nullptr : &*it;
  }

  /// Whether ranges [first, last] cover [b, e) without a gap (and, for `write`, are all writable).
  bool covering(std::uintptr_t b, std::uintptr_t e, bool write, std::size_t& first, std::size_t& last) const {
    const range* r = next_range(b);
    if (!r || r->lo > b) return false;
    first = last = std::size_t(r - ranges_.data());
    for (;;) {
      if (write && ranges_[last].read_only) return false;
      if (ranges_[last].hi >= e) return true;
      if (last + 1 == ranges_.size() || ranges_[last + 1].lo != ranges_[last].hi) return false;
      ++last;
    }
  }

  /// cudaHostRegister of the pages [lo, hi), for the device to read and write; for `read_only` pages that the
  /// process may only read (refused so), read-only where the device supports it. A page at either end may already be
  /// locked by someone else (the caller's own registration of a neighbour): then the pages between are tried alone.
  void lock(std::uintptr_t lo, std::uintptr_t hi, bool read_only) {
    auto* refuse = host_register_refuse.load(std::memory_order_relaxed);
    if (!supported_ || (refuse && refuse(reinterpret_cast<const void*>(lo), hi - lo))) return;
    const auto t0 = std::chrono::steady_clock::now();
    bool ro = false;
    cudaError_t e = try_lock(lo, hi, false);
    if (e != cudaSuccess && e != cudaErrorHostMemoryAlreadyRegistered && read_only && read_only_) {
      ro = true;  // (memory mapped read-only: cudaHostRegisterReadOnly is the way to lock it)
      e = try_lock(lo, hi, true);
    }
    const std::uintptr_t page = host_page_bytes();
    if (e == cudaErrorHostMemoryAlreadyRegistered && hi - lo > 2 * page) {
      lo += page;
      hi -= page;
      e = try_lock(lo, hi, ro);
    }
    lock_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (e != cudaSuccess) return;
    locked_bytes_ += hi - lo;
    const range r{lo, hi, ro};
    ranges_.insert(std::upper_bound(ranges_.begin(), ranges_.end(), r,
                                    [](const range& a, const range& x) { return a.lo < x.lo; }),
                   r);
  }

  static cudaError_t try_lock(std::uintptr_t lo, std::uintptr_t hi, bool read_only) {
    const cudaError_t e = cudaHostRegister(reinterpret_cast<void*>(lo), hi - lo,
                                           read_only ? cudaHostRegisterReadOnly : cudaHostRegisterDefault);
    if (e != cudaSuccess) (void)cudaGetLastError();  // a refusal: the pages stay pageable and are staged
    return e;
  }

  std::vector<range> ranges_;
  bool supported_ = false, read_only_ = false;
  std::size_t locked_bytes_ = 0;
  double lock_ms_ = 0, unlock_ms_ = 0;
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
