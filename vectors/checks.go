package vectors

import (
	"github.com/loom-kernel/loom-conform/spec"
)

// Checks lists every vector of the embedded corpus as a check (Kind spec.KindVector, Where = the
// vector's file) and the tests of this package. A corpus that does not load contributes no
// vector checks; TestCorpusLoads fails on it.
func Checks() []spec.Check {
	t := func(id, fn string, clauses ...string) spec.Check {
		return spec.Check{ID: "vectors/" + id, Kind: spec.KindTest, Clauses: clauses, Where: "vectors:" + fn}
	}
	out := []spec.Check{
		t("corpus-loads", "TestCorpusLoads", "A26.vectors.language-agnostic", "S3.determinism.enforced"),
		t("duplicate-ids-refused", "TestLoadRefusesDuplicateIDs", "A26.vectors.language-agnostic", "I-VECTOR-1"),
		t("malformed-refused", "TestLoadRefusesMalformed", "A26.vectors.language-agnostic", "I-VECTOR-1", "I-VECTOR-3"),
		t("reason-not-contradicted", "TestReasonsNotContradicted", "I-VECTOR-9", "I-VECTOR-1"),
		t("choice-paths-checked", "TestLoadChecksChoicePaths", "I-VECTOR-20", "I-VECTOR-1"),
		t("choice-paths-bind", "TestChoicePathsBindPerAssertion", "I-VECTOR-20", "I-CERT-10"),
		t("span-pointers", "TestSpanFindsPointers", "I-VECTOR-20"),
		t("schema-matches-format", "TestSchemaMatchesFormat", "I-VECTOR-1", "I-VECTOR-20"),
		t("doc-names-vectors", "TestVectorsDocNamesExistingVectors", "I-VECTOR-1"),
		t("split-args", "TestSplitArgs", "I-VECTOR-2"),
		t("ledger-parse", "TestLedgerParse", "I-VECTOR-5"),
		t("reference-passes", "TestReferencePassesCorpus", "A26.vectors.language-agnostic", "S10.pins.drift", "S3.determinism.enforced"),
		t("profile-selects", "TestProfileSelects", "I-VECTOR-7"),
		t("reports", "TestReports", "I-VECTOR-1", "I-VECTOR-2", "I-VECTOR-5"),
		t("report-deep-values", "TestJSONDiffDeepValues", "I-VECTOR-1"),
		t("clause-coverage", "TestHandVectorsCoverFoldClauses", "A26.vectors.language-agnostic", "I-VECTOR-6"),
		t("js-oracle", "TestJavaScriptOracle", "S3.emit.canonical-form", "S3.emit.identity", "I-VECTOR-6"),
		t("example-fold-js", "TestExampleFoldJS", "A26.vectors.language-agnostic", "I-VECTOR-2"),
		t("foreign-correct-passes", "TestForeignCorrectFoldPassesAll", "A26.vectors.language-agnostic", "I-VECTOR-2"),
		t("foreign-wrong-folds", "TestForeignWrongFoldsFailExactly", "A26.vectors.language-agnostic", "I-CERT-10", "I-FOLD-22", "I-FOLD-23", "S4.fold.failed-while-parked-set",
			"S4.fold.null-resume-after-parked-failure", "S3.emit.canonical-form", "S4.v1_24.foreign-fold-seq", "S10.pins.drift",
			"I-FOLD-4", "I-FOLD-10", "I-FOLD-12", "I-FOLD-15", "I-FOLD-17", "I-FOLD-27", "I-FOLD-28", "I-VECTOR-20"),
		t("foreign-unknown", "TestForeignHangCrashGarbageUnknown", "I-VECTOR-2"),
		t("foreign-crash-loop", "TestForeignCrashLoopUnknown", "I-VECTOR-2", "I-CERT-7", "I-CERT-8"),
		t("unresponsive-fold", "TestForeignHangingFoldEndsFast", "I-VECTOR-2", "I-CERT-8"),
		t("fold-stops-answering", "TestForeignFoldThatStopsAnswering", "I-VECTOR-2", "I-CERT-8"),
		t("foreign-missing-command", "TestNewProcessRefusesMissingCommand", "I-VECTOR-2"),
		t("ledger-kept-true", "TestLedgerKeptTrue", "I-VECTOR-5"),
		t("generated-current", "TestGeneratedCorpusCurrent", "A26.vectors.language-agnostic", "I-VECTOR-6"),
		t("save-counterexample", "TestSaveCounterexample", "S4.snapshot.every-k", "I-VECTOR-6"),
		t("shards-merge", "TestShardsMergeIntoOneRun", "S10.fitness.gated", "I-SHARD-1", "I-SHARD-2", "I-SHARD-3"),
	}
	c, err := Embedded()
	if err != nil {
		return out
	}
	for _, v := range c.Vectors {
		out = append(out, spec.Check{ID: "vector/" + v.ID, Kind: spec.KindVector, Clauses: v.Clauses, Where: v.File})
	}
	return out
}
