// The runtime core on a device: device_buffer, pinned_buffer, the default pool resource and its reuse, bad_alloc
// for absurd requests, a caller's memory_resource being used by cuprim::reduce, and device_info.
#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/reduce.cuh>
#include "ladder/reduce.cuh"

#include "common/test_util.hpp"
#include "device/reduce_cases.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <regex>
#include <span>
#include <string>
#include <vector>

namespace cuprim_test {
namespace {

class Memory : public gpu_test {};

bool aligned256(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 256 == 0; }

TEST_F(Memory, DeviceBufferRoundTrip) {
  CUPRIM_TEST_RNG(r);
  const std::vector<std::int32_t> h = random_vector<std::int32_t>(r, 1000);
  cuprim::device_buffer<std::int32_t> b(1000);
  EXPECT_EQ(b.size(), 1000u);
  EXPECT_EQ(b.bytes(), 4000u);
  EXPECT_FALSE(b.empty());
  ASSERT_NE(b.data(), nullptr);
  EXPECT_TRUE(aligned256(b.data()));
  b.copy_from_host(h);
  EXPECT_EQ(b.to_host_sync(), h);

  // From a span; a shorter copy replaces only the prefix.
  cuprim::device_buffer<std::int32_t> c{std::span<const std::int32_t>(h)};
  EXPECT_EQ(c.to_host_sync(), h);
  const std::vector<std::int32_t> prefix = {-1, -2, -3};
  c.copy_from_host(prefix);
  std::vector<std::int32_t> expected = h;
  std::copy(prefix.begin(), prefix.end(), expected.begin());
  EXPECT_EQ(c.to_host_sync(), expected);

  // A longer copy is refused and copies nothing.
  const std::vector<std::int32_t> too_long(1001, 7);
  try {
    c.copy_from_host(too_long);
    ADD_FAILURE() << "no exception";
  } catch (const cuprim::invalid_argument& e) {
    EXPECT_EQ(e.argument(), "host");
  }
  EXPECT_EQ(c.to_host_sync(), expected);

  // fill_bytes sets every byte.
  c.fill_bytes(0xAB);
  EXPECT_TRUE(bytes_are(c.data(), c.bytes(), 0xAB));
}

TEST_F(Memory, DeviceBufferEmptyAndMove) {
  cuprim::device_buffer<double> z(0);
  EXPECT_TRUE(z.empty());
  EXPECT_EQ(z.data(), nullptr);
  EXPECT_TRUE(z.to_host_sync().empty());
  EXPECT_NO_THROW(z.fill_bytes(0));
  cuprim::device_buffer<double> d;
  EXPECT_TRUE(d.empty());

  const std::vector<double> h = {1.5, -2.5, 3.25};
  cuprim::device_buffer<double> a{std::span<const double>(h)};
  double* p = a.data();
  cuprim::device_buffer<double> b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(b.to_host_sync(), h);

  cuprim::device_buffer<double> c(10);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(b.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(c.to_host_sync(), h);
}

TEST_F(Memory, DeviceBufferOnAStream) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  {
    const std::vector<std::uint16_t> h(5000, 0xBEEF);
    cuprim::device_buffer<std::uint16_t> b(std::span<const std::uint16_t>(h), s);
    EXPECT_EQ(b.stream(), s);
    EXPECT_EQ(b.to_host_sync(), h);
  }
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

TEST_F(Memory, PinnedBuffer) {
  CUPRIM_TEST_RNG(r);
  cuprim::pinned_buffer<std::uint64_t> p(4096);
  ASSERT_NE(p.data(), nullptr);
  EXPECT_EQ(p.size(), 4096u);
  cudaPointerAttributes attr{};
  ASSERT_EQ(cudaPointerGetAttributes(&attr, p.data()), cudaSuccess);
  EXPECT_EQ(attr.type, cudaMemoryTypeHost) << "pinned_buffer memory is not page-locked host memory";
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = r.next();
  // An asynchronous copy from pinned memory, then back.
  cuprim::device_buffer<std::uint64_t> d(p.size());
  d.copy_from_host(p.span());
  const auto back = d.to_host_sync();
  EXPECT_TRUE(std::equal(back.begin(), back.end(), p.data()));

  std::uint64_t* raw = p.data();
  cuprim::pinned_buffer<std::uint64_t> q(std::move(p));
  EXPECT_EQ(q.data(), raw);
  EXPECT_EQ(p.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(p.size(), 0u);
  cuprim::pinned_buffer<std::uint64_t> w(8);
  w = std::move(q);
  EXPECT_EQ(w.data(), raw);
  EXPECT_EQ(w.span().size(), 4096u);

  cuprim::pinned_buffer<float> empty(0);
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty.size(), 0u);
}

TEST_F(Memory, AbsurdRequestsThrowBadAllocWithTheSize) {
  const std::size_t huge = std::size_t(1) << 50;  // 1 PiB
  try {
    cuprim::device_buffer<char> b(huge);
    ADD_FAILURE() << "allocated 1 PiB of device memory";
  } catch (const cuprim::bad_alloc& e) {
    EXPECT_EQ(e.bytes(), huge) << e.what();
  }
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << "a failed allocation left an error pending";
  try {
    cuprim::device_buffer<double> b(huge / sizeof(double));
    ADD_FAILURE() << "allocated 1 PiB of device memory";
  } catch (const cuprim::bad_alloc& e) {
    EXPECT_EQ(e.bytes(), huge) << "bytes() must be the size in bytes, not elements";
  }
  try {
    cuprim::pinned_buffer<char> p(huge);
    ADD_FAILURE() << "allocated 1 PiB of pinned memory";
  } catch (const cuprim::bad_alloc& e) {
    EXPECT_EQ(e.bytes(), huge) << e.what();
  }
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << "a failed allocation left an error pending";
  // The same through the resource interface; and normal allocations still work afterwards.
  EXPECT_THROW((void)cuprim::current_resource().allocate(huge, 0), cuprim::bad_alloc);
  cuprim::device_buffer<int> fine(1024);
  EXPECT_NE(fine.data(), nullptr);
}

TEST_F(Memory, DefaultPoolIsPerDeviceAndReusesMemory) {
  cuprim::memory_resource& a = cuprim::current_resource();
  cuprim::memory_resource& b = cuprim::current_resource();
  EXPECT_EQ(&a, &b) << "current_resource() must return the same resource each time";
  auto* pool = dynamic_cast<cuprim::pool_resource*>(&a);
  ASSERT_NE(pool, nullptr) << "the default resource is not a pool_resource";
  EXPECT_EQ(pool->device(), cuprim::current_device());
  EXPECT_EQ(a.allocate(0, 0), nullptr);

  // Freed memory is cached and handed out again (no new cudaMalloc for repeated workspaces).
  const std::size_t bytes = std::size_t(1) << 20;
  void* p = a.allocate(bytes, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(aligned256(p));
  a.deallocate(p, bytes, 0);
  ASSERT_EQ(cudaStreamSynchronize(0), cudaSuccess);
  void* q = a.allocate(bytes, 0);
  EXPECT_EQ(q, p) << "the pool did not reuse a freed block of the same size";
  a.deallocate(q, bytes, 0);
  ASSERT_EQ(cudaStreamSynchronize(0), cudaSuccess);
  EXPECT_NO_THROW(pool->trim(0));

  // A pool of one's own works the same way.
  cuprim::pool_resource own(cuprim::current_device());
  void* o = own.allocate(4096, 0);
  ASSERT_NE(o, nullptr);
  ASSERT_EQ(cudaMemsetAsync(o, 0x11, 4096, 0), cudaSuccess);
  EXPECT_TRUE(bytes_are(o, 4096, 0x11));
  own.deallocate(o, 4096, 0);
  ASSERT_EQ(cudaStreamSynchronize(0), cudaSuccess);
}

/// A caller's resource: counts what it hands out, takes memory from the default pool.
class counting_resource final : public cuprim::memory_resource {
public:
  explicit counting_resource(cuprim::memory_resource& upstream, bool fail = false)
      : upstream_(upstream), fail_(fail) {}
  void* allocate(std::size_t bytes, cudaStream_t stream) override {
    ++allocations;
    last_bytes = bytes;
    if (fail_) throw cuprim::bad_alloc(bytes, "counting_resource refuses");
    return upstream_.allocate(bytes, stream);
  }
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream) noexcept override {
    ++deallocations;
    upstream_.deallocate(p, bytes, stream);
  }
  int allocations = 0, deallocations = 0;
  std::size_t last_bytes = 0;

private:
  cuprim::memory_resource& upstream_;
  bool fail_;
};

/// Installs a resource for the scope of a test and restores the default pool afterwards, even on failure.
struct resource_scope {
  explicit resource_scope(cuprim::memory_resource* r) { cuprim::set_current_resource(r); }
  ~resource_scope() { cuprim::set_current_resource(nullptr); }
};

TEST_F(Memory, ReduceTakesItsWorkspaceFromTheCurrentResource) {
  CUPRIM_TEST_RNG(r);
  const std::int64_t n = (std::int64_t(1) << 20) + 7;
  const std::vector<float> h = random_vector<float>(r, std::size_t(n));
  cuprim::device_buffer<float> in{std::span<const float>(h)};  // from the default pool
  guarded_out<float> out;
  cuprim::memory_resource& pool = cuprim::current_resource();
  counting_resource counter(pool);
  {
    resource_scope scope(&counter);
    EXPECT_EQ(&cuprim::current_resource(), &counter);
    cuprim::reduce(in.data(), out.out(), n, cuprim::plus{}, 0.0f);
    EXPECT_EQ(counter.allocations, 1);
    EXPECT_EQ(counter.last_bytes, cuprim::reduce_workspace_bytes<float>(n));
    EXPECT_EQ(counter.deallocations, 1) << "the workspace was not returned when the call ended";
    expect_sum_matches(out.value(), h.data(), n, 0.0f);

    // The empty reduction needs no workspace.
    out.reset();
    cuprim::reduce(in.data(), out.out(), 0, cuprim::plus{}, 1.0f);
    EXPECT_EQ(counter.allocations, 1);
    EXPECT_EQ(out.value(), 1.0f);

    // The ladder's multi-pass rungs and device_buffer take theirs from it too, and give everything back.
    out.reset();
    cuprim::ladder::reduce(cuprim::ladder::reduce_variant::sequential_addressing, in.data(), out.out(), n, cuprim::plus{}, 0.0f);
    EXPECT_GE(counter.allocations, 2);
    expect_sum_matches(out.value(), h.data(), n, 0.0f);
    {
      cuprim::device_buffer<int> b(100);
      EXPECT_EQ(counter.last_bytes, 400u);
    }
    EXPECT_EQ(counter.allocations, counter.deallocations);
  }
  // Restored: the default pool again, the counter is no longer used.
  EXPECT_EQ(&cuprim::current_resource(), &pool);
  const int before = counter.allocations;
  cuprim::reduce(in.data(), out.out(), n, cuprim::plus{}, 0.0f);
  EXPECT_EQ(counter.allocations, before);
}

TEST_F(Memory, AllocationFailureInsideReduceWritesNothing) {
  const std::vector<int> h(100000, 1);
  cuprim::device_buffer<int> in{std::span<const int>(h)};
  guarded_out<int> out;
  counting_resource refusing(cuprim::current_resource(), /*fail=*/true);
  {
    resource_scope scope(&refusing);
    EXPECT_THROW(cuprim::reduce(in.data(), out.out(), 100000, cuprim::plus{}, 0), cuprim::bad_alloc);
    EXPECT_EQ(refusing.allocations, 1);
    EXPECT_EQ(refusing.deallocations, 0);
  }
  EXPECT_TRUE(out.untouched());
}

TEST_F(Memory, DeviceInfoIsSane) {
  const int count = cuprim::device_count();
  ASSERT_GT(count, 0);
  EXPECT_TRUE(cuprim::has_device());
  const int dev = cuprim::current_device();
  EXPECT_GE(dev, 0);
  EXPECT_LT(dev, count);
  const cuprim::device_info& d = cuprim::get_device_info();
  EXPECT_EQ(d.ordinal, dev);
  EXPECT_FALSE(d.name.empty());
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GE(d.arch(), 70);
  EXPECT_EQ(d.arch(), d.cc_major * 10 + d.cc_minor);
  EXPECT_GT(d.l2_bytes, 0u);
  EXPECT_GE(d.max_threads_per_block, 1024);
  EXPECT_GE(d.max_threads_per_sm, d.max_threads_per_block);
  EXPECT_GE(d.smem_per_block, 48u * 1024);
  EXPECT_GE(d.smem_per_block_optin, d.smem_per_block);
  EXPECT_GE(d.smem_per_sm, d.smem_per_block);
  EXPECT_GT(d.global_mem_bytes, std::size_t(1) << 30);
  EXPECT_GT(d.memory_bus_bits, 0);
  // Cached: the same object every time, also when asked by ordinal.
  EXPECT_EQ(&cuprim::get_device_info(), &d);
  EXPECT_EQ(&cuprim::get_device_info(dev), &d);
  // Agrees with the runtime.
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), cudaSuccess);
  EXPECT_EQ(d.sm_count, sms);
  // An ordinal past the last device is a caller error.
  try {
    (void)cuprim::get_device_info(count);
    ADD_FAILURE() << "no exception for ordinal " << count;
  } catch (const cuprim::invalid_argument& e) {
    EXPECT_EQ(e.argument(), "ordinal");
  }
  const std::string driver = cuprim::driver_version_string();
  EXPECT_TRUE(std::regex_match(driver, std::regex("[0-9]+\\.[0-9]+"))) << driver;
}

}  // namespace
}  // namespace cuprim_test
