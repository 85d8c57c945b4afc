package certify

import (
	"github.com/loom-kernel/loom-conform/kits/bridgekit"
	"github.com/loom-kernel/loom-conform/spec"
)

// Checks lists the checks of this package: the bridge protocol kit, the fault kit, and the tests
// that prove certification end to end.
func Checks() []spec.Check {
	out := append(bridgekit.Kit().SpecChecks(), FaultKit().SpecChecks()...)
	t := func(id, where string, clauses ...string) spec.Check {
		return spec.Check{ID: id, Kind: spec.KindTest, Clauses: clauses, Where: "certify:" + where}
	}
	return append(out,
		t("certify/kernel", "TestCertifyKernel", "I-WIRE-8", "A26.acceptance", "A26.wire.kernel-authoritative"),
		t("certify/kernel-broken", "TestCertifyBrokenKernel", "I-WIRE-8", "I-WIRE-3", "I-WIRE-25"),
		t("certify/kernel-shards-merge", "TestCertifyKernelShardsMerge", "I-SHARD-1", "I-SHARD-2", "I-SHARD-3"),
		t("certify/kernel-ledger", "TestCertifyKernelLedger", "I-BRIDGE-8", "I-CERT-32", "I-CERT-33"),
		t("certify/kernel-slow-note", "TestCertifyKernelSlowNote", "I-WIRE-8", "I-CERT-31"),
		t("certify/kernel-judge-latency", "TestJudgeLatency", "I-WIRE-8", "I-CERT-31"),
		t("certify/kernel-outage", "TestCertifyKernelOutage", "I-CERT-12", "I-WIRE-8"),
		t("certify/builtin-sqlite", "TestCertifyBuiltinSQLite", "S10.kits.reference-impls", "I-BRIDGE-1", "I-BRIDGE-6"),
		t("certify/broken-stores-behind-bridge", "TestBrokenStoresBehindBridgeRejected", "S7.spi.versioned-kit", "I-BRIDGE-3", "I-BRIDGE-7"),
		t("certify/bridge-kit-proven", "TestBridgeKitRejectsBrokenBridges", "I-BRIDGE-1", "I-BRIDGE-2", "I-BRIDGE-3", "I-BRIDGE-9"),
		t("certify/ledger", "TestLedgerKeptTrue", "I-BRIDGE-8", "I-CERT-33"),
		t("certify/seam-needs-must", "TestSeamWithoutMustCheckNotCertified", "I-STORE-24", "I-BRIDGE-6"),
		t("certify/all-unsupported-bridge", "TestAllUnsupportedBridgeNotCertified", "I-STORE-24", "I-BRIDGE-2"),
		t("certify/bad-bridges", "TestBadBridges", "I-BRIDGE-2", "I-BRIDGE-4", "I-BRIDGE-6", "I-CERT-12"),
		t("certify/database-outage", "TestDatabaseOutageIsTargetFailed", "I-CERT-12"),
		t("certify/hostile-bridge", "TestHostileBridgeNeverCrashesTheHarness", "I-CERT-13"),
		t("certify/hostile-kernel", "TestHostileKernelNeverCrashesTheHarness", "I-CERT-13"),
		t("certify/database-comes-back", "TestDatabaseThatComesBackIsJudged", "I-CERT-12"),
		t("certify/reports", "TestReportsRender", "I-BRIDGE-6", "I-CERT-11"),
		t("certify/badge-names-judged-seams", "TestBadgeNamesJudgedSeams", "I-CERT-9", "I-CERT-1"),
		t("certify/postgres-dsn", "TestCertifyPostgres", "S7.spi.versioned-kit", "I-BRIDGE-1"),
		t("certify/exec-target", "TestCertifyExec", "S7.spi.versioned-kit", "I-BRIDGE-1"),
		t("certify/exec-faults", "TestFaultsExec", "I-BRIDGE-7", "I-STORE-2"),
		t("certify/image-target", "TestCertifyImage", "S7.spi.versioned-kit", "S10.kits.reference-impls", "I-BRIDGE-1"),
		t("certify/image-broken-store", "TestCertifyBrokenImage", "I-STORE-3", "I-BRIDGE-6"),
		t("certify/image-faults", "TestFaultsImage", "I-BRIDGE-7", "I-STORE-2"),
		t("certify/image-never-answers", "TestCertifyImageThatNeverAnswers", "I-BRIDGE-6", "I-CERT-4"),
		t("certify/bridge-edge-cases", "TestBridgeEdgeCases", "I-BRIDGE-10"),
		t("certify/rerun-said", "TestRerunSaidOnEverySurface", "I-CERT-60", "I-CERT-61", "I-CERT-12"),
		t("certify/go-route", "TestGoRouteGivesTheCommandLinesCertificate", "I-CERT-62", "I-CERT-1"),
		t("certify/url-refuses", "TestURLThatRefusesIsTargetFailed", "I-CERT-4"),
		t("certify/first-contact", "TestFirstContact", "I-CERT-30", "I-CERT-4", "I-BRIDGE-1", "I-BRIDGE-4", "I-WIRE-23"),
		t("certify/round-trip", "TestEveryCertificateReportsItsRoundTrip", "I-CERT-31"),
		t("certify/shards-merge", "TestShardsMergeIntoOneRun", "S10.fitness.gated", "I-CERT-1", "I-SHARD-1", "I-SHARD-2", "I-SHARD-3"),
		t("certify/target-text-escaped", "TestTargetTextIsEscaped", "I-NET-8"),
		t("certify/progress-escaped", "TestProgressNoteEscapesTargetText", "I-NET-8"),
		t("certify/html-escaped", "TestHTMLShowsTargetControlCharacters", "I-NET-8"),
		t("certify/kernel-certificate-escaped", "TestKernelCertificateEscapesTargetText", "I-NET-8"),
		t("certify/kernel-failure-setup", "TestKernelFailureSaysSetup", "I-CERT-50"),
		t("certify/kernel-timeout-named", "TestKernelTimeoutNamesSlowestCall", "I-CERT-51", "I-CERT-13"),
		t("certify/certificate-names-recommendations", "TestCertificateNamesUnmetRecommendations", "I-CERT-10"),
		t("certify/contract-versioned", "TestContractVersioned", "I-CERT-52"),
		t("certify/profile-on-surfaces", "TestProfileOnEverySurface", "I-CERT-52", "I-CERT-1"),
		t("certify/verdicts", "TestConcludeVerdicts", "I-CERT-1", "I-CERT-2", "I-CERT-3", "I-CERT-4", "I-CERT-5", "I-CERT-6", "I-CERT-10", "I-STORE-24"),
	)
}
