package sqlite_test

import (
	"testing"

	"github.com/loom-kernel/loom-conform/internal/exploretest"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/sqlite"
	"github.com/loom-kernel/loom-conform/spi"
)

func TestExploreSeeds(t *testing.T) {
	t.Run("snapshotstore", func(t *testing.T) {
		exploretest.Seeds(t, kits.SnapshotStoreKit(), open(t, func(d *sqlite.DB) spi.SnapshotStore { return d.Snapshots() }))
	})
	t.Run("durablestatestore", func(t *testing.T) {
		exploretest.Seeds(t, kits.DurableStateStoreKit(), open(t, func(d *sqlite.DB) spi.DurableStateStore { return d.DurableState() }))
	})
	t.Run("branchregistry", func(t *testing.T) {
		exploretest.Seeds(t, kits.BranchRegistryKit(), open(t, func(d *sqlite.DB) spi.BranchRegistry { return d.Branches() }))
	})
	t.Run("archivestore", func(t *testing.T) {
		exploretest.Seeds(t, kits.ArchiveStoreKit(), open(t, func(d *sqlite.DB) spi.ArchiveStore { return d.Archive() }))
	})
	t.Run("readmodelstore", func(t *testing.T) {
		exploretest.Seeds(t, kits.ReadModelStoreKit(), open(t, func(d *sqlite.DB) spi.ReadModelStore { return d.ReadModels() }))
	})
	t.Run("contentstore", func(t *testing.T) {
		exploretest.Seeds(t, kits.ContentStoreKit(), open(t, func(d *sqlite.DB) spi.ContentStore { return d.Content() }))
	})
}
