package certify

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/internal/runfilter"
	"github.com/loom-kernel/loom-conform/internal/shq"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/kernelkit"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// KernelKind is the certify kind of a kernel reached over the wire kernel ABI (docs/wire.md).
const KernelKind = kernelkit.Name

// KernelSeam names the wire kernel ABI in a report's seams.
const KernelSeam = "kernel wire ABI"

// KernelInfo is what a kernel certificate says of the kernel beyond its checks: its handshake
// (implementation, versions, the optional features and methods it advertises) and how fast it
// answers next to the reference kernel on the same machine.
type KernelInfo struct {
	Implementation carrier.Implementation `json:"implementation"`
	Wire           string                 `json:"wire"`
	KernelAbi      string                 `json:"kernelAbi"`
	EventSchema    string                 `json:"eventSchema"`
	// Features are the Wave 2 features the handshake advertises (a syscall of each in its table).
	Features []string `json:"features,omitempty"`
	// Conformance says the kernel serves the conformance extension (conformance.clock, .crash).
	Conformance bool `json:"conformanceExtension"`
}

// RunKernel certifies a kernel that speaks the wire kernel ABI: it starts the target, waits for
// wire.handshake, measures its round trip against the reference kernel's, runs the kernel kit
// (kits/kernelkit: one check per obligation) check by check with progress, applies the ledger and
// returns the same report as a store certification (Kind "certify", mergeable by `report merge`).
// cfg.Run and cfg.Shard select a stable part of the checks: the report is partial. The error is
// for bad configuration only; a kernel that fails is a report that is not certified.
func RunKernel(ctx context.Context, target Target, cfg Config) (*Report, error) {
	cfg = cfg.withDefaults()
	// Bad input is refused before the target starts (I-CERT-32, I-CERT-33).
	filter, err := runfilter.Compile(cfg.Run)
	if err != nil {
		return nil, err
	}
	if err := runfilter.Selects(filter, "check of certify kernel", kernelkit.Kit().Names()); err != nil {
		return nil, err
	}
	if err := cfg.Ledger.Names("check of the kernel kit", func(id string) bool { return slices.Contains(kernelkit.Kit().Names(), id) }); err != nil {
		return nil, err
	}
	rep := &Report{
		Kind: ReportKind, Shard: cfg.Shard.String(),
		Tool: Tool{Name: "loom-conform", Version: cfg.ToolVersion},
		Spec: map[string]string{"kernelAbi": manifest.KernelAbiVersion, "eventSchema": manifest.EventSchemaVersion,
			"wireAbi": manifest.WireAbiVersion},
		Profiles: map[string]string{ProfileKernel: ProfileVersion(ProfileKernel)},
		Spi:      map[string]string{},
		Kinds:    []string{KernelKind}, Target: target.Describe(), Started: time.Now().UTC(),
		Options: RunOptions{Run: cfg.Run, TimeoutMs: ms(cfg.Timeout), Seed: cfg.Seed, Strict: cfg.Strict},
		Seams:   []SeamVerdict{{Seam: KernelSeam, Kit: KernelKind, SpiVersion: manifest.WireAbiVersion, Current: manifest.WireAbiVersion}},
	}
	if cfg.Ledger != nil {
		rep.Options.Ledger = cfg.Ledger.File
	}
	start := time.Now()
	defer func() { rep.DurationMs = ms(time.Since(start)) }()
	kit := kernelkit.Kit()
	var selected []kits.Check[*carrier.Client]
	var leftOut []spec.Level
	for _, ch := range kit.Checks {
		switch {
		case filter != nil && !filter.MatchString(ch.ID):
			leftOut = append(leftOut, ch.Level)
		case cfg.Shard.Includes(ch.ID):
			selected = append(selected, ch)
		}
	}
	conclude := func() *Report {
		Conclude(rep, cfg.Ledger, cfg.Now(), leftOut)
		return rep
	}

	running, err := startTarget(ctx, target, cfg)
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
	// First contact (I-CERT-30): a target that is no kernel is one clear cause, before any check.
	if _, err := (contact{url: running.URL, token: cl.Token, cfg: cfg, flag: target.Describe().Flag}).handshake(ctx, kernelProtocol); err != nil {
		rep.TargetError = err.Error()
		return conclude(), nil
	}
	var hs carrier.Handshake
	if err := cl.Call(ctx, carrier.MethodHandshake, map[string]any{}, &hs); err != nil {
		rep.TargetError = fmt.Sprintf("the target at %s answered wire.handshake, but not with a kernel's handshake: %v (docs/wire.md)", running.URL, err)
		return conclude(), nil
	}
	rep.Seams[0].Served = true
	rep.Kernel = kernelInfo(hs)
	if lat, err := kernelRoundTrip(ctx, cl); err == nil {
		rep.RoundTrip = lat
	}
	contacted(cfg, fmt.Sprintf("kernel %s %s, wire ABI %s", hs.Implementation.Name, hs.Implementation.Version, hs.Wire), rep.RoundTrip)
	k := &kernelRun{cfg: cfg, rep: rep, kit: kit, cl: cl, running: running,
		watch: outageWatch{cfg: cfg, running: running, what: "the kernel at " + cl.URL(),
			probe: func(ctx context.Context) error { return probeKernel(ctx, cl) }}}
	counts := map[kits.Verdict]int{}
	for i, ch := range selected {
		res, judged := k.judge(ctx, ch)
		if !judged {
			// Whose fault (DESIGN §7.1): an outage is the target's verdict, with its one cause.
			rep.TargetError = outageError(k.watch.gone, i, len(selected))
			break
		}
		rep.Checks = append(rep.Checks, res)
		counts[res.Verdict]++
		fmt.Fprintf(cfg.Progress, "%s %-7s %s (%s)%s\n", progressPrefix(i+1, len(selected), counts), res.Verdict, res.ID,
			time.Duration(res.DurationMs*float64(time.Millisecond)).Round(time.Millisecond), progressNote(res))
	}
	if ctx.Err() != nil {
		rep.Problems = append(rep.Problems, fmt.Sprintf("the run was interrupted (%v); the checks it did not finish are unknown", context.Cause(ctx)))
	}
	return conclude(), nil
}

