package kits

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spec"
	"github.com/loom-kernel/loom-conform/spi"
)

// DispatcherCase is what an ExecutionDispatcher check runs against.
type DispatcherCase = Case[spi.ExecutionDispatcher]

// Lease timings of the dispatcher checks. Every wait for something that must happen is bounded by
// patience and fails past it; every wait for something that must not happen lasts quiet; neither
// judges a duration, so load only slows a check down (docs/spi.md, ExecutionDispatcher).
const (
	shortTTL = 150 * time.Millisecond
	longTTL  = 2 * time.Minute
	patience = 5 * time.Second
	quiet    = 400 * time.Millisecond
)

var leaseMethods = []string{spi.MethodClaim, spi.MethodHeartbeat, spi.MethodAck}

// ExecutionDispatcherKit is the ExecutionDispatcher conformance kit (spec §6, §7).
func ExecutionDispatcherKit() Kit[spi.ExecutionDispatcher] {
	type C = Check[spi.ExecutionDispatcher]
	placement := []string{"S6.placement.compute-target", "I-DISPATCH-5"}
	return Kit[spi.ExecutionDispatcher]{Name: "dispatcher", Seam: manifest.SeamExecutionDispatcher, Checks: []C{
		{ID: "dispatcher/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *DispatcherCase) error {
				return versionClaim(c.Store, manifest.SeamExecutionDispatcher, c.Failf)
			}},
		{ID: "dispatcher/targets-listed", Clauses: placement, Level: spec.Must,
			Doc: "targets are listed ascending, unique and non-empty, and each one accepts (and, with a worker side, delivers) a package pinned to it", Run: dTargetsListed},
		{ID: "dispatcher/unknown-target-refused", Clauses: placement, Level: spec.Must,
			Doc: "a package pinned to an unlisted target is refused with a typed error naming it, and nothing is delivered", Run: dUnknownTarget},
		{ID: "dispatcher/coordinates-only", Clauses: []string{"S6.dispatch.coordinates-only", "I-DISPATCH-2"}, Level: spec.Must,
			Doc: "a package without ids, with non-object or oversized hints is invalid; a delivered package equals the dispatched one, nothing added", Run: dCoordinates},
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

// await claims until this case's package arrives, failing after patience.
func await(ctx context.Context, c *DispatcherCase, r spi.ClaimRequest, what string) (spi.Lease, error) {
	deadline := time.Now().Add(patience)
	for {
		l, ok, err := claimOne(ctx, c, r)
		if err != nil || ok {
			return l, err
		}
		if time.Now().After(deadline) {
			return l, c.Failf("Claim", fmt.Sprintf("worker %q, targets %v) for %s after (%s", r.Worker, r.Targets, patience, what), "no package", "the package delivered")
		}
		if err := sleep(ctx, 10*time.Millisecond); err != nil {
			return l, err
		}
	}
}

// never claims for quiet and fails if this case's package arrives.
func never(ctx context.Context, c *DispatcherCase, r spi.ClaimRequest, what string) error {
	deadline := time.Now().Add(quiet)
	for time.Now().Before(deadline) {
		l, ok, err := claimOne(ctx, c, r)
		if err != nil {
			return err
		}
		if ok {
			return c.Failf("Claim", fmt.Sprintf("worker %q, targets %v) after (%s", r.Worker, r.Targets, what),
				fmt.Sprintf("delivery %d of %q", l.Delivery, l.Package.ExecutionID), "no delivery")
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
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

func dCoordinates(ctx context.Context, c *DispatcherCase) error {
	ts, err := listTargets(ctx, c)
	if err != nil {
		return err
	}
	big := `{"state":"` + strings.Repeat("x", spi.MaxHintsBytes) + `"}`
	bad := []struct {
		name string
		p    spi.ExecutionPackage
	}{
		{"empty executionId", spi.ExecutionPackage{FlowID: "f"}},
		{"empty flowId", spi.ExecutionPackage{ExecutionID: c.ExecID("noflow")}},
		{"hints an array", spi.ExecutionPackage{ExecutionID: c.ExecID("arr"), FlowID: "f", Hints: []byte(`[1]`)}},
		{"hints a string", spi.ExecutionPackage{ExecutionID: c.ExecID("str"), FlowID: "f", Hints: []byte(`"code"`)}},
		{"hints over the bound", spi.ExecutionPackage{ExecutionID: c.ExecID("big"), FlowID: "f", Hints: []byte(big)}},
	}
	for _, b := range bad {
		if err := c.Store.Dispatch(ctx, b.p); !errors.Is(err, spi.ErrInvalidArgument) {
			return c.Failf("Dispatch", b.name, err, "an invalid-argument refusal")
		}
	}
	p := pkgFor(c, "coords", ts[0])
	p.Hints = []byte(`{"resume":{"eventType":"approval","n":12345678901234567890,"note":"ünï ✓"},"reason":"recover"}`)
	if err := dispatch(ctx, c, p); err != nil {
		return err
	}
	if queueOf(c) == nil {
		return nil
	}
	l, err := await(ctx, c, claimReq("kit-w1", longTTL, ts...), "dispatching")
	if err != nil {
		return err
	}
	if err := c.Diff("Claim", "worker kit-w1", pkgView(p), pkgView(l.Package)); err != nil {
		return err
	}
	if l.Delivery != 1 || l.Worker != "kit-w1" || l.Token == "" {
		return c.Failf("Claim", "first delivery", fmt.Sprintf("delivery %d, worker %q, token %q", l.Delivery, l.Worker, l.Token), "delivery 1 to kit-w1 with a token")
	}
	return ack(ctx, c, l)
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
	const ttl = 1500 * time.Millisecond
	l, err := await(ctx, c, claimReq("kit-w1", ttl, ts...), "dispatching")
	if err != nil {
		return err
	}
	last := time.Now()
	var worstGap time.Duration
	end := last.Add(3 * ttl)
	for time.Now().Before(end) {
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
	want := map[string]bool{}
	for i := range n {
		p := pkgFor(c, fmt.Sprintf("conc%d", i), ts[c.Rand.Intn(len(ts))])
		want[p.ExecutionID] = true
		if err := dispatch(ctx, c, p); err != nil {
			return err
		}
	}
	type got struct {
		worker string
		l      spi.Lease
		err    error
	}
	ch := make(chan got, 4*n)
	done := make(chan struct{})
	for w := range workers {
		go func() {
			defer c.Recover()
			name := fmt.Sprintf("kit-w%d", w+1)
			for {
				select {
				case <-done:
					return
				default:
				}
				l, ok, err := claimOne(ctx, c, claimReq(name, longTTL, ts...))
				if err != nil {
					ch <- got{name, l, err}
					return
				}
				if !ok {
					if sleep(ctx, 5*time.Millisecond) != nil {
						return
					}
					continue
				}
				ch <- got{name, l, queueOf(c).Ack(ctx, l)}
			}
		}()
	}
	defer close(done)
	seen := map[string]string{}
	deadline := time.After(patience + quiet)
	for len(seen) < n {
		select {
		case g := <-ch:
			if g.err != nil {
				return c.Failf("Claim/Ack", g.worker, g.err, "nil")
			}
			if prev, dup := seen[g.l.Package.ExecutionID]; dup {
				return c.Failf("Claim", fmt.Sprintf("%d workers claiming concurrently", workers),
					fmt.Sprintf("%q delivered to %s and %s", g.l.Package.ExecutionID, prev, g.worker), "each package exactly once")
			}
			seen[g.l.Package.ExecutionID] = g.worker
		case <-deadline:
			return c.Failf("Claim", fmt.Sprintf("%d workers claiming concurrently", workers), fmt.Sprintf("%d of %d packages delivered", len(seen), n), "all of them")
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	select {
	case g := <-ch:
		return c.Failf("Claim", "after every package was delivered and acked", fmt.Sprintf("%q again to %s", g.l.Package.ExecutionID, g.worker), "no delivery")
	case <-time.After(quiet):
	}
	return nil
}

// pkgView is a package as JSON values, for diffs that print readably (hints compared by value;
// numbers kept exact as json.Number).
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
