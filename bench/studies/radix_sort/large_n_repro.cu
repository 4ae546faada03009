// Reproducer of an open defect: radix sorts of 4-byte keys return wrong results near n = 2^29 (found by
// tests/device/radix_sort_paths_test.cu, RadixSortPortions.PackedPairsOver2e29). Stand-alone: sorts n uint32
// keys (2^20 distinct values) with their positions as values, and checks on the device that the values are a
// permutation, each key is its position's input key, and the output is the stable order.
//
//   nvcc -std=c++20 --extended-lambda --expt-relaxed-constexpr -O2 -arch=sm_90 -I include \
//        bench/studies/radix_sort/large_n_repro.cu src/error.cpp src/device.cpp src/memory.cpp -o repro && ./repro
//
// H100, 2026-11-26, this tree and 64b20de's alike: every mode correct at n = 420, 460 and 490 x 2^20; at
// n = 2^29 - 4096 (one portion) pairs ~12,700 repeated values and ~11,800 misordered positions, keys + argsort
// and a 3-pass sort (end_bit 24) wrong too, and the counts change from run to run; 2^29 + 12345 (two portions)
// and 2^29 + 2^27 wrong as well. Modes: 0 pairs, 1 keys then argsort, 2 pairs of 24-bit keys with end_bit 24,
// 3 pairs again.
#include <cuprim/device/radix_sort.cuh>
#include <cstdio>
#include <cstdint>
#include <vector>

__global__ void make(std::uint32_t* k, std::uint32_t* v, std::uint64_t n, std::uint32_t mask) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint64_t x = i * 0x9E3779B97F4A7C15ull; x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ull; x ^= x >> 32;
    k[i] = (std::uint32_t(x & 0xFFFFF) * 4099u) & mask; v[i] = std::uint32_t(i);
  }
}
__global__ void check(const std::uint32_t* kin, const std::uint32_t* kout, const std::uint32_t* idx, std::uint64_t n,
                      unsigned* seen, unsigned long long* c) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t v = idx[i]; const unsigned bit = 1u << (v % 32);
    if (v >= n || (atomicOr(&seen[v / 32], bit) & bit)) atomicAdd(&c[0], 1ull);
    else if (kout[i] != kin[v]) atomicAdd(&c[1], 1ull);
    if (i > 0) { std::uint32_t a = kout[i-1], b = kout[i]; if (!(a < b) && !(a == b && idx[i-1] < v)) { atomicAdd(&c[2], 1ull); atomicMin(&c[3], (unsigned long long)i); } }
  }
}
int main() {
  for (std::uint64_t n : {std::uint64_t(420) << 20, std::uint64_t(460) << 20, std::uint64_t(490) << 20, (std::uint64_t(1) << 29) - 4096,
                          (std::uint64_t(1) << 29) + 12345}) {
   for (int mode = 0; mode < 4; ++mode) {
    std::uint32_t *kin, *kout, *vin, *vout; unsigned* seen; unsigned long long* c;
    cudaMalloc(&kin, n * 4); cudaMalloc(&kout, n * 4); cudaMalloc(&vin, n * 4); cudaMalloc(&vout, n * 4);
    cudaMalloc(&seen, (n / 32 + 1) * 4); cudaMalloc(&c, 32);
    make<<<1024, 256>>>(kin, vin, n, mode == 2 ? 0xFFFFFFu : ~0u);
    cudaMemset(kout, 0xab, n * 4); cudaMemset(vout, 0xab, n * 4);
    if (mode == 0) cuprim::radix_sort_pairs(kin, kout, vin, vout, std::int64_t(n));
    else if (mode == 1) { cuprim::radix_sort_keys(kin, kout, std::int64_t(n)); cuprim::argsort(kin, vout, std::int64_t(n)); }
    else if (mode == 2) { cuprim::radix_sort_options o; o.end_bit = 24; cuprim::radix_sort_pairs(kin, kout, vin, vout, std::int64_t(n), o); }
    else { cuprim::radix_sort_pairs(kin, kout, vin, vout, std::int64_t(n)); }
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemset(seen, 0, (n / 32 + 1) * 4);
    unsigned long long h[4] = {0, 0, 0, ~0ull}; cudaMemcpy(c, h, 32, cudaMemcpyHostToDevice);
    check<<<1024, 256>>>(kin, kout, vout, n, seen, c);
    cudaMemcpy(h, c, 32, cudaMemcpyDeviceToHost);
    std::printf("%s n=%llu err=%s bad_value=%llu bad_key=%llu bad_order=%llu first_order=%llu\n", mode == 0 ? "pairs" : mode == 1 ? "keys+argsort" : mode == 2 ? "pairs end_bit 24 (3 passes)" : "pairs again", (unsigned long long)n,
                cudaGetErrorString(e), h[0], h[1], h[2], h[3]);
    cudaFree(kin); cudaFree(kout); cudaFree(vin); cudaFree(vout); cudaFree(seen); cudaFree(c);
  }}
}
