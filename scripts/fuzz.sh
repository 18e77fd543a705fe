#!/usr/bin/env bash
# The fuzzing campaign (docs/fuzzing.md): builds the libFuzzer harnesses of fuzz/ with clang
# (EXADNN_FUZZ=ON, build dir build-fuzz) and runs each for MINUTES on its seed corpus and
# dictionary, one harness after the other.
#
#   scripts/fuzz.sh MINUTES [HARNESS...]    (every harness when none is named)
#
# New corpus inputs go to build-fuzz/corpus/<harness>/ (fuzz/corpus/ keeps the committed seeds);
# each crash, timeout, leak or out-of-memory input is copied to fuzz/regressions/<harness>/, which
# the CTest replay fuzz.replay.<harness> runs from then on. A crash ends that harness's run (fix it,
# then run again) -- except in the harnesses that go through libhdf5 (below). Prints per harness:
# minutes run, executions, coverage (libFuzzer's cov and ft of its last line) and the artifacts
# found; exits 1 if any harness found one in exadnn.
#
# hdf5 and cbed_shard reach libhdf5 (Debian's 1.10.8, not instrumented, not exadnn's to fix),
# which faults on some corrupt files (fuzz/open/cbed_shard/). They run in libFuzzer's fork mode
# (-fork=1 -ignore_crashes=1: one child process at a time; a crashed child is replaced and the
# campaign goes on), and each crash input is replayed and sorted by the frame it faults in:
# inside libhdf5 (interceptors such as memcpy skipped) it is kept in build-fuzz only, one input
# per new fault site copied to fuzz/open/<harness>/ (not replayed); anywhere else it is an exadnn
# bug and goes to fuzz/regressions/<harness>/ like any other.
# Environment: JOBS (build jobs, default nproc), FUZZ_BUILD_LOCK (a file to flock around the
# build, for shared machines), FUZZ_BUILD_DIR (default build-fuzz). Needs clang and its runtimes
# (scripts/setup.sh --fuzz).
set -euo pipefail
shopt -s extglob
cd "$(dirname "$0")/.."
MINUTES="${1:?usage: scripts/fuzz.sh MINUTES [HARNESS...]}"
shift
if ! [[ "$MINUTES" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: MINUTES must be a whole number of minutes, 1 or more (got '$MINUTES')" >&2
  exit 2
fi
ALL=(idx csv hdf5 checkpoint train_config control_file flow_wire climate_stream cbed_shard)
if [ "$#" -gt 0 ]; then HARNESSES=("$@"); else HARNESSES=("${ALL[@]}"); fi
BUILD="${FUZZ_BUILD_DIR:-build-fuzz}"
JOBS="${JOBS:-$(nproc)}"

echo "== configure and build ($BUILD, clang, EXADNN_FUZZ=ON) =="
# -O1 with line tables: a compromise between compile time and speed of the instrumented code.
CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DEXADNN_FUZZ=ON -DEXADNN_CUDA=OFF \
  -DEXADNN_BUILD_TESTS=OFF -DEXADNN_BUILD_BENCHMARKS=OFF -DEXADNN_BUILD_EXAMPLES=OFF \
  -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" \
  "-DCMAKE_C_FLAGS_DEBUG=-O1 -gline-tables-only" >/dev/null
targets=()
for h in "${HARNESSES[@]}"; do targets+=("fuzz_$h"); done
lock=()
if [ -n "${FUZZ_BUILD_LOCK:-}" ]; then lock=(flock "$FUZZ_BUILD_LOCK"); fi
"${lock[@]}" cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}"

# Open MPI and libhdf5 keep a few allocations to exit on purpose: the tests' suppressions.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp"

FORK_HARNESSES=" hdf5 cbed_shard "

# Where input $2 of harness program $1 faults (a crash, an allocation beyond the memory limit, a
# hang): "libhdf5 <function or module+offset>" when the first stack frame outside the sanitizer
# and libFuzzer runtimes, the allocation functions and the C library's string functions (memcpy)
# is inside libhdf5, else nothing. (awk reads
# the whole report: an early exit would end the harness with SIGPIPE, fatal under pipefail.)
libhdf5_fault_site() {
  { "$1" -timeout=10 -rss_limit_mb=2048 "$2" 2>&1 || true; } 2>/dev/null | awk '
    !done && /^ *#[0-9]+ / && !/__interceptor_|__asan|__sanitizer|__lsan|libclang_rt|fuzzer::/ &&
    !/ in (malloc|calloc|realloc|free|operator new|operator delete)[ (]|sysdeps\// {
      done = 1
      if (match($0, /libhdf5[^) ]*/)) {
        site = ($3 == "in") ? $4 : substr($0, RSTART, RLENGTH)
        print "libhdf5 " site
      }
    }'
}

