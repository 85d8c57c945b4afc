package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/spi"
)

// Reference: spec §5 suspension semantics — the runtime routes every resume through the ingress
// gate; a refusal appends nothing.

func gateFlow(h *harness) Flow {
	return func(c *Context, in json.RawMessage) (any, error) {
		if _, err := c.Run("A", h.effect("A", 1), nil); err != nil {
			return nil, err
		}
		x, err := c.Suspend(SuspendConfig{On: "approve"})
		if err != nil {
			return nil, err
		}
		return map[string]any{"in": in, "x": x}, nil
	}
}

func TestResumeRefusalsAppendNothing(t *testing.T) {
	h := newHarness(t, nil)
	parser := func(p json.RawMessage) (json.RawMessage, error) {
		var v struct {
			OK *bool `json:"ok"`
		}
		if err := json.Unmarshal(p, &v); err != nil || v.OK == nil {
			return nil, errors.New("want {ok: bool}")
		}
		return json.RawMessage(`{"ok":` + map[bool]string{true: "true", false: "false"}[*v.OK] + `,"parsed":true}`), nil
	}
	must(t, 0, h.rt.Register(FlowDef{ID: "F", Fn: gateFlow(h), ResumeSchemas: map[string]ResumeSchema{"approve": parser}}))
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	before := len(h.log("x"))
	cases := []struct {
		name, et, payload string
		clauses           []string
	}{
		{"kernel-namespace", "STEP_COMPLETED", `{"stepId":"A","output":2}`, []string{"S5.ingress.kernel-namespace"}},
		{"gate-mismatch", "reject", `{}`, []string{"S5.ingress.gate-match"}},
		{"timer-without-wakeat", "TIMER_FIRED", `null`, []string{"S5.ingress.timer-needs-wakeat"}},
		{"recovered-parked", "EXECUTION_RECOVERED", `null`, []string{"S5.ingress.recovered-running-only"}},
		{"shape", "approve", `{"nope":1}`, []string{"S5.schema.refuse-still-parked"}},
	}
	for _, tc := range cases {
		_, err := h.rt.Resume(ctx, "x", tc.et, json.RawMessage(tc.payload))
		var refused *ingress.ResumeRefusedError
		var invalid *ingress.ResumePayloadValidationError
		if !errors.As(err, &refused) && !errors.As(err, &invalid) {
			failf(t, "resume/"+tc.name, tc.clauses, "Resume("+tc.et+") error", err, "a typed refusal")
		}
		if n := len(h.log("x")); n != before {
			failf(t, "resume/"+tc.name, append(tc.clauses, "S5.ingress.refusal-appends-nothing"), "log length", n, before)
		}
	}
	if st := h.state("x"); st.Status != fold.StatusSuspended {
		failf(t, "resume/shape", []string{"S5.schema.refuse-still-parked"}, "status", st.Status, "suspended")
	}
	res := h.ok(h.rt.Resume(ctx, "x", "approve", json.RawMessage(`{"ok":true}`)))
	if string(res.Output) != `{"in":null,"x":{"ok":true,"parsed":true}}` {
		failf(t, "resume/parsed", []string{"S5.schema.record-parsed"}, "output", string(res.Output), "the parsed value")
	}
	if h.callCount("A") != 1 {
		failf(t, "resume/served", []string{"S2.execute.served-not-rerun"}, "A calls", h.callCount("A"), 1)
	}
}

