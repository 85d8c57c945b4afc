package kits_test

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

func memoryEvents(ctx context.Context) (spi.EventStore, func(), error) {
	return memory.NewEventStore(), nil, nil
}

func TestMemoryEventStoreKit(t *testing.T) {
	kits.EventStore(t, memoryEvents)
}
