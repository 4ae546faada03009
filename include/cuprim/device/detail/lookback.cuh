// cuprim/device/detail/lookback.cuh: the decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan
// with Decoupled Look-back", 2016), shared by every single-pass algorithm: the scan (scan_kernel.cuh), stream
// compaction (select_kernel.cuh), the segmented scans and reductions, and the persistent pipeline
// (lookback_pipeline.cuh).
//
// Each tile takes an id from an atomic counter (take_tile_id: a tile only ever waits on tiles whose blocks are
// already running, so progress never depends on block scheduling), publishes its aggregate A(t) as soon as it is
// known, looks back over its predecessors' published states with one warp until it meets an inclusive prefix, and
// publishes its own inclusive prefix P(t) = P(t-1) ⊕ A(t). "Nothing yet" is a status, so no identity element is
// needed, and the earlier part of the sequence is always the left operand (non-commutative operators are fine).
//
//   tile_state<C>        a tile's published status and carry: packed in one 64-bit or 16-byte word where the carry
//                        fits, separate arrays ordered by fences otherwise; families specialise it for their carries
//   look_back<R>(...)    the left fold of every tile before `tile`: exact types (integers, counts) combine windows as
//                        trees, the others fold strictly left to right, so floating-point results are reproducible
//   lookback_waits       the back-off between status reads (scale_waits: halved for grids of about one wave)
//   lookback_layout<C>   the workspace: a 256-byte header (the tile counter) and the tile states
#pragma once

#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/detail/load.cuh>
#include <cuprim/warp/reduce.cuh>
#include <cuprim/warp/scan.cuh>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cuprim::detail {

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
/// waits up to 4 tiles per SM. (H100 sweep, docs/tuning/scan.md: at 2^20 halving gained 3-5%; at 2^22 it lost
/// 1-3%.)
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
    if (prefix_lanes || window_end <= std::int64_t(warp::size) * R) break;
    window_end -= std::int64_t(warp::size) * R;
  }
  return running.value;
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
template <int R, class T, class Op>
__device__ __forceinline__ T look_back(const tile_state<T>& state, std::uint64_t tile, Op op, lookback_waits waits) {
  if constexpr (exact_combine<T>::value) return look_back_tree<R>(state, tile, op, waits);
  else return look_back_ordered<R, lookback_cached_windows<T, R>>(state, tile, op, waits);
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

/// The look-back's workspace: a 256-byte header (the tile counter; a 64-bit total at byte 8 for callers that need
/// one), then the states of `tiles` tiles. Default-constructed it is empty (a single-tile launch needs neither); a
/// family whose workspace holds more adds its parts to L after these. A launch zeroes zero_bytes(tiles) from the
/// start of the header first.
template <class C>
struct lookback_layout {
  workspace_part<unsigned long long> header;  // (2): the tile counter (low 32 bits of [0]), a total ([1])
  workspace_part<unsigned char> states;       // (tile_state<C>::bytes(tiles))
  workspace_layout L;
  lookback_layout() = default;
  explicit lookback_layout(std::uint64_t tiles) {
    header = L.add<unsigned long long>(2);
    states = L.add<unsigned char>(tile_state<C>::bytes(tiles));
  }
  std::size_t bytes() const { return L.bytes(); }
  unsigned* counter(const workspace& ws) const { return reinterpret_cast<unsigned*>(header.in(ws)); }
  unsigned long long* total(const workspace& ws) const { return header.in(ws) + 1; }
  /// The states of `tiles` tiles (at most as many as the layout holds).
  tile_state<C> state(const workspace& ws, std::uint64_t tiles) const {
    return tile_state<C>::make(states.in(ws), tiles);
  }
  /// Bytes from the start of the header that a launch over `tiles` tiles zeroes.
  static std::size_t zero_bytes(std::uint64_t tiles) { return 256 + tile_state<C>::zero_bytes(tiles); }
};

}  // namespace cuprim::detail
