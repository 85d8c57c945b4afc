package broken

import (
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/spec"
)

// Mutants registers every broken store of the package as a spec.Mutant: id
// store/<kit>/<name>, the clauses of the check that must reject it, and the test proving it does.
func Mutants() []spec.Mutant {
	var out []spec.Mutant
	out = append(out, mutantsOf(kits.EventStoreKit(), EventStores(), "TestBrokenEventStoresRejected")...)
	out = append(out, mutantsOf(kits.SnapshotStoreKit(), SnapshotStores(), "TestBrokenSnapshotStoresRejected")...)
	out = append(out, mutantsOf(kits.ArchiveStoreKit(), ArchiveStores(), "TestBrokenArchiveStoresRejected")...)
	out = append(out, mutantsOf(kits.BranchRegistryKit(), BranchRegistries(), "TestBrokenBranchRegistriesRejected")...)
	out = append(out, mutantsOf(kits.ContentStoreKit(), ContentStores(), "TestBrokenContentStoresRejected")...)
	out = append(out, mutantsOf(kits.DurableStateStoreKit(), DurableStateStores(), "TestBrokenDurableStateStoresRejected")...)
	out = append(out, mutantsOf(kits.ReadModelStoreKit(), ReadModelStores(), "TestBrokenReadModelStoresRejected")...)
	return out
}

func mutantsOf[T any](kit kits.Kit[T], stores []Store[T], test string) []spec.Mutant {
	clauses := map[string][]string{}
	for _, ch := range kit.Checks {
		clauses[ch.ID] = ch.Clauses
	}
	out := make([]spec.Mutant, len(stores))
	for i, s := range stores {
		out[i] = spec.Mutant{ID: "store/" + kit.Name + "/" + s.Name, Kind: "store", Defect: s.Defect,
			Clauses: append([]string(nil), clauses[s.Catch]...), CaughtBy: []string{s.Catch}, Where: "kits/broken:" + test}
	}
	return out
}
