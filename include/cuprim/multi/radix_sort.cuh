// cuprim/multi/radix_sort.cuh: the stable radix sort of a sharded array: sorted across the ranks, and balanced.
//
//   cuprim::multi::radix_sort_keys(comm, keys_in, keys_out)
//   cuprim::multi::radix_sort_pairs(comm, keys_in, keys_out, values_in, values_out)
//
// keys_out[i] has keys_in[i]'s size: the output keeps the input's sizes over the ranks, and the concatenation of the
// output shards in rank order is, bit for bit, cuprim::radix_sort_keys / radix_sort_pairs of the concatenated input
// (device/radix_sort.cuh): ascending, stable (equal keys keep their global input order, values travel with their
// keys), floating point in the IEEE total order of the bits (-0.0 before +0.0, NaNs last in input order). Keys: the
// single-GPU sort's (integers, float, double, __half, __nv_bfloat16); values: any trivially copyable type of at
// most 160 - sizeof(K) bytes.
//
// Four steps, every one ordered on the ranks' streams:
//  1. Every rank sorts its shard into its keys_out shard with cuprim's single-GPU radix sort (stable).
//  2. Exact splitters. Rank j's output starts at global position t_j (the sizes of the ranks before it, all-gathered
//     first). The key at t_j is found digit by digit, 8 bits a round, on the ordered bits the radix sort ranks
//     (radix_sort_traits.cuh): each round every rank counts, by binary search in its sorted shard, its keys at or
//     below the 255 candidates of the next digit of all P - 1 splitters at once, one all-reduce sums the counts,
//     and the next round's kernel keeps the first digit whose count passes t_j: key width / 8 rounds (4 for 32-bit
//     keys), no host wait. Then every rank's counts below and at each splitter's key are all-gathered, and every
//     rank computes the same P x (P + 1) table of how many of rank q's sorted keys go to ranks below j: the keys
//     equal to a splitter are shared out in rank order, so the global order is (key, rank, position in the shard),
//     the stable order of the concatenation.
//  3. The table is copied to the host (the one wait: NCCL takes its counts from the host), and one NCCL group of
//     send/receive pairs (the ranks of this process in the same group) moves every rank's slices to their ranks.
//     Each rank receives in rank order into consecutive runs of its receive buffer (its own slice by a device
//     copy): P sorted runs.
//  4. The runs are merged stably, pairwise in ceil(log2 P) rounds (merge path: a partition kernel finds where each
//     tile of the output starts in its two runs, then each block merges its tile in shared memory; ties go to the
//     lower run). For P = 4 that moves the data twice, where a second radix sort would take four to eight passes
//     and a histogram. (detail::radix_sort_with runs a second stable radix sort of the received runs instead, the
//     simple form, kept for comparison.)
// One rank (comm.size() == 1) is the single-GPU sort.
//
// Waits on the host once, between steps 2 and 3, for a table of P x (P + 1) counts; everything else is queued on the
// ranks' streams. Workspace, from each rank's resource (one sharded_buffer per call): the receive buffer (n keys and
// values on a rank of n), one region that serves the local sort's workspace and then, for P > 2, the merge's second
// buffer (so about max(the sort's workspace, n keys and values)), and O(P^2) counts. The same inputs give the same
// bits on every run.
//
// Rules (cuprim::invalid_argument before anything runs): one shard per local rank in every argument; every output
// shard (and values_in shard) has its keys_in shard's size; non-null data where a shard is not empty; no output
// overlaps an input or the other output. Empty shards, and an empty array, are allowed.
#pragma once

#include <cuprim/core/memory.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/device/radix_sort.cuh>
#include <cuprim/multi/detail/nccl.hpp>
#include <cuprim/multi/detail/partials.cuh>
#include <cuprim/multi/sharded.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace cuprim::multi {

