// lab/tune_common.hpp: what the tuner's families share (lab/tune.cu, lab/tune_gemm.cu): list options and the
// progress bar with its ETA.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace lab {

/// The tuner of the 16-bit GEMM (lab/tune_gemm.cu): `cuprim-lab tune gemm ...`.
int run_tune_gemm(int argc, char** argv);
/// Its part of the usage text.
extern const char* const tune_gemm_usage;

namespace tune {

/// A comma-separated list's non-empty items.
inline std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

/// The progress bar and ETA on stderr after `done` of `planned` measurements (one line per update off a terminal).
inline void progress_line(const std::string& what, int done, int planned, double elapsed) {
  const int width = 20;
  const int filled = planned > 0 ? std::min(width, done * width / planned) : width;
  const double eta = done > 0 ? elapsed / done * std::max(0, planned - done) : 0;
  std::fprintf(stderr, "%s[%s%s] %d/%d  %.1f s  ETA %.1f s%s", isatty(2) ? "\r" : "",
               std::string(std::size_t(filled), '#').c_str(), std::string(std::size_t(width - filled), '.').c_str(),
               done, planned, elapsed, eta, isatty(2) ? "" : "\n");
  if (!isatty(2)) return;
  std::fprintf(stderr, "  %s", what.c_str());
  std::fflush(stderr);
}

}  // namespace tune
}  // namespace lab
