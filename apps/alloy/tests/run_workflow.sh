#!/usr/bin/env bash
# Runs an alloy workflow under mpirun in a fresh folder and checks that it succeeded and wrote
# what it should.
#   run_workflow.sh EXADNN "MPIEXEC ..." RANKS CONTROL_FILE WORKDIR OUTPUT... [-- PATTERN...]
# Every OUTPUT must exist and be non-empty; every PATTERN (extended regex) must be in the log.
set -euo pipefail
exadnn=$1 mpiexec=$2 ranks=$3 control=$4 workdir=$5
shift 5
rm -rf "$workdir" && mkdir -p "$workdir" && cd "$workdir"
outputs=() patterns=()
while (($#)) && [[ $1 != -- ]]; do outputs+=("$1"); shift; done
(($#)) && shift
patterns=("$@")
# shellcheck disable=SC2086  # mpiexec is a command with its options
if ! $mpiexec -n "$ranks" "$exadnn" flow run "$control" > log.txt 2>&1; then
  cat log.txt
  echo "FAIL: the workflow exited non-zero" >&2
  exit 1
fi
cat log.txt
for f in "${outputs[@]}"; do
  [[ -s $f ]] || { echo "FAIL: $f was not written" >&2; exit 1; }
done
for p in "${patterns[@]}"; do
  grep -Eq "$p" log.txt || { echo "FAIL: the log lacks /$p/" >&2; exit 1; }
done
echo "workflow ok"
