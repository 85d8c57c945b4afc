package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

func TestEventStoreKit(t *testing.T) {
	kits.EventStore(t, func(context.Context) (spi.EventStore, func(), error) {
		return memory.NewEventStoreWithClock(time.Now), nil, nil
	})
}

func TestSnapshotStoreKit(t *testing.T) {
	kits.SnapshotStore(t, func(context.Context) (spi.SnapshotStore, func(), error) { return memory.NewSnapshotStore(), nil, nil })
}

func TestArchiveStoreKit(t *testing.T) {
	kits.ArchiveStore(t, func(context.Context) (spi.ArchiveStore, func(), error) { return memory.NewArchiveStore(), nil, nil })
}

func TestBranchRegistryKit(t *testing.T) {
	kits.BranchRegistry(t, func(context.Context) (spi.BranchRegistry, func(), error) { return memory.NewBranchRegistry(), nil, nil })
}

func TestValuesAreCopied(t *testing.T) {
	ctx := context.Background()
	s := memory.NewEventStore()
	e := spi.Envelope{ID: "a", ExecutionID: "x", Payload: []byte(`{"n":1}`)}
	if err := s.Append(ctx, "x", []spi.Envelope{e}, spi.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	e.Payload[2] = 'm'
	got, _ := s.Read(ctx, "x")
	got[0].Payload[2] = 'z'
	again, _ := s.Read(ctx, "x")
	if string(again[0].Payload) != `{"n":1}` {
		t.Fatalf("Read(x) payload = %s after callers wrote to their copies, want {\"n\":1}", again[0].Payload)
	}
}

// A single-process store offers storeNow only when given a clock (spec §7: otherwise callers fall
// back to their injected clock).
func TestStoreNowOnlyWithAClock(t *testing.T) {
	if spi.Has("EventStore", memory.NewEventStore(), spi.MethodStoreNow) {
		t.Error("Has(NewEventStore(), storeNow) = true, want false")
	}
	fixed := time.UnixMilli(1_767_225_600_000)
	s := memory.NewEventStoreWithClock(func() time.Time { return fixed })
	if !spi.Has("EventStore", s, spi.MethodStoreNow) {
		t.Fatal("Has(NewEventStoreWithClock, storeNow) = false, want true")
	}
	if got, err := s.StoreNow(context.Background()); err != nil || got != fixed.UnixMilli() {
		t.Fatalf("StoreNow() = %d, %v, want %d", got, err, fixed.UnixMilli())
	}
	if _, err := memory.NewEventStore().StoreNow(context.Background()); err == nil {
		t.Fatal("StoreNow() without a clock = nil error, want unsupported")
	}
}

func TestContentStoreKit(t *testing.T) {
	kits.ContentStore(t, func(context.Context) (spi.ContentStore, func(), error) { return memory.NewContentStore(), nil, nil })
}

func TestDurableStateStoreKit(t *testing.T) {
	kits.DurableStateStore(t, func(context.Context) (spi.DurableStateStore, func(), error) {
		return memory.NewDurableStateStore(), nil, nil
	})
}

func TestReadModelStoreKit(t *testing.T) {
	kits.ReadModelStore(t, func(context.Context) (spi.ReadModelStore, func(), error) { return memory.NewReadModelStore(), nil, nil })
}
