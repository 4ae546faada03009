// tests/common/tuning_cache.hpp: a fixture whose tests each get a fresh tuning cache file for this GPU
// (core/tuning.hpp), made current through CUPRIM_TUNING_CACHE, and forgotten afterwards.
#pragma once

#include <cuprim/core/tuning.hpp>

#include "common/test_util.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace cuprim_test {

class tuning_cache_test : public ::testing::Test {
protected:
  void SetUp() override {
    CUPRIM_REQUIRE_GPU();
    dir_ = std::filesystem::temp_directory_path() /
           ("cuprim_tuning_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "tuning.json").string();
    setenv("CUPRIM_TUNING_CACHE", path_.c_str(), 1);
    cuprim::tuning::reset();
  }
  void TearDown() override {
    unsetenv("CUPRIM_TUNING_CACHE");
    cuprim::tuning::reset();
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  /// Merges the section into the file and makes the library read it again.
  void write(const cuprim::tuning::cache_section& s) {
    cuprim::tuning::merge_into_file(path_, s);
    cuprim::tuning::reset();
  }

  std::filesystem::path dir_;
  std::string path_;
  static inline int counter_ = 0;
};

}  // namespace cuprim_test
