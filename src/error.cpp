#include <cuprim/core/error.hpp>

#include <string>

namespace cuprim {

invalid_argument::invalid_argument(std::string function, std::string argument, std::string rule)
    : std::invalid_argument(function + ": invalid argument '" + argument + "': " + rule),
      function_(std::move(function)), argument_(std::move(argument)), rule_(std::move(rule)) {}

static std::string cuda_message(cudaError_t code, const std::string& call, std::source_location where,
                                bool pre_existing) {
  std::string msg = pre_existing ? "CUDA error already pending " + call + " (caused by an earlier operation): "
                                 : "CUDA error in " + call + ": ";
  msg += cudaGetErrorName(code);
  msg += " (";
  msg += cudaGetErrorString(code);
  msg += ") at ";
  msg += where.file_name();
  msg += ":" + std::to_string(where.line());
  return msg;
}

cuda_error::cuda_error(cudaError_t code, std::string call, std::source_location where, bool pre_existing)
    : std::runtime_error(cuda_message(code, call, where, pre_existing)), code_(code), call_(std::move(call)),
      pre_existing_(pre_existing) {}

bad_alloc::bad_alloc(std::size_t bytes, std::string what_failed)
    : bytes_(bytes),
      message_("cuprim::bad_alloc: could not allocate " + std::to_string(bytes) + " bytes (" + what_failed + ")") {}

namespace detail {
void throw_invalid(const char* function, const char* argument, const char* rule) {
  throw invalid_argument(function, argument, rule);
}
}  // namespace detail
}  // namespace cuprim
