package kits

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/loom-kernel/loom-conform/kits/explore"
	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/reference/dispatch/memory"
	"github.com/loom-kernel/loom-conform/spi"
)

// The ExecutionDispatcher's exploration (dispatcher/explore): dispatches of packages whose
// execution ids differ by a delimiter, a case, a normal form, a prefix or a long tail, pinned or
// not, with hints from the round-trip corpus; claims by two workers serving one target or all;
// heartbeats and acks of live and acknowledged leases; against the in-memory reference dispatcher
// serving the target's targets. A dispatcher's clock is its own and no seam method sets it, so
// nothing here waits for time: every lease is taken for two minutes, a heartbeat renews for two
// minutes or one, and a heartbeat's answer says only whether the new expiry is earlier than the
// old (one minute from now is, one minute past the old expiry is not: I-DISPATCH-30). Expiry,
// take-over after expiry and races are the timed checks' (dispatcher/expired-lease-dead, …).

const (
	dxLease = 2 * time.Minute
	dxShort = time.Minute
)

func dExplore(targets []string) xSeam[spi.ExecutionDispatcher] {
	lease := []string{"I-DISPATCH-3", "I-DISPATCH-4"}
	return xSeam[spi.ExecutionDispatcher]{
		check: "dispatcher/explore", seam: manifest.SeamExecutionDispatcher, steps: 24, seed: "dispatch", precision: "I-STORE-25",
		ops: []xOp{
			{"dispatch", "", 5, []string{"S6.placement.compute-target", "I-DISPATCH-2", "I-DISPATCH-10", "I-DISPATCH-15"}},
			{"claim", spi.MethodClaim, 5, append([]string{"S6.placement.compute-target", "S6.dispatch.coordinates-only", "I-DISPATCH-14", "I-STORE-80"}, lease...)},
			{"heartbeat", spi.MethodHeartbeat, 2, append([]string{"I-DISPATCH-30"}, lease...)},
			{"ack", spi.MethodAck, 3, lease},
		},
		extra: []string{"I-STORE-25", "I-DISPATCH-5", "I-DISPATCH-6", "I-DISPATCH-10", "I-DISPATCH-12", "I-DISPATCH-31", "I-STORE-56"},
		reference: func() spi.ExecutionDispatcher {
			return memory.New(memory.Config{Targets: targets})
		},
		side: func(s spi.ExecutionDispatcher, ids []string, ref bool) xSide {
			return &dxSide{store: s, ids: ids, targets: targets, values: dxHints()}
		},
		args:    dxArgsFor,
		touched: func(explore.Step, []int) []explore.Step { return nil },
		cleanup: func(ctx context.Context, target xSide) { target.(*dxSide).settle(ctx) },
		names:   func(st explore.Step) []int { return []int{xArgsOf(st).ID} },
	}
}

// dxHints are the hints a package carries: the round-trip values that fit in hints, each as the
// member of an object.
func dxHints() []string {
	out := []string{""} // none
	for _, v := range append(exploreValues(), exploreTwins...) {
		if h := `{"h":` + v + `}`; len(h) <= spi.MaxHintsBytes {
			out = append(out, h)
		}
	}
	out = append(out, `{}`)
	for _, n := range []int{spi.MaxHintsBytes, spi.MaxHintsBytes + 1, spi.MaxHintsBytes + 2} { // the last two: invalid
		out = append(out, `{"h":"`+strings.Repeat("x", n-len(`{"h":""}`))+`"}`)
	}
	return out
}

// dxSide is one dispatcher: the leases its claims handed out (the k-th as k, from 1), and, on
// the reference side, the model of the packages dispatched and not yet acknowledged.
type dxSide struct {
	store   spi.ExecutionDispatcher
	ids     []string
	targets []string
	values  []string
	leases  []spi.Lease
	settled []bool // whether the k-th lease was acknowledged
	// model: the packages dispatched, in order (execution index, target index, -1 unpinned),
	// and whether each is acknowledged or leased
	pkgs   []xArgs
	acked  []bool
	leased []bool
	of     []int // the package of each lease
}

