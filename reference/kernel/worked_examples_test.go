package kernel

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/spi"
)

// Reference: WORKED-EXAMPLES.md "Emit serving", spec §3 (ADR 0102). Each case below is one
// numbered example; the test names carry the clauses they walk.

// flowF is the worked-examples flow F. decideRoute counts decider calls.
func flowF(h *harness) Flow {
	return func(c *Context, _ json.RawMessage) (any, error) {
		if _, err := c.Run("A", h.effect("A", "a"), nil); err != nil {
			return nil, err
		}
		if err := c.Emit("progress", map[string]int{"p": 1}); err != nil { // E1
			return nil, err
		}
		if _, err := c.Decide("route", func(ctxT) (any, error) { h.count("route"); return "left", nil }); err != nil {
			return nil, err
		}
		if err := c.Emit("progress", map[string]int{"p": 2}); err != nil { // E2
			return nil, err
		}
		x, err := c.Suspend(SuspendConfig{On: "approve"})
		if err != nil {
			return nil, err
		}
		if err := c.Emit("progress", map[string]int{"p": 1}); err != nil { // E3
			return nil, err
		}
		if _, err := c.Run("B", h.effect("B", "b"), nil); err != nil {
			return nil, err
		}
		if err := c.Emit("done", map[string]any{}); err != nil { // E4
			return nil, err
		}
		return x, nil
	}
}

func digest(t *testing.T, seg int, typ, payload string) string {
	t.Helper()
	d, err := fold.EmitDigest(seg, typ, json.RawMessage(payload))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// stamped returns "TYPE payload@digest" for each emit of the given types ("-" when unstamped).
func stamps(evs []spi.Envelope, kinds ...string) []string {
	var out []string
	for _, e := range evs {
		if slices.Contains(kinds, e.EventType) {
			s := stampOf(e)
			if s == "" {
				s = "-"
			}
			out = append(out, e.EventType+" "+string(e.Payload)+"@"+s)
		}
	}
	return out
}

func wantStamps(t *testing.T, check string, clauses []string, got []string, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s %v: emits in log (-want +got):\n%s", check, clauses, diff)
	}
}

// Example 1: fresh run. Clauses: S3.emit.identity, S3.emit.stamp, S3.emit.stamp-exceeds-count,
// S3.emit.canonical-form, S3.emit.serve-append.
func TestWorkedExample1FreshRun(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", flowF(h))
	res := h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
	if res.Status != fold.StatusSuspended || res.SuspendedOn != "approve" {
		t.Fatalf("ex1 [S5.suspend.config]: Start = %s on %q, want suspended on approve", res.Status, res.SuspendedOn)
	}
	d0 := digest(t, 0, "progress", `{"p":1}`)
	d0b := digest(t, 0, "progress", `{"p":2}`)
	wantStamps(t, "ex1", []string{"S3.emit.identity", "S3.emit.stamp"}, stamps(h.log("x"), "progress", "done"),
		`progress {"p":1}@`+d0, `progress {"p":2}@`+d0b)
	if got := h.state("x").Variables.FlowEmits; got[d0] != 1 || got[d0b] != 1 {
		failf(t, "ex1", []string{"S3.emit.fold-count"}, "_flowEmits", got, "one per digest")
	}
}

// Example 2: resume with approve. Clauses: S3.emit.serve-skip, S3.emit.segment, S3.resume.rerun-served,
// S2.execute.served-not-rerun, S1.P9.decision-logged, S3.emit.once.
func TestWorkedExample2ResumeServesSegmentZero(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", flowF(h))
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	res := h.ok(h.rt.Resume(ctx, "x", "approve", json.RawMessage(`{"ok":true}`)))
	if res.Status != fold.StatusCompleted {
		t.Fatalf("ex2: Resume status = %s, want completed", res.Status)
	}
	d0 := digest(t, 0, "progress", `{"p":1}`)
	d0b := digest(t, 0, "progress", `{"p":2}`)
	d1 := digest(t, 1, "progress", `{"p":1}`)
	d1e := digest(t, 1, "done", `{}`)
	if d1 == d0 {
		t.Fatalf("ex2 [S3.emit.segment]: E3 digest equals E1's; the segment must change it")
	}
	wantStamps(t, "ex2", []string{"S3.emit.serve-skip", "S3.emit.segment", "S3.emit.once"}, stamps(h.log("x"), "progress", "done"),
		`progress {"p":1}@`+d0, `progress {"p":2}@`+d0b, `progress {"p":1}@`+d1, `done {}@`+d1e)
	if h.callCount("A") != 1 || h.callCount("route") != 1 || h.callCount("B") != 1 {
		failf(t, "ex2", []string{"S2.execute.served-not-rerun", "S1.P9.decision-logged"}, "effect/decider calls",
			[]int{h.callCount("A"), h.callCount("route"), h.callCount("B")}, "[1 1 1]")
	}
}

