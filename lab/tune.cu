// lab/tune.cu: `cuprim-lab tune <family>`, the auto-tuner (docs/tuning/README.md, "Auto-tuning").
//
// For each element type and tuning size it searches the family's compiled candidates (the recipe's legal points
// that the library instantiates, device/detail/<family>_tuning.cuh) on this GPU: every candidate it times is first
// verified against the host reference; timing is the lab's (L2-cold rotated inputs, warm-up, median of the timed
// calls, CUB interleaved call by call, the copy ceiling measured first). lab/tune_search.hpp orders the candidates
// by the recipe's performance model and searches locally around the fastest. The winners go into the tuning cache
// (core/tuning.hpp) with their size buckets; `--held-out` then measures sizes between the tuned ones exhaustively
// and reports what the cache's choice and the compiled default reach against the exhaustive best.
//
// The lab is compiled with CUPRIM_USE_TUNING_CACHE=0, so its tuned rows are the compiled table's, whatever cache the
// machine holds; the tuner times candidates by their explicit policies and looks its cache up through the library.
#include "scan_common.cuh"
#include "tune_common.hpp"
#include "tune_search.hpp"

#include <cuprim/core/tuning.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace lab {

namespace {

using namespace scan_family;

constexpr const char* tune_usage =
    "usage: cuprim-lab tune scan [--types T,...] [--sizes N,...] [--held-out N,...] [--budget MINUTES]\n"
    "                            [--exhaustive] [--out FILE] [--no-write] [--json FILE] [--reps N]\n"
    "       cuprim-lab tune gemm [options below]\n"
    "\n"
    "families: scan (the device-wide scans), gemm (the 16-bit tensor-core GEMM)\n"
    "\n"
    "scan:\n"
    "  --types      element types (default float,uint32,double)\n"
    "  --sizes      tuning sizes: 2^k, a*2^k or a number (default 2^20,2^22,2^24,2^26,2^28)\n"
    "  --held-out   sizes not tuned, measured exhaustively after tuning: the cache's choice and the compiled\n"
    "               default against the best candidate\n"
    "  --budget     minutes for the search (default 10): no new candidate is timed after it\n"
    "  --exhaustive time every candidate at every tuning size (default: model-ordered local search)\n"
    "  --out        the cache file to merge the winners into (default: the library's path, core/tuning.hpp)\n"
    "  --no-write   do not write the cache (the held-out rows then use an in-memory copy)\n"
    "  --json       write every measurement as JSON (scripts/tuning_rows.py turns it into table rows)\n"
    "  --reps       timed calls per candidate (default: the lab's default for the size)\n";

struct tune_options {
  std::string family;
  std::vector<std::string> types{"float", "uint32", "double"};
  std::vector<std::int64_t> sizes{1ll << 20, 1ll << 22, 1ll << 24, 1ll << 26, 1ll << 28};
  std::vector<std::int64_t> held_out;
  double budget_min = 10;
  bool exhaustive = false;
  std::string out;
  bool write = true;
  std::string json;
  int reps = 0;
};

[[noreturn]] void tune_usage_error(const std::string& m) {
  std::fprintf(stderr, "cuprim-lab tune: %s\n\n%s", m.c_str(), tune_usage_text());
  std::exit(2);
}

/// "2^22", "3*2^21" or "3x2^21", or a plain number.
std::int64_t parse_size(const std::string& s) {
  std::int64_t mult = 1;
  std::string rest = s;
  const std::size_t star = s.find_first_of("*x");
  if (star != std::string::npos && s.find('^') != std::string::npos) {
    mult = std::atoll(s.substr(0, star).c_str());
    rest = s.substr(star + 1);
  }
  std::int64_t v = 0;
  if (rest.rfind("2^", 0) == 0) {
    const int k = std::atoi(rest.c_str() + 2);
    if (k < 0 || k > 34 || mult > (std::int64_t(1) << 20)) tune_usage_error("size '" + s + "' out of range");
    v = mult * (std::int64_t(1) << k);
  } else {
    char* end = nullptr;
    v = std::strtoll(rest.c_str(), &end, 10);
    if (end == rest.c_str() || *end) tune_usage_error("cannot read size '" + s + "'");
  }
  if (v < 1 || mult < 1) tune_usage_error("size '" + s + "' must be positive");
  return v;
}

tune_options parse_tune(int argc, char** argv) {
  tune_options o;
  if (argc < 3 || argv[2][0] == '-') tune_usage_error("tune needs a family (e.g. 'tune scan')");
  o.family = argv[2];
  if (o.family != "scan") tune_usage_error("no recipe for family '" + o.family + "' (tunable: scan, gemm)");
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) tune_usage_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--types") o.types = tune::split(value());
    else if (a == "--sizes") {
      o.sizes.clear();
      for (const auto& s : tune::split(value())) o.sizes.push_back(parse_size(s));
    } else if (a == "--held-out") {
      for (const auto& s : tune::split(value())) o.held_out.push_back(parse_size(s));
    } else if (a == "--budget") {
      o.budget_min = std::atof(value().c_str());
      if (!(o.budget_min > 0)) tune_usage_error("--budget needs a positive number of minutes");
    } else if (a == "--exhaustive") o.exhaustive = true;
    else if (a == "--out") o.out = value();
    else if (a == "--no-write") o.write = false;
    else if (a == "--json") o.json = value();
    else if (a == "--reps") {
      o.reps = std::atoi(value().c_str());
      if (o.reps < 1) tune_usage_error("--reps needs a positive number");
    } else tune_usage_error("unknown option '" + a + "'");
  }
  for (const auto& t : o.types)
    if (t != "float" && t != "uint32" && t != "double")
      tune_usage_error("type '" + t + "' is not tuned (float, uint32, double)");
  if (o.sizes.empty()) tune_usage_error("--sizes needs at least one size");
  for (std::int64_t h : o.held_out)
    if (std::find(o.sizes.begin(), o.sizes.end(), h) != o.sizes.end())
      tune_usage_error("held-out size " + size_label(h) + " is also a tuning size");
  std::sort(o.sizes.begin(), o.sizes.end());
  o.sizes.erase(std::unique(o.sizes.begin(), o.sizes.end()), o.sizes.end());
  return o;
}

