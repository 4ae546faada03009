// cuprim/device/detail/scan_kernel.cuh: the single-pass scan with decoupled look-back (Merrill & Garland,
// "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016).
//
// Each block takes the next tile id from an atomic counter (so a tile only ever waits on tiles whose blocks
// are already running: progress never depends on the order in which the hardware schedules blocks), loads its
// tile with coalesced 16-byte loads, scans it in registers (per-thread chunks, warp shuffles, one shared-memory
// exchange of warp totals), publishes its aggregate, looks back over its predecessors' published aggregates and
// inclusive prefixes with one warp (32 tiles per step) until it meets an inclusive prefix, publishes its own
// inclusive prefix, and writes the tile. Each element is read once and written once.
//
// No identity element is needed: "nothing yet" is tracked by flags, so any associative operator works.
// The operator's left operand is always the earlier part of the sequence (non-commutative operators are fine).
#pragma once

#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/load.cuh>
#include <cuprim/warp/reduce.cuh>
#include <cuprim/warp/scan.cuh>

#include <cooperative_groups.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cuprim::detail {

// Diagnostics for tuning (off unless the including file defines CUPRIM_SCAN_LOOKBACK_STATS): counters of
// look-backs (slot 0: windows read, 1: re-polls of windows not yet ready, 2: look-backs), read back by the
// experiment that defines the macro.
#ifdef CUPRIM_SCAN_LOOKBACK_STATS
__device__ unsigned long long scan_lookback_stats[4];
#define CUPRIM_SCAN_STATS_ADD(slot, v)                                                                 \
  do {                                                                                                  \
    if (::cuprim::warp::lane_id() == 0)                                                                 \
      atomicAdd(&::cuprim::detail::scan_lookback_stats[slot], static_cast<unsigned long long>(v));      \
  } while (0)
#else
#define CUPRIM_SCAN_STATS_ADD(slot, v) \
  do {                                 \
  } while (0)
#endif

enum : unsigned { tile_invalid = 0, tile_aggregate = 1, tile_prefix = 2 };

/// How a tile's published state is stored: 1, status and value in one 64-bit word (values of up to 4 bytes);
/// 2, in one 16-byte word (trivially copyable values of 5 to 8 bytes); 0, separate arrays ordered by fences;
/// tile_state_custom, a specialization of tile_state for that carry type (select's counts, segmented pairs).
enum : int { tile_state_custom = 3 };
template <class T>
struct tile_state_kind {
  static constexpr int value = sizeof(T) <= 4                                                            ? 1
                               : sizeof(T) <= 8 && alignof(T) <= 8 && std::is_trivially_copyable_v<T> ? 2
                                                                                                       : 0;
};

/// Published state of each tile. Packed kinds (one store, one load, no fence) for values of up to 8 bytes; larger
/// types keep separate arrays ordered by fences.
template <class T, int Kind = tile_state_kind<T>::value>
struct tile_state;

template <class T>
struct tile_state<T, 1> {
  unsigned long long* words;  // zeroed before the launch

  static constexpr std::size_t bytes(std::uint64_t tiles) { return tiles * sizeof(unsigned long long); }
  static constexpr std::size_t zero_bytes(std::uint64_t tiles) { return bytes(tiles); }
  static tile_state make(void* p, std::uint64_t) { return {static_cast<unsigned long long*>(p)}; }

  __device__ __forceinline__ void publish(std::uint64_t tile, unsigned status, const T& v) const {
    unsigned bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    const unsigned long long w = (static_cast<unsigned long long>(bits) << 32) | status;
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(words + tile), "l"(w) : "memory");
  }
  __device__ __forceinline__ unsigned read(std::uint64_t tile, T& v) const {
    unsigned long long w;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(words + tile) : "memory");
    const unsigned bits = static_cast<unsigned>(w >> 32);
    std::memcpy(&v, &bits, sizeof(T));
    return static_cast<unsigned>(w);
  }
};

/// Status and value in one naturally aligned 16-byte word, written by one 16-byte store and read by one 16-byte
/// load: a reader sees a status together with the value it announces, as with the 64-bit word. (The PTX memory
/// model does not promise that a vector access is single-copy atomic; aligned 16-byte accesses are one transaction
/// on the GPUs cuprim targets, which is what CUB's look-back for 8-byte values relies on as well. The scan tests
/// check 8-byte results bit for bit over thousands of tiles.)
template <class T>
struct tile_state<T, 2> {
  ulonglong2* words;  // zeroed before the launch; x: status, y: the value's bytes

  static constexpr std::size_t bytes(std::uint64_t tiles) { return tiles * sizeof(ulonglong2); }
  static constexpr std::size_t zero_bytes(std::uint64_t tiles) { return bytes(tiles); }
  static tile_state make(void* p, std::uint64_t) { return {static_cast<ulonglong2*>(p)}; }

  __device__ __forceinline__ void publish(std::uint64_t tile, unsigned status, const T& v) const {
    unsigned long long bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(words + tile),
                 "l"(static_cast<unsigned long long>(status)), "l"(bits)
                 : "memory");
  }
  __device__ __forceinline__ unsigned read(std::uint64_t tile, T& v) const {
    unsigned long long s, bits;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(s), "=l"(bits) : "l"(words + tile) : "memory");
    std::memcpy(&v, &bits, sizeof(T));
    return static_cast<unsigned>(s);
  }
};

