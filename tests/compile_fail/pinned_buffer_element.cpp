// Compile-fail case: a pinned_buffer of a type that is not trivially copyable (page-locked memory is copied as
// bytes to and from the device). Without CUPRIM_MISUSE: a trivially copyable element.
#include <cuprim/core/memory.hpp>

#include <cstddef>
#include <vector>

#ifdef CUPRIM_MISUSE
using element = std::vector<int>;
#else
using element = double;
#endif

std::size_t empty_pinned_buffer_size() {
  cuprim::pinned_buffer<element> b;
  return b.size();
}
