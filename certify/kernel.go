package certify

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// KernelKind is the certify kind of a kernel reached over the wire kernel ABI (docs/wire.md).
const KernelKind = "kernel"

// RunKernel certifies a kernel that speaks the wire kernel ABI: it starts the target, waits for
// wire.handshake, runs the kernel kit (carrier.KernelKit: the handshake and derived method table,
// the wire's flow scripts and every golden flow script the wire can express against their in-process runs, the ring refusals, forged facts, fencing, the
// reconnect contract) and returns the same report as a store certification. The error is for bad
// configuration only; a kernel that fails is a report that is not certified.
func RunKernel(ctx context.Context, target Target, cfg Config) (*Report, error) {
	cfg = cfg.withDefaults()
	if cfg.Run != "" {
		if _, err := regexp.Compile(cfg.Run); err != nil {
			return nil, fmt.Errorf("--run %q: %v", cfg.Run, err)
		}
	}
	rep := &Report{
		Tool: Tool{Name: "loom-conform", Version: cfg.ToolVersion},
		Spec: map[string]string{"kernelAbi": manifest.KernelAbiVersion, "eventSchema": manifest.EventSchemaVersion,
			"wireAbi": manifest.WireAbiVersion},
		Spi:   map[string]string{},
		Kinds: []string{KernelKind}, Target: target.Describe(), Started: time.Now().UTC(),
		Options: RunOptions{Run: cfg.Run, TimeoutMs: ms(cfg.Timeout), Seed: cfg.Seed},
	}
	if cfg.Ledger != nil {
		rep.Options.Ledger = cfg.Ledger.File
	}
	start := time.Now()
	defer func() { rep.DurationMs = ms(time.Since(start)) }()
	rep.Seams = []SeamVerdict{{Seam: "wire kernel ABI", Kit: KernelKind, SpiVersion: manifest.WireAbiVersion, Current: manifest.WireAbiVersion}}
	var filter *regexp.Regexp
	if cfg.Run != "" {
		filter = regexp.MustCompile(cfg.Run)
	}
	var leftOut []spec.Level
	for _, ch := range carrier.KernelKit().Checks {
		if filter != nil && !filter.MatchString(ch.ID) {
			leftOut = append(leftOut, ch.Level)
		}
	}
	conclude := func() *Report {
		Conclude(rep, cfg.Ledger, cfg.Now(), leftOut)
		return rep
	}

	sctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	running, err := target.Start(sctx)
	cancel()
	if running != nil {
		defer func() { _ = running.Stop(context.Background()) }()
		rep.Target = running.Identity
	}
	if err != nil {
		rep.TargetError = fmt.Sprintf("the target did not start: %v", err)
		return conclude(), nil
	}
	cl := carrier.NewClient(running.URL, cfg.Timeout)
	cl.Token = cfg.Token
	if running.Token != "" {
		cl.Token = running.Token
	}
	defer cl.Close()
	if err := waitWireHandshake(ctx, cl, cfg.StartTimeout); err != nil {
		rep.TargetError = fmt.Sprintf("no wire.handshake within %v: %v", cfg.StartTimeout, err)
		return conclude(), nil
	}
	rep.Seams[0].Served = true
	factory := func(context.Context) (*carrier.Client, func(), error) { return cl, nil, nil }
	results, err := kits.Run(ctx, carrier.KernelKit(), factory, kits.Options{Run: cfg.Run, Timeout: cfg.Timeout, Seed: cfg.Seed, SpiVersion: "1.0.0"})
	if err != nil {
		return nil, err
	}
	for _, r := range results {
		c := CheckResult{Kit: KernelKind, ID: r.CheckID, Clauses: r.Clauses, Level: r.Level, Verdict: r.Verdict,
			DurationMs: ms(r.Duration), Message: r.Message, Seed: cfg.Seed,
			Repro: fmt.Sprintf("%s certify kernel %s --run %s --seed %d", cfg.Command, rep.Target.Flag, shq.Quote("^"+regexp.QuoteMeta(r.CheckID)+"$"), cfg.Seed)}
		rep.Checks = append(rep.Checks, c)
		fmt.Fprintf(cfg.Progress, "%-8s %s\n", c.Verdict, c.ID)
	}
	return conclude(), nil
}

// waitWireHandshake asks for wire.handshake until it answers or timeout passes.
func waitWireHandshake(ctx context.Context, cl *carrier.Client, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		var hs carrier.Handshake
		err := cl.Call(hctx, carrier.MethodHandshake, map[string]any{}, &hs)
		cancel()
		var ce *carrier.CallError
		if err == nil || errors.As(err, &ce) {
			return nil // an error answer is an answer; the handshake check judges it
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
