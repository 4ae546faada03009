// lab/ladder/scan.cuh: the scan ladder, from the textbook algorithms to the production scan, as selectable, correct
// variants (teaching code: built, tested and measured by the lab, not part of the installed library).
//
//   cuprim::ladder::inclusive_scan(variant, in, out, n, op, identity, stream)
//
// Each rung computes what cuprim::inclusive_scan computes (out[i] = in[0] ⊕ ... ⊕ in[i], accumulated in *out's
// type, any associative operator, commutative or not); they exist to be measured (cuprim-lab run scan/ladder) and
// read. Production code calls cuprim::inclusive_scan, which is the decoupled_lookback rung.
//
//   hillis_steele        seed 000's ScanParallel: log2(n) passes over global memory, one launch per offset,
//                        double-buffered (out[i] = in[i - 2^k] ⊕ in[i]); O(n log n) work, ~3·n·log2(n) elements
//                        of memory traffic
//   blelloch             GPU Gems 3, ch. 39: work-efficient up-sweep/down-sweep in shared memory, 1024 elements
//                        per block (2 per thread), bank-conflict padding; the block sums are scanned recursively
//                        with the same algorithm and added back: ~4 reads/writes per element
//   reduce_then_scan     three passes: per-tile totals (block::reducer), a scan of the totals (one block of
//                        block::scanner, recursing when there are more totals than one tile holds), and per-tile
//                        scans seeded with their prefixes (block::scanner): 3 element transfers per element
//   decoupled_lookback   cuprim::inclusive_scan: single pass with decoupled look-back, 2 transfers per element
//
// The textbook rungs pad partial blocks with `identity`, which must be a two-sided identity of op
// (op(identity, x) == x == op(x, identity)); the decoupled_lookback rung ignores it. out == in (in place) is
// allowed. Workspace comes from the current memory resource. Errors as for cuprim::inclusive_scan:
// cuprim::invalid_argument naming the argument (n < 0, null pointers with n > 0, partial overlap of in and out, an
// unknown variant) before anything runs; cuprim::cuda_error for failed launches.
//
// The seed's block multiscan with a configurable stride (the bank-conflict table) is the lab experiment
// block_multiscan_local below.
#pragma once

#include "common.cuh"
#include "scan_kernels.cuh"

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/memory.hpp>
#include <cuprim/device/scan.cuh>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace cuprim::ladder {

enum class scan_variant { hillis_steele, blelloch, reduce_then_scan, decoupled_lookback };

/// Every rung, in the ladder's order.
inline constexpr std::array<scan_variant, 4> scan_variants = {scan_variant::hillis_steele, scan_variant::blelloch,
                                                              scan_variant::reduce_then_scan,
                                                              scan_variant::decoupled_lookback};

/// The rung's name as the lab prints it.
constexpr std::string_view to_string(scan_variant v) {
  constexpr std::array<std::string_view, 4> names = {"hillis_steele", "blelloch", "reduce_then_scan",
                                                     "decoupled_lookback"};
  return names[static_cast<int>(v)];
}

