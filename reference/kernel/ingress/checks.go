package ingress

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the checks of this package and the clauses each enforces.
func Checks() []spec.Check {
	const (
		we  = "reference/kernel/ingress:TestWorkedExamplesIngress"
		pkg = "reference/kernel/ingress:"
	)
	return []spec.Check{
		{ID: "ingress/facts-after-snapshot", Kind: spec.KindProperty, Clauses: []string{"I-LIFECYCLE-11"}, Where: pkg + "TestFactsAfterSnapshot"},
		{ID: "ingress/worked-example/approve-ok", Kind: spec.KindTest, Clauses: []string{"S5.ingress.gate-match", "S5.ingress.one-entry-per-suspend"}, Where: we},
		{ID: "ingress/worked-example/step-completed-forgery", Kind: spec.KindTest, Clauses: []string{"S5.ingress.kernel-namespace", "S5.ingress.refusal-appends-nothing"}, Where: we},
		{ID: "ingress/worked-example/execution-migrated", Kind: spec.KindTest, Clauses: []string{"S5.ingress.kernel-namespace"}, Where: we},
		{ID: "ingress/worked-example/approval-granted", Kind: spec.KindTest, Clauses: []string{"S5.ingress.kernel-namespace"}, Where: we},
		{ID: "ingress/worked-example/other-kernel-type", Kind: spec.KindTest, Clauses: []string{"S5.ingress.kernel-namespace"}, Where: we},
		{ID: "ingress/worked-example/timer-untimed-gate", Kind: spec.KindTest, Clauses: []string{"S5.ingress.timer-needs-wakeat", "S5.ingress.timer-exception"}, Where: we},
		{ID: "ingress/worked-example/reject-gate-mismatch", Kind: spec.KindTest, Clauses: []string{"S5.ingress.gate-match"}, Where: we},
		{ID: "ingress/worked-example/approve-bad-shape", Kind: spec.KindTest, Clauses: []string{"S5.schema.parse-before-append", "S5.schema.refuse-still-parked"}, Where: we},
		{ID: "ingress/worked-example/approve-parsed-defaults", Kind: spec.KindTest, Clauses: []string{"S5.schema.record-parsed"}, Where: we},
		{ID: "ingress/worked-example/recovered-on-parked", Kind: spec.KindTest, Clauses: []string{"S5.ingress.recovered-running-only"}, Where: we},
		{ID: "ingress/worked-example/timer-timed-gate", Kind: spec.KindTest, Clauses: []string{"S5.ingress.timer-exception", "S5.ingress.timer-needs-wakeat"}, Where: we},
		{ID: "ingress/worked-example/timed-gate-approve", Kind: spec.KindTest, Clauses: []string{"S5.ingress.gate-match"}, Where: we},
		{ID: "ingress/worked-example/running-approve", Kind: spec.KindTest, Clauses: []string{"S5.ingress.not-suspended", "S5.ingress.suspended-only"}, Where: we},
		{ID: "ingress/worked-example/running-recovered", Kind: spec.KindTest, Clauses: []string{"S5.ingress.recovered-running-only", "S5.ingress.redrive-no-resumed"}, Where: we},
		{ID: "ingress/worked-example/failed-parked-null", Kind: spec.KindTest, Clauses: []string{"S4.ingress.null-after-parked-failure"}, Where: we},
		{ID: "ingress/worked-example/failed-parked-answer", Kind: spec.KindTest, Clauses: []string{"S5.ingress.gate-match", "S4.fold.failed-while-parked-cleared"}, Where: we},
		{ID: "ingress/worked-example/completed-resume", Kind: spec.KindTest, Clauses: []string{"S5.ingress.suspended-only"}, Where: we},
		{ID: "ingress/worked-example/failed-resume", Kind: spec.KindTest, Clauses: []string{"S5.ingress.suspended-only"}, Where: we},
		{ID: "ingress/worked-example/cancelled-resume", Kind: spec.KindTest, Clauses: []string{"S5.ingress.suspended-only"}, Where: we},
		{ID: "ingress/worked-example/completed-resumeas", Kind: spec.KindTest, Clauses: []string{"S5.resumeas.crashed-namespace-only", "S5.ingress.resumeas-terminal-null"}, Where: we},
		{ID: "ingress/worked-example/completed-resumeas-kernel", Kind: spec.KindTest, Clauses: []string{"S5.resumeas.crashed-namespace-only"}, Where: we},
		{ID: "ingress/worked-example/indoubt-verdict", Kind: spec.KindTest, Clauses: []string{"S5.ingress.indoubt-verdict-recorded", "S5.decide.verdict-beside-indoubt"}, Where: we},
		{ID: "ingress/worked-example/indoubt-other-step", Kind: spec.KindTest, Clauses: []string{"S5.ingress.indoubt-other-refused"}, Where: we},
		{ID: "ingress/worked-example/indoubt-plain-resume", Kind: spec.KindTest, Clauses: []string{"S5.ingress.indoubt-other-refused"}, Where: we},
		{ID: "ingress/worked-example/auth-first-rejects", Kind: spec.KindTest, Clauses: []string{"S5.order.identity-ingress-shape", "S5.auth.rejected-not-logged"}, Where: we},
		{ID: "ingress/worked-example/auth-then-answer", Kind: spec.KindTest, Clauses: []string{"S5.auth.approval-recorded"}, Where: we},
		{ID: "ingress/fuzz-gate", Kind: spec.KindFuzz, Clauses: []string{"S5.ingress.always", "S5.ingress.refusal-appends-nothing", "I-KERNEL-60"}, Where: pkg + "FuzzGate"},
		{ID: "ingress/checks-valid", Kind: spec.KindTest, Clauses: []string{"I-COV-3"}, Where: pkg + "TestChecksValid"},
		{ID: "ingress/gate-named-authenticated", Kind: spec.KindTest, Clauses: []string{"S5.ingress.gate-match", "I-KERNEL-51"}, Where: pkg + "TestGateNamedOnlyToAuthenticated"},
		{ID: "ingress/order", Kind: spec.KindTest, Clauses: []string{"S5.order.identity-ingress-shape", "S5.auth.may-gate", "S5.auth.approval-recorded", "S5.auth.rejected-not-logged", "S5.schema.record-parsed", "I-KERNEL-50", "I-KERNEL-51"}, Where: pkg + "TestOrderIdentityIngressShape"},
		{ID: "ingress/schema-absent", Kind: spec.KindTest, Clauses: []string{"S5.schema.absent-unchanged", "S5.schema.may-declare", "S5.schema.refuse-still-parked", "S1.G2.unwired-byte-identical"}, Where: pkg + "TestSchemaAbsentUnchanged"},
		{ID: "ingress/resumeas-parked", Kind: spec.KindTest, Clauses: []string{"S5.resumeas.parked-all-rules", "S5.schema.resumeas-target", "S5.resumeas.transform-recorded", "S5.resumeas.transform-fail-refuses", "S4.v1_15.migrated-input", "I-KERNEL-58"}, Where: pkg + "TestResumeAsParked"},
		{ID: "ingress/resumeas-unparked", Kind: spec.KindTest, Clauses: []string{"S5.resumeas.crashed-namespace-only", "S5.ingress.redrive-no-resumed", "S5.ingress.resumeas-terminal-null", "I-KERNEL-58", "I-KERNEL-59"}, Where: pkg + "TestResumeAsUnparked"},
		{ID: "ingress/indoubt", Kind: spec.KindTest, Clauses: []string{"S5.ingress.indoubt-verdict-recorded", "S5.ingress.indoubt-other-refused", "S5.decide.verdict-beside-indoubt", "I-KERNEL-52"}, Where: pkg + "TestInDoubtVerdicts"},
		{ID: "ingress/timer", Kind: spec.KindTest, Clauses: []string{"S5.ingress.timer-needs-wakeat", "S5.ingress.timer-exception", "I-KERNEL-53"}, Where: pkg + "TestTimerWakeAt"},
		{ID: "ingress/diverged", Kind: spec.KindTest, Clauses: []string{"S4.v1_23.diverged-null-status-only", "S5.ingress.one-entry-per-suspend", "I-KERNEL-54"}, Where: pkg + "TestDivergedGate"},
		{ID: "ingress/recover", Kind: spec.KindTest, Clauses: []string{"S5.ingress.recovered-running-only", "S5.ingress.redrive-no-resumed", "I-KERNEL-59"}, Where: pkg + "TestRecover"},
		{ID: "ingress/input-errors", Kind: spec.KindTest, Clauses: []string{"S5.ingress.refusal-appends-nothing", "I-KERNEL-60"}, Where: pkg + "TestInputErrors"},
		{ID: "ingress/null-after-failure-parsed", Kind: spec.KindTest, Clauses: []string{"S4.ingress.null-after-parked-failure", "S4.v1_20.null-resume-no-passthrough", "I-KERNEL-55"}, Where: pkg + "TestNullAfterParkedFailureParsed"},
		{ID: "ingress/ambiguous-legacy", Kind: spec.KindTest, Clauses: []string{"S5.ingress.ambiguous-legacy", "I-KERNEL-56"}, Where: pkg + "TestAmbiguousLegacy"},
		{ID: "ingress/legacy-entries", Kind: spec.KindTest, Clauses: []string{"S5.ingress.legacy-warn", "S5.ingress.legacy-as-written", "I-KERNEL-57"}, Where: pkg + "TestLegacyEntries"},
	}
}
