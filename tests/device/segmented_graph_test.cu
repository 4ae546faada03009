// CUDA-graph capture of the segmented family's explicit-workspace overloads: segmented_reduce and
// segmented_transform_reduce over CSR offsets, and the scans restarted at segment boundaries (by key, by head
// flags, by offsets). Captured with allocations forbidden, launched twice, checked against cuprim::host
// (tests/common/graph.hpp). Before each launch every input changes: the values and what marks the segments (the
// offsets, keys or flags), which the graph must read on the device.
//
// SegmentedAsync, SegmentedScanAsync: every asynchronous entry point of the family (segmented_reduce,
// segmented_transform_reduce, segmented_sum; the scans by key, with and without a key equality, by head flags and by
// offsets; each allocating and with a workspace where it has one) returns before a kernel queued ahead of it on its
// stream has finished, and its work runs behind that kernel (tests/common/stream_gate.hpp), at the same shapes. (The
// segmented sort is the radix sort's: tests/device/radix_sort_graph_test.cu.)
#include <cuprim/device/segmented_reduce.cuh>
#include <cuprim/device/segmented_scan.cuh>
#include <cuprim/host/segmented.hpp>

#include "common/graph.hpp"
#include "common/stream_gate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <vector>

namespace cuprim_test {
namespace {

// ---- segmented_reduce

/// `count` (num_segments + 1) CSR offsets from `first`, segment lengths uniform in [0, 2 · mean_length] (empty ones
/// included); refill_offsets writes them to d (which holds num_segments + 1 offsets).
std::vector<std::int32_t> random_offsets(rng& r, std::size_t count, std::int32_t first, int mean_length) {
  std::vector<std::int32_t> h(count);
  h[0] = first;
  for (std::size_t s = 1; s < h.size(); ++s) h[s] = h[s - 1] + std::int32_t(r.between(0, 2 * mean_length));
  return h;
}
std::vector<std::int32_t> refill_offsets(rng& r, cuprim::device_buffer<std::int32_t>& d, std::int32_t first,
                                         int mean_length) {
  std::vector<std::int32_t> h = random_offsets(r, d.size(), first, mean_length);
  d.copy_from_host(std::span<const std::int32_t>(h));
  return h;
}

/// |x|.
struct absolute {
  CUPRIM_HD float operator()(float x) const { return x < 0 ? -x : x; }
};

/// The shapes of the segmented reductions: (segments, mean length).
struct reduce_shape {
  std::int64_t segments;
  int mean_length;
};
constexpr reduce_shape reduce_shapes[] = {{1, 1000}, {100, 50}, {20000, 60}};

/// The host references of the reductions, graph and asynchrony alike: the sum from 1, the largest magnitude.
void sum_plus_one_host(const std::uint32_t* in, std::uint32_t* out, const std::int32_t* offsets,
                       std::int64_t segments) {
  cuprim::host::segmented_reduce(in, out, offsets, segments, cuprim::plus{}, 1u);
}
void max_abs_host(const float* in, float* out, const std::int32_t* offsets, std::int64_t segments) {
  std::vector<float> magnitudes(in, in + (segments ? offsets[segments] : 0));
  for (float& x : magnitudes) x = absolute{}(x);
  cuprim::host::segmented_reduce(magnitudes.data(), out, offsets, segments, cuprim::maximum{}, -1.0f);
}

class SegmentedGraph : public graph_test {
protected:
  /// Captures device(in, out, offsets, num_segments, ws, stream) over num_segments segments of mean_length values
  /// of T each (results of R) and checks each launch against host(in, out, offsets, num_segments).
  template <class T, class R, class Device, class Host>
  void check_reduce(Device device, Host host) {
    CUPRIM_TEST_RNG(r);
    for (const auto& shape : reduce_shapes) {
      const std::int64_t segments = shape.segments;
      const int mean_length = shape.mean_length;
      SCOPED_TRACE(std::to_string(segments) + " segments of about " + std::to_string(mean_length) + " values");
      const std::int32_t first = 3;  // offsets[0] need not be 0
      auto in = buffer<T>(first + segments * 2 * mean_length);
      auto out = buffer<R>(segments);
      auto offsets = buffer<std::int32_t>(segments + 1);
      graph_workspace ws(cuprim::segmented_reduce_workspace_bytes<R>(segments), stream_);
      std::vector<T> h;
      std::vector<std::int32_t> h_offsets;
      std::vector<R> want(segments);
      replay(
          ws, [&](cudaStream_t s) { device(in.data(), out.data(), offsets.data(), segments, ws.get(), s); },
          [&] {
            h = refill(r, in);
            h_offsets = refill_offsets(r, offsets, first, mean_length);
            out.fill_bytes(poison_byte);
          },
          [&] {
            host(h.data(), want.data(), h_offsets.data(), segments);
            expect_prefix(out.to_host_sync(), want, std::size_t(segments));
          });
    }
  }
};

TEST_F(SegmentedGraph, SegmentedReduceSumUint32) {
  check_reduce<std::uint32_t, std::uint32_t>(
      [](const std::uint32_t* in, std::uint32_t* out, const std::int32_t* offsets, std::int64_t segments,
         cuprim::workspace ws, cudaStream_t s) {
        cuprim::segmented_reduce(in, out, offsets, segments, cuprim::plus{}, 1u, ws, s);
      },
      sum_plus_one_host);
}

TEST_F(SegmentedGraph, SegmentedTransformReduceMaxAbsFloat) {
  check_reduce<float, float>(
      [](const float* in, float* out, const std::int32_t* offsets, std::int64_t segments, cuprim::workspace ws,
         cudaStream_t s) {
        cuprim::segmented_transform_reduce(in, out, offsets, segments, absolute{}, cuprim::maximum{}, -1.0f, ws, s);
      },
      max_abs_host);
}

// ---- the segmented scans

constexpr std::int64_t scan_sizes[] = {1000, 100000, (1 << 20) + 3};
constexpr std::int64_t max_scan_size = scan_sizes[std::size(scan_sizes) - 1];

/// Keys in runs: each key repeats the previous one except with probability 1/64.
std::vector<std::uint32_t> run_keys(rng& r, std::size_t count) {
  std::vector<std::uint32_t> h(count);
  for (std::size_t i = 0; i < h.size(); ++i)
    h[i] = (i == 0 || r.index(64) == 0) ? std::uint32_t(r.next()) : h[i - 1];
  return h;
}

/// Head flags, set with probability 1/64.
std::vector<std::uint8_t> head_flags(rng& r, std::size_t count) {
  std::vector<std::uint8_t> h(count);
  for (auto& f : h) f = r.index(64) == 0 ? std::uint8_t(1 + r.index(255)) : std::uint8_t(0);
  return h;
}

/// CSR offsets of [0, n): offsets[0] = 0, offsets[num_segments] = n, the rest random (sorted; empty segments
/// included).
std::vector<std::int64_t> scan_offsets(rng& r, std::size_t count, std::int64_t n) {
  std::vector<std::int64_t> h(count);
  for (auto& o : h) o = r.between(0, n);
  std::sort(h.begin(), h.end());
  h.front() = 0;
  h.back() = n;
  return h;
}

/// What marks the segments of the scans, for every size (a call reads the first n keys or flags): written anew
/// before each launch.
struct segment_marks {
  static constexpr std::int64_t num_segments = 1000;
  cuprim::device_buffer<std::uint32_t> keys;
  cuprim::device_buffer<std::uint8_t> flags;
  cuprim::device_buffer<std::int64_t> offsets;
  std::vector<std::uint32_t> h_keys;
  std::vector<std::uint8_t> h_flags;
  std::vector<std::int64_t> h_offsets;
  /// Allocates the arrays on `stream`: keys and flags for the largest size.
  void allocate(cudaStream_t stream) {
    keys = cuprim::device_buffer<std::uint32_t>(max_scan_size, stream);
    flags = cuprim::device_buffer<std::uint8_t>(max_scan_size, stream);
    offsets = cuprim::device_buffer<std::int64_t>(num_segments + 1, stream);
  }
  /// Draws fresh marks on the host (offsets of [0, n)).
  void draw(rng& r, std::int64_t n) {
    h_keys = run_keys(r, keys.size());
    h_flags = head_flags(r, flags.size());
    h_offsets = scan_offsets(r, offsets.size(), n);
  }
  /// Draws fresh marks and writes them to the device.
  void refill(rng& r, std::int64_t n) {
    draw(r, n);
    keys.copy_from_host(std::span<const std::uint32_t>(h_keys));
    flags.copy_from_host(std::span<const std::uint8_t>(h_flags));
    offsets.copy_from_host(std::span<const std::int64_t>(h_offsets));
  }
  /// The same, staged to be uploaded behind a gate (stream_gate.hpp).
  void stage(rng& r, std::int64_t n, staged_uploads& up) {
    draw(r, n);
    up.add(keys.data(), h_keys);
    up.add(flags.data(), h_flags);
    up.add(offsets.data(), h_offsets);
  }
};

using u32 = std::uint32_t;

/// The host references of the scans, graph and asynchrony alike.
void inclusive_by_key_host(segment_marks& m, const u32* in, u32* out, std::int64_t n) {
  cuprim::host::inclusive_scan_by_key(m.h_keys.data(), in, out, n, cuprim::plus{});
}
void exclusive_by_key_host(segment_marks& m, const u32* in, u32* out, std::int64_t n) {
  cuprim::host::exclusive_scan_by_key(m.h_keys.data(), in, out, n, cuprim::plus{}, 3u);
}
void inclusive_flagged_host(segment_marks& m, const float* in, float* out, std::int64_t n) {
  cuprim::host::inclusive_segmented_scan(in, m.h_flags.data(), out, n, cuprim::maximum{});
}
void exclusive_flagged_host(segment_marks& m, const u32* in, u32* out, std::int64_t n) {
  cuprim::host::exclusive_segmented_scan(in, m.h_flags.data(), out, n, cuprim::plus{}, 2u);
}
void inclusive_offsets_host(segment_marks& m, const u32* in, u32* out, std::int64_t n) {
  cuprim::host::inclusive_segmented_scan(in, m.h_offsets.data(), m.num_segments, out, n, cuprim::plus{});
}
void exclusive_offsets_host(segment_marks& m, const float* in, float* out, std::int64_t n) {
  cuprim::host::exclusive_segmented_scan(in, m.h_offsets.data(), m.num_segments, out, n, cuprim::maximum{}, -1e30f);
}

/// A fixture (Base: graph_test or async_test) with the marks of the scans, allocated on its stream and freed before
/// the stream is.
template <class Base>
class with_segment_marks : public Base {
protected:
  void SetUp() override {
    Base::SetUp();
    if (this->IsSkipped() || this->HasFatalFailure()) return;
    marks_.allocate(this->stream_);
  }
  void TearDown() override {
    marks_ = {};
    Base::TearDown();
  }

