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
//  1. Every rank sorts its shard with cuprim's single-GPU radix sort (stable): into its keys_out shard, or, where
//     step 4 takes an odd number of rounds (P = 2, 5 to 8, ...), into its workspace (the first round, which reads
//     the rank's own run in place, then writes keys_out).
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
//     Each rank receives in rank order into the runs of its receive buffer, its own slice's place left empty (that
//     slice stays in the sorted shard): P sorted runs.
//  4. The runs are merged stably, pairwise in ceil(log2 P) rounds (merge path: a partition kernel finds where each
//     tile of the output starts in its two runs, then each block merges its tile in shared memory; ties go to the
//     lower run); the first round reads the own run from the sorted shard, the others from the receive buffer. For
//     P = 4 that moves the data twice, where a second radix sort would take four to eight passes and a histogram.
//     (detail::radix_sort_with runs a second stable radix sort of the received runs instead, the own slice copied
//     into its run: the simple form, kept for comparison.)
// One rank (comm.size() == 1) is the single-GPU sort.
//
// Waits on the host once, between steps 2 and 3, for a table of P x (P + 1) counts; everything else is queued on the
// ranks' streams. Workspace, from each rank's resource (one sharded_buffer per call), on a rank of n keys: one region
// that serves the local sort's workspace and then the receive buffer (max(the sort's workspace, n keys and values)),
// a second of n keys and values (the sorted shard, or the merge's first round's output; the later rounds alternate
// between it and the outputs), O(P^2) counts and one per merge tile. That is what the sort took when it copied the
// own slice, except on two ranks where the local sort's workspace is smaller than n keys and values (values wider
// than 8 bytes, or a shard sorted on chip). The same inputs give the same bits on every run.
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

/// One local rank's workspace (P ≥ 2 ranks, n keys on this one): the splitters' counts, the send table, the merge's
/// tile splits, and two regions of keys then values. `shared`: the local sort's workspace, then the receive buffer
/// (every other rank's run at its place in rank order; the own run's place is left empty, the merge reads that run
/// where the local sort left it). `second`: n keys and values, the sorted shard when the merge has an odd number of
/// rounds (the first round then writes the outputs), else the first round's output; the rounds after the first
/// alternate between it and the outputs. Under sort_finish::resort, the sorted shard is in the outputs, the own run
/// is copied into the receive buffer, and `second` is the second sort's workspace.
template <class K, class V>
struct sort_layout {
  using U = ordered_bits_t<K>;
  using part64 = cuprim::detail::workspace_part<std::int64_t>;
  part64 sizes, counts, ties, bounds, runs, shifts, slots, split;
  cuprim::detail::workspace_part<U> prefix;
  cuprim::detail::workspace_part<std::byte> shared, second;
  std::int64_t n, tiles;
  std::int64_t keys_room = 0;  // keys the receive buffer holds (n, and the slices' heads and padding)
  int rounds = 0;        // the merge's: ceil(log2 P)
  bool apart = false;    // the sorted shard in `second` (else in the outputs)
  cuprim::detail::workspace_layout L;

  sort_layout(int P, std::int64_t n_, std::size_t sort_bytes, sort_finish how) : n(n_) {
    const auto p = std::size_t(P);
    while ((1 << rounds) < P) ++rounds;
    apart = how == sort_finish::merge && rounds % 2 == 1;
    tiles = (n + merge_shape<K, V>::tile - 1) / merge_shape<K, V>::tile;
    sizes = L.add<std::int64_t>(p);
    prefix = L.add<U>(p - 1);
    counts = L.add<std::int64_t>(2 * (p - 1) * candidates);
    ties = L.add<std::int64_t>(2 * p * (p - 1));
    bounds = L.add<std::int64_t>(p * (p + 1));
    runs = L.add<std::int64_t>(p + 1);
    shifts = L.add<std::int64_t>(2 * p);  // run_shifts_kernel's: keys, then values
    slots = L.add<std::int64_t>(2 * p);   // its scratch
    split = L.add<std::int64_t>(std::size_t(tiles) + 1);
    // Room for the received slices with their heads and padding (slice_align), in both regions alike.
    keys_room = slice_align<sizeof(K)>::capacity(n, P);
    const std::size_t pairs =
        values_offset() + (has_values<K, V> ? std::size_t(slice_align<sizeof(V)>::capacity(n, P)) * sizeof(V) : 0);
    shared = L.add<std::byte>(std::max(sort_bytes, pairs));
    second = L.add<std::byte>(how == sort_finish::resort ? sort_bytes : pairs);
  }
  std::size_t values_offset() const { return cuprim::detail::align_up(std::size_t(keys_room) * sizeof(K)); }
  std::size_t bytes() const { return L.bytes(); }
  workspace sort_workspace(const workspace& w) const { return {shared.in(w), shared.bytes()}; }
  K* recv_keys(const workspace& w) const { return keys_of(shared, w); }
  V* recv_values(const workspace& w) const { return values_of(shared, w); }
  K* second_keys(const workspace& w) const { return keys_of(second, w); }
  V* second_values(const workspace& w) const { return values_of(second, w); }
  /// Where the local sort writes the sorted shard (the splitters and the exchange read it there).
  K* sorted_keys(const workspace& w, const sort_shard<K, V>& sh) const { return apart ? second_keys(w) : sh.keys_out; }
  V* sorted_values(const workspace& w, const sort_shard<K, V>& sh) const {
    return apart ? second_values(w) : sh.values_out;
  }

