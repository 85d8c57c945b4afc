package carrier

import (
	"context"
	"net/http/httptest"
	"slices"
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

// script returns the wire's own flow script named name.
func script(t testing.TB, name string) clients.Case {
	t.Helper()
	cs, err := clients.Scripts()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range cs {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("no flow script %q in wire/clients/scripts", name)
	return clients.Case{}
}

// inProcess runs every case in process, in order, on one fresh deterministic runtime of the
// profile with Wave 2 and the conformance extension on (the order the wire run takes, so the fixed
// clock and sequential ids line up).
func inProcess(t testing.TB, prefix string, cases []clients.Case) map[string]Run {
	t.Helper()
	cfg := ProfileConfig(memory.NewEventStore(), true, ProfileRings(), kernel.Hooks{})
	cfg.Features = Wave2()
	var opts Options
	WithConformance(&cfg, &opts)
	rt, err := kernel.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Run{}
	for _, k := range cases {
		clock := slices.Contains(clients.Extension(k.Script, k.Driver), MethodConformanceClock)
		r, err := RunInProcessWith(testCtx(t), rt, cfg.Store, opts.Conformance, clock, prefix+k.Name, k.Script, k.Driver)
		if err != nil {
			t.Fatalf("in process %s: %v", k.Name, err)
		}
		out[k.Name] = r
	}
	return out
}
