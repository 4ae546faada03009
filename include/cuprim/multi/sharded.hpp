// cuprim/multi/sharded.hpp: distributed arrays as shards, one contiguous slice per rank.
//
//   shard<T>            one rank's slice: device pointer (on that rank's GPU) and element count
//   sharded<T>          the shards of the GPUs this process drives, in local-rank order (a view: owns nothing)
//   sharded_buffer<T>   owning: one device allocation per local rank, on its device, ordered on its stream
//   even_split(n, P)    P sizes that add up to n and differ by at most one (the first n % P are larger)
//   copy_from_host / copy_to_host   a global host array to and from the local ranks' shards (they wait on the host)
//
// The global array is the concatenation of the shards in rank order. Shards may differ in size, and may be empty.
// With one process for all GPUs, a sharded<T> holds every rank's shard; with one process per GPU it holds one.
#pragma once

#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/multi/communicator.hpp>

#include <cuda_runtime_api.h>

#include <climits>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuprim::multi {

/// One rank's slice of a distributed array: `size` elements at `data`, on the rank's device.
template <class T>
struct shard {
  T* data = nullptr;
  std::int64_t size = 0;
};

/// The shards of the local ranks of a communicator, shards[i] on local rank i's device. A view: owns nothing.
template <class T>
class sharded {
public:
  sharded() = default;
  sharded(std::vector<shard<T>> shards) : shards_(std::move(shards)) {}
  sharded(std::initializer_list<shard<T>> shards) : shards_(shards) {}
  /// A view of non-const elements is a view of const ones.
  template <class U>
    requires(std::is_same_v<const U, T> && !std::is_same_v<U, T>)
  sharded(const sharded<U>& other) {
    for (const shard<U>& s : other) shards_.push_back({s.data, s.size});
  }

  int local_size() const noexcept { return int(shards_.size()); }
  shard<T>& operator[](int i) { return shards_.at(std::size_t(i)); }
  const shard<T>& operator[](int i) const { return shards_.at(std::size_t(i)); }
  auto begin() const noexcept { return shards_.begin(); }
  auto end() const noexcept { return shards_.end(); }

private:
  std::vector<shard<T>> shards_;
};

/// P sizes adding up to n that differ by at most one (the first n % P are one larger). Throws invalid_argument for
/// n < 0 or P < 1.
inline std::vector<std::int64_t> even_split(std::int64_t n, int parts) {
  if (n < 0) throw invalid_argument("cuprim::multi::even_split", "n", "must be non-negative");
  if (parts < 1) throw invalid_argument("cuprim::multi::even_split", "parts", "must be at least 1");
  std::vector<std::int64_t> sizes(std::size_t(parts), n / parts);
  for (std::int64_t r = 0; r < n % parts; ++r) ++sizes[std::size_t(r)];
  return sizes;
}

namespace detail {
/// Every rank's size (one per rank of c, each ≥ 0, their sum within int64): else invalid_argument naming `arg`.
inline void check_rank_sizes(const char* fn, const char* arg, const communicator& c,
                             std::span<const std::int64_t> sizes) {
  if (int(sizes.size()) != c.size()) throw invalid_argument(fn, arg, "must hold one size per rank");
  std::int64_t total = 0;
  for (std::int64_t x : sizes) {
    if (x < 0) throw invalid_argument(fn, arg, "sizes must be non-negative");
    if (x > INT64_MAX - total) throw invalid_argument(fn, arg, "sizes must add up to at most 2^63 - 1");
    total += x;
  }
}

/// The first global index of every rank's shard (rank_sizes[r] elements on rank r), and the total at the end.
inline std::vector<std::int64_t> shard_offsets(std::span<const std::int64_t> rank_sizes) {
  std::vector<std::int64_t> off(rank_sizes.size() + 1, 0);
  std::partial_sum(rank_sizes.begin(), rank_sizes.end(), off.begin() + 1);
  return off;
}
}  // namespace detail

/// Owns one device array per local rank of a communicator, allocated from the rank's resource on its stream. Its
/// memory is released on those streams: destroy every sharded_buffer before its communicator.
template <class T>
class sharded_buffer {
public:
  sharded_buffer() = default;
  /// local_sizes[i] elements on local rank i.
  sharded_buffer(const communicator& c, std::span<const std::int64_t> local_sizes) {
    if (int(local_sizes.size()) != c.local_size())
      throw invalid_argument("cuprim::multi::sharded_buffer", "local_sizes",
                             "must hold one size per local rank of the communicator");
    for (int i = 0; i < c.local_size(); ++i)
      if (local_sizes[std::size_t(i)] < 0)
        throw invalid_argument("cuprim::multi::sharded_buffer", "local_sizes", "must be non-negative");
    try {
      for (int i = 0; i < c.local_size(); ++i) {
        device_guard g(c[i].device);
        parts_.emplace_back(std::size_t(local_sizes[std::size_t(i)]), c[i].stream, *c[i].resource);
        devices_.push_back(c[i].device);
      }
    } catch (...) {
      release();  // the parts made so far, each on its own device
      throw;
    }
  }
  /// The same size on every local rank.
  sharded_buffer(const communicator& c, std::int64_t size_each)
      : sharded_buffer(c, std::vector<std::int64_t>(std::size_t(c.local_size()), size_each)) {}
  /// The local ranks' parts of an array of rank_sizes[r] elements on rank r (every rank's size, in rank order).
  static sharded_buffer for_ranks(const communicator& c, std::span<const std::int64_t> rank_sizes) {
    return sharded_buffer(c, local_sizes_of(c, rank_sizes));
  }

