package foldprops

import (
	"strings"

	"github.com/loom-kernel/loom-conform/spec"
)

// Mutants registers the broken folds TestKitRejectsBrokenFolds builds (broken_test.go): each
// with the clauses its defect violates and the property that must reject it.
func Mutants() []spec.Mutant {
	const where = "kits/foldprops:TestKitRejectsBrokenFolds"
	m := func(name, defect, caught string, clauses ...string) spec.Mutant {
		return spec.Mutant{ID: brokenFoldID(caught, name), Kind: "fold", Defect: defect, Clauses: clauses, CaughtBy: []string{caught}, Where: where}
	}
	return []spec.Mutant{
		m("mutates-snapshot", "writes to the caller's snapshot", "foldprops/no-mutation", "S3.fold.copy-on-write", "S4.fold.handler-pure"),
		m("shares-audit-list", "appends to the caller's _resumePayloads backing array", "foldprops/no-mutation", "S3.fold.copy-on-write", "S4.fold.handler-pure"),
		m("step-failed-fails-execution", "folds at 1.20.0, where STEP_FAILED fails the execution", "foldprops/status-execution-only", "S4.fold.step-failed-not-fatal", "S4.fold.status-execution-only"),
		m("any-step-event-while-parked-flags", "sets _failedWhileParked on a STEP_COMPLETED folded while suspended", "foldprops/status-execution-only", "S4.fold.step-frame-only"),
		also(m("unstamped-continued-moves-status", "an application EXECUTION_CONTINUED (not kernel-stamped) moves the status", "foldprops/status-execution-only", "S4.v1_23.kernel-stamp-only", "S4.fold.status-execution-only", "I-FOLD-18"),
			"foldprops/unknown-inert"),
		m("unknown-not-inert", "an unknown event type folds as EXECUTION_CANCELLED", "foldprops/unknown-inert", "S4.fold.unknown-inert"),
		m("keeps-infinite-attempt", "keeps an attempt beyond the double range, which prints as null and does not read back", "foldprops/snapshot-every-k", "I-FOLD-29", "S4.snapshot.every-k"),
		m("lossy-snapshot", "drops _resumePayloads from the snapshot it resumes from", "foldprops/snapshot-every-k", "S3.snapshot.equivalence", "S4.snapshot.every-k"),
		m("nondeterministic", "stamps updatedAt from a call counter", "foldprops/determinism", "S1.P2.replay-identical", "S1.P2.fold-pure"),
		m("stale-profile", "folds at 1.23.0 whatever profile it is asked for", "foldprops/differential-model", "S4.v1_24.decision-seq", "S4.v1_26.input-dropped-at-settle"),
		m("normalize-invents-seq", "normalizeSnapshotState gives legacy decisions a seq", "foldprops/cross-version", "S4.v1_24.legacy-no-seq"),
		m("normalize-keeps-settled-input", "normalizeSnapshotState leaves an older snapshot as it is", "foldprops/cross-version", "S4.v1_26.normalize-strips-input", "S4.snapshot.normalize-pre-1.21"),
	}
}

// brokenFoldID is "fold/<property>/<name>".
func brokenFoldID(caught, name string) string {
	return "fold/" + strings.TrimPrefix(caught, "foldprops/") + "/" + name
}

// also adds catching checks beyond the one a mutant's id is named for.
func also(m spec.Mutant, checks ...string) spec.Mutant {
	m.CaughtBy = append(m.CaughtBy, checks...)
	return m
}
