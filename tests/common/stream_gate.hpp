// tests/common/stream_gate.hpp: whether a host entry point returns without waiting for its stream.
//
// The promise under test (README): no entry point waits for the GPU unless its name ends in _sync. Each family's
// tests/device/<family>_graph_test.cu checks it for every asynchronous entry point, the overloads that allocate
// their workspace as well as those given one, with async_test::expect_async:
//
//   1. the inputs are drawn afresh and copied into page-locked host memory, the outputs (and any workspace) are
//      poisoned, all before anything is held up;
//   2. a gate opens on the test's stream (non-blocking): a one-thread kernel that spins until the host sets a flag
//      in mapped page-locked memory (read through a volatile pointer), or until a timeout measured on the device
//      (%globaltimer; CUPRIM_TEST_GATE_MS, default 3000) expires, and records in mapped memory which of the two
//      ended it; the host waits until the gate runs;
//   3. the inputs are uploaded on the stream (cudaMemcpyAsync from the page-locked copies), so behind the gate;
//   4. the entry point is called on the stream;
//   5. only after the call has returned does the host set the flag; then it synchronises the stream.
//
// The call passed when the gate was released by the host: it returned while the kernel ahead of it still ran. Had
// it waited for the stream (or the device), it would have returned only once the gate timed out, and the test
// fails naming the entry point, after about the timeout rather than hanging. The results are then checked against
// the host reference: as the inputs reached the device only behind the gate, a correct result shows that the
// call's work was queued on the stream behind it (work done elsewhere, or before the gate opened, would have read
// the previous inputs).
//
// Before the gated call, the same call runs once ungated (and is checked too): the first launch of a kernel may load
// its module (CUDA's lazy loading), which may synchronise the context, and the memory pool may grow on a first
// allocation. The gated call measures what the entry point itself does on every call.
//
// Where kernel launches wait for their kernels (compute-sanitizer may serialize them; CUDA_LAUNCH_BLOCKING=1 does),
// asynchrony cannot be observed: a probe finds it once per process and the tests skip, saying so.
#pragma once

#include "common/graph.hpp"
#include "common/test_util.hpp"

#include <cuprim/core/memory.hpp>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace cuprim_test {

/// What the gate kernel records in mapped memory.
enum gate_outcome : int {
  gate_not_started = 0,
  gate_running = 1,
  gate_released = 2,   ///< the host set the flag
  gate_timed_out = 3,  ///< the device-side timeout expired first
};

/// The device's global nanosecond timer.
__device__ inline unsigned long long gate_clock_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Spins until *release != 0 or timeout_ns have passed on the device; *outcome says which (gate_outcome).
template <int = 0>
__global__ void stream_gate_kernel(const volatile int* release, volatile int* outcome, unsigned long long timeout_ns) {
  *outcome = gate_running;
  __threadfence_system();
  const unsigned long long start = gate_clock_ns();
  int result = gate_timed_out;
  while (gate_clock_ns() - start < timeout_ns) {
    if (*release != 0) {
      result = gate_released;
      break;
    }
#if __CUDA_ARCH__ >= 700
    __nanosleep(1000);
#endif
  }
  *outcome = result;
  __threadfence_system();
}

/// CUPRIM_TEST_GATE_MS (default 3000): how long the gate holds its stream at most, in milliseconds.
inline long long gate_timeout_ms() {
  const long long ms = env_int("CUPRIM_TEST_GATE_MS", 3000);
  return ms > 0 ? ms : 3000;
}

