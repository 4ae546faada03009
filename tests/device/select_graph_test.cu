// CUDA-graph capture of stream compaction's explicit-workspace overloads (select_if, select_flagged,
// select_flagged_index, partition, unique, run_length_encode): captured with allocations forbidden, launched twice on
// fresh inputs, checked against cuprim::host (tests/common/graph.hpp; select_flagged_index against a host loop), the
// count included, and nothing written past it. Sizes: under one tile, many tiles, and (select_if) the persistent
// pipeline from 2^22 items.
//
// SelectAsync: every asynchronous entry point of the family (select_if, select_flagged, select_flagged_index,
// partition, unique and run_length_encode, each allocating and with a workspace; unique and run_length_encode with
// operator== and with an equality) returns before a kernel queued ahead of it on its stream has finished, and its
// work runs behind that kernel (tests/common/stream_gate.hpp), at the same sizes. The *_sync forms wait by their
// names.
#include <cuprim/device/select.cuh>
#include <cuprim/host/select.hpp>

#include "common/graph.hpp"
#include "common/stream_gate.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

namespace cuprim_test {
namespace {

constexpr std::int64_t select_sizes[] = {1000, 100000, (1 << 22) + 5};

struct multiple_of_3 {
  CUPRIM_HD bool operator()(std::uint32_t x) const { return x % 3 == 0; }
};

/// The host references of the uint32 cases, graph and asynchrony alike: each returns the count.
std::int64_t select_if_host(const std::uint32_t* in, std::uint32_t* out, std::int64_t n) {
  return cuprim::host::select_if(in, out, n, multiple_of_3{});
}
std::int64_t partition_host(const std::uint32_t* in, std::uint32_t* out, std::int64_t n) {
  return cuprim::host::partition(in, out, n, multiple_of_3{});
}
std::int64_t unique_host(const std::uint32_t* in, std::uint32_t* out, std::int64_t n) {
  return cuprim::host::unique(in, out, n);
}

/// The indices i < n with flags[i] set, and their number.
std::int64_t flagged_index_host(const std::vector<std::uint8_t>& flags, std::int64_t* out, std::int64_t n) {
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (flags[std::size_t(i)]) out[count++] = i;
  return count;
}

/// run_length_encode's outputs against host::run_length_encode of `h`: the number of runs, the runs' values and
/// lengths, and nothing written past the number of runs.
void expect_runs(const std::vector<std::uint32_t>& h, cuprim::device_buffer<std::uint32_t>& unique_out,
                 cuprim::device_buffer<std::uint32_t>& counts, cuprim::device_buffer<std::int64_t>& runs) {
  std::vector<std::uint32_t> want_unique(h.size()), want_counts(h.size());
  const std::int64_t want_runs =
      cuprim::host::run_length_encode(h.data(), want_unique.data(), want_counts.data(), std::int64_t(h.size()));
  ASSERT_EQ(runs.to_host_sync()[0], want_runs);
  expect_prefix(unique_out.to_host_sync(), want_unique, std::size_t(want_runs), true);
  expect_prefix(counts.to_host_sync(), want_counts, std::size_t(want_runs), true);
}

class SelectGraph : public graph_test {
protected:
  /// Captures device(in, out, count, n, ws, stream) over n items of T (ws_bytes(n) of workspace) and checks each
  /// launch against host(in, out, n), which returns the count: the count, out[0, count), and (when written_all is
  /// false) that nothing past the count was written. fill(r, in) writes fresh inputs and returns in's values.
  template <class T, class Sizer, class Fill, class Device, class Host>
  void check(Sizer ws_bytes, Fill fill, Device device, Host host, bool written_all = false) {
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : select_sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      auto in = buffer<T>(n);
      auto out = buffer<T>(n);
      auto count = buffer<std::int64_t>(1);
      graph_workspace ws(ws_bytes(n), stream_);
      std::vector<T> h, want(n);
      replay(
          ws, [&](cudaStream_t s) { device(in.data(), out.data(), count.data(), n, ws.get(), s); },
          [&] {
            h = fill(r, in);
            out.fill_bytes(poison_byte);
            count.fill_bytes(poison_byte);
          },
          [&] {
            const std::int64_t want_count = host(h.data(), want.data(), n);
            ASSERT_EQ(count.to_host_sync()[0], want_count);
            expect_prefix(out.to_host_sync(), want, std::size_t(written_all ? n : want_count), !written_all);
          });
    }
  }
};

/// Fresh random values over the whole type.
template <class T>
std::vector<T> any_values(rng& r, cuprim::device_buffer<T>& d) {
  return refill(r, d);
}
/// Fresh random values in [1, 3]: runs of equal neighbours for unique and run_length_encode.
std::vector<std::uint32_t> few_values(rng& r, cuprim::device_buffer<std::uint32_t>& d) { return refill(r, d, 1, 3); }

TEST_F(SelectGraph, SelectIfUint32) {
  check<std::uint32_t>(
      [](std::int64_t n) { return cuprim::select_if_workspace_bytes<std::uint32_t>(n); },
      any_values<std::uint32_t>,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t* count, std::int64_t n, cuprim::workspace ws,
         cudaStream_t s) { cuprim::select_if(in, out, count, n, multiple_of_3{}, ws, s); },
      select_if_host);
}

