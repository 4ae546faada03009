// cuprim/device/detail/histogram_kernel.cuh: the histogram kernel and the steps it is made of.
//
// The kernel reads as three steps: start (zero the block's private counters, or wait for the outputs' zeroing),
// count the block's share of the input, finish (merge the private counters into the outputs). Its layout says where
// a sample's count goes first:
//
//   global_runs    an atomic add on the output bin in device memory (L2), each thread first merging runs of equal
//                  bins in its own samples into one atomic of the run's length: the path for histograms too large for
//                  shared memory, robust to contention (every sample in one bin costs one atomic per thread, not per
//                  sample). No workspace.
//   shared         `copies` privatized histograms of 32-bit counters in shared memory (warp w uses copy
//                  w % copies), each thread merging runs of equal bins before its shared atomic; merged into the
//                  output with one global atomic per nonzero bin per block.
//   lanes          for small histograms: 32 sub-histograms per copy, one per lane, laid out so that lane l's counter
//                  of bin b is word (b * 32 + l): every lane of a warp always addresses its own bank, so a warp's 32
//                  shared atomics never conflict, whatever the data (uniform bytes or all equal). A 16-byte vector of
//                  equal samples counts with one atomic of V. Merged like `shared` (each thread sums a bin's 32 lane
//                  counters, rotated by the bin so that the merge reads are conflict-free too).
//                  With the hist_bytes binner (the byte path) the layout is two copies interleaved, 64 words per
//                  bin: lane l of an even warp counts bin b at word b·64 + l, of an odd warp at b·64 + 32 + l, so a
//                  counter's byte address is (b << 8) | (lane·4 + 128·(warp & 1)) — one byte permute of the word
//                  holding the sample builds it. Binning a sample is then a permute and a shared atomic (plus a
//                  two-instruction SIMD map per four samples when the bins are wider than one value): the general
//                  binning path costs about 15 instructions per sample, and at the uint8 rate (≈ 15 samples per SM
//                  clock at the copy rate) instruction issue, not the atomics, was the bound.
//
// The input is read as 16-byte vectors (ld.global.cs: it is streamed once), the policy's `vectors` per step
// (`byte_vectors` on the byte path) with the next step's loaded before the current ones are binned, with scalar
// loads for the misaligned head and the tail. The grid strides over the input; the host picks the grid and
// launches slices of at most 2^31 samples per block, so that no block's 32-bit shared counters can overflow
// within one launch (device/detail/histogram_launch.cuh).
#pragma once

#include <cuprim/device/detail/histogram_bins.cuh>
#include <cuprim/device/detail/histogram_tuning.cuh>
#include <cuprim/device/detail/launch.cuh>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cuprim::detail {

enum class hist_layout : int { global_runs, shared, lanes };

template <class S, class B, class C>
struct hist_params {
  const S* in;
  std::uint64_t n;      ///< samples in this launch
  std::uint64_t first;  ///< index of in[0] in the caller's input (the channel of sample i is (first + i) % channels)
  B bin;
  C* out[hist_max_channels];
  int offset[hist_max_channels];  ///< first bin of each output in the concatenated histogram
  int num_out;
  int total_bins;
  int copies;
  bool dependent;  ///< host side: the first launch may overlap hist_zero_kernel, the launch before it (PDL)
};

/// The outputs a histogram overwrites, zeroed by hist_zero_kernel.
template <class C>
struct hist_zero_args {
  C* out[hist_max_channels];
  int bins[hist_max_channels];
  int count;
};

/// Zeroes the outputs and lets the histogram kernel launched after it (as a programmatic dependent launch) start
/// streaming its input at once: that kernel waits for this one (wait_for_prerequisite_grid) only before its
/// first write to an output.
template <class C>
__global__ void hist_zero_kernel(const hist_zero_args<C> a) {
  allow_dependent_launch();
  const int stride = int(gridDim.x * blockDim.x);
  for (int k = 0; k < a.count; ++k)
    for (int i = int(blockIdx.x * blockDim.x + threadIdx.x); i < a.bins[k]; i += stride) a.out[k][i] = C{};
}

template <class B>
struct hist_is_multi : std::false_type {};
template <class B>
struct hist_is_multi<hist_multi<B>> : std::true_type {};