// ---------------------------------------------------------------------------------------------------------
// A candidate as the tuner runs it

struct candidate {
  std::string label;  ///< "pipe 8w9v3s w1200/650", "classic 128x16"
  cuprim::scan_pipeline_policy policy;
  std::string policy_name;
  cuprim::tuning::policy_fields fields;
  std::string policy_json;
  tune::point pt;      ///< coordinates in scan_recipe's axes (none for the one-tile-per-block kernel)
  std::function<case_def(std::int64_t)> make;  ///< the case that times it at n
  bool is_default = false;
};

/// One timed candidate: its median and CUB's in the same run.
struct measurement {
  double ms = std::numeric_limits<double>::infinity();
  double cub_ms = 0;
  std::string error;
};

template <class T, auto P>
case_def scan_case(const std::string& label, std::int64_t n) {
  case_def c = device_case<T, cub_scan::inclusive_sum>(
      "tune/scan/" + std::string(name_of<T>()) + "/" + size_label(n), "inclusive_sum", label, n, false,
      [](const T* in, T* out, std::int64_t m, cuprim::workspace ws, cudaStream_t s) {
        cuprim::inclusive_scan<P>(in, out, m, cuprim::plus{}, ws, s);
      },
      whole_sum_check<T>(), cuprim::scan_workspace_bytes<T, T, P>(n));
  return c;
}

template <class Axis, std::size_t N>
int index_in(const Axis (&axis)[N], Axis v) {
  for (std::size_t i = 0; i < N; ++i)
    if (axis[i] == v) return int(i);
  return -1;
}

