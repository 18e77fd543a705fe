#!/usr/bin/env bash
# exadnn vs Debian's PyTorch on the Fashion-MNIST MLP and CNN (configs/), one epoch each by
# default, alternating runs. PyTorch gets its best configuration, probed first on 150 batches
# each: PyTorch threads x OpenBLAS threads in {1, 2}, and for the CNN also channels-last, with
# OPENBLAS_CORETYPE=SkylakeX (Debian's OpenBLAS otherwise picks a slower kernel on this
# processor). exadnn runs with 2 threads and no environment variables set.
#
# Each model's training GFLOP/s (training FLOPs per sample x samples/s; FLOPs = 3 x the forward's
# 2 x multiply-adds, counted by compare_pytorch.py) is also printed as a fraction of the best f32
# GEMM GFLOP/s measured here at 2 threads (exadnn::matmul, dnnl_sgemm and OpenBLAS's sgemm, auto
# and SkylakeX, at 512^3 and 2048^3), when BUILD_DIR has bench/exadnn_matmul_bench
# (-DEXADNN_BUILD_BENCHMARKS=ON).
#
# Timing needs a quiet machine: with 2 cores, any other busy process makes both frameworks'
# 2-thread OpenMP loops wait on each other many times slower. The load is printed before and after.
#   usage: bench/compare_pytorch.sh [BUILD_DIR] [RUNS] [EPOCHS]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}" RUNS="${2:-3}" EPOCHS="${3:-1}"
EXADNN="$BUILD/tools/exadnn" MATMUL="$BUILD/bench/exadnn_matmul_bench"
[ -x "$EXADNN" ] || { echo "build $EXADNN first (cmake --build $BUILD --target exadnn_cli)"; exit 1; }
/usr/bin/python3 -c "import torch" 2>/dev/null || { echo "needs python3-torch (scripts/setup.sh --bench)"; exit 1; }
PY="${PYTHON:-/usr/bin/python3}"  # Debian's python3, where python3-torch lives
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
calc() { python3 -c "print($1)"; }
torch_run() {  # torch_run MODEL EPOCHS TORCH_THREADS BLAS_THREADS [FLAGS...] (JSON on stdout)
  local model=$1 epochs=$2 t=$3 b=$4
  shift 4
  env -u OPENBLAS_L2_SIZE -u OMP_NUM_THREADS OPENBLAS_CORETYPE=SkylakeX OPENBLAS_NUM_THREADS=$b \
    "$PY" bench/compare_pytorch.py $model $epochs $t "$@"
}

echo "load before: $(uptime)"
if python3 -c "import os, sys; sys.exit(0 if os.getloadavg()[0] > 1.5 else 1)"; then
  echo "WARNING: load average above 1.5: other processes share the cores, the timings will be low and noisy"
fi
gemm=0
if [ -x "$MATMUL" ]; then
  shapes='/M:(512|2048)/K:(512|2048)/N:(512|2048)/threads:2/'
  flags=(--benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_format=json)
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$MATMUL" --benchmark_filter="$shapes" "${flags[@]}" > "$tmp/gemm1.json" 2> "$tmp/gemm.err"
  env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=SkylakeX "$MATMUL" --benchmark_filter="^matmul/cblas_sgemm$shapes" \
    "${flags[@]}" > "$tmp/gemm2.json" 2>> "$tmp/gemm.err"
  read -r gemm gemm_name < <(python3 - "$tmp/gemm1.json" "$tmp/gemm2.json" <<'EOF'
import json, sys
best = (0.0, "")
for path, tag in zip(sys.argv[1:], ["", " (SkylakeX)"]):
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            best = max(best, (b["GFLOP/s"], b["run_name"] + tag))
print(f"{best[0]:.1f} {best[1]}")
EOF
  )
  echo "best f32 GEMM at 2 threads: $gemm GFLOP/s ($gemm_name)"
else
  echo "no $MATMUL (configure $BUILD with -DEXADNN_BUILD_BENCHMARKS=ON): GEMM fraction not measured"
fi

for model in mlp cnn; do
  best_torch=0 best_cfg=""
  layouts="none"
  [ $model = cnn ] && layouts="none --channels-last"
  for t in 1 2; do for b in 1 2; do for cl in $layouts; do  # PyTorch's best configuration
    [ "$cl" = none ] && cl=""
    r=$(torch_run $model 1 $t $b $cl --steps 150 | field /dev/stdin samples_per_second)
    echo "  probe $model: PyTorch threads $t, OpenBLAS $b ${cl:-(NCHW)}: $(printf %.0f "$r") samples/s"
    if python3 -c "import sys; sys.exit(0 if $r > $best_torch else 1)"; then best_torch=$r best_cfg="$t $b $cl"; fi
  done; done; done
  set -- $best_cfg
  tt=$1 bb=$2 cl=${3:-}
  : > "$tmp/ex.$model"
  : > "$tmp/pt.$model"
  for run in $(seq "$RUNS"); do
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE -u OMP_NUM_THREADS "$EXADNN" train \
      --config configs/fashion_mnist_$model.yaml --set epochs=$EPOCHS --set threads=2 \
      --metrics-out "$tmp/ex.$model.$run.json" > /dev/null
    torch_run $model $EPOCHS $tt $bb $cl > "$tmp/pt.$model.$run.json"
    for fw in ex pt; do
      j="$tmp/$fw.$model.$run.json"
      echo "$(field "$j" samples_per_second) $(field "$j" peak_rss_mb) $(field "$j" test_accuracy)" >> "$tmp/$fw.$model"
    done
  done
  flops=$(field "$tmp/pt.$model.1.json" train_flops_per_sample)
  ex=$(cut -d' ' -f1 "$tmp/ex.$model" | median) pt=$(cut -d' ' -f1 "$tmp/pt.$model" | median)
  exm=$(cut -d' ' -f2 "$tmp/ex.$model" | median) ptm=$(cut -d' ' -f2 "$tmp/pt.$model" | median)
  exa=$(cut -d' ' -f3 "$tmp/ex.$model" | median) pta=$(cut -d' ' -f3 "$tmp/pt.$model" | median)
  echo "  $model runs (samples/s, peak RSS MB, accuracy): exadnn $(tr '\n' ';' < "$tmp/ex.$model") PyTorch $(tr '\n' ';' < "$tmp/pt.$model")"
  printf "%s: exadnn %.0f samples/s, PyTorch %.0f (threads %s, OpenBLAS %s%s) -> %.2fx; peak RSS %.0f vs %.0f MB (%.2f); accuracy %.4f vs %.4f\n" \
    $model "$ex" "$pt" "$tt" "$bb" "${cl:+, channels-last}" "$(calc "$ex/$pt")" "$exm" "$ptm" "$(calc "$exm/$ptm")" "$exa" "$pta"
  gx=$(calc "$flops*$ex/1e9") gp=$(calc "$flops*$pt/1e9")
  if [ "$gemm" != 0 ]; then
    printf "%s: %.1f MFLOP/sample; training GFLOP/s exadnn %.1f (%.0f%% of the best GEMM), PyTorch %.1f (%.0f%%)\n" \
      $model "$(calc "$flops/1e6")" "$gx" "$(calc "100*$gx/$gemm")" "$gp" "$(calc "100*$gp/$gemm")"
  else
    printf "%s: %.1f MFLOP/sample; training GFLOP/s exadnn %.1f, PyTorch %.1f\n" $model "$(calc "$flops/1e6")" "$gx" "$gp"
  fi
done
echo "load after: $(uptime)"
