// GPU tests of the out-of-core primitives: results equal the host references and the in-core results, for sizes
// that do not divide the chunk, for pageable, page-locked, managed and mixed arrays, under a device-memory cap that
// forces many chunks (its peak use is checked), in both issue orders; the scan's carry across chunks; select_if's
// chunks placed one after another whatever they keep; no page-locked or device memory left after an allocation fails
// mid-run; bad arguments copy and write nothing.
#include <cuprim/device/reduce.cuh>
#include <cuprim/device/scan.cuh>
#include <cuprim/device/select.cuh>
#include <cuprim/host/select.hpp>
#include <cuprim/ooc.cuh>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace {

using cuprim::ooc::issue_order;

/// Counts the device memory the library takes (through the current resource), its peak, and can make the k-th
/// allocation fail.
class counting_resource final : public cuprim::memory_resource {
public:
  explicit counting_resource(cuprim::memory_resource& up, long fail_at = -1) : up_(up), fail_at_(fail_at) {}
  void* allocate(std::size_t bytes, cudaStream_t s) override {
    if (fail_at_ >= 0 && allocations_ == fail_at_) {
      ++allocations_;
      throw cuprim::bad_alloc(bytes, "counting_resource: injected failure");
    }
    ++allocations_;
    void* p = up_.allocate(bytes, s);
    live_ += bytes;
    peak_ = std::max(peak_, live_);
    return p;
  }
  void deallocate(void* p, std::size_t bytes, cudaStream_t s) noexcept override {
    live_ -= bytes;
    up_.deallocate(p, bytes, s);
  }
  std::size_t live() const { return live_; }
  std::size_t peak() const { return peak_; }
  long allocations() const { return allocations_; }

private:
  cuprim::memory_resource& up_;
  long fail_at_;
  long allocations_ = 0;
  std::size_t live_ = 0, peak_ = 0;
};

/// Installs a resource for the scope.
struct resource_scope {
  explicit resource_scope(cuprim::memory_resource* r) { cuprim::set_current_resource(r); }
  ~resource_scope() { cuprim::set_current_resource(nullptr); }
};

/// A host array of n T: pageable (std::vector) or page-locked (cuprim::pinned_buffer).
template <class T>
struct host_array {
  std::vector<T> pageable;
  cuprim::pinned_buffer<T> pinned;
  bool is_pinned;
  host_array(std::size_t n, bool pin) : is_pinned(pin) {
    if (pin) pinned = cuprim::pinned_buffer<T>(n);
    else pageable.resize(n);
  }
  T* data() { return is_pinned ? pinned.data() : pageable.data(); }
};

struct config {
  std::int64_t n;
  bool pinned_in, pinned_out;
  std::size_t chunk_bytes, device_bytes;
  issue_order order;
};

std::string describe(const config& c) {
  std::ostringstream os;
  os << "n=" << c.n << (c.pinned_in ? " pinned-in" : " pageable-in") << (c.pinned_out ? " pinned-out" : " pageable-out")
     << " chunk_bytes=" << c.chunk_bytes << " device_bytes=" << c.device_bytes
     << (c.order == issue_order::by_stage ? " by_stage" : " by_chunk");
  return os.str();
}

