package carrier

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/internal/cputime"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
)

// cost is what a run of steps took: wall time and the CPU time of the whole process (the wire
// benchmark's client and server both run in it).
type cost struct{ wall, cpu time.Duration }

func (c *cost) add(o cost) { c.wall += o.wall; c.cpu += o.cpu }

// inProcessSteps runs one execution of n echo steps in process and returns the time per step.
func inProcessSteps(tb testing.TB, n int, mount bool) time.Duration {
	return inProcessCost(tb, n, mount).wall
}

// inProcessCost runs one execution of n echo steps in process and returns its cost per step.
func inProcessCost(tb testing.TB, n int, mount bool) cost {
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
	runtime.GC()
	start, cpu := time.Now(), cputime.Process()
	if _, err := rt.Start(context.Background(), "bench", "e", nil); err != nil {
		tb.Fatal(err)
	}
	return cost{time.Since(start) / time.Duration(n), (cputime.Process() - cpu) / time.Duration(n)}
}

// wireSteps drives one execution of n echo steps over loopback HTTP (keep-alive) and returns its
// cost per step.
func wireSteps(tb testing.TB, n int) cost {
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
	args := make([]json.RawMessage, n)
	for i := range args {
		args[i] = json.RawMessage(fmt.Sprintf(`{"task":{"id":"s%d","toolId":"echo"},"input":%d}`, i, i))
	}
	runtime.GC()
	start, cpu := time.Now(), cputime.Process()
	for _, a := range args {
		if _, _, err := d.Syscall(ctx, "execute", a); err != nil {
			tb.Fatal(err)
		}
	}
	return cost{time.Since(start) / time.Duration(n), (cputime.Process() - cpu) / time.Duration(n)}
}

// BenchmarkWireStep: a wire step (syscall.execute of the echo tool over loopback HTTP,
// keep-alive, the kernel appending to a memory store) against the same step in process, measured
// in one run. Target: ≥ 5 000 wire steps/s; reported as steps per wall second and per CPU second
// of the process (client, server and kernel all run in it, so a step's CPU covers both ends of
// the wire) and the wire/in-process cost ratios.
func BenchmarkWireStep(b *testing.B) {
	n := max(b.N, 200)
	const rounds = 3
	var wire, local cost
	for round := 0; round < rounds; round++ { // interleaved rounds: both sides see the same load
		wire.add(wireSteps(b, n))
		local.add(inProcessCost(b, n, false))
	}
	b.ReportMetric(float64(wire.wall.Nanoseconds())/rounds, "wire-ns/step")
	b.ReportMetric(rounds*float64(time.Second)/float64(wire.wall.Nanoseconds()), "wire-steps/s")
	b.ReportMetric(float64(local.wall.Nanoseconds())/rounds, "inprocess-ns/step")
	b.ReportMetric(float64(wire.wall)/float64(local.wall), "wire/inprocess")
	if wire.cpu > 0 && local.cpu > 0 {
		b.ReportMetric(rounds*float64(time.Second)/float64(wire.cpu.Nanoseconds()), "wire-steps/cpu-s")
		b.ReportMetric(rounds*float64(time.Second)/float64(local.cpu.Nanoseconds()), "inprocess-steps/cpu-s")
		b.ReportMetric(float64(wire.cpu)/float64(local.cpu), "wire/inprocess-cpu")
	}
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
