package kernelkit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/internal/exploretest"
	"github.com/loom-kernel/loom-conform/kits"
	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
)

// runExplore runs kernel/explore alone against the kernel h serves, with seed and rounds.
func runExplore(t *testing.T, h http.Handler, seed int64, rounds int) kits.Result {
	t.Helper()
	srv := httptest.NewServer(h)
	// closed without waiting for handlers: a broken kernel may never answer a call it wedged
	t.Cleanup(func() { _ = srv.Config.Close() })
	cl := carrier.NewClient(srv.URL, exploreCallLimit)
	t.Cleanup(cl.Close)
	factory := func(context.Context) (*carrier.Client, func(), error) { return cl, nil, nil }
	res, err := kits.Run(testCtx(t), Kit(), factory, kits.Options{Run: "^" + ExploreCheck + "$", SpiVersion: "1.0.0", Seed: seed, Explore: rounds, Timeout: 60 * time.Second})
	if err != nil || len(res) != 1 {
		t.Fatalf("kits.Run(%s) = %d results, %v", ExploreCheck, len(res), err)
	}
	return res[0]
}

// The reference kernel behind the carrier, Wave 2 on, agrees with itself in process on every
// generated flow script, over many seeds (I-WIRE-80: a legal kernel is never blamed).
func TestExploreReferencePasses(t *testing.T) {
	seeds := exploretest.Count(t, 8) // make explore-seeds: 30 and more
	for seed := int64(1); seed <= int64(seeds); seed++ {
		c, _, err := carrier.NewProfile(memory.NewEventStore(), true, carrier.Options{Features: carrier.Wave2()})
		if err != nil {
			t.Fatal(err)
		}
		r := runExplore(t, c, seed, 0)
		if r.Verdict != kits.Pass {
			t.Errorf("kernel/explore [%s] on the reference kernel, seed %d: %s\n%s", ExploreRule, seed, r.Verdict, r.Message)
		}
	}
}

// Almost every generated script is a case the reference runs (the rest are not compared).
func TestExploreScriptsRun(t *testing.T) {
	bad := 0
	for round := range 40 {
		s := exploreGen(3, round, true, true)
		k, err := ExploreCase(s)
		if err != nil {
			bad++
			t.Logf("round %d: %v", round, err)
			continue
		}
		if _, err := reference(testCtx(t), "e", k, true); err != nil {
			bad++
			t.Logf("round %d: reference: %v\n%s", round, err, s.Lines())
		}
	}
	if bad > 4 {
		t.Errorf("kernel/explore [%s]: %d of 40 generated scripts are no case the reference runs, want at most 4", ExploreRule, bad)
	}
}

// exploreCallLimit bounds each call of the tests' explorations: a kernel that never answers is
// judged by its drive's error, not by the whole check's limit.
const exploreCallLimit = 3 * time.Second

// exploreRejects are the broken kernels kernel/explore alone rejects with the seed and rounds of
// TestExploreRejectsBrokenKernels (docs/performance.md gives the find rate): a kernel leaving
// the list is a regression of the exploration.
var exploreRejects = []string{
	"any-gate-name", "awaiting-when-idle", "budget-first-dimension", "budget-leaks",
	"busy-scope-as-syscall", "call-after-join", "canonical-code-points", "canonical-escaped",
	"code-not-runnable-as-refused", "code-quota-as-typed", "code-refused-as-not-runnable",
	"code-step-failed-as-typed", "code-syscall-as-params", "code-typed-as-step-failed",
	"counter-shared", "crash-needs-log", "degraded-served-typed", "deliver-drops-message",
	"drops-branch-emits", "drops-migrated-input", "human-any-gate", "ignores-execution-budget",
	"join-early", "join-names-last-failure", "json-first-key", "kernel-gate-resume",
	"parallel-reversed", "rerun-served-effect", "resume-kernel-type-through",
	"resume-reopens-terminal", "resume-while-running-recorded", "resumeas-kernel-type-through",
	"resumeas-terminal-refused", "sequence-off-by-one", "serves-after-live-decision", "step-ids-nfc",
	"timeout-recorded-typed", "wakeat-relative", "wakeat-truncated",
}

// kernel/explore alone, with a fixed seed, rejects every broken kernel of exploreRejects, and no
// kernel registered with choices alone by a required assertion (a legal choice is never blamed).
func TestExploreRejectsBrokenKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("drives every broken kernel")
	}
	var rejected, missed []string
	for _, b := range BrokenKernels() {
		h, err := NewBroken(b.Name, memory.NewEventStore(), carrier.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := runExplore(t, h, 1, 40)
		choiceOnly := spec.RequirementOf(b.Clauses) == spec.Recommended
		switch {
		case r.Verdict == kits.Fail && r.Requirement == spec.Required && choiceOnly:
			t.Errorf("kernel/wire/%s: kernel/explore fails it required (%v), but it breaks only the choices %v:\n%s", b.Name, labels(r.Failed), b.Clauses, r.Message)
		case r.Verdict == kits.Fail && !choiceOnly && r.Requirement == spec.Required:
			rejected = append(rejected, b.Name)
			t.Logf("rejects %s: %s", b.Name, firstLine(r.Message))
		case r.Verdict == kits.Unknown:
			t.Errorf("kernel/wire/%s: kernel/explore = unknown (%s), want a verdict", b.Name, firstLine(r.Message))
		default:
			if !choiceOnly {
				missed = append(missed, b.Name)
			}
		}
	}
	t.Logf("kernel/explore rejects %d of %d broken kernels that break a required clause; misses %v", len(rejected), len(rejected)+len(missed), missed)
	for _, name := range exploreRejects {
		if !slices.Contains(rejected, name) {
			t.Errorf("kernel/wire/%s [%s]: kernel/explore no longer rejects it", name, ExploreRule)
		}
	}
}

