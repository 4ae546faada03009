// cuprim/device/detail/scan_kernel.cuh: the single-pass scan, one tile per block, with decoupled look-back
// (lookback.cuh), and the same tile scan over one thread-block cluster for inputs of a few tiles.
//
// A block takes the next tile id from the atomic counter, loads its tile with coalesced 16-byte loads
// (scan_load_tile), and scan_tile does the rest:
//   scan_chunks            each thread's chunks, then each chunk across the warp (shuffles); warp totals to shared
//   look-back              warp 0: the warp totals' scan, the tile's aggregate published, the look-back, the
//                          inclusive prefix published, each warp's prefix handed on
//   tile_prefix_cluster    the same from the earlier blocks' totals in distributed shared memory, for the cluster
//   apply and store        each element's prefix applied, the results stored (store_chunk, store_staged: 16-byte
//                          vectors or pieces)
// Each element is read once and written once. No identity element is needed ("nothing yet" is a flag), and the
// operator's left operand is always the earlier part of the sequence (non-commutative operators are fine).
#pragma once

#include <cuprim/core/functional.cuh>
#include <cuprim/device/detail/async_copy.cuh>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/load.cuh>
#include <cuprim/device/detail/lookback.cuh>
#include <cuprim/device/detail/scan_tuning.cuh>
#include <cuprim/warp/scan.cuh>

#include <cooperative_groups.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cuprim::detail {

/// The address of `p` (a shared variable of this block) in the shared memory of cluster block `rank`.
template <class T>
__device__ __forceinline__ T* cluster_shared_at(T* p, unsigned rank) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  return cooperative_groups::this_cluster().map_shared_rank(p, rank);
#else
  return p;
#endif
}

template <class T, int Bytes>
__device__ __forceinline__ void store_vector(T* p, const T (&v)[Bytes / sizeof(T)]) {
  using raw = typename raw_vector<Bytes>::type;
  raw r;
  std::memcpy(&r, v, Bytes);
  *reinterpret_cast<raw*>(p) = r;
}

/// The shared memory scan_tile's steps hand each other: each warp's total, and each warp's prefix (absent when
/// has is false: nothing before the warp and no init).
template <class Acc, int Warps>
struct scan_tile_shared {
  uninitialized<Acc> (&warp_totals)[Warps];
  uninitialized<Acc> (&warp_prefix)[Warps];
  bool (&warp_has_prefix)[Warps];
};

/// Step 1: scans each of the thread's K chunks in registers, then each chunk across the warp. lane_prefix[k] is op
/// over the earlier lanes of chunk k (absent for lane 0), chunk_total[k] the chunk's warp total; returns the warp's
/// total.
template <int K, int V, class Acc, class Op>
__device__ __forceinline__ Acc scan_chunks(Acc (&x)[K][V], Op op, Acc (&lane_prefix)[K], Acc (&chunk_total)[K]) {
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
  return warp_total;
}

/// Step 2 of the cluster scan, by every thread: warp 0 scans the warp totals and offers the block's total to the
/// cluster, and after a cluster barrier folds the earlier blocks' totals strictly left to right (so floating-point
/// results do not depend on timing) into each warp's prefix. The block then arrives at a second cluster barrier,
/// which it waits on at the end (apply_and_store), so that no block leaves while another may still read its total.
template <bool HasInit, int Warps, class Acc, class Op>
__device__ __forceinline__ void tile_prefix_cluster(const scan_tile_shared<Acc, Warps>& s,
                                                    uninitialized<Acc>& cluster_total, int lane, int w,
                                                    std::uint64_t tile, Op op, const Acc& init) {
  if (w == 0) {
    Acc t = s.warp_totals[lane < Warps ? lane : 0].get();
    Acc block_total;
    Acc incl = warp::inclusive_scan(t, op, Warps, block_total);
    Acc excl = warp::shfl_up(incl, 1);
    if (lane == 0) cluster_total.get() = block_total;
    if (lane < Warps) s.warp_prefix[lane].get() = excl;  // the warp's prefix within the tile, for the moment
  }
  cluster_barrier_arrive();
  cluster_barrier_wait();
  if (w == 0) {
    // Lane j < tile reads block j's total (the others their own, unused).
    const unsigned rank = unsigned(tile);
    const Acc a = *cluster_shared_at(&cluster_total.get(), lane < int(rank) ? unsigned(lane) : rank);
    maybe<Acc> tile_prefix_v{init, HasInit};
    for (unsigned j = 0; j < rank; ++j)
      tile_prefix_v = combine(tile_prefix_v, maybe<Acc>{warp::shfl(a, int(j)), true}, op);
    if (lane < Warps) {
      maybe<Acc> p = combine(tile_prefix_v, maybe<Acc>{s.warp_prefix[lane].get(), lane > 0}, op);
      s.warp_prefix[lane].get() = p.value;
      s.warp_has_prefix[lane] = p.has;
    }
  }
  cluster_barrier_arrive();  // done with the other blocks' shared memory (waited on at the end)
}

