package kits

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/spi"
)

func dExclusive(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	if err := dispatch(ctx, c, pkgFor(c, "excl", ts[0])); err != nil {
		return err
	}
	l, err := await(ctx, c, claimReq("kit-w1", longTTL, ts...), "dispatching")
	if err != nil {
		return err
	}
	if err := never(ctx, c, claimReq("kit-w2", longTTL, ts...), "kit-w1 leased it for "+longTTL.String()); err != nil {
		return err
	}
	return ack(ctx, c, l)
}

// crashed dispatches a package, leases it to kit-w1 with a short TTL and never acks (kit-w1 died),
// then waits for kit-w2 to receive it.
func crashed(ctx context.Context, c *DispatcherCase) (first, second spi.Lease, err error) {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return first, second, err
	}
	p := pkgFor(c, "crash", ts[0])
	if err = dispatch(ctx, c, p); err != nil {
		return
	}
	if first, err = await(ctx, c, claimReq("kit-w1", shortTTL, ts...), "dispatching"); err != nil {
		return
	}
	second, err = await(ctx, c, claimReq("kit-w2", longTTL, ts...), "kit-w1 crashed holding a "+shortTTL.String()+" lease")
	if err != nil {
		return
	}
	if err = c.Diff("Claim", "kit-w2 after kit-w1 crashed", pkgView(p), pkgView(second.Package)); err != nil {
		return
	}
	if second.Delivery != first.Delivery+1 || second.Token == first.Token {
		err = c.Failf("Claim", "kit-w2 after kit-w1 crashed", fmt.Sprintf("delivery %d token %q", second.Delivery, second.Token),
			fmt.Sprintf("delivery %d with a new token", first.Delivery+1))
	}
	return
}

func dRedeliver(ctx context.Context, c *DispatcherCase) error {
	_, second, err := crashed(ctx, c)
	if err != nil {
		return err
	}
	return ack(ctx, c, second)
}

func dDeadLease(ctx context.Context, c *DispatcherCase) error {
	first, second, err := crashed(ctx, c)
	if err != nil {
		return err
	}
	q := queueOf(c)
	if _, err := q.Heartbeat(ctx, first, longTTL); !errors.Is(err, spi.ErrLeaseLost) {
		return c.Failf("Heartbeat", fmt.Sprintf("dead lease %q) after (re-delivery", first.Token), err, "lease lost")
	}
	if err := q.Ack(ctx, first); !errors.Is(err, spi.ErrLeaseLost) {
		return c.Failf("Ack", fmt.Sprintf("dead lease %q) after (re-delivery", first.Token), err, "lease lost")
	}
	if err := ack(ctx, c, second); err != nil {
		return err
	}
	ts, _ := c.Store.Targets(ctx)
	return never(ctx, c, claimReq("kit-w3", longTTL, ts...), "the live holder acked")
}

func dHeartbeat(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	if err := dispatch(ctx, c, pkgFor(c, "beat", ts[0])); err != nil {
		return err
	}
	// One and a half times the TTL in 12 heartbeats, each after a claim by another worker that must
	// get nothing: a lease that heartbeats do not extend is delivered again past its first expiry.
	const ttl, beats = time.Second, 12
	l, err := await(ctx, c, claimReq("kit-w1", ttl, ts...), "dispatching")
	if err != nil {
		return err
	}
	last := time.Now()
	var worstGap time.Duration
	for i := 0; i < beats; i++ {
		c.Progress(i, beats)
		if err := sleep(ctx, ttl/8); err != nil {
			return err
		}
		if l2, ok, err := claimOne(ctx, c, claimReq("kit-w2", longTTL, ts...)); err != nil {
			return err
		} else if ok {
			if worstGap >= ttl*3/4 || time.Since(last) >= ttl*3/4 {
				return c.Unknown("heartbeats were %s apart (the lease is %s): the machine stalled, no judgement", max(worstGap, time.Since(last)), ttl)
			}
			return c.Failf("Claim", fmt.Sprintf("kit-w2) while (kit-w1 heartbeats every %s on a %s lease", ttl/8, ttl),
				fmt.Sprintf("delivery %d", l2.Delivery), "no delivery")
		}
		nl, err := queueOf(c).Heartbeat(ctx, l, ttl)
		if err != nil {
			return c.Failf("Heartbeat", fmt.Sprintf("live lease %q", l.Token), err, "the extended lease")
		}
		worstGap = max(worstGap, time.Since(last))
		last, l = time.Now(), nl
	}
	return ack(ctx, c, l)
}

