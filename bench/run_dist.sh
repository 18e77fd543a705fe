#!/usr/bin/env bash
# Issue 4's benchmarks: gradient synchronisation (fused vs raw MPI_Allreduce vs per tensor) on 2
# ranks, and data-parallel scaling of the MLP (2 ranks x 1 thread vs 1 rank x 1 thread),
# alternating the two scaling runs RUNS times and printing each; quote the medians.
#   usage: bench/run_dist.sh [BUILD_DIR] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}" RUNS="${2:-3}"
MPI=(mpirun --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none --bind-to none)
export OMP_NUM_THREADS=1
"${MPI[@]}" -np 2 "$BUILD/bench/exadnn_dist_allreduce_bench" 21
for run in $(seq "$RUNS"); do
  "${MPI[@]}" -np 1 "$BUILD/bench/exadnn_dist_scaling_bench" 300
  "${MPI[@]}" -np 2 "$BUILD/bench/exadnn_dist_scaling_bench" 300
done
