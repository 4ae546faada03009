// cuprim/multi/detail/radix_sort_kernels.cuh: the kernels of cuprim::multi's radix sort (multi/radix_sort.cuh):
// the exact splitters' rounds and tables, and the stable merge of the received runs (merge path).
#pragma once

#include <cuprim/device/radix_sort.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cuprim::multi::detail {

/// The value type of the keys-only sort.
struct no_values {};

/// How step 4 runs: merge the received runs (the entry points), or sort them again (for comparison).
enum class sort_finish { merge, resort };

/// Where a sort stops (the lab times the steps as prefixes of the call): after the local sorts, after the splitters
/// and the table's wait on the host, after the exchange, or at the end (the entry points).
enum class sort_stop { after_local_sort, after_splitters, after_exchange, full };

template <class K>
using ordered_bits_t = typename cuprim::detail::radix_key<K>::bits_t;

template <class K>
__device__ __forceinline__ ordered_bits_t<K> ordered(const K& k) {
  return cuprim::detail::radix_key<K>::ordered(k);
}

inline constexpr int digit_bits = 8;                     // bits a splitter round settles
inline constexpr int candidates = (1 << digit_bits) - 1;  // counts a round takes per splitter

// ---------------------------------------------------------------------------------------------------------------
// Step 2: the splitters

