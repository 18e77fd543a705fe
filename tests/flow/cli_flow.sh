#!/usr/bin/env bash
# `exadnn flow` from the command line.
#   usage: cli_flow.sh MODE EXADNN_BINARY "MPIEXEC COMMAND" TEST_LIBRARY
# MODE commands: check and graph on the examples and on invalid files (exit code 2, lines named);
#      errors:   a module that throws ends `mpirun -np 3 exadnn flow run` with exit code 1 and a
#                message naming it; with on_error: continue the run goes on and exits 0; peers
#                stuck waiting for the rank that threw end in an abort after the grace period;
#      sweep:    workflows/hyperparameter_sweep.yaml on 4 ranks writes the best configuration;
#      in_situ:  apps/diffusion/workflows/in_situ_learning.yaml on 3 ranks learns the simulation's stencil;
#      exec:     the built-in module `exec` runs programs: its output goes to the tuple space and
#                from there to another program's stdin; a non-zero exit, a missing program and a
#                timeout fail the instance with the program's stderr, and on_error: continue goes on;
#      failed_producers: the examples' modules with a failing producer (on_error: continue) end
#                instead of hanging: the learner whose simulation failed, and select_best whose
#                trainings failed, are reported as failed, naming the cause (each run is cut at
#                100 s, so a hang is a failure).
set -uo pipefail
mode="$1"; exadnn="$2"; read -r -a mpiexec <<< "$3"; library="$4"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cd "$work"
export OMP_NUM_THREADS=1 EXADNN_DIST_TIMEOUT=60
fail() { echo "FAIL: $*"; exit 1; }
# expect CODE PATTERN COMMAND...: runs COMMAND, which must exit with CODE and print PATTERN.
expect() {
  local code="$1" pattern="$2"; shift 2
  "$@" > out.log 2>&1; local got=$?
  [ "$got" = "$code" ] || { cat out.log; fail "'$*' exited with $got, expected $code"; }
  grep -Eq -- "$pattern" out.log || { cat out.log; fail "'$*' did not print /$pattern/"; }
  echo "ok: $* -> $code, /$pattern/"
}
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [d:=d[k] for k in sys.argv[2:]]; print(d)" "$@"; }

case "$mode" in
commands)
  expect 0 "ok \(2 modules, 2 groups, 1 iteration; needs at least 3 ranks\)" \
    "$exadnn" flow check "$here/workflows/hyperparameter_sweep.yaml"
  expect 0 "ok \(2 modules, 1 groups, 2 iterations" "$exadnn" flow check "$here/apps/diffusion/workflows/in_situ_learning.yaml"
  expect 2 "the job has 2 ranks; the Executive needs 3 at least" \
    "$exadnn" flow check --ranks 2 "$here/workflows/hyperparameter_sweep.yaml"
  expect 2 "invalid_types.yaml:5: module 'simulate' 'ranks' \(or 'all'\) must be an integer" \
    "$exadnn" flow check "$here/tests/flow/control_files/invalid_types.yaml"
  expect 2 "invalid_cycle.yaml:9: dependency cycle among groups: ga -> gc -> gb -> ga" \
    "$exadnn" flow check "$here/tests/flow/control_files/invalid_cycle.yaml"
  expect 0 "group report  \(after sweep\)" "$exadnn" flow graph "$here/workflows/hyperparameter_sweep.yaml"
  expect 0 "\"simulate\" -> \"learn\" \[style=dashed, label=\"snapshots\"\]" \
    "$exadnn" flow graph --dot "$here/apps/diffusion/workflows/in_situ_learning.yaml"
  ;;
errors)
  for on_error in stop continue; do
    cat > "$on_error.yaml" <<YAML
modules:
  greeter:
    run: '$library:flow_test_library_module'
    on_error: $on_error
    args: {size: 1, greeting: goodbye}
  next: {run: '$library:flow_test_library_module', args: {size: 1, greeting: hello}}
workflow:
  groups:
    - {name: first, modules: [greeter]}
    - {name: second, modules: [next], after: first}
YAML
  done
  expect 1 "module 'greeter' instance 0 iteration 0 failed on rank 1: .*wrong greeting" \
    "${mpiexec[@]}" -np 3 "$exadnn" flow run stop.yaml --timeline stop.json
  grep -q '"next"' stop.json && fail "the group after the failure ran"
  expect 0 "workflow finished: 2 tasks .* 1 failure" "${mpiexec[@]}" -np 3 "$exadnn" flow run continue.yaml \
    --timeline continue.json
  grep -q '"next"' continue.json || fail "with on_error: continue the next group did not run"
  # One rank of a 2-rank module throws, its peer waits for it in an allreduce: after the grace
  # period the scheduler aborts the job, naming the failure and the task still running.
  cat > stuck.yaml <<YAML
modules:
  pair: {run: '$library:flow_test_library_module', ranks: 2, args: {size: 2, greeting: hello, fail_rank: 0}}
YAML
  EXADNN_FLOW_STOP_GRACE=2 expect 1 "rank 0 gives up; still running after the grace period, aborting the job: module 'pair' on rank 2$" \
    "${mpiexec[@]}" -np 3 "$exadnn" flow run stuck.yaml
  ;;
