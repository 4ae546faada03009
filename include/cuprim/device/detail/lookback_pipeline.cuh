// cuprim/device/detail/lookback_pipeline.cuh: the persistent, warp-specialized decoupled look-back pipeline
// behind the large-input scan (scan_pipeline_kernel.cuh) and select_if (select_pipeline_kernel.cuh).
//
// Why: in a one-tile-per-block kernel a block holds its tile while its look-back completes, and each look-back
// starts only when that block's own load has landed, so the bytes in flight per SM fall exactly while the prefix
// chain is being resolved. Here each resident block keeps `stages` tiles in a shared-memory ring and gives each job
// to its own warps, so the copy engine keeps loading while earlier tiles wait for their prefixes:
//
//   warp 0 (one lane)  producer    takes the next tile id from the atomic counter, bulk-loads the tile
//                                  (cp.async.bulk) into a free stage                        -> full[s]
//   warp 1             aggregator  the carry of each segment of the tile (job.segment_total), publishes the
//                                  tile's aggregate at once (never waits on another tile)   -> agg[q]
//   warp 2             look-back   the tile's prefix (lookback.cuh's look_back), publishes the inclusive
//                                  prefix and hands each segment its prefix                 -> pre[q]
//   warps 3..          segments    one segment each (job.emit: scan and store, or compact and store); the
//                                  stage is released when every segment warp is done (with
//                                  early release: when their reads and the aggregator's are)  -> empty[s]
//
// Early release (jobs with emit_regs: the scan). A segment warp copies its full segment into registers and
// releases the stage at once (with the aggregator's reads), then scans it and waits for its prefix holding the
// data in registers, and stores from there. A stage then lives for its load and two reads instead of also for the
// tile's look-back, and a block has one more tile in flight (in registers). H200, 2^28 uint32 / float: 89% ->
// 92% of the device copy (docs/tuning/scan.md). Tile metadata (id, carries, prefixes) then outlives the
// stage and lives in a ring of S + 1 slots, q = k % (S + 1) for stage use k (s = k % S).
//
// Progress: ids come from the counter in the order blocks ask for them, a tile's aggregate depends only on its
// own data, and a look-back waits only for aggregates of lower ids, all already taken by running blocks; so no
// wait depends on block scheduling. Tile layout: `scan_warps` segments of 32 lanes × `lane_vectors` 16-byte
// vectors, a lane's elements consecutive (lane_vectors odd: 16-byte shared-memory accesses without bank
// conflicts). The last tile may be partial; its tail past the last 16 bytes is copied element by element.
//
// A job (the algorithm) provides: value_type (4 or 8 bytes) and carry_type; the members of pipeline_common; op
// (associative, on carries); initial() (the prefix of tile 0, maybe absent); segment_total<Shape>(seg, count)
// (a warp-wide maybe-carry of a segment's first `count` elements); optionally lane_total<Shape>(seg) (op over one
// lane's elements of a full segment, where carries are values: full tiles then take full_tile_totals, whose W warp
// reductions interleave); emit<Shape>(seg, seg_base, count, prefix)
// (the segment's output, given the carry of everything before it); finish(total) (the last tile, with the carry
// of the whole input).
//
// Keyed jobs (the scan by key) also name `key_type` (of value_type's size) and `keys`: the producer then loads the
// tile's keys beside its values into a second ring, each stage preceded by the key just before the tile
// (stage_keys(t) is the key of the value at t, and stage_keys(t)[-1] exists for every element), and a segment warp
// takes its keys' facts into registers (job.load_side) before it releases the stage.
#pragma once

#include <cuprim/device/detail/async_copy.cuh>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/lookback.cuh>
#include <cuprim/device/detail/scan_tuning.cuh>

#include <cstdint>