TEST_F(SelectGraph, PartitionUint32) {
  check<std::uint32_t>(
      [](std::int64_t n) { return cuprim::partition_workspace_bytes<std::uint32_t>(n); }, any_values<std::uint32_t>,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t* count, std::int64_t n, cuprim::workspace ws,
         cudaStream_t s) { cuprim::partition(in, out, count, n, multiple_of_3{}, ws, s); },
      partition_host, true);
}

TEST_F(SelectGraph, UniqueUint32) {
  check<std::uint32_t>(
      [](std::int64_t n) { return cuprim::unique_workspace_bytes<std::uint32_t>(n); }, few_values,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t* count, std::int64_t n, cuprim::workspace ws,
         cudaStream_t s) { cuprim::unique(in, out, count, n, ws, s); },
      unique_host);
}

TEST_F(SelectGraph, SelectFlaggedFloat) {
  // The flags are an input too, written before each launch (one array for every size: a call reads its first n).
  auto flags = buffer<std::uint8_t>(std::size_t(select_sizes[std::size(select_sizes) - 1]));
  std::vector<std::uint8_t> h_flags;
  check<float>(
      [](std::int64_t n) { return cuprim::select_flagged_workspace_bytes<float>(n); },
      [&](rng& r, cuprim::device_buffer<float>& in) {
        h_flags = refill(r, flags, 0, 1);
        return refill(r, in);
      },
      [&](const float* in, float* out, std::int64_t* count, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::select_flagged(in, flags.data(), out, count, n, ws, s);
      },
      [&](const float* in, float* out, std::int64_t n) {
        return cuprim::host::select_flagged(in, h_flags.data(), out, n);
      });
}

TEST_F(SelectGraph, SelectFlaggedIndexInt64) {
  // The flags are the only input, written before each launch (one array for every size: a call reads its first n);
  // the indices come from their positions (check's own input array is left unused).
  auto flags = buffer<std::uint8_t>(std::size_t(select_sizes[std::size(select_sizes) - 1]));
  std::vector<std::uint8_t> h_flags;
  check<std::int64_t>(
      [](std::int64_t n) { return cuprim::select_flagged_index_workspace_bytes<std::uint8_t>(n); },
      [&](rng& r, cuprim::device_buffer<std::int64_t>&) {
        h_flags = refill(r, flags, 0, 1);
        return std::vector<std::int64_t>(1);
      },
      [&](const std::int64_t*, std::int64_t* out, std::int64_t* count, std::int64_t n, cuprim::workspace ws,
          cudaStream_t s) { cuprim::select_flagged_index(flags.data(), out, count, n, ws, s); },
      [&](const std::int64_t*, std::int64_t* out, std::int64_t n) { return flagged_index_host(h_flags, out, n); });
}

