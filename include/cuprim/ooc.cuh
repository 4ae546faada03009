// cuprim/ooc.cuh: the out-of-core primitives (namespace cuprim::ooc): the stream pipeline and the out-of-core
// reduce, scans, compaction and histogram over host arrays of any size. The out-of-core GEMM has a header and a
// library of its own (cuprim/ooc/gemm.hpp, target cuprim::ooc_gemm), so that only its users link cuBLAS.
#pragma once

#include <cuprim/ooc/histogram.cuh>
#include <cuprim/ooc/pipeline.cuh>
#include <cuprim/ooc/reduce.cuh>
#include <cuprim/ooc/scan.cuh>
#include <cuprim/ooc/select.cuh>