template <class T>
struct tile_state<T, 0> {
  unsigned* status;  // zeroed before the launch
  T* aggregates;     // separate from the inclusive prefixes: a reader that saw "aggregate" must not
  T* inclusives;     // be able to read the inclusive value that overwrote it

  static constexpr std::size_t status_bytes(std::uint64_t tiles) { return align_up(tiles * sizeof(unsigned)); }
  static constexpr std::size_t value_bytes(std::uint64_t tiles) { return align_up(tiles * sizeof(T)); }
  static constexpr std::size_t bytes(std::uint64_t tiles) { return status_bytes(tiles) + 2 * value_bytes(tiles); }
  static constexpr std::size_t zero_bytes(std::uint64_t tiles) { return status_bytes(tiles); }
  static tile_state make(void* p, std::uint64_t tiles) {
    char* base = static_cast<char*>(p);
    return {reinterpret_cast<unsigned*>(base), reinterpret_cast<T*>(base + status_bytes(tiles)),
            reinterpret_cast<T*>(base + status_bytes(tiles) + value_bytes(tiles))};
  }

  __device__ __forceinline__ void publish(std::uint64_t tile, unsigned s, const T& v) const {
    (s == tile_prefix ? inclusives : aggregates)[tile] = v;
    __threadfence();  // the value is visible before the status that announces it
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(status + tile), "r"(s) : "memory");
  }
  __device__ __forceinline__ unsigned read(std::uint64_t tile, T& v) const {
    unsigned s;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(s) : "l"(status + tile) : "memory");
    if (s != tile_invalid) {
      __threadfence();
      v = load_cg((s == tile_prefix ? inclusives : aggregates) + tile);
    }
    return s;
  }
};

/// The look-back's back-off in nanoseconds: a sleep before the first read of the predecessors (they are usually
/// about to publish) and between polls of a window that is not ready yet (polling flat out floods L2 with status
/// reads that slow every block's data traffic).
struct lookback_waits {
  unsigned first_ns;
  unsigned poll_ns;
};

/// The back-off for a launch of `tiles` tiles from the policy's (tuned at 2^28, grids many waves deep). When the
/// whole grid fits in about one wave, predecessors publish at about the same moment as the tile itself: half the
/// waits up to 4 tiles per SM. (H100 sweep, docs/tuning.md: at 2^20 halving gained 3-5%; at 2^22 it lost 1-3%.)
inline lookback_waits scale_waits(unsigned first_ns, unsigned poll_ns, std::uint64_t tiles, int sm_count) {
  const std::uint64_t sms = sm_count > 0 ? std::uint64_t(sm_count) : 1;
  if (tiles <= 4 * sms) return {first_ns / 2, poll_ns / 2};
  return {first_ns, poll_ns};
}

/// A value that may be absent ("nothing scanned yet"), combined left to right.
template <class T>
struct maybe {
  T value;
  bool has;
};
template <class T, class Op>
__device__ __forceinline__ maybe<T> combine(const maybe<T>& a, const maybe<T>& b, Op op) {
  if (!a.has) return b;
  if (!b.has) return a;
  return {op(a.value, b.value), true};
}

/// Folds one window of 32 × R tiles (lane 0's tiles first, lane l holding R consecutive ones) into `running`,
/// strictly left to right from position (lane, r) = (from_lane, from_r) on. Called by the whole warp; the
/// loop runs only over the tiles after the window's nearest published prefix.
/// For arithmetic types in small windows (at most 8 bytes per lane) the loop is unrolled over all 32 lanes with a
/// predicate, so that every shuffle is independent of the running value and only the additions form the chain (a
/// loop from from_lane waits for each shuffle in turn). H200: float 2^20 one tile per block 11.8 -> 11.3 µs. For
/// user types (the segmented scans' pairs) the loop stays: their walks usually start high in the window, and the
/// full unroll cost 5% there.
template <int R, class T, class Op>
__device__ __forceinline__ T fold_window(T running, const T (&v)[R], int from_lane, int from_r, Op op) {
  if constexpr (std::is_arithmetic_v<T> && sizeof(T) * R <= 8) {
#pragma unroll
    for (int k = 0; k < warp::size; ++k) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const T x = warp::shfl(v[r], k);
        if (k > from_lane || (k == from_lane && r >= from_r)) running = op(running, x);
      }
    }
  } else {
    for (int k = from_lane; k < warp::size; ++k) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const T x = warp::shfl(v[r], k);
        if (k > from_lane || r >= from_r) running = op(running, x);
      }
    }
  }
  return running;
}

