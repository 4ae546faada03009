// lab/atomics.cu: the atomics family: the seed's max_kernel race and its atomicMax fix, atomicAdd throughput
// against contention (global memory, L2-resident and far larger than L2; shared memory), the local-vs-global
// image histogram at a few entropies, and locks (atomicCAS critical sections) against the lock-free forms
// (docs/warp.md). The warp-aggregated atomics primitive has its own rows (atomics/aggregated/..., another file).
//
// Every row checks its result against a host computation before it is timed. Atomic rows count updates: the
// "GF" column is then 10^9 atomic updates per second (a lock row: 10^9 critical sections per second); the
// histogram rows count bytes. Race rows record what they saw as an "observed:" line after the table and in JSON.
#include "lab.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace lab {
namespace {

constexpr std::int64_t pow2(int k) { return std::int64_t(1) << k; }
constexpr unsigned full_mask = 0xffffffffu;
using u64 = unsigned long long;

void launch_check(const char* what) { check(cudaGetLastError(), what); }
void sync_check(const char* what) { check(cudaDeviceSynchronize(), what); }

int race_runs(int dflt) {  // CUPRIM_LAB_RACE_RUNS overrides (1 under compute-sanitizer racecheck)
  if (const char* e = std::getenv("CUPRIM_LAB_RACE_RUNS")) {
    const int v = std::atoi(e);
    if (v >= 1) return v;
  }
  return dflt;
}

// ---------------------------------------------------------------------------------------------------------
// The seed's max_kernel: a block's maximum in one shared variable, by a plain compare-and-store (a race) or by
// atomicMax. The seed leaves the shared variable uninitialised; here thread 0 sets it to INT_MIN first.

template <bool Atomic>
__global__ void max_kernel(const int* a, int* out) {
  __shared__ int max;
  if (threadIdx.x == 0) max = INT_MIN;
  __syncthreads();
  const int my_local = a[std::size_t(blockIdx.x) * blockDim.x + threadIdx.x];
  if constexpr (Atomic) {
    if (my_local > max) atomicMax(&max, my_local);
  } else {
    if (my_local > max) max = my_local;
  }
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = max;
}

case_def max_case(bool atomic, std::int64_t n) {
  case_def d;
  const std::string v = atomic ? "atomicMax" : "plain-store";
  d.name = "atomics/race/max/" + v + "/int32/" + size_label(n);
  d.family = "atomics";
  d.op = "race/max";
  d.variant = v;
  d.dtype = "int32";
  d.n = n;
  d.bytes = 4.0 * double(n) + 4.0 * double(n / 256);
  d.setup = [=]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory out;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::int32, n);
    st->out = device_memory(std::size_t(n / 256) * sizeof(int));
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, atomic, n](cudaStream_t s, int rep) {
      if (atomic) max_kernel<true><<<unsigned(n / 256), 256, 0, s>>>(st->in->slice<int>(rep), st->out.as<int>());
      else max_kernel<false><<<unsigned(n / 256), 256, 0, s>>>(st->in->slice<int>(rep), st->out.as<int>());
      launch_check("launch of max_kernel");
    };
    b.verify = [st, atomic, n, run = b.run] {
      const auto x = st->in->host<int>();
      std::vector<int> want(std::size_t(n / 256), INT_MIN);
      for (std::int64_t i = 0; i < n; ++i) want[std::size_t(i / 256)] = std::max(want[std::size_t(i / 256)], x[std::size_t(i)]);
      const int runs = race_runs(atomic ? 3 : 20);
      std::int64_t wrong = 0, wrong_runs = 0, low_by = 0, example_block = -1;
      int example_got = 0;
      for (int r = 0; r < runs; ++r) {
        st->out.poison();
        run(0, 0);
        sync_check("cudaDeviceSynchronize (verify)");
        const auto got = to_host(st->out.as<int>(), want.size());
        std::int64_t w = 0;
        for (std::size_t k = 0; k < want.size(); ++k)
          if (got[k] != want[k]) {
            ++w;
            low_by += std::int64_t(want[k]) - got[k];
            if (example_block < 0) {
              example_block = std::int64_t(k);
              example_got = got[k];
            }
          }
        wrong += w;
        wrong_runs += w != 0;
      }
      verify_result v;
      std::ostringstream o;
      o << wrong << " wrong of " << std::int64_t(runs) * std::int64_t(want.size()) << " block maxima (" << wrong_runs
        << " of " << runs << " runs with any)";
      if (wrong)
        o << ", on average " << double(low_by) / double(wrong) << " below the true maximum; e.g. block "
          << example_block << ": " << example_got << " instead of " << want[std::size_t(example_block)];
      v.observed = o.str();
      v.ok = !atomic || wrong == 0;  // the race is the demonstration: its count is its result
      if (!v.ok) v.detail = v.observed;
      return v;
    };
    return b;
  };
  return d;
}

