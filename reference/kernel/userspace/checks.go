package userspace

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the checks of this package and the clauses each enforces.
func Checks() []spec.Check {
	const pkg = "reference/kernel/userspace:"
	return []spec.Check{
		{ID: "userspace/kernel-types", Kind: spec.KindTest, Clauses: []string{"S5.emit.userspace-kernel-refused", "S5.emit.relay-app-only"}, Where: pkg + "TestKernelTypesRefused"},
		{ID: "userspace/metered", Kind: spec.KindTest, Clauses: []string{"S5.emit.metered-valid", "I-KERNEL-61"}, Where: pkg + "TestMeteredValidation"},
		{ID: "userspace/quota-reason", Kind: spec.KindTest, Clauses: []string{"S5.emit.quota-reason-bounded", "I-KERNEL-62"}, Where: pkg + "TestQuotaReasonBounded"},
		{ID: "userspace/effect-decision-rewritten", Kind: spec.KindTest, Clauses: []string{"S5.emit.effect-decision-rewritten", "I-KERNEL-63"}, Where: pkg + "TestEffectDecisionRewritten"},
		{ID: "userspace/no-choice-change", Kind: spec.KindTest, Clauses: []string{"S5.emit.no-choice-change", "I-KERNEL-63"}, Where: pkg + "TestNoChoiceChange"},
		{ID: "userspace/loom-reserved", Kind: spec.KindTest, Clauses: []string{"S5.decide.loom-reserved"}, Where: pkg + "TestLoomIDsReserved"},
		{ID: "userspace/input-errors", Kind: spec.KindTest, Clauses: []string{"S5.emit.userspace-kernel-refused"}, Where: pkg + "TestCheckInputErrors"},
		{ID: "userspace/fuzz-check", Kind: spec.KindFuzz, Clauses: []string{"S5.emit.userspace-kernel-refused", "S5.emit.relay-app-only", "S5.decide.loom-reserved", "S5.emit.no-choice-change"}, Where: pkg + "FuzzCheck"},
		{ID: "userspace/checks-valid", Kind: spec.KindTest, Clauses: []string{"I-COV-3"}, Where: pkg + "TestChecksValid"},
	}
}