template <class T>
std::vector<candidate> scan_candidate_list() {
  std::vector<candidate> out;
  constexpr auto cands = cuprim::scan_candidates<T>();
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          constexpr cuprim::scan_pipeline_policy p = cands[I];
          candidate c;
          const bool pipe = p.pipeline.min_elems != std::numeric_limits<long long>::max();
          if (pipe) {
            const auto& q = p.pipeline;
            c.label = "pipe " + std::to_string(q.scan_warps) + "w" + std::to_string(q.lane_vectors) + "v" +
                      std::to_string(q.stages) + "s w" + std::to_string(q.first_wait_ns) + "/" +
                      std::to_string(q.poll_wait_ns);
            int wi = -1;
            for (std::size_t k = 0; k < std::size(cuprim::scan_recipe::waits); ++k)
              if (cuprim::scan_recipe::waits[k][0] == q.first_wait_ns) wi = int(k);
            c.pt.coord = {index_in(cuprim::scan_recipe::scan_warps, q.scan_warps),
                          index_in(cuprim::scan_recipe::lane_vectors, q.lane_vectors),
                          index_in(cuprim::scan_recipe::stages, q.stages), wi};
          } else {
            c.label = "classic " + std::to_string(p.classic.threads) + "x" + std::to_string(p.classic.vectors);
          }
          c.policy = p;
          c.policy_name = cuprim::scan_pipeline_policy::name;
          c.fields = cuprim::tuning::flatten(p);
          c.policy_json = cuprim::to_json(p);
          c.make = [label = c.label](std::int64_t n) {
            return scan_case<T, cuprim::scan_candidates<T>()[I]>(label, n);
          };
          out.push_back(std::move(c));
        }(),
        ...);
  }(std::make_index_sequence<cands.size()>{});
  // The compiled default (the table's row), timed after each size's search in the same process and on the same input.
  candidate d;
  d.label = "default (table row)";
  d.is_default = true;
  constexpr auto row = cuprim::scan_policy_for<T>(90);
  d.policy = row;
  d.policy_name = cuprim::scan_pipeline_policy::name;
  d.fields = cuprim::tuning::flatten(row);
  d.policy_json = cuprim::to_json(row);
  d.make = [](std::int64_t n) { return scan_case<T, row>("default", n); };
  out.push_back(std::move(d));
  return out;
}

/// The model's predicted time of candidate c at n (pipeline points: cuprim::pipeline_model; the one-tile-per-block
/// kernel: 8% above the copy plus its tail, from the sweeps' ratios).
template <class T>
double model_of(const candidate& c, std::int64_t n, int sms) {
  if (c.pt.coord.empty()) return 1.08 + double(sms) * 2 * 8192 / double(std::max<std::int64_t>(n, 1));
  return cuprim::pipeline_model(c.policy.pipeline, n, int(sizeof(T)), sms);
}

measurement measure(const candidate& c, std::int64_t n, int reps_opt, cudaStream_t stream) {
  measurement m;
  try {
    const case_def cd = c.make(n);
    bench b = cd.setup();
    const verify_result v = b.verify();
    if (!v.ok || !v.baseline_ok) {
      m.error = "verification failed: " + v.detail;
      return m;
    }
    const int reps = case_reps(cd, reps_opt);
    const pair_timing t = time_device(b, reps, std::max(3, reps / 10), stream);
    m.ms = t.main.median_ms;
    m.cub_ms = t.base ? t.base->median_ms : 0;
  } catch (const std::exception& e) {
    m.error = e.what();
  }
  return m;
}

/// What one size's search or exhaustive measurement found, for the report.
struct size_result {
  std::string type;
  std::int64_t n = 0;
  bool held_out = false;
  std::vector<measurement> per;  ///< per candidate (the default last); untimed: ms NaN
  int best = -1, runner_up = -1, cached = -1;
  int timed = 0;
  double default_ms = 0;
};