// ---------------------------------------------------------------------------------------------------------
// atomicAdd against contention. Update i adds value(i) = 1 + (i & 3) (whole numbers, exact in every type while a
// sum stays below 2^24) to address i % A: A = 1 is one hot address, A >= 32 gives a warp 32 distinct neighbouring
// addresses, A = the number of updates gives every thread its own.

template <class T>
__host__ __device__ inline T add_value(std::uint64_t i) { return T(1 + (i & 3)); }

/// atomicAdd for the lab's types (std::uint64_t is unsigned long here; CUDA's 64-bit overload takes unsigned long
/// long).
template <class T>
__device__ __forceinline__ void atomic_add(T* p, T v) {
  if constexpr (std::is_same_v<T, std::uint64_t>) atomicAdd(reinterpret_cast<u64*>(p), u64(v));
  else atomicAdd(p, v);
}

template <class T>
__global__ void global_add_kernel(T* data, std::uint64_t updates, std::uint64_t addresses) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < updates) atomic_add(&data[i & (addresses - 1)], add_value<T>(i));
}

/// Shared memory: each block's threads make `per_thread` updates each to A addresses of a shared array (update k
/// of thread t goes to (t + k) % A), then the block writes its A sums to its slice of `out`.
template <class T>
__global__ void shared_add_kernel(T* out, int addresses, int per_thread) {
  extern __shared__ __align__(16) unsigned char raw[];
  T* s = reinterpret_cast<T*>(raw);
  for (int a = threadIdx.x; a < addresses; a += blockDim.x) s[a] = T(0);
  __syncthreads();
  for (int k = 0; k < per_thread; ++k) {
    const unsigned u = threadIdx.x + unsigned(k);
    atomic_add(&s[u & unsigned(addresses - 1)], add_value<T>(u));
  }
  __syncthreads();
  for (int a = threadIdx.x; a < addresses; a += blockDim.x) out[std::size_t(blockIdx.x) * addresses + a] = s[a];
}

template <class T>
std::string compare_exact(const std::vector<T>& got, const std::vector<double>& want) {
  std::size_t bad = 0, first = 0;
  for (std::size_t k = 0; k < want.size(); ++k)
    if (double(got[k]) != want[k] && bad++ == 0) first = k;
  if (!bad) return "";
  std::ostringstream m;
  m << bad << " of " << want.size() << " sums differ; first " << first << ": " << double(got[first]) << " vs "
    << want[first];
  return m.str();
}

constexpr std::int64_t global_updates = pow2(26);

