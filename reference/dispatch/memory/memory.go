package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// Config configures a Dispatcher. The zero value serves the one target "default" on the wall clock.
type Config struct {
	// Targets are the registered compute targets. Default: ["default"].
	Targets []string
	// Now returns the time in epoch milliseconds. Default: the wall clock.
	Now func() int64
	// Hooks deliberately break the dispatcher, so the kit can prove it rejects a broken one.
	// Never set them outside tests.
	Hooks Hooks
}

// Hooks are mutants: each one, when set, breaks one rule of docs/spi.md (ExecutionDispatcher).
type Hooks struct {
	LoseExpired           bool // an expired, unacked lease drops its package (breaks at-least-once)
	IgnoreLease           bool // a live lease does not stop a second delivery (double delivery)
	AcceptDeadLease       bool // heartbeat and ack of an expired lease succeed (a dead lease lives on)
	AcceptAnyTarget       bool // a package pinned to an unlisted target is queued, not refused
	IgnoreTarget          bool // a pinned package goes to any worker, whatever it serves
	AddState              bool // delivered hints carry an added "state" member (not coordinates only)
	NoOrder               bool // every package of an execution is deliverable at once, not FIFO
	HeartbeatNoExtend     bool // heartbeat answers success but does not extend the lease
	AckKeeps              bool // ack answers success but the package is delivered again later
	PhantomTarget         bool // Targets lists a target that Dispatch then refuses
	ReviveExpired         bool // an expired lease lives on until its package is claimed again: its heartbeat and ack succeed
	NewestFirst           bool // claim leases the newest deliverable package, not the oldest
	HeadOfLine            bool // claim looks only at the oldest unacked package: while it is leased nothing is delivered
	DropEmptyHints        bool // hints that are an empty object are delivered as no hints
	DropEmptyMembers      bool // hint members whose value is empty ("", {}, [], null) are dropped on delivery
	HintsBoundBelow       bool // hints of exactly spi.MaxHintsBytes bytes are refused (the bound taken as exclusive)
	ExpiresInSeconds      bool // a lease's expiresAt is in epoch seconds, not milliseconds
	AnyTTL                bool // a TTL out of 1 ms .. 10 min is clamped into it instead of refused
	HalfTTL               bool // a lease can be taken over by another worker once half its TTL has passed
	HeartbeatFromExpiry   bool // a heartbeat adds its TTL to the old expiry instead of to now
	NormaliseStrings      bool // delivered ids, flow ids and hints are NFC-composed (e + U+0301 as é, A + U+030A as Å)
	AckedHeartbeatOK      bool // a heartbeat of an acked lease answers success (and changes nothing)
	AckedHeartbeatRevives bool // a heartbeat of an acked lease puts its package back in the queue
	ClaimCheckThenSet     bool // claim picks the package, releases the lock for one yield, then leases it without looking again
	TakeoverCheckThenSet  bool // as ClaimCheckThenSet, only when the package picked had a lease (now expired): takeovers race, first claims do not
}

// Dispatcher is the in-memory ExecutionDispatcher with its worker side (spi.LeaseQueue).
type Dispatcher struct {
	cfg     Config
	targets []string

	mu    sync.Mutex
	next  int64
	queue []*entry // in dispatch order
	// acked remembers acked entries by token, for the AckedHeartbeat* mutants only.
	acked map[string]*entry
}

type entry struct {
	id         int64
	pkg        spi.ExecutionPackage
	token      string
	worker     string
	until      int64
	leased     int64 // when the lease was taken or last renewed
	deliveries int
}

// New returns a Dispatcher.
func New(cfg Config) *Dispatcher {
	if cfg.Now == nil {
		cfg.Now = func() int64 { return time.Now().UnixMilli() }
	}
	ts := slices.Clone(cfg.Targets)
	if len(ts) == 0 {
		ts = []string{"default"}
	}
	sort.Strings(ts)
	ts = slices.Compact(ts)
	return &Dispatcher{cfg: cfg, targets: ts}
}

var (
	_ spi.ExecutionDispatcher          = (*Dispatcher)(nil)
	_ spi.LeaseQueue                   = (*Dispatcher)(nil)
	_ spi.ExecutionDispatcherVersioned = (*Dispatcher)(nil)
)

// ExecutionDispatcherSpiVersion states the SPI version the dispatcher claims.
func (d *Dispatcher) ExecutionDispatcherSpiVersion() string {
	return manifest.ExecutionDispatcherSpiVersion
}

