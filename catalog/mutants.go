package catalog

import (
	"github.com/loom-kernel/loom-conform/certify"
	"github.com/loom-kernel/loom-conform/deploysim"
	"github.com/loom-kernel/loom-conform/deploysim/realfleet"
	"github.com/loom-kernel/loom-conform/fitness"
	"github.com/loom-kernel/loom-conform/fitness/badges"
	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/kits/broken/dispatchers"
	"github.com/loom-kernel/loom-conform/kits/foldprops"
	"github.com/loom-kernel/loom-conform/kits/ingressprops"
	"github.com/loom-kernel/loom-conform/kits/kernelkit"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/lifecycle"
	"github.com/loom-kernel/loom-conform/reference/stores"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/vectors"
	vfuzz "github.com/loom-kernel/loom-conform/vectors/fuzz"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// Mutants returns every registered mutant of the project: each package holding broken
// implementations contributes its Mutants().
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	for _, part := range [][]spec.Mutant{
		broken.Mutants(),
		foldprops.Mutants(),
		kernel.Mutants(),
		ingressprops.Mutants(),
		certify.Mutants(),
		vectors.Mutants(),
		vfuzz.Mutants(),
		fitness.Mutants(),
		badges.Mutants(),
		manifest.Mutants(),
		lifecycle.Mutants(),
		dispatchers.Mutants(),
		deploysim.Mutants(),
		realfleet.Mutants(),
		carrier.Mutants(),
		kernelkit.Mutants(),
		stores.Mutants(),
		fold.Mutants(),
		cliMutants(),
	} {
		out = append(out, part...)
	}
	return out
}

// cliMutants lists the broken verbs the tests of cmd/loom-conform-full reject (it cannot be imported).
func cliMutants() []spec.Mutant {
	return []spec.Mutant{
		{ID: "cli/compat/exits-zero-when-incompatible", Kind: "cli", Defect: "loom-conform compat reports an incompatibility but exits 0",
			Clauses: []string{"S9.compat.exit-nonzero"}, CaughtBy: []string{"cli/compat-exit-codes"}, Where: "cmd/loom-conform-full:TestCompatExitCodes"},
	}
}
