package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/stores/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

func f64(v float64) *float64 { return &v }

// Reference: spec §8 resource semantics.
func TestResourcesMeteredAndBudget(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Budget = Budget{"tokens": 100} })
	calls := 0
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		g, err := c.NegotiateBudget("tokens", 500)
		if err != nil {
			return nil, err
		}
		for i := range 3 {
			_, err := c.Run("s"+itoa(i), func(ec *EffectContext, _ json.RawMessage) (any, error) {
				calls++
				return nil, ec.Meter(Usage{Tokens: f64(60)})
			}, nil)
			var q *QuotaExceededError
			if errors.As(err, &q) {
				if err := c.Emit("quota", q.Dimension); err != nil {
					return nil, err
				}
			}
		}
		_, err = c.Suspend(SuspendConfig{On: "g"})
		return g, err
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	st := h.state("x")
	if st.Variables.Resources["tokens"] != 120 || calls != 2 {
		failf(t, "resources/meter", []string{"S8.resources.metered-per-effect", "S8.budget.quota-exceeded"}, "_resources.tokens, calls", []any{st.Variables.Resources["tokens"], calls}, []any{120, 2})
	}
	if _, ok := st.Variables.Resources["costUsd"]; ok {
		failf(t, "resources/no-false-zeros", []string{"S8.resources.no-false-zeros"}, "costUsd present", true, false)
	}
	if !strings.Contains(strings.Join(types(h.log("x")), " "), "QUOTA_EXCEEDED") {
		failf(t, "resources/quota", []string{"S8.budget.quota-exceeded"}, "log", types(h.log("x")), "a QUOTA_EXCEEDED")
	}
	res := h.ok(h.rt.Resume(ctx, "x", "g", nil))
	if calls != 2 || string(res.Output) != `{"dimension":"tokens","granted":100,"requested":500}` {
		failf(t, "resources/negotiate", []string{"S8.budget.negotiate"}, "grant, calls after replay", []any{string(res.Output), calls}, "granted 100 served from the log, calls 2")
	}
	if n := len(emitsOf(h.log("x"), "quota")); n != 1 {
		failf(t, "resources/quota-served", []string{"S8.budget.quota-exceeded", "S3.emit.once"}, "quota emits", n, 1)
	}
}

