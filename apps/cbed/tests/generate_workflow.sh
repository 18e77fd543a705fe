#!/usr/bin/env bash
# Runs the generation workflow under mpirun in a fresh folder, then checks its shards through the
# loader (serial libhdf5): every split opens, shapes and labels are in range, the splits are
# disjoint by material and hold all of them, a sample draws as a PNG, and `exadnn train` reads them.
#   generate_workflow.sh EXADNN EXADNN_CBED_SHARDS "MPIEXEC ..." CONTROL_FILE WORKDIR
set -euo pipefail
exadnn=$1 shards=$2 mpiexec=$3 control=$4 workdir=$5
rm -rf "$workdir" && mkdir -p "$workdir" && cd "$workdir"
# shellcheck disable=SC2086  # mpiexec is a command with its options
if ! $mpiexec -n 3 "$exadnn" flow run "$control" > log.txt 2>&1; then
  cat log.txt
  echo "FAIL: the workflow exited non-zero" >&2
  exit 1
fi
cat log.txt
[[ $(grep -c "^\[cbed_generate\] shards/cbed_.*rank [01] of 2 wrote" log.txt) == 8 ]] ||
  { echo "FAIL: expected 4 shards x 2 ranks in the log" >&2; exit 1; }
"$shards" check shards --materials 24 --size 32 | tee check.txt
grep -q "^train: 2 files, 19 samples \[19, 3, 32, 32\]" check.txt
grep -q "^val: 1 files, 1 samples" check.txt
grep -q "^test: 1 files, 4 samples" check.txt
grep -q "splits disjoint by material: 24 materials, each in one split" check.txt
# The check can fail: a train shard copied into the test split shares its materials.
mkdir -p leaky && cp shards/*.h5 leaky/ && cp shards/cbed_train_000.h5 leaky/cbed_test_001.h5
if "$shards" check leaky --materials 24 > leaky.txt 2>&1; then
  echo "FAIL: a material in two splits went unnoticed" >&2; exit 1
fi
grep -q "of split test appears in an earlier split (splits must be disjoint)" leaky.txt
"$shards" picture shards train 0 stack.png --scale 4
[[ -s stack.png ]] || { echo "FAIL: no stack.png" >&2; exit 1; }
# The same `exadnn` that wrote them (libhdf5_openmpi) trains on them (libhdf5_serial): one epoch.
cat > train.yaml <<'YAML'
data: {dataset: cbed-crystal-system, path: shards, batch_size: 8}
model: [flatten, {linear: {out: 7}}]
loss: cross_entropy
optimizer: {name: sgd, lr: 0.01}
epochs: 1
YAML
"$exadnn" train --config train.yaml | tee train.txt
grep -q "^data: 19 training / 4 test examples of shape \[3, 32, 32\]" train.txt
grep -q "^final test accuracy" train.txt
echo "generate workflow ok"
