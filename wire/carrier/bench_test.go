package carrier

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
)

// inProcessSteps runs one execution of n echo steps in process and returns the time per step.
func inProcessSteps(tb testing.TB, n int, mount bool) time.Duration {
	store := memory.NewEventStore()
	rt, err := kernel.New(ProfileConfig(store, false, ProfileRings(), kernel.Hooks{}))
	if err != nil {
		tb.Fatal(err)
	}
	if mount {
		c, err := New(rt, store, Options{})
		if err != nil {
			tb.Fatal(err)
		}
		srv := httptest.NewServer(c)
		defer srv.Close()
	}
	args := make([]json.RawMessage, n)
	for i := range args {
		args[i] = json.RawMessage(fmt.Sprintf(`{"task":{"id":"s%d","toolId":"echo"},"input":%d}`, i, i))
	}
	_ = rt.Register(kernel.FlowDef{ID: "bench", Fn: func(c *kernel.Context, _ json.RawMessage) (any, error) {
		for _, a := range args {
			if _, err := c.Call("execute", a); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}})
	start := time.Now()
	if _, err := rt.Start(context.Background(), "bench", "e", nil); err != nil {
		tb.Fatal(err)
	}
	return time.Since(start) / time.Duration(n)
}

// wireSteps drives one execution of n echo steps over loopback HTTP (keep-alive) and returns the
// time per step.
func wireSteps(tb testing.TB, n int) time.Duration {
	store := memory.NewEventStore()
	c, _, err := NewProfile(store, false, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(c)
	defer srv.Close()
	cl := NewClient(srv.URL, time.Minute)
	defer cl.Close()
	ctx := context.Background()
	var a Attached
	if err := cl.Call(ctx, MethodStart, map[string]any{"flowId": "bench", "executionId": "e"}, &a); err != nil {
		tb.Fatal(err)
	}
	d := &Driver{C: cl, ExecutionID: "e", Token: a.Driver}
	start := time.Now()
	for i := 0; i < n; i++ {
		if _, _, err := d.Syscall(ctx, "execute", json.RawMessage(fmt.Sprintf(`{"task":{"id":"s%d","toolId":"echo"},"input":%d}`, i, i))); err != nil {
			tb.Fatal(err)
		}
	}
	return time.Since(start) / time.Duration(n)
}

// BenchmarkWireStep: a wire step (syscall.execute of the echo tool over loopback HTTP,
// keep-alive) against the same step in process, measured in one run. Target: ≥ 5 000 wire
// steps/s; reported as steps/s and the wire/in-process cost ratio.
func BenchmarkWireStep(b *testing.B) {
	n := max(b.N, 200)
	var wire, local time.Duration
	for round := 0; round < 3; round++ { // interleaved rounds: both sides see the same load
		wire += wireSteps(b, n)
		local += inProcessSteps(b, n, false)
	}
	b.ReportMetric(float64(wire.Nanoseconds())/3, "wire-ns/step")
	b.ReportMetric(3*float64(time.Second)/float64(wire.Nanoseconds()), "wire-steps/s")
	b.ReportMetric(float64(local.Nanoseconds())/3, "inprocess-ns/step")
	b.ReportMetric(float64(wire)/float64(local), "wire/inprocess")
}

// BenchmarkG2CarrierMounted: the in-process step cost with a carrier mounted (and no wire client)
// against none, in interleaved rounds of one run (G2: the ratio should stay ≤ 1.05; the in-process
// path does no serialization for the carrier).
func BenchmarkG2CarrierMounted(b *testing.B) {
	n := max(b.N, 500)
	var with, without time.Duration
	for round := 0; round < 5; round++ {
		without += inProcessSteps(b, n, false)
		with += inProcessSteps(b, n, true)
	}
	b.ReportMetric(float64(without.Nanoseconds())/5, "unmounted-ns/step")
	b.ReportMetric(float64(with.Nanoseconds())/5, "mounted-ns/step")
	b.ReportMetric(float64(with)/float64(without), "mounted/unmounted")
}