template <class T>
case_def global_add_case(std::int64_t addresses) {
  case_def d;
  d.name = std::string("atomics/global/") + name_of<T>() + "/addresses-" + size_label(addresses) + "/" +
           size_label(global_updates);
  d.family = "atomics";
  d.op = "global-add";
  d.variant = size_label(addresses) + " addresses" +
              (double(addresses) * sizeof(T) > 64.0 * 1024 * 1024 ? " (> L2)" : addresses >= pow2(16) ? " (in L2)" : "");
  d.dtype = name_of<T>();
  d.n = global_updates;
  d.flops = double(global_updates);  // updates
  d.reps = 10;
  d.setup = [addresses]() -> bench {
    auto data = std::make_shared<device_memory>(std::size_t(addresses) * sizeof(T));
    check(cudaMemset(data->get(), 0, data->bytes()), "cudaMemset");
    bench b;
    b.run = [data, addresses](cudaStream_t s, int) {
      global_add_kernel<T><<<unsigned(global_updates / 256), 256, 0, s>>>(data->as<T>(), global_updates,
                                                                          std::uint64_t(addresses));
      launch_check("launch of global_add_kernel");
    };
    b.verify = [data, addresses] {
      // Checked on a prefix small enough that every sum stays exact: at most 2^22 updates per address.
      const std::uint64_t u = std::uint64_t(std::min<std::int64_t>(global_updates, addresses * pow2(22)));
      check(cudaMemset(data->get(), 0, data->bytes()), "cudaMemset");
      global_add_kernel<T><<<unsigned((u + 255) / 256), 256>>>(data->as<T>(), u, std::uint64_t(addresses));
      launch_check("launch of global_add_kernel");
      sync_check("cudaDeviceSynchronize (verify)");
      std::vector<double> want(std::size_t(addresses), 0.0);
      for (std::uint64_t i = 0; i < u; ++i) want[std::size_t(i & std::uint64_t(addresses - 1))] += double(1 + (i & 3));
      verify_result v;
      v.detail = compare_exact(to_host(data->as<T>(), std::size_t(addresses)), want);
      v.ok = v.detail.empty();
      return v;
    };
    return b;
  };
  return d;
}

constexpr int shared_blocks = 8192, shared_threads = 256, shared_per_thread = 32;

template <class T>
case_def shared_add_case(int addresses) {
  case_def d;
  const std::int64_t updates = std::int64_t(shared_blocks) * shared_threads * shared_per_thread;
  d.name = std::string("atomics/shared/") + name_of<T>() + "/addresses-" + std::to_string(addresses) + "/" +
           size_label(updates);
  d.family = "atomics";
  d.op = "shared-add";
  d.variant = std::to_string(addresses) + " addresses" + (addresses == shared_threads ? " (one per thread)" : "");
  d.dtype = name_of<T>();
  d.n = updates;
  d.flops = double(updates);
  d.setup = [addresses]() -> bench {
    auto out = std::make_shared<device_memory>(std::size_t(shared_blocks) * addresses * sizeof(T));
    const std::size_t smem = std::size_t(addresses) * sizeof(T);
    bench b;
    b.run = [out, addresses, smem](cudaStream_t s, int) {
      shared_add_kernel<T><<<shared_blocks, shared_threads, smem, s>>>(out->as<T>(), addresses, shared_per_thread);
      launch_check("launch of shared_add_kernel");
    };
    b.verify = [out, addresses, run = b.run] {
      out->poison();
      run(0, 0);
      sync_check("cudaDeviceSynchronize (verify)");
      std::vector<double> one(std::size_t(addresses), 0.0);
      for (unsigned t = 0; t < unsigned(shared_threads); ++t)
        for (int k = 0; k < shared_per_thread; ++k) {
          const unsigned u = t + unsigned(k);
          one[u & unsigned(addresses - 1)] += double(1 + (u & 3));
        }
      std::vector<double> want;
      for (int blk = 0; blk < shared_blocks; ++blk) want.insert(want.end(), one.begin(), one.end());
      verify_result v;
      v.detail = compare_exact(to_host(out->as<T>(), want.size()), want);
      v.ok = v.detail.empty();
      return v;
    };
    return b;
  };
  return d;
}

// ---------------------------------------------------------------------------------------------------------
// Local vs global atomics: a 256-bin histogram of bytes, one global atomicAdd per byte against a shared-memory
// histogram per block merged with one global atomicAdd per non-zero bin. The input is the lab's random uint8 input
// with the histogram family's entropy rule (lab/histogram.cu, histogram/entropy/...): the top k bits of each byte
// kept (2^k equally likely values), applied as the bytes are loaded.

/// The top k bits of byte b (k = 0..8; a byte shifted right by 8 is 0). No special case for k = 0: the compiler must
/// not see that every lane then hits bin 0 (it would aggregate the warp's atomics itself).
__device__ __forceinline__ unsigned keep_top(unsigned b, int k) { return (b >> (8 - k)) << (8 - k); }

