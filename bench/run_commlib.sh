#!/usr/bin/env bash
# Issue 7's COMMLIB benchmarks: the channel's cost per message (1 rank), its bandwidth against raw
# MPI_Send/MPI_Recv (2 ranks), and the tuple space's latency and rate with 1 client + 1 server,
# 2 clients + 1 server and 2 clients + 2 servers; each run RUNS times: quote the medians over runs.
#   usage: bench/run_commlib.sh [BUILD_DIR] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}" RUNS="${2:-3}"
MPI=(mpirun --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none --bind-to none)
export OMP_NUM_THREADS=1
for run in $(seq "$RUNS"); do
  echo "== run $run"
  "${MPI[@]}" -np 1 "$BUILD/bench/exadnn_flow_channel_bench"
  "${MPI[@]}" -np 2 "$BUILD/bench/exadnn_flow_channel_bench" 21
  "${MPI[@]}" -np 2 "$BUILD/bench/exadnn_tuple_space_bench" 1 20000 64
  "${MPI[@]}" -np 3 "$BUILD/bench/exadnn_tuple_space_bench" 1 20000 64
  "${MPI[@]}" -np 4 "$BUILD/bench/exadnn_tuple_space_bench" 2 20000 64
done