summary=()
found_any=0
for h in "${HARNESSES[@]}"; do
  echo "== fuzz $h: $MINUTES min =="
  corpus="$BUILD/corpus/$h" artifacts="$BUILD/artifacts/$h" log="$BUILD/logs/$h.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  inputs=("$corpus" "fuzz/corpus/$h")
  if [ -d "fuzz/regressions/$h" ]; then inputs+=("fuzz/regressions/$h"); fi
  options=(-max_total_time=$((MINUTES * 60)) -timeout=10 -rss_limit_mb=2048
    -artifact_prefix="$artifacts/" -print_final_stats=1)
  if [ -f "fuzz/dict/$h.dict" ]; then options+=(-dict="fuzz/dict/$h.dict"); fi
  fork=0
  if [[ "$FORK_HARNESSES" == *" $h "* ]]; then fork=1 options+=(-fork=1 -ignore_crashes=1); fi
  start=$(date +%s)
  touch "$artifacts/.run-start"  # what this run found is newer
  "$BUILD/fuzz/fuzz_$h" "${options[@]}" "${inputs[@]}" >"$log" 2>&1 || true
  minutes=$(awk -v s=$(($(date +%s) - start)) 'BEGIN { printf "%.1f", s / 60 }')
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  # Fork mode's parent executes nothing itself: its status lines ("#RUNS: cov: ...") count them.
  if [ -z "$execs" ]; then execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' <<<"$last"); fi
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  new=()
  hdf5_faults=0 hdf5_new=() open_sites=""
  sorted="$artifacts/.libhdf5-faults"  # crash inputs already found to fault inside libhdf5
  touch "$sorted"
  for a in "$artifacts"/*; do
    [ -f "$a" ] || continue
    name=$(basename "$a")
    if [ "$fork" = 1 ] && [[ "$name" == @(crash|oom|timeout)-* ]] &&
      [ ! -f "fuzz/regressions/$h/$name" ]; then
      site=$(grep -m1 "^$name " "$sorted" | cut -d' ' -f2- || true)
      if [ -z "$site" ]; then
        site=$(libhdf5_fault_site "$BUILD/fuzz/fuzz_$h" "$a")
        if [ -n "$site" ]; then echo "$name $site" >>"$sorted"; fi
      fi
      if [ -n "$site" ]; then
        if [ "$a" -nt "$artifacts/.run-start" ]; then hdf5_faults=$((hdf5_faults + 1)); fi
        if [ -z "$open_sites" ]; then  # the sites of the inputs kept open so far, once
          open_sites="|"
          for o in "fuzz/open/$h"/*; do
            [ -f "$o" ] && open_sites+="$(libhdf5_fault_site "$BUILD/fuzz/fuzz_$h" "$o")|"
          done
        fi
        if [[ "$open_sites" != *"|$site|"* ]]; then
          mkdir -p "fuzz/open/$h"
          cp "$a" "fuzz/open/$h/"
          open_sites+="$site|"
          hdf5_new+=("$name ($site)")
        fi
        continue
      fi
    fi
    case "$name" in
      crash-* | timeout-* | leak-* | oom-*)
        mkdir -p "fuzz/regressions/$h"
        if [ ! -f "fuzz/regressions/$h/$(basename "$a")" ]; then
          cp "$a" "fuzz/regressions/$h/"
          new+=("$(basename "$a")")
        fi
        ;;
    esac
  done
  if [ "${#new[@]}" -gt 0 ]; then
    found_any=1
    echo "   found: ${new[*]} (copied to fuzz/regressions/$h/; log $log)"
  fi
  if [ "${#hdf5_new[@]}" -gt 0 ]; then
    echo "   new fault sites inside libhdf5: ${hdf5_new[*]} (copied to fuzz/open/$h/)"
  fi
  summary+=("$(printf '%-15s %8s min %12s execs  cov %6s  ft %7s  artifacts %s' "$h" "$minutes" \
    "${execs:-?}" "${cov:-?}" "${ft:-?}" "${#new[@]}")")
  if [ "$fork" = 1 ]; then
    summary[-1]+="  (libhdf5 faults this run: $hdf5_faults inputs; ${#hdf5_new[@]} new sites)"
  fi
  echo "   ${summary[-1]}"
done

echo "== summary =="
printf '%s\n' "${summary[@]}"
exit "$found_any"
