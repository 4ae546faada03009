// cuprim/device/detail/segmented_scan_kernel.cuh: segmented scans (by key, by head flags, by offsets) on the
// single-pass scan of scan_kernel.cuh.
//
// A segmented scan is an ordinary scan of pairs (start, value) under the segmented operator
//     (s1, v1) ⊕ (s2, v2) = (s1 | s2, s2 ? v2 : v1 ⊕ v2)
// which is associative (not commutative) whenever ⊕ is (Schwartz 1980; Blelloch 1990, "Prefix sums and their
// applications", section 1.5). The kernel here only loads: each tile's values and segment starts go into the
// register layout of scan_kernel's scan_tile (element warp_base + (k·32 + lane)·V + e in x[k][e]), and
// scan_tile does the rest: the in-register and warp scans, the decoupled look-back over tiles with the pair
// operator, and the stores (a pair converts to its value). Tile states of pairs with values up to 4 bytes pack
// value, start bit and status into one 64-bit word, as lookback.cuh does for plain values.
//
// Exclusive scans need no extra pass: out[i] = init ⊕ v[start .. i-1] is the *exclusive* scan of the pairs
//     p_i = (f_{i+1}, f_{i+1} ? init : v_i)           (f_i: element i starts a segment)
// seeded with (1, init): each p_i is the map "fold v_i in, then restart at init if a segment starts next", so the
// scan before element i is init at a segment's first element and init ⊕ v[start .. i-1] after it. The loader
// reads the next element's start flag (or key) instead of the previous one; in place stays safe, since no tile
// reads another tile's values.
//
// Segment starts come from a head source, loaded in the same layout:
//   flag_heads<F>      head_flags[i] != 0 (element 0 always starts)
//   key_heads<K, Eq>   !eq(keys[i-1], keys[i]) (element 0 always starts); neighbours by warp shuffles
//   bit_heads          bit i of a bitmask built from CSR offsets by mark_heads_kernel (one atomicOr per
//                      non-empty segment, so thousands of empty segments at one position cost nothing extra)
#pragma once

#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/detail/load.cuh>
#include <cuprim/device/detail/lookback.cuh>
#include <cuprim/device/detail/scan_kernel.cuh>
#include <cuprim/device/detail/segmented_scan_tuning.cuh>
#include <cuprim/warp/shuffle.cuh>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cuprim::detail {

/// The flag word of seg_pair<T>: as wide as T's alignment (at least 4 bytes), so that the pair has no padding bytes
/// and warp shuffles and tile states move it as whole words in registers (a bool member left 3 or 7 padding bytes,
/// and the byte copies of a shuffle then went through local memory).
template <class T>
using seg_flag_t = std::conditional_t<(alignof(T) > 4), unsigned long long, unsigned>;

/// One scanned item: the value since the latest segment start in the range, and whether a segment starts in it.
template <class T>
struct seg_pair {
  T value;
  seg_flag_t<T> start;  // 0 or 1
  /// The scan's output is the value (scan_tile converts each result to the output type through this).
  CUPRIM_HD explicit operator T() const { return value; }
};

/// The segmented operator: a later range holding a segment start replaces what came before it. Written without a
/// branch (op is applied either way and its result dropped when b starts a segment): a branch here became a
/// divergent branch per combined pair in the pipeline's row scans, which then took ~130 cycles per pair.
template <class Op>
struct seg_pair_op {
  Op op;
  template <class T>
  CUPRIM_HD seg_pair<T> operator()(const seg_pair<T>& a, const seg_pair<T>& b) const {
    const T folded = op(a.value, b.value);
    return {b.start ? b.value : folded, a.start | b.start};
  }
};

/// maybe-combination of pairs under the segmented operator, without branches (lookback.cuh's combine branches on
/// the two flags; over pairs that compiled to divergent branches in the row scans). Both values must be defined
/// whatever the flags say: op is applied to them either way.
template <class T, class Op>
__device__ __forceinline__ maybe<seg_pair<T>> combine(const maybe<seg_pair<T>>& a, const maybe<seg_pair<T>>& b,
                                                      seg_pair_op<Op> op) {
  const seg_pair<T> both = op(a.value, b.value);
  const seg_pair<T> one = a.has ? a.value : b.value;
  return {a.has && b.has ? both : one, a.has || b.has};
}

