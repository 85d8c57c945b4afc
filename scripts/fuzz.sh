#!/usr/bin/env bash
# Bounded fuzzing: runs every Fuzz target of the module for FUZZTIME each, then every rapid property
# package with a large case count (RAPID_CHECKS, default 2000).
# Usage: scripts/fuzz.sh [FUZZTIME] (default 30s).
set -euo pipefail
fuzztime=${1:-30s}
checks=${RAPID_CHECKS:-2000}
export RAPID_CHECKS=$checks
cd "$(dirname "$0")/.."
status=0
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "== fuzz $pkg $target ($fuzztime)"
    go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" || status=1
  done
  if go list -test -deps "$pkg" 2>/dev/null | grep -qx 'pgregory.net/rapid'; then
    echo "== properties $pkg (rapid.checks=$checks)"
    go test "$pkg" -count=1 -run . -rapid.checks="$checks" -timeout 60m || status=1
  fi
done
echo "== hostile bridges (LOOM_HOSTILE_SEEDS=${LOOM_HOSTILE_SEEDS:-100})"
LOOM_HOSTILE_SEEDS=${LOOM_HOSTILE_SEEDS:-100} go test ./certify -count=1 -run '^TestHostile(Bridge|Kernel)NeverCrashesTheHarness$' -timeout 60m || status=1
exit $status
