package kits_test

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// exploreSeeds runs the seam's exploration with seeds 1..20: a fresh in-memory reference store
// answers as the oracle does on every script (no legal choice is blamed, nothing is flaky).
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

func TestExploreSeedsMemory(t *testing.T) {
	t.Run("snapshotstore", func(t *testing.T) {
		exploreSeeds(t, kits.SnapshotStoreKit(), func(context.Context) (spi.SnapshotStore, func(), error) { return memory.NewSnapshotStore(), nil, nil })
	})
	t.Run("durablestatestore", func(t *testing.T) {
		exploreSeeds(t, kits.DurableStateStoreKit(), func(context.Context) (spi.DurableStateStore, func(), error) {
			return memory.NewDurableStateStore(), nil, nil
		})
	})
	t.Run("branchregistry", func(t *testing.T) {
		exploreSeeds(t, kits.BranchRegistryKit(), func(context.Context) (spi.BranchRegistry, func(), error) { return memory.NewBranchRegistry(), nil, nil })
	})
	t.Run("archivestore", func(t *testing.T) {
		exploreSeeds(t, kits.ArchiveStoreKit(), func(context.Context) (spi.ArchiveStore, func(), error) { return memory.NewArchiveStore(), nil, nil })
	})
	t.Run("readmodelstore", func(t *testing.T) {
		exploreSeeds(t, kits.ReadModelStoreKit(), func(context.Context) (spi.ReadModelStore, func(), error) { return memory.NewReadModelStore(), nil, nil })
	})
	t.Run("contentstore", func(t *testing.T) {
		exploreSeeds(t, kits.ContentStoreKit(), func(context.Context) (spi.ContentStore, func(), error) { return memory.NewContentStore(), nil, nil })
	})
}
