// cuprim/device/detail/radix_sort_launch.cuh: the launches of a radix sort, for the entry points of
// device/radix_sort.cuh once their arguments are validated and their workspace planned (radix_sort_problem.cuh).
//
//   radix_sort_core     n ≤ cluster_threads: one block (radix_sort_block.cuh); n ≤ cluster_tile(): one cluster
//                       (radix_sort_cluster.cuh), so the one-block sort takes no more than cluster_threads keys
//                       although it could hold small_tile(); larger: the upfront histogram and the digits' output
//                       starts (radix_sort_prologue, radix_sort_histogram.cuh), then one one-sweep launch per pass
//                       and portion (radix_sort_passes, radix_sort_onesweep.cuh)
//   radix_sort_packed   pairs of 4-byte integer keys and 4-byte values as 8-byte keys (radix_sort_policy's pack)
//   radix_sort_gather   values wider than 8 bytes: the core on (key, index) pairs, then one gather
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/radix_sort_block.cuh>
#include <cuprim/device/detail/radix_sort_cluster.cuh>
#include <cuprim/device/detail/radix_sort_histogram.cuh>
#include <cuprim/device/detail/radix_sort_onesweep.cuh>
#include <cuprim/device/detail/radix_sort_problem.cuh>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace cuprim::detail {

// Test hooks of the cluster sort (tests/device/radix_sort_api_test.cu, radix_sort_paths_test.cu): the 8-block shape
// on devices that take 16, and the two fallbacks that no test device takes on its own (a failed occupancy query, a
// refused 16-block launch). Unarmed, each costs one relaxed load where the sort reads it.

/// The most blocks the cluster sort may use, whatever the device allows (16, the largest non-portable size, by
/// default). A hook for tests: set to 8 it runs the portable shape on devices that take 16.
inline std::atomic<int> radix_cluster_blocks_cap{16};

/// A hook for tests: true makes the next occupancy query of radix_cluster_blocks_max report failure (the query is
/// not made; the hook goes back to false), so that call runs as 8 blocks and caches nothing. A call that finds the
/// device's answer cached makes no query and leaves the hook set.
inline std::atomic<bool> radix_cluster_fail_next_query{false};

/// A hook for tests: a cudaError_t other than cudaSuccess (cudaErrorInvalidClusterSize or
/// cudaErrorLaunchOutOfResources) makes the next cluster sort take 16 blocks as its most, whatever the device's
/// answer, and treats its launch of more than 8 blocks as refused with that error: nothing is set or launched for
/// it, and the sort goes on as after a real refusal (the error cleared, 8 cached for the device, 8 blocks
/// launched). The next cluster sort takes it (sets it back to cudaSuccess) whether or not it then needs more than 8
/// blocks; a sort outside the cluster sort's sizes leaves it armed.
inline std::atomic<int> radix_cluster_refuse_next{cudaSuccess};

/// Takes a hook's armed value: the value, reset to `off`, where it differs from `off`; `off` (one relaxed load,
/// nothing written) where it does not.
template <class T>
T radix_take_hook(std::atomic<T>& hook, T off) {
  if (hook.load(std::memory_order_relaxed) == off) return off;
  return hook.exchange(off, std::memory_order_relaxed);
}

/// Per device ordinal, the most blocks a cluster of the kernel Tag names may have: 0 until asked, then 16 or 8.
template <class Tag>
std::atomic<int>* radix_cluster_slot(int dev) {
  static std::atomic<int> cache[64];
  return dev >= 0 && dev < 64 ? &cache[dev] : nullptr;
}

