#!/usr/bin/env bash
# exadnn vs Debian's PyTorch on the Fashion-MNIST MLP and CNN (configs/), one epoch each by
# default, alternating runs. PyTorch gets its best configuration: PyTorch threads x OpenBLAS
# threads in {1, 2} with OPENBLAS_CORETYPE=SkylakeX (Debian's OpenBLAS otherwise picks a slower
# kernel on this processor). exadnn runs with 2 threads and no environment variables set.
#   usage: bench/compare_pytorch.sh [BUILD_DIR] [RUNS] [EPOCHS]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD="${1:-build}" RUNS="${2:-3}" EPOCHS="${3:-1}"
EXADNN="$BUILD/tools/exadnn"
[ -x "$EXADNN" ] || { echo "build $EXADNN first (cmake --build $BUILD --target exadnn_cli)"; exit 1; }
/usr/bin/python3 -c "import torch" 2>/dev/null || { echo "needs python3-torch (scripts/setup.sh --bench)"; exit 1; }
PY="${PYTHON:-/usr/bin/python3}"  # Debian's python3, where python3-torch lives
tmp=$(mktemp -d)

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

for model in mlp cnn; do
  best_torch=0 best_cfg=""
  for t in 1 2; do for b in 1 2; do  # find PyTorch's best configuration once
    r=$(env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=SkylakeX OPENBLAS_NUM_THREADS=$b \
        "$PY" bench/compare_pytorch.py $model 1 $t | field /dev/stdin samples_per_second)
    if python3 -c "import sys; sys.exit(0 if $r > $best_torch else 1)"; then best_torch=$r best_cfg="$t $b"; fi
  done; done
  set -- $best_cfg; tt=$1 bb=$2
  : > "$tmp/ex.$model"; : > "$tmp/pt.$model"
  for run in $(seq "$RUNS"); do
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE -u OMP_NUM_THREADS "$EXADNN" train \
      --config configs/fashion_mnist_$model.yaml --set epochs=$EPOCHS --set threads=2 \
      --metrics-out "$tmp/ex.$model.$run.json" > /dev/null
    echo "$(field "$tmp/ex.$model.$run.json" samples_per_second) $(field "$tmp/ex.$model.$run.json" peak_rss_mb) $(field "$tmp/ex.$model.$run.json" test_accuracy)" >> "$tmp/ex.$model"
    env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=SkylakeX OPENBLAS_NUM_THREADS=$bb \
      "$PY" bench/compare_pytorch.py $model $EPOCHS $tt > "$tmp/pt.$model.$run.json"
    echo "$(field "$tmp/pt.$model.$run.json" samples_per_second) $(field "$tmp/pt.$model.$run.json" peak_rss_mb) $(field "$tmp/pt.$model.$run.json" test_accuracy)" >> "$tmp/pt.$model"
  done
  ex=$(cut -d' ' -f1 "$tmp/ex.$model" | median) pt=$(cut -d' ' -f1 "$tmp/pt.$model" | median)
  exm=$(cut -d' ' -f2 "$tmp/ex.$model" | median) ptm=$(cut -d' ' -f2 "$tmp/pt.$model" | median)
  exa=$(cut -d' ' -f3 "$tmp/ex.$model" | median) pta=$(cut -d' ' -f3 "$tmp/pt.$model" | median)
  printf "%s: exadnn %.0f samples/s, PyTorch %.0f (threads %s, OpenBLAS %s) -> %.2fx; peak RSS %.0f vs %.0f MB (%.2f); accuracy %.4f vs %.4f\n" \
    $model "$ex" "$pt" "$tt" "$bb" "$(python3 -c "print($ex/$pt)")" "$exm" "$ptm" "$(python3 -c "print($exm/$ptm)")" "$exa" "$pta"
done
rm -rf "$tmp"