/// CUPRIM_TEST_LARGE=0 (used under compute-sanitizer) keeps the sizes small.
std::vector<config> configs() {
  std::vector<config> v;
  const bool large = cuprim_test::large_enabled();
  const std::int64_t big = large ? 3'333'331 : 100'003, cap_n = large ? 2'000'001 : 200'001;
  const std::int64_t mid = large ? 1'000'003 : 50'003;
  for (std::int64_t n : {std::int64_t(1), std::int64_t(1000), mid, big})
    for (bool pin : {false, true}) {
      v.push_back({n, pin, pin, 0, 0, issue_order::automatic});
      v.push_back({n, pin, !pin, 40'000 * 4 + 12, 0, issue_order::by_stage});  // chunks of 40003 ints
    }
  // A device-memory cap that forces many chunks (256 KiB for all streams), both orders, mixed kinds.
  v.push_back({cap_n, false, true, 0, std::size_t(256) << 10, issue_order::by_chunk});
  v.push_back({cap_n, true, false, 0, std::size_t(256) << 10, issue_order::by_stage});
  return v;
}

cuprim::ooc::options to_options(const config& c) {
  cuprim::ooc::options o;
  o.chunk_bytes = c.chunk_bytes;
  o.device_bytes = c.device_bytes;
  o.order = c.order;
  return o;
}

TEST(OocReduce, MatchesHostAndInCore) {
  CUPRIM_TEST_RNG(rng);
  for (const config& c : configs()) {
    SCOPED_TRACE(describe(c));
    host_array<int> in(std::size_t(c.n), c.pinned_in);
    long long ref = 7;
    for (std::int64_t i = 0; i < c.n; ++i) ref += (in.data()[i] = int(rng.between(-1000, 1000)));
    counting_resource counter(cuprim::current_resource());
    long long got = -1;
    {
      resource_scope scope(&counter);
      cuprim::ooc::reduce(in.data(), &got, c.n, cuprim::plus{}, 7LL, to_options(c));
    }
    EXPECT_EQ(got, ref);
    if (c.device_bytes) EXPECT_LE(counter.peak(), c.device_bytes);
    EXPECT_EQ(counter.live(), 0u);
    // The in-core reduction of the same data.
    cuprim::device_buffer<int> d(std::span<const int>(in.data(), std::size_t(c.n)));
    EXPECT_EQ(cuprim::reduce_sync(d.data(), c.n, cuprim::plus{}, 7LL), got);
    // A user operator (maximum) with a float accumulator.
    float mx = 0;
    cuprim::ooc::reduce(in.data(), &mx, c.n, cuprim::maximum{}, -5000.0f, to_options(c));
    EXPECT_EQ(mx, float(*std::max_element(in.data(), in.data() + c.n)));
  }
}

TEST(OocReduce, FloatSumWithinBound) {
  CUPRIM_TEST_RNG(rng);
  const std::int64_t n = 5'000'011;
  std::vector<float> in(static_cast<std::size_t>(n));
  long double ref = 0, abs_sum = 0;
  for (auto& x : in) {
    x = float(rng.uniform(-1, 1));
    ref += x;
    abs_sum += std::fabs(x);
  }
  cuprim::ooc::options o;
  o.chunk_bytes = 1 << 20;
  double got = 0;
  cuprim::ooc::reduce(in.data(), &got, n, cuprim::plus{}, 0.0, o);
  EXPECT_NEAR(got, double(ref), double(abs_sum) * 1e-13);
  float gotf = 0;
  cuprim::ooc::sum(in.data(), &gotf, n, o);
  EXPECT_NEAR(gotf, double(ref), double(abs_sum) * 6e-8 * 2 * 23);
}

TEST(OocScan, InclusiveAndExclusiveMatchHostAndInCore) {
  CUPRIM_TEST_RNG(rng);
  for (const config& c : configs()) {
    SCOPED_TRACE(describe(c));
    host_array<int> in(std::size_t(c.n), c.pinned_in);
    for (std::int64_t i = 0; i < c.n; ++i) in.data()[i] = int(rng.between(-100, 100));
    std::vector<long long> inc(std::size_t(c.n)), exc(std::size_t(c.n));
    long long run = 0;
    for (std::int64_t i = 0; i < c.n; ++i) {
      exc[std::size_t(i)] = run + 11;
      run += in.data()[i];
      inc[std::size_t(i)] = run;
    }
    host_array<long long> out(std::size_t(c.n), c.pinned_out);
    std::fill(out.data(), out.data() + c.n, 0x5a5a5a5a5a5aLL);
    counting_resource counter(cuprim::current_resource());
    {
      resource_scope scope(&counter);
      cuprim::ooc::inclusive_scan(in.data(), out.data(), c.n, cuprim::plus{}, to_options(c));
    }
    if (c.device_bytes) EXPECT_LE(counter.peak(), c.device_bytes);
    EXPECT_EQ(counter.live(), 0u);
    EXPECT_TRUE(std::equal(inc.begin(), inc.end(), out.data())) << "inclusive";
    std::fill(out.data(), out.data() + c.n, 0x5a5a5a5a5a5aLL);
    cuprim::ooc::exclusive_scan(in.data(), out.data(), c.n, cuprim::plus{}, 11LL, to_options(c));
    EXPECT_TRUE(std::equal(exc.begin(), exc.end(), out.data())) << "exclusive";
    // In-core result on the same data.
    cuprim::device_buffer<int> d(std::span<const int>(in.data(), std::size_t(c.n)));
    cuprim::device_buffer<long long> dout(std::size_t(c.n));
    cuprim::exclusive_scan(d.data(), dout.data(), c.n, cuprim::plus{}, 11LL);
    EXPECT_TRUE(std::equal(exc.begin(), exc.end(), dout.to_host_sync().begin()));
  }
}

/// A non-commutative associative operator: composition of affine maps x → a·x + b (mod 2^32), which makes the
/// carry's left/right order visible.
struct affine {
  unsigned a, b;
};
struct compose {
  CUPRIM_HD affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};

TEST(OocScan, CarryAcrossManySmallChunksNonCommutative) {
  CUPRIM_TEST_RNG(rng);
  const std::int64_t n = 300'007;
  std::vector<affine> in(static_cast<std::size_t>(n));
  for (auto& f : in) f = {unsigned(rng.between(0, 1 << 30)) * 2 + 1, unsigned(rng.between(0, 1 << 30))};
  cuprim::ooc::options o;
  o.chunk_bytes = 4096 * sizeof(affine) + 8;  // 4097 elements: 74 chunks
  o.streams = 5;
  for (auto order : {issue_order::by_chunk, issue_order::by_stage}) {
    o.order = order;
    std::vector<affine> out(static_cast<std::size_t>(n));
    cuprim::ooc::inclusive_scan(in.data(), out.data(), n, compose{}, o);
    affine acc = in[0];
    bool ok = out[0].a == acc.a && out[0].b == acc.b;
    std::int64_t bad = ok ? -1 : 0;
    for (std::int64_t i = 1; i < n && ok; ++i) {
      acc = compose{}(acc, in[std::size_t(i)]);
      if (out[std::size_t(i)].a != acc.a || out[std::size_t(i)].b != acc.b) {
        ok = false;
        bad = i;
      }
    }
    EXPECT_TRUE(ok) << "first difference at " << bad;
  }
}

TEST(OocScan, InPlaceAndFloat) {
  CUPRIM_TEST_RNG(rng);
  const std::int64_t n = 1'234'567;
  cuprim::pinned_buffer<double> a(static_cast<std::size_t>(n));
  std::vector<double> ref(static_cast<std::size_t>(n));
  double run = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    a[std::size_t(i)] = rng.uniform();
    run += a[std::size_t(i)];
    ref[std::size_t(i)] = run;
  }
  cuprim::ooc::options o;
  o.chunk_bytes = 100'000 * sizeof(double);
  cuprim::ooc::inclusive_sum(a.data(), a.data(), n, o);  // in place
  for (std::int64_t i = 0; i < n; i += 997)
    ASSERT_NEAR(a[std::size_t(i)], ref[std::size_t(i)], 1e-12 * double(i + 1)) << i;
  ASSERT_NEAR(a[std::size_t(n - 1)], ref[std::size_t(n - 1)], 1e-12 * double(n));
}

struct below {
  unsigned t;
  CUPRIM_HD bool operator()(const unsigned& x) const { return x < t; }
};

TEST(OocSelect, MatchesHostAndInCore) {
  CUPRIM_TEST_RNG(rng);
  for (const config& c : configs())
    for (unsigned pct : {0u, 37u, 50u, 100u}) {
      SCOPED_TRACE(describe(c) + " keep " + std::to_string(pct) + "%");
      host_array<unsigned> in(std::size_t(c.n), c.pinned_in);
      for (std::int64_t i = 0; i < c.n; ++i) in.data()[i] = unsigned(rng.between(0, 99));
      std::vector<unsigned> ref(std::size_t(c.n));
      const std::int64_t k = cuprim::host::select_if(in.data(), ref.data(), c.n, below{pct});
      host_array<unsigned> out(std::size_t(c.n), c.pinned_out);
      std::fill(out.data(), out.data() + c.n, 0xdeadbeefu);
      std::int64_t got = -1;
      cuprim::ooc::select_if(in.data(), out.data(), &got, c.n, below{pct}, to_options(c));
      ASSERT_EQ(got, k);
      EXPECT_TRUE(std::equal(ref.begin(), ref.begin() + k, out.data()));
      EXPECT_TRUE(std::all_of(out.data() + k, out.data() + c.n, [](unsigned x) { return x == 0xdeadbeefu; }))
          << "wrote past the count";
      cuprim::device_buffer<unsigned> d(std::span<const unsigned>(in.data(), std::size_t(c.n)));
      cuprim::device_buffer<unsigned> dout(std::size_t(c.n));
      EXPECT_EQ(cuprim::select_if_sync(d.data(), dout.data(), c.n, below{pct}), k);
    }
}

// Each chunk's items go right after those of the chunks before, copied once its count is known: chunks that keep
// nothing, everything or some, in every kind of arrays, every issue order and stream count (one stream: each chunk's
// count is waited for before the next chunk starts), with n not a multiple of the chunk.
TEST(OocSelect, ChunksKeepingNothingEverythingOrSome) {
  CUPRIM_TEST_RNG(rng);
  const std::int64_t chunk = 1000, n = 23 * chunk + 7;  // 24 chunks, the last of 7 items
  for (bool pin_in : {false, true})
    for (bool pin_out : {false, true})
      for (int streams : {1, 2, 3, 5})
        for (auto order : {issue_order::by_chunk, issue_order::by_stage}) {
          SCOPED_TRACE(std::string(pin_in ? "pinned" : "pageable") + " in, " + (pin_out ? "pinned" : "pageable") +
                       " out, " + std::to_string(streams) + " streams" +
                       (order == issue_order::by_stage ? ", by_stage" : ", by_chunk"));
          host_array<unsigned> in(std::size_t(n), pin_in);
          for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t c = i / chunk;  // chunk c keeps nothing (c % 3 == 1), everything (0) or some (2)
            in.data()[i] = c % 3 == 1 ? 99u : c % 3 == 0 ? unsigned(rng.between(0, 49)) : unsigned(rng.between(0, 99));
          }
          std::vector<unsigned> ref(static_cast<std::size_t>(n));
          const std::int64_t k = cuprim::host::select_if(in.data(), ref.data(), n, below{50});
          host_array<unsigned> out(std::size_t(n), pin_out);
          std::fill(out.data(), out.data() + n, 0xdeadbeefu);
          cuprim::ooc::options o;
          o.chunk_bytes = std::size_t(chunk) * sizeof(unsigned);
          o.streams = streams;
          o.order = order;
          std::int64_t got = -1;
          cuprim::ooc::select_if(in.data(), out.data(), &got, n, below{50}, o);
          ASSERT_EQ(got, k);
          EXPECT_TRUE(std::equal(ref.begin(), ref.begin() + k, out.data()));
          EXPECT_TRUE(std::all_of(out.data() + k, out.data() + n, [](unsigned x) { return x == 0xdeadbeefu; }))
              << "wrote past the count";
          EXPECT_EQ(cuprim::ooc::staging_stats().in_use_bytes, 0u);
        }
}

