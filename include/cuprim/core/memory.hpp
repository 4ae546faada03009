// cuprim/core/memory.hpp: memory resources, RAII buffers and caller-provided workspace.
//
//  memory_resource        where cuprim's entry points take temporary device memory from (stream-ordered).
//  pool_resource          the default: a CUDA memory pool per device that keeps freed memory for reuse,
//                         so repeated calls do not pay for cudaMalloc.
//  device_buffer<T>       RAII device array, allocated and freed in stream order.
//  pinned_buffer<T>       RAII page-locked host array (cudaMallocHost).
//  workspace              a caller's device memory handed to the *_workspace overloads (graph capture,
//                         allocation-free use). Its contents need not be initialised.
#pragma once

#include <cuprim/core/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuprim {

/// Stream-ordered allocator interface. allocate() may return memory that is still in use by earlier work
/// on `stream` as long as that work is ordered before the new use (cudaMallocAsync semantics).
class memory_resource {
public:
  virtual ~memory_resource() = default;
  /// Throws cuprim::bad_alloc on failure. A request of 0 bytes returns nullptr.
  virtual void* allocate(std::size_t bytes, cudaStream_t stream) = 0;
  /// Frees in stream order; never throws.
  virtual void deallocate(void* p, std::size_t bytes, cudaStream_t stream) noexcept = 0;
};

/// The default resource: cudaMallocAsync from a cuprim-owned memory pool of the current device, with a release
/// threshold that keeps freed memory cached (call trim() to return it to the system).
class pool_resource final : public memory_resource {
public:
  explicit pool_resource(int device);
  ~pool_resource() override;
  pool_resource(const pool_resource&) = delete;
  pool_resource& operator=(const pool_resource&) = delete;
  void* allocate(std::size_t bytes, cudaStream_t stream) override;
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream) noexcept override;
  /// Releases cached memory beyond `keep_bytes` back to the system (synchronises the device's pool).
  void trim(std::size_t keep_bytes = 0);
  int device() const noexcept { return device_; }

private:
  int device_;
  cudaMemPool_t pool_ = nullptr;
};

/// The resource cuprim uses for the current device: the one set by set_current_resource, else its pool_resource.
memory_resource& current_resource();
/// Makes `r` the resource for the current device (nullptr restores the default pool). `r` must outlive its use.
void set_current_resource(memory_resource* r) noexcept;

/// RAII device array. Move-only. Allocation and release are ordered on the stream given at construction.
template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "device_buffer<T> needs a trivially copyable T");

public:
  device_buffer() = default;
  /// Uninitialised storage for n elements.
  explicit device_buffer(std::size_t n, cudaStream_t stream = 0, memory_resource& mr = current_resource())
      : size_(n), stream_(stream), mr_(&mr) {
    data_ = static_cast<T*>(mr.allocate(n * sizeof(T), stream));
  }
  /// A copy of host data (the copy is ordered on `stream`; `host` must stay valid until it completes,
  /// which copy_from_host guarantees for pageable memory).
  device_buffer(std::span<const T> host, cudaStream_t stream = 0, memory_resource& mr = current_resource())
      : device_buffer(host.size(), stream, mr) {
    copy_from_host(host);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept { swap(o); }
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      release();
      swap(o);
    }
    return *this;
  }
  ~device_buffer() { release(); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }
  cudaStream_t stream() const noexcept { return stream_; }

  /// Copies host.size() elements (≤ size()) from the host; asynchronous on stream() for pinned memory.
  void copy_from_host(std::span<const T> host) {
    if (host.size() > size_)
      detail::throw_invalid("cuprim::device_buffer::copy_from_host", "host", "longer than the buffer");
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream_));
  }
  /// Copies the whole buffer to a new host vector; synchronises stream().
  std::vector<T> to_host_sync() const {
    std::vector<T> out(size_);
    if (size_ == 0) return out;
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(out.data(), data_, bytes(), cudaMemcpyDeviceToHost, stream_));
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return out;
  }
  /// Fills every byte with `byte` (stream-ordered). Tests use it to poison outputs.
  void fill_bytes(unsigned char byte) {
    if (size_) CUPRIM_CUDA_CHECK(cudaMemsetAsync(data_, byte, bytes(), stream_));
  }