/// The most blocks a cluster of `kernel` may have on the current device: 16 (a non-portable size) where the device
/// can schedule such a cluster with this shape, else 8. Asked once per device and kernel (Tag: one type per kernel).
/// The answer says what the device can do; a launch of more than 8 blocks still sets the kernel's non-portable
/// attribute first (the attribute belongs to one copy of the kernel, and every translation unit holds its own).
template <class Tag, class Kernel>
int radix_cluster_blocks_max(Kernel kernel, int threads, std::size_t smem) {
  std::atomic<int>* slot = radix_cluster_slot<Tag>(current_device());
  if (slot)
    if (const int v = slot->load(std::memory_order_acquire)) return v;
  int result = 8;
  bool answered = true;  // a refused attribute is the device's answer; a failed occupancy query is not
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess) {
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg = cluster_launch_config(16, threads, smem, nullptr, attr);
    int clusters = 0;
    answered = !radix_take_hook(radix_cluster_fail_next_query, false) &&
               cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) == cudaSuccess;
    if (answered && clusters > 0) result = 16;
  }
  (void)cudaGetLastError();  // a refused query is an answer, not an error (none was pending: the caller checked)
  // Only an answer is kept: a query that failed (a transient error) runs this call as 8 blocks and asks again on
  // the next, rather than costing the 16-block shape until the process ends.
  if (slot && answered) slot->store(result, std::memory_order_release);
  return result;
}

/// The cluster sort (cluster_threads < n ≤ P.cluster_tile()): one cluster of the fewest blocks (a power of two, up
/// to 8 or 16) that spread n keys at most P.cluster_items per thread, each block with the fewest keys per thread
/// that hold its share. Should the device refuse a cluster of 16 that the occupancy query allowed (another
/// process's partition of the GPU, for one), the sort runs as 8 blocks and the device's answer becomes 8: 8 blocks
/// always hold a cluster tile. (radix_cluster_refuse_next, a test hook, simulates such a refusal.)
template <radix_sort_policy P, class K, class V>
void radix_cluster_sort(const radix_sort_problem& pb, const radix_small_params<K, V>& sp) {
  using smem_t = radix_cluster_smem<P.cluster_threads, P.cluster_items, K, V>;
  auto kernel = radix_cluster_kernel<policy_constant<P.cluster_part()>, K, V>;
  allow_dynamic_smem(kernel, sizeof(smem_t));
  const int answer = std::min(radix_cluster_blocks_max<smem_t>(kernel, P.cluster_threads, sizeof(smem_t)),
                              radix_cluster_blocks_cap.load(std::memory_order_relaxed));
  const auto refusal = cudaError_t(radix_take_hook(radix_cluster_refuse_next, int(cudaSuccess)));
  const int most = refusal != cudaSuccess ? 16 : answer;
  auto launch = [&](int limit) {
    constexpr std::uint64_t T = P.cluster_threads;
    unsigned blocks = 1;
    while (blocks < unsigned(limit) && blocks * T < pb.n) blocks *= 2;
    int log_items = 0;
    while ((std::uint64_t(blocks) * T << log_items) < pb.n) ++log_items;
    if (blocks > 8 && refusal != cudaSuccess) return std::pair{blocks, refusal};  // the test hook's refusal
    if (blocks > 8) CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg = cluster_launch_config(blocks, int(T), sizeof(smem_t), pb.stream, attr);
    return std::pair{blocks, cudaLaunchKernelEx(&cfg, kernel, sp, log_items)};
  };
  auto [blocks, e] = launch(most);
  if (blocks > 8 && (e == cudaErrorInvalidClusterSize || e == cudaErrorLaunchOutOfResources)) {
    (void)cudaGetLastError();  // the refusal (nothing ran); 8 blocks from now on for this device
    if (std::atomic<int>* slot = radix_cluster_slot<smem_t>(current_device()))
      slot->store(8, std::memory_order_release);
    e = launch(8).second;
  }
  CUPRIM_CUDA_CHECK(e);
  check_launch(pb.fn);
}

/// The one-block sort (n ≤ P.small_tile()).
template <radix_sort_policy P, class K, class V>
void radix_block_sort(const radix_sort_problem& pb, const radix_small_params<K, V>& sp) {
  using smem_t = radix_small_smem<P.small_threads, P.small_items, K, V>;
  auto kernel = radix_small_kernel<policy_constant<P.block_part()>, K, V>;
  allow_dynamic_smem(kernel, sizeof(smem_t));
  kernel<<<1, P.small_threads, sizeof(smem_t), pb.stream>>>(sp);
  check_launch(pb.fn);
}

