package catalog

import "github.com/loom-kernel/loom-conform/spec"

// perfChecks are the tests that keep the command line's start and its fold's collector pacing
// honest (I-PERF-10, I-PERF-11): tests of cmd/loom-conform, cmd/loom-conform-full and
// internal/gcpace, which register no checks of their own.
func perfChecks() []spec.Check {
	t := func(id, where string, clauses ...string) spec.Check {
		return spec.Check{ID: id, Kind: spec.KindTest, Clauses: clauses, Where: where}
	}
	return []spec.Check{
		t("cli/lazy-tree", "cmd/loom-conform-full:TestRootBuildsOnlyTheNamedVerb", "I-PERF-10"),
		t("cli/verb-names", "cmd/loom-conform-full:TestVerbNames", "I-PERF-10"),
		t("cli/deps", "cmd/loom-conform-full:TestBinaryLinksNoStartUpWeight", "I-PERF-10"),
		t("cli/front-deps", "cmd/loom-conform:TestFrontLinksOnlyTheFold", "I-PERF-10"),
		t("cli/front-delegates", "cmd/loom-conform:TestFrontAnswersAsTheFullBinary", "I-PERF-10"),
		t("gcpace/hold", "internal/gcpace:TestHoldThenRelax", "I-PERF-11"),
		t("gcpace/hold-stop", "internal/gcpace:TestHoldStopBeforeAnyCollection", "I-PERF-11"),
		t("gcpace/hold-user-limits", "internal/gcpace:TestHoldKeepsTheUsersLimits", "I-PERF-11"),
	}
}
