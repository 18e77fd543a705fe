#!/usr/bin/env bash
# Issue 19's benchmark: time per step of tensor, sharded (ZeRO-1, ZeRO-3), pipeline (GPipe, 1F1B) and spatial
# parallelism against data parallelism on the same 2 ranks (1 thread each), with the communication
# time per step and the pipeline's idle fraction. RUNS alternating runs; quote the medians and the
# load printed before each.
#   usage: bench/run_model_parallel.sh [BUILD_DIR] [RUNS] [STEPS] [ROWS]
# ROWS: samples per pipeline micro-batch (8 micro-batches; default 8).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}" RUNS="${2:-3}" STEPS="${3:-20}" ROWS="${4:-8}"
MPI=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
export OMP_NUM_THREADS=1
for run in $(seq "$RUNS"); do
  echo "== run $run, load: $(cut -d' ' -f1-3 /proc/loadavg)"
  "${MPI[@]}" -np 2 "$BUILD/bench/exadnn_model_parallel_bench" "$STEPS" 5 "$ROWS"
done
