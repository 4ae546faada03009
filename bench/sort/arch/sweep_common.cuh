// bench/sort/arch/: a policy sweep for the machine at hand (the defaults were tuned on an H200; this asks whether
// another card wants other tiles). Each row: cuprim under policy P against CUB in the same process, outputs
// compared with CUB's, the one-sweep kernel's registers, spill stores and resident blocks per SM, and how long a
// kernel reading 16 MiB eight times takes right after the sort (whether the sort's lines crowd the caller's data out
// of L2). Not part of the CMake build: bench/sort/arch/build.sh builds the rows in parallel; run sweep [rounds [held
// MiB]] (held: memory kept allocated before the buffers, for another placement). The rows in rows_*.cu are those of
// docs/tuning.md, "Radix sort", run 15: pairs joint and packed (modes 1 and 2), the uint64 keys sorted by bits
// [32, 64) that the packed passes resemble, and the keys-only defaults (the rows of runs 8-14, tiles, thread counts,
// look-back, ranking, early counts and store hints, are in its text and in bench/sort/h100-sort-sweep.txt).
#pragma once
#include <cuprim/device/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include "../ab_common.cuh"

#include <string>

/// The buffers every row uses: 2^27 uint32 keys and values (u, v), outputs (o, vo), CUB's (r, vr); 2^27 uint64 keys
/// (k64, o64, r64). The uint32 keys-only rows sort u into o and compare with r (CUB's pairs sort of u), CUB's
/// keys-only sort of u (timed into o) given as cub_u32.
struct sweep_data {
  std::uint32_t *u, *o, *r, *v, *vo, *vr;
  std::uint64_t *k64, *o64, *r64;
  float cub_pairs, cub_u64, cub_u32;
};
constexpr std::uint64_t sweep_n = 1ull << 27;

/// LB: look-back window, RK: rank (0 sync, 1 atomic, 2 match), EA: early counts (radix_sort_policy).
/// PK: pairs packed into 8-byte keys (radix_sort_policy's Pack: 1 two buffers, 2 packing and unpacking alternate).
template <int T, int I, bool EF, bool JX, int PF, int MB, int LB = 2, int RK = 1, bool EA = false, int SH = 0,
          int PK = 0>
using sweep_policy = cuprim::radix_sort_policy<T, I, 512, 8, 16, LB, RK, EA, true, 1024, 8, EF, JX, PF, MB, SH, PK>;

/// The buffer read after each row (16 MiB; l2_read_after in ab_common.cuh).
struct l2_probe {
  float4* buf = nullptr;
  float* sink = nullptr;
  static constexpr std::size_t bytes = std::size_t(16) << 20;
  void init() {
    CK(cudaMalloc(&buf, bytes)); CK(cudaMalloc(&sink, 4)); CK(cudaMemset(buf, 0, bytes));
  }
  template <class F>
  float after(F&& f) { return l2_read_after(f, buf, bytes, sink); }
};
inline l2_probe& probe() { static l2_probe p; return p; }

/// "regs R spill S B/SM": the one-sweep kernel of policy P for keys K and values V.
template <class P, class K, class V, bool Packed = false>
const char* kernel_info() {
  static char text[96];
  auto k = cuprim::detail::radix_onesweep_kernel<P::threads, P::items, K, V, P::look_back, P::rank,
                                                 P::early_counts, P::exchange_first, P::joint_exchange,
                                                 P::prefetch_tiles, P::min_blocks, P::store_hint, Packed>;
  const int smem = int(sizeof(cuprim::detail::radix_onesweep_smem<P::threads, P::items, K, V, P::joint_exchange>));
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaFuncAttributes a{};
  CK(cudaFuncGetAttributes(&a, k));
  int blocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, P::threads, smem));
  std::snprintf(text, sizeof text, "regs %d spill %zu B smem %d B %d blocks/SM", a.numRegs, a.localSizeBytes, smem,
                blocks);
  return text;
}

/// One row: sort(workspace) under a workspace of wsb bytes, once to check (ok(), outputs poisoned by the caller),
/// then timed (median of 21); prints "<label>: cuprim .. ms cub .. ms = ..x ok (kernel info)".
template <class Sort, class Ok>
void timed_row(const std::string& label, std::size_t wsb, float cub_ms, const char* info, Sort&& sort, Ok&& ok) {
  void* ws; CK(cudaMalloc(&ws, wsb));
  auto a = [&] { sort(cuprim::workspace{ws, wsb}); };
  a(); CK(cudaDeviceSynchronize());
  const bool good = ok();
  const float ms = med(a, 21);
  const float probe_us = probe().buf ? probe().after(a) : 0.f;
  printf("%s: cuprim %.4f ms cub %.4f ms = %.3fx %s (%s; L2 probe after it %.1f us)\n", label.c_str(), ms, cub_ms,
         cub_ms / ms, good ? "ok" : "MISMATCH", info, probe_us);
  CK(cudaFree(ws));
}

/// " mbM lbL rankR[ early]": the options every row names.
inline std::string options(int mb, int lb, int rk, bool ea, int sh = 0) {
  static const char* const hint[] = {"", " evict_first", " evict_last"};
  return " mb" + std::to_string(mb) + " lb" + std::to_string(lb) + " rank" + std::to_string(rk) + (ea ? " early" : "") +
         hint[sh];
}
inline std::string shape(int t, int i) { return std::to_string(t) + "x" + std::to_string(i); }