namespace detail {

/// The value type of the keys-only sort.
struct no_values {};

/// How step 4 runs: merge the received runs (the entry points), or sort them again (for comparison).
enum class sort_finish { merge, resort };

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

/// runs[q]: where in rank r's receive buffer what rank q sends it starts (runs[P]: rank r's size). One thread.
template <class Count>
__global__ void run_offsets_kernel(const Count* bounds, int P, int r, Count* runs) {
  Count at = 0;
  for (int q = 0; q < P; ++q) {
    runs[q] = at;
    at += bounds[q * (P + 1) + r + 1] - bounds[q * (P + 1) + r];
  }
  runs[P] = at;
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

/// split[k]: where tile k's first output (position min(k * Tile, n)) starts in the first run of its pair.
template <int Tile, class K>
__global__ void merge_partition_kernel(const K* src, merge_round r, std::int64_t tiles, std::int64_t* split) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k > tiles) return;
  const std::int64_t o = k * Tile < r.n ? k * Tile : r.n;
  const int m = r.pair_of(o);
  const std::int64_t s = r.start(m), h = r.mid(m);
  split[k] = merge_path(src + s, h - s, src + h, r.end(m) - h, o - s);
}

template <class K, class V>
struct merge_io {
  const K* keys_in;
  const V* values_in;
  K* keys_out;
  V* values_out;
};

