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
# Spatial parallelism on the shards: 2 ranks each read their band of 16 rows of every pattern (by
# hyperslab, on the log scale of the whole pattern's stored maximum), by index and streamed,
# against one process: every epoch's train loss to 1e-5 relative and the same test accuracy.
cat > cnn.yaml <<'YAML'
data: {dataset: cbed-crystal-system, path: shards, batch_size: 4}
model:
  - conv2d: {out: 4, kernel: 3, padding: 1}
  - relu
  - maxpool2d: {kernel: 2}
  - conv2d: {out: 4, kernel: 3, padding: 1}
  - relu
  - flatten
  - linear: {out: 7}
loss: cross_entropy
optimizer: {name: sgd, lr: 0.05, momentum: 0.9}
epochs: 2
threads: 1
seed: 3
YAML
# The 2 stages of a pipeline each stream their own copy of the order (the last stage's labels must
# be the first stage's images'): streamed, = one process too.
same_as_one() {  # same_as_one MODE SPLIT SETTINGS...: 2 ranks with SETTINGS against one process
  local mode=$1 split=$2; shift 2
  # shellcheck disable=SC2086
  $mpiexec -n 2 "$exadnn" train --config cnn.yaml "${extra[@]}" --set distributed.mode=allreduce \
    "$@" --metrics-out "${split}_$mode.json" > "${split}_$mode.txt" 2>&1 ||
    { cat "${split}_$mode.txt"; echo "FAIL: $split training ($mode) exited non-zero" >&2; exit 1; }
  grep "^distributed:" "${split}_$mode.txt"
  python3 - "one_$mode.json" "${split}_$mode.json" "$mode, $split" <<'PY'
import json, sys
a, b = (json.load(open(p))["epochs"] for p in sys.argv[1:3])
assert len(a) == len(b) == 2, f"FAIL: {len(a)} and {len(b)} epochs"
for ea, eb in zip(a, b):
    rel = abs(ea["train_loss"] - eb["train_loss"]) / abs(ea["train_loss"])
    print(f"{sys.argv[3]}: epoch {ea['epoch']}: train loss {ea['train_loss']:.10f} (one process) / "
          f"{eb['train_loss']:.10f} (2 ranks), relative {rel:.1e}; test accuracy "
          f"{ea['test_accuracy']} / {eb['test_accuracy']}")
    assert rel <= 1e-5, f"FAIL: {sys.argv[3]}: the losses differ by {rel:.1e}"
    assert ea["test_accuracy"] == eb["test_accuracy"], "FAIL: the test accuracy differs"
PY
}
for mode in index stream; do
  extra=()
  [[ $mode == stream ]] && extra=(--set data.stream.buffer_mb=1)
  "$exadnn" train --config cnn.yaml "${extra[@]}" --metrics-out "one_$mode.json" > "one_$mode.txt"
  same_as_one "$mode" spatial --set parallel.spatial=2
done
same_as_one stream pipeline --set parallel.pipeline=2
echo "generate workflow ok"
