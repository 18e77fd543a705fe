#!/usr/bin/env bash
# Builds (release) and runs the tests of label "long": the full versions of the physics checks of
# apps/ (their figures are in each app's README) and the minutes-long training runs. They are kept
# out of scripts/test.sh, which runs their fast versions. Run scripts/setup.sh first on a fresh
# machine (scripts/test.sh does).
#   bash scripts/long.sh [CTEST_ARGS...]     e.g. bash scripts/long.sh -R alloy
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-$(nproc)}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$JOBS"
ctest --test-dir build --output-on-failure -L long --timeout 3600 "$@"
