package kits

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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
	placement := []string{"S6.placement.compute-target", "I-DISPATCH-15"}
	return Kit[spi.ExecutionDispatcher]{Name: "dispatcher", Seam: manifest.SeamExecutionDispatcher, Checks: []C{
		{ID: "dispatcher/version-claim", Clauses: []string{"I-STORE-21", "S7.spi.semver"}, Level: spec.Must,
			Doc: "a stated SPI version parses, shares the kit's major and is not newer than it", Run: func(ctx context.Context, c *DispatcherCase) error {
				return versionClaim(c, manifest.SeamExecutionDispatcher)
			}},
		{ID: "dispatcher/targets-listed", Clauses: placement, Level: spec.Must,
			Doc: "at least one target is listed, and each one accepts (and, with a worker side, delivers) a package pinned to it", Run: dTargetsListed},
		{ID: "dispatcher/unknown-target-refused", Clauses: []string{"I-DISPATCH-5"}, Level: spec.Must,
			Doc: "a package pinned to an unlisted target is refused with a typed error naming it, and nothing is delivered; our choice (spec §6 leaves the check to verify), so recommended", Run: dUnknownTarget},
		{ID: "dispatcher/coordinates-only", Clauses: []string{"S6.dispatch.coordinates-only", "I-DISPATCH-14"}, Level: spec.Must,
			Doc: "a delivered package equals the dispatched one as sent, empty hints, empty strings, objects and arrays included, nothing added or dropped", Run: dCoordinates},
		{ID: "dispatcher/exact-strings", Clauses: []string{"I-DISPATCH-14", "I-STORE-80"}, Level: spec.Must,
			Doc: "execution ids, flow ids and hints are delivered string for string: never Unicode-normalised (e + U+0301 and é are two executions), never cut (an id of about 1 024 bytes), with delimiters, escapes and integers beyond int64 a double holds", Run: dExactStrings},
		{ID: "dispatcher/target-routing", Clauses: placement, Level: spec.Must, Requires: leaseMethods,
			Doc: "a pinned package reaches only a worker serving its target", Run: dRouting},
		{ID: "dispatcher/exclusive-lease", Clauses: []string{"I-DISPATCH-4", "S6.fencing.zombie"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "while a lease is live no other worker receives its package", Run: dExclusive},
		{ID: "dispatcher/exclusive-whole-ttl", Clauses: []string{"I-DISPATCH-4"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "no other worker receives a leased package at any point of its TTL (24 claims through a 1.2 s lease), the second half included", Run: dExclusiveWholeTTL},
		{ID: "dispatcher/redeliver-after-crash", Clauses: []string{"S6.resume.is-migration", "I-DISPATCH-3"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "a package delivered and never acked (the worker crashed) is delivered again, to another worker, once its lease expires", Run: dRedeliver},
		{ID: "dispatcher/dead-lease-refused", Clauses: []string{"S6.fencing.zombie", "I-DISPATCH-4"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "an expired lease is dead: its heartbeat and ack are refused (lease lost) while the new holder's ack works", Run: dDeadLease},
		{ID: "dispatcher/heartbeat-extends", Clauses: []string{"I-DISPATCH-4"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "a lease kept alive by heartbeats is not delivered to another worker past its first expiry", Run: dHeartbeat},
		{ID: "dispatcher/heartbeat-from-now", Clauses: []string{"I-DISPATCH-30", "I-DISPATCH-4"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "a heartbeat renews a lease for its TTL from the dispatcher's now, not from the old expiry: a 1 s heartbeat on a 60 s lease leaves about 1 s, and the package is delivered again once it has passed", Run: dHeartbeatFromNow},
		{ID: "dispatcher/heartbeat-after-ack", Clauses: []string{"I-DISPATCH-3", "I-DISPATCH-31"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "an acked package is never delivered again, also after a heartbeat and a second ack of its lease; both answer lease lost (our choice, recommended)", Run: dHeartbeatAfterAck},
		{ID: "dispatcher/ack-final", Clauses: []string{"I-DISPATCH-3"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "an acked package is never delivered again", Run: dAckFinal},
		{ID: "dispatcher/order-per-execution", Clauses: []string{"I-DISPATCH-6"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "packages of one execution are delivered one at a time, in dispatch order", Run: dOrder},
		{ID: "dispatcher/concurrent-claims", Clauses: []string{"I-DISPATCH-3", "I-DISPATCH-4"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "four workers claiming 96 packages concurrently receive every package exactly once", Run: dConcurrent},
		{ID: "dispatcher/concurrent-takeover", Clauses: []string{"I-DISPATCH-3", "I-DISPATCH-4"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "four workers racing to take over 96 packages whose leases expired unacked receive every package exactly once", Run: dConcurrentTakeover},
		{ID: "dispatcher/expired-lease-dead", Clauses: []string{"I-DISPATCH-4", "I-DISPATCH-11"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "a lease past its expiresAt is dead even when no other worker claimed its package since: its heartbeat and ack are refused (lease lost), and the package is delivered again", Run: dExpiredLeaseDead},
		{ID: "dispatcher/lease-terms", Clauses: []string{"I-DISPATCH-4", "I-DISPATCH-11", "I-DISPATCH-3"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "a lease names a token, the claiming worker and delivery 1, and its expiresAt is epoch milliseconds (13 digits) that a heartbeat with a longer TTL moves later", Run: dLeaseTerms},
		{ID: "dispatcher/claim-oldest-deliverable", Clauses: []string{"I-DISPATCH-12", "I-DISPATCH-6"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "claim leases the oldest deliverable package: packages of several executions come in dispatch order, and a leased package, with the packages queued behind it in its execution, never hides the deliverable packages of other executions", Run: dClaimOldestDeliverable},
		{ID: "dispatcher/targets-form", Clauses: []string{"I-DISPATCH-5", "I-DISPATCH-9"}, Level: spec.Must,
			Doc: "targets are non-empty names, ascending, without duplicates; a claim serving no target is invalid; our choices, so recommended", Run: dTargetsForm},
		{ID: "dispatcher/package-shape", Clauses: []string{"I-DISPATCH-2", "I-DISPATCH-10"}, Level: spec.Must,
			Doc: "a package without ids, with non-object hints or hints over 4 096 bytes is invalid, and hints of exactly 4 096 bytes are accepted and delivered; our choices, so recommended", Run: dPackageShape},
		{ID: "dispatcher/roundtrip-precision", Clauses: []string{"I-STORE-25"}, Level: spec.Must,
			Doc: "hints with numbers a double cannot hold are delivered exactly", Run: dRoundtripPrecision},
		{ID: "dispatcher/refusal-order", Clauses: []string{"I-STORE-56"}, Level: spec.Must,
			Doc: "a package too large and pinned to an unregistered target is invalid, not an unknown target; a heartbeat of a lease never issued is invalid with a TTL of 0 and lease lost with 1 s; our choice, so recommended", Run: dRefusalOrder},
		{ID: "dispatcher/lease-ttl-bounds", Clauses: []string{"I-DISPATCH-13"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "a claim or heartbeat with a TTL outside 1 ms .. 10 min (zero, negative, longer) is invalid, never clamped; our choice, so recommended", Run: dLeaseTTLBounds},
		{ID: "dispatcher/explore", Clauses: dExplore(nil).clauses(), Level: spec.Must,
			Doc: "seeded scripts of dispatches (execution ids that differ by one delimiter, a case, a normal form, a prefix or a long tail, pinned or not, hints from the round-trip corpus), claims by two workers serving one target or all, heartbeats and acks of live and acknowledged leases, answer as the in-memory reference dispatcher does (the first difference is shrunk to a minimal script); the dispatcher's clock is its own, so nothing waits for time: leases are taken for two minutes and a heartbeat says only whether the new expiry is earlier than the old (expiry and races are the timed checks')", Run: dxRun},
		{ID: "dispatcher/unpinned-any-worker", Clauses: []string{"I-DISPATCH-5"}, Level: spec.Must, Requires: leaseMethods,
			Doc: "an unpinned package reaches a worker serving any target, a listed one or not; our choice, so recommended", Run: dUnpinnedAnyWorker},
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
	return strings.HasPrefix(p.ExecutionID, c.idPrefix())
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
		c.mu.Lock()
		if !slices.Contains(c.ahead, l.Package.ExecutionID) {
			c.ahead = append(c.ahead, l.Package.ExecutionID)
		}
		c.mu.Unlock()
	}
	return spi.Lease{}, false, nil
}

// stallNote says what a queue that delivers nothing may be stalled behind: the packages of other
// checks this case's claims received and left leased ("" when none). A dispatcher that claims
// only from the head of its queue stalls every package behind them (I-DISPATCH-12, I-CERT-61).
// A check cut short by its time limit says it too, whether the limit met it between two claims
// or inside one (kits/run.go).
func stallNote[T any](c *Case[T]) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ahead) == 0 {
		return ""
	}
	ids := c.ahead
	if len(ids) > 3 {
		ids = append(ids[:3:3], fmt.Sprintf("%d more", len(c.ahead)-3))
	}
	return fmt.Sprintf("the queue stalled at its head: the claims received only packages of other checks (%s), dispatched before this check's package and left leased — a dispatcher that claims only the head of its queue stalls every package behind a leased one",
		strings.Join(ids, ", "))
}

// await claims until this case's package arrives, failing after awaitClaims empty claims.
func await(ctx context.Context, c *DispatcherCase, r spi.ClaimRequest, what string) (spi.Lease, error) {
	for i := 0; ; i++ {
		l, ok, err := claimOne(ctx, c, r)
		if err != nil || ok {
			return l, err
		}
		if i == awaitClaims-1 {
			got := "no package"
			if note := stallNote(c); note != "" {
				got += "; " + note
			}
			return l, c.Failf("Claim", fmt.Sprintf("worker %q, targets %v) %d times, %s apart, after (%s", r.Worker, r.Targets, awaitClaims, awaitPause, what), got, "the package delivered")
		}
		if err := sleep(ctx, awaitPause); err != nil {
			if note := stallNote(c); note != "" {
				return l, fmt.Errorf("%s after %d claims delivered nothing: %w", note, i+1, err)
			}
			return l, err
		}
	}
}

// never claims quietClaims times and fails if this case's package arrives.
func never(ctx context.Context, c *DispatcherCase, r spi.ClaimRequest, what string) error {
	return neverCiting(ctx, c, c.check.Clauses, r, what)
}

// neverCiting is never whose failure cites clauses (Case.Cite).
func neverCiting(ctx context.Context, c *DispatcherCase, clauses []string, r spi.ClaimRequest, what string) error {
	for i := 0; i < quietClaims; i++ {
		l, ok, err := claimOne(ctx, c, r)
		if err != nil {
			return err
		}
		if ok {
			return c.Cite(clauses...).Failf("Claim", fmt.Sprintf("worker %q, targets %v) after (%s", r.Worker, r.Targets, what),
				fmt.Sprintf("delivery %d of %q", l.Delivery, l.Package.ExecutionID), "no delivery")
		}
		if err := sleep(ctx, quietPause); err != nil {
			return err
		}
	}
	return nil
}

// claimTimed awaits a claim like await and says when (on the kit's clock) it returned, for
// waitExpired.
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

func packageNames(ps []spi.ExecutionPackage, name func(spi.ExecutionPackage) string) string {
	if len(ps) == 0 {
		return "none"
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = name(p)
	}
	return strings.Join(out, " ")
}
