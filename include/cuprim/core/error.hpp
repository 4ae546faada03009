// cuprim/core/error.hpp: the three exceptions cuprim throws, and the checks that raise them.
//
//  - cuprim::invalid_argument  a caller's argument broke a rule. Always thrown before anything is launched,
//                              allocated or written; what() names the function, the argument and the rule.
//  - cuprim::cuda_error        a CUDA call or a kernel launch failed. what() names the call, the CUDA error
//                              string and the source location. pre_existing() is true when the error was
//                              already pending on the calling thread (left by an earlier, unrelated CUDA
//                              operation) before the cuprim call started: it is reported, not blamed on cuprim,
//                              and the call does nothing else. Reporting it clears it, as cudaGetLastError does:
//                              after the exception the thread has no error pending, so the next call runs, unless
//                              the error was a sticky one (a fault that corrupted the context), which CUDA keeps
//                              returning from every call until the context is reset.
//  - cuprim::bad_alloc         an allocation failed; bytes() is the size asked for.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <new>
#include <source_location>
#include <stdexcept>
#include <string>

namespace cuprim {

/// A caller's argument broke a rule. Nothing was launched, allocated or written.
class invalid_argument : public std::invalid_argument {
public:
  /// `function`: the cuprim entry point; `argument`: the parameter's name; `rule`: what it must satisfy.
  invalid_argument(std::string function, std::string argument, std::string rule);
  const std::string& function() const noexcept { return function_; }
  const std::string& argument() const noexcept { return argument_; }
  const std::string& rule() const noexcept { return rule_; }

private:
  std::string function_, argument_, rule_;
};

/// A CUDA runtime call or a kernel launch failed.
class cuda_error : public std::runtime_error {
public:
  cuda_error(cudaError_t code, std::string call, std::source_location where, bool pre_existing = false);
  cudaError_t code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }
  /// True when the error was already pending before the cuprim call began (caused elsewhere).
  bool pre_existing() const noexcept { return pre_existing_; }

private:
  cudaError_t code_;
  std::string call_;
  bool pre_existing_;
};

/// An allocation of bytes() bytes failed.
class bad_alloc : public std::bad_alloc {
public:
  bad_alloc(std::size_t bytes, std::string what_failed);
  const char* what() const noexcept override { return message_.c_str(); }
  std::size_t bytes() const noexcept { return bytes_; }

private:
  std::size_t bytes_;
  std::string message_;
};

namespace detail {

/// Throws cuda_error if `code` is not cudaSuccess. Prefer the CUPRIM_CUDA_CHECK macro, which records the call text.
inline void cuda_check(cudaError_t code, const char* call,
                       std::source_location where = std::source_location::current()) {
  if (code != cudaSuccess) {
    (void)cudaGetLastError();  // clear the non-sticky copy so the thread's state matches what we report
    throw cuda_error(code, call, where);
  }
}

/// Called at the start of every entry point: an error already pending on this thread belongs to whoever
/// caused it. It is reported as pre-existing (and cleared: see cuda_error above), and the cuprim call does nothing.
inline void check_no_pending_error(const char* function,
                                   std::source_location where = std::source_location::current()) {
  if (cudaPeekAtLastError() == cudaSuccess) return;
  const cudaError_t pending = cudaGetLastError();  // reads and clears it (a sticky error stays in the context)
  // No device or driver is not someone else's failure: report it as this call's.
  bool environment = pending == cudaErrorNoDevice || pending == cudaErrorInsufficientDriver ||
                     pending == cudaErrorInitializationError;
  throw cuda_error(pending, std::string(environment ? "" : "before ") + function, where, !environment);
}

/// Checks the launch that was just made (configuration errors are reported here; faults during execution
/// surface at the next synchronising call, as with any CUDA work).
inline void check_launch(const char* kernel, std::source_location where = std::source_location::current()) {
  cudaError_t code = cudaGetLastError();
  if (code != cudaSuccess) throw cuda_error(code, std::string("launch of ") + kernel, where);
}

[[noreturn]] void throw_invalid(const char* function, const char* argument, const char* rule);

}  // namespace detail
}  // namespace cuprim

/// Checks a CUDA runtime call; throws cuprim::cuda_error naming the call on failure.
#define CUPRIM_CUDA_CHECK(call) ::cuprim::detail::cuda_check((call), #call)