/// Builds element i's pair. Inclusive: start = element i starts a segment. Exclusive: start = element i + 1
/// does, and the value is init there (see the file comment).
template <bool Exclusive, class T>
CUPRIM_HD seg_pair<T> make_seg_pair(const T& value, bool start, const T& init) {
  if constexpr (Exclusive) return {start ? init : value, start};
  else return {value, start};
}

}  // namespace cuprim::detail

namespace cuprim::detail {

/// Tile states of pairs whose value fits 4 bytes: value bits, start bit and status in one 64-bit word (one
/// relaxed store publishes, one relaxed load reads, no fence), like the packed state of ≤ 4-byte values.
template <class T>
  requires(sizeof(T) <= 4)
struct tile_state_kind<seg_pair<T>> {
  static constexpr int value = tile_state_custom;
};
template <class T>
  requires(sizeof(T) <= 4)
struct tile_state<seg_pair<T>, tile_state_custom> {
  unsigned long long* words;  // zeroed before the launch

  static constexpr std::size_t bytes(std::uint64_t tiles) { return tiles * sizeof(unsigned long long); }
  static constexpr std::size_t zero_bytes(std::uint64_t tiles) { return bytes(tiles); }
  static tile_state make(void* p, std::uint64_t) { return {static_cast<unsigned long long*>(p)}; }

  __device__ __forceinline__ void publish(std::uint64_t tile, unsigned status, const seg_pair<T>& v) const {
    unsigned bits = 0;
    std::memcpy(&bits, &v.value, sizeof(T));
    const unsigned long long w =
        (static_cast<unsigned long long>(bits) << 32) | (v.start ? 0x100u : 0u) | (status & 0xffu);
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(words + tile), "l"(w) : "memory");
  }
  __device__ __forceinline__ unsigned read(std::uint64_t tile, seg_pair<T>& v) const {
    unsigned long long w;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(words + tile) : "memory");
    const unsigned bits = static_cast<unsigned>(w >> 32);
    std::memcpy(&v.value, &bits, sizeof(T));
    v.start = (w & 0x100u) != 0;
    return static_cast<unsigned>(w & 0xffu);
  }
};

/// Loads x[k][e] = p[warp_base + (k·32 + lane)·V + e] (T{} past n), as V·sizeof(T)-byte vectors when that is 4,
/// 8 or 16 bytes, the tile is full and p is aligned to it.
template <int K, int V, class T>
__device__ __forceinline__ void load_items(const T* p, std::uint64_t warp_base, std::uint64_t n, bool full,
                                           bool aligned, T (&x)[K][V]) {
  constexpr int bytes = static_cast<int>(sizeof(T)) * V;
  constexpr bool vec = bytes == 4 || bytes == 8 || bytes == 16;
  const int lane = warp::lane_id();
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const std::uint64_t i0 = warp_base + (std::uint64_t(k) * warp::size + lane) * V;
    bool done = false;
    if constexpr (vec) {
      if (full && aligned) {
        using raw = typename raw_vector<bytes>::type;
        const raw r = __ldg(reinterpret_cast<const raw*>(p + i0));
        std::memcpy(&x[k][0], &r, bytes);
        done = true;
      }
    }
    if (!done) {
#pragma unroll
      for (int e = 0; e < V; ++e) x[k][e] = (full || i0 + e < n) ? p[i0 + e] : T{};
    }
  }
}

