// tests/common/gpu_main.cpp: the main of every GPU test executable.
//
// Without a usable CUDA device it prints one line and exits 77, which ctest reports as Skipped (the test
// property SKIP_RETURN_CODE), so a machine without a GPU never counts GPU tests as passed. Listing the tests
// (--gtest_list_tests) and --help work anywhere. After the tests, the device must be clean: a fault from
// asynchronous work, or an error left pending, fails the run.
#include <cuprim/core/device.hpp>

#include "common/test_util.hpp"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string_view>

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--gtest_list_tests") || arg == "--help" || arg == "-h" || arg == "-?" ||
        arg.starts_with("--gtest_help"))
      listing = true;
  }
  if (!listing && cuprim::device_count() == 0) {
    std::string_view exe = argc > 0 ? argv[0] : "test";
    if (const auto slash = exe.find_last_of('/'); slash != std::string_view::npos) exe.remove_prefix(slash + 1);
    std::printf("no CUDA device: %.*s skipped\n", static_cast<int>(exe.size()), exe.data());
    return 77;
  }

  ::testing::InitGoogleTest(&argc, argv);
  if (!listing) {
    const cuprim::device_info& d = cuprim::get_device_info();
    std::printf("cuprim tests on device %d: %s (sm_%d, %d SMs), driver %s; CUPRIM_TEST_SEED=%llu%s\n", d.ordinal,
                d.name.c_str(), d.arch(), d.sm_count, cuprim::driver_version_string().c_str(),
                static_cast<unsigned long long>(cuprim_test::base_seed()),
                cuprim_test::large_enabled() ? "" : ", CUPRIM_TEST_LARGE=0");
    std::fflush(stdout);
  }
  int rc = RUN_ALL_TESTS();
  if (!listing) {
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) {
      std::fprintf(stderr, "CUDA error after the tests: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));
      if (rc == 0) rc = 1;
    }
  }
  return rc;
}