template <int T, int I, bool EF, bool JX, int PF, int MB = 2, int LB = 2, int RK = 1, bool EA = false, int SH = 0,
          int PK = 0>
void pairs_row(sweep_data& d) {
  using P = sweep_policy<T, I, EF, JX, PF, MB, LB, RK, EA, SH, PK>;
  const std::uint64_t m = sweep_n;
  CK(cudaMemset(d.o, 0xab, m * 4)); CK(cudaMemset(d.vo, 0xab, m * 4));
  timed_row("pairs u32+u32 " + shape(T, I) + (EF ? " first" : "") + (JX ? " joint" : "") + " pf" +
                std::to_string(PF) + options(MB, LB, RK, EA, SH) + (PK ? " packed" + std::to_string(PK) : ""),
            cuprim::radix_sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t, P>(std::int64_t(m)), d.cub_pairs,
            PK ? kernel_info<P, std::uint64_t, cuprim::detail::radix_no_value, true>()
               : kernel_info<P, std::uint32_t, std::uint32_t>(),
            [&](cuprim::workspace w) { cuprim::radix_sort_pairs<P>(d.u, d.o, d.v, d.vo, std::int64_t(m), w); },
            [&] { return same(d.o, d.r, m) && same(d.vo, d.vr, m); });
}

template <int T, int I, bool EF, int PF, int MB = 2, int LB = 2, int RK = 1, bool EA = false, int SH = 0>
void u64_row(sweep_data& d) {
  using P = sweep_policy<T, I, EF, false, PF, MB, LB, RK, EA, SH>;
  const std::uint64_t m = sweep_n;
  CK(cudaMemset(d.o64, 0xab, m * 8));
  timed_row("keys u64 " + shape(T, I) + (EF ? " first" : "") + " pf" + std::to_string(PF) + options(MB, LB, RK, EA, SH),
            cuprim::radix_sort_keys_workspace_bytes<std::uint64_t, P>(std::int64_t(m)), d.cub_u64,
            kernel_info<P, std::uint64_t, cuprim::detail::radix_no_value>(),
            [&](cuprim::workspace w) { cuprim::radix_sort_keys<P>(d.k64, d.o64, std::int64_t(m), w); },
            [&] { return same(d.o64, d.r64, m); });
}

/// 8-byte keys sorted by bits [32, 64) (four passes, as packed pairs run them), against CUB's sort of the same bits
/// (timed here; the ratio is against that sort).
template <int T, int I, bool EF, int PF, int MB = 2, int LB = 2, int RK = 1, bool EA = false, int SH = 0>
void u64_hi_row(sweep_data& d) {
  using P = sweep_policy<T, I, EF, false, PF, MB, LB, RK, EA, SH>;
  const std::uint64_t m = sweep_n;
  std::size_t b = 0;
  cub::DeviceRadixSort::SortKeys(nullptr, b, d.k64, d.r64, int(m), 32, 64);
  void* w; CK(cudaMalloc(&w, b));
  auto c = [&] { cub::DeviceRadixSort::SortKeys(w, b, d.k64, d.r64, int(m), 32, 64); };
  const float cub_ms = med(c, 21);
  CK(cudaFree(w));
  CK(cudaMemset(d.o64, 0xab, m * 8));
  cuprim::radix_sort_options o;
  o.begin_bit = 32;
  timed_row("keys u64 bits [32, 64) " + shape(T, I) + (EF ? " first" : "") + " pf" + std::to_string(PF) +
                options(MB, LB, RK, EA, SH),
            cuprim::radix_sort_keys_workspace_bytes<std::uint64_t, P>(std::int64_t(m)), cub_ms,
            kernel_info<P, std::uint64_t, cuprim::detail::radix_no_value>(),
            [&](cuprim::workspace w) { cuprim::radix_sort_keys<P>(d.k64, d.o64, std::int64_t(m), w, o); },
            [&] { return same(d.o64, d.r64, m); });
}

template <int T, int I, int PF, int MB = 2, int LB = 2, int RK = 1, bool EA = false, int SH = 0>
void u32_row(sweep_data& d) {
  using P = sweep_policy<T, I, false, false, PF, MB, LB, RK, EA, SH>;
  const std::uint64_t m = sweep_n;
  CK(cudaMemset(d.o, 0xab, m * 4));
  timed_row("keys u32 " + shape(T, I) + " pf" + std::to_string(PF) + options(MB, LB, RK, EA, SH),
            cuprim::radix_sort_keys_workspace_bytes<std::uint32_t, P>(std::int64_t(m)), d.cub_u32,
            kernel_info<P, std::uint32_t, cuprim::detail::radix_no_value>(),
            [&](cuprim::workspace w) { cuprim::radix_sort_keys<P>(d.u, d.o, std::int64_t(m), w); },
            [&] { return same(d.o, d.r, m); });
}

void rows_a(sweep_data& d);
void rows_b(sweep_data& d);
void rows_c(sweep_data& d);
void rows_d(sweep_data& d);
void rows_e(sweep_data& d);
void rows_f(sweep_data& d);
void rows_g(sweep_data& d);
void rows_h(sweep_data& d);