/// How many of a[0, n) (sorted by their ordered bits) have ordered bits below u (Upper: at most u).
template <bool Upper, class K>
__device__ std::int64_t count_below(const K* a, std::int64_t n, ordered_bits_t<K> u) {
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    const ordered_bits_t<K> o = ordered(a[mid]);
    if (Upper ? o <= u : o < u) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// t_{s+1}: the global position where rank s + 1's output starts (sizes: every rank's size).
__device__ inline std::int64_t splitter_target(const std::int64_t* sizes, int s) {
  std::int64_t t = 0;
  for (int x = 0; x <= s; ++x) t += sizes[x];
  return t;
}

/// The digit a round settles: the first candidate whose global count (at or below it) exceeds t; 255 if none. The
/// counts grow with the candidate, so a binary search finds it.
__device__ inline unsigned splitter_digit(const std::int64_t* counts, std::int64_t t) {
  unsigned lo = 0, hi = unsigned(candidates);
  while (lo < hi) {
    const unsigned mid = (lo + hi) / 2;
    if (counts[mid] > t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/// One round, block s for splitter s: prefix[s] takes the previous round's digit (`prev`: its summed counts, null in
/// the first round; prev_shift: the bits below that digit), then thread d counts this rank's keys at or below
/// candidate d of the next digit: prefix + (d + 1) * 2^shift - 1.
template <class K>
__global__ void splitter_round_kernel(const K* sorted, std::int64_t n, const std::int64_t* sizes,
                                      ordered_bits_t<K>* prefix, const std::int64_t* prev, int prev_shift,
                                      std::int64_t* counts, int shift) {
  using U = ordered_bits_t<K>;
  __shared__ U p;
  const int s = int(blockIdx.x);
  if (threadIdx.x == 0) {
    U q = U(0);
    if (prev != nullptr)
      q = U(prefix[s] + U(U(splitter_digit(prev + s * candidates, splitter_target(sizes, s))) << prev_shift));
    prefix[s] = q;
    p = q;
  }
  __syncthreads();
  if (threadIdx.x < unsigned(candidates)) {
    const U c = U(U(p + U(U(U(threadIdx.x) + 1u) << shift)) - 1u);
    counts[s * candidates + int(threadIdx.x)] = count_below<true>(sorted, n, c);
  }
}

/// After the last round (its summed counts `last`): splitter s's key v, and this rank's keys below v and equal to v,
/// into mine[2s] and mine[2s + 1].
template <class K>
__global__ void splitter_ties_kernel(const K* sorted, std::int64_t n, const std::int64_t* sizes,
                                     const ordered_bits_t<K>* prefix, const std::int64_t* last, int splitters,
                                     std::int64_t* mine) {
  using U = ordered_bits_t<K>;
  const int s = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (s >= splitters) return;
  const U v = U(prefix[s] + U(splitter_digit(last + s * candidates, splitter_target(sizes, s))));
  const std::int64_t below = count_below<false>(sorted, n, v);
  mine[2 * s] = below;
  mine[2 * s + 1] = count_below<true>(sorted, n, v) - below;
}

/// bounds[q][j] (q < P, j ≤ P, row length P + 1): how many of rank q's sorted keys go to ranks below j. Below
/// splitter j - 1's key they all do; of the keys equal to it, ranks take theirs in rank order until t_j is reached
/// (ties[q][2s], ties[q][2s + 1]: rank q's keys below and equal to splitter s's key). Thread j: column j.
template <class Count>
__global__ void send_bounds_kernel(const Count* sizes, const Count* ties, int P, Count* bounds) {
  const int j = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (j > P) return;
  const int w = 2 * (P - 1), s = j - 1;
  if (j == 0 || j == P) {
    for (int q = 0; q < P; ++q) bounds[q * (P + 1) + j] = j == 0 ? 0 : sizes[q];
    return;
  }
  Count need = splitter_target(sizes, s);  // the ties to place: t_j less the keys below the splitter
  for (int q = 0; q < P; ++q) need -= ties[q * w + 2 * s];
  Count before = 0;  // ties of the ranks before q
  for (int q = 0; q < P; ++q) {
    const Count below = ties[q * w + 2 * s], equal = ties[q * w + 2 * s + 1];
    const Count take = need - before < 0 ? 0 : (need - before > equal ? equal : need - before);
    bounds[q * (P + 1) + j] = below + take;
    before += equal;
  }
}

/// runs[q]: where in rank r's output what rank q sends it starts (runs[P]: rank r's size); the kernel: on one thread.
template <class Count>
__host__ __device__ void run_offsets(const Count* bounds, int P, int r, Count* runs) {
  Count at = 0;
  for (int q = 0; q < P; ++q) {
    runs[q] = at;
    at += bounds[q * (P + 1) + r + 1] - bounds[q * (P + 1) + r];
  }
  runs[P] = at;
}
template <class Count>
__global__ void run_offsets_kernel(const Count* bounds, int P, int r, Count* runs) {
  run_offsets(bounds, P, r, runs);
}

// ---------------------------------------------------------------------------------------------------------------
// Step 3: where the received slices land

/// NCCL copies a slice at full rate only where both its ends' buffers start on 16 bytes (its Simple and LL128
/// protocols fall back to narrower accesses otherwise), and a slice of a sorted shard starts anywhere. So a slice
/// of elements of `Size` bytes is sent from the 16-byte boundary at or before it: `head` elements that are not its
/// own go first, and the receiver puts the whole message at a 16-byte boundary of its receive buffer and reads the
/// slice past the head. Sender and receiver compute the same head from the slice's first position (the shard's
/// base is 16-byte aligned: cuprim's workspace, or the caller's keys_out). A Size that does not divide 16 gets no
/// head and no padding: its slices are sent as they lie.
template <std::size_t Size>
struct slice_align {
  static constexpr std::int64_t elems = 16 % Size == 0 ? std::int64_t(16 / Size) : 1;  // per 16 bytes (1: none)
  __host__ __device__ static std::int64_t head(std::int64_t from) { return from % elems; }
  __host__ __device__ static std::int64_t round_up(std::int64_t x) { return (x + elems - 1) / elems * elems; }
  /// Elements a receive buffer of n elements needs for P slices placed this way.
  static std::int64_t capacity(std::int64_t n, int P) { return n + 2 * std::int64_t(P) * elems; }
};

/// Rank r's receive layout, from the send table (bounds: P x (P + 1)): slot[q] where rank q's message lands in the
/// receive buffer (q ≠ r; the own run is read in place) and where its slice then starts, slot[q] + head. With
/// `aligned` false the slices lie back to back at their output positions (the re-sort's layout). The same function
/// runs on the host (the receives' addresses) and on the device (the merge's run addresses).
template <std::size_t Size, class Count>
__host__ __device__ void receive_slots(const Count* bounds, int P, int r, bool aligned, Count* slot, Count* start) {
  using A = slice_align<Size>;
  Count at = 0;
  for (int q = 0; q < P; ++q) {
    const Count from = bounds[q * (P + 1) + r], count = bounds[q * (P + 1) + r + 1] - from;
    if (!aligned) {
      slot[q] = start[q] = at;
      at += count;
      continue;
    }
    if (q == r) {
      slot[q] = start[q] = at;  // not received
      continue;
    }
    const Count head = count > 0 ? A::head(from) : 0;
    slot[q] = at;
    start[q] = at + head;
    at += A::round_up(head + count);
  }
}

/// The message rank r sends rank q ≠ r: `first`, its first element in r's sorted shard (`aligned`: the 16-byte
/// boundary at or before the slice, slice_align), and `count` elements (0: nothing is sent).
template <std::size_t Size, class Count>
__host__ __device__ void send_range(const Count* bounds, int P, int r, int q, bool aligned, Count* first,
                                    Count* count) {
  const Count from = bounds[r * (P + 1) + q], n = bounds[r * (P + 1) + q + 1] - from;
  const Count head = aligned && n > 0 ? slice_align<Size>::head(from) : 0;
  *first = from - head;
  *count = n > 0 ? head + n : 0;
}

/// shift[q] (keys) and shift[P + q] (values): how far run q's slice lies past its output position in the receive
/// buffer (receive_slots' start minus the run's offset, runs: run_offsets'). scratch: 2P counts.
template <std::size_t KeySize, std::size_t ValueSize, class Count>
__host__ __device__ void run_shifts(const Count* bounds, int P, int r, const Count* runs, Count* shift, Count* scratch) {
  receive_slots<KeySize>(bounds, P, r, true, scratch, scratch + P);
  for (int q = 0; q < P; ++q) shift[q] = scratch[P + q] - runs[q];
  receive_slots<ValueSize>(bounds, P, r, true, scratch, scratch + P);
  for (int q = 0; q < P; ++q) shift[P + q] = scratch[P + q] - runs[q];
}
template <std::size_t KeySize, std::size_t ValueSize, class Count>
__global__ void run_shifts_kernel(const Count* bounds, int P, int r, const Count* runs, Count* shift, Count* scratch) {
  run_shifts<KeySize, ValueSize>(bounds, P, r, runs, shift, scratch);
}

template <class Count>
__global__ void set_value_kernel(Count* p, Count v) {
  *p = v;
}

// ---------------------------------------------------------------------------------------------------------------
// Step 4: the pairwise merges

/// The merge's tile: 256 threads of `items` consecutive outputs (odd, so that the threads' strided accesses to shared
/// memory spread over the banks), the keys and values of a tile in shared memory.
template <class K, class V>
struct merge_shape {
  static constexpr int bytes = int(sizeof(K)) + (std::is_same_v<V, no_values> ? 0 : int(sizeof(V)));
  static constexpr int threads = 256;
  static constexpr int items = bytes <= 4 ? 15 : bytes <= 8 ? 11 : bytes <= 16 ? 7 : bytes <= 32 ? 3 : 1;
  static constexpr int tile = threads * items;
  static_assert(tile * bytes <= 40 * 1024, "cuprim::multi::radix_sort_pairs: values of at most 160 - sizeof(K) bytes");
};

/// One merge round over the P runs of a receive buffer (runs[0..P], runs[P] = n): pair m merges the stride-run
/// groups 2m and 2m + 1, i.e. [start(m), mid(m)) with [mid(m), end(m)) (run indices clamped to P).
struct merge_round {
  const std::int64_t* runs;
  int P, stride;
  std::int64_t n;
  __device__ std::int64_t at(std::int64_t run) const { return runs[run < P ? run : P]; }
  __device__ std::int64_t start(int m) const { return at(2 * std::int64_t(m) * stride); }
  __device__ std::int64_t mid(int m) const { return at((2 * std::int64_t(m) + 1) * stride); }
  __device__ std::int64_t end(int m) const { return at((2 * std::int64_t(m) + 2) * stride); }
  /// The first runs of pair m's two sides.
  __device__ std::int64_t first_run(int m) const { return 2 * std::int64_t(m) * stride; }
  __device__ std::int64_t second_run(int m) const { return (2 * std::int64_t(m) + 1) * stride; }
  /// The last pair starting at or before output position o (its end is past o when o < n).
  __device__ int pair_of(std::int64_t o) const {
    int lo = 0, hi = (P + 2 * stride - 1) / (2 * stride) - 1;
    while (lo < hi) {
      const int m = (lo + hi + 1) / 2;
      if (start(m) <= o) lo = m;
      else hi = m - 1;
    }
    return lo;
  }
};

/// How many of a's keys come first among the first diag outputs of the stable merge of a and b (ties: a first).
template <class I, class K>
__device__ I merge_path(const K* a, I na, const K* b, I nb, I diag) {
  I lo = diag > nb ? diag - nb : I(0), hi = diag < na ? diag : na;
  while (lo < hi) {
    const I mid = lo + (hi - lo) / 2;
    if (ordered(a[mid]) <= ordered(b[diag - 1 - mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// What a round reads and writes. Every run lies at its output position in keys_in / values_in, except in the first
/// round, where each side of a pair is one run: run `own` (≥ 0 only then: the rank's own run, read where the local
/// sort left it) starts at own_keys / own_values, and the others lie `shift` elements past their output positions
/// (shift[q] for keys, shift[P + q] for values: the received slices' padding, run_shifts_kernel; null: none).
template <class K, class V>
struct merge_io {
  const K* keys_in;
  const V* values_in;
  K* keys_out;
  V* values_out;
  const K* own_keys = nullptr;
  const V* own_values = nullptr;
  std::int64_t own = -1;
  const std::int64_t* shift = nullptr;
  int P = 0;
  /// The keys (values) of a side whose first run is `run` and whose first output position is `at`.
  __device__ const K* keys(std::int64_t run, std::int64_t at) const {
    return run == own ? own_keys : keys_in + at + (shift && run < P ? shift[run] : 0);  // run P: an empty side
  }
  __device__ const V* values(std::int64_t run, std::int64_t at) const {
    return run == own ? own_values : values_in + at + (shift && run < P ? shift[P + run] : 0);
  }
};

/// split[k]: where tile k's first output (position min(k * Tile, n)) starts in the first side of its pair.
template <int Tile, class K, class V>
__global__ void merge_partition_kernel(merge_io<K, V> io, merge_round r, std::int64_t tiles, std::int64_t* split) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k > tiles) return;
  const std::int64_t o = k * Tile < r.n ? k * Tile : r.n;
  const int m = r.pair_of(o);
  const std::int64_t s = r.start(m), h = r.mid(m);
  split[k] = merge_path(io.keys(r.first_run(m), s), h - s, io.keys(r.second_run(m), h), r.end(m) - h, o - s);
}

/// The block merges (ak, av)[0, la) and (bk, bv)[0, lb) (la + lb ≤ one tile) into (ok, ov)[0, la + lb): loads both
/// into shared memory (all of a thread's loads in flight at once), each thread merges its `items` outputs from its
/// merge path's point (the two heads in registers), and the tile is stored back through shared memory. The values'
/// pointers are null for the keys-only sort.
template <class K, class V>
__device__ void merge_tile(unsigned char* smem, const K* ak, const V* av, int la, const K* bk, const V* bv, int lb,
                           K* ok, V* ov) {
  using S = merge_shape<K, V>;
  constexpr bool pairs = !std::is_same_v<V, no_values>;
  K* sk = reinterpret_cast<K*>(smem);
  V* sv = reinterpret_cast<V*>(smem + std::size_t(S::tile) * sizeof(K));
  const int count = la + lb, diag = int(threadIdx.x) * S::items;
  K rk[S::items];
  [[maybe_unused]] V rv[pairs ? S::items : 1];
#pragma unroll
  for (int j = 0; j < S::items; ++j) {  // striped loads into registers, then into shared memory
    const int i = int(threadIdx.x) + j * S::threads;
    const bool in_a = i < la;
    const int at = in_a ? i : i - la;
    if (i < count) rk[j] = (in_a ? ak : bk)[at];
    if constexpr (pairs)
      if (i < count) rv[j] = (in_a ? av : bv)[at];
  }
#pragma unroll
  for (int j = 0; j < S::items; ++j) {
    const int i = int(threadIdx.x) + j * S::threads;
    if (i < count) sk[i] = rk[j];
    if constexpr (pairs)
      if (i < count) sv[i] = rv[j];
  }
  __syncthreads();
  int from[S::items];
  if (diag < count) {
    // Without branches: each step picks a head, advances its side and reads that side's next key (past the last
    // loaded key, the last one, which the bounds then ignore). A warp's threads do not diverge and a step waits for
    // one shared memory load (a branch per side ran both sides in a diverged warp, a load each); 32-bit keys alone
    // take 48 registers a thread, not 64 (five blocks an SM, not four). Outputs past `count` are computed, not
    // stored.
    int x = merge_path(sk, la, sk + la, lb, diag), y = diag - x;
    K ka = sk[x < la ? x : 0], kb = sk[y < lb ? la + y : 0];
#pragma unroll
    for (int j = 0; j < S::items; ++j) {
      const bool take_b = y < lb && (x >= la || ordered(kb) < ordered(ka));  // ties: a first
      rk[j] = take_b ? kb : ka;
      from[j] = take_b ? la + y : x;
      x += take_b ? 0 : 1;
      y += take_b ? 1 : 0;
      const int next = take_b ? la + y : x;
      const K k = sk[next < count ? next : count - 1];
      ka = take_b ? ka : k;
      kb = take_b ? k : kb;
    }
  }
  if constexpr (pairs)
#pragma unroll
    for (int j = 0; j < S::items; ++j)
      if (diag + j < count) rv[j] = sv[from[j]];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < S::items; ++j)
    if (diag + j < count) {
      sk[diag + j] = rk[j];
      if constexpr (pairs) sv[diag + j] = rv[j];
    }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < S::items; ++j) {  // striped stores
    const int i = int(threadIdx.x) + j * S::threads;
    if (i < count) ok[i] = sk[i];
    if constexpr (pairs)
      if (i < count) ov[i] = sv[i];
  }
  __syncthreads();
}

/// One merge round: block k writes outputs [k * tile, (k + 1) * tile), one segment per pair it meets (usually one).
template <class K, class V>
__global__ void __launch_bounds__(merge_shape<K, V>::threads)
    merge_kernel(merge_io<K, V> io, merge_round r, const std::int64_t* split) {
  using S = merge_shape<K, V>;
  __shared__ __align__(16) unsigned char smem[std::size_t(S::tile) * S::bytes];
  const std::int64_t o0 = std::int64_t(blockIdx.x) * S::tile, o1 = o0 + S::tile < r.n ? o0 + S::tile : r.n;
  int m = r.pair_of(o0);
  for (std::int64_t o = o0; o < o1; ++m) {
    const std::int64_t s = r.start(m), h = r.mid(m), e = r.end(m), stop = o1 < e ? o1 : e;
    if (stop <= o) continue;  // an empty pair
    const std::int64_t a0 = o == o0 ? split[blockIdx.x] : 0, a1 = stop == e ? h - s : split[blockIdx.x + 1];
    const std::int64_t b0 = o - s - a0, b1 = stop - s - a1;
    const std::int64_t ra = r.first_run(m), rb = r.second_run(m);
    if constexpr (std::is_same_v<V, no_values>)
      merge_tile<K, V>(smem, io.keys(ra, s) + a0, nullptr, int(a1 - a0), io.keys(rb, h) + b0, nullptr, int(b1 - b0),
                       io.keys_out + o, nullptr);
    else
      merge_tile<K, V>(smem, io.keys(ra, s) + a0, io.values(ra, s) + a0, int(a1 - a0), io.keys(rb, h) + b0,
                       io.values(rb, h) + b0, int(b1 - b0), io.keys_out + o, io.values_out + o);
    o = stop;
  }
}
}  // namespace cuprim::multi::detail
