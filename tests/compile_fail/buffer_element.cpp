// Compile-fail case: device_buffer and pinned_buffer of a type that is not trivially copyable (their elements are
// copied as bytes between host and device); each is rejected with its own message. Without CUPRIM_MISUSE (the
// control): a trivially copyable element.
#include <cuprim/core/memory.hpp>

#include <cstddef>
#include <string>

#ifdef CUPRIM_MISUSE
using element = std::string;
#else
using element = int;
#endif

std::size_t empty_buffer_sizes() {
  cuprim::device_buffer<element> on_device;
  cuprim::pinned_buffer<element> on_host;
  return on_device.size() + on_host.size();
}
