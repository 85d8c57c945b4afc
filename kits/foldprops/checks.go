package foldprops

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the kit's properties and self-tests with the clauses each enforces.
func Checks() []spec.Check {
	const dir = "kits/foldprops:"
	var out []spec.Check
	for _, p := range Properties() {
		out = append(out, spec.Check{ID: p.ID, Kind: spec.KindProperty, Clauses: p.Clauses, Where: dir + "TestReferenceFoldProperties"})
	}
	return append(out,
		spec.Check{ID: "foldprops/self-test", Kind: spec.KindTest, Clauses: []string{"S4.snapshot.every-k", "S3.fold.copy-on-write", "S4.fold.unknown-inert", "S4.fold.status-execution-only"},
			Where: dir + "TestKitRejectsBrokenFolds"},
		spec.Check{ID: "foldprops/fuzz", Kind: spec.KindFuzz, Clauses: []string{"S4.snapshot.every-k", "S1.P2.replay-identical", "S4.fold.unknown-inert", "S4.fold.status-execution-only"},
			Where: dir + "FuzzProperties"},
		spec.Check{ID: "foldprops/generator-frequencies", Kind: spec.KindTest, Clauses: []string{"I-COV-3"},
			Where: dir + "TestGeneratorFrequencies"},
		spec.Check{ID: "foldprops/diff-deep-values", Kind: spec.KindTest, Clauses: []string{"I-COV-3"},
			Where: dir + "TestDiffDeepValues"},
		spec.Check{ID: "foldprops/jsonb-reorder", Kind: spec.KindTest, Clauses: []string{"I-FOLD-16", "S3.snapshot.equivalence"},
			Where: dir + "TestJSONBReorder"},
		spec.Check{ID: "foldprops/classify", Kind: spec.KindTest, Clauses: []string{"S4.snapshot.pre-1.21-exceptions", "S4.v1_24.legacy-no-seq", "I-FOLD-20"},
			Where: dir + "TestClassifyExceptions"},
	)
}
