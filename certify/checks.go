package certify

import (
	"github.com/loom-kernel/loom-conform/spec"
)

// Checks lists the checks of this package: the bridge protocol kit, the fault kit, and the tests
// that prove certification end to end.
func Checks() []spec.Check {
	out := append(BridgeKit().SpecChecks(), FaultKit().SpecChecks()...)
	t := func(id, where string, clauses ...string) spec.Check {
		return spec.Check{ID: id, Kind: spec.KindTest, Clauses: clauses, Where: "certify:" + where}
	}
	return append(out,
		t("certify/builtin-sqlite", "TestCertifyBuiltinSQLite", "S10.kits.reference-impls", "I-BRIDGE-1", "I-BRIDGE-6"),
		t("certify/ledger", "TestLedgerKeptTrue", "I-BRIDGE-8"),
		t("certify/bad-bridges", "TestBadBridges", "I-BRIDGE-2", "I-BRIDGE-4", "I-BRIDGE-6", "I-BRIDGE-9"),
		t("certify/reports", "TestReportsRender", "I-BRIDGE-6"),
	)
}
