// tests/common/pending_error.cuh: checks that an entry point reports a CUDA error left pending by someone else
// as pre_existing() (and launches nothing).
#pragma once

#include <cuprim/core/error.hpp>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <exception>
#include <string>

namespace cuprim_test {

template <int = 0>
__global__ void empty_kernel() {}

/// Leaves a launch-configuration error pending on this thread: a launch of 2048 threads per block, which no
/// device allows. Such errors are not sticky. Returns the error (cudaErrorInvalidConfiguration on older
/// runtimes, cudaErrorInvalidValue on CUDA 13).
inline cudaError_t make_pending_error() {
  if (cudaPeekAtLastError() == cudaSuccess) empty_kernel<><<<1, 2048>>>();
  return cudaPeekAtLastError();
}

/// Runs call() with an error pending and expects a cuprim::cuda_error marked pre_existing() that carries it, and
/// the error cleared once reported (core/error.hpp): nothing is pending after the exception.
template <class F>
void expect_pre_existing(F&& call, const char* what) {
  const cudaError_t pending = make_pending_error();
  ASSERT_NE(pending, cudaSuccess) << "could not set up the pending error";
  try {
    call();
    ADD_FAILURE() << what << ": no exception although an error was pending";
  } catch (const cuprim::cuda_error& e) {
    EXPECT_TRUE(e.pre_existing()) << what << ": " << e.what();
    EXPECT_EQ(e.code(), pending) << what << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(cudaGetErrorName(pending)), std::string::npos) << e.what();
    EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << what << ": the reported error is still pending";
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": wrong exception: " << e.what();
  }
}

}  // namespace cuprim_test
