package kits

import (
	"context"
	"fmt"
)

// takeoverPackages is how many expired leases dConcurrentTakeover's workers race to take over.
const takeoverPackages = 96

// dConcurrentTakeover: a worker claims every package of the case on a short lease and never acks
// (it crashed); once the leases are dead, four workers race to take them over, each acking what it
// gets. Each package must be re-delivered exactly once: a takeover that sees the dead lease and
// then re-leases the package in a second step (one round trip apart, a natural window) hands one
// package to two workers, and the first one's ack finds its lease lost (I-DISPATCH-4, I-COV-5).
func dConcurrentTakeover(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	const n, workers = takeoverPackages, 4
	for i := range n {
		if err := dispatch(ctx, c, pkgFor(c, fmt.Sprintf("takeover%d", i), ts[c.Rand.Intn(len(ts))])); err != nil {
			return err
		}
	}
	held := 0
	for held < n {
		c.Progress(held, n)
		l, claimed, err := claimTimed(ctx, c, claimReq("kit-w0", shortTTL, ts...), "dispatching")
		if err != nil {
			return err
		}
		held++
		if held == n {
			// The last lease was taken last: once it is dead, every one is.
			if err := waitExpired(ctx, l, shortTTL, claimed); err != nil {
				return err
			}
		}
	}
	return raceClaims(ctx, c, ts, n, workers, fmt.Sprintf(" after (kit-w0 held all %d on %s leases that expired", n, shortTTL))
}
