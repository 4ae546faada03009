// cuprim/device/radix_sort.cuh: stable LSD radix sort of keys and key-value pairs (host entry points).
//
//   cuprim::radix_sort_keys(keys_in, keys_out, n, [ws,] [options,] stream)         keys_out = sorted keys_in
//   cuprim::radix_sort_keys(double_buffer<K>& keys, n, [ws,] [options,] stream)     result in keys.current()
//   cuprim::radix_sort_pairs(keys_in, keys_out, values_in, values_out, n, [ws,] [options,] stream)
//   cuprim::radix_sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, n, [ws,] [options,] stream)
//   cuprim::argsort(keys, indices, n, [ws,] [options,] stream)   indices[i] = position in keys of the i-th smallest
//   cuprim::radix_sort_keys(keys_in, keys_out, n, decomposer, [options,] stream)    user-struct keys (below)
//   cuprim::radix_sort_pairs(keys_in, keys_out, values_in, values_out, n, decomposer, [options,] stream)
//   ... <name>_workspace_bytes<...>(n) sizes the explicit workspace (monotonic in n; 0 for small inputs).
//
// Order. Stable: keys that compare equal keep their input order (values travel with their keys), ascending or
// descending (options.order). Keys: any integer type (8 to 64 bits, signed or unsigned), float, double, __half,
// __nv_bfloat16. Floating point sorts in the IEEE total order of the bits:
//     -inf < negative normals < negative denormals < -0.0 < +0.0 < positive denormals < positive normals < +inf,
// with every NaN (any sign or payload) after +inf, in input order. -0.0 sorts strictly before +0.0. Descending
// order reverses everything except NaNs, which come last in both directions. (radix_sort_traits.cuh.)
//
// User-struct keys. A key decomposer is a functor or __host__ __device__ lambda returning
// cuprim::key_members(k.a, k.b, ...): the struct's members that form the key, most significant first, each of a
// key type above, 64 bits in all at most. The keys sort by those members in order (each in its type's order),
// stably, and move whole; the other members do not take part.
//
// Bit range. options.begin_bit / end_bit (default 0 / the key's width) restrict the sort to bits [begin_bit,
// end_bit) of the ordered key (for integers the key's own bits, signed keys with the sign bit flipped; for floats
// the bits of the order-preserving transform above). Keys equal on those bits keep their input order. Fewer bits,
// fewer passes: one pass per 8 bits.
//
// Values: any trivially copyable type, user structs included. Values of 1, 2, 4 or 8 bytes move with their keys in
// every pass; wider values are sorted as 32-bit (64-bit above 2^32 keys) indices and moved once at the end by a
// gather.
//
// The two forms. The plain form reads keys_in (never written) and leaves the result in keys_out, using a
// workspace of about n keys (and values) for the passes between; pairs of 4-byte integer keys and 4-byte values
// take twice that (2 n × 8 bytes): in the plain form each pair travels through the passes (two or more: more than
// 8 bits to sort) packed into one 8-byte key, the key's ordered bits above the value's bits, which moves them
// faster than as two arrays (radix_sort_policy's Pack; a policy with Pack = 0 sorts them in n × 8 bytes). The
// double-buffer form ping-pongs between the two buffers of a double_buffer: no copy and no such workspace; on
// return `selector` says which buffer holds the result (current()); the other holds garbage. For pairs, each
// double_buffer's selector is set independently (with values wider than 8 bytes the values' result lands in the
// other buffer from the keys' when the number of passes is even): always read each one's current().
//
// Sizes: n is 64-bit and may exceed 2^31 (and 2^32). Small inputs are sorted on chip in one launch with no
// workspace: up to one cluster block's threads (1024 by default for 4-byte keys and values, 512 for 8-byte ones)
// by one block, up to the policy's cluster tile (2^16 keys by default) by one thread-block cluster of 8 or 16
// blocks that exchange the keys through distributed shared memory after every pass. Larger inputs take one
// histogram pass, then one pass per 8-bit digit with decoupled look-back (device/detail/radix_sort_kernel.cuh).
//
// Work is ordered on `stream`; nothing synchronises the host. Temporary memory comes from the current memory
// resource, or from the caller's workspace (aligned to 256 bytes, at least <name>_workspace_bytes(n); a workspace
// sized for the plain form is also large enough for the double-buffer form).
//
// Errors. cuprim::invalid_argument, before anything is allocated, launched or written: n < 0; a null pointer with
// n > 0; begin_bit < 0, end_bit beyond the key's width (or negative other than radix_sort_options::key_width),
// begin_bit ≥ end_bit; any output overlapping any input or another output (the plain form's keys_out may not be
// keys_in: use the double-buffer form to sort without a second array of your own); a double_buffer whose two
// buffers overlap, or a selector other than 0 or 1; a workspace smaller than needed. cuprim::cuda_error for a
// failed launch or an error already pending.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/detail/launch.cuh>
#include <cuprim/device/detail/radix_sort_kernel.cuh>
#include <cuprim/device/detail/radix_sort_traits.cuh>
#include <cuprim/device/detail/radix_sort_tuning.cuh>
#include <cuprim/device/reduce.cuh>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace cuprim {

enum class sort_order { ascending, descending };

/// What to sort by: the order and the bit range [begin_bit, end_bit) of the ordered key.
struct radix_sort_options {
  static constexpr int key_width = -1;  ///< end_bit default: the key's width in bits
  sort_order order = sort_order::ascending;
  int begin_bit = 0;
  int end_bit = key_width;
};

/// Two device buffers of n elements each; `selector` names the current one (0 or 1).
template <class T>
struct double_buffer {
  T* buffers[2] = {nullptr, nullptr};
  int selector = 0;
  double_buffer() = default;
  double_buffer(T* current, T* alternate) : buffers{current, alternate}, selector(0) {}
  T* current() const { return buffers[selector & 1]; }
  T* alternate() const { return buffers[(selector & 1) ^ 1]; }
};

