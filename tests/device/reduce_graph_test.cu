// CUDA-graph capture of the reductions' explicit-workspace overloads (reduce, transform_reduce): captured with
// allocations forbidden, launched twice on fresh inputs, checked against cuprim::host (tests/common/graph.hpp).
// Sizes: empty (one launch writing init), under one tile (one block writes the result), and many tiles (a grid
// of partials, then the final block as a dependent launch).
//
// ReduceAsync: every asynchronous entry point of the family (reduce, transform_reduce, each allocating and with a
// workspace; sum, min, max, argmin, argmax) returns before a kernel queued ahead of it on its stream has finished,
// and its work runs behind that kernel (tests/common/stream_gate.hpp). reduce_sync waits by its name.
#include <cuprim/device/reduce.cuh>
#include <cuprim/host/reduce.hpp>

#include "common/graph.hpp"
#include "common/stream_gate.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
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

// ---- asynchrony: each entry point returns while the stream is held up ahead of it

constexpr std::int64_t async_sizes[] = {5000, (1 << 20) + 3};

template <class T>
void expect_same(const T& got, const T& want) {
  EXPECT_EQ(got, want);
}
template <class T>
void expect_same(const cuprim::arg_result<T>& got, const cuprim::arg_result<T>& want) {
  EXPECT_EQ(got.value, want.value);
  EXPECT_EQ(got.index, want.index);
}

class ReduceAsync : public async_test {
protected:
  /// expect_async of call(in, out, n, ws, stream) over n fresh values of T (ws: ws_bytes(n) bytes) writing one R,
  /// at every size, against want(in, n).
  template <class T, class R, class Sizer, class Call, class Want>
  void check(const std::string& entry, Sizer ws_bytes, Call call, Want want) {
    CUPRIM_TEST_RNG(r);
    for (std::int64_t n : async_sizes) {
      SCOPED_TRACE("n = " + std::to_string(n));
      auto in = buffer<T>(n);
      auto out = buffer<R>(1);
      graph_workspace ws(ws_bytes(n), stream_);
      std::vector<T> h;
      expect_async(
          entry,
          [&](staged_uploads& up) {
            h = up.random(r, in);
            out.fill_bytes(poison_byte);
            ws.poison();
          },
          [&](cudaStream_t s) { call(in.data(), out.data(), n, ws.get(), s); },
          [&] {
            const R got = out.to_host_sync()[0];
            const R expected = want(h.data(), n);
            expect_same(got, expected);
          });
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }
};

TEST_F(ReduceAsync, Reduce) {
  check<std::uint32_t, std::uint32_t>(
      "cuprim::reduce", no_workspace,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::reduce(in, out, n, cuprim::plus{}, 7u, s);
      },
      [](const std::uint32_t* in, std::int64_t n) { return cuprim::host::reduce(in, n, cuprim::plus{}, 7u); });
}

TEST_F(ReduceAsync, ReduceWorkspace) {
  check<std::uint32_t, std::uint32_t>(
      "cuprim::reduce (workspace)", [](std::int64_t n) { return cuprim::reduce_workspace_bytes<std::uint32_t>(n); },
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::reduce(in, out, n, cuprim::plus{}, 7u, ws, s);
      },
      [](const std::uint32_t* in, std::int64_t n) { return cuprim::host::reduce(in, n, cuprim::plus{}, 7u); });
}

TEST_F(ReduceAsync, TransformReduce) {
  check<std::uint32_t, std::uint64_t>(
      "cuprim::transform_reduce", no_workspace,
      [](const std::uint32_t* in, std::uint64_t* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::transform_reduce(in, out, n, square_wide{}, cuprim::plus{}, std::uint64_t(11), s);
      },
      [](const std::uint32_t* in, std::int64_t n) {
        return cuprim::host::transform_reduce(in, n, square_wide{}, cuprim::plus{}, std::uint64_t(11));
      });
}

TEST_F(ReduceAsync, TransformReduceWorkspace) {
  check<std::uint32_t, std::uint64_t>(
      "cuprim::transform_reduce (workspace)",
      [](std::int64_t n) { return cuprim::reduce_workspace_bytes<std::uint64_t>(n); },
      [](const std::uint32_t* in, std::uint64_t* out, std::int64_t n, cuprim::workspace ws, cudaStream_t s) {
        cuprim::transform_reduce(in, out, n, square_wide{}, cuprim::plus{}, std::uint64_t(11), ws, s);
      },
      [](const std::uint32_t* in, std::int64_t n) {
        return cuprim::host::transform_reduce(in, n, square_wide{}, cuprim::plus{}, std::uint64_t(11));
      });
}

TEST_F(ReduceAsync, Sum) {
  check<std::uint32_t, std::uint32_t>(
      "cuprim::sum", no_workspace,
      [](const std::uint32_t* in, std::uint32_t* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::sum(in, out, n, s);
      },
      [](const std::uint32_t* in, std::int64_t n) { return cuprim::host::reduce(in, n, cuprim::plus{}, 0u); });
}

TEST_F(ReduceAsync, MinFloat) {
  check<float, float>(
      "cuprim::min", no_workspace,
      [](const float* in, float* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::min(in, out, n, s);
      },
      [](const float* in, std::int64_t n) { return reference_extreme<false>(in, std::size_t(n)); });
}

TEST_F(ReduceAsync, MaxFloat) {
  check<float, float>(
      "cuprim::max", no_workspace,
      [](const float* in, float* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::max(in, out, n, s);
      },
      [](const float* in, std::int64_t n) { return reference_extreme<true>(in, std::size_t(n)); });
}

TEST_F(ReduceAsync, ArgminFloat) {
  check<float, cuprim::arg_result<float>>(
      "cuprim::argmin", no_workspace,
      [](const float* in, cuprim::arg_result<float>* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::argmin(in, out, n, s);
      },
      [](const float* in, std::int64_t n) { return cuprim::host::argmin(in, n); });
}

TEST_F(ReduceAsync, ArgmaxFloat) {
  check<float, cuprim::arg_result<float>>(
      "cuprim::argmax", no_workspace,
      [](const float* in, cuprim::arg_result<float>* out, std::int64_t n, cuprim::workspace, cudaStream_t s) {
        cuprim::argmax(in, out, n, s);
      },
      [](const float* in, std::int64_t n) { return cuprim::host::argmax(in, n); });
}

}  // namespace
}  // namespace cuprim_test