namespace cuprim::detail {

/// Tile geometry of a pipeline policy for elements of T (4 or 8 bytes).
template <lookback_pipeline_policy P, class T>
struct pipeline_shape {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the pipeline takes 4- and 8-byte elements");
  static constexpr int W = P.scan_warps, K = P.lane_vectors, S = P.stages;
  static constexpr int V = 16 / int(sizeof(T));  // elements per 16-byte vector
  static constexpr int LE = K * V;               // elements per lane
  static constexpr int SE = warp::size * LE;     // elements per segment
  static constexpr std::uint64_t TE = std::uint64_t(W) * SE;  // elements per tile
  static constexpr std::size_t smem_bytes = std::size_t(S) * TE * sizeof(T);
  static constexpr std::uint64_t tiles(std::uint64_t n) { return (n + TE - 1) / TE; }
};

/// Whether a job is keyed (names key_type and keys: see the file comment).
template <class Job>
inline constexpr bool pipeline_keyed = requires { typename Job::key_type; };
/// A keyed job's key type (its value type for other jobs, so that the producer's key pointers always have a type).
template <class Job, bool = pipeline_keyed<Job>>
struct pipeline_key_of {
  using type = typename Job::value_type;
};
template <class Job>
struct pipeline_key_of<Job, true> {
  using type = typename Job::key_type;
};

/// The ring of keys of a keyed job, after the S value stages: per stage a 16-byte header whose last key is the one
/// before the tile, then the tile's TE keys.
template <class Shape, class Key>
struct pipeline_key_ring {
  static_assert(sizeof(Key) <= 16 && 16 % sizeof(Key) == 0, "pipeline keys: 1, 2, 4, 8 or 16 bytes");
  static constexpr std::size_t stage_bytes = 16 + Shape::TE * sizeof(Key);
  static constexpr std::size_t bytes = Shape::S * stage_bytes;
  /// The keys of stage s (value stages start at `base`).
  template <class T>
  static __device__ __forceinline__ Key* stage(unsigned char* base, int s) {
    return reinterpret_cast<Key*>(base + Shape::S * Shape::TE * sizeof(T) + std::size_t(s) * stage_bytes + 16);
  }
};

/// Dynamic shared memory of the pipeline kernel for Job: the value stages, and the key ring of a keyed job.
template <class Shape, class Job>
constexpr std::size_t pipeline_smem_bytes() {
  if constexpr (pipeline_keyed<Job>) return Shape::smem_bytes + pipeline_key_ring<Shape, typename Job::key_type>::bytes;
  else return Shape::smem_bytes;
}

/// The block's dynamic shared memory (every extern __shared__ array names its start).
__device__ __forceinline__ unsigned char* pipeline_smem() {
  extern __shared__ __align__(128) unsigned char pipeline_stages[];
  return pipeline_stages;
}

/// The key of the value at t (a pointer into the value stages) of a keyed job; [-1] is the key before it.
template <class Shape, class Key, class T>
__device__ __forceinline__ const Key* stage_keys(const T* t) {
  unsigned char* base = pipeline_smem();
  const std::size_t i = std::size_t(t - reinterpret_cast<const T*>(base));
  return pipeline_key_ring<Shape, Key>::template stage<T>(base, int(i / Shape::TE)) + i % Shape::TE;
}

/// What every job carries for the skeleton (filled in by pipeline_launch).
template <class T, class C>
struct pipeline_common {
  const T* in;
  std::uint64_t n;
  std::uint64_t num_tiles;
  unsigned* counter;    // tile ids (zeroed before the launch)
  tile_state<C> state;  // zeroed before the launch
  lookback_waits waits;
};

/// A lane's K vectors of a segment in shared memory, into registers.
template <class Shape, class T>
__device__ __forceinline__ void load_lane(const T* seg, T (&x)[Shape::LE]) {
  const uint4* p = reinterpret_cast<const uint4*>(seg + warp::lane_id() * Shape::LE);
#pragma unroll
  for (int v = 0; v < Shape::K; ++v) {
    const uint4 r = p[v];
    std::memcpy(&x[v * Shape::V], &r, 16);
  }
}

/// A full segment in shared memory into registers, warp-striped: the lane's vectors lane, lane + 32, ...
/// (x[j·V .. j·V + V) is vector j·32 + lane; conflict-free for any K).
template <class Shape, class T>
__device__ __forceinline__ void load_striped(const T* seg, T (&x)[Shape::LE]) {
  const uint4* p = reinterpret_cast<const uint4*>(seg) + warp::lane_id();
#pragma unroll
  for (int j = 0; j < Shape::K; ++j) {
    const uint4 r = p[j * warp::size];
    std::memcpy(&x[j * Shape::V], &r, 16);
  }
}

/// Elements of the lane's range [lane·LE, lane·LE + LE) below `count` (0..LE).
template <class Shape>
__device__ __forceinline__ int lane_count(int count) {
  const int first = warp::lane_id() * Shape::LE;
  return count <= first ? 0 : (count - first >= Shape::LE ? Shape::LE : count - first);
}

/// Whether the job offers lane_total<Shape>(segment) (op over one lane's LE elements of a full segment, carries of
/// type C = value type): the aggregator then takes full tiles in one pass (full_tile_totals).
template <class Job, class Shape>
inline constexpr bool has_lane_total = requires(const Job& j, const typename Job::value_type* p) {
  j.template lane_total<Shape>(p);
};

/// The carry of segment w of a tile holding `count` elements (the job's segment_total over its share).
template <class Shape, class Job>
__device__ __forceinline__ maybe<typename Job::carry_type> segment_total_at(const Job& job,
                                                                           const typename Job::value_type* t, int w,
                                                                           std::uint64_t count) {
  const std::uint64_t first = std::uint64_t(w) * Shape::SE;
  const int c = first + Shape::SE <= count ? Shape::SE : (first < count ? int(count - first) : 0);
  return job.template segment_total<Shape>(t + first, c);
}

/// Every segment carry of a full tile: all W lane totals first, then the W ordered warp reductions interleaved
/// level by level (the shuffles of one segment no longer wait for another's). Lane 0 holds the results, in the
/// same lane order as warp::reduce(v, op, 32). H200, 2^28 uint32 / float: the aggregator's pass 4500 -> 2250 SM
/// cycles per tile, the scan 1.19-1.20x -> 1.21-1.22x CUB (docs/tuning/scan.md).
template <class Shape, class Job>
__device__ __forceinline__ void full_tile_totals(const Job& job, const typename Job::value_type* t,
                                                 maybe<typename Job::carry_type> (&seg)[Shape::W]) {
  using C = typename Job::carry_type;
  constexpr int W = Shape::W;
  const int lane = warp::lane_id();
  C v[W];
#pragma unroll
  for (int w = 0; w < W; ++w) v[w] = job.template lane_total<Shape>(t + std::size_t(w) * Shape::SE);
#pragma unroll
  for (int offset = 1; offset < warp::size; offset *= 2) {
#pragma unroll
    for (int w = 0; w < W; ++w) {
      const C other = warp::shfl_down(v[w], unsigned(offset));
      if (lane + offset < warp::size) v[w] = job.op(v[w], other);
    }
  }
#pragma unroll
  for (int w = 0; w < W; ++w) seg[w] = {v[w], true};
}

/// Whether the job offers emit_regs<Shape>(x, seg_base, prefix) (a full segment's output from registers, the
/// carry before it from the callable `prefix`, which waits for it), announced by `static constexpr bool
/// register_emit = true`: its segment warps then copy a full segment into registers and release the stage before
/// waiting for the prefix.
template <class Job>
inline constexpr bool has_register_emit = requires { requires Job::register_emit; };

/// The block's shared memory: the ring of S stages with their barriers, and what the roles hand each other about
/// the tile of each of Q slots (its id, segment carries, total, and each segment's prefix, with their barriers).
/// Without early release Q = S and a slot is its stage; with it, Q = S + 1 (stage use k is slot k % Q).
template <class T, class C, int S, int Q, int W>
struct pipeline_ring {
  T* stages;                                     // S tiles
  unsigned long long (&full_bar)[S];             // per stage: the tile is in
  unsigned long long (&empty_bar)[S];            // per stage: the stage may be refilled
  unsigned long long (&agg_bar)[Q];              // per slot: the segment carries and the tile's total are in
  unsigned long long (&pre_bar)[Q];              // per slot: the segments' prefixes are in
  std::uint64_t (&slot_tile)[Q];
  uninitialized<C> (&seg_excl)[Q][W];  // carry of the tile's earlier segments (absent for segment 0)
  bool (&seg_excl_has)[Q][W];
  uninitialized<C> (&tile_total)[Q];
  uninitialized<C> (&seg_prefix)[Q][W];  // carry of everything before each segment
  bool (&seg_prefix_has)[Q][W];
};

// Why no barrier phase is ever awaited a lap late (mbarrier parities name a phase only within one lap): stage use
// k + S needs the release of use k by every segment warp, which (early or not) comes after that warp has finished
// use k - 1 entirely; so the aggregator and the segment warps, which take every use in order, see full_bar[s] at
// most one phase ahead, and slot k % Q is refilled (use k + Q) only after everyone is done with use k. The
// look-back warp waits on its slot's agg_bar only, never on full_bar (which, with early release, may run a lap
// ahead of it).

/// The producer's part for a keyed job's stage s holding `count` elements of `tile`: the tail past the last 16 bytes
/// element by element; returns the bytes to bulk-load from `from` (the stage's header comes with the keys: the 16
/// bytes before the tile, whose last key is the one before it; tile 0 has none, and its header's last key is its
/// own first, never compared with effect: nothing precedes element 0).
template <class Shape, class Job>
__device__ __forceinline__ unsigned produce_keys(const Job& job, int s, std::uint64_t tile, std::uint64_t count,
                                                 typename Job::key_type*& to, const typename Job::key_type*& from) {
  using Key = typename Job::key_type;
  constexpr std::uint64_t header = 16 / sizeof(Key);
  Key* dst = pipeline_key_ring<Shape, Key>::template stage<typename Job::value_type>(pipeline_smem(), s);
  const std::uint64_t base = tile * Shape::TE;
  const unsigned bulk = static_cast<unsigned>(count * sizeof(Key)) & ~15u;
  for (std::uint64_t i = bulk / sizeof(Key); i < count; ++i) dst[i] = job.keys[base + i];
  if (tile == 0) dst[-1] = job.keys[0];
  if (tile == 0 || bulk / sizeof(Key) < count) fence_proxy_async_shared();  // before the copy engine writes here
  to = tile > 0 ? dst - header : dst;
  from = tile > 0 ? job.keys + (base - header) : job.keys;
  return tile > 0 ? bulk + 16 : bulk;
}

/// Warp 0, one lane: takes tile ids and bulk-loads each tile into the next free stage; an id past the last tile
/// tells every role to stop.
template <class Shape, int Q, class Job, class Ring>
__device__ __forceinline__ void pipeline_produce(const Job& job, const Ring& r, std::uint64_t n,
                                                 std::uint64_t num_tiles) {
  using T = typename Job::value_type;
  constexpr int S = Shape::S;
  constexpr std::uint64_t TE = Shape::TE;
  for (unsigned k = 0;; ++k) {
    const int s = int(k % S), q = int(k % Q);
    if (k >= unsigned(S)) mbarrier_wait(&r.empty_bar[s], ((k / S) - 1) & 1u);
    const std::uint64_t tile = atomicAdd(job.counter, 1u);
    r.slot_tile[q] = tile;
    if (tile >= num_tiles) {
      mbarrier_arrive(&r.full_bar[s]);  // tells every role to stop
      return;
    }
    const std::uint64_t base = tile * TE;
    const std::uint64_t count = n - base < TE ? n - base : TE;
    const unsigned bulk = static_cast<unsigned>(count * sizeof(T)) & ~15u;
    T* dst = r.stages + std::size_t(s) * TE;
    if (bulk / sizeof(T) < count) {  // the last tile's tail, element by element
      for (std::uint64_t i = bulk / sizeof(T); i < count; ++i) dst[i] = job.in[base + i];
      fence_proxy_async_shared();  // before the copy engine writes this stage again
    }
    unsigned key_bulk = 0;
    using Key = typename pipeline_key_of<Job>::type;
    Key* key_to = nullptr;
    const Key* key_from = nullptr;
    if constexpr (pipeline_keyed<Job>) key_bulk = produce_keys<Shape>(job, s, tile, count, key_to, key_from);
    if (bulk + key_bulk > 0) {
      mbarrier_arrive_expect_tx(&r.full_bar[s], bulk + key_bulk);
      if (bulk > 0) bulk_load(dst, job.in + base, bulk, &r.full_bar[s]);
      if (key_bulk > 0) bulk_load(key_to, key_from, key_bulk, &r.full_bar[s]);
    } else {
      mbarrier_arrive(&r.full_bar[s]);
    }
  }
}

/// The carries of a tile's W segments (its first `count` elements in shared memory at t): in one pass over a full
/// tile where the job offers lane totals (full_tile_totals), segment by segment otherwise.
template <class Shape, class Job>
__device__ __forceinline__ void segment_totals(const Job& job, const typename Job::value_type* t, bool tile_full,
                                               std::uint64_t count, maybe<typename Job::carry_type> (&seg)[Shape::W]) {
  bool seg_done = false;
  if constexpr (has_lane_total<Job, Shape>) {
    if (tile_full) {
      full_tile_totals<Shape>(job, t, seg);
      seg_done = true;
    }
  }
  if (!seg_done) {
#pragma unroll
    for (int w = 0; w < Shape::W; ++w) seg[w] = segment_total_at<Shape>(job, t, w, count);
  }
}

/// The block's barriers, initialised by one thread before the block's barrier: per stage, `full` (the producer's
/// arrival and the bulk load's bytes) and `empty` (every segment warp's release, with early release the
/// aggregator's too); per slot, `agg` and `pre` (one arrival each).
template <class Ring>
__device__ __forceinline__ void pipeline_init_barriers(const Ring& r, int stages, int slots, unsigned releases) {
  for (int s = 0; s < stages; ++s) {
    mbarrier_init(&r.full_bar[s], 1);
    mbarrier_init(&r.empty_bar[s], releases);
  }
  for (int q = 0; q < slots; ++q) {
    mbarrier_init(&r.agg_bar[q], 1);
    mbarrier_init(&r.pre_bar[q], 1);
  }
  fence_mbarrier_init();
}

/// Warp 2: the tile's prefix, its inclusive prefix published (the last tile: job.finish), each segment's prefix
/// handed on.
template <class Shape, int Q, int R, class Job, class Ring>
__device__ __forceinline__ void pipeline_look_back(const Job& job, const Ring& r, int lane, std::uint64_t num_tiles) {
  using C = typename Job::carry_type;
  constexpr int W = Shape::W;
  for (unsigned k = 0;; ++k) {
    const int q = int(k % Q);
    mbarrier_wait(&r.agg_bar[q], (k / Q) & 1u);
    const std::uint64_t tile = r.slot_tile[q];
    if (tile >= num_tiles) return;
    maybe<C> prefix = job.initial();
    if (tile > 0) prefix = {look_back<R, C>(job.state, tile, job.op, job.waits), true};
    __syncwarp();     // every lane has read the slot before lane 0's arrive lets it be refilled
    if (lane == 0) {  // one thread writes what the arrive below publishes
      const maybe<C> inclusive = combine(prefix, maybe<C>{r.tile_total[q].get(), true}, job.op);
      if (tile + 1 < num_tiles) job.state.publish(tile, tile_prefix, inclusive.value);
      else job.finish(inclusive.value);
      for (int w = 0; w < W; ++w) {
        const maybe<C> p = combine(prefix, maybe<C>{r.seg_excl[q][w].get(), r.seg_excl_has[q][w]}, job.op);
        r.seg_prefix[q][w].get() = p.value;
        r.seg_prefix_has[q][w] = p.has;
      }
      mbarrier_arrive(&r.pre_bar[q]);
    }
    __syncwarp();
  }
}

/// Warps 3 .. 3 + W: segment w of every tile (job.emit, or with early release job.emit_regs from registers after
/// releasing the stage), then the stage's release.
template <class Shape, int Q, bool Early, class Job, class Ring>
__device__ __forceinline__ void pipeline_emit(const Job& job, const Ring& r, int w, int lane, std::uint64_t n,
                                              std::uint64_t num_tiles) {
  using T = typename Job::value_type;
  using C = typename Job::carry_type;
  constexpr int S = Shape::S, SE = Shape::SE;
  constexpr std::uint64_t TE = Shape::TE;
  for (unsigned k = 0;; ++k) {
    const int s = int(k % S), q = int(k % Q);
    mbarrier_wait(&r.full_bar[s], (k / S) & 1u);
    const std::uint64_t tile = r.slot_tile[q];
    if (tile >= num_tiles) return;
    T* t = r.stages + std::size_t(s) * TE + std::size_t(w) * SE;
    const std::uint64_t seg_base = tile * TE + std::uint64_t(w) * SE;
    // 64-bit bounds: an earlier clamped-int form of this count took the full-segment path for partial segments
    // in the nvcc 13.0 build (docs/tuning/scan.md).
    const int count = seg_base + SE <= n ? SE : (seg_base < n ? int(n - seg_base) : 0);
    auto prefix = [&] {
      mbarrier_wait(&r.pre_bar[q], (k / Q) & 1u);
      return maybe<C>{r.seg_prefix[q][w].get(), r.seg_prefix_has[q][w]};
    };
    if constexpr (Early) {
      if (count == SE) {
        T x[Shape::LE];
        load_striped<Shape>(t, x);
        if constexpr (pipeline_keyed<Job>) {
          const auto side = job.template load_side<Shape>(t);  // the keys' facts, read before the release
          fence_proxy_async_shared();  // the reads above, before the copy engine refills the stage
          __syncwarp();
          if (lane == 0) mbarrier_arrive(&r.empty_bar[s]);
          __syncwarp();  // one lane arrived: the whole warp again before the row scans' shuffles
          job.template emit_regs<Shape>(x, side, seg_base, prefix);
        } else {
          fence_proxy_async_shared();  // the reads above, before the copy engine refills the stage
          __syncwarp();
          if (lane == 0) mbarrier_arrive(&r.empty_bar[s]);
          job.template emit_regs<Shape>(x, seg_base, prefix);
        }
        continue;
      }
    }
    const maybe<C> p = prefix();
    if (count > 0) job.template emit<Shape>(t, seg_base, count, p);
    // The stage is read and written here through the generic proxy and refilled next by the copy engine (the
    // async proxy): each lane fences its own accesses before the release.
    fence_proxy_async_shared();
    __syncwarp();
    if (lane == 0) mbarrier_arrive(&r.empty_bar[s]);
  }
}

/// The pipeline: barriers initialised, then each warp takes its role (warp 1, the aggregator, in this function:
/// the segments' carries and the tile's aggregate, published as soon as the tile is in; taken into a function of
/// its own, it compiles to other machine code for select_if's job). Policy: a policy_constant of a
/// lookback_pipeline_policy.
///
/// Early release (jobs with register_emit): the segment warps copy a full segment into registers and release its
/// stage at once, so a stage lives for the load and the reads only, not for the look-back as well; a block then has
/// S tiles in shared memory and one more in its segment warps' registers. What the roles hand each other about a
/// tile then outlives the stage, so it lives in a ring of its own, Q = S + 1 deep.
template <class Policy, class Job>
__global__ void __launch_bounds__(Policy::value.block_threads()) lookback_pipeline_kernel(Job job) {
#ifdef CUPRIM_HAS_BULK_COPY
  constexpr lookback_pipeline_policy P = Policy::value;
  using T = typename Job::value_type;
  using C = typename Job::carry_type;
  using shape = pipeline_shape<P, T>;
  constexpr int W = shape::W, S = shape::S;
  constexpr std::uint64_t TE = shape::TE;
  static_assert(lookback_pipeline_policy_valid<P>());
  static_assert(W <= warp::size, "at most 32 segment warps");
  constexpr bool early = has_register_emit<Job>;
  constexpr int Q = early ? S + 1 : S;

  T* const stages = reinterpret_cast<T*>(pipeline_smem());  // S tiles (then a keyed job's key ring)
  __shared__ unsigned long long full_bar[S], empty_bar[S];  // per stage
  __shared__ unsigned long long agg_bar[Q], pre_bar[Q];     // per slot
  __shared__ std::uint64_t slot_tile[Q];
  __shared__ uninitialized<C> seg_excl[Q][W];    // carry of the tile's earlier segments (absent for segment 0)
  __shared__ bool seg_excl_has[Q][W];
  __shared__ uninitialized<C> tile_total[Q];
  __shared__ uninitialized<C> seg_prefix[Q][W];  // carry of everything before each segment
  __shared__ bool seg_prefix_has[Q][W];
  const pipeline_ring<T, C, S, Q, W> ring{stages, full_bar, empty_bar, agg_bar, pre_bar, slot_tile,
                                          seg_excl, seg_excl_has, tile_total, seg_prefix, seg_prefix_has};

  const int warp_id = threadIdx.x / warp::size, lane = warp::lane_id();
  if (threadIdx.x == 0) pipeline_init_barriers(ring, S, Q, early ? W + 1 : W);
  __syncthreads();               // the last block-wide barrier: the roles below never meet again
  wait_for_prerequisite_grid();  // the zeroed counter and tile states
  const std::uint64_t n = job.n, num_tiles = job.num_tiles;
  if (warp_id == 0) {
    if (lane == 0) pipeline_produce<shape, Q>(job, ring, n, num_tiles);
    return;
  }
  if (warp_id == 1) {  // the aggregator
    for (unsigned k = 0;; ++k) {
      const int s = int(k % S), q = int(k % Q);
      mbarrier_wait(&full_bar[s], (k / S) & 1u);
      const std::uint64_t tile = slot_tile[q];
      if (tile >= num_tiles) {
        if (lane == 0) mbarrier_arrive(&agg_bar[q]);  // the look-back warp reads the stop from the slot
        return;
      }
      const T* t = stages + std::size_t(s) * TE;
      const bool tile_full = tile * TE + TE <= n;
      maybe<C> seg[W];
      segment_totals<shape>(job, t, tile_full, tile_full ? TE : n - tile * TE, seg);
      maybe<C> running{C{}, false};
#pragma unroll
      for (int w = 0; w < W; ++w) {
        if (lane == 0) {
          seg_excl[q][w].get() = running.value;
          seg_excl_has[q][w] = running.has;
        }
        running = combine(running, seg[w], job.op);
      }
      fence_proxy_async_shared();  // this warp's reads of the stage, before the copy engine refills it
      __syncwarp();
      if (lane == 0) {
        tile_total[q].get() = running.value;
        if (tile > 0) job.state.publish(tile, tile_aggregate, running.value);
        mbarrier_arrive(&agg_bar[q]);
        if constexpr (early) mbarrier_arrive(&empty_bar[s]);
      }
      __syncwarp();
    }
  }
  if (warp_id == 2) {
    pipeline_look_back<shape, Q, P.lookback_tiles_per_lane>(job, ring, lane, num_tiles);
    return;
  }
  pipeline_emit<shape, Q, early>(job, ring, warp_id - 3, lane, n, num_tiles);
#else
  __trap();  // never launched: the host takes this kernel only where the device and its code are sm_90
#endif
}

/// Launches the pipeline for `job` (its job fields set; the common ones are filled in here) over the caller's
/// workspace (a lookback_layout<C> of pipeline_shape<P, T>::tiles(n) tiles at least); false, with the pipeline not
/// launched (its workspace may have been zeroed), when the device or the kernel's code lacks sm_90 or the launch
/// refuses the kernel's shared memory: the caller then takes the one-tile-per-block kernel.
template <lookback_pipeline_policy P, class Job>
bool pipeline_launch(const char* fn, Job job, workspace ws, cudaStream_t stream) {
  using T = typename Job::value_type;
  using C = typename Job::carry_type;
  using shape = pipeline_shape<P, T>;
  auto* kernel = lookback_pipeline_kernel<policy_constant<P>, Job>;
  static bulk_kernel_cache cache;
  constexpr std::size_t smem = pipeline_smem_bytes<shape, Job>();
  const int per_sm = bulk_kernel_blocks_per_sm(reinterpret_cast<const void*>(kernel), P.block_threads(), smem, cache);
  if (per_sm <= 0) return false;
  // The shared-memory limit is raised before every launch, not once: one template instantiation lives in the
  // module of every translation unit that uses it, and a limit raised on one copy need not hold for the copy a
  // later launch resolves to (the lab's sort ladder, calling the scan from another file than the scan rows, failed
  // its launch with an invalid-value error after the scan rows had run).
  CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  const std::uint64_t tiles = shape::tiles(job.n);
  const std::uint64_t most = std::uint64_t(get_device_info().sm_count) * std::uint64_t(per_sm);
  const lookback_layout<C> L(tiles);
  job.num_tiles = tiles;
  job.counter = L.counter(ws);
  job.state = L.state(ws, tiles);
  job.waits = lookback_waits{P.first_wait_ns, P.poll_wait_ns};
  zero_async(fn, ws.data, L.zero_bytes(tiles), stream);
  const cudaError_t e = try_launch_dependent(kernel, static_cast<unsigned>(tiles < most ? tiles : most),
                                             P.block_threads(), smem, stream, job);
  if (e == cudaErrorInvalidValue) {
    // The launch refused the shared memory (see above): clear the error and let the caller take the
    // one-tile-per-block kernel, which zeroes its own workspace. Nothing of the pipeline ran.
    (void)cudaGetLastError();
    return false;
  }
  CUPRIM_CUDA_CHECK(e);
  check_launch(fn);
  return true;
}

}  // namespace cuprim::detail
