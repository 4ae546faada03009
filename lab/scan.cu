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

/// scan/policy/<label>/<T>/<n>: cuprim::inclusive_scan under an explicit policy (a pipeline shape, or the
/// one-tile-per-block kernel alone), against CUB: the sweep behind the default policy.
template <class T, class P>
void add_policy_row(const std::string& label, std::int64_t n, bool quick) {
  add_case(device_case<T, cub_scan::inclusive_sum>(
      "scan/policy/" + label + "/" + std::string(name_of<T>()) + "/" + size_label(n), "inclusive_sum", label, n, quick,
      [](const T* in, T* out, std::int64_t m, cuprim::workspace ws, cudaStream_t s) {
        cuprim::inclusive_scan<P>(in, out, m, cuprim::plus{}, ws, s);
      },
      whole_sum_check<T>(), cuprim::scan_workspace_bytes<T, T, P>(n)));
}

template <class P>
std::string policy_text() {
  using C = cuprim::detail::classic_scan_policy_t<P>;
  std::string t = "threads=" + std::to_string(C::threads) + " vec=" + std::to_string(C::vector_bytes) +
                  "B vectors=" + std::to_string(C::vectors) + " tile=" +
                  std::to_string(cuprim::detail::scan_tile_elems<P, std::uint32_t>()) + " (4-byte elements)";
  using S = cuprim::detail::small_scan_policy_t<P>;
  if constexpr (!std::is_void_v<S>)
    t += "; up to " + std::to_string(P::small_max) + " elements threads=" + std::to_string(S::threads) +
         " vectors=" + std::to_string(S::vectors) + " tile=" +
         std::to_string(cuprim::detail::scan_tile_elems<S, std::uint32_t>());
  if constexpr (cuprim::detail::is_scan_pipeline<P>::value)
    t += "; from " + std::to_string(P::min_elems) + " elements the pipeline: " + std::to_string(P::scan_warps) +
         " scan warps x " + std::to_string(P::lane_vectors) + " vectors per lane, " + std::to_string(P::stages) +
         " stages, tile " + std::to_string(cuprim::detail::scan_pipeline_tile_elems<P, std::uint32_t>()) +
         ", back-off " + std::to_string(P::first_wait_ns) + "/" + std::to_string(P::poll_wait_ns) + " ns";
  return t;
}