// Targets lists the registered targets, ascending.
func (d *Dispatcher) Targets(context.Context) ([]string, error) {
	out := slices.Clone(d.targets)
	if d.cfg.Hooks.PhantomTarget {
		out = append(out, "zz-phantom")
	}
	return out, nil
}

func (d *Dispatcher) known(t string) bool {
	_, ok := slices.BinarySearch(d.targets, t)
	return ok
}

// Dispatch queues pkg behind every earlier package of its execution.
func (d *Dispatcher) Dispatch(ctx context.Context, pkg spi.ExecutionPackage) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := pkg.Validate(); err != nil {
		return err
	}
	if d.cfg.Hooks.HintsBoundBelow && len(pkg.Hints) >= spi.MaxHintsBytes {
		return &spi.InvalidArgumentError{Op: "dispatch", Argument: "hints", Reason: "too large"}
	}
	if pkg.Target != "" && !d.known(pkg.Target) && !d.cfg.Hooks.AcceptAnyTarget {
		return &spi.UnknownTargetError{Target: pkg.Target, Known: slices.Clone(d.targets)}
	}
	pkg.Hints = slices.Clone(pkg.Hints)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.next++
	d.queue = append(d.queue, &entry{id: d.next, pkg: pkg})
	return nil
}

// Claim leases the oldest deliverable package: the head of its execution's queue, not leased live,
// pinned to a target the worker serves (or unpinned).
func (d *Dispatcher) Claim(ctx context.Context, r spi.ClaimRequest) (spi.Lease, bool, error) {
	if err := ctx.Err(); err != nil {
		return spi.Lease{}, false, err
	}
	if d.cfg.Hooks.AnyTTL {
		r.TTL = min(max(r.TTL, spi.MinLeaseTTL), spi.MaxLeaseTTL)
	}
	if err := r.Validate(); err != nil {
		return spi.Lease{}, false, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.cfg.Now()
	d.dropLost(now)
	heads := map[string]bool{}
	var deliverable []*entry // in dispatch order
	for i, e := range d.queue {
		head := !heads[e.pkg.ExecutionID]
		heads[e.pkg.ExecutionID] = true
		if d.cfg.Hooks.HeadOfLine && i > 0 {
			break
		}
		if !head && !d.cfg.Hooks.NoOrder {
			continue
		}
		if e.token != "" && e.until > now && !d.cfg.Hooks.IgnoreLease && !(d.cfg.Hooks.HalfTTL && now >= e.leased+(e.until-e.leased)/2) {
			continue
		}
		if e.pkg.Target != "" && !slices.Contains(r.Targets, e.pkg.Target) && !d.cfg.Hooks.IgnoreTarget {
			continue
		}
		deliverable = append(deliverable, e)
	}
	if len(deliverable) == 0 {
		return spi.Lease{}, false, nil
	}
	e := deliverable[0]
	if d.cfg.Hooks.NewestFirst {
		e = deliverable[len(deliverable)-1]
	}
	if d.cfg.Hooks.ClaimCheckThenSet || (d.cfg.Hooks.TakeoverCheckThenSet && e.token != "") {
		// Two statements: the pick, then the lease, with the lock released between them for one
		// yield (a natural window), so racing claims can lease one package twice.
		d.mu.Unlock()
		runtime.Gosched()
		d.mu.Lock()
	}
	e.deliveries++
	e.token = fmt.Sprintf("lease-%d-%d", e.id, e.deliveries)
	e.worker = r.Worker
	e.leased = now
	e.until = now + r.TTL.Milliseconds()
	if r.TTL < time.Millisecond*1 || e.until == now {
		e.until = now + 1
	}
	return d.lease(e), true, nil
}

// dropLost is the LoseExpired mutant: expired leases lose their package.
func (d *Dispatcher) dropLost(now int64) {
	if !d.cfg.Hooks.LoseExpired {
		return
	}
	d.queue = slices.DeleteFunc(d.queue, func(e *entry) bool { return e.token != "" && e.until <= now })
}

func (d *Dispatcher) lease(e *entry) spi.Lease {
	pkg := e.pkg
	pkg.Hints = slices.Clone(pkg.Hints)
	if d.cfg.Hooks.DropEmptyMembers {
		pkg.Hints = dropEmptyMembers(pkg.Hints)
	}
	if d.cfg.Hooks.DropEmptyHints && string(pkg.Hints) == "{}" {
		pkg.Hints = nil
	}
	if d.cfg.Hooks.NormaliseStrings {
		nfc := strings.NewReplacer("e\u0301", "\u00e9", "A\u030a", "\u00c5", `e\u0301`, `\u00e9`, `A\u030a`, `\u00c5`)
		pkg.ExecutionID, pkg.FlowID, pkg.Hints = nfc.Replace(pkg.ExecutionID), nfc.Replace(pkg.FlowID), json.RawMessage(nfc.Replace(string(pkg.Hints)))
	}
	if d.cfg.Hooks.AddState {
		var m map[string]any
		_ = json.Unmarshal(pkg.Hints, &m)
		if m == nil {
			m = map[string]any{}
		}
		m["state"] = map[string]any{"status": "running"}
		pkg.Hints, _ = json.Marshal(m)
	}
	until := e.until
	if d.cfg.Hooks.ExpiresInSeconds {
		until /= 1000
	}
	return spi.Lease{Token: e.token, Package: pkg, Worker: e.worker, Delivery: e.deliveries, ExpiresAt: until}
}

// dropEmptyMembers is the DropEmptyMembers mutant: hints without their members whose value is
// "", {}, [] or null.
func dropEmptyMembers(hints json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(hints, &m) != nil || m == nil {
		return hints
	}
	for k, v := range m {
		switch string(v) {
		case `""`, `{}`, `[]`, `null`:
			delete(m, k)
		}
	}
	out, _ := json.Marshal(m)
	return out
}

// live finds the entry whose live lease is l.
func (d *Dispatcher) live(l spi.Lease, now int64) (*entry, error) {
	for _, e := range d.queue {
		if e.token == l.Token && l.Token != "" {
			if e.until > now || d.cfg.Hooks.AcceptDeadLease || d.cfg.Hooks.ReviveExpired {
				return e, nil
			}
			break
		}
	}
	if d.cfg.Hooks.AcceptDeadLease && l.Token != "" {
		return nil, nil // answers success for a lease that no longer exists
	}
	return nil, &spi.LeaseLostError{ExecutionID: l.Package.ExecutionID, Token: l.Token}
}

// Heartbeat extends a live lease by ttl from now.
func (d *Dispatcher) Heartbeat(ctx context.Context, l spi.Lease, ttl time.Duration) (spi.Lease, error) {
	if err := ctx.Err(); err != nil {
		return spi.Lease{}, err
	}
	if d.cfg.Hooks.AnyTTL {
		ttl = min(max(ttl, spi.MinLeaseTTL), spi.MaxLeaseTTL)
	}
	if ttl < spi.MinLeaseTTL || ttl > spi.MaxLeaseTTL {
		return spi.Lease{}, &spi.InvalidArgumentError{Op: "heartbeat", Argument: "ttl", Reason: fmt.Sprintf("%s, want %s..%s", ttl, spi.MinLeaseTTL, spi.MaxLeaseTTL)}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.cfg.Now()
	e, err := d.live(l, now)
	if a := d.acked[l.Token]; err != nil && a != nil {
		switch {
		case d.cfg.Hooks.AckedHeartbeatRevives:
			delete(d.acked, l.Token)
			a.token, a.until = "", 0
			d.queue = append(d.queue, a)
			return l, nil
		case d.cfg.Hooks.AckedHeartbeatOK:
			return l, nil
		}
	}
	if err != nil {
		return spi.Lease{}, err
	}
	if e == nil {
		return l, nil
	}
	switch {
	case d.cfg.Hooks.HeartbeatNoExtend:
	case d.cfg.Hooks.HeartbeatFromExpiry:
		e.until += ttl.Milliseconds()
	default:
		e.until = now + ttl.Milliseconds()
	}
	e.leased = now
	return d.lease(e), nil
}

// Ack settles a live lease: its package is removed for good.
func (d *Dispatcher) Ack(ctx context.Context, l spi.Lease) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	e, err := d.live(l, d.cfg.Now())
	if err != nil || e == nil {
		return err
	}
	if d.cfg.Hooks.AckKeeps {
		e.until = 0 // looks settled to the caller, delivered again on the next claim
		return nil
	}
	d.queue = slices.DeleteFunc(d.queue, func(x *entry) bool { return x == e })
	if d.cfg.Hooks.AckedHeartbeatOK || d.cfg.Hooks.AckedHeartbeatRevives {
		if d.acked == nil {
			d.acked = map[string]*entry{}
		}
		d.acked[e.token] = e
	}
	return nil
}

// Pending returns the number of packages not yet acked (for simulations and tests).
func (d *Dispatcher) Pending() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.queue)
}
