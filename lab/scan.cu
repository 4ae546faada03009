// lab/scan.cu: the scan family: production cuprim::inclusive_scan / exclusive_scan against CUB, the scan ladder
// (Hillis-Steele, Blelloch, reduce-then-scan, decoupled look-back), and the policy sweep (`cuprim-lab sweep scan`):
// pipeline shapes and back-off, one-tile-per-block shapes from 2^16 to 2^24, and scans whose output is wider than
// the input. The seed's warp-scan, bank-conflict and ballot tables are in scan_kernels.cu.
#include "scan_common.cuh"

#include "ladder/scan.cuh"

#include <cuprim/device/scan.cuh>

#include <string>

namespace lab {
namespace {

using namespace scan_family;

/// The policy a scan of T runs on the current device (the pipeline policy with its fallbacks, for arithmetic types).
template <class T>
policy_record tuned_scan_policy() {
  return record_policy(cuprim::scan_policy_for<T>(cuprim::current_tuned_arch()));
}

/// scan/inclusive_sum/<T>/<n>: cuprim::inclusive_scan with plus and its explicit workspace, against CUB.
template <class T>
void add_inclusive_sum(std::int64_t n, bool quick) {
  case_def c = device_case<T, cub_scan::inclusive_sum>(
      "scan/inclusive_sum/" + std::string(name_of<T>()) + "/" + size_label(n), "inclusive_sum", "production", n, quick,
      [](const T* in, T* out, std::int64_t m, cuprim::workspace ws, cudaStream_t s) {
        cuprim::inclusive_scan(in, out, m, cuprim::plus{}, ws, s);
      },
      whole_sum_check<T>());
  c.policy = tuned_scan_policy<T>;
  add_case(std::move(c));
}

/// scan/exclusive_sum/<T>/<n>: cuprim::exclusive_scan with plus, init 0 and its explicit workspace, against CUB.
template <class T>
void add_exclusive_sum(std::int64_t n, bool quick) {
  case_def c = device_case<T, cub_scan::exclusive_sum>(
      "scan/exclusive_sum/" + std::string(name_of<T>()) + "/" + size_label(n), "exclusive_sum", "production", n, quick,
      [](const T* in, T* out, std::int64_t m, cuprim::workspace ws, cudaStream_t s) {
        cuprim::exclusive_scan(in, out, m, cuprim::plus{}, T(0), ws, s);
      },
      whole_sum_check<T, true>());
  c.policy = tuned_scan_policy<T>;
  add_case(std::move(c));
}

/// Every rung of the scan ladder (inclusive sum), each against CUB on the same input.
template <class T>
void add_ladder(std::int64_t n, bool quick) {
  for (cuprim::ladder::scan_variant v : cuprim::ladder::scan_variants) {
    const std::string rung(cuprim::ladder::to_string(v));
    add_case(device_case<T, cub_scan::inclusive_sum>(
        "scan/ladder/" + rung + "/" + name_of<T>() + "/" + size_label(n), "inclusive_sum", rung, n, quick,
        [v](const T* in, T* out, std::int64_t m, cuprim::workspace, cudaStream_t s) {
          cuprim::ladder::inclusive_scan(v, in, out, m, cuprim::plus{}, T(0), s);
        },
        whole_sum_check<T>()));
  }
}

// ---------------------------------------------------------------------------------------------------------
// The policy sweep

/// scan/sweep/<key>/<T>/<n>: cuprim::inclusive_scan under policy P (a pipeline shape, or the one-tile-per-block
/// kernel alone), against CUB; `label` is the row's variant ("pipe 8w9v3s w1200/650", "classic 128x6").
template <class T, auto P>
void add_sweep(const std::string& key, const std::string& label, std::int64_t n) {
  case_def c = device_case<T, cub_scan::inclusive_sum>(
      "scan/sweep/" + key + "/" + std::string(name_of<T>()) + "/" + size_label(n), "inclusive_sum", label, n, false,
      [](const T* in, T* out, std::int64_t m, cuprim::workspace ws, cudaStream_t s) {
        cuprim::inclusive_scan<P>(in, out, m, cuprim::plus{}, ws, s);
      },
      whole_sum_check<T>(), cuprim::scan_workspace_bytes<T, T, P>(n));
  c.sweep = true;
  c.policy = [] { return record_policy(P); };
  add_case(std::move(c));
}

/// One tile per block: threads x vectors of 16 bytes (the look-back's back-off as in scan_policy's defaults).
constexpr cuprim::scan_policy classic(int threads, int vectors) {
  return {.threads = threads, .vector_bytes = 16, .vectors = vectors};
}

template <class T, int Threads, int Vectors>
void add_classic(std::int64_t n) {
  const std::string shape = std::to_string(Threads) + "x" + std::to_string(Vectors);
  add_sweep<T, classic(Threads, Vectors)>("classic-" + shape, "classic " + shape, n);
}

/// The pipeline taking every size (min_elems 0): w scan warps x k vectors per lane, s stages, back-off first/poll
/// ns, falling back to one tile per block of `fallback` where it cannot run.
constexpr cuprim::scan_pipeline_policy pipe(int w, int k, int s, int first, int poll, cuprim::scan_policy fallback) {
  return {.pipeline = {.scan_warps = w, .lane_vectors = k, .stages = s, .min_elems = 0,
                       .first_wait_ns = unsigned(first), .poll_wait_ns = unsigned(poll)},
          .classic = fallback};
}

template <class T, int W, int K, int S, int First, int Poll, cuprim::scan_policy Fallback = classic(128, 6)>
void add_pipe(std::int64_t n) {
  const std::string shape = std::to_string(W) + "w" + std::to_string(K) + "v" + std::to_string(S) + "s";
  const std::string waits = std::to_string(First) + "/" + std::to_string(Poll);
  add_sweep<T, pipe(W, K, S, First, Poll, Fallback)>("pipe-" + shape + "-" + std::to_string(First) + "-" +
                                                         std::to_string(Poll),
                                                     "pipe " + shape + " w" + waits, n);
}

/// Pipeline shapes and back-off against the one-tile-per-block kernel (docs/tuning/scan.md).
template <class T>
void add_pipeline_sweep(std::int64_t n) {
  add_classic<T, 128, 6>(n);
  add_pipe<T, 8, 7, 3, 1200, 650>(n);
  add_pipe<T, 8, 7, 6, 400, 200>(n);
  add_pipe<T, 8, 7, 6, 1200, 650>(n);
  add_pipe<T, 8, 9, 5, 400, 200>(n);
  add_pipe<T, 8, 9, 5, 800, 400>(n);
  add_pipe<T, 8, 9, 6, 400, 200>(n);
  add_pipe<T, 10, 7, 5, 400, 200>(n);
  // Two or three blocks per SM with larger tiles than the production shape's.
  add_pipe<T, 8, 9, 3, 1200, 650>(n);
  add_pipe<T, 8, 9, 3, 800, 400>(n);
  add_pipe<T, 10, 7, 3, 1200, 650>(n);
  add_pipe<T, 8, 5, 3, 1200, 650>(n);
  add_pipe<T, 6, 7, 3, 1200, 650>(n);
  // Two stages of larger tiles, two or three blocks per SM.
  add_pipe<T, 8, 9, 2, 1200, 650>(n);
  add_pipe<T, 8, 13, 2, 1200, 650>(n);
  add_pipe<T, 12, 9, 2, 1200, 650>(n);
  add_pipe<T, 16, 7, 2, 1200, 650>(n);
  add_pipe<T, 8, 9, 3, 1600, 800>(n);
}

/// One-tile-per-block shapes at middle sizes: a larger tile means fewer tiles, so a shorter chain of published
/// prefixes (the ordered fold of floating-point scans folds one tile after another).
template <class T>
void add_tile_sweep(std::int64_t n) {
  add_classic<T, 128, 6>(n);
  add_classic<T, 128, 12>(n);
  add_classic<T, 128, 16>(n);
  add_classic<T, 512, 4>(n);
  add_classic<T, 256, 16>(n);
}

// ---------------------------------------------------------------------------------------------------------
// Outputs wider than the input (the sweep's mixed rows): the tuned policy against one-tile-per-block shapes,
// inclusive (and one exclusive row), no baseline (CUB accumulates in the input's type)

/// The reference of a scan of In into Out: double sums for floating point, integers summed in 64 bits and
/// converted (wrapping, as the device's Out arithmetic does).
template <class In, class Out>
std::vector<ref_t<Out>> widened_reference(const input_set& in, bool exclusive) {
  using R = ref_t<Out>;
  using S = std::conditional_t<std::is_floating_point_v<Out>, double, std::uint64_t>;
  std::vector<R> v(static_cast<std::size_t>(in.n));
  const In* x = in.host<In>().data();
  S s{};
  for (std::int64_t i = 0; i < in.n; ++i) {
    if (exclusive) v[std::size_t(i)] = static_cast<R>(s);
    if constexpr (std::is_floating_point_v<Out>) s += static_cast<double>(x[i]);
    else s += static_cast<std::uint64_t>(static_cast<std::int64_t>(x[i]));
    if (!exclusive) v[std::size_t(i)] = static_cast<R>(s);
  }
  return v;
}

template <class In, class Out, auto P, bool Exclusive>
void add_widened(const std::string& key, const std::string& label, std::int64_t n) {
  const std::string pair = std::string(name_of<In>()) + "-" + name_of<Out>();
  case_def c;
  c.name = "scan/sweep/widened/" + key + "/" + pair + "/" + size_label(n);
  c.family = "scan";
  c.op = Exclusive ? "exclusive_sum" : "inclusive_sum";
  c.variant = label + " " + pair;
  c.dtype = name_of<In>();
  c.n = n;
  c.bytes = double(n) * double(sizeof(In) + sizeof(Out));
  c.sweep = true;
  c.policy = [] {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(P)>, cuprim::tuned_t>) return tuned_scan_policy<In>();
    else return record_policy(P);
  };
  c.setup = [n]() -> bench {
    struct state {
      std::shared_ptr<const input_set> in;
      device_memory out, ws;
    };
    auto st = std::make_shared<state>();
    st->in = random_input(dtype_v<In>, n);
    st->out = device_memory(std::size_t(n) * sizeof(Out));
    st->ws = device_memory(cuprim::scan_workspace_bytes<In, Out, P>(n));
    bench b;
    b.input_slices = st->in->slices;
    b.run = [st](cudaStream_t s, int rep) {
      const cuprim::workspace ws{st->ws.get(), st->ws.bytes()};
      if constexpr (Exclusive)
        cuprim::exclusive_scan<P>(st->in->template slice<In>(rep), st->out.template as<Out>(), st->in->n,
                                  cuprim::plus{}, Out(0), ws, s);
      else
        cuprim::inclusive_scan<P>(st->in->template slice<In>(rep), st->out.template as<Out>(), st->in->n,
                                  cuprim::plus{}, ws, s);
    };
    b.verify = [st, run = b.run]() {
      st->out.poison();
      st->ws.poison();
      run(0, 0);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (verify)");
      const auto ref = widened_reference<In, Out>(*st->in, Exclusive);
      verify_result v;
      v.detail = compare_scan(to_host(st->out.template as<Out>(), std::size_t(st->in->n)).data(), ref.data(),
                              st->in->n);
      v.ok = v.detail.empty();
      return v;
    };
    return b;
  };
  add_case(std::move(c));
}

template <class In, class Out>
void add_widened_sweep(std::int64_t n) {
  add_widened<In, Out, cuprim::tuned, false>("tuned", "tuned", n);
  add_widened<In, Out, classic(128, 2), false>("classic-128x2", "classic 128x2", n);
  add_widened<In, Out, classic(128, 4), false>("classic-128x4", "classic 128x4", n);
  add_widened<In, Out, classic(128, 6), false>("classic-128x6", "classic 128x6", n);
  add_widened<In, Out, classic(128, 8), false>("classic-128x8", "classic 128x8", n);
  add_widened<In, Out, classic(256, 4), false>("classic-256x4", "classic 256x4", n);
  add_widened<In, Out, classic(512, 4), false>("classic-512x4", "classic 512x4 (strided stores)", n);
  add_widened<In, Out, classic(128, 4), true>("exclusive-classic-128x4", "exclusive classic 128x4", n);
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

  // The sweep: pipeline shapes and back-off against the one-tile-per-block kernel at 2^28; one tile per block
  // from 2^16 to 2^22 elements, and where the pipeline takes over; outputs wider than the input.
  add_pipeline_sweep<std::uint32_t>(pow2(28));
  add_pipeline_sweep<float>(pow2(28));
  for (int k : {16, 18, 20, 21, 22}) {
    add_tile_sweep<std::uint32_t>(pow2(k));
    add_tile_sweep<float>(pow2(k));
  }
  for (int k : {21, 22, 23, 24}) {
    if (k > 22) add_classic<std::uint32_t, 128, 16>(pow2(k));
    if (k > 22) add_classic<float, 128, 16>(pow2(k));
    add_pipe<std::uint32_t, 8, 7, 3, 1200, 650, classic(128, 16)>(pow2(k));
    add_pipe<float, 8, 7, 3, 1200, 650, classic(128, 16)>(pow2(k));
  }
  for (int k : {20, 24, 27}) {
    add_widened_sweep<std::uint32_t, std::uint64_t>(pow2(k));
    add_widened_sweep<float, double>(pow2(k));
    add_widened_sweep<std::uint8_t, std::int32_t>(pow2(k));
    add_widened_sweep<std::int8_t, std::int64_t>(pow2(k));
  }

  // The ladder: uint32 at 2^24 (quick) and 2^28 (full).
  add_ladder<std::uint32_t>(pow2(24), true);
  add_ladder<std::uint32_t>(pow2(28), false);

  add_note("scan/", "scan: cuprim and CUB use workspace allocated once before timing; GB/s counts one read and one "
                    "write per element");
  add_note("scan/", "scan: float results are checked against a double-precision sequential scan with tolerance "
                    "eps * prefix * (2 log2(i+1) + sqrt(i+1) + 16); integer results bitwise");
  add_note("scan/sweep/", "scan sweep rows: pipe WwKvSs wF/P = W scan warps x K 16-byte vectors per lane, S stages, "
                          "look-back back-off F/P ns (taking every size, falling back to one tile per block of "
                          "classic TxV = T threads x V 16-byte vectors); widened rows scan into a wider output (no "
                          "baseline: CUB accumulates in the input's type)");
  add_note("scan/ladder/", "scan/ladder: each rung is cuprim::ladder::inclusive_scan (lab/ladder/scan.cuh), which "
                           "takes its workspace from cuprim's pool inside the timed call (decoupled_lookback is "
                           "cuprim::inclusive_scan)");
}

}  // namespace lab
