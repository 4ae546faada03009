// lab/main.cu: the cuprim-lab command line (list, run, verify, sweep; the transfer and ooc studies; tune).
#include "lab.hpp"

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>

#include <fnmatch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

constexpr const char* usage_text =
    "usage: cuprim-lab <command> [pattern...] [options]\n"
    "\n"
    "commands:\n"
    "  list   [pattern...]                                list the registered cases\n"
    "  run    [pattern...] [--quick|--full] [--json FILE] [--reps N] [--placements P]\n"
    "                                                     verify, then time the cases; table on stdout\n"
    "  verify [pattern...] [--quick|--full]               verify only: PASS/FAIL per case\n"
    "  sweep  <family> [pattern...] [--json FILE] [--reps N] [--placements P]\n"
    "                                                     a family's policy sweep: its default policy beside\n"
    "                                                     the named alternatives (e.g. 'sweep reduce')\n"
    "  transfer [--json FILE] [--min-bytes N] [--max-bytes N]\n"
    "                                                     host-memory transfer study (lab/transfer.cu)\n"
    "  ooc    [--gib G] [--reps N] [--json FILE]          out-of-core rows beside their bandwidth references\n"
    "  --help                                             this text\n"
    "\n"
    "patterns: a glob (*, ?, [...]) matched against the whole case name, otherwise a substring of it,\n"
    "  e.g. 'reduce/sum/*/2^28', 'ladder', 'reduce/sweep'. Without patterns run and verify take the quick\n"
    "  suite (the default, --quick) or every case but the sweeps' (--full); with patterns they take every\n"
    "  matching case (with --quick, only those in the quick suite).\n"
    "\n"
    "options:\n"
    "  --quick          the headline cases (default; about a minute on an H100)\n"
    "  --full           every case: all types, the ladder at 2^28 (the policy sweeps: 'sweep <family>')\n"
    "  --json FILE      also write the results as JSON\n"
    "  --reps N         timed repetitions per case (default: the case's own count where it sets one, else\n"
    "                   200 up to 2^20 elements, 50 up to 2^24, 20 above)\n"
    "  --placements P   time each case in P placements of its buffers in physical memory and report the\n"
    "                   means (default: 9 for the sorts from 2^26 keys, 1 for the rest; docs/lab.md)\n"
    "\n"
    "Each case is verified against the cuprim::host references on its random input before it is timed; a\n"
    "failure marks the row FAIL and makes the exit status 1. Without a CUDA device, run and verify use the\n"
    "sequential host references (CPU timings) instead.\n";

constexpr const char* no_device_sentence =
    "No CUDA device found: running the sequential host reference implementations with CPU timings instead.";

enum class suite { unspecified, quick, full };

struct options {
  std::string command;
  std::vector<std::string> patterns;
  suite which = suite::unspecified;
  std::string json;
  int reps = 0;
  int placements = 0;  // 0: each case's own
  std::string family;  // sweep: the family whose sweep rows run
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "cuprim-lab: %s\n\n%s", message.c_str(), usage_text);
  std::exit(2);
}

