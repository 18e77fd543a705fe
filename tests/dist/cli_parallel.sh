#!/usr/bin/env bash
# `mpirun exadnn train` with `parallel:` against the runs it must equal, on an MLP (16-64-4, SGD
# momentum) learning a small CSV task, 3 epochs; "equal" is every epoch's train loss to 1e-5
# relative and the same test accuracy:
#  shard (ZeRO-1, 2 ranks) = allreduce on 2 ranks; each rank keeps half of the optimizer state;
#    the checkpoint is in the one-process layout: `exadnn eval` reads it, one process resumes it
#    for a 4th epoch to the loss it reaches from allreduce's checkpoint, and 2 sharded ranks resume
#    it to allreduce's own resumed loss;
#  shard: 3 (ZeRO-3, 2 ranks) = allreduce on 2 ranks; each rank keeps half of every layer's
#    parameters and of the optimizer state; also in bf16; its checkpoint resumed on one process and
#    on 2 ZeRO-3 ranks = allreduce's checkpoint resumed;
#  pipeline: 2 stages (GPipe, 4 micro-batches) on 2 ranks = one process, also with the stages cut
#    by measured time (parallel.balance: measured); 2 stages (1F1B,
#    recompute, boundaries [2]) × 2 data-parallel on 4 ranks = allreduce on 2 ranks; its
#    checkpoint resumed on one process and on 2 pipeline ranks = one process's own checkpoint
#    resumed;
#  tensor: 2-way (the linear 64 → relu → linear 4 run split column/row-wise) on 2 ranks = one
#    process; 2-way × 2 data-parallel on 4 ranks = allreduce on 2 ranks; its checkpoint resumed on
#    one process and on 2 tensor ranks = one process's own checkpoint resumed;
#  tensor × pipeline: 2-way tensor × 2 stages (GPipe, 4 micro-batches; the cut falls between the
#    split run's column and row layers, so the stages pass the split hidden features) on 4 ranks =
#    one process, also 1F1B cut by measured time with recomputation (the row layer's allreduce
#    runs again in the backward on every tensor rank); its checkpoint resumed on one process and on 4
#    tensor × pipeline ranks = one process's own checkpoint resumed; 2-way tensor × 2 stages × 2
#    data-parallel on 8 ranks = allreduce on 2 ranks;
#  pipeline and tensor in bf16 on 2 ranks = one process in bf16 to bf16's unit roundoff (2^-8
#    relative): gradients are rounded per micro-batch (per rank's partial product), not once.
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

ar=distributed.mode=allreduce

# --- shard ---
run 2 "$work/allreduce.json" $ar -- --checkpoint-dir "$work/allreduce-ckpt"
run 2 "$work/shard.json" $ar parallel.shard=true -- --checkpoint-dir "$work/shard-ckpt"
grep '^distributed:' "$work/shard.json.log"
same "$work/allreduce.json" "$work/shard.json" "allreduce / sharded, 2 ranks"
# Half of the optimizer state per rank (momentum: one f32 value per parameter, 1348 of them).
grep -q "optimizer state 2696 bytes on this rank, 5392 in one process" "$work/shard.json.log" ||
  { echo "FAIL: the sharded run does not report 2696 of 5392 bytes of optimizer state per rank"; exit 1; }
for name in allreduce shard; do cp -r "$work/$name-ckpt" "$work/$name-ckpt-2"; done
OMP_NUM_THREADS=1 "$exadnn" eval --checkpoint "$work/shard-ckpt/last.ckpt" | tee "$work/eval.log"
accuracy=$(field "$work/shard.json" test_accuracy)
python3 -c "import sys; a = float(sys.argv[1]) * 100; sys.exit(0 if f'{a:.2f}%' in open(sys.argv[2]).read() else 1)" \
  "$accuracy" "$work/eval.log" || { echo "FAIL: exadnn eval does not give the run's accuracy $accuracy"; exit 1; }
for name in allreduce shard; do
  one "$work/$name-resumed.json" --set epochs=4 --checkpoint-dir "$work/$name-ckpt" --resume
done
same "$work/allreduce-resumed.json" "$work/shard-resumed.json" "one process resumed from allreduce / sharded" last
run 2 "$work/allreduce-resumed-2.json" $ar epochs=4 -- --checkpoint-dir "$work/allreduce-ckpt-2" --resume
run 2 "$work/shard-resumed-2.json" $ar parallel.shard=true epochs=4 -- --checkpoint-dir "$work/shard-ckpt-2" --resume
same "$work/allreduce-resumed-2.json" "$work/shard-resumed-2.json" "2 ranks resumed, allreduce / sharded" last

