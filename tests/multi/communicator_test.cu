// cuprim::multi::communicator: the three ways to make one (one process for all GPUs, one process per GPU from a
// unique id, an application's own NCCL communicator), checked by a reduction and a scan over them.
#include <cuprim/multi/reduce.cuh>
#include <cuprim/multi/scan.cuh>

#include "common/test_util.hpp"
#include "multi/multi_fixture.hpp"

#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace {

namespace multi = cuprim::multi;
using cuprim_test::multi::first_elements;
using cuprim_test::multi::layout;
using cuprim_test::multi::sharded_input;

/// The data every set-up reduces and scans: element g of the global array, the same in every process.
int element(std::int64_t g) { return int((g * 2654435761ll) % 2001) - 1000; }

/// Sums and scans an array of n elements over c (the layout: even), and checks every local rank's results.
void check_collectives(const multi::communicator& c, std::int64_t n) {
  const layout l{"even", multi::even_split(n, c.size())};
  std::vector<int> all(static_cast<std::size_t>(n));
  long long total = 0;
  for (std::int64_t g = 0; g < n; ++g) all[std::size_t(g)] = element(g), total += element(g);
  sharded_input<int> in(c, l, all);
  multi::sharded_buffer<long long> sum(c, 1);
  multi::sum(c, in.dev.view(), sum.view());
  for (long long s : first_elements(c, sum)) EXPECT_EQ(s, total);
  auto out = multi::sharded_buffer<int>::for_ranks(c, l.sizes);
  multi::exclusive_sum(c, in.dev.view(), out.view());
  c.synchronize();
  const auto off = multi::detail::shard_offsets(l.sizes);
  for (int i = 0; i < c.local_size(); ++i) {
    std::vector<int> got(std::size_t(out.size(i)));
    multi::device_guard g(c[i].device);
    CUPRIM_CUDA_CHECK(cudaMemcpy(got.data(), out.data(i), got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    int s = 0;
    for (std::int64_t k = 0; k < off[std::size_t(c[i].rank)]; ++k) s += all[std::size_t(k)];
    for (std::size_t k = 0; k < got.size(); ++k) {
      ASSERT_EQ(got[k], s) << "rank " << c[i].rank << ", element " << k;
      s += all[std::size_t(off[std::size_t(c[i].rank)]) + k];
    }
  }
}

TEST(MultiCommunicator, LocalDrivesEveryGivenDevice) {
  for (int P : {1, 2, 4}) {
    if (cuprim::device_count() < P) {
      std::printf("[ SKIPPED  ] %d ranks: needs %d GPUs\n", P, P);
      continue;
    }
    std::vector<int> devices(static_cast<std::size_t>(P));
    std::iota(devices.begin(), devices.end(), 0);
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    auto c = multi::communicator::local(devices);
    EXPECT_EQ(c.size(), P);
    EXPECT_EQ(c.local_size(), P);
    EXPECT_TRUE(c.single_process());
    for (int i = 0; i < P; ++i) {
      EXPECT_EQ(c[i].rank, i);
      EXPECT_EQ(c[i].device, i);
      EXPECT_NE(c[i].stream, nullptr);
      EXPECT_NE(c[i].resource, nullptr);
    }
    check_collectives(c, 100003);
  }
}

TEST(MultiCommunicator, JoinFromOneProcessForSeveralDevices) {
  if (cuprim::device_count() < 1) GTEST_SKIP() << "needs a GPU";
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  const int P = std::min(cuprim::device_count(), 4);
  const auto id = multi::unique_id::create();
  const auto again = multi::unique_id::from_bytes(id.bytes());
  std::vector<int> devices(static_cast<std::size_t>(P));
  std::iota(devices.begin(), devices.end(), 0);
  auto c = multi::communicator::join(again, P, 0, devices);
  EXPECT_EQ(c.size(), P);
  EXPECT_EQ(c.local_size(), P);
  check_collectives(c, 77777);
}

TEST(MultiCommunicator, AdoptsAnApplicationsComm) {
  if (cuprim::device_count() < 1) GTEST_SKIP() << "needs a GPU";
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  ncclComm_t raw = nullptr;
  int device = 0;
  CUPRIM_NCCL_CHECK(ncclCommInitAll(&raw, 1, &device));
  {
    cudaStream_t s = nullptr;
    CUPRIM_CUDA_CHECK(cudaStreamCreate(&s));
    auto c = multi::communicator::adopt(raw, 0, s);
    EXPECT_EQ(c.size(), 1);
    EXPECT_EQ(c[0].stream, s);
    check_collectives(c, 4097);
    c = multi::communicator::adopt(raw, 0);  // a stream of cuprim's own; the first one is not destroyed
    check_collectives(c, 4097);
    CUPRIM_CUDA_CHECK(cudaStreamDestroy(s));
  }
  CUPRIM_NCCL_CHECK(ncclCommDestroy(raw));  // still the application's
}

// One process per GPU: this test starts one child process per rank (the same executable, running only
// MultiProcess.Child), hands each the unique id in its environment, and expects every child to pass.
TEST(MultiProcess, OneProcessPerGpu) {
  if (std::getenv("CUPRIM_MULTI_CHILD_RANK") != nullptr) GTEST_SKIP() << "in a child";
  for (int P : {2, 4}) {
    if (cuprim::device_count() < P) {
      std::printf("[ SKIPPED  ] %d processes: needs %d GPUs\n", P, P);
      continue;
    }
    const auto id = multi::unique_id::create();
    std::string hex;
    for (std::byte b : id.bytes()) {
      static const char* digits = "0123456789abcdef";
      hex += digits[unsigned(b) >> 4], hex += digits[unsigned(b) & 15];
    }
    std::vector<pid_t> children;
    for (int r = 0; r < P; ++r) {
      std::vector<std::string> env_strings{"CUPRIM_MULTI_CHILD_RANK=" + std::to_string(r),
                                           "CUPRIM_MULTI_CHILD_SIZE=" + std::to_string(P),
                                           "CUPRIM_MULTI_CHILD_ID=" + hex, "NCCL_NVLS_ENABLE=0"};
      for (char** e = environ; *e != nullptr; ++e)
        if (std::string(*e).rfind("CUPRIM_MULTI_CHILD", 0) != 0 && std::string(*e).rfind("NCCL_NVLS_ENABLE", 0) != 0)
          env_strings.push_back(*e);
      std::vector<char*> envp;
      for (auto& s : env_strings) envp.push_back(s.data());
      envp.push_back(nullptr);
      std::string exe = "/proc/self/exe", filter = "--gtest_filter=MultiProcess.Child";
      char* argv[] = {exe.data(), filter.data(), nullptr};
      pid_t pid = 0;
      ASSERT_EQ(posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, envp.data()), 0);
      children.push_back(pid);
    }
    for (int r = 0; r < P; ++r) {
      int status = 0;
      ASSERT_EQ(waitpid(children[std::size_t(r)], &status, 0), children[std::size_t(r)]);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << P << " processes: rank " << r << " failed (status " << status << ")";
    }
  }
}

TEST(MultiProcess, Child) {
  const char* rank_s = std::getenv("CUPRIM_MULTI_CHILD_RANK");
  if (rank_s == nullptr) GTEST_SKIP() << "runs only as a child of MultiProcess.OneProcessPerGpu";
  const int rank = std::atoi(rank_s), size = std::atoi(std::getenv("CUPRIM_MULTI_CHILD_SIZE"));
  const std::string hex = std::getenv("CUPRIM_MULTI_CHILD_ID");
  std::vector<std::byte> bytes(hex.size() / 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::byte(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  auto c = multi::communicator::join(multi::unique_id::from_bytes(bytes), size, rank, rank);
  EXPECT_EQ(c.size(), size);
  EXPECT_EQ(c.local_size(), 1);
  EXPECT_FALSE(c.single_process());
  check_collectives(c, 1000003);
}

}  // namespace
