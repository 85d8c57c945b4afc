package fitness

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/loom-kernel/loom-conform/internal/loggen"
	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// Workload builds a fresh ratio pair. Options lets a test break the measured side (a kernel
// mutant) without touching the registry.
type Workload func(o WorkloadOptions) (Pair, error)

// WorkloadOptions are the knobs a workload accepts.
type WorkloadOptions struct {
	// Hooks are set on the B side's kernel (mutants; never outside tests).
	Hooks kernel.Hooks
	// Root is the main module's directory, where the command-line workloads build loom-conform
	// (default: Options.Root).
	Root string
	// BuildTags are given to the command-line workloads' build of loom-conform (mutants; never
	// outside tests).
	BuildTags string
}

// Workloads returns the ratio workloads by name.
func Workloads() map[string]Workload {
	return map[string]Workload{
		"g2-unwired":       g2Unwired,
		"fold-vs-decode":   foldVsDecode,
		"kernel-vs-direct": kernelVsDirect,
		"cli-start":        cliStart,
		"cli-fold-pairs":   cliFold("pairs"),
		"cli-fold-mix":     cliFold("mix"),
	}
}

// tenSteps is the flow the kernel workloads run: ten echo steps and one flow-level emit.
func tenSteps(c *kernel.Context, _ json.RawMessage) (any, error) {
	eff := func(_ *kernel.EffectContext, in json.RawMessage) (any, error) { return in, nil }
	for i := range 10 {
		if _, err := c.Run("s"+strconv.Itoa(i), eff, i); err != nil {
			return nil, err
		}
	}
	return nil, c.Emit("done", 1)
}

// startLoop returns a unit of work: start one fresh execution of tenSteps on rt.
func startLoop(rt *kernel.Runtime, prefix string) func() error {
	n := 0
	return func() error {
		n++
		res, err := rt.Start(context.Background(), "ten", prefix+strconv.Itoa(n), nil)
		if err != nil {
			return err
		}
		if res.Status != "completed" {
			return fmt.Errorf("execution %s%d ended %s", prefix, n, res.Status)
		}
		return nil
	}
}

func newRuntime(cfg kernel.Config, prefix string) (*kernel.Runtime, error) {
	cfg.Store = memory.NewEventStore()
	cfg.Now = kernel.FixedClock(0, 1)
	cfg.NewID = kernel.SequentialIDs(prefix)
	cfg.Warn = func(kernel.Warning) {}
	rt, err := kernel.New(cfg)
	if err != nil {
		return nil, err
	}
	return rt, rt.Register(kernel.FlowDef{ID: "ten", Fn: tenSteps})
}

// UnwiredConfig is the kernel configuration of spec §1 G2's "configured but unwired" side: every
// optional feature present and doing nothing — a budget with no caps, a timer store with nothing
// due, every Wave 2 flag on with no Wave 2 syscall called. (The wire carrier is mounted on top by
// the g2-unwired workload.)
func UnwiredConfig() kernel.Config {
	return kernel.Config{
		Budget:   kernel.Budget{},
		Timers:   kernel.NewMemoryTimers(),
		Features: kernel.Features{ContinueAsNew: true, Receive: true, Select: true},
	}
}

// g2Unwired: A is a kernel without options, B the same kernel with every option configured and
// unwired and the wire ABI carrier mounted on loopback with no client (spec §1 G2, §10
// relative-ratio bench gate; ADR 0026: in-process callers pay no wire tax). Reset replaces both
// kernels (and their stores) with fresh ones, so the stores do not grow over a measurement; Close
// stops the carrier.
func g2Unwired(o WorkloadOptions) (Pair, error) {
	var a, b func() error
	var mounted io.Closer
	fresh := func() error {
		if mounted != nil {
			if err := mounted.Close(); err != nil {
				return err
			}
			mounted = nil
		}
		plain, err := newRuntime(kernel.Config{}, "p")
		if err != nil {
			return err
		}
		cfg := UnwiredConfig()
		cfg.Hooks = o.Hooks
		unwired, err := newRuntime(cfg, "u")
		if err != nil {
			return err
		}
		if mounted, err = carrier.Mount(unwired); err != nil {
			return err
		}
		a, b = startLoop(plain, "p"), startLoop(unwired, "u")
		return nil
	}
	if err := fresh(); err != nil {
		return Pair{}, err
	}
	return Pair{
		A:     func() error { return a() },
		B:     func() error { return b() },
		Reset: fresh,
		Close: func() error {
			if mounted == nil { // a failed Reset closed it already
				return nil
			}
			return mounted.Close()
		},
	}, nil
}

// kernelVsDirect: A calls a cheap real effect (hashing 8 KiB four times) ten times directly, B
// runs the same ten calls as kernel steps: start -> 10 steps -> complete. Reset gives B a fresh
// kernel and store.
func kernelVsDirect(WorkloadOptions) (Pair, error) {
	eff := func(_ *kernel.EffectContext, in json.RawMessage) (any, error) { return hashWork(in), nil }
	flow := kernel.FlowDef{ID: "ten", Fn: func(c *kernel.Context, _ json.RawMessage) (any, error) {
		var last json.RawMessage
		for i := range 10 {
			out, err := c.Run("s"+strconv.Itoa(i), eff, i)
			if err != nil {
				return nil, err
			}
			last = out
		}
		return last, nil
	}}
	var b func() error
	fresh := func() error {
		cfg := kernel.Config{Store: memory.NewEventStore(), Now: kernel.FixedClock(0, 1), NewID: kernel.SequentialIDs("k"), Warn: func(kernel.Warning) {}}
		rt, err := kernel.New(cfg)
		if err != nil {
			return err
		}
		if err := rt.Register(flow); err != nil {
			return err
		}
		b = startLoop(rt, "k")
		return nil
	}
	if err := fresh(); err != nil {
		return Pair{}, err
	}
	direct := func() error {
		for i := range 10 {
			raw, err := json.Marshal(i)
			if err != nil {
				return err
			}
			_ = hashWork(raw)
		}
		return nil
	}
	return Pair{A: direct, B: func() error { return b() }, Reset: fresh}, nil
}

// hashWork is a fixed, deterministic piece of effect work: hashing 8 KiB four times.
func hashWork(in []byte) string {
	buf := make([]byte, 8192)
	copy(buf, in)
	sum := sha256.Sum256(buf)
	for range 3 {
		copy(buf, sum[:])
		sum = sha256.Sum256(buf)
	}
	return fmt.Sprintf("%x", sum[:4])
}

// foldVsDecode: A decodes a 10 000-envelope log, B decodes and folds the same bytes; a batch holds
// several logs' worth of collections (4 ms held about one log: on a machine whose fresh pages are
// dear, the A/A noise passed 0.10 after 210 rounds and the gate was unknown).
func foldVsDecode(WorkloadOptions) (Pair, error) {
	raw := loggen.Pairs(10_000)
	return Pair{
		A:        func() error { _, err := fold.DecodeLogBytes(raw); return err },
		B:        func() error { _, err := fold.FoldBytes(fold.Current(), nil, raw); return err },
		WithGC:   true,
		MinBatch: 40 * time.Millisecond,
	}, nil
}
