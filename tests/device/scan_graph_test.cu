// CUDA-graph capture of the scans' explicit-workspace overloads (inclusive_scan, exclusive_scan): captured with
// allocations forbidden, launched twice on fresh inputs, checked against cuprim::host (tests/common/graph.hpp).
// Sizes take every path of the default policy: one block, one thread-block cluster (up to 2^16 4-byte elements),
// the one-tile-per-block look-back scan, and the persistent pipeline (from 2^22 elements, aligned arrays).
//
// ScanAsync: every asynchronous entry point of the family (inclusive_scan, exclusive_scan, each allocating and with
// a workspace; inclusive_sum, exclusive_sum) returns before a kernel queued ahead of it on its stream has finished,
// and its work runs behind that kernel (tests/common/stream_gate.hpp), at the same sizes.
#include <cuprim/device/scan.cuh>
#include <cuprim/host/scan.hpp>

#include "common/graph.hpp"
#include "common/stream_gate.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cuprim_test {
namespace {

constexpr std::int64_t scan_sizes[] = {1, 3000, 60000, 1 << 20, (1 << 22) + 5};

/// The host references of the uint32 sums, graph and asynchrony alike.
void inclusive_plus_host(const std::uint32_t* in, std::uint32_t* out, std::int64_t n) {
  cuprim::host::inclusive_scan(in, out, n, cuprim::plus{});
}
void exclusive_plus_host(const std::uint32_t* in, std::uint32_t* out, std::int64_t n) {
  cuprim::host::exclusive_scan(in, out, n, cuprim::plus{}, 5u);
}

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
  check<std::uint32_t>(device, inclusive_plus_host);
  check<std::uint32_t>(device, inclusive_plus_host, true);
}

TEST_F(ScanGraph, ExclusiveSumUint32) {
  check<std::uint32_t>(
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::exclusive_scan(in, out, n, cuprim::plus{}, 5u, ws, s);
      },
      exclusive_plus_host);
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

// ---- asynchrony: each entry point returns while the stream is held up ahead of it

class ScanAsync : public async_test {
protected:
  /// expect_async of device(in, out, n, ws, stream) over n fresh uint32 values at every size, against host.
  template <class Sizer, class Device, class Host>
  void check(const std::string& entry, Sizer ws_bytes, Device device, Host host) {
    CUPRIM_TEST_RNG(r);
    expect_async_n_outputs<std::uint32_t>(
        entry, scan_sizes, ws_bytes,
        [&](staged_uploads& up, cuprim::device_buffer<std::uint32_t>& in) { return up.random(r, in); }, device, host);
  }
  static std::size_t ws_bytes(std::int64_t n) { return cuprim::scan_workspace_bytes<std::uint32_t, std::uint32_t>(n); }
};

TEST_F(ScanAsync, InclusiveScan) {
  check(
      "cuprim::inclusive_scan", no_workspace,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::inclusive_scan(in, out, n, cuprim::plus{}, s);
      },
      inclusive_plus_host);
}

TEST_F(ScanAsync, InclusiveScanWorkspace) {
  check(
      "cuprim::inclusive_scan (workspace)", ws_bytes,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::inclusive_scan(in, out, n, cuprim::plus{}, ws, s);
      },
      inclusive_plus_host);
}

TEST_F(ScanAsync, ExclusiveScan) {
  check(
      "cuprim::exclusive_scan", no_workspace,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::exclusive_scan(in, out, n, cuprim::plus{}, 5u, s);
      },
      exclusive_plus_host);
}

TEST_F(ScanAsync, ExclusiveScanWorkspace) {
  check(
      "cuprim::exclusive_scan (workspace)", ws_bytes,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::exclusive_scan(in, out, n, cuprim::plus{}, 5u, ws, s);
      },
      exclusive_plus_host);
}

TEST_F(ScanAsync, InclusiveSum) {
  check(
      "cuprim::inclusive_sum", no_workspace,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::inclusive_sum(in, out, n, s);
      },
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n) { cuprim::host::inclusive_sum(in, out, n); });
}

TEST_F(ScanAsync, ExclusiveSum) {
  check(
      "cuprim::exclusive_sum", no_workspace,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::exclusive_sum(in, out, n, s);
      },
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n) { cuprim::host::exclusive_sum(in, out, n); });
}

}  // namespace
}  // namespace cuprim_test
