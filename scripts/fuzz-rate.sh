#!/usr/bin/env bash
# Fuzzing throughput: runs every Fuzz target of the module for FUZZTIME (default 20s) and prints one
# line per target: package, target, total execs and execs per second over the run (baseline
# coverage included). Usage: scripts/fuzz-rate.sh [FUZZTIME]. A Markdown table goes to stdout.
# Each new interesting input is minimised for at most 100 executions (-fuzzminimizetime 100x): the
# executions of a minimisation are not counted, and at Go's default (up to 60s per input) one
# minimisation can stall the count for most of the run, so the figure would measure when the
# fuzzer happened to find new coverage, not how fast it runs the target.
set -euo pipefail
fuzztime=${1:-20s}
cd "$(dirname "$0")/.."
echo "| package | target | execs | execs/s |"
echo "| --- | --- | ---: | ---: |"
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    out=$(go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 100x 2>&1 || true)
    last=$(grep -E '^fuzz: elapsed: [0-9]+s, execs: [0-9]+' <<<"$out" | tail -1)
    secs=$(sed -E 's/^fuzz: elapsed: ([0-9]+)s.*/\1/' <<<"$last")
    execs=$(sed -E 's/.*execs: ([0-9]+).*/\1/' <<<"$last")
    rate=$(( ${secs:-0} > 0 ? ${execs:-0} / secs : 0 ))
    echo "| ${pkg#github.com/loom-kernel/loom-conform/} | $target | ${execs:-?} | $rate |"
  done
done
