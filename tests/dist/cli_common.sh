# Shared by the tests/dist/cli_*.sh scripts (sourced, after their own usage line):
#   SCRIPT EXADNN_BINARY "MPIEXEC COMMAND"
# Sets exadnn, mpiexec, config (the Fashion-MNIST MLP) and a scratch directory $work, and defines
#   run NP OUT.json SETTINGS... [-- FLAGS...]
#                                 mpirun -np NP exadnn train --set SETTING... FLAGS...
#                                 --metrics-out OUT.json (the log: OUT.json.log)
#   field FILE.json KEY           a top-level value of a metrics file
#   last_epoch FILE.json          the last epoch's train loss and test accuracy, every digit
#   not_below A B MARGIN WHAT     fails (naming WHAT) unless B >= A - MARGIN
set -euo pipefail
exadnn="$1"; read -r -a mpiexec <<< "$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
config="$here/configs/fashion_mnist_mlp.yaml"
run() {
  local np="$1" out="$2"; shift 2
  local args=(); while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=(--set "$1"); shift; done
  if [ $# -gt 0 ]; then shift; fi
  OMP_NUM_THREADS=1 EXADNN_DIST_TIMEOUT=120 "${mpiexec[@]}" -np "$np" "$exadnn" train --config "$config" \
    --set threads=1 "${args[@]}" "$@" --metrics-out "$out" > "$out.log" 2>&1 || { cat "$out.log"; exit 1; }
}
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
last_epoch() {
  python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['epochs'][-1]; print(repr(e['train_loss']), repr(e['test_accuracy']))" "$1"
}
not_below() {
  python3 -c "import sys; sys.exit(0 if float(sys.argv[2]) >= float(sys.argv[1]) - float(sys.argv[3]) else 1)" \
    "$1" "$2" "$3" || { echo "FAIL: $4: $2 is more than $3 below $1"; exit 1; }
}
