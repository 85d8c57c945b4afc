#!/bin/sh
# kernel.sh — a wire kernel ABI client in POSIX shell, using only curl and jq (docs/wire.md).
#
#   kernel.sh URL [FLOWS_JSON]
#
# Drives every flow of FLOWS_JSON (default: flows.json beside this script) against the kernel at
# URL: execution.start, the flow's syscalls in order; on a park, execution.resume with attach and
# a re-drive from the top (the kernel serves what its log answers); execution.complete; then a
# replay (execution.attach on the finished execution, the same calls, complete) that must append
# nothing. Prints one JSON line per flow: {flow, executionId, canonical, log}, where canonical is
# the folded state as the kernel holds it. Execution ids are $LOOM_EXEC_PREFIX-<flow id>
# (default prefix "wire"). Exits 1 naming the flow and call on any unexpected answer.
set -eu

URL=${1:?usage: kernel.sh URL [FLOWS_JSON]}
FLOWS=${2:-$(dirname "$0")/flows.json}
PREFIX=${LOOM_EXEC_PREFIX:-wire}

die() {
	echo "kernel.sh: $*" >&2
	exit 1
}

# rpc METHOD PARAMS_JSON — prints the JSON-RPC response
rpc() {
	body=$(jq -cn --arg m "$1" --argjson p "$2" '{jsonrpc: "2.0", id: 1, method: $m, params: $p}') ||
		die "$1: params are not JSON: $2"
	curl -sS --max-time 60 -H 'Content-Type: application/json' --data-binary "$body" "$URL" ||
		die "$1: the kernel did not answer"
}

# ok METHOD PARAMS_JSON — prints the result; an error answer is fatal
ok() {
	resp=$(rpc "$1" "$2")
	if printf '%s' "$resp" | jq -e 'has("error")' >/dev/null; then
		die "$1 $2 = $(printf '%s' "$resp" | jq -c .error)"
	fi
	printf '%s' "$resp" | jq -c .result
}

# expect FLOW INDEX CALL RESPONSE — the answer matches the call's "expect" (or is a success)
expect() {
	want=$(printf '%s' "$3" | jq -r '.expect.code // empty')
	got=$(printf '%s' "$4" | jq -r '.error.code // empty')
	[ "$want" = "$got" ] || die "flow $1 call $2: error code '${got:-none}', want '${want:-none}': $(printf '%s' "$4" | jq -c .)"
	wantch=$(printf '%s' "$3" | jq -r '.expect.channel // empty')
	gotch=$(printf '%s' "$4" | jq -r '.error.data.channel // empty')
	[ "$wantch" = "$gotch" ] || die "flow $1 call $2: channel '${gotch}', want '${wantch}'"
}

# complete FLOW_JSON EXEC TOKEN — execution.complete with the flow's output or error
complete() {
	p=$(printf '%s' "$1" | jq -c --arg e "$2" --arg d "$3" \
		'{executionId: $e, driver: $d} + (if has("error") then {error: .error} else {output: .output} end)')
	st=$(ok execution.complete "$p" | jq -r .status)
	want=$(printf '%s' "$1" | jq -r 'if has("error") then "failed" else "completed" end')
	[ "$st" = "$want" ] || die "execution.complete $2: status $st, want $want"
}

nflows=$(jq '.flows | length' "$FLOWS") || die "$FLOWS: not a flow set"
i=0
while [ "$i" -lt "$nflows" ]; do
	flow=$(jq -c ".flows[$i]" "$FLOWS")
	fid=$(printf '%s' "$flow" | jq -r .id)
	exe="$PREFIX-$fid"
	ncalls=$(printf '%s' "$flow" | jq '.calls | length')

	# start, then drive; a park is answered by the flow's resume and a re-drive from the top
	tok=$(ok execution.start "$(printf '%s' "$flow" | jq -c --arg e "$exe" '{flowId: .id, executionId: $e, input: .input}')" | jq -r .driver)
	resumed=0
	k=0
	while [ "$k" -lt "$ncalls" ]; do
		call=$(printf '%s' "$flow" | jq -c ".calls[$k]")
		method="syscall.$(printf '%s' "$call" | jq -r .syscall)"
		resp=$(rpc "$method" "$(printf '%s' "$call" | jq -c --arg e "$exe" --arg d "$tok" '{executionId: $e, driver: $d, args: .args}')")
		expect "$fid" "$k" "$call" "$resp"
		if [ "$(printf '%s' "$resp" | jq -r '.result.parked // false')" = true ]; then
			[ "$resumed" = 0 ] || die "flow $fid call $k parked a second time"
			resumed=1
			tok=$(ok execution.resume "$(printf '%s' "$flow" | jq -c --arg e "$exe" \
				'{executionId: $e, eventType: .resume.eventType, payload: .resume.payload, attach: true}')" | jq -r .driver)
			k=0
			continue
		fi
		k=$((k + 1))
	done
	complete "$flow" "$exe" "$tok"
	before=$(ok execution.getState "{\"executionId\":\"$exe\",\"includeLog\":true}")

	# replay: attach to the finished execution and re-drive it; everything is served
	tok=$(ok execution.attach "{\"executionId\":\"$exe\"}" | jq -r .driver)
	k=0
	while [ "$k" -lt "$ncalls" ]; do
		call=$(printf '%s' "$flow" | jq -c ".calls[$k]")
		method="syscall.$(printf '%s' "$call" | jq -r .syscall)"
		resp=$(rpc "$method" "$(printf '%s' "$call" | jq -c --arg e "$exe" --arg d "$tok" '{executionId: $e, driver: $d, args: .args}')")
		expect "$fid" "replay $k" "$call" "$resp"
		[ "$(printf '%s' "$resp" | jq -r '.result.parked // false')" = false ] || die "flow $fid replay call $k parked"
		k=$((k + 1))
	done
	complete "$flow" "$exe" "$tok"
	after=$(ok execution.getState "{\"executionId\":\"$exe\",\"includeLog\":true}")
	[ "$(printf '%s' "$before" | jq '.log | length')" = "$(printf '%s' "$after" | jq '.log | length')" ] ||
		die "flow $fid: the replay appended"

	printf '%s' "$after" | jq -c --arg f "$fid" '{flow: $f, executionId: .executionId, canonical: .canonical, log: .log}'
	i=$((i + 1))
done
