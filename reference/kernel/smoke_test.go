package kernel

import (
	"encoding/json"
	"testing"
)

func TestSmoke(t *testing.T) {
	h := newHarness(t, nil)
	ctx := testCtx(t)
	h.register("f", func(c *Context, in json.RawMessage) (any, error) {
		a, err := c.Run("A", h.effect("A", 1), nil)
		if err != nil {
			return nil, err
		}
		if err := c.Emit("progress", map[string]int{"p": 1}); err != nil {
			return nil, err
		}
		x, err := c.Suspend(SuspendConfig{On: "approve"})
		if err != nil {
			return nil, err
		}
		return map[string]any{"a": a, "x": x}, nil
	})
	res := h.ok(h.rt.Start(ctx, "f", "e1", map[string]int{"in": 1}))
	t.Logf("%+v %v", res.Status, types(h.log("e1")))
	res = h.ok(h.rt.Resume(ctx, "e1", "approve", json.RawMessage(`{"ok":true}`)))
	t.Logf("%+v %s %v", res.Status, res.Output, types(h.log("e1")))
	if h.callCount("A") != 1 {
		t.Fatal("A ran", h.callCount("A"))
	}
}
