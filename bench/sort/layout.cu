// bench/sort/layout.cu: does where the buffers lie move the sort's time? 2^27 uint32 keys with uint32 values
// (cuprim's default policy and CUB SortPairs) and 2^27 uint64 keys, with the input, output and value buffers
// carved from one allocation at chosen offsets, each layout timed for both libraries (median of 15, the same
// buffers for both); or (`layout HOLD FREED`) the pairs row with the lab's separate allocations, made after HOLD
// MiB are allocated and kept and FREED MiB allocated and released, which moves where the buffers lie in physical
// memory (docs/tuning.md, "Radix sort", run 13); or (`layout move`) cuprim's sorts with one buffer at a time moved
// to other physical pages (run 14); or (`layout l2`) whether the 8-byte keys' L2 store hint leaves lines behind
// that crowd a later kernel's working set out of L2 (run 14). Not part of the CMake build:
//   nvcc -std=c++20 --extended-lambda --expt-relaxed-constexpr -O3 -arch=sm_90 -I include \
//        bench/sort/layout.cu src/device.cpp src/error.cpp src/memory.cpp -o layout && ./layout; ./layout 0 3072
#include <cuprim/device/radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include "ab_common.cuh"

#include <string>

namespace {
constexpr std::uint64_t n = 1ull << 27;
constexpr std::size_t MiB = std::size_t(1) << 20, KiB = 1024;

struct layout {
  const char* name;
  std::size_t u, v, o, vo;  // byte offsets of the keys, values, output keys and output values
};

void pairs(unsigned char* pool, const layout& L, void* cub_temp, std::size_t cub_bytes, void* ws, std::size_t wsb) {
  auto* u = reinterpret_cast<std::uint32_t*>(pool + L.u);
  auto* v = reinterpret_cast<std::uint32_t*>(pool + L.v);
  auto* o = reinterpret_cast<std::uint32_t*>(pool + L.o);
  auto* vo = reinterpret_cast<std::uint32_t*>(pool + L.vo);
  fill_u<<<1024, 256>>>(u, n, 777u);
  fill_u<<<1024, 256>>>(v, n, 999u);
  CK(cudaDeviceSynchronize());
  auto cub_sort = [&] {
    std::size_t b = cub_bytes;
    CK(cub::DeviceRadixSort::SortPairs(cub_temp, b, u, o, v, vo, int(n)));
  };
  auto our_sort = [&] { cuprim::radix_sort_pairs(u, o, v, vo, std::int64_t(n), cuprim::workspace{ws, wsb}); };
  std::vector<std::uint32_t> ko(n), vv(n);
  CK(cudaMemset(o, 0xab, n * 4)); CK(cudaMemset(vo, 0xab, n * 4));
  cub_sort(); CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(ko.data(), o, n * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(vv.data(), vo, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemset(o, 0xab, n * 4)); CK(cudaMemset(vo, 0xab, n * 4));
  our_sort(); CK(cudaDeviceSynchronize());
  const bool ok = [&] {
    std::vector<std::uint32_t> k2(n), v2(n);
    CK(cudaMemcpy(k2.data(), o, n * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(v2.data(), vo, n * 4, cudaMemcpyDeviceToHost));
    return k2 == ko && v2 == vv;
  }();
  float c[2], m[2];
  for (int r = 0; r < 2; ++r) { c[r] = med(cub_sort, 15); m[r] = med(our_sort, 15); }
  printf("pairs %-28s cub %.4f %.4f ms  cuprim %.4f %.4f ms  = %.3fx %.3fx %s\n", L.name, c[0], c[1], m[0], m[1],
         c[0] / m[0], c[1] / m[1], ok ? "ok" : "MISMATCH");
}

void keys64(unsigned char* pool, const layout& L, void* cub_temp, std::size_t cub_bytes, void* ws, std::size_t wsb) {
  auto* k = reinterpret_cast<std::uint64_t*>(pool + L.u);
  auto* o = reinterpret_cast<std::uint64_t*>(pool + L.o);
  fill_u<<<1024, 256>>>(reinterpret_cast<std::uint32_t*>(k), 2 * n, 555u);
  CK(cudaDeviceSynchronize());
  auto cub_sort = [&] {
    std::size_t b = cub_bytes;
    CK(cub::DeviceRadixSort::SortKeys(cub_temp, b, k, o, int(n)));
  };
  auto our_sort = [&] { cuprim::radix_sort_keys(k, o, std::int64_t(n), cuprim::workspace{ws, wsb}); };
  float c[2], m[2];
  for (int r = 0; r < 2; ++r) { c[r] = med(cub_sort, 15); m[r] = med(our_sort, 15); }
  printf("u64   %-28s cub %.4f %.4f ms  cuprim %.4f %.4f ms  = %.3fx %.3fx\n", L.name, c[0], c[1], m[0], m[1],
         c[0] / m[0], c[1] / m[1]);
}
/// The lab's order of allocations for its pairs row (input, output, values, output values, workspace, then CUB's
/// output, output values and temporary storage), each its own cudaMalloc, after `hold` MiB are allocated and kept
/// and `freed` MiB allocated and released: CUB writes its own outputs, as in the lab.
void separate(std::size_t hold, std::size_t freed) {
  void *h = nullptr, *f = nullptr;
  if (hold) { CK(cudaMalloc(&h, hold * MiB)); CK(cudaMemset(h, 1, hold * MiB)); }
  if (freed) { CK(cudaMalloc(&f, freed * MiB)); CK(cudaMemset(f, 1, freed * MiB)); }
  if (freed) CK(cudaFree(f));
  std::uint32_t *u, *o, *v, *vo, *r, *vr;
  void *ws, *temp;
  const std::size_t wsb = cuprim::radix_sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t>(std::int64_t(n));
  std::size_t tb = 0;
  CK(cub::DeviceRadixSort::SortPairs(nullptr, tb, (std::uint32_t*)nullptr, (std::uint32_t*)nullptr,
                                     (std::uint32_t*)nullptr, (std::uint32_t*)nullptr, int(n)));
  CK(cudaMalloc(&u, n * 4)); CK(cudaMalloc(&o, n * 4)); CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&vo, n * 4));
  CK(cudaMalloc(&ws, wsb)); CK(cudaMalloc(&r, n * 4)); CK(cudaMalloc(&vr, n * 4)); CK(cudaMalloc(&temp, tb));
  fill_u<<<1024, 256>>>(u, n, 777u);
  fill_u<<<1024, 256>>>(v, n, 999u);
  CK(cudaDeviceSynchronize());
  auto cub_sort = [&] { std::size_t b = tb; CK(cub::DeviceRadixSort::SortPairs(temp, b, u, r, v, vr, int(n))); };
  auto our_sort = [&] { cuprim::radix_sort_pairs(u, o, v, vo, std::int64_t(n), cuprim::workspace{ws, wsb}); };
  CK(cudaMemset(o, 0xab, n * 4)); CK(cudaMemset(vo, 0xab, n * 4));
  cub_sort(); our_sort(); CK(cudaDeviceSynchronize());
  const bool ok = same(o, r, n) && same(vo, vr, n);
  float c[3], m[3];
  for (int i = 0; i < 3; ++i) { c[i] = med(cub_sort, 15); m[i] = med(our_sort, 15); }
  printf("pairs, separate buffers, %5zu MiB held, %5zu MiB freed before: cub %.4f %.4f %.4f ms  cuprim %.4f %.4f "
         "%.4f ms  = %.3fx %.3fx %.3fx %s (u %p o %p r %p)\n", hold, freed, c[0], c[1], c[2], m[0], m[1], m[2],
         c[0] / m[0], c[1] / m[1], c[2] / m[2], ok ? "ok" : "MISMATCH", (void*)u, (void*)o, (void*)r);
}
/// One buffer at a time in other physical places: cuprim's 2^27 uint64 keys sort and 4-byte pairs sort with every
/// buffer fixed but one (the input keys, the output keys or the workspace), that one allocated anew while k x 736
/// MiB are held (k = 0..7), as the lab's placements do for all buffers at once; which buffer carries the
/// placement's effect?
void move_one() {
  const std::size_t step = std::size_t(736) * MiB;
  for (int pairs_sort = 0; pairs_sort < 2; ++pairs_sort) {
    const std::size_t kb = pairs_sort ? 4 : 8;
    const std::size_t wsb = pairs_sort ? cuprim::radix_sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t>(std::int64_t(n))
                                       : cuprim::radix_sort_keys_workspace_bytes<std::uint64_t>(std::int64_t(n));
    void *k, *o, *v = nullptr, *vo = nullptr, *ws;
    CK(cudaMalloc(&k, n * kb)); CK(cudaMalloc(&o, n * kb)); CK(cudaMalloc(&ws, wsb));
    if (pairs_sort) { CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&vo, n * 4)); fill_u<<<1024, 256>>>((std::uint32_t*)v, n, 999u); }
    fill_u<<<1024, 256>>>((std::uint32_t*)k, n * kb / 4, 555u);
    CK(cudaDeviceSynchronize());
    const char* names[] = {"input keys", "output keys", "workspace"};
    for (int which = 0; which < 3; ++which) {
      printf("%s, %s moved:", pairs_sort ? "pairs u32+u32" : "keys u64", names[which]);
      for (int h = 0; h < 8; ++h) {
        void* spacer = nullptr;
        if (h) CK(cudaMalloc(&spacer, h * step));
        void** slot = which == 0 ? &k : which == 1 ? &o : &ws;
        const std::size_t bytes = which == 2 ? wsb : n * kb;
        void* moved;
        CK(cudaMalloc(&moved, bytes));
        CK(cudaMemcpy(moved, *slot, bytes, cudaMemcpyDeviceToDevice));
        void* old = *slot;
        *slot = moved;
        auto sort = [&] {
          if (pairs_sort)
            cuprim::radix_sort_pairs((const std::uint32_t*)k, (std::uint32_t*)o, (const std::uint32_t*)v,
                                     (std::uint32_t*)vo, std::int64_t(n), cuprim::workspace{ws, wsb});
          else cuprim::radix_sort_keys((const std::uint64_t*)k, (std::uint64_t*)o, std::int64_t(n), cuprim::workspace{ws, wsb});
        };
        printf(" %.3f", med(sort, 11));
        fflush(stdout);
        *slot = old;
        CK(cudaFree(moved));
        if (spacer) CK(cudaFree(spacer));
      }
      printf(" ms\n");
    }
    CK(cudaFree(k)); CK(cudaFree(o)); CK(cudaFree(ws));
    if (v) { CK(cudaFree(v)); CK(cudaFree(vo)); }
  }
}
/// The store hint's side effect: 8-byte keys sorted with the default policy (stores under evict_last but in the
/// last pass, whose input lines it returns to the normal priority) and with the same policy under plain stores;
/// each sort's time (median of 11) and, right after one sort, how long a kernel reading W MiB eight times takes
/// (median of 7): if the sort left lines marked evict_last, a working set near L2's size would miss more.
void l2_after() {
  using D = cuprim::radix_sort_default_policy<8, 0>::type;
  using Plain = cuprim::radix_sort_policy<D::threads, D::items, D::small_threads, D::small_items, D::hist_items,
                                          D::look_back, D::rank, D::early_counts, D::cluster, D::cluster_threads,
                                          D::cluster_items, D::exchange_first, D::joint_exchange, D::prefetch_tiles,
                                          D::min_blocks, 0>;
  static_assert(D::store_hint == 2);
  float4* buf;
  float* sink;
  const std::size_t max_w = std::size_t(48) << 20;
  CK(cudaMalloc(&buf, max_w)); CK(cudaMalloc(&sink, 4)); CK(cudaMemset(buf, 0, max_w));
  auto probe_after = [&](auto&& f, std::size_t w) { return l2_read_after(f, buf, w, sink); };
  const std::size_t ws_list[] = {std::size_t(24) << 20, std::size_t(36) << 20, std::size_t(48) << 20};
  printf("probe after itself:");
  for (std::size_t w : ws_list) printf(" %zu MiB %.1f us", w >> 20, probe_after([] {}, w));
  printf("\n");
  for (int lg : {20, 22, 24, 27}) {
    const std::uint64_t m = std::uint64_t(1) << lg;
    std::uint64_t *k, *o, *ref;
    CK(cudaMalloc(&k, m * 8)); CK(cudaMalloc(&o, m * 8)); CK(cudaMalloc(&ref, m * 8));
    fill_u<<<1024, 256>>>(reinterpret_cast<std::uint32_t*>(k), 2 * m, 4242u);
    const std::size_t wsb = std::max(cuprim::radix_sort_keys_workspace_bytes<std::uint64_t, D>(std::int64_t(m)),
                                     cuprim::radix_sort_keys_workspace_bytes<std::uint64_t, Plain>(std::int64_t(m)));
    void* ws; CK(cudaMalloc(&ws, wsb));
    auto hinted = [&] { cuprim::radix_sort_keys<D>(k, o, std::int64_t(m), cuprim::workspace{ws, wsb}); };
    auto plain = [&] { cuprim::radix_sort_keys<Plain>(k, ref, std::int64_t(m), cuprim::workspace{ws, wsb}); };
    hinted(); plain(); CK(cudaDeviceSynchronize());
    const bool ok = same(o, ref, m);
    printf("uint64 2^%d: plain %.4f ms, evict_last %.4f ms %s; probe after plain / evict_last:", lg, med(plain, 11),
           med(hinted, 11), ok ? "ok" : "MISMATCH");
    for (std::size_t w : ws_list) printf(" %zu MiB %.1f / %.1f us", w >> 20, probe_after(plain, w), probe_after(hinted, w));
    printf("\n");
    fflush(stdout);
    CK(cudaFree(k)); CK(cudaFree(o)); CK(cudaFree(ref)); CK(cudaFree(ws));
  }
  CK(cudaFree(buf)); CK(cudaFree(sink));
}
}  // namespace

