package kits

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// Options configure a kit run. The zero value is usable: every check, DefaultTimeout each, the
// current SPI version, a time-based seed.
type Options struct {
	// Run, when non-empty, is a regular expression a check id must match to run.
	Run string
	// Timeout bounds each check (target creation included); past it (plus a short grace for the
	// check to notice) the verdict is unknown.
	Timeout time.Duration
	// SpiVersion is the highest SPI version of the seam to hold the target to; checks of later
	// versions are skipped. "" = the manifest's current version. A target that claims an older
	// version is held to its claim.
	SpiVersion string
	// Seed seeds every randomised check; 0 picks one from the clock (printed in each Result).
	Seed int64
	// Explore is how many scripts each exploration check (*/explore) applies to the target and to
	// the reference; 0 = DefaultExplore. Work, not time, so a run does the same work on any machine.
	Explore int
	// Findings, when set, is a directory every exploration check writes its finding to, as a
	// replayable script file named <check>-<seed>-<round>.json (explore.Finding.File).
	Findings string
	// Replay, when set, runs only the exploration check that made the script (Script.Check), on
	// that one script and unshrunk: its failure is the same disagreement, or it passes when the
	// target no longer disagrees (explore.ParseScript reads a findings file).
	Replay *explore.Script
	// Strict holds the target to the recommended checks too, as certify --strict does: under RunT a
	// recommendation not met then fails its subtest. Run reports the same results either way.
	Strict bool
}

// DefaultExplore is the number of scripts an exploration check runs when Options.Explore is 0.
const DefaultExplore = 40

// DefaultTimeout is the per-check timeout when Options.Timeout is zero.
const DefaultTimeout = 20 * time.Second

// grace is how long past its timeout a check may take to notice before it is abandoned.
func grace(timeout time.Duration) time.Duration { return min(timeout, 2*time.Second) }

func (o Options) withDefaults(seam string) (Options, error) {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Seed == 0 {
		o.Seed = time.Now().UnixNano() & 0x7fffffff
	}
	if o.Explore <= 0 {
		o.Explore = DefaultExplore
	}
	if o.SpiVersion == "" {
		s, _ := manifest.LookupSpi(seam)
		o.SpiVersion = s.Version
	}
	if _, err := manifest.ParseVersion(o.SpiVersion); err != nil {
		return o, fmt.Errorf("options: SpiVersion: %w", err)
	}
	return o, nil
}

// Run runs the kit's checks against fresh targets from factory and returns one Result per check, in
// kit order. It never hangs: a check that outlives its timeout is abandoned with verdict unknown.
func Run[T any](ctx context.Context, kit Kit[T], factory Factory[T], opts Options) ([]Result, error) {
	opts, err := opts.withDefaults(kit.Seam)
	if err != nil {
		return nil, err
	}
	var filter *regexp.Regexp
	if opts.Run != "" {
		if filter, err = regexp.Compile(opts.Run); err != nil {
			return nil, fmt.Errorf("options: Run: %w", err)
		}
	}
	if opts.Replay != nil && !slices.ContainsFunc(kit.Checks, func(ch Check[T]) bool { return ch.ID == opts.Replay.Check }) {
		return nil, fmt.Errorf("options: Replay: the script was made by %q, which kit %s does not have", opts.Replay.Check, kit.Name)
	}
	var out []Result
	for i := range kit.Checks {
		ch := &kit.Checks[i]
		if filter != nil && !filter.MatchString(ch.ID) || opts.Replay != nil && ch.ID != opts.Replay.Check {
			continue
		}
		out = append(out, runOne(ctx, kit, ch, factory, opts))
	}
	return out, nil
}

func baseResult[T any](kit Kit[T], ch *Check[T], opts Options) Result {
	return Result{Kit: kit.Name, CheckID: ch.ID, Clauses: ch.Clauses, Level: ch.Level,
		Requirement: spec.CheckRequirement(ch.Level, ch.Clauses), Seed: opts.Seed, Repro: reproCommand("", ch.ID, opts.Seed)}
}