func dAckFinal(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	if err := dispatch(ctx, c, pkgFor(c, "acked", ts[0])); err != nil {
		return err
	}
	l, err := await(ctx, c, claimReq("kit-w1", shortTTL, ts...), "dispatching")
	if err != nil {
		return err
	}
	if err := ack(ctx, c, l); err != nil {
		return err
	}
	return never(ctx, c, claimReq("kit-w2", longTTL, ts...), "kit-w1 acked its "+shortTTL.String()+" lease")
}

// concurrentPackages is how many packages dConcurrent's workers race for.
const concurrentPackages = 96

func dConcurrent(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	// concurrentPackages packages, so the workers' claims overlap many times: a claim that picks a
	// package and then leases it over one round trip (a natural window) leases one package twice
	// on at least 99 % of seeds (docs/performance.md); 24 packages did on 99 of 100.
	const n, workers = concurrentPackages, 4
	for i := range n {
		p := pkgFor(c, fmt.Sprintf("conc%d", i), ts[c.Rand.Intn(len(ts))])
		if err := dispatch(ctx, c, p); err != nil {
			return err
		}
	}
	return raceClaims(ctx, c, ts, n, workers, "")
}

// raceClaims has workers claim concurrently, each acking what it gets, until every one has met
// awaitClaims empty claims in a row; then each of the case's n packages must have been delivered
// exactly once, every ack answered nil. setup says what came before, for the failure message.
func raceClaims(ctx context.Context, c *DispatcherCase, ts []string, n, workers int, setup string) error {
	type got struct {
		worker string
		l      spi.Lease
		err    error
	}
	var mu sync.Mutex
	var gots []got
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, g := range gots {
			if g.err != nil {
				return true
			}
		}
		return false
	}
	// claimAck claims once as worker and acks what it got; each delivery (or error) is recorded.
	claimAck := func(worker string) (bool, error) {
		l, ok, err := claimOne(ctx, c, claimReq(worker, longTTL, ts...))
		if err == nil && ok {
			err = queueOf(c).Ack(ctx, l)
		}
		if err != nil || ok {
			mu.Lock()
			gots = append(gots, got{worker, l, err})
			mu.Unlock()
		}
		return ok, err
	}
	// First in lockstep: each round releases every worker at once to claim once (and ack what it
	// got), so a round's claims start together — the workers, parked on the gate, are made
	// runnable together — whatever else the machine or this process runs. Free-running workers on
	// a loaded machine can each go through the queue alone; a claim that picks and then leases
	// over one yield (a natural window) then escaped on 2 seeds in 100 (docs/performance.md).
	for round := 0; round < n/workers && ctx.Err() == nil && !failed(); round++ {
		gate := make(chan struct{})
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Recover()
				<-gate
				_, _ = claimAck(fmt.Sprintf("kit-w%d", w+1))
			}()
		}
		close(gate)
		wg.Wait()
	}
	// Then free-running, each worker until it has met awaitClaims empty claims in a row (a
	// dispatcher may be slow to make a package deliverable), a few once every package arrived.
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Recover()
			name := fmt.Sprintf("kit-w%d", w+1)
			for empty := 0; empty < awaitClaims && ctx.Err() == nil && !failed(); {
				mu.Lock()
				all := len(gots) >= n
				mu.Unlock()
				if all {
					// Everything arrived: a few more claims must find nothing.
					empty = max(empty, awaitClaims-quietClaims)
				}
				ok, err := claimAck(name)
				if err != nil {
					return
				}
				if ok {
					continue
				}
				empty++
				if sleep(ctx, awaitPause) != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	seen := map[string]string{}
	for _, g := range gots {
		if g.err != nil {
			return c.Failf("Claim/Ack", g.worker+setup, g.err, "nil")
		}
		if prev, dup := seen[g.l.Package.ExecutionID]; dup {
			return c.Failf("Claim", fmt.Sprintf("%d workers claiming concurrently%s", workers, setup),
				fmt.Sprintf("%q delivered to %s and %s", g.l.Package.ExecutionID, prev, g.worker), "each package exactly once")
		}
		seen[g.l.Package.ExecutionID] = g.worker
	}
	if len(seen) < n {
		return c.Failf("Claim", fmt.Sprintf("%d workers claiming concurrently, each until %d empty claims%s", workers, awaitClaims, setup), fmt.Sprintf("%d of %d packages delivered", len(seen), n), "all of them")
	}
	return nil
}

