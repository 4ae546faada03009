// A study program (not built by CMake): nvcc -std=c++20 -arch=sm_90a -O3 -I include
// bench/studies/multi/nccl_memory.cu -lnccl -o nccl_memory   (-I/-L the NCCL in use; run with NCCL_NVLS_ENABLE=0)
//
// Does the memory a buffer comes from change NCCL's rate? cuprim::multi's operations receive into workspace from
// cuprim's pool (cudaMallocFromPoolAsync from a pool of cudaMemPoolCreate), the lab's collective rows into plain
// cudaMalloc memory. One process drives the first P GPUs (ncclCommInitAll); for P = 2 and 4 it times, per buffer
// kind, the all-to-all (grouped ncclSend/ncclRecv, 1/P of each rank's buffer to every rank, itself included) and
// the all-gather, both of 256 MiB per rank (each rank's send buffer for the all-to-all, its output for the
// all-gather), and the all-gather on communicators split with at most C CTAs per kernel (ncclConfig_t::maxCTAs),
// the rate multi::gemm's gathers get beside a product. Buffer kinds:
//   malloc   cudaMalloc
//   pool     a pool of cudaMemPoolCreate (cuprim's default resource), no peer access
//   pool+p   the same pool with read/write access granted to the other GPUs (cudaMemPoolSetAccess)
// Timing: every stream idle, one event per rank before and after, the slowest rank's time, the median of 15 after
// 3 warm-up calls.
#include "nccl_study.hpp"

#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>


struct rank_state {
  int device;
  ncclComm_t comm;
  cudaStream_t stream;
  cudaMemPool_t pool;
  char *send = nullptr, *recv = nullptr;
};