// Example 3: crash after E1, before route was recorded. Clauses: S3.emit.serve-skip,
// S3.emit.serve-append, S3.emit.once.
func TestWorkedExample3CrashBeforeDecision(t *testing.T) {
	h, cs := newCrashHarness(t, nil)
	h.register("F", flowF(h))
	ctx := testCtx(t)
	cs.arm(isType("DECISION_RECORDED"))
	if _, err := h.rt.Start(ctx, "F", "x", nil); !errors.Is(err, errCrash) {
		t.Fatalf("ex3: Start error = %v, want the injected crash", err)
	}
	res := h.ok(h.rt.Recover(ctx, "x"))
	if res.Status != fold.StatusSuspended {
		t.Fatalf("ex3: Recover status = %s, want suspended", res.Status)
	}
	wantStamps(t, "ex3", []string{"S3.emit.serve-skip", "S3.emit.serve-append", "S3.emit.once"}, stamps(h.log("x"), "progress"),
		`progress {"p":1}@`+digest(t, 0, "progress", `{"p":1}`), `progress {"p":2}@`+digest(t, 0, "progress", `{"p":2}`))
}

// Example 4: crash while A was running. Clauses: S41.typed.untyped-at-least-once, S3.emit.serve-append.
func TestWorkedExample4CrashDuringStep(t *testing.T) {
	h, cs := newCrashHarness(t, nil)
	h.register("F", flowF(h))
	ctx := testCtx(t)
	cs.arm(isStep("STEP_COMPLETED", "A"))
	if _, err := h.rt.Start(ctx, "F", "x", nil); !errors.Is(err, errCrash) {
		t.Fatalf("ex4: Start error = %v, want the injected crash", err)
	}
	h.ok(h.rt.Recover(ctx, "x"))
	if h.callCount("A") != 2 {
		failf(t, "ex4", []string{"S41.typed.untyped-at-least-once"}, "A invocations", h.callCount("A"), 2)
	}
	wantStamps(t, "ex4", []string{"S3.emit.serve-append"}, stamps(h.log("x"), "progress"),
		`progress {"p":1}@`+digest(t, 0, "progress", `{"p":1}`), `progress {"p":2}@`+digest(t, 0, "progress", `{"p":2}`))
}

// flowXSX is emit(X); step(S); [step(Z)]; emit(X); suspend(g); then completes.
func flowXSX(h *harness, insertZ bool) Flow {
	return func(c *Context, _ json.RawMessage) (any, error) {
		if err := c.Emit("X", "x"); err != nil {
			return nil, err
		}
		if _, err := c.Run("S", h.effect("S", 1), nil); err != nil {
			return nil, err
		}
		if insertZ {
			if _, err := c.Run("Z", h.effect("Z", 1), nil); err != nil {
				return nil, err
			}
		}
		if err := c.Emit("X", "x"); err != nil {
			return nil, err
		}
		if _, err := c.Suspend(SuspendConfig{On: "g"}); err != nil {
			return nil, err
		}
		return "done", nil
	}
}

// Example 5: same content twice in one segment. Clauses: S3.emit.stamp-exceeds-count,
// S3.emit.serve-skip, S3.emit.fold-count.
func TestWorkedExample5SameContentTwice(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", flowXSX(h, false))
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	d := digest(t, 0, "X", `"x"`)
	wantStamps(t, "ex5", []string{"S3.emit.stamp-exceeds-count"}, stamps(h.log("x"), "X"), `X "x"@`+d, `X "x"@`+d)
	if got := h.state("x").Variables.FlowEmits[d]; got != 2 {
		failf(t, "ex5", []string{"S3.emit.fold-count"}, "_flowEmits[d]", got, 2)
	}
	h.ok(h.rt.Resume(ctx, "x", "g", nil))
	wantStamps(t, "ex5", []string{"S3.emit.serve-skip"}, stamps(h.log("x"), "X"), `X "x"@`+d, `X "x"@`+d)
}

// Example 6: a code change inserts a live step Z before the second X. Clauses:
// S3.emit.serve-append, S3.emit.stamp-exceeds-count, S3.emit.residual.
func TestWorkedExample6CodeChangeInsertsLiveStep(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", flowXSX(h, false))
	must(t, 0, h.rt.Register(FlowDef{ID: "F2", Fn: flowXSX(h, true)}))
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	h.ok(h.rt.ResumeAs(ctx, "x", ResumeAsRequest{FlowID: "F2", EventType: "g", Payload: json.RawMessage(`1`)}))
	d := digest(t, 0, "X", `"x"`)
	wantStamps(t, "ex6", []string{"S3.emit.serve-append", "S3.emit.stamp-exceeds-count"}, stamps(h.log("x"), "X"),
		`X "x"@`+d, `X "x"@`+d, `X "x"@-`)
	if got := h.state("x").Variables.FlowEmits[d]; got != 2 {
		failf(t, "ex6", []string{"S3.emit.fold-count"}, "_flowEmits[d]", got, 2)
	}
}

