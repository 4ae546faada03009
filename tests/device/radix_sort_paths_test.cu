// Radix sort paths that the other tests never reach on their own: the cluster sort's two fallbacks (a failed
// occupancy query, a refused 16-block launch), driven by the test hooks of device/detail/radix_sort_launch.cuh, and
// the packed pairs sorted in portions (n > 2^29: keys and values packed into 8-byte words, more than one portion
// per pass).
#include "device/radix_sort_cases.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

namespace {

using radix_test::make_keys;
using radix_test::same_keys;
using radix_test::same_values;
using radix_test::shape;

inline cuprim::radix_sort_options order(bool desc) {
  return {desc ? cuprim::sort_order::descending : cuprim::sort_order::ascending};
}

// ---------------------------------------------------------------------------------------------------------------
// The cluster sort's fallbacks

/// The policy the tuned sort of keys of K and values of V (radix_no_value: none) runs on the oldest tuned
/// architecture; its cluster shape names the kernel's per-device cache (radix_cluster_slot's Tag).
template <class K, class V>
constexpr cuprim::radix_sort_policy cluster_policy =
    cuprim::detail::radix_policy<cuprim::tuned, cuprim::tuned_archs[0], K, V>();

/// Whether every tuned architecture's row for K and V has the same cluster shape (then cluster_policy names the
/// cache that the running device's sort uses).
template <class K, class V>
constexpr bool one_cluster_shape() {
  for (int a : cuprim::tuned_archs)
    if (!(cuprim::radix_sort_policy_for(a, int(sizeof(K)), cuprim::detail::radix_value_bytes<V>).cluster_part() ==
          cluster_policy<K, V>.cluster_part()))
      return false;
  return true;
}

using keys_only = cuprim::detail::radix_no_value;
static_assert(one_cluster_shape<std::uint32_t, keys_only>() && one_cluster_shape<std::uint32_t, std::uint32_t>(),
              "the tests below name the cluster kernels' caches by the oldest tuned architecture's rows");

/// The cluster kernel's Tag (radix_cluster_sort's smem_t) of the tuned sort of keys of K and values of V.
template <class K, class V>
using cluster_tag = cuprim::detail::radix_cluster_smem<cluster_policy<K, V>.cluster_threads,
                                                       cluster_policy<K, V>.cluster_items, K, V>;

/// The cluster kernel's cached answer for the current device (keys of K, values of V), saved at construction and
/// put back at destruction, with both fallback hooks disarmed, so that later tests see the state they would have
/// seen without this one.
template <class K, class V>
struct cluster_state {
  std::atomic<int>* slot = cuprim::detail::radix_cluster_slot<cluster_tag<K, V>>(cuprim::current_device());
  int saved = slot ? slot->load() : 0;
  cluster_state() = default;
  cluster_state(const cluster_state&) = delete;
  cluster_state& operator=(const cluster_state&) = delete;
  ~cluster_state() {
    cuprim::detail::radix_cluster_fail_next_query.store(false);
    cuprim::detail::radix_cluster_refuse_next.store(cudaSuccess);
    if (slot) slot->store(saved);
  }
};

/// One sort of fresh random keys of K (V radix_no_value: radix_sort_keys) or of pairs with values of V = the input
/// positions (radix_sort_pairs, so stability is checked), n in the cluster sort's range; checked against the host
/// (std::stable_sort), the input unchanged, and no CUDA error left pending by the call.
template <class K, class V>
void sort_once(std::int64_t n, bool desc, cuprim_test::rng& r) {
  constexpr bool pairs = cuprim::detail::radix_has_values_v<V>;
  SCOPED_TRACE(::testing::Message() << (pairs ? "pairs" : "keys") << " n=" << n << (desc ? " descending" : ""));
  const cuprim::radix_sort_policy P = radix_test::tuned_policy<K>(pairs ? int(sizeof(V)) : 0);
  ASSERT_TRUE((P.cluster_part() == cluster_policy<K, V>.cluster_part()))
      << "the device's row has another cluster shape";
  ASSERT_TRUE(n > P.cluster_threads && n <= P.cluster_tile()) << "n outside the cluster sort's range";
  const auto m = static_cast<std::size_t>(n);
  const auto keys = make_keys<K>(n, pairs ? shape::few_values : shape::random, r);
  std::vector<K> want(m);
  cuprim::device_buffer<K> din(m), dout(m);
  cuprim_test::upload(din.data(), keys);
  cuprim_test::poison(dout);
  if constexpr (pairs) {
    std::vector<V> idx(m), want_idx(m);
    for (std::size_t i = 0; i < m; ++i) idx[i] = V(i);
    cuprim::host::radix_sort_pairs(keys.data(), want.data(), idx.data(), want_idx.data(), n, desc);
    cuprim::device_buffer<V> vin(m), vout(m);
    cuprim_test::upload(vin.data(), idx);
    cuprim_test::poison(vout);
    cuprim::radix_sort_pairs(din.data(), dout.data(), vin.data(), vout.data(), n, order(desc));
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "an error left pending by the sort";
    EXPECT_TRUE(same_values(cuprim_test::download(vout.data(), m), want_idx)) << "values";
  } else {
    cuprim::host::radix_sort_keys(keys.data(), want.data(), n, desc);
    cuprim::radix_sort_keys(din.data(), dout.data(), n, order(desc));
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "an error left pending by the sort";
  }
  EXPECT_TRUE(same_keys(cuprim_test::download(dout.data(), m), want)) << "keys";
  EXPECT_TRUE(same_keys(cuprim_test::download(din.data(), m), keys)) << "input changed";
}

class RadixSortClusterRetry : public cuprim_test::gpu_test {};

/// A failed occupancy query: that sort runs (as 8 blocks) and caches nothing, so the next sort asks the device again
/// and caches its answer (16 or 8). Keys and pairs (one cache each), the cache emptied first so that the sort asks.
template <class K, class V>
void check_failed_query(cuprim_test::rng& r) {
  SCOPED_TRACE(cuprim::detail::radix_has_values_v<V> ? "pairs" : "keys");
  cluster_state<K, V> state;
  if (!state.slot) GTEST_SKIP() << "device ordinal " << cuprim::current_device() << " has no cluster cache (>= 64)";
  const cuprim::radix_sort_policy P = cluster_policy<K, V>;
  for (std::int64_t n : {std::int64_t(P.cluster_threads) + 1, std::int64_t(8 * P.cluster_threads) + 1,
                         std::int64_t(P.cluster_tile())})
    for (bool desc : {false, true}) {
      state.slot->store(0);  // no answer yet: the next sort asks
      cuprim::detail::radix_cluster_fail_next_query.store(true);
      sort_once<K, V>(n, desc, r);
      if (cuprim::detail::radix_cluster_fail_next_query.load() && state.slot->load() == 8)
        GTEST_SKIP() << "the device refuses the non-portable cluster attribute: the cluster sort makes no occupancy "
                        "query to fail (its answer, 8, is cached at once)";
      EXPECT_FALSE(cuprim::detail::radix_cluster_fail_next_query.load()) << "the sort made no occupancy query";
      EXPECT_EQ(state.slot->load(), 0) << "the failed query's answer was cached";
      sort_once<K, V>(n, !desc, r);
      const int asked = state.slot->load();
      EXPECT_TRUE(asked == 8 || asked == 16) << "the sort after the failed query did not ask again (cache " << asked
                                             << ")";
      if (::testing::Test::HasFailure()) return;
    }
}

TEST_F(RadixSortClusterRetry, FailedOccupancyQueryIsNotCached) {
  CUPRIM_TEST_RNG(r);
  check_failed_query<std::uint32_t, keys_only>(r);
  if (IsSkipped() || HasFailure()) return;
  check_failed_query<std::uint32_t, std::uint32_t>(r);
}

/// A refused 16-block launch (the hook offers 16 blocks whatever the device's answer, so that devices without
/// clusters of 16 take this path too, and refuses the launch with `refusal`; nothing is launched for it): the sort
/// clears the error, caches 8 for the device and relaunches as 8 blocks; the next sort, without the hook, runs 8
/// blocks from the cache. n from just above 8 blocks of one key per thread to the cluster tile (16 blocks of half
/// the keys per thread each, 8 blocks of all of them after the refusal).
template <class K, class V>
void check_refused_launch(cudaError_t refusal, cuprim_test::rng& r) {
  SCOPED_TRACE(::testing::Message() << (cuprim::detail::radix_has_values_v<V> ? "pairs" : "keys") << ", refused with "
                                    << cudaGetErrorName(refusal));
  cluster_state<K, V> state;
  if (!state.slot) GTEST_SKIP() << "device ordinal " << cuprim::current_device() << " has no cluster cache (>= 64)";
  const cuprim::radix_sort_policy P = cluster_policy<K, V>;
  for (std::int64_t n : {std::int64_t(8 * P.cluster_threads) + 1, std::int64_t(20011), std::int64_t(P.cluster_tile())})
    for (bool desc : {false, true}) {
      ASSERT_GT(n, std::int64_t(8 * P.cluster_threads)) << "n must need more than 8 blocks";
      state.slot->store(0);  // as before any sort: the sort asks the device first, then is refused
      cuprim::detail::radix_cluster_refuse_next.store(refusal);
      sort_once<K, V>(n, desc, r);
      EXPECT_EQ(cuprim::detail::radix_cluster_refuse_next.load(), cudaSuccess) << "the hook was not taken";
      EXPECT_EQ(state.slot->load(), 8) << "8 blocks not cached after the refusal";
      sort_once<K, V>(n, !desc, r);
      EXPECT_EQ(state.slot->load(), 8) << "the cached 8 did not stay";
      if (::testing::Test::HasFailure()) return;
    }
}

TEST_F(RadixSortClusterRetry, RefusedSixteenBlockLaunchRunsEight) {
  CUPRIM_TEST_RNG(r);
  check_refused_launch<std::uint32_t, keys_only>(cudaErrorInvalidClusterSize, r);
  if (HasFailure()) return;
  check_refused_launch<std::uint32_t, std::uint32_t>(cudaErrorLaunchOutOfResources, r);
  if (HasFailure()) return;
  check_refused_launch<std::uint32_t, keys_only>(cudaErrorLaunchOutOfResources, r);
  if (HasFailure()) return;
  check_refused_launch<std::uint32_t, std::uint32_t>(cudaErrorInvalidClusterSize, r);
}

// ---------------------------------------------------------------------------------------------------------------
// Packed pairs in portions

/// values[i] = i.
__global__ void iota_kernel(std::uint32_t* values, std::uint64_t n) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    values[i] = std::uint32_t(i);
}

