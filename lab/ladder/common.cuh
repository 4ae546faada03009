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
