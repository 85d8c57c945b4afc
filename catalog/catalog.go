package catalog

import (
	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/fitness"
	"github.com/loom-kernel/loom-conform/fitness/badges"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/kits/foldprops"
	"github.com/loom-kernel/loom-conform/kits/ingressprops"
	"github.com/loom-kernel/loom-conform/kits/kernelprops"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"
	"github.com/loom-kernel/loom-conform/reference/stores"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/vectors"
	"github.com/loom-kernel/loom-conform/wire/bridge"
	"github.com/loom-kernel/loom-conform/wire/dockertestadapter"
	"github.com/loom-kernel/loom-conform/wire/faultproxy"
)

// Checks returns every registered check of the project.
func Checks() []spec.Check {
	var out []spec.Check
	for _, part := range [][]spec.Check{
		manifest.Checks(),
		fold.Checks(),
		foldprops.Checks(),
		vectors.Checks(),
		kits.Checks(),
		broken.Checks(),
		stores.Checks(),
		certify.Checks(),
		bridge.Checks(),
		faultproxy.Checks(),
		dockertestadapter.Checks(),
		kernel.Checks(),
		ingress.Checks(),
		userspace.Checks(),
		ingressprops.Checks(),
		kernelprops.Checks(),
		fitness.Checks(),
		badges.Checks(),
		cliChecks(),
	} {
		out = append(out, part...)
	}
	return out
}

// cliChecks lists the tests of cmd/loom-conform, which cannot be imported.
func cliChecks() []spec.Check {
	return []spec.Check{
		{ID: "cli/compat-exit-codes", Kind: spec.KindTest, Clauses: []string{"S9.compat.exit-nonzero", "S9.compat.shared-major"}, Where: "cmd/loom-conform:TestCompatExitCodes"},
		{ID: "cli/vectors-exit-codes", Kind: spec.KindTest, Clauses: []string{"A26.vectors.language-agnostic", "S4.v1_24.foreign-fold-seq"}, Where: "cmd/loom-conform:TestVectorsExitCodes"},
		{ID: "cli/vectors-exec-serve", Kind: spec.KindTest, Clauses: []string{"A26.vectors.language-agnostic"}, Where: "cmd/loom-conform:TestVectorsExecServe"},
		{ID: "cli/certify-builtin", Kind: spec.KindTest, Clauses: []string{"S10.kits.reference-impls", "S7.spi.versioned-kit"}, Where: "cmd/loom-conform:TestCertifyBuiltinCLI"},
		{ID: "cli/certify-never-certified", Kind: spec.KindTest, Clauses: []string{"I-CERT-1", "I-CERT-2", "I-CERT-3", "I-CERT-4", "I-CERT-5", "I-CERT-6"}, Where: "cmd/loom-conform:TestCertifyNeverCertifiedCLI"},
		{ID: "cli/certify-exit-codes", Kind: spec.KindTest, Clauses: []string{"S7.spi.versioned-kit", "I-BRIDGE-6"}, Where: "cmd/loom-conform:TestCertifyExitCodes"},
		{ID: "cli/badges", Kind: spec.KindTest, Clauses: []string{"S10.badges.evidence"}, Where: "cmd/loom-conform:TestBadgesCLI"},
		{ID: "cli/fitness", Kind: spec.KindTest, Clauses: []string{"S10.fitness.gated"}, Where: "cmd/loom-conform:TestFitnessCLI"},
		{ID: "cli/manifest-json", Kind: spec.KindTest, Clauses: []string{"S9.manifest.from-constants", "S2.syscalls.available-iff-listed"}, Where: "cmd/loom-conform:TestManifestJSON"},
	}
}
