// Compile-fail case: a policy of another family (here a struct shaped like every cuprim policy: a name and its
// fields) passed to the reduction is rejected, naming the types the argument may have. Without CUPRIM_MISUSE: the
// reduction's own policy type.
#include <cuprim/device/reduce.cuh>

#include <cstdint>

struct foreign_policy {
  static constexpr const char* name = "foreign_policy";
  int threads = 256;
  friend constexpr bool operator==(const foreign_policy&, const foreign_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("threads", threads);
  }
};

#ifdef CUPRIM_MISUSE
constexpr foreign_policy policy{};
#else
constexpr cuprim::reduce_policy policy{.threads = 256};
#endif

void reduce_with_policy(const float* in, float* out, std::int64_t n, cudaStream_t stream) {
  cuprim::reduce<policy>(in, out, n, cuprim::plus{}, 0.0f, stream);
}