// reproCommand is a go test command line that re-runs check id with seed under the test named
// testName (RunT's parent test; "" matches any top-level test). go test matches -run element by
// element between slashes, and check ids contain one, so every element is anchored on its own.
func reproCommand(testName, id string, seed int64) string {
	var parts []string
	if testName != "" {
		for _, p := range strings.Split(testName, "/") {
			parts = append(parts, "^"+regexp.QuoteMeta(p)+"$")
		}
	} else {
		parts = append(parts, "")
	}
	for _, p := range strings.Split(id, "/") {
		parts = append(parts, "^"+regexp.QuoteMeta(p)+"$")
	}
	return fmt.Sprintf("LOOM_KITS_SEED=%d go test -count=1 -run '%s' .", seed, strings.Join(parts, "/"))
}

// certifyFlags selects the same check and seed in a certify run.
func certifyFlags(id string, seed int64) string {
	return fmt.Sprintf("--run '^%s$' --seed %d", regexp.QuoteMeta(id), seed)
}

// since returns the SPI version a check belongs to: its Since, or the newest Since of the methods it
// requires.
func since[T any](kit Kit[T], ch *Check[T]) manifest.Version {
	v, _ := manifest.ParseVersion("1.0.0")
	if ch.Since != "" {
		if s, err := manifest.ParseVersion(ch.Since); err == nil {
			v = s
		}
	}
	seam, _ := manifest.LookupSpi(kit.Seam)
	for _, m := range seam.Methods {
		for _, r := range ch.Requires {
			if m.Name == r {
				if s, err := manifest.ParseVersion(m.Since); err == nil && v.Less(s) {
					v = s
				}
			}
		}
	}
	return v
}

type outcome struct {
	err      error
	panicked string
}

