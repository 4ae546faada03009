// lab/ladder/scan_kernels.cuh: the kernels of the scan ladder (scan.cuh) and the seed's block multiscan with a
// configurable stride between the warps' rows (the bank-conflict experiment).
//
// Seed 000 ("CUDA 6ta parte", scan) and GPU Gems 3, chapter 39 (Harris, Sengupta, Owens, "Parallel Prefix Sum
// (Scan) with CUDA"):
//   hillis_steele_pass      one step of the seed's ScanParallel: out[i] = in[i - offset] ⊕ in[i] over global
//                           memory, double-buffered by the host (log2(n) launches, O(n log n) work)
//   blelloch_block          the chapter's work-efficient scan of 2 × 512 elements per block in shared memory:
//                           up-sweep (reduce), clear the root, down-sweep, with the chapter's padding that keeps
//                           the tree's strided accesses off a single bank
//   blelloch_add            adds the scanned block sums back (the chapter's Figure 39-6)
//   rts_reduce / rts_scan   reduce-then-scan: per-tile totals (block::reducer), then per-tile scans
//                           (block::scanner) seeded with the scanned totals
//   block_multiscan_local_kernel
//                           the seed's block scan ("Block scan: multiscan"): warp scans in shared memory, warp
//                           totals read by the first warp from scan[warp * Stride + 31] (Stride 32: every read
//                           in bank 31; Stride 33: all in different banks), exclusive scan of the totals, add back
//
// The textbook kernels pad partial blocks with the operator's identity (`identity` must satisfy
// op(identity, x) == x == op(x, identity)). Every kernel keeps operand order (the earlier part of the sequence
// is the left operand), so non-commutative operators are fine. Nothing relies on implicit warp-synchronous
// execution: shared-memory warp steps are separated by __syncwarp(). Tile loops are grid-stride, so any 64-bit n
// fits a 1-D grid.
#pragma once

#include "common.cuh"

#include <cuprim/block/reduce.cuh>
#include <cuprim/block/scan.cuh>
#include <cuprim/core/functional.cuh>
#include <cuprim/device/detail/load.cuh>
#include <cuprim/warp/scan.cuh>

#include <cstdint>
#include <type_traits>

