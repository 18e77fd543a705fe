#!/usr/bin/env bash
# Runs a command for at most SECONDS (TERM, then KILL 10 s later) and exits 0 whatever it did: for
# tests whose verdict is what the command printed (PASS_REGULAR_EXPRESSION). `timeout` makes its
# own process group and signals all of it, itself included (so a KILL ends `timeout` too, which
# CTest reports as a killed test even when the output passed); run from here, only that group goes.
#   usage: bounded_run.sh SECONDS COMMAND [ARGS...]
seconds="$1"
shift
timeout -k 10 "$seconds" "$@"
exit 0
