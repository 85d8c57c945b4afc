#!/bin/sh
# kernel.sh — a wire kernel ABI client in POSIX shell, using only curl and jq (docs/wire.md).
#
#   kernel.sh URL CASE_DIR...
#
# Each CASE_DIR holds a flow script (flow.json, loom-flowscript/1, docs/goldens.md) and its driver
# (driver.json, loom-driver/1). For each, in order: execution.start with the start action's input
# (and the driver's budget, if any); the script's statements in order, each a syscall; at a park
# the driver's next action: a resume (execution.resume with attach) or a resumeAs
# (execution.resumeAs with attach, its transform applied here to the input getState shows)
# re-drives the script from the top (the kernel serves what its log answers), a cancel
# (execution.cancel) ends the run, fireTimers resumes a park, on whatever gate, whose recorded
# wakeAt is due at its time with TIMER_FIRED {wakeAt} (this client holds the driver's virtual
# clock), and a refused action (-32023, -32025) leaves the run as it was.
# A run that ends completes (execution.complete) with the script's output or its failure's
# message; a finished execution is then replayed (execution.attach, the same calls, complete),
# which must append nothing. Prints one JSON line per case: {flow, executionId, canonical, log},
# where canonical is the folded state the kernel holds. Execution ids are
# $LOOM_EXEC_PREFIX-<case dir name> (default prefix "wire"). Exits 1 naming the case and statement
# on any unexpected answer, 2 on a script outside the subset.
#
# The subset (docs/wire.md, "Driving a flow script"): straight-line bodies of execute, run,
# decide, suspend, sleepUntil, emit, stream and ui; bind, "return", {"$ref": "name/pointer"}
# references and onError "continue"; no parallel, no retry, no features. A syscall's error answer becomes the
# failure the in-process interpreter sees (I-WIRE-10).
set -eu

URL=${1:?usage: kernel.sh URL CASE_DIR...}
shift
PREFIX=${LOOM_EXEC_PREFIX:-wire}

die() {
	echo "kernel.sh: $*" >&2
	exit 1
}

# rpc METHOD PARAMS_JSON — prints the JSON-RPC response
rpc() {
	body=$(jq -cn --arg m "$1" --argjson p "$2" '{jsonrpc: "2.0", id: 1, method: $m, params: $p}') ||
		die "$1: params are not JSON: $2"
	# The bearer token of a kernel served beyond loopback ($LOOM_CONFORM_TOKEN) goes to curl on
	# its standard input, not its command line, which every user of the host can read.
	if [ -n "${LOOM_CONFORM_TOKEN:-}" ]; then
		printf 'Authorization: Bearer %s\n' "$LOOM_CONFORM_TOKEN" |
			curl -sS --max-time 60 -H 'Content-Type: application/json' -H @- --data-binary "$body" "$URL"
	else
		curl -sS --max-time 60 -H 'Content-Type: application/json' --data-binary "$body" "$URL"
	fi || die "$1: the kernel did not answer"
}

# ok METHOD PARAMS_JSON — prints the result; an error answer is fatal
ok() {
	resp=$(rpc "$1" "$2")
	if printf '%s' "$resp" | jq -e 'has("error")' >/dev/null; then
		die "$1 $2 = $(printf '%s' "$resp" | jq -c .error)"
	fi
	printf '%s' "$resp" | jq -c .result
}

# jq definitions: references, a statement's syscall arguments, an error answer's failure
JQDEFS='
def deref($env):
  .["$ref"] as $r | ($r | split("/")) as $t
  | if ($env | has($t[0]) | not) then error("reference to unbound name \($t[0])") else . end
  | reduce ($t[1:][] | gsub("~1"; "/") | gsub("~0"; "~")) as $k ($env[$t[0]];
      if type == "array" then .[$k | tonumber] elif type == "object" and has($k) then .[$k]
      else error("reference \($r): no member \($k)") end);