namespace detail {

template <class Policy, class K, class V>
using radix_policy_or_default =
    std::conditional_t<std::is_void_v<Policy>,
                       typename radix_sort_default_policy<sizeof(K), radix_has_values_v<V> ? sizeof(V) : 0>::type,
                       Policy>;

/// Values moved in every pass (1, 2, 4, 8 bytes) rather than by indices and a final gather.
template <class V>
constexpr bool radix_direct_v = !radix_has_values_v<V> || sizeof(V) == 1 || sizeof(V) == 2 || sizeof(V) == 4 ||
                                sizeof(V) == 8;

/// The sorting core's workspace: histograms, digit bases, two look-back state arrays (the passes alternate between
/// them, each zeroing the other for the next); 0 for inputs sorted on chip.
template <class P, class K>
struct radix_layout {
  std::uint64_t n, portion, portions, tiles_max;
  std::size_t hist_bytes, bases_bytes, state_bytes;
  explicit radix_layout(std::uint64_t n_) : n(n_) {
    constexpr std::uint64_t tile = P::tile;
    portion = (radix_portion_max / tile) * tile;
    portions = n == 0 ? 0 : (n + portion - 1) / portion;
    const std::uint64_t tiles = (n + tile - 1) / tile;
    tiles_max = std::min<std::uint64_t>(tiles, portion / tile);
    if (n <= std::uint64_t(P::onchip_tile)) {
      hist_bytes = bases_bytes = state_bytes = 0;
      return;
    }
    hist_bytes = align_up((portions * sizeof(K) * radix_digits + 1) * sizeof(unsigned));  // + the NaN flag
    bases_bytes = align_up(portions * sizeof(K) * radix_digits * sizeof(std::uint64_t));
    state_bytes = 2 * align_up((radix_state_head + tiles_max * radix_digits) * sizeof(unsigned));  // two arrays
  }
  std::size_t bytes() const { return hist_bytes + bases_bytes + state_bytes; }
};

/// Workspace of each entry point (plain form unless double_buffer_form).
template <class P, class K, class V>
std::size_t radix_pairs_bytes(std::int64_t n_, bool double_buffer_form) {
  if (n_ <= 0) return 0;
  const std::uint64_t n = std::uint64_t(n_);
  const radix_layout<P, K> L(n);
  std::size_t b = L.bytes();
  const bool small = n <= std::uint64_t(P::onchip_tile);
  if constexpr (radix_direct_v<V>) {
    if (!double_buffer_form && !small) {
      b += align_up(n * sizeof(K));
      if constexpr (radix_has_values_v<V>) b += align_up(n * sizeof(V));
    }
  } else {
    const std::size_t ib = n > 0xffffffffull ? 8 : 4;
    if (!double_buffer_form && !small) b += align_up(n * sizeof(K));
    b += 2 * align_up(n * ib);
  }
  return b;
}

inline void radix_validate_workspace(const char* fn, workspace ws, std::size_t need, const char* sizer) {
  if (ws.bytes < need) throw_invalid(fn, "workspace", sizer);
  if (need && ws.data == nullptr) throw_invalid(fn, "workspace", "data must not be null");
}

/// Checks n and the bit range against a key of `width` bits; returns end_bit resolved.
inline int radix_validate_bit_range(const char* fn, std::int64_t n, const radix_sort_options& o, int width) {
  if (n < 0) throw_invalid(fn, "n", "must be non-negative");
  if (o.begin_bit < 0) throw_invalid(fn, "begin_bit", "must be non-negative");
  if (o.end_bit < 0 && o.end_bit != radix_sort_options::key_width)
    throw_invalid(fn, "end_bit", "must be non-negative (or radix_sort_options::key_width)");
  const int end = o.end_bit == radix_sort_options::key_width ? width : o.end_bit;
  if (end > width) throw_invalid(fn, "end_bit", "must not exceed the key's width in bits");
  if (o.begin_bit >= end) throw_invalid(fn, "begin_bit", "must be less than end_bit");
  return end;
}

/// Checks n and the bit range of keys of type K; returns end_bit resolved.
template <class K>
int radix_validate_bits(const char* fn, std::int64_t n, const radix_sort_options& o) {
  return radix_validate_bit_range(fn, n, o, radix_key<K>::bits);
}

/// One array of an overlap check: its name, address and bytes.
struct radix_array {
  const char* name;
  const void* p;
  std::size_t bytes;
};

/// Null arrays (n > 0) and pairwise overlaps; the later array of an overlapping pair is named.
template <std::size_t N>
void radix_validate_arrays(const char* fn, std::int64_t n, const radix_array (&a)[N]) {
  if (n == 0) return;
  for (const auto& x : a)
    if (x.p == nullptr) throw_invalid(fn, x.name, "must not be null when n > 0");
  for (std::size_t j = 1; j < N; ++j)
    for (std::size_t i = 0; i < j; ++i)
      if (ranges_overlap(a[i].p, a[i].bytes, a[j].p, a[j].bytes))
        throw_invalid(fn, a[j].name, "must not overlap another array of the call");
}

template <class T>
void radix_validate_selector(const char* fn, const double_buffer<T>& b, const char* name) {
  if (b.selector != 0 && b.selector != 1) throw_invalid(fn, name, "selector must be 0 or 1");
}

/// The most blocks the cluster sort may use, whatever the device allows (16, the largest non-portable size, by
/// default). A hook for tests: set to 8 it runs the portable shape on devices that take 16.
inline std::atomic<int> radix_cluster_blocks_cap{16};

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
    answered = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) == cudaSuccess;
    if (answered && clusters > 0) result = 16;
  }
  (void)cudaGetLastError();  // a refused query is an answer, not an error (none was pending: the caller checked)
  // Only an answer is kept: a query that failed (a transient error) runs this call as 8 blocks and asks again on
  // the next, rather than costing the 16-block shape until the process ends.
  if (slot && answered) slot->store(result, std::memory_order_release);
  return result;
}

/// The cluster sort (n ≤ P::cluster_tile): one cluster of the fewest blocks (a power of two, up to 8 or 16) that
/// spread n keys at most P::cluster_items per thread, each block with the fewest keys per thread that hold its share.
/// Should the device refuse a cluster of 16 that the occupancy query allowed (another process's partition of the
/// GPU, for one), the sort runs as 8 blocks and the device's answer becomes 8: 8 blocks always hold a cluster tile.
template <class P, class K, class V>
void radix_cluster_sort(const K* k_in, K* k_out, const V* v_in, V* v_out, std::uint64_t n, int begin_bit, int end_bit,
                        bool descending, cudaStream_t stream) {
  using smem_t = radix_cluster_smem<P::cluster_threads, P::cluster_items, K, V>;
  auto kernel = radix_cluster_kernel<P::cluster_threads, P::cluster_items, K, V>;
  static_assert(std::uint64_t(8) * P::cluster_threads * P::cluster_items >= P::cluster_tile,
                "8 blocks hold the cluster tile");
  if (sizeof(smem_t) > 48 * 1024)
    CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sizeof(smem_t))));
  const int most = std::min(radix_cluster_blocks_max<smem_t>(kernel, P::cluster_threads, sizeof(smem_t)),
                            radix_cluster_blocks_cap.load(std::memory_order_relaxed));
  const radix_small_params<K, V> sp{k_in, k_out, v_in, v_out, int(n), begin_bit, end_bit, descending};
  auto launch = [&](int limit) {
    constexpr std::uint64_t T = P::cluster_threads;
    unsigned blocks = 1;
    while (blocks < unsigned(limit) && blocks * T < n) blocks *= 2;
    int log_items = 0;
    while ((std::uint64_t(blocks) * T << log_items) < n) ++log_items;
    if (blocks > 8) CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg = cluster_launch_config(blocks, int(T), sizeof(smem_t), stream, attr);
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
  check_launch("radix_cluster_kernel");
}

