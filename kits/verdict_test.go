package kits

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/spec"
)

// toyKit is one check over an int target, for the runner's own contract (DESIGN §7.1).
func toyKit(run func(ctx context.Context, c *Case[int]) error) Kit[int] {
	return Kit[int]{Name: "toy", Seam: "EventStore", Checks: []Check[int]{
		{ID: "toy/check", Clauses: []string{"I-STORE-1"}, Level: spec.Must, Run: run},
	}}
}

func runToy(t *testing.T, timeout time.Duration, run func(ctx context.Context, c *Case[int]) error) Result {
	t.Helper()
	rs, err := Run(context.Background(), toyKit(run), func(context.Context) (int, func(), error) { return 1, nil, nil },
		Options{Timeout: timeout, Seed: 1})
	if err != nil || len(rs) != 1 {
		t.Fatalf("Run = %v, %v", rs, err)
	}
	return rs[0]
}

// A check whose loop stops at its deadline and returns nil did not do its work: unknown, never pass,
// and the message says how far it came and which limit to raise.
func TestCutShortIsUnknownNotPass(t *testing.T) {
	r := runToy(t, 50*time.Millisecond, func(ctx context.Context, c *Case[int]) error {
		const rounds = 1000
		for i := 0; i < rounds && ctx.Err() == nil; i++ {
			c.Progress(i, rounds)
			time.Sleep(5 * time.Millisecond)
		}
		return nil
	})
	if r.Verdict != Unknown {
		t.Fatalf("verdict = %s (%s), want unknown", r.Verdict, r.Message)
	}
	for _, want := range []string{"rounds", "of 1000", "50ms", "--timeout"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("message %q does not say %q", r.Message, want)
		}
	}
}

// A check that ends with its context's error is cut short too, not a failure of the target.
func TestDeadlineErrorIsUnknown(t *testing.T) {
	r := runToy(t, 30*time.Millisecond, func(ctx context.Context, c *Case[int]) error {
		<-ctx.Done()
		return c.Failf("Read", `"x"`, ctx.Err(), "an answer")
	})
	if r.Verdict != Unknown || !strings.Contains(r.Message, "time limit") {
		t.Fatalf("verdict = %s (%s), want unknown naming the time limit", r.Verdict, r.Message)
	}
}

// A check that finishes inside its limit passes.
func TestFinishedWorkPasses(t *testing.T) {
	r := runToy(t, time.Second, func(ctx context.Context, c *Case[int]) error {
		c.Progress(3, 3)
		return nil
	})
	if r.Verdict != Pass {
		t.Fatalf("verdict = %s (%s), want pass", r.Verdict, r.Message)
	}
}

// A panic in the harness's own code is no verdict on the target: unknown, saying it is a harness bug.
func TestHarnessPanicIsUnknown(t *testing.T) {
	r := runToy(t, time.Second, func(ctx context.Context, c *Case[int]) error {
		var xs []int
		_ = xs[c.Store+2] // index out of range, raised in this package
		return nil
	})
	if r.Verdict != Unknown || !strings.Contains(r.Message, "harness panicked") {
		t.Fatalf("verdict = %s (%s), want unknown naming a harness bug", r.Verdict, r.Message)
	}
}

func TestPanickingFunc(t *testing.T) {
	stack := "goroutine 7 [running]:\nruntime/debug.Stack()\n\t/go/stack.go:26\npanic({0x1, 0x2})\n\t/go/panic.go:785\n" +
		"runtime.goPanicSliceB(0x29, 0x28)\n\t/go/panic.go:150\n" +
		"github.com/loom-kernel/loom-conform/kits.splitContext({0xc0, 0x28})\n\t/w/kits/kit.go:201\n"
	if got := panickingFunc(stack); got != "github.com/loom-kernel/loom-conform/kits.splitContext" {
		t.Fatalf("panickingFunc = %q", got)
	}
	for fn, harness := range map[string]bool{
		"github.com/loom-kernel/loom-conform/kits.splitContext":                 true,
		"github.com/loom-kernel/loom-conform/wire/bridge.(*Client).call":        true,
		"github.com/loom-kernel/loom-conform/internal/shard.Parse":              true,
		"github.com/loom-kernel/loom-conform/kits/broken.torn.Append":           false,
		"github.com/loom-kernel/loom-conform/reference/stores/memory.(*X).Read": false,
		"example.com/store.(*S).Append":                                         false,
		"":                                                                      false,
	} {
		if got := isHarness(fn); got != harness {
			t.Errorf("isHarness(%q) = %v, want %v", fn, got, harness)
		}
	}
}

// The failure line survives any argument text a target's values put in it (the text once made
// splitContext slice out of range and crash the whole run).
func TestViolationErrorNeverPanics(t *testing.T) {
	for _, args := range []string{") (", ")  (", "a) (", ") ", " (", "x) y (z", "((()))", ")( ) ("} {
		v := &Violation{Check: "c", Clauses: []string{"I-STORE-1"}, Op: "Op", Args: args, Got: "g", Want: "w"}
		if s := v.Error(); !strings.HasPrefix(s, "c [I-STORE-1]: Op(") {
			t.Errorf("Error() with args %q = %q", args, s)
		}
	}
	if err := (&Violation{Args: ") ("}); errors.Unwrap(err) != nil {
		t.Error("Unwrap of a violation without an error is not nil")
	}
}

// A check enforcing only choices is recommended: it never blocks Certified.
func TestRecommendedFailureDoesNotBlock(t *testing.T) {
	r := Result{Kit: "k", CheckID: "k/a", Level: spec.Must, Requirement: spec.Recommended, Verdict: Fail}
	ok := Result{Kit: "k", CheckID: "k/b", Level: spec.Must, Requirement: spec.Required, Verdict: Pass}
	if !Certified([]Result{r, ok}) {
		t.Error("Certified(recommended fail, required pass) = false, want true")
	}
	r.Requirement = spec.Required
	if Certified([]Result{r, ok}) {
		t.Error("Certified(required fail) = true, want false")
	}
}