# --- shard: 3 (ZeRO-3) ---
run 2 "$work/shard3.json" $ar parallel.shard=3 -- --checkpoint-dir "$work/shard3-ckpt"
grep '^distributed:' "$work/shard3.json.log"
same "$work/allreduce.json" "$work/shard3.json" "allreduce / ZeRO-3, 2 ranks"
# Half of each layer's parameters per rank (16·64 + 64 = 1088 and 64·4 + 4 = 260: 544 + 130), and
# half of the momentum: (1 + 1 buffer) · 4 bytes per value kept.
grep -q "674 of 1348 parameters on this rank, the largest layer's 1088 whole while it runs; parameters and optimizer state 5392 bytes on this rank, 10784 in one process" "$work/shard3.json.log" ||
  { echo "FAIL: the ZeRO-3 run does not report 674 of 1348 parameters (5392 of 10784 bytes) per rank"; exit 1; }
# bf16: the layers' forward and its recomputation under the same autocast as allreduce's.
run 2 "$work/allreduce-bf16.json" $ar precision=bf16
run 2 "$work/shard3-bf16.json" $ar parallel.shard=3 precision=bf16
same "$work/allreduce-bf16.json" "$work/shard3-bf16.json" "allreduce / ZeRO-3 in bf16, 2 ranks"
cp -r "$work/shard3-ckpt" "$work/shard3-ckpt-2"
one "$work/shard3-resumed.json" --set epochs=4 --checkpoint-dir "$work/shard3-ckpt" --resume
same "$work/allreduce-resumed.json" "$work/shard3-resumed.json" "one process resumed from allreduce / ZeRO-3" last
run 2 "$work/shard3-resumed-2.json" $ar parallel.shard=3 epochs=4 -- --checkpoint-dir "$work/shard3-ckpt-2" --resume
same "$work/allreduce-resumed-2.json" "$work/shard3-resumed-2.json" "2 ranks resumed, allreduce / ZeRO-3" last

# --- pipeline ---
one "$work/one.json" --checkpoint-dir "$work/one-ckpt"
run 2 "$work/pipe.json" $ar parallel.pipeline=2 parallel.micro_batches=4 -- --checkpoint-dir "$work/pipe-ckpt"
grep '^distributed:' "$work/pipe.json.log"
same "$work/one.json" "$work/pipe.json" "one process / 2-stage GPipe"
run 4 "$work/pipe-data.json" $ar parallel.pipeline=2 parallel.micro_batches=2 parallel.schedule=1f1b \
  parallel.recompute=true "parallel.boundaries=[2]"
grep '^distributed:' "$work/pipe-data.json.log"
same "$work/allreduce.json" "$work/pipe-data.json" "allreduce on 2 ranks / 2-stage 1F1B x 2 data-parallel"
# Stages cut by measured time: the log names the cut and each stage's time; training is unchanged.
run 2 "$work/pipe-measured.json" $ar parallel.pipeline=2 parallel.micro_batches=4 parallel.balance=measured
grep '^distributed:' "$work/pipe-measured.json.log" | tee "$work/pipe-measured.line"
grep -q "balanced by measured time: [0-9.]* / [0-9.]* ms forward + backward per micro-batch" "$work/pipe-measured.line"
same "$work/one.json" "$work/pipe-measured.json" "one process / 2-stage GPipe cut by measured time"
cp -r "$work/pipe-ckpt" "$work/pipe-ckpt-2"
for name in one pipe; do
  one "$work/$name-resumed.json" --set epochs=4 --checkpoint-dir "$work/$name-ckpt" --resume
done
same "$work/one-resumed.json" "$work/pipe-resumed.json" "one process resumed from one process / pipeline" last
run 2 "$work/pipe-resumed-2.json" $ar parallel.pipeline=2 parallel.micro_batches=4 epochs=4 -- \
  --checkpoint-dir "$work/pipe-ckpt-2" --resume
same "$work/one-resumed.json" "$work/pipe-resumed-2.json" "resumed: one process / 2 pipeline ranks" last
# bf16: activations and their gradients travel between the stages in bf16; each micro-batch's
# weight gradient is rounded to bf16 before the sum, so the losses agree to bf16's unit roundoff.
one "$work/one-bf16.json" --set precision=bf16
run 2 "$work/pipe-bf16.json" $ar parallel.pipeline=2 parallel.micro_batches=4 precision=bf16
close "$work/one-bf16.json" "$work/pipe-bf16.json" "one process / 2-stage GPipe in bf16" 0.00390625

