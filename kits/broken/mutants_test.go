package broken_test

import (
	"strings"
	"testing"

	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/spec"
)

// Every broken store is registered with the clauses its defect violates, every registration is a
// store that exists, and the registry is valid.
func TestBrokenStoresRegistered(t *testing.T) {
	ms := broken.Mutants()
	if err := spec.ValidateMutants(ms); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if !strings.HasPrefix(m.ID, "store/") || m.Kind != "store" {
			t.Errorf("mutant %s (kind %s): want id store/<seam>/<name>, kind store", m.ID, m.Kind)
		}
	}
	if len(ms) < 60 {
		t.Errorf("%d broken stores registered, want every one (60+)", len(ms))
	}
}
