#!/usr/bin/env bash
# Checks that exadnn's ResNet-18 computes the same training steps as Debian's PyTorch: both in
# float64, from PyTorch's initial weights, on the same batches (3x64x64 images of
# bench/make_fashion64.py, batch 128, SGD lr 0.05 momentum 0.9), STEPS steps (default 4). Compares
# each step's loss, the first step's gradients, the final parameters and batch-norm running
# statistics, and the eval- and train-mode logits of 256 test images; prints the worst relative
# error of each with its bound and PASS or FAIL (exit status 1). Not a timing: it runs anywhere.
#   pytorch_equivalence.py reference  the PyTorch side (writes the files into a temporary folder)
#   BUILD_DIR/bench/exadnn_pytorch_equivalence  the exadnn side (cmake --build BUILD_DIR --target
#                                     exadnn_pytorch_equivalence)
#   pytorch_equivalence.py compare    the comparison and its bounds (the argument for them there)
#   usage: [DATA=F.h5] [KEEP=DIR] bench/check_pytorch_equivalence.sh [BUILD_DIR] [STEPS]
#     DATA  an HDF5 file of make_fashion64.py (else one is made in the temporary folder)
#     KEEP  write all files into DIR and keep them (to look into a failure)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}" STEPS="${2:-4}"
EXADNN="$BUILD/bench/exadnn_pytorch_equivalence"
[ -x "$EXADNN" ] || { echo "build $EXADNN first (cmake --build $BUILD --target exadnn_pytorch_equivalence)"; exit 1; }
PY="${PYTHON:-/usr/bin/python3}"  # Debian's python3, where python3-torch lives
export PYTHONDONTWRITEBYTECODE=1  # no bench/__pycache__ in the tree
"$PY" -c "import torch, h5py" 2>/dev/null || { echo "needs python3-torch and python3-h5py (scripts/setup.sh --bench)"; exit 1; }
[[ "$STEPS" =~ ^[1-9][0-9]*$ ]] || { echo "STEPS must be a positive whole number"; exit 1; }
if [ -n "${KEEP:-}" ]; then
  dir="$KEEP"
  mkdir -p "$dir"
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
data="${DATA:-$dir/fashion64.h5}"
train=$((STEPS * 128 > 2048 ? STEPS * 128 : 2048))  # at least compare_pytorch.sh's file (2048 / 512)
[ -f "$data" ] || "$PY" bench/make_fashion64.py "$data" --train $train
"$PY" bench/pytorch_equivalence.py reference "$data" "$dir" "$STEPS"
"$EXADNN" "$dir"
"$PY" bench/pytorch_equivalence.py compare "$dir"