// Example 7: an emit while a sibling effect is in flight (inside parallel). Clauses:
// S3.emit.stamp-nothing-in-flight, S3.emit.never-timing.
func TestWorkedExample7EmitWhileSiblingInFlight(t *testing.T) {
	h := newHarness(t, nil)
	release := make(chan struct{})
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		_, err := c.Parallel(
			func(c *Context) (any, error) {
				return c.Run("slow", func(*EffectContext, json.RawMessage) (any, error) { <-release; return 1, nil }, nil)
			},
			func(c *Context) (any, error) {
				defer close(release)
				return nil, c.Emit("progress", "while slow runs")
			},
		)
		return nil, err
	})
	h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
	wantStamps(t, "ex7", []string{"S3.emit.stamp-nothing-in-flight"}, stamps(h.log("x"), "progress"), `progress "while slow runs"@-`)
}

// Example 8: an emit after an outcome a re-run does not serve. Clauses: S3.emit.stamp-nothing-unserved.
func TestWorkedExample8EmitAfterUnservedOutcome(t *testing.T) {
	cases := map[string]func(c *Context) error{
		"untyped-failure": func(c *Context) error {
			_, err := c.Run("s", func(*EffectContext, json.RawMessage) (any, error) { return nil, errors.New("boom") }, nil)
			return err
		},
		"timeout": func(c *Context) error {
			_, err := c.Execute(Task{ID: "s", Timeout: 5e6, Fn: func(ec *EffectContext, _ json.RawMessage) (any, error) {
				<-ec.Context().Done()
				return nil, ec.Context().Err()
			}}, nil)
			return err
		},
		"cancelled": func(c *Context) error {
			_, err := c.Run("s", func(*EffectContext, json.RawMessage) (any, error) { return nil, context_Canceled }, nil)
			return err
		},
		"decider-threw": func(c *Context) error {
			_, err := c.Decide("d", func(ctxT) (any, error) { return nil, errors.New("no") })
			return err
		},
	}
	for name, first := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
				if err := first(c); err == nil {
					t.Errorf("ex8/%s: the first syscall did not fail", name)
				}
				return nil, c.Emit("after", 1)
			})
			h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
			wantStamps(t, "ex8/"+name, []string{"S3.emit.stamp-nothing-unserved"}, stamps(h.log("x"), "after"), `after 1@-`)
		})
	}
}

// Example 9: payloads with no JSON form. Clauses: S3.emit.unmatchable-unstamped.
func TestWorkedExample9UnmatchablePayload(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		if err := c.Emit("chan", make(chan int)); err != nil {
			return nil, err
		}
		return nil, c.Emit("nan", math.NaN())
	})
	h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
	wantStamps(t, "ex9", []string{"S3.emit.unmatchable-unstamped"}, stamps(h.log("x"), "chan", "nan"), `chan null@-`, `nan null@-`)
	if len(h.warns) != 2 {
		failf(t, "ex9", []string{"S3.emit.unmatchable-unstamped"}, "warnings", len(h.warns), 2)
	}
}

// Example 10: a legacy (unstamped) log. Clauses: S3.emit.legacy-log.
func TestWorkedExample10LegacyLog(t *testing.T) {
	h := newHarness(t, nil)
	twoGates := func(c *Context, _ json.RawMessage) (any, error) {
		if err := c.Emit("progress", 1); err != nil {
			return nil, err
		}
		if _, err := c.Suspend(SuspendConfig{On: "g1"}); err != nil {
			return nil, err
		}
		if _, err := c.Suspend(SuspendConfig{On: "g2"}); err != nil {
			return nil, err
		}
		return nil, nil
	}
	h.register("F", twoGates)
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	// Strip the stamps: the log as a pre-1.19.0 kernel wrote it.
	legacy := h.log("x")
	for i := range legacy {
		legacy[i].Metadata = nil
		legacy[i].ExecutionID = "legacy"
	}
	if err := h.store.Append(ctx, "legacy", legacy, spi.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	h.ok(h.rt.Resume(ctx, "legacy", "g1", nil))
	d := digest(t, 0, "progress", `1`)
	wantStamps(t, "ex10", []string{"S3.emit.legacy-log"}, stamps(h.log("legacy"), "progress"), `progress 1@-`, `progress 1@`+d)
	h.ok(h.rt.Resume(ctx, "legacy", "g2", nil))
	wantStamps(t, "ex10", []string{"S3.emit.legacy-log", "S3.emit.serve-skip"}, stamps(h.log("legacy"), "progress"), `progress 1@-`, `progress 1@`+d)
}

// Example 11: kernel facts and EffectContext.emit are never stamped. Clauses:
// S3.emit.kernel-facts-unstamped.
func TestWorkedExample11NeverStamped(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		if _, err := c.Run("s", func(ec *EffectContext, _ json.RawMessage) (any, error) {
			return nil, ec.Emit("from-effect", 1)
		}, nil); err != nil {
			return nil, err
		}
		if _, err := c.Decide("d", func(ctxT) (any, error) { return 1, nil }); err != nil {
			return nil, err
		}
		return nil, c.Emit("DECISION_RECORDED", map[string]any{"id": "user-d", "choice": 2})
	})
	h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
	for _, e := range h.log("x") {
		if stampOf(e) != "" {
			failf(t, "ex11", []string{"S3.emit.kernel-facts-unstamped"}, "stamp of "+e.EventType, stampOf(e), "none")
		}
	}
}
