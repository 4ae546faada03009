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
#include <cuprim/multi/detail/radix_sort_kernels.cuh>
#include <cuprim/multi/detail/partials.cuh>
#include <cuprim/multi/sharded.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace cuprim::multi {

namespace detail {

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