/// The bin of sample x of channel `channel` in the concatenated histogram of the active channels, or -1.
template <class S, class B>
__device__ __forceinline__ int hist_bin_of(const B& b, S x, int channel) {
  if constexpr (hist_is_multi<B>::value) {
    const int slot = b.slot[channel];
    if (slot < 0) return -1;
    const int r = b.b[slot](x);
    return r < 0 ? -1 : b.offset[slot] + r;
  } else {
    (void)channel;
    return b(x);
  }
}

/// The output counter of a bin of the concatenated histogram.
template <class S, class B, class C>
__device__ __forceinline__ C* hist_out_of(const hist_params<S, B, C>& p, int bin) {
  if constexpr (hist_is_multi<B>::value) {
    int k = p.num_out - 1;
    while (k > 0 && bin < p.offset[k]) --k;
    return p.out[k] + (bin - p.offset[k]);
  } else {
    return p.out[0] + bin;
  }
}

template <class C>
__device__ __forceinline__ void hist_atomic_add(C* where, std::uint32_t v) {
  if constexpr (sizeof(C) == 8)
    atomicAdd(reinterpret_cast<unsigned long long*>(where), static_cast<unsigned long long>(v));
  else atomicAdd(reinterpret_cast<unsigned*>(where), static_cast<unsigned>(v));
}

/// The block's private counters (dynamic shared memory, sized by the host from the launch's plan).
extern __shared__ unsigned hist_smem[];

/// One thread's counting under layout L: where its samples' counts go first, and the steps that put them there
/// and merge them into the outputs. The steps called per sample (add, flush, channel_of, add_vector) are left to
/// the compiler's inliner rather than forced inline, and T is read once at the start: forcing them, or reading T
/// again after the grid-dependency wait, changes the kernels' machine code.
template <hist_layout L, class S, class B, class C>
struct hist_counters {
  static constexpr bool multi = hist_is_multi<B>::value;
  static constexpr bool privatized = L == hist_layout::shared || L == hist_layout::lanes;
  static constexpr bool bytes = L == hist_layout::lanes && hist_is_bytes<B>::value;  // the byte path
  static constexpr unsigned bin_shift = bytes ? 6u : 5u;  // log2 of a bin's words in the lanes layouts
  static constexpr int V = 16 / int(sizeof(S));            // samples per 16-byte vector

  const hist_params<S, B, C>& p;
  int T;               // bins of the concatenated histogram (read once, in start)
  unsigned mine;       // index of this warp's copy (lanes: plus the lane) in hist_smem
  unsigned run_count;  // the run of equal bins not yet counted (shared, global_runs): its length and bin
  int run_bin;

  __device__ __forceinline__ explicit hist_counters(const hist_params<S, B, C>& params) : p(params) {}

  /// Privatized layouts zero the block's copies and find this thread's; the global layout waits for the outputs'
  /// zeroing, since it writes them from the first sample on.
  __device__ __forceinline__ void start() {
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    T = p.total_bins;
    if constexpr (!privatized) wait_for_prerequisite_grid();
    mine = 0;
    if constexpr (privatized) {
      const unsigned words = unsigned(p.copies) * unsigned(T) * (L == hist_layout::lanes ? 32u : 1u);
      for (unsigned i = threadIdx.x; i < words; i += blockDim.x) hist_smem[i] = 0;
      __syncthreads();
      const unsigned copy = warp & unsigned(p.copies - 1);  // copies is a power of two
      if constexpr (bytes) mine = copy * 32u + lane;        // copies == 2 (the plan sees to it)
      else mine = L == hist_layout::lanes ? copy * unsigned(T) * 32u + lane : copy * unsigned(T);
    }
    run_bin = -1;
    run_count = 0;
  }

  /// Counts the pending run of equal bins.
  __device__ void flush() {
    if (run_count) {
      if constexpr (L == hist_layout::shared) atomicAdd(&hist_smem[mine + unsigned(run_bin)], run_count);
      else hist_atomic_add(hist_out_of(p, run_bin), run_count);
    }
  }

  /// Counts one sample of bin b (none for b < 0).
  __device__ void add(int b) {
    if (b < 0) return;
    if constexpr (L == hist_layout::lanes) {
      atomicAdd(&hist_smem[mine + (unsigned(b) << bin_shift)], 1u);
    } else {
      if (b == run_bin) {
        ++run_count;
      } else {
        flush();
        run_bin = b;
        run_count = 1;
      }
    }
  }