// Reference: spec §3 snapshots — a replay that starts from a snapshot reaches the same state.
func TestReplayFromSnapshotSameState(t *testing.T) {
	snaps := memory.NewSnapshotStore()
	h := newHarness(t, func(c *Config) { c.Snapshots = snaps })
	calls := 0
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		for i := range 3 {
			if _, err := c.Run("s"+itoa(i), func(*EffectContext, json.RawMessage) (any, error) { calls++; return i, nil }, nil); err != nil {
				return nil, err
			}
			if err := c.Emit("e", i); err != nil {
				return nil, err
			}
			if _, err := c.Suspend(SuspendConfig{On: "g" + itoa(i)}); err != nil {
				return nil, err
			}
		}
		return "done", nil
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	h.ok(h.rt.Resume(ctx, "x", "g0", nil))
	if _, err := h.rt.Snapshot(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	h.ok(h.rt.Resume(ctx, "x", "g1", nil))
	h.ok(h.rt.Resume(ctx, "x", "g2", nil))
	fromLog, _ := fold.CanonicalState(h.state("x"))
	fromSnap, err := h.rt.State(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := fold.CanonicalState(fromSnap)
	if !bytes.Equal(fromLog, b) || calls != 3 {
		t.Errorf("snapshot/equivalence [S3.snapshot.equivalence]: State via snapshot (-log +snapshot):\n%s calls=%d", cmp.Diff(string(fromLog), string(b)), calls)
	}
	if n := len(emitsOf(h.log("x"), "e")); n != 3 {
		failf(t, "snapshot/emits", []string{"S3.emit.once", "S3.snapshot.equivalence"}, "emits", n, 3)
	}
	for _, e := range h.log("x") {
		if strings.Contains(strings.ToLower(e.EventType), "snapshot") {
			failf(t, "snapshot/out-of-band", []string{"S3.snapshot.out-of-band"}, "event", e.EventType, "no snapshot event")
		}
	}
}

// Reference: spec §2 — re-running a finished flow over its log appends nothing and invokes no effect.
func TestReplayFinishedAppendsNothing(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", flowF(h))
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	h.ok(h.rt.Resume(ctx, "x", "approve", json.RawMessage(`1`)))
	before := h.log("x")
	res := h.ok(h.rt.Drive(ctx, "x"))
	if !res.ReadOnly || len(res.Appended) != 0 || len(h.log("x")) != len(before) || h.callCount("A") != 1 || h.callCount("B") != 1 {
		failf(t, "replay/finished", []string{"S3.resume.rerun-served", "S2.execute.served-not-rerun", "S1.P2.replay-identical"}, "Drive(completed)", res, "read-only, nothing appended")
	}
	// A parked execution replays to its gate without writing.
	h.register("P", gateFlow(h))
	h.ok(h.rt.Start(ctx, "P", "p", nil))
	n := len(h.log("p"))
	res = h.ok(h.rt.Drive(ctx, "p"))
	if res.SuspendedOn != "approve" || len(h.log("p")) != n {
		failf(t, "replay/parked", []string{"S5.replay.gates-in-order"}, "Drive(parked)", res, "parked again, nothing appended")
	}
}

// Reference: spec §2 syscall table, feature flags.
func TestSyscallsUnknownAndDisabled(t *testing.T) {
	h := newHarness(t, nil)
	var errs []error
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		_, e1 := c.Call("fork", nil)
		_, e2 := c.Call("receive", json.RawMessage(`{"topic":"t"}`))
		_, e3 := c.Receive("t")
		_, _, e4 := c.Select("t")
		e5 := c.ContinueAsNew(1)
		_, e6 := c.Call("run", json.RawMessage(`{"stepId":"s","toolId":"nope"}`))
		_, e7 := c.Decide("__loom_x", func(ctxT) (any, error) { return 1, nil })
		_, e8 := c.Call("emit", json.RawMessage(`{"eventType":"STEP_COMPLETED","payload":{"stepId":"s","output":1}}`))
		_, e9 := c.Call("decide", json.RawMessage(`{not json`))
		errs = []error{e1, e2, e3, e4, e5, e6, e7, e8, e9}
		return nil, nil
	})
	h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
	var unknown *UnknownSyscallError
	var disabled *SyscallDisabledError
	var bad *SyscallError
	if !errors.As(errs[0], &unknown) {
		failf(t, "syscalls/unknown", []string{"S2.syscalls.available-iff-listed"}, "Call(fork)", errs[0], "*UnknownSyscallError")
	}
	for i := 1; i <= 4; i++ {
		if !errors.As(errs[i], &disabled) {
			failf(t, "syscalls/disabled", []string{"S2.syscalls.wave2-flagged"}, "wave 2 syscall", errs[i], "*SyscallDisabledError")
		}
	}
	for i := 5; i < len(errs); i++ {
		if errs[i] == nil {
			failf(t, "syscalls/bad-input", []string{"S5.decide.loom-reserved", "S5.emit.userspace-kernel-refused"}, "bad call", nil, "an error")
		}
	}
	if !errors.As(errs[5], &bad) {
		failf(t, "syscalls/bad-input", []string{"S2.execute.kinds-by-toolid"}, "unknown toolId", errs[5], "*SyscallError")
	}
	if got := types(h.log("x")); !cmp.Equal(got, []string{"EXECUTION_STARTED", "EXECUTION_COMPLETED"}) {
		failf(t, "syscalls/nothing-appended", []string{"S2.syscalls.available-iff-listed"}, "log", got, "start and completion only")
	}
}

func TestKindsResolveByToolID(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Effects = map[string]EffectDef{"llm.chat": {Fn: func(*EffectContext, json.RawMessage) (any, error) { return "hi", nil }}}
	})
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		return c.Execute(Task{ID: "ask", Kind: "llm", ToolID: "llm.chat"}, "q")
	})
	h.register("R", func(c *Context, _ json.RawMessage) (any, error) {
		return c.Run("step", func(*EffectContext, json.RawMessage) (any, error) { return "ran", nil }, "q")
	})
	h.register("E", func(c *Context, _ json.RawMessage) (any, error) {
		return c.Execute(Task{ID: "step", Fn: func(*EffectContext, json.RawMessage) (any, error) { return "ran", nil }}, "q")
	})
	h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
	evs := h.log("x")
	if evs[1].EventType != "STEP_STARTED" || string(evs[1].Payload) != `{"attempt":1,"input":"q","kind":"llm","stepId":"ask","toolId":"llm.chat"}` || evs[2].EventType != "STEP_COMPLETED" {
		failf(t, "execute/kinds", []string{"S2.execute.kinds-by-toolid"}, "log", types(evs), "STEP_* events carrying kind and toolId")
	}
	// run is the step-shaped alias of execute: the same log as execute of a task with only an id.
	h.ok(h.rt.Start(testCtx(t), "R", "r", nil))
	h.ok(h.rt.Start(testCtx(t), "E", "e", nil))
	strip := func(evs []spi.Envelope) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.EventType+" "+string(e.Payload))
		}
		return out
	}
	run, exec := strip(h.log("r")), strip(h.log("e"))
	if d := cmp.Diff(exec[1:], run[1:]); d != "" || len(run) != 4 || run[1] != `STEP_STARTED {"attempt":1,"input":"q","stepId":"step"}` {
		failf(t, "execute/run-alias", []string{"S2.run.alias"}, "Run log", run, fmt.Sprintf("the log of Execute(Task{ID}) (-execute +run):\n%s", d))
	}
}

