// bench/sort/arch/: a policy sweep for the machine at hand (the defaults were tuned on an H200; this asks whether
// another card wants other tiles). Each row: cuprim under policy P against CUB in the same process, outputs
// compared with CUB's. Not part of the CMake build: bench/sort/arch/build.sh builds the rows in parallel; run
// sweep [rounds]. The rows in rows_*.cu are the second H100 sweep of docs/tuning.md, "Radix sort", run 8.
#pragma once
#include <cuprim/device/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include "../ab_common.cuh"

/// The buffers every row uses: 2^27 uint32 keys and values (u, v), outputs (o, vo), CUB's (r, vr); 2^27 uint64 keys
/// (k64, o64, r64).
struct sweep_data {
  std::uint32_t *u, *o, *r, *v, *vo, *vr;
  std::uint64_t *k64, *o64, *r64;
  float cub_pairs, cub_u64;
};
constexpr std::uint64_t sweep_n = 1ull << 27;

template <int T, int I, bool EF, bool JX, int PF>
using sweep_policy = cuprim::radix_sort_policy<T, I, 512, 8, 16, 2, 1, false, true, 1024, 8, EF, JX, PF>;

template <int T, int I, bool EF, bool JX, int PF>
void pairs_row(sweep_data& d) {
  using P = sweep_policy<T, I, EF, JX, PF>;
  const std::uint64_t m = sweep_n;
  std::size_t wsb = cuprim::radix_sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t, P>(std::int64_t(m));
  void* ws; CK(cudaMalloc(&ws, wsb));
  CK(cudaMemset(d.o, 0xab, m * 4)); CK(cudaMemset(d.vo, 0xab, m * 4));
  auto a = [&] { cuprim::radix_sort_pairs<P>(d.u, d.o, d.v, d.vo, std::int64_t(m), cuprim::workspace{ws, wsb}); };
  a(); CK(cudaDeviceSynchronize());
  const bool ok = same(d.o, d.r, m) && same(d.vo, d.vr, m);
  const float ms = med(a, 21);
  printf("pairs u32+u32 %dx%d%s%s pf%d: cuprim %.4f ms cub %.4f ms = %.3fx %s\n", T, I, EF ? " first" : "",
         JX ? " joint" : "", PF, ms, d.cub_pairs, d.cub_pairs / ms, ok ? "ok" : "MISMATCH");
  CK(cudaFree(ws));
}

template <int T, int I, bool EF, int PF>
void u64_row(sweep_data& d) {
  using P = sweep_policy<T, I, EF, false, PF>;
  const std::uint64_t m = sweep_n;
  std::size_t wsb = cuprim::radix_sort_keys_workspace_bytes<std::uint64_t, P>(std::int64_t(m));
  void* ws; CK(cudaMalloc(&ws, wsb));
  CK(cudaMemset(d.o64, 0xab, m * 8));
  auto a = [&] { cuprim::radix_sort_keys<P>(d.k64, d.o64, std::int64_t(m), cuprim::workspace{ws, wsb}); };
  a(); CK(cudaDeviceSynchronize());
  const bool ok = same(d.o64, d.r64, m);
  const float ms = med(a, 21);
  printf("keys u64 %dx%d%s pf%d: cuprim %.4f ms cub %.4f ms = %.3fx %s\n", T, I, EF ? " first" : "", PF, ms,
         d.cub_u64, d.cub_u64 / ms, ok ? "ok" : "MISMATCH");
  CK(cudaFree(ws));
}
void rows_a(sweep_data& d);
void rows_b(sweep_data& d);
void rows_c(sweep_data& d);
void rows_d(sweep_data& d);
