package vectors

import "github.com/loom-kernel/loom-conform/spec"

// Mutants registers the broken folds the vectors must reject (TestVectorsRejectBrokenFolds builds
// each as a Folder wrapping the reference, TestForeignWrongFoldsFailExactly runs the foreign
// fold's -bug modes). A mutant is caught by every vector it fails; a kill counts for a clause
// when that vector is linked to it.
func Mutants() []spec.Mutant {
	const inproc, foreign = "vectors:TestVectorsRejectBrokenFolds", "vectors:TestForeignWrongFoldsFailExactly"
	m := func(name, defect, where string, caught []string, clauses ...string) spec.Mutant {
		return spec.Mutant{ID: "fold/vectors/" + name, Kind: "fold", Defect: defect, Clauses: clauses, CaughtBy: caught, Where: where}
	}
	return []spec.Mutant{
		m("stops-at-1.20", "folds every later profile as 1.20.0 (never implemented 1.21.0)", inproc,
			[]string{"vector/fold/park/failed-while-parked-set", "vector/fold/park/failed-while-parked-cleared-by-completed", "vector/fold/park/failed-while-parked-null-resume"},
			"S4.v1_21.caught-step-failure-running", "S4.fold.step-failed-not-fatal", "S4.fold.failed-while-parked-set",
			"S4.fold.failed-while-parked-cleared", "S4.fold.null-resume-after-parked-failure"),
		m("stops-at-1.21", "folds every later profile as 1.21.0 (never implemented 1.22.0)", inproc,
			[]string{"vector/fold/v1_22/events-rehomed-audit"}, "S4.v1_22.events-rehomed-audit"),
		m("stops-at-1.22", "folds every later profile as 1.22.0 (never implemented 1.23.0)", inproc,
			[]string{"vector/fold/v1_23/continued", "vector/fold/v1_23/message-consumed", "vector/fold/v1_23/parallel-scopes",
				"vector/fold/v1_23/started-fields", "vector/fold/v1_23/suspended-waits", "vector/fold/v1_23/wait-addressed-resume",
				"vector/fold/v1_23/metered-custom", "vector/fold/v1_23/fork-metadata", "vector/fold/resume/null-diverged"},
			"S4.v1_23.continued", "S4.v1_23.message-consumed", "S4.v1_23.parallel-scopes", "S4.v1_23.started-fields",
			"S4.v1_23.suspended-waits", "S4.v1_23.wait-addressed-resume", "S4.v1_23.metered-custom", "S4.v1_23.metadata-keys",
			"S4.v1_23.code-hash", "S4.v1_23.diverged-null-status-only"),
		m("stops-at-1.23", "folds every later profile as 1.23.0 (never implemented 1.24.0)", inproc,
			[]string{"vector/fold/decisions/context-policy-seq"}, "S4.v1_24.decision-seq", "S4.v1_24.foreign-fold-seq"),
		m("stops-at-1.24", "folds every later profile as 1.24.0 (never implemented 1.25.0)", inproc,
			[]string{"vector/fold/v1_25/quarantine-held", "vector/fold/v1_25/release-discard", "vector/fold/v1_25/consumed-drops-released", "vector/fold/v1_25/carry-quarantined"},
			"S4.v1_25.quarantined-shape", "S4.v1_25.release-exactly-one", "S4.v1_25.consumed-drops-released", "S4.v1_25.carry-quarantined"),
		m("stops-at-1.25", "folds every later profile as 1.25.0 (never implemented 1.26.0)", inproc,
			[]string{"vector/fold/steps/completed-drops-input"}, "S4.v1_26.input-dropped-at-settle"),
		m("trusts-unstamped", "folds every envelope as if the kernel stamped it (metadata.kernel ignored)", inproc,
			[]string{"vector/fold/v1_23/kernel-kinds-unstamped-inert", "vector/fold/decisions/inner-steps-kernel-only", "vector/fold/v1_25/quarantine-unstamped-held-stays"},
			"S4.v1_23.kernel-stamp-only", "S4.v1_23.inner-steps-kernel-only", "S4.v1_25.quarantine-kernel-only"),
		m("trusts-unstamped-quarantine", "folds INBOX_QUARANTINED and INBOX_RELEASED as if the kernel stamped them (the other kernel kinds stay gated)", inproc,
			[]string{"vector/fold/v1_25/quarantine-unstamped-held-stays"}, "S4.v1_25.quarantine-kernel-only"),
		m("ignores-snapshot-profile", "reads every snapshot as written by the vector's profile, never normalising an older writer's", inproc,
			[]string{"vector/fold/snapshot/1.25-read-as-1.26-strips-input", "vector/fold/snapshot/pre-1.21-caught-step-failure"},
			"I-VECTOR-4", "S4.v1_26.normalize-strips-input", "S4.snapshot.normalize-pre-1.21"),
		m("outcome-fields-refused", "skips an OUTCOME_RECORDED that carries the 1.23.0 fields recordedBy or late, as a fold that never learnt them refuses it", inproc,
			[]string{"vector/fold/basic/facts-do-not-move-status"}, "S4.v1_23.outcome-fields"),
		m("skips-sealed", "skips envelopes that carry metadata.seal instead of ignoring the seal", inproc,
			[]string{"vector/fold/emits/stamp-on-kernel-type-and-seal"}, "S4.v1_25.seal-ignored"),
		m("canonical-unsorted", "canonical JSON keeps the input's key order", inproc,
			[]string{"vector/canonical/key-order-nested"}, "S3.emit.canonical-form"),
		m("digest-ignores-segment", "the emit digest is computed as if every emit were in segment 0", inproc,
			[]string{"vector/digest/progress-p1-segment-1"}, "S3.emit.segment", "S3.emit.identity"),
		m("digest-payload-only", "the emit digest hashes the payload without the event type", inproc,
			[]string{"vector/digest/event-type-escaped"}, "S3.emit.identity"),
		m("migrated-input-ignored", "EXECUTION_MIGRATED.migratedInput is not folded into _input", inproc,
			[]string{"vector/fold/v1_15/migrated-input"}, "S4.v1_15.migrated-input"),
		m("no-resume-payloads", "EXECUTION_RESUMED answers are not kept in _resumePayloads", inproc,
			[]string{"vector/fold/resume/payloads-in-order"}, "S4.v1_16.resume-payloads"),
		m("decisions-drop-context", "DECISION_RECORDED context and policy are not folded into _decisions", inproc,
			[]string{"vector/fold/decisions/context-policy-seq"}, "S4.v1_18.decision-context-policy"),
		m("emits-counted-on-app-types-only", "_flowEmits counts only application event types, not stamped kernel types", inproc,
			[]string{"vector/fold/emits/stamp-on-kernel-type-and-seal"}, "S4.v1_19.flow-emits-any-type"),
		m("null-resume-dropped", "a null EXECUTION_RESUMED is ignored, so it re-opens nothing", inproc,
			[]string{"vector/fold/resume/null-not-parked"}, "S4.v1_20.null-resume-no-passthrough"),
		m("seq-invented", "a decision entry without seq is given one", inproc,
			[]string{"vector/fold/decisions/mixed-fleet-stays-unstamped"}, "S4.v1_24.mixed-fleet-unstamped", "S4.v1_24.legacy-no-seq"),
		m("input-never-kept", "STEP_STARTED's input is not kept on the open frame", inproc,
			[]string{"vector/fold/steps/retrying-keeps-input"}, "S4.v1_26.input-set-kept"),
		m("emit-count-off-by-one", "_flowEmits counts one more than the stamped emits of a digest", inproc,
			[]string{"vector/fold/emits/count-per-digest"}, "S3.emit.fold-count"),
		m("ignores-profile", "folds every log at the current profile, whatever profile it was written at", inproc,
			[]string{"vector/fold/v1_25/quarantine-inert-as-1.24", "vector/fold/steps/completed-keeps-input-as-1.25"}, "S4.v1_25.byte-identical", "S4.replay.byte-identical-unaffected"),
		m("proto-stripped", "__proto__ container keys are silently dropped instead of rejected", inproc,
			[]string{"vector/fold/proto/custom-dimension-and-quarantine"}, "S4.fold.proto-rejected"),
		m("nondeterministic", "updatedAt comes from a call counter, not from the log", inproc,
			[]string{"vector/generated/fold/1.26.0/log-0"}, "S1.P2.replay-identical", "S3.determinism.enforced"),
		m("extra-state-member", "the folded state carries a member beyond status, frames, variables, sequence, startedAt, updatedAt", inproc,
			[]string{"vector/fold/basic/step-events-keep-status"}, "S2.state.shape"),
		m("foreign-forget-failed-while-parked", "a foreign fold that drops _failedWhileParked after every envelope", foreign,
			[]string{"vector/fold/park/failed-while-parked-set", "vector/fold/park/failed-while-parked-null-resume"}, "S4.fold.failed-while-parked-set", "S4.fold.null-resume-after-parked-failure"),
		m("foreign-bytes-order", "a foreign fold that sorts object keys by UTF-8 bytes, not UTF-16 code units", foreign,
			[]string{"vector/canonical/key-order-utf16"}, "S3.emit.canonical-form"),
		m("foreign-no-seq", "a foreign fold that never stamps a decision's seq", foreign,
			[]string{"vector/fold/decisions/context-policy-seq"}, "S4.v1_24.decision-seq", "S4.v1_24.foreign-fold-seq"),
	}
}
