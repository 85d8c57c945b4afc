package verify

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests of this package.
func Checks() []spec.Check {
	return []spec.Check{
		{ID: "verify/placement-compat", Kind: spec.KindTest, Clauses: []string{"S6.placement.compute-target", "I-DISPATCH-7"},
			Where: "verify:TestPlacementCompat"},
		{ID: "verify/suspension-safety", Kind: spec.KindTest, Clauses: []string{"S5.timer.unwired-reported", "I-DISPATCH-8"},
			Where: "verify:TestSuspensionSafetySurfaced"},
		{ID: "verify/deployment-bad-input", Kind: spec.KindTest, Clauses: []string{"I-DISPATCH-7"},
			Where: "verify:TestParseDeploymentRefusesBadInput"},
	}
}
