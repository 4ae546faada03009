// cuprim/ooc/tuning.hpp: the out-of-core pipeline's policy and its table.
//
// The defaults of every out-of-core call (chunk size, streams, issue order, staging threads) follow from two rates
// measured with `cuprim-lab transfer` and `cuprim-lab ooc` (docs/ooc.md, docs/tuning/ooc.md): the page-locked H2D
// rate R, and the fixed cost t0 of one chunk (issuing its copies, launches and events, one in-core call's setup). A
// chunk of B bytes loses t0 / (t0 + B/R) of the rate; B = R × t0 / f keeps the loss under f (default_chunk_bytes).
// Filling and draining the pipeline costs about (stages - 1) chunk times once per call, which is why small inputs
// get smaller chunks (make_plan cuts them into chunks_per_stream chunks per stream, never under min_chunk_bytes).
// Streams: three stages (H2D, kernel, D2H) need three chunks in flight for 3-way overlap; staging through
// page-locked buffers adds a host stage (fill / drain), hence four.
//
// Every field can be overridden per call through ooc::options (chunk_bytes, streams, order, host_threads).
#pragma once

#include <cuprim/core/policy.hpp>

#include <cstddef>

namespace cuprim::ooc {

/// The order in which the pipeline issues the copies and kernels of the chunks in flight.
enum class issue_order {
  automatic,  ///< the policy's order (ooc_policy::order)
  by_chunk,   ///< per stream: H2D, kernel, D2H of one chunk, then the next chunk (depth first)
  by_stage,   ///< per group of `streams` chunks: all H2D copies, then all kernels, then all D2H copies
};

/// The out-of-core pipeline's defaults.
struct ooc_policy {
  static constexpr const char* name = "ooc_policy";
  double h2d_gbps = 55.0;                               ///< R: the page-locked H2D rate chunks are sized for (GB/s)
  double chunk_overhead_us = 4.0;                       ///< t0: the fixed cost of one chunk (µs)
  double overhead_fraction = 0.0025;                    ///< f: the share of R one chunk's t0 may cost
  std::size_t min_chunk_bytes = std::size_t(1) << 20;   ///< small inputs: no default chunk below this
  int chunks_per_stream = 4;                            ///< small inputs: at least this many chunks per stream
  int streams_pinned = 3;                               ///< streams when no array is staged (H2D, kernel, D2H)
  int streams_staged = 4;                               ///< streams when staging adds a host stage
  int host_threads = 8;                                 ///< most staging threads (and at most half the cores)
  issue_order order = issue_order::by_stage;            ///< what issue_order::automatic means: by_chunk or by_stage

  friend constexpr bool operator==(const ooc_policy&, const ooc_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("h2d_gbps", h2d_gbps);
    f("chunk_overhead_us", chunk_overhead_us);
    f("overhead_fraction", overhead_fraction);
    f("min_chunk_bytes", min_chunk_bytes);
    f("chunks_per_stream", chunks_per_stream);
    f("streams_pinned", streams_pinned);
    f("streams_staged", streams_staged);
    f("host_threads", host_threads);
    f("order", order == issue_order::by_stage ? "by_stage" : "by_chunk");
  }
};

/// The table: the out-of-core policy on a device of tuned architecture `arch` (the rates are those of the host
/// link the device was measured on).
constexpr ooc_policy ooc_policy_for(int arch) {
  (void)arch;  // sm_90 rows serve every architecture until another is measured
  // sm_90: H100 PCIe Gen5 x16, `cuprim-lab ooc` 8 GiB uint32: reduce 100.1% of pinned H2D, scan by_stage 1.02x by_chunk
  return {.h2d_gbps = 55.0,
          .chunk_overhead_us = 4.0,
          .overhead_fraction = 0.0025,
          .min_chunk_bytes = std::size_t(1) << 20,
          .chunks_per_stream = 4,
          .streams_pinned = 3,
          .streams_staged = 4,
          .host_threads = 8,
          .order = issue_order::by_stage};
}

/// The default chunk: the power of two nearest to R × t0 / f (64 MiB for the sm_90 row).
constexpr std::size_t default_chunk_bytes(const ooc_policy& p) {
  const double b = p.h2d_gbps * 1e9 * p.chunk_overhead_us * 1e-6 / p.overhead_fraction;
  std::size_t c = 1;
  while (double(c) * 1.5 < b) c <<= 1;
  return c;
}

}  // namespace cuprim::ooc