/// The core's workspace, carved: histograms, digit bases, the two look-back state arrays and the NaN flag.
struct radix_core_arrays {
  unsigned* hist;
  std::uint64_t* bases;
  unsigned* state[2];
  unsigned* nan_flag;
};

/// The sort's first launches: one kernel zeroes the histograms, the bases and the first launch's look-back state;
/// the histogram pass counts every pass's digits of keys[0, n) (HK: the keys as the caller gives them), portion by
/// portion; the bases kernel turns the counts into each digit's output start.
template <radix_sort_policy P, class HK>
radix_core_arrays radix_sort_prologue(const radix_sort_problem& pb, const radix_core_parts<HK>& core, const HK* keys) {
  const int passes = pb.passes();
  radix_core_arrays w{};
  w.hist = core.hist.in(pb.ws);
  w.bases = core.bases.in(pb.ws);
  // Two look-back state arrays: launch i (pass-major over the portions) uses state[i & 1] and zeroes the other
  // for launch i + 1 (the launch before it, which used that array, has finished), so the passes follow one
  // another as programmatic dependent launches with no memset between them.
  w.state[0] = core.state[0].in(pb.ws);
  w.state[1] = core.state[1].in(pb.ws);
  const std::uint64_t per_portion = std::uint64_t(passes) * radix_digits;
  w.nan_flag = w.hist + core.portions * sizeof(HK) * radix_digits;
  // The histograms, the bases and the first launch's state (contiguous), zeroed by a kernel that lets the histogram
  // pass start at once (it reads the keys while the zeroing runs).
  const std::uint64_t tiles0 = (std::min(core.portion, pb.n) + P.tile() - 1) / P.tile();
  const std::size_t first_state = (radix_state_head + tiles0 * radix_digits) * sizeof(unsigned);
  zero_async(pb.fn, w.hist, core.state[0].offset - core.hist.offset + first_state, pb.stream);
  const int sms = get_device_info().sm_count;
  auto histogram = radix_histogram_kernel<policy_constant<P.histogram_part()>, HK>;
  CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(histogram, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(radix_histogram_smem_bytes<HK>)));
  for (std::uint64_t q = 0; q < core.portions; ++q) {
    const std::uint64_t first = q * core.portion;
    const std::uint64_t count = std::min(core.portion, pb.n - first);
    constexpr std::uint64_t chunk = std::uint64_t(P.hist_threads) * P.hist_items;
    const std::uint64_t grid = std::min<std::uint64_t>((count + chunk - 1) / chunk, std::uint64_t(sms));
    radix_histogram_params<HK> hp{keys + first, count, w.hist + q * per_portion, pb.begin_bit, pb.end_bit, passes,
                                  pb.descending, w.nan_flag};
    launch_dependent_smem(pb.fn, histogram, unsigned(grid), P.hist_threads, radix_histogram_smem_bytes<HK>,
                          pb.stream, hp);
  }
  launch_dependent(pb.fn, radix_bases_kernel<>, unsigned(passes), radix_digits, pb.stream, w.hist, w.bases, passes,
                   core.portions);
  return w;
}