namespace detail {

/// Number of Hillis-Steele passes: ceil(log2(n)) (0 for n ≤ 1).
inline int hillis_steele_passes(std::uint64_t n) {
  int p = 0;
  while (p < 64 && (std::uint64_t(1) << p) < n) ++p;
  return p;
}

/// Grid of a grid-stride elementwise pass: enough 256-thread blocks to fill the device, no more than n needs.
inline unsigned elementwise_grid(std::uint64_t n) {
  const std::uint64_t fill = std::uint64_t(get_device_info().sm_count > 0 ? get_device_info().sm_count : 1) * 16;
  return static_cast<unsigned>(std::max<std::uint64_t>(1, std::min<std::uint64_t>((n + 255) / 256, fill)));
}

inline unsigned tile_grid(std::uint64_t tiles) { return static_cast<unsigned>(std::min(tiles, max_grid)); }

template <class Acc>
std::size_t hillis_steele_workspace(std::uint64_t n) {
  const int p = hillis_steele_passes(n);
  const std::size_t buffer = align_up(n * sizeof(Acc));
  return p >= 3 ? 2 * buffer : p >= 1 ? buffer : 0;
}

template <class Src, class Dst, class Acc, class Op>
void hillis_steele(const char* fn, const Src* in, Dst* out, std::uint64_t n, Op op, char* ws, cudaStream_t stream) {
  const unsigned grid = elementwise_grid(n);
  const int passes = hillis_steele_passes(n);
  Acc* a = reinterpret_cast<Acc*>(ws);
  Acc* b = reinterpret_cast<Acc*>(ws + align_up(n * sizeof(Acc)));
  const bool aliased = static_cast<const void*>(in) == static_cast<const void*>(out);
  if (passes == 0 || (passes == 1 && !aliased)) {
    // One element (a converting copy), or two elements not in place (one pass straight into out).
    hillis_steele_pass<Src, Dst, Acc><<<grid, 256, 0, stream>>>(in, out, n, passes == 0 ? n : 1, op);
    check_launch(fn);
    return;
  }
  // The first pass reads `in`, the last writes `out`, the others ping-pong between a and b.
  hillis_steele_pass<Src, Acc, Acc><<<grid, 256, 0, stream>>>(in, a, n, 1, op);
  check_launch(fn);
  for (int k = 1; k + 1 < passes; ++k) {
    hillis_steele_pass<Acc, Acc, Acc><<<grid, 256, 0, stream>>>(a, b, n, std::uint64_t(1) << k, op);
    check_launch(fn);
    std::swap(a, b);
  }
  // passes == 1 here only in place: the last step is a copy out of the buffer.
  const std::uint64_t last = passes == 1 ? n : std::uint64_t(1) << (passes - 1);
  hillis_steele_pass<Acc, Dst, Acc><<<grid, 256, 0, stream>>>(a, out, n, last, op);
  check_launch(fn);
}

template <class Acc, class Dst>
std::size_t blelloch_workspace(std::uint64_t n) {
  const std::uint64_t tiles = (n + blelloch::tile - 1) / blelloch::tile;
  if (tiles <= 1) return 0;
  const std::size_t local = std::is_same_v<Dst, Acc> ? 0 : align_up(n * sizeof(Acc));
  return align_up(tiles * sizeof(Acc)) + local + blelloch_workspace<Acc, Acc>(tiles);
}

/// Scan of blocks, then (recursively) of the block sums, then the sums added back. When Dst is not the
/// accumulator, the block scans are kept in an Acc array so that nothing is rounded before the sums are added.
template <class Src, class Dst, class Acc, class Op>
void blelloch_scan(const char* fn, const Src* in, Dst* out, std::uint64_t n, Op op, Acc identity, char* ws,
                   cudaStream_t stream) {
  const std::uint64_t tiles = (n + blelloch::tile - 1) / blelloch::tile;
  if (tiles == 1) {
    blelloch_block<Src, Dst, Acc><<<1, blelloch::threads, 0, stream>>>(in, out, static_cast<Acc*>(nullptr), n, op,
                                                                        identity, 1);
    check_launch(fn);
    return;
  }
  Acc* sums = reinterpret_cast<Acc*>(ws);
  ws += align_up(tiles * sizeof(Acc));
  Acc* local;
  if constexpr (std::is_same_v<Dst, Acc>) {
    local = out;
  } else {
    local = reinterpret_cast<Acc*>(ws);
    ws += align_up(n * sizeof(Acc));
  }
  const unsigned grid = tile_grid(tiles);
  blelloch_block<Src, Acc, Acc><<<grid, blelloch::threads, 0, stream>>>(in, local, sums, n, op, identity, tiles);
  check_launch(fn);
  blelloch_scan<Acc, Acc, Acc>(fn, sums, sums, tiles, op, identity, ws, stream);  // in place
  blelloch_add<Acc, Dst><<<grid, blelloch::threads, 0, stream>>>(local, out, sums, n, op, tiles);
  check_launch(fn);
}

template <class Acc>
std::size_t reduce_then_scan_workspace(std::uint64_t n) {
  const std::uint64_t tiles = (n + rts::tile<Acc> - 1) / rts::tile<Acc>;
  if (tiles <= 1) return 0;
  return align_up(tiles * sizeof(Acc)) + reduce_then_scan_workspace<Acc>(tiles);
}

template <class Src, class Dst, class Acc, class Op>
void reduce_then_scan(const char* fn, const Src* in, Dst* out, std::uint64_t n, Op op, Acc identity, char* ws,
                      cudaStream_t stream) {
  const std::uint64_t tiles = (n + rts::tile<Acc> - 1) / rts::tile<Acc>;
  if (tiles == 1) {
    rts_scan<Src, Dst, Acc><<<1, rts::threads, 0, stream>>>(in, out, n, static_cast<const Acc*>(nullptr), op, identity, 1);
    check_launch(fn);
    return;
  }
  Acc* sums = reinterpret_cast<Acc*>(ws);
  ws += align_up(tiles * sizeof(Acc));
  const unsigned grid = tile_grid(tiles);
  rts_reduce<Src, Acc><<<grid, rts::threads, 0, stream>>>(in, n, sums, op, identity, tiles);
  check_launch(fn);
  reduce_then_scan<Acc, Acc, Acc>(fn, sums, sums, tiles, op, identity, ws, stream);  // in place: inclusive
  rts_scan<Src, Dst, Acc><<<grid, rts::threads, 0, stream>>>(in, out, n, static_cast<const Acc*>(sums), op, identity,
                                                             tiles);
  check_launch(fn);
}

}  // namespace detail

