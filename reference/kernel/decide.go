package kernel

import (
	"encoding/json"
	"fmt"

	"github.com/loom-kernel/loom-conform/manifest"
)

// DecideOption adds the optional, descriptive fields of DECISION_RECORDED (1.18.0): never read back.
type DecideOption func(*decideOpts)

type decideOpts struct{ context, policy any }

// WithContext records the observation the decider saw.
func WithContext(v any) DecideOption { return func(o *decideOpts) { o.context = v } }

// WithPolicy records the policy that decided (and its propensity).
func WithPolicy(v any) DecideOption { return func(o *decideOpts) { o.policy = v } }

// Decide makes a non-deterministic choice durably (P9): the first time the decider runs and its
// choice is recorded as DECISION_RECORDED; on replay the recorded choice is served and the decider
// is not called. Ids beginning __loom_ are the kernel's and are refused (spec §5).
func (c *Context) Decide(id string, decider Decider, opts ...DecideOption) (json.RawMessage, error) {
	r := c.r
	r.mu.Lock()
	locked := true
	defer func() {
		if locked {
			r.mu.Unlock()
		}
	}()
	c.enter()
	switch {
	case id == "":
		return nil, &SyscallError{Syscall: "decide", Reason: "empty decision id"}
	case isReserved(id):
		return nil, &SyscallError{Syscall: "decide", Reason: fmt.Sprintf("decision id %q is reserved for the kernel (%s prefix)", id, reservedPrefix)}
	case decider == nil:
		return nil, &SyscallError{Syscall: "decide", Reason: "nil decider"}
	}
	if choice, ok := r.decisions[id]; ok && !r.rt.cfg.Hooks.DecisionsRecomputed {
		return choice, nil
	}
	var o decideOpts
	for _, f := range opts {
		f(&o)
	}
	var ctxRaw, polRaw json.RawMessage
	var err error
	if o.context != nil {
		if ctxRaw, err = rawJSON(o.context); err != nil {
			return nil, &SyscallError{Syscall: "decide", Reason: "context has no JSON form: " + err.Error()}
		}
	}
	if o.policy != nil {
		if polRaw, err = rawJSON(o.policy); err != nil {
			return nil, &SyscallError{Syscall: "decide", Reason: "policy has no JSON form: " + err.Error()}
		}
	}
	if r.rt.cfg.Hooks.DropDecisionContext {
		ctxRaw = nil
	}
	if !r.readOnly {
		c.markLive()
	}
	r.inFlight++
	locked = false
	r.mu.Unlock()

	v, derr := callDecider(r, decider)

	r.mu.Lock()
	locked = true
	r.inFlight--
	if r.closed != nil {
		panic(abortSignal{r.closed})
	}
	if r.readOnly && derr == nil {
		// the log holds no choice: only a decider that threw leaves none, so a choice now is a
		// divergence (I-KERNEL-1)
		panic(abortSignal{r.divergence(manifest.DecisionRecorded)})
	}
	if derr != nil {
		r.unserved = true // a throwing decider is an outcome a re-run does not serve (spec §3)
		return nil, &DeciderError{ID: id, Err: derr}
	}
	choice, err := rawJSON(v)
	if err != nil {
		r.unserved = true
		return nil, &DeciderError{ID: id, Err: fmt.Errorf("choice has no JSON form: %w", err)}
	}
	var seq any // never in the payload: 1.24.0 folds seq from the envelope
	if r.rt.cfg.Hooks.DecisionSeqInPayload && r.rt.cfg.Profile.AtLeast(24) {
		seq = r.next
	}
	r.mustAppend(newEvent{eventType: manifest.DecisionRecorded, payload: obj("id", id, "choice", choice, "context", ctxRaw, "policy", polRaw, "seq", seq)})
	r.decisions[id] = choice
	return choice, nil
}

func callDecider(r *run, d Decider) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("decider panicked: %v", p)
		}
	}()
	return d(r.ctx)
}
