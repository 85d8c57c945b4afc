package kernel

import (
	"encoding/json"
	"testing"
)

// Reference: spec §8 — EffectContext.resources reads the execution's metered totals: what earlier
// effects metered, live or served from the log on a re-run, plus this run's own.
func TestEffectReadsExecutionResources(t *testing.T) {
	h := newHarness(t, nil)
	tokens := 60.0
	h.register("F", func(c *Context, _ json.RawMessage) (any, error) {
		if _, err := c.Run("meter", func(ec *EffectContext, _ json.RawMessage) (any, error) {
			return nil, ec.Meter(Usage{Tokens: &tokens})
		}, nil); err != nil {
			return nil, err
		}
		if _, err := c.Suspend(SuspendConfig{On: "g"}); err != nil {
			return nil, err
		}
		return c.Run("read", func(ec *EffectContext, _ json.RawMessage) (any, error) {
			return ec.Resources(), nil
		}, nil)
	})
	ctx := testCtx(t)
	h.ok(h.rt.Start(ctx, "F", "x", nil))
	res := h.ok(h.rt.Resume(ctx, "x", "g", nil)) // a re-run: the metering effect is served, not re-run
	if string(res.Output) != `{"tokens":60}` {
		failf(t, "resources/read", []string{"S8.resources.metered-per-effect"}, "EffectContext.Resources() after a re-run", string(res.Output), `{"tokens":60}`)
	}
}
