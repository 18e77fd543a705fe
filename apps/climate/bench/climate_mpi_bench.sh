#!/usr/bin/env bash
# Strong scaling 1 → 2 ranks of the DG solver: exadnn_climate_mpi_bench on 1 and 2 ranks, the
# same mesh, and the efficiency (rate on 2 ranks) / (2 × rate on 1 rank) of the median rates,
# per wall-clock second, and per CPU second (which other jobs on the cores do not dilute).
# Usage: bench/climate_mpi_bench.sh <build dir> [Ne p seconds-per-run runs split|divergence]
set -euo pipefail
build=${1:?usage: climate_mpi_bench.sh <build dir> [Ne p seconds runs form]}
shift
bench=$build/apps/climate/exadnn_climate_mpi_bench
mpirun=(mpirun --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none)
declare -A wall cpu work
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for np in 1 2; do
  out=$(OMP_NUM_THREADS=1 "${mpirun[@]}" -np "$np" "$bench" "$@")
  echo "$out"
  wall[$np]=$(echo "$out" | sed -n 's/^median:.*: \([0-9.e+-]*\) DOF-stages\/s.*/\1/p')
  cpu[$np]=$(echo "$out" | sed -n 's/^median:.* \([0-9.e+-]*\) per CPU s, .*/\1/p')
  work[$np]=$(echo "$out" | sed -n 's/^median:.* \([0-9.e+-]*\) per CPU s outside.*/\1/p')
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v w1="${wall[1]}" -v w2="${wall[2]}" -v c1="${cpu[1]}" -v c2="${cpu[2]}" \
  -v k1="${work[1]}" -v k2="${work[2]}" 'BEGIN {
  printf "strong scaling 1 -> 2 ranks: wall-clock speed-up %.3f, efficiency %.1f %%; ", w2 / w1,
    50 * w2 / w1
  printf "per CPU second: %.1f %%; per CPU second outside the waits: %.1f %%\n", 100 * c2 / c1,
    100 * k2 / k1 }'
