// lab/scan.cu: the scan family: production cuprim::inclusive_scan / exclusive_scan against CUB, and the scan
// ladder (Hillis-Steele, Blelloch, reduce-then-scan, decoupled look-back). The seed's warp-scan, bank-conflict
// and ballot tables are in scan_kernels.cu.
#include "scan_common.cuh"

#include <cuprim/device/scan.cuh>
#include <cuprim/device/scan_ladder.cuh>

#include <string>

namespace lab {
namespace {

using namespace scan_family;

/// scan/inclusive_sum/<T>/<n>: cuprim::inclusive_scan with plus and its explicit workspace, against CUB.
template <class T>
void add_inclusive_sum(std::int64_t n, bool quick) {
  add_case(device_case<T, cub_scan::inclusive_sum>(
      "scan/inclusive_sum/" + std::string(name_of<T>()) + "/" + size_label(n), "inclusive_sum", "production", n, quick,
      [](const T* in, T* out, std::int64_t m, cuprim::workspace ws, cudaStream_t s) {
        cuprim::inclusive_scan(in, out, m, cuprim::plus{}, ws, s);
      },
      whole_sum_check<T>()));
}

/// scan/exclusive_sum/<T>/<n>: cuprim::exclusive_scan with plus, init 0 and its explicit workspace, against CUB.
template <class T>
void add_exclusive_sum(std::int64_t n, bool quick) {
  add_case(device_case<T, cub_scan::exclusive_sum>(
      "scan/exclusive_sum/" + std::string(name_of<T>()) + "/" + size_label(n), "exclusive_sum", "production", n, quick,
      [](const T* in, T* out, std::int64_t m, cuprim::workspace ws, cudaStream_t s) {
        cuprim::exclusive_scan(in, out, m, cuprim::plus{}, T(0), ws, s);
      },
      whole_sum_check<T, true>()));
}

/// Every rung of the scan ladder (inclusive sum), each against CUB on the same input.
template <class T>
void add_ladder(std::int64_t n, bool quick) {
  for (cuprim::scan_variant v : cuprim::scan_variants) {
    const std::string rung(cuprim::to_string(v));
    add_case(device_case<T, cub_scan::inclusive_sum>(
        "scan/ladder/" + rung + "/" + name_of<T>() + "/" + size_label(n), "inclusive_sum", rung, n, quick,
        [v](const T* in, T* out, std::int64_t m, cuprim::workspace, cudaStream_t s) {
          cuprim::inclusive_scan_ladder(v, in, out, m, cuprim::plus{}, T(0), s);
        },
        whole_sum_check<T>()));
  }
}

template <class P>
std::string policy_text() {
  return "threads=" + std::to_string(P::threads) + " vec=" + std::to_string(P::vector_bytes) +
         "B vectors=" + std::to_string(P::vectors) + " tile=" +
         std::to_string(cuprim::detail::scan_tile_elems<P, std::uint32_t>()) + " (4-byte elements)";
}

}  // namespace

void register_scan() {
  // Production: the headline sizes for uint32 and float (2^20 and 2^28 in the quick suite), exclusive (full).
  for (int k : {10, 16, 20, 28}) add_inclusive_sum<std::uint32_t>(pow2(k), k == 20 || k == 28);
  for (int k : {10, 16, 20, 28}) add_inclusive_sum<float>(pow2(k), k == 20 || k == 28);
  add_exclusive_sum<std::uint32_t>(pow2(28), false);

  // The ladder: uint32 at 2^24 (quick) and 2^28 (full).
  add_ladder<std::uint32_t>(pow2(24), true);
  add_ladder<std::uint32_t>(pow2(28), false);

  add_note("scan/", "scan policy (production rows): " +
                        policy_text<cuprim::scan_default_policy<std::uint32_t>::type>() +
                        "; cuprim and CUB use workspace allocated once before timing; GB/s counts one read and one "
                        "write per element");
  add_note("scan/", "scan: float results are checked against a double-precision sequential scan with tolerance "
                    "eps * prefix * (2 log2(i+1) + sqrt(i+1) + 16); integer results bitwise");
  add_note("scan/ladder/", "scan/ladder: each rung is cuprim::inclusive_scan_ladder, which takes its workspace from "
                           "cuprim's pool inside the timed call (decoupled_lookback is cuprim::inclusive_scan)");
}

}  // namespace lab
