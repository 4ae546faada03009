// tests/common/expect_invalid.hpp: the argument-rule check shared by the *_args tests.
#pragma once

#include <cuprim/core/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <string>

namespace cuprim_test {

/// Expects call() to throw cuprim::invalid_argument naming `argument`, thrown by `function` (with match_prefix: by
/// a function whose name begins with `function`), with a rule, and a what() that names the function, the argument
/// and the rule (the contract of cuprim/core/error.hpp).
template <class F>
void expect_invalid(F&& call, const std::string& argument, const std::string& function, bool match_prefix = false) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected cuprim::invalid_argument for '" << argument << "' from " << function;
  } catch (const cuprim::invalid_argument& e) {
    EXPECT_EQ(e.argument(), argument) << e.what();
    if (match_prefix)
      EXPECT_EQ(e.function().rfind(function, 0), 0u) << "function '" << e.function() << "', expected " << function;
    else
      EXPECT_EQ(e.function(), function) << e.what();
    EXPECT_FALSE(e.rule().empty());
    const std::string what = e.what();
    EXPECT_NE(what.find(e.function()), std::string::npos) << what;
    EXPECT_NE(what.find(argument), std::string::npos) << what;
    EXPECT_NE(what.find(e.rule()), std::string::npos) << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception for '" << argument << "': " << e.what();
  }
}

/// expect_invalid for any entry point whose name begins with `prefix` (by default any cuprim function).
template <class F>
void expect_invalid_from(F&& call, const std::string& argument, const std::string& prefix = "cuprim::") {
  expect_invalid(static_cast<F&&>(call), argument, prefix, true);
}

/// A distinct, never dereferenced device-looking pointer `gib` GiB into the address space (argument checks only).
template <class T>
T* fake(std::uintptr_t gib) {
  return reinterpret_cast<T*>(gib << 30);
}

}  // namespace cuprim_test