def resolve($env): walk(if type == "object" and keys == ["$ref"] then deref($env) else . end);
def args($env):
  if .op == "execute" then
    {task: ({id} + (if .kind then {kind} else {} end) + (if .tool then {toolId: .tool} else {} end)
      + (if .timeoutMs then {timeoutMs} else {} end) + (if .atMostOnce then {atMostOnce} else {} end)
      + (if .errors then {errors} else {} end))}
    + (if has("input") then {input: (.input | resolve($env))} else {} end)
  elif .op == "run" then {stepId: .id, toolId: .tool} + (if has("input") then {input: (.input | resolve($env))} else {} end)
  elif .op == "decide" then {id} + (if .fails then {error: {message: "fake: decider throws"}} else {} end)
    + with_entries(select(.key | IN("choice", "context", "policy")) | .value |= resolve($env))
  elif .op == "suspend" then {on} + (if .timeoutMs then {timeoutMs} else {} end) + (if .wakeAt then {wakeAt} else {} end)
    + (if .correlationKey then {correlationKey} else {} end)
  elif .op == "sleepUntil" then {wakeAt}
  else {eventType, payload: (.payload | resolve($env))} end;
def subset:
  .format == "loom-flowscript/1" and ((.features // []) | length == 0)
  and all(.body[]; (.op | IN("execute", "run", "decide", "suspend", "sleepUntil", "emit", "stream", "ui")) and ((.retry // 0) == 0));
def transform($cur):
  if .fail then {ok: false} elif has("set") then {ok: true, v: .set}
  elif has("merge") then {ok: true, v: ((if ($cur | type) == "object" then $cur else {} end) + .merge)}
  else {ok: true, v: $cur} end;
def failure:
  (.data // {}) as $d
  | if .code == -32021 then {kind: "typed", channel: $d.channel} + (if $d.payload != null then {payload: $d.payload} else {} end) + {message}
  elif .code == -32022 then {kind: "quota", message}
  elif .code == -32020 and $d.kind == "step-failed" then {kind: (if $d.timeout then "timeout" else "untyped" end), message: ($d.message // .message)}
  elif .code == -32020 and $d.kind == "step-cancelled" then {kind: "cancelled", message: "step \($d.stepId) cancelled"}
  elif .code == -32020 and $d.kind == "decider" then {kind: "decider", message}
  else null end;
'

# drive_body EXEC TOKEN — runs the script's body; sets OUTCOME to {done: output} or {fail: failure},
# or PARKED=1 when a syscall parked the run
drive_body() {
	env=$(jq -cn --argjson i "$INPUT" '{input: $i}')
	last=null
	PARKED=0
	OUTCOME=
	j=0
	while [ "$j" -lt "$NSTMT" ]; do
		st=$(printf '%s' "$SCRIPT" | jq -c ".body[$j]")
		op=$(printf '%s' "$st" | jq -r .op)
		args=$(printf '%s' "$st" | jq -c --argjson env "$env" "$JQDEFS args(\$env)") ||
			{ echo "kernel.sh: $NAME: body[$j]: a reference does not resolve" >&2; exit 2; }
		resp=$(rpc "syscall.$op" "$(jq -cn --arg e "$1" --arg d "$2" --argjson a "$args" '{executionId: $e, driver: $d, args: $a}')")
		if printf '%s' "$resp" | jq -e 'has("error")' >/dev/null; then
			f=$(printf '%s' "$resp" | jq -c "$JQDEFS .error | failure")
			[ "$f" != null ] || die "$NAME: body[$j] syscall.$op = $(printf '%s' "$resp" | jq -c .error)"
			if [ "$(printf '%s' "$st" | jq -r '.onError // "fail"')" != continue ]; then
				OUTCOME=$(jq -cn --argjson f "$f" '{fail: $f}')
				return 0
			fi
			value=$(jq -cn --argjson f "$f" '{failed: $f}')
		else
			if [ "$(printf '%s' "$resp" | jq -r '.result.parked // false')" = true ]; then
				PARKED=1
				return 0
			fi
			value=$(printf '%s' "$resp" | jq -c '.result.value')
		fi
		bind=$(printf '%s' "$st" | jq -r '.bind // empty')
		if [ -n "$bind" ]; then
			env=$(printf '%s' "$env" | jq -c --arg b "$bind" --argjson v "$value" '. + {($b): $v}')
		fi
		last=$value
		j=$((j + 1))
	done
	if printf '%s' "$SCRIPT" | jq -e 'has("return")' >/dev/null; then
		out=$(printf '%s' "$SCRIPT" | jq -c --argjson env "$env" "$JQDEFS .return | resolve(\$env)") ||
			{ echo "kernel.sh: $NAME: return: a reference does not resolve" >&2; exit 2; }
	else
		out=$last
	fi
	OUTCOME=$(jq -cn --argjson o "$out" '{done: $o}')
}

# complete EXEC TOKEN — execution.complete with OUTCOME
complete() {
	p=$(printf '%s' "$OUTCOME" | jq -c --arg e "$1" --arg d "$2" \
		'{executionId: $e, driver: $d} + (if has("fail") then {error: {message: .fail.message}} else {output: .done} end)')
	st=$(ok execution.complete "$p" | jq -r .status)
	want=$(printf '%s' "$OUTCOME" | jq -r 'if has("fail") then "failed" else "completed" end')
	[ "$st" = "$want" ] || die "execution.complete $1: status $st, want $want"
}

# redrive — drives the script from the top: STATUS=suspended at a park, else the run completes
redrive() {
	drive_body "$exe" "$tok"
	if [ "$PARKED" = 1 ]; then
		STATUS=suspended
		return 0
	fi
	complete "$exe" "$tok"
	STATUS=$(printf '%s' "$OUTCOME" | jq -r 'if has("fail") then "failed" else "completed" end')
}

for dir in "$@"; do
	NAME=$(basename "$dir")
	SCRIPT=$(jq -c . "$dir/flow.json") || { echo "kernel.sh: $dir/flow.json: not JSON" >&2; exit 2; }
	DRIVER=$(jq -c . "$dir/driver.json") || { echo "kernel.sh: $dir/driver.json: not JSON" >&2; exit 2; }
	printf '%s' "$SCRIPT" | jq -e "$JQDEFS subset" >/dev/null ||
		{ echo "kernel.sh: $dir/flow.json: outside this client's subset" >&2; exit 2; }
	printf '%s' "$DRIVER" | jq -e "$JQDEFS"' (.actions[0].do == "start") and ((.profile // .snapshots // null) == null)
		and all(.actions[1:][]; (.do | IN("resume", "cancel", "resumeAs", "fireTimers")) and (if .flow then .flow | subset else true end))' >/dev/null ||
		{ echo "kernel.sh: $dir/driver.json: this client drives a start, then resume, cancel, resumeAs and fireTimers only" >&2; exit 2; }
	NSTMT=$(printf '%s' "$SCRIPT" | jq '.body | length')
	NACT=$(printf '%s' "$DRIVER" | jq '.actions | length')
	INPUT=$(printf '%s' "$DRIVER" | jq -c '.actions[0].input')
	exe="$PREFIX-$NAME"

	tok=$(ok execution.start "$(jq -cn --argjson s "$SCRIPT" --argjson d "$DRIVER" --arg e "$exe" --argjson i "$INPUT" \
		'{flowId: $s.id, executionId: $e, input: $i} + (if $d.budget then {budget: $d.budget} else {} end)')" | jq -r .driver)
	redrive
	i=1
	while [ "$i" -lt "$NACT" ]; do
		a=$(printf '%s' "$DRIVER" | jq -c ".actions[$i]")
		i=$((i + 1))
		act=$(printf '%s' "$a" | jq -r .do)
		newin=$INPUT
		if [ "$act" = fireTimers ]; then
			# this client holds the driver's virtual clock: a due timer park is resumed
			w=$(ok execution.getState "{\"executionId\":\"$exe\"}" | jq -c --argjson a "$a" \
				'(.canonical | fromjson | .variables._suspendedOn) as $on
				| if .status == "suspended" and ($on | type) == "object"
				  and (($on.wakeAt // 0) > 0) and $on.wakeAt <= $a.at then $on.wakeAt else null end')
			[ "$w" != null ] || continue
			act=resume
			a=$(jq -cn --argjson w "$w" '{do: "resume", eventType: "TIMER_FIRED", payload: {wakeAt: $w}}')
		fi
		case $act in
		resume)
			# a resume addressed to the human step the run is parked at (its id names its gate in
			# the reference, I-KERNEL-22) goes to the gate the kernel parked it on
			on=$(ok execution.getState "{\"executionId\":\"$exe\"}" | jq -c '.canonical | fromjson | .variables._suspendedOn')
			resp=$(rpc execution.resume "$(printf '%s' "$a" | jq -c --arg e "$exe" --argjson on "$on" \
				'{executionId: $e, eventType: (if ($on | type) == "object" and $on.condition.stepId == .eventType and ($on.on // "") != "" then $on.on else .eventType end), payload: .payload, attach: true}')") ;;
		cancel)
			resp=$(rpc execution.cancel "$(printf '%s' "$a" | jq -c --arg e "$exe" '{executionId: $e, reason: (.reason // "")}')") ;;
		resumeAs)
			p=$(printf '%s' "$a" | jq -c --arg e "$exe" '{executionId: $e, flowId: .flow.id, attach: true}
				+ (if .eventType then {eventType, payload} else {} end)')
			if printf '%s' "$a" | jq -e 'has("transform")' >/dev/null; then
				cur=$(ok execution.getState "{\"executionId\":\"$exe\"}" | jq -c '.canonical | fromjson | .variables._input')
				tr=$(printf '%s' "$a" | jq -c --argjson cur "$cur" "$JQDEFS .transform | transform(\$cur)")
				# a transform runs here: when it fails nothing is sent, nothing appended
				[ "$(printf '%s' "$tr" | jq .ok)" = true ] || continue
				newin=$(printf '%s' "$tr" | jq -c .v)
				p=$(printf '%s' "$p" | jq -c --argjson in "$newin" '. + {input: $in}')
			fi
			resp=$(rpc execution.resumeAs "$p") ;;
		esac
		case $(printf '%s' "$resp" | jq -r '.error.code // empty') in
		-32023 | -32025) continue ;; # refused: the run stays as it was
		"") ;;
		*) die "$NAME: actions[$((i - 1))] $act = $(printf '%s' "$resp" | jq -c .error)" ;;
		esac
		if [ "$act" = cancel ]; then
			STATUS=$(printf '%s' "$resp" | jq -r .result.status)
			continue
		fi
		if [ "$act" = resumeAs ]; then
			SCRIPT=$(printf '%s' "$a" | jq -c .flow)
			NSTMT=$(printf '%s' "$SCRIPT" | jq '.body | length')
			INPUT=$newin
		fi
		tok=$(printf '%s' "$resp" | jq -r .result.driver)
		redrive
	done
	[ "$STATUS" != suspended ] || die "$NAME: the run parked and the driver has no action left"
	state=$(ok execution.getState "{\"executionId\":\"$exe\",\"includeLog\":true}")

	if [ "$STATUS" = completed ] || [ "$STATUS" = failed ]; then
		# replay: attach to the finished execution and re-drive it; everything is served
		tok=$(ok execution.attach "{\"executionId\":\"$exe\"}" | jq -r .driver)
		redrive
		[ "$STATUS" != suspended ] || die "$NAME: replay: a syscall parked a finished execution"
		after=$(ok execution.getState "{\"executionId\":\"$exe\",\"includeLog\":true}")
		[ "$(printf '%s' "$state" | jq -c '[(.log | length), .canonical]')" = "$(printf '%s' "$after" | jq -c '[(.log | length), .canonical]')" ] ||
			die "$NAME: the replay appended"
		state=$after
	fi

	printf '%s' "$state" | jq -c --arg f "$NAME" '{flow: $f, executionId: .executionId, canonical: .canonical, log: .log}'
done
