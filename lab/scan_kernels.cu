// lab/scan_kernels.cu: the seed's scan tables (seed 000, "CUDA 6ta parte"), over 2^28 int32:
//
//   scan/warp-scan/...   the progression warp → block → device: every 32-element warp segment scanned on its own
//                        with warp::inclusive_scan_shared (predicated, shared memory), inclusive_scan_padded
//                        (branchless, identity padding) and inclusive_scan (shuffle); every 256-element segment
//                        with block::scanner<int, 256>; then the whole array with the production cuprim::inclusive_scan
//   scan/multiscan/...   the bank-conflict table: the seed's block multiscan (shared-memory warp scans, warp totals
//                        read at stride 32 or 33) for 256, 512 and 1024 threads, each block scanning its elements
//   scan/ballot/...      warp stream compaction by ballot scan (keep x != -1, about half of the elements)
#include "scan_common.cuh"

#include "ladder/scan.cuh"

#include <cuprim/block/scan.cuh>
#include <cuprim/device/scan.cuh>
#include <cuprim/warp/scan.cuh>

#include <sstream>
#include <string>
#include <vector>

namespace lab {
namespace {

using namespace scan_family;

constexpr int kernel_threads = 256;
constexpr int kernel_warps = kernel_threads / cuprim::warp::size;

/// Blocks for one element per thread, capped at the 1-D grid limit (the kernels stride over the rest).
unsigned one_per_thread_grid(std::int64_t n) {
  const std::uint64_t blocks = (std::uint64_t(n) + kernel_threads - 1) / kernel_threads;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(blocks, 0x7fffffffull)));
}

// ---------------------------------------------------------------------------------------------------------
// Warp and block scans of independent segments

enum class warp_form { shared, padded, shuffle };

/// Every warp scans its 32 consecutive elements on its own (out = per-warp inclusive sums).
template <warp_form F>
__global__ void __launch_bounds__(kernel_threads) warp_segment_scan(const int* in, int* out, std::uint64_t n) {
  constexpr int slots = F == warp_form::padded ? 48 : 32;  // per warp: data, plus 16 identity slots when padded
  __shared__ int smem[kernel_warps * slots];
  const int w = threadIdx.x / cuprim::warp::size;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * kernel_threads;
  for (std::uint64_t base = std::uint64_t(blockIdx.x) * kernel_threads; base < n; base += stride) {
    const std::uint64_t i = base + threadIdx.x;
    const int x = i < n ? in[i] : 0;
    int y;
    if constexpr (F == warp_form::shared) y = cuprim::warp::inclusive_scan_shared(x, cuprim::plus{}, smem + w * slots);
    else if constexpr (F == warp_form::padded) y = cuprim::warp::inclusive_scan_padded(x, cuprim::plus{}, 0, smem + w * slots);
    else y = cuprim::warp::inclusive_scan(x, cuprim::plus{});
    if (i < n) out[i] = y;
  }
}

/// Every block scans its 256 consecutive elements on its own with block::scanner (multiscan by shuffles).
__global__ void __launch_bounds__(kernel_threads) block_segment_scan(const int* in, int* out, std::uint64_t n) {
  using scanner = cuprim::block::scanner<int, kernel_threads>;
  __shared__ cuprim::detail::uninitialized<scanner::storage> smem;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * kernel_threads;
  for (std::uint64_t base = std::uint64_t(blockIdx.x) * kernel_threads; base < n; base += stride) {
    const std::uint64_t i = base + threadIdx.x;
    const int y = scanner::inclusive_scan(i < n ? in[i] : 0, cuprim::plus{}, smem.get());
    if (i < n) out[i] = y;
    __syncthreads();  // the storage is reused by the next segment
  }
}

template <class Call>
case_def int_case(const std::string& table, const std::string& op, const std::string& variant, Call call,
                  checker<int> check_fn) {
  const std::int64_t n = pow2(28);
  return device_case<int, cub_scan::none>("scan/" + table + "/" + variant + "/int32/" + size_label(n), op, variant, n,
                                          false, call, std::move(check_fn));
}

template <class Call>
void add_int_case(const std::string& table, const std::string& op, const std::string& variant, Call call,
                  checker<int> check_fn) {
  add_case(int_case(table, op, variant, call, std::move(check_fn)));
}

template <warp_form F>
void add_warp_form(const std::string& variant) {
  add_int_case("warp-scan", "inclusive_sum_seg32", variant,
               [](const int* in, int* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
                 warp_segment_scan<F><<<one_per_thread_grid(n), kernel_threads, 0, s>>>(in, out, std::uint64_t(n));
                 check(cudaGetLastError(), "launch of warp_segment_scan");
               },
               segmented_sum_check<int>(32));
}

