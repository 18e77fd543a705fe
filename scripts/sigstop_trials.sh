#!/usr/bin/env bash
# The README's promise "a rank that stops answering makes the others name it and end the job",
# tried with SIGSTOP (a rank frozen, not dead) under both gradient transports of the allreduce
# mode: each trial starts 2-rank data-parallel training on Fashion-MNIST, stops rank 1 at a random
# moment, and counts a hang when the job has not ended 40 s after distributed.timeout_s (10 s).
#   bash scripts/sigstop_trials.sh [TRIALS=10] [BUILD=build]
set -uo pipefail
cd "$(dirname "$0")/.."
trials="${1:-10}"
exadnn="${2:-build}/tools/exadnn"
[ -x "$exadnn" ] || { echo "no $exadnn: build first (scripts/test.sh or cmake --build build)"; exit 2; }
mpirun=(mpirun --allow-run-as-root --oversubscribe -np 2)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# rank_pid LAUNCHER RANK: the PID of an MPI rank among mpirun's children.
source scripts/kill_common.sh

hangs=0 ended=0
for transport in mpi shared_memory; do
  for ((t = 1; t <= trials; t++)); do
    log="$work/$transport-$t.log"
    OMP_NUM_THREADS=1 "${mpirun[@]}" "$exadnn" train --set epochs=50 \
      --set distributed.mode=allreduce --set distributed.transport="$transport" \
      --set distributed.timeout_s=10 >"$log" 2>&1 &
    launcher=$!
    delay=$((3 + RANDOM % 12))
    sleep "$delay"
    victim=$(rank_pid "$launcher" 1)
    if [ -z "$victim" ]; then
      echo "$transport trial $t: rank 1 not found after ${delay}s (job ended early?)"
      wait "$launcher"
      continue
    fi
    kill -STOP "$victim"
    start=$SECONDS
    while kill -0 "$launcher" 2>/dev/null && ((SECONDS - start < 50)); do sleep 1; done
    if kill -0 "$launcher" 2>/dev/null; then
      hangs=$((hangs + 1))
      echo "$transport trial $t: HANG (rank 1 stopped after ${delay}s; job alive 50 s later)"
      pkill -KILL -P "$launcher"
      kill -KILL "$launcher" 2>/dev/null
    else
      ended=$((ended + 1))
      msg=$(grep -m1 -o "ranks that have not arrived: [^;]*" "$log" || grep -m1 "exadnn" "$log")
      echo "$transport trial $t: ended $((SECONDS - start)) s after the stop at ${delay}s: $msg"
    fi
    wait "$launcher" 2>/dev/null
  done
done
echo "sigstop trials: $ended ended with an error, $hangs hung"
[ "$hangs" -eq 0 ]