/// The parts of the sorting core's workspace (radix_layout): histograms, digit bases, the two look-back state
/// arrays and the NaN flag.
struct radix_ws_parts {
  unsigned* hist;
  std::uint64_t* bases;
  unsigned* state[2];
  unsigned* nan_flag;
};

/// The sort's first launches: one kernel zeroes the histograms, the bases and the first launch's look-back state;
/// the histogram pass counts every pass's digits of keys[0, n) (HK: the keys as the caller gives them), portion by
/// portion; the bases kernel turns the counts into each digit's output start.
template <class P, class HK>
radix_ws_parts radix_sort_prologue(const HK* keys, const radix_layout<P, HK>& L, std::uint64_t n, int begin_bit,
                                   int end_bit, bool descending, void* ws, cudaStream_t stream) {
  const int passes = radix_passes(begin_bit, end_bit);
  char* base = static_cast<char*>(ws);
  radix_ws_parts w{};
  w.hist = reinterpret_cast<unsigned*>(base);
  w.bases = reinterpret_cast<std::uint64_t*>(base + L.hist_bytes);
  // Two look-back state arrays: launch i (pass-major over the portions) uses state[i & 1] and zeroes the other
  // for launch i + 1 (the launch before it, which used that array, has finished), so the passes follow one
  // another as programmatic dependent launches with no memset between them.
  w.state[0] = reinterpret_cast<unsigned*>(base + L.hist_bytes + L.bases_bytes);
  w.state[1] = reinterpret_cast<unsigned*>(base + L.hist_bytes + L.bases_bytes + L.state_bytes / 2);
  const std::uint64_t per_portion = std::uint64_t(passes) * radix_digits;
  w.nan_flag = w.hist + L.portions * sizeof(HK) * radix_digits;
  // The histograms, the bases and the first launch's state, zeroed by a kernel that lets the histogram pass start
  // at once (it reads the keys while the zeroing runs).
  const std::uint64_t tiles0 = (std::min(L.portion, n) + P::tile - 1) / P::tile;
  const std::size_t first_state = (radix_state_head + tiles0 * radix_digits) * sizeof(unsigned);
  zero_async("radix_sort", w.hist, L.hist_bytes + L.bases_bytes + first_state, stream);
  const int sms = get_device_info().sm_count;
  CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(radix_histogram_kernel<P::hist_threads, P::hist_items, HK>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(radix_histogram_smem_bytes<HK>)));
  for (std::uint64_t q = 0; q < L.portions; ++q) {
    const std::uint64_t first = q * L.portion;
    const std::uint64_t count = std::min(L.portion, n - first);
    constexpr std::uint64_t chunk = std::uint64_t(P::hist_threads) * P::hist_items;
    const std::uint64_t grid = std::min<std::uint64_t>((count + chunk - 1) / chunk, std::uint64_t(sms));
    radix_histogram_params<HK> hp{keys + first, count, w.hist + q * per_portion, begin_bit, end_bit, passes,
                                  descending, w.nan_flag};
    launch_dependent_smem("radix_histogram_kernel", radix_histogram_kernel<P::hist_threads, P::hist_items, HK>,
                          unsigned(grid), P::hist_threads, radix_histogram_smem_bytes<HK>, stream, hp);
  }
  launch_dependent("radix_bases_kernel", radix_bases_kernel<>, unsigned(passes), radix_digits, stream, w.hist, w.bases,
                   passes, L.portions);
  return w;
}