void add_warp_scan_table() {
  add_warp_form<warp_form::shared>("warp-shared");
  add_warp_form<warp_form::padded>("warp-padded");
  add_warp_form<warp_form::shuffle>("warp-shuffle");
  add_int_case("warp-scan", "inclusive_sum_seg256", "block-scanner-256",
               [](const int* in, int* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
                 block_segment_scan<<<one_per_thread_grid(n), kernel_threads, 0, s>>>(in, out, std::uint64_t(n));
                 check(cudaGetLastError(), "launch of block_segment_scan");
               },
               segmented_sum_check<int>(kernel_threads));
  case_def c = int_case("warp-scan", "inclusive_sum", "device-production",
                        [](const int* in, int* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
                          cuprim::inclusive_scan(in, out, n, cuprim::plus{}, ws, s);
                        },
                        whole_sum_check<int>());
  c.policy = [] { return record_policy(cuprim::scan_policy_for<int>(cuprim::current_tuned_arch())); };
  add_case(std::move(c));
}

// ---------------------------------------------------------------------------------------------------------
// The bank-conflict table

void add_multiscan_table() {
  for (int threads : {256, 512, 1024}) {
    for (int stride : {32, 33}) {
      const std::string variant = "multiscan-b" + std::to_string(threads) + "-s" + std::to_string(stride);
      add_int_case("multiscan", "inclusive_sum_seg" + std::to_string(threads), variant,
                   [threads, stride](const int* in, int* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
                     cuprim::ladder::block_multiscan_local(in, out, n, stride, threads, s);
                   },
                   segmented_sum_check<int>(threads));
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Ballot scan: warp stream compaction

enum class ballot_form { compact, bfi, bfi_shared };

constexpr int removed = -1;  ///< the value the predicate drops (the seed's -1.0f, as an int)

/// The compaction input: the random int32 input with every odd value replaced by -1 (about half of them).
__host__ __device__ inline int sparsify(int x) { return (x & 1) ? removed : x; }

__global__ void sparsify_kernel(const int* in, int* out, std::uint64_t n) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = sparsify(in[i]);
}

/// Each warp keeps its elements x != -1, in order: out[32·w .. 32·w + count) and counts[w] = count.
///   compact      warp::compact (ballot, popc of the lanes below via %lanemask_lt, direct scatter)
///   bfi          warp::ballot_exclusive_scan_bfi (the seed's bfi lane mask), direct scatter
///   bfi_shared   the seed's BallotScanWarp: scatter into shared memory, then lanes [0, count) store in order
template <ballot_form F>
__global__ void __launch_bounds__(kernel_threads)
warp_compact_kernel(const int* in, int* out, int* counts, std::uint64_t n) {
  __shared__ int stage[kernel_threads];
  const int lane = cuprim::warp::lane_id(), w = threadIdx.x / cuprim::warp::size;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * kernel_threads;
  for (std::uint64_t base = std::uint64_t(blockIdx.x) * kernel_threads; base < n; base += stride) {
    const std::uint64_t i = base + threadIdx.x;
    const std::uint64_t segment = i - lane;
    const int x = i < n ? in[i] : removed;
    const bool keep = x != removed;
    int count;
    if constexpr (F == ballot_form::compact) {
      count = cuprim::warp::compact(x, keep, out + segment);
    } else if constexpr (F == ballot_form::bfi) {
      const int rank = cuprim::warp::ballot_exclusive_scan_bfi(keep, count);
      if (keep) out[segment + rank] = x;
    } else {
      const int rank = cuprim::warp::ballot_exclusive_scan_bfi(keep, count);
      int* s = stage + w * cuprim::warp::size;
      if (keep) s[rank] = x;
      __syncwarp();
      const int v = s[lane];
      __syncwarp();  // the next segment's writes wait for these reads
      if (lane < count) out[segment + lane] = v;
    }
    if (lane == 0 && segment < n) counts[segment / cuprim::warp::size] = count;
  }
}

void add_ballot_case(ballot_form f, const std::string& variant) {
  const std::int64_t n = pow2(28);
  case_def c;
  c.name = "scan/ballot/" + variant + "/int32/" + size_label(n);
  c.family = "scan";
  c.op = "warp_compact";
  c.variant = variant;
  c.dtype = name_of<int>();
  c.n = n;
  // Input read once, about half of it written, one count per warp.
  c.bytes = 4.0 * n + 0.5 * 4.0 * n + 4.0 * n / cuprim::warp::size;
  c.quick = false;
  c.setup = [n, f]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory data, out, counts;
      std::vector<int> host;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::int32, n);
    // The sparse input: every slice of the random input, odd values replaced by -1 (same layout, same rotation).
    st->data = device_memory(st->in->device.bytes());
    const std::uint64_t total = st->in->device.bytes() / sizeof(int);
    sparsify_kernel<<<1024, 256>>>(st->in->device.as<int>(), st->data.as<int>(), total);
    check(cudaDeviceSynchronize(), "sparsify_kernel");
    st->host.resize(static_cast<std::size_t>(n));
    const auto x = st->in->host<int>();
    for (std::int64_t i = 0; i < n; ++i) st->host[i] = sparsify(x[i]);
    const std::uint64_t warps = (std::uint64_t(n) + cuprim::warp::size - 1) / cuprim::warp::size;
    st->out = device_memory(std::size_t(n) * sizeof(int));
    st->counts = device_memory(warps * sizeof(int));
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, f](cudaStream_t s, int rep) {
      const int* in = reinterpret_cast<const int*>(static_cast<const char*>(st->data.get()) +
                                                   st->in->stride_bytes * std::size_t(rep % st->in->slices));
      const std::uint64_t m = std::uint64_t(st->in->n);
      const unsigned grid = one_per_thread_grid(st->in->n);
      switch (f) {
        case ballot_form::compact:
          warp_compact_kernel<ballot_form::compact><<<grid, kernel_threads, 0, s>>>(in, st->out.as<int>(), st->counts.as<int>(), m);
          break;
        case ballot_form::bfi:
          warp_compact_kernel<ballot_form::bfi><<<grid, kernel_threads, 0, s>>>(in, st->out.as<int>(), st->counts.as<int>(), m);
          break;
        case ballot_form::bfi_shared:
          warp_compact_kernel<ballot_form::bfi_shared><<<grid, kernel_threads, 0, s>>>(in, st->out.as<int>(), st->counts.as<int>(), m);
          break;
      }
      check(cudaGetLastError(), "launch of warp_compact_kernel");
    };
    b.verify = [st, run = b.run]() {
      verify_result v;
      st->out.poison();
      st->counts.poison();
      run(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
      const std::int64_t m = st->in->n;
      const auto out = to_host(st->out.as<int>(), std::size_t(m));
      const auto counts = to_host(st->counts.as<int>(), st->counts.bytes() / sizeof(int));
      std::int64_t bad_warps = 0, first = -1, kept = 0;
      for (std::int64_t seg = 0; seg < m; seg += cuprim::warp::size) {
        const std::int64_t w = seg / cuprim::warp::size;
        int k = 0;
        bool ok = true;
        for (std::int64_t i = seg; i < std::min<std::int64_t>(seg + cuprim::warp::size, m); ++i) {
          if (st->host[i] == removed) continue;
          ok = ok && out[seg + k] == st->host[i];
          ++k;
        }
        ok = ok && counts[w] == k;
        kept += k;
        if (!ok) {
          if (first < 0) first = w;
          ++bad_warps;
        }
      }
      if (bad_warps) {
        std::ostringstream msg;
        msg << bad_warps << " of " << counts.size() << " warps wrong; first: warp " << first << " (count "
            << counts[first] << ")";
        v.ok = false;
        v.detail = msg.str();
      }
      (void)kept;
      return v;
    };
    return b;
  };
  add_case(std::move(c));
}

void add_ballot_table() {
  add_ballot_case(ballot_form::compact, "ballot-compact");
  add_ballot_case(ballot_form::bfi, "ballot-bfi");
  add_ballot_case(ballot_form::bfi_shared, "ballot-bfi-shared");
}

}  // namespace

void register_scan_kernels() {
  add_warp_scan_table();
  add_multiscan_table();
  add_ballot_table();
  add_note("scan/warp-scan/", "scan/warp-scan: seed 000's progression over 2^28 int32: each warp (seg32) or block "
                              "(seg256) scans its own segment; device-production scans the whole array; "
                              "GB/s = one read and one write per element");
  add_note("scan/multiscan/", "scan/multiscan: the seed's block multiscan, each block scanning its own "
                              "block_threads elements; -sN: N words between the warps' rows in shared memory (32: "
                              "the first warp's reads of the warp totals all hit one bank; 33: none conflict)");
  add_note("scan/ballot/", "scan/ballot: each warp keeps its x != -1 in order (about half: odd inputs set to -1); "
                           "bytes = input + half of it written + one count per warp (nominal)");
}

}  // namespace lab
