package kits

import (
	"context"
	"fmt"
	"strings"

	"github.com/loom-kernel/loom-conform/spi"
)

func dOrder(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	id := c.ExecID("order")
	p1 := spi.ExecutionPackage{ExecutionID: id, FlowID: "kit-flow", Target: ts[0], Hints: []byte(`{"n":1}`)}
	p2 := spi.ExecutionPackage{ExecutionID: id, FlowID: "kit-flow", Target: ts[0], Hints: []byte(`{"n":2}`)}
	if err := dispatch(ctx, c, p1); err != nil {
		return err
	}
	if err := dispatch(ctx, c, p2); err != nil {
		return err
	}
	l1, err := await(ctx, c, claimReq("kit-w1", longTTL, ts...), "two dispatches of one execution")
	if err != nil {
		return err
	}
	if err := c.Diff("Claim", "first of two packages of one execution", pkgView(p1), pkgView(l1.Package)); err != nil {
		return err
	}
	if err := never(ctx, c, claimReq("kit-w2", longTTL, ts...), "the execution's first package is leased"); err != nil {
		return err
	}
	if err := ack(ctx, c, l1); err != nil {
		return err
	}
	l2, err := await(ctx, c, claimReq("kit-w2", longTTL, ts...), "the first package was acked")
	if err != nil {
		return err
	}
	if err := c.Diff("Claim", "second package after the first was acked", pkgView(p2), pkgView(l2.Package)); err != nil {
		return err
	}
	return ack(ctx, c, l2)
}

func dClaimOldestDeliverable(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	// Executions A, B, C, D dispatched in the order A1 B1 A2 C1 D1: claims lease them oldest first,
	// except that A2 waits behind A1 (I-DISPATCH-6) and the leased A1 hides nothing else.
	a, b, cc, d := c.ExecID("oldest-a"), c.ExecID("oldest-b"), c.ExecID("oldest-c"), c.ExecID("oldest-d")
	mk := func(x string, n int) spi.ExecutionPackage {
		return spi.ExecutionPackage{ExecutionID: x, FlowID: "kit-flow", Target: ts[0], Hints: []byte(fmt.Sprintf(`{"n":%d}`, n))}
	}
	order := []spi.ExecutionPackage{mk(a, 1), mk(b, 1), mk(a, 2), mk(cc, 1), mk(d, 1)}
	for _, p := range order {
		if err := dispatch(ctx, c, p); err != nil {
			return err
		}
	}
	name := func(p spi.ExecutionPackage) string {
		return map[string]string{a: "A", b: "B", cc: "C", d: "D"}[p.ExecutionID] + strings.Trim(string(p.Hints), `{}"n:`)
	}
	want := []spi.ExecutionPackage{order[0], order[1], order[3], order[4]}
	var leases []spi.Lease
	// Whatever the verdict, this check's packages are settled at the end: one left leased or queued
	// would be delivered to the checks after it, and a dispatcher that claims only the head of its
	// queue (a choice, I-DISPATCH-12) would stall every one of them behind it.
	done := false
	defer func() {
		if done {
			return
		}
		for _, l := range leases {
			_ = queueOf(c).Ack(ctx, l)
		}
		for range order {
			l, ok, err := claimOne(ctx, c, claimReq("kit-w9", longTTL, ts...))
			if err != nil || !ok {
				return
			}
			_ = queueOf(c).Ack(ctx, l)
		}
	}()
	for i, p := range want {
		l, err := await(ctx, c, claimReq(fmt.Sprintf("kit-w%d", i+1), longTTL, ts...), fmt.Sprintf("dispatching A1 B1 A2 C1 D1 and leasing %d of them", i))
		if err != nil {
			return err
		}
		leases = append(leases, l)
		if got := name(l.Package); got != name(p) {
			return c.Failf("Claim", fmt.Sprintf("claim %d after dispatching A1 B1 A2 C1 D1) after (the earlier claims leased %s; A2 waits behind A1", i+1, packageNames(want[:i], name)),
				got, name(p)+", the oldest deliverable package")
		}
	}
	if err := never(ctx, c, claimReq("kit-w9", longTTL, ts...), "A1 B1 C1 D1 leased, A2 behind A1"); err != nil {
		return err
	}
	if err := ack(ctx, c, leases[0]); err != nil {
		return err
	}
	l, err := await(ctx, c, claimReq("kit-w9", longTTL, ts...), "A1 was acked")
	if err != nil {
		return err
	}
	leases = append(leases, l)
	if got := name(l.Package); got != "A2" {
		return c.Failf("Claim", "after A1 was acked", got, "A2")
	}
	done = true
	for _, l := range leases[1:] {
		if err := ack(ctx, c, l); err != nil {
			return err
		}
	}
	return nil
}