/// What check_stable_kernel found, per kind of error (bad_value, bad_key, bad_order): how many positions, and the
/// first of them (~0 where none).
enum { bad_value, bad_key, bad_order };
struct sort_errors {
  unsigned long long count[3];
  unsigned long long first[3];
};

/// Whether (keys_out, index) is the stable sort of keys_in (index: the input positions as they were sorted), on the
/// device (on the host, the 2^29 random gathers took about a minute): each index below n and none twice
/// (`seen`, n bits, zeroed: a repeated index finds its bit set), so the indices are a permutation of 0..n-1; each
/// key the input key its index names; each key in order after its predecessor, equal keys in increasing index
/// (input) order. Written here, apart from the sort, so that a mistake of the sort cannot hide in its check.
template <class K>
__global__ void check_stable_kernel(const K* keys_in, const K* keys_out, const std::uint32_t* index, std::uint64_t n,
                                    bool desc, unsigned* seen, sort_errors* e) {
  auto note = [&](int kind, std::uint64_t i) {
    atomicAdd(&e->count[kind], 1ull);
    atomicMin(&e->first[kind], static_cast<unsigned long long>(i));
  };
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint32_t v = index[i];
    const unsigned bit = 1u << (v % 32);
    if (v >= n || (atomicOr(&seen[v / 32], bit) & bit) != 0) note(bad_value, i);
    else if (keys_out[i] != keys_in[v]) note(bad_key, i);
    if (i > 0) {
      const K a = keys_out[i - 1], b = keys_out[i];
      const bool before = desc ? b < a : a < b;
      if (!before && !(a == b && index[i - 1] < v)) note(bad_order, i);
    }
  }
}