// A dispatch names its execution (ID), its target (To: 0 unpinned, k the k-th target) and hints
// (Value); a claim its worker (Worker) and whether it serves only the first target (Flag); a
// heartbeat or ack its lease (Version, the k-th) and a heartbeat's TTL (Key 1: one minute).
func dxArgsFor(r *rand.Rand, ref xSide, id func() int, op string) (any, bool) {
	x := ref.(*dxSide)
	a := xArgs{ID: id()}
	switch op {
	case "dispatch":
		a.To, a.Value = r.Intn(len(x.targets)+1), r.Intn(len(x.values)-2)
		switch r.Intn(10) {
		case 0:
			a.To = len(x.targets) + 1 // a target the dispatcher does not list
		case 1:
			a.Value = len(x.values) - 3 + r.Intn(3) // hints of 4 096 bytes, 4 097, 4 098: at and past the bound
		case 2:
			a.To, a.Value = len(x.targets)+1, len(x.values)-1 // wrong both ways
		}
	case "claim":
		a.Worker, a.Flag = r.Intn(2), r.Intn(3) == 0
	case "heartbeat", "ack":
		if len(x.leases) == 0 {
			return nil, false
		}
		a.Version = int64(len(x.leases) - r.Intn(min(len(x.leases), 3)))
		if x.settled[a.Version-1] && r.Intn(3) != 0 {
			return nil, false // mostly live leases; an acknowledged one now and then
		}
		a.Key = r.Intn(2)
	}
	return a, true
}

// deliverable counts the model's packages a claim by a could lease: unacknowledged, not leased,
// the oldest unacknowledged of its execution, pinned to a target the worker serves or unpinned.
func (x *dxSide) deliverable(a xArgs) (n, unacked int, queuedBehind bool) {
	heads := map[int]bool{}
	for i, p := range x.pkgs {
		if x.acked[i] {
			continue
		}
		unacked++
		head := !heads[p.ID]
		heads[p.ID] = true
		queuedBehind = queuedBehind || !head
		if head && !x.leased[i] && (p.To == 0 || !a.Flag || p.To == 1) {
			n++
		}
	}
	return n, unacked, queuedBehind
}

func (x *dxSide) choice(st explore.Step) string {
	a := xArgsOf(st)
	switch st.Op {
	case "claim":
		_, unacked, behind := x.deliverable(a)
		switch {
		case behind:
			return "I-DISPATCH-6" // one execution's packages one at a time, in order: ours
		case unacked > 1:
			return "I-DISPATCH-12" // which of several packages first, past one not deliverable: ours
		}
	case "dispatch":
		bad := a.Value >= len(x.values)-2 // hints past the bound: invalid
		switch unknown := a.To > len(x.targets); {
		case unknown && bad:
			return "I-STORE-56" // invalid and to an unknown target: which refusal first is ours
		case unknown:
			return "I-DISPATCH-5" // an unknown target refused: ours
		case bad || a.Value == len(x.values)-3:
			return "I-DISPATCH-10" // the hints bound, counted in bytes of JSON text: ours
		}
	case "heartbeat", "ack":
		if k := int(a.Version); k >= 1 && k <= len(x.settled) && x.settled[k-1] {
			return "I-DISPATCH-31" // a lease already acknowledged: lease lost is ours
		}
	}
	return ""
}

func (x *dxSide) follow(st explore.Step, ans xAnswer) {
	a := xArgsOf(st)
	if ans.refusal != "" {
		return
	}
	switch st.Op {
	case "dispatch":
		x.pkgs, x.acked, x.leased = append(x.pkgs, a), append(x.acked, false), append(x.leased, false)
	case "claim":
		m, ok := ans.value.(map[string]any)
		if !ok || m["claimed"] != true {
			return
		}
		pkg := -1
		for i, p := range x.pkgs { // the package the reference leased: the oldest of that execution unacked
			if !x.acked[i] && p.ID == m["execution"] && !x.leased[i] {
				pkg = i
				break
			}
		}
		if pkg >= 0 {
			x.leased[pkg] = true
		}
		x.of = append(x.of, pkg)
	case "ack":
		if k := int(a.Version); k >= 1 && k <= len(x.of) && x.of[k-1] >= 0 {
			x.acked[x.of[k-1]], x.leased[x.of[k-1]] = true, false
		}
	}
}

// mine reports whether a package is this replay's (the target may hold other checks' leftovers).
func (x *dxSide) mine(p spi.ExecutionPackage) (int, bool) {
	for i, id := range x.ids {
		if p.ExecutionID == id {
			return i, true
		}
	}
	return 0, strings.HasPrefix(p.ExecutionID, x.ids[0][:strings.LastIndex(x.ids[0], "~")+1])
}

func (x *dxSide) worker(k int) string { return fmt.Sprintf("%s~worker-%d", x.ids[0], k) }