TEST_F(SelectGraph, RunLengthEncodeUint32) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : select_sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto in = buffer<std::uint32_t>(n);
    auto unique_out = buffer<std::uint32_t>(n);
    auto counts = buffer<std::uint32_t>(n);
    auto runs = buffer<std::int64_t>(1);
    graph_workspace ws(cuprim::run_length_encode_workspace_bytes<std::uint32_t>(n), stream_);
    std::vector<std::uint32_t> h;
    replay(
        ws,
        [&](cudaStream_t s) {
          cuprim::run_length_encode(in.data(), unique_out.data(), counts.data(), runs.data(), n, ws.get(), s);
        },
        [&] {
          h = few_values(r, in);
          unique_out.fill_bytes(poison_byte);
          counts.fill_bytes(poison_byte);
          runs.fill_bytes(poison_byte);
        },
        [&] { expect_runs(h, unique_out, counts, runs); });
  }
}

// ---- asynchrony: each entry point returns while the stream is held up ahead of it

class SelectAsync : public async_test {
protected:
  /// expect_async of device(in, out, count, n, ws, stream) over n items of uint32 (ws_bytes(n) of workspace) at
  /// every size, the inputs fill(r, uploads, in) staged, against host(in, out, n), which returns the count: the
  /// count, out[0, count), and (unless written_all) nothing written past the count.
  template <class Sizer, class Fill, class Device, class Host>
  void check(const std::string& entry, Sizer ws_bytes, Fill fill, Device device, Host host, bool written_all = false) {
    using T = std::uint32_t;
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : select_sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      auto in = buffer<T>(n);
      auto out = buffer<T>(n);
      auto count = buffer<std::int64_t>(1);
      graph_workspace ws(ws_bytes(n), stream_);
      std::vector<T> h, want(n);
      expect_async(
          entry,
          [&](staged_uploads& up) {
            h = fill(r, up, in);
            out.fill_bytes(poison_byte);
            count.fill_bytes(poison_byte);
            ws.poison();
          },
          [&](cudaStream_t s) { device(in.data(), out.data(), count.data(), n, ws.get(), s); },
          [&] {
            const std::int64_t want_count = host(h.data(), want.data(), n);
            ASSERT_EQ(count.to_host_sync()[0], want_count);
            expect_prefix(out.to_host_sync(), want, std::size_t(written_all ? n : want_count), !written_all);
          });
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }

  /// run_length_encode (by_operator: its operator== overloads) allocating or (workspace) in the caller's workspace.
  void check_run_length_encode(const std::string& entry, bool workspace, bool by_operator) {
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : select_sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      auto in = buffer<std::uint32_t>(n);
      auto unique_out = buffer<std::uint32_t>(n);
      auto counts = buffer<std::uint32_t>(n);
      auto runs = buffer<std::int64_t>(1);
      graph_workspace ws(workspace ? cuprim::run_length_encode_workspace_bytes<std::uint32_t>(n) : 0, stream_);
      std::vector<std::uint32_t> h;
      expect_async(
          entry,
          [&](staged_uploads& up) {
            h = up.random(r, in, 1, 3);
            unique_out.fill_bytes(poison_byte);
            counts.fill_bytes(poison_byte);
            runs.fill_bytes(poison_byte);
            ws.poison();
          },
          [&](cudaStream_t s) {
            if (workspace && by_operator)
              cuprim::run_length_encode(in.data(), unique_out.data(), counts.data(), runs.data(), n, ws.get(), s);
            else if (workspace)
              cuprim::run_length_encode(in.data(), unique_out.data(), counts.data(), runs.data(), n,
                                        cuprim::equal_to{}, ws.get(), s);
            else if (by_operator)
              cuprim::run_length_encode(in.data(), unique_out.data(), counts.data(), runs.data(), n, s);
            else
              cuprim::run_length_encode(in.data(), unique_out.data(), counts.data(), runs.data(), n,
                                        cuprim::equal_to{}, s);
          },
          [&] { expect_runs(h, unique_out, counts, runs); });
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }
};

