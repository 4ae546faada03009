#!/usr/bin/env bash
# Builds bench/sort/arch/sweep (run from the repository root): each rows_*.cu in parallel, then the link.
# build.sh passes [dir]: builds bench/sort/arch/passes (passes.cu) instead.
# SWEEP_FLAGS: extra nvcc flags (a -D for an experiment).
set -euo pipefail
f="-std=c++20 --extended-lambda --expt-relaxed-constexpr -O3 -arch=sm_90 -I include ${SWEEP_FLAGS:-}"
if [ "${1:-}" = passes ]; then
  o=${2:-build-sweep}
  mkdir -p "$o"
  nvcc $f bench/sort/arch/passes.cu src/device.cpp src/error.cpp src/memory.cpp -o "$o/passes"
  exit 0
fi
o=${1:-build-sweep}
mkdir -p "$o"
for s in main rows_a rows_b rows_c rows_d rows_e rows_f rows_g rows_h; do nvcc $f -c bench/sort/arch/$s.cu -o "$o/$s.o" & done
for s in device error memory; do nvcc -std=c++20 -O2 -I include -c src/$s.cpp -o "$o/$s.o" & done
wait
nvcc -arch=sm_90 "$o"/*.o -o "$o/sweep"
