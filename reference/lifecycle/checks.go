package lifecycle

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of the lifecycle's behaviours, each with the clauses it enforces.
func Checks() []spec.Check {
	t := func(id, test string, clauses ...string) spec.Check {
		return spec.Check{ID: id, Kind: spec.KindTest, Clauses: clauses, Where: "reference/lifecycle:" + test}
	}
	return []spec.Check{
		t("lifecycle/compact-archives-first", "TestCompactArchivesFirst", "S7.as.compact-archives-first", "I-LIFECYCLE-1"),
		t("lifecycle/compact-needs-archive", "TestCompactNeedsArchive", "S7.as.compact-archives-first", "I-LIFECYCLE-1"),
		t("lifecycle/delete-through-no-fallback", "TestDeleteThroughNoFallback", "S7.es.delete-through-no-fallback"),
		t("lifecycle/archive-not-read", "TestArchiveNotReadOnReplay", "S7.as.not-read-on-replay"),
		t("lifecycle/prune-snapshots", "TestPruneSnapshots", "S7.ss.prune-range", "S7.ss.list-sequences", "I-LIFECYCLE-2"),
		t("lifecycle/no-fence-single-node", "TestNoFenceSingleNode", "S7.es.no-fence-single-node"),
		t("lifecycle/store-now-fallback", "TestStoreNowFallback", "S7.es.store-now-fallback", "S7.es.store-now", "I-STORE-23"),
		{ID: "lifecycle/compact-property", Kind: spec.KindProperty, Clauses: []string{"S7.as.compact-archives-first", "S7.as.not-read-on-replay", "I-LIFECYCLE-1", "S3.snapshot.equivalence"},
			Where: "reference/lifecycle:TestCompactProperty"},
		{ID: "lifecycle/compacted-execution-replays", Kind: spec.KindProperty, Clauses: []string{"I-LIFECYCLE-1", "S7.as.not-read-on-replay", "S3.snapshot.equivalence"},
			Where: "reference/lifecycle:TestCompactedExecutionReplays"},
		{ID: "lifecycle/compacted-resume", Kind: spec.KindProperty, Clauses: []string{"I-LIFECYCLE-10", "I-LIFECYCLE-11", "S7.as.not-read-on-replay", "S3.snapshot.equivalence"},
			Where: "reference/lifecycle:TestCompactedExecutionResumes"},
		t("lifecycle/compacted-forged-verdict", "TestCompactedForgedVerdictNotHonoured", "I-LIFECYCLE-11", "S5.decide.verdict-beside-indoubt"),
		t("lifecycle/compacted-refusal", "TestCompactedWithoutSnapshotRefused", "I-LIFECYCLE-10", "I-LIFECYCLE-12"),
		t("lifecycle/compacted-resume-mutant", "TestCompactedResumeRejectsTailOnlyFold", "I-LIFECYCLE-10"),
		t("lifecycle/broken-rejected", "TestBrokenLifecyclesRejected", "S7.as.compact-archives-first", "S7.es.delete-through-no-fallback",
			"S7.as.not-read-on-replay", "S7.es.no-fence-single-node", "S7.es.store-now-fallback"),
	}
}
