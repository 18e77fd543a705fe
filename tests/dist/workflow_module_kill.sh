#!/usr/bin/env bash
# A workflow whose module process is SIGKILLed mid-run (issue 20): the `exec` module `train` runs
# `exadnn train` (many epochs), and the test kills that program at a random moment of its run
# (0-3 s after it appears). Then
#   on_error: continue   the workflow goes on (the dependent module `after` runs), reports the
#                        killed module and the signal, and `exadnn flow run` exits 0;
#   on_error: stop       the workflow ends with the module and the signal named, `after` does
#                        not run, and the exit status is 1.
# Every run must end within 60 s. (A module that runs inside a rank dies with its rank: Open MPI
# then ends the whole job naming the rank; scripts/rank_kill_trials.sh's workflow mode.)
#   usage: workflow_module_kill.sh EXADNN_BINARY "MPIEXEC COMMAND" [TRIALS=2]
source "$(dirname "$0")/cli_common.sh"
source "$here/scripts/kill_common.sh"
trials=${3:-2}
killed="module 'train' instance 0 iteration 0 failed on rank 1: .*was killed by signal 9"
for on_error in continue stop; do
  for ((t = 1; t <= trials; t++)); do
    marker="$work/$on_error.$t.ckpt"  # a checkpoint folder: names this trial's program
    cat > "$work/module_kill.yaml" <<YAML
modules:
  train:
    run: exec
    on_error: $on_error
    args: {program: $exadnn, args: "train --config $here/tests/cli/kill_campaign.yaml --set threads=1 --set epochs=100 --checkpoint-dir $marker"}
  after: {run: exec, args: {program: echo, args: "after ran"}}
workflow:
  groups:
    - {name: a, modules: [train]}
    - {name: b, modules: [after], after: a}
YAML
    log="$work/$on_error.$t.log"
    OMP_NUM_THREADS=1 timeout -k 5 60 "${mpiexec[@]}" -np 2 "$exadnn" flow run "$work/module_kill.yaml" > "$log" 2>&1 &
    job=$!
    program=""
    for ((i = 0; i < 300; i++)); do  # up to 30 s
      program=$(pgrep -f -- "--checkpoint-dir $marker" || true)
      [[ -z $program ]] || break
      sleep 0.1
    done
    [[ -n $program ]] || { cat "$log"; echo "FAIL: $on_error trial $t: the module's program did not start"; exit 1; }
    delay=$(awk -v r="$RANDOM" 'BEGIN { printf "%.1f", 3 * r / 32768 }')
    sleep "$delay"
    kill -KILL "$program" || { cat "$log"; echo "FAIL: $on_error trial $t: the program ended before its kill"; exit 1; }
    status=0; wait "$job" || status=$?
    echo "on_error: $on_error, trial $t: program killed ${delay} s after its start; exit status $status"
    grep -m1 -E "$killed" "$log" || true  # not "| head -1": under pipefail grep could die of SIGPIPE
    want=0; [[ $on_error == stop ]] && want=1
    ((status == want)) || { cat "$log"; echo "FAIL: exit status $status, expected $want (124: hung)"; exit 1; }
    grep -qE "$killed" "$log" || { cat "$log"; echo "FAIL: the killed module is not named"; exit 1; }
    if [[ $on_error == continue ]]; then
      grep -q "after ran" "$log" && grep -qE "workflow finished: 2 tasks .* 1 failure" "$log" \
        || { cat "$log"; echo "FAIL: with on_error: continue the workflow did not go on"; exit 1; }
    else
      ! grep -q "after ran" "$log" || { cat "$log"; echo "FAIL: with on_error: stop the dependent module ran"; exit 1; }
    fi
  done
done
echo PASS