/// Counts the positions where a and b differ (*count, zeroed).
template <class K>
__global__ void count_mismatches_kernel(const K* a, const K* b, std::uint64_t n, unsigned long long* count) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (a[i] != b[i]) atomicAdd(count, 1ull);
}

/// Runs check_stable_kernel (seen: the n bits it needs) and reports what it found as test failures.
template <class K>
void check_stable(const K* keys_in, const K* keys_out, const std::uint32_t* index, std::uint64_t n, bool desc,
                  cuprim::device_buffer<unsigned>& seen, const char* what) {
  SCOPED_TRACE(what);
  sort_errors host{{0, 0, 0}, {~0ull, ~0ull, ~0ull}};
  cuprim::device_buffer<sort_errors> errors(1);
  CUPRIM_CUDA_CHECK(cudaMemcpy(errors.data(), &host, sizeof(host), cudaMemcpyHostToDevice));
  CUPRIM_CUDA_CHECK(cudaMemset(seen.data(), 0, seen.bytes()));
  const unsigned grid = unsigned(cuprim::get_device_info().sm_count) * 8;
  check_stable_kernel<<<grid, 256>>>(keys_in, keys_out, index, n, desc, seen.data(), errors.data());
  CUPRIM_CUDA_CHECK(cudaGetLastError());
  CUPRIM_CUDA_CHECK(cudaMemcpy(&host, errors.data(), sizeof(host), cudaMemcpyDeviceToHost));
  EXPECT_EQ(host.count[bad_value], 0u) << "indices not a permutation of 0..n-1 (out of range or repeated); first at "
                                       << "position " << host.first[bad_value];
  EXPECT_EQ(host.count[bad_key], 0u) << "keys that are not the input key of their index; first at position "
                                     << host.first[bad_key];
  EXPECT_EQ(host.count[bad_order], 0u) << "keys out of order, or equal keys out of input order; first at position "
                                       << host.first[bad_order];
}