/// The one-sweep passes over [begin_bit, end_bit) of the keys that radix_sort_prologue counted (HK), one launch per
/// pass and portion, moving keys of K (and values of V). io(pass, first, op) sets each launch's buffers
/// (keys_in, keys_out, vals_in, vals_out; Packed: radix_packed_params's pointers and demote_in) for the portion
/// starting at key `first`. Packed: K is std::uint64_t holding a 4-byte key above a 4-byte value, and the digits
/// lie 32 bits higher.
template <class P, class K, class V, bool Packed, class HK, class IO>
void radix_sort_passes(const radix_layout<P, HK>& L, const radix_ws_parts& w, std::uint64_t n, int begin_bit,
                       int end_bit, bool descending, cudaStream_t stream, IO&& io) {
  const int passes = radix_passes(begin_bit, end_bit);
  auto tiles_of = [&](std::uint64_t q) { return (std::min(L.portion, n - q * L.portion) + P::tile - 1) / P::tile; };
  using smem_t = radix_onesweep_smem<P::threads, P::items, K, V, P::joint_exchange>;
  constexpr std::size_t smem = sizeof(smem_t);
  auto onesweep = radix_onesweep_kernel<P::threads, P::items, K, V, P::look_back, P::rank, P::early_counts,
                                        P::exchange_first, P::joint_exchange, P::prefetch_tiles, P::min_blocks,
                                        P::store_hint, Packed>;
  if (smem > 48 * 1024)
    CUPRIM_CUDA_CHECK(cudaFuncSetAttribute(onesweep, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  std::uint64_t launch = 0;
  for (int pass = 0; pass < passes; ++pass) {
    for (std::uint64_t q = 0; q < L.portions; ++q, ++launch) {
      const std::uint64_t first = q * L.portion;
      const bool last_launch = pass == passes - 1 && q == L.portions - 1;
      std::conditional_t<Packed, radix_packed_params, radix_onesweep_params<K, V>> op{};
      op.count = std::min(L.portion, n - first);
      op.first_index = first;
      op.state = w.state[launch & 1];
      op.zero_next = w.state[(launch + 1) & 1];
      op.zero_next_tiles = last_launch ? 0 : tiles_of(q + 1 == L.portions ? 0 : q + 1);
      op.bases = w.bases + (q * passes + pass) * radix_digits;
      op.pass = radix_pass_of(begin_bit, end_bit, pass);
      if constexpr (Packed) op.pass.shift += 32;
      op.descending = descending;
      op.nan_flag = w.nan_flag;
      op.first_pass = pass == 0;
      op.last_pass = pass == passes - 1;
      io(pass, first, op);
      launch_dependent_smem("radix_onesweep_kernel", onesweep, unsigned(tiles_of(q)), P::threads, smem, stream, op);
    }
  }
}

/// The sorting core. Pass p reads (p == 0 ? k_first : k_dst[(p - 1) & 1]) and writes k_dst[p & 1], values alike
/// (v_first null: the values are the indices 0, 1, ...). The result lands in k_dst[(passes - 1) & 1].
template <class P, class K, class V>
void radix_sort_core(const K* k_first, K* const (&k_dst)[2], const V* v_first, V* const (&v_dst)[2], std::uint64_t n,
                     int begin_bit, int end_bit, bool descending, void* ws, cudaStream_t stream) {
  if (n == 0) return;
  const int passes = radix_passes(begin_bit, end_bit);
  if constexpr (P::cluster) {
    if (n > std::uint64_t(P::cluster_threads) && n <= std::uint64_t(P::cluster_tile)) {
      radix_cluster_sort<P>(k_first, k_dst[(passes - 1) & 1], v_first, v_dst[(passes - 1) & 1], n, begin_bit,
                            end_bit, descending, stream);
      return;
    }
  }
  if (n <= std::uint64_t(P::small_tile)) {
    using smem_t = radix_small_smem<P::small_threads, P::small_items, K, V>;
    auto kernel = radix_small_kernel<P::small_threads, P::small_items, K, V>;
    if (sizeof(smem_t) > 48 * 1024)
      CUPRIM_CUDA_CHECK(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(sizeof(smem_t))));
    radix_small_params<K, V> sp{k_first, k_dst[(passes - 1) & 1], v_first, v_dst[(passes - 1) & 1], int(n),
                                begin_bit, end_bit, descending};
    kernel<<<1, P::small_threads, sizeof(smem_t), stream>>>(sp);
    check_launch("radix_small_kernel");
    return;
  }
  const radix_layout<P, K> L(n);
  const radix_ws_parts w = radix_sort_prologue<P, K>(k_first, L, n, begin_bit, end_bit, descending, ws, stream);
  auto io = [&](int pass, std::uint64_t first, radix_onesweep_params<K, V>& op) {
    const K* ksrc = pass == 0 ? k_first : k_dst[(pass - 1) & 1];
    const V* vsrc = pass == 0 ? v_first : v_dst[(pass - 1) & 1];
    op.keys_in = ksrc + first;
    op.keys_out = k_dst[pass & 1];
    op.vals_in = vsrc ? vsrc + first : nullptr;
    op.vals_out = v_dst[pass & 1];
  };
  radix_sort_passes<P, K, V, false>(L, w, n, begin_bit, end_bit, descending, stream, io);
}

/// Whether radix_sort_pairs (plain form) under policy P packs keys of K and values of V (radix_sort_policy's Pack):
/// 4-byte integer keys with 4-byte values.
template <class P, class K, class V>
constexpr bool radix_packs_v = P::pack != 0 && sizeof(K) == 4 && radix_key<K>::kind != radix_kind::floating &&
                               radix_has_values_v<V> && sizeof(V) == 4;

/// The policy of the packed passes: the caller's, or by default the one of 8-byte keys alone (the packed passes move
/// 8-byte keys).
template <class Policy>
using radix_pack_policy = std::conditional_t<std::is_void_v<Policy>, typename radix_sort_default_policy<8, 0>::type,
                                             Policy>;

/// Workspace of the packed sort of n pairs under pack mode `mode` with passes of policy Q: the core's parts, then
/// one (mode 2) or two (mode 1) buffers of n 8-byte keys.
template <class Q, class K>
std::size_t radix_packed_bytes(std::uint64_t n, int mode) {
  if (n <= std::uint64_t(Q::onchip_tile)) return 0;
  return radix_layout<Q, K>(n).bytes() + std::size_t(mode == 1 ? 2 : 1) * align_up(n * sizeof(std::uint64_t));
}

/// Whether the packed sort takes n keys sorted in `passes` passes under pack mode `mode` (P: the caller's policy,
/// whose on-chip sorts take the inputs it holds; Q: the packed passes' policy): above both on-chip sizes, and two
/// passes or more (mode 2: an even number), so that the packing pass is never the pass of the key's top bit (it
/// applies the signed keys' xor after its ranking; one-pass sorts gain nothing from packing anyway:
/// docs/tuning.md, run 16).
template <class P, class Q>
bool radix_packed_takes(std::uint64_t n, int passes, int mode) {
  return n > std::uint64_t(std::max(P::onchip_tile, Q::onchip_tile)) && passes >= 2 &&
         (mode == 1 || passes % 2 == 0);
}

/// The packed sort (radix_sort_policy's Pack, mode 1 or 2) of n > Q::onchip_tile pairs of 4-byte integer keys k_in
/// and 4-byte values v_in (null: the indices) into k_out (mode 1: null, argsort's case, stores no keys), v_out,
/// with passes of policy Q, where radix_packed_takes says so. Each pair travels as one 8-byte key, the key's
/// ordered bits above the value's bits. Mode 1: the first pass packs into the workspace's first buffer, the passes
/// between go from one buffer to the other, the last unpacks. Mode 2: even passes pack (from the input, later from
/// the caller's output) into the one buffer, odd passes unpack from it into the caller's output.
template <class Q, class K>
void radix_sort_packed(const K* k_in, const std::uint32_t* v_in, K* k_out, std::uint32_t* v_out, std::uint64_t n,
                       int begin_bit, int end_bit, bool descending, int mode, void* ws, cudaStream_t stream) {
  static_assert(sizeof(K) == 4 && radix_key<K>::kind != radix_kind::floating, "packed keys: 4-byte integers");
  const radix_layout<Q, K> L(n);
  const radix_ws_parts w = radix_sort_prologue<Q, K>(k_in, L, n, begin_bit, end_bit, descending, ws, stream);
  char* extra = static_cast<char*>(ws) + L.bytes();
  std::uint64_t* const buf[2] = {reinterpret_cast<std::uint64_t*>(extra),
                                 reinterpret_cast<std::uint64_t*>(extra + align_up(n * sizeof(std::uint64_t)))};
  const auto* ki = reinterpret_cast<const std::uint32_t*>(k_in);
  auto* ko = reinterpret_cast<std::uint32_t*>(k_out);
  const int passes = radix_passes(begin_bit, end_bit);
  auto io = [&](int pass, std::uint64_t first, radix_packed_params& op) {
    op.key_xor = radix_key<K>::kind == radix_kind::signed_int ? 0x80000000u : 0u;
    bool pack_in, unpack_out;
    if (mode == 1) {
      pack_in = pass == 0;
      unpack_out = op.last_pass;
      op.keys_in = pack_in ? nullptr : buf[(pass - 1) & 1] + first;
      op.keys_out = buf[pass & 1];
      op.demote_in = pass > 0 && pass >= passes - 2;  // the last two passes read buffers no later pass rewrites
    } else {
      pack_in = pass % 2 == 0;
      unpack_out = pass % 2 == 1;
      op.keys_in = pack_in ? nullptr : buf[0] + first;
      op.keys_out = buf[0];
      op.demote_in = op.last_pass;
    }
    if (pack_in) {
      op.pack_keys = (pass == 0 ? ki : ko) + first;
      const std::uint32_t* vsrc = pass == 0 ? v_in : v_out;
      op.pack_vals = vsrc ? vsrc + first : nullptr;
    }
    if (unpack_out) {
      op.unpack_keys = ko;
      op.unpack_vals = v_out;
    }
  };
  radix_sort_passes<Q, std::uint64_t, radix_no_value, true>(L, w, n, begin_bit, end_bit, descending, stream, io);
}

/// Sorts (keys, indices) and gathers the wide values by the indices. Key buffers as in radix_sort_core;
/// the values go from v_in to v_out. `ws` starts with the core's workspace, then two index arrays.
template <class P, class K, class V, class I>
void radix_sort_gather(const K* k_first, K* const (&k_dst)[2], const V* v_in, V* v_out, std::uint64_t n, int begin,
                       int end, bool descending, void* ws, std::size_t core_bytes, cudaStream_t stream) {
  char* base = static_cast<char*>(ws) + core_bytes;
  I* idx[2] = {reinterpret_cast<I*>(base), reinterpret_cast<I*>(base + align_up(n * sizeof(I)))};
  I* const idx_dst[2] = {idx[0], idx[1]};
  radix_sort_core<P, K, I>(k_first, k_dst, static_cast<const I*>(nullptr), idx_dst, n, begin, end, descending, ws,
                           stream);
  const int passes = radix_passes(begin, end);
  const I* sorted = idx_dst[(passes - 1) & 1];
  const std::uint64_t grid = std::min<std::uint64_t>((n + 255) / 256, std::uint64_t(get_device_info().sm_count) * 16);
  radix_gather_kernel<<<unsigned(grid), 256, 0, stream>>>(v_in, sorted, v_out, n);
  check_launch("radix_gather_kernel");
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------------------------
// Workspace sizes

/// Bytes of workspace radix_sort_keys needs for n keys of K (plain form; double_buffer_form: the double-buffer form).
template <class K, class Policy = void>
std::size_t radix_sort_keys_workspace_bytes(std::int64_t n, bool double_buffer_form = false) {
  using P = detail::radix_policy_or_default<Policy, K, detail::radix_no_value>;
  return detail::radix_pairs_bytes<P, K, detail::radix_no_value>(n, double_buffer_form);
}
/// Bytes of workspace radix_sort_pairs needs for n pairs of K, V.
template <class K, class V, class Policy = void>
std::size_t radix_sort_pairs_workspace_bytes(std::int64_t n, bool double_buffer_form = false) {
  if constexpr (detail::radix_direct_v<V>) {
    using P = detail::radix_policy_or_default<Policy, K, V>;
    std::size_t b = detail::radix_pairs_bytes<P, K, V>(n, double_buffer_form);
    if constexpr (detail::radix_packs_v<P, K, V>)
      if (!double_buffer_form && n > 0)  // the packed sort, or the unpacked one (one pass; mode 2: an odd number)
        b = std::max(b, detail::radix_packed_bytes<detail::radix_pack_policy<Policy>, K>(std::uint64_t(n), P::pack));
    return b;
  } else {
    using P = detail::radix_policy_or_default<Policy, K, std::uint64_t>;
    return detail::radix_pairs_bytes<P, K, V>(n, double_buffer_form);
  }
}
/// Bytes of workspace argsort needs for n keys of K and indices of I.
template <class K, class I, class Policy = void>
std::size_t argsort_workspace_bytes(std::int64_t n) {
  using P = detail::radix_policy_or_default<Policy, K, I>;
  if (n <= 0) return 0;
  const detail::radix_layout<P, K> L{std::uint64_t(n)};
  std::size_t b =
      L.bytes() + 2 * detail::align_up(std::uint64_t(n) * sizeof(K)) + detail::align_up(std::uint64_t(n) * sizeof(I));
  if constexpr (detail::radix_packs_v<P, K, I>)  // (key, index) pairs packed (mode 1 only: see argsort)
    if (P::pack == 1)
      b = std::max(b, detail::radix_packed_bytes<detail::radix_pack_policy<Policy>, K>(std::uint64_t(n), 1));
  return b;
}

// ---------------------------------------------------------------------------------------------------------------
// radix_sort_keys

/// keys_out[0, n) = the keys of keys_in[0, n) in sorted order (stable); in the caller's workspace
/// (radix_sort_keys_workspace_bytes<K>(n)). keys_in is not written.
template <class Policy = void, class K>
void radix_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, workspace ws, radix_sort_options opt = {},
                     cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::radix_sort_keys";
  using V = detail::radix_no_value;
  using P = detail::radix_policy_or_default<Policy, K, V>;
  const int end = detail::radix_validate_bits<K>(fn, n, opt);
  const std::size_t kb = std::size_t(n) * sizeof(K);
  detail::radix_validate_arrays(fn, n, {{"keys_in", keys_in, kb}, {"keys_out", keys_out, kb}});
  const std::size_t need = radix_sort_keys_workspace_bytes<K, P>(n);
  detail::radix_validate_workspace(fn, ws, need, "smaller than radix_sort_keys_workspace_bytes(n)");
  detail::check_no_pending_error(fn);
  if (n == 0) return;
  const detail::radix_layout<P, K> L{std::uint64_t(n)};
  K* tmp = reinterpret_cast<K*>(static_cast<char*>(ws.data) + L.bytes());
  const int passes = detail::radix_passes(opt.begin_bit, end);
  K* const dst[2] = {(passes & 1) ? keys_out : tmp, (passes & 1) ? tmp : keys_out};
  V* const vdst[2] = {nullptr, nullptr};
  detail::radix_sort_core<P, K, V>(keys_in, dst, static_cast<const V*>(nullptr), vdst, std::uint64_t(n),
                                   opt.begin_bit, end, opt.order == sort_order::descending, ws.data, stream);
}

/// radix_sort_keys with its workspace from the current memory resource.
template <class Policy = void, class K>
void radix_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, radix_sort_options opt = {},
                     cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::radix_sort_keys";
  using P = detail::radix_policy_or_default<Policy, K, detail::radix_no_value>;
  detail::radix_validate_bits<K>(fn, n, opt);
  const std::size_t kb = std::size_t(n) * sizeof(K);
  detail::radix_validate_arrays(fn, n, {{"keys_in", keys_in, kb}, {"keys_out", keys_out, kb}});
  detail::check_no_pending_error(fn);
  detail::scratch ws(radix_sort_keys_workspace_bytes<K, P>(n), stream);
  radix_sort_keys<P>(keys_in, keys_out, n, ws.get(), opt, stream);
}