options parse(int argc, char** argv) {
  options o;
  if (argc < 2) usage_error("no command given");
  o.command = argv[1];
  if (o.command == "--help" || o.command == "-h" || o.command == "help") {
    o.command = "help";
    return o;
  }
  if (o.command != "list" && o.command != "run" && o.command != "verify" && o.command != "sweep")
    usage_error("unknown command '" + o.command + "'");
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const std::string& flag) -> std::string {
      if (a.size() > flag.size() && a.compare(0, flag.size() + 1, flag + "=") == 0) return a.substr(flag.size() + 1);
      if (i + 1 >= argc) usage_error(flag + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      o.command = "help";
      return o;
    } else if (a == "--quick") {
      o.which = suite::quick;
    } else if (a == "--full") {
      o.which = suite::full;
    } else if (a == "--json" || a.rfind("--json=", 0) == 0) {
      if (o.command == "list") usage_error("--json applies to run");
      o.json = value("--json");
    } else if (a == "--reps" || a.rfind("--reps=", 0) == 0) {
      if (o.command == "list") usage_error("--reps applies to run");
      std::string v = value("--reps");
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (end == v.c_str() || *end || n < 1 || n > 100000) usage_error("--reps needs a number in [1, 100000]");
      o.reps = static_cast<int>(n);
    } else if (a == "--placements" || a.rfind("--placements=", 0) == 0) {
      if (o.command != "run" && o.command != "sweep") usage_error("--placements applies to run and sweep");
      std::string v = value("--placements");
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (end == v.c_str() || *end || n < 1 || n > 16) usage_error("--placements needs a number in [1, 16]");
      o.placements = static_cast<int>(n);
    } else if (!a.empty() && a[0] == '-') {
      usage_error("unknown option '" + a + "'");
    } else if (o.command == "sweep" && o.family.empty()) {
      o.family = a;
    } else {
      o.patterns.push_back(a);
    }
  }
  if (o.command == "sweep" && o.family.empty()) usage_error("sweep needs a family (e.g. 'sweep reduce')");
  if (o.command == "sweep" && o.which != suite::unspecified) usage_error("sweep takes no --quick or --full");
  return o;
}

bool is_glob(const std::string& p) { return p.find_first_of("*?[") != std::string::npos; }

bool matches_one(const std::string& pattern, const std::string& name) {
  if (is_glob(pattern)) return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
  return name.find(pattern) != std::string::npos;
}

/// Host cases are named "host/<family>/..."; patterns written for the device names match them too.
bool matches(const std::vector<std::string>& patterns, const lab::case_def& c) {
  for (const auto& p : patterns) {
    if (matches_one(p, c.name)) return true;
    if (c.host && c.name.rfind("host/", 0) == 0 && matches_one(p, c.name.substr(5))) return true;
  }
  return false;
}

/// The cases a command takes: sweep, the family's sweep rows (those matching the patterns, if any); run and verify,
/// the quick suite, every case (--full) or the cases matching the patterns, sweep rows only when a pattern names
/// them.
std::vector<const lab::case_def*> select(const options& o, bool host) {
  std::vector<const lab::case_def*> out;
  for (const auto& c : lab::all_cases()) {
    if (c.host != host) continue;
    bool take;
    if (o.command == "sweep") take = c.sweep && c.family == o.family && (o.patterns.empty() || matches(o.patterns, c));
    else if (o.patterns.empty()) take = !c.sweep && (o.which == suite::full || c.quick || host);
    else take = matches(o.patterns, c) && (o.which != suite::quick || c.quick || host);
    if (take) out.push_back(&c);
  }
  return out;
}

int cmd_list(const options& o) {
  std::vector<const lab::case_def*> sel;
  for (bool host : {false, true})  // device cases first, in registration order, then the host ones
    for (const auto& c : lab::all_cases())
      if (c.host == host && (o.patterns.empty() || matches(o.patterns, c))) sel.push_back(&c);
  std::size_t w = 4;
  for (auto* c : sel) w = std::max(w, c->name.size());
  std::printf("%-*s  %-5s  %s\n", int(w), "name", "suite", "baseline");
  int device = 0, quick = 0, host = 0;
  for (auto* c : sel) {
    const char* s = c->host ? "host" : c->sweep ? "sweep" : c->quick ? "quick" : "full";
    std::printf("%-*s  %-5s  %s\n", int(w), c->name.c_str(), s, c->baseline.empty() ? "-" : c->baseline.c_str());
    if (c->host) ++host;
    else {
      ++device;
      if (c->quick) ++quick;
    }
  }
  std::printf("%d device cases (%d in the quick suite), %d host cases (run when no CUDA device is present)\n",
              device, quick, host);
  return 0;
}