/// n keys of K drawn from 2^20 values (the edge values among them), so that each value appears about n / 2^20
/// times, in every portion: a stable sort keeps each value's input order across portions.
template <class K>
std::vector<K> duplicate_keys(std::size_t n, cuprim_test::rng& r) {
  std::vector<K> pool = radix_test::edge_values<K>();
  while (pool.size() < (std::size_t(1) << 20)) pool.push_back(K(r.next()));
  std::vector<K> keys(n);
  for (auto& k : keys) k = pool[r.next() >> 44];
  return keys;
}

class RadixSortPortions : public cuprim_test::gpu_test {};

/// radix_sort_pairs of 4-byte integer keys and uint32 values (packed: one 8-byte word per pair) of just over 2^29
/// pairs, so that every pass runs as two portions (a full one and a partial one of a few tiles): uint32 keys
/// ascending and int32 keys descending, many duplicates, the values the input positions, so that the sorted values
/// are the stable permutation, checked on the device (check_stable_kernel); then argsort (the same packed passes,
/// the keys not stored) of the same keys, its indices checked against the pairs' sorted keys in the same way; then
/// radix_sort_keys (unpacked passes), its output compared with the pairs' sorted keys. Every sort here runs several
/// passes over two portions, so a later pass's portions must take their digit starts from the pass itself.
TEST_F(RadixSortPortions, PackedPairsOver2e29) {
  CUPRIM_REQUIRE_LARGE();
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = (std::int64_t(1) << 29) + 12345;
  const auto m = static_cast<std::size_t>(n);
  // Packed, and in two portions of the packed passes' tiles (radix_core_parts), the last one partial.
  const cuprim::radix_sort_policy P = radix_test::tuned_policy<std::uint32_t>(4);
  const cuprim::radix_sort_policy Q = radix_test::tuned_policy<std::uint64_t>(0);
  ASSERT_TRUE(P.pack) << "the tuned row of 4-byte pairs no longer packs";
  const std::uint64_t portion = (cuprim::detail::radix_portion_max / Q.tile()) * Q.tile();
  ASSERT_GT(std::uint64_t(n), portion);
  ASSERT_LE(std::uint64_t(n), 2 * portion);
  ASSERT_NE(std::uint64_t(n) % Q.tile(), 0u);
  // Keys, values and their outputs, the checker's bits, and the workspace the sorts ask for (both packed buffers).
  const std::size_t ws_bytes = std::max({cuprim::radix_sort_pairs_workspace_bytes<std::uint32_t, std::uint32_t>(n),
                                         cuprim::radix_sort_pairs_workspace_bytes<std::int32_t, std::uint32_t>(n),
                                         cuprim::argsort_workspace_bytes<std::uint32_t, std::uint32_t>(n),
                                         cuprim::argsort_workspace_bytes<std::int32_t, std::uint32_t>(n),
                                         cuprim::radix_sort_keys_workspace_bytes<std::uint32_t>(n),
                                         cuprim::radix_sort_keys_workspace_bytes<std::int32_t>(n)});
  ASSERT_GE(ws_bytes, m * 16) << "the packed buffers are missing from the workspace";
  const std::size_t seen_words = (m + 31) / 32;
  const std::size_t need = 4 * m * sizeof(std::uint32_t) + ws_bytes + seen_words * sizeof(unsigned);
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  constexpr std::size_t margin = std::size_t(256) << 20;
  if (free_bytes < need + margin)
    GTEST_SKIP() << "needs " << (need + margin) / (1 << 20) << " MiB of device memory, " << free_bytes / (1 << 20)
                 << " MiB free of " << total_bytes / (1 << 20);
  cuprim::device_buffer<std::uint32_t> kin(m), kout(m), vin(m), vout(m);
  cuprim::device_buffer<unsigned char> ws(ws_bytes);
  cuprim::device_buffer<unsigned> seen(seen_words);

  auto run = [&]<class K>(bool desc) {
    SCOPED_TRACE(::testing::Message() << cuprim_test::type_name<K>() << " keys, n=" << n
                                      << (desc ? " descending" : " ascending"));
    {
      const auto keys = duplicate_keys<K>(m, r);
      CUPRIM_CUDA_CHECK(cudaMemcpy(kin.data(), keys.data(), m * sizeof(K), cudaMemcpyHostToDevice));
    }
    const K* const din = reinterpret_cast<const K*>(kin.data());
    K* const dout = reinterpret_cast<K*>(kout.data());
    iota_kernel<<<1024, 256>>>(vin.data(), std::uint64_t(n));
    CUPRIM_CUDA_CHECK(cudaGetLastError());
    cuprim_test::poison(kout);
    cuprim_test::poison(vout);
    cuprim_test::poison(ws);
    cuprim::radix_sort_pairs(din, dout, vin.data(), vout.data(), n, cuprim::workspace{ws.data(), ws_bytes},
                             order(desc));
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "an error left pending by the sort";
    check_stable(din, static_cast<const K*>(dout), vout.data(), std::uint64_t(n), desc, seen, "radix_sort_pairs");
    // argsort into vin (the values are no longer needed): its indices are checked against the pairs' sorted keys.
    cuprim_test::poison(vin);
    cuprim_test::poison(ws);
    cuprim::argsort(din, vin.data(), n, cuprim::workspace{ws.data(), ws_bytes}, order(desc));
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "an error left pending by argsort";
    check_stable(din, static_cast<const K*>(dout), vin.data(), std::uint64_t(n), desc, seen, "argsort");
    // radix_sort_keys (unpacked passes, in the keys' own tiles) into vin: the same keys as the pairs' sorted keys.
    cuprim_test::poison(vin);
    cuprim_test::poison(ws);
    K* const sorted = reinterpret_cast<K*>(vin.data());
    cuprim::radix_sort_keys(din, sorted, n, cuprim::workspace{ws.data(), ws_bytes}, order(desc));
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "an error left pending by radix_sort_keys";
    cuprim::device_buffer<unsigned long long> mismatches(1);
    CUPRIM_CUDA_CHECK(cudaMemset(mismatches.data(), 0, sizeof(unsigned long long)));
    count_mismatches_kernel<<<unsigned(cuprim::get_device_info().sm_count) * 8, 256>>>(
        static_cast<const K*>(sorted), static_cast<const K*>(dout), std::uint64_t(n), mismatches.data());
    CUPRIM_CUDA_CHECK(cudaGetLastError());
    unsigned long long wrong = 0;
    CUPRIM_CUDA_CHECK(cudaMemcpy(&wrong, mismatches.data(), sizeof(wrong), cudaMemcpyDeviceToHost));
    EXPECT_EQ(wrong, 0u) << "radix_sort_keys: positions that differ from the pairs' sorted keys";
  };
  run.operator()<std::uint32_t>(false);
  if (HasFailure()) return;
  run.operator()<std::int32_t>(true);
}

}  // namespace
