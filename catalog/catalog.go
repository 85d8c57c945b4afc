package catalog

import (
	"github.com/loom-kernel/loom-conform/internal/jsonstrict"
	"github.com/loom-kernel/loom-conform/internal/outfile"
	"github.com/loom-kernel/loom-conform/internal/redact"
	"github.com/loom-kernel/loom-conform/internal/safehttp"
	"github.com/loom-kernel/loom-conform/internal/safetext"

	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/fitness"
	"github.com/loom-kernel/loom-conform/fitness/badges"
	"github.com/loom-kernel/loom-conform/goldens"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/kits/broken/dispatchers"
	"github.com/loom-kernel/loom-conform/kits/foldprops"
	"github.com/loom-kernel/loom-conform/kits/ingressprops"
	"github.com/loom-kernel/loom-conform/kits/kernelkit"
	"github.com/loom-kernel/loom-conform/kits/kernelprops"
	"github.com/loom-kernel/loom-conform/manifest"
	dispatchpg "github.com/loom-kernel/loom-conform/reference/dispatch/postgres"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"
	"github.com/loom-kernel/loom-conform/reference/lifecycle"
	"github.com/loom-kernel/loom-conform/reference/stores"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/vectors"
	vfuzz "github.com/loom-kernel/loom-conform/vectors/fuzz"
	"github.com/loom-kernel/loom-conform/verify"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/clients"
	"github.com/loom-kernel/loom-conform/wire/faultproxy"
	"github.com/loom-kernel/loom-conform/wire/target"
)

// Checks returns every registered check of the project.
func Checks() []spec.Check {
	var out []spec.Check
	for _, part := range [][]spec.Check{
		manifest.Checks(),
		fold.Checks(),
		foldprops.Checks(),
		vectors.Checks(),
		vfuzz.Checks(),
		kits.Checks(),
		broken.Checks(),
		dispatchers.Checks(),
		dispatchpg.Checks(),
		verify.Checks(),
		deploysim.Checks(),
		stores.Checks(),
		lifecycle.Checks(),
		certify.Checks(),
		bridge.Checks(),
		carrier.Checks(),
		kernelkit.Checks(),
		clients.Checks(),
		faultproxy.Checks(),
		target.Checks(),
		adapterChecks(),
		kernel.Checks(),
		ingress.Checks(),
		userspace.Checks(),
		ingressprops.Checks(),
		kernelprops.Checks(),
		goldens.Checks(),
		fitness.Checks(),
		badges.Checks(),
		cliChecks(),
		perfChecks(),
		coverageChecks(),
		verdictChecks(),
		safehttp.Checks(),
		jsonstrict.Checks(),
		redact.Checks(),
		outfile.Checks(),
		safetext.Checks(),
	} {
		out = append(out, part...)
	}
	return out
}