struct positive {
  CUPRIM_HD bool operator()(const double& x) const { return x > 0; }
};

TEST(OocSelect, ManagedArraysAndLargeTypes) {
  const std::int64_t n = 200'003;
  double* in = nullptr;
  double* out = nullptr;
  ASSERT_EQ(cudaMallocManaged(&in, std::size_t(n) * sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMallocManaged(&out, std::size_t(n) * sizeof(double)), cudaSuccess);
  for (std::int64_t i = 0; i < n; ++i) in[i] = double(i % 7) - 3.5;
  cuprim::ooc::options o;
  o.chunk_bytes = 30'001 * sizeof(double);
  std::int64_t got = -1;
  cuprim::ooc::select_if(in, out, &got, n, positive{}, o);
  std::int64_t k = 0;
  bool ok = true;
  for (std::int64_t i = 0; i < n; ++i)
    if (in[i] > 0) ok = ok && out[k++] == in[i];
  EXPECT_EQ(got, k);
  EXPECT_TRUE(ok);
  EXPECT_EQ(cudaFree(in), cudaSuccess);
  EXPECT_EQ(cudaFree(out), cudaSuccess);
}

TEST(OocHistogram, EvenBinsMatchHost) {
  CUPRIM_TEST_RNG(rng);
  for (const config& c : configs()) {
    SCOPED_TRACE(describe(c));
    host_array<unsigned> in(std::size_t(c.n), c.pinned_in);
    std::vector<unsigned> ref(256, 0);
    for (std::int64_t i = 0; i < c.n; ++i) {
      const unsigned x = unsigned(rng.next());
      in.data()[i] = x;
      ++ref[x >> 24];  // 256 equal bins over [0, 2^32)
    }
    std::vector<unsigned> hist(256, 12345);
    cuprim::ooc::histogram_even(in.data(), c.n, hist.data(), 256, 0LL, 1LL << 32, to_options(c));
    EXPECT_EQ(hist, ref);
    cuprim::ooc::histogram_even_add(in.data(), c.n, hist.data(), 256, 0LL, 1LL << 32, to_options(c));
    for (auto& r : ref) r *= 2;
    EXPECT_EQ(hist, ref);
  }
  // Floating-point samples, some outside the range; 20000 bins (the in-core histogram's shared-memory copies).
  const std::int64_t n = 777'777;
  std::vector<float> f(static_cast<std::size_t>(n));
  std::vector<unsigned long long> ref(20000, 0);
  for (auto& x : f) {
    x = float(rng.uniform(-0.25, 1.25));
    const double b = std::floor(double(x) * 20000.0);
    if (x >= 0.0f && x < 1.0f) ++ref[std::size_t(std::min(b, 19999.0))];
  }
  std::vector<unsigned long long> hist(20000, 7);
  cuprim::ooc::options o;
  o.chunk_bytes = 65536;
  cuprim::ooc::histogram_even(f.data(), n, hist.data(), 20000, 0.0, 1.0, o);
  EXPECT_EQ(hist, ref);
}

// Managed memory is staged through page-locked buffers like pageable memory (cuprim::detail::host_memory_kind, the
// rule every out-of-core call shares: the copy engines cannot stream it without page faults).
TEST(OocManaged, StagedLikePageable) {
  const std::int64_t n = 300'007;
  int* in = nullptr;
  long long* out = nullptr;
  ASSERT_EQ(cudaMallocManaged(&in, std::size_t(n) * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMallocManaged(&out, std::size_t(n) * sizeof(long long)), cudaSuccess);
  for (std::int64_t i = 0; i < n; ++i) in[i] = int(i % 1000) - 500;
  cuprim::ooc::options o;
  o.chunk_bytes = 40'000 * 4;
  {
    cuprim::ooc::pipeline<int, long long> p("test", in, n, out, o);
    EXPECT_TRUE(p.get_plan().stage_in);
    EXPECT_TRUE(p.get_plan().stage_out);
  }
  cuprim::ooc::inclusive_scan(in, out, n, cuprim::plus{}, o);
  long long run = 0;
  bool ok = true;
  for (std::int64_t i = 0; i < n; ++i) ok = ok && (run += in[i]) == out[i];
  EXPECT_TRUE(ok);
  long long total = 0;
  cuprim::ooc::reduce(in, &total, n, cuprim::plus{}, 0LL, o);
  EXPECT_EQ(total, run);
  EXPECT_EQ(cudaFree(in), cudaSuccess);
  EXPECT_EQ(cudaFree(out), cudaSuccess);
}

TEST(OocRaii, FailedAllocationMidRunReleasesEverything) {
  CUPRIM_TEST_RNG(rng);
  const std::int64_t n = 500'000;
  std::vector<int> in(static_cast<std::size_t>(n));
  for (auto& x : in) x = int(rng.between(-9, 9));
  std::vector<int> out(static_cast<std::size_t>(n));
  cuprim::ooc::options o;
  o.chunk_bytes = 40'000;  // 10000 ints: 50 chunks, each scan chunk allocates its workspace mid-run
  long total = 0;
  {
    counting_resource probe(cuprim::current_resource());
    resource_scope scope(&probe);
    cuprim::ooc::inclusive_scan(in.data(), out.data(), n, cuprim::plus{}, o);
    total = probe.allocations();
  }
  ASSERT_GT(total, 20);
  int failures = 0;
  for (long k : {0L, 1L, 3L, 5L, 8L, 13L, total / 2, total - 2}) {
    SCOPED_TRACE("allocation " + std::to_string(k) + " of " + std::to_string(total) + " fails");
    counting_resource failing(cuprim::current_resource(), k);
    {
      resource_scope scope(&failing);
      try {
        cuprim::ooc::inclusive_scan(in.data(), out.data(), n, cuprim::plus{}, o);
        ADD_FAILURE() << "no exception";
      } catch (const cuprim::bad_alloc&) {
        ++failures;
      }
    }
    EXPECT_EQ(failing.live(), 0u) << "device memory left allocated";
    const auto st = cuprim::ooc::staging_stats();
    EXPECT_EQ(st.in_use_bytes, 0u) << "page-locked staging left in use";
    EXPECT_EQ(st.buffers_in_use, 0u);
    EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
  }
  EXPECT_EQ(failures, 8);
  cuprim::ooc::trim_staging();
  EXPECT_EQ(cuprim::ooc::staging_stats().cached_bytes, 0u);
  // And the next call works.
  cuprim::ooc::inclusive_scan(in.data(), out.data(), n, cuprim::plus{}, o);
  long long run = 0;
  bool ok = true;
  for (std::int64_t i = 0; i < n; ++i) ok = ok && (run += in[std::size_t(i)]) == out[std::size_t(i)];
  EXPECT_TRUE(ok);
}

TEST(OocRaii, SelectFailedAllocationMidRunReleasesEverything) {
  // The in-core select_if takes its workspace per chunk: failures at every stage of the run, pageable and pinned
  // output (staged items in flight, and items copied straight into out).
  CUPRIM_TEST_RNG(rng);
  const std::int64_t n = 400'000;
  std::vector<unsigned> in(static_cast<std::size_t>(n));
  for (auto& x : in) x = unsigned(rng.between(0, 99));
  cuprim::ooc::options o;
  o.chunk_bytes = 40'000;  // 10000 items: 40 chunks
  for (bool pin_out : {false, true}) {
    host_array<unsigned> out(std::size_t(n), pin_out);
    long total = 0;
    {
      counting_resource probe(cuprim::current_resource());
      resource_scope scope(&probe);
      std::int64_t k = 0;
      cuprim::ooc::select_if(in.data(), out.data(), &k, n, below{50}, o);
      total = probe.allocations();
    }
    ASSERT_GT(total, 20);
    for (long fail : {0L, 2L, 7L, total / 2, total - 1}) {
      SCOPED_TRACE("allocation " + std::to_string(fail) + " of " + std::to_string(total) + " fails" +
                   (pin_out ? ", pinned out" : ", pageable out"));
      counting_resource failing(cuprim::current_resource(), fail);
      {
        resource_scope scope(&failing);
        std::int64_t k = -1;
        EXPECT_THROW(cuprim::ooc::select_if(in.data(), out.data(), &k, n, below{50}, o), cuprim::bad_alloc);
        EXPECT_EQ(k, -1) << "no count on failure";
      }
      EXPECT_EQ(failing.live(), 0u) << "device memory left allocated";
      EXPECT_EQ(cuprim::ooc::staging_stats().in_use_bytes, 0u) << "page-locked staging left in use";
      EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
    }
  }
}

TEST(OocArgsGpu, DevicePointersRejectedAndNothingWritten) {
  cuprim::device_buffer<int> d(1000);
  std::vector<int> h(1000, 1);
  std::vector<int> out(1000, 77);
  EXPECT_THROW(cuprim::ooc::inclusive_scan(d.data(), out.data(), 1000, cuprim::plus{}), cuprim::invalid_argument);
  EXPECT_THROW(cuprim::ooc::inclusive_scan(h.data(), d.data(), 1000, cuprim::plus{}), cuprim::invalid_argument);
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](int x) { return x == 77; }));
  long long r = 5;
  EXPECT_THROW(cuprim::ooc::reduce(h.data(), &r, -3, cuprim::plus{}, 0LL), cuprim::invalid_argument);
  EXPECT_EQ(r, 5);
  cuprim::ooc::options o;
  o.device_bytes = 16;
  EXPECT_THROW(cuprim::ooc::reduce(h.data(), &r, 1000, cuprim::plus{}, 0LL, o), cuprim::invalid_argument);
  EXPECT_EQ(r, 5);
  EXPECT_EQ(cuprim::ooc::staging_stats().in_use_bytes, 0u);
}

}  // namespace
