// cuprim/device/detail/radix_sort_histogram.cuh: the radix sort's first two launches (above the on-chip sizes).
//
// 1. radix_histogram_kernel: one read of the keys counts every pass's digits at once (one shared atomic per key and
//    pass, each lane into its own copy of the counters, so that no digit mix costs bank conflicts), flushed with
//    global atomics into hist[portion][pass][256]; floating-point keys also report whether any is NaN.
// 2. radix_bases_kernel: per pass, the exclusive scan over digits of the totals, plus the counts of the earlier
//    portions: where each digit of each portion starts in the output (for the first pass; a later pass's portions
//    take theirs from radix_next_bases_kernel, after the portion before them).
#pragma once

#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/radix_sort_common.cuh>
#include <cuprim/device/detail/radix_sort_tuning.cuh>

#include <cstdint>
#include <cstring>

namespace cuprim::detail {

template <class K>
struct radix_histogram_params {
  const K* keys;
  std::uint64_t count;  // keys of this portion
  unsigned* hist;       // [passes][256] of this portion, zeroed
  int begin_bit, end_bit, passes;
  bool descending;
  unsigned* nan_flag;   // floating-point keys: set to 1 when some key is NaN (zeroed before the first portion)
};

/// Copies of each counter in the histogram kernel's shared memory: lane l counts into copy l % C, so that a warp's
/// 32 atomics fall in 32 distinct banks (C = 32: counter (q, d, c) is word (256 q + d) C + c, in bank c) whatever
/// the digits; 8-byte keys, with 8 passes to count, take 16 copies (at most two lanes per bank) to stay in 128 KiB.
/// (128 KiB of shared memory per block: the sort needs a device that lets a block opt in to that much, as sm_90,
/// the architecture cuprim is built for, does.)
template <class K>
constexpr int radix_histogram_copies = sizeof(K) > 4 ? 16 : 32;

/// Shared-memory bytes of radix_histogram_kernel for keys of K.
template <class K>
constexpr std::size_t radix_histogram_smem_bytes =
    sizeof(K) * radix_digits * radix_histogram_copies<K> * sizeof(unsigned);

/// Counts the digits of every pass of keys k[0, N) (those with valid[e]) into the lane's copies (`lane_addr`: the
/// shared-memory address of the lane's copy of counter 0). Passes outside, keys inside: one uniform test per pass,
/// and per key and pass a shift, a mask, an address and a shared reduction (Guarded: valid[] is read; ptxas then
/// branches around each reduction, so whole steps pass Guarded = false).
/// Returns whether one of the (valid) keys is NaN (false for integer keys).
template <int MaxPasses, int C, bool Guarded, int N, class K>
__device__ __forceinline__ bool radix_histogram_count(const radix_histogram_params<K>& p, unsigned lane_addr,
                                                      const K (&k)[N], const bool (&valid)[N]) {
  using traits = radix_key<K>;
  using U = typename traits::bits_t;
  U b[N];
  bool nan = false;
#pragma unroll
  for (int e = 0; e < N; ++e) {
    b[e] = traits::ordered(k[e], p.descending);
    nan |= (!Guarded || valid[e]) && traits::is_nan(k[e]);
  }
#pragma unroll
  for (int q = 0; q < MaxPasses; ++q) {
    if (q < p.passes) {
      const radix_pass ps = radix_pass_of(p.begin_bit, p.end_bit, q);
#pragma unroll
      for (int e = 0; e < N; ++e) {
        const unsigned addr = lane_addr + ((unsigned(b[e] >> ps.shift) & ps.mask) * C + q * radix_digits * C) * 4u;
        if (!Guarded || valid[e]) asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(addr) : "memory");
      }
    }
  }
  return nan;
}

