package kernel

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/reference/stores/memory"
)

// benchWork is the effect body of the benchmarks: a fixed, deterministic piece of work (hashing
// 8 KiB), standing in for a cheap real effect.
func benchWork(in json.RawMessage) (any, error) {
	buf := make([]byte, 8192)
	copy(buf, in)
	sum := sha256.Sum256(buf)
	for range 3 {
		copy(buf, sum[:])
		sum = sha256.Sum256(buf)
	}
	return fmt.Sprintf("%x", sum[:4]), nil
}

func benchRuntime(b *testing.B, snaps bool) (*Runtime, *memory.EventStore) {
	store := memory.NewEventStore()
	cfg := Config{Store: store, Now: FixedClock(0, 1), NewID: SequentialIDs("b"), Warn: func(Warning) {}}
	if snaps {
		cfg.Snapshots = memory.NewSnapshotStore()
	}
	rt, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return rt, store
}

// BenchmarkStartTenSteps: executions/s of start -> 10 steps -> complete on the memory store, and
// the ratio to calling the same ten effects directly, measured interleaved in the same run.
func BenchmarkStartTenSteps(b *testing.B) {
	rt, _ := benchRuntime(b, false)
	eff := func(_ *EffectContext, in json.RawMessage) (any, error) { return benchWork(in) }
	if err := rt.Register(FlowDef{ID: "ten", Fn: func(c *Context, in json.RawMessage) (any, error) {
		var last json.RawMessage
		for i := range 10 {
			out, err := c.Run("s"+itoa(i), eff, i)
			if err != nil {
				return nil, err
			}
			last = out
		}
		return last, nil
	}}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var kernelDur, directDur time.Duration
	var ratios []float64
	n := 0
	for b.Loop() {
		t0 := time.Now()
		res, err := rt.Start(ctx, "ten", fmt.Sprintf("e%d", n), nil)
		k := time.Since(t0)
		kernelDur += k
		if err != nil || res.Status != "completed" {
			b.Fatalf("run: %v %s", err, res.Status)
		}
		t1 := time.Now()
		for i := range 10 {
			raw, _ := json.Marshal(i)
			if _, err := benchWork(raw); err != nil {
				b.Fatal(err)
			}
		}
		d := time.Since(t1)
		directDur += d
		ratios = append(ratios, float64(k)/float64(d))
		n++
	}
	b.ReportMetric(median(ratios), "kernel/direct(median)")
	b.ReportMetric(float64(n)/kernelDur.Seconds(), "executions/s")
	b.ReportMetric(float64(kernelDur)/float64(directDur), "kernel/direct")
	b.ReportMetric(float64(kernelDur-directDur)/float64(n*10)/1e3, "overhead-µs/step")
}

// buildLong writes an execution of n served steps parked on a gate, and returns its runtime.
func buildLong(b *testing.B, n int, snaps bool) *Runtime {
	rt, _ := benchRuntime(b, snaps)
	eff := func(_ *EffectContext, in json.RawMessage) (any, error) { return in, nil }
	if err := rt.Register(FlowDef{ID: "long", Fn: func(c *Context, _ json.RawMessage) (any, error) {
		for i := range n {
			if _, err := c.Run("s"+itoa(i), eff, i); err != nil {
				return nil, err
			}
		}
		return c.Suspend(SuspendConfig{On: "end"})
	}}); err != nil {
		b.Fatal(err)
	}
	if _, err := rt.Start(context.Background(), "long", "x", nil); err != nil {
		b.Fatal(err)
	}
	if snaps {
		if _, err := rt.Snapshot(context.Background(), "x"); err != nil {
			b.Fatal(err)
		}
	}
	return rt
}

// BenchmarkReplay10kFromLogVsSnapshot: rebuilding the state of a 10 000-step execution from the
// whole log and from a recent snapshot (the snapshot bounds the fold), and a full read-only replay
// of the flow (every syscall served) both ways; ratios measured in the same run.
func BenchmarkReplay10kFromLogVsSnapshot(b *testing.B) {
	const n = 10_000
	fromLog := buildLong(b, n, false)
	fromSnap := buildLong(b, n, true)
	ctx := context.Background()
	timed := func(f func() error) time.Duration {
		t := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t)
	}
	var stateRatios, replayRatios []float64
	var stLog, stSnap, drLog time.Duration
	for b.Loop() {
		sl := timed(func() error { _, err := fromLog.State(ctx, "x"); return err })
		ss := timed(func() error { _, err := fromSnap.State(ctx, "x"); return err })
		dl := timed(func() error { _, err := fromLog.Drive(ctx, "x"); return err })
		ds := timed(func() error { _, err := fromSnap.Drive(ctx, "x"); return err })
		stateRatios = append(stateRatios, float64(sl)/float64(ss))
		replayRatios = append(replayRatios, float64(dl)/float64(ds))
		stLog, stSnap, drLog = stLog+sl, stSnap+ss, drLog+dl
	}
	b.ReportMetric(median(stateRatios), "state-log/snapshot(median)")
	b.ReportMetric(median(replayRatios), "replay-log/snapshot(median)")
	b.ReportMetric(float64(stLog)/float64(b.N)/1e6, "state-from-log-ms")
	b.ReportMetric(float64(stSnap)/float64(b.N)/1e6, "state-from-snapshot-ms")
	b.ReportMetric(float64(drLog)/float64(b.N)/1e6, "replay-from-log-ms")
}