double time_call(std::vector<rank_state>& R, const std::function<void()>& call) {
  const int P = int(R.size());
  std::vector<cudaEvent_t> a(P), b(P);
  for (int i = 0; i < P; ++i) {
    CK(cudaSetDevice(R[i].device));
    CK(cudaEventCreate(&a[i]));
    CK(cudaEventCreate(&b[i]));
  }
  const auto sync = [&] {
    for (int i = 0; i < P; ++i) {
      CK(cudaSetDevice(R[i].device));
      CK(cudaStreamSynchronize(R[i].stream));
    }
  };
  std::vector<double> t;
  for (int rep = 0; rep < 18; ++rep) {
    sync();
    for (int i = 0; i < P; ++i) {
      CK(cudaSetDevice(R[i].device));
      CK(cudaEventRecord(a[i], R[i].stream));
    }
    call();
    for (int i = 0; i < P; ++i) {
      CK(cudaSetDevice(R[i].device));
      CK(cudaEventRecord(b[i], R[i].stream));
    }
    sync();
    double worst = 0;
    for (int i = 0; i < P; ++i) {
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a[i], b[i]));
      worst = std::max(worst, double(ms));
    }
    if (rep >= 3) t.push_back(worst);
  }
  for (int i = 0; i < P; ++i) {
    CK(cudaSetDevice(R[i].device));
    CK(cudaEventDestroy(a[i]));
    CK(cudaEventDestroy(b[i]));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void all_to_all(std::vector<rank_state>& R, const std::vector<ncclComm_t>& comms, std::size_t bytes,
                bool self = true) {
  const int P = int(R.size());
  const std::size_t piece = bytes / std::size_t(P);
  NK(ncclGroupStart());
  for (int i = 0; i < P; ++i)
    for (int q = 0; q < P; ++q) {
      if (!self && q == i) continue;
      NK(ncclSend(R[i].send + q * piece, piece, ncclUint8, q, comms[i], R[i].stream));
      NK(ncclRecv(R[i].recv + q * piece, piece, ncclUint8, q, comms[i], R[i].stream));
    }
  NK(ncclGroupEnd());
}

void all_gather(std::vector<rank_state>& R, const std::vector<ncclComm_t>& comms, std::size_t bytes) {
  const int P = int(R.size());
  NK(ncclGroupStart());
  for (int i = 0; i < P; ++i)
    NK(ncclAllGather(R[i].send, R[i].recv, bytes / std::size_t(P), ncclUint8, comms[i], R[i].stream));
  NK(ncclGroupEnd());
}

std::vector<ncclComm_t> split(std::vector<rank_state>& R, int ctas) {
  std::vector<ncclComm_t> out(R.size());
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.maxCTAs = ctas;
  config.minCTAs = 1;
  NK(ncclGroupStart());
  for (std::size_t i = 0; i < R.size(); ++i) {
    CK(cudaSetDevice(R[i].device));
    NK(ncclCommSplit(R[i].comm, 0, int(i), &out[i], &config));
  }
  NK(ncclGroupEnd());
  return out;
}

int main() {
  const int count = print_setup("");
  const std::size_t bytes = std::size_t(256) << 20;
  for (int P : {2, 4}) {
    if (P > count) break;
    const std::vector<ncclComm_t> comms = first_devices_comms(P);
    std::vector<rank_state> R(P);
    for (int i = 0; i < P; ++i) {
      R[i].device = i;
      R[i].comm = comms[i];
      CK(cudaSetDevice(i));
      CK(cudaStreamCreateWithFlags(&R[i].stream, cudaStreamNonBlocking));
      cudaMemPoolProps props{};
      props.allocType = cudaMemAllocationTypePinned;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = i;
      CK(cudaMemPoolCreate(&R[i].pool, &props));
    }
    for (const std::string kind : {"malloc", "pool", "pool+p"}) {
      for (int i = 0; i < P; ++i) {
        CK(cudaSetDevice(i));
        if (kind == "malloc") {
          CK(cudaMalloc(&R[i].send, bytes));
          CK(cudaMalloc(&R[i].recv, bytes));
        } else {
          if (kind == "pool+p")
            for (int q = 0; q < P; ++q) {
              if (q == i) continue;
              cudaMemAccessDesc d{};
              d.location.type = cudaMemLocationTypeDevice;
              d.location.id = q;
              d.flags = cudaMemAccessFlagsProtReadWrite;
              CK(cudaMemPoolSetAccess(R[i].pool, &d, 1));
            }
          CK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&R[i].send), bytes, R[i].pool, R[i].stream));
          CK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&R[i].recv), bytes, R[i].pool, R[i].stream));
        }
        CK(cudaMemsetAsync(R[i].send, 1, bytes, R[i].stream));
      }
      const double a2a = time_call(R, [&] { all_to_all(R, comms, bytes); });
      const double ag = time_call(R, [&] { all_gather(R, comms, bytes); });
      std::printf("P=%d %-7s all-to-all 256MiB %.4f ms (%.1f GB/s algbw)   all-gather 256MiB %.4f ms (%.1f GB/s)\n", P,
                  kind.c_str(), a2a, bytes / a2a / 1e6, ag, bytes / ag / 1e6);
      if (kind == "malloc") {  // the radix sort's exchange: no piece to itself, pieces of 1/P of 2 GiB
        for (int i = 0; i < P; ++i) {
          CK(cudaSetDevice(i));
          CK(cudaFree(R[i].send));
          CK(cudaFree(R[i].recv));
          CK(cudaMalloc(&R[i].send, 8 * bytes));
          CK(cudaMalloc(&R[i].recv, 8 * bytes));
        }
        const double big = time_call(R, [&] { all_to_all(R, comms, 8 * bytes); });
        const double cross = time_call(R, [&] { all_to_all(R, comms, 8 * bytes, false); });
        std::printf("P=%d malloc  all-to-all 2GiB %.4f ms (%.1f GB/s algbw); without the piece to itself %.4f ms "
                    "(%.1f GB/s of what crosses)\n", P, big, 8 * bytes / big / 1e6, cross,
                    8 * bytes * (P - 1) / P / cross / 1e6);
      }
      if (kind == "malloc")
        for (int ctas : {2, 4, 8, 16}) {
          std::vector<ncclComm_t> side = split(R, ctas);
          const double s = time_call(R, [&] { all_gather(R, side, bytes); });
          const double s2 = time_call(R, [&] { all_to_all(R, side, bytes); });
          std::printf("P=%d malloc  maxCTAs %2d: all-gather 256MiB %.4f ms (%.1f GB/s), all-to-all %.4f ms (%.1f GB/s)\n",
                      P, ctas, s, bytes / s / 1e6, s2, bytes / s2 / 1e6);
          for (ncclComm_t c : side) NK(ncclCommDestroy(c));
        }
      for (int i = 0; i < P; ++i) {
        CK(cudaSetDevice(i));
        CK(cudaStreamSynchronize(R[i].stream));
        if (kind == "malloc") {
          CK(cudaFree(R[i].send));
          CK(cudaFree(R[i].recv));
        } else {
          CK(cudaFreeAsync(R[i].send, R[i].stream));
          CK(cudaFreeAsync(R[i].recv, R[i].stream));
          CK(cudaStreamSynchronize(R[i].stream));
        }
      }
    }
    for (int i = 0; i < P; ++i) {
      CK(cudaSetDevice(i));
      NK(ncclCommDestroy(comms[i]));
      CK(cudaMemPoolDestroy(R[i].pool));
      CK(cudaStreamDestroy(R[i].stream));
    }
  }
  return 0;
}
