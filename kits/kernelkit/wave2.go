package kernelkit

import (
	"context"

	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/wire/carrier"
	"github.com/loom-kernel/loom-conform/wire/clients"
)

// wave2Checks: the Wave 2 syscalls and execution.deliver, when the handshake advertises them
// (I-WIRE-20, I-WIRE-21); a kernel without them skips these checks, naming why.
func wave2Checks() []kitCheck {
	return []kitCheck{runCheck("kernel/wave2/receive-select", "receive and select park; execution.deliver with attach records, kernel-stamped, MESSAGE_CONSUMED and a wait-addressed EXECUTION_RESUMED per message, and the re-drive is answered the message (select: {index, message})",
		receiveSelectScript(), "I-WIRE-20", "I-WIRE-21", "S4.v1_23.message-consumed", "S4.v1_23.wait-addressed-resume"),
		check("kernel/wave2/deliver-refused", spec.MustNot, "execution.deliver on a topic no wait is open on, or to a running execution, is refused -32023 (kind delivery-refused) with nothing appended",
			kkDeliverRefused, "I-WIRE-20", "I-WIRE-26")}
}

func receiveSelectScript() clients.Case {
	return scriptCase("receive-select", `{"format":"loom-flowscript/1","id":"kit.receive-select","features":["receive","select"],"body":[
		{"op":"receive","topic":"orders","bind":"m"},
		{"op":"select","topics":["a","b"],"bind":"s"}],"return":[{"$ref":"m"},{"$ref":"s"}]}`,
		`{"format":"loom-driver/1","actions":[{"do":"start"},
			{"do":"deliver","topic":"orders","messageId":"m1","message":{"id":1}},
			{"do":"deliver","topic":"b","messageId":"m2","message":"hello"}]}`)
}

func kkDeliverRefused(ctx context.Context, c *Case) error {
	if err := needMethods(ctx, c, carrier.MethodDeliver, "syscall.receive"); err != nil {
		return err
	}
	d, err := startExec(ctx, c, "deliver")
	if err != nil {
		return err
	}
	deliver := func(what, topic string) error {
		return appendsNothing(ctx, c, d.ExecutionID, "a deliver "+what, func() error {
			err := c.Store.Call(ctx, carrier.MethodDeliver, map[string]any{"executionId": d.ExecutionID, "topic": topic, "messageId": "m-" + topic, "message": 1, "attach": true}, nil)
			return wantError(c, carrier.MethodDeliver, topic+" ("+what+")", err, carrier.CodeRefused, "delivery-refused")
		})
	}
	if err := deliver("to a running execution", "orders"); err != nil {
		return err
	}
	if _, parked, err := d.Syscall(ctx, "receive", []byte(`{"topic":"orders"}`)); err != nil || !parked {
		return c.Failf("syscall.receive", `{"topic":"orders"}`, show(err, "not parked"), "parked on MESSAGE_CONSUMED")
	}
	return deliver("on a topic no wait is open on", "other")
}