func runOne[T any](parent context.Context, kit Kit[T], ch *Check[T], factory Factory[T], opts Options) Result {
	res := baseResult(kit, ch, opts)
	start := time.Now()
	defer func() { res.Duration = time.Since(start) }()
	finish := func(v Verdict, msg string) Result {
		res.Verdict, res.Message, res.Duration = v, msg, time.Since(start)
		if v == Fail && len(res.Failed) == 0 {
			// A failure that names no comparison (a crash, a declared method answered unsupported)
			// is a failure of the whole check.
			res.Failed = []FailedAssertion{NewFailedAssertion(ch.Level, "", ch.Clauses)}
		}
		res.Requirement = Binding(ch.Level, ch.Clauses, v, res.Failed)
		return res
	}

	ctx, cancel := context.WithTimeout(parent, opts.Timeout)
	defer cancel()

	var cleanups []func()
	done := make(chan outcome, 1)
	var skipMsg string
	var running atomic.Pointer[Case[T]]
	var gid atomic.Uint64 // the check's goroutine, to name the call it is stuck in
	go func() {
		gid.Store(goroutineID())
		defer func() {
			if p := recover(); p != nil {
				done <- outcome{panicked: fmt.Sprintf("%v\n%s", p, debug.Stack())}
			}
		}()
		t, cleanup, err := factory(ctx)
		if cleanup != nil {
			cleanups = append(cleanups, cleanup)
		}
		if err != nil {
			done <- outcome{err: fmt.Errorf("factory: %w", err)}
			return
		}
		if msg := skipReason(kit, ch, any(t), opts); msg != "" {
			skipMsg = msg
			done <- outcome{}
			return
		}
		c := &Case[T]{Store: t, Seed: opts.Seed, Rand: rand.New(rand.NewSource(opts.Seed)), check: ch, Explore: opts.Explore,
			explore:    exploreOptions{findings: opts.Findings, replay: opts.Replay},
			SpiVersion: effectiveVersion(kit, any(t), opts).String(), nonce: newNonce()}
		c.Fresh = func(ctx context.Context) (T, error) {
			t2, cl, err := factory(ctx)
			if cl != nil {
				cleanups = append(cleanups, cl)
			}
			return t2, err
		}
		running.Store(c)
		err = ch.Run(ctx, c)
		if p := c.panicMessage(); p != "" {
			done <- outcome{panicked: p}
			return
		}
		done <- outcome{err: err}
	}()

	// cutShort is the verdict of a check that did not finish its work within its time limit: unknown,
	// never pass or fail (DESIGN §7.1), saying how far it came and how to give it more time.
	cutShort := func(what string) Result {
		how, stall := "it did not finish its work", ""
		if c := running.Load(); c != nil {
			if p := c.progress(); p != "" {
				how = "it " + p
			}
			if note := stallNote(c); note != "" {
				stall = "; " + note
			}
		}
		return finish(Unknown, fmt.Sprintf("%s: %s within the time limit of %s (%s)%s; no verdict: raise the limit with certify --timeout (kits.Options.Timeout)",
			ch.ID, what, opts.Timeout, how, stall))
	}

	var o outcome
	select {
	case o = <-done:
	case <-time.After(opts.Timeout + grace(opts.Timeout)):
		// Abandon the goroutine: the target is stuck. Its cleanups are not run (they may block too).
		// Say which call it is stuck in (I-CERT-61).
		if call := stalledCall(gid.Load()); call != "" {
			return cutShort("the call " + call + " did not return")
		}
		return cutShort("the target did not return")
	}
	for i := len(cleanups) - 1; i >= 0; i-- {
		runCleanup(cleanups[i])
	}
	switch {
	case skipMsg != "":
		return finish(Skip, skipMsg)
	case o.panicked != "":
		return finish(panicVerdict(ch, o.panicked))
	case o.err == nil && ctx.Err() != nil && parent.Err() == nil:
		// It returned nil, but its context ended first: a loop that stops at the deadline has not
		// done all of its rounds, so what it saw is no pass.
		return cutShort("the check was cut short")
	case o.err == nil && ctx.Err() != nil:
		return finish(Unknown, fmt.Sprintf("%s: the run was interrupted (%v) before the check finished", ch.ID, context.Cause(parent)))
	case o.err == nil:
		return finish(Pass, "")
	}
	var sk *skipError
	if errors.As(o.err, &sk) {
		return finish(Skip, sk.reason)
	}
	var uk *unknownError
	if errors.As(o.err, &uk) {
		return finish(Unknown, fmt.Sprintf("%s: %s", ch.ID, uk.reason))
	}
	if ctx.Err() != nil && parent.Err() == nil {
		// A call that gave up at the deadline is the stall, named as such (I-CERT-61).
		if v := stalledViolation(o.err); v != nil {
			args, _ := splitContext(v.Args)
			return cutShort(fmt.Sprintf("the call %s(%s) did not return", v.Op, args))
		}
		return cutShort(fmt.Sprintf("the check was cut short (%v)", o.err))
	}
	if ctx.Err() != nil {
		return finish(Unknown, fmt.Sprintf("%s: the run was interrupted (%v): %v", ch.ID, context.Cause(parent), o.err))
	}
	if vs := Violations(o.err); len(vs) > 0 {
		res.Witness, res.Finding, res.FindingFile = witnessOf(o.err), findingOf(o.err), findingFileOf(o.err)
		for _, v := range vs {
			if bad := undeclared(ch.Clauses, v.Clauses); bad != "" {
				// A comparison citing a clause its check does not declare would make the coverage
				// (spec --coverage) untrue: a bug of this harness, never a verdict on the target.
				return finish(Unknown, fmt.Sprintf("%s: harness bug: a comparison cites %s, which the check does not declare in its clauses [%s]; no verdict\n%v",
					ch.ID, bad, strings.Join(ch.Clauses, " "), o.err))
			}
			if a := NewFailedAssertion(ch.Level, v.Op, v.Clauses); !slices.ContainsFunc(res.Failed, func(b FailedAssertion) bool {
				return b.Op == a.Op && slices.Equal(b.Clauses, a.Clauses)
			}) {
				res.Failed = append(res.Failed, a) // one line per distinct comparison, however often it failed
			}
		}
		return finish(Fail, o.err.Error())
	}
	// Only undeclared methods are skipped (skipReason). A method the target declares and then
	// answers unsupported is broken, required or optional (I-STORE-24).
	if errors.Is(o.err, spi.ErrUnsupported) {
		return finish(Fail, fmt.Sprintf("%s [%s]: Call(a declared method) = error %q, want it to work (only undeclared methods are skipped)",
			ch.ID, strings.Join(ch.Clauses, " "), o.err.Error()))
	}
	return finish(Unknown, fmt.Sprintf("%s: %v", ch.ID, o.err))
}