std::string one_line(std::string s) {
  for (auto& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  return s;
}

/// Runs setup + verify for one case; fills r.correct / r.baseline_correct / r.error.
lab::bench setup_and_verify(const lab::case_def& c, lab::result& r) {
  lab::bench b = c.setup();
  if (c.policy) r.policy = c.policy();
  lab::verify_result v = b.verify();
  r.correct = v.ok;
  r.baseline_correct = v.baseline_ok;
  r.observed = one_line(v.observed);
  if (!v.ok || !v.baseline_ok) r.error = one_line(v.detail);
  return b;
}

/// After an error the CUDA context may be unusable (a fault is sticky): returns the sticky error, if any.
cudaError_t sticky_error() {
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) {
    (void)cudaGetLastError();
    return cudaSuccess;
  }
  (void)cudaGetLastError();
  // A non-sticky error is cleared by the read above; a sticky one is returned again.
  cudaError_t again = cudaDeviceSynchronize();
  return again;
}

std::string progress_summary(const lab::result& r) {
  char buf[256];
  std::string s;
  if (r.timed) {
    std::snprintf(buf, sizeof buf, " %.5f ms", r.median_ms);
    s += buf;
    if (r.c->bytes > 0 && r.median_ms > 0) {
      std::snprintf(buf, sizeof buf, "  %.1f GB/s", r.c->bytes / (r.median_ms * 1e-3) / 1e9);
      s += buf;
    }
    if (r.baseline_ms) {
      std::snprintf(buf, sizeof buf, "  baseline %.5f ms  speedup %.3f", *r.baseline_ms, *r.baseline_ms / r.median_ms);
      s += buf;
    }
  }
  s += r.correct ? (r.baseline_correct ? "  ok" : "  ok (baseline FAIL)") : "  FAIL";
  if (!r.error.empty()) s += "  [" + r.error + "]";
  if (!r.observed.empty()) s += "  {" + r.observed + "}";
  return s;
}

int finish(const options& o, const lab::environment& env, const std::vector<const lab::case_def*>& sel,
           const std::vector<lab::result>& results, bool aborted) {
  std::fflush(stderr);
  lab::print_header(stdout, env, lab::notes_for(sel));
  std::printf("\n");
  lab::print_table(stdout, env, results);
  for (const auto& line : lab::summaries_for(results)) std::printf("%s\n", line.c_str());
  bool ok = !aborted;
  for (const auto& r : results) ok = ok && r.correct && r.baseline_correct;
  if (!o.json.empty()) {
    std::fflush(stdout);  // the table first: with both streams sent to one file, the note must not split a row
    if (lab::write_json(o.json, env, results)) std::fprintf(stderr, "cuprim-lab: wrote %s\n", o.json.c_str());
    else ok = false;
  }
  if (aborted) std::printf("aborted: the CUDA context failed; %zu of %zu cases ran\n", results.size(), sel.size());
  return ok ? 0 : 1;
}

int run_host(const options& o, bool verify_only) {
  std::printf("%s\n", no_device_sentence);
  std::fflush(stdout);
  std::vector<const lab::case_def*> sel = select(o, /*host=*/true);
  if (sel.empty()) {
    std::fprintf(stderr, "cuprim-lab: no host case matches the patterns; running every host case\n");
    options all = o;
    all.patterns.clear();
    sel = select(all, true);
  }
  lab::environment env = lab::record_environment(false);
  if (verify_only) {
    bool ok = true;
    for (auto* c : sel) {
      lab::result r;
      r.c = c;
      try {
        setup_and_verify(*c, r);
      } catch (const std::exception& e) {
        r.correct = false;
        r.error = one_line(e.what());
      }
      ok = ok && r.correct;
      std::printf("%s %s%s%s\n", r.correct ? "PASS" : "FAIL", c->name.c_str(), r.error.empty() ? "" : ": ",
                  r.error.c_str());
    }
    return ok ? 0 : 1;
  }
  env.copy_ceiling_gbps = lab::measure_host_copy_ceiling();
  env.copy_ceiling_how = "host std::memcpy of 128 MiB, read + write, median of 7";
  std::vector<lab::result> results;
  const int reps = o.reps > 0 ? o.reps : 5;
  for (std::size_t i = 0; i < sel.size(); ++i) {
    const auto* c = sel[i];
    std::fprintf(stderr, "[%zu/%zu] %s ...", i + 1, sel.size(), c->name.c_str());
    std::fflush(stderr);
    lab::result r;
    r.c = c;
    try {
      lab::bench b = setup_and_verify(*c, r);
      lab::timing t = lab::time_host(b, reps);
      r.median_ms = t.median_ms;
      r.reps = t.reps;
      r.timed = true;
    } catch (const std::exception& e) {
      r.correct = false;
      r.error = one_line(e.what());
    }
    std::fprintf(stderr, "%s\n", progress_summary(r).c_str());
    results.push_back(std::move(r));
  }
  return finish(o, env, sel, results, false);
}

