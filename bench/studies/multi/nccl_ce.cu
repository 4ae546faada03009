// A study program (not built by CMake): nvcc -std=c++20 -arch=sm_90a -O3 bench/studies/multi/nccl_ce.cu -lnccl
// -o nccl_ce   (-I/-L the NCCL in use, 2.28 or later; run with NCCL_NVLS_ENABLE=0)
//
// Can NCCL move data while a kernel holds every SM? multi::gemm gathers panels of B beside tensor-core products
// that fill the GPU, and NCCL's usual kernels then wait for SMs. NCCL 2.28 can drive NVLink transfers with the copy
// engines instead (communicators with NCCL_CTA_POLICY_ZERO, buffers from ncclMemAlloc registered as symmetric
// windows). For P = 2 and 4 GPUs of this process, pieces of 64 MiB per rank, it times:
//   allgather      ncclAllGather, default communicator, cudaMalloc buffers (the reference)
//   allgather/ce   ncclAllGather on a zero-CTA communicator, symmetric windows
//   gather*P/ce    P ncclGather (root j = 0 .. P-1: together an all-gather), same
//   alltoall/ce    ncclAlltoAll, same
// each alone, and beside a kernel that occupies every SM for 4 ms (launched first, on a stream of lower priority):
// a transfer that needs SMs ends after that kernel, one on the copy engines does not. Times: events on the
// transfer's stream (the slowest rank), median of 9 after 2 warm-ups.
#include "nccl_study.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>


