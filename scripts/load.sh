#!/usr/bin/env bash
# A CPU load generator, to see that verdicts do not depend on machine speed (DESIGN §7.1).
#
#   scripts/load.sh N                 # N busy processes until interrupted (Ctrl-C)
#   scripts/load.sh N -- CMD ARGS…    # run CMD under N busy processes; exit with CMD's status
#
# Every busy process is killed when this script exits, however it exits (a trap on EXIT, INT,
# TERM and HUP). With N=16 on 2 cores the load average settles near 16.
set -euo pipefail
n=${1:?usage: scripts/load.sh N [-- CMD ARGS…]}
[[ $n =~ ^[0-9]+$ ]] || { echo "load.sh: N must be a whole number, got '$n'" >&2; exit 2; }
shift
pids=()
cleanup() {
	[[ ${#pids[@]} -gt 0 ]] && kill "${pids[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
for _ in $(seq 1 "$n"); do
	# A shell busy loop: pure CPU, no I/O, no memory; nice 0, like the work it competes with.
	bash -c 'while :; do :; done' &
	pids+=($!)
done
echo "load.sh: $n busy processes (pids ${pids[*]})" >&2
if [[ ${1:-} == "--" ]]; then
	shift
	[[ $# -gt 0 ]] || { echo "load.sh: nothing to run after --" >&2; exit 2; }
	"$@" && status=0 || status=$?
	exit "$status"
fi
wait
