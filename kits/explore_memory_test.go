package kits_test

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/internal/exploretest"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

func TestExploreSeedsMemory(t *testing.T) {
	t.Run("snapshotstore", func(t *testing.T) {
		exploretest.Seeds(t, kits.SnapshotStoreKit(), func(context.Context) (spi.SnapshotStore, func(), error) { return memory.NewSnapshotStore(), nil, nil })
	})
	t.Run("durablestatestore", func(t *testing.T) {
		exploretest.Seeds(t, kits.DurableStateStoreKit(), func(context.Context) (spi.DurableStateStore, func(), error) {
			return memory.NewDurableStateStore(), nil, nil
		})
	})
	t.Run("branchregistry", func(t *testing.T) {
		exploretest.Seeds(t, kits.BranchRegistryKit(), func(context.Context) (spi.BranchRegistry, func(), error) { return memory.NewBranchRegistry(), nil, nil })
	})
	t.Run("archivestore", func(t *testing.T) {
		exploretest.Seeds(t, kits.ArchiveStoreKit(), func(context.Context) (spi.ArchiveStore, func(), error) { return memory.NewArchiveStore(), nil, nil })
	})
	t.Run("readmodelstore", func(t *testing.T) {
		exploretest.Seeds(t, kits.ReadModelStoreKit(), func(context.Context) (spi.ReadModelStore, func(), error) { return memory.NewReadModelStore(), nil, nil })
	})
	t.Run("contentstore", func(t *testing.T) {
		exploretest.Seeds(t, kits.ContentStoreKit(), func(context.Context) (spi.ContentStore, func(), error) { return memory.NewContentStore(), nil, nil })
	})
}