/// Spins every block for `cycles` clocks: with one block per SM slot it holds the whole GPU.
__global__ void hold_sms(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

struct rank_state {
  int device;
  ncclComm_t base, zero;
  cudaStream_t xfer, busy;
  char *send = nullptr, *recv = nullptr;        // cudaMalloc
  char *wsend = nullptr, *wrecv = nullptr;      // ncclMemAlloc, registered on `zero`
  ncclWindow_t win_send = nullptr, win_recv = nullptr;
  int blocks = 0;
  long long cycles = 0;
};

double time_op(std::vector<rank_state>& R, bool beside, const std::function<void()>& op) {
  const int P = int(R.size());
  std::vector<cudaEvent_t> a(P), b(P);
  for (int i = 0; i < P; ++i) {
    CK(cudaSetDevice(R[i].device));
    CK(cudaEventCreate(&a[i]));
    CK(cudaEventCreate(&b[i]));
  }
  std::vector<double> t;
  for (int rep = 0; rep < 11; ++rep) {
    for (int i = 0; i < P; ++i) {
      CK(cudaSetDevice(R[i].device));
      CK(cudaDeviceSynchronize());
    }
    if (beside)
      for (int i = 0; i < P; ++i) {
        CK(cudaSetDevice(R[i].device));
        hold_sms<<<R[i].blocks, 32, 0, R[i].busy>>>(R[i].cycles);
        CK(cudaGetLastError());
      }
    for (int i = 0; i < P; ++i) {
      CK(cudaSetDevice(R[i].device));
      CK(cudaEventRecord(a[i], R[i].xfer));
    }
    op();
    for (int i = 0; i < P; ++i) {
      CK(cudaSetDevice(R[i].device));
      CK(cudaEventRecord(b[i], R[i].xfer));
    }
    double worst = 0;
    for (int i = 0; i < P; ++i) {
      CK(cudaSetDevice(R[i].device));
      CK(cudaEventSynchronize(b[i]));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a[i], b[i]));
      worst = std::max(worst, double(ms));
    }
    if (rep >= 2) t.push_back(worst);
  }
  for (int i = 0; i < P; ++i) {
    CK(cudaSetDevice(R[i].device));
    CK(cudaDeviceSynchronize());
    CK(cudaEventDestroy(a[i]));
    CK(cudaEventDestroy(b[i]));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  const int count = print_setup("; pieces of 64 MiB per rank; 'beside': a 4 ms kernel holds every SM");
  const std::size_t piece = std::size_t(64) << 20;
  for (int P : {2, 4}) {
    if (P > count) break;
    const std::vector<ncclComm_t> base = first_devices_comms(P);
    std::vector<rank_state> R(P);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.CTAPolicy = NCCL_CTA_POLICY_ZERO;
    NK(ncclGroupStart());
    for (int i = 0; i < P; ++i) {
      R[i].device = i;
      R[i].base = base[i];
      CK(cudaSetDevice(i));
      NK(ncclCommSplit(base[i], 0, i, &R[i].zero, &config));
    }
    NK(ncclGroupEnd());
    for (int i = 0; i < P; ++i) {
      CK(cudaSetDevice(i));
      int least = 0, greatest = 0;
      CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
      CK(cudaStreamCreateWithPriority(&R[i].xfer, cudaStreamNonBlocking, greatest));
      CK(cudaStreamCreateWithPriority(&R[i].busy, cudaStreamNonBlocking, least));
      cudaDeviceProp prop{};
      CK(cudaGetDeviceProperties(&prop, i));
      int per_sm = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, hold_sms, 32, 0));
      R[i].blocks = per_sm * prop.multiProcessorCount;
      int khz = 0;
      CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, i));
      R[i].cycles = 4LL * khz;  // 4 ms at the nominal clock
      CK(cudaMalloc(&R[i].send, piece * P));
      CK(cudaMalloc(&R[i].recv, piece * P));
      NK(ncclMemAlloc(reinterpret_cast<void**>(&R[i].wsend), piece * P));
      NK(ncclMemAlloc(reinterpret_cast<void**>(&R[i].wrecv), piece * P));
      CK(cudaMemset(R[i].send, 1, piece * P));
      CK(cudaMemset(R[i].wsend, 1, piece * P));
    }
    NK(ncclGroupStart());
    for (int i = 0; i < P; ++i) {
      CK(cudaSetDevice(i));
      NK(ncclCommWindowRegister(R[i].zero, R[i].wsend, piece * P, &R[i].win_send, NCCL_WIN_COLL_SYMMETRIC));
      NK(ncclCommWindowRegister(R[i].zero, R[i].wrecv, piece * P, &R[i].win_recv, NCCL_WIN_COLL_SYMMETRIC));
    }
    NK(ncclGroupEnd());
    const auto grouped = [&](const std::function<void(rank_state&)>& f) {
      NK(ncclGroupStart());
      for (int i = 0; i < P; ++i) {
        CK(cudaSetDevice(i));
        f(R[i]);
      }
      NK(ncclGroupEnd());
    };
    struct op_def {
      const char* name;
      std::function<void()> run;
    };
    const std::vector<op_def> ops = {
        {"allgather", [&] { grouped([&](rank_state& r) { NK(ncclAllGather(r.send, r.recv, piece, ncclUint8, r.base, r.xfer)); }); }},
        {"allgather/ce", [&] { grouped([&](rank_state& r) { NK(ncclAllGather(r.wsend, r.wrecv, piece, ncclUint8, r.zero, r.xfer)); }); }},
        {"gather*P/ce", [&] {
           grouped([&](rank_state& r) {
             for (int root = 0; root < P; ++root) NK(ncclGather(r.wsend, r.wrecv, piece, ncclUint8, root, r.zero, r.xfer));
           });
         }},
        {"alltoall/ce", [&] { grouped([&](rank_state& r) { NK(ncclAlltoAll(r.wsend, r.wrecv, piece, ncclUint8, r.zero, r.xfer)); }); }},
    };
    for (const op_def& o : ops) {
      const double alone = time_op(R, false, o.run), beside = time_op(R, true, o.run);
      std::printf("P=%d %-13s alone %.4f ms (%.1f GB/s received per rank)   beside the 4 ms kernel %.4f ms\n", P, o.name,
                  alone, double(piece) * (P - 1) / alone / 1e6, beside);
    }
    NK(ncclGroupStart());
    for (int i = 0; i < P; ++i) {
      CK(cudaSetDevice(i));
      NK(ncclCommWindowDeregister(R[i].zero, R[i].win_send));
      NK(ncclCommWindowDeregister(R[i].zero, R[i].win_recv));
    }
    NK(ncclGroupEnd());
    for (int i = 0; i < P; ++i) {
      CK(cudaSetDevice(i));
      NK(ncclMemFree(R[i].wsend));
      NK(ncclMemFree(R[i].wrecv));
      CK(cudaFree(R[i].send));
      CK(cudaFree(R[i].recv));
      NK(ncclCommDestroy(R[i].zero));
      NK(ncclCommDestroy(R[i].base));
    }
  }
  return 0;
}
