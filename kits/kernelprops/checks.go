package kernelprops

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the kit's properties and self-tests with the clauses each enforces.
func Checks() []spec.Check {
	const dir = "kits/kernelprops:"
	var out []spec.Check
	for _, p := range Properties() {
		out = append(out, spec.Check{ID: p.ID, Kind: spec.KindProperty, Clauses: p.Clauses, Where: dir + "TestReferenceKernelProperties"})
	}
	out = append(out, spec.Check{ID: "kernelprops/runtime-state-machine", Kind: spec.KindProperty,
		Clauses: []string{"S5.ingress.always", "S5.ingress.refusal-appends-nothing", "S3.emit.once", "S2.execute.served-not-rerun", "S6.dispatch.stateless-workers", "S6.resume.is-migration"},
		Where:   dir + "TestReferenceKernelProperties"})
	return append(out,
		spec.Check{ID: "kernelprops/self-test", Kind: spec.KindTest,
			Clauses: []string{"S3.emit.stamp-nothing-in-flight", "S3.emit.stamp-nothing-unserved", "S3.emit.serve-skip", "S3.emit.serve-append", "S2.execute.served-not-rerun",
				"S3.snapshot.equivalence", "S1.G2.unwired-byte-identical", "S3.emit.once", "S3.emit.legacy-log", "S3.emit.never-timing", "I-KERNEL-18", "I-KERNEL-24"},
			Where: dir + "TestKitRejectsMutants"},
		spec.Check{ID: "kernelprops/random-catches", Kind: spec.KindTest,
			Clauses: []string{"S3.emit.never-timing", "S3.snapshot.equivalence", "I-KERNEL-18", "I-KERNEL-24"},
			Where:   dir + "TestRandomCasesCatchMutants"},
		spec.Check{ID: "kernelprops/generator-frequency", Kind: spec.KindTest,
			Clauses: []string{"I-COV-3"},
			Where:   dir + "TestGeneratorReachesInterestingPaths"},
		spec.Check{ID: "kernelprops/flow-script", Kind: spec.KindTest,
			Clauses: []string{"S3.determinism.enforced", "I-GOLDEN-1", "I-GOLDEN-9", "I-GOLDEN-10"},
			Where:   dir + "TestProgramsAsFlowScripts"},
	)
}
