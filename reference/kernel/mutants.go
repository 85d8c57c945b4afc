package kernel

import "github.com/loom-kernel/loom-conform/spec"

// hookMutant is one Hooks field as a registered mutant: how to set it, and what it breaks.
type hookMutant struct {
	m   spec.Mutant
	set func(*Hooks)
}

// hookMutants lists every Hooks mutant. One line each; Where names the test that proves the
// rejection (the property kit for the §3 rules, other tests for the rest).
func hookMutants() []hookMutant {
	const props = "kits/kernelprops:TestKitRejectsMutants"
	h := func(name, defect, where string, set func(*Hooks), caught []string, clauses ...string) hookMutant {
		return hookMutant{spec.Mutant{ID: "kernel-hook/runtime/" + name, Kind: "kernel-hook", Defect: defect, Clauses: clauses, CaughtBy: caught, Where: where}, set}
	}
	by := func(ids ...string) []string { return ids }
	return []hookMutant{
		h("stamps-while-in-flight", "stamps emits while effects execute or inside parallel branches", props,
			func(h *Hooks) { h.StampWhileInFlight = true }, by("kernelprops/emit-serving-model"), "S3.emit.stamp-nothing-in-flight"),
		h("stamps-after-unserved", "stamps emits after an outcome a re-run does not serve", props,
			func(h *Hooks) { h.StampAfterUnserved = true }, by("kernelprops/emit-serving-model"), "S3.emit.stamp-nothing-unserved"),
		h("serves-ignoring-live-work", "skips an emit whenever the log holds more stamped copies, ignoring live work in the segment", props,
			func(h *Hooks) { h.ServeIgnoringLiveWork = true }, by("kernelprops/emit-serving-model"), "S3.emit.serve-append", "S3.emit.serve-skip"),
		h("reruns-completed-steps", "re-invokes the effect of a completed step on replay", props,
			func(h *Hooks) { h.RerunCompletedSteps = true }, by("kernelprops/effects-per-start", "kernelprops/replay-appends-nothing"),
			"S2.execute.served-not-rerun", "S3.resume.rerun-served"),
		h("never-stamps", "appends every emit unstamped", props,
			func(h *Hooks) { h.NeverStamp = true }, by("kernelprops/emit-once", "kernelprops/legacy-log"), "S3.emit.once", "S3.emit.stamp", "S3.emit.legacy-log"),
		h("lossy-snapshot", "saves snapshots without _resumePayloads", props,
			func(h *Hooks) { h.LossySnapshot = true }, by("kernelprops/snapshot-equivalence"), "S3.snapshot.equivalence", "S4.snapshot.every-k"),
		h("budget-present-writes", "a present but empty Budget records RESOURCE_METERED before every live step", props,
			func(h *Hooks) { h.BudgetPresentWrites = true }, by("kernelprops/g2-unwired"), "S1.G2.unwired-byte-identical"),
		h("shared-parallel-emit-count", "the branches of a parallel advance one shared per-digest emit count", props,
			func(h *Hooks) { h.SharedParallelEmitCount = true }, by("kernelprops/emit-serving-model"), "S3.emit.never-timing", "I-KERNEL-18"),
		h("normalizes-own-snapshots", "reads its own snapshots through normalizeSnapshotState, upgrading them to the current profile", props,
			func(h *Hooks) { h.NormalizeOwnSnapshots = true }, by("kernelprops/snapshot-equivalence"), "S3.snapshot.equivalence", "I-KERNEL-24"),
	}
}

// Mutants registers every Hooks mutant of the reference kernel.
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	for _, hm := range hookMutants() {
		out = append(out, hm.m)
	}
	return out
}

// MutantHooks returns the Hooks that build the registered mutant id, and whether id is one.
func MutantHooks(id string) (Hooks, bool) {
	for _, hm := range hookMutants() {
		if hm.m.ID == id {
			var h Hooks
			hm.set(&h)
			return h, true
		}
	}
	return Hooks{}, false
}