// BenchmarkReplayLinear: per-step cost of a full replay at 1 000 and 10 000 steps; a ratio near 1
// shows replay is linear in log length.
func BenchmarkReplayLinear(b *testing.B) {
	small := buildLong(b, 1_000, false)
	large := buildLong(b, 10_000, false)
	ctx := context.Background()
	var ratios []float64
	var ds, dl time.Duration
	for b.Loop() {
		t := time.Now()
		if _, err := small.Drive(ctx, "x"); err != nil {
			b.Fatal(err)
		}
		s := time.Since(t)
		t = time.Now()
		if _, err := large.Drive(ctx, "x"); err != nil {
			b.Fatal(err)
		}
		l := time.Since(t)
		ratios = append(ratios, (float64(l)/10_000)/(float64(s)/1_000))
		ds, dl = ds+s, dl+l
	}
	b.ReportMetric(median(ratios), "per-step-10k/1k(median)")
	b.ReportMetric(float64(ds)/1_000/float64(b.N), "ns/step@1k")
	b.ReportMetric(float64(dl)/10_000/float64(b.N), "ns/step@10k")
}

// BenchmarkG2UnwiredRatio: the same 10-step execution on a plain runtime and on one with every
// option present but unwired — empty budget, effect map and ingress options, no features (spec §1
// G2: zero overhead when disabled), interleaved in one run. A wired SnapshotStore is a wired
// capability (it is read at every load) and is left out.
func BenchmarkG2UnwiredRatio(b *testing.B) {
	plain, _ := benchRuntime(b, false)
	unwiredStore := memory.NewEventStore()
	unwired, err := New(Config{Store: unwiredStore, Now: FixedClock(0, 1), NewID: SequentialIDs("u"), Warn: func(Warning) {},
		Budget: Budget{}, Effects: map[string]EffectDef{}, Ingress: IngressOptions{}, Features: Features{}, Trace: nil})
	if err != nil {
		b.Fatal(err)
	}
	eff := func(_ *EffectContext, in json.RawMessage) (any, error) { return in, nil }
	flow := FlowDef{ID: "ten", Fn: func(c *Context, _ json.RawMessage) (any, error) {
		for i := range 10 {
			if _, err := c.Run("s"+itoa(i), eff, i); err != nil {
				return nil, err
			}
		}
		return nil, c.Emit("done", 1)
	}}
	for _, rt := range []*Runtime{plain, unwired} {
		if err := rt.Register(flow); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	var ratios []float64
	n := 0
	for b.Loop() {
		var dp, du time.Duration
		id := fmt.Sprintf("e%d", n)
		order := []*Runtime{plain, unwired}
		if n%2 == 1 { // alternate the order so GC and cache effects fall on both sides alike
			order = []*Runtime{unwired, plain}
		}
		for _, rt := range order {
			t := time.Now()
			if _, err := rt.Start(ctx, "ten", id, nil); err != nil {
				b.Fatal(err)
			}
			if rt == plain {
				dp = time.Since(t)
			} else {
				du = time.Since(t)
			}
		}
		ratios = append(ratios, float64(du)/float64(dp))
		n++
	}
	b.ReportMetric(median(ratios), "unwired/plain(median)")
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
