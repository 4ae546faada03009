// bench/sort/arch/passes.cu: where the packed pairs sort's time goes (docs/tuning.md, "Radix sort", run 16).
// Build (from the repository root; not part of the CMake build): bash bench/sort/arch/build.sh passes [dir]
// Run: passes t   2^27 uint32 + uint32 pairs sorted by bits [0, 8 b) for b = 1..4 (b passes), under the default
//                 policy (packed from two passes on) and joint, beside 2^27 uint64 keys sorted by bits
//                 [64 - 8 b, 64) (the packed passes' shape), median of 21 each; the per-pass cost is the step from
//                 b to b + 1.
//      passes p   one packed pairs sort and one uint64 bits [32, 64) sort, for ncu's per-kernel figures.
#include "sweep_common.cuh"

namespace {
using joint_policy = sweep_policy<256, 44, true, true, 0, 2, 1, 1, false, 0>;  // the default before run 15

template <class P>
float pairs_ms(sweep_data& d, int end_bit, bool timing) {
  const std::uint64_t m = sweep_n;
  const std::size_t wsb = cuprim::radix_sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t, P>(std::int64_t(m));
  void* ws; CK(cudaMalloc(&ws, wsb));
  cuprim::radix_sort_options o;
  o.end_bit = end_bit;
  auto a = [&] { cuprim::radix_sort_pairs<P>(d.u, d.o, d.v, d.vo, std::int64_t(m), cuprim::workspace{ws, wsb}, o); };
  float ms = 0;
  if (timing) ms = med(a, 21);
  else { a(); CK(cudaDeviceSynchronize()); }
  CK(cudaFree(ws));
  return ms;
}

float u64_ms(sweep_data& d, int begin_bit, bool timing) {
  const std::uint64_t m = sweep_n;
  const std::size_t wsb = cuprim::radix_sort_keys_workspace_bytes<std::uint64_t>(std::int64_t(m));
  void* ws; CK(cudaMalloc(&ws, wsb));
  cuprim::radix_sort_options o;
  o.begin_bit = begin_bit;
  auto a = [&] { cuprim::radix_sort_keys(d.k64, d.o64, std::int64_t(m), cuprim::workspace{ws, wsb}, o); };
  float ms = 0;
  if (timing) ms = med(a, 21);
  else { a(); CK(cudaDeviceSynchronize()); }
  CK(cudaFree(ws));
  return ms;
}
}  // namespace

void rows_a(sweep_data&) {}
void rows_b(sweep_data&) {}
void rows_c(sweep_data&) {}
void rows_d(sweep_data&) {}
void rows_e(sweep_data&) {}
void rows_f(sweep_data&) {}
void rows_g(sweep_data&) {}
void rows_h(sweep_data&) {}

int main(int argc, char** argv) {
  const bool timing = !(argc > 1 && argv[1][0] == 'p');
  sweep_data d{};
  const std::uint64_t m = sweep_n;
  for (auto** p : {&d.u, &d.o, &d.v, &d.vo}) CK(cudaMalloc(p, m * 4));
  for (auto** p : {&d.k64, &d.o64}) CK(cudaMalloc(p, m * 8));
  fill_u<<<1024, 256>>>(d.u, m, 777u); fill_u<<<1024, 256>>>(d.v, m, 999u);
  to_u64<<<1024, 256>>>(d.u, d.k64, m); CK(cudaDeviceSynchronize());
  if (!timing) {
    pairs_ms<void>(d, 32, false);
    u64_ms(d, 32, false);
    printf("profiled: packed pairs, uint64 bits [32, 64)\n");
    return 0;
  }
  std::size_t b = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, b, d.u, d.o, d.v, d.vo, int(m));
  void* w; CK(cudaMalloc(&w, b));
  printf("cub pairs %.4f ms\n", med([&] { cub::DeviceRadixSort::SortPairs(w, b, d.u, d.o, d.v, d.vo, int(m)); }, 21));
  CK(cudaFree(w));
  // Signed keys (the packing pass applies their xor after its ranking): the same sort of the same bits as int32.
  printf("int32 pairs, 4 passes: %.4f ms\n",
         [&] {
           const std::size_t wsb =
               cuprim::radix_sort_pairs_workspace_bytes<std::int32_t, std::uint32_t>(std::int64_t(m));
           void* ws; CK(cudaMalloc(&ws, wsb));
           const float ms = med([&] {
             cuprim::radix_sort_pairs(reinterpret_cast<const std::int32_t*>(d.u), reinterpret_cast<std::int32_t*>(d.o),
                                      d.v, d.vo, std::int64_t(m), cuprim::workspace{ws, wsb});
           }, 21);
           CK(cudaFree(ws));
           return ms;
         }());
  // argsort (uint32 keys, uint32 indices): packed (the default) and not (Pack 0).
  auto argsort_ms = [&]<class P>() {
    const std::size_t wsb = cuprim::argsort_workspace_bytes<std::uint32_t, std::uint32_t, P>(std::int64_t(m));
    void* ws; CK(cudaMalloc(&ws, wsb));
    const float ms = med([&] { cuprim::argsort<P>(d.u, d.vo, std::int64_t(m), cuprim::workspace{ws, wsb}); }, 21);
    CK(cudaFree(ws));
    return ms;
  };
  printf("argsort uint32 -> uint32 indices: packed %.4f ms, joint %.4f ms\n", argsort_ms.operator()<void>(),
         argsort_ms.operator()<joint_policy>());
  for (int round = 0; round < 2; ++round)
    for (int passes = 1; passes <= 4; ++passes)
      printf("round %d passes %d: packed pairs %.4f ms, joint pairs %.4f ms, uint64 %.4f ms\n", round, passes,
             pairs_ms<void>(d, 8 * passes, true),
             pairs_ms<joint_policy>(d, 8 * passes, true), u64_ms(d, 64 - 8 * passes, true));
  return 0;
}
