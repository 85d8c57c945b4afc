package broken

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests that prove the kits with the broken stores.
func Checks() []spec.Check {
	return append([]spec.Check{
		{ID: "kits/broken/eventstores-rejected", Kind: spec.KindTest, Clauses: []string{"S7.spi.versioned-kit", "S6.fencing.zombie", "S7.es.incarnation-anchor", "S7.es.delete-through-atomic", "S7.es.delete-through-concurrent"},
			Where: "kits/broken:TestBrokenEventStoresRejected"},
		{ID: "kits/broken/snapshotstores-rejected", Kind: spec.KindTest, Clauses: []string{"S7.spi.versioned-kit", "S3.snapshot.equivalence", "S7.ss.prune-range", "S7.ss.list-sequences"},
			Where: "kits/broken:TestBrokenSnapshotStoresRejected"},
		{ID: "kits/broken/archivestores-rejected", Kind: spec.KindTest, Clauses: []string{"S7.spi.versioned-kit", "S7.as.compact-archives-first", "S7.as.replace-segments"},
			Where: "kits/broken:TestBrokenArchiveStoresRejected"},
		{ID: "kits/broken/branchregistries-rejected", Kind: spec.KindTest, Clauses: []string{"S7.spi.versioned-kit"},
			Where: "kits/broken:TestBrokenBranchRegistriesRejected"},
		{ID: "kits/broken/contentstores-rejected", Kind: spec.KindTest, Clauses: []string{"S7.spi.versioned-kit", "S7.plugin.pinned", "I-PLUGIN-1", "I-PLUGIN-2", "I-PLUGIN-3", "I-PLUGIN-4"},
			Where: "kits/broken:TestBrokenContentStoresRejected"},
		{ID: "kits/broken/durablestatestores-rejected", Kind: spec.KindTest, Clauses: []string{"S7.spi.versioned-kit", "S7.plugin.pinned", "I-PLUGIN-5", "I-PLUGIN-6", "I-PLUGIN-7"},
			Where: "kits/broken:TestBrokenDurableStateStoresRejected"},
		{ID: "kits/broken/readmodelstores-rejected", Kind: spec.KindTest, Clauses: []string{"S7.spi.versioned-kit", "S7.plugin.pinned", "I-PLUGIN-8", "I-PLUGIN-9", "I-PLUGIN-10"},
			Where: "kits/broken:TestBrokenReadModelStoresRejected"},
		{ID: "kits/required-only-skips-optional", Kind: spec.KindTest, Clauses: []string{"S7.spi.optional-may-omit", "I-STORE-24"},
			Where: "kits:TestRequiredOnlyStoreSkipsOptionalChecks"},
		{ID: "kits/hang-names-the-call", Kind: spec.KindTest, Clauses: []string{"I-CERT-61", "I-CERT-13"},
			Where: "kits:TestHangingStoreIsUnknownNotAHang"},
		{ID: "kits/go-test-gives-certify-verdict", Kind: spec.KindTest, Clauses: []string{"I-CERT-62", "I-CERT-10"},
			Where: "kits:TestGoTestGivesCertifyVerdict"},
		{ID: "kits/broken/incarnation-follows-claim", Kind: spec.KindTest, Clauses: []string{"S7.es.incarnation-anchor", "I-STORE-21"},
			Where: "kits/broken:TestIncarnationRuleFollowsTheClaim"},
		{ID: "kits/broken/jsonb-like-passes", Kind: spec.KindTest, Clauses: []string{"I-STORE-25", "I-STORE-15"},
			Where: "kits/broken:TestJsonbLikeStorePasses"},
		{ID: "kits/broken/key-reordering-passes", Kind: spec.KindTest, Clauses: []string{"S3.snapshot.equivalence", "I-STORE-15"},
			Where: "kits/broken:TestKeyReorderingStorePasses"},
	}, append(classChecks(), naturalChecks()...)...)
}

// classChecks are the tests that prove the kits with the rule-class stores (their ids predate the
// name and stay).
func classChecks() []spec.Check {
	return []spec.Check{
		{ID: "kits/broken/gap-eventstores-rejected", Kind: spec.KindTest, Clauses: []string{"I-STORE-26", "I-STORE-27", "I-STORE-28", "I-STORE-29", "I-STORE-30", "I-STORE-31"},
			Where: "kits/broken:TestClassEventStoresRejected"},
		{ID: "kits/broken/gap-snapshotstores-rejected", Kind: spec.KindTest, Clauses: []string{"I-STORE-27", "I-STORE-31", "I-STORE-32"},
			Where: "kits/broken:TestClassSnapshotStoresRejected"},
		{ID: "kits/broken/gap-archivestores-rejected", Kind: spec.KindTest, Clauses: []string{"I-STORE-27", "I-STORE-29", "I-STORE-30", "I-STORE-31", "I-STORE-32"},
			Where: "kits/broken:TestClassArchiveStoresRejected"},
		{ID: "kits/broken/gap-branchregistries-rejected", Kind: spec.KindTest, Clauses: []string{"I-STORE-27", "I-STORE-28", "I-STORE-29"},
			Where: "kits/broken:TestClassBranchRegistriesRejected"},
		{ID: "kits/broken/gap-contentstores-rejected", Kind: spec.KindTest, Clauses: []string{"I-PLUGIN-12", "I-PLUGIN-13", "I-PLUGIN-14"},
			Where: "kits/broken:TestClassContentStoresRejected"},
		{ID: "kits/broken/gap-durablestatestores-rejected", Kind: spec.KindTest, Clauses: []string{"I-PLUGIN-13", "I-PLUGIN-14", "I-PLUGIN-15"},
			Where: "kits/broken:TestClassDurableStateStoresRejected"},
		{ID: "kits/broken/gap-readmodelstores-rejected", Kind: spec.KindTest, Clauses: []string{"I-PLUGIN-13", "I-PLUGIN-14", "I-PLUGIN-15"},
			Where: "kits/broken:TestClassReadModelStoresRejected"},
	}
}