  sharded_buffer(sharded_buffer&&) noexcept = default;
  sharded_buffer& operator=(sharded_buffer&& o) noexcept {
    release();
    parts_ = std::move(o.parts_);
    devices_ = std::move(o.devices_);
    return *this;
  }
  ~sharded_buffer() { release(); }

  sharded<T> view() {
    std::vector<shard<T>> v;
    for (auto& p : parts_) v.push_back({p.data(), std::int64_t(p.size())});
    return v;
  }
  sharded<const T> view() const {
    std::vector<shard<const T>> v;
    for (const auto& p : parts_) v.push_back({p.data(), std::int64_t(p.size())});
    return v;
  }
  operator sharded<T>() { return view(); }
  operator sharded<const T>() const { return view(); }
  T* data(int i) { return parts_.at(std::size_t(i)).data(); }
  std::int64_t size(int i) const { return std::int64_t(parts_.at(std::size_t(i)).size()); }

  /// The sizes of the local ranks' parts of an array with rank_sizes[r] elements on rank r.
  static std::vector<std::int64_t> local_sizes_of(const communicator& c, std::span<const std::int64_t> rank_sizes) {
    detail::check_rank_sizes("cuprim::multi::sharded_buffer", "rank_sizes", c, rank_sizes);
    std::vector<std::int64_t> s;
    for (const local_rank& l : c.locals()) s.push_back(rank_sizes[std::size_t(l.rank)]);
    return s;
  }

private:
  void release() noexcept {  // each part is freed with its own device current
    for (std::size_t i = 0; i < parts_.size(); ++i) {
      int previous = 0;
      cudaGetDevice(&previous);
      cudaSetDevice(devices_[i]);
      parts_[i] = device_buffer<T>();
      cudaSetDevice(previous);
    }
    parts_.clear();
    devices_.clear();
  }
  std::vector<device_buffer<T>> parts_;
  std::vector<int> devices_;
};


/// Copies host[offset(r) ...] into every local rank r's shard, where the global array has rank_sizes[r] elements on
/// rank r; waits for the copies. Throws invalid_argument if a shard's size is not its rank's size or host is too short.
template <class T>
void copy_from_host(const communicator& c, std::span<const T> host, std::span<const std::int64_t> rank_sizes,
                    sharded<T> out) {
  const char* fn = "cuprim::multi::copy_from_host";
  detail::check_rank_sizes(fn, "rank_sizes", c, rank_sizes);
  const auto off = detail::shard_offsets(rank_sizes);
  if (out.local_size() != c.local_size()) throw invalid_argument(fn, "out", "must hold one shard per local rank");
  if (std::int64_t(host.size()) < off.back()) throw invalid_argument(fn, "host", "is shorter than the sizes' sum");
  for (int i = 0; i < c.local_size(); ++i)
    if (out[i].size != rank_sizes[std::size_t(c[i].rank)])
      throw invalid_argument(fn, "out", "shard sizes must be the ranks' sizes");
  for (int i = 0; i < c.local_size(); ++i) {
    device_guard g(c[i].device);
    if (out[i].size > 0)
      CUPRIM_CUDA_CHECK(cudaMemcpyAsync(out[i].data, host.data() + off[std::size_t(c[i].rank)],
                                        std::size_t(out[i].size) * sizeof(T), cudaMemcpyHostToDevice, c[i].stream));
  }
  c.synchronize();
}

/// Copies every local rank's shard into its place in the global host array (see copy_from_host); waits.
template <class T>
void copy_to_host(const communicator& c, sharded<const T> in, std::span<const std::int64_t> rank_sizes,
                  std::span<T> host) {
  const char* fn = "cuprim::multi::copy_to_host";
  detail::check_rank_sizes(fn, "rank_sizes", c, rank_sizes);
  const auto off = detail::shard_offsets(rank_sizes);
  if (in.local_size() != c.local_size()) throw invalid_argument(fn, "in", "must hold one shard per local rank");
  if (std::int64_t(host.size()) < off.back()) throw invalid_argument(fn, "host", "is shorter than the sizes' sum");
  for (int i = 0; i < c.local_size(); ++i)
    if (in[i].size > rank_sizes[std::size_t(c[i].rank)])
      throw invalid_argument(fn, "in", "shards must not be larger than the ranks' sizes");
  for (int i = 0; i < c.local_size(); ++i) {
    device_guard g(c[i].device);
    if (in[i].size > 0)
      CUPRIM_CUDA_CHECK(cudaMemcpyAsync(host.data() + off[std::size_t(c[i].rank)], in[i].data,
                                        std::size_t(in[i].size) * sizeof(T), cudaMemcpyDeviceToHost, c[i].stream));
  }
  c.synchronize();
}

}  // namespace cuprim::multi
