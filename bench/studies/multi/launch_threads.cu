// A study program (not built by CMake): nvcc -std=c++20 -arch=sm_90a -O3 --extended-lambda --expt-relaxed-constexpr
// -I include bench/studies/multi/launch_threads.cu <build>/libcuprim_multi.a <build>/libcuprim.a -lnccl -o
// launch_threads   (-I/-L the NCCL in use; run with NCCL_NVLS_ENABLE=0)
//
// Would launching each rank's local work from its own host thread remove the launch skew of one thread driving P
// GPUs (launch_skew.cu: 59 µs of a 0.549 ms 4-GPU sum of 2^31 floats)? The sum of multi::sum is rebuilt three ways
// and timed as the lab times a call (every stream idle, an event per rank before and after, the slowest rank's
// elapsed time, the median of 40 after 5 warm-up calls):
//   library    cuprim::multi::sum itself;
//   one thread its steps with the workspace made before the call (not timed), the local reduces (explicit
//              workspace) launched rank after rank, then the grouped all-gather and the folds;
//   threads    the same, but rank i's local reduce launched by a worker thread of its own (ranks 1 .. P-1; rank 0 by
//              the caller), the workers spinning on a shared counter between calls, the caller waiting for their
//              launches before the all-gather and the folds (NCCL is called from the caller's thread only).
// Every form's result is checked against the library's, bit for bit.
#include "nccl_study.hpp"
#include "rank_timing.hpp"

#include <cuprim/multi.cuh>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

namespace cm = cuprim::multi;
using partial = cm::detail::partial<float>;

namespace {

__global__ void fill(float* x, long long n, unsigned seed) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x)
    x[i] = float((unsigned(i) * 2654435761u + seed) % 1000u) * 1e-3f;
}

/// Workers for ranks 1 .. P-1: each sets its device once, then spins on `generation` and runs task(i) once per new
/// generation, counting itself into `done`.
struct workers {
  std::atomic<long> generation{0};
  std::atomic<int> done{0};
  std::atomic<bool> stop{false};
  std::function<void(int)> task;
  std::vector<std::thread> threads;
  workers(const cm::communicator& c) {
    for (int i = 1; i < c.local_size(); ++i)
      threads.emplace_back([this, i, dev = c[i].device] {
        CK(cudaSetDevice(dev));
        long seen = 0;
        while (!stop.load(std::memory_order_acquire)) {
          const long g = generation.load(std::memory_order_acquire);
          if (g == seen) {
            __builtin_ia32_pause();
            continue;
          }
          seen = g;
          task(i);
          done.fetch_add(1, std::memory_order_acq_rel);
        }
      });
  }
  /// Runs task(0) here and task(i) on worker i, returns when every task has returned (launched, not finished).
  void run_all(int P) {
    done.store(0, std::memory_order_relaxed);
    generation.fetch_add(1, std::memory_order_acq_rel);
    task(0);
    while (done.load(std::memory_order_acquire) < P - 1) __builtin_ia32_pause();
  }
  ~workers() {
    stop.store(true, std::memory_order_release);
    for (auto& t : threads) t.join();
  }
};

}  // namespace

int main() {
  const int count = print_setup(", multi::sum of 2^31 floats: one launching thread or one per rank");
  const long long n = 1ll << 31;
  for (int P : {2, 4}) {
    if (P > count) break;
    std::vector<int> devs;
    for (int i = 0; i < P; ++i) devs.push_back(i);
    auto c = cm::communicator::local(devs);
    cm::sharded_buffer<float> in(c, n / P), out(c, 1);
    for (int i = 0; i < P; ++i) {
      cm::device_guard g(c[i].device);
      fill<<<1024, 256, 0, c[i].stream>>>(in.data(i), n / P, unsigned(i));
    }
    // The workspace of the rebuilt forms, made once: P + 1 partials, then the local reduce's workspace.
    const std::size_t head = ((P + 1) * sizeof(partial) + 255) / 256 * 256;
    std::size_t ws_bytes = 0;
    {
      cm::device_guard g(c[0].device);
      ws_bytes = cuprim::reduce_workspace_bytes<float>(n / P);
    }
    cm::sharded_buffer<std::byte> buf(c, std::int64_t(head + ws_bytes));
    const auto local = [&](int i) {  // rank i's local reduce, its device current
      auto* g_i = reinterpret_cast<partial*>(buf.data(i));
      cuprim::reduce(in.data(i), &g_i[c[i].rank].value, n / P, cuprim::plus{}, 0.0f,
                     cuprim::workspace{buf.data(i) + head, ws_bytes}, c[i].stream);
    };
    const auto finish = [&] {  // the all-gather and the folds, from this thread
      cm::detail::each_rank_grouped(c, [&](const cm::local_rank& l, int i) {
        auto* g_i = reinterpret_cast<partial*>(buf.data(i));
        NK(ncclAllGather(g_i + l.rank, g_i, sizeof(partial), ncclUint8, l.comm, l.stream));
      });
      cm::detail::each_rank(c, [&](const cm::local_rank& l, int i) {
        auto* g_i = reinterpret_cast<partial*>(buf.data(i));
        cm::detail::fold_partials_kernel<true><<<1, 1, 0, l.stream>>>(g_i, P, cuprim::plus{}, 0.0f, 1, g_i + P);
      });
    };
    const auto library = [&] { cm::sum(c, in.view(), out.view()); };
    const auto one_thread = [&] {
      cm::detail::each_rank(c, [&](const cm::local_rank&, int i) { local(i); });
      finish();
    };
    // Results, bit for bit against the library's (rank 0's value); the rebuilt forms' workspace poisoned (NaN)
    // first, so that a rank whose reduce or fold did not run fails.
    float want = 0;
    library();
    c.synchronize();
    {
      cm::device_guard g(c[0].device);
      CK(cudaMemcpy(&want, out.data(0), sizeof(float), cudaMemcpyDeviceToHost));
    }
    const auto check = [&](const char* name, const std::function<void()>& form) {
      for (int i = 0; i < P; ++i) {
        cm::device_guard g(c[i].device);
        CK(cudaMemsetAsync(buf.data(i), 0xff, head, c[i].stream));  // ordered before the form on its stream
      }
      form();
      c.synchronize();
      for (int i = 0; i < P; ++i) {
        cm::device_guard g(c[i].device);
        partial got{};
        CK(cudaMemcpy(&got, reinterpret_cast<partial*>(buf.data(i)) + P, sizeof(partial), cudaMemcpyDeviceToHost));
        if (std::memcmp(&got.value, &want, sizeof(float)) != 0)
          std::printf("  %s: rank %d's sum %.9g differs from the library's %.9g\n", name, i, got.value, want);
      }
    };
    check("one thread", one_thread);
    const double t_library = time_ranks(c, library), t_one = time_ranks(c, one_thread);
    double t_threads = 0;
    {  // the workers exist (and spin) only while their form is checked and timed
      workers w(c);
      w.task = local;
      const auto threads = [&] {
        cm::device_guard g(c[0].device);
        w.run_all(P);
        finish();
      };
      check("threads", threads);
      t_threads = time_ranks(c, threads);
    }
    std::printf("P=%d  library %.4f ms | one thread, workspace made before %.4f ms | a thread per rank %.4f ms\n", P,
                t_library, t_one, t_threads);
    c.synchronize();
  }
  return 0;
}
