#!/usr/bin/env bash
# Strong scaling 1 → 2 ranks of the DG solver: exadnn_climate_mpi_bench on 1 and 2 ranks, the
# same mesh, and the efficiency (rate on 2 ranks) / (2 × rate on 1 rank) of the median rates.
# Usage: bench/climate_mpi_bench.sh <build dir> [Ne p seconds-per-run runs split|divergence]
set -euo pipefail
build=${1:?usage: climate_mpi_bench.sh <build dir> [Ne p seconds runs form]}
shift
bench=$build/apps/climate/exadnn_climate_mpi_bench
mpirun=(mpirun --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none)
declare -A median
for np in 1 2; do
  out=$(OMP_NUM_THREADS=1 "${mpirun[@]}" -np "$np" "$bench" "$@")
  echo "$out"
  median[$np]=$(echo "$out" | sed -n 's/^median:.*: \([0-9.e+-]*\) DOF-stages\/s.*/\1/p')
done
awk -v r1="${median[1]}" -v r2="${median[2]}" 'BEGIN {
  printf "strong scaling 1 -> 2 ranks: speed-up %.3f, efficiency %.1f %%\n", r2 / r1, 50 * r2 / r1 }'