/// The seed's block multiscan over independent blocks (see detail::block_multiscan_local_kernel): out gets, for
/// every block of `block_threads` consecutive elements, the block's own inclusive sum scan. `stride` is the
/// distance in elements between the warps' rows in shared memory: 32 (the warp totals all in one bank) or 33
/// (padded: no conflict). block_threads: 256, 512 or 1024. A lab experiment (the bank-conflict table); T: the lab
/// instantiates int32. out == in is allowed.
template <class T>
void block_multiscan_local(const T* in, T* out, std::int64_t n, int stride, int block_threads, cudaStream_t stream = 0) {
  using namespace cuprim::detail;
  CUPRIM_ENTRY_NAME(fn);
  scan_validate(fn, in, out, n);
  if (stride != 32 && stride != 33) throw_invalid(fn, "stride", "must be 32 or 33");
  if (block_threads != 256 && block_threads != 512 && block_threads != 1024)
    throw_invalid(fn, "block_threads", "must be 256, 512 or 1024");
  check_no_pending_error(fn);
  if (n == 0) return;
  const std::uint64_t blocks = (std::uint64_t(n) + block_threads - 1) / block_threads;
  const unsigned grid = detail::tile_grid(blocks);
  const std::uint64_t un = std::uint64_t(n);
  namespace L = cuprim::ladder::detail;
  switch (block_threads * 100 + stride) {
    case 25632: L::block_multiscan_local_kernel<256, 32><<<grid, 256, 0, stream>>>(in, out, un, plus{}, blocks); break;
    case 25633: L::block_multiscan_local_kernel<256, 33><<<grid, 256, 0, stream>>>(in, out, un, plus{}, blocks); break;
    case 51232: L::block_multiscan_local_kernel<512, 32><<<grid, 512, 0, stream>>>(in, out, un, plus{}, blocks); break;
    case 51233: L::block_multiscan_local_kernel<512, 33><<<grid, 512, 0, stream>>>(in, out, un, plus{}, blocks); break;
    case 102432: L::block_multiscan_local_kernel<1024, 32><<<grid, 1024, 0, stream>>>(in, out, un, plus{}, blocks); break;
    default: L::block_multiscan_local_kernel<1024, 33><<<grid, 1024, 0, stream>>>(in, out, un, plus{}, blocks); break;
  }
  check_launch(fn);
}

/// out[i] = in[0] ⊕ ... ⊕ in[i] computed by the ladder's rung `variant`. `identity` (converted to *out's
/// accumulator type) pads the textbook rungs' partial blocks; see the header comment.
template <class In, class Out, class Op, class T>
void inclusive_scan(scan_variant variant, const In* in, Out* out, std::int64_t n, Op op, T identity,
                    cudaStream_t stream = 0) {
  using namespace cuprim::detail;
  CUPRIM_ENTRY_NAME(fn);
  using Acc = accumulator_t<Out>;
  scan_validate(fn, in, out, n);
  if (static_cast<unsigned>(variant) >= scan_variants.size()) throw_invalid(fn, "variant", "is not a scan_variant");
  check_no_pending_error(fn);
  if (variant == scan_variant::decoupled_lookback) {
    cuprim::inclusive_scan(in, out, n, op, stream);
    return;
  }
  if (n == 0) return;
  const std::uint64_t un = std::uint64_t(n);
  const Acc id = convert<Acc>(identity);
  namespace L = cuprim::ladder::detail;
  switch (variant) {
    case scan_variant::hillis_steele: {
      scratch ws(L::hillis_steele_workspace<Acc>(un), stream);
      L::hillis_steele<In, Out, Acc>(fn, in, out, un, op, static_cast<char*>(ws.get().data), stream);
      break;
    }
    case scan_variant::blelloch: {
      scratch ws(L::blelloch_workspace<Acc, Out>(un), stream);
      L::blelloch_scan<In, Out, Acc>(fn, in, out, un, op, id, static_cast<char*>(ws.get().data), stream);
      break;
    }
    default: {
      scratch ws(L::reduce_then_scan_workspace<Acc>(un), stream);
      L::reduce_then_scan<In, Out, Acc>(fn, in, out, un, op, id, static_cast<char*>(ws.get().data), stream);
      break;
    }
  }
}

}  // namespace cuprim::ladder
