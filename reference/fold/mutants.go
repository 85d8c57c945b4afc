package fold

import "github.com/loom-kernel/loom-conform/spec"

// Mutants registers the broken fold sources this package's tests reject.
func Mutants() []spec.Mutant {
	return []spec.Mutant{
		{ID: "fold/purity/reads-clock", Kind: "fold", Defect: "a fold source file imports time to stamp the state", Clauses: []string{"S1.P2.fold-pure"},
			CaughtBy: []string{"fold/pure"}, Where: "reference/fold:TestFoldImportsNoAmbientInput"},
		{ID: "fold/evidence-order/unstamped-last", Kind: "fold",
			Defect:  "evidence ordering puts every unstamped _decisions entry after all the stamped ones, not right after the stamped entry it followed",
			Clauses: []string{"S4.v1_24.evidence-order"}, CaughtBy: []string{"fold/evidence-order"}, Where: "reference/fold:TestBrokenEvidenceOrdersRejected"},
	}
}