template <class T>
void tune_type(const tune_options& o, cudaStream_t stream, int sms, double copy_gbps, double budget_end_s,
               const std::chrono::steady_clock::time_point start, std::vector<size_result>& results,
               cuprim::tuning::cache_section& section) {
  const std::vector<candidate> cands = scan_candidate_list<T>();
  const int nc = int(cands.size()) - 1;  // the last is the default row, timed beside them, never a winner
  const std::string tname = name_of<T>();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };

  auto one_size = [&](std::int64_t n, bool held_out) {
    size_result r;
    r.type = tname;
    r.n = n;
    r.held_out = held_out;
    r.per.assign(cands.size(), measurement{std::numeric_limits<double>::quiet_NaN(), 0, ""});
    std::vector<tune::point> pts;
    for (int i = 0; i < nc; ++i) {
      tune::point p = cands[std::size_t(i)].pt;
      p.model = model_of<T>(cands[std::size_t(i)], n, sms);
      pts.push_back(p);
    }
    tune::options so;
    so.exhaustive = o.exhaustive || held_out;
    so.budget_s = held_out ? std::numeric_limits<double>::infinity() : std::max(0.0, budget_end_s - elapsed());
    const std::string what = "scan " + tname + " " + size_label(n) + (held_out ? " (held out)" : "");
    std::fprintf(stderr, "%s: %d candidates%s\n", what.c_str(), nc, so.exhaustive ? ", exhaustive" : "");
    const tune::outcome out = tune::search(
        pts, so,
        [&](int i) {
          const measurement m = measure(cands[std::size_t(i)], n, o.reps, stream);
          r.per[std::size_t(i)] = m;
          if (!m.error.empty())
            std::fprintf(stderr, "\n  %s: %s\n", cands[std::size_t(i)].label.c_str(), m.error.c_str());
          return m.error.empty() ? m.ms : std::numeric_limits<double>::infinity();
        },
        [&](int done, int planned, double el) { tune::progress_line(what, done, planned, el); });
    if (isatty(2)) std::fprintf(stderr, "\n");
    r.per.back() = measure(cands.back(), n, o.reps, stream);
    r.default_ms = r.per.back().ms;
    r.best = out.best;
    r.runner_up = out.runner_up;
    r.timed = int(out.order.size());
    if (out.budget_spent) std::fprintf(stderr, "  the budget ended the search at %s\n", size_label(n).c_str());
    // The table of this size.
    std::printf("\nscan %s n=%s%s (copy ceiling %.0f GB/s)\n", tname.c_str(), size_label(n).c_str(),
                held_out ? " held out" : "", copy_gbps);
    std::printf("  %-26s %10s %8s %7s %9s %s\n", "candidate", "median_ms", "GB/s", "%copy", "vs CUB", "");
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const measurement& m = r.per[i];
      if (std::isnan(m.ms)) {
        std::printf("  %-26s %10s\n", cands[i].label.c_str(), "-");
        continue;
      }
      if (!m.error.empty()) {
        std::printf("  %-26s %10s  %s\n", cands[i].label.c_str(), "FAIL", m.error.c_str());
        continue;
      }
      const double gbps = 2.0 * double(n) * sizeof(T) / (m.ms * 1e6);
      std::printf("  %-26s %10.4f %8.0f %6.1f%% %8.3fx %s\n", cands[i].label.c_str(), m.ms, gbps,
                  100 * gbps / copy_gbps, m.cub_ms > 0 ? m.cub_ms / m.ms : 0.0,
                  int(i) == r.best ? "<- best" : int(i) == r.runner_up ? "<- runner-up" : "");
    }
    if (r.best >= 0 && r.default_ms > 0)
      std::printf("  best %s: %.3fx the default; %d of %d candidates timed\n", cands[std::size_t(r.best)].label.c_str(),
                  r.default_ms / r.per[std::size_t(r.best)].ms, r.timed, nc);
    return r;
  };

  // Tuning sizes; each answers for the sizes up to the geometric midpoints with its neighbours (the first from
  // half its size, the last without an upper end).
  for (std::size_t k = 0; k < o.sizes.size(); ++k) {
    size_result r = one_size(o.sizes[k], false);
    // The winner where it beat the compiled default in this run; elsewhere a "default" entry (the table's row
    // decides), which replaces what an earlier run (of an earlier row) left in the bucket.
    if (r.best >= 0) {
      const bool wins = r.per[std::size_t(r.best)].ms < r.default_ms;
      const candidate& b = cands[std::size_t(r.best)];
      cuprim::tuning::cache_entry e;
      e.op = "scan";
      e.types = cuprim::tuning::type_name<T>();
      e.alignment = 16;
      e.size_min = k == 0 ? o.sizes[0] / 2 : std::int64_t(std::sqrt(double(o.sizes[k - 1]) * double(o.sizes[k]))) + 1;
      e.size_max = k + 1 == o.sizes.size() ? std::numeric_limits<std::int64_t>::max()
                                            : std::int64_t(std::sqrt(double(o.sizes[k]) * double(o.sizes[k + 1])));
      e.policy_name = wins ? b.policy_name : "default";
      if (wins) e.policy = b.fields;
      e.time_ms = r.per[std::size_t(r.best)].ms;
      e.default_ms = r.default_ms;
      if (r.runner_up >= 0) {
        e.runner_up_ms = r.per[std::size_t(r.runner_up)].ms;
        e.runner_up_name = cands[std::size_t(r.runner_up)].policy_name;
        e.runner_up = cands[std::size_t(r.runner_up)].fields;
      }
      section.entries.push_back(std::move(e));
    }
    results.push_back(std::move(r));
  }
  // Held-out sizes: every candidate, and the cache's choice as the library looks it up.
  for (std::int64_t n : o.held_out) {
    size_result r = one_size(n, true);
    std::optional<cuprim::tuning::cache_entry> e;
    if (o.write) {
      e = cuprim::tuning::lookup("scan", cuprim::tuning::type_name<T>(), "", 16, n);
    } else {
      const cuprim::tuning::cache_file mem{{section}};  // the library's rule, on the entries not written
      if (const auto* x = cuprim::tuning::detail::find_entry(mem, section.key, "scan", cuprim::tuning::type_name<T>(),
                                                             "", 16, n))
        e = *x;
    }
    if (e)
      for (int i = 0; i < nc; ++i)
        if (cands[std::size_t(i)].fields == e->policy) r.cached = i;
    if (r.best >= 0) {
      const double best = r.per[std::size_t(r.best)].ms;
      std::printf("  held out %s %s: cached choice %s %.3fx the best; compiled default %.3fx the best\n",
                  tname.c_str(), size_label(n).c_str(),
                  r.cached >= 0 ? cands[std::size_t(r.cached)].label.c_str() : "(none: the default)",
                  r.cached >= 0 ? best / r.per[std::size_t(r.cached)].ms : best / r.default_ms, best / r.default_ms);
    }
    results.push_back(std::move(r));
  }
}

