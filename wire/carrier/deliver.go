package carrier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loom-kernel/loom-conform/reference/kernel"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// deliver is execution.deliver (I-WIRE-20): it hands a message to an execution parked in receive
// or select on the topic (kernel.Runtime.Deliver: MESSAGE_CONSUMED and a wait-addressed
// EXECUTION_RESUMED, kernel-stamped) and re-runs it. With attach the caller becomes the driver and
// re-drives from the top, its receive or select answered by the message; without it the run
// waits for a driver, as a resume does. A topic with no open wait is refused (-32023) with
// nothing appended.
func (c *Carrier) deliver(ctx context.Context, raw json.RawMessage) (any, *bridge.RPCError) {
	var p struct {
		ExecutionID string          `json:"executionId"`
		Topic       string          `json:"topic"`
		MessageID   string          `json:"messageId"`
		Message     json.RawMessage `json:"message"`
		Attach      bool            `json:"attach"`
	}
	if err := decodeStrict(raw, &p); err != nil {
		return nil, invalid(MethodDeliver, err)
	}
	for _, f := range []struct{ name, v string }{{"executionId", p.ExecutionID}, {"topic", p.Topic}, {"messageId", p.MessageID}} {
		if f.v == "" {
			return nil, rpcErr(CodeInvalidParams, "params", "execution.deliver: params."+f.name+" is required", "field", f.name)
		}
	}
	if _, e := c.flowOf(ctx, p.ExecutionID); e != nil {
		return nil, e
	}
	if c.live(p.ExecutionID) {
		return nil, rpcErr(CodeRefused, "delivery-refused", fmt.Sprintf("deliver to %q on topic %q refused: the execution is running, not waiting for a message", p.ExecutionID, p.Topic), "topic", p.Topic)
	}
	s, e := c.newSession(p.ExecutionID, p.Attach, "live")
	if e != nil {
		return nil, e
	}
	msg := payloadOr(p.Message)
	if c.opts.Hooks.DropDeliveredMessage {
		msg = json.RawMessage("null")
	}
	return c.launch(s, func(ctx context.Context) (kernel.Result, error) {
		return c.rt.Deliver(ctx, p.ExecutionID, p.Topic, p.MessageID, msg)
	})
}

// deliveryRefused maps a refused delivery to its wire error (-32023, kind delivery-refused).
func deliveryRefused(err error) (*bridge.RPCError, bool) {
	var dr *kernel.DeliveryRefusedError
	if !errors.As(err, &dr) {
		return nil, false
	}
	return rpcErr(CodeRefused, "delivery-refused", err.Error(), "topic", dr.Topic), true
}