/// Sorts keys.current()[0, n), ping-ponging between the two buffers; on return keys.current() holds the result
/// (keys.selector may have flipped). In the caller's workspace (radix_sort_keys_workspace_bytes<K>(n, true)).
template <class Policy = void, class K>
void radix_sort_keys(double_buffer<K>& keys, std::int64_t n, workspace ws, radix_sort_options opt = {},
                     cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::radix_sort_keys";
  using V = detail::radix_no_value;
  using P = detail::radix_policy_or_default<Policy, K, V>;
  const int end = detail::radix_validate_bits<K>(fn, n, opt);
  detail::radix_validate_selector(fn, keys, "keys");
  const std::size_t kb = std::size_t(n) * sizeof(K);
  detail::radix_validate_arrays(fn, n, {{"keys.current()", keys.current(), kb}, {"keys.alternate()", keys.alternate(), kb}});
  detail::radix_validate_workspace(fn, ws, radix_sort_keys_workspace_bytes<K, P>(n, true),
                                   "smaller than radix_sort_keys_workspace_bytes(n, true)");
  detail::check_no_pending_error(fn);
  if (n == 0) return;
  const int passes = detail::radix_passes(opt.begin_bit, end);
  const bool small = n <= P::onchip_tile;
  K* const dst[2] = {small ? keys.current() : keys.alternate(), keys.current()};
  V* const vdst[2] = {nullptr, nullptr};
  detail::radix_sort_core<P, K, V>(keys.current(), dst, static_cast<const V*>(nullptr), vdst, std::uint64_t(n),
                                   opt.begin_bit, end, opt.order == sort_order::descending, ws.data, stream);
  if (!small && (passes & 1)) keys.selector ^= 1;
}