// Reference: DESIGN §5 bad input — panics and hangs are typed errors, never a crash or a hang.
func TestFlowPanicAndHang(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.RunTimeout = 50 * time.Millisecond })
	h.register("panics", func(c *Context, _ json.RawMessage) (any, error) { panic("boom") })
	release := make(chan struct{})
	defer close(release)
	h.register("hangs", func(c *Context, _ json.RawMessage) (any, error) {
		<-release
		return nil, c.Emit("late", 1) // abandoned: must append nothing
	})
	h.register("branchPanics", func(c *Context, _ json.RawMessage) (any, error) {
		return c.Parallel(func(*Context) (any, error) { panic("in branch") }, func(*Context) (any, error) { return 1, nil })
	})
	ctx := testCtx(t)
	var p *FlowPanicError
	if _, err := h.rt.Start(ctx, "panics", "p", nil); !errors.As(err, &p) || len(h.log("p")) != 1 {
		failf(t, "bad/panic", []string{"S1.P2.replay-identical"}, "Start(panics)", err, "*FlowPanicError, only EXECUTION_STARTED")
	}
	if _, err := h.rt.Start(ctx, "branchPanics", "b", nil); !errors.As(err, &p) {
		failf(t, "bad/branch-panic", []string{"S1.P2.replay-identical"}, "Start(branchPanics)", err, "*FlowPanicError")
	}
	var to *FlowTimeoutError
	if _, err := h.rt.Start(ctx, "hangs", "h", nil); !errors.As(err, &to) || len(h.log("h")) != 1 {
		failf(t, "bad/hang", []string{"S1.P2.replay-identical"}, "Start(hangs)", err, "*FlowTimeoutError, only EXECUTION_STARTED")
	}
	if _, err := h.rt.Resume(ctx, "nope", "g", json.RawMessage(`{`)); err == nil {
		failf(t, "bad/resume", []string{"S5.ingress.refusal-appends-nothing"}, "Resume(unknown, malformed)", nil, "an error")
	}
	h.register("g", gateFlow(h))
	h.ok(h.rt.Start(ctx, "g", "g", nil))
	n := len(h.log("g"))
	if _, err := h.rt.Resume(ctx, "g", "approve", json.RawMessage(`{"unterminated`)); err == nil || len(h.log("g")) != n {
		failf(t, "bad/resume-json", []string{"S5.ingress.refusal-appends-nothing"}, "Resume(malformed payload)", err, "an error, nothing appended")
	}
	if _, err := h.rt.Start(ctx, "g", "g", nil); err == nil {
		failf(t, "bad/start-twice", []string{"S2.state.shape"}, "Start twice", nil, "*ExecutionExistsError")
	}
}

