package goldens

import (
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/spec"
)

// HookMutant is one kernel Hooks mutant: the field it sets and what it breaks.
type HookMutant struct {
	Name    string
	Set     func(*kernel.Hooks)
	Defect  string
	Clauses []string
}

// Config returns the kernel configuration modifier that switches the mutant on.
func (m HookMutant) Config() func(*kernel.Config) { return func(c *kernel.Config) { m.Set(&c.Hooks) } }

// HookMutants lists every kernel Hooks mutant; goldens check must fail on each.
func HookMutants() []HookMutant {
	r := "S10.replay-unchanged"
	return []HookMutant{
		{"stamp-while-in-flight", func(h *kernel.Hooks) { h.StampWhileInFlight = true }, "stamps emits inside parallel branches and while effects run", []string{r, "S3.emit.stamp-nothing-in-flight"}},
		{"serve-ignoring-live-work", func(h *kernel.Hooks) { h.ServeIgnoringLiveWork = true }, "skips an emit the log holds even after live work in its segment", []string{r, "S3.emit.serve-append"}},
		{"stamp-after-unserved", func(h *kernel.Hooks) { h.StampAfterUnserved = true }, "stamps emits after an outcome a re-run does not serve", []string{r, "S3.emit.stamp-nothing-unserved"}},
		{"rerun-completed-steps", func(h *kernel.Hooks) { h.RerunCompletedSteps = true }, "re-invokes the effect of a completed step on replay", []string{r, "S2.execute.served-not-rerun"}},
		{"never-stamp", func(h *kernel.Hooks) { h.NeverStamp = true }, "appends every emit unstamped", []string{r, "S3.emit.stamp"}},
		{"lossy-snapshot", func(h *kernel.Hooks) { h.LossySnapshot = true }, "saves snapshots without _resumePayloads", []string{r, "S3.snapshot.equivalence"}},
		{"budget-present-writes", func(h *kernel.Hooks) { h.BudgetPresentWrites = true }, "a present but empty budget records RESOURCE_METERED before every live step", []string{"S1.G2.unwired-byte-identical", "S10.g2.behavioural-and-ratio"}},
		{"shared-parallel-emit-count", func(h *kernel.Hooks) { h.SharedParallelEmitCount = true }, "parallel branches advance one shared per-digest emit count", []string{r, "S3.emit.never-timing"}},
		{"normalize-own-snapshots", func(h *kernel.Hooks) { h.NormalizeOwnSnapshots = true }, "reads its own snapshots through NormalizeSnapshotState", []string{r, "S3.snapshot.equivalence"}},
		{"drop-code-hash", func(h *kernel.Hooks) { h.DropCodeHash = true }, "omits EXECUTION_STARTED codeHash", []string{r, "S4.v1_23.started-fields"}},
		{"reverse-parallel-results", func(h *kernel.Hooks) { h.ReverseParallelResults = true }, "returns a parallel's branch results in reverse order", []string{r, "S3.determinism.enforced"}},
		{"drop-decision-context", func(h *kernel.Hooks) { h.DropDecisionContext = true }, "records DECISION_RECORDED without its context", []string{r, "S1.P9.decision-logged"}},
		{"forget-resumes-on-resumeas", func(h *kernel.Hooks) { h.ForgetResumesOnResumeAs = true }, "re-runs a resumeAs without the recorded _resumePayloads", []string{r, "S5.replay.gates-in-order"}},
		{"emit-segment-skew", func(h *kernel.Hooks) { h.EmitSegmentSkew = true }, "digests flow emits one segment ahead", []string{r, "S3.emit.segment"}},
		{"retry-same-attempt", func(h *kernel.Hooks) { h.RetrySameAttempt = true }, "records a re-run of a failed step with its previous attempt number", []string{r, "S41.typed.untyped-at-least-once"}},
	}
}

// Mutants registers every kernel Hooks mutant as caught by the golden corpus check.
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	for _, m := range HookMutants() {
		out = append(out, spec.Mutant{ID: "kernel-hook/" + m.Name, Kind: "kernel-hook", Defect: m.Defect, Clauses: m.Clauses,
			CaughtBy: []string{"goldens/CorpusCheck"}, Where: "goldens:TestHookMutantsFailCheck"})
	}
	return out
}