/// The block merges src[a, a + la) and src[b, b + lb) (la + lb ≤ one tile) into dst[out, out + la + lb): loads both
/// into shared memory (all of a thread's loads in flight at once), each thread merges its `items` outputs from its
/// merge path's point (the two heads in registers), and the tile is stored back through shared memory.
template <class K, class V>
__device__ void merge_tile(unsigned char* smem, const merge_io<K, V>& io, std::int64_t a, int la, std::int64_t b,
                           int lb, std::int64_t out) {
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
    const std::int64_t from = i < la ? a + i : b + (i - la);
    if (i < count) rk[j] = io.keys_in[from];
    if constexpr (pairs)
      if (i < count) rv[j] = io.values_in[from];
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
    int x = merge_path(sk, la, sk + la, lb, diag), y = diag - x;
    K ka = sk[x < la ? x : 0], kb = sk[y < lb ? la + y : 0];
#pragma unroll
    for (int j = 0; j < S::items; ++j) {
      if (diag + j >= count) break;
      if (y >= lb || (x < la && !(ordered(kb) < ordered(ka)))) {  // ties: a first
        rk[j] = ka, from[j] = x++;
        if (x < la) ka = sk[x];
      } else {
        rk[j] = kb, from[j] = la + y++;
        if (y < lb) kb = sk[la + y];
      }
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
    if (i < count) io.keys_out[out + i] = sk[i];
    if constexpr (pairs)
      if (i < count) io.values_out[out + i] = sv[i];
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
    merge_tile<K, V>(smem, io, s + a0, int(a1 - a0), h + b0, int(b1 - b0), o);
    o = stop;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The host side

/// One local rank's arrays (values null for the keys-only sort).
template <class K, class V>
struct sort_shard {
  const K* keys_in;
  K* keys_out;
  const V* values_in;
  V* values_out;
  std::int64_t n;
};

/// The rules (file comment); values_in / values_out null for the keys-only sort.
template <class K, class V>
std::vector<sort_shard<K, V>> sort_validate(const char* fn, const communicator& c, const sharded<const K>& ki,
                                            const sharded<K>& ko, const sharded<const V>* vi, const sharded<V>* vo) {
  using cuprim::detail::read_only;
  using cuprim::detail::written;
  check_shards(fn, "keys_in", c, ki);
  check_shards(fn, "keys_out", c, ko);
  if (vi) check_shards(fn, "values_in", c, *vi);
  if (vo) check_shards(fn, "values_out", c, *vo);
  std::vector<sort_shard<K, V>> sh;
  for (int i = 0; i < c.local_size(); ++i) {
    const std::int64_t n = ki[i].size;
    cuprim::detail::check_size(fn, "keys_in", n, sizeof(K) + (vi ? sizeof(V) : 0));
    if (ko[i].size != n) throw invalid_argument(fn, "keys_out", "shard sizes must be keys_in's shard sizes");
    if (vi && (*vi)[i].size != n) throw invalid_argument(fn, "values_in", "shard sizes must be keys_in's shard sizes");
    if (vo && (*vo)[i].size != n) throw invalid_argument(fn, "values_out", "shard sizes must be keys_in's shard sizes");
    const sort_shard<K, V> s{ki[i].data, ko[i].data, vi ? (*vi)[i].data : nullptr, vo ? (*vo)[i].data : nullptr, n};
    const std::size_t kb = std::size_t(n) * sizeof(K), vb = vi ? std::size_t(n) * sizeof(V) : 0;
    cuprim::detail::check_overlaps(fn, {{"keys_in", s.keys_in, kb, read_only},
                                        {"values_in", s.values_in, vb, read_only},
                                        {"keys_out", s.keys_out, kb, written},
                                        {"values_out", s.values_out, vb, written}});
    sh.push_back(s);
  }
  return sh;
}

template <class K, class V>
inline constexpr bool has_values = !std::is_same_v<V, no_values>;

/// The single-GPU sort of n keys (and values), in workspace w, and the workspace it takes.
template <class K, class V>
void local_sort(const K* ki, K* ko, const V* vi, V* vo, std::int64_t n, workspace w, cudaStream_t stream) {
  if constexpr (has_values<K, V>) cuprim::radix_sort_pairs(ki, ko, vi, vo, n, w, {}, stream);
  else cuprim::radix_sort_keys(ki, ko, n, w, {}, stream);
}
template <class K, class V>
std::size_t local_sort_bytes(std::int64_t n) {
  if constexpr (has_values<K, V>) return cuprim::radix_sort_pairs_workspace_bytes<K, V>(n);
  else return cuprim::radix_sort_keys_workspace_bytes<K>(n);
}

/// One local rank's workspace (P ≥ 2 ranks, n keys on this one): the splitters' counts, the send table, the
/// received runs, and `scratch`: the local sort's workspace, then the merge's second buffer (keys, then values).
template <class K, class V>
struct sort_layout {
  using U = ordered_bits_t<K>;
  using part64 = cuprim::detail::workspace_part<std::int64_t>;
  part64 sizes, counts, ties, bounds, runs, split;
  cuprim::detail::workspace_part<U> prefix;
  cuprim::detail::workspace_part<K> recv_keys;
  cuprim::detail::workspace_part<V> recv_values;
  cuprim::detail::workspace_part<std::byte> scratch;
  std::int64_t n, tiles;
  cuprim::detail::workspace_layout L;

  sort_layout(int P, std::int64_t n_, std::size_t sort_bytes) : n(n_) {
    const auto p = std::size_t(P), m = std::size_t(n);
    tiles = (n + merge_shape<K, V>::tile - 1) / merge_shape<K, V>::tile;
    sizes = L.add<std::int64_t>(p);
    prefix = L.add<U>(p - 1);
    counts = L.add<std::int64_t>(2 * (p - 1) * candidates);
    ties = L.add<std::int64_t>(2 * p * (p - 1));
    bounds = L.add<std::int64_t>(p * (p + 1));
    runs = L.add<std::int64_t>(p + 1);
    split = L.add<std::int64_t>(std::size_t(tiles) + 1);
    recv_keys = L.add<K>(m);
    recv_values = L.add<V>(has_values<K, V> ? m : 0);
    const std::size_t second = P > 2 ? values_offset(n) + (has_values<K, V> ? m * sizeof(V) : 0) : 0;
    scratch = L.add<std::byte>(std::max(sort_bytes, second));
  }
  static std::size_t values_offset(std::int64_t n) { return cuprim::detail::align_up(std::size_t(n) * sizeof(K)); }
  std::size_t bytes() const { return L.bytes(); }
  K* tmp_keys(const workspace& w) const { return reinterpret_cast<K*>(scratch.in(w)); }
  V* tmp_values(const workspace& w) const { return reinterpret_cast<V*>(scratch.in(w) + values_offset(n)); }
};

/// Step 4 on one rank: the P runs of the receive buffer merged into the outputs (or sorted again).
template <class K, class V>
void finish_rank(const char* fn, const sort_layout<K, V>& L, const workspace& w, const sort_shard<K, V>& sh, int P,
                 sort_finish how, cudaStream_t stream) {
  using S = merge_shape<K, V>;
  const std::int64_t n = sh.n;
  if (n == 0) return;
  if (how == sort_finish::resort)
    return local_sort(L.recv_keys.in(w), sh.keys_out, L.recv_values.in(w), sh.values_out, n,
                      workspace{L.scratch.in(w), L.scratch.bytes()}, stream);
  int rounds = 0;
  while ((1 << rounds) < P) ++rounds;
  merge_io<K, V> src{L.recv_keys.in(w), L.recv_values.in(w), nullptr, nullptr};
  for (int k = 0; k < rounds; ++k) {
    const bool last = k == rounds - 1, from_recv = src.keys_in == L.recv_keys.in(w);
    merge_io<K, V> io = src;
    io.keys_out = last ? sh.keys_out : from_recv ? L.tmp_keys(w) : L.recv_keys.in(w);
    io.values_out = last ? sh.values_out : from_recv ? L.tmp_values(w) : L.recv_values.in(w);
    const merge_round r{L.runs.in(w), P, 1 << k, n};
    merge_partition_kernel<S::tile><<<unsigned((L.tiles + 256) / 256), 256, 0, stream>>>(io.keys_in, r, L.tiles,
                                                                                          L.split.in(w));
    cuprim::detail::check_launch(fn);
    merge_kernel<K, V><<<unsigned(L.tiles), S::threads, 0, stream>>>(io, r, L.split.in(w));
    cuprim::detail::check_launch(fn);
    src = merge_io<K, V>{io.keys_out, io.values_out, nullptr, nullptr};
  }
}

/// Step 3 for one array on one rank (inside the NCCL group): its slices to the other ranks, theirs into its runs.
template <class T>
void exchange_rank(const local_rank& l, const std::vector<std::int64_t>& B, const std::vector<std::int64_t>& runs,
                   int P, const T* send, T* recv) {
  const int r = l.rank;
  for (int q = 0; q < P; ++q) {
    if (q == r) continue;
    const std::int64_t from = B[std::size_t(r * (P + 1) + q)], count = B[std::size_t(r * (P + 1) + q + 1)] - from;
    if (count > 0)
      CUPRIM_NCCL_CHECK(ncclSend(send + from, std::size_t(count) * sizeof(T), ncclUint8, q, l.comm, l.stream));
    const std::int64_t in = B[std::size_t(q * (P + 1) + r + 1)] - B[std::size_t(q * (P + 1) + r)];
    if (in > 0)
      CUPRIM_NCCL_CHECK(ncclRecv(recv + runs[std::size_t(q)], std::size_t(in) * sizeof(T), ncclUint8, q, l.comm,
                                 l.stream));
  }
}

/// The slice a rank keeps, copied into its own run.
template <class T>
void keep_own(const local_rank& l, const std::vector<std::int64_t>& B, const std::vector<std::int64_t>& runs, int P,
              const T* send, T* recv) {
  const int r = l.rank;
  const std::int64_t from = B[std::size_t(r * (P + 1) + r)], count = B[std::size_t(r * (P + 1) + r + 1)] - from;
  if (count > 0)
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(recv + runs[std::size_t(r)], send + from, std::size_t(count) * sizeof(T),
                                      cudaMemcpyDeviceToDevice, l.stream));
}

/// Steps 2 (after the sizes and the local sorts) on every local rank: the splitter rounds, the ties, the table.
template <class K, class V>
void find_splitters(const char* fn, const communicator& c, const std::vector<sort_shard<K, V>>& sh,
                    const std::vector<sort_layout<K, V>>& L, const std::vector<workspace>& w) {
  constexpr int width = cuprim::detail::radix_key<K>::bits, rounds = width / digit_bits;
  const int P = c.size(), splitters = P - 1;
  const std::size_t per_round = std::size_t(splitters) * candidates;
  for (int k = 0; k < rounds; ++k) {
    const int shift = width - digit_bits * (k + 1);
    each_rank(c, [&](const local_rank& l, int i) {
      std::int64_t* counts = L[i].counts.in(w[i]);
      splitter_round_kernel<K><<<unsigned(splitters), 256, 0, l.stream>>>(
          sh[i].keys_out, sh[i].n, L[i].sizes.in(w[i]), L[i].prefix.in(w[i]),
          k ? counts + per_round * ((k - 1) & 1) : nullptr, shift + digit_bits, counts + per_round * (k & 1), shift);
      cuprim::detail::check_launch(fn);
    });
    each_rank_grouped(c, [&](const local_rank& l, int i) {
      std::int64_t* counts = L[i].counts.in(w[i]) + per_round * (k & 1);
      CUPRIM_NCCL_CHECK(ncclAllReduce(counts, counts, per_round, ncclInt64, ncclSum, l.comm, l.stream));
    });
  }
  const std::size_t tie_width = 2 * std::size_t(splitters);
  each_rank(c, [&](const local_rank& l, int i) {
    splitter_ties_kernel<K><<<unsigned((splitters + 255) / 256), 256, 0, l.stream>>>(
        sh[i].keys_out, sh[i].n, L[i].sizes.in(w[i]), L[i].prefix.in(w[i]),
        L[i].counts.in(w[i]) + per_round * ((rounds - 1) & 1), splitters, L[i].ties.in(w[i]) + tie_width * l.rank);
    cuprim::detail::check_launch(fn);
  });
  each_rank_grouped(c, [&](const local_rank& l, int i) {
    std::int64_t* ties = L[i].ties.in(w[i]);
    CUPRIM_NCCL_CHECK(ncclAllGather(ties + tie_width * l.rank, ties, tie_width, ncclInt64, l.comm, l.stream));
  });
  each_rank(c, [&](const local_rank& l, int i) {
    send_bounds_kernel<<<unsigned((P + 256) / 256), 256, 0, l.stream>>>(L[i].sizes.in(w[i]), L[i].ties.in(w[i]), P,
                                                                        L[i].bounds.in(w[i]));
    cuprim::detail::check_launch(fn);
    run_offsets_kernel<<<1, 1, 0, l.stream>>>(L[i].bounds.in(w[i]), P, l.rank, L[i].runs.in(w[i]));
    cuprim::detail::check_launch(fn);
  });
}

/// The sort of validated shards (see the file comment for the steps).
template <class K, class V>
void sort_run(const char* fn, const communicator& c, const std::vector<sort_shard<K, V>>& sh, sort_finish how) {
  const int P = c.size();
  if (P == 1) {  // one rank: the single-GPU sort
    const local_rank& l = c[0];
    device_guard g(l.device);
    cuprim::detail::check_no_pending_error(fn);
    const std::int64_t bytes = std::int64_t(local_sort_bytes<K, V>(sh[0].n));
    sharded_buffer<std::byte> buf(c, std::vector<std::int64_t>{bytes});
    local_sort(sh[0].keys_in, sh[0].keys_out, sh[0].values_in, sh[0].values_out, sh[0].n,
               workspace{buf.data(0), std::size_t(bytes)}, l.stream);
    return;
  }
  std::vector<sort_layout<K, V>> L;
  std::vector<std::int64_t> bytes;
  each_rank(c, [&](const local_rank&, int i) {
    cuprim::detail::check_no_pending_error(fn);
    L.emplace_back(P, sh[i].n, local_sort_bytes<K, V>(sh[i].n));
    bytes.push_back(std::int64_t(L.back().bytes()));
  });
  sharded_buffer<std::byte> buf(c, bytes);
  std::vector<workspace> w;
  for (int i = 0; i < c.local_size(); ++i) w.push_back({buf.data(i), std::size_t(bytes[std::size_t(i)])});

  // 1. Every rank's size, all-gathered; the local sorts.
  each_rank(c, [&](const local_rank& l, int i) {
    set_value_kernel<<<1, 1, 0, l.stream>>>(L[i].sizes.in(w[i]) + l.rank, sh[i].n);
    cuprim::detail::check_launch(fn);
  });
  each_rank_grouped(c, [&](const local_rank& l, int i) {
    std::int64_t* sizes = L[i].sizes.in(w[i]);
    CUPRIM_NCCL_CHECK(ncclAllGather(sizes + l.rank, sizes, 1, ncclInt64, l.comm, l.stream));
  });
  each_rank(c, [&](const local_rank& l, int i) {
    local_sort(sh[i].keys_in, sh[i].keys_out, sh[i].values_in, sh[i].values_out, sh[i].n,
               workspace{L[i].scratch.in(w[i]), L[i].scratch.bytes()}, l.stream);
  });
  // 2. The splitters and the send table (identical on every rank).
  find_splitters(fn, c, sh, L, w);
  // 3. The table to the host (local rank 0's copy serves every local rank), the exchange.
  std::vector<std::int64_t> B(std::size_t(P) * std::size_t(P + 1));
  {
    device_guard g(c[0].device);
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(B.data(), L[0].bounds.in(w[0]), B.size() * sizeof(std::int64_t),
                                      cudaMemcpyDeviceToHost, c[0].stream));
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(c[0].stream));
  }
  std::vector<std::vector<std::int64_t>> runs(std::size_t(c.local_size()), std::vector<std::int64_t>(P + 1, 0));
  for (int i = 0; i < c.local_size(); ++i)
    for (int q = 0, r = c[i].rank; q < P; ++q)
      runs[i][q + 1] = runs[i][q] + B[std::size_t(q * (P + 1) + r + 1)] - B[std::size_t(q * (P + 1) + r)];
  each_rank(c, [&](const local_rank& l, int i) {
    keep_own(l, B, runs[i], P, sh[i].keys_out, L[i].recv_keys.in(w[i]));
    if constexpr (has_values<K, V>) keep_own(l, B, runs[i], P, sh[i].values_out, L[i].recv_values.in(w[i]));
  });
  each_rank_grouped(c, [&](const local_rank& l, int i) {
    exchange_rank(l, B, runs[i], P, sh[i].keys_out, L[i].recv_keys.in(w[i]));
    if constexpr (has_values<K, V>) exchange_rank(l, B, runs[i], P, sh[i].values_out, L[i].recv_values.in(w[i]));
  });
  // 4. The merges.
  each_rank(c, [&](const local_rank& l, int i) { finish_rank(fn, L[i], w[i], sh[i], P, how, l.stream); });
}

