#!/usr/bin/env bash
# `mpirun exadnn train` refuses `parallel:` layouts that do not fit the model, the batch or the rank
# count, and combinations it cannot run, before training: every case ends within 60 s (no rank
# left waiting) with a non-zero exit code and a message naming the key and the numbers.
#   usage: cli_parallel_refusals.sh EXADNN_BINARY "MPIEXEC COMMAND"
# (the Fashion-MNIST MLP config: 6 layers, linear 512 → relu → linear 256 → relu → linear 10,
# batch 128; every refusal but one comes before its data is read; then the spatial cases on CNNs,
# three of them read from the dataset before the first step)
source "$(dirname "$0")/cli_common.sh"

failures=0
#   refuses NP "EXPECTED TEXT" SETTING...
refuses() {
  local np="$1" expected="$2"; shift 2
  local args=(); for s in "$@"; do args+=(--set "$s"); done
  local rc=0 log="$work/case.log"
  OMP_NUM_THREADS=1 EXADNN_DIST_TIMEOUT=30 timeout -k 10 60 "${mpiexec[@]}" -np "$np" "$exadnn" \
    train --config "$config" --set threads=1 "${args[@]}" > "$log" 2>&1 || rc=$?
  if [ "$rc" = 0 ] || [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo "FAIL ($np ranks, $*): exit code $rc (0: trained; 124/137: hung)"; cat "$log"; failures=$((failures + 1))
  elif ! grep -qF -- "$expected" "$log"; then
    echo "FAIL ($np ranks, $*): the message lacks '$expected':"; cat "$log"; failures=$((failures + 1))
  else
    echo "ok ($np ranks, exit $rc): $* -> $(grep -F -- "$expected" "$log" | head -1 | sed 's/^ *//')"
  fi
}
ar=distributed.mode=allreduce
refuses 3 "tensor × pipeline × spatial = 2 × 1 × 1 = 2 ranks, which does not divide the job's 3 ranks" $ar parallel.tensor=2
refuses 2 "'parallel.pipeline' is 7 stages but the model has 6 layers" $ar parallel.pipeline=7
refuses 2 "'parallel.tensor' is 3, which does not divide the 512 output features of the linear layer at line" $ar parallel.tensor=3
refuses 2 "'parallel.schedule' is 'zigzag' (allowed: gpipe, 1f1b)" $ar parallel.pipeline=2 parallel.schedule=zigzag
refuses 2 "'parallel.micro_batches' is 3, which does not divide data.batch_size 128" $ar parallel.pipeline=2 parallel.micro_batches=3
refuses 2 "'parallel.micro_batches' needs 'parallel.pipeline' > 1" $ar parallel.micro_batches=4
# 60000 training examples in batches of 128: the last holds 96 (read from the dataset: the one
# refusal that loads the data first, before the first step).
refuses 2 "'parallel.micro_batches' is 64, which does not divide the epoch's last batch of 96 examples" $ar parallel.pipeline=2 parallel.micro_batches=64
refuses 2 "'parallel.boundaries' has 1 entries; 'parallel.pipeline: 3' needs 2" $ar parallel.pipeline=3 "parallel.boundaries=[2]"
refuses 2 "'parallel.balance' is 'flops' (allowed: parameters, measured)" $ar parallel.pipeline=2 parallel.balance=flops
refuses 2 "'parallel.balance' chooses the cut that 'parallel.boundaries' already gives: set one" $ar parallel.pipeline=2 parallel.balance=measured "parallel.boundaries=[2]"
refuses 2 "'parallel.balance' needs 'parallel.pipeline' > 1" $ar parallel.balance=measured
refuses 2 "this config has 'distributed.mode: param_server' (unsupported combination)" distributed.mode=param_server parallel.shard=true
refuses 1 "this config has no 'distributed' (unsupported combination)" parallel.shard=true
refuses 2 "'parallel.shard' is '2' (allowed: true or 1" $ar parallel.shard=2
refuses 2 "'parallel.shard: 3' trains in fp32 or bf16" $ar parallel.shard=3 precision=fp16
refuses 2 "'parallel.spatial' splits images and does not combine with 'tensor', 'pipeline' or 'shard'" $ar parallel.spatial=2 parallel.tensor=2
refuses 2 "'parallel.spatial: 2' splits images for the conv2d and pooling layers before a 'flatten' or 'global_avgpool'; the model has none before it" $ar parallel.spatial=2
refuses 2 "'parallel.tensor' with 'parallel.shard' (a block's optimizer state sharded over its replicas) is not done yet" $ar parallel.tensor=2 parallel.shard=true
refuses 2 "'parallel.shard' with 'parallel.pipeline'" $ar parallel.pipeline=2 parallel.shard=true
refuses 2 "'parallel.pipeline' trains in fp32 or bf16 (fp16's loss scaling is not done over its ranks); 'precision: fp16' is an unsupported combination" $ar parallel.pipeline=2 precision=fp16
refuses 2 "'parallel.tensor' trains in fp32 or bf16" $ar parallel.tensor=2 precision=fp16
refuses 2 "unknown key 'stages' in parallel" $ar parallel.stages=2
# Spatial parallel on Fashion-MNIST CNNs (28-row images): conv 5x5 without padding (24 rows, not
# 28); a dropout; fp16; with shard; a pooling after the global_avgpool that ended the bands; and, read from the dataset before the first step, 3 bands of 28 rows, bands
# of 7 rows for a stride-2 pooling, a 31x31 convolution whose halos (15 rows) outgrow 14-row bands.
config="$here/configs/fashion_mnist_cnn.yaml"
refuses 2 "'parallel.spatial: 2' cannot split the conv2d layer at line 6 (kernel 5, stride 1, padding 0)" $ar parallel.spatial=2
# cnn NAME LAYERS...: a config of those layers, then flatten → linear 10 ($config is set to it).
cnn() {
  local name="$1"; shift
  config="$work/$name.yaml"
  { echo "data: {dataset: fashion-mnist, path: /usr/share/datasets/fashion-mnist, batch_size: 128}"
    echo "model:"; for l in "$@"; do echo "  - $l"; done
    echo "  - flatten"; echo "  - linear: {out: 10}"
    echo "optimizer: {name: sgd, lr: 0.05}"; echo "epochs: 1"; } > "$config"
}
cnn dropout "conv2d: {out: 4, kernel: 3, padding: 1}" "dropout: {p: 0.5}"
refuses 2 "'parallel.spatial: 2' cannot split the dropout layer at line 4" $ar parallel.spatial=2
cnn pools "conv2d: {out: 4, kernel: 3, padding: 1}" "maxpool2d: {kernel: 2}" "conv2d: {out: 4, kernel: 3, padding: 1}" "maxpool2d: {kernel: 2}"
refuses 2 "'parallel.spatial' trains in fp32 or bf16" $ar parallel.spatial=2 precision=fp16
refuses 2 "'parallel.spatial' splits images and does not combine with 'tensor', 'pipeline' or 'shard'" $ar parallel.spatial=2 parallel.shard=true
refuses 3 "examples of shape [1, 28, 28] have 28 rows, which do not split into 3 equal bands" $ar parallel.spatial=3
refuses 2 "'parallel.spatial: 2': the maxpool2d at line 6 receives 14-row feature maps, which do not split into 2 bands of a multiple of its stride 2 rows" $ar parallel.spatial=2
cnn after_head "conv2d: {out: 4, kernel: 3, padding: 1}" "global_avgpool" "batchnorm" "maxpool2d: {kernel: 2}"
refuses 2 "'parallel.spatial: 2' cannot split the maxpool2d layer at line 6 (it splits conv2d, maxpool2d, avgpool2d, batchnorm and activations before a flatten or global_avgpool" $ar parallel.spatial=2
cnn halo "conv2d: {out: 2, kernel: 31, padding: 15}"
refuses 2 "'parallel.spatial: 2': the conv2d at line 3 needs 15 rows of its neighbours but its bands of 28-row feature maps hold 14 (too small for 2 bands)" $ar parallel.spatial=2
[ "$failures" = 0 ] || { echo "FAIL: $failures cases"; exit 1; }
echo PASS