/// Fresh random values over the whole type, staged.
std::vector<std::uint32_t> any_staged(rng& r, staged_uploads& up, cuprim::device_buffer<std::uint32_t>& d) {
  return up.random(r, d);
}
/// Fresh random values in [1, 3] (runs of equal neighbours), staged.
std::vector<std::uint32_t> few_staged(rng& r, staged_uploads& up, cuprim::device_buffer<std::uint32_t>& d) {
  return up.random(r, d, 1, 3);
}

TEST_F(SelectAsync, SelectIf) {
  check(
      "cuprim::select_if", no_workspace, any_staged,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t* count, std::int64_t n, cuprim::workspace,
         cudaStream_t s) { cuprim::select_if(in, out, count, n, multiple_of_3{}, s); },
      select_if_host);
}

TEST_F(SelectAsync, SelectIfWorkspace) {
  check(
      "cuprim::select_if (workspace)",
      [](std::int64_t n) { return cuprim::select_if_workspace_bytes<std::uint32_t>(n); }, any_staged,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t* count, std::int64_t n, cuprim::workspace ws,
         cudaStream_t s) { cuprim::select_if(in, out, count, n, multiple_of_3{}, ws, s); },
      select_if_host);
}

TEST_F(SelectAsync, Partition) {
  check(
      "cuprim::partition", no_workspace, any_staged,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t* count, std::int64_t n, cuprim::workspace,
         cudaStream_t s) { cuprim::partition(in, out, count, n, multiple_of_3{}, s); },
      partition_host, true);
}

TEST_F(SelectAsync, PartitionWorkspace) {
  check(
      "cuprim::partition (workspace)",
      [](std::int64_t n) { return cuprim::partition_workspace_bytes<std::uint32_t>(n); }, any_staged,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t* count, std::int64_t n, cuprim::workspace ws,
         cudaStream_t s) { cuprim::partition(in, out, count, n, multiple_of_3{}, ws, s); },
      partition_host, true);
}

TEST_F(SelectAsync, Unique) {
  check(
      "cuprim::unique", no_workspace, few_staged,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t* count, std::int64_t n, cuprim::workspace,
         cudaStream_t s) { cuprim::unique(in, out, count, n, s); },
      unique_host);
}

TEST_F(SelectAsync, UniqueWorkspace) {
  check(
      "cuprim::unique (workspace)", [](std::int64_t n) { return cuprim::unique_workspace_bytes<std::uint32_t>(n); },
      few_staged,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t* count, std::int64_t n, cuprim::workspace ws,
         cudaStream_t s) { cuprim::unique(in, out, count, n, ws, s); },
      unique_host);
}

TEST_F(SelectAsync, UniqueEquality) {
  check(
      "cuprim::unique (equality)", no_workspace, few_staged,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t* count, std::int64_t n, cuprim::workspace,
         cudaStream_t s) { cuprim::unique(in, out, count, n, cuprim::equal_to{}, s); },
      unique_host);
}

TEST_F(SelectAsync, UniqueEqualityWorkspace) {
  check(
      "cuprim::unique (equality, workspace)",
      [](std::int64_t n) { return cuprim::unique_workspace_bytes<std::uint32_t>(n); }, few_staged,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t* count, std::int64_t n, cuprim::workspace ws,
         cudaStream_t s) { cuprim::unique(in, out, count, n, cuprim::equal_to{}, ws, s); },
      unique_host);
}

TEST_F(SelectAsync, RunLengthEncode) { check_run_length_encode("cuprim::run_length_encode", false, true); }

