package kernelkit

import (
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// classBrokenKernels are the defects a kernel written from docs/wire.md alone was certified with
// before a check read what they break (issue 36), one each.
func classBrokenKernels() []Broken {
	slip := func(name, defect string, clauses []string, caught, s string) Broken {
		return Broken{Name: name, Defect: defect, Clauses: clauses, CaughtBy: []string{caught}, carrier: carrier.Hooks{Slip: s}}
	}
	return []Broken{
		slip("canonical-escaped", "answers getState's canonical with every non-ASCII character escaped \\uXXXX, not the canonical JSON's bytes",
			[]string{"I-WIRE-60"}, "kernel/state/canonical", carrier.SlipCanonicalEscaped),
		slip("canonical-code-points", "answers getState's canonical with its keys sorted by code point (its language's default encoder), not by UTF-16 code units",
			[]string{"I-WIRE-60"}, "kernel/state/canonical", carrier.SlipCanonicalCodePoints),
		slip("sequence-off-by-one", "answers getState's top-level sequence one past the log's last envelope (a count, not the last sequence)",
			[]string{"I-WIRE-60"}, "kernel/state/sequence", carrier.SlipSequenceOffByOne),
		slip("budget-first-dimension", "enforces, of a budget execution.start gives, only its first capped dimension in name order",
			[]string{"I-WIRE-17", "S8.budget.quota-exceeded"}, "kernel/budget/every-dimension", carrier.SlipBudgetFirstDimension),
		slip("wakeat-truncated", "records sleepUntil's wakeAt truncated to the whole second",
			[]string{"S5.timer.durable-wakeat", "I-WIRE-47"}, "kernel/timer/wakeat", carrier.SlipWakeAtTruncated),
		{Name: "wakeat-relative", Defect: "records sleep's wakeAt as its ms alone, relative to nothing, not the kernel's clock plus ms",
			Clauses: []string{"S5.timer.durable-wakeat"}, CaughtBy: []string{"kernel/timer/wakeat"}, kernel: kernel.Hooks{SleepRelative: true}},
		slip("step-ids-nfc", "normalises a step id to Unicode NFC before it runs and records the step, so ids that differ only in normal form name one step",
			[]string{"I-WIRE-61"}, "kernel/syscall/step-id-exact", carrier.SlipStepIDsNFC),
		slip("resumeas-terminal-refused", "refuses execution.resumeAs onto a completed, failed or cancelled execution -32025, leaving no way out of it",
			[]string{"I-WIRE-29", "S5.resumeas.crashed-namespace-only"}, "kernel/terminal/resumeas", carrier.SlipResumeAsTerminalRefused),
		{Name: "join-names-last-failure", Defect: "answers a failed parallel's join naming its last failing branch, not its first",
			Clauses: []string{"I-WIRE-11"}, CaughtBy: []string{"kernel/parallel/error-paths"}, kernel: kernel.Hooks{ParallelLastFailure: true}},
		slip("call-after-join", "runs a call made in a branch its parallel already joined, at the flow's top, instead of refusing it -32025",
			[]string{"I-WIRE-52", "I-WIRE-25"}, "kernel/parallel/error-paths", carrier.SlipCallAfterJoin),
		slip("human-any-gate", "answers a human step's park with a resume whatever event type it names, as if it named the step's gate",
			[]string{"S5.ingress.gate-match"}, "kernel/ingress/human-gates", carrier.SlipHumanAnyGate),
		{Name: "kernel-gate-resume", Defect: "parks a human step whose id is a kernel event type on that gate and takes a resume naming it, appending the caller's STEP_COMPLETED",
			Clauses: []string{"S5.ingress.kernel-namespace"}, CaughtBy: []string{"kernel/ingress/human-gates"},
			choices: kernel.Choices{HumanKernelGate: true}, carrier: carrier.Hooks{Slip: carrier.SlipKernelGateResume}},
		{Name: "degraded-served-typed", Defect: "serves a degraded typed failure, re-driven, as the typed failure it degraded from (-32021) instead of running the step again",
			Clauses: []string{"S41.typed.untyped-at-least-once"}, CaughtBy: []string{"kernel/redrive/degraded-rerun"}, kernel: kernel.Hooks{ServeDegradedTyped: true}},
		{Name: "serves-after-live-decision", Defect: "serves (skips) a re-driven emit the log holds stamped even after a decision the re-run recorded live",
			Clauses: []string{"S3.emit.serve-append"}, CaughtBy: []string{"kernel/redrive/emit-after-live-decision"}, kernel: kernel.Hooks{ServeIgnoringLiveWork: true}},
		{Name: "json-first-key", Defect: "reads a request whose object names a key twice keeping the first member, not refusing it nor keeping the last",
			Clauses: []string{"I-WIRE-62"}, CaughtBy: []string{"kernel/bad-input/strict-json"}, handler: firstKeyWins},
		{Name: "json-parse", Defect: "reads a request that is not strict JSON as JSON.parse does (the last of a repeated key, U+FFFD for a byte that is not UTF-8, the nearest double of a number) instead of refusing it: another legal option",
			Clauses: []string{"I-NET-50"}, CaughtBy: []string{"kernel/bad-input/strict-json", "kernel/errors/field-path"}, handler: jsonParseReads},
		slip("awaiting-when-idle", "answers getState's awaitingDriver as no driver and not finished, so a parked execution shows awaitingDriver true",
			[]string{"I-WIRE-63"}, "kernel/state/fields", carrier.SlipAwaitingWhenIdle),
		slip("join-early", "answers a join made before every branch ended with null instead of refusing it -32025",
			[]string{"I-WIRE-52"}, "kernel/parallel/busy-scope-refused", carrier.SlipJoinEarly),
	}
}