/// One read of the keys counts the digits of every pass. Blocks of hist_threads threads, one per SM (the counters
/// take 128 KiB), stride over the keys in steps of hist_threads × hist_items keys, loaded as 16-byte vectors (the
/// keys' order does not matter here); the few keys before the first 16-byte boundary and after the last whole vector
/// go to block 0. Every key costs one shared atomic per pass, in a bank of its lane's own (radix_histogram_copies),
/// so neither random digits (bank conflicts) nor equal ones (one counter) slow it down; at the end each block sums
/// its copies and adds them to the portion's histogram with global atomics. Policy: radix_sort_policy::
/// histogram_part().
template <class Policy, class K>
__global__ void __launch_bounds__(Policy::value.hist_threads, 1) radix_histogram_kernel(radix_histogram_params<K> p) {
  constexpr int Threads = Policy::value.hist_threads, Items = Policy::value.hist_items;
  constexpr int max_passes = int(sizeof(K));
  constexpr int C = radix_histogram_copies<K>;
  constexpr int per_vec = 16 / int(sizeof(K));                            // keys per 16-byte vector
  constexpr int vecs = Items / per_vec > 0 ? Items / per_vec : 1;         // vectors per thread and step
  constexpr int words = max_passes * radix_digits * C;
  extern __shared__ __align__(16) unsigned radix_hist_smem[];
  allow_dependent_launch();
  for (int i = threadIdx.x; i < words / 4; i += Threads) reinterpret_cast<uint4*>(radix_hist_smem)[i] = uint4{};
  __syncthreads();
  const unsigned lane_addr = unsigned(__cvta_generic_to_shared(radix_hist_smem + threadIdx.x % C));

  // Keys before the first 16-byte boundary (head) and after the last whole vector (tail).
  const std::uint64_t misalign = (reinterpret_cast<std::uintptr_t>(p.keys) % 16) / sizeof(K);
  const std::uint64_t head = misalign == 0 ? 0 : (per_vec - misalign < p.count ? per_vec - misalign : p.count);
  const std::uint64_t nvec = (p.count - head) / per_vec;
  const std::uint64_t body_end = head + nvec * per_vec;
  bool nan = false;
  if (blockIdx.x == 0) {
    const std::uint64_t tail = p.count - body_end;  // < per_vec
    const bool valid[1] = {threadIdx.x < head + tail};
    K k[1] = {};
    if (valid[0]) k[0] = p.keys[threadIdx.x < head ? threadIdx.x : body_end + threadIdx.x - head];
    nan = radix_histogram_count<max_passes, C, true>(p, lane_addr, k, valid);
  }

  const uint4* vec = reinterpret_cast<const uint4*>(p.keys + head);
  constexpr std::uint64_t chunk = std::uint64_t(Threads) * vecs;
  for (std::uint64_t base = std::uint64_t(blockIdx.x) * chunk; base < nvec; base += std::uint64_t(gridDim.x) * chunk) {
    uint4 v[vecs];
    bool valid[vecs * per_vec];
    const bool full = base + chunk <= nvec;
#pragma unroll
    for (int j = 0; j < vecs; ++j) {
      const std::uint64_t idx = base + std::uint64_t(j) * Threads + threadIdx.x;
      const bool ok = full || idx < nvec;
      v[j] = ok ? vec[idx] : uint4{};
#pragma unroll
      for (int e = 0; e < per_vec; ++e) valid[j * per_vec + e] = ok;
    }
    K k[vecs * per_vec];
    std::memcpy(k, v, sizeof(v));
    if (full) nan |= radix_histogram_count<max_passes, C, false>(p, lane_addr, k, valid);
    else nan |= radix_histogram_count<max_passes, C, true>(p, lane_addr, k, valid);
  }
  // The histograms and the NaN flag were zeroed by the grid before this one (a programmatic dependent launch:
  // the keys' reads above overlapped it).
  wait_for_prerequisite_grid();
  if (__syncthreads_or(nan) && threadIdx.x == 0) *p.nan_flag = 1u;
  // Counter i = 256 q + d: the sum of its C copies, read from bank (c + lane) % 32 at step c (no two lanes of a
  // warp in one bank for C = 32; with 16 copies lanes l and l + 16 share one, a two-way conflict in a loop run once).
  for (int i = threadIdx.x; i < p.passes * radix_digits; i += Threads) {
    unsigned sum = 0;
#pragma unroll
    for (int c = 0; c < C; ++c) sum += radix_hist_smem[i * C + (c + threadIdx.x) % C];
    if (sum) atomicAdd(p.hist + i, sum);
  }
}

/// One block of radix_digits threads, thread d holding v: the sum of v over the threads before d. warp_totals:
/// the block's shared scratch (rewritten: a barrier must separate two calls). Every thread of the block calls it.
__device__ __forceinline__ std::uint64_t radix_digits_exclusive_sum(std::uint64_t v,
                                                                   std::uint64_t (&warp_totals)[radix_digits / 32]) {
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  std::uint64_t incl = v;
#pragma unroll
  for (int o = 1; o < 32; o *= 2) {
    const std::uint64_t x = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= o) incl += x;
  }
  if (lane == 31) warp_totals[w] = incl;
  __syncthreads();
  std::uint64_t run = incl - v;
  for (int j = 0; j < w; ++j) run += warp_totals[j];
  return run;
}

/// Block p (256 threads, thread d): bases[q][p][d] = (keys of all portions with a smaller digit in pass p) +
/// (keys of digit d in portions before q). A template only so that every translation unit that includes this
/// header may define it (a plain __global__ function here is an external definition in each, and the link fails).
template <int Digits = radix_digits>
__global__ void __launch_bounds__(Digits) radix_bases_kernel(const unsigned* hist, std::uint64_t* bases, int passes,
                                                             std::uint64_t portions) {
  static_assert(Digits == radix_digits, "one thread per digit");
  __shared__ std::uint64_t warp_totals[radix_digits / 32];
  allow_dependent_launch();
  wait_for_prerequisite_grid();  // the histograms
  const int p = blockIdx.x, d = threadIdx.x;
  std::uint64_t total = 0;
  for (std::uint64_t q = 0; q < portions; ++q) total += hist[(q * passes + p) * radix_digits + d];
  std::uint64_t run = radix_digits_exclusive_sum(total, warp_totals);
  for (std::uint64_t q = 0; q < portions; ++q) {
    const std::uint64_t i = (q * passes + p) * radix_digits + d;
    bases[i] = run;
    run += hist[i];
  }
}

/// The next portion's digit starts in one pass of an input of several portions: bases_next[d] = bases[d] + the
/// count of digit d in this portion, which its last tile published as its inclusive prefix (state: this portion's
/// look-back array, last_tile: its last tile). Thread d, one block. The upfront histogram counts the portions of
/// the input as the caller gave it, which only the first pass reads in that order: a later pass reads the previous
/// pass's output, whose portions hold other keys, so each of its portions takes its starts from the one before it.
template <int Digits = radix_digits>
__global__ void __launch_bounds__(Digits) radix_next_bases_kernel(const unsigned* state, std::uint64_t last_tile,
                                                                  const std::uint64_t* bases,
                                                                  std::uint64_t* bases_next) {
  static_assert(Digits == radix_digits, "one thread per digit");
  allow_dependent_launch();
  wait_for_prerequisite_grid();  // the portion's pass
  const int d = threadIdx.x;
  bases_next[d] = bases[d] + (state[radix_state_head + last_tile * radix_digits + d] & radix_count_mask);
}

}  // namespace cuprim::detail
