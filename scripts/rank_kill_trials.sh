#!/usr/bin/env bash
# MPI faults: one rank of a job SIGKILLed at a random moment. Every run must end within a
# deadline with a message naming the dead rank, never hang. Modes (each an `exadnn` MPI job):
#   allreduce     data-parallel training, 2 ranks      (tests/cli/kill_campaign.yaml, many epochs)
#   param_server  synchronous parameter server, 3 ranks (2 workers, 1 server)
#   async_rma     asynchronous SGD over MPI RMA, 2 ranks
#   workflow      `exadnn flow run` of a training ensemble, 4 ranks (scheduler, 2 workers,
#                 a tuple-space server)
# Each trial draws the victim rank (any rank, rank 0 included) and the moment (uniform in
# 0.5-10 s after the launch: the start-up, the data loading and the training), kills it, and
# measures the time until mpirun has ended. A run still alive DEADLINE s after the kill is a hang
# (then killed). The message must name the victim: mpirun's "rank R with PID ... exited on signal
# 9", or exadnn's own bounded waits ("ranks that have not arrived: ... R", "ranks that made no
# progress: ... R").
#   scripts/rank_kill_trials.sh EXADNN [TRIALS=20] [MODES="allreduce param_server async_rma workflow"]
# Environment: RANK_KILL_DEADLINE (s, default 60), RANK_KILL_SEED (default: the PID),
# RANK_KILL_MPIEXEC (default "mpirun --allow-run-as-root --oversubscribe").
# Prints one line per trial and one summary line per mode; exits non-zero when a run hung or did
# not name its dead rank.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$here/scripts/kill_common.sh"
exadnn=$(realpath "$1")
trials=${2:-20}
modes=${3:-allreduce param_server async_rma workflow}
deadline=${RANK_KILL_DEADLINE:-60}
seed=${RANK_KILL_SEED:-$$}
RANDOM=$seed
read -r -a mpiexec <<< "${RANK_KILL_MPIEXEC:-mpirun --allow-run-as-root --oversubscribe}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
config=$here/tests/cli/kill_campaign.yaml
# The workflow: 8 thirty-epoch trainings (minutes: the kill lands mid-run) of the kill campaign's MLP scheduled over 2 workers, then
# select_best collects their results from the tuple space.
cat > "$work/workflow.yaml" <<YAML
modules:
  train:
    run: train_mlp
    args: {epochs: 30, threads: 1, config: $config}
    ensemble: {instances: 8}
  select: {run: select_best, args: {results: 8}}
workflow:
  groups:
    - {name: sweep, modules: [train]}
    - {name: report, modules: [select], after: [sweep]}
tuple_space: {servers: 1}
YAML

# The job of a mode (ranks, then the command after mpirun's -np N).
train=("$exadnn" train --config "$config" --set threads=1 --set epochs=1000)
job() {
  case $1 in
    allreduce) echo 2; job_command=("${train[@]}" --set distributed.mode=allreduce) ;;
    param_server) echo 3; job_command=("${train[@]}" --set distributed.mode=param_server --set distributed.servers=1) ;;
    async_rma) echo 2; job_command=("${train[@]}" --set distributed.mode=async_rma) ;;
    workflow) echo 4; job_command=("$exadnn" flow run "$work/workflow.yaml") ;;
    *) echo "unknown mode '$1' (allreduce, param_server, async_rma, workflow)" >&2; exit 2 ;;
  esac
}

echo "rank kill trials: $trials per mode, deadline ${deadline} s after the kill (seed $seed)"
failures=0
for mode in $modes; do
  job "$mode" > "$work/np"
  np=$(< "$work/np")
  job "$mode" > /dev/null  # (sets job_command in this shell)
  ended=0 named=0 times=()
  for ((t = 1; t <= trials; t++)); do
    log=$work/$mode.$t.log
    (cd "$work" && exec env OMP_NUM_THREADS=1 "${mpiexec[@]}" -np "$np" "${job_command[@]}") > "$log" 2>&1 &
    launcher=$!
    victim=$((RANDOM % np))
    delay=$(awk -v r="$RANDOM" 'BEGIN { printf "%.1f", 0.5 + 9.5 * r / 32768 }')
    sleep "$delay"
    # (a rank that mpirun has not started yet, on a busy machine, is waited for, up to 10 s)
    for ((i = 0; i < 100; i++)); do
      pid=$(rank_pid "$launcher" "$victim") && break
      kill -0 "$launcher" 2> /dev/null || break
      sleep 0.1
    done
    if [[ -z $pid ]]; then
      kill_tree "$launcher"; wait "$launcher" 2> /dev/null
      echo "$mode trial $t: rank $victim not running ${delay} s after the launch (job ended with status $?):"
      tail -8 "$log" | sed 's/^/    /'
      failures=$((failures + 1))
      continue
    fi
    kill -KILL "$pid"
    start=$(date +%s.%N)
    while kill -0 "$launcher" 2> /dev/null; do
      awk -v a="$start" -v b="$(date +%s.%N)" -v d="$deadline" 'BEGIN { exit !(b - a > d) }' && break
      sleep 0.2
    done
    if kill_tree "$launcher"; then
      wait "$launcher" 2> /dev/null
      echo "$mode trial $t: HANG: rank $victim killed at ${delay} s, job alive ${deadline} s later"
      tail -5 "$log" | sed 's/^/    /'
      failures=$((failures + 1))
      continue
    fi
    wait "$launcher" 2> /dev/null
    seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    ended=$((ended + 1)) times+=("$seconds")
    message=$(grep -m1 -oE "rank $victim with PID [0-9]+ on node [^ ]+ exited on signal 9|(ranks that have not arrived|ranks that made no progress): ([0-9]+[^,;]*, )*$victim( [^,;]*)?([,;]|$)" "$log")
    if [[ -n $message ]]; then
      named=$((named + 1))
      echo "$mode trial $t: rank $victim killed at ${delay} s; ended ${seconds} s later: $message"
    else
      failures=$((failures + 1))
      echo "$mode trial $t: rank $victim killed at ${delay} s; ended ${seconds} s later WITHOUT naming it:"
      tail -5 "$log" | sed 's/^/    /'
    fi
  done
  median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  echo "SUMMARY $mode: $trials trials, $ended ended within ${deadline} s, $named named the dead rank, median time to end ${median} s"
done
((failures == 0)) || { echo "FAIL: $failures trials hung, ended early or did not name the dead rank"; exit 1; }
echo "rank kill trials ok"