// Reference: spec §2 Wave 2 syscalls behind their flags.
func TestWave2Syscalls(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Features = Features{ContinueAsNew: true, Receive: true, Select: true} })
	h.register("F", func(c *Context, in json.RawMessage) (any, error) {
		m, err := c.Receive("orders")
		if err != nil {
			return nil, err
		}
		i, m2, err := c.Select("a", "b")
		if err != nil {
			return nil, err
		}
		if string(in) == "null" {
			return nil, c.ContinueAsNew(map[string]any{"m": m, "i": i, "m2": m2})
		}
		return in, nil
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	if _, err := h.rt.Deliver(ctx, "x", "nobody", "m0", json.RawMessage(`0`)); err == nil {
		failf(t, "wave2/deliver", []string{"S2.syscalls.wave2-flagged"}, "Deliver(no wait)", nil, "refused")
	}
	h.ok(h.rt.Deliver(ctx, "x", "orders", "m1", json.RawMessage(`{"n":1}`)))
	res := h.ok(h.rt.Deliver(ctx, "x", "b", "m2", json.RawMessage(`"bee"`)))
	if res.Status != fold.StatusContinued || res.ContinuedTo != ContinuedID("x") {
		t.Fatalf("wave2: status %s continuedTo %q, want continued", res.Status, res.ContinuedTo)
	}
	st := h.state("x")
	if st.Status != fold.StatusContinued || len(st.Variables.WaitAnswers) != 2 {
		failf(t, "wave2/fold", []string{"S4.v1_23.continued", "S4.v1_23.wait-addressed-resume"}, "state", st.Status, "continued, two wait answers")
	}
	next := h.state(ContinuedID("x"))
	if got := string(next.Variables.Values["_input"]); got != `{"i":1,"m":{"n":1},"m2":"bee"}` {
		failf(t, "wave2/continue", []string{"S4.v1_23.continued"}, "next _input", got, `{"i":1,"m":{"n":1},"m2":"bee"}`)
	}
	res = h.ok(h.rt.Drive(ctx, ContinuedID("x")))
	if res.Status != fold.StatusSuspended || res.SuspendedOn != WaitGate {
		failf(t, "wave2/drive-next", []string{"S4.v1_23.continued"}, "Drive(next)", res.Status, "parked on its first receive")
	}
}

func TestDriveRefusesCrashedExecution(t *testing.T) {
	h, cs := newCrashHarness(t, nil)
	h.register("F", gateFlow(h))
	ctx := testCtx(t)
	cs.arm(isType("STEP_COMPLETED"))
	_, _ = h.rt.Start(ctx, "F", "x", nil)
	n := len(h.log("x"))
	var nr *NotRunnableError
	if _, err := h.rt.Drive(ctx, "x"); !errors.As(err, &nr) || len(h.log("x")) != n {
		failf(t, "drive/crashed", []string{"S5.ingress.always", "I-KERNEL-1"}, "Drive(crashed)", err, "*NotRunnableError, nothing appended")
	}
}

// Reference: spec §1 G2 — options present but unwired write byte-identical logs.
func TestUnwiredOptionsByteIdentical(t *testing.T) {
	run := func(mod func(*Config)) []byte {
		h := newHarness(t, mod)
		h.register("F", flowF(h))
		ctx := testCtx(t)
		h.ok(h.rt.Start(ctx, "F", "x", nil))
		h.ok(h.rt.Resume(ctx, "x", "approve", json.RawMessage(`{"ok":1}`)))
		b, _ := json.Marshal(h.log("x"))
		return b
	}
	plain := run(nil)
	wired := run(func(c *Config) {
		c.Snapshots = memory.NewSnapshotStore()
		c.Budget = Budget{}
		c.Effects = map[string]EffectDef{}
		c.Ingress = IngressOptions{}
		c.Features = Features{}
		c.Trace = func(string, EmitDecision) {}
	})
	if !bytes.Equal(plain, wired) {
		t.Errorf("g2 [S1.G2.unwired-byte-identical]: logs differ (-plain +unwired):\n%s", cmp.Diff(string(plain), string(wired)))
	}
	_ = spi.Envelope{}
}

// Reference: I-KERNEL-1 — a read-only replay whose flow no longer matches its log reports the
// divergence and writes nothing.
func TestReplayDivergenceReported(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", gateFlow(h))
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	n := len(h.log("x"))
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) { // a deploy renamed the gate
		if _, err := c.Run("A", h.effect("A", 1), nil); err != nil {
			return nil, err
		}
		return c.Suspend(SuspendConfig{On: "approve-v2"})
	})
	var div *ReplayDivergenceError
	if _, err := h.rt.Drive(ctx, "x"); !errors.As(err, &div) || len(h.log("x")) != n {
		failf(t, "replay/divergence", []string{"I-KERNEL-1", "S1.P2.replay-identical"}, "Drive after a gate rename", err, "*ReplayDivergenceError, nothing appended")
	}
}

// Reference: spec §8 — metering written by a userspace RESOURCE_METERED emit counts toward the
// budget exactly as the fold's _resources does.
func TestUserspaceMeteringCountsTowardBudget(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.Budget = Budget{"costUsd": 1} })
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		if err := c.Emit("RESOURCE_METERED", map[string]any{"costUsd": 1.5}); err != nil {
			return nil, err
		}
		_, err := c.Run("s", h.effect("s", 1), nil)
		var q *QuotaExceededError
		if !errors.As(err, &q) {
			return nil, errors.New("the step was admitted")
		}
		return q.Dimension, nil
	})
	res := h.ok(h.rt.Start(testCtx(t), "F", "x", nil))
	if string(res.Output) != `"costUsd"` || h.callCount("s") != 0 {
		failf(t, "resources/userspace-meter", []string{"S8.budget.quota-exceeded", "S8.resources.metered-per-effect"}, "output, calls", []any{string(res.Output), h.callCount("s")}, `"costUsd", 0`)
	}
}