/// The double-buffer radix_sort_keys with its workspace from the current memory resource.
template <class Policy = void, class K>
void radix_sort_keys(double_buffer<K>& keys, std::int64_t n, radix_sort_options opt = {}, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::radix_sort_keys";
  using P = detail::radix_policy_or_default<Policy, K, detail::radix_no_value>;
  detail::radix_validate_bits<K>(fn, n, opt);
  detail::radix_validate_selector(fn, keys, "keys");
  const std::size_t kb = std::size_t(n) * sizeof(K);
  detail::radix_validate_arrays(fn, n, {{"keys.current()", keys.current(), kb}, {"keys.alternate()", keys.alternate(), kb}});
  detail::check_no_pending_error(fn);
  detail::scratch ws(radix_sort_keys_workspace_bytes<K, P>(n, true), stream);
  radix_sort_keys<P>(keys, n, ws.get(), opt, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// radix_sort_pairs

/// keys_out / values_out = the pairs (keys_in[i], values_in[i]) ordered by key (stable); in the caller's
/// workspace (radix_sort_pairs_workspace_bytes<K, V>(n)). The inputs are not written.
template <class Policy = void, class K, class V>
void radix_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n, workspace ws,
                      radix_sort_options opt = {}, cudaStream_t stream = 0) {
  static_assert(std::is_trivially_copyable_v<V>, "radix_sort_pairs: values must be trivially copyable");
  constexpr const char* fn = "cuprim::radix_sort_pairs";
  const int end = detail::radix_validate_bits<K>(fn, n, opt);
  const std::size_t kb = std::size_t(n) * sizeof(K), vb = std::size_t(n) * sizeof(V);
  detail::radix_validate_arrays(fn, n,
                                {{"keys_in", keys_in, kb},
                                 {"values_in", values_in, vb},
                                 {"keys_out", keys_out, kb},
                                 {"values_out", values_out, vb}});
  detail::radix_validate_workspace(fn, ws, radix_sort_pairs_workspace_bytes<K, V, Policy>(n),
                                   "smaller than radix_sort_pairs_workspace_bytes(n)");
  detail::check_no_pending_error(fn);
  if (n == 0) return;
  const int passes = detail::radix_passes(opt.begin_bit, end);
  const bool desc = opt.order == sort_order::descending;
  if constexpr (detail::radix_direct_v<V>) {
    using P = detail::radix_policy_or_default<Policy, K, V>;
    if constexpr (detail::radix_packs_v<P, K, V>) {
      // Pairs packed into 8-byte keys (radix_sort_policy's Pack), when the values' addresses allow 4-byte accesses.
      using Q = detail::radix_pack_policy<Policy>;
      const bool aligned =
          (reinterpret_cast<std::uintptr_t>(values_in) | reinterpret_cast<std::uintptr_t>(values_out)) % 4 == 0;
      if (aligned && detail::radix_packed_takes<P, Q>(std::uint64_t(n), passes, P::pack)) {
        detail::radix_sort_packed<Q, K>(keys_in, reinterpret_cast<const std::uint32_t*>(values_in), keys_out,
                                        reinterpret_cast<std::uint32_t*>(values_out), std::uint64_t(n), opt.begin_bit,
                                        end, desc, P::pack, ws.data, stream);
        return;
      }
    }
    const detail::radix_layout<P, K> L{std::uint64_t(n)};
    char* extra = static_cast<char*>(ws.data) + L.bytes();
    K* ktmp = reinterpret_cast<K*>(extra);
    V* vtmp = reinterpret_cast<V*>(extra + detail::align_up(kb));
    K* const dst[2] = {(passes & 1) ? keys_out : ktmp, (passes & 1) ? ktmp : keys_out};
    V* const vdst[2] = {(passes & 1) ? values_out : vtmp, (passes & 1) ? vtmp : values_out};
    detail::radix_sort_core<P, K, V>(keys_in, dst, values_in, vdst, std::uint64_t(n), opt.begin_bit, end, desc,
                                     ws.data, stream);
  } else {
    using P = detail::radix_policy_or_default<Policy, K, std::uint64_t>;
    const detail::radix_layout<P, K> L{std::uint64_t(n)};
    const bool small = std::uint64_t(n) <= std::uint64_t(P::onchip_tile);
    K* ktmp = reinterpret_cast<K*>(static_cast<char*>(ws.data) + L.bytes());
    const std::size_t core = L.bytes() + (small ? 0 : detail::align_up(kb));
    K* const dst[2] = {(passes & 1) ? keys_out : ktmp, (passes & 1) ? ktmp : keys_out};
    if (std::uint64_t(n) > 0xffffffffull)
      detail::radix_sort_gather<P, K, V, std::uint64_t>(keys_in, dst, values_in, values_out, std::uint64_t(n),
                                                        opt.begin_bit, end, desc, ws.data, core, stream);
    else
      detail::radix_sort_gather<P, K, V, std::uint32_t>(keys_in, dst, values_in, values_out, std::uint64_t(n),
                                                        opt.begin_bit, end, desc, ws.data, core, stream);
  }
}

/// radix_sort_pairs with its workspace from the current memory resource.
template <class Policy = void, class K, class V>
void radix_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n,
                      radix_sort_options opt = {}, cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::radix_sort_pairs";
  detail::radix_validate_bits<K>(fn, n, opt);
  const std::size_t kb = std::size_t(n) * sizeof(K), vb = std::size_t(n) * sizeof(V);
  detail::radix_validate_arrays(fn, n,
                                {{"keys_in", keys_in, kb},
                                 {"values_in", values_in, vb},
                                 {"keys_out", keys_out, kb},
                                 {"values_out", values_out, vb}});
  detail::check_no_pending_error(fn);
  detail::scratch ws(radix_sort_pairs_workspace_bytes<K, V, Policy>(n), stream);
  radix_sort_pairs<Policy>(keys_in, keys_out, values_in, values_out, n, ws.get(), opt, stream);
}