private:
  void release() noexcept {
    if (data_) mr_->deallocate(data_, bytes(), stream_);
    data_ = nullptr;
    size_ = 0;
  }
  void swap(device_buffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(stream_, o.stream_);
    std::swap(mr_, o.mr_);
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
  cudaStream_t stream_ = 0;
  memory_resource* mr_ = nullptr;
};

/// RAII page-locked host array (cudaMallocHost): fast, asynchronous host↔device copies. Move-only.
template <class T>
class pinned_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "pinned_buffer<T> needs a trivially copyable T");

public:
  pinned_buffer() = default;
  /// Uninitialised page-locked storage for n elements. Throws cuprim::bad_alloc with the size on failure.
  explicit pinned_buffer(std::size_t n, unsigned flags = cudaHostAllocDefault) : size_(n) {
    if (n == 0) return;
    void* p = nullptr;
    cudaError_t e = cudaHostAlloc(&p, n * sizeof(T), flags);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      throw bad_alloc(n * sizeof(T), std::string("cudaHostAlloc: ") + cudaGetErrorString(e));
    }
    data_ = static_cast<T*>(p);
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  pinned_buffer(pinned_buffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  ~pinned_buffer() { release(); }
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  std::span<T> span() noexcept { return {data_, size_}; }

private:
  void release() noexcept {
    if (data_) (void)cudaFreeHost(data_);
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A caller's device memory for the explicit-workspace overloads. Size it with <algo>_workspace_bytes(...);
/// align it to 256 bytes (cudaMalloc and device_buffer do). Its contents need not be initialised.
struct workspace {
  void* data = nullptr;
  std::size_t bytes = 0;
};

namespace detail {
/// Rounds up to the 256-byte alignment every workspace slice keeps.
constexpr std::size_t align_up(std::size_t bytes, std::size_t a = 256) { return (bytes + a - 1) / a * a; }

/// `count` elements of T at byte `offset` of a workspace: one part of a workspace_layout.
template <class T>
struct workspace_part {
  std::size_t offset = 0, count = 0;
  /// The part's first element in `ws` (null for an empty part).
  T* in(const cuprim::workspace& ws) const noexcept {
    return count ? reinterpret_cast<T*>(static_cast<char*>(ws.data) + offset) : nullptr;
  }
  std::size_t bytes() const noexcept { return count * sizeof(T); }
};

/// A workspace cut into 256-byte-aligned parts. A family's layout type adds its parts in its constructor, so the
/// same code sizes the workspace (bytes(), what <algo>_workspace_bytes returns) and carves it (part.in(ws)):
///
///   struct reduce_layout {
///     workspace_part<Acc> partials;  // (blocks)
///     workspace_layout L;
///     explicit reduce_layout(std::uint64_t blocks) { partials = L.add<Acc>(blocks); }
///   };
class workspace_layout {
public:
  template <class T>
  workspace_part<T> add(std::size_t count) {
    workspace_part<T> p{bytes_, count};
    bytes_ += align_up(count * sizeof(T));
    return p;
  }
  std::size_t bytes() const noexcept { return bytes_; }

private:
  std::size_t bytes_ = 0;
};

/// Temporary device memory for one call: the caller's workspace, or an allocation from the current
/// resource that is released (stream-ordered) when the call returns.
class scratch {
public:
  scratch(std::size_t bytes, cudaStream_t stream) : bytes_(bytes), stream_(stream), mr_(&current_resource()) {
    data_ = bytes ? mr_->allocate(bytes, stream) : nullptr;
  }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
  ~scratch() {
    if (data_) mr_->deallocate(data_, bytes_, stream_);
  }
  cuprim::workspace get() const noexcept { return {data_, bytes_}; }

private:
  void* data_ = nullptr;
  std::size_t bytes_;
  cudaStream_t stream_;
  memory_resource* mr_;
};
}  // namespace detail

}  // namespace cuprim