/// Reads one window of tiles [window_end - 32R, window_end) and waits until every tile above the nearest
/// published prefix is valid. Returns the lane holding that prefix (-1 if none) and, in `prefix_r`, its slot.
template <int R, class T>
__device__ __forceinline__ int read_window(const tile_state<T>& state, std::int64_t window_end, T (&v)[R],
                                           int& prefix_r, unsigned poll_ns) {
  const int lane = warp::lane_id();
  const std::int64_t base = window_end - std::int64_t(warp::size) * R + std::int64_t(lane) * R;
  unsigned st[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    st[r] = tile_invalid;
    v[r] = T{};
    if (base + r >= 0) st[r] = state.read(static_cast<std::uint64_t>(base + r), v[r]);
  }
  while (true) {
    int lane_p = -1;
    bool lane_ready = true;
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (base + r >= 0 && st[r] == tile_prefix) lane_p = r;
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (base + r >= 0 && r > lane_p && st[r] == tile_invalid) lane_ready = false;
    const unsigned not_ready = __ballot_sync(warp::full_mask, !lane_ready);
    const unsigned prefix_lanes = __ballot_sync(warp::full_mask, lane_p >= 0);
    const unsigned above = prefix_lanes ? ~((1u << (31 - __clz(prefix_lanes))) - 1u) : 0xffffffffu;
    if ((not_ready & above) == 0) {
      if (!prefix_lanes) return -1;
      const int p_lane = 31 - __clz(prefix_lanes);
      prefix_r = warp::shfl(lane_p, p_lane);
      return p_lane;
    }
    CUPRIM_SCAN_STATS_ADD(1, 1);
    if (poll_ns > 0) __nanosleep(poll_ns);
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (base + r >= 0 && st[r] == tile_invalid) st[r] = state.read(static_cast<std::uint64_t>(base + r), v[r]);
  }
}

/// Decoupled look-back, run by one whole warp: the left fold of every tile before `tile`.
///
/// Every tile publishes P(t) = P(t-1) ⊕ A(t). Windows of 32 × R predecessors are read nearest first until one
/// holds a published prefix P(j); the result is then folded strictly left to right from P(j): P(j) ⊕ A(j+1) ⊕ ...
/// ⊕ A(t-1), evaluated as ((P(j) ⊕ A(j+1)) ⊕ ...). Since P(j) is itself that left fold, the value is the same
/// whichever prefix the walk met first, so floating-point scans are bitwise reproducible despite the timing-
/// dependent walk. The aggregates of the first `Cached` windows walked are kept in shared memory, so the fold
/// costs no further global reads; a longer walk re-reads the windows beyond them (all valid by then).
template <int R, int Cached, class T, class Op>
__device__ __forceinline__ T look_back_ordered(const tile_state<T>& state, std::uint64_t tile, Op op,
                                               lookback_waits waits) {
  constexpr int span = warp::size * R;
  __shared__ uninitialized<T> cache[Cached][span];
  const int lane = warp::lane_id();
  if (waits.first_ns > 0) __nanosleep(waits.first_ns);
  T v[R];
  int p_lane, p_r = 0, walked = 0;
  std::int64_t end = static_cast<std::int64_t>(tile);
  // Walk back (tile 0 always publishes a prefix, so the walk ends): windows without a prefix are all valid.
  while ((p_lane = read_window<R>(state, end, v, p_r, waits.poll_ns)) < 0) {
    if (walked < Cached) {
#pragma unroll
      for (int r = 0; r < R; ++r) cache[walked][lane * R + r].get() = v[r];
    }
    ++walked;
    end -= span;
  }
  CUPRIM_SCAN_STATS_ADD(0, walked + 1);
  CUPRIM_SCAN_STATS_ADD(2, 1);
  __syncwarp();
  T pr = v[0];
#pragma unroll
  for (int r = 1; r < R; ++r)
    if (r == p_r) pr = v[r];
  T running = fold_window<R>(warp::shfl(pr, p_lane), v, p_lane, p_r + 1, op);
  // Windows beyond the cache, far to near. A tile that has published its prefix since the walk passed it no
  // longer shows its aggregate, but its prefix is the same left fold: restart from it.
  for (int u = walked - 1; u >= Cached; --u) {
    if ((p_lane = read_window<R>(state, static_cast<std::int64_t>(tile) - std::int64_t(u) * span, v, p_r,
                                 waits.poll_ns)) >= 0) {
      pr = v[0];
#pragma unroll
      for (int r = 1; r < R; ++r)
        if (r == p_r) pr = v[r];
      running = fold_window<R>(warp::shfl(pr, p_lane), v, p_lane, p_r + 1, op);
    } else {
      running = fold_window<R>(running, v, 0, 0, op);
    }
  }
  // Cached windows, far to near: every lane folds the same values (broadcast reads), so all lanes agree.
  for (int u = (walked < Cached ? walked : Cached) - 1; u >= 0; --u) {
#pragma unroll 8
    for (int i = 0; i < span; ++i) running = op(running, cache[u][i].get());
  }
  __syncwarp();  // the cache is reused by this warp's next look-back (persistent callers)
  return running;
}