sweep)
  expect 0 "best: instance [0-7], lr [0-9.]+, batch [0-9]+: test accuracy" \
    "${mpiexec[@]}" -np 4 "$exadnn" flow run "$here/workflows/hyperparameter_sweep.yaml"
  cat out.log | grep -A10 "^sweep:"
  python3 -c "import json; d=json.load(open('sweep_best.json')); assert len(d['all']) == 8; \
assert d['best']['test_accuracy'] == max(r['test_accuracy'] for r in d['all']) > 0.8, d['best']" \
    || fail "sweep_best.json"
  [ "$(python3 -c "import json; print(sum(e['ph'] == 'X' for e in json.load(open('sweep_timeline.json'))['traceEvents']))")" = 9 ] \
    || fail "the timeline does not hold 9 tasks"
  ;;
in_situ)
  expect 0 "workflow finished: 2 tasks" "${mpiexec[@]}" -np 3 "$exadnn" flow run "$here/apps/diffusion/workflows/in_situ_learning.yaml"
  grep -A4 "^surrogate" out.log
  error=$(field in_situ_surrogate.json max_stencil_error)
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 0.05 else 1)" "$error" \
    || fail "the learned stencil is $error away from the scheme's"
  ;;
exec)
  cat > exec.yaml <<YAML
modules:
  produce:
    run: exec
    args: {program: echo, args: "value {instance} of 'two  words'", result: "out/{instance}"}
    ensemble: {instances: 2}
  consume: {run: exec, args: {program: tr, args: "a-z A-Z", stdin: "out/1"}}
workflow:
  groups:
    - {name: a, modules: [produce]}
    - {name: b, modules: [consume], after: a}
tuple_space: {servers: 1}
YAML
  expect 0 "VALUE 1 OF TWO  WORDS" "${mpiexec[@]}" -np 3 "$exadnn" flow run exec.yaml
  for on_error in stop continue; do
    cat > failing_$on_error.yaml <<YAML
modules:
  fail:
    run: exec
    on_error: $on_error
    args: {program: sh, args: "-c 'echo broken input >&2; exit 3'"}
YAML
  done
  expect 1 "module 'fail' instance 0 iteration 0 failed on rank 1: .*'sh' exited with status 3; its stderr ends:" \
    "${mpiexec[@]}" -np 2 "$exadnn" flow run failing_stop.yaml
  grep -q "broken input" out.log || { cat out.log; fail "the program's stderr is not reported"; }
  expect 0 "workflow finished: 1 tasks .* 1 failure" "${mpiexec[@]}" -np 2 "$exadnn" flow run failing_continue.yaml
  cat > missing.yaml <<YAML
modules:
  missing: {run: exec, args: {program: no_such_program_xyz}}
YAML
  expect 1 "cannot run 'no_such_program_xyz': No such file or directory" \
    "${mpiexec[@]}" -np 2 "$exadnn" flow run missing.yaml
  cat > slow.yaml <<YAML
modules:
  slow: {run: exec, on_error: continue, args: {program: sleep, args: "30", timeout_s: 0.5}}
YAML
  expect 0 "'sleep' ran past timeout_s = 0.5 and was killed" \
    timeout 20 "${mpiexec[@]}" -np 2 "$exadnn" flow run slow.yaml
  ;;
failed_producers)
  # The simulation rejects its arguments (r above the stability limit) before sending anything.
  cat > in_situ.yaml <<YAML
modules:
  simulate: {run: diffusion_sim, on_error: continue, args: {n: 16, snapshots: 5, r: 0.3}}
  learn: {run: surrogate_train, args: {steps: 1}}
channels:
  - {name: snapshots, from: simulate, to: learn}
YAML
  expect 1 "module 'learn' instance 0 iteration 0 failed on rank 2: .*flow::Channel 'snapshots'.*module 'simulate' instance 0 iteration 0 failed on rank 1: .*stability" \
    timeout 100 "${mpiexec[@]}" -np 3 "$exadnn" flow run in_situ.yaml
  # Every training of the sweep fails (no such config file); select_best waits for two results.
  cat > sweep.yaml <<YAML
modules:
  train:
    run: train_mlp
    on_error: continue
    ensemble: {parameters: [{config: missing_a.yaml}, {config: missing_b.yaml}]}
  select: {run: select_best, args: {results: 2}}
workflow:
  groups:
    - {name: sweep, modules: [train]}
    - {name: report, modules: [select], after: sweep}
tuple_space: {servers: 1}
YAML
  expect 1 "module 'select' instance 0 iteration 0 failed on rank 1: .*got 0 of 2 results 'sweep/result/\*'.*no producer is left" \
    timeout 100 "${mpiexec[@]}" -np 3 "$exadnn" flow run sweep.yaml
  grep -q "module 'train' instance 1 iteration 0 failed on rank 1: .*missing_b.yaml" out.log \
    || { cat out.log; fail "the failed training is not reported"; }
  ;;
*) fail "unknown mode $mode" ;;
esac
echo PASS
