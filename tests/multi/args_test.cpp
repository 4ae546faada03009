// cuprim::multi's rules that need no GPU: the unique id's bytes, even_split, the communicator's device list.
#include <cuprim/multi/communicator.hpp>
#include <cuprim/multi/sharded.hpp>

#include "common/expect_invalid.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

namespace {

namespace multi = cuprim::multi;

TEST(MultiArgs, UniqueIdNeedsItsWholeSize) {
  std::vector<std::byte> short_id(NCCL_UNIQUE_ID_BYTES - 1);
  cuprim_test::expect_invalid([&] { multi::unique_id::from_bytes(short_id); }, "bytes",
                              "cuprim::multi::unique_id::from_bytes");
  std::vector<std::byte> id(NCCL_UNIQUE_ID_BYTES);
  for (std::size_t i = 0; i < id.size(); ++i) id[i] = std::byte(i * 7);
  const auto u = multi::unique_id::from_bytes(id);
  ASSERT_EQ(u.bytes().size(), id.size());
  EXPECT_TRUE(std::equal(id.begin(), id.end(), u.bytes().begin()));
}

TEST(MultiArgs, EvenSplit) {
  EXPECT_EQ(multi::even_split(10, 4), (std::vector<std::int64_t>{3, 3, 2, 2}));
  EXPECT_EQ(multi::even_split(0, 3), (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_EQ(multi::even_split(2, 4), (std::vector<std::int64_t>{1, 1, 0, 0}));
  cuprim_test::expect_invalid([] { multi::even_split(-1, 2); }, "n", "cuprim::multi::even_split");
  cuprim_test::expect_invalid([] { multi::even_split(5, 0); }, "parts", "cuprim::multi::even_split");
}

TEST(MultiArgs, CommunicatorRefusesDevicesThatAreNotThere) {
  cuprim_test::expect_invalid([] { multi::communicator::local({-1}); }, "devices",
                              "cuprim::multi::communicator::local");
  cuprim_test::expect_invalid([] { multi::communicator::local({1000}); }, "devices",
                              "cuprim::multi::communicator::local");
  const auto id = multi::unique_id::from_bytes(std::vector<std::byte>(NCCL_UNIQUE_ID_BYTES));
  cuprim_test::expect_invalid([&] { multi::communicator::join(id, 2, 0, {0, 0}); }, "devices",
                              "cuprim::multi::communicator::join");
  cuprim_test::expect_invalid([&] { multi::communicator::adopt(nullptr, 0); }, "comm",
                              "cuprim::multi::communicator::adopt");
}

}  // namespace
