package kits

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// DispatcherCase is what an ExecutionDispatcher check runs against.
type DispatcherCase = Case[spi.ExecutionDispatcher]

// The dispatcher checks count their work in claims, never in time (DESIGN §7.1). A wait for
// something that must happen claims up to awaitClaims times, awaitPause apart, and fails only after
// the last (at least 5 s on any machine; a correct dispatcher delivers on the first claim after
// the package became deliverable); a watch for something that must not happen claims
// quietClaims times, quietPause apart. A slow machine makes each claim take longer, never fewer.
// Leases are judged on the dispatcher's clock: a lease is dead once expiresAt has passed there,
// which the kit waits for as described at waitExpired.
const (
	shortTTL    = 150 * time.Millisecond
	longTTL     = 2 * time.Minute
	awaitClaims = 500
	awaitPause  = 10 * time.Millisecond
	quietClaims = 20
	quietPause  = 20 * time.Millisecond
	// expiryMargin is how long past a lease's expiry (by the kit's reckoning) the kit waits before
	// it treats the lease as dead.
	expiryMargin = 50 * time.Millisecond
)

var leaseMethods = []string{spi.MethodClaim, spi.MethodHeartbeat, spi.MethodAck}

// ExecutionDispatcherKit is the ExecutionDispatcher conformance kit (spec §6, §7).
func ExecutionDispatcherKit() Kit[spi.ExecutionDispatcher] {
	type C = Check[spi.ExecutionDispatcher]
	placement := []string{"S6.placement.compute-target", "I-DISPATCH-5"}
	return Kit[spi.ExecutionDispatcher]{Name: "dispatcher", Seam: manifest.SeamExecutionDispatcher, Checks: []C{
		{ID: "dispatcher/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *DispatcherCase) error {
				return versionClaim(c, manifest.SeamExecutionDispatcher)
			}},
		{ID: "dispatcher/targets-listed", Clauses: append(placement, "I-DISPATCH-9"), Level: spec.Must,
			Doc: "at least one target is listed, ascending, unique and non-empty, and each one accepts (and, with a worker side, delivers) a package pinned to it; a claim serving no target is invalid", Run: dTargetsListed},
		{ID: "dispatcher/unknown-target-refused", Clauses: placement, Level: spec.Must,
			Doc: "a package pinned to an unlisted target is refused with a typed error naming it, and nothing is delivered", Run: dUnknownTarget},
		{ID: "dispatcher/coordinates-only", Clauses: []string{"S6.dispatch.coordinates-only", "I-DISPATCH-2", "I-DISPATCH-10"}, Level: spec.Must,
			Doc: "a package without ids, with non-object hints or hints over 4 096 bytes is invalid (4 096 bytes are not); a delivered package equals the dispatched one as sent, empty hints, empty strings, objects and arrays included, nothing added or dropped", Run: dCoordinates},
		{ID: "dispatcher/target-routing", Clauses: placement, Level: spec.Must, Requires: leaseMethods,
			Doc: "a pinned package reaches only a worker serving its target; an unpinned one reaches any worker", Run: dRouting},
		{ID: "dispatcher/exclusive-lease", Clauses: []string{"I-DISPATCH-4", "S6.fencing.zombie"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "while a lease is live no other worker receives its package", Run: dExclusive},
		{ID: "dispatcher/redeliver-after-crash", Clauses: []string{"S6.resume.is-migration", "I-DISPATCH-3"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "a package delivered and never acked (the worker crashed) is delivered again, to another worker, once its lease expires", Run: dRedeliver},
		{ID: "dispatcher/dead-lease-refused", Clauses: []string{"S6.fencing.zombie", "I-DISPATCH-4"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "an expired lease is dead: its heartbeat and ack are refused (lease lost) while the new holder's ack works", Run: dDeadLease},
		{ID: "dispatcher/heartbeat-extends", Clauses: []string{"I-DISPATCH-4"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "a lease kept alive by heartbeats is not delivered to another worker past its first expiry", Run: dHeartbeat},
		{ID: "dispatcher/ack-final", Clauses: []string{"I-DISPATCH-3"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "an acked package is never delivered again", Run: dAckFinal},
		{ID: "dispatcher/order-per-execution", Clauses: []string{"I-DISPATCH-6"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "packages of one execution are delivered one at a time, in dispatch order", Run: dOrder},
		{ID: "dispatcher/concurrent-claims", Clauses: []string{"I-DISPATCH-3", "I-DISPATCH-4"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "workers claiming concurrently receive every package exactly once", Run: dConcurrent},
		{ID: "dispatcher/expired-lease-dead", Clauses: []string{"I-DISPATCH-4", "I-DISPATCH-11"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "a lease past its expiresAt is dead even when no other worker claimed its package since: its heartbeat and ack are refused (lease lost), and the package is delivered again", Run: dExpiredLeaseDead},
		{ID: "dispatcher/lease-terms", Clauses: []string{"I-DISPATCH-4", "I-DISPATCH-11", "I-DISPATCH-3"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "a claim or heartbeat with a TTL outside 1 ms .. 10 min is invalid; a lease names a token, the claiming worker and delivery 1, and its expiresAt is epoch milliseconds (13 digits) that a heartbeat with a longer TTL moves later", Run: dLeaseTerms},
		{ID: "dispatcher/claim-oldest-deliverable", Clauses: []string{"I-DISPATCH-12", "I-DISPATCH-6"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "claim leases the oldest deliverable package: packages of several executions come in dispatch order, and a leased package, with the packages queued behind it in its execution, never hides the deliverable packages of other executions", Run: dClaimOldestDeliverable},
	}}
}

// ExecutionDispatcher runs the ExecutionDispatcher kit as subtests of t (one per check id, fresh
// dispatcher each).
func ExecutionDispatcher(t *testing.T, factory Factory[spi.ExecutionDispatcher]) {
	t.Helper()
	RunT(t, ExecutionDispatcherKit(), factory, Options{})
}

// CheckExecutionDispatcher runs the kit and returns errors.Join of every failure and unknown.
func CheckExecutionDispatcher(ctx context.Context, factory Factory[spi.ExecutionDispatcher], opts Options) error {
	results, err := Run(ctx, ExecutionDispatcherKit(), factory, opts)
	if err != nil {
		return err
	}
	return Errors(results)
}

func queueOf(c *DispatcherCase) spi.LeaseQueue { q, _ := c.Store.(spi.LeaseQueue); return q }

func listTargets(ctx context.Context, c *DispatcherCase) ([]string, error) {
	ts, err := c.Store.Targets(ctx)
	if err != nil {
		return nil, c.Failf("Targets", "", err, "the registered targets")
	}
	if len(ts) == 0 {
		return nil, c.Failf("Targets", "", "[]", "at least one registered target")
	}
	return ts, nil
}

func dispatch(ctx context.Context, c *DispatcherCase, p spi.ExecutionPackage) error {
	if err := c.Store.Dispatch(ctx, p); err != nil {
		return c.Failf("Dispatch", fmt.Sprintf("%q, target %q", p.ExecutionID, p.Target), err, "nil")
	}
	return nil
}

// mine reports whether a package belongs to this case (a shared target may hold others').
func mine(c *DispatcherCase, p spi.ExecutionPackage) bool {
	return strings.HasPrefix(p.ExecutionID, fmt.Sprintf("kit-%x%x-", uint32(c.Seed), uint16(c.nonce)))
}

// claimOne claims once and returns this case's package, if any (a foreign one is left to expire).
func claimOne(ctx context.Context, c *DispatcherCase, r spi.ClaimRequest) (spi.Lease, bool, error) {
	for range 16 {
		l, ok, err := queueOf(c).Claim(ctx, r)
		if err != nil {
			return l, false, c.Failf("Claim", fmt.Sprintf("worker %q, targets %v", r.Worker, r.Targets), err, "a lease or none")
		}
		if !ok {
			return l, false, nil
		}
		if mine(c, l.Package) {
			return l, true, nil
		}
	}
	return spi.Lease{}, false, nil
}

// await claims until this case's package arrives, failing after awaitClaims empty claims.
func await(ctx context.Context, c *DispatcherCase, r spi.ClaimRequest, what string) (spi.Lease, error) {
	for i := 0; ; i++ {
		l, ok, err := claimOne(ctx, c, r)
		if err != nil || ok {
			return l, err
		}
		if i == awaitClaims-1 {
			return l, c.Failf("Claim", fmt.Sprintf("worker %q, targets %v) %d times, %s apart, after (%s", r.Worker, r.Targets, awaitClaims, awaitPause, what), "no package", "the package delivered")
		}
		if err := sleep(ctx, awaitPause); err != nil {
			return l, err
		}
	}
}

// never claims quietClaims times and fails if this case's package arrives.
func never(ctx context.Context, c *DispatcherCase, r spi.ClaimRequest, what string) error {
	for i := 0; i < quietClaims; i++ {
		l, ok, err := claimOne(ctx, c, r)
		if err != nil {
			return err
		}
		if ok {
			return c.Failf("Claim", fmt.Sprintf("worker %q, targets %v) after (%s", r.Worker, r.Targets, what),
				fmt.Sprintf("delivery %d of %q", l.Delivery, l.Package.ExecutionID), "no delivery")
		}
		if err := sleep(ctx, quietPause); err != nil {
			return err
		}
	}
	return nil
}

// claimTimed claims and returns the kit's clock before and after the call, for waitExpired.
func claimTimed(ctx context.Context, c *DispatcherCase, r spi.ClaimRequest, what string) (spi.Lease, time.Time, error) {
	l, err := await(ctx, c, r, what)
	return l, time.Now(), err
}

// waitExpired waits until lease l, claimed with ttl and returned at claimed (the kit's clock), has
// certainly expired on the dispatcher's clock: ttl plus expiryMargin after the claim returned
// (the dispatcher set expiresAt = its now + ttl before that), and, when expiresAt read on the kit's
// clock is later (a dispatcher clock running ahead, or a lease longer than asked), until then too,
// by at most one second more. A lease is dead from expiresAt on (I-DISPATCH-11).
func waitExpired(ctx context.Context, l spi.Lease, ttl time.Duration, claimed time.Time) error {
	until := claimed.Add(ttl)
	if at := time.UnixMilli(l.ExpiresAt); at.After(until) {
		until = minTime(at, until.Add(time.Second))
	}
	return sleep(ctx, time.Until(until.Add(expiryMargin)))
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func ack(ctx context.Context, c *DispatcherCase, l spi.Lease) error {
	if err := queueOf(c).Ack(ctx, l); err != nil {
		return c.Failf("Ack", fmt.Sprintf("lease %q of %q", l.Token, l.Package.ExecutionID), err, "nil")
	}
	return nil
}

func pkgFor(c *DispatcherCase, name, target string) spi.ExecutionPackage {
	return spi.ExecutionPackage{ExecutionID: c.ExecID(name), FlowID: "kit-flow", Target: target}
}

func claimReq(worker string, ttl time.Duration, targets ...string) spi.ClaimRequest {
	return spi.ClaimRequest{Worker: worker, Targets: targets, TTL: ttl}
}

func dTargetsListed(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	for i, t := range ts {
		if t == "" || (i > 0 && ts[i-1] >= t) {
			return c.Failf("Targets", "", ts, "non-empty names, ascending, without duplicates")
		}
	}
	if q := queueOf(c); q != nil {
		l, ok, err := q.Claim(ctx, spi.ClaimRequest{Worker: "kit-w1", Targets: []string{}, TTL: longTTL})
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Claim", `worker "kit-w1", targets []`, claimOrErr(l, ok, err), "an invalid-argument refusal (a worker serves at least one target)")
		}
	}
	for _, t := range ts {
		p := pkgFor(c, "listed", t)
		if err := dispatch(ctx, c, p); err != nil {
			return err
		}
		if queueOf(c) == nil {
			continue
		}
		l, err := await(ctx, c, claimReq("kit-w1", longTTL, t), "dispatching to listed target "+t)
		if err != nil {
			return err
		}
		if l.Package.ExecutionID != p.ExecutionID {
			return c.Failf("Claim", "worker serving "+t, l.Package.ExecutionID, p.ExecutionID)
		}
		if err := ack(ctx, c, l); err != nil {
			return err
		}
	}
	return nil
}

func dUnknownTarget(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	unknown := fmt.Sprintf("kit-unregistered-%x", uint32(c.Seed))
	p := pkgFor(c, "unknown", unknown)
	err = c.Store.Dispatch(ctx, p)
	if !errors.Is(err, spi.ErrUnknownTarget) {
		return c.Failf("Dispatch", fmt.Sprintf("%q, target %q", p.ExecutionID, unknown), err, "an unknown-target refusal")
	}
	if !strings.Contains(err.Error(), unknown) {
		return c.Failf("Dispatch", fmt.Sprintf("target %q", unknown), err, "an error naming the target")
	}
	if queueOf(c) != nil {
		return never(ctx, c, claimReq("kit-w1", longTTL, append([]string{unknown}, ts...)...), "a refused dispatch")
	}
	return nil
}

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

func dRouting(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	elsewhere := fmt.Sprintf("kit-elsewhere-%x", uint32(c.Seed))
	pinned := pkgFor(c, "pinned", ts[0])
	if err := dispatch(ctx, c, pinned); err != nil {
		return err
	}
	if err := never(ctx, c, claimReq("kit-w2", longTTL, elsewhere), "a package pinned to "+ts[0]); err != nil {
		return err
	}
	l, err := await(ctx, c, claimReq("kit-w1", longTTL, ts[0]), "a package pinned to "+ts[0])
	if err != nil {
		return err
	}
	if err := ack(ctx, c, l); err != nil {
		return err
	}
	free := pkgFor(c, "unpinned", "")
	if err := dispatch(ctx, c, free); err != nil {
		return err
	}
	l, err = await(ctx, c, claimReq("kit-w2", longTTL, elsewhere), "an unpinned package")
	if err != nil {
		return err
	}
	return ack(ctx, c, l)
}

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
	// Three times the TTL in 24 heartbeats, each after a claim by another worker that must get
	// nothing.
	const ttl, beats = 1500 * time.Millisecond, 24
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

func dConcurrent(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	const n, workers = 24, 4
	for i := range n {
		p := pkgFor(c, fmt.Sprintf("conc%d", i), ts[c.Rand.Intn(len(ts))])
		if err := dispatch(ctx, c, p); err != nil {
			return err
		}
	}
	// Each worker claims (and acks what it gets) until it has met awaitClaims empty claims in a
	// row; then every package must have been delivered exactly once.
	type got struct {
		worker string
		l      spi.Lease
		err    error
	}
	var mu sync.Mutex
	var gots []got
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Recover()
			name := fmt.Sprintf("kit-w%d", w+1)
			for empty := 0; empty < awaitClaims && ctx.Err() == nil; {
				mu.Lock()
				all := len(gots) >= n
				mu.Unlock()
				if all {
					// Everything arrived: a few more claims must find nothing.
					empty = max(empty, awaitClaims-quietClaims)
				}
				l, ok, err := claimOne(ctx, c, claimReq(name, longTTL, ts...))
				if err == nil && ok {
					err = queueOf(c).Ack(ctx, l)
				}
				if err != nil || ok {
					mu.Lock()
					gots = append(gots, got{name, l, err})
					mu.Unlock()
					if err != nil {
						return
					}
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
			return c.Failf("Claim/Ack", g.worker, g.err, "nil")
		}
		if prev, dup := seen[g.l.Package.ExecutionID]; dup {
			return c.Failf("Claim", fmt.Sprintf("%d workers claiming concurrently", workers),
				fmt.Sprintf("%q delivered to %s and %s", g.l.Package.ExecutionID, prev, g.worker), "each package exactly once")
		}
		seen[g.l.Package.ExecutionID] = g.worker
	}
	if len(seen) < n {
		return c.Failf("Claim", fmt.Sprintf("%d workers claiming concurrently, each until %d empty claims", workers, awaitClaims), fmt.Sprintf("%d of %d packages delivered", len(seen), n), "all of them")
	}
	return nil
}

// pkgView is a package as JSON values, for diffs that print readably (hints compared by value;
// numbers kept exact as json.Number; absent hints stay absent, an empty object is an empty object).
func pkgView(p spi.ExecutionPackage) map[string]any {
	m := map[string]any{"executionId": p.ExecutionID, "flowId": p.FlowID, "target": p.Target}
	if len(p.Hints) > 0 {
		d := json.NewDecoder(bytes.NewReader(p.Hints))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			v = string(p.Hints)
		}
		m["hints"] = v
	}
	return m
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

func claimOrErr(l spi.Lease, ok bool, err error) any {
	if err == nil && !ok {
		return "no package"
	}
	return leaseOrErr(l, err)
}

func leaseOrErr(l spi.Lease, err error) any {
	if err != nil {
		return err
	}
	return fmt.Sprintf("lease %q until %d", l.Token, l.ExpiresAt)
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
	for i, p := range want {
		l, err := await(ctx, c, claimReq(fmt.Sprintf("kit-w%d", i+1), longTTL, ts...), fmt.Sprintf("dispatching A1 B1 A2 C1 D1 and leasing %d of them", i))
		if err != nil {
			return err
		}
		if got := name(l.Package); got != name(p) {
			return c.Failf("Claim", fmt.Sprintf("claim %d after dispatching A1 B1 A2 C1 D1) after (the earlier claims leased %s; A2 waits behind A1", i+1, names(want[:i], name)),
				got, name(p)+", the oldest deliverable package")
		}
		leases = append(leases, l)
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
	if got := name(l.Package); got != "A2" {
		return c.Failf("Claim", "after A1 was acked", got, "A2")
	}
	for _, l := range append(leases[1:], l) {
		if err := ack(ctx, c, l); err != nil {
			return err
		}
	}
	return nil
}

func names(ps []spi.ExecutionPackage, name func(spi.ExecutionPackage) string) string {
	if len(ps) == 0 {
		return "none"
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = name(p)
	}
	return strings.Join(out, " ")
}

func dLeaseTerms(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	q := queueOf(c)
	for _, ttl := range []time.Duration{0, spi.MaxLeaseTTL + time.Millisecond} {
		l, ok, err := q.Claim(ctx, claimReq("kit-w1", ttl, ts...))
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Claim", fmt.Sprintf("worker kit-w1, ttl %s", ttl), claimOrErr(l, ok, err), "an invalid-argument refusal (a TTL is 1 ms .. 10 min)")
		}
	}
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
	for _, bad := range []time.Duration{0, spi.MaxLeaseTTL + time.Millisecond} {
		nl, err := q.Heartbeat(ctx, l, bad)
		if !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Heartbeat", fmt.Sprintf("live lease %q, ttl %s", l.Token, bad), leaseOrErr(nl, err), "an invalid-argument refusal (a TTL is 1 ms .. 10 min)")
		}
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