func dExpiredLeaseDead(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	if err := dispatch(ctx, c, pkgFor(c, "expired", ts[0])); err != nil {
		return err
	}
	l, claimed, err := claimTimed(ctx, c, claimReq("kit-w1", shortTTL, ts...), "dispatching")
	if err != nil {
		return err
	}
	// Nobody claims meanwhile: the lease dies of age alone.
	if err := waitExpired(ctx, l, shortTTL, claimed); err != nil {
		return err
	}
	q := queueOf(c)
	what := fmt.Sprintf("dead lease %q) past its expiresAt (%d, a %s lease; nobody claimed its package since", l.Token, l.ExpiresAt, shortTTL)
	if nl, err := q.Heartbeat(ctx, l, longTTL); !errors.Is(err, spi.ErrLeaseLost) {
		return c.Failf("Heartbeat", what, leaseOrErr(nl, err), "lease lost")
	}
	if err := q.Ack(ctx, l); !errors.Is(err, spi.ErrLeaseLost) {
		return c.Failf("Ack", what, err, "lease lost")
	}
	again, err := await(ctx, c, claimReq("kit-w2", longTTL, ts...), "kit-w1's lease expired unacked")
	if err != nil {
		return err
	}
	if again.Delivery != l.Delivery+1 || again.Token == l.Token {
		return c.Failf("Claim", "kit-w2 after kit-w1's lease expired", fmt.Sprintf("delivery %d token %q", again.Delivery, again.Token),
			fmt.Sprintf("delivery %d with a new token", l.Delivery+1))
	}
	return ack(ctx, c, again)
}

// dLeaseTTLBounds: a claim or heartbeat TTL outside 1 ms .. 10 min is an invalid argument
// (I-DISPATCH-13).
func dLeaseTTLBounds(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	q := queueOf(c)
	outside := []time.Duration{0, -time.Second, spi.MaxLeaseTTL + time.Millisecond}
	for _, ttl := range outside {
		l, ok, err := q.Claim(ctx, claimReq("kit-w1", ttl, ts...))
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Claim", fmt.Sprintf("worker kit-w1, ttl %s", ttl), claimOrErr(l, ok, err), "an invalid-argument refusal (a TTL is 1 ms .. 10 min)")
		}
	}
	if err := dispatch(ctx, c, pkgFor(c, "ttl-bounds", ts[0])); err != nil {
		return err
	}
	l, err := await(ctx, c, claimReq("kit-w1", longTTL, ts...), "dispatching")
	if err != nil {
		return err
	}
	for _, ttl := range outside {
		nl, err := q.Heartbeat(ctx, l, ttl)
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Heartbeat", fmt.Sprintf("live lease %q, ttl %s", l.Token, ttl), leaseOrErr(nl, err), "an invalid-argument refusal (a TTL is 1 ms .. 10 min)")
		}
	}
	return ack(ctx, c, l)
}

