// cuprim/device/detail/scan_pipeline_kernel.cuh: the large-input scan, a persistent warp-specialized pipeline
// around the same decoupled look-back as scan_kernel.cuh.
//
// Why: in the one-tile-per-block kernel a block holds its tile in registers while its look-back completes, and
// the look-back of each tile waits behind the load of that same tile, so the bytes in flight per SM fall exactly
// when they are needed. Here each resident block keeps `stages` tiles in a shared-memory ring and gives each job
// to its own warps, so the copy engine keeps loading while earlier tiles wait for their prefixes:
//
//   warp 0 (one lane)  producer    takes the next tile id from the atomic counter, bulk-loads the tile
//                                  (cp.async.bulk) into a free stage                        -> full[s]
//   warp 1             aggregator  reduces each segment of the tile, publishes the tile's aggregate at once
//                                  (never waits on another tile), keeps the segment totals  -> agg[s]
//   warp 2             look-back   the tile's prefix (scan_kernel.cuh's look_back), publishes the inclusive
//                                  prefix and each segment's prefix                         -> pre[s]
//   warps 3..          scan        one segment each: scan in registers, write back in place, bulk-store the
//                                  segment to global memory, release the stage              -> empty[s]
//
// Progress: ids come from the counter in the order blocks ask for them, a tile's aggregate depends only on its
// own data, and a look-back waits only for aggregates of lower ids, all already taken by running blocks; so no
// wait depends on block scheduling. Tile layout: `scan_warps` segments of 32 lanes x `lane_vectors` 16-byte
// vectors, a lane's elements consecutive (lane_vectors odd: 16-byte shared-memory accesses without bank
// conflicts). The last tile may be partial: its tail is read and written element by element.
//
// Results are the same bits from run to run: the aggregate is a fixed tree of the tile, the prefix the look-back's
// left fold, and each element prefix ⊕ (segment and lane prefixes) in a fixed association.
#pragma once

#include <cuprim/device/detail/async_copy.cuh>
#include <cuprim/device/detail/scan_kernel.cuh>

#include <cstdint>

