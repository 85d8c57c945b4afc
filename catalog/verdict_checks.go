package catalog

import "github.com/loom-kernel/loom-conform/spec"

// verdictChecks lists the tests of what a verdict means whatever the runner (DESIGN §7.1): the
// kits' runner contract, processes that die with the harness.
func verdictChecks() []spec.Check {
	t := func(id, where string, clauses ...string) spec.Check {
		return spec.Check{ID: id, Kind: spec.KindTest, Clauses: clauses, Where: where}
	}
	return []spec.Check{
		t("verdict/cut-short-unknown", "kits:TestCutShortIsUnknownNotPass", "I-CERT-13"),
		t("verdict/deadline-error-unknown", "kits:TestDeadlineErrorIsUnknown", "I-CERT-13"),
		t("verdict/harness-panic-unknown", "kits:TestHarnessPanicIsUnknown", "I-CERT-13"),
		t("verdict/target-panic-fails", "kits:TestPanickingStoreFails", "I-CERT-13"),
		t("verdict/recommended-never-blocks", "kits:TestRecommendedFailureDoesNotBlock", "I-CERT-10"),
		t("verdict/no-orphans", "internal/childproc:TestChildDiesWithKilledParent", "I-CERT-14"),
	}
}
