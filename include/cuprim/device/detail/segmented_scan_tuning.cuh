// cuprim/device/detail/segmented_scan_tuning.cuh: launch policies for the segmented scans.
#pragma once

#include <cuprim/device/detail/load.cuh>
#include <cuprim/device/detail/scan_tuning.cuh>

#include <type_traits>

namespace cuprim {

/// The segmented scans use the single-pass scan's policy type (scan_policy: threads, vector bytes, vectors per
/// thread). A pair (start flag, value) takes twice the registers of a plain value, so tiles hold half the vectors
/// of the plain scan's: 128 threads × 3 vectors (1536 4-byte elements per tile) for arithmetic inputs. Not yet
/// swept on a GPU; `cuprim-lab run segmented` prints the policy it used.
template <class In>
struct segmented_scan_default_policy {
  using type = std::conditional_t<detail::vector_traits<In, 16>::vectorized,
                                  scan_policy<128, 16, 3>,   // arithmetic types: 16-byte vectors
                                  scan_policy<128, 16, 4>>;  // user structs: one element per vector slot
};

}  // namespace cuprim