// kernelRun is one certification of a kernel while its checks run.
type kernelRun struct {
	cfg     Config
	rep     *Report
	kit     kits.Kit[*carrier.Client]
	cl      *carrier.Client
	running *Running
	// watch tells verdicts from outages (watch.gone ended the run); dead is why the remaining
	// checks are not run (a kernel that answers probes but leaves check after check without a
	// verdict).
	watch        outageWatch
	dead         string
	unknownInRow int
}

// judge runs one check through the outage rule (outageWatch), as certify.Run does: a pass or a
// skip stands without a probe, and so does a check not run because the kernel was given up on.
func (k *kernelRun) judge(ctx context.Context, ch kits.Check[*carrier.Client]) (CheckResult, bool) {
	return k.watch.judge(ctx, ch.ID, func() (CheckResult, bool) {
		res := k.runCheck(ctx, ch)
		return res, res.Verdict == kits.Pass || res.Verdict == kits.Skip || k.dead != ""
	})
}

func (k *kernelRun) runCheck(ctx context.Context, ch kits.Check[*carrier.Client]) CheckResult {
	res := CheckResult{Kit: KernelKind, ID: ch.ID, Clauses: ch.Clauses, Level: ch.Level, Seed: k.cfg.Seed, Repro: kernelRepro(k.cfg, k.rep, ch.ID)}
	if k.dead != "" {
		res.Verdict, res.Message = kits.Unknown, "not run: "+k.dead
		return res
	}
	cl, trail := kernelkit.Traced(k.cl)
	factory := func(context.Context) (*carrier.Client, func(), error) { return cl, nil, nil }
	opts := kits.Options{Run: "^" + regexp.QuoteMeta(ch.ID) + "$", Timeout: k.cfg.Timeout, Seed: k.cfg.Seed, SpiVersion: "1.0.0", Explore: kernelExplore(k.cfg), Findings: k.cfg.Findings}
	if k.cfg.Replay != nil && k.cfg.Replay.Check == ch.ID {
		opts.Replay = k.cfg.Replay
	}
	results, err := kits.Run(ctx, k.kit, factory, opts)
	if err != nil || len(results) != 1 {
		res.Verdict, res.Message = kits.Unknown, fmt.Sprintf("the kit did not run the check: %v", err)
		return res
	}
	r := results[0]
	res.Verdict, res.Message, res.DurationMs, res.Failed = r.Verdict, r.Message, ms(r.Duration), r.Failed
	res.Finding, res.FindingFile = r.Finding, r.FindingFile
	if r.FindingFile != "" {
		res.Repro += " --replay " + shq.Quote(r.FindingFile) // the finding's own script, not the whole search
	}
	res.Message = explained(res, trail, k.rep.RoundTrip)
	if res.Verdict == kits.Unknown {
		k.unknownInRow++
		if k.unknownInRow >= k.cfg.DeadAfter {
			k.dead = fmt.Sprintf("%d checks in a row ended unknown (the last: %s) although the kernel still answers; it is treated as unresponsive", k.unknownInRow, ch.ID)
		}
	} else {
		k.unknownInRow = 0
	}
	return res
}

