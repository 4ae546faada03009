// CUDA-graph capture of the scans' explicit-workspace overloads (inclusive_scan, exclusive_scan): captured with
// allocations forbidden, launched twice on fresh inputs, checked against cuprim::host (tests/common/graph.hpp).
// Sizes take every path of the default policy: one block, one thread-block cluster (up to 2^16 4-byte elements),
// the one-tile-per-block look-back scan, and the persistent pipeline (from 2^22 elements, aligned arrays).
#include <cuprim/device/scan.cuh>
#include <cuprim/host/scan.hpp>

#include "common/graph.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cuprim_test {
namespace {

constexpr std::int64_t scan_sizes[] = {1, 3000, 60000, 1 << 20, (1 << 22) + 5};

class ScanGraph : public graph_test {
protected:
  /// Captures device(in, out, n, ws, stream) over n elements of T at every size and checks each launch against
  /// host(in, out, n); in place: one array, refilled before each launch.
  template <class T, class Device, class Host>
  void check(Device device, Host host, bool in_place = false) {
    CUPRIM_TEST_RNG(r);
    check_n_outputs<T>(
        r, scan_sizes, [](std::int64_t n) { return cuprim::scan_workspace_bytes<T, T>(n); },
        [](rng& g, cuprim::device_buffer<T>& in) { return refill(g, in); }, device, host, in_place);
  }
};

TEST_F(ScanGraph, InclusiveSumUint32AndInPlace) {
  auto device = [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
    cuprim::inclusive_scan(in, out, n, cuprim::plus{}, ws, s);
  };
  auto host = [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n) {
    cuprim::host::inclusive_scan(in, out, n, cuprim::plus{});
  };
  check<std::uint32_t>(device, host);
  check<std::uint32_t>(device, host, true);
}

TEST_F(ScanGraph, ExclusiveSumUint32) {
  check<std::uint32_t>(
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::exclusive_scan(in, out, n, cuprim::plus{}, 5u, ws, s);
      },
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n) {
        cuprim::host::exclusive_scan(in, out, n, cuprim::plus{}, 5u);
      });
}

TEST_F(ScanGraph, InclusiveMaxFloat) {
  check<float>(
      [](const float* in, float* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::inclusive_scan(in, out, n, cuprim::maximum{}, ws, s);
      },
      [](const float* in, float* out, std::int64_t n) { cuprim::host::inclusive_scan(in, out, n, cuprim::maximum{}); });
}

TEST_F(ScanGraph, ExclusiveMaxFloat) {
  check<float>(
      [](const float* in, float* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::exclusive_scan(in, out, n, cuprim::maximum{}, -1e30f, ws, s);
      },
      [](const float* in, float* out, std::int64_t n) {
        cuprim::host::exclusive_scan(in, out, n, cuprim::maximum{}, -1e30f);
      });
}

}  // namespace
}  // namespace cuprim_test
