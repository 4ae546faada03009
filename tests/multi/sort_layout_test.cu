// The multi radix sort's exchange layout (multi/detail/radix_sort_kernels.cuh), on the host, no GPU: for random send
// tables over P = 2 .. 9 ranks and element sizes of 1, 2, 4, 8, 16 and 12 bytes, the messages the senders cut
// (send_range) are placed where the receiver expects them (receive_slots), and then: every message starts on a
// 16-byte boundary at both ends (where the size divides 16), the messages do not overlap and fit the buffer
// slice_align::capacity sizes, they are as long as the receiver expects, and the merge's first round, reading run q
// at its output position plus its shift (run_offsets, run_shifts: keys' and values' sizes apart), finds the sender's
// slice in order. The unaligned layout (the re-sort's) is the runs back to back at their output positions.
#include <cuprim/multi/detail/radix_sort_kernels.cuh>

#include <gtest/gtest.h>

#include "common/test_util.hpp"

#include <cstdint>
#include <vector>

namespace {

using namespace cuprim::multi::detail;

/// A send table: row q is rank q's slice boundaries in its sorted shard (0 = B[q][0] <= ... <= B[q][P] = n_q).
std::vector<std::int64_t> random_table(cuprim_test::rng& r, int P) {
  std::vector<std::int64_t> B(std::size_t(P) * (P + 1));
  for (int q = 0; q < P; ++q) {
    const std::int64_t n = r.uniform() < 0.15 ? 0 : std::int64_t(r.uniform(0.0, 300.0));
    std::vector<std::int64_t> cut(std::size_t(P) - 1);
    for (auto& c : cut) c = r.uniform() < 0.2 ? 0 : std::int64_t(r.uniform(0.0, double(n) + 1.0));
    std::sort(cut.begin(), cut.end());
    B[std::size_t(q) * (P + 1)] = 0;
    for (int j = 0; j < P - 1; ++j) B[std::size_t(q) * (P + 1) + j + 1] = std::min(cut[std::size_t(j)], n);
    B[std::size_t(q) * (P + 1) + P] = n;
  }
  return B;
}

template <std::size_t Size>
void check_layouts(cuprim_test::rng& r) {
  using A = slice_align<Size>;
  constexpr bool aligns = 16 % Size == 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int P = 2 + trial % 8;
    const std::vector<std::int64_t> B = random_table(r, P);
    for (int me = 0; me < P; ++me) {
      SCOPED_TRACE("element size " + std::to_string(Size) + ", P " + std::to_string(P) + ", rank " +
                   std::to_string(me) + ", trial " + std::to_string(trial));
      std::int64_t n = 0;  // what this rank receives, its own slice included: its output size
      for (int q = 0; q < P; ++q) n += B[std::size_t(q) * (P + 1) + me + 1] - B[std::size_t(q) * (P + 1) + me];
      std::vector<std::int64_t> slot(static_cast<std::size_t>(P)), start(static_cast<std::size_t>(P));
      receive_slots<Size>(B.data(), P, me, true, slot.data(), start.data());
      // The receive buffer: -1 where nothing landed; element (q, i) of rank q's shard is q * 100000 + i.
      std::vector<std::int64_t> buf(std::size_t(A::capacity(n, P)), -1);
      for (int q = 0; q < P; ++q) {
        if (q == me) continue;
        std::int64_t first = 0, count = 0;  // what rank q sends this rank
        send_range<Size>(B.data(), P, q, me, true, &first, &count);
        const std::int64_t slice = B[std::size_t(q) * (P + 1) + me + 1] - B[std::size_t(q) * (P + 1) + me];
        if (slice == 0) {
          EXPECT_EQ(count, 0) << "an empty slice is not sent";
          continue;
        }
        ASSERT_GE(first, 0) << "the message starts before the sender's shard";
        ASSERT_EQ(count, slice + start[std::size_t(q)] - slot[std::size_t(q)]) << "message length, from rank " << q;
        if (aligns) {
          EXPECT_EQ(first * std::int64_t(Size) % 16, 0) << "send from " << first;
          EXPECT_EQ(slot[std::size_t(q)] * std::int64_t(Size) % 16, 0) << "receive at " << slot[std::size_t(q)];
        } else {
          EXPECT_EQ(start[std::size_t(q)], slot[std::size_t(q)]) << "no head";
        }
        ASSERT_LE(slot[std::size_t(q)] + count, std::int64_t(buf.size())) << "past the buffer";
        for (std::int64_t i = 0; i < count; ++i) {
          std::int64_t& x = buf[std::size_t(slot[std::size_t(q)] + i)];
          ASSERT_EQ(x, -1) << "message " << q << " overwrites another at " << slot[std::size_t(q)] + i;
          x = q * 100000 + first + i;
        }
      }
      // Where the merge's first round reads run q: its output position plus its shift (this size as the keys' and
      // as the values', beside a partner of another size).
      std::vector<std::int64_t> runs(std::size_t(P) + 1), shift(2 * std::size_t(P)), scratch(2 * std::size_t(P));
      run_offsets(B.data(), P, me, runs.data());
      EXPECT_EQ(runs[std::size_t(P)], n);
      for (int as_values = 0; as_values < 2; ++as_values) {
        if (as_values) run_shifts<8, Size>(B.data(), P, me, runs.data(), shift.data(), scratch.data());
        else run_shifts<Size, 1>(B.data(), P, me, runs.data(), shift.data(), scratch.data());
        for (int q = 0; q < P; ++q) {
          if (q == me) continue;
          const std::int64_t from = B[std::size_t(q) * (P + 1) + me];
          const std::int64_t count = B[std::size_t(q) * (P + 1) + me + 1] - from;
          const std::int64_t at = runs[std::size_t(q)] + shift[std::size_t(as_values * P + q)];
          for (std::int64_t i = 0; i < count; ++i)
            ASSERT_EQ(buf[std::size_t(at + i)], q * 100000 + from + i) << "run " << q << " element " << i;
        }
      }
      // The re-sort's layout: the runs back to back in rank order, the own one included.
      receive_slots<Size>(B.data(), P, me, false, slot.data(), start.data());
      std::int64_t at = 0;
      for (int q = 0; q < P; ++q) {
        EXPECT_EQ(slot[std::size_t(q)], at);
        EXPECT_EQ(start[std::size_t(q)], at);
        at += B[std::size_t(q) * (P + 1) + me + 1] - B[std::size_t(q) * (P + 1) + me];
      }
    }
  }
}

struct twelve {
  char b[12];
};

TEST(MultiSortLayout, SlicesLandAlignedApartAndWhole) {
  CUPRIM_TEST_RNG(r);
  check_layouts<1>(r);
  check_layouts<2>(r);
  check_layouts<4>(r);
  check_layouts<8>(r);
  check_layouts<16>(r);
  check_layouts<sizeof(twelve)>(r);
}

}  // namespace
