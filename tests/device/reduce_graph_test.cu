// CUDA-graph capture of the reductions' explicit-workspace overloads (reduce, transform_reduce): captured with
// allocations forbidden, launched twice on fresh inputs, checked against cuprim::host (tests/common/graph.hpp).
// Sizes: empty (one launch writing init), under one tile (one block writes the result), and many tiles (a grid
// of partials, then the final block as a dependent launch).
#include <cuprim/device/reduce.cuh>
#include <cuprim/host/reduce.hpp>

#include "common/graph.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace cuprim_test {
namespace {

class ReduceGraph : public graph_test {
protected:
  /// Captures reduce(in, out, n, op, init, ws) and checks each launch against host::reduce.
  template <class T, class Op>
  void check_reduce(Op op, T init) {
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : {0, 1, 5000, (1 << 20) + 3}) {
      SCOPED_TRACE("n = " + std::to_string(n));
      auto in = buffer<T>(n);
      auto out = buffer<T>(1);
      graph_workspace ws(cuprim::reduce_workspace_bytes<T>(n), stream_);
      std::vector<T> h;
      replay(
          ws, [&](cudaStream_t s) { cuprim::reduce(in.data(), out.data(), n, op, init, ws.get(), s); },
          [&] {
            h = refill(r, in);
            out.fill_bytes(poison_byte);
          },
          [&] { EXPECT_EQ(out.to_host_sync()[0], cuprim::host::reduce(h.data(), n, op, init)); });
    }
  }
};

TEST_F(ReduceGraph, SumUint32) { check_reduce<std::uint32_t>(cuprim::plus{}, 7u); }

TEST_F(ReduceGraph, MaxFloat) { check_reduce<float>(cuprim::maximum{}, -1e30f); }

/// x -> x², widened to 64 bits.
struct square_wide {
  CUPRIM_HD std::uint64_t operator()(std::uint32_t x) const { return std::uint64_t(x) * x; }
};

TEST_F(ReduceGraph, TransformReduceSquaresUint32ToUint64) {
  CUPRIM_TEST_RNG(r);
  for (std::int64_t n : {1, 5000, (1 << 20) + 3}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto in = buffer<std::uint32_t>(n);
    auto out = buffer<std::uint64_t>(1);
    graph_workspace ws(cuprim::reduce_workspace_bytes<std::uint64_t>(n), stream_);
    std::vector<std::uint32_t> h;
    const std::uint64_t init = 11;
    replay(
        ws,
        [&](cudaStream_t s) {
          cuprim::transform_reduce(in.data(), out.data(), n, square_wide{}, cuprim::plus{}, init, ws.get(), s);
        },
        [&] {
          h = refill(r, in);
          out.fill_bytes(poison_byte);
        },
        [&] {
          EXPECT_EQ(out.to_host_sync()[0], cuprim::host::transform_reduce(h.data(), n, square_wide{}, cuprim::plus{},
                                                                          init));
        });
  }
}

}  // namespace
}  // namespace cuprim_test