/// Decoupled look-back for exact (integral) types, run by one whole warp: the op-combination of every tile
/// before `tile`, in order. Windows are combined as trees, so the association depends on which prefix the walk
/// meets first; for integers every association gives the same bits.
/// Each round trip reads a window of 32 × R predecessors (lane l holds R consecutive tiles, lane 31 the nearest);
/// it waits only for tiles above the nearest published inclusive prefix, combines from there, and moves the
/// window back while no prefix has been seen.
template <int R, class T, class Op>
__device__ __forceinline__ T look_back_tree(const tile_state<T>& state, std::uint64_t tile, Op op,
                                            lookback_waits waits) {
  const int lane = warp::lane_id();
  if (waits.first_ns > 0) __nanosleep(waits.first_ns);
  maybe<T> running{T{}, false};
  std::int64_t window_end = static_cast<std::int64_t>(tile);
  while (true) {
    const std::int64_t base = window_end - std::int64_t(warp::size) * R + std::int64_t(lane) * R;
    T v[R];
    unsigned st[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      st[r] = tile_prefix;  // tiles before 0 do not exist; tile 0 (a real prefix) always lies above them
      if (base + r >= 0) st[r] = state.read(static_cast<std::uint64_t>(base + r), v[r]);
    }
    int lane_p;  // highest real prefix among this lane's tiles, or -1
    while (true) {
      lane_p = -1;
      bool lane_ready = true;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if (st[r] == tile_prefix && base + r >= 0) lane_p = r;
      }
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if (r > lane_p && st[r] == tile_invalid) lane_ready = false;
      }
      const unsigned not_ready = __ballot_sync(warp::full_mask, !lane_ready);
      const unsigned prefix_lanes = __ballot_sync(warp::full_mask, lane_p >= 0);
      const unsigned above = prefix_lanes ? ~((1u << (31 - __clz(prefix_lanes))) - 1u) : 0xffffffffu;
      if ((not_ready & above) == 0) break;
      CUPRIM_SCAN_STATS_ADD(1, 1);
      if (waits.poll_ns > 0) __nanosleep(waits.poll_ns);
#pragma unroll
      for (int r = 0; r < R; ++r) {
        if (base + r >= 0 && st[r] == tile_invalid) st[r] = state.read(static_cast<std::uint64_t>(base + r), v[r]);
      }
    }
    // This lane's part: its tiles from its own prefix (or its first real tile) to its last, in order.
    maybe<T> mine{T{}, false};
#pragma unroll
    for (int r = 0; r < R; ++r) {
      if (r >= lane_p && base + r >= 0) mine = combine(mine, maybe<T>{v[r], true}, op);
    }
    const unsigned prefix_lanes = __ballot_sync(warp::full_mask, lane_p >= 0);
    const int start = prefix_lanes ? 31 - __clz(prefix_lanes) : 0;
    // Combine lanes [start, 31] in tile order: shift them down to lanes [0, 32 - start) and reduce in order.
    // (Lanes holding no real tile lie below tile 0's lane, hence below `start`.)
    T shifted = warp::shfl_down(mine.value, static_cast<unsigned>(start));
    T window = warp::reduce(shifted, op, warp::size - start);
    running = combine(maybe<T>{window, true}, running, op);
    CUPRIM_SCAN_STATS_ADD(0, 1);
    if (prefix_lanes || window_end <= std::int64_t(warp::size) * R) {
      CUPRIM_SCAN_STATS_ADD(2, 1);
      break;
    }
    window_end -= std::int64_t(warp::size) * R;
  }
  return running.value;
}

/// Reads W groups of 32 tiles, group h - k in round k (lane i: tile 32(h - k) + i, the first `count` tiles of
/// group h when count < 32), and waits until every tile nearer than the nearest published group prefix is valid.
/// A group prefix is published only by a group's last tile (lane 31). Returns the round holding the nearest one
/// (W if none); groups below 0 are never read and count as holding one.
template <int W, class T>
__device__ __forceinline__ int read_groups(const tile_state<T>& state, std::int64_t h, int count, T (&v)[W],
                                           unsigned poll_ns) {
  const int lane = warp::lane_id();
  unsigned st[W];
#pragma unroll
  for (int k = 0; k < W; ++k) {
    st[k] = tile_aggregate;
    if (h - k >= 0 && (k > 0 || lane < count))
      st[k] = state.read(static_cast<std::uint64_t>(32 * (h - k) + lane), v[k]);
  }
  while (true) {
    int nearest = W;
#pragma unroll
    for (int k = W - 1; k >= 0; --k)
      if (h - k < 0 || __shfl_sync(warp::full_mask, st[k], 31) == tile_prefix) nearest = k;
    bool ready = true;
#pragma unroll
    for (int k = 0; k < W; ++k) ready = ready && (k >= nearest || st[k] != tile_invalid);
    if (__all_sync(warp::full_mask, ready)) return nearest;
    CUPRIM_SCAN_STATS_ADD(1, 1);
    if (poll_ns > 0) __nanosleep(poll_ns);
#pragma unroll
    for (int k = 0; k < W; ++k)
      if (k < nearest && st[k] == tile_invalid) st[k] = state.read(static_cast<std::uint64_t>(32 * (h - k) + lane), v[k]);
  }
}

