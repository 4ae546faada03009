// Host tests of cuprim's exceptions and error checks (no CUDA device needed).
#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <new>
#include <source_location>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

static_assert(std::is_base_of_v<std::invalid_argument, cuprim::invalid_argument>);
static_assert(std::is_base_of_v<std::runtime_error, cuprim::cuda_error>);
static_assert(std::is_base_of_v<std::bad_alloc, cuprim::bad_alloc>);

TEST(CudaError, MessageNamesCallErrorAndLocation) {
  const auto where = std::source_location::current();
  const cuprim::cuda_error e(cudaErrorInvalidValue, "cudaMemcpyAsync(dst, src, n, kind, stream)", where);
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "cudaMemcpyAsync(dst, src, n, kind, stream)")) << what;
  EXPECT_TRUE(contains(what, "cudaErrorInvalidValue")) << what;
  EXPECT_TRUE(contains(what, cudaGetErrorString(cudaErrorInvalidValue))) << what;
  EXPECT_TRUE(contains(what, std::string(where.file_name()) + ":" + std::to_string(where.line()))) << what;
  EXPECT_EQ(e.code(), cudaErrorInvalidValue);
  EXPECT_EQ(e.call(), "cudaMemcpyAsync(dst, src, n, kind, stream)");
  EXPECT_FALSE(e.pre_existing());
}

TEST(CudaError, PreExistingFlagAndMessage) {
  const auto where = std::source_location::current();
  const cuprim::cuda_error fresh(cudaErrorLaunchFailure, "launch of k", where, false);
  const cuprim::cuda_error pending(cudaErrorInvalidConfiguration, "before cuprim::reduce", where, true);
  EXPECT_FALSE(fresh.pre_existing());
  EXPECT_TRUE(pending.pre_existing());
  const std::string what = pending.what();
  EXPECT_TRUE(contains(what, "cudaErrorInvalidConfiguration")) << what;
  EXPECT_TRUE(contains(what, "before cuprim::reduce")) << what;
  // The message must not blame the call that found the error: it says it was already pending.
  EXPECT_TRUE(contains(what, "already pending")) << what;
  EXPECT_FALSE(contains(std::string(fresh.what()), "already pending")) << fresh.what();
}

cudaError_t fails_with_invalid_value() { return cudaErrorInvalidValue; }

TEST(CudaError, CheckMacroRecordsCallTextAndLine) {
  int line = 0;
  try {
    line = __LINE__ + 1;
    CUPRIM_CUDA_CHECK(fails_with_invalid_value());
    FAIL() << "CUPRIM_CUDA_CHECK did not throw";
  } catch (const cuprim::cuda_error& e) {
    EXPECT_EQ(e.code(), cudaErrorInvalidValue);
    EXPECT_EQ(e.call(), "fails_with_invalid_value()");
    EXPECT_FALSE(e.pre_existing());
    const std::string what = e.what();
    EXPECT_TRUE(contains(what, "fails_with_invalid_value()")) << what;
    EXPECT_TRUE(contains(what, "error_test.cpp:" + std::to_string(line))) << what;
  }
}

TEST(CudaError, CheckMacroPassesSuccess) { EXPECT_NO_THROW(CUPRIM_CUDA_CHECK(cudaSuccess)); }

TEST(InvalidArgument, NamesFunctionArgumentAndRule) {
  const cuprim::invalid_argument e("cuprim::reduce", "out", "must not be null");
  EXPECT_EQ(e.function(), "cuprim::reduce");
  EXPECT_EQ(e.argument(), "out");
  EXPECT_EQ(e.rule(), "must not be null");
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "cuprim::reduce")) << what;
  EXPECT_TRUE(contains(what, "out")) << what;
  EXPECT_TRUE(contains(what, "must not be null")) << what;
}

TEST(InvalidArgument, ThrowInvalidThrowsIt) {
  try {
    cuprim::detail::throw_invalid("cuprim::f", "n", "must be non-negative");
    FAIL() << "throw_invalid returned";
  } catch (const cuprim::invalid_argument& e) {
    EXPECT_EQ(e.function(), "cuprim::f");
    EXPECT_EQ(e.argument(), "n");
    EXPECT_EQ(e.rule(), "must be non-negative");
  }
  // It is also a std::invalid_argument for callers that catch the standard type.
  EXPECT_THROW(cuprim::detail::throw_invalid("cuprim::f", "n", "rule"), std::invalid_argument);
}

TEST(BadAlloc, ReportsBytes) {
  const std::size_t huge = std::size_t(1) << 50;
  const cuprim::bad_alloc e(huge, "cudaMallocAsync");
  EXPECT_EQ(e.bytes(), huge);
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, std::to_string(huge))) << what;
  EXPECT_TRUE(contains(what, "cudaMallocAsync")) << what;
  // Catchable as std::bad_alloc, with the same message.
  try {
    throw cuprim::bad_alloc(12345, "test");
  } catch (const std::bad_alloc& b) {
    EXPECT_TRUE(contains(b.what(), "12345")) << b.what();
  }
}

// Device queries must never throw from the no-device path: a machine without a GPU gets 0 and "none".
TEST(DeviceQueries, NeverThrowWithoutADevice) {
  int count = -1;
  EXPECT_NO_THROW(count = cuprim::device_count());
  EXPECT_GE(count, 0);
  EXPECT_EQ(cuprim::has_device(), count > 0);
  std::string driver;
  EXPECT_NO_THROW(driver = cuprim::driver_version_string());
  EXPECT_FALSE(driver.empty());
  if (count == 0) {
    // With no device, asking for facts about one is a caller error or a CUDA error, never a crash.
    EXPECT_ANY_THROW(cuprim::get_device_info(0));
  } else {
    // With a device, device_count must not leave an error pending for the next CUDA call to trip over.
    // (Without a driver every runtime call reports the missing driver, so there is nothing to check.)
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  }
}

}  // namespace
