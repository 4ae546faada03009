// tests/common/graph.hpp: what the CUDA-graph capture tests share (tests/device/<family>_graph_test.cu).
//
// The promise under test (README, core/memory.hpp): an entry point given a caller's workspace allocates nothing
// and can be captured in a CUDA graph; the graph, launched later, computes on whatever its arrays hold at launch.
// graph_test::replay checks it the same way for every family:
//
//   1. capture the call on a non-blocking stream in thread-local mode, with a memory resource installed that fails
//      the test on any allocation;
//   2. instantiate the graph;
//   3. for each round: write fresh random inputs, poison the outputs and the workspace (whose contents need not be
//      initialised), launch the graph, wait, and compare with the host reference. The second round changes every
//      input, so a graph that kept values from capture time, or from its first launch, fails.
#pragma once

#include <cuprim/core/memory.hpp>

#include "common/test_util.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <vector>

namespace cuprim_test {

/// A memory resource that fails the running test on every allocation (a request of 0 bytes allocates nothing). It
/// forwards the request to `upstream`, so that the call goes on and the test reports everything else it does wrong.
class no_allocation_resource final : public cuprim::memory_resource {
public:
  explicit no_allocation_resource(cuprim::memory_resource& upstream) : upstream_(upstream) {}
  void* allocate(std::size_t bytes, cudaStream_t stream) override {
    if (bytes > 0) ADD_FAILURE() << "a call given its workspace took " << bytes << " bytes from the memory resource";
    return upstream_.allocate(bytes, stream);
  }
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream) noexcept override {
    upstream_.deallocate(p, bytes, stream);
  }

private:
  cuprim::memory_resource& upstream_;
};

/// While it lives, the current memory resource is a no_allocation_resource over the previous one.
class allocations_forbidden {
public:
  allocations_forbidden() : previous_(cuprim::current_resource()), guard_(previous_) {
    cuprim::set_current_resource(&guard_);
  }
  allocations_forbidden(const allocations_forbidden&) = delete;
  allocations_forbidden& operator=(const allocations_forbidden&) = delete;
  ~allocations_forbidden() { cuprim::set_current_resource(&previous_); }

private:
  cuprim::memory_resource& previous_;
  no_allocation_resource guard_;
};

/// One call captured into an instantiated CUDA graph.
class captured_call {
public:
  captured_call() = default;
  captured_call(const captured_call&) = delete;
  captured_call& operator=(const captured_call&) = delete;
  ~captured_call() {
    if (exec_) (void)cudaGraphExecDestroy(exec_);
    if (graph_) (void)cudaGraphDestroy(graph_);
  }