/// Grouped look-back for operators whose association matters (floating point, user types), run by one whole warp;
/// tiles are grouped by 32. Tile t of group g = t / 32 gets the prefix G(g-1) ⊕ T(A(32g), ..., A(t-1)) and a group's
/// last tile publishes G(g) = G(g-1) ⊕ T(A(32g), ..., A(32g+31)), where T is the warp's fixed reduction tree over that
/// many lanes and G(-1) is absent. Every value has one fixed association, so results are bitwise reproducible
/// whatever the timing; yet a look-back folds at most one value per walked group (plus two trees), where a strict
/// left fold of tiles costs a dependent operation per tile between the tile and the nearest published prefix (~300
/// on a one-wave grid, where every tile walks back to the first few prefixes at once). The walk reads W groups per
/// round trip back to the nearest published G (groups below 0 are never needed: G(0) is the tree of group 0).
/// Only a group's last tile publishes a prefix status: the others (tile 0's aggregate includes init) publish
/// aggregates only. `own` is the tile's aggregate; for a group's last tile `group` receives G(g).
template <int W, int Cap, class T, class Op>
__device__ __forceinline__ T look_back_grouped(const tile_state<T>& state, std::uint64_t tile, const T& own, Op op,
                                               lookback_waits waits, T& group) {
  const int lane = warp::lane_id();
  const std::int64_t g = static_cast<std::int64_t>(tile / 32);
  const int m = static_cast<int>(tile % 32);  // earlier tiles in the tile's own group
  if (waits.first_ns > 0) __nanosleep(waits.first_ns);
  // The walk: the first round trip reads the tile's own group (its first m tiles) and the W - 1 groups before it,
  // later ones W groups each, back to the nearest published G (or past group 0). Lane k keeps the tree of the
  // k-th group walked (nearest first) for k < Cap ≤ 32; longer walks (rare with Cap = 32: 1024 tiles without a
  // published group prefix) re-read the far groups in the fold below, all valid by then.
  T v[W];
  T part{}, whole{}, sums{}, running{};
  bool has = false;  // false: the walk passed group 0 (G(0) is then the tree of group 0, the farthest walked)
  int walked = 0;
  for (std::int64_t h = g;; h -= W) {
    const bool first = h == g;
    const int nearest = read_groups<W>(state, h, first ? m : 32, v, waits.poll_ns);  // never 0 in the first
#pragma unroll
    for (int k = 0; k < W; ++k) {
      if (first && k == 0) {
        if (m > 0) part = warp::reduce(v[0], op, m);
        if (m == 31) whole = warp::reduce(lane == 31 ? own : v[0], op, 32);
      } else if (k < nearest) {
        const T tree = warp::reduce(v[k], op, 32);
        if (lane == walked && walked < Cap) sums = tree;
        ++walked;
      }
    }
    if (nearest < W) {
      if (h - nearest >= 0) {
        T p = v[0];
#pragma unroll
        for (int k = 1; k < W; ++k)
          if (k == nearest) p = v[k];
        running = warp::shfl(p, 31);
        has = true;
      }
      break;
    }
  }
  // Fold the walked groups' trees, far to near.
  for (int k = walked - 1; k >= 0; --k) {
    T tree;
    if (k < Cap) {
      tree = warp::shfl(sums, k);
    } else {
      T one[1];
      if (read_groups<1>(state, g - 1 - k, 32, one, waits.poll_ns) == 0) {  // G published since: the same value
        running = warp::shfl(one[0], 31);
        has = true;
        continue;
      }
      tree = warp::reduce(one[0], op, 32);
    }
    running = has ? op(running, tree) : tree;
    has = true;
  }
  // has is false only when nothing lies before the tile's own group (g = 0, so m > 0).
  if (m == 31) group = has ? op(running, whole) : whole;
  return m == 0 ? running : has ? op(running, part) : part;
}

/// Whether every association of the operator gives the same bits for T (integers; internal count types
/// specialise it). Such types may take the faster tree look-back.
template <class T>
struct exact_combine : std::is_integral<T> {};

/// How many walked windows the ordered look-back keeps in shared memory: up to 4 KiB of aggregates.
template <class T, int R>
inline constexpr int lookback_cached_windows = (4096 / int(warp::size * R * sizeof(T))) > 1
                                                   ? (4096 / int(warp::size * R * sizeof(T))) : 1;

/// The look-back: exact types combine windows as trees (fastest; any association gives the same bits), every
/// other type folds strictly left to right so that results are bitwise reproducible.
template <int R, class T, class Op, int Cached = lookback_cached_windows<T, R>>
__device__ __forceinline__ T look_back(const tile_state<T>& state, std::uint64_t tile, Op op, lookback_waits waits) {
  if constexpr (exact_combine<T>::value) return look_back_tree<R>(state, tile, op, waits);
  else return look_back_ordered<R, Cached>(state, tile, op, waits);
}

/// Cluster barrier halves (every thread of every block of the cluster calls both, in this order): arrive releases
/// this thread's earlier shared-memory writes, wait acquires the other blocks' once all have arrived.
__device__ __forceinline__ void cluster_barrier_arrive() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#endif
}
__device__ __forceinline__ void cluster_barrier_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

/// The address of `p` (a shared variable of this block) in the shared memory of cluster block `rank`.
template <class T>
__device__ __forceinline__ T* cluster_shared_at(T* p, unsigned rank) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return cooperative_groups::this_cluster().map_shared_rank(p, rank);
#else
  return p;
#endif
}

