// Compile-fail case: a device_buffer of a type that is not trivially copyable (its elements are copied as bytes
// between host and device). Without CUPRIM_MISUSE: a trivially copyable element.
#include <cuprim/core/memory.hpp>

#include <cstddef>
#include <string>

#ifdef CUPRIM_MISUSE
using element = std::string;
#else
using element = int;
#endif

std::size_t empty_device_buffer_size() {
  cuprim::device_buffer<element> b;
  return b.size();
}
