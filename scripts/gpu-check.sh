#!/usr/bin/env bash
# The one script to run on a machine with an NVIDIA GPU: builds exadnn with the CUDA backend
# (-DEXADNN_CUDA=ON: a configure error without nvcc), runs the GPU test suite — the
# device-parameterised tests (label "devices"), which must not be skipped here, and data parallel
# over NCCL under mpirun (tests/dist/cuda) — and a short
# benchmark (GEMM vs raw cuBLAS; MLP and CNN training samples/s on GPU vs CPU). Aims at < 8 min on
# one H100/H200 (the build is most of it). Exits non-zero if anything fails.
#   scripts/gpu-check.sh [build-dir]      (default build-gpu; JOBS=n to limit the build;
#                                          SKIP_BUILD=1 uses the binaries already in build-dir)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build-gpu}"
JOBS="${JOBS:-$(nproc)}"
start=$(date +%s)

echo "== GPU =="
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  echo "== build (CUDA on) =="
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEXADNN_CUDA=ON \
    ${CMAKE_CUDA_ARCHITECTURES:+-DCMAKE_CUDA_ARCHITECTURES=$CMAKE_CUDA_ARCHITECTURES} >/dev/null
  cmake --build "$BUILD" -j "$JOBS" --target exadnn_cuda exadnn_device_tests exadnn_cli \
    exadnn_cuda_bench
  # The NCCL collectives and their tests exist when MPI was found as well.
  if cmake --build "$BUILD" --target help | grep -q "^exadnn_dist_cuda_tests:"; then
    cmake --build "$BUILD" -j "$JOBS" --target exadnn_dist_cuda_tests
  fi
  echo "build took $(( $(date +%s) - start )) s"
fi
"$BUILD"/tools/exadnn info | sed -n '/^CUDA/,$p'

echo "== GPU test suite (every op family on cpu and cuda:0) =="
# A skipped cuda case here means the GPU was not usable: that is a failure of this check.
log="$BUILD/gpu-tests.log"
"$BUILD"/tests/exadnn_device_tests --gtest_brief=0 2>&1 | tee "$log" | grep -E "^\[ +(FAILED|SKIPPED|PASSED) " || true
if ! grep -q "^\[  PASSED  \]" "$log" || grep -q "^\[  FAILED  \]" "$log"; then
  echo "GPU tests failed (full log: $log)"; exit 1
fi
if grep -q "^\[  SKIPPED \]" "$log"; then
  echo "GPU tests were skipped: is the GPU visible? (full log: $log)"; exit 1
fi

echo "== GPU data parallel over NCCL (mpirun -np 1; -np 2 with 2+ GPUs) =="
# Collectives of cuda tensors and DataParallel on a GPU module vs the CPU (tests/dist/cuda).
if [ -x "$BUILD"/tests/exadnn_dist_cuda_tests ]; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU" || true)
  for np in 1 2; do
    if [ "$np" -gt 1 ] && [ "$gpus" -lt "$np" ]; then
      echo "(-np $np needs $np GPUs, $gpus visible: not run)"; continue
    fi
    log="$BUILD/gpu-nccl-np$np.log"
    rc=0
    EXADNN_DIST_TIMEOUT=60 mpirun --allow-run-as-root --oversubscribe \
      --mca btl_vader_single_copy_mechanism none -np "$np" \
      "$BUILD"/tests/exadnn_dist_cuda_tests --gtest_brief=0 --gtest_color=no >"$log" 2>&1 || rc=$?
    grep -E "^\[ +(FAILED|SKIPPED|PASSED) " "$log" || true
    if [ "$rc" != 0 ] || ! grep -q "^\[  PASSED  \]" "$log" || grep -q "^\[  FAILED  \]" "$log"; then
      echo "NCCL tests failed with -np $np (full log: $log)"; exit 1
    fi
    if grep -q "^\[  SKIPPED \]" "$log"; then
      echo "NCCL tests were skipped with -np $np: is the GPU visible? (full log: $log)"; exit 1
    fi
  done
else
  echo "(built without MPI: no exadnn_dist_cuda; skipped)"
fi

echo "== training on the GPU through the command line (1 epoch of the MLP) =="
if [ -d /usr/share/datasets/fashion-mnist ]; then
  "$BUILD"/tools/exadnn train --config configs/fashion_mnist_mlp.yaml --set epochs=1 \
    --set device=cuda --metrics-out "$BUILD/gpu-train.json" | tail -3
else
  echo "(Fashion-MNIST not installed: skipped)"
fi

echo "== benchmark =="
"$BUILD"/bench/exadnn_cuda_bench

echo "== gpu-check passed in $(( $(date +%s) - start )) s =="