/// The one-sweep passes over [begin_bit, end_bit) of the keys that radix_sort_prologue counted (HK), one launch per
/// pass and portion, moving keys of K (and values of V). io(pass, first, op) sets each launch's buffers
/// (keys_in, keys_out, vals_in, vals_out; Packed: radix_packed_params's pointers and demote_in) for the portion
/// starting at key `first`. Packed: K is std::uint64_t holding a 4-byte key above a 4-byte value, and the digits
/// lie 32 bits higher.
template <radix_sort_policy P, class K, class V, bool Packed, class HK, class IO>
void radix_sort_passes(const radix_sort_problem& pb, const radix_core_parts<HK>& core, const radix_core_arrays& w,
                       IO&& io) {
  const int passes = pb.passes();
  auto tiles_of = [&](std::uint64_t q) {
    return (std::min(core.portion, pb.n - q * core.portion) + P.tile() - 1) / P.tile();
  };
  constexpr std::size_t smem = sizeof(radix_onesweep_smem<P.threads, P.items, K, V, P.joint_exchange>);
  auto onesweep = radix_onesweep_kernel<policy_constant<P.onesweep_part()>, K, V, Packed>;
  allow_dynamic_smem(onesweep, smem);
  std::uint64_t launch = 0;
  for (int pass = 0; pass < passes; ++pass) {
    for (std::uint64_t q = 0; q < core.portions; ++q, ++launch) {
      const std::uint64_t first = q * core.portion;
      const bool last_launch = pass == passes - 1 && q == core.portions - 1;
      std::conditional_t<Packed, radix_packed_params, radix_onesweep_params<K, V>> op{};
      op.count = std::min(core.portion, pb.n - first);
      op.first_index = first;
      op.state = w.state[launch & 1];
      op.zero_next = w.state[(launch + 1) & 1];
      op.zero_next_tiles = last_launch ? 0 : tiles_of(q + 1 == core.portions ? 0 : q + 1);
      op.bases = w.bases + (q * passes + pass) * radix_digits;
      op.pass = radix_pass_of(pb.begin_bit, pb.end_bit, pass);
      if constexpr (Packed) op.pass.shift += 32;
      op.descending = pb.descending;
      op.nan_flag = w.nan_flag;
      op.first_pass = pass == 0;
      op.last_pass = pass == passes - 1;
      io(pass, first, op);
      launch_dependent_smem(pb.fn, onesweep, unsigned(tiles_of(q)), P.threads, smem, pb.stream, op);
      // The next portion of this pass starts each digit after this portion's keys of it (its last tile's prefix):
      // the upfront histogram's per-portion counts hold only for the first pass (radix_next_bases_kernel).
      if (q + 1 < core.portions)
        launch_dependent(pb.fn, radix_next_bases_kernel<>, 1, radix_digits, pb.stream, op.state, tiles_of(q) - 1,
                         op.bases, w.bases + ((q + 1) * passes + pass) * radix_digits);
    }
  }
}

/// The sorting core. Pass p reads (p == 0 ? k_first : k_dst[(p - 1) & 1]) and writes k_dst[p & 1], values alike
/// (v_first null: the values are the indices 0, 1, ...). The result lands in k_dst[(passes - 1) & 1].
template <radix_sort_policy P, class K, class V>
void radix_sort_core(const radix_sort_problem& pb, const radix_core_parts<K>& core, const K* k_first,
                     K* const (&k_dst)[2], const V* v_first, V* const (&v_dst)[2]) {
  static_assert(radix_sort_policy_valid<P>());
  if (pb.n == 0) return;
  const int last = (pb.passes() - 1) & 1;
  const radix_small_params<K, V> sp{k_first, k_dst[last], v_first,    v_dst[last],
                                    int(pb.n), pb.begin_bit, pb.end_bit, pb.descending};
  if (pb.n > std::uint64_t(P.cluster_threads) && pb.n <= std::uint64_t(P.cluster_tile()))
    return radix_cluster_sort<P>(pb, sp);
  if (pb.n <= std::uint64_t(P.small_tile())) return radix_block_sort<P>(pb, sp);
  const radix_core_arrays w = radix_sort_prologue<P>(pb, core, k_first);
  auto io = [&](int pass, std::uint64_t first, radix_onesweep_params<K, V>& op) {
    const K* ksrc = pass == 0 ? k_first : k_dst[(pass - 1) & 1];
    const V* vsrc = pass == 0 ? v_first : v_dst[(pass - 1) & 1];
    op.keys_in = ksrc + first;
    op.keys_out = k_dst[pass & 1];
    op.vals_in = vsrc ? vsrc + first : nullptr;
    op.vals_out = v_dst[pass & 1];
  };
  radix_sort_passes<P, K, V, false>(pb, core, w, io);
}

/// Whether the packed sort takes n keys sorted in `passes` passes (P: the caller's policy, whose on-chip sorts take
/// the inputs it holds; Q: the packed passes' policy): above both on-chip sizes, and two passes or more, so that the
/// packing pass is never the pass of the key's top bit (it applies the signed keys' xor after its ranking; one-pass
/// sorts gain nothing from packing anyway: docs/tuning/radix_sort.md, run 16).
inline bool radix_packed_takes(radix_sort_policy P, radix_sort_policy Q, std::uint64_t n, int passes) {
  return n > std::uint64_t(std::max(P.onchip_tile(), Q.onchip_tile())) && passes >= 2;
}