template <bool Shared>
__global__ void image_histogram_kernel(const unsigned* words, std::size_t nwords, unsigned* hist, int k) {
  __shared__ unsigned local[256];
  if constexpr (Shared) {
    local[threadIdx.x] = 0;  // blockDim.x == 256
    __syncthreads();
  }
  for (std::size_t w = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; w < nwords;
       w += std::size_t(gridDim.x) * blockDim.x) {
    const unsigned v = words[w];
    for (int j = 0; j < 4; ++j) {
      const unsigned bin = keep_top((v >> (8 * j)) & 255u, k);
      if constexpr (Shared) atomicAdd(&local[bin], 1u);
      else atomicAdd(&hist[bin], 1u);
    }
  }
  if constexpr (Shared) {
    __syncthreads();
    if (local[threadIdx.x]) atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
  }
}

constexpr std::int64_t hist_n = pow2(26);  // bytes: 64 MiB, beyond the 50 MiB L2

case_def histogram_case(bool shared, int bits) {
  case_def d;
  const std::string v = shared ? "shared-privatized" : "global-atomics";
  d.name = "atomics/histogram/" + std::to_string(bits) + "bits/" + v + "/uint8/" + size_label(hist_n);
  d.family = "atomics";
  d.op = "histogram/" + std::to_string(bits) + "bits";
  d.variant = v;
  d.dtype = "uint8";
  d.n = hist_n;
  d.bytes = double(hist_n) + 256.0 * 4;
  d.reps = 10;
  d.setup = [=]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory hist;
      int blocks = 0;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype::uint8, hist_n);
    st->hist = device_memory(256 * sizeof(unsigned));
    int sms = 0;
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");
    st->blocks = sms * 8;
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st, shared, bits](cudaStream_t s, int rep) {
      check(cudaMemsetAsync(st->hist.get(), 0, st->hist.bytes(), s), "cudaMemsetAsync");
      const unsigned* words = st->in->slice<unsigned>(rep);
      const std::size_t nwords = std::size_t(hist_n / 4);
      if (shared) image_histogram_kernel<true><<<st->blocks, 256, 0, s>>>(words, nwords, st->hist.as<unsigned>(), bits);
      else image_histogram_kernel<false><<<st->blocks, 256, 0, s>>>(words, nwords, st->hist.as<unsigned>(), bits);
      launch_check("launch of image_histogram_kernel");
    };
    b.verify = [st, bits, run = b.run] {
      st->hist.poison();
      run(0, 0);
      sync_check("cudaDeviceSynchronize (verify)");
      const auto got = to_host(st->hist.as<unsigned>(), 256);
      std::vector<double> want(256, 0.0);
      for (std::uint8_t x : st->in->host<std::uint8_t>())
        want[bits == 0 ? 0u : unsigned(x >> (8 - bits) << (8 - bits))] += 1;
      verify_result v;
      v.detail = compare_exact(got, want);
      v.ok = v.detail.empty();
      return v;
    };
    return b;
  };
  return d;
}

// ---------------------------------------------------------------------------------------------------------
// Locks. Thread i adds value(i) = 1 + (i & 7) to one of four records {count, sum}, record key(i); each record has
// its own lock (an int: 0 free, 1 taken). The critical section updates both fields with plain stores, so the lock
// is what keeps them consistent; __threadfence orders them before the release.

constexpr int lock_records = 4;
__host__ __device__ inline unsigned lock_key(std::uint64_t i) { return unsigned((i * 2654435761u) >> 7) & 3u; }
__host__ __device__ inline u64 lock_value(std::uint64_t i) { return 1 + (i & 7); }

struct record_set {
  int* locks;
  u64* rec;  // rec[2r]: count, rec[2r + 1]: sum
};

__device__ __forceinline__ void critical_update(record_set r, unsigned key, u64 count, u64 sum) {
  volatile u64* rec = r.rec;
  rec[2 * key] = rec[2 * key] + count;
  rec[2 * key + 1] = rec[2 * key + 1] + sum;
  __threadfence();
}

enum class lk { seed_loop, naive_spin, warp_leader, atomic, match_any };
const char* lk_name(lk k) {
  switch (k) {
    case lk::seed_loop: return "lock-seed-loop";
    case lk::naive_spin: return "lock-naive-spin";
    case lk::warp_leader: return "lock-warp-leader";
    case lk::atomic: return "atomicAdd";
    case lk::match_any: return "match-any-aggregated";
  }
  return "?";
}

