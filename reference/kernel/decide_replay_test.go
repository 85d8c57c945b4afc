package kernel

import (
	"context"
	"encoding/json"
	"testing"
)

// Reference: spec §4 (1.18.0, 1.24.0) — a decision replayed from the log serves its choice only:
// the recorded context, policy and seq are descriptive and never read back by the flow.
func TestDecideServesChoiceOnly(t *testing.T) {
	h := newHarness(t, nil)
	decided := 0
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		ch, err := c.Decide("pick", func(context.Context) (any, error) { decided++; return "a", nil },
			WithContext(map[string]any{"why": "cheapest"}), WithPolicy(map[string]any{"rule": "min"}))
		if err != nil {
			return nil, err
		}
		if _, err := c.Suspend(SuspendConfig{On: "g"}); err != nil {
			return nil, err
		}
		return ch, nil
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	if d := h.state("x").Variables.Decisions["pick"]; string(d.Context) != `{"why":"cheapest"}` || !d.HasSeq {
		failf(t, "decide/recorded", []string{"S4.v1_18.decision-context-policy", "S4.v1_24.decision-seq"}, "recorded entry", d, "context and seq recorded")
	}
	res := h.ok(h.rt.Resume(ctx, "x", "g", nil))
	if string(res.Output) != `"a"` || decided != 1 {
		failf(t, "decide/choice-only", []string{"S4.v1_18.getdecision-choice-only", "S4.v1_24.seq-descriptive"}, "replayed decision, decider calls",
			[]any{string(res.Output), decided}, []any{`"a"`, 1})
	}
}
