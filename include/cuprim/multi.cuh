// cuprim/multi.cuh: cuprim's multi-GPU layer over NCCL (link cuprim::multi). See docs/multi.md. The GEMM has its own
// header, cuprim/multi/gemm.cuh (it brings in cuprim's BLAS).
#pragma once

#include <cuprim/multi/communicator.hpp>
#include <cuprim/multi/histogram.cuh>
#include <cuprim/multi/radix_sort.cuh>
#include <cuprim/multi/redistribute.hpp>
#include <cuprim/multi/reduce.cuh>
#include <cuprim/multi/scan.cuh>
#include <cuprim/multi/select.cuh>
#include <cuprim/multi/sharded.hpp>