bool write_report(const std::string& path, const environment& env, const cuprim::tuning::cache_key& key,
                  const tune_options& o, const std::vector<size_result>& results,
                  const std::vector<std::vector<candidate>>& lists) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cuprim-lab tune: cannot write %s\n", path.c_str());
    return false;
  }
  const auto q = [](const std::string& v) { return json_string(v); };
  std::fprintf(f, "{\n  \"family\": %s,\n  \"gpu\": %s, \"sms\": %d, \"cc\": %d, \"driver\": %d, \"runtime\": %d,\n",
               q(o.family).c_str(), q(key.gpu).c_str(), key.sms, key.cc, key.driver, key.runtime);
  std::fprintf(f, "  \"cuprim\": %s, \"commit\": %s, \"tree\": %s, \"changes\": %s,\n", q(key.cuprim).c_str(),
               q(env.commit).c_str(), q(env.tree).c_str(), q(env.changes).c_str());
  std::fprintf(f, "  \"copy_ceiling_gbps\": %s, \"exhaustive\": %s,\n  \"results\": [\n",
               json_number(env.copy_ceiling_gbps).c_str(), o.exhaustive ? "true" : "false");
  for (std::size_t k = 0; k < results.size(); ++k) {
    const size_result& r = results[k];
    const auto& cands = lists[std::size_t(std::find(o.types.begin(), o.types.end(), r.type) - o.types.begin())];
    std::fprintf(f, "    {\"type\": %s, \"n\": %lld, \"held_out\": %s, \"best\": %d, \"runner_up\": %d, \"cached\": %d,"
                 " \"timed\": %d, \"default_ms\": %s,\n     \"candidates\": [\n",
                 q(r.type).c_str(), (long long)r.n, r.held_out ? "true" : "false", r.best, r.runner_up, r.cached,
                 r.timed, json_number(r.default_ms).c_str());
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const measurement& m = r.per[i];
      std::fprintf(f, "       {\"label\": %s, \"default\": %s, \"ms\": %s, \"cub_ms\": %s, \"policy\": %s}%s\n",
                   q(cands[i].label).c_str(), cands[i].is_default ? "true" : "false", json_number(m.ms).c_str(),
                   json_number(m.cub_ms).c_str(), cands[i].policy_json.c_str(), i + 1 < cands.size() ? "," : "");
    }
    std::fprintf(f, "     ]}%s\n", k + 1 < results.size() ? "," : "");
  }
  std::fprintf(f, "  ]\n}\n");
  return std::fclose(f) == 0;
}

}  // namespace