template <lk K>
__global__ void lock_kernel(record_set r, std::uint64_t threads) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= threads) return;  // threads is a multiple of 32: whole warps leave together
  const unsigned key = lock_key(i);
  const u64 v = lock_value(i);
  if constexpr (K == lk::seed_loop) {
    // The seed's structure: the critical section and the release sit inside the branch that won the lock, so the
    // winner finishes them before the loop asks again (safe on every GPU).
    bool need_lock = true;
    while (need_lock) {
      if (atomicCAS(&r.locks[key], 0, 1) == 0) {
        __threadfence();
        critical_update(r, key, 1, v);
        atomicExch(&r.locks[key], 0);
        need_lock = false;
      }
    }
  } else if constexpr (K == lk::naive_spin) {
    // Spin until the lock is ours, then the critical section: before Volta a warp whose lanes spin here can keep the
    // winner (waiting at the loop's exit for its siblings) from ever reaching the release: livelock. Independent
    // thread scheduling lets the winner run ahead, so on Volta and later it completes.
    while (atomicCAS(&r.locks[key], 0, 1) != 0) {
    }
    __threadfence();
    critical_update(r, key, 1, v);
    atomicExch(&r.locks[key], 0);
  } else if constexpr (K == lk::warp_leader || K == lk::match_any) {
    // Lanes with the same key form a group; its lowest lane carries the group's count and sum.
    const unsigned peers = __match_any_sync(full_mask, key);
    const int leader = __ffs(peers) - 1;
    u64 sum = 0;
    for (int j = 0; j < 32; ++j) {
      const u64 t = __shfl_sync(full_mask, v, j);
      if ((peers >> j) & 1u) sum += t;
    }
    const unsigned lane = threadIdx.x & 31u;
    if constexpr (K == lk::warp_leader) {
      // The group leaders take their locks one at a time: in each warp only one lane is ever inside a spin loop, and
      // it holds no lock while it waits, so the lock holder always makes progress (safe on every GPU).
      unsigned todo = __ballot_sync(full_mask, int(lane) == leader);
      while (todo) {
        const int next = __ffs(todo) - 1;
        if (int(lane) == next) {
          while (atomicCAS(&r.locks[key], 0, 1) != 0) {
          }
          __threadfence();
          critical_update(r, key, u64(__popc(peers)), sum);
          atomicExch(&r.locks[key], 0);
        }
        todo &= todo - 1;
        __syncwarp();
      }
    } else if (int(lane) == leader) {
      atomicAdd(&r.rec[2 * key], u64(__popc(peers)));
      atomicAdd(&r.rec[2 * key + 1], sum);
    }
  } else {
    atomicAdd(&r.rec[2 * key], u64(1));
    atomicAdd(&r.rec[2 * key + 1], v);
  }
}

