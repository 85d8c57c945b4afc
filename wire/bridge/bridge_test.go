package bridge_test

import (
	"context"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

func startMemory() (*bridge.Client, func(), error) {
	srv, err := bridge.NewServer(bridge.Stores{
		Implementation: bridge.Implementation{Name: "memory", Version: "test"},
		EventStore:     memory.NewEventStore(), SnapshotStore: memory.NewSnapshotStore(),
		ArchiveStore: memory.NewArchiveStore(), BranchRegistry: memory.NewBranchRegistry(),
	}, bridge.ServerOptions{})
	if err != nil {
		return nil, nil, err
	}
	url, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		return nil, nil, err
	}
	c, err := bridge.Dial(context.Background(), url, bridge.ClientOptions{})
	if err != nil {
		stop()
		return nil, nil, err
	}
	return c, func() { c.Close(); stop() }, nil
}

// memoryBridge serves fresh memory stores over a loopback bridge and dials it.
func memoryBridge(t testing.TB) *bridge.Client {
	t.Helper()
	srv, err := bridge.NewServer(bridge.Stores{
		Implementation: bridge.Implementation{Name: "memory", Version: "test"},
		EventStore:     memory.NewEventStore(), SnapshotStore: memory.NewSnapshotStore(),
		ArchiveStore: memory.NewArchiveStore(), BranchRegistry: memory.NewBranchRegistry(),
	}, bridge.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	url, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	c, err := bridge.Dial(context.Background(), url, bridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// Every EventStore check passes over the wire exactly as in process (a fresh bridge per check).
func TestEventStoreKitOverBridge(t *testing.T) {
	var clients []*bridge.Client
	kits.EventStore(t, func(ctx context.Context) (spi.EventStore, func(), error) {
		c, stop, err := startMemory()
		if err != nil {
			return nil, nil, err
		}
		clients = append(clients, c)
		return c.EventStore(), stop, nil
	})
	for _, c := range clients {
		if st := c.Stats(); st.ProtocolErrors != 0 || st.TransportErrors != 0 {
			t.Errorf("Stats() = %+v, want no transport or protocol errors", st)
		}
	}
}
