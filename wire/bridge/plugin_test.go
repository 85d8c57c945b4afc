package bridge_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// pluginBridge serves fresh memory plugin-tier stores over a loopback bridge and dials it.
func pluginBridge(t *testing.T) func(ctx context.Context) (*bridge.Client, func(), error) {
	return func(ctx context.Context) (*bridge.Client, func(), error) {
		srv, err := bridge.NewServer(bridge.Stores{
			Implementation: bridge.Implementation{Name: "memory", Version: "test"},
			ContentStore:   memory.NewContentStore(), DurableStateStore: memory.NewDurableStateStore(),
			ReadModelStore: memory.NewReadModelStore(),
		}, bridge.ServerOptions{})
		if err != nil {
			return nil, nil, err
		}
		url, stop, err := bridge.Start("127.0.0.1:0", srv)
		if err != nil {
			return nil, nil, err
		}
		c, err := bridge.Dial(ctx, url, bridge.ClientOptions{})
		if err != nil {
			stop()
			return nil, nil, err
		}
		return c, func() { c.Close(); stop() }, nil
	}
}

func noFaults(t *testing.T, clients []*bridge.Client) {
	t.Helper()
	for _, c := range clients {
		if st := c.Stats(); st.ProtocolErrors != 0 || st.TransportErrors != 0 {
			t.Errorf("Stats() = %+v, want no transport or protocol errors", st)
		}
	}
}

// Every plugin-tier check passes over the wire exactly as in process, putStream in its chunked form.
func TestContentStoreKitOverBridge(t *testing.T) {
	var clients []*bridge.Client
	start := pluginBridge(t)
	kits.ContentStore(t, func(ctx context.Context) (spi.ContentStore, func(), error) {
		c, stop, err := start(ctx)
		if err != nil {
			return nil, nil, err
		}
		clients = append(clients, c)
		return c.ContentStore(), stop, nil
	})
	noFaults(t, clients)
}

func TestDurableStateStoreKitOverBridge(t *testing.T) {
	var clients []*bridge.Client
	start := pluginBridge(t)
	kits.DurableStateStore(t, func(ctx context.Context) (spi.DurableStateStore, func(), error) {
		c, stop, err := start(ctx)
		if err != nil {
			return nil, nil, err
		}
		clients = append(clients, c)
		return c.DurableStateStore(), stop, nil
	})
	noFaults(t, clients)
}

func TestReadModelStoreKitOverBridge(t *testing.T) {
	var clients []*bridge.Client
	start := pluginBridge(t)
	kits.ReadModelStore(t, func(ctx context.Context) (spi.ReadModelStore, func(), error) {
		c, stop, err := start(ctx)
		if err != nil {
			return nil, nil, err
		}
		clients = append(clients, c)
		return c.ReadModelStore(), stop, nil
	})
	noFaults(t, clients)
}

// A stream that is opened and written but never committed leaves nothing visible, and a commit
// whose size disagrees with what was written is refused and aborts the stream.
func TestUncommittedStreamInvisible(t *testing.T) {
	start := pluginBridge(t)
	ctx := context.Background()
	c, stop, err := start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var open struct {
		StreamID string `json:"streamId"`
	}
	if err := c.Call(ctx, "contentStore.streamOpen", map[string]any{}, &open); err != nil {
		t.Fatal(err)
	}
	data := []byte("never committed")
	if err := c.Call(ctx, "contentStore.streamWrite", map[string]any{"streamId": open.StreamID, "offset": 0, "data": data}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ContentStore().Get(ctx, spi.DigestOf(data)); err == nil {
		t.Fatal("Get(written, uncommitted content) = nil error, want not found")
	}
	err = c.Call(ctx, "contentStore.streamWrite", map[string]any{"streamId": open.StreamID, "offset": 3, "data": data}, nil)
	if err == nil {
		t.Fatal("streamWrite(offset 3 after 15 bytes) = nil, want invalid argument")
	}
	var ref spi.ContentRef
	if err := c.Call(ctx, "contentStore.streamCommit", map[string]any{"streamId": open.StreamID, "size": 99}, &ref); err == nil {
		t.Fatalf("streamCommit(size 99 after 15 bytes) = %+v, want invalid argument", ref)
	}
	if err := c.Call(ctx, "contentStore.streamCommit", map[string]any{"streamId": open.StreamID, "size": 15}, &ref); err == nil {
		t.Fatalf("streamCommit(an aborted stream) = %+v, want invalid argument", ref)
	}
	if _, err := c.ContentStore().Get(ctx, spi.DigestOf(data)); err == nil {
		t.Fatal("Get(aborted content) = nil error, want not found")
	}
}

// A stream past the bridge's byte limit is refused with -32008 and aborted: nothing of it shows.
func TestStreamPastLimitRefused(t *testing.T) {
	ctx := context.Background()
	srv, err := bridge.NewServer(bridge.Stores{ContentStore: memory.NewContentStore()}, bridge.ServerOptions{MaxStreamBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	url, stop, err := bridge.Start("127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	c, err := bridge.Dial(ctx, url, bridge.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	data := make([]byte, 1001)
	_, err = c.ContentStore().PutStream(ctx, bytes.NewReader(data))
	var re *bridge.RemoteError
	if !errors.As(err, &re) || re.RPC.Code != bridge.CodeTooLarge {
		t.Fatalf("PutStream(1001 bytes, limit 1000) = %v, want bridge error -32008", err)
	}
	if _, err := c.ContentStore().Get(ctx, spi.DigestOf(data)); !errors.Is(err, spi.ErrNotFound) {
		t.Fatalf("Get(a refused stream) = %v, want not found", err)
	}
	if _, err := c.ContentStore().PutStream(ctx, bytes.NewReader(data[:1000])); err != nil {
		t.Fatalf("PutStream(1000 bytes, limit 1000) = %v, want nil", err)
	}
}
