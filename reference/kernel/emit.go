package kernel

import (
	"encoding/json"
	"fmt"
	"github.com/loom-kernel/loom-conform/reference/kernel/userspace"

	"github.com/loom-kernel/loom-conform/reference/fold"
)

// Emit appends a flow-level event once per execution (spec §3, ADR 0102). On a re-run the n-th
// emit of a digest is served (not appended) iff the log holds more than n stamped emits of it and
// nothing in the current segment ran live; otherwise it is appended, stamped only when it exceeds
// the logged count, nothing of the run is in flight and nothing earlier ended unserved.
func (c *Context) Emit(eventType string, payload any) error {
	return c.emit("emit", eventType, payload)
}

// Stream appends one chunk of a stream channel (spec §2); served exactly as Emit.
func (c *Context) Stream(eventType string, chunk any) error {
	return c.emit("stream", eventType, chunk)
}

// UI appends a UI event (spec §2); served exactly as Emit.
func (c *Context) UI(eventType string, spec any) error { return c.emit("ui", eventType, spec) }

// EmitDecision is what the serving rule decided for one emit; the kits read it through
// Config.Trace.
type EmitDecision struct {
	Syscall   string
	EventType string
	Digest    string // "" when the payload has no JSON form
	Segment   int
	N         int64 // emits of this digest already made in this run
	Logged    int64 // stamped emits of this digest in the log at the decision
	Appended  bool
	Stamped   bool
}

func (c *Context) emit(syscall, eventType string, payload any) error {
	r := c.r
	if eventType == "" {
		return &SyscallError{Syscall: syscall, Reason: "empty event type"}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c.enter()
	chk, err := r.checkUserspace(userspace.Emit{Source: userspace.SourceFlow, EventType: eventType, Payload: payload})
	if err != nil {
		return err // refused by the userspace rules (spec §5): nothing appended
	}
	if chk.NoJSONForm {
		// spec §3: a payload with no JSON form is appended unstamped; its persisted form is null
		// (I-KERNEL-4).
		r.rt.cfg.Warn(Warning{ExecutionID: r.execID, Code: "emit-unmatchable", Clauses: []string{"S3.emit.unmatchable-unstamped"},
			Message: fmt.Sprintf("%s %s: payload has no JSON form; appended unstamped as null", syscall, eventType)})
		r.mustAppend(newEvent{eventType: eventType, payload: json.RawMessage("null"), emit: true})
		r.trace(EmitDecision{Syscall: syscall, EventType: eventType, Segment: r.segment, Appended: true})
		return nil
	}
	if r.servedUserspaceDecision(chk) {
		return nil
	}
	raw := chk.Payload
	d, err := fold.EmitDigest(r.segment, eventType, raw)
	if err != nil { // the userspace copy is JSON; treat anything else as unmatchable
		r.mustAppend(newEvent{eventType: eventType, payload: json.RawMessage("null"), emit: true})
		return nil
	}
	n := r.emitN[d]
	r.emitN[d] = n + 1
	logged := r.flowEmits[d]
	dec := EmitDecision{Syscall: syscall, EventType: eventType, Digest: d, Segment: r.segment, N: n, Logged: logged}
	h := r.rt.cfg.Hooks
	if logged > n && (!c.segmentLive() || h.ServeIgnoringLiveWork) {
		r.trace(dec) // served: the log proves this emit
		return nil
	}
	stamp := logged <= n && // it exceeds the logged count
		(h.StampWhileInFlight || (r.inFlight == 0 && !c.inParallel)) &&
		(h.StampAfterUnserved || !r.unserved) &&
		!isKernelFact(eventType) && !h.NeverStamp
	ev := newEvent{eventType: eventType, payload: raw, emit: true}
	if stamp {
		ev.metadata = obj("flowEmit", d)
	}
	r.mustAppend(ev)
	r.noteUserspaceDecision(chk)
	if stamp && !r.readOnly {
		r.flowEmits[d]++
	}
	dec.Appended, dec.Stamped = true, stamp
	r.trace(dec)
	return nil
}

func (r *run) trace(d EmitDecision) {
	if r.rt.cfg.Trace != nil {
		r.rt.cfg.Trace(r.execID, d)
	}
}
