package ingressprops

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the checks of this kit and the clauses each enforces.
func Checks() []spec.Check {
	const pkg = "kits/ingressprops:"
	all := func(ids ...string) []string {
		var out []string
		for _, id := range ids {
			out = append(out, clauses[id]...)
		}
		return out
	}
	props := all(CheckVerdict, CheckNoPlan, CheckPlan, CheckGateNamed, CheckStateMoves, CheckInert)
	return []spec.Check{
		{ID: "ingressprops/properties", Kind: spec.KindProperty, Clauses: props, Where: pkg + "TestReferenceGateProperties"},
		{ID: "ingressprops/sweep", Kind: spec.KindTest, Clauses: props, Where: pkg + "TestReferenceGateSweep"},
		{ID: "ingressprops/coverage", Kind: spec.KindTest, Clauses: []string{"I-COV-3"}, Where: pkg + "TestSweepCoversEveryOutcome"},
		{ID: "ingressprops/mutants", Kind: spec.KindTest, Clauses: []string{"S5.ingress.always", "S5.ingress.timer-needs-wakeat", "S4.ingress.null-after-parked-failure", "S5.order.identity-ingress-shape", "S5.ingress.kernel-namespace", "S5.ingress.recovered-running-only", "S5.ingress.redrive-no-resumed", "S5.schema.record-parsed", "S5.ingress.indoubt-other-refused", "S5.ingress.ambiguous-legacy", "S5.ingress.refusal-appends-nothing", "S5.schema.resumeas-target"}, Where: pkg + "TestKitRejectsMutantGates"},
		{ID: "ingressprops/emit-properties", Kind: spec.KindProperty, Clauses: emitClauses, Where: pkg + "TestUserspaceEmitProperties"},
		{ID: "ingressprops/emit-mutants", Kind: spec.KindTest, Clauses: emitClauses, Where: pkg + "TestKitRejectsMutantEmitCheckers"},
		{ID: "ingressprops/checks-valid", Kind: spec.KindTest, Clauses: []string{"I-COV-3"}, Where: pkg + "TestChecksValid"},
	}
}