/// radix_sort_pairs with step 4 chosen (sort_finish::resort: a second stable radix sort of the received runs, the
/// simple form the merge replaces; for comparison). Errors name `fn`.
template <class K, class V>
void radix_sort_with(const char* fn, const communicator& c, const sharded<const K>& keys_in,
                     const sharded<K>& keys_out, const sharded<const V>& values_in, const sharded<V>& values_out,
                     sort_finish how) {
  static_assert(std::is_trivially_copyable_v<V>, "cuprim::multi::radix_sort_pairs: values must be trivially copyable");
  sort_run<K, V>(fn, c, sort_validate<K, V>(fn, c, keys_in, keys_out, &values_in, &values_out), how);
}

}  // namespace detail

/// keys_out = the keys of every shard, sorted across the ranks (stable), keys_out[i] of keys_in[i]'s size.
template <class K>
void radix_sort_keys(const communicator& c, const sharded<const K>& keys_in, const sharded<K>& keys_out) {
  CUPRIM_ENTRY_NAME(fn);
  using V = detail::no_values;
  detail::sort_run<K, V>(fn, c, detail::sort_validate<K, V>(fn, c, keys_in, keys_out, nullptr, nullptr),
                         detail::sort_finish::merge);
}

/// radix_sort_keys of a non-const view.
template <class K>
void radix_sort_keys(const communicator& c, const sharded<K>& keys_in, const sharded<K>& keys_out) {
  radix_sort_keys(c, sharded<const K>(keys_in), keys_out);
}

/// The pairs (keys_in, values_in) sorted by key across the ranks (stable), into keys_out and values_out.
template <class K, class V>
void radix_sort_pairs(const communicator& c, const sharded<const K>& keys_in, const sharded<K>& keys_out,
                      const sharded<const V>& values_in, const sharded<V>& values_out) {
  CUPRIM_ENTRY_NAME(fn);
  detail::radix_sort_with(fn, c, keys_in, keys_out, values_in, values_out, detail::sort_finish::merge);
}

/// radix_sort_pairs where keys_in or values_in is a non-const view.
template <class KI, class K, class VI, class V>
  requires(std::is_same_v<std::remove_const_t<KI>, K> && std::is_same_v<std::remove_const_t<VI>, V> &&
           !(std::is_const_v<KI> && std::is_const_v<VI>))
void radix_sort_pairs(const communicator& c, const sharded<KI>& keys_in, const sharded<K>& keys_out,
                      const sharded<VI>& values_in, const sharded<V>& values_out) {
  radix_sort_pairs(c, sharded<const K>(keys_in), keys_out, sharded<const V>(values_in), values_out);
}

}  // namespace cuprim::multi
