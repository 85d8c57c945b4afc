package lifecycle_test

import (
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/proof"
	"github.com/loom-kernel/loom-conform/reference/lifecycle"
	"github.com/loom-kernel/loom-conform/spec"
)

// Every broken lifecycle is rejected by the check it names, with a message in the failure grammar.
func TestBrokenLifecyclesRejected(t *testing.T) {
	checks := map[string]lifecycleCheck{}
	for _, c := range lifecycleChecks() {
		checks[c.id] = c
	}
	if err := spec.ValidateMutants(lifecycle.Mutants()); err != nil {
		t.Fatal(err)
	}
	for _, m := range lifecycle.HookMutants() {
		t.Run(m.ID, func(t *testing.T) {
			c, ok := checks[m.CaughtBy[0]]
			if !ok {
				t.Fatalf("mutant %s names check %q, which does not exist", m.ID, m.CaughtBy[0])
			}
			var h lifecycle.Hooks
			m.Set(&h)
			err := c.run(h)
			if err == nil {
				t.Fatalf("%s (%s): check %s passed, want it to fail", m.ID, m.Defect, c.id)
			}
			if !strings.HasPrefix(err.Error(), c.id+" [") {
				t.Errorf("message %q does not start with %q", err, c.id+" [")
			}
			proof.Rejected(t, m.ID, c.id, err)
			t.Logf("%s rejected: %v", m.ID, firstLine(err.Error()))
		})
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
