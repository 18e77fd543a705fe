#!/usr/bin/env bash
# Runs a scripts/gpu-bundle.sh tarball on a GPU machine, from a checkout of the same commit (for
# configs/): the device test suite (a skipped cuda case is a failure), the NCCL tests under
# mpirun -np 1, training on cuda through the command line (MLP and CNN in fp32 and bf16, and a
# checkpoint resumed), and bench/cuda_bench.cpp. CUDA's own libraries (cudart, cuBLAS, cuDNN 9,
# NCCL 2) are found on that machine. Exits non-zero if anything fails.
#   scripts/gpu-bundle-run.sh BUNDLE.tar.xz [log-dir]       (default log dir: gpu-logs)
set -uo pipefail
cd "$(dirname "$0")/.."
BUNDLE="${1:?usage: gpu-bundle-run.sh BUNDLE.tar.xz [log-dir]}"
LOGS="${2:-gpu-logs}"
mkdir -p "$LOGS"
X=$(mktemp -d)
tar -xJf "$BUNDLE" -C "$X" || { echo "cannot unpack $BUNDLE"; exit 1; }
failed=0
fail() { echo "FAILED: $*"; failed=1; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

cuda_dirs=""
for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcudnn.so.9 libnccl.so.2; do
  found=$(find /usr/local/cuda*/ /usr/lib /opt -name "$lib" 2>/dev/null | head -1)
  [ -n "$found" ] || { echo "$lib not found on this machine"; exit 1; }
  cuda_dirs="$cuda_dirs:$(dirname "$found")"
done
export LD_LIBRARY_PATH="$X/lib$cuda_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

echo "== device tests =="
log="$LOGS/device_tests.log"
"$X/bin/exadnn_device_tests" --gtest_color=no >"$log" 2>&1 || fail "device tests ($log)"
grep -E "^\[ +(FAILED|SKIPPED|PASSED) " "$log"
grep -q "^\[  SKIPPED \]" "$log" && fail "device tests skipped cuda cases ($log)"

echo "== NCCL tests, mpirun -np 1 =="
log="$LOGS/nccl_np1.log"
OPAL_PREFIX="$X/ompi" PATH="$X/ompi/bin:$PATH" \
  PMIX_MCA_mca_base_component_path="$X/ompi/lib/x86_64-linux-gnu/pmix2/lib/pmix" \
  EXADNN_DIST_TIMEOUT=60 mpirun --allow-run-as-root --oversubscribe \
  --mca btl_vader_single_copy_mechanism none -np 1 -x LD_LIBRARY_PATH \
  "$X/bin/exadnn_dist_cuda_tests" --gtest_color=no >"$log" 2>&1 || fail "NCCL tests ($log)"
grep -E "^\[ +(FAILED|SKIPPED|PASSED) " "$log"
grep -q "^\[  SKIPPED \]" "$log" && fail "NCCL tests skipped ($log)"

echo "== training on cuda through the command line =="
data="$X/data/fashion-mnist"
train() {  # name, then exadnn train arguments
  local name=$1
  shift
  "$X/bin/exadnn" train --set device=cuda --set data.path="$data" "$@" >"$LOGS/$name.log" 2>&1 ||
    fail "train $name ($LOGS/$name.log)"
  echo "$name: $(grep -E '^epoch' "$LOGS/$name.log" | tail -1)"
}
for model in mlp cnn; do
  for precision in fp32 bf16; do
    train "${model}_$precision" --config "configs/fashion_mnist_$model.yaml" --set epochs=3 \
      --set precision=$precision
  done
done
ckpt=$(mktemp -d)
train resume_first --config configs/fashion_mnist_mlp.yaml --set epochs=1 --checkpoint-dir "$ckpt"
train resume_second --config configs/fashion_mnist_mlp.yaml --set epochs=2 --checkpoint-dir "$ckpt" \
  --resume
train straight --config configs/fashion_mnist_mlp.yaml --set epochs=2
[ "$(grep -E '^epoch 2' "$LOGS/resume_second.log" | awk '{print $5}')" = \
  "$(grep -E '^epoch 2' "$LOGS/straight.log" | awk '{print $5}')" ] ||
  fail "a resumed run's loss differs from the straight run's"

echo "== benchmark =="
"$X/bin/exadnn_cuda_bench" 2>&1 | tee "$LOGS/bench.log" || fail "cuda bench"
rm -rf "$X" "$ckpt"
[ "$failed" = 0 ] && echo "== gpu-bundle-run passed ==" || echo "== gpu-bundle-run FAILED =="
exit "$failed"
