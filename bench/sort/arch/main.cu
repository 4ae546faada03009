#include "sweep_common.cuh"
/// sweep [rounds [held MiB]]: with held MiB, that much memory is allocated and kept before the sort's buffers, so
/// that they lie elsewhere in physical memory (docs/tuning.md, "Radix sort", runs 13-14).
int main(int argc, char** argv) {
  sweep_data d{};
  const std::uint64_t m = sweep_n;
  void* held = nullptr;
  if (argc > 2 && std::atoll(argv[2]) > 0) CK(cudaMalloc(&held, std::size_t(std::atoll(argv[2])) << 20));
  probe().init();
  for (auto** p : {&d.u, &d.o, &d.r, &d.v, &d.vo, &d.vr}) CK(cudaMalloc(p, m * 4));
  for (auto** p : {&d.k64, &d.o64, &d.r64}) CK(cudaMalloc(p, m * 8));
  fill_u<<<1024, 256>>>(d.u, m, 777u); fill_u<<<1024, 256>>>(d.v, m, 999u);
  to_u64<<<1024, 256>>>(d.v, d.k64, m); CK(cudaDeviceSynchronize());
  std::size_t b1 = 0, b2 = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, b1, d.u, d.r, d.v, d.vr, int(m));
  cub::DeviceRadixSort::SortKeys(nullptr, b2, d.k64, d.r64, int(m));
  std::size_t b3 = 0;
  cub::DeviceRadixSort::SortKeys(nullptr, b3, d.u, d.o, int(m));
  void *w1, *w2, *w3; CK(cudaMalloc(&w1, b1)); CK(cudaMalloc(&w2, b2)); CK(cudaMalloc(&w3, b3));
  auto cp = [&] { cub::DeviceRadixSort::SortPairs(w1, b1, d.u, d.r, d.v, d.vr, int(m)); };
  auto ck = [&] { cub::DeviceRadixSort::SortKeys(w2, b2, d.k64, d.r64, int(m)); };
  auto cu = [&] { cub::DeviceRadixSort::SortKeys(w3, b3, d.u, d.o, int(m)); };
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 2;
  for (int round = 0; round < rounds; ++round) {
    d.cub_pairs = med(cp, 21); d.cub_u64 = med(ck, 21); d.cub_u32 = med(cu, 21);
    printf("round %d: cub pairs %.4f ms, cub u64 keys %.4f ms, cub u32 keys %.4f ms\n", round, d.cub_pairs, d.cub_u64,
           d.cub_u32);
    printf("L2 probe (8 reads of 16 MiB) after itself %.1f us, after CUB's pairs sort %.1f us, after CUB's uint64 "
           "sort %.1f us\n", probe().after([] {}), probe().after(cp), probe().after(ck));
    rows_a(d); rows_b(d); rows_c(d); rows_d(d); rows_e(d); rows_f(d); rows_g(d); rows_h(d);
  }
  return 0;
}
