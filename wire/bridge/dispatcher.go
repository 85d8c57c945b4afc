package bridge

import (
	"context"
	"encoding/json"
	"time"

	"github.com/loom-kernel/loom-conform/manifest"
	"github.com/loom-kernel/loom-conform/spi"
)

// The ExecutionDispatcher seam over the bridge (docs/bridge.md, "dispatcher.*"; semantics in
// docs/spi.md §8). TTLs travel as integer milliseconds.

type (
	dispatchParams struct {
		Package spi.ExecutionPackage `json:"package"`
	}
	targetsParams struct{}
	claimParams   struct {
		Worker  string   `json:"worker"`
		Targets []string `json:"targets"`
		TTLMs   int64    `json:"ttlMs"`
	}
	heartbeatParams struct {
		Lease spi.Lease `json:"lease"`
		TTLMs int64     `json:"ttlMs"`
	}
	ackParams struct {
		Lease spi.Lease `json:"lease"`
	}
	// claimResult is {"lease": …} or {"lease": null} when nothing is deliverable.
	claimResult struct {
		Lease *spi.Lease `json:"lease"`
	}
	unknownTargetData struct {
		Target string   `json:"target"`
		Known  []string `json:"known"`
	}
	leaseLostData struct {
		ExecutionID string `json:"executionId"`
		Token       string `json:"token"`
	}
)

func addDispatcher(hs map[string]handler, d spi.ExecutionDispatcher) {
	hs["dispatcher.dispatch"] = on(func(ctx context.Context, p dispatchParams) (any, error) {
		return nil, d.Dispatch(ctx, p.Package)
	})
	hs["dispatcher.targets"] = on(func(ctx context.Context, _ targetsParams) (any, error) {
		ts, err := d.Targets(ctx)
		if ts == nil {
			ts = []string{}
		}
		return ts, err
	})
	q, ok := d.(spi.LeaseQueue)
	if !ok {
		return
	}
	hs["dispatcher.claim"] = on(func(ctx context.Context, p claimParams) (any, error) {
		l, ok, err := q.Claim(ctx, spi.ClaimRequest{Worker: p.Worker, Targets: p.Targets, TTL: time.Duration(p.TTLMs) * time.Millisecond})
		if err != nil || !ok {
			return claimResult{}, err
		}
		return claimResult{Lease: &l}, nil
	})
	hs["dispatcher.heartbeat"] = on(func(ctx context.Context, p heartbeatParams) (any, error) {
		return q.Heartbeat(ctx, p.Lease, time.Duration(p.TTLMs)*time.Millisecond)
	})
	hs["dispatcher.ack"] = on(func(ctx context.Context, p ackParams) (any, error) {
		return nil, q.Ack(ctx, p.Lease)
	})
}

// Dispatcher returns the bridge's ExecutionDispatcher, or nil when the handshake does not serve
// that seam. It implements spi.LeaseQueue, spi.Capabilities and spi.ExecutionDispatcherVersioned
// from the handshake; use spi.Has before the worker-side methods.
func (c *Client) Dispatcher() *Dispatcher {
	if !c.serves(manifest.SeamExecutionDispatcher) {
		return nil
	}
	return &Dispatcher{c: c}
}

// Dispatcher is the client side of the ExecutionDispatcher seam.
type Dispatcher struct{ c *Client }

var (
	_ spi.ExecutionDispatcher          = (*Dispatcher)(nil)
	_ spi.LeaseQueue                   = (*Dispatcher)(nil)
	_ spi.Capabilities                 = (*Dispatcher)(nil)
	_ spi.ExecutionDispatcherVersioned = (*Dispatcher)(nil)
)

// Implements reports whether the handshake declares the method.
func (d *Dispatcher) Implements(method string) bool {
	return d.c.declares(manifest.SeamExecutionDispatcher, method)
}

// ExecutionDispatcherSpiVersion is the version the handshake claims.
func (d *Dispatcher) ExecutionDispatcherSpiVersion() string {
	return d.c.claimed(manifest.SeamExecutionDispatcher)
}

func (d *Dispatcher) need(method string) error {
	if !d.Implements(method) {
		return unsupported("dispatcher", method)
	}
	return nil
}

func (d *Dispatcher) Dispatch(ctx context.Context, p spi.ExecutionPackage) error {
	if len(p.Hints) > 0 && !json.Valid(p.Hints) {
		return spi.Invalid("dispatch", "hints", "not valid JSON, so it cannot cross the bridge")
	}
	return d.c.Call(ctx, "dispatcher.dispatch", dispatchParams{p}, nil)
}

func (d *Dispatcher) Targets(ctx context.Context) ([]string, error) {
	var out []string
	err := d.c.Call(ctx, "dispatcher.targets", targetsParams{}, &out)
	return out, err
}

func (d *Dispatcher) Claim(ctx context.Context, r spi.ClaimRequest) (spi.Lease, bool, error) {
	if err := d.need(spi.MethodClaim); err != nil {
		return spi.Lease{}, false, err
	}
	var res claimResult
	if err := d.c.Call(ctx, "dispatcher.claim", claimParams{r.Worker, nonNil(r.Targets), r.TTL.Milliseconds()}, &res); err != nil {
		return spi.Lease{}, false, err
	}
	if res.Lease == nil {
		return spi.Lease{}, false, nil
	}
	return *res.Lease, true, nil
}

func (d *Dispatcher) Heartbeat(ctx context.Context, l spi.Lease, ttl time.Duration) (spi.Lease, error) {
	var out spi.Lease
	if err := d.need(spi.MethodHeartbeat); err != nil {
		return out, err
	}
	err := d.c.Call(ctx, "dispatcher.heartbeat", heartbeatParams{l, ttl.Milliseconds()}, &out)
	return out, err
}

func (d *Dispatcher) Ack(ctx context.Context, l spi.Lease) error {
	if err := d.need(spi.MethodAck); err != nil {
		return err
	}
	return d.c.Call(ctx, "dispatcher.ack", ackParams{l}, nil)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
