#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>

#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <vector>

namespace cuprim {

int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // no device / no driver: not an error for this query
    return 0;
  }
  return n;
}

int current_device() {
  int d = 0;
  CUPRIM_CUDA_CHECK(cudaGetDevice(&d));
  return d;
}

namespace {
struct device_cache {
  std::mutex mutex;
  std::vector<std::unique_ptr<device_info>> entries;
};
device_cache& cache() {
  static device_cache c;
  return c;
}
}  // namespace

const device_info& get_device_info(int ordinal) {
  if (ordinal < 0) ordinal = current_device();
  int count = device_count();
  if (ordinal >= count) detail::throw_invalid("cuprim::get_device_info", "ordinal", "must name a visible CUDA device");
  device_cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (c.entries.size() < static_cast<std::size_t>(count)) c.entries.resize(count);
  auto& slot = c.entries[ordinal];
  if (!slot) {
    cudaDeviceProp p{};
    CUPRIM_CUDA_CHECK(cudaGetDeviceProperties(&p, ordinal));
    auto info = std::make_unique<device_info>();
    info->ordinal = ordinal;
    info->name = p.name;
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->sm_count = p.multiProcessorCount;
    info->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    info->max_threads_per_block = p.maxThreadsPerBlock;
    info->l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
    info->smem_per_block = p.sharedMemPerBlock;
    info->smem_per_block_optin = p.sharedMemPerBlockOptin;
    info->smem_per_sm = p.sharedMemPerMultiprocessor;
    info->global_mem_bytes = p.totalGlobalMem;
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, ordinal) == cudaSuccess) info->clock_khz = v;
    else (void)cudaGetLastError();
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, ordinal) == cudaSuccess) info->memory_clock_khz = v;
    else (void)cudaGetLastError();
    info->memory_bus_bits = p.memoryBusWidth;
    slot = std::move(info);
  }
  return *slot;
}

std::string driver_version_string() {
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess || v == 0) {
    (void)cudaGetLastError();
    return "none";
  }
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace cuprim