  segment_marks marks_;
};

class SegmentedScanGraph : public with_segment_marks<graph_test> {
protected:
  /// Captures device(marks, in, out, n, ws, stream) over n elements of T at every size and checks each launch
  /// against host(marks, in, out, n), the values and the marks refilled before each launch.
  template <class T, class Device, class Host>
  void check(Device device, Host host) {
    CUPRIM_TEST_RNG(r);
    check_n_outputs<T>(
        r, scan_sizes, [](std::int64_t n) { return cuprim::segmented_scan_workspace_bytes<T, T>(n); },
        [&](rng& g, cuprim::device_buffer<T>& in) {
          marks_.refill(g, std::int64_t(in.size()));
          return refill(g, in);
        },
        [&](const T* in, T* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
          device(marks_, in, out, n, ws, s);
        },
        [&](const T* in, T* out, std::int64_t n) { host(marks_, in, out, n); });
  }
};

TEST_F(SegmentedScanGraph, InclusiveScanByKeySumUint32) {
  check<std::uint32_t>(
      [](segment_marks& m, const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace ws,
         cudaStream_t s) { cuprim::inclusive_scan_by_key(m.keys.data(), in, out, n, cuprim::plus{}, ws, s); },
      inclusive_by_key_host);
}

TEST_F(SegmentedScanGraph, ExclusiveScanByKeySumUint32) {
  check<std::uint32_t>(
      [](segment_marks& m, const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace ws,
         cudaStream_t s) { cuprim::exclusive_scan_by_key(m.keys.data(), in, out, n, cuprim::plus{}, 3u, ws, s); },
      exclusive_by_key_host);
}

TEST_F(SegmentedScanGraph, InclusiveFlaggedMaxFloat) {
  check<float>(
      [](segment_marks& m, const float* in, float* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::inclusive_segmented_scan(in, m.flags.data(), out, n, cuprim::maximum{}, ws, s);
      },
      inclusive_flagged_host);
}

TEST_F(SegmentedScanGraph, ExclusiveFlaggedSumUint32) {
  check<std::uint32_t>(
      [](segment_marks& m, const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace ws,
         cudaStream_t s) { cuprim::exclusive_segmented_scan(in, m.flags.data(), out, n, cuprim::plus{}, 2u, ws, s); },
      exclusive_flagged_host);
}

TEST_F(SegmentedScanGraph, InclusiveOffsetsSumUint32) {
  check<std::uint32_t>(
      [](segment_marks& m, const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace ws,
         cudaStream_t s) {
        cuprim::inclusive_segmented_scan(in, m.offsets.data(), m.num_segments, out, n, cuprim::plus{}, ws, s);
      },
      inclusive_offsets_host);
}

TEST_F(SegmentedScanGraph, ExclusiveOffsetsMaxFloat) {
  check<float>(
      [](segment_marks& m, const float* in, float* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::exclusive_segmented_scan(in, m.offsets.data(), m.num_segments, out, n, cuprim::maximum{}, -1e30f, ws,
                                         s);
      },
      exclusive_offsets_host);
}

// ---- asynchrony: each entry point returns while the stream is held up ahead of it

class SegmentedAsync : public async_test {
protected:
  /// expect_async of device(in, out, offsets, num_segments, ws, stream) at every shape of reduce_shapes, values of T
  /// and offsets fresh and staged, ws_bytes(num_segments) of workspace, against host(in, out, offsets, segments).
  template <class T, class R, class Sizer, class Device, class Host>
  void check_reduce(const std::string& entry, Sizer ws_bytes, Device device, Host host) {
    CUPRIM_TEST_RNG(r);
    for (const auto& shape : reduce_shapes) {
      const std::int64_t segments = shape.segments;
      const int mean_length = shape.mean_length;
      SCOPED_TRACE(std::to_string(segments) + " segments of about " + std::to_string(mean_length) + " values");
      const std::int32_t first = 3;  // offsets[0] need not be 0
      auto in = buffer<T>(first + segments * 2 * mean_length);
      auto out = buffer<R>(segments);
      auto offsets = buffer<std::int32_t>(segments + 1);
      graph_workspace ws(ws_bytes(segments), stream_);
      std::vector<T> h;
      std::vector<std::int32_t> h_offsets;
      std::vector<R> want(segments);
      expect_async(
          entry,
          [&](staged_uploads& up) {
            h = up.random(r, in);
            h_offsets = random_offsets(r, offsets.size(), first, mean_length);
            up.add(offsets.data(), h_offsets);
            out.fill_bytes(poison_byte);
            ws.poison();
          },
          [&](cudaStream_t s) { device(in.data(), out.data(), offsets.data(), segments, ws.get(), s); },
          [&] {
            host(h.data(), want.data(), h_offsets.data(), segments);
            expect_prefix(out.to_host_sync(), want, std::size_t(segments));
          });
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }
};

std::size_t reduce_ws_uint32(std::int64_t segments) {
  return cuprim::segmented_reduce_workspace_bytes<std::uint32_t>(segments);
}
std::size_t reduce_ws_float(std::int64_t segments) { return cuprim::segmented_reduce_workspace_bytes<float>(segments); }

TEST_F(SegmentedAsync, SegmentedReduce) {
  check_reduce<std::uint32_t, std::uint32_t>(
      "cuprim::segmented_reduce", no_workspace,
      [](const std::uint32_t* in, std::uint32_t* out, const std::int32_t* offsets, std::int64_t segments,
         cuprim::workspace, cudaStream_t s) {
        cuprim::segmented_reduce(in, out, offsets, segments, cuprim::plus{}, 1u, s);
      },
      sum_plus_one_host);
}

TEST_F(SegmentedAsync, SegmentedReduceWorkspace) {
  check_reduce<std::uint32_t, std::uint32_t>(
      "cuprim::segmented_reduce (workspace)", reduce_ws_uint32,
      [](const std::uint32_t* in, std::uint32_t* out, const std::int32_t* offsets, std::int64_t segments,
         cuprim::workspace ws, cudaStream_t s) {
        cuprim::segmented_reduce(in, out, offsets, segments, cuprim::plus{}, 1u, ws, s);
      },
      sum_plus_one_host);
}

TEST_F(SegmentedAsync, SegmentedTransformReduce) {
  check_reduce<float, float>(
      "cuprim::segmented_transform_reduce", no_workspace,
      [](const float* in, float* out, const std::int32_t* offsets, std::int64_t segments, cuprim::workspace,
         cudaStream_t s) {
        cuprim::segmented_transform_reduce(in, out, offsets, segments, absolute{}, cuprim::maximum{}, -1.0f, s);
      },
      max_abs_host);
}

TEST_F(SegmentedAsync, SegmentedTransformReduceWorkspace) {
  check_reduce<float, float>(
      "cuprim::segmented_transform_reduce (workspace)", reduce_ws_float,
      [](const float* in, float* out, const std::int32_t* offsets, std::int64_t segments, cuprim::workspace ws,
         cudaStream_t s) {
        cuprim::segmented_transform_reduce(in, out, offsets, segments, absolute{}, cuprim::maximum{}, -1.0f, ws, s);
      },
      max_abs_host);
}

TEST_F(SegmentedAsync, SegmentedSum) {
  check_reduce<std::uint32_t, std::uint32_t>(
      "cuprim::segmented_sum", no_workspace,
      [](const std::uint32_t* in, std::uint32_t* out, const std::int32_t* offsets, std::int64_t segments,
         cuprim::workspace, cudaStream_t s) { cuprim::segmented_sum(in, out, offsets, segments, s); },
      [](const std::uint32_t* in, std::uint32_t* out, const std::int32_t* offsets, std::int64_t segments) {
        cuprim::host::segmented_reduce(in, out, offsets, segments, cuprim::plus{}, 0u);
      });
}

class SegmentedScanAsync : public with_segment_marks<async_test> {
protected:
  /// expect_async of device(marks, in, out, n, ws, stream) over n elements of T at every size (with the scans'
  /// workspace when `workspace`), the values and the marks fresh and staged, against host(marks, in, out, n).
  template <class T, class Device, class Host>
  void check(const std::string& entry, bool workspace, Device device, Host host) {
    CUPRIM_TEST_RNG(r);
    expect_async_n_outputs<T>(
        entry, scan_sizes,
        [&](std::int64_t n) { return workspace ? cuprim::segmented_scan_workspace_bytes<T, T>(n) : std::size_t(0); },
        [&](staged_uploads& up, cuprim::device_buffer<T>& in) {
          marks_.stage(r, std::int64_t(in.size()), up);
          return up.random(r, in);
        },
        [&](const T* in, T* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
          device(marks_, in, out, n, ws, s);
        },
        [&](const T* in, T* out, std::int64_t n) { host(marks_, in, out, n); });
  }
};

TEST_F(SegmentedScanAsync, InclusiveScanByKey) {
  check<u32>(
      "cuprim::inclusive_scan_by_key", false,
      [](segment_marks& m, const u32* in, u32* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::inclusive_scan_by_key(m.keys.data(), in, out, n, cuprim::plus{}, s);
      },
      inclusive_by_key_host);
}

TEST_F(SegmentedScanAsync, InclusiveScanByKeyWorkspace) {
  check<u32>(
      "cuprim::inclusive_scan_by_key (workspace)", true,
      [](segment_marks& m, const u32* in, u32* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::inclusive_scan_by_key(m.keys.data(), in, out, n, cuprim::plus{}, ws, s);
      },
      inclusive_by_key_host);
}

TEST_F(SegmentedScanAsync, InclusiveScanByKeyEquality) {
  check<u32>(
      "cuprim::inclusive_scan_by_key (key equality)", false,
      [](segment_marks& m, const u32* in, u32* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::inclusive_scan_by_key(m.keys.data(), in, out, n, cuprim::plus{}, cuprim::equal_to{}, s);
      },
      inclusive_by_key_host);
}

TEST_F(SegmentedScanAsync, InclusiveScanByKeyEqualityWorkspace) {
  check<u32>(
      "cuprim::inclusive_scan_by_key (key equality, workspace)", true,
      [](segment_marks& m, const u32* in, u32* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::inclusive_scan_by_key(m.keys.data(), in, out, n, cuprim::plus{}, cuprim::equal_to{}, ws, s);
      },
      inclusive_by_key_host);
}

TEST_F(SegmentedScanAsync, ExclusiveScanByKey) {
  check<u32>(
      "cuprim::exclusive_scan_by_key", false,
      [](segment_marks& m, const u32* in, u32* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::exclusive_scan_by_key(m.keys.data(), in, out, n, cuprim::plus{}, 3u, s);
      },
      exclusive_by_key_host);
}

TEST_F(SegmentedScanAsync, ExclusiveScanByKeyWorkspace) {
  check<u32>(
      "cuprim::exclusive_scan_by_key (workspace)", true,
      [](segment_marks& m, const u32* in, u32* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::exclusive_scan_by_key(m.keys.data(), in, out, n, cuprim::plus{}, 3u, ws, s);
      },
      exclusive_by_key_host);
}

TEST_F(SegmentedScanAsync, ExclusiveScanByKeyEquality) {
  check<u32>(
      "cuprim::exclusive_scan_by_key (key equality)", false,
      [](segment_marks& m, const u32* in, u32* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::exclusive_scan_by_key(m.keys.data(), in, out, n, cuprim::plus{}, 3u, cuprim::equal_to{}, s);
      },
      exclusive_by_key_host);
}

TEST_F(SegmentedScanAsync, ExclusiveScanByKeyEqualityWorkspace) {
  check<u32>(
      "cuprim::exclusive_scan_by_key (key equality, workspace)", true,
      [](segment_marks& m, const u32* in, u32* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::exclusive_scan_by_key(m.keys.data(), in, out, n, cuprim::plus{}, 3u, cuprim::equal_to{}, ws, s);
      },
      exclusive_by_key_host);
}

TEST_F(SegmentedScanAsync, InclusiveSegmentedScanFlags) {
  check<float>(
      "cuprim::inclusive_segmented_scan (head flags)", false,
      [](segment_marks& m, const float* in, float* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::inclusive_segmented_scan(in, m.flags.data(), out, n, cuprim::maximum{}, s);
      },
      inclusive_flagged_host);
}

TEST_F(SegmentedScanAsync, InclusiveSegmentedScanFlagsWorkspace) {
  check<float>(
      "cuprim::inclusive_segmented_scan (head flags, workspace)", true,
      [](segment_marks& m, const float* in, float* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::inclusive_segmented_scan(in, m.flags.data(), out, n, cuprim::maximum{}, ws, s);
      },
      inclusive_flagged_host);
}

TEST_F(SegmentedScanAsync, ExclusiveSegmentedScanFlags) {
  check<u32>(
      "cuprim::exclusive_segmented_scan (head flags)", false,
      [](segment_marks& m, const u32* in, u32* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::exclusive_segmented_scan(in, m.flags.data(), out, n, cuprim::plus{}, 2u, s);
      },
      exclusive_flagged_host);
}

TEST_F(SegmentedScanAsync, ExclusiveSegmentedScanFlagsWorkspace) {
  check<u32>(
      "cuprim::exclusive_segmented_scan (head flags, workspace)", true,
      [](segment_marks& m, const u32* in, u32* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::exclusive_segmented_scan(in, m.flags.data(), out, n, cuprim::plus{}, 2u, ws, s);
      },
      exclusive_flagged_host);
}

TEST_F(SegmentedScanAsync, InclusiveSegmentedScanOffsets) {
  check<u32>(
      "cuprim::inclusive_segmented_scan (offsets)", false,
      [](segment_marks& m, const u32* in, u32* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::inclusive_segmented_scan(in, m.offsets.data(), m.num_segments, out, n, cuprim::plus{}, s);
      },
      inclusive_offsets_host);
}

TEST_F(SegmentedScanAsync, InclusiveSegmentedScanOffsetsWorkspace) {
  check<u32>(
      "cuprim::inclusive_segmented_scan (offsets, workspace)", true,
      [](segment_marks& m, const u32* in, u32* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::inclusive_segmented_scan(in, m.offsets.data(), m.num_segments, out, n, cuprim::plus{}, ws, s);
      },
      inclusive_offsets_host);
}

TEST_F(SegmentedScanAsync, ExclusiveSegmentedScanOffsets) {
  check<float>(
      "cuprim::exclusive_segmented_scan (offsets)", false,
      [](segment_marks& m, const float* in, float* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::exclusive_segmented_scan(in, m.offsets.data(), m.num_segments, out, n, cuprim::maximum{}, -1e30f, s);
      },
      exclusive_offsets_host);
}

TEST_F(SegmentedScanAsync, ExclusiveSegmentedScanOffsetsWorkspace) {
  check<float>(
      "cuprim::exclusive_segmented_scan (offsets, workspace)", true,
      [](segment_marks& m, const float* in, float* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::exclusive_segmented_scan(in, m.offsets.data(), m.num_segments, out, n, cuprim::maximum{}, -1e30f,
                                         ws, s);
      },
      exclusive_offsets_host);
}

}  // namespace
}  // namespace cuprim_test
