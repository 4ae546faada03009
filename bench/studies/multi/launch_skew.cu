// A study program (not built by CMake): nvcc -std=c++20 -arch=sm_90a -O3 --extended-lambda -I include
// bench/studies/multi/launch_skew.cu <build>/src/libcuprim_multi.a <build>/src/libcuprim.a -lnccl -o launch_skew
// (-I/-L the NCCL in use; run with NCCL_NVLS_ENABLE=0)
//
// Where does a short multi-GPU call lose its time when one thread drives P GPUs? multi::sum and
// multi::histogram_even of 2^31 floats are timed as the lab times them (every stream idle, an event per rank
// before and after, the slowest rank's elapsed time, the median of 40 after 5 warm-up calls), and again behind a
// gate: every rank's stream first runs a kernel that spins on a flag in host memory, the call is queued behind
// it, and the host then opens the gate, so every rank starts at the same moment and the host's launch time is
// hidden (the GPU's own time). Beside them, the host time of each step of multi::sum's sequence, rebuilt here
// step by step: the events, the workspace allocation, each rank's local reduce (pool workspace or the caller's),
// the grouped all-gather and the folds.
#include "nccl_study.hpp"
#include "rank_timing.hpp"

#include <cuprim/multi.cuh>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace cm = cuprim::multi;
using clk = std::chrono::steady_clock;

__global__ void fill(float* x, long long n, unsigned seed) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x)
    x[i] = float((unsigned(i) * 2654435761u + seed) % 1000u) * 1e-3f;
}

int main() {
  const int count = print_setup(", multi::sum / histogram_even of 2^31 floats");
  const long long n = 1ll << 31;
  int* flag_h = nullptr;
  int* flag_d = nullptr;
  CK(cudaHostAlloc(&flag_h, 64, cudaHostAllocMapped | cudaHostAllocPortable));
  CK(cudaHostGetDevicePointer(&flag_d, flag_h, 0));
  for (int P : {1, 2, 4}) {
    if (P > count) break;
    std::vector<int> devs;
    for (int i = 0; i < P; ++i) devs.push_back(i);
    auto c = cm::communicator::local(devs);
    cm::sharded_buffer<float> in(c, n / P);
    cm::sharded_buffer<float> out(c, 1);
    cm::sharded_buffer<unsigned> hist(c, 256);
    for (int i = 0; i < P; ++i) {
      cm::device_guard g(c[i].device);
      fill<<<1024, 256, 0, c[i].stream>>>(in.data(i), n / P, unsigned(i));
    }
    c.synchronize();
    auto sum = [&] { cm::sum(c, in.view(), out.view()); };
    auto histo = [&] { cm::histogram_even(c, in.view(), hist.view(), 256, 0.0f, 1.0f); };
    std::printf("P=%d  sum: %.4f ms (gated %.4f)  histogram_even 256: %.4f ms (gated %.4f)\n", P,
                time_ranks(c, sum), time_ranks(c, sum, flag_h, flag_d),
                time_ranks(c, histo), time_ranks(c, histo, flag_h, flag_d));

    // multi::sum's steps rebuilt, each step's host time (µs), the GPUs idle before each call.
    using partial = cm::detail::partial<float>;
    for (int explicit_ws = 0; explicit_ws < 2; ++explicit_ws) {
      std::vector<std::vector<double>> steps(4 + P);
      for (int r = 0; r < 45; ++r) {
        c.synchronize();
        auto t0 = clk::now();
        auto us = [](clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::micro>(b - a).count(); };
        const std::size_t ws_bytes = cuprim::reduce_workspace_bytes<float>(n / P);
        const std::int64_t bytes = std::int64_t((P + 1) * sizeof(partial) + 256 + (explicit_ws ? ws_bytes : 0));
        cm::sharded_buffer<std::byte> buf(c, bytes);
        auto t1 = clk::now();
        std::vector<double> per_rank;
        auto tr = t1;
        for (int i = 0; i < P; ++i) {
          cm::device_guard g(c[i].device);
          auto* g_i = reinterpret_cast<partial*>(buf.data(i));
          if (explicit_ws)
            cuprim::reduce(in.data(i), &g_i[c[i].rank].value, n / P, cuprim::plus{}, 0.0f,
                           cuprim::workspace{buf.data(i) + ((P + 1) * sizeof(partial) + 255) / 256 * 256, ws_bytes},
                           c[i].stream);
          else
            cuprim::reduce(in.data(i), &g_i[c[i].rank].value, n / P, cuprim::plus{}, 0.0f, c[i].stream);
          auto tn = clk::now();
          per_rank.push_back(us(tr, tn));
          tr = tn;
        }
        cm::detail::each_rank_grouped(c, [&](const cm::local_rank& l, int i) {
          auto* g_i = reinterpret_cast<partial*>(buf.data(i));
          NK(ncclAllGather(g_i + l.rank, g_i, sizeof(partial), ncclUint8, l.comm, l.stream));
        });
        auto t2 = clk::now();
        cm::detail::each_rank(c, [&](const cm::local_rank& l, int i) {
          auto* g_i = reinterpret_cast<partial*>(buf.data(i));
          cm::detail::fold_partials_kernel<true><<<1, 1, 0, l.stream>>>(g_i, P, cuprim::plus{}, 0.0f, 1, g_i + P);
        });
        auto t3 = clk::now();
        if (r < 5) continue;
        steps[0].push_back(us(t0, t1));
        for (int i = 0; i < P; ++i) steps[1 + i].push_back(per_rank[i]);
        steps[1 + P].push_back(us(t1, tr) > 0 ? us(tr, t2) : 0);
        steps[2 + P].push_back(us(t2, t3));
        steps[3 + P].push_back(us(t0, t3));
      }
      std::printf("  steps (host us, %s workspace): alloc %.1f", explicit_ws ? "caller's" : "pool", median(steps[0]));
      for (int i = 0; i < P; ++i) std::printf(" | reduce r%d %.1f", i, median(steps[1 + i]));
      std::printf(" | all-gather %.1f | folds %.1f | total %.1f\n", median(steps[1 + P]), median(steps[2 + P]),
                  median(steps[3 + P]));
    }
    // The histogram's local step alone, per rank (host us).
    {
      std::vector<std::vector<double>> per(P);
      for (int r = 0; r < 45; ++r) {
        c.synchronize();
        for (int i = 0; i < P; ++i) {
          auto t0 = clk::now();
          cm::device_guard g(c[i].device);
          cuprim::histogram_even(in.data(i), n / P, hist.data(i), 256, 0.0f, 1.0f, c[i].stream);
          if (r >= 5) per[i].push_back(std::chrono::duration<double, std::micro>(clk::now() - t0).count());
        }
      }
      std::printf("  histogram_even local launch (host us):");
      for (int i = 0; i < P; ++i) std::printf(" r%d %.1f", i, median(per[i]));
      std::printf("\n");
    }
    c.synchronize();
  }
  return 0;
}