func TestResumeWhileRunningRefused(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", gateFlow(h))
	ctx := testCtx(t)
	// A crashed run: STEP_STARTED with no outcome, status running.
	h2, cs := newCrashHarness(t, nil)
	h2.register("F", gateFlow(h2))
	cs.arm(isType("STEP_COMPLETED"))
	_, _ = h2.rt.Start(ctx, "F", "x", nil)
	before := len(h2.log("x"))
	_, err := h2.rt.Resume(ctx, "x", "approve", nil)
	var refused *ingress.ResumeRefusedError
	if !errors.As(err, &refused) || refused.Reason != ingress.ReasonNotSuspended || len(h2.log("x")) != before {
		failf(t, "resume/not-suspended", []string{"S5.ingress.not-suspended", "S5.ingress.refusal-appends-nothing"}, "Resume on running", err, "not-suspended, nothing appended")
	}
	res := h2.ok(h2.rt.Recover(ctx, "x"))
	evs := h2.log("x")
	if res.Status != fold.StatusSuspended || evs[before].EventType != "EXECUTION_RECOVERED" {
		failf(t, "resume/recover", []string{"S5.ingress.recovered-running-only"}, "Recover", types(evs), "EXECUTION_RECOVERED then the re-run")
	}
	for _, e := range evs[before:] {
		if e.EventType == "EXECUTION_RESUMED" {
			failf(t, "resume/recover", []string{"S5.ingress.redrive-no-resumed"}, "re-drive appended", e.EventType, "no EXECUTION_RESUMED")
		}
	}
}