/// The block's tile id, from the atomic counter: ids follow the order in which blocks start, so a tile only ever
/// waits on tiles whose blocks are already running. 0 without touching the counter when there is one tile.
/// Called by every thread of the block (contains a barrier when there are several tiles).
__device__ __forceinline__ std::uint64_t take_tile_id(unsigned* counter, std::uint64_t num_tiles) {
  __shared__ unsigned slot;
  if (num_tiles <= 1) return 0;
  if (threadIdx.x == 0) slot = atomicAdd(counter, 1u);
  __syncthreads();
  return slot;
}

template <class T, int Bytes>
__device__ __forceinline__ void store_vector(T* p, const T (&v)[Bytes / sizeof(T)]) {
  using raw = typename raw_vector<Bytes>::type;
  raw r;
  std::memcpy(&r, v, Bytes);
  *reinterpret_cast<raw*>(p) = r;
}

/// Scans one tile held in registers (x[k][e] is element warp_base + (k*32 + lane)*V + e), looks back for the
/// tile's prefix, publishes, and writes the tile. Called by every thread of the block. Elements past n (last
/// tile only) hold unspecified values; a scan is causal, so they never reach an element before them.
///
/// With Cluster, the grid is one thread-block cluster and `tile` is the block's rank in it: the tile's prefix is the
/// left fold of the earlier blocks' totals, read from their shared memory after a cluster barrier (no look-back,
/// no tile states, nothing to zero). The block arrives at a second cluster barrier once it has read them and waits
/// on it at the end, so that no block leaves while another may still read its total.
template <class Policy, bool Exclusive, bool HasInit, int V, bool Cluster = false, class Out, class Acc, class Op>
__device__ __forceinline__ void scan_tile(Acc (&x)[Policy::vectors][V], std::uint64_t tile, std::uint64_t n, Out* out,
                                          Op op, const Acc& init, const tile_state<Acc>& state,
                                          std::uint64_t num_tiles, bool vector_out, lookback_waits waits) {
  constexpr int TH = Policy::threads, K = Policy::vectors, WARPS = TH / warp::size;
  constexpr std::uint64_t warp_tile = std::uint64_t(warp::size) * K * V, tile_elems = warp_tile * WARPS;
  // A lane's V results are one store of up to 16 bytes. An output wider than the input (uint32 -> uint64, uint8 ->
  // int32) gives a lane 32 or 64 bytes: those go through a per-warp staging buffer in shared memory, so that the
  // warp's stores are consecutive 16-byte pieces (strided 16-byte stores measured 1.8 TB/s for uint32 -> uint64 at
  // 2^27 on an H200, V scalar stores 1.4 TB/s).
  constexpr int out_bytes = int(sizeof(Out)) * V;
  constexpr bool out_arith = std::is_arithmetic_v<Out> || is_half_like_v<Out>;
  constexpr bool out_vectorizable = out_arith && (out_bytes == 4 || out_bytes == 8 || out_bytes == 16);
  constexpr bool out_pieced = out_arith && out_bytes > 16 && out_bytes % 16 == 0;
  constexpr int out_pieces = out_pieced ? out_bytes / 16 : 1;  // 16-byte pieces per lane
  // Staged while the buffer stays small (16 KiB: 4 warps of 64-byte lanes); larger blocks store the pieces strided.
  constexpr bool out_staged = out_pieced && WARPS * warp::size * out_pieces * 16 <= 16384;
  static_assert(!Exclusive || HasInit, "an exclusive scan needs an init value");
  __shared__ uninitialized<Acc> warp_totals[WARPS];
  __shared__ uninitialized<Acc> warp_prefix[WARPS];
  __shared__ bool warp_has_prefix[WARPS];

  const int tid = threadIdx.x, lane = tid % warp::size, w = tid / warp::size;
  const std::uint64_t tile_base = tile * tile_elems;
  const std::uint64_t warp_base = tile_base + std::uint64_t(w) * warp_tile;
  const bool full = tile_base + tile_elems <= n;

  // Scan each thread's chunks, then each chunk across the warp.
  Acc lane_prefix[K];  // op over the earlier lanes of chunk k (absent for lane 0)
  Acc chunk_total[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
#pragma unroll
    for (int e = 1; e < V; ++e) x[k][e] = op(x[k][e - 1], x[k][e]);
    Acc incl = warp::inclusive_scan(x[k][V - 1], op, chunk_total[k]);
    lane_prefix[k] = warp::shfl_up(incl, 1);
  }
  Acc warp_total = chunk_total[0];
#pragma unroll
  for (int k = 1; k < K; ++k) warp_total = op(warp_total, chunk_total[k]);
  if (lane == 0) warp_totals[w].get() = warp_total;
  __syncthreads();

  if constexpr (Cluster) {
    // Warp 0: scan the warp totals and offer the block's total to the cluster; then fold the earlier blocks'.
    __shared__ uninitialized<Acc> cluster_total;
    if (w == 0) {
      Acc t = warp_totals[lane < WARPS ? lane : 0].get();
      Acc block_total;
      Acc incl = warp::inclusive_scan(t, op, WARPS, block_total);
      Acc excl = warp::shfl_up(incl, 1);
      if (lane == 0) cluster_total.get() = block_total;
      if (lane < WARPS) warp_prefix[lane].get() = excl;  // the warp's prefix within the tile, for the moment
    }
    cluster_barrier_arrive();
    cluster_barrier_wait();
    if (w == 0) {
      // Lane j < tile reads block j's total (the others their own, unused); the fold runs strictly left to right,
      // so floating-point results do not depend on timing.
      const unsigned rank = unsigned(tile);
      const Acc a = *cluster_shared_at(&cluster_total.get(), lane < int(rank) ? unsigned(lane) : rank);
      maybe<Acc> tile_prefix_v{init, HasInit};
      for (unsigned j = 0; j < rank; ++j) tile_prefix_v = combine(tile_prefix_v, maybe<Acc>{warp::shfl(a, int(j)), true}, op);
      if (lane < WARPS) {
        maybe<Acc> p = combine(tile_prefix_v, maybe<Acc>{warp_prefix[lane].get(), lane > 0}, op);
        warp_prefix[lane].get() = p.value;
        warp_has_prefix[lane] = p.has;
      }
    }
    cluster_barrier_arrive();  // done with the other blocks' shared memory (waited on at the end)
  } else if (w == 0) {
    // Warp 0: scan the warp totals, look back for the tile's prefix, publish, hand each warp its prefix.
    Acc t = warp_totals[lane < WARPS ? lane : 0].get();
    Acc block_total;
    Acc incl = warp::inclusive_scan(t, op, WARPS, block_total);
    Acc excl = warp::shfl_up(incl, 1);
    maybe<Acc> tile_prefix_v{init, HasInit};
    // An operator whose association matters: the grouped look-back (see look_back_grouped).
    if constexpr (!exact_combine<Acc>::value && Policy::lookback_grouped) {
      if (lane == 0 && tile + 1 < num_tiles)  // tile 0's aggregate includes init, so every prefix does
        state.publish(tile, tile_aggregate,
                      tile == 0 ? combine(tile_prefix_v, maybe<Acc>{block_total, true}, op).value : block_total);
      if (tile > 0) {
        Acc group;
        constexpr int cap = Policy::lookback_cached_windows > 0 && Policy::lookback_cached_windows < 32
                                ? Policy::lookback_cached_windows : 32;
        tile_prefix_v = {look_back_grouped<4, cap>(state, tile, block_total, op, waits, group), true};
        if (lane == 0 && tile % 32 == 31 && tile + 1 < num_tiles) state.publish(tile, tile_prefix, group);
      }
    } else {
      if (tile > 0) {
        if (lane == 0) state.publish(tile, tile_aggregate, block_total);
        constexpr int R = Policy::lookback_tiles_per_lane;
        constexpr int cached = Policy::lookback_cached_windows > 0 ? Policy::lookback_cached_windows
                                                                   : lookback_cached_windows<Acc, R>;
        tile_prefix_v = {look_back<R, Acc, Op, cached>(state, tile, op, waits), true};
      }
      if (lane == 0 && tile + 1 < num_tiles) {
        maybe<Acc> inclusive = combine(tile_prefix_v, maybe<Acc>{block_total, true}, op);
        state.publish(tile, tile_prefix, inclusive.value);  // tile 0's includes init, so every prefix does
      }
    }
    if (lane < WARPS) {
      maybe<Acc> p = combine(tile_prefix_v, maybe<Acc>{excl, lane > 0}, op);
      warp_prefix[lane].get() = p.value;
      warp_has_prefix[lane] = p.has;
    }
  }
  __syncthreads();

  // Apply: element (k, lane, e) gets prefix(warp) ⊕ carry(chunks before k) ⊕ lane_prefix(k) ⊕ x[k][e].
  maybe<Acc> carry{warp_prefix[w].get(), warp_has_prefix[w]};
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const maybe<Acc> p = combine(carry, maybe<Acc>{lane_prefix[k], lane > 0}, op);
    Out y[V];
    if constexpr (Exclusive) {
      // p.has always holds here: an exclusive scan has an init.
#pragma unroll
      for (int e = V - 1; e > 0; --e) y[e] = convert<Out>(op(p.value, x[k][e - 1]));
      y[0] = convert<Out>(p.value);
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e) y[e] = convert<Out>(p.has ? op(p.value, x[k][e]) : x[k][e]);
    }
    const std::uint64_t i0 = warp_base + (std::uint64_t(k) * warp::size + lane) * V;
    bool stored = false;
    if constexpr (out_vectorizable) {
      if (full && vector_out) {
        store_vector<Out, out_bytes>(out + i0, y);
        stored = true;
      }
    } else if constexpr (out_staged) {
      __shared__ uint4 out_stage[WARPS][warp::size * out_pieces];
      if (full && vector_out) {
        uint4* st = out_stage[w];
#pragma unroll
        for (int j = 0; j < out_pieces; ++j)
          std::memcpy(&st[lane * out_pieces + j], reinterpret_cast<const char*>(y) + 16 * j, 16);
        __syncwarp();
        uint4* dst = reinterpret_cast<uint4*>(out + warp_base + std::uint64_t(k) * warp::size * V);
#pragma unroll
        for (int r = 0; r < out_pieces; ++r) dst[lane + warp::size * r] = st[lane + warp::size * r];
        __syncwarp();  // read before the next chunk is staged
        stored = true;
      }
    } else if constexpr (out_pieced) {
      if (full && vector_out) {
        constexpr int per = 16 / int(sizeof(Out));
#pragma unroll
        for (int j = 0; j < out_pieces; ++j)
          store_vector<Out, 16>(out + i0 + j * per, *reinterpret_cast<const Out(*)[per]>(y + j * per));
        stored = true;
      }
    }
    if (!stored) {
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (full || i0 + e < n) out[i0 + e] = y[e];
    }
    carry = combine(carry, maybe<Acc>{chunk_total[k], true}, op);
  }
  if constexpr (Cluster) cluster_barrier_wait();
}

