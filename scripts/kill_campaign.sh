#!/usr/bin/env bash
# Crash safety of training: a run killed with SIGKILL at random moments (some during a checkpoint
# write) and resumed each time ends with weights bit-identical to an uninterrupted run, and no
# kill leaves an unreadable last.ckpt.
#   scripts/kill_campaign.sh EXADNN [KILLS=20] [WORKDIR=kill_campaign] [-- --set key=value ...]
# The run is `exadnn train` with the default config or the options after -- (a --config path must
# be absolute: the campaign runs inside WORKDIR). The campaign first times an uninterrupted run
# (its start-up and its epochs), then kills each start at a uniform random moment of the training
# it has left. Prints one line per kill and exits non-zero, naming the kill, on any broken promise.
# Environment:
#   KILL_CAMPAIGN_SEED      the kill moments' random seed (default: the script's PID)
#   KILL_CAMPAIGN_LAUNCHER  a command that starts the training, e.g. "mpirun -np 3" for an MPI
#                           strategy (with --set distributed.mode=... after --); a kill then
#                           SIGKILLs the whole job at once: the launcher and every process under it
#   KILL_CAMPAIGN_EXACT     1 (default): the final weights must be bit-identical to the
#                           uninterrupted run's; 0 for a run that is not deterministic by nature
#                           (asynchronous SGD): then only resumability and a readable last.ckpt
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/kill_common.sh"
exadnn=$(realpath "$1")
kills=${2:-20}
work=${3:-kill_campaign}
shift $(($# < 3 ? $# : 3))
[[ ${1:-} == -- ]] && shift
overrides=("$@")
rm -rf "$work" && mkdir -p "$work" && cd "$work"
seed=${KILL_CAMPAIGN_SEED:-$$}
RANDOM=$seed
read -r -a launcher <<< "${KILL_CAMPAIGN_LAUNCHER:-}"
exact=${KILL_CAMPAIGN_EXACT:-1}

# The tensors of a checkpoint (its data section: after the 20-byte preamble and the JSON header,
# before the 8-byte checksum); the header's run history holds wall times, which differ.
tensor_digest() {
  local file=$1 header size
  header=$(od -An -t u8 -j 12 -N 8 "$file" | tr -d ' ')
  size=$(stat -c %s "$file")
  tail -c +$((21 + header)) "$file" | head -c $((size - 28 - header)) | sha256sum | cut -d' ' -f1
}

start=$(date +%s.%N)
if ! "${launcher[@]}" "$exadnn" train "${overrides[@]}" --checkpoint-dir reference > reference.log 2>&1; then
  cat reference.log >&2
  echo "FAIL: the uninterrupted run failed (paths after -- are read from inside $work)" >&2
  exit 1
fi
seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
echo "uninterrupted run: ${seconds} s; ${kills} kills at random moments (seed ${seed})"

# Epochs of the run, and how many the current run has done (the last "epoch N/E" a start printed).
epochs=$(grep -o 'epoch [0-9]*/[0-9]*' reference.log | tail -1 | cut -d/ -f2)
# The run's training time (its epochs' seconds) and its start-up (the rest: data, model): kills
# land at a uniform moment of the training still to do, after the start-up, so that they hit
# steps and checkpoint writes rather than mostly the loading of the data.
training=$(grep -o '[0-9.]* s  rss' reference.log | awk '{ t += $1 } END { printf "%.3f", t }')
startup=$(awk -v a="$seconds" -v t="$training" 'BEGIN { s = a - t; if (s < 0) s = 0; printf "%.3f", s }')
echo "start-up ${startup} s, training ${training} s over ${epochs} epochs"
done_epochs=0
finished=0
for ((k = 1; k <= kills; ++k)); do
  resume=()
  [[ -f run/last.ckpt ]] && resume=(--resume)
  "${launcher[@]}" "$exadnn" train "${overrides[@]}" --checkpoint-dir run "${resume[@]}" > "run_$k.log" 2>&1 &
  pid=$!
  # After the start-up, a moment within the training left (the uninterrupted run's pace).
  delay=$(awk -v s="$startup" -v t="$training" -v e="$epochs" -v d="$done_epochs" -v r="$RANDOM" \
    'BEGIN { printf "%.3f", s + t * (e - d) / e * r / 32768 }')
  sleep "$delay"
  if kill_tree "$pid"; then what="killed after ${delay} s"; else what="finished first"; fi
  wait "$pid" 2> /dev/null || true
  last=$(grep -o 'epoch [0-9]*/' "run_$k.log" | tail -1 | tr -dc '0-9' || true)
  done_epochs=${last:-$done_epochs}
  if [[ -f run/last.ckpt ]]; then
    if ! "$exadnn" eval --checkpoint run/last.ckpt > "eval_$k.log" 2>&1; then
      cat "eval_$k.log" >&2
      echo "FAIL: kill $k ($what) left an unreadable run/last.ckpt" >&2
      exit 1
    fi
    echo "kill $k: $what, $done_epochs of $epochs epochs done; last.ckpt readable"
  else
    echo "kill $k: $what, before the first checkpoint"
  fi
  if ((done_epochs >= epochs)); then  # the run ended before its kill: the next kills hit a new one
    finished=$((finished + 1))
    rm -rf run
    done_epochs=0
  fi
done
echo "runs that ended before their kill (then started afresh): $finished"

resume=()
[[ -f run/last.ckpt ]] && resume=(--resume)
if ! "${launcher[@]}" "$exadnn" train "${overrides[@]}" --checkpoint-dir run "${resume[@]}" > run_final.log 2>&1; then
  cat run_final.log >&2
  echo "FAIL: the run did not resume after the last kill" >&2
  exit 1
fi
want=$(tensor_digest reference/last.ckpt)
got=$(tensor_digest run/last.ckpt)
leftovers=$(find run -name '*.tmp.*' | wc -l)
echo "final weights: uninterrupted ${want:0:16}, killed ${kills}x and resumed ${got:0:16}; temporaries left: ${leftovers}"
if [[ $exact != 1 ]]; then
  echo "kill campaign ok (resumed after every kill, last.ckpt always readable; weights not compared: KILL_CAMPAIGN_EXACT=0)"
  exit 0
fi
[[ $want == "$got" ]] || { echo "FAIL: the resumed run's weights differ from the uninterrupted run's" >&2; exit 1; }
echo "kill campaign ok"
