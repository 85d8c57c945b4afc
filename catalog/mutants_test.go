package catalog

import (
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/spec"
)

// Every mutant names known clauses and catching checks the catalog knows, ids are unique, its
// proving test exists (testFuncs is shared with TestCheckedTestsExist), and every clause it names
// is linked to at least one of the checks that catch it (I-COV-4).
func TestMutantsValid(t *testing.T) {
	ms := Mutants()
	if err := spec.ValidateMutants(ms); err != nil {
		t.Fatal(err)
	}
	checks := map[string]spec.Check{}
	for _, c := range Checks() {
		checks[c.ID] = c
	}
	funcs := testFuncs(t)
	for _, m := range ms {
		if parts := strings.SplitN(m.ID, "/", 3); len(parts) != 3 || parts[0] != m.Kind {
			t.Errorf("mutant %s: id is not <kind>/<area>/<name> with kind %q", m.ID, m.Kind)
		}
		if !funcs[m.Where] {
			t.Errorf("mutant %s: Where %q names no test function", m.ID, m.Where)
		}
		linkedTo := map[string]bool{} // clauses some catching check is linked to
		for _, id := range m.CaughtBy {
			c, ok := checks[id]
			if !ok {
				t.Errorf("mutant %s: caught by unknown check %q", m.ID, id)
				continue
			}
			for _, cl := range c.Clauses {
				linkedTo[cl] = true
			}
		}
		for _, v := range m.Clauses {
			if !linkedTo[v] {
				t.Errorf("mutant %s: clause %s is linked to no check that catches it (%v), so its kill proves nothing about %s (I-COV-4)", m.ID, v, m.CaughtBy, v)
			}
		}
	}
}

// The registry refuses what it must: the validator is not vacuous.
func TestMutantValidationRefuses(t *testing.T) {
	good := spec.Mutant{ID: "store/eventstore/x", Kind: "store", Defect: "d", Clauses: []string{"I-STORE-1"}, CaughtBy: []string{"eventstore/append-conflict"}, Where: "kits/broken:TestBrokenEventStoresRejected"}
	if err := spec.ValidateMutants([]spec.Mutant{good}); err != nil {
		t.Fatalf("ValidateMutants(good) = %v, want nil", err)
	}
	for name, m := range map[string]spec.Mutant{
		"unknown clause": {ID: good.ID, Clauses: []string{"S99.nope"}, CaughtBy: good.CaughtBy, Where: good.Where},
		"no clause":      {ID: good.ID, CaughtBy: good.CaughtBy, Where: good.Where},
		"no check":       {ID: good.ID, Clauses: good.Clauses, Where: good.Where},
		"no test":        {ID: good.ID, Clauses: good.Clauses, CaughtBy: good.CaughtBy},
	} {
		if err := spec.ValidateMutants([]spec.Mutant{m}); err == nil {
			t.Errorf("ValidateMutants(%s) = nil, want an error", name)
		}
	}
	if err := spec.ValidateMutants([]spec.Mutant{good, good}); err == nil {
		t.Error("ValidateMutants(duplicate) = nil, want an error")
	}
	if testFuncs(t)["kits/broken:TestNoSuchTest"] {
		t.Error("testFuncs lists a test that does not exist")
	}
	if !testFuncs(t)["catalog:TestMutantValidationRefuses"] {
		t.Error("testFuncs misses this very test")
	}
}