func dLeaseTerms(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	q := queueOf(c)
	if err := dispatch(ctx, c, pkgFor(c, "terms", ts[0])); err != nil {
		return err
	}
	const ttl = time.Minute
	before := time.Now()
	l, err := await(ctx, c, claimReq("kit-w1", ttl, ts...), "dispatching")
	if err != nil {
		return err
	}
	if l.Token == "" || l.Worker != "kit-w1" || l.Delivery != 1 {
		return c.Failf("Claim", "worker kit-w1, first delivery", fmt.Sprintf("token %q, worker %q, delivery %d", l.Token, l.Worker, l.Delivery), "a token, worker kit-w1, delivery 1")
	}
	if l.ExpiresAt < 1e12 || l.ExpiresAt >= 1e13 {
		return c.Failf("Claim", fmt.Sprintf("worker kit-w1, ttl %s) at (%d ms on the kit's clock", ttl, before.UnixMilli()), fmt.Sprintf("expiresAt %d", l.ExpiresAt), "epoch milliseconds, 10^12 <= expiresAt < 10^13")
	}
	nl, err := q.Heartbeat(ctx, l, 2*ttl)
	if err != nil {
		return c.Failf("Heartbeat", fmt.Sprintf("live lease %q, ttl %s", l.Token, 2*ttl), err, "the extended lease")
	}
	if nl.ExpiresAt <= l.ExpiresAt {
		return c.Failf("Heartbeat", fmt.Sprintf("live lease %q (expiresAt %d), ttl %s", l.Token, l.ExpiresAt, 2*ttl), fmt.Sprintf("expiresAt %d", nl.ExpiresAt), fmt.Sprintf("later than %d", l.ExpiresAt))
	}
	return ack(ctx, c, nl)
}

// dExclusiveWholeTTL: a lease is exclusive for the whole of its TTL, not part of it (I-DISPATCH-4).
// kit-w2 claims through the life of kit-w1's lease; a claim that returned before the lease
// certainly expired (its TTL after kit-w1's claim was sent, less a margin) and got the package is a
// takeover. The watch is a fixed number of claims; when too few of them landed in the second half
// of the lease (a stalled machine) there is no verdict.
func dExclusiveWholeTTL(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	if err := dispatch(ctx, c, pkgFor(c, "excl-ttl", ts[0])); err != nil {
		return err
	}
	const ttl, watches = 1200 * time.Millisecond, 24
	const margin = 100 * time.Millisecond
	sent := time.Now()
	l, err := await(ctx, c, claimReq("kit-w1", ttl, ts...), "dispatching")
	if err != nil {
		return err
	}
	// Whatever the verdict, the package is settled at the end: one left in the queue is delivered
	// to the checks after this one, and a dispatcher that claims only its head (a choice) would
	// stall every one of them behind it.
	settled := false
	defer func() {
		if !settled && queueOf(c).Ack(ctx, l) != nil {
			if l2, ok, err := claimOne(ctx, c, claimReq("kit-w1", ttl, ts...)); err == nil && ok {
				_ = queueOf(c).Ack(ctx, l2)
			}
		}
	}()
	if time.Since(sent) > ttl/4 {
		return c.Unknown("claiming the package took %s of its %s lease: the machine is too slow to watch the lease, no judgement", time.Since(sent).Round(time.Millisecond), ttl)
	}
	sent = time.Now().Add(-time.Since(sent)) // the lease started no earlier than the claim was sent
	live := sent.Add(ttl - margin)
	late := 0
	for i := 0; i < watches; i++ {
		c.Progress(i, watches)
		l2, ok, err := claimOne(ctx, c, claimReq("kit-w2", longTTL, ts...))
		if err != nil {
			return err
		}
		returned := time.Now()
		if ok {
			_ = queueOf(c).Ack(ctx, l2)
			settled = true
			if returned.Before(live) {
				return c.Failf("Claim", fmt.Sprintf("kit-w2) %s after (kit-w1 claimed it with a %s lease", returned.Sub(sent).Round(time.Millisecond), ttl),
					fmt.Sprintf("delivery %d of %q", l2.Delivery, l2.Package.ExecutionID), "no delivery: the lease is exclusive for its whole TTL")
			}
			return nil // the lease had expired: a legitimate re-delivery ends the watch
		}
		if returned.Before(live) && returned.After(sent.Add(ttl/2)) {
			late++
		}
		if err := sleep(ctx, ttl/time.Duration(watches)); err != nil {
			return err
		}
	}
	if late < 3 {
		return c.Unknown("only %d of %d claims returned in the second half of the %s lease (the machine stalled): no judgement", late, watches, ttl)
	}
	_ = queueOf(c).Ack(ctx, l) // it may have expired meanwhile
	return nil
}