  /// The channel of sample i of this launch.
  __device__ int channel_of(std::uint64_t i) const {
    if constexpr (multi) return static_cast<int>((p.first + i) % static_cast<unsigned>(p.bin.channels));
    else return 0;
  }

  /// Counts sample i of this launch.
  __device__ __forceinline__ void add_sample(std::uint64_t i) { add(hist_bin_of(p.bin, p.in[i], channel_of(i))); }

  /// The byte path's sixteen samples: four SIMD maps, sixteen (permute, atomic) pairs; a vector of sixteen equal
  /// samples (low-entropy data) is one atomic of 16.
  __device__ __forceinline__ void add_bytes(const uint4& raw) {
    const unsigned rep = __byte_perm(raw.x, 0, 0);
    if (raw.x == rep && raw.y == rep && raw.z == rep && raw.w == rep) {
      atomicAdd(&hist_smem[mine + (unsigned(p.bin.map4(rep) & 0xffu) << 6)], 16u);
      return;
    }
    char* const base = reinterpret_cast<char*>(hist_smem);
    const unsigned y = mine * 4u;  // < 256: the counter's byte offset within its bin's 256-byte row
    const unsigned w[4] = {p.bin.map4(raw.x), p.bin.map4(raw.y), p.bin.map4(raw.z), p.bin.map4(raw.w)};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      // (bin << 8) | y: byte 0 from y, byte 1 the sample's bin, bytes 2 and 3 from y's zero byte 1.
      atomicAdd(reinterpret_cast<unsigned*>(base + __byte_perm(w[k], y, 0x5504u)), 1u);
      atomicAdd(reinterpret_cast<unsigned*>(base + __byte_perm(w[k], y, 0x5514u)), 1u);
      atomicAdd(reinterpret_cast<unsigned*>(base + __byte_perm(w[k], y, 0x5524u)), 1u);
      atomicAdd(reinterpret_cast<unsigned*>(base + __byte_perm(w[k], y, 0x5534u)), 1u);
    }
  }

  /// The per-lane layout of one channel: a vector of V equal samples s (raw, low-entropy data) is one atomic of V,
  /// five instructions per vector. False (nothing counted) when the samples are not all equal.
  __device__ __forceinline__ bool add_equal(const uint4& raw, const S (&s)[V]) {
    const unsigned rep = sizeof(S) == 1   ? __byte_perm(raw.x, 0, 0)
                         : sizeof(S) == 2 ? __byte_perm(raw.x, 0, 0x1010)
                                          : raw.x;
    if (raw.x == rep && raw.y == raw.x && raw.z == raw.x && raw.w == (sizeof(S) == 8 ? raw.y : raw.x) &&
        (sizeof(S) != 8 || raw.z == raw.x)) {
      const int b = hist_bin_of(p.bin, s[0], 0);
      if (b >= 0) atomicAdd(&hist_smem[mine + (unsigned(b) << 5)], unsigned(V));
      return true;
    }
    return false;
  }

  /// Counts the V samples of a 16-byte vector whose first sample is sample `first` of this launch.
  __device__ void add_vector(const uint4& raw, std::uint64_t first) {
    if constexpr (bytes) {
      add_bytes(raw);
    } else {
      S s[V];
      std::memcpy(s, &raw, 16);
      if constexpr (!multi && L == hist_layout::lanes)
        if (add_equal(raw, s)) return;
      int c = channel_of(first);
#pragma unroll
      for (int j = 0; j < V; ++j) {
        add(hist_bin_of(p.bin, s[j], c));
        if constexpr (multi) c = c + 1 == p.bin.channels ? 0 : c + 1;
      }
    }
  }

  /// Counts the last run, then merges the block's private copies into the outputs: one global atomic per nonzero
  /// bin per block, after the outputs' zeroing.
  __device__ __forceinline__ void finish() {
    if constexpr (L == hist_layout::shared || L == hist_layout::global_runs) flush();
    if constexpr (privatized) {
      __syncthreads();
      wait_for_prerequisite_grid();  // the outputs' zeroing (a no-op unless launched as a dependent launch)
      for (int b = threadIdx.x; b < T; b += blockDim.x) {
        unsigned sum = 0;
        for (int k = 0; k < p.copies; ++k) {
          if constexpr (bytes) {
            if (k > 0) break;  // both copies live in a bin's 64 words
            const unsigned* w = hist_smem + (unsigned(b) << 6);
#pragma unroll 8
            for (int l = 0; l < 64; ++l) sum += w[(l + b) & 63];
          } else if constexpr (L == hist_layout::lanes) {
            const unsigned* w = hist_smem + (unsigned(k) * unsigned(T) + unsigned(b)) * 32u;
#pragma unroll 8
            for (int l = 0; l < 32; ++l) sum += w[(l + b) & 31];
          } else {
            sum += hist_smem[unsigned(k) * unsigned(T) + unsigned(b)];
          }
        }
        if (sum) hist_atomic_add(hist_out_of(p, b), sum);
      }
    }
  }
};

