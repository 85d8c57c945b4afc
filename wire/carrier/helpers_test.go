package carrier

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// served mounts a carrier of the conformance profile (deterministic clock and ids) on a memory
// store behind an HTTP test server.
func served(t testing.TB, opts Options) (*Client, *Carrier, *kernel.Runtime, spi.EventStore) {
	t.Helper()
	store := memory.NewEventStore()
	c, rt, err := NewProfile(store, true, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	cl := NewClient(srv.URL, 20*time.Second)
	t.Cleanup(cl.Close)
	return cl, c, rt, store
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func flow(t testing.TB, id string) clients.Flow {
	t.Helper()
	fs, err := clients.Flows()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no flow %q in wire/clients/flows.json", id)
	return clients.Flow{}
}

// inProcess runs every flow in process on a fresh deterministic runtime of the profile.
func inProcess(t testing.TB, flows []clients.Flow) map[string]Run {
	t.Helper()
	store := memory.NewEventStore()
	rt, err := kernel.New(ProfileConfig(store, true, ProfileRings(), kernel.Hooks{}))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Run{}
	for _, f := range flows {
		r, err := RunInProcess(testCtx(t), rt, store, "wire-"+f.ID, f)
		if err != nil {
			t.Fatalf("in process %s: %v", f.ID, err)
		}
		out[f.ID] = r
	}
	return out
}