/// The packed sort (radix_sort_policy's pack) of n > Q.onchip_tile() pairs of 4-byte integer keys k_in and 4-byte
/// values v_in (null: the indices) into k_out (null, argsort's case: no keys stored) and v_out, with passes of policy
/// Q, where radix_packed_takes says so. Each pair travels as one 8-byte key, the key's ordered bits above the
/// value's bits: the first pass packs into the workspace's first buffer, the passes between go from one buffer to
/// the other, the last unpacks.
template <radix_sort_policy Q, class K>
void radix_sort_packed(const radix_sort_problem& pb, const radix_packed_parts<K>& parts, const K* k_in,
                       const std::uint32_t* v_in, K* k_out, std::uint32_t* v_out) {
  static_assert(radix_sort_policy_valid<Q>());
  static_assert(sizeof(K) == 4 && radix_key<K>::kind != radix_kind::floating, "packed keys: 4-byte integers");
  const radix_core_arrays w = radix_sort_prologue<Q>(pb, parts.core, k_in);
  std::uint64_t* const buf[2] = {parts.packed[0].in(pb.ws), parts.packed[1].in(pb.ws)};
  const auto* ki = reinterpret_cast<const std::uint32_t*>(k_in);
  auto* ko = reinterpret_cast<std::uint32_t*>(k_out);
  const int passes = pb.passes();
  auto io = [&](int pass, std::uint64_t first, radix_packed_params& op) {
    op.key_xor = radix_key<K>::kind == radix_kind::signed_int ? 0x80000000u : 0u;
    op.keys_in = pass == 0 ? nullptr : buf[(pass - 1) & 1] + first;
    op.keys_out = buf[pass & 1];
    op.demote_in = pass > 0 && pass >= passes - 2;  // the last two passes read buffers no later pass rewrites
    if (pass == 0) {
      op.pack_keys = ki + first;
      op.pack_vals = v_in ? v_in + first : nullptr;
    }
    if (op.last_pass) {
      op.unpack_keys = ko;
      op.unpack_vals = v_out;
    }
  };
  radix_sort_passes<Q, std::uint64_t, radix_no_value, true>(pb, parts.core, w, io);
}

/// bits[i] = the ordered bits of the members dec(keys[i]) names (the key-decomposer entry points).
template <class K, class D, class U>
__global__ void radix_decompose_kernel(const K* keys, U* bits, std::uint64_t n, D dec, bool descending) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    bits[i] = dec(keys[i]).template fold<U>(U(0), descending);
}

/// out[i] = in[index[i]]: values wider than 8 bytes move once, by the sorted indices.
template <class V, class I>
__global__ void radix_gather_kernel(const V* in, const I* index, V* out, std::uint64_t n) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = in[index[i]];
}

/// The grid of the gather and decompose kernels (256 threads, grid-stride).
inline unsigned radix_gather_grid(std::uint64_t n) {
  return unsigned(std::min<std::uint64_t>((n + 255) / 256, std::uint64_t(get_device_info().sm_count) * 16));
}

/// Sorts (keys, indices) and gathers the wide values by the indices (L: the gather path's workspace). Key buffers
/// as in radix_sort_core; the values go from v_in to v_out.
template <radix_sort_policy P, class K, class V, class I>
void radix_sort_gather(const radix_sort_problem& pb, const radix_gather_layout<K, I>& L, const K* k_first,
                       K* const (&k_dst)[2], const V* v_in, V* v_out) {
  I* const idx_dst[2] = {L.index[0].in(pb.ws), L.index[1].in(pb.ws)};
  radix_sort_core<P, K, I>(pb, L.core, k_first, k_dst, static_cast<const I*>(nullptr), idx_dst);
  const I* sorted = idx_dst[(pb.passes() - 1) & 1];
  radix_gather_kernel<<<radix_gather_grid(pb.n), 256, 0, pb.stream>>>(v_in, sorted, v_out, pb.n);
  check_launch(pb.fn);
}

}  // namespace cuprim::detail