/// Sorts the pairs (keys.current()[i], values.current()[i]) by key (stable), ping-ponging between each
/// double_buffer's two buffers; on return each one's current() holds its result (the selectors may differ). In
/// the caller's workspace (radix_sort_pairs_workspace_bytes<K, V>(n, true)).
template <class Policy = void, class K, class V>
void radix_sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, std::int64_t n, workspace ws,
                      radix_sort_options opt = {}, cudaStream_t stream = 0) {
  static_assert(std::is_trivially_copyable_v<V>, "radix_sort_pairs: values must be trivially copyable");
  constexpr const char* fn = "cuprim::radix_sort_pairs";
  const int end = detail::radix_validate_bits<K>(fn, n, opt);
  detail::radix_validate_selector(fn, keys, "keys");
  detail::radix_validate_selector(fn, values, "values");
  const std::size_t kb = std::size_t(n) * sizeof(K), vb = std::size_t(n) * sizeof(V);
  detail::radix_validate_arrays(fn, n,
                                {{"keys.current()", keys.current(), kb},
                                 {"keys.alternate()", keys.alternate(), kb},
                                 {"values.current()", values.current(), vb},
                                 {"values.alternate()", values.alternate(), vb}});
  detail::radix_validate_workspace(fn, ws, radix_sort_pairs_workspace_bytes<K, V, Policy>(n, true),
                                   "smaller than radix_sort_pairs_workspace_bytes(n, true)");
  detail::check_no_pending_error(fn);
  if (n == 0) return;
  const int passes = detail::radix_passes(opt.begin_bit, end);
  const bool desc = opt.order == sort_order::descending;
  if constexpr (detail::radix_direct_v<V>) {
    using P = detail::radix_policy_or_default<Policy, K, V>;
    const bool small = n <= P::onchip_tile;
    K* const dst[2] = {small ? keys.current() : keys.alternate(), keys.current()};
    V* const vdst[2] = {small ? values.current() : values.alternate(), values.current()};
    detail::radix_sort_core<P, K, V>(keys.current(), dst, values.current(), vdst, std::uint64_t(n), opt.begin_bit,
                                     end, desc, ws.data, stream);
    if (!small && (passes & 1)) {
      keys.selector ^= 1;
      values.selector ^= 1;
    }
  } else {
    using P = detail::radix_policy_or_default<Policy, K, std::uint64_t>;
    const detail::radix_layout<P, K> L{std::uint64_t(n)};
    const bool small = n <= P::onchip_tile;
    K* const dst[2] = {small ? keys.current() : keys.alternate(), keys.current()};
    if (std::uint64_t(n) > 0xffffffffull)
      detail::radix_sort_gather<P, K, V, std::uint64_t>(keys.current(), dst, values.current(), values.alternate(),
                                                        std::uint64_t(n), opt.begin_bit, end, desc, ws.data, L.bytes(),
                                                        stream);
    else
      detail::radix_sort_gather<P, K, V, std::uint32_t>(keys.current(), dst, values.current(), values.alternate(),
                                                        std::uint64_t(n), opt.begin_bit, end, desc, ws.data, L.bytes(),
                                                        stream);
    if (!small && (passes & 1)) keys.selector ^= 1;
    values.selector ^= 1;
  }
}