// Reference: I-KERNEL-1, spec §3 (a throwing decider is an outcome a re-run does not serve) — a
// decider that threw left no record, so a read-only replay of the finished flow asks it again:
// the same throw replays with nothing appended, a choice now is a divergence.
func TestReplayAsksThrowingDeciderAgain(t *testing.T) {
	clauses := []string{"I-KERNEL-1", "S3.emit.stamp-nothing-unserved"}
	h := newHarness(t, nil)
	throws := true
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		_, err := c.Decide("d", func(ctxT) (any, error) {
			h.count("d")
			if throws {
				return nil, errors.New("no choice")
			}
			return 1, nil
		})
		var de *DeciderError
		if !errors.As(err, &de) {
			return "chose", err
		}
		return "threw", nil
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	n := len(h.log("x"))
	res, err := h.rt.Drive(ctx, "x")
	if err != nil || len(res.Appended) != 0 || len(h.log("x")) != n || h.callCount("d") != 2 {
		failf(t, "replay/throwing-decider", clauses, "Drive of the finished flow (appended, decider calls)",
			[]any{err, len(h.log("x")) - n, h.callCount("d")}, "[<nil> 0 2]")
	}
	throws = false
	var div *ReplayDivergenceError
	if _, err := h.rt.Drive(ctx, "x"); !errors.As(err, &div) || len(h.log("x")) != n {
		failf(t, "replay/throwing-decider", clauses, "Drive when the decider now chooses", err, "*ReplayDivergenceError, nothing appended")
	}
}

// Reference: spec §1 P10 (the opt-in half: enforcement rings and optional runtimes are off until
// wired) — a runtime configured with a store only runs no ring and no optional runtime: the Wave 2
// syscalls are disabled, metering far past any budget is never refused, a resume records no
// approval, a timed park records no wakeAt, snapshots are refused, and the log holds only the
// flow's own mechanism events.
func TestZeroConfigEnablesNothingOptional(t *testing.T) {
	clauses := []string{"S1.P10.minimal-kernel", "S1.G2.opt-in"}
	h := newHarness(t, nil) // Store plus deterministic clock and ids: no option wired
	huge := 1e11
	var waveErrs []error
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		_, e1 := c.Receive("t")
		_, _, e2 := c.Select("t")
		e3 := c.ContinueAsNew(1)
		waveErrs = []error{e1, e2, e3}
		for _, id := range []string{"a", "b"} {
			if _, err := c.Run(id, func(ec *EffectContext, _ json.RawMessage) (any, error) {
				return 1, ec.Meter(Usage{Tokens: &huge, CostUSD: &huge})
			}, nil); err != nil {
				return nil, err // a budget ring would refuse b
			}
		}
		return c.Suspend(SuspendConfig{On: "approve", Timeout: time.Hour})
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	h.ok(h.rt.Resume(ctx, "x", "approve", json.RawMessage(`1`)))
	var disabled *SyscallDisabledError
	for i, err := range waveErrs {
		if !errors.As(err, &disabled) {
			failf(t, "kernel/zero-config", clauses, fmt.Sprintf("wave 2 syscall %d", i), err, "*SyscallDisabledError")
		}
	}
	want := []string{"EXECUTION_STARTED", "STEP_STARTED", "RESOURCE_METERED", "STEP_COMPLETED", "STEP_STARTED", "RESOURCE_METERED",
		"STEP_COMPLETED", "EXECUTION_SUSPENDED", "approve", "EXECUTION_RESUMED", "EXECUTION_COMPLETED"}
	if d := cmp.Diff(want, types(h.log("x"))); d != "" {
		failf(t, "kernel/zero-config", clauses, "log of a store-only runtime (-want +got)", d, "mechanism events only")
	}
	for _, e := range h.log("x") {
		if e.EventType == "EXECUTION_SUSPENDED" && strings.Contains(string(e.Payload), "wakeAt") {
			failf(t, "kernel/zero-config", clauses, "timed park without a TimerStore", string(e.Payload), "no wakeAt")
		}
	}
	if _, err := h.rt.Snapshot(ctx, "x"); err == nil {
		failf(t, "kernel/zero-config", clauses, "Snapshot without a SnapshotStore", nil, "an error")
	}
}