// dHeartbeatFromNow: a heartbeat renews a lease for its TTL from the dispatcher's now, never from
// the old expiry (I-DISPATCH-30): a 1 s heartbeat on a 60 s lease leaves about 1 s, and the
// package is delivered again once that second has passed.
func dHeartbeatFromNow(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	if err := dispatch(ctx, c, pkgFor(c, "beat-now", ts[0])); err != nil {
		return err
	}
	const long, short = time.Minute, time.Second
	sent := time.Now()
	l, err := await(ctx, c, claimReq("kit-w1", long, ts...), "dispatching")
	if err != nil {
		return err
	}
	nl, err := queueOf(c).Heartbeat(ctx, l, short)
	if err != nil {
		return c.Failf("Heartbeat", fmt.Sprintf("live lease %q, ttl %s", l.Token, short), err, "the renewed lease")
	}
	// On the dispatcher's clock the claim set expiresAt = now₁ + 60 s and the heartbeat set
	// now₂ + 1 s, with now₂ - now₁ at most the time the kit spent from sending the claim to the
	// heartbeat's answer.
	spent := time.Since(sent)
	limit := l.ExpiresAt - long.Milliseconds() + spent.Milliseconds() + short.Milliseconds() + 1
	if nl.ExpiresAt > limit {
		return c.Cite("I-DISPATCH-30").Failf("Heartbeat", fmt.Sprintf("live lease %q (expiresAt %d, a %s lease), ttl %s) %s after (the claim", l.Token, l.ExpiresAt, long, short, spent.Round(time.Millisecond)),
			fmt.Sprintf("expiresAt %d (%+d ms from the old expiry)", nl.ExpiresAt, nl.ExpiresAt-l.ExpiresAt), fmt.Sprintf("at most %d: the dispatcher's now plus %s, not the old expiry plus it", limit, short))
	}
	again, err := await(ctx, c, claimReq("kit-w2", long, ts...), fmt.Sprintf("kit-w1 renewed its %s lease for %s and stopped", long, short))
	if err != nil {
		return err
	}
	return ack(ctx, c, again)
}

// dHeartbeatAfterAck: an acknowledged lease is over: its package is never delivered again, whatever
// is done with the lease (I-DISPATCH-3), and a heartbeat or a second ack of it answers lease lost
// (I-DISPATCH-31, recommended).
func dHeartbeatAfterAck(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	if err := dispatch(ctx, c, pkgFor(c, "acked-beat", ts[0])); err != nil {
		return err
	}
	l, err := await(ctx, c, claimReq("kit-w1", longTTL, ts...), "dispatching")
	if err != nil {
		return err
	}
	if err := ack(ctx, c, l); err != nil {
		return err
	}
	q := queueOf(c)
	nl, hbErr := q.Heartbeat(ctx, l, longTTL)
	ackErr := q.Ack(ctx, l)
	if err := neverCiting(ctx, c, []string{"I-DISPATCH-3"}, claimReq("kit-w2", longTTL, ts...), "kit-w1 acked its lease, then sent a heartbeat and an ack of it"); err != nil {
		return err
	}
	if !errors.Is(hbErr, spi.ErrLeaseLost) {
		return c.Cite("I-DISPATCH-31").Failf("Heartbeat", fmt.Sprintf("acked lease %q", l.Token), leaseOrErr(nl, hbErr), "lease lost")
	}
	if !errors.Is(ackErr, spi.ErrLeaseLost) {
		return c.Cite("I-DISPATCH-31").Failf("Ack", fmt.Sprintf("acked lease %q, a second time", l.Token), ackErr, "lease lost")
	}
	return nil
}
