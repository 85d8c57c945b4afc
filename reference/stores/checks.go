package stores

import "github.com/loom-kernel/loom-conform/spec"

// Checks lists the tests that run every kit against the reference stores (spec §10: kits run
// against the reference implementations).
func Checks() []spec.Check {
	var out []spec.Check
	for _, st := range []string{"memory", "sqlite", "postgres"} {
		for _, k := range []struct{ test, clause string }{
			{"TestEventStoreKit", "S7.spi.versioned-kit"},
			{"TestSnapshotStoreKit", "S3.snapshot.equivalence"},
			{"TestArchiveStoreKit", "S7.as.compact-archives-first"},
			{"TestBranchRegistryKit", "S7.spi.versioned-kit"},
		} {
			out = append(out, spec.Check{ID: "stores/" + st + "/" + k.test, Kind: spec.KindTest,
				Clauses: []string{"S10.kits.reference-impls", k.clause}, Where: "reference/stores/" + st + ":" + k.test})
		}
	}
	for _, st := range []string{"memory", "sqlite", "postgres"} {
		for _, test := range []string{"TestContentStoreKit", "TestDurableStateStoreKit", "TestReadModelStoreKit"} {
			out = append(out, spec.Check{ID: "stores/" + st + "/" + test, Kind: spec.KindTest,
				Clauses: []string{"S10.kits.reference-impls", "S7.plugin.pinned"}, Where: "reference/stores/" + st + ":" + test})
		}
	}
	out = append(out,
		spec.Check{ID: "stores/sharded/kit", Kind: spec.KindTest, Clauses: []string{"S10.kits.reference-impls", "S7.spi.versioned-kit"},
			Where: "reference/stores/sharded:TestShardedMemoryPassesEventStoreKit"},
		spec.Check{ID: "stores/sharded/sealing-agree", Kind: spec.KindTest, Clauses: []string{"S7.es.sealing-sharded-agree", "S7.es.sealing-forwarded"},
			Where: "reference/stores/sharded:TestSealingOnlyWhenEveryShardAgrees"},
		spec.Check{ID: "stores/sqlite/snapshots-out-of-band", Kind: spec.KindTest, Clauses: []string{"S3.snapshot.out-of-band"},
			Where: "reference/stores/sqlite:TestSnapshotsOutOfBand"},
		spec.Check{ID: "stores/sqlite/kill-9", Kind: spec.KindTest, Clauses: []string{"I-NET-22"},
			Where: "reference/stores/sqlite:TestAcknowledgedAppendsSurviveKill"},
		spec.Check{ID: "stores/sqlite/wal-bounded", Kind: spec.KindTest, Clauses: []string{"I-NET-22"},
			Where: "reference/stores/sqlite:TestWALStaysBounded"},
		spec.Check{ID: "stores/postgres/store-now-database-time", Kind: spec.KindTest, Clauses: []string{"S7.es.store-now"},
			Where: "reference/stores/postgres:TestStoreNowIsDatabaseTime"},
		spec.Check{ID: "stores/kits-on-reference-impls", Kind: spec.KindTest, Clauses: []string{"S10.kits.reference-impls"},
			Where: "reference/stores:TestKitsRunOnReferenceStores"},
	)
	return out
}