  /// Captures call() on `stream` (thread-local mode: any call that is unsafe during capture fails on this thread)
  /// with allocations forbidden, and instantiates the graph. Fails if the call throws, breaks the capture, or the
  /// graph cannot be instantiated.
  template <class F>
  ::testing::AssertionResult capture(cudaStream_t stream, F&& call) {
    cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess) return ::testing::AssertionFailure() << "cudaStreamBeginCapture: " << cudaGetErrorName(e);
    std::string thrown;
    {
      allocations_forbidden guard;
      try {
        call();
      } catch (const std::exception& x) {
        thrown = x.what();
      }
    }
    e = cudaStreamEndCapture(stream, &graph_);
    if (!thrown.empty() || e != cudaSuccess) {
      (void)cudaGetLastError();  // an invalidated capture leaves its error pending
      if (!thrown.empty()) return ::testing::AssertionFailure() << "the call threw under capture: " << thrown;
      return ::testing::AssertionFailure() << "cudaStreamEndCapture: " << cudaGetErrorName(e)
                                           << " (the call did something a capture cannot record)";
    }
    e = cudaGraphInstantiate(&exec_, graph_, 0);
    if (e != cudaSuccess) return ::testing::AssertionFailure() << "cudaGraphInstantiate: " << cudaGetErrorName(e);
    return ::testing::AssertionSuccess();
  }

  /// Launches the graph on `stream` and waits for it.
  ::testing::AssertionResult launch(cudaStream_t stream) {
    cudaError_t e = cudaGraphLaunch(exec_, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return ::testing::AssertionFailure() << "graph launch: " << cudaGetErrorName(e);
    return ::testing::AssertionSuccess();
  }

private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

/// A caller's workspace of exactly `bytes` (what the call's <algo>_workspace_bytes asked for); null when 0.
class graph_workspace {
public:
  graph_workspace(std::size_t bytes, cudaStream_t stream) : bytes_(bytes), buf_(bytes, stream) {}
  cuprim::workspace get() { return {bytes_ ? buf_.data() : nullptr, bytes_}; }
  void poison() { buf_.fill_bytes(poison_byte); }

private:
  std::size_t bytes_;
  cuprim::device_buffer<std::byte> buf_;
};

/// Writes fresh random values of T to `d` (all of it) and returns them; values in [lo, hi] when given.
template <class T>
std::vector<T> refill(rng& r, cuprim::device_buffer<T>& d) {
  std::vector<T> h = random_vector<T>(r, d.size());
  if (!h.empty()) d.copy_from_host(std::span<const T>(h));
  return h;
}
template <class T>
std::vector<T> refill(rng& r, cuprim::device_buffer<T>& d, double lo, double hi) {
  std::vector<T> h = random_vector<T>(r, d.size(), lo, hi);
  if (!h.empty()) d.copy_from_host(std::span<const T>(h));
  return h;
}

/// The first `count` elements of `got` equal `want`'s, and (when `rest_untouched`) the elements after them still
/// hold the poison.
template <class T>
void expect_prefix(const std::vector<T>& got, const std::vector<T>& want, std::size_t count,
                   bool rest_untouched = false) {
  ASSERT_LE(count, got.size());
  ASSERT_LE(count, want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < count; ++i)
    if (!(got[i] == want[i]) && bad++ < 3)
      ADD_FAILURE() << "element " << i << ": " << got[i] << ", expected " << want[i];
  EXPECT_EQ(bad, 0u) << "elements wrong of " << count;
  if (!rest_untouched || count == got.size()) return;
  const auto* b = reinterpret_cast<const unsigned char*>(got.data() + count);
  const std::size_t rest = (got.size() - count) * sizeof(T);
  EXPECT_TRUE(std::all_of(b, b + rest, [](unsigned char c) { return c == poison_byte; }))
      << "elements past the count were written";
}

/// The fixture of the capture tests: a GPU test with a non-blocking stream that every buffer is ordered on.
class graph_test : public gpu_test {
protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped()) return;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    if (stream_) {
      EXPECT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
      EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
    }
    gpu_test::TearDown();
  }

  /// A device buffer of n elements on the test's stream.
  template <class T>
  cuprim::device_buffer<T> buffer(std::size_t n) {
    return cuprim::device_buffer<T>(n, stream_);
  }

  /// Captures call(stream) with allocations forbidden, then `rounds` times: prepare() writes fresh inputs and
  /// poisons the outputs, the workspace is poisoned, the graph runs, and verify() compares with the reference.
  template <class Call, class Prepare, class Verify>
  void replay(graph_workspace& ws, Call&& call, Prepare&& prepare, Verify&& verify, int rounds = 2) {
    ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);  // the buffers exist before the capture starts
    captured_call g;
    ASSERT_TRUE(g.capture(stream_, [&] { call(stream_); }));
    for (int round = 0; round < rounds; ++round) {
      SCOPED_TRACE("graph launch " + std::to_string(round + 1) + " of " + std::to_string(rounds));
      prepare();
      ws.poison();
      ASSERT_TRUE(g.launch(stream_));
      verify();
      if (::testing::Test::HasFatalFailure()) return;
    }
  }

  /// For each n of `sizes`: captures device(in, out, n, ws, stream), where in and out hold n elements of T (one
  /// array when in_place) and ws holds ws_bytes(n) bytes, and after each launch checks all n outputs against
  /// host(in, out, n) run on the values fill(r, in) wrote to the input (and returned).
  template <class T, class Sizer, class Fill, class Device, class Host>
  void check_n_outputs(rng& r, std::span<const std::int64_t> sizes, Sizer ws_bytes, Fill fill, Device device,
                       Host host, bool in_place = false) {
    for (std::int64_t n : sizes) {
      SCOPED_TRACE("n = " + std::to_string(n) + (in_place ? ", in place" : ""));
      auto in = buffer<T>(n);
      auto separate_out = buffer<T>(in_place ? 0 : n);
      T* out = in_place ? in.data() : separate_out.data();
      graph_workspace ws(ws_bytes(n), stream_);
      std::vector<T> h, want(n);
      replay(
          ws, [&](cudaStream_t s) { device(in.data(), out, n, ws.get(), s); },
          [&] {
            separate_out.fill_bytes(poison_byte);
            h = fill(r, in);
          },
          [&] {
            host(h.data(), want.data(), n);
            expect_prefix(download(out, std::size_t(n)), want, std::size_t(n));
          });
      if (::testing::Test::HasFatalFailure()) return;
    }
  }

  cudaStream_t stream_ = nullptr;
};

}  // namespace cuprim_test
