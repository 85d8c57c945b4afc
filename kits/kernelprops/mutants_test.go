package kernelprops

import (
	"github.com/loom-kernel/loom-conform/internal/proof"
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// Reference: DESIGN §6 — every registered kernel-hook mutant proven here is rejected by each
// property meant for it, and the reference kernel passes the same examples.
func TestKitRejectsMutants(t *testing.T) {
	const where = "kits/kernelprops:TestKitRejectsMutants"
	props := map[string]Property{}
	for _, p := range Properties() {
		props[p.ID] = p
		if err := CheckProperty(p, Reference(), nil); err != nil {
			t.Fatalf("%s: the reference kernel fails the examples: %v", p.ID, err)
		}
	}
	var built []string
	for _, m := range kernel.Mutants() {
		if _, ok := kernel.MutantHooks(m.ID); ok && m.Where == where {
			built = append(built, m.ID)
		}
	}
	for _, m := range proof.Registered(t, kernel.Mutants(), where, built) {
		hooks, _ := kernel.MutantHooks(m.ID)
		tg := Target{Name: m.ID[strings.LastIndex(m.ID, "/")+1:], Mod: func(c *kernel.Config) { c.Hooks = hooks }}
		for _, caught := range m.CaughtBy {
			t.Run(tg.Name+"/"+strings.TrimPrefix(caught, "kernelprops/"), func(t *testing.T) {
				p, ok := props[caught]
				if !ok {
					t.Fatalf("mutant %s: unknown property %s", m.ID, caught)
				}
				err := CheckProperty(p, tg, nil)
				if err == nil {
					t.Fatalf("kernelprops/self-test %v: %s(%s) = pass, want a violation", m.Clauses, caught, tg.Name)
				}
				proof.Rejected(t, m.ID, caught, proof.Failure(caught, nil, caught+"("+tg.Name+")", err))
				t.Logf("caught: %.300s", err)
			})
		}
	}
}