namespace cuprim::detail {

/// Elements of T per tile of a pipeline policy (T of 4 or 8 bytes).
template <class Policy, class T>
constexpr std::uint64_t scan_pipeline_tile_elems() {
  return std::uint64_t(Policy::scan_warps) * warp::size * Policy::lane_vectors * (16 / sizeof(T));
}

/// Dynamic shared memory of the pipeline kernel: the stages.
template <class Policy, class T>
constexpr std::size_t scan_pipeline_smem_bytes() {
  return std::size_t(Policy::stages) * scan_pipeline_tile_elems<Policy, T>() * sizeof(T);
}

template <class Policy, bool Exclusive, bool HasInit, class T, class Op>
__global__ void __launch_bounds__(Policy::block_threads)
scan_pipeline_kernel(const T* in, T* out, std::uint64_t n, Op op, T init, tile_state<T> state, unsigned* counter,
                     std::uint64_t num_tiles, lookback_waits waits) {
#ifdef CUPRIM_HAS_BULK_COPY
  constexpr int W = Policy::scan_warps, K = Policy::lane_vectors, S = Policy::stages;
  constexpr int V = 16 / int(sizeof(T));                        // elements per 16-byte vector
  constexpr int LE = K * V;                                      // elements per lane
  constexpr int SE = warp::size * LE;                            // elements per segment
  constexpr std::uint64_t TE = std::uint64_t(W) * SE;            // elements per tile
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the pipeline scans 4- and 8-byte types");
  static_assert(K % 2 == 1, "lane_vectors must be odd (conflict-free 16-byte shared accesses)");
  static_assert(W <= warp::size, "at most 32 scan warps");

  extern __shared__ __align__(128) unsigned char scan_stages[];
  T* const stages = reinterpret_cast<T*>(scan_stages);  // S tiles
  __shared__ unsigned long long full_bar[S], agg_bar[S], pre_bar[S], empty_bar[S];
  __shared__ std::uint64_t stage_tile[S];
  __shared__ uninitialized<T> seg_excl[S][W];    // op over the tile's earlier segments (absent for segment 0)
  __shared__ bool seg_excl_has[S][W];
  __shared__ uninitialized<T> tile_total[S];
  __shared__ uninitialized<T> seg_prefix[S][W];  // the whole prefix of each segment's first element
  __shared__ bool seg_prefix_has[S][W];

  const int warp_id = threadIdx.x / warp::size, lane = warp::lane_id();
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbarrier_init(&full_bar[s], 1);
      mbarrier_init(&agg_bar[s], 1);
      mbarrier_init(&pre_bar[s], 1);
      mbarrier_init(&empty_bar[s], W);
    }
    fence_mbarrier_init();
  }
  __syncthreads();                // the last block-wide barrier: the roles below never meet again
  wait_for_prerequisite_grid();   // the zeroed counter and tile states

  if (warp_id == 0) {
    // ---- producer
    if (lane != 0) return;
    for (unsigned k = 0;; ++k) {
      const int s = int(k % S);
      if (k >= unsigned(S)) mbarrier_wait(&empty_bar[s], ((k / S) - 1) & 1u);
      const std::uint64_t tile = atomicAdd(counter, 1u);
      stage_tile[s] = tile;
      if (tile >= num_tiles) {
        mbarrier_arrive(&full_bar[s]);  // tells every role to stop
        return;
      }
      const std::uint64_t base = tile * TE;
      const std::uint64_t count = n - base < TE ? n - base : TE;
      const unsigned bulk = static_cast<unsigned>(count * sizeof(T)) & ~15u;
      T* dst = stages + std::size_t(s) * TE;
      for (std::uint64_t i = bulk / sizeof(T); i < count; ++i) dst[i] = in[base + i];  // last tile's < 16 bytes
      if (bulk > 0) {
        mbarrier_arrive_expect_tx(&full_bar[s], bulk);
        bulk_load(dst, in + base, bulk, &full_bar[s]);
      } else {
        mbarrier_arrive(&full_bar[s]);
      }
    }
  }

  if (warp_id == 1) {
    // ---- aggregator: the segment totals and the tile's aggregate, published as soon as the data is in
    for (unsigned k = 0;; ++k) {
      const int s = int(k % S);
      const unsigned parity = (k / S) & 1u;
      mbarrier_wait(&full_bar[s], parity);
      const std::uint64_t tile = stage_tile[s];
      if (tile >= num_tiles) return;
      const T* t = stages + std::size_t(s) * TE;
      const bool tile_full = tile * TE + TE <= n;
      const int count = tile_full ? int(TE) : int(n - tile * TE);
      maybe<T> seg[W];
      if (tile_full) {
        T lane_total[W];
#pragma unroll
        for (int w = 0; w < W; ++w) {
          const uint4* p = reinterpret_cast<const uint4*>(t + w * SE + lane * LE);
          T x[LE];
#pragma unroll
          for (int v = 0; v < K; ++v) {
            const uint4 r = p[v];
            std::memcpy(&x[v * V], &r, 16);
          }
          T acc = x[0];
#pragma unroll
          for (int i = 1; i < LE; ++i) acc = op(acc, x[i]);
          lane_total[w] = acc;
        }
#pragma unroll
        for (int w = 0; w < W; ++w) seg[w] = {warp::reduce(lane_total[w], op, warp::size), true};
      } else {
#pragma unroll
        for (int w = 0; w < W; ++w) {
          const int first = w * SE + lane * LE;
          const int c = count - first < 0 ? 0 : (count - first > LE ? LE : count - first);
          T acc = T{};
          for (int i = 0; i < c; ++i) acc = i == 0 ? t[first] : op(acc, t[first + i]);
          const int lanes = __popc(__ballot_sync(warp::full_mask, c > 0));  // a prefix of the lanes
          seg[w] = {lanes > 0 ? warp::reduce(acc, op, lanes > 0 ? lanes : 1) : T{}, lanes > 0};
        }
      }
      maybe<T> running{T{}, false};
#pragma unroll
      for (int w = 0; w < W; ++w) {
        if (lane == 0) {
          seg_excl[s][w].get() = running.value;
          seg_excl_has[s][w] = running.has;
        }
        running = combine(running, seg[w], op);
      }
      if (lane == 0) {
        tile_total[s].get() = running.value;
        if (tile > 0) state.publish(tile, tile_aggregate, running.value);
        mbarrier_arrive(&agg_bar[s]);
      }
      __syncwarp();
    }
  }

  if (warp_id == 2) {
    // ---- look-back: the tile's prefix, its inclusive prefix published, each segment's prefix handed on
    constexpr int R = Policy::lookback_tiles_per_lane;
    for (unsigned k = 0;; ++k) {
      const int s = int(k % S);
      const unsigned parity = (k / S) & 1u;
      mbarrier_wait(&full_bar[s], parity);
      const std::uint64_t tile = stage_tile[s];
      if (tile >= num_tiles) return;
      mbarrier_wait(&agg_bar[s], parity);
      maybe<T> prefix{init, HasInit};
      if (tile > 0) prefix = {look_back<R, T, Op>(state, tile, op, waits), true};
      if (lane == 0 && tile + 1 < num_tiles)
        state.publish(tile, tile_prefix, combine(prefix, maybe<T>{tile_total[s].get(), true}, op).value);
      if (lane < W) {
        const maybe<T> p = combine(prefix, maybe<T>{seg_excl[s][lane].get(), seg_excl_has[s][lane]}, op);
        seg_prefix[s][lane].get() = p.value;
        seg_prefix_has[s][lane] = p.has;
      }
      __syncwarp();
      if (lane == 0) mbarrier_arrive(&pre_bar[s]);
    }
  }

  // ---- scan warps: one segment each
  const int w = warp_id - 3;
  for (unsigned k = 0;; ++k) {
    const int s = int(k % S);
    const unsigned parity = (k / S) & 1u;
    mbarrier_wait(&full_bar[s], parity);
    const std::uint64_t tile = stage_tile[s];
    if (tile >= num_tiles) return;
    mbarrier_wait(&pre_bar[s], parity);
    T* t = stages + std::size_t(s) * TE + std::size_t(w) * SE;
    const std::uint64_t seg_base = tile * TE + std::uint64_t(w) * SE;
    const bool seg_full = seg_base + SE <= n;
    const int seg_count = seg_full ? SE : (seg_base < n ? int(n - seg_base) : 0);
    maybe<T> p{seg_prefix[s][w].get(), seg_prefix_has[s][w]};
#ifdef CUPRIM_SCAN_PIPELINE_DEBUG
    if (lane == 0 && tile * TE + TE > n)
      printf("blk %d w %d k %u s %d tile %llu n %llu seg_count %d SE %d full %d\n", int(blockIdx.x), w, k, s,
             (unsigned long long)tile, (unsigned long long)n, seg_count, SE, int(seg_full));
#endif
    if (seg_full) {
      T x[LE];
      uint4* q = reinterpret_cast<uint4*>(t + lane * LE);
#pragma unroll
      for (int v = 0; v < K; ++v) {
        const uint4 r = q[v];
        std::memcpy(&x[v * V], &r, 16);
      }
#pragma unroll
      for (int i = 1; i < LE; ++i) x[i] = op(x[i - 1], x[i]);
      const T incl = warp::inclusive_scan(x[LE - 1], op);
      p = combine(p, maybe<T>{warp::shfl_up(incl, 1), lane > 0}, op);
      T y[LE];
      if constexpr (Exclusive) {
#pragma unroll
        for (int i = LE - 1; i > 0; --i) y[i] = op(p.value, x[i - 1]);
        y[0] = p.value;
      } else {
#pragma unroll
        for (int i = 0; i < LE; ++i) y[i] = p.has ? op(p.value, x[i]) : x[i];
      }
#pragma unroll
      for (int v = 0; v < K; ++v) {
        uint4 r;
        std::memcpy(&r, &y[v * V], 16);
        q[v] = r;
      }
      fence_proxy_async_shared();  // the writes above, before the copy engine reads them
      __syncwarp();
      if (lane == 0) {
        bulk_store(out + seg_base, t, unsigned(SE * sizeof(T)));
        bulk_commit();
        bulk_wait_read<0>();  // the stage may be refilled once the copy has read it
      }
    } else if (seg_count > 0) {
      // The last tile's partial segment, element by element from shared memory (plain loops: no register
      // arrays indexed by the run-time count). Lane l owns [l·LE, l·LE + c); lanes without elements come last.
      const int first = lane * LE;
      const int c = seg_count - first < 0 ? 0 : (seg_count - first > LE ? LE : seg_count - first);
      T total = c > 0 ? t[first] : T{};
      for (int i = 1; i < c; ++i) total = op(total, t[first + i]);
      const T incl = warp::inclusive_scan(total, op);
      maybe<T> run = combine(p, maybe<T>{warp::shfl_up(incl, 1), lane > 0}, op);
      for (int i = 0; i < c; ++i) {
        const T x = t[first + i];
        if constexpr (Exclusive) {
          out[seg_base + first + i] = run.value;  // an exclusive scan has an init: run.has holds
          run = combine(run, maybe<T>{x, true}, op);
        } else {
          run = combine(run, maybe<T>{x, true}, op);
          out[seg_base + first + i] = run.value;
        }
      }
    }
    __syncwarp();
    if (lane == 0) mbarrier_arrive(&empty_bar[s]);
  }
#else
  __trap();  // never launched: the host takes this kernel only where the device and its code are sm_90
#endif
}

}  // namespace cuprim::detail
