#include <cuprim/core/device.hpp>
#include <cuprim/core/memory.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cuprim {

pool_resource::pool_resource(int device) : device_(device) {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  CUPRIM_CUDA_CHECK(cudaMemPoolCreate(&pool_, &props));
  // Keep freed memory cached in the pool: workspaces are reused call after call without new mappings.
  std::uint64_t threshold = UINT64_MAX;
  CUPRIM_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &threshold));
}

pool_resource::~pool_resource() {
  if (pool_) (void)cudaMemPoolDestroy(pool_);
}

void* pool_resource::allocate(std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  cudaError_t e = cudaMallocFromPoolAsync(&p, bytes, pool_, stream);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    if (e == cudaErrorMemoryAllocation) throw bad_alloc(bytes, "cudaMallocFromPoolAsync");
    throw cuda_error(e, "cudaMallocFromPoolAsync", std::source_location::current());
  }
  return p;
}

void pool_resource::deallocate(void* p, std::size_t, cudaStream_t stream) noexcept {
  if (p && cudaFreeAsync(p, stream) != cudaSuccess) (void)cudaGetLastError();
}

void pool_resource::trim(std::size_t keep_bytes) {
  CUPRIM_CUDA_CHECK(cudaDeviceSynchronize());
  CUPRIM_CUDA_CHECK(cudaMemPoolTrimTo(pool_, keep_bytes));
}

namespace {
struct resources {
  std::mutex mutex;
  std::vector<std::unique_ptr<pool_resource>> pools;
  std::vector<memory_resource*> overrides;
};
resources& registry() {
  // Never destroyed: buffers released during static destruction must still find their pool.
  static resources* r = new resources;
  return *r;
}
}  // namespace

memory_resource& current_resource() {
  int device = current_device();
  resources& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.pools.size() <= static_cast<std::size_t>(device)) {
    r.pools.resize(device + 1);
    r.overrides.resize(device + 1, nullptr);
  }
  if (r.overrides[device]) return *r.overrides[device];
  if (!r.pools[device]) r.pools[device] = std::make_unique<pool_resource>(device);
  return *r.pools[device];
}

void set_current_resource(memory_resource* mr) noexcept {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  resources& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.overrides.size() <= static_cast<std::size_t>(device)) {
    r.pools.resize(device + 1);
    r.overrides.resize(device + 1, nullptr);
  }
  r.overrides[device] = mr;
}

}  // namespace cuprim