/// A gate on a stream: open() launches stream_gate_kernel, release() sets its flag from the host. The flag and the
/// outcome live in one mapped page-locked allocation, made at construction (before the gate holds anything up).
/// The destructor releases the gate and waits for it, so that a test that stops early neither hangs nor frees
/// memory the kernel still reads.
class stream_gate {
public:
  stream_gate() {
    void* p = nullptr;
    const cudaError_t e = cudaHostAlloc(&p, sizeof(shared), cudaHostAllocMapped);
    if (e != cudaSuccess) {
      ADD_FAILURE() << "cudaHostAlloc (mapped) for the gate: " << cudaGetErrorName(e);
      return;
    }
    host_ = static_cast<shared*>(p);
    std::memset(host_, 0, sizeof(shared));
    if (cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), p, 0) != cudaSuccess) {
      ADD_FAILURE() << "cudaHostGetDevicePointer for the gate";
      device_ = nullptr;
    }
  }
  stream_gate(const stream_gate&) = delete;
  stream_gate& operator=(const stream_gate&) = delete;
  ~stream_gate() {
    release();
    if (stream_) (void)cudaStreamSynchronize(stream_);
    if (host_) (void)cudaFreeHost(host_);
  }

  /// Launches the gate on `stream` and waits (on the host, at most the timeout) until it runs.
  ::testing::AssertionResult open(cudaStream_t stream) {
    if (!host_ || !device_) return ::testing::AssertionFailure() << "the gate has no mapped memory";
    const long long ms = gate_timeout_ms();
    stream_gate_kernel<><<<1, 1, 0, stream>>>(&device_->release, &device_->outcome,
                                              static_cast<unsigned long long>(ms) * 1000000ull);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return ::testing::AssertionFailure() << "gate launch: " << cudaGetErrorName(e);
    stream_ = stream;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (outcome() == gate_not_started) {
      if (std::chrono::steady_clock::now() > deadline)
        return ::testing::AssertionFailure() << "the gate kernel did not start within " << ms << " ms";
      std::this_thread::yield();
    }
    return ::testing::AssertionSuccess();
  }

  /// Sets the flag the gate spins on (from the host, through a volatile pointer).
  void release() {
    if (host_) {
      *static_cast<volatile int*>(&host_->release) = 1;
      std::atomic_thread_fence(std::memory_order_seq_cst);
    }
  }

  /// What the gate recorded (read once its stream is synchronised for the final value).
  gate_outcome outcome() const {
    return host_ ? static_cast<gate_outcome>(*static_cast<const volatile int*>(&host_->outcome)) : gate_not_started;
  }

private:
  struct shared {
    int release;
    int outcome;
  };
  shared* host_ = nullptr;
  shared* device_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

/// Whether a kernel launch returns here before the kernel has finished: false where launches are serialized
/// (compute-sanitizer, CUDA_LAUNCH_BLOCKING=1), where a gate would time out before the host could call anything, so
/// that asynchrony cannot be observed. Probed once per process, with a gate on `stream`.
inline bool launches_return_early(cudaStream_t stream) {
  static const bool early = [stream] {
    stream_gate gate;
    if (!gate.open(stream)) return true;  // let the tests report what fails
    const bool ended = gate.outcome() != gate_running;  // the launch returned only once the gate gave up
    gate.release();
    (void)cudaStreamSynchronize(stream);
    return !ended;
  }();
  return early;
}

/// Inputs to upload behind the gate: add() copies host values into page-locked memory at once (before the gate
/// opens: cudaHostAlloc may synchronise), enqueue() uploads them all on the stream with cudaMemcpyAsync, which
/// from page-locked memory never waits.
class staged_uploads {
public:
  /// Stages `values` for device[0, values.size()).
  template <class T>
  void add(T* device, const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (values.empty()) return;
    const std::size_t bytes = values.size() * sizeof(T);
    cuprim::pinned_buffer<std::byte> pinned(bytes);
    std::memcpy(pinned.data(), values.data(), bytes);
    items_.push_back({device, std::move(pinned), bytes});
  }
  /// Fresh random values of T for all of d (in [lo, hi] when given), staged; returns them.
  template <class T>
  std::vector<T> random(rng& r, cuprim::device_buffer<T>& d) {
    std::vector<T> h = random_vector<T>(r, d.size());
    add(d.data(), h);
    return h;
  }
  template <class T>
  std::vector<T> random(rng& r, cuprim::device_buffer<T>& d, double lo, double hi) {
    std::vector<T> h = random_vector<T>(r, d.size(), lo, hi);
    add(d.data(), h);
    return h;
  }

  /// Uploads every staged array on `stream`.
  ::testing::AssertionResult enqueue(cudaStream_t stream) {
    for (item& i : items_) {
      const cudaError_t e = cudaMemcpyAsync(i.device, i.pinned.data(), i.bytes, cudaMemcpyHostToDevice, stream);
      if (e != cudaSuccess) return ::testing::AssertionFailure() << "staged upload: " << cudaGetErrorName(e);
    }
    return ::testing::AssertionSuccess();
  }

private:
  struct item {
    void* device;
    cuprim::pinned_buffer<std::byte> pinned;
    std::size_t bytes;
  };
  std::vector<item> items_;
};