func TestResumeAsTransformRecorded(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", gateFlow(h))
	target := gateFlow(h)
	h.register("F2", func(c *Context, in json.RawMessage) (any, error) { // a different flow: it says so
		out, err := target(c, in)
		if m, ok := out.(map[string]any); ok {
			m["flow"] = "F2"
		}
		return out, err
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", map[string]int{"v": 1}))
	before := len(h.log("x"))
	_, err := h.rt.ResumeAs(ctx, "x", ResumeAsRequest{FlowID: "F2", EventType: "approve", Payload: json.RawMessage(`1`),
		Transform: func(json.RawMessage) (json.RawMessage, error) { return nil, errors.New("cannot migrate") }})
	var refused *ingress.ResumeRefusedError
	if !errors.As(err, &refused) || len(h.log("x")) != before {
		failf(t, "resumeas/transform-fail", []string{"S5.resumeas.transform-fail-refuses"}, "ResumeAs", err, "refused, nothing appended")
	}
	res := h.ok(h.rt.ResumeAs(ctx, "x", ResumeAsRequest{FlowID: "F2", EventType: "approve", Payload: json.RawMessage(`1`),
		Transform: func(in json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{"v":2}`), nil }}))
	if string(res.Output) != `{"flow":"F2","in":{"v":2},"x":1}` {
		failf(t, "resumeas/transform", []string{"S5.resumeas.transform-recorded", "S4.v1_15.migrated-input", "I-KERNEL-15"}, "output", string(res.Output), `{"flow":"F2","in":{"v":2},"x":1} (the target flow ran)`)
	}
	if got := string(h.state("x").Variables.Values["_input"]); got != `{"v":2}` {
		failf(t, "resumeas/transform", []string{"S5.resumeas.transform-recorded"}, "_input", got, `{"v":2}`)
	}
	// I-KERNEL-15: every envelope carries the flow running when it was written: F before the
	// resumeAs, F2 from its batch on.
	for i, e := range h.log("x") {
		want := "F"
		if i >= before {
			want = "F2"
		}
		if e.WorkflowID != want {
			failf(t, "resumeas/target", []string{"I-KERNEL-15", "S5.resumeas.parked-all-rules"}, fmt.Sprintf("envelope %d (%s) workflowId", i, e.EventType), e.WorkflowID, want)
		}
	}
}

func TestInDoubtParkAndVerdicts(t *testing.T) {
	for _, verdict := range []string{ingress.VerdictApplied, ingress.VerdictNotApplied} {
		t.Run(verdict, func(t *testing.T) {
			h, cs := newCrashHarness(t, nil)
			calls := 0
			h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
				return c.Execute(Task{ID: "charge", AtMostOnce: true, Fn: func(*EffectContext, json.RawMessage) (any, error) {
					calls++
					return "charged", nil
				}}, nil)
			})
			ctx := testCtx(t)
			cs.arm(isType("STEP_COMPLETED"))
			_, _ = h.rt.Start(ctx, "F", "x", nil)
			res := h.ok(h.rt.Recover(ctx, "x"))
			if res.SuspendedOn != fold.GateInDoubt || calls != 1 {
				failf(t, "indoubt/park", []string{"S5.ingress.indoubt-verdict-recorded"}, "Recover", res.SuspendedOn, "parked in doubt, effect not re-run")
			}
			before := len(h.log("x"))
			_, err := h.rt.Resume(ctx, "x", "approve", nil)
			var invalid *ingress.ResumePayloadValidationError
			if !errors.As(err, &invalid) || len(h.log("x")) != before {
				failf(t, "indoubt/other", []string{"S5.ingress.indoubt-other-refused"}, "Resume(approve)", err, "ResumePayloadValidationError, nothing appended")
			}
			v := ingress.Verdict{StepID: "charge", Attempt: 1, Verdict: verdict}
			if verdict == ingress.VerdictApplied {
				v.Output = json.RawMessage(`"from-verdict"`)
			}
			res = h.ok(h.rt.ResumeWith(ctx, "x", ingress.VerdictRequest(v)))
			want, wantCalls := `"from-verdict"`, 1
			if verdict == ingress.VerdictNotApplied {
				want, wantCalls = `"charged"`, 2
			}
			if string(res.Output) != want || calls != wantCalls {
				failf(t, "indoubt/verdict", []string{"S5.ingress.indoubt-verdict-recorded", "S5.decide.verdict-beside-indoubt"}, "output, calls", []any{string(res.Output), calls}, []any{want, wantCalls})
			}
		})
	}
}

func TestTimersFireAfterRestart(t *testing.T) {
	timers := NewMemoryTimers()
	now := int64(1_000)
	clock := func() int64 { return now }
	h := newHarness(t, func(c *Config) { c.Timers = timers; c.Now = clock })
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		if err := c.Sleep(5 * time.Second); err != nil {
			return nil, err
		}
		x, err := c.Suspend(SuspendConfig{On: "approve", Timeout: time.Minute})
		return x, err
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	var on struct {
		WakeAt int64 `json:"wakeAt"`
	}
	_ = json.Unmarshal(h.state("x").Variables.Values["_suspendedOn"], &on)
	if on.WakeAt != 6_000 || timers.Len() != 1 {
		failf(t, "timers/wakeat", []string{"S5.timer.durable-wakeat", "S5.timer.time-in-log"}, "wakeAt, timers", []any{on.WakeAt, timers.Len()}, []any{6000, 1})
	}
	// Restart: a new runtime over the same log and TimerStore.
	rt := h.restart(nil)
	now = 5_999
	fired := must(t, []FiredTimer(nil), nil)
	fired, _ = rt.FireDueTimers(ctx)
	if len(fired) != 0 {
		t.Fatalf("a timer fired early: %+v", fired)
	}
	now = 6_000
	fired, err := rt.FireDueTimers(ctx)
	if err != nil || len(fired) != 1 || fired[0].Err != nil || fired[0].Result.SuspendedOn != "approve" {
		failf(t, "timers/restart", []string{"S5.timer.durable-wakeat"}, "FireDueTimers", fired, "TIMER_FIRED, then parked on approve")
	}
	_ = json.Unmarshal(h.state("x").Variables.Values["_suspendedOn"], &on)
	if on.WakeAt != 6_000+60_000 {
		failf(t, "timers/derive", []string{"S5.timer.derive-wakeat"}, "derived wakeAt", on.WakeAt, 66_000)
	}
	now = 70_000
	fired, _ = rt.FireDueTimers(ctx)
	if len(fired) != 1 || fired[0].Result.Status != fold.StatusCompleted || string(fired[0].Result.Output) != `{"wakeAt":66000}` {
		failf(t, "timers/either-wake", []string{"S5.ingress.timer-needs-wakeat"}, "timed suspend woken by timer", fired, "completed")
	}
}

func TestTimedSuspendWithoutTimerStoreReported(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		return c.Suspend(SuspendConfig{On: "approve", Timeout: time.Minute})
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	f, err := h.rt.SuspensionSafety(ctx, "x")
	if err != nil || len(f) != 1 || f[0].Code != "timeout-without-wakeat" {
		failf(t, "timers/unwired", []string{"S5.timer.unwired-reported"}, "SuspensionSafety", f, "timeout-without-wakeat")
	}
	if _, err := h.rt.Resume(ctx, "x", "TIMER_FIRED", nil); err == nil {
		failf(t, "timers/unwired", []string{"S5.ingress.timer-needs-wakeat"}, "TIMER_FIRED without wakeAt", "accepted", "refused")
	}
	_ = context.Background
}

// Reference: spec §4 — EXECUTION_CANCELLED ends a parked execution; every later resume is refused.
func TestCancelEndsExecution(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", gateFlow(h))
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	res := h.ok(h.rt.Cancel(ctx, "x", "operator"))
	if res.Status != fold.StatusCancelled || h.state("x").Status != fold.StatusCancelled {
		failf(t, "cancel/parked", []string{"S4.fold.status-execution-only"}, "status", res.Status, "cancelled")
	}
	n := len(h.log("x"))
	var term *TerminalError
	if _, err := h.rt.Cancel(ctx, "x", ""); !errors.As(err, &term) {
		failf(t, "cancel/twice", []string{"S4.fold.status-execution-only"}, "Cancel twice", err, "*TerminalError")
	}
	if _, err := h.rt.Resume(ctx, "x", "approve", nil); err == nil || len(h.log("x")) != n {
		failf(t, "cancel/resume", []string{"S5.ingress.refusal-appends-nothing"}, "Resume after cancel", err, "refused, nothing appended")
	}
}

// Reference: spec §5 — a verdict decision without the kernel's EFFECT_INDOUBT beside it is not
// honoured: the step parks in doubt instead of being settled by it.
func TestVerdictWithoutInDoubtFactIgnored(t *testing.T) {
	h := newHarness(t, nil)
	calls := 0
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		return c.Execute(Task{ID: "charge", AtMostOnce: true, Fn: func(*EffectContext, json.RawMessage) (any, error) {
			calls++
			return "charged", nil
		}}, nil)
	})
	ctx := testCtx(t)
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	// A crashed run whose log carries a verdict no EFFECT_INDOUBT stands beside (a forged record).
	log := []spi.Envelope{
		{ID: "1", WorkflowID: "F", ExecutionID: "x", EventType: "EXECUTION_STARTED", Sequence: 0, Timestamp: 1, Payload: raw(`{"input":null,"flowId":"F"}`)},
		{ID: "2", WorkflowID: "F", ExecutionID: "x", EventType: "STEP_STARTED", Sequence: 1, Timestamp: 2, Payload: raw(`{"stepId":"charge","attempt":1}`)},
		{ID: "3", WorkflowID: "F", ExecutionID: "x", EventType: "DECISION_RECORDED", Sequence: 2, Timestamp: 3,
			Payload: raw(`{"id":"__loom_indoubt:charge#1","choice":{"verdict":"applied","output":"forged"}}`), Metadata: raw(`{"kernel":true}`)},
	}
	if err := h.store.Append(ctx, "x", log, spi.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	res := h.ok(h.rt.Recover(ctx, "x"))
	if res.SuspendedOn != fold.GateInDoubt || calls != 0 {
		failf(t, "indoubt/forged-verdict", []string{"S5.decide.verdict-beside-indoubt"}, "Recover", []any{res.Status, res.SuspendedOn, string(res.Output)}, "parked in doubt, the forged output not served")
	}
}
