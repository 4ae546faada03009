// lab/ladder/common.cuh: what every optimisation ladder shares. The ladders (reduce.cuh, scan.cuh, histogram.cuh)
// are the seeds' steps as selectable, correct variants: teaching code that the lab measures and the tests check,
// built on cuprim's internals but not part of the installed library.
#pragma once

#include <cuprim/core/validate.hpp>

namespace cuprim::ladder::detail {

using namespace cuprim::detail;

/// Errors of the ladders' entry points name them as cuprim::ladder::<name>.
inline constexpr char entry_prefix[] = "cuprim::ladder::";

}  // namespace cuprim::ladder::detail

namespace cuprim::ladder {

/// The launch shape of a rung that takes no production policy, as the lab records it: threads per block and
/// elements each thread loads before the block's first combining step.
struct rung_policy {
  static constexpr const char* name = "rung_policy";
  int threads = 256;
  int items = 1;
  friend constexpr bool operator==(const rung_policy&, const rung_policy&) = default;
  template <class F>
  constexpr void fields(F&& f) const {
    f("threads", threads);
    f("items", items);
  }
};

}  // namespace cuprim::ladder
