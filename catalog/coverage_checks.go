package catalog

import "github.com/loom-kernel/loom-conform/spec"

// coverageChecks lists the tests of the coverage machinery itself: proof records, the proven
// computation, clause forms and the registries' validity (I-COV-1..4).
func coverageChecks() []spec.Check {
	return []spec.Check{
		{ID: "coverage/proof-records", Kind: spec.KindTest, Clauses: []string{"I-COV-1"}, Where: "internal/proof:TestRejectedRecordsOnlyRealKills"},
		{ID: "coverage/proof-records-unset", Kind: spec.KindTest, Clauses: []string{"I-COV-1"}, Where: "internal/proof:TestRejectedUnsetWritesNothing"},
		{ID: "coverage/proof-records-malformed", Kind: spec.KindTest, Clauses: []string{"I-COV-1"}, Where: "internal/proof:TestReadRefusesBadRecords"},
		{ID: "coverage/prove", Kind: spec.KindTest, Clauses: []string{"I-COV-1", "I-COV-4"}, Where: "spec:TestProveCountsOnlyLinkedKills"},
		{ID: "coverage/forms", Kind: spec.KindTest, Clauses: []string{"I-COV-2"}, Where: "spec:TestKeywordClausesKnown"},
		{ID: "coverage/reviewed-unproven", Kind: spec.KindTest, Clauses: []string{"I-COV-1"}, Where: "spec:TestReviewedUnprovenKnown"},
		{ID: "coverage/mutants-valid", Kind: spec.KindTest, Clauses: []string{"I-COV-1", "I-COV-3", "I-COV-4"}, Where: "catalog:TestMutantsValid"},
		{ID: "coverage/mutant-validation", Kind: spec.KindTest, Clauses: []string{"I-COV-3"}, Where: "catalog:TestMutantValidationRefuses"},
		{ID: "coverage/checks-valid", Kind: spec.KindTest, Clauses: []string{"I-COV-3"}, Where: "catalog:TestChecksNameKnownClauses"},
	}
}