/// layout: the pool's layouts; layout HOLD FREED: the lab's separate allocations after HOLD MiB held and FREED MiB
/// allocated and released; layout move: one buffer at a time moved (move_one); layout l2: the store hint's side
/// effect on L2 (l2_after).
int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "move") {
    move_one();
    return 0;
  }
  if (argc == 2 && std::string(argv[1]) == "l2") {
    l2_after();
    return 0;
  }
  if (argc > 2) {
    separate(std::size_t(std::atoll(argv[1])), std::size_t(std::atoll(argv[2])));
    return 0;
  }
  const std::size_t S = n * 4;  // 512 MiB
  const std::size_t pool_bytes = 5 * S + 64 * MiB;
  unsigned char* pool;
  CK(cudaMalloc(&pool, pool_bytes));
  std::size_t cub_bytes = 0, b2 = 0;
  CK(cub::DeviceRadixSort::SortPairs(nullptr, cub_bytes, (std::uint32_t*)nullptr, (std::uint32_t*)nullptr,
                                     (std::uint32_t*)nullptr, (std::uint32_t*)nullptr, int(n)));
  CK(cub::DeviceRadixSort::SortKeys(nullptr, b2, (std::uint64_t*)nullptr, (std::uint64_t*)nullptr, int(n)));
  cub_bytes = std::max(cub_bytes, b2);
  const std::size_t wsb = std::max(cuprim::radix_sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t>(std::int64_t(n)),
                                   cuprim::radix_sort_keys_workspace_bytes<std::uint64_t>(std::int64_t(n)));
  void *cub_temp, *ws;
  CK(cudaMalloc(&cub_temp, cub_bytes));
  CK(cudaMalloc(&ws, wsb));
  printf("pool %p, cub temp %zu B, cuprim workspace %zu B\n", (void*)pool, cub_bytes, wsb);
  const layout pl[] = {
      {"u v o vo, 512 MiB apart", 0, S, 2 * S, 3 * S},
      {"u o v vo, 512 MiB apart", 0, 2 * S, S, 3 * S},
      {"+64 KiB steps", 0, S + 64 * KiB, 2 * S + 128 * KiB, 3 * S + 192 * KiB},
      {"+2 MiB steps", 0, S + 2 * MiB, 2 * S + 4 * MiB, 3 * S + 6 * MiB},
      {"+7 MiB steps", 0, S + 7 * MiB, 2 * S + 14 * MiB, 3 * S + 21 * MiB},
      {"+4352 B steps", 0, S + 4352, 2 * S + 8704, 3 * S + 13056},
      {"u v o vo, 512 MiB apart", 0, S, 2 * S, 3 * S},
  };
  for (const auto& L : pl) pairs(pool, L, cub_temp, cub_bytes, ws, wsb);
  const layout kl[] = {
      {"k o, 1 GiB apart", 0, 0, 2 * S, 0},
      {"k o, 1 GiB + 64 KiB", 0, 0, 2 * S + 64 * KiB, 0},
      {"k o, 1 GiB + 7 MiB", 0, 0, 2 * S + 7 * MiB, 0},
      {"k o, 1.5 GiB + 2 MiB", 0, 0, 3 * S + 2 * MiB, 0},
  };
  for (const auto& L : kl) keys64(pool, L, cub_temp, cub_bytes, ws, wsb);
  return 0;
}
