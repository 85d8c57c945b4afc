package fold

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the checks of this package and the clauses each enforces.
func Checks() []spec.Check {
	const dir = "reference/fold:"
	t := func(id, fn string, clauses ...string) spec.Check {
		return spec.Check{ID: id, Kind: spec.KindTest, Clauses: clauses, Where: dir + fn}
	}
	return []spec.Check{
		t("fold/unknown-inert", "TestUnknownTypesInert", "S4.fold.unknown-inert"),
		t("fold/proto-rejected", "TestProtoKeysRejected", "S4.fold.proto-rejected", "I-FOLD-4"),
		t("fold/step-failed-not-fatal", "TestStepFailedNeverFailsExecution",
			"S4.fold.step-failed-not-fatal", "S4.fold.step-frame-only", "S4.fold.status-execution-only", "S4.v1_21.caught-step-failure-running"),
		t("fold/failed-while-parked", "TestFailedWhileParked",
			"S4.fold.failed-while-parked-set", "S4.fold.failed-while-parked-cleared", "S4.fold.null-resume-after-parked-failure"),
		t("fold/null-resume", "TestNullResume",
			"S4.v1_20.null-resume-no-passthrough", "S4.v1_16.resume-payloads", "S4.v1_23.diverged-null-status-only", "I-FOLD-3"),
		t("fold/state-shape", "TestEmptyAndSequence", "S2.state.shape"),
		t("fold/bad-input", "TestFoldRefusesMalformedLogs", "I-FOLD-1"),
		t("fold/handlers", "TestHandlerForEveryManifestType", "S4.log.known-types-pinned", "I-FOLD-6"),
		t("fold/catalogue-current", "TestEventsDocCurrent", "S4.log.known-types-pinned"),
		t("fold/canonical-json", "TestCanonicalHardCases", "S3.emit.canonical-form"),
		t("fold/canonical-go", "TestCanonicalGoValues", "S3.emit.canonical-form", "S3.emit.unmatchable-unstamped"),
		t("fold/canonical-utf16", "TestCompareUTF16", "S3.emit.canonical-form"),
		t("fold/emit-digest", "TestEmitDigest", "S3.emit.identity", "S3.emit.unmatchable-unstamped"),
		t("fold/checks-valid", "TestChecksValid", "S4.log.known-types-pinned"),
	}
}
