#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job: logistic regression on Fashion-MNIST.
#   usage: scripts/demo.sh [EPOCHS]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEXADNN_BUILD_TESTS=OFF \
  -DEXADNN_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build --target fashion_mnist_logreg
./build/examples/fashion_mnist_logreg /usr/share/datasets/fashion-mnist "${1:-5}"