/// How a lane stores its V results of type Out. A lane's V results are one store of up to 16 bytes. An output wider
/// than the input (uint32 -> uint64, uint8 -> int32) gives a lane 32 or 64 bytes: those go through a per-warp staging
/// buffer in shared memory, so that the warp's stores are consecutive 16-byte pieces (strided 16-byte stores measured
/// 1.8 TB/s for uint32 -> uint64 at 2^27 on an H200, V scalar stores 1.4 TB/s), while the buffer stays small (16 KiB:
/// 4 warps of 64-byte lanes); larger blocks store the pieces strided.
template <class Out, int V, int Warps>
struct scan_store_shape {
  static constexpr int bytes = int(sizeof(Out)) * V;
  static constexpr bool arith = std::is_arithmetic_v<Out> || is_half_like_v<Out>;
  static constexpr bool vectorizable = arith && (bytes == 4 || bytes == 8 || bytes == 16);
  static constexpr bool pieced = arith && bytes > 16 && bytes % 16 == 0;
  static constexpr int pieces = pieced ? bytes / 16 : 1;  // 16-byte pieces per lane
  static constexpr bool staged = pieced && Warps * warp::size * pieces * 16 <= 16384;
};

/// Stores a lane's V results y of chunk k (its first element at out + i0) as vectors where the tile is full and
/// the output aligned: one vector of up to 16 bytes, or 16-byte pieces stored strided; returns false when the caller
/// must store them one by one (or, for staged outputs, through store_staged).
template <int V, int Warps, class Out>
__device__ __forceinline__ bool store_chunk(Out* out, std::uint64_t i0, const Out (&y)[V], bool vectors) {
  using S = scan_store_shape<Out, V, Warps>;
  if constexpr (S::vectorizable) {
    if (vectors) {
      store_vector<Out, S::bytes>(out + i0, y);
      return true;
    }
  } else if constexpr (S::pieced && !S::staged) {
    if (vectors) {
      constexpr int per = 16 / int(sizeof(Out));
#pragma unroll
      for (int j = 0; j < S::pieces; ++j)
        store_vector<Out, 16>(out + i0 + j * per, *reinterpret_cast<const Out(*)[per]>(y + j * per));
      return true;
    }
  }
  return false;
}

/// The staged form: the warp's results of chunk k pass through its rows of `stage` (shared memory), so that the
/// warp's stores are consecutive 16-byte pieces from out + chunk_base.
template <int V, int Warps, int Slots, class Out>
__device__ __forceinline__ void store_staged(Out* out, int lane, int w, std::uint64_t chunk_base, const Out (&y)[V],
                                             uint4 (&stage)[Warps][Slots]) {
  constexpr int pieces = Slots / warp::size;
  uint4* st = stage[w];
#pragma unroll
  for (int j = 0; j < pieces; ++j) std::memcpy(&st[lane * pieces + j], reinterpret_cast<const char*>(y) + 16 * j, 16);
  __syncwarp();
  uint4* dst = reinterpret_cast<uint4*>(out + chunk_base);
#pragma unroll
  for (int r = 0; r < pieces; ++r) dst[lane + warp::size * r] = st[lane + warp::size * r];
  __syncwarp();  // read before the next chunk is staged
}

