package deploysim

import (
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/reference/kernel"
)

// The simulated flows: an order (reserve, emit, approval gate, an at-most-once charge, emit; code
// v2 adds a notify step) and a batch (three steps and two emits, no gate). Effects are
// deterministic functions of their input, so a re-run produces the same output.

const (
	flowOrder = "order"
	flowBatch = "batch"
	gateOK    = "approval"
)

func codeHash(flow string, version int) string { return fmt.Sprintf("%s-v%d", flow, version) }

// flowDefs returns the flows of code version v (1 or 2).
func flowDefs(v int) []kernel.FlowDef {
	return []kernel.FlowDef{
		{ID: flowOrder, CodeHash: codeHash(flowOrder, v), Fn: orderFlow(v)},
		{ID: flowBatch, CodeHash: codeHash(flowBatch, v), Fn: batchFlow},
	}
}

func orderFlow(v int) kernel.Flow {
	return func(c *kernel.Context, input json.RawMessage) (any, error) {
		r, err := c.Execute(kernel.Task{ID: "reserve", ToolID: "reserve"}, input)
		if err != nil {
			return nil, err
		}
		if err := c.Emit("order.reserved", map[string]any{"reservation": r}); err != nil {
			return nil, err
		}
		ans, err := c.Suspend(kernel.SuspendConfig{On: gateOK})
		if err != nil {
			return nil, err
		}
		ch, err := c.Execute(kernel.Task{ID: "charge", ToolID: "charge", AtMostOnce: true}, map[string]any{"reservation": r})
		if err != nil {
			return nil, err
		}
		if err := c.Emit("order.charged", map[string]any{"charge": ch}); err != nil {
			return nil, err
		}
		out := map[string]any{"reservation": r, "approval": ans, "charge": ch}
		if v >= 2 {
			n, err := c.Execute(kernel.Task{ID: "notify", ToolID: "notify"}, map[string]any{"charge": ch})
			if err != nil {
				return nil, err
			}
			out["notified"] = n
		}
		return out, nil
	}
}

func batchFlow(c *kernel.Context, input json.RawMessage) (any, error) {
	var outs []json.RawMessage
	for i, step := range []string{"load", "transform", "store"} {
		o, err := c.Execute(kernel.Task{ID: step, ToolID: "echo"}, map[string]any{"in": input, "i": i})
		if err != nil {
			return nil, err
		}
		outs = append(outs, o)
		if i%2 == 0 {
			if err := c.Emit("batch.progress", map[string]any{"step": step}); err != nil {
				return nil, err
			}
		}
	}
	return outs, nil
}

// effectFns are the deterministic effects; atMostOnce names the ones that must not run twice.
var (
	effectFns = map[string]func(json.RawMessage) any{
		"reserve": func(in json.RawMessage) any { return map[string]any{"reserved": json.RawMessage(in)} },
		"charge":  func(in json.RawMessage) any { return map[string]any{"charged": json.RawMessage(in)} },
		"notify":  func(json.RawMessage) any { return "sent" },
		"echo":    func(in json.RawMessage) any { return json.RawMessage(in) },
	}
	atMostOnce = map[string]bool{"charge": true}
)