# --- tensor ---
run 2 "$work/tensor.json" $ar parallel.tensor=2 -- --checkpoint-dir "$work/tensor-ckpt"
grep '^distributed:' "$work/tensor.json.log"
same "$work/one.json" "$work/tensor.json" "one process / 2-way tensor"
run 4 "$work/tensor-data.json" $ar parallel.tensor=2
grep '^distributed:' "$work/tensor-data.json.log"
same "$work/allreduce.json" "$work/tensor-data.json" "allreduce on 2 ranks / 2-way tensor x 2 data-parallel"
cp -r "$work/tensor-ckpt" "$work/tensor-ckpt-2"
one "$work/tensor-resumed.json" --set epochs=4 --checkpoint-dir "$work/tensor-ckpt" --resume
same "$work/one-resumed.json" "$work/tensor-resumed.json" "one process resumed from one process / tensor" last
run 2 "$work/tensor-resumed-2.json" $ar parallel.tensor=2 epochs=4 -- \
  --checkpoint-dir "$work/tensor-ckpt-2" --resume
same "$work/one-resumed.json" "$work/tensor-resumed-2.json" "resumed: one process / 2 tensor ranks" last
# bf16: the row-parallel layer's partial products are rounded to bf16 before their sum.
run 2 "$work/tensor-bf16.json" $ar parallel.tensor=2 precision=bf16
close "$work/one-bf16.json" "$work/tensor-bf16.json" "one process / 2-way tensor in bf16" 0.00390625

# --- tensor x pipeline ---
run 4 "$work/tensor-pipe.json" $ar parallel.tensor=2 parallel.pipeline=2 parallel.micro_batches=4 \
  parallel.schedule=gpipe -- --checkpoint-dir "$work/tensor-pipe-ckpt"
grep '^distributed:' "$work/tensor-pipe.json.log" | tee "$work/tensor-pipe.line"
# Parameters by count: the column layer (16 -> 64/2: 544) is stage 0, the ReLU and the row layer
# (64/2 -> 4 and its whole bias: 132) stage 1.
grep -q "layers \[0, 1) of 3 on rank 0, 544 of 1348 parameters trained on rank 0.* × 2-way tensor parallel (1 linear run split) × 1 data-parallel" "$work/tensor-pipe.line" ||
  { echo "FAIL: the tensor x pipeline run does not report stage 0 = layer 0, 544 of 1348 parameters"; exit 1; }
same "$work/one.json" "$work/tensor-pipe.json" "one process / 2-way tensor x 2-stage GPipe"
run 4 "$work/tensor-pipe-measured.json" $ar parallel.tensor=2 parallel.pipeline=2 \
  parallel.micro_batches=2 parallel.schedule=1f1b parallel.balance=measured parallel.recompute=true
grep '^distributed:' "$work/tensor-pipe-measured.json.log"
same "$work/one.json" "$work/tensor-pipe-measured.json" "one process / 2-way tensor x 2-stage 1F1B cut by measured time, recomputed"
cp -r "$work/tensor-pipe-ckpt" "$work/tensor-pipe-ckpt-2"
one "$work/tensor-pipe-resumed.json" --set epochs=4 --checkpoint-dir "$work/tensor-pipe-ckpt" --resume
same "$work/one-resumed.json" "$work/tensor-pipe-resumed.json" "one process resumed from one process / tensor x pipeline" last
run 4 "$work/tensor-pipe-resumed-4.json" $ar parallel.tensor=2 parallel.pipeline=2 \
  parallel.micro_batches=4 epochs=4 -- --checkpoint-dir "$work/tensor-pipe-ckpt-2" --resume
same "$work/one-resumed.json" "$work/tensor-pipe-resumed-4.json" "resumed: one process / 4 tensor x pipeline ranks" last
# All three axes: 2-way tensor x 2 stages x 2 data-parallel replicas on 8 ranks = allreduce on 2.
run 8 "$work/tensor-pipe-data.json" $ar parallel.tensor=2 parallel.pipeline=2 parallel.micro_batches=2
grep '^distributed:' "$work/tensor-pipe-data.json.log"
same "$work/allreduce.json" "$work/tensor-pipe-data.json" "allreduce on 2 ranks / 2-way tensor x 2 stages x 2 data-parallel"
echo PASS
