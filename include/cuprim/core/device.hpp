// cuprim/core/device.hpp: facts about a CUDA device, read once per device and cached.
#pragma once

#include <cstddef>
#include <string>

namespace cuprim {

/// What cuprim's dispatch needs to know about a device. Read from cudaGetDeviceProperties once per device.
struct device_info {
  int ordinal = -1;
  std::string name;
  int cc_major = 0, cc_minor = 0;            ///< compute capability
  int sm_count = 0;                          ///< streaming multiprocessors
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  std::size_t l2_bytes = 0;                  ///< L2 cache size
  std::size_t smem_per_block = 0;            ///< default shared-memory limit per block (48 KiB)
  std::size_t smem_per_block_optin = 0;      ///< limit after cudaFuncSetAttribute opt-in
  std::size_t smem_per_sm = 0;
  std::size_t global_mem_bytes = 0;
  int clock_khz = 0;                         ///< SM clock (as reported; 0 where the runtime no longer reports it)
  int memory_clock_khz = 0;
  int memory_bus_bits = 0;
  int arch() const noexcept { return cc_major * 10 + cc_minor; }  ///< e.g. 90 for Hopper
};

/// Number of CUDA devices visible; 0 when there is none or no driver (never throws).
int device_count() noexcept;

/// True when at least one CUDA device can be used.
inline bool has_device() noexcept { return device_count() > 0; }

/// The calling thread's current device.
int current_device();

/// Facts about `ordinal` (default: the current device), cached after the first call; thread-safe.
/// Throws cuprim::invalid_argument for an ordinal out of range, cuprim::cuda_error if the query fails.
const device_info& get_device_info(int ordinal = -1);

/// The driver version as "major.minor" (e.g. "13.0"), or "none".
std::string driver_version_string();

}  // namespace cuprim