/// nb[k][e] = the item before (Next = false) or after (Next = true) x[k][e] in index order, within the warp's
/// range by shuffles; `edge` is the item just outside it (before its first or after its last element), used by
/// lane 0 or lane 31. Every lane must call.
template <bool Next, int K, int V, class T>
__device__ __forceinline__ void warp_neighbours(const T (&x)[K][V], const T& edge, T (&nb)[K][V]) {
  const int lane = warp::lane_id();
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if constexpr (!Next) {
#pragma unroll
      for (int e = V - 1; e > 0; --e) nb[k][e] = x[k][e - 1];
      const T up = warp::shfl_up(x[k][V - 1], 1);
      T wrap = edge;
      if (k > 0) wrap = warp::shfl(x[k > 0 ? k - 1 : 0][V - 1], warp::size - 1);  // k is the same in every lane
      nb[k][0] = lane > 0 ? up : wrap;
    } else {
#pragma unroll
      for (int e = 0; e < V - 1; ++e) nb[k][e] = x[k][e + 1];
      const T down = warp::shfl_down(x[k][0], 1);
      T wrap = edge;
      if (k + 1 < K) wrap = warp::shfl(x[k + 1 < K ? k + 1 : k][0], 0);
      nb[k][V - 1] = lane < warp::size - 1 ? down : wrap;
    }
  }
}

/// Head source: head_flags[i] != 0.
template <class F>
struct flag_heads {
  const F* flags;
  bool aligned;  // flags is aligned to V·sizeof(F) bytes

  template <bool Next, int K, int V>
  __device__ __forceinline__ void load(std::uint64_t warp_base, std::uint64_t n, bool full, bool (&f)[K][V]) const {
    F x[K][V];
    load_items(flags, warp_base, n, full, aligned, x);
    if constexpr (!Next) {
#pragma unroll
      for (int k = 0; k < K; ++k)
#pragma unroll
        for (int e = 0; e < V; ++e) f[k][e] = !(x[k][e] == F(0));
    } else {
      const int lane = warp::lane_id();
      const std::uint64_t after = warp_base + std::uint64_t(warp::size) * K * V;
      F edge = F(0);
      if (lane == warp::size - 1 && after < n) edge = flags[after];
      F nb[K][V];
      warp_neighbours<true>(x, edge, nb);
#pragma unroll
      for (int k = 0; k < K; ++k)
#pragma unroll
        for (int e = 0; e < V; ++e) {
          const std::uint64_t i = warp_base + (std::uint64_t(k) * warp::size + lane) * V + e;
          f[k][e] = i + 1 < n && !(nb[k][e] == F(0));
        }
    }
  }
};

/// Head source: a new run of keys (!eq(keys[i-1], keys[i])).
template <class Key, class Eq>
struct key_heads {
  const Key* keys;
  Eq eq;
  bool aligned;

  template <bool Next, int K, int V>
  __device__ __forceinline__ void load(std::uint64_t warp_base, std::uint64_t n, bool full, bool (&f)[K][V]) const {
    const int lane = warp::lane_id();
    Key x[K][V];
    load_items(keys, warp_base, n, full, aligned, x);
    Key nb[K][V];
    Key edge{};
    if constexpr (!Next) {
      if (lane == 0 && warp_base > 0 && warp_base - 1 < n) edge = keys[warp_base - 1];
    } else {
      const std::uint64_t after = warp_base + std::uint64_t(warp::size) * K * V;
      if (lane == warp::size - 1 && after < n) edge = keys[after];
    }
    warp_neighbours<Next>(x, edge, nb);
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const std::uint64_t i = warp_base + (std::uint64_t(k) * warp::size + lane) * V + e;
        if constexpr (!Next) f[k][e] = i == 0 || !eq(nb[k][e], x[k][e]);
        else f[k][e] = i + 1 < n && !eq(x[k][e], nb[k][e]);
      }
  }
};

/// Head source: bit i of a bitmask (32 elements per word).
struct bit_heads {
  const unsigned* bits;