/// Loads a block's tile into registers: chunk k of warp w is vectors [k*32, k*32+32) of the warp's range, lane l
/// holding vector k*32+l (16-byte loads when the input is aligned; elements past n are left as Acc{}).
template <class Policy, int V, class In, class Acc>
__device__ __forceinline__ void scan_load_tile(const In* in, const void* out, std::uint64_t n, std::uint64_t warp_base,
                                               bool full, bool vector_in, Acc (&x)[Policy::vectors][V]) {
  constexpr int K = Policy::vectors;
  const int lane = threadIdx.x % warp::size;
  const bool in_place = static_cast<const void*>(in) == out;
  if (full && vector_in) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      In raw[V];
      const In* src = in + warp_base + (std::uint64_t(k) * warp::size + lane) * V;
      // In place, the tile is overwritten while the kernel runs: no read-only cache path then.
      if (in_place) load_vector<In, Policy::vector_bytes, false>(src, raw);
      else load_vector<In, Policy::vector_bytes, true>(src, raw);
#pragma unroll
      for (int e = 0; e < V; ++e) x[k][e] = convert<Acc>(raw[e]);
    }
  } else {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const std::uint64_t i0 = warp_base + (std::uint64_t(k) * warp::size + lane) * V;
#pragma unroll
      for (int e = 0; e < V; ++e) x[k][e] = (full || i0 + e < n) ? convert<Acc>(in[i0 + e]) : Acc{};
    }
  }
}

