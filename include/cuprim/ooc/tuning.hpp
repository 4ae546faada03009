// cuprim/ooc/tuning.hpp: the measured constants behind the out-of-core pipeline's defaults.
//
// The chunk size follows from two measured rates (cuprim-lab transfer / cuprim-lab ooc; bench/results/h100-*.json,
// docs/ooc.md):
//   - the page-locked H2D rate R: 54.4 GB/s on an H100 (PCIe Gen5 x16), reached from about 4-16 MiB per copy up;
//   - the fixed cost t0 of one chunk (issuing its copies, launches and events, one in-core call's setup): the
//     chunk-size sweep of the 8 GiB reduction (4 MiB chunks: 0.1655 s, 16 MiB: 0.1594 s, 64 MiB: 0.1582 s)
//     gives 3-4 µs per chunk.
// A chunk of B bytes loses t0 / (t0 + B/R) of the rate; B = R × t0 / f keeps the loss under f. With R = 55 GB/s,
// t0 = 4 µs and f = 0.25 %, B = 88 MB: chunk_bytes() returns the nearest power of two, 64 MiB (measured 99.8 % of
// the H2D rate over 8 GiB). Filling and draining the pipeline costs about (stages - 1) chunk times once per call,
// which is why small inputs get smaller chunks (make_plan cuts them into at least 4 chunks per stream, never under
// min_chunk_bytes).
//
// Streams: three stages (H2D, kernel, D2H) need three chunks in flight for 3-way overlap; staging through
// page-locked buffers adds a host stage (fill / drain), hence four.
#pragma once

#include <cstddef>

namespace cuprim::ooc {
/// The order in which the pipeline issues the copies and kernels of the chunks in flight.
enum class issue_order {
  automatic,  ///< the measured default (tuning::default_order)
  by_chunk,   ///< per stream: H2D, kernel, D2H of one chunk, then the next chunk (depth first)
  by_stage,   ///< per group of `streams` chunks: all H2D copies, then all kernels, then all D2H copies
};
}  // namespace cuprim::ooc

namespace cuprim::ooc::tuning {

inline constexpr double h2d_gbps = 55.0;          ///< page-locked H2D rate (measured 54.4 GB/s, H100)
inline constexpr double chunk_overhead_us = 4.0;  ///< fixed cost of one chunk (measured 3-4 µs, H100)
inline constexpr double overhead_fraction = 0.0025;  ///< accepted loss per chunk
inline constexpr int streams_pinned = 3;
inline constexpr int streams_staged = 4;
inline constexpr unsigned max_host_threads = 8;
inline constexpr std::size_t min_chunk_bytes = std::size_t(1) << 20;
/// Device bytes per element reserved for the in-core calls' workspaces (scan/select tile states: a few bytes
/// per tile of thousands of elements; 1 byte per element is a generous bound).
inline constexpr std::size_t workspace_bytes_per_elem = 1;
/// Page-locked staging kept cached between calls (allocating it costs more than copying through it: see
/// docs/ooc.md).
inline constexpr std::size_t staging_cache_bytes = std::size_t(1) << 30;

/// The default chunk: the power of two nearest to R × t0 / f.
constexpr std::size_t chunk_bytes() {
  const double b = h2d_gbps * 1e9 * chunk_overhead_us * 1e-6 / overhead_fraction;
  std::size_t p = 1;
  while (double(p) * 1.5 < b) p <<= 1;
  return p;
}

/// The default issue order. Measured on an H100 over 8 GiB (bench/results/h100-ooc.json): inclusive scan
/// pinned → pinned 0.1797 s by stage vs 0.1835 s by chunk; reduction 0.1581 s vs 0.1578 s (equal within noise).
/// Breadth first wins where all three stages are busy.
inline constexpr issue_order default_order = issue_order::by_stage;

}  // namespace cuprim::ooc::tuning