  template <bool Next, int K, int V>
  __device__ __forceinline__ void load(std::uint64_t warp_base, std::uint64_t n, bool, bool (&f)[K][V]) const {
    static_assert(32 % V == 0, "a thread's V elements must lie in one word");
    const int lane = warp::lane_id();
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const std::uint64_t i0 = warp_base + (std::uint64_t(k) * warp::size + lane) * V;
      const std::uint64_t first = Next ? i0 + 1 : i0;  // the element whose bit element i0 needs
      unsigned lo = 0, hi = 0;
      if (first < n) lo = __ldg(bits + first / 32);
      if constexpr (Next) {
        if ((first + V - 1) / 32 != first / 32 && first + V - 1 < n) hi = __ldg(bits + (first + V - 1) / 32);
      }
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const std::uint64_t b = first + e;
        const unsigned word = b / 32 == first / 32 ? lo : hi;
        f[k][e] = b < n && ((word >> (b % 32)) & 1u);
      }
    }
  }
};

/// Sets bit offsets[s] of `bits` for every non-empty segment s with offsets[s] in [0, n).
template <class Offset>
__global__ void mark_heads_kernel(const Offset* offsets, std::int64_t num_segments, std::int64_t n, unsigned* bits) {
  const std::int64_t s = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= num_segments) return;
  const std::int64_t a = static_cast<std::int64_t>(offsets[s]), b = static_cast<std::int64_t>(offsets[s + 1]);
  if (a < b && a >= 0 && a < n) atomicOr(bits + a / 32, 1u << (a % 32));
}

/// One tile per block: loads the tile's values and segment starts into pairs, then scan_tile. Policy: a
/// policy_constant of a segmented_scan_policy.
template <class Policy, bool Exclusive, class In, class Out, class Acc, class Op, class Heads>
__global__ void __launch_bounds__(Policy::value.tile.threads)
segmented_scan_kernel(const In* in, Out* out, std::uint64_t n, seg_pair_op<Op> op, seg_pair<Acc> init, Heads heads,
                      tile_state<seg_pair<Acc>> state, unsigned* counter, std::uint64_t num_tiles, bool vector_in,
                      bool vector_out, lookback_waits waits) {
  constexpr scan_policy P = Policy::value.tile;
  using vt = vector_traits<In, P.vector_bytes>;
  constexpr int TH = P.threads, K = P.vectors, V = vt::elems;
  constexpr std::uint64_t warp_tile = std::uint64_t(warp::size) * K * V, tile_elems = warp_tile * (TH / warp::size);
  const int tid = threadIdx.x, lane = tid % warp::size, w = tid / warp::size;
  wait_for_prerequisite_grid();  // the zeroed counter and tile states (multi-tile launches are dependent launches)
  const std::uint64_t tile = take_tile_id(counter, num_tiles);
  const std::uint64_t tile_base = tile * tile_elems;
  const std::uint64_t warp_base = tile_base + std::uint64_t(w) * warp_tile;
  const bool full = tile_base + tile_elems <= n;

  bool starts[K][V];
  heads.template load<Exclusive, K, V>(warp_base, n, full, starts);

  seg_pair<Acc> x[K][V];
  // In place, the tile is overwritten while the kernel runs: no read-only cache path then.
  const bool in_place = static_cast<const void*>(in) == static_cast<const void*>(out);
  if (full && vector_in) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      In raw[V];
      const In* src = in + warp_base + (std::uint64_t(k) * warp::size + lane) * V;
      if (in_place) load_vector<In, P.vector_bytes, false>(src, raw);
      else load_vector<In, P.vector_bytes, true>(src, raw);
#pragma unroll
      for (int e = 0; e < V; ++e) x[k][e] = make_seg_pair<Exclusive>(convert<Acc>(raw[e]), starts[k][e], init.value);
    }
  } else {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const std::uint64_t i0 = warp_base + (std::uint64_t(k) * warp::size + lane) * V;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const Acc v = (full || i0 + e < n) ? convert<Acc>(in[i0 + e]) : Acc{};
        x[k][e] = make_seg_pair<Exclusive>(v, starts[k][e], init.value);
      }
    }
  }
  scan_tile<P, Exclusive, Exclusive, V>(x, tile, n, out, op, init, state, num_tiles, vector_out, waits);
}

}  // namespace cuprim::detail