const char* tune_usage_text() {
  static const std::string text = std::string(tune_usage) + "\n" + tune_gemm_usage;
  return text.c_str();
}

int run_tune(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[2]) == "gemm") return run_tune_gemm(argc, argv);
  const tune_options o = parse_tune(argc, argv);
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  environment env = record_environment(true);
  std::fprintf(stderr, "measuring the copy ceiling ...");
  env.copy_ceiling_gbps = measure_copy_ceiling(stream);
  std::fprintf(stderr, " %.1f GB/s\n", env.copy_ceiling_gbps);
  const cuprim::tuning::cache_key key = cuprim::tuning::current_key();
  std::printf("cuprim-lab tune %s on %s (%d SMs, cc %d, driver %d, runtime %d), commit %s (%s), copy %.0f GB/s\n",
              o.family.c_str(), key.gpu.c_str(), key.sms, key.cc, key.driver, key.runtime, env.commit.c_str(),
              env.changes.c_str(), env.copy_ceiling_gbps);

  const auto start = std::chrono::steady_clock::now();
  const double budget_end = o.budget_min * 60;
  std::vector<size_result> results;
  cuprim::tuning::cache_section section;
  section.key = key;
  std::vector<std::vector<candidate>> lists;
  const std::string out = o.out.empty() ? cuprim::tuning::cache_path() : o.out;
  if (o.write && out.empty()) {
    std::fprintf(stderr, "cuprim-lab tune: the tuning cache is turned off (CUPRIM_TUNING_CACHE is empty); use --out "
                         "or --no-write\n");
    return 1;
  }
  // Held-out rows look the cache up through the library: point it at the file written below.
  auto tune_all = [&](bool held) {
    for (const auto& t : o.types) {
      tune_options one = o;
      if (held) one.sizes.clear();
      else one.held_out.clear();
      if (held && o.held_out.empty()) continue;
      const auto run = [&]<class T>() {
        tune_type<T>(one, stream, key.sms, env.copy_ceiling_gbps, budget_end, start, results, section);
      };
      if (t == "float") run.template operator()<float>();
      if (t == "uint32") run.template operator()<std::uint32_t>();
      if (t == "double") run.template operator()<double>();
    }
  };
  for (const auto& t : o.types) {
    if (t == "float") lists.push_back(scan_candidate_list<float>());
    if (t == "uint32") lists.push_back(scan_candidate_list<std::uint32_t>());
    if (t == "double") lists.push_back(scan_candidate_list<double>());
  }
  tune_all(false);
  if (!o.json.empty() && !write_report(o.json, env, key, o, results, lists)) return 1;  // kept if the merge fails
  if (o.write) {
    cuprim::tuning::merge_into_file(out, section);
    std::printf("\nwrote %zu entries to %s\n", section.entries.size(), out.c_str());
    setenv("CUPRIM_TUNING_CACHE", out.c_str(), 1);
    cuprim::tuning::reset();
  }
  tune_all(true);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\ntuning took %.1f s (budget %.1f min)\n", took, o.budget_min);
  if (!o.json.empty() && !write_report(o.json, env, key, o, results, lists)) return 1;
  release_inputs();
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return 0;
}

}  // namespace lab
