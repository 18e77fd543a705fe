#!/usr/bin/env bash
# A long run keeps its resident memory flat after the first epochs: `exadnn train` prints its
# resident memory after every epoch ("rss N MB"); over EPOCHS epochs of the kill campaign's small
# MLP, the last epoch's may exceed the second's by at most 2 % (a tensor leaked per step would add
# hundreds of MB here). Prints the whole series.
#   memory_flat.sh EXADNN CONFIG [EPOCHS=20]
set -euo pipefail
exadnn=$1 config=$2 epochs=${3:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$exadnn" train --config "$config" --set epochs="$epochs" --checkpoint-dir "$work/ckpt" > "$work/log" 2>&1 || {
  cat "$work/log"; echo "FAIL: the run failed" >&2; exit 1; }
series=$(grep -o 'rss [0-9.]* MB' "$work/log" | awk '{print $2}')
echo "resident memory per epoch (MB):" $series
[[ $(echo "$series" | wc -l) -eq $epochs ]] || { echo "FAIL: not one rss figure per epoch" >&2; exit 1; }
echo "$series" | awk 'NR == 2 { second = $1 } END {
  growth = $1 - second
  printf "epoch 2 -> %d: %+.1f MB (%+.2f %%)\n", NR, growth, 100 * growth / second
  if (growth > 0.02 * second) { print "FAIL: resident memory grew more than 2 % after epoch 2"; exit 1 } }'
