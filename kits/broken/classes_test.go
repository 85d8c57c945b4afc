package broken_test

import (
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/broken"
	"github.com/loom-kernel/loom-conform/spec"
)

func TestClassEventStoresRejected(t *testing.T) {
	rejectedBy(t, "eventstore", kits.EventStoreKit(), broken.ClassEventStores())
}

func TestClassSnapshotStoresRejected(t *testing.T) {
	rejectedBy(t, "snapshotstore", kits.SnapshotStoreKit(), broken.ClassSnapshotStores())
}

func TestClassArchiveStoresRejected(t *testing.T) {
	rejectedBy(t, "archivestore", kits.ArchiveStoreKit(), broken.ClassArchiveStores())
}

func TestClassBranchRegistriesRejected(t *testing.T) {
	rejectedBy(t, "branchregistry", kits.BranchRegistryKit(), broken.ClassBranchRegistries())
}

func TestClassContentStoresRejected(t *testing.T) {
	rejectedBy(t, "contentstore", kits.ContentStoreKit(), broken.ClassContentStores())
}

func TestClassDurableStateStoresRejected(t *testing.T) {
	rejectedBy(t, "durablestatestore", kits.DurableStateStoreKit(), broken.ClassDurableStateStores())
}

func TestClassReadModelStoresRejected(t *testing.T) {
	rejectedBy(t, "readmodelstore", kits.ReadModelStoreKit(), broken.ClassReadModelStores())
}

// Every rule-class mutant is valid, names a check its seam's kit has, and that check links every clause
// the mutant violates (so the rejection proves those clauses).
func TestClassMutantsValid(t *testing.T) {
	ms := broken.ClassMutants()
	if err := spec.ValidateMutants(ms); err != nil {
		t.Fatal(err)
	}
	linked := map[string]map[string]bool{}
	for _, c := range kits.Checks() {
		linked[c.ID] = map[string]bool{}
		for _, id := range c.Clauses {
			linked[c.ID][id] = true
		}
	}
	for _, m := range ms {
		for _, check := range m.CaughtBy {
			cl, ok := linked[check]
			if !ok {
				t.Errorf("mutant %s: caught by %q, which no kit has", m.ID, check)
				continue
			}
			for _, id := range m.Clauses {
				if !cl[id] {
					t.Errorf("mutant %s violates %s, which its catching check %s does not link", m.ID, id, check)
				}
			}
		}
	}
}
