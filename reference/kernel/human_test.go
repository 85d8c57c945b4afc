package kernel

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

// Reference: spec §5 — a human step consumes its _resumePayloads entry in order with suspends,
// live and on replay past the completed step; its park records condition.stepId.
func TestHumanStepConsumesEntriesInOrder(t *testing.T) {
	h := newHarness(t, nil)
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		a, err := c.Suspend(SuspendConfig{On: "first"})
		if err != nil {
			return nil, err
		}
		b, err := c.Execute(Task{ID: "review", Kind: KindHuman}, "please review")
		if err != nil {
			return nil, err
		}
		d, err := c.Suspend(SuspendConfig{On: "last"})
		if err != nil {
			return nil, err
		}
		return []json.RawMessage{a, b, d}, nil
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	h.ok(h.rt.Resume(ctx, "x", "first", json.RawMessage(`1`)))
	var on struct {
		On        string `json:"on"`
		Condition struct {
			StepID string `json:"stepId"`
		} `json:"condition"`
	}
	_ = json.Unmarshal(h.state("x").Variables.Values["_suspendedOn"], &on)
	if on.On != "review" || on.Condition.StepID != "review" {
		failf(t, "human/park", []string{"S5.human.condition-stepid"}, "_suspendedOn", on, "on review, condition.stepId review")
	}
	h.ok(h.rt.Resume(ctx, "x", "review", json.RawMessage(`"approved"`)))
	res := h.ok(h.rt.Resume(ctx, "x", "last", json.RawMessage(`3`)))
	if string(res.Output) != `[1,"approved",3]` {
		failf(t, "human/order", []string{"S5.ingress.human-step-entry", "S5.ingress.one-entry-per-suspend", "S5.replay.gates-in-order"}, "output", string(res.Output), `[1,"approved",3]`)
	}
	st := h.state("x")
	if st.Status != fold.StatusCompleted || string(st.Frames["review"].Output) != `"approved"` {
		failf(t, "human/frame", []string{"S5.ingress.human-step-entry"}, "frame output", string(st.Frames["review"].Output), `"approved"`)
	}
	if d := cmp.Diff(3, len(st.Variables.ResumePayloads)); d != "" {
		failf(t, "human/entries", []string{"S5.ingress.one-entry-per-suspend"}, "entries", len(st.Variables.ResumePayloads), 3)
	}
}

// Reference: spec §5 — resumeAs onto a terminal execution re-opens it (status only) and re-runs
// it on the target flow; onto a crashed one it records no EXECUTION_RESUMED.
func TestResumeAsOntoTerminalAndCrashed(t *testing.T) {
	h, cs := newCrashHarness(t, nil)
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		return c.Run("A", h.effect("A", 1), nil)
	})
	h.register("F2", func(c *Context, _ json.RawMessage) (any, error) {
		if _, err := c.Run("A", h.effect("A", 1), nil); err != nil {
			return nil, err
		}
		return c.Run("B", h.effect("B", 2), nil)
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "done", nil))
	res := h.ok(h.rt.ResumeAs(ctx, "done", ResumeAsRequest{FlowID: "F2"}))
	if string(res.Output) != "2" || h.callCount("A") != 1 || h.callCount("B") != 1 {
		failf(t, "resumeas/terminal", []string{"S5.ingress.resumeas-terminal-null", "S5.resumeas.crashed-namespace-only"}, "output, calls", []any{string(res.Output), h.callCount("A"), h.callCount("B")}, "2, A once, B once")
	}
	cs.arm(isType("STEP_COMPLETED"))
	_, _ = h.rt.Start(ctx, "F", "crashed", nil)
	before := len(h.log("crashed"))
	h.ok(h.rt.ResumeAs(ctx, "crashed", ResumeAsRequest{FlowID: "F2"}))
	for _, e := range h.log("crashed")[before:] {
		if e.EventType == "EXECUTION_RESUMED" {
			failf(t, "resumeas/crashed", []string{"S5.ingress.redrive-no-resumed"}, "appended", e.EventType, "no EXECUTION_RESUMED")
		}
	}
	if h.state("crashed").Status != fold.StatusCompleted {
		failf(t, "resumeas/crashed", []string{"S5.resumeas.crashed-namespace-only"}, "status", h.state("crashed").Status, "completed")
	}
}
