#!/usr/bin/env bash
# `mpirun exadnn train` with `parallel: {shard: true}` (ZeRO-1: the optimizer state split over the
# ranks) against plain allreduce on the same 2 ranks, an MLP with SGD momentum on a small CSV task:
#  1. every epoch's train loss agrees to 1e-5 relative, and the test accuracy is the same;
#  2. each rank keeps half of the optimizer state (the "distributed:" header's bytes);
#  3. the sharded run's checkpoint is in the one-process layout: `exadnn eval` reads it on one
#     process, and one process resumes it for a 4th epoch to the loss it reaches from the allreduce
#     run's checkpoint (1e-5 relative: the momentum buffers travelled whole);
#  4. and back: 2 sharded ranks resume the checkpoint for a 4th epoch to the loss allreduce reaches.
#   usage: cli_parallel.sh EXADNN_BINARY "MPIEXEC COMMAND"
source "$(dirname "$0")/cli_common.sh"

# 1024 training and 256 test rows of 16 features; the class (0..3) is the largest of 4 fixed
# projections. Label first (the csv dataset's label_column 0), with a header.
python3 - "$work" <<'PY'
import random, sys
rng = random.Random(7)
w = [[rng.gauss(0, 1) for _ in range(16)] for _ in range(4)]
for name, n in (("train", 1024), ("test", 256)):
    with open(f"{sys.argv[1]}/{name}.csv", "w") as f:
        f.write("label," + ",".join(f"x{i}" for i in range(16)) + "\n")
        for _ in range(n):
            x = [rng.gauss(0, 1) for _ in range(16)]
            y = max(range(4), key=lambda c: sum(a * b for a, b in zip(w[c], x)))
            f.write(f"{y}," + ",".join(f"{v:.6f}" for v in x) + "\n")
PY
config="$work/mlp.yaml"
cat > "$config" <<YAML
data: {dataset: csv, train: $work/train.csv, test: $work/test.csv, batch_size: 32, shuffle: true}
model:
  - linear: {out: 64}
  - relu
  - linear: {out: 4}
optimizer: {name: sgd, lr: 0.05, momentum: 0.9}
epochs: 3
seed: 0
YAML

allreduce=(distributed.mode=allreduce)
run 2 "$work/allreduce.json" "${allreduce[@]}" -- --checkpoint-dir "$work/allreduce-ckpt"
run 2 "$work/shard.json" "${allreduce[@]}" parallel.shard=true -- --checkpoint-dir "$work/shard-ckpt"
grep '^distributed:' "$work/shard.json.log"

# 1. The loss trajectory (every epoch's mean train loss) and the accuracy.
python3 - "$work/allreduce.json" "$work/shard.json" <<'PY'
import json, sys
a, s = (json.load(open(p))["epochs"] for p in sys.argv[1:3])
assert len(a) == len(s) == 3, (len(a), len(s))
for ea, es in zip(a, s):
    rel = abs(ea["train_loss"] - es["train_loss"]) / abs(ea["train_loss"])
    print(f"epoch {ea['epoch']}: train loss allreduce {ea['train_loss']:.8f}, sharded "
          f"{es['train_loss']:.8f} (relative difference {rel:.2e}); test accuracy "
          f"{ea['test_accuracy']} / {es['test_accuracy']}")
    assert rel <= 1e-5, f"FAIL: epoch {ea['epoch']}: the sharded loss differs by {rel:.2e}"
    assert ea["test_accuracy"] == es["test_accuracy"], "FAIL: the test accuracy differs"
PY

# 2. Half of the optimizer state per rank (momentum: one f32 value per parameter, 1348 of them).
grep -q "optimizer state 2696 bytes on this rank, 5392 in one process" "$work/shard.json.log" ||
  { echo "FAIL: the sharded run does not report 2696 of 5392 bytes of optimizer state per rank"; exit 1; }

cp -r "$work/shard-ckpt" "$work/shard-ckpt-2"  # for 4. (3. resumes into shard-ckpt)
cp -r "$work/allreduce-ckpt" "$work/allreduce-ckpt-2"

# 3. The checkpoint on one process: evaluated, and resumed for a 4th epoch from either run.
OMP_NUM_THREADS=1 "$exadnn" eval --checkpoint "$work/shard-ckpt/last.ckpt" | tee "$work/eval.log"
accuracy=$(field "$work/shard.json" test_accuracy)
python3 -c "import sys; a = float(sys.argv[1]) * 100; sys.exit(0 if f'{a:.2f}%' in open(sys.argv[2]).read() else 1)" \
  "$accuracy" "$work/eval.log" || { echo "FAIL: exadnn eval does not give the run's accuracy $accuracy"; exit 1; }
for name in allreduce shard; do
  OMP_NUM_THREADS=1 "$exadnn" train --config "$config" --set threads=1 --set epochs=4 \
    --checkpoint-dir "$work/$name-ckpt" --resume --metrics-out "$work/$name-resumed.json" \
    > "$work/$name-resumed.log" 2>&1 || { cat "$work/$name-resumed.log"; exit 1; }
done
python3 - "$work/allreduce-resumed.json" "$work/shard-resumed.json" <<'PY'
import json, sys
a, s = (json.load(open(p))["epochs"][-1]["train_loss"] for p in sys.argv[1:3])
rel = abs(a - s) / abs(a)
print(f"epoch 4 on one process, resumed: from the allreduce checkpoint {a:.8f}, from the sharded "
      f"one {s:.8f} (relative difference {rel:.2e})")
assert rel <= 1e-5, "FAIL: the sharded checkpoint resumes elsewhere"
PY

# 4. A sharded resume (each rank keeps its block of the one-process state) against allreduce.
run 2 "$work/allreduce-resumed-2.json" "${allreduce[@]}" epochs=4 -- --checkpoint-dir "$work/allreduce-ckpt-2" --resume
run 2 "$work/shard-resumed-2.json" "${allreduce[@]}" parallel.shard=true epochs=4 -- --checkpoint-dir "$work/shard-ckpt-2" --resume
python3 - "$work/allreduce-resumed-2.json" "$work/shard-resumed-2.json" <<'PY'
import json, sys
a, s = (json.load(open(p))["epochs"][-1]["train_loss"] for p in sys.argv[1:3])
rel = abs(a - s) / abs(a)
print(f"epoch 4 on 2 ranks, resumed: allreduce {a:.8f}, sharded {s:.8f} (relative difference {rel:.2e})")
assert rel <= 1e-5, "FAIL: the sharded resume differs"
PY
echo PASS
