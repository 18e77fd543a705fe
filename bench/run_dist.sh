#!/usr/bin/env bash
# Issue 4's benchmarks, on one node:
#  - gradient synchronisation (fused reducer vs raw MPI_Allreduce vs per tensor) on 2 ranks, with
#    the default transport (shared memory on one node) and with the MPI transport;
#  - data-parallel scaling of the MLP: 2 ranks x 1 thread vs 1 rank x 1 thread, with each
#    transport, and the two baselines: 2 unsynced ranks (no communication: the machine's
#    ceiling) and 2 ranks in lockstep (a barrier per step, no data: the cost of the jitter).
# The runs alternate RUNS times and print each; quote the medians.
#   usage: bench/run_dist.sh [BUILD_DIR] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}" RUNS="${2:-3}"
MPI=(mpirun --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none
     --bind-to none -x EXADNN_REDUCER_TRANSPORT)
export OMP_NUM_THREADS=1
for transport in auto mpi; do
  EXADNN_REDUCER_TRANSPORT=$transport "${MPI[@]}" -np 2 "$BUILD/bench/exadnn_dist_allreduce_bench" 41
done
SCALING="$BUILD/bench/exadnn_dist_scaling_bench"
for run in $(seq "$RUNS"); do
  EXADNN_REDUCER_TRANSPORT=auto "${MPI[@]}" -np 1 "$SCALING" 300
  EXADNN_REDUCER_TRANSPORT=auto "${MPI[@]}" -np 2 "$SCALING" 300
  EXADNN_REDUCER_TRANSPORT=mpi "${MPI[@]}" -np 2 "$SCALING" 300
  for baseline in unsynced lockstep; do
    "${MPI[@]}" -np 2 "$SCALING" 300 /usr/share/datasets/fashion-mnist $baseline
  done
done