/// Counts vectors [g, nvec) of the grid-stride sequence g, g + G, ... (vector v holds samples head + v·V ...): U
/// vectors per step, the next step's U loaded before this step's are binned (software pipelining: binning 16
/// one-byte samples per vector takes long enough to expose the load latency otherwise).
template <int U, class Counters>
__device__ __forceinline__ void hist_count_vectors(Counters& c, const uint4* vin, std::uint64_t nvec,
                                                   std::uint64_t head, std::uint64_t g, std::uint64_t G) {
  constexpr int V = Counters::V;
  std::uint64_t v = g;
  bool have = v + std::uint64_t(U - 1) * G < nvec;
  uint4 cur[U];
  if (have) {
#pragma unroll
    for (int u = 0; u < U; ++u) cur[u] = __ldcs(vin + v + std::uint64_t(u) * G);
  }
  while (have) {
    const std::uint64_t nv = v + std::uint64_t(U) * G;
    const bool next = nv + std::uint64_t(U - 1) * G < nvec;
    uint4 nxt[U];
#pragma unroll
    for (int u = 0; u < U; ++u) nxt[u] = cur[u];
    if (next) {
#pragma unroll
      for (int u = 0; u < U; ++u) nxt[u] = __ldcs(vin + nv + std::uint64_t(u) * G);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) c.add_vector(cur[u], head + (v + std::uint64_t(u) * G) * V);
#pragma unroll
    for (int u = 0; u < U; ++u) cur[u] = nxt[u];
    v = nv;
    have = next;
  }
  for (; v < nvec; v += G) c.add_vector(__ldcs(vin + v), head + v * V);  // fewer than U vectors left
}

/// Counts this thread's samples of the launch: the 16-byte-aligned body as vectors (hist_count_vectors), the
/// misaligned head and the tail one sample at a time.
template <int U, class Counters>
__device__ __forceinline__ void hist_count_input(Counters& c) {
  constexpr int V = Counters::V;
  const auto& p = c.p;
  const std::uint64_t G = std::uint64_t(gridDim.x) * blockDim.x;
  const std::uint64_t g = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t n = p.n;
  const std::uint64_t mis = (16u - (reinterpret_cast<std::uintptr_t>(p.in) & 15u)) & 15u;
  const std::uint64_t head = mis / sizeof(*p.in) < n ? mis / sizeof(*p.in) : n;
  const std::uint64_t nvec = (n - head) / V;
  hist_count_vectors<U>(c, reinterpret_cast<const uint4*>(p.in + head), nvec, head, g, G);
  const std::uint64_t tail0 = head + nvec * V;
  const std::uint64_t rest = head + (n - tail0);
  for (std::uint64_t i = g; i < rest; i += G) c.add_sample(i < head ? i : tail0 + (i - head));
}

/// The histogram of one launch's samples under layout L (see the header comment), added to the outputs.
template <class Policy, class S, class B, class C, hist_layout L>
__global__ void __launch_bounds__(Policy::value.threads) histogram_kernel(const hist_params<S, B, C> p) {
  constexpr histogram_policy P = Policy::value;
  hist_counters<L, S, B, C> counts(p);
  counts.start();
  hist_count_input<decltype(counts)::bytes ? P.byte_vectors : P.vectors>(counts);
  counts.finish();
}

}  // namespace cuprim::detail
