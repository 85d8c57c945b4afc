package spi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The ExecutionDispatcher seam (spec §6, §7). Its placement side (Dispatch, Targets) is what the
// spec names; its worker side (LeaseQueue: claim, heartbeat, ack) is how a worker receives packages
// (I-DISPATCH-1). docs/spi.md holds the semantics.

// Method names of the dispatcher seam, as in manifest.Spis().
const (
	MethodDispatch  = "dispatch"
	MethodTargets   = "targets"
	MethodClaim     = "claim"
	MethodHeartbeat = "heartbeat"
	MethodAck       = "ack"
)

// MaxHintsBytes bounds an ExecutionPackage's hints (I-DISPATCH-2): a package carries coordinates,
// and a bound this small keeps state and code out of it.
const MaxHintsBytes = 4096

// Lease TTL bounds for ClaimRequest.TTL (I-DISPATCH-4).
const (
	MinLeaseTTL = time.Millisecond
	MaxLeaseTTL = 10 * time.Minute
)

// ExecutionPackage is what a dispatcher carries to a worker: coordinates only (spec §6) — the
// execution, its flow, the compute target it is pinned to ("" = unpinned) and resume hints (a small
// JSON object or absent). Never code, never state: a worker rebuilds state from the shared stores.
type ExecutionPackage struct {
	ExecutionID string          `json:"executionId"`
	FlowID      string          `json:"flowId"`
	Target      string          `json:"target,omitempty"`
	Hints       json.RawMessage `json:"hints,omitempty"`
}

// Validate refuses a package that is not coordinates only: an empty executionId or flowId, hints
// that are not a JSON object, or hints over MaxHintsBytes (I-DISPATCH-2).
func (p ExecutionPackage) Validate() error {
	bad := func(arg, reason string) error {
		return &InvalidArgumentError{Op: "dispatch", Argument: arg, Reason: reason}
	}
	switch {
	case p.ExecutionID == "":
		return bad("executionId", "empty")
	case p.FlowID == "":
		return bad("flowId", "empty")
	case len(p.Hints) > MaxHintsBytes:
		return bad("hints", fmt.Sprintf("%d bytes, at most %d: a package carries coordinates, not state", len(p.Hints), MaxHintsBytes))
	}
	if len(p.Hints) > 0 {
		t := bytes.TrimSpace(p.Hints)
		if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
			return bad("hints", "not a JSON object")
		}
	}
	return nil
}

// Lease is one delivery of a package to a worker. Token identifies this delivery; Delivery counts
// the deliveries of the package (1 = first). A lease is live until ExpiresAt (epoch ms, the
// dispatcher's clock) unless extended by Heartbeat; after that it is dead for good.
type Lease struct {
	Token     string           `json:"token"`
	Package   ExecutionPackage `json:"package"`
	Worker    string           `json:"worker"`
	Delivery  int              `json:"delivery"`
	ExpiresAt int64            `json:"expiresAt"`
}

// ClaimRequest asks for the next deliverable package for a worker serving Targets (a package
// pinned to a target goes only to a worker that serves it; an unpinned one to any worker).
type ClaimRequest struct {
	Worker  string
	Targets []string
	TTL     time.Duration
}

// Validate refuses an empty worker, no targets, or a TTL outside [MinLeaseTTL, MaxLeaseTTL].
func (r ClaimRequest) Validate() error {
	bad := func(arg, reason string) error {
		return &InvalidArgumentError{Op: "claim", Argument: arg, Reason: reason}
	}
	switch {
	case r.Worker == "":
		return bad("worker", "empty")
	case len(r.Targets) == 0:
		return bad("targets", "empty: a worker serves at least one target")
	case r.TTL < MinLeaseTTL || r.TTL > MaxLeaseTTL:
		return bad("ttl", fmt.Sprintf("%s, want %s..%s", r.TTL, MinLeaseTTL, MaxLeaseTTL))
	}
	for i, t := range r.Targets {
		if t == "" {
			return bad(fmt.Sprintf("targets[%d]", i), "empty")
		}
	}
	return nil
}

// ExecutionDispatcher places executions onto workers (spec §6, §7).
type ExecutionDispatcher interface {
	// Dispatch queues pkg for delivery; it is delivered as dispatched, ids, flow id and hints string
	// for string, never normalised or cut (I-DISPATCH-14, I-STORE-80). Recommended: a package pinned
	// to a target the dispatcher does not list is refused with *UnknownTargetError and nothing is
	// queued (I-DISPATCH-5), and a malformed package is ErrInvalidArgument before that (I-STORE-56).
	Dispatch(ctx context.Context, pkg ExecutionPackage) error
	// Targets lists the registered compute targets (recommended: at least one, ascending, without
	// duplicates, I-DISPATCH-5, I-DISPATCH-9).
	Targets(ctx context.Context) ([]string, error)
}

// LeaseQueue is the worker side of a dispatcher (optional methods claim, heartbeat, ack).
type LeaseQueue interface {
	// Claim leases the next deliverable package to r.Worker; ok is false when there is none. The
	// lease is exclusive for its whole TTL (I-DISPATCH-4); recommended: the package is the oldest
	// deliverable one, and a leased package never hides others (I-DISPATCH-12).
	Claim(ctx context.Context, r ClaimRequest) (lease Lease, ok bool, err error)
	// Heartbeat renews a live lease until the dispatcher's now plus ttl — from now, never from the
	// old expiry, so a shorter ttl shortens it (I-DISPATCH-30) — and returns it; a dead lease is
	// ErrLeaseLost (I-DISPATCH-4), and so, recommended, is an acked one (I-DISPATCH-31).
	Heartbeat(ctx context.Context, l Lease, ttl time.Duration) (Lease, error)
	// Ack settles a live lease: the package is never delivered again, whatever is done with the
	// lease afterwards (I-DISPATCH-3). A dead lease is ErrLeaseLost; recommended, an acked one too
	// (I-DISPATCH-31).
	Ack(ctx context.Context, l Lease) error
}

// ExecutionDispatcherVersioned is implemented by dispatchers that state the SPI version they claim.
type ExecutionDispatcherVersioned interface {
	ExecutionDispatcherSpiVersion() string
}

var (
	// ErrUnknownTarget: a package pinned a compute target the dispatcher does not list.
	ErrUnknownTarget = errors.New("unknown compute target")
	// ErrLeaseLost: a heartbeat or ack of a lease that expired (and may have been re-delivered).
	ErrLeaseLost = errors.New("lease lost")
)

// UnknownTargetError details ErrUnknownTarget, naming the target and the known ones.
type UnknownTargetError struct {
	Target string
	Known  []string
}

func (e *UnknownTargetError) Error() string {
	return fmt.Sprintf("unknown compute target %q (registered: %s)", e.Target, strings.Join(e.Known, ", "))
}

// Is makes errors.Is(err, ErrUnknownTarget) true.
func (e *UnknownTargetError) Is(target error) bool { return target == ErrUnknownTarget }

// LeaseLostError details ErrLeaseLost.
type LeaseLostError struct {
	ExecutionID string
	Token       string
}

func (e *LeaseLostError) Error() string {
	return fmt.Sprintf("lease %q of execution %q is lost: it expired and may have been re-delivered", e.Token, e.ExecutionID)
}

// Is makes errors.Is(err, ErrLeaseLost) true.
func (e *LeaseLostError) Is(target error) bool { return target == ErrLeaseLost }
