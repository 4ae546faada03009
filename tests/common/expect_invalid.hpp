// tests/common/expect_invalid.hpp: the argument-rule check shared by the *_args tests.
#pragma once

#include <cuprim/core/error.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <exception>
#include <string>

namespace cuprim_test {

/// Expects call() to throw cuprim::invalid_argument naming `argument` of `function`, with a rule.
template <class F>
void expect_invalid(F&& call, const std::string& argument, const std::string& function) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected cuprim::invalid_argument for '" << argument << "' from " << function;
  } catch (const cuprim::invalid_argument& e) {
    EXPECT_EQ(e.argument(), argument) << e.what();
    EXPECT_EQ(e.function(), function) << e.what();
    EXPECT_FALSE(e.rule().empty());
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception for '" << argument << "': " << e.what();
  }
}

/// A distinct, never dereferenced device-looking pointer `gib` GiB into the address space (argument checks only).
template <class T>
T* fake(std::uintptr_t gib) {
  return reinterpret_cast<T*>(gib << 30);
}

}  // namespace cuprim_test
