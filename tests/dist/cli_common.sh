# Shared by the tests/dist/cli_*.sh scripts (sourced, after their own usage line):
#   SCRIPT EXADNN_BINARY "MPIEXEC COMMAND"
# Sets exadnn, mpiexec, config (the Fashion-MNIST MLP) and a scratch directory $work, and defines
#   run NP OUT.json SETTINGS...   mpirun -np NP exadnn train --set SETTING... --metrics-out OUT.json
#   field FILE.json KEY           a top-level value of a metrics file
#   not_below A B MARGIN WHAT     fails (naming WHAT) unless B >= A - MARGIN
set -euo pipefail
exadnn="$1"; read -r -a mpiexec <<< "$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
config="$here/configs/fashion_mnist_mlp.yaml"
run() {
  local np="$1" out="$2"; shift 2
  local sets=(); for s in "$@"; do sets+=(--set "$s"); done
  OMP_NUM_THREADS=1 EXADNN_DIST_TIMEOUT=120 "${mpiexec[@]}" -np "$np" "$exadnn" train --config "$config" \
    --set threads=1 "${sets[@]}" --metrics-out "$out" > "$out.log" 2>&1 || { cat "$out.log"; exit 1; }
}
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
not_below() {
  python3 -c "import sys; sys.exit(0 if float(sys.argv[2]) >= float(sys.argv[1]) - float(sys.argv[3]) else 1)" \
    "$1" "$2" "$3" || { echo "FAIL: $4: $2 is more than $3 below $1"; exit 1; }
}
