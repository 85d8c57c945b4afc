package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

// hintsOf returns compact ASCII hints of exactly n bytes (n >= 12), so every way of counting a
// JSON text's bytes agrees on its size.
func hintsOf(n int) json.RawMessage {
	return json.RawMessage(`{"state":"` + strings.Repeat("x", n-12) + `"}`)
}

func dCoordinates(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	bad := []struct {
		name string
		p    spi.ExecutionPackage
	}{
		{"empty executionId", spi.ExecutionPackage{FlowID: "f"}},
		{"empty flowId", spi.ExecutionPackage{ExecutionID: c.ExecID("noflow")}},
		{"hints an array", spi.ExecutionPackage{ExecutionID: c.ExecID("arr"), FlowID: "f", Hints: []byte(`[1]`)}},
		{"hints a string", spi.ExecutionPackage{ExecutionID: c.ExecID("str"), FlowID: "f", Hints: []byte(`"code"`)}},
		{fmt.Sprintf("hints of %d bytes", spi.MaxHintsBytes+1), spi.ExecutionPackage{ExecutionID: c.ExecID("big"), FlowID: "f", Hints: hintsOf(spi.MaxHintsBytes + 1)}},
	}
	for _, b := range bad {
		if err := c.Store.Dispatch(ctx, b.p); !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Dispatch", b.name, err, "an invalid-argument refusal")
		}
	}
	// Delivered exactly as dispatched: every member, empty values included (I-DISPATCH-2).
	sent := []struct {
		name string
		p    spi.ExecutionPackage
	}{
		{"hints with a number beyond 2^64 and unicode", spi.ExecutionPackage{Target: ts[0], Hints: []byte(`{"resume":{"eventType":"approval","n":12345678901234567890,"note":"ünï ✓"},"reason":"recover"}`)}},
		{"empty hints", spi.ExecutionPackage{Target: ts[0], Hints: []byte(`{}`)}},
		{"hints with empty members", spi.ExecutionPackage{Target: ts[0], Hints: []byte(`{"s":"","o":{},"a":[],"n":null,"z":0,"f":false,"deep":{"e":""}}`)}},
		{"no hints, unpinned", spi.ExecutionPackage{}},
		{fmt.Sprintf("hints of exactly %d bytes", spi.MaxHintsBytes), spi.ExecutionPackage{Target: ts[0], Hints: hintsOf(spi.MaxHintsBytes)}},
	}
	for i := range sent {
		sent[i].p.ExecutionID, sent[i].p.FlowID = c.ExecID("coords"), "kit-flow"
		if err := c.Store.Dispatch(ctx, sent[i].p); err != nil {
			return c.Failf("Dispatch", fmt.Sprintf("%q with %s", sent[i].p.ExecutionID, sent[i].name), err, "nil")
		}
	}
	if queueOf(c) == nil {
		return nil
	}
	byID := map[string]int{}
	for i, x := range sent {
		byID[x.p.ExecutionID] = i
	}
	for range sent {
		l, err := await(ctx, c, claimReq("kit-w1", longTTL, ts...), fmt.Sprintf("dispatching %d packages", len(sent)))
		if err != nil {
			return err
		}
		i, ok := byID[l.Package.ExecutionID]
		if !ok {
			return c.Failf("Claim", "worker kit-w1", fmt.Sprintf("package %q, delivered twice or never dispatched", l.Package.ExecutionID), "one of the packages dispatched")
		}
		delete(byID, l.Package.ExecutionID)
		if err := c.Diff("Claim", fmt.Sprintf("worker kit-w1) delivering the package with (%s", sent[i].name), pkgView(sent[i].p), pkgView(l.Package)); err != nil {
			return err
		}
		if l.Delivery != 1 || l.Worker != "kit-w1" || l.Token == "" {
			return c.Failf("Claim", "first delivery", fmt.Sprintf("delivery %d, worker %q, token %q", l.Delivery, l.Worker, l.Token), "delivery 1 to kit-w1 with a token")
		}
		if err := ack(ctx, c, l); err != nil {
			return err
		}
	}
	return nil
}