/// Scans one tile held in registers (x[k][e] is element warp_base + (k*32 + lane)*V + e), finds its prefix,
/// publishes, and writes the tile. Called by every thread of the block. Elements past n (last tile only) hold
/// unspecified values; a scan is causal, so they never reach an element before them. With Cluster, the grid is one
/// thread-block cluster and `tile` is the block's rank in it (tile_prefix_cluster: no look-back, no tile states).
///
/// The steps: scan_chunks; warp 0 looks back (or tile_prefix_cluster); every element gets its prefix and is stored
/// (store_chunk, store_staged). (The look-back step and the apply loop stay in this function: moved into functions
/// of their own, nvcc 13.0 allocates the registers of user-type carries in another order; the machine code is kept
/// as it was.)
template <scan_policy P, bool Exclusive, bool HasInit, int V, bool Cluster = false, class Out, class Acc, class Op>
__device__ __forceinline__ void scan_tile(Acc (&x)[P.vectors][V], std::uint64_t tile, std::uint64_t n, Out* out,
                                          Op op, const Acc& init, const tile_state<Acc>& state,
                                          std::uint64_t num_tiles, bool vector_out, lookback_waits waits) {
  constexpr int K = P.vectors, WARPS = P.threads / warp::size;
  constexpr std::uint64_t warp_tile = std::uint64_t(warp::size) * K * V, tile_elems = warp_tile * WARPS;
  static_assert(!Exclusive || HasInit, "an exclusive scan needs an init value");
  __shared__ uninitialized<Acc> warp_totals[WARPS];
  __shared__ uninitialized<Acc> warp_prefix[WARPS];
  __shared__ bool warp_has_prefix[WARPS];

  const int tid = threadIdx.x, lane = tid % warp::size, w = tid / warp::size;
  const std::uint64_t tile_base = tile * tile_elems;
  const std::uint64_t warp_base = tile_base + std::uint64_t(w) * warp_tile;
  const bool full = tile_base + tile_elems <= n;

  Acc lane_prefix[K], chunk_total[K];
  const Acc warp_total = scan_chunks(x, op, lane_prefix, chunk_total);
  if (lane == 0) warp_totals[w].get() = warp_total;
  __syncthreads();

  if constexpr (Cluster) {
    __shared__ uninitialized<Acc> cluster_total;  // the block's total, read by the later blocks of the cluster
    const scan_tile_shared<Acc, WARPS> s{warp_totals, warp_prefix, warp_has_prefix};
    tile_prefix_cluster<HasInit>(s, cluster_total, lane, w, tile, op, init);
  } else if (w == 0) {
    // Warp 0: scan the warp totals, publish the tile's aggregate, look back for its prefix, publish its inclusive
    // prefix (tile 0's includes init, so every prefix does), hand each warp its prefix.
    Acc t = warp_totals[lane < WARPS ? lane : 0].get();
    Acc block_total;
    Acc incl = warp::inclusive_scan(t, op, WARPS, block_total);
    Acc excl = warp::shfl_up(incl, 1);
    maybe<Acc> tile_prefix_v{init, HasInit};
    if (tile > 0) {
      if (lane == 0) state.publish(tile, tile_aggregate, block_total);
      tile_prefix_v = {look_back<P.lookback_tiles_per_lane, Acc, Op>(state, tile, op, waits), true};
    }
    if (lane == 0 && tile + 1 < num_tiles)
      state.publish(tile, tile_prefix, combine(tile_prefix_v, maybe<Acc>{block_total, true}, op).value);
    if (lane < WARPS) {
      maybe<Acc> p = combine(tile_prefix_v, maybe<Acc>{excl, lane > 0}, op);
      warp_prefix[lane].get() = p.value;
      warp_has_prefix[lane] = p.has;
    }
  }
  __syncthreads();

  // Element (k, lane, e) gets prefix(warp) ⊕ carry(chunks before k) ⊕ lane_prefix(k) ⊕ x[k][e].
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
    using S = scan_store_shape<Out, V, WARPS>;
    bool stored = false;
    if constexpr (S::staged) {
      __shared__ uint4 out_stage[WARPS][warp::size * S::pieces];
      if (full && vector_out) {
        store_staged<V, WARPS>(out, lane, w, warp_base + std::uint64_t(k) * warp::size * V, y, out_stage);
        stored = true;
      }
    } else if constexpr (S::vectorizable || S::pieced) {
      stored = store_chunk<V, WARPS>(out, i0, y, full && vector_out);
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
template <scan_policy P, int V, class In, class Acc>
__device__ __forceinline__ void scan_load_tile(const In* in, const void* out, std::uint64_t n, std::uint64_t warp_base,
                                               bool full, bool vector_in, Acc (&x)[P.vectors][V]) {
  constexpr int K = P.vectors;
  const int lane = threadIdx.x % warp::size;
  const bool in_place = static_cast<const void*>(in) == out;
  if (full && vector_in) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      In raw[V];
      const In* src = in + warp_base + (std::uint64_t(k) * warp::size + lane) * V;
      // In place, the tile is overwritten while the kernel runs: no read-only cache path then.
      if (in_place) load_vector<In, P.vector_bytes, false>(src, raw);
      else load_vector<In, P.vector_bytes, true>(src, raw);
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
/// aligned); a single-tile input takes one block and no look-back. Policy: a policy_constant of a scan_policy.
template <class Policy, bool Exclusive, bool HasInit, class In, class Out, class Acc, class Op>
__global__ void __launch_bounds__(Policy::value.threads)
scan_kernel(const In* in, Out* out, std::uint64_t n, Op op, Acc init, tile_state<Acc> state, unsigned* counter,
            std::uint64_t num_tiles, bool vector_in, bool vector_out, lookback_waits waits) {
  constexpr scan_policy P = Policy::value;
  using vt = vector_traits<In, P.vector_bytes>;
  constexpr int TH = P.threads, K = P.vectors, V = vt::elems, WARPS = TH / warp::size;
  constexpr std::uint64_t warp_tile = std::uint64_t(warp::size) * K * V, tile_elems = warp_tile * WARPS;
  const int w = threadIdx.x / warp::size;
  wait_for_prerequisite_grid();  // the zeroed counter and tile states (multi-tile launches are dependent launches)
  const std::uint64_t tile = take_tile_id(counter, num_tiles);
  const std::uint64_t tile_base = tile * tile_elems;
  const std::uint64_t warp_base = tile_base + std::uint64_t(w) * warp_tile;
  const bool full = tile_base + tile_elems <= n;
  Acc x[K][V];
  scan_load_tile<P, V>(in, out, n, warp_base, full, vector_in, x);
  scan_tile<P, Exclusive, HasInit, V>(x, tile, n, out, op, init, state, num_tiles, vector_out, waits);
}

/// The scan of a small input in one launch: the grid is one thread-block cluster, block b scans tile b and takes
/// its prefix from the earlier blocks' totals through distributed shared memory (scan_tile with Cluster). No
/// workspace, no zeroing launch before it.
template <class Policy, bool Exclusive, bool HasInit, class In, class Out, class Acc, class Op>
__global__ void __launch_bounds__(Policy::value.threads)
scan_cluster_kernel(const In* in, Out* out, std::uint64_t n, Op op, Acc init, bool vector_in, bool vector_out) {
  constexpr scan_policy P = Policy::value;
  using vt = vector_traits<In, P.vector_bytes>;
  constexpr int TH = P.threads, K = P.vectors, V = vt::elems, WARPS = TH / warp::size;
  constexpr std::uint64_t warp_tile = std::uint64_t(warp::size) * K * V, tile_elems = warp_tile * WARPS;
  const int w = threadIdx.x / warp::size;
  const std::uint64_t tile = blockIdx.x;  // the block's rank in the cluster (the grid is one cluster)
  const std::uint64_t tile_base = tile * tile_elems;
  const std::uint64_t warp_base = tile_base + std::uint64_t(w) * warp_tile;
  const bool full = tile_base + tile_elems <= n;
  Acc x[K][V];
  scan_load_tile<P, V>(in, out, n, warp_base, full, vector_in, x);
  scan_tile<P, Exclusive, HasInit, V, true>(x, tile, n, out, op, init, tile_state<Acc>{}, gridDim.x, vector_out,
                                            lookback_waits{});
}

}  // namespace cuprim::detail
