package kernelprops

import (
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// mutants are deliberately broken kernels, one broken rule each, and the property that must reject
// each (the kit proves itself, DESIGN §6).
func mutants() []struct {
	tg     Target
	caught string
} {
	hook := func(name string, set func(*kernel.Hooks)) Target {
		return Target{Name: name, Mod: func(c *kernel.Config) { set(&c.Hooks) }}
	}
	return []struct {
		tg     Target
		caught string
	}{
		{hook("stamps-while-in-flight", func(h *kernel.Hooks) { h.StampWhileInFlight = true }), "kernelprops/emit-serving-model"},
		{hook("stamps-after-unserved", func(h *kernel.Hooks) { h.StampAfterUnserved = true }), "kernelprops/emit-serving-model"},
		{hook("serves-ignoring-live-work", func(h *kernel.Hooks) { h.ServeIgnoringLiveWork = true }), "kernelprops/emit-serving-model"},
		{hook("reruns-completed-steps", func(h *kernel.Hooks) { h.RerunCompletedSteps = true }), "kernelprops/effects-per-start"},
		{hook("reruns-completed-steps", func(h *kernel.Hooks) { h.RerunCompletedSteps = true }), "kernelprops/replay-appends-nothing"},
		{hook("never-stamps", func(h *kernel.Hooks) { h.NeverStamp = true }), "kernelprops/emit-once"},
		{hook("never-stamps", func(h *kernel.Hooks) { h.NeverStamp = true }), "kernelprops/legacy-log"},
		{hook("lossy-snapshot", func(h *kernel.Hooks) { h.LossySnapshot = true }), "kernelprops/snapshot-equivalence"},
		{hook("budget-present-writes", func(h *kernel.Hooks) { h.BudgetPresentWrites = true }), "kernelprops/g2-unwired"},
		{hook("shared-parallel-emit-count", func(h *kernel.Hooks) { h.SharedParallelEmitCount = true }), "kernelprops/emit-serving-model"},
		{hook("normalizes-own-snapshots", func(h *kernel.Hooks) { h.NormalizeOwnSnapshots = true }), "kernelprops/snapshot-equivalence"},
	}
}

// Reference: DESIGN §6 — every mutant is rejected by the property meant for it, and the reference
// kernel passes the same examples.
func TestKitRejectsMutants(t *testing.T) {
	props := map[string]Property{}
	for _, p := range Properties() {
		props[p.ID] = p
		if err := CheckProperty(p, Reference(), nil); err != nil {
			t.Fatalf("%s: the reference kernel fails the examples: %v", p.ID, err)
		}
	}
	for _, m := range mutants() {
		t.Run(m.tg.Name+"/"+strings.TrimPrefix(m.caught, "kernelprops/"), func(t *testing.T) {
			err := CheckProperty(props[m.caught], m.tg, nil)
			if err == nil {
				t.Fatalf("kernelprops/self-test: %s(%s) = pass, want a violation", m.caught, m.tg.Name)
			}
			t.Logf("caught: %.300s", err)
		})
	}
}
