#!/usr/bin/env bash
# `mpirun exadnn train` with distributed.mode=async_rma on the Fashion-MNIST MLP:
#  1. 2 ranks, 3 epochs: test accuracy no more than 1 point below synchronous allreduce on 2 ranks;
#     the same with a staleness bound and atomic reads;
#  2. 1 rank, plain SGD: exactly the single-process run (same loss and accuracy, every digit).
#   usage: cli_async_rma.sh EXADNN_BINARY "MPIEXEC COMMAND"
source "$(dirname "$0")/cli_common.sh"

run 2 "$work/sync.json" epochs=3 distributed.mode=allreduce
run 2 "$work/rma.json" epochs=3 distributed.mode=async_rma
run 2 "$work/bounded.json" epochs=3 distributed.mode=async_rma distributed.staleness=2 \
  distributed.atomic_reads=true
sync=$(field "$work/sync.json" test_accuracy); rma=$(field "$work/rma.json" test_accuracy)
bounded=$(field "$work/bounded.json" test_accuracy)
echo "2 ranks after 3 epochs: allreduce $sync, async_rma $rma, async_rma (staleness 2, atomic reads) $bounded"
[ "$(field "$work/rma.json" ranks)" = 2 ] || { echo "FAIL: metrics do not report 2 ranks"; exit 1; }
not_below "$sync" "$rma" 0.01 "async_rma accuracy"
not_below "$sync" "$bounded" 0.01 "async_rma (staleness 2) accuracy"

run 1 "$work/serial.json" epochs=1 optimizer.momentum=0
run 1 "$work/one.json" epochs=1 optimizer.momentum=0 distributed.mode=async_rma
python3 - "$work/serial.json" "$work/one.json" <<'PY' || exit 1
import json, sys
a, b = (json.load(open(f))["epochs"][0] for f in sys.argv[1:])
print("1 rank, plain SGD: serial", a["train_loss"], a["test_accuracy"], "async_rma", b["train_loss"], b["test_accuracy"])
sys.exit(0 if (a["train_loss"], a["test_accuracy"]) == (b["train_loss"], b["test_accuracy"]) else "FAIL: they differ")
PY
echo PASS
