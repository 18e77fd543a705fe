#!/usr/bin/env bash
# exadnn vs Debian's PyTorch on the models of configs/, alternating runs:
#   mlp       Fashion-MNIST 784-512-256-10, SGD momentum, batch 128 (fashion_mnist_mlp.yaml)
#   cnn       Fashion-MNIST conv5x5 32, conv5x5 64, 256, 10, SGD, batch 128 (fashion_mnist_cnn.yaml)
#   wide_mlp  Fashion-MNIST 784-2048-2048-10, Adam, batch 256 (fashion_wide_mlp.yaml)
#   resnet18  ResNet-18 on 3x64x64 images (2048 training / 512 test: Fashion-MNIST upsampled and
#             replicated to 3 channels by bench/make_fashion64.py into a temporary HDF5 file that
#             both frameworks read), SGD momentum, batch 128 (resnet18_64.yaml)
# Each run trains EPOCHS epochs (default 3); a run's figure is the median samples/s of its steady
# epochs 2..EPOCHS (the first epoch, printed apart, includes each framework's warm-up: PyTorch's
# first CNN epoch runs ~30 % slower), and the figures are medians over RUNS alternating runs
# (default 5). Training time only: exadnn's --metrics-out per-epoch samples/s, and
# compare_pytorch.py's own clock around the same loop.
#
# PyTorch gets its best configuration, probed first (2 short epochs of a few batches each, the
# second timed): PyTorch threads x OpenBLAS threads in {1, 2}, and for the convolutional models
# also channels-last, with OPENBLAS_CORETYPE=SkylakeX (Debian's OpenBLAS otherwise picks a slower
# kernel on this processor). exadnn runs with EXADNN_THREADS threads (default 2) and no other
# environment variables set.
#
# Each model's training GFLOP/s (training FLOPs per sample x samples/s; FLOPs = 3 x the forward's
# 2 x multiply-adds, counted by compare_pytorch.py) is also printed as a fraction of the best f32
# GEMM GFLOP/s measured here at 2 threads (exadnn::matmul, dnnl_sgemm and OpenBLAS's sgemm, auto
# and SkylakeX, at 512^3 and 2048^3), when BUILD_DIR has bench/exadnn_matmul_bench
# (-DEXADNN_BUILD_BENCHMARKS=ON). Peak RSS is each process's own ru_maxrss (both frameworks hold
# the same f32 data: ~190 MB for Fashion-MNIST, ~126 MB for the 3x64x64 set), with the ratio.
#
# Timing needs a quiet machine: with 2 cores, any other busy process makes both frameworks'
# 2-thread OpenMP loops wait on each other many times slower. The load is printed before and after.
#   usage: [MODELS="mlp cnn wide_mlp resnet18"] [EXADNN_THREADS=2] bench/compare_pytorch.sh \
#            [BUILD_DIR] [RUNS] [EPOCHS]
#   e.g.   MODELS="wide_mlp resnet18" bench/compare_pytorch.sh build 2 3
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}" RUNS="${2:-5}" EPOCHS="${3:-3}" MODELS="${MODELS:-mlp cnn wide_mlp resnet18}"
THREADS="${EXADNN_THREADS:-2}"
EXADNN="$BUILD/tools/exadnn" MATMUL="$BUILD/bench/exadnn_matmul_bench"
[ -x "$EXADNN" ] || { echo "build $EXADNN first (cmake --build $BUILD --target exadnn_cli)"; exit 1; }
PY="${PYTHON:-/usr/bin/python3}"  # Debian's python3, where python3-torch lives
"$PY" -c "import torch, h5py" 2>/dev/null || { echo "needs python3-torch and python3-h5py (scripts/setup.sh --bench)"; exit 1; }
for model in $MODELS; do
  case $model in mlp | cnn | wide_mlp | resnet18) ;; *) echo "unknown model '$model' in MODELS (mlp cnn wide_mlp resnet18)"; exit 1 ;; esac
done
[ "$EPOCHS" -ge 1 ] || { echo "EPOCHS must be at least 1"; exit 1; }
[ "$EPOCHS" -ge 3 ] || echo "WARNING: EPOCHS=$EPOCHS: fewer than 2 steady epochs (2..E) per run"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
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

config() {  # config MODEL: the exadnn config of MODEL
  case $1 in
    mlp | cnn) echo "configs/fashion_mnist_$1.yaml" ;;
    wide_mlp) echo configs/fashion_wide_mlp.yaml ;;
    resnet18) echo configs/resnet18_64.yaml ;;
  esac
}
declare -A PROBE_STEPS=([mlp]=150 [cnn]=100 [wide_mlp]=30 [resnet18]=4)
for model in $MODELS; do
  data=() exset=()
  if [ $model = resnet18 ]; then
    [ -f "$tmp/fashion64.h5" ] || "$PY" bench/make_fashion64.py "$tmp/fashion64.h5"
    data=(--data "$tmp/fashion64.h5") exset=(--set "data.file=$tmp/fashion64.h5")
  fi
  best_torch=0 best_cfg=""
  layouts="none"
  case $model in cnn | resnet18) layouts="none --channels-last" ;; esac
  for t in 1 2; do for b in 1 2; do for cl in $layouts; do  # PyTorch's best configuration
    [ "$cl" = none ] && cl=""
    r=$(torch_run $model 2 $t $b $cl "${data[@]}" --steps ${PROBE_STEPS[$model]} | field /dev/stdin samples_per_second)
    echo "  probe $model: PyTorch threads $t, OpenBLAS $b ${cl:-(NCHW)}: $(printf %.0f "$r") samples/s"
    if python3 -c "import sys; sys.exit(0 if $r > $best_torch else 1)"; then best_torch=$r best_cfg="$t $b $cl"; fi
  done; done; done
  set -- $best_cfg
  tt=$1 bb=$2 cl=${3:-}
  echo "threads $tt, OpenBLAS $bb${cl:+, channels-last}" > "$tmp/pt.$model.cfg"
  for run in $(seq "$RUNS"); do
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE -u OMP_NUM_THREADS "$EXADNN" train \
      --config "$(config $model)" "${exset[@]}" --set epochs=$EPOCHS --set threads=$THREADS \
      --metrics-out "$tmp/ex.$model.$run.json" > "$tmp/ex.$model.out"
    sed -n 's/^model: \([0-9]*\) parameters$/\1/p' "$tmp/ex.$model.out" > "$tmp/ex.$model.params"
    torch_run $model $EPOCHS $tt $bb $cl "${data[@]}" > "$tmp/pt.$model.$run.json"
  done
  python3 bench/compare.py training "$tmp" "$gemm" $model
done
echo "load after: $(uptime)"
echo
echo "$RUNS alternating runs of $EPOCHS epochs, exadnn at $THREADS threads; samples/s: medians over the runs of each run's median steady epoch (2..$EPOCHS)"
python3 bench/compare.py training --table "$tmp" "$gemm" $MODELS
