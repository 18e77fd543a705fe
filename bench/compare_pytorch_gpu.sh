#!/usr/bin/env bash
# exadnn vs PyTorch on one GPU, the models of configs/ (as bench/compare_pytorch.sh on the CPU),
# alternating runs: exadnn `train --set device=cuda`, PyTorch `compare_pytorch.py --device cuda`
# (the data held on the GPU, no loader). PyTorch runs cuDNN convolutions in TF32 by default and
# exadnn's f32 is true f32 (TF32 is opt-in), so PyTorch runs with
# torch.backends.cudnn.allow_tf32 = False unless TORCH_TF32=1. Figures: medians over RUNS runs of
# each run's median steady epoch (2..EPOCHS), printed by bench/compare.py (no GEMM fraction).
#   usage: [MODELS="mlp cnn wide_mlp resnet18"] [TORCH_TF32=0|1] [PYTHON=python3] \
#            bench/compare_pytorch_gpu.sh [BUILD_DIR] [RUNS] [EPOCHS]
# BUILD_DIR holds a -DEXADNN_CUDA=ON build (tools/exadnn); Fashion-MNIST must be at
# /usr/share/datasets/fashion-mnist. On a GPU machine without exadnn's packages, unpack a
# scripts/gpu-bundle.sh tarball and point LD_LIBRARY_PATH at its lib/ and CUDA's (see
# scripts/gpu-checks.sh), then pass the folder holding bin/exadnn as EXADNN.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}" RUNS="${2:-3}" EPOCHS="${3:-4}" MODELS="${MODELS:-mlp cnn wide_mlp resnet18}"
EXADNN="${EXADNN:-$BUILD/tools/exadnn}"
PY="${PYTHON:-python3}"
[ -x "$EXADNN" ] || { echo "no exadnn at $EXADNN (build $BUILD with -DEXADNN_CUDA=ON, or set EXADNN)"; exit 1; }
"$PY" -c "import torch, h5py; assert torch.cuda.is_available()" 2>/dev/null ||
  { echo "needs PyTorch with a visible GPU, and h5py ($PY)"; exit 1; }
[ "$EPOCHS" -ge 2 ] || { echo "EPOCHS must be at least 2 (steady epochs are 2..EPOCHS)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tf32="${TORCH_TF32:-0}"
torch_run() {  # torch_run MODEL EPOCHS [FLAGS...]: compare_pytorch.py's JSON line
  "$PY" -c "import sys, runpy, torch
torch.backends.cudnn.allow_tf32 = bool(int(sys.argv[1]))
sys.argv = ['compare_pytorch.py'] + sys.argv[2:]
runpy.run_path('bench/compare_pytorch.py', run_name='__main__')" "$tf32" "$@" | tail -1
}
config() {
  case $1 in
    mlp | cnn) echo "configs/fashion_mnist_$1.yaml" ;;
    wide_mlp) echo configs/fashion_wide_mlp.yaml ;;
    resnet18) echo configs/resnet18_64.yaml ;;
    *) echo "unknown model '$1' (mlp cnn wide_mlp resnet18)" >&2; exit 1 ;;
  esac
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
for model in $MODELS; do
  cfg=$(config "$model")
  data=() exset=()
  if [ "$model" = resnet18 ]; then
    [ -f "$tmp/fashion64.h5" ] || "$PY" bench/make_fashion64.py "$tmp/fashion64.h5"
    data=(--data "$tmp/fashion64.h5") exset=(--set "data.file=$tmp/fashion64.h5")
  fi
  echo "device cuda, cuDNN TF32 $([ "$tf32" = 1 ] && echo on || echo off)" > "$tmp/pt.$model.cfg"
  for run in $(seq "$RUNS"); do
    "$EXADNN" train --config "$cfg" "${exset[@]}" --set device=cuda --set epochs="$EPOCHS" \
      --metrics-out "$tmp/ex.$model.$run.json" > "$tmp/ex.$model.out"
    sed -n 's/^model: \([0-9]*\) parameters$/\1/p' "$tmp/ex.$model.out" > "$tmp/ex.$model.params"
    torch_run "$model" "$EPOCHS" 16 --device cuda "${data[@]}" > "$tmp/pt.$model.$run.json"
  done
  python3 bench/compare.py training "$tmp" 0 "$model"
done
echo
echo "$RUNS alternating runs of $EPOCHS epochs on the GPU; samples/s: medians over the runs of each run's median steady epoch (2..$EPOCHS)"
python3 bench/compare.py training --table "$tmp" 0 $MODELS
