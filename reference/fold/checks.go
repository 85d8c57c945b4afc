package fold

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the checks of this package and the clauses each enforces.
func Checks() []spec.Check {
	const dir = "reference/fold:"
	t := func(id, fn string, clauses ...string) spec.Check {
		return spec.Check{ID: id, Kind: spec.KindTest, Clauses: clauses, Where: dir + fn}
	}
	f := func(id, fn string, clauses ...string) spec.Check {
		return spec.Check{ID: id, Kind: spec.KindFuzz, Clauses: clauses, Where: dir + fn}
	}
	return []spec.Check{
		t("fold/unknown-inert", "TestUnknownTypesInert", "S4.fold.unknown-inert", "S3.snapshot.out-of-band"),
		t("fold/evidence-order", "TestDecisionEvidenceOrder", "S4.v1_24.evidence-order", "I-FOLD-19"),
		t("fold/suspended-waits", "TestSuspendedWaits", "S4.v1_23.suspended-waits", "I-FOLD-7"),
		t("fold/unreadable-payload", "TestUnreadablePayloads", "I-FOLD-2"),
		t("fold/pure", "TestFoldImportsNoAmbientInput", "S1.P2.fold-pure", "S4.fold.handler-pure"),
		t("fold/byte-identical", "TestByteIdenticalUnaffected", "S4.replay.byte-identical-unaffected", "S4.v1_25.byte-identical"),
		t("fold/proto-rejected", "TestProtoKeysRejected", "S4.fold.proto-rejected", "I-FOLD-4"),
		t("fold/step-failed-not-fatal", "TestStepFailedNeverFailsExecution",
			"S4.fold.step-failed-not-fatal", "S4.fold.step-frame-only", "S4.fold.status-execution-only", "S4.v1_21.caught-step-failure-running"),
		t("fold/failed-while-parked", "TestFailedWhileParked",
			"S4.fold.failed-while-parked-set", "S4.fold.failed-while-parked-cleared", "S4.fold.null-resume-after-parked-failure"),
		t("fold/null-resume", "TestNullResume",
			"S4.v1_20.null-resume-no-passthrough", "S4.v1_16.resume-payloads", "S4.v1_23.diverged-null-status-only", "I-FOLD-3"),
		t("fold/state-shape", "TestEmptyAndSequence", "S2.state.shape"),
		t("fold/bad-input", "TestFoldRefusesMalformedLogs", "I-FOLD-1"),
		t("fold/trailing-data", "TestTrailingDataRefusedAtEveryProfile", "I-FOLD-1", "S4.envelope.shape"),
		t("fold/handlers", "TestHandlerForEveryManifestType", "S4.log.known-types-pinned", "I-FOLD-6"),
		t("fold/catalogue-current", "TestEventsDocCurrent", "S4.log.known-types-pinned"),
		t("fold/canonical-json", "TestCanonicalHardCases", "S3.emit.canonical-form"),
		t("fold/canonical-go", "TestCanonicalGoValues", "S3.emit.canonical-form", "S3.emit.unmatchable-unstamped"),
		t("fold/canonical-utf16", "TestCompareUTF16", "S3.emit.canonical-form"),
		t("fold/canonical-order-radix", "TestSortBytewiseAgrees", "S3.emit.canonical-form"),
		t("fold/state-encoding", "TestStateEncodingMatchesReference", "S3.emit.canonical-form", "S2.state.shape"),
		t("fold/emit-digest", "TestEmitDigest", "S3.emit.identity", "S3.emit.unmatchable-unstamped"),
		t("fold/checks-valid", "TestChecksValid", "I-COV-3"),
		t("fold/migrated-input", "TestMigratedInput", "S4.v1_15.migrated-input", "S4.v1_23.to-code-hash", "I-FOLD-17"),
		t("fold/typed-failure", "TestTypedFailureFields", "S4.v1_17.typed-failure-fields", "S41.typed.record", "I-FOLD-9"),
		t("fold/decisions", "TestDecisions", "S4.v1_18.decision-context-policy", "S4.v1_24.decision-seq", "S4.v1_23.inner-steps-kernel-only",
			"S4.v1_24.legacy-no-seq", "S4.v1_24.mixed-fleet-unstamped", "I-FOLD-12"),
		t("fold/flow-emits", "TestFlowEmitsAnyType", "S4.v1_19.flow-emits-any-type", "S3.emit.fold-count", "S3.emit.stamp", "S4.v1_25.seal-ignored", "I-FOLD-4"),
		t("fold/events-rehomed", "TestEventsRehomed", "S4.v1_22.events-rehomed-audit"),
		t("fold/wave2", "TestWave2KernelStamp", "S4.v1_23.started-fields", "S4.v1_23.message-consumed", "S4.v1_23.wait-addressed-resume",
			"S4.v1_23.parallel-scopes", "S4.v1_23.metered-custom", "S4.v1_23.outcome-fields", "S4.v1_23.continued", "S4.v1_23.code-hash",
			"S4.v1_23.kernel-stamp-only", "S4.v1_23.shapes-frozen", "S4.replay.byte-identical-unaffected",
			"I-FOLD-5", "I-FOLD-7", "I-FOLD-8", "I-FOLD-15", "I-FOLD-18", "I-FOLD-6"),
		t("fold/fork-metadata", "TestForkMetadata", "S4.v1_23.metadata-keys", "I-FOLD-7"),
		t("fold/quarantine", "TestQuarantine", "S4.v1_25.quarantine-kernel-only", "S4.v1_25.release-exactly-one", "S4.v1_25.quarantined-shape",
			"S4.v1_25.consumed-drops-released", "S4.v1_25.carry-quarantined", "S4.v1_25.byte-identical", "I-FOLD-10"),
		t("fold/quarantine-linear", "TestQuarantineFillLinear", "S3.fold.structural-sharing", "I-FOLD-10"),
		t("fold/quarantine-cow", "TestQuarantineCopyOnWrite", "S3.fold.copy-on-write", "S4.snapshot.every-k", "I-FOLD-10"),
		t("fold/frame-input", "TestFrameInput", "S4.v1_26.input-set-kept", "S4.v1_26.input-dropped-at-settle", "S4.v1_26.normalize-strips-input"),
		t("fold/normalize-pre-1.21", "TestNormalizePre121", "S4.snapshot.normalize-pre-1.21", "I-FOLD-13"),
		t("fold/pre-1.21-late-failure", "TestPre121LateStepFailureIndistinguishable", "S4.snapshot.normalize-pre-1.21", "S4.snapshot.pre-1.21-exceptions", "I-FOLD-20"),
		t("fold/profiles", "TestProfiles", "I-FOLD-13", "S4.K5.version-and-set-together"),
		f("fold/fuzz-fold", "FuzzFold", "I-FOLD-1", "S2.state.shape", "S3.emit.canonical-form", "I-FOLD-16", "S4.snapshot.every-k"),
		f("fold/fuzz-canonical", "FuzzCanonicalJSON", "S3.emit.canonical-form"),
		t("fold/canonical-deep", "TestCanonicalDeepIsCanonical", "S3.emit.canonical-form", "I-NET-5"),
		f("fold/fuzz-canonical-indexed", "FuzzCanonicalIndexed", "S3.emit.canonical-form"),
		t("fold/decode-errors", "TestDecodeLogErrors", "S4.envelope.shape", "I-FOLD-1", "I-FOLD-11"),
		t("fold/stream-framing", "TestStreamFramingReadSizeIndependent", "S4.envelope.shape", "I-FOLD-1", "I-FOLD-11"),
		t("fold/one-envelope-decoder", "TestOneEnvelopeDecoder", "S4.envelope.shape", "I-FOLD-22", "I-FOLD-23"),
		t("fold/integers-by-value", "TestEnvelopeIntegersByValue", "S4.envelope.shape", "I-FOLD-22"),
		t("fold/error-precedence", "TestErrorPrecedence", "I-FOLD-1", "I-FOLD-23"),
		{ID: "cli/fold", Kind: spec.KindTest, Clauses: []string{"S4.fold.step-failed-not-fatal", "S4.snapshot.every-k", "S2.state.shape"}, Where: "cmd/loom-conform-full:TestFoldCommand"},
		{ID: "cli/fold-serve-agree", Kind: spec.KindTest, Clauses: []string{"I-FOLD-21", "I-FOLD-22", "I-FOLD-23"}, Where: "cmd/loom-conform-full:TestFoldAndServeAgree"},
		{ID: "cli/fold-bad-input", Kind: spec.KindTest, Clauses: []string{"S4.envelope.shape", "I-FOLD-1", "I-FOLD-11"}, Where: "cmd/loom-conform-full:TestFoldBadInput"},
		{ID: "cli/digest", Kind: spec.KindTest, Clauses: []string{"S3.emit.identity"}, Where: "cmd/loom-conform-full:TestDigestCommand"},
		t("fold/state-round-trip", "TestStateRoundTrip", "S2.state.shape", "I-FOLD-16", "S3.snapshot.equivalence"),
	}
}
