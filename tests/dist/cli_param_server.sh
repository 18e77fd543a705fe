#!/usr/bin/env bash
# `mpirun exadnn train` in the MPI modes on the Fashion-MNIST MLP (configs/fashion_mnist_mlp.yaml):
#  1. the asynchronous (Downpour) parameter server ends within 1.5 points of the synchronous one
#     after 2 epochs (3 ranks: 2 workers, 1 server);
#  2. allreduce on 2 ranks: 1 epoch + --resume + 1 epoch ends exactly where 2 straight epochs do,
#     and only rank 0 writes the checkpoint and the metrics (which report 2 ranks).
#   usage: cli_param_server.sh EXADNN_BINARY "MPIEXEC COMMAND"
source "$(dirname "$0")/cli_common.sh"

# Plain SGD (lr 0.1) for both: momentum amplifies the staleness of Downpour's updates, which
# grows when the machine is busy, and makes the comparison depend on the load.
plain=(optimizer.momentum=0 optimizer.lr=0.1)
run 3 "$work/sync.json" epochs=2 distributed.mode=param_server distributed.servers=1 "${plain[@]}"
run 3 "$work/async.json" epochs=2 distributed.mode=param_server distributed.servers=1 distributed.asynchronous=true "${plain[@]}"
sync=$(field "$work/sync.json" test_accuracy); async=$(field "$work/async.json" test_accuracy)
echo "parameter server after 2 epochs: synchronous $sync, asynchronous $async"
[ "$(field "$work/sync.json" ranks)" = 3 ] || { echo "metrics do not report 3 ranks"; exit 1; }
not_below "$sync" "$async" 0.015 "asynchronous parameter-server accuracy"

cd "$work"
run 2 "$work/straight.json" epochs=2 distributed.mode=allreduce
mkdir ckpt
OMP_NUM_THREADS=1 "${mpiexec[@]}" -np 2 "$exadnn" train --config "$config" --set threads=1 --set epochs=1 \
  --set distributed.mode=allreduce --checkpoint-dir ckpt > first.log 2>&1 || { cat first.log; exit 1; }
OMP_NUM_THREADS=1 "${mpiexec[@]}" -np 2 "$exadnn" train --config "$config" --set threads=1 --set epochs=2 \
  --set distributed.mode=allreduce --checkpoint-dir ckpt --resume --metrics-out resumed.json > second.log 2>&1 \
  || { cat second.log; exit 1; }
a=$(field straight.json test_accuracy); b=$(field resumed.json test_accuracy)
echo "allreduce, 2 ranks: straight $a, resumed $b"
[ "$a" = "$b" ] || { echo "FAIL: the resumed run ended at $b, the straight one at $a"; exit 1; }
[ "$(ls ckpt)" = "last.ckpt" ] || { echo "FAIL: checkpoint directory holds: $(ls ckpt)"; exit 1; }
[ "$(field straight.json ranks)" = 2 ] || { echo "FAIL: metrics do not report 2 ranks"; exit 1; }
echo PASS
