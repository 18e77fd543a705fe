# Shared by the tests/dist/cli_*.sh scripts (sourced, after their own usage line):
#   SCRIPT EXADNN_BINARY "MPIEXEC COMMAND"
# Sets exadnn, mpiexec, config (the Fashion-MNIST MLP) and a scratch directory $work, and defines
#   run NP OUT.json SETTINGS... [-- FLAGS...]
#                                 mpirun -np NP exadnn train --set SETTING... FLAGS...
#                                 --metrics-out OUT.json (the log: OUT.json.log)
#   field FILE.json KEY           a top-level value of a metrics file
#   last_epoch FILE.json          the last epoch's train loss and test accuracy, every digit
#   not_below A B MARGIN WHAT     fails (naming WHAT) unless B >= A - MARGIN
#   same A.json B.json WHAT [last]
#                                 fails unless every epoch (or the last) of B has A's train loss to
#                                 1e-5 relative and A's test accuracy
#   close A.json B.json WHAT RTOL every epoch of B has A's train loss to RTOL relative
#   one OUT.json FLAGS...         one process (no distributed) on $config
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
# same A.json B.json WHAT [last]: every epoch (or only the last) of B equals A's.
same() {
  python3 - "$@" <<'PY'
import json, sys
a, b = (json.load(open(p))["epochs"] for p in sys.argv[1:3])
what, pairs = sys.argv[3], list(zip(a, b))
if len(sys.argv) > 4: pairs = pairs[-1:]
assert len(a) == len(b), f"FAIL: {what}: {len(a)} and {len(b)} epochs"
for ea, eb in pairs:
    rel = abs(ea["train_loss"] - eb["train_loss"]) / abs(ea["train_loss"])
    print(f"{what}, epoch {ea['epoch']}: train loss {ea['train_loss']:.10f} / {eb['train_loss']:.10f} "
          f"(relative difference {rel:.1e}), test accuracy {ea['test_accuracy']} / {eb['test_accuracy']}")
    assert rel <= 1e-5, f"FAIL: {what}: epoch {ea['epoch']}: the losses differ by {rel:.1e}"
    assert ea["test_accuracy"] == eb["test_accuracy"], f"FAIL: {what}: the test accuracy differs"
PY
}
# close A.json B.json WHAT RTOL: every epoch of B has A's train loss to RTOL relative (for runs
# whose roundings differ by design, e.g. bf16 gradients rounded per rank before their sum).
close() {
  python3 - "$@" <<'PY'
import json, sys
a, b = (json.load(open(p))["epochs"] for p in sys.argv[1:3])
what, rtol = sys.argv[3], float(sys.argv[4])
assert len(a) == len(b), f"FAIL: {what}: {len(a)} and {len(b)} epochs"
for ea, eb in zip(a, b):
    rel = abs(ea["train_loss"] - eb["train_loss"]) / abs(ea["train_loss"])
    print(f"{what}, epoch {ea['epoch']}: train loss {ea['train_loss']:.10f} / {eb['train_loss']:.10f} "
          f"(relative difference {rel:.1e}, allowed {rtol:.1e}), test accuracy {ea['test_accuracy']} / {eb['test_accuracy']}")
    assert rel <= rtol, f"FAIL: {what}: epoch {ea['epoch']}: the losses differ by {rel:.1e}"
PY
}
# one OUT.json FLAGS...: one process (no distributed).
one() {
  local out="$1"; shift
  OMP_NUM_THREADS=1 "$exadnn" train --config "$config" --set threads=1 "$@" --metrics-out "$out" \
    > "$out.log" 2>&1 || { cat "$out.log"; exit 1; }
}
