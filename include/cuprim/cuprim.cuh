// cuprim: GPU parallel primitives. The umbrella header.
//
// Layers (the namespace says who executes):
//   cuprim::warp::   device functions called by a whole warp      (cuprim/warp/; the aggregated atomics and
//                    compact_append: any subset of a warp's lanes)
//   cuprim::block::  device functions called by a whole block     (cuprim/block/)
//   cuprim::         host entry points, ordered on a stream       (cuprim/device/)
//   cuprim::host::   sequential host references                   (cuprim/host/)
#pragma once

#include <cuprim/core/device.hpp>
#include <cuprim/core/error.hpp>
#include <cuprim/core/functional.cuh>
#include <cuprim/core/memory.hpp>
#include <cuprim/core/policy.hpp>
#include <cuprim/core/validate.hpp>
#include <cuprim/warp/atomic.cuh>
#include <cuprim/warp/compact.cuh>
#include <cuprim/warp/reduce.cuh>
#include <cuprim/warp/scan.cuh>
#include <cuprim/warp/shuffle.cuh>
#include <cuprim/warp/vote.cuh>
#include <cuprim/block/reduce.cuh>
#include <cuprim/block/scan.cuh>
#include <cuprim/device/reduce.cuh>
#include <cuprim/device/scan.cuh>
#include <cuprim/device/segmented_reduce.cuh>
#include <cuprim/device/segmented_scan.cuh>
#include <cuprim/device/select.cuh>
#include <cuprim/device/radix_sort.cuh>
#include <cuprim/device/segmented_sort.cuh>
#include <cuprim/device/histogram.cuh>
