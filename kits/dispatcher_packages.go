package kits

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// hintsOf returns compact ASCII hints of exactly n bytes (n >= 12), so every way of counting a
// JSON text's bytes agrees on its size.
func hintsOf(n int) json.RawMessage {
	return json.RawMessage(`{"state":"` + strings.Repeat("x", n-12) + `"}`)
}

// dCoordinates: a package is delivered as dispatched, nothing added or dropped (I-DISPATCH-14).
func dCoordinates(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	return deliveredAsSent(ctx, c, ts, []sentPackage{
		{"hints with nesting and unicode", spi.ExecutionPackage{Target: ts[0], Hints: []byte(`{"resume":{"eventType":"approval","n":1234567,"f":0.25,"note":"ünï ✓"},"reason":"recover"}`)}},
		{"empty hints", spi.ExecutionPackage{Target: ts[0], Hints: []byte(`{}`)}},
		{"hints with empty members", spi.ExecutionPackage{Target: ts[0], Hints: []byte(`{"s":"","o":{},"a":[],"n":null,"z":0,"f":false,"deep":{"e":""}}`)}},
		{"no hints, unpinned", spi.ExecutionPackage{}},
	})
}

// dExactStrings: ids, flow ids and hints are delivered as sent, string for string: never
// Unicode-normalised (é precomposed and e + U+0301 are two executions), never cut (an id of
// spi.MaxIDBytes bytes), and hints carrying the values of the round-trip corpus (I-DISPATCH-14,
// I-STORE-80).
func dExactStrings(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	// Within a few bytes of spi.MaxIDBytes: the case's id prefix grows by a digit now and then.
	long := "-long-" + strings.Repeat("x", max(0, spi.MaxIDBytes-len(c.ExecID("coords"))-len("-long-")-4))
	return deliveredAsSent(ctx, c, ts, []sentPackage{
		{"ids and hints in decomposed form (e + U+0301, A + U+030A)", spi.ExecutionPackage{ExecutionID: "-cafe\u0301", FlowID: "flow-cafe\u0301", Target: ts[0],
			Hints: []byte(`{"cafe\u0301":"A\u030a","nfc":"\u00c5","nfd":"A\u030a","ligature":"\ufb01"}`)}},
		{"ids and hints in composed form (é, Å)", spi.ExecutionPackage{ExecutionID: "-caf\u00e9", FlowID: "flow-caf\u00e9", Target: ts[0],
			Hints: []byte(`{"caf\u00e9":"\u00c5"}`)}},
		{fmt.Sprintf("an execution id of about %d bytes", spi.MaxIDBytes), spi.ExecutionPackage{ExecutionID: long, Target: ts[0]}},
		{"hints with delimiters, escapes and numbers a double holds beyond int64", spi.ExecutionPackage{ExecutionID: "-a:b/c d%3A", FlowID: "flow:a/b", Target: ts[0],
			Hints: []byte(`{"e19":10000000000000000000,"p64":18446744073709551616,"k":0.1234567890123456,"a":[],"o":{},"s":"\u2028 \ud83e\uddf5 \\ \"","k:1":"x/y"}`)}},
	})
}

// dPackageShape: a package without ids, with hints that are not an object or over 4 096 bytes is
// an invalid argument; hints of exactly 4 096 bytes are accepted and delivered (I-DISPATCH-2,
// I-DISPATCH-10).
func dPackageShape(ctx context.Context, c *DispatcherCase) error {
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
	return deliveredAsSent(ctx, c, ts, []sentPackage{
		{fmt.Sprintf("hints of exactly %d bytes", spi.MaxHintsBytes), spi.ExecutionPackage{Target: ts[0], Hints: hintsOf(spi.MaxHintsBytes)}},
	})
}

// dRoundtripPrecision: hints with numbers a double cannot hold are delivered exactly (I-STORE-25).
func dRoundtripPrecision(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	return deliveredAsSent(ctx, c, ts, []sentPackage{
		{"hints with numbers a double cannot hold", spi.ExecutionPackage{Target: ts[0], Hints: []byte(`{"resume":{"n":12345678901234567890,"big":123456789012345678901234567890,"pi":3.141592653589793238462643383279}}`)}},
	})
}

// sentPackage is a package a check dispatches, named for its messages.
type sentPackage struct {
	name string
	p    spi.ExecutionPackage
}

// deliveredAsSent dispatches each package (with fresh ids) and, when the dispatcher has a worker
// side, claims them all serving targets ts and compares each delivery with what was sent
// (I-DISPATCH-14).
func deliveredAsSent(ctx context.Context, c *DispatcherCase, ts []string, sent []sentPackage) error {
	for i := range sent {
		// A package's ExecutionID, when set, is a suffix of the case's own id; a FlowID, when set,
		// is kept.
		sent[i].p.ExecutionID = c.ExecID("coords") + sent[i].p.ExecutionID
		if sent[i].p.FlowID == "" {
			sent[i].p.FlowID = "kit-flow"
		}
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

// dRefusalOrder: a package too large and pinned to an unregistered target is an invalid argument,
// not an unknown target; a heartbeat of a lease never issued is an invalid argument when its TTL
// is outside 1 ms .. 10 min, and a lost lease otherwise (I-STORE-56).
func dRefusalOrder(ctx context.Context, c *DispatcherCase) error {
	unknown := c.ExecID("unregistered-target")
	big := json.RawMessage(`{"state":"` + strings.Repeat("x", spi.MaxHintsBytes) + `"}`)
	err := c.Store.Dispatch(ctx, spi.ExecutionPackage{ExecutionID: c.ExecID("order"), FlowID: "kit-flow", Target: unknown, Hints: big})
	if e := expectErr(c, "Dispatch", fmt.Sprintf("a package with %d bytes of hints pinned to %q) with (too large, unregistered target", len(big), unknown), err, spi.ErrInvalidArgument); e != nil {
		return e
	}
	if !spi.Has(manifest.SeamExecutionDispatcher, c.Store, spi.MethodHeartbeat) {
		return nil
	}
	ghost := spi.Lease{Token: c.ExecID("no-such-lease"), Package: spi.ExecutionPackage{ExecutionID: c.ExecID("ghost"), FlowID: "kit-flow"},
		Worker: "kit-w1", Delivery: 1, ExpiresAt: 1}
	l, err := queueOf(c).Heartbeat(ctx, ghost, 0)
	if !errors.Is(err, spi.ErrInvalidArgument) {
		return c.Failf("Heartbeat", "a lease never issued, ttl 0", leaseOrErr(l, err), "an invalid-argument refusal")
	}
	l, err = queueOf(c).Heartbeat(ctx, ghost, time.Second)
	if !errors.Is(err, spi.ErrLeaseLost) {
		return c.Failf("Heartbeat", "a lease never issued, ttl 1s", leaseOrErr(l, err), "lease lost")
	}
	return nil
}
