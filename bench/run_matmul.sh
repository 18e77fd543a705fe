#!/usr/bin/env bash
# Runs the matmul benchmark twice: once as is (OpenBLAS detects the CPU by itself), and, where the
# CPU has AVX-512, once with OPENBLAS_CORETYPE=SkylakeX for the BLAS case only (OpenBLAS reads that variable when the library
# loads, so a forced core needs its own process). Then prints the medians side by side.
#
#   bench/run_matmul.sh [BUILD_DIR] [extra Google Benchmark flags...]
#
# BUILD_DIR defaults to ./build-bench; results go to $BUILD_DIR/bench/matmul_{auto,skylakex}.json.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:-build-bench}"
shift || true
bin="$build/bench/exadnn_matmul_bench"
out="$build/bench"
[[ -x "$bin" ]] || { echo "run_matmul.sh: no $bin (build with -DEXADNN_BUILD_BENCHMARKS=ON)" >&2; exit 1; }

common=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
        --benchmark_enable_random_interleaving=true "$@")

echo "== OpenBLAS detects the CPU itself; exadnn, cblas_sgemm and dnnl_sgemm =="
env -u OPENBLAS_CORETYPE "$bin" "${common[@]}" \
  --benchmark_out="$out/matmul_auto.json" --benchmark_out_format=json

echo
if ! grep -qw avx512f /proc/cpuinfo; then
  # OpenBLAS's SkylakeX kernels are AVX-512: forced on this CPU they die of SIGILL.
  echo "== no AVX-512 on this CPU: no SkylakeX run =="
  python3 "$here/compare.py" matmul "$out/matmul_auto.json"
  exit 0
fi
echo "== OPENBLAS_CORETYPE=SkylakeX: cblas_sgemm only =="
OPENBLAS_CORETYPE=SkylakeX "$bin" "${common[@]}" --benchmark_filter='^matmul/cblas_sgemm/' \
  --benchmark_out="$out/matmul_skylakex.json" --benchmark_out_format=json

echo
python3 "$here/compare.py" matmul "$out/matmul_auto.json" "SkylakeX=$out/matmul_skylakex.json"
