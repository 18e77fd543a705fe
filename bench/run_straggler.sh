#!/usr/bin/env bash
# Issue 5's straggler benchmark: the Fashion-MNIST MLP (configs/fashion_mnist_mlp.yaml) on 2 ranks
# x 1 thread, synchronous allreduce against asynchronous SGD over MPI RMA (distributed.mode
# async_rma), with rank 1 slowed down 2x by EXADNN_STRAGGLER=1:2 (after each step it sleeps as
# long as its fastest step took; see src/train/mpi/mpi_strategies.cpp), and without a straggler.
# For each run: samples/s (over the slowest rank's time) and test accuracy per epoch; then the
# time async_rma needs to reach the synchronous run's final accuracy, as samples/s of sync's work.
#   usage: bench/run_straggler.sh [BUILD_DIR] [EPOCHS] [SLOWDOWN]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}" EPOCHS="${2:-3}" SLOWDOWN="${3:-2}"
MPI=(mpirun --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none --bind-to none)
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
uptime
run() {  # run NAME MODE STRAGGLER
  EXADNN_STRAGGLER="$3" "${MPI[@]}" -np 2 -x EXADNN_STRAGGLER "$BUILD/tools/exadnn" train \
    --config configs/fashion_mnist_mlp.yaml --set threads=1 --set epochs="$EPOCHS" \
    --set distributed.mode="$2" --metrics-out "$work/$1.json" > "$work/$1.log" 2>&1 \
    || { cat "$work/$1.log"; exit 1; }
}
run sync_straggler allreduce "1:$SLOWDOWN"
run rma_straggler async_rma "1:$SLOWDOWN"
run sync allreduce "0:1"
run rma async_rma "0:1"
uptime
python3 - "$work" "$SLOWDOWN" <<'PY'
import json, sys
work, slowdown = sys.argv[1], sys.argv[2]
def load(name): return json.load(open(f"{work}/{name}.json"))
print(f"{'run':<34} {'samples/s':>10} {'seconds':>8}  test accuracy per epoch")
for name, label in [("sync", "allreduce"), ("rma", "async_rma"),
                    ("sync_straggler", f"allreduce, rank 1 {slowdown}x slower"),
                    ("rma_straggler", f"async_rma, rank 1 {slowdown}x slower")]:
    m = load(name); secs = sum(e["seconds"] for e in m["epochs"])
    n = sum(e["samples_per_second"] * e["seconds"] for e in m["epochs"])
    print(f"{label:<34} {n / secs:>10.0f} {secs:>8.1f}  " +
          " ".join(f"{100 * e['test_accuracy']:.2f}" for e in m["epochs"]))
for tag in ["", "_straggler"]:
    sync, rma = load("sync" + tag), load("rma" + tag)
    target = sync["test_accuracy"]
    sync_secs = sum(e["seconds"] for e in sync["epochs"])
    elapsed = 0.0
    for e in rma["epochs"]:
        elapsed += e["seconds"]
        if e["test_accuracy"] >= target:
            print(f"{'with' if tag else 'without'} straggler: async_rma reaches allreduce's "
                  f"{100 * target:.2f}% after {elapsed:.1f} s (epoch {e['epoch']}) vs {sync_secs:.1f} s: "
                  f"{sync_secs / elapsed:.2f}x allreduce's samples/s")
            break
    else:
        print(f"{'with' if tag else 'without'} straggler: async_rma ends at "
              f"{100 * rma['test_accuracy']:.2f}%, below allreduce's {100 * target:.2f}%")
PY