// cliChecks lists the tests of cmd/loom-conform-full, which cannot be imported.
func cliChecks() []spec.Check {
	return []spec.Check{
		{ID: "cli/certify-kernel", Kind: spec.KindTest, Clauses: []string{"I-WIRE-8", "A26.acceptance"}, Where: "cmd/loom-conform-full:TestCertifyKernelCLI"},
		{ID: "cli/certify-kernel-shards", Kind: spec.KindTest, Clauses: []string{"I-SHARD-2", "I-SHARD-3"}, Where: "cmd/loom-conform-full:TestCertifyKernelShardsCLI"},
		{ID: "cli/compat-exit-codes", Kind: spec.KindTest, Clauses: []string{"S9.compat.exit-nonzero", "S9.compat.shared-major"}, Where: "cmd/loom-conform-full:TestCompatExitCodes"},
		{ID: "cli/vectors-exit-codes", Kind: spec.KindTest, Clauses: []string{"A26.vectors.language-agnostic", "S4.v1_24.foreign-fold-seq"}, Where: "cmd/loom-conform-full:TestVectorsExitCodes"},
		{ID: "cli/vectors-recommendations", Kind: spec.KindTest, Clauses: []string{"I-CERT-10", "I-FOLD-22", "I-FOLD-23"}, Where: "cmd/loom-conform-full:TestVectorsRecommendationsNotMetPass"},
		{ID: "cli/vectors-fuzz", Kind: spec.KindTest, Clauses: []string{"A26.vectors.language-agnostic", "I-VECTOR-8", "I-PERF-12"}, Where: "cmd/loom-conform-full:TestVectorsFuzzCommand"},
		{ID: "cli/vectors-exec-serve", Kind: spec.KindTest, Clauses: []string{"A26.vectors.language-agnostic", "I-PERF-12"}, Where: "cmd/loom-conform-full:TestVectorsExecServe"},
		{ID: "cli/certify-names-served-seams", Kind: spec.KindTest, Clauses: []string{"I-CERT-9", "I-CERT-1"}, Where: "cmd/loom-conform-full:TestCertifyAllNamesOnlyServedSeamsCLI"},
		{ID: "cli/report-merge-vectors", Kind: spec.KindTest, Clauses: []string{"S10.fitness.gated", "I-SHARD-1", "I-SHARD-3"}, Where: "cmd/loom-conform-full:TestReportMergeVectorsShards"},
		{ID: "cli/report-merge-goldens", Kind: spec.KindTest, Clauses: []string{"S10.fitness.gated", "S10.replay-unchanged", "I-SHARD-1", "I-SHARD-3"}, Where: "cmd/loom-conform-full:TestReportMergeGoldensShards"},
		{ID: "cli/report-merge-deploysim", Kind: spec.KindTest, Clauses: []string{"S10.fitness.gated", "I-SHARD-1", "I-SHARD-3"}, Where: "cmd/loom-conform-full:TestReportMergeDeploysimShards"},
		{ID: "cli/report-merge-certify", Kind: spec.KindTest, Clauses: []string{"S10.fitness.gated", "I-CERT-1", "I-SHARD-2", "I-SHARD-3"}, Where: "cmd/loom-conform-full:TestReportMergeCertifyShards"},
		{ID: "cli/certify-builtin", Kind: spec.KindTest, Clauses: []string{"S10.kits.reference-impls", "S7.spi.versioned-kit"}, Where: "cmd/loom-conform-full:TestCertifyBuiltinCLI"},
		{ID: "cli/certify-never-certified", Kind: spec.KindTest, Clauses: []string{"I-CERT-1", "I-CERT-2", "I-CERT-3", "I-CERT-4", "I-CERT-5", "I-CERT-6"}, Where: "cmd/loom-conform-full:TestCertifyNeverCertifiedCLI"},
		{ID: "cli/certify-write-ledger", Kind: spec.KindTest, Clauses: []string{"I-BRIDGE-8", "I-CERT-2"}, Where: "cmd/loom-conform-full:TestCertifyWriteLedgerAndStdout"},
		{ID: "cli/vectors-write-ledger", Kind: spec.KindTest, Clauses: []string{"I-VECTOR-5", "I-CERT-7"}, Where: "cmd/loom-conform-full:TestVectorsWriteLedgerAndStdout"},
		{ID: "cli/certify-exit-codes", Kind: spec.KindTest, Clauses: []string{"S7.spi.versioned-kit", "I-BRIDGE-6"}, Where: "cmd/loom-conform-full:TestCertifyExitCodes"},
		{ID: "cli/verify-placement-exit-codes", Kind: spec.KindTest, Clauses: []string{"S6.placement.compute-target", "S5.timer.unwired-reported", "I-DISPATCH-7"}, Where: "cmd/loom-conform-full:TestVerifyPlacementExitCodes"},
		{ID: "cli/certify-dispatcher", Kind: spec.KindTest, Clauses: []string{"S7.spi.versioned-kit", "S6.placement.compute-target", "I-DISPATCH-1"}, Where: "cmd/loom-conform-full:TestCertifyDispatcherCLI"},
		{ID: "cli/deploysim-real", Kind: spec.KindTest, Clauses: []string{"S6.resume.is-migration", "S6.fencing.zombie", "S6.dispatch.stateless-workers", "I-DISPATCH-3", "I-DISPATCH-4", "I-SIM-2", "I-SIM-5", "I-SIM-10", "I-PERF-12"}, Where: "cmd/loom-conform-full:TestDeploysimReal"},
		{ID: "cli/worker-bad-flags", Kind: spec.KindTest, Clauses: []string{"I-DISPATCH-1"}, Where: "cmd/loom-conform-full:TestWorkerBadFlags"},
		{ID: "cli/deploysim", Kind: spec.KindTest, Clauses: []string{"I-SIM-1", "S10.replay-unchanged"}, Where: "cmd/loom-conform-full:TestDeploysimCLI"},
		{ID: "cli/badges", Kind: spec.KindTest, Clauses: []string{"S10.badges.evidence"}, Where: "cmd/loom-conform-full:TestBadgesCLI"},
		{ID: "cli/report-merge", Kind: spec.KindTest, Clauses: []string{"S10.fitness.gated"}, Where: "cmd/loom-conform-full:TestReportMergeFitnessShards"},
		{ID: "cli/fitness", Kind: spec.KindTest, Clauses: []string{"S10.fitness.gated"}, Where: "cmd/loom-conform-full:TestFitnessCLI"},
		{ID: "cli/goldens-check", Kind: spec.KindTest, Clauses: []string{"S10.replay-unchanged", "S3.determinism.enforced"}, Where: "cmd/loom-conform-full:TestGoldensCheckCLI"},
		{ID: "cli/replay", Kind: spec.KindTest, Clauses: []string{"S10.replay-unchanged", "S4.replay.byte-identical-unaffected", "I-GOLDEN-2"}, Where: "cmd/loom-conform-full:TestReplayCLI"},
		{ID: "cli/no-secret-escapes", Kind: spec.KindTest, Clauses: []string{"I-NET-7", "I-NET-40", "I-SIM-5"}, Where: "cmd/loom-conform-full:TestNoSecretEscapes"},
		{ID: "cli/outputs-refused-before-the-run", Kind: spec.KindTest, Clauses: []string{"I-CERT-40"}, Where: "cmd/loom-conform-full:TestOutputsRefusedBeforeTheRun"},
		{ID: "cli/deploysim-real-thousands", Kind: spec.KindTest, Clauses: []string{"I-SIM-10", "S6.dispatch.stateless-workers"}, Where: "cmd/loom-conform-full:TestDeploysimRealSettlesThousands"},
		{ID: "cli/serve-beyond-loopback-token", Kind: spec.KindTest, Clauses: []string{"I-NET-2", "I-NET-7"}, Where: "cmd/loom-conform-full:TestServeBeyondLoopbackNeedsToken"},
		{ID: "cli/servers-answer-beside-starving-clients", Kind: spec.KindTest, Clauses: []string{"I-NET-4", "I-NET-20"}, Where: "cmd/loom-conform-full:TestServersAnswerBesideStarvingClients"},
		{ID: "fleet/worker-dsn-off-argv", Kind: spec.KindTest, Clauses: []string{"I-NET-7"}, Where: "deploysim/realfleet:TestWorkerCommandKeepsTheDSNOffTheCommandLine"},
		{ID: "fleet/repro-carries-workload", Kind: spec.KindTest, Clauses: []string{"I-SIM-5"}, Where: "deploysim/realfleet:TestReproCarriesTheWorkload"},
		{ID: "fleet/unreadable-not-judged", Kind: spec.KindTest, Clauses: []string{"I-SIM-5"}, Where: "deploysim/realfleet:TestUnreadableLogsAreNotJudged"},
		{ID: "fleet/unsettled-one-verdict", Kind: spec.KindTest, Clauses: []string{"I-SIM-10"}, Where: "deploysim/realfleet:TestUnsettledFleetIsOneVerdict"},
		{ID: "fleet/unsettled-reference-not-judged", Kind: spec.KindTest, Clauses: []string{"I-SIM-10"}, Where: "deploysim/realfleet:TestUnsettledReferenceIsNotJudged"},
		{ID: "fleet/ledger-zombie-window", Kind: spec.KindTest, Clauses: []string{"I-SIM-3", "I-SIM-5", "S2.execute.served-not-rerun"}, Where: "deploysim/realfleet:TestLedgerJudgeExcusesOnlyZombies"},
		{ID: "cli/deploysim-real-broken-worker", Kind: spec.KindTest, Clauses: []string{"S2.execute.served-not-rerun", "I-SIM-5"}, Where: "cmd/loom-conform-full:TestDeploysimRealBrokenWorker"},
		{ID: "cli/run-selects-nothing", Kind: spec.KindTest, Clauses: []string{"I-CERT-32"}, Where: "cmd/loom-conform-full:TestRunSelectingNothingIsBadInput"},
		{ID: "cli/subset-said", Kind: spec.KindTest, Clauses: []string{"I-CERT-32", "I-CERT-6"}, Where: "cmd/loom-conform-full:TestSubsetSaidAsSubset"},
		{ID: "cli/ledger-names-no-check", Kind: spec.KindTest, Clauses: []string{"I-CERT-33"}, Where: "cmd/loom-conform-full:TestLedgerNamingNoCheckIsBadInput"},
		{ID: "cli/manifest-json", Kind: spec.KindTest, Clauses: []string{"S9.manifest.from-constants", "S2.syscalls.available-iff-listed"}, Where: "cmd/loom-conform-full:TestManifestJSON"},
	}
}