/// One tile per block, loaded straight from global memory into registers (16-byte vectors when the input is
/// aligned); a single-tile input takes one block and no look-back.
template <class Policy, bool Exclusive, bool HasInit, class In, class Out, class Acc, class Op>
__global__ void __launch_bounds__(Policy::threads)
scan_kernel(const In* in, Out* out, std::uint64_t n, Op op, Acc init, tile_state<Acc> state, unsigned* counter,
            std::uint64_t num_tiles, bool vector_in, bool vector_out, lookback_waits waits) {
  using vt = vector_traits<In, Policy::vector_bytes>;
  constexpr int TH = Policy::threads, K = Policy::vectors, V = vt::elems, WARPS = TH / warp::size;
  constexpr std::uint64_t warp_tile = std::uint64_t(warp::size) * K * V, tile_elems = warp_tile * WARPS;
  const int w = threadIdx.x / warp::size;
  wait_for_prerequisite_grid();  // the zeroed counter and tile states (multi-tile launches are dependent launches)
  const std::uint64_t tile = take_tile_id(counter, num_tiles);
  const std::uint64_t tile_base = tile * tile_elems;
  const std::uint64_t warp_base = tile_base + std::uint64_t(w) * warp_tile;
  const bool full = tile_base + tile_elems <= n;
  Acc x[K][V];
  scan_load_tile<Policy, V>(in, out, n, warp_base, full, vector_in, x);
  scan_tile<Policy, Exclusive, HasInit, V>(x, tile, n, out, op, init, state, num_tiles, vector_out, waits);
}

/// The scan of a small input in one launch: the grid is one thread-block cluster, block b scans tile b and takes
/// its prefix from the earlier blocks' totals through distributed shared memory (scan_tile with Cluster). No
/// workspace, no zeroing launch before it.
template <class Policy, bool Exclusive, bool HasInit, class In, class Out, class Acc, class Op>
__global__ void __launch_bounds__(Policy::threads)
scan_cluster_kernel(const In* in, Out* out, std::uint64_t n, Op op, Acc init, bool vector_in, bool vector_out) {
  using vt = vector_traits<In, Policy::vector_bytes>;
  constexpr int TH = Policy::threads, K = Policy::vectors, V = vt::elems, WARPS = TH / warp::size;
  constexpr std::uint64_t warp_tile = std::uint64_t(warp::size) * K * V, tile_elems = warp_tile * WARPS;
  const int w = threadIdx.x / warp::size;
  const std::uint64_t tile = blockIdx.x;  // the block's rank in the cluster (the grid is one cluster)
  const std::uint64_t tile_base = tile * tile_elems;
  const std::uint64_t warp_base = tile_base + std::uint64_t(w) * warp_tile;
  const bool full = tile_base + tile_elems <= n;
  Acc x[K][V];
  scan_load_tile<Policy, V>(in, out, n, warp_base, full, vector_in, x);
  scan_tile<Policy, Exclusive, HasInit, V, true>(x, tile, n, out, op, init, tile_state<Acc>{}, gridDim.x,
                                                 vector_out, lookback_waits{});
}

}  // namespace cuprim::detail
