package fitness

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/internal/childproc"
	"github.com/loom-kernel/loom-conform/spec"
)

// GoTest runs `go test ARGS…` in dir and returns its combined output; a non-nil error means the
// command failed (tests failed, or it could not run).
type GoTest func(ctx context.Context, dir string, args ...string) ([]byte, error)

// Options configure a fitness run. The zero value is usable: Run fills the defaults in one place.
type Options struct {
	// Root is the module root `go test` runs in. Default ".".
	Root string
	// Run selects gates by id (nil = all).
	Run *regexp.Regexp
	// Rounds is the number of interleaved rounds a ratio gate measures before it first judges,
	// and the number it adds each time the verdict is still unknown. Default 21, at least 15.
	Rounds int
	// MaxRounds bounds the rounds of a ratio gate: still unknown after that many, the verdict is
	// unknown. Default 10 × Rounds.
	MaxRounds int
	// MinBatch is the CPU time one timed batch of a ratio workload aims at. Default 4ms.
	MinBatch time.Duration
	// Progress receives a line per gate as it starts ("[2/16] running badges/evidence (checks) …")
	// and one as it finishes (nil = silent).
	Progress io.Writer
	// Checks is the catalog the check patterns resolve against.
	Checks []spec.Check
	// Mutants is the mutant registry and ProofsDir the proof records of a test run
	// (internal/proof) that the mutants gate judges.
	Mutants   []spec.Mutant
	ProofsDir string
	// RequireProofs makes missing proof records a failure rather than unknown (CI sets it: there,
	// make test has just written them).
	RequireProofs bool
	// CoverageLedger lists the MUST clauses reviewed as acceptably uncovered.
	CoverageLedger []LedgerEntry
	// GoTest runs the Go tool; default exec of "go test".
	GoTest GoTest
	// Workload is passed to ratio workloads (tests set kernel mutants here).
	Workload WorkloadOptions
}

func (o Options) withDefaults() Options {
	if o.Root == "" {
		o.Root = "."
	}
	if o.Rounds == 0 {
		o.Rounds = 21
	}
	if o.Rounds < 15 {
		o.Rounds = 15
	}
	if o.MaxRounds < o.Rounds {
		o.MaxRounds = 10 * o.Rounds
	}
	if o.MinBatch <= 0 {
		o.MinBatch = 4 * time.Millisecond
	}
	if o.GoTest == nil {
		o.GoTest = execGoTest
	}
	return o
}

func execGoTest(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"test"}, args...)...)
	cmd.Dir = dir
	cmd.SysProcAttr = childproc.Attr()
	cmd.Cancel = func() error { childproc.KillGroup(cmd.Process.Pid); return nil }
	return cmd.CombinedOutput()
}

// Select returns the gates whose id matches re (all when re is nil).
func Select(gates []Gate, re *regexp.Regexp) []Gate {
	var out []Gate
	for _, g := range gates {
		if re == nil || re.MatchString(g.ID) {
			out = append(out, g)
		}
	}
	return out
}

// Run runs gates in order and returns one result per gate. It never stops early: a failed gate
// is reported and the next one runs.
func Run(ctx context.Context, gates []Gate, o Options) []Result {
	o = o.withDefaults()
	var out []Result
	sel := Select(gates, o.Run)
	for i, g := range sel {
		if o.Progress != nil {
			// A gate can take minutes (a go test of many packages): say which one runs.
			fmt.Fprintf(o.Progress, "[%d/%d] running %s (%s) …\n", i+1, len(sel), g.ID, g.Kind)
		}
		start := time.Now()
		r := runGate(ctx, g, o)
		r.Gate, r.Threshold, r.Clauses = g.ID, g.Threshold, g.Clauses
		r.Seconds = math.Round(time.Since(start).Seconds()*100) / 100
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "%-7s %-24s %s\n", r.Verdict, g.ID, r.Figure)
		}
		out = append(out, r)
	}
	return out
}

func runGate(ctx context.Context, g Gate, o Options) Result {
	if g.Pending != "" {
		return Result{Verdict: Pending, Detail: g.Pending}
	}
	switch g.Kind {
	case KindChecks:
		return runChecks(ctx, g, o)
	case KindBench:
		return runBench(ctx, g, o)
	case KindRatio:
		return runRatio(g, o)
	case KindCoverage:
		return runCoverage(o)
	case KindMutants:
		return runMutants(o)
	}
	return Result{Verdict: Fail, Detail: fmt.Sprintf("gate %s: unknown kind %q", g.ID, g.Kind)}
}

