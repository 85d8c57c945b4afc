package bridgekit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
	"github.com/loom-kernel/loom-conform/wire/bridge"
)

// dispatcherCalls are harmless calls of every dispatcher wire method, for
// bridge/declared-methods-answer: each must answer, with a result or a typed error.
func dispatcherCalls(ctx context.Context, c *Case, x string) []namedCall {
	d := c.Store.Dispatcher()
	if d == nil {
		return nil
	}
	ghost := ghostLease(c)
	return []namedCall{
		{"dispatcher.targets", func() error { _, err := d.Targets(ctx); return err }},
		{"dispatcher.dispatch", func() error {
			return d.Dispatch(ctx, spi.ExecutionPackage{ExecutionID: x + "-probe", FlowID: "kit-flow"})
		}},
		{"dispatcher.claim", func() error {
			ts, err := d.Targets(ctx)
			if err != nil || len(ts) == 0 {
				return err
			}
			l, ok, err := d.Claim(ctx, spi.ClaimRequest{Worker: "kit-probe", Targets: ts, TTL: time.Minute})
			if ok && err == nil && l.Package.ExecutionID == x+"-probe" {
				err = d.Ack(ctx, l)
			}
			return err
		}},
		{"dispatcher.heartbeat", func() error { _, err := d.Heartbeat(ctx, ghost, time.Second); return answered(err) }},
		{"dispatcher.ack", func() error { return answered(d.Ack(ctx, ghost)) }},
	}
}

// ghostLease is a lease the dispatcher never issued.
func ghostLease(c *Case) spi.Lease {
	return spi.Lease{Token: c.ExecID("no-such-lease"), Package: spi.ExecutionPackage{ExecutionID: c.ExecID("ghost"), FlowID: "kit-flow"},
		Worker: "kit-w1", Delivery: 1, ExpiresAt: 1}
}

// answered treats a typed refusal as an answer (for calls whose point is that the method answers).
func answered(err error) error {
	var re *bridge.RemoteError
	if errors.As(err, &re) && re.RPC.Code != bridge.CodeMethodNotFound {
		return nil
	}
	return err
}

// dispatcherErrorCodes: an invalid package, an unregistered target and a lease the dispatcher does
// not hold arrive as -32005 (or -32602), -32009 and -32010 (I-BRIDGE-3).
func dispatcherErrorCodes(ctx context.Context, c *Case) error {
	d := c.Store.Dispatcher()
	if d == nil {
		return nil
	}
	if err := wantCode(c, "dispatcher.dispatch", `{executionId: "", flowId: "kit-flow"}`,
		d.Dispatch(ctx, spi.ExecutionPackage{FlowID: "kit-flow"}), invalidCodes...); err != nil {
		return err
	}
	// A dispatcher need not refuse an unregistered target itself (I-DISPATCH-5, a choice): the
	// code is judged when it does.
	unknown := c.ExecID("unregistered-target")
	if err := d.Dispatch(ctx, spi.ExecutionPackage{ExecutionID: c.ExecID("codes"), FlowID: "kit-flow", Target: unknown}); err != nil {
		if err := wantCode(c, "dispatcher.dispatch", fmt.Sprintf("a package pinned to %q (not registered)", unknown), err, bridge.CodeUnknownTarget); err != nil {
			return err
		}
	}
	if c.Store.Handshake().Declares(manifest.SeamExecutionDispatcher, spi.MethodAck) {
		if err := wantCode(c, "dispatcher.ack", "a lease never issued", d.Ack(ctx, ghostLease(c)), bridge.CodeLeaseLost); err != nil {
			return err
		}
	}
	return nil
}
