#!/usr/bin/env bash
# The one script to run on a machine with an NVIDIA GPU and exadnn's Debian packages: builds exadnn
# with the CUDA backend (-DEXADNN_CUDA=ON: a configure error without nvcc), then runs
# scripts/gpu-checks.sh on the build — the device-parameterised tests (label "devices"), which must
# not be skipped here, data parallel over NCCL under mpirun (tests/dist/cuda), training on cuda
# (fp32, bf16, a resumed checkpoint) and a short benchmark (GEMM vs raw cuBLAS; MLP and CNN
# training samples/s on GPU vs CPU). Aims at < 8 min on one H100/H200 (the build is most of it).
# Exits non-zero if anything fails. Without the packages there: scripts/gpu-bundle.sh.
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

# The checks themselves (device tests, NCCL, training, resume, benchmark): scripts/gpu-checks.sh.
rc=0
bash scripts/gpu-checks.sh "$BUILD" "$BUILD/gpu-logs" || rc=$?
echo "== gpu-check $( [ "$rc" = 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - start )) s =="
exit "$rc"
