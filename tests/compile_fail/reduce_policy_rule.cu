// Compile-fail case: a reduce_policy that breaks one of its rules (threads not a multiple of 32) is rejected where
// the reduction is instantiated with it. Without CUPRIM_MISUSE (the control): a policy that keeps the rules.
#include <cuprim/device/reduce.cuh>

#include <cstdint>

#ifdef CUPRIM_MISUSE
constexpr cuprim::reduce_policy policy{.threads = 100};
#else
constexpr cuprim::reduce_policy policy{.threads = 96};
#endif

void reduce_with_policy(const float* in, float* out, std::int64_t n, cudaStream_t stream) {
  cuprim::reduce<policy>(in, out, n, cuprim::plus{}, 0.0f, stream);
}
