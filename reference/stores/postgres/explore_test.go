package postgres_test

import (
	"testing"

	"github.com/loom-kernel/loom-conform/internal/exploretest"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/postgres"
	"github.com/loom-kernel/loom-conform/spi"
)

func TestExploreSeeds(t *testing.T) {
	t.Run("snapshotstore", func(t *testing.T) {
		exploretest.Seeds(t, kits.SnapshotStoreKit(), factory(t, func(d *postgres.DB) spi.SnapshotStore { return d.Snapshots() }))
	})
	t.Run("durablestatestore", func(t *testing.T) {
		exploretest.Seeds(t, kits.DurableStateStoreKit(), factory(t, func(d *postgres.DB) spi.DurableStateStore { return d.DurableState() }))
	})
	t.Run("branchregistry", func(t *testing.T) {
		exploretest.Seeds(t, kits.BranchRegistryKit(), factory(t, func(d *postgres.DB) spi.BranchRegistry { return d.Branches() }))
	})
	t.Run("archivestore", func(t *testing.T) {
		exploretest.Seeds(t, kits.ArchiveStoreKit(), factory(t, func(d *postgres.DB) spi.ArchiveStore { return d.Archive() }))
	})
	t.Run("readmodelstore", func(t *testing.T) {
		exploretest.Seeds(t, kits.ReadModelStoreKit(), factory(t, func(d *postgres.DB) spi.ReadModelStore { return d.ReadModels() }))
	})
	t.Run("contentstore", func(t *testing.T) {
		exploretest.Seeds(t, kits.ContentStoreKit(), factory(t, func(d *postgres.DB) spi.ContentStore { return d.Content() }))
	})
}
