package flowscript

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of this package and the clauses each enforces.
func Checks() []spec.Check {
	t := func(name string, clauses ...string) spec.Check {
		return spec.Check{ID: "flowscript/" + name, Kind: spec.KindTest, Clauses: clauses, Where: "goldens/flowscript:Test" + name}
	}
	return []spec.Check{
		t("ScriptExpressesEverySyscall", "S2.syscalls.available-iff-listed", "S2.syscalls.wave2-flagged", "I-GOLDEN-1"),
		t("NextReplaysAnswers", "S41.typed.untyped-at-least-once", "S41.typed.replay-substitution", "I-GOLDEN-1"),
		t("DecodeRefusesBadScripts", "S2.syscalls.wave2-flagged", "I-GOLDEN-1"),
		t("DecodeDriverRefusesBadDrivers", "I-GOLDEN-1"),
		t("SchemasMatchDecoder", "I-GOLDEN-1"),
		t("NonJSONNumbers", "S3.emit.unmatchable-unstamped", "I-GOLDEN-9"),
		t("FakeLatencyKeepsOutcome", "I-GOLDEN-10"),
		t("ObserveReportsWhatFlowSees", "I-GOLDEN-1"),
	}
}