TEST_F(SelectAsync, RunLengthEncodeWorkspace) {
  check_run_length_encode("cuprim::run_length_encode (workspace)", true, true);
}

TEST_F(SelectAsync, RunLengthEncodeEquality) {
  check_run_length_encode("cuprim::run_length_encode (equality)", false, false);
}

TEST_F(SelectAsync, RunLengthEncodeEqualityWorkspace) {
  check_run_length_encode("cuprim::run_length_encode (equality, workspace)", true, false);
}

/// select_flagged of float items with uint8 flags (both inputs staged), allocating or in the caller's workspace.
class SelectFlaggedAsync : public async_test {
protected:
  void check(const std::string& entry, bool workspace) {
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : select_sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      auto in = buffer<float>(n);
      auto flags = buffer<std::uint8_t>(n);
      auto out = buffer<float>(n);
      auto count = buffer<std::int64_t>(1);
      graph_workspace ws(workspace ? cuprim::select_flagged_workspace_bytes<float>(n) : 0, stream_);
      std::vector<float> h, want(n);
      std::vector<std::uint8_t> h_flags;
      expect_async(
          entry,
          [&](staged_uploads& up) {
            h = up.random(r, in);
            h_flags = up.random(r, flags, 0, 1);
            out.fill_bytes(poison_byte);
            count.fill_bytes(poison_byte);
            ws.poison();
          },
          [&](cudaStream_t s) {
            if (workspace) cuprim::select_flagged(in.data(), flags.data(), out.data(), count.data(), n, ws.get(), s);
            else cuprim::select_flagged(in.data(), flags.data(), out.data(), count.data(), n, s);
          },
          [&] {
            const std::int64_t want_count = cuprim::host::select_flagged(h.data(), h_flags.data(), want.data(), n);
            ASSERT_EQ(count.to_host_sync()[0], want_count);
            expect_prefix(out.to_host_sync(), want, std::size_t(want_count), true);
          });
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }
};

TEST_F(SelectFlaggedAsync, SelectFlagged) { check("cuprim::select_flagged", false); }

TEST_F(SelectFlaggedAsync, SelectFlaggedWorkspace) { check("cuprim::select_flagged (workspace)", true); }

/// select_flagged_index of uint8 flags (staged) into int64 indices, allocating or in the caller's workspace.
class SelectFlaggedIndexAsync : public async_test {
protected:
  void check(const std::string& entry, bool workspace) {
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : select_sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      auto flags = buffer<std::uint8_t>(n);
      auto out = buffer<std::int64_t>(n);
      auto count = buffer<std::int64_t>(1);
      graph_workspace ws(workspace ? cuprim::select_flagged_index_workspace_bytes<std::uint8_t>(n) : 0, stream_);
      std::vector<std::uint8_t> h_flags;
      std::vector<std::int64_t> want(n);
      expect_async(
          entry,
          [&](staged_uploads& up) {
            h_flags = up.random(r, flags, 0, 1);
            out.fill_bytes(poison_byte);
            count.fill_bytes(poison_byte);
            ws.poison();
          },
          [&](cudaStream_t s) {
            if (workspace) cuprim::select_flagged_index(flags.data(), out.data(), count.data(), n, ws.get(), s);
            else cuprim::select_flagged_index(flags.data(), out.data(), count.data(), n, s);
          },
          [&] {
            const std::int64_t want_count = flagged_index_host(h_flags, want.data(), n);
            ASSERT_EQ(count.to_host_sync()[0], want_count);
            expect_prefix(out.to_host_sync(), want, std::size_t(want_count), true);
          });
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }
};

TEST_F(SelectFlaggedIndexAsync, SelectFlaggedIndex) { check("cuprim::select_flagged_index", false); }

TEST_F(SelectFlaggedIndexAsync, SelectFlaggedIndexWorkspace) {
  check("cuprim::select_flagged_index (workspace)", true);
}

}  // namespace
}  // namespace cuprim_test
