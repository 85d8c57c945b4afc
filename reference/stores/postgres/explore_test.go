package postgres_test

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/spi"
)

// exploreSeeds runs the seam's exploration with seeds 1..20 against the store: the reference
// SQLite store answers as the in-memory reference does on every script.
func exploreSeeds[T any](t *testing.T, kit kits.Kit[T], f kits.Factory[T]) {
	t.Helper()
	for seed := int64(1); seed <= 20; seed++ {
		rs, err := kits.Run(context.Background(), kit, f, kits.Options{Run: "^" + kit.Name + "/explore$", Seed: seed})
		if err != nil || len(rs) != 1 {
			t.Fatalf("Run(%s/explore) = %d results, %v", kit.Name, len(rs), err)
		}
		if rs[0].Verdict != kits.Pass {
			t.Errorf("seed %d: %s/explore = %s: %s", seed, kit.Name, rs[0].Verdict, rs[0].Message)
		}
	}
}

func TestExploreSeeds(t *testing.T) {
	t.Run("snapshotstore", func(t *testing.T) {
		exploreSeeds(t, kits.SnapshotStoreKit(), factory(t, func(d *postgres.DB) spi.SnapshotStore { return d.Snapshots() }))
	})
	t.Run("durablestatestore", func(t *testing.T) {
		exploreSeeds(t, kits.DurableStateStoreKit(), factory(t, func(d *postgres.DB) spi.DurableStateStore { return d.DurableState() }))
	})
	t.Run("branchregistry", func(t *testing.T) {
		exploreSeeds(t, kits.BranchRegistryKit(), factory(t, func(d *postgres.DB) spi.BranchRegistry { return d.Branches() }))
	})
	t.Run("archivestore", func(t *testing.T) {
		exploreSeeds(t, kits.ArchiveStoreKit(), factory(t, func(d *postgres.DB) spi.ArchiveStore { return d.Archive() }))
	})
	t.Run("readmodelstore", func(t *testing.T) {
		exploreSeeds(t, kits.ReadModelStoreKit(), factory(t, func(d *postgres.DB) spi.ReadModelStore { return d.ReadModels() }))
	})
	t.Run("contentstore", func(t *testing.T) {
		exploreSeeds(t, kits.ContentStoreKit(), factory(t, func(d *postgres.DB) spi.ContentStore { return d.Content() }))
	})
}