// A finding is replayable: the result carries it, its file reads back as the same script, the
// script is a flow script and driver again, and replaying it on the same broken kernel disagrees
// the same way, while the reference kernel agrees with it.
func TestExploreFindingReplays(t *testing.T) {
	h, err := NewBroken("parallel-reversed", memory.NewEventStore(), carrier.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := runExplore(t, h, 1, DefaultExplore)
	if r.Verdict != kits.Fail || r.Finding == nil || !strings.Contains(r.Message, "minimal script") {
		t.Fatalf("kernel/explore [%s] on parallel-reversed = %s, finding %v, want a failure with its minimal script:\n%s", ExploreRule, r.Verdict, r.Finding != nil, r.Message)
	}
	f := *r.Finding
	s, err := explore.ParseScript(f.File())
	if err != nil || s.Check != ExploreCheck || s.Seed != 1 || len(s.Steps) != len(f.Script.Steps) {
		t.Fatalf("explore.ParseScript(finding file) = %+v, %v, want the finding's script", s, err)
	}
	if _, err := ExploreCase(s); err != nil {
		t.Fatalf("ExploreCase(the finding's script) = %v, want a flow script and its driver", err)
	}
	if !slices.Contains(f.Mismatch.Clauses, "I-WIRE-11") || len(s.Steps) > 4 {
		t.Errorf("finding cites %v with %d steps, want I-WIRE-11 (the join's answer differs) in a script of at most 4 steps:\n%s", f.Mismatch.Clauses, len(s.Steps), s.Lines())
	}
	for name, k := range map[string]http.Handler{"the broken kernel": h, "the reference kernel": mustReference(t)} {
		x := replayOn(t, k, s)
		if got := x != nil && x.Same(&f.Mismatch); got != (name == "the broken kernel") {
			t.Errorf("replaying the finding on %s: mismatch %+v, want one iff the kernel is broken", name, x)
		}
	}
}

func mustReference(t *testing.T) http.Handler {
	h, _, err := carrier.NewProfile(memory.NewEventStore(), true, carrier.Options{Features: carrier.Wave2()})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// replayOn replays s against the kernel h serves, as kernel/explore does.
func replayOn(t *testing.T, h http.Handler, s explore.Script) *explore.Mismatch {
	t.Helper()
	var m *explore.Mismatch
	check := kits.Check[*carrier.Client]{ID: ExploreCheck, Level: spec.Must, Run: func(ctx context.Context, c *Case) error {
		hs, err := handshake(ctx, c)
		if err != nil {
			return err
		}
		x := &explorer{c: c, hs: hs}
		m, err = x.replay(ctx, s)
		return err
	}}
	srv := httptest.NewServer(h)
	t.Cleanup(func() { _ = srv.Config.Close() })
	cl := carrier.NewClient(srv.URL, exploreCallLimit)
	t.Cleanup(cl.Close)
	factory := func(context.Context) (*carrier.Client, func(), error) { return cl, nil, nil }
	if _, err := kits.Run(testCtx(t), kits.Kit[*carrier.Client]{Name: Name, Checks: []Check{check}}, factory, kits.Options{SpiVersion: "1.0.0", Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return m
}

// The kernels of the classes an independent kernel slipped through (classBrokenKernels) that break
// a required clause are each rejected by kernel/explore alone, at certify's default rounds, on
// every one of several seeds: the exploration finds each class without the check written for it.
func TestExploreRejectsClassKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("drives every class kernel")
	}
	seeds := exploretest.Count(t, 5) // make explore-seeds: more
	for _, b := range classBrokenKernels() {
		if spec.RequirementOf(b.Clauses) == spec.Recommended {
			continue
		}
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			for seed := int64(1); seed <= int64(seeds); seed++ {
				h, err := NewBroken(b.Name, memory.NewEventStore(), carrier.Options{})
				if err != nil {
					t.Fatal(err)
				}
				r := runExplore(t, h, seed, DefaultExplore)
				if r.Verdict != kits.Fail || r.Requirement != spec.Required {
					t.Errorf("kernel/wire/%s [%s]: kernel/explore alone, seed %d, %d rounds = %s (%s), want a required failure", b.Name, ExploreRule, seed, DefaultExplore, r.Verdict, firstLine(r.Message))
				}
			}
		})
	}
}
