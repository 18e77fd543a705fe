#!/usr/bin/env bash
# The checks to run on a GPU machine: the device test suite (a skipped cuda case is a failure),
# the NCCL tests under mpirun (-np 1, and -np 2 where 2 GPUs are visible), training on cuda
# through the command line (MLP and CNN in fp32 and bf16; a checkpoint resumed for an epoch must
# end where two straight epochs end) and bench/cuda_bench.cpp. Exits non-zero if anything fails.
#   scripts/gpu-checks.sh BUILD-DIR [log-dir]      a -DEXADNN_CUDA=ON build on this machine
#                                                  (scripts/gpu-check.sh builds one, then runs this)
#   scripts/gpu-checks.sh BUNDLE.tar.xz [log-dir]  a scripts/gpu-bundle.sh tarball made elsewhere,
#                                                  for a GPU machine without exadnn's Debian packages:
#                                                  CUDA's own libraries (cudart, cuBLAS, cuDNN 9,
#                                                  NCCL 2) are found on this machine
# Run from a checkout of the same commit (it reads configs/). Default log dir: gpu-logs.
set -uo pipefail
cd "$(dirname "$0")/.."
TARGET="${1:?usage: gpu-checks.sh BUILD-DIR|BUNDLE.tar.xz [log-dir]}"
LOGS="${2:-gpu-logs}"
mkdir -p "$LOGS"
failed=0
fail() { echo "FAILED: $*"; failed=1; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if [ -d "$TARGET" ]; then  # a build directory: its own layout, the system's libraries and data
  device_tests="$TARGET/tests/exadnn_device_tests"
  nccl_tests="$TARGET/tests/exadnn_dist_cuda_tests"
  exadnn="$TARGET/tools/exadnn"
  bench="$TARGET/bench/exadnn_cuda_bench"
  data=/usr/share/datasets/fashion-mnist
  mpirun_env=()
else  # a bundle: unpacked, with its libraries, Open MPI and data
  X="$scratch/bundle"
  mkdir -p "$X"
  tar -xJf "$TARGET" -C "$X" || { echo "cannot unpack $TARGET"; exit 1; }
  cuda_dirs=""
  for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcudnn.so.9 libnccl.so.2; do
    found=$(find /usr/local/cuda*/ /usr/lib /opt -name "$lib" 2>/dev/null | head -1)
    [ -n "$found" ] || { echo "$lib not found on this machine"; exit 1; }
    cuda_dirs="$cuda_dirs:$(dirname "$found")"
  done
  export LD_LIBRARY_PATH="$X/lib$cuda_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  device_tests="$X/bin/exadnn_device_tests"
  nccl_tests="$X/bin/exadnn_dist_cuda_tests"
  exadnn="$X/bin/exadnn"
  bench="$X/bin/exadnn_cuda_bench"
  data="$X/data/fashion-mnist"
  export OPAL_PREFIX="$X/ompi" PATH="$X/ompi/bin:$PATH"
  export PMIX_MCA_mca_base_component_path="$X/ompi/lib/x86_64-linux-gnu/pmix2/lib/pmix"
  mpirun_env=(-x LD_LIBRARY_PATH)
fi

echo "== device tests =="
log="$LOGS/device_tests.log"
"$device_tests" --gtest_color=no >"$log" 2>&1 || fail "device tests ($log)"
grep -E "^\[ +(FAILED|SKIPPED|PASSED) " "$log"
grep -q "^\[  SKIPPED \]" "$log" && fail "device tests skipped cuda cases ($log)"

echo "== NCCL tests under mpirun =="
if [ -x "$nccl_tests" ]; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU" || true)
  for np in 1 2; do
    if [ "$np" -gt 1 ] && [ "$gpus" -lt "$np" ]; then
      echo "(-np $np needs $np GPUs, $gpus visible: not run)"
      continue
    fi
    log="$LOGS/nccl_np$np.log"
    EXADNN_DIST_TIMEOUT=60 mpirun --allow-run-as-root --oversubscribe \
      --mca btl_vader_single_copy_mechanism none -np "$np" "${mpirun_env[@]}" \
      "$nccl_tests" --gtest_color=no >"$log" 2>&1 || fail "NCCL tests, -np $np ($log)"
    grep -E "^\[ +(FAILED|SKIPPED|PASSED) " "$log"
    grep -q "^\[  SKIPPED \]" "$log" && fail "NCCL tests skipped, -np $np ($log)"
  done
else
  echo "(built without MPI: no NCCL tests)"
fi

echo "== training on cuda through the command line =="
train() {  # name, then exadnn train arguments
  local name=$1
  shift
  "$exadnn" train --set device=cuda --set data.path="$data" "$@" >"$LOGS/$name.log" 2>&1 ||
    fail "train $name ($LOGS/$name.log)"
  echo "$name: $(grep -E '^epoch' "$LOGS/$name.log" | tail -1)"
}
for model in mlp cnn; do
  for precision in fp32 bf16; do
    train "${model}_$precision" --config "configs/fashion_mnist_$model.yaml" --set epochs=3 \
      --set precision=$precision
  done
done
ckpt="$scratch/checkpoints"
train resume_first --config configs/fashion_mnist_mlp.yaml --set epochs=1 --checkpoint-dir "$ckpt"
train resume_second --config configs/fashion_mnist_mlp.yaml --set epochs=2 --checkpoint-dir "$ckpt" \
  --resume
train straight --config configs/fashion_mnist_mlp.yaml --set epochs=2
[ "$(grep -E '^epoch 2' "$LOGS/resume_second.log" | awk '{print $5}')" = \
  "$(grep -E '^epoch 2' "$LOGS/straight.log" | awk '{print $5}')" ] ||
  fail "a resumed run's loss differs from the straight run's"

echo "== benchmark =="
"$bench" 2>&1 | tee "$LOGS/bench.log" || fail "cuda bench"
[ "$failed" = 0 ] && echo "== gpu checks passed ==" || echo "== gpu checks FAILED =="
exit "$failed"