func (x *dxSide) apply(ctx context.Context, st explore.Step) xAnswer {
	a := xArgsOf(st)
	q, _ := x.store.(spi.LeaseQueue)
	switch st.Op {
	case "dispatch":
		id, ok := xName(x.ids, a.ID)
		if !ok || a.Value < 0 || a.Value >= len(x.values) || a.To < 0 || a.To > len(x.targets)+1 {
			return xAnswer{refusal: "bad step"}
		}
		p := spi.ExecutionPackage{ExecutionID: id, FlowID: "flow~" + fmt.Sprint(a.Value)}
		switch {
		case a.To > len(x.targets):
			p.Target = x.ids[0] + "~no-such-target"
		case a.To > 0:
			p.Target = x.targets[a.To-1]
		}
		if h := x.values[a.Value]; h != "" {
			p.Hints = json.RawMessage(h)
		}
		return xAnswer{refusal: refusalOf(x.store.Dispatch(ctx, p))}
	case "claim":
		if q == nil {
			return xAnswer{refusal: "bad step"}
		}
		serves := x.targets
		if a.Flag && len(serves) > 0 {
			serves = serves[:1]
		}
		for range 50 {
			l, ok, err := q.Claim(ctx, spi.ClaimRequest{Worker: x.worker(a.Worker), Targets: serves, TTL: dxLease})
			if err != nil || !ok {
				x.leases, x.settled = append(x.leases, spi.Lease{}), append(x.settled, true)
				return xAnswer{refusal: refusalOf(err), value: map[string]any{"claimed": false}}
			}
			i, mine := x.mine(l.Package)
			if !mine { // another check's leftover: settle it and claim again
				_ = q.Ack(ctx, l)
				continue
			}
			x.leases, x.settled = append(x.leases, l), append(x.settled, false)
			return xAnswer{value: map[string]any{"claimed": true, "execution": i, "flowId": l.Package.FlowID, "target": l.Package.Target,
				"hints": l.Package.Hints, "worker": l.Worker == x.worker(a.Worker), "delivery": l.Delivery}}
		}
		return xAnswer{refusal: "error: 50 claims delivered other checks' packages"}
	case "heartbeat", "ack":
		k := int(a.Version)
		if q == nil || k < 1 || k > len(x.leases) {
			return xAnswer{refusal: "bad step"}
		}
		l := x.leases[k-1]
		if l.Token == "" {
			return xAnswer{refusal: "bad step"} // a claim that leased nothing
		}
		if st.Op == "ack" {
			err := q.Ack(ctx, l)
			if err == nil {
				x.settled[k-1] = true
			}
			return xAnswer{refusal: refusalOf(err)}
		}
		ttl := dxLease
		if a.Key == 1 {
			ttl = dxShort
		}
		nl, err := q.Heartbeat(ctx, l, ttl)
		if err != nil {
			return xAnswer{refusal: refusalOf(err)}
		}
		x.leases[k-1] = nl
		return xAnswer{value: map[string]any{"earlierThanBefore": nl.ExpiresAt < l.ExpiresAt, "delivery": nl.Delivery, "sameToken": nl.Token == l.Token}}
	}
	return xAnswer{refusal: "bad step"}
}

// settle acknowledges every lease the replay holds and drains the packages left queued, so the
// next replay (and the next check) finds none of them.
func (x *dxSide) settle(ctx context.Context) {
	q, ok := x.store.(spi.LeaseQueue)
	if !ok {
		return
	}
	for k, l := range x.leases {
		if l.Token != "" && !x.settled[k] {
			_ = q.Ack(ctx, l)
		}
	}
	for range 200 {
		l, ok, err := q.Claim(ctx, spi.ClaimRequest{Worker: x.worker(9), Targets: x.targets, TTL: dxLease})
		if err != nil || !ok {
			return
		}
		_ = q.Ack(ctx, l)
	}
}

// dxRun is the check: the reference serves the target's targets; every replay settles what it
// left on the target (dExplore's cleanup).
func dxRun(ctx context.Context, c *DispatcherCase) error {
	targets, err := c.Store.Targets(ctx)
	if err != nil {
		return err
	}
	x := dExplore(targets)
	declared := func(m string) bool { return spi.Has(x.seam, c.Store, m) }
	replay := x.replay(c, func(context.Context) (spi.ExecutionDispatcher, error) { return c.Store, nil })
	return exploreRounds(ctx, c, replay, func(round int) explore.Script { return x.gen(c.Seed, round, declared) })
}