// explained adds to a failure or an unknown what a kernel author needs to act on it without reading
// the kit's source: a check cut short by its time limit names its slowest call and the kernel's
// round trips (I-CERT-51), and every failure and unknown ends with the check's setup — its calls
// to the kernel, oldest first, with their answers (I-CERT-50).
func explained(res CheckResult, trail *kernelkit.Trail, rt *Latency) string {
	if res.Verdict != kits.Fail && res.Verdict != kits.Unknown {
		return res.Message
	}
	msg := res.Message
	if res.Verdict == kits.Unknown && strings.Contains(msg, "time limit") {
		note := trail.Slowest()
		if m := trail.Median(); m > 0 {
			note += fmt.Sprintf("; the median call of this check took %s", m.Round(10*time.Microsecond))
		}
		if rt != nil {
			note += fmt.Sprintf("; the kernel's median round trip before the checks was %.2f ms (the reference kernel's %.2f ms)", rt.MedianMs, rt.ReferenceMs)
		}
		msg += "\n" + note + ": a kernel this slow, or a machine this loaded, needs a longer --timeout"
	}
	if s := trail.Setup(); s != "" {
		msg += "\n" + s
	}
	return msg
}

// kernelInfo is the certificate's account of a kernel's handshake.
func kernelInfo(hs carrier.Handshake) *KernelInfo {
	k := &KernelInfo{Implementation: hs.Implementation, Wire: hs.Wire, KernelAbi: hs.KernelAbi, EventSchema: hs.EventSchema}
	for _, s := range hs.Syscalls {
		if s.Feature != "" && !slices.Contains(k.Features, s.Feature) {
			k.Features = append(k.Features, s.Feature)
		}
	}
	for _, m := range hs.Methods {
		k.Conformance = k.Conformance || m.Feature == carrier.FeatureConformance
	}
	return k
}

// kernelRepro is the command that re-runs one check of this run: the same target, seed and time
// limit, every part shell-quoted.
func kernelRepro(cfg Config, rep *Report, id string) string {
	explore := ""
	if cfg.Explore > 0 && id == kernelkit.ExploreCheck {
		explore = fmt.Sprintf(" --explore %d", cfg.Explore)
	}
	return fmt.Sprintf("%s certify kernel %s --run %s --seed %d%s --timeout %s", cfg.Command, rep.Target.Flag,
		shq.Quote("^"+regexp.QuoteMeta(id)+"$"), cfg.Seed, explore, cfg.Timeout)
}

// kernelExplore is how many flow scripts kernel/explore drives: --explore, or the kernel kit's
// default, sized for certify kernel's wall-time budget.
func kernelExplore(cfg Config) int {
	if cfg.Explore > 0 {
		return cfg.Explore
	}
	return kernelkit.DefaultExplore
}

// probeKernel asks for the handshake with a short deadline: a kernel that answers is alive (a slow
// check alone does not end the run).
func probeKernel(ctx context.Context, cl *carrier.Client) error {
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	err := cl.Call(pctx, carrier.MethodHandshake, map[string]any{}, nil)
	var ce *carrier.CallError
	if errors.As(err, &ce) {
		return nil
	}
	return err
}
