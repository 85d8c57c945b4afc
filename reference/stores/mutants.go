package stores

import "github.com/loom-kernel/loom-conform/spec"

// Mutants registers the broken store decorators the reference stores' tests reject.
func Mutants() []spec.Mutant {
	const where = "reference/stores/sharded:TestSealingOnlyWhenEveryShardAgrees"
	return []spec.Mutant{
		{ID: "store/sharded/first-shard-wins", Kind: "store", Defect: "a sharded store reports its first shard's sealing capability whether or not the others agree",
			Clauses: []string{"S7.es.sealing-sharded-agree"}, CaughtBy: []string{"stores/sharded/sealing-agree"}, Where: where},
		{ID: "store/sharded/sealing-not-forwarded", Kind: "store", Defect: "a sharded store forwards no sealing capability even when every shard seals",
			Clauses: []string{"S7.es.sealing-forwarded"}, CaughtBy: []string{"stores/sharded/sealing-agree"}, Where: where},
		{ID: "suite/reference-impls/sqlite-archive-kit-dropped", Kind: "suite", Defect: "the SQLite reference store's ArchiveStore kit test is renamed so go test never runs it",
			Clauses: []string{"S10.kits.reference-impls"}, CaughtBy: []string{"stores/kits-on-reference-impls"}, Where: "reference/stores:TestKitsRunOnReferenceStores"},
	}
}
