#!/usr/bin/env bash
# Sets everything up, checks the C++ formatting, builds everything (library, tests, examples, benchmarks), runs the whole
# test suite, then rebuilds the unit tests with AddressSanitizer + UndefinedBehaviorSanitizer and
# runs them again. Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS="${JOBS:-$(nproc)}"

bash scripts/setup.sh

echo "== format =="
bash scripts/check-format.sh

echo "== release build =="
# EXADNN_CUDA=AUTO (the default) builds the CUDA backend where nvcc is found (PATH or
# /usr/local/cuda/bin); its GPU tests report SKIPPED without a visible GPU (scripts/gpu-check.sh).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$JOBS"
echo "== tests (release) =="
# Not here: the full physics and training runs of label long (minutes each; scripts/long.sh).
ctest --test-dir build --output-on-failure -j "$JOBS" --timeout 900 -LE long

echo "== sanitizer build (ASan + UBSan) =="
# Without the CUDA backend (EXADNN_CUDA=OFF): nvcc is slow and the GPU kernels cannot run here.
# -O1 -g1 (line tables and function names, enough for the sanitizers' stack traces): about half
# the compile time of -O2 -g, for a sanitizer run that is bound by its checks, not by code speed.
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEXADNN_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DEXADNN_BUILD_BENCHMARKS=OFF -DEXADNN_CUDA=OFF >/dev/null
cmake --build build-asan -j "$JOBS"
echo "== unit tests (ASan + UBSan) =="
# Not under the sanitizers: the install check (a packaging test), the MPI tests (Open MPI's own
# start-up allocations read as leaks: labels dist, flow and mpi), the minutes-long training
# runs (label long) and the reliability runs (label reliability: the kill campaign and the resident
# memory series; ASan's quarantine would grow the latter).
ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1" \
  LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp" \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS" -LE "install|dist|flow|mpi|long|reliability" --timeout 1800
echo "== all tests passed =="