// undeclared returns the first of cited that is not in declared, or "".
func undeclared(declared, cited []string) string {
	for _, c := range cited {
		if !slices.Contains(declared, c) {
			return c
		}
	}
	return ""
}

// panicVerdict judges a panic inside a check. A panic in the target's own code (an in-process Go
// store, a broken store of kits/broken) is the target crashing under the check: fail. A panic in
// the harness (this package, certify, the bridge client) is a bug of loom-conform, not a fact about
// the target: unknown, saying so. Either way the run goes on.
func panicVerdict[T any](ch *Check[T], stack string) (Verdict, string) {
	if fn := panickingFunc(stack); isHarness(fn) {
		return Unknown, fmt.Sprintf("%s: the harness panicked in %s (a bug of loom-conform, no verdict on the target; please report it): %s",
			ch.ID, fn, firstLines(stack, 12))
	}
	return Fail, fmt.Sprintf("%s [%s]: Call(the check's operations) = panic, want an answer: %s", ch.ID, strings.Join(ch.Clauses, " "), firstLines(stack, 12))
}

// panickingFunc is the function a panic was raised in: in a debug.Stack text, the first frame
// after the panic call that is not the runtime's own ("" when the text holds none).
func panickingFunc(stack string) string {
	lines := strings.Split(stack, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "panic(") {
			continue
		}
		for _, f := range lines[i+1:] {
			if f == "" || strings.HasPrefix(f, "\t") || strings.HasPrefix(f, "runtime.") || strings.HasPrefix(f, "panic(") {
				continue
			}
			if k := strings.LastIndex(f, "("); k > 0 {
				f = f[:k]
			}
			return f
		}
	}
	return ""
}

// harnessPackages are the packages whose code is the harness's, not a target's.
var harnessPackages = []string{"kits", "certify", "wire/bridge", "wire/carrier", "spi", "internal"}

func isHarness(fn string) bool {
	const mod = "github.com/loom-kernel/loom-conform/"
	rest, ok := strings.CutPrefix(fn, mod)
	if !ok {
		return false
	}
	for _, p := range harnessPackages {
		if strings.HasPrefix(rest, p+".") || (p == "internal" && strings.HasPrefix(rest, p+"/")) {
			return true
		}
	}
	return false
}

func runCleanup(f func()) {
	defer func() { _ = recover() }()
	f()
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// effectiveVersion is the lower of the run's target version and the target's claim.
func effectiveVersion[T any](kit Kit[T], target any, opts Options) manifest.Version {
	v, _ := manifest.ParseVersion(opts.SpiVersion)
	if claim, ok := spi.ClaimedVersion(kit.Seam, target); ok {
		if cv, err := manifest.ParseVersion(claim); err == nil && cv.Less(v) {
			v = cv
		}
	}
	return v
}

func skipReason[T any](kit Kit[T], ch *Check[T], target any, opts Options) string {
	var missing []string
	for _, m := range ch.Requires {
		if !spi.Has(kit.Seam, target, m) {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("target does not implement %s", strings.Join(missing, ", "))
	}
	if eff, need := effectiveVersion(kit, target, opts), since(kit, ch); eff.Less(need) {
		return fmt.Sprintf("needs %s SPI %s, target held to %s", kit.Seam, need, eff)
	}
	return ""
}

// Errors joins the failures and unknowns of results into one error (nil when there are none).
func Errors(results []Result) error {
	var errs []error
	for _, r := range results {
		if r.Verdict == Fail || r.Verdict == Unknown {
			errs = append(errs, fmt.Errorf("%s: %s", r.Verdict, r.Message))
		}
	}
	return errors.Join(errs...)
}
