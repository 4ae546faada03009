// cuprim/multi.cuh: cuprim's multi-GPU layer over NCCL (link cuprim::multi). See docs/multi.md.
#pragma once

#include <cuprim/multi/communicator.hpp>
#include <cuprim/multi/histogram.cuh>
#include <cuprim/multi/redistribute.hpp>
#include <cuprim/multi/reduce.cuh>
#include <cuprim/multi/scan.cuh>
#include <cuprim/multi/select.cuh>
#include <cuprim/multi/sharded.hpp>
