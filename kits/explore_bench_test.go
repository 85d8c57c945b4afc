package kits_test

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	memdispatch "github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// benchExplore runs the seam's exploration, DefaultExplore scripts per iteration, against the
// in-memory reference: the cost of a round is the time per iteration over DefaultExplore (the
// oracle's work and the target's, both in memory; over a bridge the target's calls dominate).
func benchExplore[T any](b *testing.B, kit kits.Kit[T], f kits.Factory[T]) {
	for i := 0; i < b.N; i++ {
		rs, err := kits.Run(context.Background(), kit, f, kits.Options{Run: "^" + kit.Name + "/explore$", Seed: int64(i + 1)})
		if err != nil || len(rs) != 1 || rs[0].Verdict != kits.Pass {
			b.Fatalf("Run(%s/explore) = %v, %v", kit.Name, rs, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*kits.DefaultExplore), "µs/round")
}

func BenchmarkExplore(b *testing.B) {
	b.Run("eventstore", func(b *testing.B) {
		benchExplore(b, kits.EventStoreKit(), func(context.Context) (spi.EventStore, func(), error) { return memory.NewEventStore(), nil, nil })
	})
	b.Run("snapshotstore", func(b *testing.B) {
		benchExplore(b, kits.SnapshotStoreKit(), func(context.Context) (spi.SnapshotStore, func(), error) { return memory.NewSnapshotStore(), nil, nil })
	})
	b.Run("archivestore", func(b *testing.B) {
		benchExplore(b, kits.ArchiveStoreKit(), func(context.Context) (spi.ArchiveStore, func(), error) { return memory.NewArchiveStore(), nil, nil })
	})
	b.Run("branchregistry", func(b *testing.B) {
		benchExplore(b, kits.BranchRegistryKit(), func(context.Context) (spi.BranchRegistry, func(), error) { return memory.NewBranchRegistry(), nil, nil })
	})
	b.Run("contentstore", func(b *testing.B) {
		benchExplore(b, kits.ContentStoreKit(), func(context.Context) (spi.ContentStore, func(), error) { return memory.NewContentStore(), nil, nil })
	})
	b.Run("durablestatestore", func(b *testing.B) {
		benchExplore(b, kits.DurableStateStoreKit(), func(context.Context) (spi.DurableStateStore, func(), error) {
			return memory.NewDurableStateStore(), nil, nil
		})
	})
	b.Run("readmodelstore", func(b *testing.B) {
		benchExplore(b, kits.ReadModelStoreKit(), func(context.Context) (spi.ReadModelStore, func(), error) { return memory.NewReadModelStore(), nil, nil })
	})
	b.Run("dispatcher", func(b *testing.B) {
		benchExplore(b, kits.ExecutionDispatcherKit(), func(context.Context) (spi.ExecutionDispatcher, func(), error) {
			return memdispatch.New(memdispatch.Config{Targets: []string{"cpu", "gpu"}}), nil, nil
		})
	})
}
