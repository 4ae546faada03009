// tests/multi/multi_fixture.hpp: what the cuprim::multi tests share.
//
//   MULTI_RANKS(P)        in a test body: `comm` is a communicator of P ranks on devices 0..P-1 (made once per
//                         process and kept), or the test is skipped, visibly, when fewer than P GPUs are visible
//   rank_layouts(n, P)    shard sizes to test: even, uneven, empty shards first and last, everything on one rank
//   sharded_input<T>      a global host array and its shards on the ranks of a layout
//   first_elements, shards_to_host, poison   reading back and poisoning the local ranks' shards
//   ranks_param           the rank counts every multi test runs for: 1, 2 and 4
//
// NCCL's NVLink multicast (NVLS) is turned off before the first communicator is made.
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/multi/communicator.hpp>
#include <cuprim/multi/sharded.hpp>

#include <cuda_runtime_api.h>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace cuprim_test::multi {

/// The communicator of P ranks on devices 0..P-1, or nullptr when fewer devices are visible. Made on first use and
/// kept for the process (NCCL's set-up costs a fraction of a second per communicator).
inline cuprim::multi::communicator* ranks(int P) {
  static std::map<int, cuprim::multi::communicator*> made;
  if (cuprim::device_count() < P) return nullptr;
  auto& c = made[P];
  if (c == nullptr) {
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    std::vector<int> devices(static_cast<std::size_t>(P), 0);
    std::iota(devices.begin(), devices.end(), 0);
    c = new cuprim::multi::communicator(cuprim::multi::communicator::local(devices));  // kept until exit
  }
  return c;
}

#define MULTI_RANKS(P)                                                                                          \
  cuprim::multi::communicator* comm_ptr_ = ::cuprim_test::multi::ranks(P);                                      \
  if (comm_ptr_ == nullptr)                                                                                     \
    GTEST_SKIP() << "needs " << (P) << " GPUs, " << cuprim::device_count() << " visible";                       \
  const cuprim::multi::communicator& comm = *comm_ptr_

/// A named way to cut n elements over P ranks.
struct layout {
  std::string name;
  std::vector<std::int64_t> sizes;
};

/// Shard sizes to test for n elements on P ranks: even; uneven (random); empty first and last shards; all on the
/// last rank.
inline std::vector<layout> rank_layouts(std::int64_t n, int P, std::uint64_t seed) {
  std::vector<layout> out{{"even", cuprim::multi::even_split(n, P)}};
  if (P == 1) return out;
  cuprim_test::rng g(seed);
  std::vector<std::int64_t> uneven(static_cast<std::size_t>(P), 0);
  std::int64_t left = n;
  for (int r = 0; r + 1 < P; ++r) {
    uneven[std::size_t(r)] = g.between(0, left);
    left -= uneven[std::size_t(r)];
  }
  uneven.back() = left;
  out.push_back({"uneven", uneven});
  std::vector<std::int64_t> ends(static_cast<std::size_t>(P), 0);
  const auto mid = cuprim::multi::even_split(n, P - (P > 2 ? 2 : 1));
  for (std::size_t r = 0; r < mid.size(); ++r) ends[r + 1] = mid[r];  // rank 0 empty (and the last, for P > 2)
  out.push_back({"empty-ends", ends});
  std::vector<std::int64_t> one(static_cast<std::size_t>(P), 0);
  one.back() = n;
  out.push_back({"all-on-last", one});
  return out;
}

/// The local ranks' sizes of a layout (every rank's, with one process for all).
inline std::vector<std::int64_t> local_sizes(const cuprim::multi::communicator& c, const layout& l) {
  std::vector<std::int64_t> s;
  for (const auto& r : c.locals()) s.push_back(l.sizes[std::size_t(r.rank)]);
  return s;
}

/// The global array of a layout, and its shards on the communicator's ranks, filled from the host.
template <class T>
struct sharded_input {
  std::vector<T> host;
  cuprim::multi::sharded_buffer<T> dev;
  sharded_input(const cuprim::multi::communicator& c, const layout& l, std::vector<T> values)
      : host(std::move(values)), dev(c, local_sizes(c, l)) {
    cuprim::multi::copy_from_host<T>(c, host, l.sizes, dev.view());
  }
};

// The communicator's streams are non-blocking: nothing on the legacy default stream (cudaMemcpy, cudaMemset) waits
// for them, so these helpers order themselves on the ranks' streams.

/// Each local rank's first out element, read back (after the rank's stream has finished).
template <class T>
std::vector<T> first_elements(const cuprim::multi::communicator& c, cuprim::multi::sharded_buffer<T>& out) {
  std::vector<T> r(std::size_t(c.local_size()));
  for (int i = 0; i < c.local_size(); ++i) {
    cuprim::multi::device_guard g(c[i].device);
    CUPRIM_CUDA_CHECK(cudaMemcpyAsync(&r[std::size_t(i)], out.data(i), sizeof(T), cudaMemcpyDeviceToHost,
                                      c[i].stream));
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(c[i].stream));
  }
  return r;
}

/// Fills every byte of every local shard with 0xAB, ordered on the ranks' streams.
template <class T>
void poison(const cuprim::multi::communicator& c, cuprim::multi::sharded_buffer<T>& b) {
  for (int i = 0; i < c.local_size(); ++i) {
    cuprim::multi::device_guard g(c[i].device);
    CUPRIM_CUDA_CHECK(cudaMemsetAsync(b.data(i), 0xAB, std::size_t(b.size(i)) * sizeof(T), c[i].stream));
  }
}

/// Every local rank's whole shard, read back (after the rank's stream has finished).
template <class T>
std::vector<std::vector<T>> shards_to_host(const cuprim::multi::communicator& c, const cuprim::multi::sharded<T>& s) {
  std::vector<std::vector<T>> r;
  for (int i = 0; i < c.local_size(); ++i) {
    cuprim::multi::device_guard g(c[i].device);
    r.emplace_back(std::size_t(s[i].size));
    if (s[i].size > 0)
      CUPRIM_CUDA_CHECK(cudaMemcpyAsync(r.back().data(), s[i].data, std::size_t(s[i].size) * sizeof(T),
                                        cudaMemcpyDeviceToHost, c[i].stream));
    CUPRIM_CUDA_CHECK(cudaStreamSynchronize(c[i].stream));
  }
  return r;
}

inline const auto ranks_param = ::testing::Values(1, 2, 4);

inline std::string ranks_name(const ::testing::TestParamInfo<int>& info) {
  return std::to_string(info.param) + "ranks";
}

}  // namespace cuprim_test::multi