int run_device(const options& o, bool verify_only) {
  std::vector<const lab::case_def*> sel = select(o, /*host=*/false);
  if (sel.empty()) {
    std::fprintf(stderr, "cuprim-lab: no case matches; see 'cuprim-lab list'\n");
    return 1;
  }
  lab::check(cudaSetDevice(0), "cudaSetDevice");
  if (verify_only) {
    bool ok = true;
    for (auto* c : sel) {
      lab::result r;
      r.c = c;
      try {
        setup_and_verify(*c, r);
      } catch (const std::exception& e) {
        r.correct = false;
        r.error = one_line(e.what());
      }
      ok = ok && r.correct && r.baseline_correct;
      const char* verdict = !r.correct ? "FAIL" : r.baseline_correct ? "PASS" : "PASS (baseline FAIL)";
      std::printf("%s %s%s%s\n", verdict, c->name.c_str(), r.error.empty() ? "" : ": ", r.error.c_str());
      std::fflush(stdout);
      if (sticky_error() != cudaSuccess) {
        std::printf("aborted: the CUDA context failed\n");
        lab::release_inputs();
        return 1;
      }
    }
    lab::release_inputs();
    return ok ? 0 : 1;
  }

  cudaStream_t stream = nullptr;
  lab::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  lab::environment env = lab::record_environment(true);
  std::fprintf(stderr, "measuring the copy ceiling ...");
  std::fflush(stderr);
  env.copy_ceiling_gbps = lab::measure_copy_ceiling(stream);
  env.copy_ceiling_how = "cudaMemcpyAsync device to device of 1 GiB, bytes = read + write, median of 20";
  std::fprintf(stderr, " %.1f GB/s\n", env.copy_ceiling_gbps);

  std::vector<lab::result> results;
  bool aborted = false;
  for (std::size_t i = 0; i < sel.size() && !aborted; ++i) {
    const auto* c = sel[i];
    std::fprintf(stderr, "[%zu/%zu] %s ...", i + 1, sel.size(), c->name.c_str());
    std::fflush(stderr);
    lab::result r;
    r.c = c;
    try {
      const int reps = lab::case_reps(*c, o.reps);
      const int warmup = std::max(3, reps / 10);
      const int placements = o.placements > 0 ? o.placements : c->placements;
      lab::pair_timing t;
      bool host_timed = false, self_timed = false;
      {
        lab::bench b = setup_and_verify(*c, r);
        host_timed = bool(b.host_run);
        self_timed = bool(b.self_timed);
        if (self_timed) t = b.self_timed(reps, warmup);  // several GPUs: the case times its own calls
        else if (host_timed) t.main = lab::time_host(b, reps);  // a call that blocks the host: wall clock
        else t = lab::time_device(b, reps, warmup, stream);
      }
      if (placements > 1 && !host_timed && !self_timed && r.correct && r.baseline_correct) {
        // Placements 1..P-1: the case's buffers (and its inputs, moved) made while more memory is held, so that
        // they lie on other physical pages; verified once (placement 0), the same code on the same values.
        // A placement that cannot be made (no room for its spacer) or fails ends the series: the placements
        // measured so far are reported, with a note.
        std::vector<lab::pair_timing> per{t};
        std::string stopped;
        for (int k = 1; k < placements; ++k) {
          try {
            const lab::device_memory spacer = lab::placement_spacer(k);
            if (!spacer.get()) {
              stopped = "placement " + std::to_string(k) + " needs more free memory than half of what is left";
              break;
            }
            lab::relocate_inputs();
            const lab::bench b = c->setup();
            per.push_back(lab::time_device(b, reps, warmup, stream));
          } catch (const std::exception& e) {
            if (sticky_error() != cudaSuccess) throw;  // the context is gone: the row fails as a whole
            stopped = "placement " + std::to_string(k) + " failed: " + one_line(e.what());
            break;
          }
        }
        t = lab::combine_placements(per, r);
        if (!stopped.empty())
          r.error += (r.error.empty() ? "" : "; ") + std::to_string(per.size()) + " of " + std::to_string(placements) +
                     " placements timed (" + stopped + ")";
      }
      r.median_ms = t.main.median_ms;
      if (t.base) r.baseline_ms = t.base->median_ms;
      r.reps = t.main.reps;
      r.timed = true;
      if (t.hold_timed_out) {
        if (!r.error.empty()) r.error += "; ";
        r.error += "the launch queue was not filled in time: times may include launch gaps";
      }
    } catch (const std::exception& e) {
      r.correct = false;
      r.error = one_line(e.what());
    }
    if (cudaError_t e = sticky_error(); e != cudaSuccess) {
      r.correct = false;
      if (!r.error.empty()) r.error += "; ";
      r.error += std::string("CUDA context failed: ") + cudaGetErrorString(e);
      aborted = true;
    }
    std::fprintf(stderr, "%s\n", progress_summary(r).c_str());
    results.push_back(std::move(r));
  }
  lab::release_inputs();
  if (!aborted) (void)cudaStreamDestroy(stream);
  return finish(o, env, sel, results, aborted);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "tune") == 0) {
    if (argc >= 3 && (std::strcmp(argv[2], "--help") == 0 || std::strcmp(argv[2], "-h") == 0)) {
      std::printf("%s", lab::tune_usage_text());
      return 0;
    }
    try {
      if (cuprim::device_count() == 0) {
        std::fprintf(stderr, "cuprim-lab tune: needs a CUDA device\n");
        return 77;
      }
      return lab::run_tune(argc, argv);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuprim-lab tune: %s\n", e.what());
      return 1;
    }
  }
  if (argc >= 2 && (std::strcmp(argv[1], "transfer") == 0 || std::strcmp(argv[1], "ooc") == 0)) {
    try {
      if (cuprim::device_count() == 0) {
        std::fprintf(stderr, "cuprim-lab %s: needs a CUDA device\n", argv[1]);
        return 77;
      }
      return std::strcmp(argv[1], "transfer") == 0 ? lab::run_transfer_study(argc, argv) : lab::run_ooc_study(argc, argv);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cuprim-lab: %s\n", e.what());
      return 1;
    }
  }
  options o = parse(argc, argv);
  if (o.command == "help") {
    std::printf("%s", usage_text);
    return 0;
  }
  try {
    lab::register_all();
    if (o.command == "list") return cmd_list(o);
    const bool verify_only = o.command == "verify";
    if (o.command == "sweep" && cuprim::device_count() == 0) {
      std::fprintf(stderr, "cuprim-lab sweep: needs a CUDA device\n");
      return 77;
    }
    if (cuprim::device_count() == 0) return run_host(o, verify_only);
    return run_device(o, verify_only);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuprim-lab: %s\n", e.what());
    return 1;
  }
}