template <class T>
void add_policy_sweep(std::int64_t n) {
  using C = cuprim::scan_policy<128, 16, 6>;
  constexpr long long all = 0;
  add_policy_row<T, C>("classic 128x6", n, false);
  // <scan warps, vectors per lane, stages, fallback, min elems, first wait, poll wait> (docs/tuning.md "Scan")
  add_policy_row<T, cuprim::scan_pipeline_policy<8, 7, 3, C, all, 1200, 650>>("pipe 8w7v3s w1200/650", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<8, 7, 6, C, all, 400, 200>>("pipe 8w7v6s w400/200", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<8, 7, 6, C, all, 1200, 650>>("pipe 8w7v6s w1200/650", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<8, 9, 5, C, all, 400, 200>>("pipe 8w9v5s w400/200", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<8, 9, 5, C, all, 800, 400>>("pipe 8w9v5s w800/400", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<8, 9, 6, C, all, 400, 200>>("pipe 8w9v6s w400/200", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<10, 7, 5, C, all, 400, 200>>("pipe 10w7v5s w400/200", n, false);
  // Two or three blocks per SM with larger tiles than the production shape's.
  add_policy_row<T, cuprim::scan_pipeline_policy<8, 9, 3, C, all, 1200, 650>>("pipe 8w9v3s w1200/650", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<8, 9, 3, C, all, 800, 400>>("pipe 8w9v3s w800/400", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<10, 7, 3, C, all, 1200, 650>>("pipe 10w7v3s w1200/650", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<8, 5, 3, C, all, 1200, 650>>("pipe 8w5v3s w1200/650", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<6, 7, 3, C, all, 1200, 650>>("pipe 6w7v3s w1200/650", n, false);
  // Two stages of larger tiles, two or three blocks per SM.
  add_policy_row<T, cuprim::scan_pipeline_policy<8, 9, 2, C, all, 1200, 650>>("pipe 8w9v2s w1200/650", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<8, 13, 2, C, all, 1200, 650>>("pipe 8w13v2s w1200/650", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<12, 9, 2, C, all, 1200, 650>>("pipe 12w9v2s w1200/650", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<16, 7, 2, C, all, 1200, 650>>("pipe 16w7v2s w1200/650", n, false);
  add_policy_row<T, cuprim::scan_pipeline_policy<8, 9, 3, C, all, 1600, 800>>("pipe 8w9v3s w1600/800", n, false);
}

/// One-tile-per-block shapes at middle sizes: a larger tile means fewer tiles, so a shorter chain of published
/// prefixes (the ordered fold of floating-point scans folds one tile after another).
template <class T>
void add_tile_sweep(std::int64_t n) {
  add_policy_row<T, cuprim::scan_policy<128, 16, 6>>("classic 128x6", n, false);
  add_policy_row<T, cuprim::scan_policy<128, 16, 12>>("classic 128x12", n, false);
  add_policy_row<T, cuprim::scan_policy<128, 16, 16>>("classic 128x16", n, false);
  add_policy_row<T, cuprim::scan_policy<512, 16, 4>>("classic 512x4", n, false);
  add_policy_row<T, cuprim::scan_policy<256, 16, 16>>("classic 256x16", n, false);
}
}  // namespace

void register_scan() {
  // Production: the headline sizes for uint32 and float (all four in the quick suite: the issue's targets),
  // 2^13 and 2^15 (the cluster kernel with one and four blocks), exclusive (full).
  for (int k : {10, 16, 20, 28}) add_inclusive_sum<std::uint32_t>(pow2(k), true);
  for (int k : {10, 16, 20, 28}) add_inclusive_sum<float>(pow2(k), true);
  for (int k : {13, 15}) add_inclusive_sum<std::uint32_t>(pow2(k), false);
  for (int k : {13, 15}) add_inclusive_sum<float>(pow2(k), false);
  add_exclusive_sum<std::uint32_t>(pow2(28), false);
  for (int k : {22, 24}) add_inclusive_sum<std::uint32_t>(pow2(k), false);
  for (int k : {22, 24}) add_inclusive_sum<float>(pow2(k), false);
  add_inclusive_sum<double>(pow2(27), false);

  // The policy sweep (full suite): pipeline shapes and back-off against the one-tile-per-block kernel.
  add_policy_sweep<std::uint32_t>(pow2(28));
  add_policy_sweep<float>(pow2(28));
  // One tile per block: tile shapes from 2^16 to 2^22 elements, and where the pipeline takes over.
  for (int k : {16, 18, 20, 21, 22}) {
    add_tile_sweep<std::uint32_t>(pow2(k));
    add_tile_sweep<float>(pow2(k));
  }
  for (int k : {21, 22, 23, 24}) {
    using C = cuprim::scan_policy<128, 16, 16>;
    using pipe = cuprim::scan_pipeline_policy<8, 7, 3, C, 0, 1200, 650>;
    if (k > 22) add_policy_row<std::uint32_t, C>("classic 128x16", pow2(k), false);
    if (k > 22) add_policy_row<float, C>("classic 128x16", pow2(k), false);
    add_policy_row<std::uint32_t, pipe>("pipe 8w7v3s w1200/650", pow2(k), false);
    add_policy_row<float, pipe>("pipe 8w7v3s w1200/650", pow2(k), false);
  }
  // The grouped look-back instead of the strict left fold of tiles (floating point).
  for (int k : {20, 22, 24})
    add_policy_row<float, cuprim::scan_policy<128, 16, 6, 1200, 650, 1, 0, true>>("classic 128x6 grouped", pow2(k),
                                                                                 false);

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
