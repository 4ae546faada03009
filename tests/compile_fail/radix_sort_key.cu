// Compile-fail case: a radix sort of a key type it cannot order (a struct given without a key decomposer) is
// rejected, naming the key types it sorts. Without CUPRIM_MISUSE: uint32 keys.
#include <cuprim/device/radix_sort.cuh>

#include <cstdint>

struct point {
  std::int32_t x, y;
};

#ifdef CUPRIM_MISUSE
using key = point;
#else
using key = std::uint32_t;
#endif

void sort_keys(const key* in, key* out, std::int64_t n, cudaStream_t stream) {
  cuprim::radix_sort_keys(in, out, n, cuprim::radix_sort_options{}, stream);
}
