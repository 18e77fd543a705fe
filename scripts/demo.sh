#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job: `exadnn train` with its default config
# (a 784-512-256-10 MLP on Fashion-MNIST, 3 epochs; prints the test accuracy).
#   usage: scripts/demo.sh [extra `exadnn train` arguments, e.g. --config configs/fashion_mnist_cnn.yaml]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEXADNN_BUILD_TESTS=OFF \
  -DEXADNN_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build --target exadnn_cli
./build/tools/exadnn train "$@"
