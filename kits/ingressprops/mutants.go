package ingressprops

import "github.com/loom-kernel/loom-conform/spec"

// Mutants registers the broken gates (mutants_test.go) and broken emit checkers (emits_test.go)
// this kit proves itself with: each with the clauses its defect violates and the check that must
// reject it (the property run against the reference, so the proof counts for that check's
// clauses).
func Mutants() []spec.Mutant {
	const gates, emits = "kits/ingressprops:TestKitRejectsMutantGates", "kits/ingressprops:TestKitRejectsMutantEmitCheckers"
	g := func(name, defect string, clauses ...string) spec.Mutant {
		return spec.Mutant{ID: "gate/ingress/" + name, Kind: "gate", Defect: defect, Clauses: clauses, CaughtBy: []string{"ingressprops/sweep"}, Where: gates}
	}
	e := func(name, defect string, clauses ...string) spec.Mutant {
		return spec.Mutant{ID: "emit-checker/userspace/" + name, Kind: "emit-checker", Defect: defect, Clauses: clauses, CaughtBy: []string{"ingressprops/emit-properties"}, Where: emits}
	}
	return []spec.Mutant{
		g("timer-without-wakeat-accepted", "TIMER_FIRED wakes a park that recorded no wakeAt", "S5.ingress.timer-needs-wakeat"),
		g("null-after-parked-failure-accepted", "a null answer after a parked failure is accepted", "S4.ingress.null-after-parked-failure"),
		g("shape-before-identity", "the shape gate runs before identity and the ingress rules", "S5.order.identity-ingress-shape"),
		g("kernel-namespace-off", "a forged kernel event type answers the gate", "S5.ingress.kernel-namespace"),
		g("recover-anywhere", "EXECUTION_RECOVERED is accepted on a parked or terminal execution", "S5.ingress.recovered-running-only"),
		g("recover-records-resumed", "a recover records an EXECUTION_RESUMED", "S5.ingress.redrive-no-resumed"),
		g("gate-named-to-anyone", "a gate-mismatch refusal names the parked gate to any caller", "I-KERNEL-51"),
		g("raw-not-parsed", "the raw payload is recorded instead of the parsed one", "S5.schema.record-parsed"),
		g("indoubt-any-answer", "any resume at an in-doubt park is taken as a plain answer", "S5.ingress.indoubt-other-refused"),
		g("ambiguity-ignored", "an ambiguous legacy log is never refused", "S5.ingress.ambiguous-legacy"),
		g("plan-on-refusal", "a refusal still hands back a plan to append", "S5.ingress.refusal-appends-nothing"),
		g("resumeas-source-schema", "resumeAs onto a parked execution validates against the source flow's schemas", "S5.schema.resumeas-target", "S5.resumeas.parked-all-rules"),
		g("answer-while-running", "an answer is taken while the execution runs", "S5.ingress.not-suspended", "S5.ingress.suspended-only"),
		g("gate-ignored", "any event type answers the parked gate", "S5.ingress.gate-match"),
		g("answers-twice", "an answer records EXECUTION_RESUMED twice", "S5.ingress.one-entry-per-suspend"),
		g("reopen-with-payload", "resumeAs onto a terminal execution re-opens it with a payload, not null", "S5.ingress.resumeas-terminal-null"),
		g("verdict-not-recorded", "the resume of an in-doubt park is recorded without its verdict", "S5.ingress.indoubt-verdict-recorded"),
		g("resumeas-unparked-gate-checked", "resumeAs onto a crashed or terminal execution refuses an event that does not match a gate", "S5.resumeas.crashed-namespace-only"),
		g("approval-not-recorded", "the authenticator's approval is left out of the log", "S5.auth.approval-recorded"),
		g("rejected-logged", "a resume the authenticator rejected is logged", "S5.auth.rejected-not-logged", "S5.ingress.refusal-appends-nothing"),
		g("no-shape-gate", "the shape gate never runs", "S5.schema.parse-before-append", "S5.schema.refuse-still-parked"),
		g("transform-not-recorded", "a resumeAs transform's result is not recorded in EXECUTION_MIGRATED", "S5.resumeas.transform-recorded"),
		g("transform-failure-ignored", "a failing resumeAs transform is skipped and the migration goes ahead", "S5.resumeas.transform-fail-refuses"),
		g("delivered-event-stamped", "the caller's delivered event is recorded with a flowEmit stamp, so it counts in _flowEmits: a resume-typed event moves the fold and refusing one is no longer fold-identical",
			"S5.ingress.refusal-fold-identical", "I-KERNEL-50"),
		g("absent-schema-stringified", "with no resumeSchemas entry for the gate the answer is recorded as its JSON text, not as sent", "S5.schema.absent-unchanged"),
		e("step-completed-allowed", "a userspace STEP_COMPLETED is accepted", "S5.emit.userspace-kernel-refused"),
		e("relay-forwards-the-seven", "the relay forwards kernel and reserved types as if the flow emitted them", "S5.emit.relay-app-only"),
		e("no-effect-rewrite", "an effect's decision emit is not rewritten", "S5.emit.effect-decision-rewritten"),
		e("no-ceiling", "a RESOURCE_METERED over the value ceiling passes", "S5.emit.metered-valid"),
		e("choice-change-allowed", "a recorded decision's choice may be changed", "S5.emit.no-choice-change"),
		e("reserved-checked-before-copy", "the reserved-id check reads the Go value, not the folded copy", "S5.decide.loom-reserved"),
		e("quota-unbounded", "a QUOTA_EXCEEDED with an unbounded reason passes", "S5.emit.quota-reason-bounded"),
	}
}
