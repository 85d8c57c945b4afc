package kernel

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/loom-kernel/loom-conform/reference/fold"
	"github.com/loom-kernel/loom-conform/reference/kernel/ingress"
	"github.com/loom-kernel/loom-conform/spi"
)

// Reference: WORKED-EXAMPLES.md "Ingress gate", spec §5 — the rows not walked elsewhere, through
// the runtime (a refusal appends nothing; an acceptance re-runs the flow).
func TestIngressWorkedExamplesThroughRuntime(t *testing.T) {
	ctx := testCtx(t)
	refusedWith := func(err error, reason string) bool {
		var r *ingress.ResumeRefusedError
		return errors.As(err, &r) && r.Reason == reason
	}

	t.Run("kernel-types-refused", func(t *testing.T) {
		h := newHarness(t, nil)
		h.register("F", gateFlow(h))
		h.ok(h.rt.Start(ctx, "F", "x", nil))
		n := len(h.log("x"))
		for _, et := range []string{"EXECUTION_MIGRATED", "APPROVAL_GRANTED", "DECISION_RECORDED", "EXECUTION_COMPLETED"} {
			if _, err := h.rt.Resume(ctx, "x", et, json.RawMessage(`{}`)); !refusedWith(err, ingress.ReasonKernelNamespace) || len(h.log("x")) != n {
				failf(t, "ingress-ex/kernel-namespace", []string{"S5.ingress.kernel-namespace", "S5.ingress.refusal-appends-nothing"}, "Resume("+et+")", err, "kernel-namespace, nothing appended")
			}
		}
	})

	t.Run("failed-while-parked", func(t *testing.T) {
		h := newHarness(t, nil)
		h.register("F", func(c *Context, _ json.RawMessage) (any, error) { return c.Suspend(SuspendConfig{On: "approve"}) })
		// S'': parked on approve, then a parallel sibling's STEP_FAILED landed.
		raw := func(s string) json.RawMessage { return json.RawMessage(s) }
		log := []spi.Envelope{
			{ID: "1", WorkflowID: "F", ExecutionID: "x", EventType: "EXECUTION_STARTED", Sequence: 0, Timestamp: 1, Payload: raw(`{"input":null,"flowId":"F"}`)},
			{ID: "2", WorkflowID: "F", ExecutionID: "x", EventType: "STEP_STARTED", Sequence: 1, Timestamp: 2, Payload: raw(`{"stepId":"sib","attempt":1}`)},
			{ID: "3", WorkflowID: "F", ExecutionID: "x", EventType: "EXECUTION_SUSPENDED", Sequence: 2, Timestamp: 3, Payload: raw(`{"on":"approve"}`)},
			{ID: "4", WorkflowID: "F", ExecutionID: "x", EventType: "STEP_FAILED", Sequence: 3, Timestamp: 4, Payload: raw(`{"stepId":"sib","error":{"message":"x"}}`)},
		}
		if err := h.store.Append(ctx, "x", log, spi.AppendOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := h.rt.Resume(ctx, "x", "approve", nil); !refusedWith(err, ingress.ReasonNullAfterParkedFailure) || len(h.log("x")) != 4 {
			failf(t, "ingress-ex/null-after-failure", []string{"S4.ingress.null-after-parked-failure"}, "Resume(approve, null)", err, "null-answer-after-parked-failure, nothing appended")
		}
		res := h.ok(h.rt.Resume(ctx, "x", "approve", json.RawMessage(`{"ok":false}`)))
		st := h.state("x")
		if res.Status != fold.StatusCompleted || string(res.Output) != `{"ok":false}` {
			failf(t, "ingress-ex/answer-after-failure", []string{"S4.fold.failed-while-parked-cleared"}, "Resume(approve, {ok:false})", res.Status, "accepted, flow completes with the answer")
		}
		if _, ok := st.Variables.Values["_failedWhileParked"]; ok {
			failf(t, "ingress-ex/flag-cleared", []string{"S4.fold.failed-while-parked-cleared"}, "_failedWhileParked", true, "cleared")
		}
	})

	t.Run("terminal", func(t *testing.T) {
		h := newHarness(t, nil)
		h.register("F", func(c *Context, _ json.RawMessage) (any, error) { return "done", nil })
		h.ok(h.rt.Start(ctx, "F", "x", nil))
		n := len(h.log("x"))
		for _, et := range []string{"approve", "EXECUTION_RECOVERED"} {
			_, err := h.rt.Resume(ctx, "x", et, json.RawMessage(`1`))
			if !refusedWith(err, ingress.ReasonTerminal) && !refusedWith(err, ingress.ReasonRecoveredNotRunning) || len(h.log("x")) != n {
				failf(t, "ingress-ex/terminal", []string{"S5.ingress.suspended-only", "S5.ingress.recovered-running-only"}, "Resume("+et+") on completed", err, "refused, nothing appended")
			}
		}
	})
}

// Reference: spec §5 — a pre-gate log whose _resumePayloads entry answered no suspend point is
// replayed as written (the entry is served to the next gate), and the runtime warns about it,
// saying whether it is spent.
func TestLegacyResumeEntryReplayedAndWarned(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		a, err := c.Suspend(SuspendConfig{On: "first"})
		if err != nil {
			return nil, err
		}
		b, err := c.Suspend(SuspendConfig{On: "second"})
		return []json.RawMessage{a, b}, err
	})
	ctx := testCtx(t)
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	log := []spi.Envelope{
		{ID: "1", WorkflowID: "F", ExecutionID: "x", EventType: "EXECUTION_STARTED", Sequence: 0, Timestamp: 1, Payload: raw(`{"input":null,"flowId":"F"}`)},
		{ID: "2", WorkflowID: "F", ExecutionID: "x", EventType: "EXECUTION_RESUMED", Sequence: 1, Timestamp: 2, Payload: raw(`"stray"`)},
		{ID: "3", WorkflowID: "F", ExecutionID: "x", EventType: "EXECUTION_SUSPENDED", Sequence: 2, Timestamp: 3, Payload: raw(`{"on":"second"}`)},
	}
	if err := h.store.Append(ctx, "x", log, spi.AppendOptions{}); err != nil {
		t.Fatal(err)
	}
	res := h.ok(h.rt.Resume(ctx, "x", "second", raw(`2`)))
	if string(res.Output) != `["stray",2]` {
		failf(t, "legacy/as-written", []string{"S5.ingress.legacy-as-written"}, "output", string(res.Output), `["stray",2]`)
	}
	found := false
	for _, w := range h.warns {
		if w.Code == "legacy-resume-entry" {
			found = true
		}
	}
	if !found {
		failf(t, "legacy/warn", []string{"S5.ingress.legacy-warn"}, "warnings", h.warns, "a legacy-resume-entry warning")
	}
}
