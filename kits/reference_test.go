package kits_test

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

func memoryEvents(ctx context.Context) (spi.EventStore, func(), error) {
	return memory.NewEventStore(), nil, nil
}

func TestMemoryEventStoreKit(t *testing.T) {
	kits.EventStore(t, memoryEvents)
}

func TestMemorySnapshotStoreKit(t *testing.T) {
	kits.SnapshotStore(t, func(ctx context.Context) (spi.SnapshotStore, func(), error) {
		return memory.NewSnapshotStore(), nil, nil
	})
}

func TestMemoryArchiveStoreKit(t *testing.T) {
	kits.ArchiveStore(t, func(ctx context.Context) (spi.ArchiveStore, func(), error) {
		return memory.NewArchiveStore(), nil, nil
	})
}

func TestMemoryBranchRegistryKit(t *testing.T) {
	kits.BranchRegistry(t, func(ctx context.Context) (spi.BranchRegistry, func(), error) {
		return memory.NewBranchRegistry(), nil, nil
	})
}

func TestChecksValid(t *testing.T) {
	if err := spec.Validate(kits.Checks()); err != nil {
		t.Fatal(err)
	}
}