/// The double-buffer radix_sort_pairs with its workspace from the current memory resource.
template <class Policy = void, class K, class V>
void radix_sort_pairs(double_buffer<K>& keys, double_buffer<V>& values, std::int64_t n, radix_sort_options opt = {},
                      cudaStream_t stream = 0) {
  constexpr const char* fn = "cuprim::radix_sort_pairs";
  detail::radix_validate_bits<K>(fn, n, opt);
  detail::radix_validate_selector(fn, keys, "keys");
  detail::radix_validate_selector(fn, values, "values");
  const std::size_t kb = std::size_t(n) * sizeof(K), vb = std::size_t(n) * sizeof(V);
  detail::radix_validate_arrays(fn, n,
                                {{"keys.current()", keys.current(), kb},
                                 {"keys.alternate()", keys.alternate(), kb},
                                 {"values.current()", values.current(), vb},
                                 {"values.alternate()", values.alternate(), vb}});
  detail::check_no_pending_error(fn);
  detail::scratch ws(radix_sort_pairs_workspace_bytes<K, V, Policy>(n, true), stream);
  radix_sort_pairs<Policy>(keys, values, n, ws.get(), opt, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// argsort

/// indices[i] = the position in keys[0, n) of the i-th key in sorted order (stable: equal keys by position);
/// I is an integer type able to hold n - 1. keys is not written. In the caller's workspace
/// (argsort_workspace_bytes<K, I>(n)). 4-byte integer keys with 32-bit indices sort as packed pairs (as
/// radix_sort_pairs's do, under a policy with Pack 1, the default: above the on-chip size, two passes or more), the
/// indices made by the first pass, and take 2 n × 8 bytes.
template <class Policy = void, class K, class I>
void argsort(const K* keys, I* indices, std::int64_t n, workspace ws, radix_sort_options opt = {},
             cudaStream_t stream = 0) {
  static_assert(std::is_integral_v<I> && sizeof(I) >= 4, "argsort: indices must be a 32- or 64-bit integer type");
  constexpr const char* fn = "cuprim::argsort";
  using P = detail::radix_policy_or_default<Policy, K, I>;
  const int end = detail::radix_validate_bits<K>(fn, n, opt);
  if (n > 0 && std::uint64_t(n - 1) > std::uint64_t(std::numeric_limits<I>::max()))
    detail::throw_invalid(fn, "n", "indices of this type cannot hold n - 1");
  detail::radix_validate_arrays(fn, n,
                                {{"keys", keys, std::size_t(n) * sizeof(K)}, {"indices", indices, std::size_t(n) * sizeof(I)}});
  detail::radix_validate_workspace(fn, ws, argsort_workspace_bytes<K, I, Policy>(n),
                                   "smaller than argsort_workspace_bytes(n)");
  detail::check_no_pending_error(fn);
  if (n == 0) return;
  const int passes = detail::radix_passes(opt.begin_bit, end);
  if constexpr (detail::radix_packs_v<P, K, I>) {
    // 4-byte integer keys with 32-bit indices travel packed (as radix_sort_pairs's pairs do; mode 1, the one that
    // leaves the sorted keys out): the packing pass makes the indices, the last pass stores only them.
    using Q = detail::radix_pack_policy<Policy>;
    if (P::pack == 1 && detail::radix_packed_takes<P, Q>(std::uint64_t(n), passes, 1)) {
      detail::radix_sort_packed<Q, K>(keys, nullptr, nullptr, reinterpret_cast<std::uint32_t*>(indices),
                                      std::uint64_t(n), opt.begin_bit, end, opt.order == sort_order::descending, 1,
                                      ws.data, stream);
      return;
    }
  }
  const detail::radix_layout<P, K> L{std::uint64_t(n)};
  char* extra = static_cast<char*>(ws.data) + L.bytes();
  const std::size_t kb = detail::align_up(std::size_t(n) * sizeof(K));
  K* const dst[2] = {reinterpret_cast<K*>(extra), reinterpret_cast<K*>(extra + kb)};
  I* itmp = reinterpret_cast<I*>(extra + 2 * kb);
  I* const vdst[2] = {(passes & 1) ? indices : itmp, (passes & 1) ? itmp : indices};
  detail::radix_sort_core<P, K, I>(keys, dst, static_cast<const I*>(nullptr), vdst, std::uint64_t(n), opt.begin_bit,
                                   end, opt.order == sort_order::descending, ws.data, stream);
}

/// argsort with its workspace from the current memory resource.
template <class Policy = void, class K, class I>
void argsort(const K* keys, I* indices, std::int64_t n, radix_sort_options opt = {}, cudaStream_t stream = 0) {
  static_assert(std::is_integral_v<I> && sizeof(I) >= 4, "argsort: indices must be a 32- or 64-bit integer type");
  constexpr const char* fn = "cuprim::argsort";
  detail::radix_validate_bits<K>(fn, n, opt);
  if (n > 0 && std::uint64_t(n - 1) > std::uint64_t(std::numeric_limits<I>::max()))
    detail::throw_invalid(fn, "n", "indices of this type cannot hold n - 1");
  detail::radix_validate_arrays(fn, n,
                                {{"keys", keys, std::size_t(n) * sizeof(K)}, {"indices", indices, std::size_t(n) * sizeof(I)}});
  detail::check_no_pending_error(fn);
  detail::scratch ws(argsort_workspace_bytes<K, I, Policy>(n), stream);
  argsort<Policy>(keys, indices, n, ws.get(), opt, stream);
}

// ---------------------------------------------------------------------------------------------------------------
// User-struct keys: a key decomposer names the members that form the key

namespace detail {

/// The key decomposer entry points: the members' ordered bits (U: 32 or 64 bits) are computed once, argsort
/// orders them (stable), and the keys (and values) are gathered by the sorted indices. V void: keys only.
template <class K, class V, class D>
void radix_sort_decomposed(const char* fn, const K* keys_in, K* keys_out, const V* values_in, V* values_out,
                           std::int64_t n, const D& dec, radix_sort_options opt, cudaStream_t stream) {
  using M = std::remove_cvref_t<std::invoke_result_t<const D&, const K&>>;
  constexpr int width = M::bits;
  static_assert(width > 0 && width <= 64, "key decomposer: the key's members must be 1 to 64 bits wide in all");
  using U = std::conditional_t<(width <= 32), std::uint32_t, std::uint64_t>;
  const int end = radix_validate_bit_range(fn, n, opt, width);  // the key's width: its members' bits in all
  const std::size_t kb = std::size_t(n) * sizeof(K);
  if constexpr (!std::is_void_v<V>) {
    const std::size_t vb = std::size_t(n) * sizeof(V);
    radix_validate_arrays(fn, n,
                          {{"keys_in", keys_in, kb},
                           {"values_in", values_in, vb},
                           {"keys_out", keys_out, kb},
                           {"values_out", values_out, vb}});
  } else {
    radix_validate_arrays(fn, n, {{"keys_in", keys_in, kb}, {"keys_out", keys_out, kb}});
  }
  check_no_pending_error(fn);
  if (n == 0) return;
  const radix_sort_options inner{sort_order::ascending, opt.begin_bit, end};  // the order is in the bits
  auto run = [&](auto index_tag) {
    using I = decltype(index_tag);
    const std::size_t ub = align_up(std::size_t(n) * sizeof(U));
    scratch tmp(ub + align_up(std::size_t(n) * sizeof(I)), stream);
    U* bits = static_cast<U*>(tmp.get().data);
    I* idx = reinterpret_cast<I*>(static_cast<char*>(tmp.get().data) + ub);
    const std::uint64_t grid =
        std::min<std::uint64_t>((std::uint64_t(n) + 255) / 256, std::uint64_t(get_device_info().sm_count) * 16);
    radix_decompose_kernel<<<unsigned(grid), 256, 0, stream>>>(keys_in, bits, std::uint64_t(n), dec,
                                                               opt.order == sort_order::descending);
    check_launch(fn);
    argsort(bits, idx, n, inner, stream);
    radix_gather_kernel<<<unsigned(grid), 256, 0, stream>>>(keys_in, idx, keys_out, std::uint64_t(n));
    check_launch(fn);
    if constexpr (!std::is_void_v<V>) {
      radix_gather_kernel<<<unsigned(grid), 256, 0, stream>>>(values_in, idx, values_out, std::uint64_t(n));
      check_launch(fn);
    }
  };
  if (std::uint64_t(n) - 1 <= 0xffffffffull) run(std::uint32_t{});
  else run(std::uint64_t{});
}

}  // namespace detail

/// keys_out[0, n) = the user-struct keys of keys_in[0, n), stably sorted by the members `dec` names:
/// dec(key) returns cuprim::key_members(key.a, key.b, ...), most significant first (integers, floats, __half,
/// __nv_bfloat16; 64 bits in all at most). `dec` must be callable on the host and the device (a functor or a
/// __host__ __device__ lambda): for example
///     cuprim::radix_sort_keys(in, out, n, [] __host__ __device__ (const particle& p) {
///       return cuprim::key_members(p.cell, p.energy); });
/// options.order applies to every member (each in its type's order, NaNs last in both directions); the bit range
/// is over the members' ordered bits laid end to end (the last member in the lowest bits; the default end_bit is
/// their total width). The keys are moved whole; workspace from the current memory resource (the members' bits,
/// 32-bit indices (64-bit above 2^32 keys), and argsort's). Errors as for radix_sort_keys.
template <class K, class D>
  requires detail::key_decomposer<D, K>
void radix_sort_keys(const K* keys_in, K* keys_out, std::int64_t n, D dec, radix_sort_options opt = {},
                     cudaStream_t stream = 0) {
  static_assert(std::is_trivially_copyable_v<K>, "radix_sort_keys: keys must be trivially copyable");
  detail::radix_sort_decomposed<K, void>("cuprim::radix_sort_keys", keys_in, keys_out, static_cast<const void*>(nullptr),
                                         static_cast<void*>(nullptr), n, dec, opt, stream);
}

/// The pairs (keys_in[i], values_in[i]) stably sorted by the members `dec` names of each user-struct key (as for
/// radix_sort_keys with a decomposer); values: any trivially copyable type.
template <class K, class V, class D>
  requires detail::key_decomposer<D, K>
void radix_sort_pairs(const K* keys_in, K* keys_out, const V* values_in, V* values_out, std::int64_t n, D dec,
                      radix_sort_options opt = {}, cudaStream_t stream = 0) {
  static_assert(std::is_trivially_copyable_v<K> && std::is_trivially_copyable_v<V>,
                "radix_sort_pairs: keys and values must be trivially copyable");
  detail::radix_sort_decomposed<K, V>("cuprim::radix_sort_pairs", keys_in, keys_out, values_in, values_out, n, dec,
                                      opt, stream);
}

}  // namespace cuprim
