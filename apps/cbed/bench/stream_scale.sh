#!/usr/bin/env bash
# Issue 18 "Scale": a training split several times larger than the loader's memory, generated
# with the cbed_generate workflow (kinematic stacks: cheap), trained from the out-of-core
# ShardStream (data.stream.buffer_mb) by exadnn_cbed_stream_train_bench, which prints samples/s per
# shard-sized window, the slowest window against the median one and the peak RSS.
#   stream_scale.sh fast|full EXADNN BENCH "MPIEXEC..." WORKDIR
# fast (CTest apps.cbed.np3.stream_scale, seconds): 600 materials of 3 x 32 x 32, 480 training
#   samples (5.9 MB) through a 1 MiB buffer, one epoch.
# full (CTest apps.cbed.np3.stream_scale_full, label long): 36000 materials of 3 x 64 x 64,
#   28800 training samples (1416 MB) in 48 shards through a 16 MiB buffer, one epoch, the whole
#   process held to 320 MiB of address space (prlimit --as: the kernel refuses any mapping
#   beyond it, so the process can never hold more; 260 MiB was too little) - the split is 4.2x
#   that. MALLOC_ARENA_MAX=1: glibc reserves (not uses) 64 MiB of address space per thread arena.
# The figures are printed, not judged (timing goals belong to benchmarks); the run fails when a
# step is missing, the split is not at least 4x the buffer, or a window is missing.
set -euo pipefail
mode=$1 exadnn=$2 bench=$3 mpiexec=$4 work=$5
case "$mode" in
  fast) materials=600 size=32 shards=6 buffer=1 batch=16 widths="4 8" as_mib=0 ;;
  full) materials=36000 size=64 shards=48 buffer=16 batch=32 widths="16 32 64" as_mib=320 ;;
  *) echo "mode must be fast or full, got '$mode'" >&2; exit 2 ;;
esac
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cat > generate.yaml <<YAML
modules:
  generate:
    run: cbed_generate
    ranks: 2
    args: {out: shards, materials: $materials, groups: "1-230", size: $size, mode: kinematic,
           train_shards: $shards, val_shards: 1, test_shards: 1, samples_per_chunk: 4,
           deflate: 0, seed: 5}
    ensemble: {instances: $((shards + 2))}
YAML
start=$(date +%s.%N)
OMP_NUM_THREADS=1 $mpiexec -np 3 "$exadnn" flow run generate.yaml > generate.txt 2>&1 \
  || { tail -20 generate.txt >&2; exit 1; }
echo "generated $materials materials in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s: $(du -sh shards | cut -f1)"
# Crystal system (7 classes) by a small CNN: per width a 3 x 3 convolution, ReLU and 2 x 2 max
# pooling (fast: 2 stages, a step of well under a millisecond, so the loader is what is timed;
# full: 3 stages, a few ms a sample, the compute-bound case).
{
  echo "data: {dataset: cbed-crystal-system, path: shards, batch_size: $batch, stream: {buffer_mb: $buffer}}"
  echo "model:"
  for w in $widths; do
    echo "  - conv2d: {out: $w, kernel: 3, padding: 1}"
    echo "  - relu"
    echo "  - maxpool2d: {kernel: 2}"
  done
  echo "  - flatten"
  echo "  - linear: {out: 7}"
} > train.yaml
cat >> train.yaml <<YAML
loss: cross_entropy
optimizer: {name: adam, lr: 0.002}
epochs: 1
threads: 1
seed: 1
YAML
if (( as_mib > 0 )); then
  echo "address space limit: $as_mib MiB ($(( as_mib * 1048576 / 1000000 )) MB)"
  MALLOC_ARENA_MAX=1 prlimit --as=$(( as_mib << 20 )) "$bench" train.yaml | tee bench.txt
else
  "$bench" train.yaml | tee bench.txt
fi
grep -q "^epoch 1: loss" bench.txt
grep -q "^windows: " bench.txt
# The split must be at least 4x the loader's buffer (the point of the run).
ratio=$(sed -n 's/^memory: train split .* MB = \([0-9.]*\) x the loader buffer.*/\1/p' bench.txt)
awk -v r="$ratio" 'BEGIN { exit !(r >= 4) }' || { echo "split only ${ratio}x the buffer" >&2; exit 1; }
if (( as_mib > 0 )); then  # and at least 4x the whole process's address space
  split=$(sed -n 's/^memory: train split \([0-9.]*\) MB.*/\1/p' bench.txt)
  awk -v s="$split" -v l="$as_mib" 'BEGIN { r = s / (l * 1.048576); printf "split / address space limit: %.2f\n", r; exit !(r >= 4) }' \
    || { echo "split under 4x the address space limit" >&2; exit 1; }
fi
# One window per shard's worth of samples (the first one, the buffer's fill, counted apart).
windows=$(sed -n 's/^windows: \([0-9]*\) .*/\1/p' bench.txt)
[[ "$windows" -ge $((shards - 2)) ]] || { echo "only $windows windows for $shards shards" >&2; exit 1; }
# Data-parallel: the same config on 2 ranks (allreduce), each streaming its own half of every
# epoch (the split itself: tests/loader_stream_test.cpp); one epoch must run through.
if [[ "$mode" == fast ]]; then
  OMP_NUM_THREADS=1 $mpiexec -np 2 "$exadnn" train --config train.yaml \
    --set distributed.mode=allreduce > np2.txt 2>&1 || { tail -20 np2.txt >&2; exit 1; }
  grep -q "^distributed: 2 ranks, allreduce" np2.txt
  grep -q "^final test accuracy" np2.txt
fi
echo "stream scale ($mode) ok"
