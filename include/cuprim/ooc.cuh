// cuprim/ooc.cuh: every out-of-core entry point (namespace cuprim::ooc): the stream pipeline and the
// out-of-core reduce, scans, compaction and histogram over host arrays of any size.
#pragma once

#include <cuprim/ooc/histogram.cuh>
#include <cuprim/ooc/pipeline.cuh>
#include <cuprim/ooc/reduce.cuh>
#include <cuprim/ooc/scan.cuh>
#include <cuprim/ooc/select.cuh>