/// The fixture of the asynchrony tests: a graph_test (non-blocking stream, buffers on it) with expect_async.
class async_test : public graph_test {
protected:
  /// Checks that `entry` (the entry point's name, for the messages) returns before the work queued ahead of it on
  /// the stream has finished, and that its work is done right behind it (see the top of this file):
  ///   stage(uploads)   draws fresh inputs and stages them (uploads.random / uploads.add), poisons the outputs and
  ///                    any workspace (stream-ordered), and keeps what verify needs;
  ///   call(stream)     calls the entry point;
  ///   verify()         compares the outputs with the host reference for the inputs of the last stage.
  /// Runs once ungated (warm-up), then behind the gate.
  /// Skips the test (callers stop on IsSkipped()) where kernel launches wait for the kernel.
  template <class Stage, class Call, class Verify>
  void expect_async(const std::string& entry, Stage&& stage, Call&& call, Verify&& verify) {
    if (!launches_return_early(stream_))
      GTEST_SKIP() << "kernel launches wait for their kernels here (compute-sanitizer, CUDA_LAUNCH_BLOCKING=1): "
                   << "whether " << entry << " waits for its stream cannot be observed";
    for (const bool gated : {false, true}) {
      SCOPED_TRACE(entry + (gated ? ", behind the gate" : ", ungated warm-up"));
      staged_uploads uploads;
      stage(uploads);
      if (::testing::Test::HasFatalFailure()) return;
      std::string thrown;
      double call_seconds = 0;
      {
        stream_gate gate;
        if (gated) ASSERT_TRUE(gate.open(stream_)) << entry;
        ASSERT_TRUE(uploads.enqueue(stream_)) << entry;
        const auto start = std::chrono::steady_clock::now();
        try {
          call(stream_);
        } catch (const std::exception& x) {
          thrown = x.what();
        }
        call_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        gate.release();  // only now: the call has returned
        ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess) << entry;
        if (gated) {
          const gate_outcome o = gate.outcome();
          const double timeout_s = double(gate_timeout_ms()) / 1000.0;
          if (o == gate_timed_out && call_seconds < 0.5 * timeout_s) {
            ADD_FAILURE() << "the gate timed out although " << entry << " returned after " << call_seconds
                          << " s: the gate did not see the host's release (a fault of the test, not of the call)";
          } else {
            EXPECT_EQ(o, gate_released)
                << entry << " waited for its stream: it returned after " << call_seconds
                << " s, once the gate queued ahead of it had timed out (" << timeout_s
                << " s on the device), instead of returning while the gate still held the stream"
                << " (gate outcome " << int(o) << ": 2 released by the host, 3 timed out)";
          }
        }
      }
      ASSERT_TRUE(thrown.empty()) << entry << " threw: " << thrown;
      verify();
      if (::testing::Test::HasFatalFailure()) return;
    }
  }

  /// For each n of `sizes`: expect_async of device(in, out, n, ws, stream), where in and out hold n elements of T
  /// and ws holds ws_bytes(n) bytes (give the allocating overloads a sizer of 0 and let device ignore ws), with
  /// the values fill(uploads, in) staged for the input (and returned) checked against host(in, out, n).
  template <class T, class Sizer, class Fill, class Device, class Host>
  void expect_async_n_outputs(const std::string& entry, std::span<const std::int64_t> sizes, Sizer ws_bytes,
                              Fill fill, Device device, Host host) {
    for (std::int64_t n : sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      auto in = buffer<T>(n);
      auto out = buffer<T>(n);
      graph_workspace ws(ws_bytes(n), stream_);
      std::vector<T> h, want(n);
      expect_async(
          entry,
          [&](staged_uploads& up) {
            h = fill(up, in);
            out.fill_bytes(poison_byte);
            ws.poison();
          },
          [&](cudaStream_t s) { device(in.data(), out.data(), n, ws.get(), s); },
          [&] {
            host(h.data(), want.data(), n);
            expect_prefix(download(out.data(), std::size_t(n)), want, std::size_t(n));
          });
      if (::testing::Test::HasFatalFailure() || ::testing::Test::IsSkipped()) return;
    }
  }
};

/// The sizer of the allocating overloads: no workspace of the caller's.
inline std::size_t no_workspace(std::int64_t) { return 0; }

}  // namespace cuprim_test