 private:
  K* keys_of(const cuprim::detail::workspace_part<std::byte>& r, const workspace& w) const {
    return reinterpret_cast<K*>(r.in(w));
  }
  V* values_of(const cuprim::detail::workspace_part<std::byte>& r, const workspace& w) const {
    std::byte* base = r.in(w);
    return has_values<K, V> && base ? reinterpret_cast<V*>(base + values_offset()) : nullptr;
  }
};

/// Step 4 on one rank: the P runs (the own run where the local sort left it, the others in the receive buffer)
/// merged into the outputs; or, under sort_finish::resort, the receive buffer sorted again into them. own_at: where
/// the own run starts in the sorted shard.
template <class K, class V>
void finish_rank(const char* fn, const sort_layout<K, V>& L, const workspace& w, const sort_shard<K, V>& sh, int P,
                 int rank, std::int64_t own_at, sort_finish how, cudaStream_t stream) {
  using S = merge_shape<K, V>;
  const std::int64_t n = sh.n;
  if (n == 0) return;
  if (how == sort_finish::resort)
    return local_sort(L.recv_keys(w), sh.keys_out, L.recv_values(w), sh.values_out, n,
                      workspace{L.second.in(w), L.second.bytes()}, stream);
  merge_io<K, V> io{L.recv_keys(w), L.recv_values(w), nullptr, nullptr};
  io.own = rank;
  io.shift = L.shifts.in(w);  // the first round's: the received slices lie past their heads and padding
  io.P = P;
  io.own_keys = L.sorted_keys(w, sh) + own_at;
  if constexpr (has_values<K, V>) io.own_values = L.sorted_values(w, sh) + own_at;
  for (int k = 0; k < L.rounds; ++k) {
    const bool to_out = (L.rounds - 1 - k) % 2 == 0;  // the last round, and every second one before it
    io.keys_out = to_out ? sh.keys_out : L.second_keys(w);
    io.values_out = to_out ? sh.values_out : L.second_values(w);
    const merge_round r{L.runs.in(w), P, 1 << k, n};
    merge_partition_kernel<S::tile><<<unsigned((L.tiles + 256) / 256), 256, 0, stream>>>(io, r, L.tiles,
                                                                                          L.split.in(w));
    cuprim::detail::check_launch(fn);
    merge_kernel<K, V><<<unsigned(L.tiles), S::threads, 0, stream>>>(io, r, L.split.in(w));
    cuprim::detail::check_launch(fn);
    io = merge_io<K, V>{io.keys_out, io.values_out, nullptr, nullptr};  // every run in one array from now on
  }
}

/// Step 3 for one array on one rank (inside the NCCL group): its slices to the other ranks, theirs into its receive
/// buffer. `aligned` (the merge): every message starts on 16 bytes at both ends (slice_align: the sender sends from
/// the boundary before its slice, the receiver skips that head), the receive slots from receive_slots; else (the
/// re-sort) the slices as they lie, back to back in rank order.
template <class T>
void exchange_rank(const local_rank& l, const std::vector<std::int64_t>& B, int P, bool aligned, const T* send,
                   T* recv) {
  const int r = l.rank;
  std::vector<std::int64_t> slot(static_cast<std::size_t>(P)), start(static_cast<std::size_t>(P));
  receive_slots<sizeof(T)>(B.data(), P, r, aligned, slot.data(), start.data());
  for (int q = 0; q < P; ++q) {
    if (q == r) continue;
    std::int64_t first = 0, count = 0;
    send_range<sizeof(T)>(B.data(), P, r, q, aligned, &first, &count);
    if (count > 0)
      CUPRIM_NCCL_CHECK(ncclSend(send + first, std::size_t(count) * sizeof(T), ncclUint8, q, l.comm, l.stream));
    const std::int64_t in = B[std::size_t(q * (P + 1) + r + 1)] - B[std::size_t(q * (P + 1) + r)];
    if (in > 0)  // the head (start - slot elements) and the slice
      CUPRIM_NCCL_CHECK(ncclRecv(recv + slot[std::size_t(q)],
                                 std::size_t(start[std::size_t(q)] - slot[std::size_t(q)] + in) * sizeof(T), ncclUint8,
                                 q, l.comm, l.stream));
  }
}