namespace cuprim::ladder::detail {

/// The largest 1-D grid the tile loops launch (they stride over any further tiles).
inline constexpr std::uint64_t max_grid = 0x7fffffffull;

/// Operators known to be commutative on T: + and × on arithmetic types, min and max on integers. Only these let
/// reduce-then-scan reduce its tiles in any order (striped loads, block::reducer); others keep lane order.
template <class Op, class T>
struct is_commutative : std::false_type {};
template <class T>
struct is_commutative<plus, T> : std::bool_constant<std::is_arithmetic_v<T>> {};
template <class T>
struct is_commutative<multiplies, T> : std::bool_constant<std::is_arithmetic_v<T>> {};
template <class T>
struct is_commutative<minimum, T> : std::bool_constant<std::is_integral_v<T>> {};
template <class T>
struct is_commutative<maximum, T> : std::bool_constant<std::is_integral_v<T>> {};
template <class Op, class T>
inline constexpr bool is_commutative_v = is_commutative<Op, T>::value;

/// Shared memory as an array of T (raw storage: T may have constructors).
template <class T, int N>
struct shared_array {
  uninitialized<T> slots[N];
  __device__ __forceinline__ T* get() { return reinterpret_cast<T*>(slots); }
};

// ---------------------------------------------------------------------------------------------------------
// Hillis & Steele: the seed's ScanParallelPass, one launch per offset

/// dst[i] = src[i - offset] ⊕ src[i] for i ≥ offset, src[i] below (offset ≥ n: a converting copy). src and dst
/// must not overlap (the host double-buffers: the seed's "memdup").
template <class Src, class Dst, class Acc, class Op>
__global__ void hillis_steele_pass(const Src* src, Dst* dst, std::uint64_t n, std::uint64_t offset, Op op) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    Acc v = convert<Acc>(src[i]);
    if (i >= offset) v = op(convert<Acc>(src[i - offset]), v);
    dst[i] = convert<Dst>(v);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Blelloch (GPU Gems 3, ch. 39): work-efficient scan in shared memory, 2 elements per thread

namespace blelloch {
inline constexpr int threads = 512;
inline constexpr int tile = 2 * threads;  ///< elements per block
inline constexpr int log_banks = 5;       ///< 32 banks of 4-byte words (the chapter had 16)
/// The chapter's CONFLICT_FREE_OFFSET(n) = (n >> LOG_NUM_BANKS) + (n >> (2 * LOG_NUM_BANKS)), parenthesised as
/// intended (the printed macro's `>>` and `+` bind the other way): one padding word every 32 words, and one
/// more every 1024, so the tree's power-of-two strides do not all land in one bank.
__host__ __device__ constexpr int conflict_free_offset(int i) { return (i >> log_banks) + (i >> (2 * log_banks)); }
inline constexpr int smem_slots = tile + conflict_free_offset(tile - 1);
}  // namespace blelloch

/// Each tile of blelloch::tile elements: inclusive scan into out (as Dst); its total into block_sums[tile]
/// (when not null). Elements past n are the identity.
template <class Src, class Dst, class Acc, class Op>
__global__ void __launch_bounds__(blelloch::threads)
blelloch_block(const Src* in, Dst* out, Acc* block_sums, std::uint64_t n, Op op, Acc identity, std::uint64_t tiles) {
  using blelloch::conflict_free_offset;
  constexpr int TH = blelloch::threads, TILE = blelloch::tile;
  __shared__ shared_array<Acc, blelloch::smem_slots> smem;
  Acc* temp = smem.get();
  const int tid = threadIdx.x;
  const int ai = tid, bi = tid + TH;  // the chapter's load: thread k takes elements k and k + n/2
  const int sa = ai + conflict_free_offset(ai), sb = bi + conflict_free_offset(bi);
  for (std::uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::uint64_t base = t * TILE;
    const Acc xa = base + ai < n ? convert<Acc>(in[base + ai]) : identity;
    const Acc xb = base + bi < n ? convert<Acc>(in[base + bi]) : identity;
    temp[sa] = xa;
    temp[sb] = xb;

    // Up-sweep: build the sum tree in place; node offset·(2k+2)-1 receives the sum of its two children.
    int offset = 1;
#pragma unroll
    for (int d = TH; d > 0; d >>= 1) {
      __syncthreads();
      if (tid < d) {
        int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
        a += conflict_free_offset(a);
        b += conflict_free_offset(b);
        temp[b] = op(temp[a], temp[b]);
      }
      offset *= 2;
    }

    // Clear the root (the tile total) to the identity.
    constexpr int root = TILE - 1 + conflict_free_offset(TILE - 1);
    if (tid == 0) {
      if (block_sums != nullptr) block_sums[t] = temp[root];
      temp[root] = identity;
    }

    // Down-sweep: each node passes its prefix to its left child, and prefix ⊕ (left child's sum) to its right.
#pragma unroll
    for (int d = 1; d < TILE; d *= 2) {
      offset >>= 1;
      __syncthreads();
      if (tid < d) {
        int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
        a += conflict_free_offset(a);
        b += conflict_free_offset(b);
        const Acc left = temp[a];
        temp[a] = temp[b];
        temp[b] = op(temp[b], left);
      }
    }
    __syncthreads();

    // The tree gives the exclusive scan; the inclusive one adds each element back on the right.
    if (base + ai < n) out[base + ai] = convert<Dst>(op(temp[sa], xa));
    if (base + bi < n) out[base + bi] = convert<Dst>(op(temp[sb], xb));
    __syncthreads();  // temp is refilled by the next tile
  }
}

/// out[i] = scanned_sums[t - 1] ⊕ local[i] for the elements of tile t > 0; tile 0 is copied (converted).
/// `local` and `out` may be the same array.
template <class Acc, class Dst, class Op>
__global__ void __launch_bounds__(blelloch::threads)
blelloch_add(const Acc* local, Dst* out, const Acc* scanned_sums, std::uint64_t n, Op op, std::uint64_t tiles) {
  for (std::uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::uint64_t base = t * blelloch::tile;
    const Acc prefix = scanned_sums[t > 0 ? t - 1 : 0];
    for (int j = threadIdx.x; j < blelloch::tile; j += blockDim.x) {
      const std::uint64_t i = base + j;
      if (i < n) out[i] = convert<Dst>(t > 0 ? op(prefix, local[i]) : local[i]);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Reduce-then-scan: tile totals, a scan of the totals, tile scans seeded with their prefixes

namespace rts {
inline constexpr int threads = 256;
/// Consecutive elements per thread: 16 for 4-byte accumulators, fewer for wider ones (a tile's staging area
/// stays near 16 KiB of shared memory).
template <class T>
inline constexpr int items = sizeof(T) <= 4 ? 16 : sizeof(T) <= 8 ? 8 : sizeof(T) <= 16 ? 4 : sizeof(T) <= 32 ? 2 : 1;
template <class T>
inline constexpr int tile = threads * items<T>;
/// Staging index: one padding word per 32, so a warp reading consecutive runs of `items` does not conflict.
__host__ __device__ constexpr int pad(int i) { return i + i / 32; }
template <class T>
inline constexpr int smem_slots = pad(tile<T> - 1) + 1;
}  // namespace rts

/// Loads elements [base, base + tile) (identity past n) and gives each thread `Items` consecutive ones:
/// coalesced striped loads into shared memory, then blocked reads. Ends with the staging area in use.
template <int Items, class Src, class Acc>
__device__ __forceinline__ void load_blocked(const Src* in, std::uint64_t base, std::uint64_t n, Acc identity,
                                             Acc* stage, Acc (&x)[Items]) {
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int k = j * rts::threads + static_cast<int>(threadIdx.x);
    stage[rts::pad(k)] = base + k < n ? convert<Acc>(in[base + k]) : identity;
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < Items; ++j) x[j] = stage[rts::pad(static_cast<int>(threadIdx.x) * Items + j)];
}

/// The reverse of load_blocked: blocked values through shared memory to coalesced striped stores (below n).
template <int Items, class Acc, class Dst>
__device__ __forceinline__ void store_blocked(Dst* out, std::uint64_t base, std::uint64_t n, Acc* stage,
                                              const Acc (&x)[Items]) {
  __syncthreads();  // every thread has read its values out of the staging area
#pragma unroll
  for (int j = 0; j < Items; ++j) stage[rts::pad(static_cast<int>(threadIdx.x) * Items + j)] = x[j];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const int k = j * rts::threads + static_cast<int>(threadIdx.x);
    if (base + k < n) out[base + k] = convert<Dst>(stage[rts::pad(k)]);
  }
}

/// Pass 1: tile_sums[t] = op over tile t. Commutative operators: striped loads and block::reducer. Others:
/// blocked loads, in-order per-thread totals, and block::scanner's (ordered) block total.
template <class Src, class Acc, class Op>
__global__ void __launch_bounds__(rts::threads)
rts_reduce(const Src* in, std::uint64_t n, Acc* tile_sums, Op op, Acc identity, std::uint64_t tiles) {
  constexpr int K = rts::items<Acc>, TILE = rts::tile<Acc>;
  using reducer = block::reducer<Acc, rts::threads>;
  using scanner = block::scanner<Acc, rts::threads>;
  constexpr bool any_order = is_commutative_v<Op, Acc>;
  __shared__ uninitialized<std::conditional_t<any_order, typename reducer::storage, typename scanner::storage>> smem;
  __shared__ shared_array<Acc, any_order ? 1 : rts::smem_slots<Acc>> stage;
  const int tid = threadIdx.x;
  for (std::uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::uint64_t base = t * TILE;
    Acc total;
    if constexpr (any_order) {
      Acc v = identity;
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const std::uint64_t i = base + std::uint64_t(j) * rts::threads + tid;
        if (i < n) v = op(v, convert<Acc>(in[i]));
      }
      total = reducer::reduce(v, op, smem.get());  // thread 0
    } else {
      Acc x[K];
      load_blocked<K>(in, base, n, identity, stage.get(), x);
      Acc v = x[0];
#pragma unroll
      for (int j = 1; j < K; ++j) v = op(v, x[j]);
      scanner::inclusive_scan(v, op, smem.get(), total);
    }
    if (tid == 0) tile_sums[t] = total;
    __syncthreads();  // shared memory is reused by the next tile
  }
}

/// Pass 3 (and the one-block scan of pass 2): inclusive scan of each tile, seeded with tile_prefix[t - 1] (the
/// inclusive scan of the tile totals) for t > 0; tile_prefix == nullptr: no seed (a single tile).
template <class Src, class Dst, class Acc, class Op>
__global__ void __launch_bounds__(rts::threads)
rts_scan(const Src* in, Dst* out, std::uint64_t n, const Acc* tile_prefix, Op op, Acc identity, std::uint64_t tiles) {
  constexpr int K = rts::items<Acc>, TILE = rts::tile<Acc>;
  using scanner = block::scanner<Acc, rts::threads>;
  __shared__ uninitialized<typename scanner::storage> smem;
  __shared__ shared_array<Acc, rts::smem_slots<Acc>> stage;
  for (std::uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::uint64_t base = t * TILE;
    Acc x[K];
    load_blocked<K>(in, base, n, identity, stage.get(), x);
#pragma unroll
    for (int j = 1; j < K; ++j) x[j] = op(x[j - 1], x[j]);
    const Acc seed = (tile_prefix != nullptr && t > 0) ? tile_prefix[t - 1] : identity;
    Acc block_total;
    const Acc prefix = scanner::exclusive_scan(x[K - 1], op, seed, smem.get(), block_total);
#pragma unroll
    for (int j = 0; j < K; ++j) x[j] = op(prefix, x[j]);
    store_blocked<K>(out, base, n, stage.get(), x);
    __syncthreads();  // the staging area and the scanner's storage are reused by the next tile
  }
}

// ---------------------------------------------------------------------------------------------------------
// The seed's block multiscan with a configurable stride between the warps' rows (lab experiment)

/// Block-local inclusive scans: block b scans elements [b·BlockThreads, (b+1)·BlockThreads) on its own (each
/// thread loads one element), as the seed measured over 2^28 ints. The steps are the seed's:
///   1. each warp scans its row scan[warp·Stride .. warp·Stride + 31] in shared memory, predicated
///      (`lane >= offset`), with __syncwarp() between the reads and the writes of each step;
///   2. after __syncthreads, threads [0, warps) read the warp totals scan[tid·Stride + 31] and scan them
///      (exclusive) in a second shared array. With Stride = 32 those reads all fall in bank 31 (a `warps`-way
///      conflict: 8, 16 or 32 for 256, 512, 1024 threads); with Stride = 33 they fall in distinct banks;
///   3. after __syncthreads, each thread combines its warp's offset with its value.
/// The warps' own scans are conflict-free for either stride (a row is 32 consecutive words). Elements past n
/// are never stored; values there only reach elements after them.
template <int BlockThreads, int Stride, class T, class Op>
__global__ void __launch_bounds__(BlockThreads)
block_multiscan_local_kernel(const T* in, T* out, std::uint64_t n, Op op, std::uint64_t blocks) {
  static_assert(BlockThreads % warp::size == 0 && BlockThreads <= 1024, "BlockThreads: a multiple of 32, at most 1024");
  static_assert(Stride >= warp::size, "rows must not overlap");
  constexpr int warps = BlockThreads / warp::size;
  constexpr unsigned totals_mask = warps == warp::size ? warp::full_mask : (1u << warps) - 1u;
  __shared__ shared_array<T, warps * Stride> scan_smem;
  __shared__ shared_array<T, warps> totals_smem;
  T* scan = scan_smem.get();
  T* totals = totals_smem.get();
  const int tid = threadIdx.x, w = tid / warp::size, lane = tid % warp::size;
  T* row = scan + w * Stride;
  for (std::uint64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const std::uint64_t i = b * BlockThreads + tid;
    const T x = i < n ? in[i] : T{};

    // 1. Warp scans in shared memory.
    row[lane] = x;
    __syncwarp();
    T sum = x;
#pragma unroll
    for (int offset = 1; offset < warp::size; offset *= 2) {
      T earlier = sum;
      if (lane >= offset) earlier = row[lane - offset];
      __syncwarp();
      if (lane >= offset) sum = op(earlier, sum);
      row[lane] = sum;
      __syncwarp();
    }
    __syncthreads();

    // 2. The first warp: exclusive scan of the warp totals, read at stride Stride.
    if (tid < warps) {
      const T total = scan[tid * Stride + warp::size - 1];
      totals[tid] = total;
      __syncwarp(totals_mask);
      T tsum = total;
#pragma unroll
      for (int offset = 1; offset < warps; offset *= 2) {
        T earlier = tsum;
        if (tid >= offset) earlier = totals[tid - offset];
        __syncwarp(totals_mask);
        if (tid >= offset) tsum = op(earlier, tsum);
        totals[tid] = tsum;
        __syncwarp(totals_mask);
      }
      // Exclusive: the previous warp's inclusive value (the seed subtracts `total`, which needs an inverse).
      const T excl = tid > 0 ? totals[tid - 1] : tsum;
      __syncwarp(totals_mask);
      totals[tid] = excl;
    }
    __syncthreads();

    // 3. Add the warp's offset back.
    if (w > 0) sum = op(totals[w], sum);
    if (i < n) out[i] = sum;
    __syncthreads();  // rows and totals are reused by the next block index
  }
}

}  // namespace cuprim::ladder::detail