case_def lock_case(lk k, std::int64_t threads) {
  case_def d;
  d.name = std::string("atomics/lock/") + lk_name(k) + "/threads-" + size_label(threads);
  d.family = "atomics";
  d.op = "lock";
  d.variant = lk_name(k);
  d.dtype = "uint64";
  d.n = threads;
  d.flops = double(threads);  // updates of a record
  d.reps = 10;
  d.setup = [=]() -> bench {
    auto mem = std::make_shared<device_memory>(lock_records * sizeof(int) + 2 * lock_records * sizeof(u64));
    check(cudaMemset(mem->get(), 0, mem->bytes()), "cudaMemset");
    record_set r{mem->as<int>(), reinterpret_cast<u64*>(mem->as<char>() + lock_records * sizeof(int))};
    const unsigned block = unsigned(std::min<std::int64_t>(threads, 256));
    const unsigned blocks = unsigned((threads + block - 1) / block);
    auto launch = [k, r, block, blocks, threads](cudaStream_t s) {
      const std::uint64_t t = std::uint64_t(threads);
      switch (k) {
        case lk::seed_loop: lock_kernel<lk::seed_loop><<<blocks, block, 0, s>>>(r, t); break;
        case lk::naive_spin: lock_kernel<lk::naive_spin><<<blocks, block, 0, s>>>(r, t); break;
        case lk::warp_leader: lock_kernel<lk::warp_leader><<<blocks, block, 0, s>>>(r, t); break;
        case lk::atomic: lock_kernel<lk::atomic><<<blocks, block, 0, s>>>(r, t); break;
        case lk::match_any: lock_kernel<lk::match_any><<<blocks, block, 0, s>>>(r, t); break;
      }
      launch_check("launch of lock_kernel");
    };
    bench b;
    b.run = [mem, launch](cudaStream_t s, int) { launch(s); };
    b.verify = [mem, r, launch, threads] {
      check(cudaMemset(mem->get(), 0, mem->bytes()), "cudaMemset");
      launch(0);
      sync_check("cudaDeviceSynchronize (verify)");
      const auto got = to_host(r.rec, 2 * lock_records);
      const auto locks = to_host(r.locks, lock_records);
      std::vector<u64> want(2 * lock_records, 0);
      for (std::int64_t i = 0; i < threads; ++i) {
        want[2 * lock_key(std::uint64_t(i))] += 1;
        want[2 * lock_key(std::uint64_t(i)) + 1] += lock_value(std::uint64_t(i));
      }
      verify_result v;
      std::ostringstream m;
      for (int q = 0; q < 2 * lock_records; ++q)
        if (got[std::size_t(q)] != want[std::size_t(q)])
          m << (q % 2 ? "sum" : "count") << "[" << q / 2 << "] " << got[std::size_t(q)] << " vs " << want[std::size_t(q)]
            << "; ";
      for (int q = 0; q < lock_records; ++q)
        if (locks[std::size_t(q)] != 0) m << "lock " << q << " left taken; ";
      v.detail = m.str();
      v.ok = v.detail.empty();
      return v;
    };
    return b;
  };
  return d;
}

}  // namespace

void register_atomics() {
  // The seed's max_kernel: the race (how often it is wrong) and the atomicMax fix; small rows for racecheck.
  for (bool atomic : {false, true}) add_case(max_case(atomic, pow2(24)));
  for (bool atomic : {false, true}) add_case(max_case(atomic, pow2(14)));

  // atomicAdd on global memory: one hot address to every update its own (2^26 addresses: 256-512 MiB, beyond L2;
  // 2^20: 4-8 MiB, L2-resident).
  for (std::int64_t a : {pow2(0), pow2(2), pow2(5), pow2(10), pow2(16), pow2(20), pow2(26)}) {
    add_case(global_add_case<std::int32_t>(a));
    add_case(global_add_case<std::uint64_t>(a));
    add_case(global_add_case<float>(a));
    add_case(global_add_case<double>(a));
  }
  // atomicAdd on shared memory: 1 address per block up to one per thread.
  for (int a : {1, 2, 4, 8, 32, 256}) {
    add_case(shared_add_case<std::int32_t>(a));
    add_case(shared_add_case<std::uint64_t>(a));
    add_case(shared_add_case<float>(a));
    add_case(shared_add_case<double>(a));
  }

  for (int bits : {0, 2, 4, 8})
    for (bool shared : {false, true}) add_case(histogram_case(shared, bits));

  // Locks against the number of contending threads, and the lock-free forms.
  for (std::int64_t t : {pow2(5), pow2(10), pow2(14)}) add_case(lock_case(lk::seed_loop, t));
  for (std::int64_t t : {pow2(5), pow2(10)}) add_case(lock_case(lk::naive_spin, t));
  for (std::int64_t t : {pow2(5), pow2(10), pow2(14), pow2(20)}) add_case(lock_case(lk::warp_leader, t));
  for (std::int64_t t : {pow2(10), pow2(14), pow2(20)}) {
    add_case(lock_case(lk::atomic, t));
    add_case(lock_case(lk::match_any, t));
  }

  add_note("atomics/", "atomics: GF on atomic rows = 10^9 updates per second (lock rows: record updates per second); "
                       "update i adds 1 + (i & 3) to address i mod A; the histogram rows count bytes and use the "
                       "histogram family's entropy rule (top k bits of each random byte); race rows pass whatever "
                       "they produce and report it as 'observed'; docs/warp.md");
}

}  // namespace lab
