#!/usr/bin/env bash
# `mpirun exadnn train` with distributed.mode=async_rma on the Fashion-MNIST MLP:
#  1. 2 ranks, 3 epochs: test accuracy no more than 1 point below synchronous allreduce on 2 ranks,
#     with the config's SGD momentum 0.9 (unbounded, and with staleness 2 and atomic reads) and
#     with plain SGD (a draw below the bound is drawn again, up to 4 draws; see below);
#  2. 1 rank, plain SGD: exactly the single-process run (same loss and accuracy, every digit).
#   usage: cli_async_rma.sh EXADNN_BINARY "MPIEXEC COMMAND"
source "$(dirname "$0")/cli_common.sh"

# One run of asynchronous SGD is one draw: its accuracy depends on timing (which updates each
# gradient saw), and with SGD momentum 0.9 the last epoch's weights can sit on a dip. 3-epoch
# runs here (docs/performance.md): allreduce 85.02 % (seed 0; seeds 1-6: 84.5-86.6 %); async_rma
# 83.4-86.0 % (5 runs), with staleness 2 84.0-85.5 % (5 runs; a CI run once drew 81.6 %); plain
# SGD 83.5-84.7 % against allreduce's 79.5 %. So a draw below the bound is drawn again, up to 4
# draws in all, and the test fails when every draw is below: a systematic loss fails it, an
# unlucky draw does not.
async_accuracy() {  # KEY LABEL REFERENCE SETTINGS...: the first draw within 1 point of REFERENCE
  local key="$1" label="$2" sync="$3"; shift 3
  local draws="" accuracy
  for draw in 1 2 3 4; do
    run 2 "$work/$key.$draw.json" epochs=3 distributed.mode=async_rma "$@" >&2
    accuracy=$(field "$work/$key.$draw.json" test_accuracy)
    draws="$draws${draws:+, }$accuracy"
    if (not_below "$sync" "$accuracy" 0.01 "$label") > /dev/null; then
      [ "$draw" = 1 ] || echo "$label: drawn $draw times: $draws" >&2
      echo "$accuracy"; return
    fi
  done
  not_below "$sync" "$accuracy" 0.01 "$label accuracy (4 draws: $draws)" >&2
}

plain=(optimizer.momentum=0 optimizer.lr=0.1)
run 2 "$work/sync.json" epochs=3 distributed.mode=allreduce
sync=$(field "$work/sync.json" test_accuracy)
rma=$(async_accuracy rma "async_rma (momentum 0.9)" "$sync")
bounded=$(async_accuracy bounded "async_rma (momentum 0.9, staleness 2)" "$sync" \
  distributed.staleness=2 distributed.atomic_reads=true)
run 2 "$work/sync_plain.json" epochs=3 distributed.mode=allreduce "${plain[@]}"
sync_plain=$(field "$work/sync_plain.json" test_accuracy)
rma_plain=$(async_accuracy rma_plain "async_rma (plain SGD)" "$sync_plain" "${plain[@]}")
echo "2 ranks after 3 epochs: momentum 0.9: allreduce $sync, async_rma $rma, async_rma" \
  "(staleness 2, atomic reads) $bounded; plain SGD: allreduce $sync_plain, async_rma $rma_plain"
[ "$(field "$work/rma.1.json" ranks)" = 2 ] || { echo "FAIL: metrics do not report 2 ranks"; exit 1; }

run 1 "$work/serial.json" epochs=1 optimizer.momentum=0
run 1 "$work/one.json" epochs=1 optimizer.momentum=0 distributed.mode=async_rma
python3 - "$work/serial.json" "$work/one.json" <<'PY' || exit 1
import json, sys
a, b = (json.load(open(f))["epochs"][0] for f in sys.argv[1:])
print("1 rank, plain SGD: serial", a["train_loss"], a["test_accuracy"], "async_rma", b["train_loss"], b["test_accuracy"])
sys.exit(0 if (a["train_loss"], a["test_accuracy"]) == (b["train_loss"], b["test_accuracy"]) else "FAIL: they differ")
PY
echo PASS