/// The slice a rank keeps, copied into its own run (sort_finish::resort only: the merge reads it in place).
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
/// sorted[i]: local rank i's sorted shard.
template <class K, class V>
void find_splitters(const char* fn, const communicator& c, const std::vector<sort_shard<K, V>>& sh,
                    const std::vector<const K*>& sorted, const std::vector<sort_layout<K, V>>& L,
                    const std::vector<workspace>& w) {
  constexpr int width = cuprim::detail::radix_key<K>::bits, rounds = width / digit_bits;
  const int P = c.size(), splitters = P - 1;
  const std::size_t per_round = std::size_t(splitters) * candidates;
  for (int k = 0; k < rounds; ++k) {
    const int shift = width - digit_bits * (k + 1);
    each_rank(c, [&](const local_rank& l, int i) {
      std::int64_t* counts = L[i].counts.in(w[i]);
      splitter_round_kernel<K><<<unsigned(splitters), 256, 0, l.stream>>>(
          sorted[i], sh[i].n, L[i].sizes.in(w[i]), L[i].prefix.in(w[i]),
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
        sorted[i], sh[i].n, L[i].sizes.in(w[i]), L[i].prefix.in(w[i]),
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
    run_shifts_kernel<sizeof(K), has_values<K, V> ? sizeof(V) : 1><<<1, 1, 0, l.stream>>>(
        L[i].bounds.in(w[i]), P, l.rank, L[i].runs.in(w[i]), L[i].shifts.in(w[i]), L[i].slots.in(w[i]));
    cuprim::detail::check_launch(fn);
  });
}

/// The sort of validated shards (see the file comment for the steps), stopped after step `stop` (the lab times the
/// steps as prefixes of the call; one rank runs the single-GPU sort whatever `stop` says).
template <class K, class V>
void sort_run(const char* fn, const communicator& c, const std::vector<sort_shard<K, V>>& sh, sort_finish how,
              sort_stop stop = sort_stop::full) {
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
    L.emplace_back(P, sh[i].n, local_sort_bytes<K, V>(sh[i].n), how);
    bytes.push_back(std::int64_t(L.back().bytes()));
  });
  sharded_buffer<std::byte> buf(c, bytes);
  std::vector<workspace> w;
  std::vector<const K*> sorted;
  for (int i = 0; i < c.local_size(); ++i) {
    w.push_back({buf.data(i), std::size_t(bytes[std::size_t(i)])});
    sorted.push_back(L[i].sorted_keys(w[i], sh[i]));
  }

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
    local_sort(sh[i].keys_in, L[i].sorted_keys(w[i], sh[i]), sh[i].values_in, L[i].sorted_values(w[i], sh[i]),
               sh[i].n, L[i].sort_workspace(w[i]), l.stream);
  });
  if (stop == sort_stop::after_local_sort) return;
  // 2. The splitters and the send table (identical on every rank).
  find_splitters(fn, c, sh, sorted, L, w);
  // 3. The table to the host (local rank 0's copy serves every local rank), the exchange.
  std::vector<std::int64_t> B(std::size_t(P) * std::size_t(P + 1));
  {
    device_guard g(c[0].device);
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(B.data(), L[0].bounds.in(w[0]), B.size() * sizeof(std::int64_t),
                                      cudaMemcpyDeviceToHost, c[0].stream));
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(c[0].stream));
  }
  if (stop == sort_stop::after_splitters) return;
  std::vector<std::vector<std::int64_t>> runs(std::size_t(c.local_size()), std::vector<std::int64_t>(P + 1, 0));
  for (int i = 0; i < c.local_size(); ++i)
    for (int q = 0, r = c[i].rank; q < P; ++q)
      runs[i][q + 1] = runs[i][q] + B[std::size_t(q * (P + 1) + r + 1)] - B[std::size_t(q * (P + 1) + r)];
  if (how == sort_finish::resort)
    each_rank(c, [&](const local_rank& l, int i) {
      keep_own(l, B, runs[i], P, L[i].sorted_keys(w[i], sh[i]), L[i].recv_keys(w[i]));
      if constexpr (has_values<K, V>)
        keep_own(l, B, runs[i], P, L[i].sorted_values(w[i], sh[i]), L[i].recv_values(w[i]));
    });
  const bool aligned = how == sort_finish::merge;
  each_rank_grouped(c, [&](const local_rank& l, int i) {
    exchange_rank(l, B, P, aligned, L[i].sorted_keys(w[i], sh[i]), L[i].recv_keys(w[i]));
    if constexpr (has_values<K, V>)
      exchange_rank(l, B, P, aligned, L[i].sorted_values(w[i], sh[i]), L[i].recv_values(w[i]));
  });
  if (stop == sort_stop::after_exchange) return;
  // 4. The merges (the own run read in place: it starts at B[r][r] in the sorted shard).
  each_rank(c, [&](const local_rank& l, int i) {
    const int r = l.rank;
    finish_rank(fn, L[i], w[i], sh[i], P, r, B[std::size_t(r * (P + 1) + r)], how, l.stream);
  });
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