// ResolveChecks expands check patterns (an exact id, or a prefix ending in "/*") against the
// catalog. Every pattern must match at least one check that `go test` can run.
func ResolveChecks(patterns []string, catalog []spec.Check) ([]spec.Check, error) {
	var out []spec.Check
	seen := map[string]bool{}
	for _, p := range patterns {
		n := 0
		for _, c := range catalog {
			match := c.ID == p || (strings.HasSuffix(p, "/*") && strings.HasPrefix(c.ID, strings.TrimSuffix(p, "*")))
			if !match || seen[c.ID] {
				continue
			}
			switch c.Kind {
			case spec.KindTest, spec.KindProperty, spec.KindFuzz:
			default:
				return nil, fmt.Errorf("check %s is a %s, not a Go test: a gate cannot run it", c.ID, c.Kind)
			}
			seen[c.ID] = true
			out = append(out, c)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("check pattern %q matches no catalog check", p)
		}
	}
	return out, nil
}

func runChecks(ctx context.Context, g Gate, o Options) Result {
	checks, err := ResolveChecks(g.Checks, o.Checks)
	if err != nil {
		return Result{Verdict: Fail, Detail: err.Error()}
	}
	byDir := map[string][]string{}
	for _, c := range checks {
		dir, test, ok := strings.Cut(c.Where, ":")
		if !ok || test == "" {
			return Result{Verdict: Fail, Detail: fmt.Sprintf("check %s: Where %q is not <package dir>:<TestName>", c.ID, c.Where)}
		}
		test, _, _ = strings.Cut(test, "/")
		byDir[dir] = append(byDir[dir], regexp.QuoteMeta(test))
	}
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	var skipped, held []string
	subSkips := 0
	for _, d := range dirs {
		run := "^(" + strings.Join(byDir[d], "|") + ")$"
		out, err := o.GoTest(ctx, o.Root, "-v", "-run", run, "./"+d)
		if err != nil {
			return Result{Verdict: Fail, Figure: fmt.Sprintf("%d checks", len(checks)),
				Detail: fmt.Sprintf("go test -run '%s' ./%s: %v\n%s", run, d, err, tail(out, 40))}
		}
		skipped = append(skipped, topLevelSkips(out)...)
		subs := subtestSkips(out)
		subSkips += len(subs)
		for _, s := range subs {
			if heldSkip().MatchString(s.reason) {
				held = append(held, s.name+": "+s.reason)
			}
		}
	}
	figure := fmt.Sprintf("%d checks in %d packages", len(checks), len(dirs))
	if subSkips > 0 {
		figure += fmt.Sprintf(", %d subtests skipped", subSkips)
	}
	switch {
	case len(held) > 0:
		// A reference implementation is held to the current SPI: a kit check it skipped because it
		// claims an older version was never judged, whatever methods it declares.
		return Result{Verdict: Fail, Figure: figure,
			Detail: fmt.Sprintf("%d kit checks skipped because the target claims an older SPI version than the harness's current one: %s",
				len(held), strings.Join(held, "; "))}
	case len(skipped) > 0:
		return Result{Verdict: Unknown, Figure: figure,
			Detail: "skipped, so not judged: " + strings.Join(skipped, "; ")}
	}
	return Result{Verdict: Pass, Figure: figure}
}

// heldSkip is the reason a kit gives for a check newer than the version the target claims
// (kits.skipReason).
var heldSkip = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`needs \S+ SPI \S+, target held to \S+`) })

type subSkip struct{ name, reason string }

// subtestSkips returns the subtests go test -v reports as skipped, each with the first line of
// its skip message (a kit check the target's capabilities or version claim left out).
func subtestSkips(out []byte) []subSkip {
	lines := strings.Split(string(out), "\n")
	var skips []subSkip
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if !strings.HasPrefix(t, "--- SKIP: ") || t == l {
			continue
		}
		name := strings.Fields(strings.TrimPrefix(t, "--- SKIP: "))[0]
		reason := ""
		if i+1 < len(lines) {
			reason = strings.TrimSpace(lines[i+1])
			if _, msg, ok := strings.Cut(reason, ": "); ok && strings.Contains(reason[:len(reason)-len(msg)], ".go:") {
				reason = msg
			}
		}
		skips = append(skips, subSkip{name, reason})
	}
	return skips
}

var skipLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^--- SKIP: (\S+)`) })

// topLevelSkips returns the top-level tests go test -v reports as skipped (a missing service
// outside CI): a gate whose tests did not run has not been judged. Skipped subtests (a capability
// a store does not claim) are verdicts of their kit and do not count here.
func topLevelSkips(out []byte) []string {
	var names []string
	for _, m := range skipLine().FindAllSubmatch(out, -1) {
		names = append(names, string(m[1]))
	}
	return names
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func runBench(ctx context.Context, g Gate, o Options) Result {
	b := g.Bench
	out, err := o.GoTest(ctx, o.Root, "-run", "^$", "-bench", "^"+regexp.QuoteMeta(b.Name)+"$",
		"-benchtime", b.Benchtime, "-count", "5", "./"+b.Package)
	if err != nil {
		return Result{Verdict: Fail, Detail: fmt.Sprintf("go test -bench %s ./%s: %v\n%s", b.Name, b.Package, err, tail(out, 40))}
	}
	if skips := topLevelSkips(out); len(skips) > 0 || bytes.Contains(out, []byte("--- SKIP: "+b.Name)) {
		return Result{Verdict: Unknown, Detail: "benchmark skipped: " + tail(out, 5)}
	}
	values := BenchMetric(out, b.Name, b.Metric)
	if len(values) == 0 {
		return Result{Verdict: Fail, Detail: fmt.Sprintf("benchmark %s reported no %q metric:\n%s", b.Name, b.Metric, tail(out, 20))}
	}
	var j Judgement
	if b.Max > 0 {
		j = judgeSpread(values, b.Max, true)
	} else {
		j = judgeSpread(values, b.Min, false)
	}
	return Result{Verdict: j.Verdict, Figure: fmt.Sprintf("%s %.3f (median of %d)", b.Metric, j.Figure, len(values)), Detail: j.Reason}
}

// BenchMetric returns every value of metric on the result lines of benchmark name in go test
// output ("BenchmarkX-2  3  1234 ns/op  0.95 store/raw").
func BenchMetric(out []byte, name, metric string) []float64 {
	var vals []float64
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || (f[0] != name && !strings.HasPrefix(f[0], name+"-")) {
			continue
		}
		for i := 2; i+1 < len(f); i += 2 {
			if f[i+1] == metric {
				if v, err := strconv.ParseFloat(f[i], 64); err == nil {
					vals = append(vals, v)
				}
			}
		}
	}
	return vals
}

// judgeSpread judges a metric's repeated values against limit; their own spread (half the
// interquartile range) is the noise.
func judgeSpread(values []float64, limit float64, upper bool) Judgement {
	q1, q3 := quartiles(values)
	med, noise := median(values), (q3-q1)/2
	j := decide(med, med-noise, med+noise, limit, upper)
	if noise > MaxNoise {
		j.Verdict, j.Reason = Unknown, fmt.Sprintf("noise %.3f exceeds %.2f: the machine is too noisy to judge", noise, MaxNoise)
	}
	return j
}

func runRatio(g Gate, o Options) Result {
	w, ok := Workloads()[g.Ratio.Workload]
	if !ok {
		return Result{Verdict: Fail, Detail: fmt.Sprintf("unknown workload %q", g.Ratio.Workload)}
	}
	wo := o.Workload
	if wo.Root == "" {
		wo.Root = o.Root
	}
	pair, err := w(wo)
	if err != nil {
		return Result{Verdict: Fail, Detail: "workload: " + err.Error()}
	}
	judge := func(s Samples) Judgement { return JudgeMin(s, g.Ratio.Min) }
	if g.Ratio.Max > 0 {
		judge = func(s Samples) Judgement { return JudgeMax(s, g.Ratio.Max) }
	}
	s, j, err := measureUntil(pair, o.Rounds, o.MaxRounds, o.MinBatch, judge)
	if pair.Close != nil {
		pair.Close()
	}
	if err != nil {
		return Result{Verdict: Fail, Detail: "workload: " + err.Error(), Rounds: len(s.AB)}
	}
	return Result{Verdict: j.Verdict, Rounds: len(s.AB),
		Figure: fmt.Sprintf("B/A %.3f, A/A %.3f", j.Figure, j.AA), Detail: j.Reason}
}
