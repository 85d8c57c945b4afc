package carrier

import (
	"context"
	"github.com/loom-kernel/loom-conform/internal/proof"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

func runKit(t *testing.T, c *Carrier) map[string]kits.Result {
	t.Helper()
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	cl := NewClient(srv.URL, 20*time.Second)
	t.Cleanup(cl.Close)
	factory := func(context.Context) (*Client, func(), error) { return cl, nil, nil }
	res, err := kits.Run(testCtx(t), KernelKit(), factory, kits.Options{SpiVersion: "1.0.0", Seed: 7, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]kits.Result{}
	for _, r := range res {
		out[r.CheckID] = r
	}
	return out
}

// The reference kernel behind the carrier passes every check of the kernel kit, with its Wave 2
// features off and on (on, kernel/goldens also drives the Wave 2 goldens, I-WIRE-21).
func TestReferenceKernelPassesKit(t *testing.T) {
	for name, f := range map[string]kernel.Features{"wave1": {}, "wave2": Wave2()} {
		t.Run(name, func(t *testing.T) {
			c, _, err := NewProfile(memory.NewEventStore(), true, Options{Features: f})
			if err != nil {
				t.Fatal(err)
			}
			res := runKit(t, c)
			if len(res) != len(KernelKit().Checks) {
				t.Fatalf("ran %d checks, want %d", len(res), len(KernelKit().Checks))
			}
			for id, r := range res {
				if r.Verdict != kits.Pass {
					t.Errorf("%s: %s %s", id, r.Verdict, r.Message)
				}
			}
		})
	}
}

// With Wave 2 on, kernel/goldens drives the continueAsNew, receive and select goldens; off, it
// leaves them out (I-WIRE-21).
func TestWave2GoldensAdvertised(t *testing.T) {
	all, _, err := WireGoldens()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f    kernel.Features
		want int
	}{{kernel.Features{}, 0}, {Wave2(), 3}} {
		c, _, err := NewProfile(memory.NewEventStore(), true, Options{Features: tc.f})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, k := range Advertised(all, c.Handshake()) {
			if len(clients.Features(k.Script, k.Driver)) > 0 {
				n++
			}
		}
		if n != tc.want {
			t.Errorf("wire/wave2-goldens [I-WIRE-21]: Advertised(goldens, features %+v) = %d Wave 2 goldens, want %d", tc.f, n, tc.want)
		}
	}
}

// Every broken kernel is rejected by the check meant for it (I-WIRE-8).
func TestBrokenKernelsRejected(t *testing.T) {
	for _, b := range BrokenKernels() {
		t.Run(b.Name, func(t *testing.T) {
			c, err := NewBroken(b.Name, memory.NewEventStore(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			res := runKit(t, c)
			r, ok := res[b.CaughtBy]
			if !ok {
				t.Fatalf("check %s did not run", b.CaughtBy)
			}
			if r.Verdict != kits.Fail {
				t.Errorf("kernel/%s: %s = %s, want fail (%s)", b.Name, b.CaughtBy, r.Verdict, b.Defect)
				return
			}
			t.Logf("%s rejects it: %s", b.CaughtBy, r.Message)
			proof.Rejected(t, "kernel/wire/"+b.Name, b.CaughtBy, r.Message)
		})
	}
}
